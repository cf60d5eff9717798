// imsemu's run-time operation: stopped statuses across warm and cold restarts (journal
// record tran_set and the Tpipe's stopped flag), the /DIS OTMA TIB limits of the default definitions,
// FAULT HOLD|RELEASE RUNS and FAULT RESTART, and the program's local command socket.

#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsemu/command_client.hpp"
#include "imsb/imsemu/commands.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/imsemu/program.hpp"

namespace imsb::imsemu {
namespace {

namespace fs = std::filesystem;
using lines = std::vector<std::string>;

class temp_folder {
 public:
  temp_folder() {
    std::string tmpl = (fs::temp_directory_path() / "imsb-ops-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

bool contains(const lines& ls, const std::string& what) {
  return std::any_of(ls.begin(), ls.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

// ---- stopped statuses across restarts -------------------------------------------------------------

class restart_status_test : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }

  std::unique_ptr<engine> open(bool cold) {
    auto e = engine::open(ims::default_definitions("XCFGRP1", "IMSA"), dir_.path() / "state", cold,
                          [](const std::string&) {});
    EXPECT_TRUE(e.ok()) << (e.ok() ? std::string() : e.error().to_string());
    return e.ok() ? std::move(e).value() : nullptr;
  }
  // A Tpipe of client MQCLIENT, made as an input makes it (the journal alone, before any engine).
  void make_tpipe(const std::string& name) {
    auto j = journal::open(dir_.path() / "state", false);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    ASSERT_TRUE(j->set_tpipe("MQCLIENT", name, tpipe_state{true, 4, 3, false}).ok());
  }
  static std::string tran_line(engine& e, const std::string& code) {
    const auto ls = e.operator_command("/DIS TRAN " + code);
    return ls.size() == 2 ? ls[1] : std::string();
  }

  temp_folder dir_;
};

TEST_F(restart_status_test, stopped_transaction_survives_a_warm_restart) {
  {
    auto e = open(false);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->operator_command("/STO TRAN IVTNO"), (lines{"DFS058I STOP COMMAND COMPLETED"}));
    EXPECT_NE(tran_line(*e, "IVTNO").find("STOP"), std::string::npos);
    EXPECT_EQ(e->log().state().transaction_stopped, (std::map<std::string, bool>{{"IVTNO", true}}));
  }
  auto warm = open(false);
  ASSERT_TRUE(warm);
  EXPECT_NE(tran_line(*warm, "IVTNO").find("STOP"), std::string::npos) << tran_line(*warm, "IVTNO");
  EXPECT_EQ(tran_line(*warm, "ECHO").find("STOP"), std::string::npos);
}

TEST_F(restart_status_test, started_transaction_stays_started_after_a_warm_restart) {
  {
    auto e = open(false);
    ASSERT_TRUE(e);
    e->operator_command("/STO TRAN IVTNO ECHO");
    EXPECT_EQ(e->operator_command("/STA TRAN IVTNO"), (lines{"DFS058I START COMMAND COMPLETED"}));
  }
  auto warm = open(false);
  ASSERT_TRUE(warm);
  EXPECT_EQ(tran_line(*warm, "IVTNO").find("STOP"), std::string::npos) << tran_line(*warm, "IVTNO");
  EXPECT_NE(tran_line(*warm, "ECHO").find("STOP"), std::string::npos) << tran_line(*warm, "ECHO");
}

TEST_F(restart_status_test, cold_start_resets_the_stopped_transaction) {
  {
    auto e = open(false);
    ASSERT_TRUE(e);
    e->operator_command("/STO TRAN IVTNO");
  }
  auto cold = open(true);
  ASSERT_TRUE(cold);
  EXPECT_EQ(tran_line(*cold, "IVTNO").find("STOP"), std::string::npos) << tran_line(*cold, "IVTNO");
  EXPECT_TRUE(cold->log().state().transaction_stopped.empty());
}

TEST_F(restart_status_test, stopped_tpipe_survives_warm_and_goes_with_cold) {
  make_tpipe("T1");
  {
    auto e = open(false);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->operator_command("/STO TMEMBER MQCLIENT TPIPE T1"),
              (lines{"DFS058I STOP COMMAND COMPLETED"}));
  }
  {
    auto warm = open(false);
    ASSERT_TRUE(warm);
    const auto ls = warm->operator_command("/DIS TMEMBER MQCLIENT TPIPE T1");
    ASSERT_EQ(ls.size(), 3u);
    EXPECT_NE(ls[2].find("SYN STO"), std::string::npos) << ls[2];
    const auto& t = warm->log().state().tpipes.at({"MQCLIENT", "T1"});
    EXPECT_EQ(t.recv_rsn, 4u);  // the numbers are kept with the status
    EXPECT_EQ(t.send_rsn, 3u);
  }
  auto cold = open(true);
  ASSERT_TRUE(cold);
  EXPECT_TRUE(cold->log().state().tpipes.empty());
  EXPECT_EQ(cold->operator_command("/DIS TMEMBER MQCLIENT TPIPE ALL"),
            (lines{"DFS000I     MQCLIENT IS INVALID"}));
}

// ---- the journal record ---------------------------------------------------------------------------

TEST(journal_tran_set, survives_a_checkpoint_and_a_reopen) {
  temp_folder dir;
  {
    auto j = journal::open(dir.path(), false);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    ASSERT_TRUE(j->set_transaction_stopped("IVTNO", true).ok());
    ASSERT_TRUE(j->set_transaction_stopped("ECHO", true).ok());
    ASSERT_TRUE(j->set_transaction_stopped("ECHO", false).ok());
    ASSERT_TRUE(j->checkpoint().ok());
    ASSERT_TRUE(j->set_transaction_stopped("IVTCV", true).ok());
    // ECHO's /STA is kept too: it is the operator's status, which a warm start puts over the definitions'.
    EXPECT_EQ(j->state().transaction_stopped,
              (std::map<std::string, bool>{{"ECHO", false}, {"IVTCV", true}, {"IVTNO", true}}));
  }
  auto again = journal::open(dir.path(), false);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->state().transaction_stopped,
            (std::map<std::string, bool>{{"ECHO", false}, {"IVTCV", true}, {"IVTNO", true}}));
}

// CRC-32 (IEEE), as the journal frames its records, to write a journal of the first format by hand.
std::uint32_t crc32_of(const bytes& b) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (std::uint8_t x : b) {
    c ^= x;
    for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFU;
}

TEST(journal_tran_set, a_first_format_snapshot_still_reads) {
  // The first format's snapshot ends after the runs: next_id u64, cold_starts u32, five counts u32.
  bytes payload(8 + 4 + 5 * 4, 0);
  store_u32(payload.data() + 4, 7, byte_order::big);  // next_id 7
  store_u32(payload.data() + 8, 2, byte_order::big);  // 2 cold starts
  bytes record(5, 0);
  store_u32(record.data(), static_cast<std::uint32_t>(payload.size()), byte_order::big);
  record[4] = 1;  // snapshot
  record.insert(record.end(), payload.begin(), payload.end());
  bytes crc(4);
  store_u32(crc.data(), crc32_of(record), byte_order::big);
  record.insert(record.end(), crc.begin(), crc.end());
  temp_folder dir;
  {
    std::ofstream f(dir.path() / "journal.log", std::ios::binary);
    f << "IMSBJRN1";
    f.write(reinterpret_cast<const char*>(record.data()), static_cast<std::streamsize>(record.size()));
  }
  auto j = journal::open(dir.path(), false);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  EXPECT_EQ(j->state().next_id, 7u);
  EXPECT_EQ(j->state().cold_starts, 2u);
  EXPECT_TRUE(j->state().transaction_stopped.empty());
}

// ---- /DIS OTMA with the default definitions --------------------------------------------------------

TEST(display_otma_defaults, shows_the_default_member_and_global_tib_limits) {
  const auto defs = ims::default_definitions("XCFGRP1", "IMSA");
  // [C: IMS-FLOOD]: member default 5000, global default 10000.
  EXPECT_EQ(defs.tib_limit, 5000u);
  temp_folder dir;
  auto e = engine::open(defs, dir.path(), false, [](const std::string&) {});
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  const auto ls = (*e)->operator_command("/DIS OTMA");
  ASSERT_FALSE(ls.empty());
  EXPECT_EQ(ls.back(), std::string(imsb::msg::IMB5064I) + " SERVER STATE NORMAL TIB 0/10000");
}

// ---- FAULT HOLD|RELEASE RUNS, FAULT RESTART --------------------------------------------------------

class fault_words_test : public ::testing::Test {
 protected:
  command_result run(const std::string& text) { return run_command(state_, text); }
  ims::definitions defs_ = ims::default_definitions("XCFGRP1", "IMSA");
  journal_state journal_;
  command_state state_{defs_, journal_};
};

TEST_F(fault_words_test, hold_and_release_runs) {
  auto hold = run("fault hold runs");
  EXPECT_EQ(hold.effects.fault_changes, (std::vector<fault_change>{{"hold_runs", 1}}));
  EXPECT_EQ(hold.lines, (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET hold_runs=1"}));
  faults f;
  apply_fault_changes(f, hold.effects.fault_changes);
  EXPECT_TRUE(f.hold_runs);
  state_.fault_settings = f;
  EXPECT_TRUE(contains(run("FAULT SHOW").lines, std::string(imsb::msg::IMB5063I) + " FAULT hold_runs=1"));
  apply_fault_changes(f, run("FAULT RELEASE RUNS").effects.fault_changes);
  EXPECT_FALSE(f.hold_runs);
  f.hold_runs = true;
  apply_fault_changes(f, run("FAULT CLEAR").effects.fault_changes);
  EXPECT_FALSE(f.hold_runs);
}

TEST_F(fault_words_test, restart_warm_and_cold_are_requests) {
  auto warm = run("FAULT RESTART WARM");
  EXPECT_EQ(warm.lines, (lines{std::string(imsb::msg::IMB5066I) + " FAULT RESTART WARM SCHEDULED"}));
  faults f;
  apply_fault_changes(f, warm.effects.fault_changes);
  EXPECT_EQ(f.restart_requested, 1);
  apply_fault_changes(f, run("FAULT RESTART COLD").effects.fault_changes);
  EXPECT_EQ(f.restart_requested, 2);
  for (const char* bad : {"FAULT RESTART", "FAULT RESTART HOT", "FAULT RESTART WARM NOW", "FAULT HOLD",
                          "FAULT HOLD RUN", "FAULT RELEASE RUNS NOW"}) {
    auto r = run(bad);
    EXPECT_TRUE(r.effects.empty()) << bad;
    ASSERT_EQ(r.lines.size(), 1u) << bad;
    EXPECT_EQ(r.lines[0].rfind(imsb::msg::IMB5061E, 0), 0u) << r.lines[0];
  }
  EXPECT_NE(run("FAULT BOGUS").lines[0].find("HOLD RUNS|RELEASE RUNS|RESTART WARM|RESTART COLD"),
            std::string::npos);
  state_.origin = tpipe_key{"MQCLIENT", "T1"};
  EXPECT_TRUE(run("FAULT RESTART COLD").effects.empty());
}

TEST(program_faults, restart_is_refused_as_a_start_option) {
  temp_folder dir;
  program_options o;
  o.group = "XCFGRP1";
  o.member = "IMSA";
  o.state_dir = dir.path() / "state";
  o.faults = {"RESTART WARM"};
  auto p = program::open(o, [](const std::string&) {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, std::make_error_code(std::errc::invalid_argument));
  o.faults = {"HOLD RUNS"};
  auto q = program::open(o, [](const std::string&) {});
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_TRUE((*q)->with_engine([](engine& e) { return e.fault_settings().hold_runs; }));
}

// ---- the command socket ------------------------------------------------------------------------------

constexpr std::chrono::milliseconds answer_time{10000};

class command_socket_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    options_.group = "XCFGRP1";
    options_.member = "IMSA";
    options_.state_dir = dir_.path() / "state";
    socket_ = (dir_.path() / "cmd.sock").string();
  }
  std::unique_ptr<program> open_program() {
    auto p = program::open(options_, [this](const std::string& l) { console_.push_back(l); });
    EXPECT_TRUE(p.ok()) << (p.ok() ? std::string() : p.error().to_string());
    return p.ok() ? std::move(p).value() : nullptr;
  }

  temp_folder dir_;
  program_options options_;
  std::string socket_;
  lines console_;
};

TEST_F(command_socket_test, answers_several_lines_on_one_connection_like_the_console) {
  auto p = open_program();
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->listen_commands(socket_).ok());
  EXPECT_TRUE(contains(console_, std::string(imsb::msg::IMB5087I) + " COMMAND SOCKET " + socket_));
  auto c = command_client::connect(socket_);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  // Two commands in one write, the second with CR LF; the answers come in order, each with its marker.
  ASSERT_TRUE(c->send("/DIS OTMA\n/STO TRAN IVTNO\r\n").ok());
  const auto otma = c->answer(answer_time);
  ASSERT_TRUE(otma.ok()) << otma.error().to_string();
  EXPECT_EQ(*otma, p->operator_command("/DIS OTMA"));
  EXPECT_EQ(c->answer(answer_time).value(), (lines{"DFS058I STOP COMMAND COMPLETED"}));
  // A command split across writes is one line.
  ASSERT_TRUE(c->send("FAULT HOLD").ok());
  ASSERT_TRUE(c->send(" RUNS\n").ok());
  EXPECT_EQ(c->answer(answer_time).value(),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET hold_runs=1"}));
  EXPECT_TRUE(p->with_engine([](engine& e) { return e.fault_settings().hold_runs; }));
  // Unknown verbs get IMS's own error text.
  ASSERT_TRUE(c->send("/BOGUS THING\n").ok());
  EXPECT_EQ(c->answer(answer_time).value(), (lines{"DFS105I COMMAND VERB /BOGUS IS INCORRECT"}));
}

TEST_F(command_socket_test, is_mode_0600_replaces_a_stale_file_and_is_removed_at_stop) {
  {
    // A stale socket file, as a killed emulator leaves: bound, then its owner gone.
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::copy(socket_.begin(), socket_.end(), addr.sun_path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  auto p = open_program();
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->listen_commands(socket_).ok());
  struct stat st {};
  ASSERT_EQ(::lstat(socket_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  {
    auto c = command_client::connect(socket_);
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    ASSERT_TRUE(c->send("FAULT SHOW\n").ok());
    const auto a = c->answer(answer_time);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    EXPECT_EQ(a->size(), 9u);
  }
  p->stop("test");
  EXPECT_FALSE(fs::exists(fs::symlink_status(socket_)));
  const auto after = command_client::connect(socket_);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, std::make_error_code(std::errc::no_such_file_or_directory));
}

TEST_F(command_socket_test, refuses_a_live_socket_a_plain_file_and_a_too_long_path) {
  auto p = open_program();
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->listen_commands(socket_).ok());
  // A second emulator on the same path: the first one answers there.
  options_.state_dir = dir_.path() / "state2";
  auto other = open_program();
  ASSERT_TRUE(other);
  auto live = other->listen_commands(socket_);
  ASSERT_FALSE(live.ok());
  EXPECT_EQ(live.error().code, std::make_error_code(std::errc::address_in_use));

  const std::string plain = (dir_.path() / "plain").string();
  { std::ofstream(plain) << "x"; }
  auto not_socket = other->listen_commands(plain);
  ASSERT_FALSE(not_socket.ok());
  EXPECT_EQ(not_socket.error().code, std::make_error_code(std::errc::not_a_socket));
  EXPECT_TRUE(fs::exists(plain));  // left alone

  const std::string long_path = (dir_.path() / std::string(sizeof(sockaddr_un{}.sun_path), 'x')).string();
  auto too_long = other->listen_commands(long_path);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().code, std::make_error_code(std::errc::filename_too_long));
  EXPECT_NE(too_long.error().detail.find("at most 107"), std::string::npos) << too_long.error().detail;
}

TEST_F(command_socket_test, client_reports_a_too_long_path_a_silent_emulator_and_a_closed_connection) {
  const auto too_long = command_client::connect(std::string(sizeof(sockaddr_un{}.sun_path), 'x'));
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().code, std::make_error_code(std::errc::filename_too_long));

  // A listener that accepts and never answers, then closes: timed_out, then connection_reset.
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::copy(socket_.begin(), socket_.end(), addr.sun_path);
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  auto c = command_client::connect(socket_);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  const int accepted = ::accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  ASSERT_TRUE(c->send("/DIS OTMA\n").ok());
  const auto silent = c->answer(std::chrono::milliseconds(100));
  ASSERT_FALSE(silent.ok());
  EXPECT_EQ(silent.error().code, std::make_error_code(std::errc::timed_out));
  ASSERT_EQ(::write(accepted, "HALF AN ANSWER\n", 15), 15);
  ::close(accepted);
  const auto closed = c->answer(answer_time);
  ASSERT_FALSE(closed.ok());
  EXPECT_EQ(closed.error().code, std::make_error_code(std::errc::connection_reset));
  ::close(listener);
}

}  // namespace
}  // namespace imsb::imsemu
