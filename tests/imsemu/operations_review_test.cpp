// Review findings on imsemu's operations code: the operator's /STA TRAN over the definitions'
// stopped status across a warm restart, the engine's clock between ticks (FAULT DELAY OUTPUT), and the
// program's XCF join: operator commands answered while it is retried, a failed restart's join retried.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine_rig.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/imsemu/program.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::imsemu {
namespace {

namespace fs = std::filesystem;
using lines = std::vector<std::string>;
using std::chrono::milliseconds;
using test_rig::make_input;

// ECHO stopped by STOP TRAN=, ECHO2 by CREATE TRAN ... STATUS(STOPPED), ECHO3 running.
constexpr const char* stopped_defs = R"(IMS GRNAME=XCFGRP1,OTMANM=IMSA,IMSID=IMSA
APPLCTN PSB=ECHO,PGMTYPE=TP
TRANSACT CODE=ECHO,MSGTYPE=(MULTSEG,RESPONSE,1)
TRANSACT CODE=ECHO3,MSGTYPE=(MULTSEG,RESPONSE,1)
CREATE PGM NAME(ECHO2) SET(FP(N),RUN(builtin:ECHO))
CREATE TRAN NAME(ECHO2) SET(PGM(ECHO2),RECOVER(Y),RESP(Y),SPASZ(0),FP(N),STATUS(STOPPED))
STOP TRAN=ECHO
)";

ims::definitions parse_stopped_defs() {
  auto d = ims::parse_definitions(stopped_defs);
  EXPECT_TRUE(d.ok()) << (d.ok() ? std::string() : d.error().to_string());
  return d.ok() ? std::move(d).value() : ims::definitions{};
}

bool is_stopped(engine& e, const std::string& code) {
  const auto ls = e.operator_command("/DIS TRAN " + code);
  return ls.size() == 2 && ls[1].find("STOP") != std::string::npos;
}

// ---- 1. the operator's transaction status over the definitions' --------------------------------------

class defs_stopped_test : public test_rig::engine_test {
 protected:
  void SetUp() override {
    engine_test::SetUp();
    defs_ = parse_stopped_defs();
    ASSERT_NE(defs_.transaction("ECHO2"), nullptr);
    ASSERT_TRUE(defs_.transaction("ECHO")->stopped);
    ASSERT_TRUE(defs_.transaction("ECHO2")->stopped);
  }
  std::unique_ptr<engine> open_cold() {
    auto e = engine::open(defs_, dir_, true, [](const std::string&) {});
    EXPECT_TRUE(e.ok()) << (e.ok() ? std::string() : e.error().to_string());
    return e.ok() ? std::move(e).value() : nullptr;
  }
};

TEST_F(defs_stopped_test, started_by_the_operator_runs_and_stays_started_after_a_warm_restart) {
  open_engine();
  connect();
  EXPECT_TRUE(is_stopped(*engine_, "ECHO"));
  EXPECT_TRUE(is_stopped(*engine_, "ECHO2"));
  send(make_input("MQTP1", "ECHO    A", test_rig::cm0_sync(1)));
  EXPECT_NE(last_output_text().find("DFS065"), std::string::npos) << last_output_text();

  EXPECT_EQ(engine_->operator_command("/STA TRAN ECHO ECHO2"), (lines{"DFS058I START COMMAND COMPLETED"}));
  EXPECT_FALSE(is_stopped(*engine_, "ECHO"));
  send(make_input("MQTP1", "ECHO    B", test_rig::cm0_sync(2)));
  EXPECT_EQ(last_output_text(), "ECHO    B\n");  // the definitions' flag no longer stops the input
  EXPECT_EQ(engine_->log().state().transaction_stopped,
            (std::map<std::string, bool>{{"ECHO", false}, {"ECHO2", false}}));

  close_engine();
  open_engine();  // warm
  EXPECT_FALSE(is_stopped(*engine_, "ECHO"));
  EXPECT_FALSE(is_stopped(*engine_, "ECHO2"));
  EXPECT_FALSE(is_stopped(*engine_, "ECHO3"));
  connect();
  send(make_input("MQTP1", "ECHO    C", test_rig::cm0_sync(3)));
  EXPECT_EQ(last_output_text(), "ECHO    C\n");
}

TEST_F(defs_stopped_test, stopped_by_the_operator_after_a_start_stays_stopped_after_a_warm_restart) {
  open_engine();
  engine_->operator_command("/STA TRAN ECHO");
  engine_->operator_command("/STO TRAN ECHO ECHO3");
  close_engine();
  open_engine();
  EXPECT_TRUE(is_stopped(*engine_, "ECHO"));
  EXPECT_TRUE(is_stopped(*engine_, "ECHO2"));  // never named: the definitions rule
  EXPECT_TRUE(is_stopped(*engine_, "ECHO3"));
}

TEST_F(defs_stopped_test, a_cold_start_drops_the_operator_status_and_the_definitions_rule) {
  open_engine();
  engine_->operator_command("/STA TRAN ECHO ECHO2");
  engine_->operator_command("/STO TRAN ECHO3");
  close_engine();
  auto cold = open_cold();
  ASSERT_TRUE(cold);
  EXPECT_TRUE(cold->log().state().transaction_stopped.empty());
  EXPECT_TRUE(is_stopped(*cold, "ECHO"));
  EXPECT_TRUE(is_stopped(*cold, "ECHO2"));
  EXPECT_FALSE(is_stopped(*cold, "ECHO3"));
}

TEST_F(defs_stopped_test, a_started_tpipe_stays_started_after_a_warm_restart) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO3   A", test_rig::cm0_sync(1)));
  engine_->operator_command("/STO TMEMBER MQCLIENT TPIPE MQTP1");
  engine_->operator_command("/STA TMEMBER MQCLIENT TPIPE MQTP1");
  close_engine();
  open_engine();
  const auto ls = engine_->operator_command("/DIS TMEMBER MQCLIENT TPIPE MQTP1");
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[2].find("STO"), std::string::npos) << ls[2];
  EXPECT_FALSE(engine_->log().state().tpipes.at({"MQCLIENT", "MQTP1"}).stopped);
}

// The journal framing (journal.hpp), to write journals of the older formats by hand.
std::uint32_t crc32_of(const bytes& b) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (std::uint8_t x : b) {
    c ^= x;
    for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFU;
}

void append_record(bytes& file, std::uint8_t type, const bytes& payload) {
  bytes record(5, 0);
  store_u32(record.data(), static_cast<std::uint32_t>(payload.size()), byte_order::big);
  record[4] = type;
  record.insert(record.end(), payload.begin(), payload.end());
  bytes crc(4);
  store_u32(crc.data(), crc32_of(record), byte_order::big);
  record.insert(record.end(), crc.begin(), crc.end());
  file.insert(file.end(), record.begin(), record.end());
}

void append_u32(bytes& b, std::uint32_t v) {
  bytes x(4);
  store_u32(x.data(), v, byte_order::big);
  b.insert(b.end(), x.begin(), x.end());
}

void append_str(bytes& b, const std::string& s) {
  append_u32(b, static_cast<std::uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

TEST(journal_tran_status, the_set_only_snapshot_and_its_records_still_read) {
  // Second format: the first format's snapshot (next_id, cold_starts, five counts), then the stopped codes.
  bytes snapshot(8 + 4 + 5 * 4, 0);
  store_u32(snapshot.data() + 4, 3, byte_order::big);  // next_id 3
  append_u32(snapshot, 2);
  append_str(snapshot, "ECHO");
  append_str(snapshot, "IVTNO");
  bytes file{'I', 'M', 'S', 'B', 'J', 'R', 'N', '1'};
  append_record(file, 1, snapshot);
  bytes started;  // a tran_set record: code, flag 0 (/STA TRAN)
  append_str(started, "IVTNO");
  started.push_back(0);
  append_record(file, 8, started);
  std::string tmpl = (fs::temp_directory_path() / "imsb-tran-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  {
    std::ofstream f(dir / "journal.log", std::ios::binary);
    f.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  {
    auto j = journal::open(dir, false);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    EXPECT_EQ(j->state().next_id, 3u);
    EXPECT_EQ(j->state().transaction_stopped,
              (std::map<std::string, bool>{{"ECHO", true}, {"IVTNO", false}}));
    ASSERT_TRUE(j->checkpoint().ok());  // the new snapshot keeps both statuses
  }
  auto again = journal::open(dir, false);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->state().transaction_stopped,
            (std::map<std::string, bool>{{"ECHO", true}, {"IVTNO", false}}));
  fs::remove_all(dir);
}

// ---- 2. the engine's time between ticks -------------------------------------------------------------

class engine_clock_test : public test_rig::engine_test {};

TEST_F(engine_clock_test, delay_output_counts_from_the_input_not_from_the_last_tick) {
  open_engine();
  tpipe::millis clock = 1000;
  engine_->set_clock([&clock] { return clock; });
  connect();
  engine_->fault_settings().delay_output_ms = 500;
  engine_->tick(clock);
  clock = 1400;  // the input comes 400 ms after the last tick
  send(make_input("MQTP1", "ECHO    SLOW", test_rig::cm0_sync(1)));
  EXPECT_TRUE(last_response().ack);
  for (tpipe::millis t : {1500, 1600, 1899}) {
    clock = t;
    engine_->tick(t);
    pump();
    EXPECT_TRUE(client_->outputs.empty()) << "output " << t - 1400 << " ms after the input";
  }
  clock = 1900;
  engine_->tick(clock);
  pump();
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "ECHO    SLOW\n");
}

// ---- 3. the program's join ----------------------------------------------------------------------------

// An XCF that refuses joins while `refuse` is set; a joined member accepts everything and sees nobody.
class switch_xcf final : public xcf::service {
 public:
  xcf::join_result join(const xcf::join_request& request, xcf::member_handler&) override {
    ++attempts;
    xcf::join_result r;
    if (refuse) {
      r.code = xcf::codes::link_down;
      return r;
    }
    r.code = xcf::codes::ok;
    r.joined = std::make_unique<quiet_member>(request.group, request.member);
    return r;
  }
  std::atomic<bool> refuse{false};
  std::atomic<int> attempts{0};

 private:
  class quiet_member final : public xcf::member {
   public:
    quiet_member(std::string group, std::string name) : group_(std::move(group)), name_(std::move(name)) {}
    const std::string& group() const noexcept override { return group_; }
    const std::string& name() const noexcept override { return name_; }
    xcf::member_token token() const override { return {}; }
    xcf::return_code send(const xcf::target&, const xcf::control_area&, bytes_view, const xcf::send_options&,
                          std::uint64_t*) override {
      return xcf::codes::ok;
    }
    xcf::return_code query(std::vector<xcf::member_info>& out, std::string_view) override {
      out.clear();
      return xcf::codes::ok;
    }
    xcf::return_code set_user_state(const xcf::user_state&) override { return xcf::codes::ok; }
    xcf::return_code quiesce() override { return xcf::codes::ok; }
    xcf::return_code remove(std::string_view) override { return xcf::codes::ok; }
    xcf::return_code leave() override { return xcf::codes::ok; }

   private:
    std::string group_;
    std::string name_;
  };
};

template <class P>
bool wait_until(P done, milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return true;
}

class program_join_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-join-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    options_.group = "XCFGRP1";
    options_.member = "IMSA";
    options_.state_dir = dir_ / "state";
    options_.tick_ms = 20;
    auto p = program::open(options_, [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mutex_);
      console_.push_back(l);
    });
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    program_ = std::move(p).value();
  }
  void TearDown() override {
    if (program_) program_->stop("test");
    program_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  int console_count(std::string_view id) {
    std::lock_guard<std::mutex> lock(mutex_);
    int n = 0;
    for (const auto& l : console_) n += l.rfind(id, 0) == 0 ? 1 : 0;
    return n;
  }

  fs::path dir_;
  program_options options_;
  std::mutex mutex_;
  lines console_;
  switch_xcf xcf_;
  std::unique_ptr<program> program_;
};

TEST_F(program_join_test, operator_commands_are_answered_while_the_join_is_retried) {
  xcf_.refuse = true;
  xcf::return_code rc = xcf::codes::protocol_error;
  std::thread starter([&] { rc = program_->start(xcf_, milliseconds(4000)); });
  ASSERT_TRUE(wait_until([&] { return xcf_.attempts >= 2; }, milliseconds(3000)));
  const auto asked = std::chrono::steady_clock::now();
  const auto answer = program_->operator_command("/DIS OTMA");
  const auto took = std::chrono::steady_clock::now() - asked;
  EXPECT_LT(took, milliseconds(1500));  // not after the 4 s of retries
  EXPECT_FALSE(answer.empty());
  EXPECT_FALSE(program_->joined());
  xcf_.refuse = false;
  starter.join();
  EXPECT_TRUE(rc.ok()) << xcf::describe(rc);
  EXPECT_TRUE(program_->joined());
  EXPECT_EQ(console_count("DFS2360I"), 1);
}

TEST_F(program_join_test, a_restart_whose_join_fails_keeps_trying_until_it_joins) {
  ASSERT_TRUE(program_->start(xcf_, milliseconds(300)).ok());
  xcf_.refuse = true;
  EXPECT_EQ(program_->operator_command("FAULT RESTART WARM"),
            (lines{std::string(imsb::msg::IMB5066I) + " FAULT RESTART WARM SCHEDULED"}));
  ASSERT_TRUE(wait_until([&] { return console_count(imsb::msg::IMB5067W) == 1; }, milliseconds(5000)));
  EXPECT_FALSE(program_->joined());
  EXPECT_GE(console_count("DFS2364E"), 1);
  EXPECT_FALSE(program_->operator_command("/DIS OTMA").empty());
  const int tries = xcf_.attempts;
  xcf_.refuse = false;
  ASSERT_TRUE(wait_until([&] { return program_->joined(); }, program::rejoin_interval + milliseconds(3000)));
  EXPECT_GT(xcf_.attempts, tries);
  // joined() turns true just before the two lines are written (program::join_group): await them.
  EXPECT_TRUE(wait_until([&] { return console_count(imsb::msg::IMB5080I) == 2; }, milliseconds(2000)));
  EXPECT_EQ(console_count("DFS2360I"), 2);
  EXPECT_EQ(console_count(imsb::msg::IMB5080I), 2);
}

TEST_F(program_join_test, with_engine_after_a_restart_that_could_not_open_the_engine) {
  ASSERT_TRUE(program_->start(xcf_, milliseconds(300)).ok());
  {
    // The journal file replaced by one that is not a journal: the restart cannot reopen it.
    std::ofstream f(dir_ / "bad.log", std::ios::binary);
    f << "NOTAJRNL";
  }
  fs::rename(dir_ / "bad.log", options_.state_dir / "journal.log");
  program_->operator_command("FAULT RESTART WARM");
  ASSERT_TRUE(wait_until([&] { return console_count(imsb::msg::IMB5089E) == 1; }, milliseconds(5000)));
  EXPECT_FALSE(program_->with_engine([](engine& e) { return e.fault_settings().hold_runs || true; }));
  bool called = false;
  program_->with_engine([&](engine&) { called = true; });
  EXPECT_FALSE(called);
  const auto answer = program_->operator_command("/DIS OTMA");
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_EQ(answer[0].rfind(imsb::msg::IMB5089E, 0), 0u);
}

}  // namespace
}  // namespace imsb::imsemu
