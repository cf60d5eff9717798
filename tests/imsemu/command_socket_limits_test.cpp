// The command socket's limits (program.cpp command_loop [D]): a client that does not read its answers is
// dropped instead of blocking the socket and stop(); every line is answered, an empty one with the end
// marker alone; connections beyond the cap wait for a free slot; stop() removes only the socket file it
// made; a socket that refuses nothing is not taken as stale.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "imsb/imsemu/command_client.hpp"
#include "imsb/imsemu/program.hpp"

namespace imsb::imsemu {
namespace {

namespace fs = std::filesystem;
using lines = std::vector<std::string>;
using std::chrono::milliseconds;
constexpr milliseconds answer_time{10000};

class socket_limits_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-sock-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    program_options o;
    o.group = "XCFGRP1";
    o.member = "IMSA";
    o.state_dir = dir_ / "state";
    auto p = program::open(o, [](const std::string&) {});
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    program_ = std::move(p).value();
    socket_ = (dir_ / "cmd.sock").string();
    ASSERT_TRUE(program_->listen_commands(socket_).ok());
  }
  void TearDown() override {
    if (program_) program_->stop("test");
    program_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  command_client connect() {
    auto c = command_client::connect(socket_);
    EXPECT_TRUE(c.ok()) << c.error().to_string();
    return std::move(c).value();
  }

  fs::path dir_;
  std::string socket_;
  std::unique_ptr<program> program_;
};

TEST_F(socket_limits_test, a_client_that_never_reads_is_dropped_and_blocks_neither_others_nor_stop) {
  auto hog = connect();
  // Far more answer than a socket buffer holds, never read.
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "FAULT SHOW\n";
  ASSERT_TRUE(hog.send(many).ok());
  auto other = connect();
  ASSERT_TRUE(other.send("/DIS OTMA\n").ok());
  const auto a = other.answer(answer_time);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_FALSE(a->empty());
  const auto started = std::chrono::steady_clock::now();
  auto stopped = std::async(std::launch::async, [&] { program_->stop("test"); });
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "stop() hangs";
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  program_.reset();
}

TEST_F(socket_limits_test, an_empty_line_is_answered_with_the_end_marker_alone) {
  auto c = connect();
  ASSERT_TRUE(c.send("\n  \r\n/DIS OTMA\n").ok());
  EXPECT_EQ(c.answer(answer_time).value(), lines{});
  EXPECT_EQ(c.answer(answer_time).value(), lines{});
  EXPECT_FALSE(c.answer(answer_time).value().empty());
}

TEST_F(socket_limits_test, connections_beyond_the_cap_wait_for_a_free_slot) {
  std::vector<command_client> idle;
  for (int i = 0; i < 16; ++i) {
    idle.push_back(connect());
    ASSERT_TRUE(idle.back().send("\n").ok());  // answered: each of these is accepted and served
    ASSERT_TRUE(idle.back().answer(answer_time).ok());
  }
  auto late = connect();  // in the listen backlog, not accepted yet
  ASSERT_TRUE(late.send("/DIS OTMA\n").ok());
  const auto waiting = late.answer(milliseconds(600));
  ASSERT_FALSE(waiting.ok());
  EXPECT_EQ(waiting.error().code, std::make_error_code(std::errc::timed_out));
  idle.pop_back();  // one slot frees
  const auto served = late.answer(answer_time);
  ASSERT_TRUE(served.ok()) << served.error().to_string();
  EXPECT_FALSE(served->empty());
}

TEST_F(socket_limits_test, stop_leaves_a_socket_file_that_another_process_put_there) {
  // Someone removed our file and bound their own at the path: it is theirs, stop() must not remove it.
  ASSERT_EQ(::unlink(socket_.c_str()), 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::copy(socket_.begin(), socket_.end(), addr.sun_path);
  const int theirs = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(::bind(theirs, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  program_->stop("test");
  program_.reset();
  EXPECT_TRUE(fs::exists(fs::symlink_status(socket_)));
  ::close(theirs);
}

TEST_F(socket_limits_test, a_socket_whose_owner_is_busy_is_not_taken_as_stale) {
  // A listener with a full backlog: connect() does not refuse, so the path is someone's; a second
  // emulator must refuse it without blocking, and must not unlink it.
  const std::string busy = (dir_ / "busy.sock").string();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::copy(busy.begin(), busy.end(), addr.sun_path);
  const int owner = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(::bind(owner, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(owner, 0), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    const int f = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ::connect(f, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    fillers.push_back(f);
  }
  auto second = std::async(std::launch::async, [&] { return program_->listen_commands(busy); });
  ASSERT_EQ(second.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the probe blocked";
  const auto r = second.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::address_in_use));
  EXPECT_TRUE(fs::exists(fs::symlink_status(busy)));
  for (int f : fillers) ::close(f);
  ::close(owner);
}

}  // namespace
}  // namespace imsb::imsemu
