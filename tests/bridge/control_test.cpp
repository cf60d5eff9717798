// The bridge's control socket (bridge/include/imsb/bridge/control.hpp): the line protocol with a fake
// command handler, mode 0600, the stale file a killed bridge leaves, a live owner and other files left
// alone, and the client when nothing answers.

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "imsb/bridge/control.hpp"
#include "imsb/core/messages.hpp"
#include "process.hpp"

namespace imsb::bridge {
namespace {

using namespace std::chrono_literals;

// A fake engine::command: records each line, answers two lines naming it.
struct fake_engine {
  std::mutex mu;
  std::vector<std::string> seen;
  std::vector<std::string> operator()(std::string_view line) {
    std::lock_guard<std::mutex> lock(mu);
    seen.emplace_back(line);
    return {"ANSWER TO " + std::string(line), "SECOND LINE"};
  }
};

sockaddr_un address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::copy(path.begin(), path.end(), a.sun_path);
  return a;
}

// A raw client, to send several lines on one connection and read everything that comes back.
class raw_client {
 public:
  explicit raw_client(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    const sockaddr_un a = address(path);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
    const timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~raw_client() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& s) {
    ASSERT_EQ(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
  }
  // Reads until `ends` empty lines (end markers) have come.
  std::string read_answers(int ends) {
    std::string got;
    char buf[4096];
    auto count_ends = [&] {
      int n = (got.rfind("\n", 0) == 0) ? 1 : 0;
      for (std::size_t p = got.find("\n\n"); p != std::string::npos; p = got.find("\n\n", p + 1)) ++n;
      return n;
    };
    while (count_ends() < ends) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// A socket file nobody listens on, as a killed bridge leaves behind.
void make_stale_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  const sockaddr_un a = address(path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  ::close(fd);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  ASSERT_TRUE(S_ISSOCK(st.st_mode));
}

class control_test : public ::testing::Test {
 protected:
  std::unique_ptr<control_socket> open_socket(const std::string& path) {
    auto opened = control_socket::open(path, [this](std::string_view l) { return engine_(l); });
    if (!opened) {
      ADD_FAILURE() << opened.error().to_string();
      return nullptr;
    }
    return std::move(opened).value();
  }
  test::temp_dir dir_;
  fake_engine engine_;
};

TEST_F(control_test, OneCommandRoundTrip) {
  const std::string path = dir_.file("ctl.sock");
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->path(), path);
  auto answer = send_control_command(path, "DISPLAY QUEUES");
  ASSERT_TRUE(answer.ok()) << answer.error().to_string();
  EXPECT_EQ(*answer, (std::vector<std::string>{"ANSWER TO DISPLAY QUEUES", "SECOND LINE"}));
  std::lock_guard<std::mutex> lock(engine_.mu);
  EXPECT_EQ(engine_.seen, (std::vector<std::string>{"DISPLAY QUEUES"}));
}

TEST_F(control_test, ManyLinesOnOneConnectionInOrderAndEmptyLinesAnsweredAtOnce) {
  const std::string path = dir_.file("ctl.sock");
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  raw_client c(path);
  ASSERT_TRUE(c.connected());
  // CRLF and trailing blanks are not part of the command; an empty line gets the end marker alone.
  c.send("FIRST\r\n\nSECOND   \n");
  const std::string got = c.read_answers(3);
  EXPECT_EQ(got,
            "ANSWER TO FIRST\nSECOND LINE\n\n"
            "\n"
            "ANSWER TO SECOND\nSECOND LINE\n\n");
  std::lock_guard<std::mutex> lock(engine_.mu);
  EXPECT_EQ(engine_.seen, (std::vector<std::string>{"FIRST", "SECOND"}));
}

TEST_F(control_test, Mode0600AndRemovedAtStop) {
  const std::string path = dir_.file("ctl.sock");
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  s->stop();
  EXPECT_FALSE(std::filesystem::exists(path));
  s->stop();  // idempotent
  auto after = send_control_command(path, "DISPLAY");
  EXPECT_FALSE(after.ok());
}

TEST_F(control_test, StaleSocketFileIsReplaced) {
  const std::string path = dir_.file("ctl.sock");
  make_stale_socket(path);
  // The client sees nothing answering there.
  auto refused = send_control_command(path, "DISPLAY");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, std::error_code(ECONNREFUSED, std::generic_category()));
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  auto answer = send_control_command(path, "X");
  ASSERT_TRUE(answer.ok()) << answer.error().to_string();
  EXPECT_EQ(answer->front(), "ANSWER TO X");
}

TEST_F(control_test, LiveSocketAndOtherFilesAreLeftAlone) {
  const std::string path = dir_.file("ctl.sock");
  auto first = open_socket(path);
  ASSERT_TRUE(first);
  auto second = control_socket::open(path, [](std::string_view) { return std::vector<std::string>{}; });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, std::make_error_code(std::errc::address_in_use));
  EXPECT_EQ(second.error().field, "bridge.control-socket");
  // The first still answers.
  EXPECT_TRUE(send_control_command(path, "STILL").ok());

  const std::string file = dir_.file("not-a-socket");
  std::ofstream(file) << "keep me";
  auto on_file = control_socket::open(file, [](std::string_view) { return std::vector<std::string>{}; });
  ASSERT_FALSE(on_file.ok());
  EXPECT_EQ(on_file.error().code, std::make_error_code(std::errc::not_a_socket));
  std::ifstream in(file);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
}

TEST_F(control_test, StopRemovesOnlyItsOwnFile) {
  const std::string path = dir_.file("ctl.sock");
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  // Someone replaced the file meanwhile: stop() must not remove theirs.
  ASSERT_EQ(::unlink(path.c_str()), 0);
  std::ofstream(path) << "theirs";
  s->stop();
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(control_test, PathTooLong) {
  const std::string path = dir_.path() + "/" + std::string(120, 'p');
  auto s = control_socket::open(path, [](std::string_view) { return std::vector<std::string>{}; });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, std::make_error_code(std::errc::filename_too_long));
  auto c = send_control_command(path, "X");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, std::make_error_code(std::errc::filename_too_long));
}

TEST_F(control_test, ClientWhenNothingListens) {
  auto missing = send_control_command(dir_.file("none.sock"), "DISPLAY");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, std::error_code(ENOENT, std::generic_category()));
  EXPECT_NE(missing.error().detail.find("none.sock"), std::string::npos);
}

TEST_F(control_test, ClientRefusesALineBreak) {
  const std::string path = dir_.file("ctl.sock");
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  auto r = send_control_command(path, "ONE\nTWO");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument));
  std::lock_guard<std::mutex> lock(engine_.mu);
  EXPECT_TRUE(engine_.seen.empty());
}

TEST_F(control_test, ClientTimesOutWhenTheAnswerNeverEnds) {
  // A listener that accepts (the backlog does) but never answers.
  const std::string path = dir_.file("mute.sock");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_un a = address(path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = send_control_command(path, "DISPLAY", 200ms);
  ::close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::timed_out));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);  // poll rounds to milliseconds
}

TEST_F(control_test, ClientSeesAConnectionClosedBeforeTheEnd) {
  // A peer that answers one line without the end marker, then closes.
  const std::string path = dir_.file("cut.sock");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_un a = address(path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  std::thread peer([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) return;
    char buf[64];
    (void)!::recv(c, buf, sizeof buf, 0);
    (void)!::send(c, "PARTIAL\n", 8, MSG_NOSIGNAL);
    ::close(c);
  });
  auto r = send_control_command(path, "DISPLAY");
  peer.join();
  ::close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::connection_reset));
}

// Clients that connect and send no complete line are closed after the idle limit (IMB2065W, one line
// each), so that they cannot hold all 16 slots: a real command gets through.
TEST_F(control_test, IdleConnectionsAreClosedAfterTheLimit) {
  const std::string path = dir_.file("ctl.sock");
  std::mutex log_mu;
  std::vector<std::string> log;
  auto opened = control_socket::open(
      path, [this](std::string_view l) { return engine_(l); },
      [&](const std::string& line) {
        std::lock_guard<std::mutex> lock(log_mu);
        log.push_back(line);
      },
      300ms);
  ASSERT_TRUE(opened.ok()) << opened.error().to_string();
  std::vector<std::unique_ptr<raw_client>> idle;
  for (int i = 0; i < 16; ++i) {
    idle.push_back(std::make_unique<raw_client>(path));
    ASSERT_TRUE(idle.back()->connected());
  }
  idle.front()->send("DISPLAY QUE");  // a partial line does not count
  const auto start = std::chrono::steady_clock::now();
  auto answer = send_control_command(path, "DISPLAY QUEUES", 8s);
  ASSERT_TRUE(answer.ok()) << answer.error().to_string();
  EXPECT_EQ(answer->front(), "ANSWER TO DISPLAY QUEUES");
  // Each idle client sees the end of the stream, not its 10 s receive timeout.
  for (auto& c : idle) EXPECT_EQ(c->read_answers(1), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
  std::lock_guard<std::mutex> lock(log_mu);
  ASSERT_EQ(log.size(), 16u);
  for (const auto& l : log)
    EXPECT_EQ(l.rfind(std::string(msg::IMB2065W) + " CONTROL SOCKET " + path, 0), 0u) << l;
  std::lock_guard<std::mutex> seen(engine_.mu);
  EXPECT_EQ(engine_.seen, (std::vector<std::string>{"DISPLAY QUEUES"}));
}

// A client that keeps sending complete lines is not idle.
TEST_F(control_test, CompleteLinesKeepAConnectionOpen) {
  const std::string path = dir_.file("ctl.sock");
  auto opened = control_socket::open(
      path, [this](std::string_view l) { return engine_(l); }, {}, 400ms);
  ASSERT_TRUE(opened.ok());
  raw_client c(path);
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(200ms);  // the pacing under test: each line within the limit
    c.send("PING\n");
    EXPECT_EQ(c.read_answers(1), "ANSWER TO PING\nSECOND LINE\n\n") << i;
  }
}

TEST_F(control_test, StopClosesOpenConnections) {
  const std::string path = dir_.file("ctl.sock");
  auto s = open_socket(path);
  ASSERT_TRUE(s);
  raw_client c(path);
  ASSERT_TRUE(c.connected());
  c.send("PING\n");
  EXPECT_EQ(c.read_answers(1), "ANSWER TO PING\nSECOND LINE\n\n");
  s->stop();
  // The connection is closed: end of stream, not the 10 s receive timeout.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.read_answers(1), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

}  // namespace
}  // namespace imsb::bridge
