// Review findings on the engine (the defects a reviewer reproduced), each as a test that fails without its
// fix. The engine is driven through a real tpipe::server_session against a tpipe::client_session, their
// send() callbacks wired to each other's receive() through a queue (no XCF), with a temporary state folder.

#include "imsb/imsemu/engine.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/client_session.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace imsb::imsemu {
namespace {

namespace fs = std::filesystem;
using otma::otma_message;

constexpr const char* client_name = "MQCLIENT";

std::string text_of(const bytes& raw) {
  const auto c = codepage::convert(raw, codepage::ccsid_037, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

bytes ebcdic(const std::string& s) {
  return codepage::convert(bytes_view::of(s), codepage::ccsid_819, codepage::ccsid_037).out;
}

std::string all_text(const otma_message& m) {
  std::string s;
  for (const auto& seg : m.segments()) s += text_of(seg.data) + "\n";
  return s;
}

struct input_options {
  bool cm1 = false;
  bool synchronized = false;
  std::uint32_t rsn = 0;
  std::string user;
  std::string group;
  std::uint8_t security_flag = otma::security_flag::none;
  bool utoken = false;
  std::string lterm;
};

otma_message make_input(const std::string& tpipe, const std::string& text, const input_options& o) {
  otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.tpipe_name.set(tpipe);
  m.mci.processing_flags = o.synchronized ? otma::processing::synchronized_tpipe : 0;
  m.mci.recoverable_seq = o.rsn;
  otma::transaction_state_data sd;
  sd.sync_flags = static_cast<std::uint8_t>(
      (o.cm1 ? otma::sync_flags::send_then_commit : otma::sync_flags::commit_then_send) |
      otma::sync_flags::sync_level_confirm);
  if (!o.lterm.empty()) sd.lterm_override.set(o.lterm);
  m.state = sd;
  if (!o.user.empty()) {
    otma::security_data se;
    se.flag = o.security_flag;
    se.set_user_id(o.user);
    if (!o.group.empty()) se.set_profile(o.group);
    if (o.utoken) se.set_utoken(bytes(16, 0x11));
    m.security = se;
  }
  otma::application_data ap;
  ap.segments.push_back(otma::segment{0, ebcdic(text)});
  m.application = ap;
  return m;
}

struct commit_seen {
  std::string tpipe;
  std::uint32_t send_seq;
  bool committed;
};

class test_client final : public tpipe::client_observer {
 public:
  explicit test_client(std::deque<std::pair<bool, bytes>>& wire) : wire_(wire) {
    tpipe::client_config cfg;
    cfg.bid.member = client_name;
    cfg.server_member = "IMSA";
    cfg.resync = true;
    session = std::make_unique<tpipe::client_session>(cfg, *this);
  }

  void send(bytes buffer) override {
    if (direct) {
      direct(buffer);
      return;
    }
    wire_.emplace_back(true, std::move(buffer));
  }
  void on_session_ready() override { ready = true; }
  void on_bid_rejected(std::uint16_t sense, std::uint16_t) override { bid_rejected = sense; }
  void on_session_lost(const std::string& reason) override {
    ready = false;
    lost_reason = reason;
  }
  std::optional<tpipe::client_tpipe_record> tpipe_record(std::string_view tpipe) override {
    auto it = records.find(std::string(tpipe));
    if (it == records.end()) return std::nullopt;
    return it->second;
  }
  void on_resync_decision(std::string_view, const tpipe::resync_decision& d) override {
    decisions.push_back(d);
  }
  void on_tpipe_unknown_to_server(std::string_view) override {}
  void on_input_response(const tpipe::input_response& r) override {
    responses.push_back(r);
    if (r.ack && r.recoverable_seq != 0) records[r.tpipe].send = r.recoverable_seq;
  }
  void on_output(const otma_message& m) override {
    outputs.push_back(m);
    if (!m.mci.response_requested() || !auto_ack) return;
    // CM0 step 6: commit (record the receive number), then ACK.
    if (m.mci.recoverable_seq != 0) records[tpipe::tpipe_of(m)].receive = m.mci.recoverable_seq;
    session->ack_output(m);
  }
  void on_commit_confirmation(std::string_view tpipe, std::uint32_t seq, bool committed) override {
    commits.push_back({std::string(tpipe), seq, committed});
  }
  void on_server_state(std::uint16_t status) override { server_states.push_back(status); }
  void on_suspend() override {}
  std::vector<std::string> our_synchronized_tpipes() override {
    std::vector<std::string> v;
    for (const auto& [k, r] : records) v.push_back(k);
    return v;
  }

  std::unique_ptr<tpipe::client_session> session;
  std::function<void(const bytes&)> direct;  // synchronous wiring: straight into the server
  bool ready = false;
  bool auto_ack = true;
  std::uint16_t bid_rejected = 0;
  std::string lost_reason;
  std::map<std::string, tpipe::client_tpipe_record> records;
  std::vector<tpipe::resync_decision> decisions;
  std::vector<tpipe::input_response> responses;
  std::vector<otma_message> outputs;
  std::vector<commit_seen> commits;
  std::vector<std::uint16_t> server_states;

 private:
  std::deque<std::pair<bool, bytes>>& wire_;
};

class engine_review_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-engine-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    defs_ = ims::default_definitions("XCFGRP1", "IMSA");
    client_ = std::make_unique<test_client>(wire_);
  }
  void TearDown() override {
    server_.reset();
    engine_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void open_engine() {
    auto e = engine::open(defs_, dir_, false, [this](const std::string& line) { console_.push_back(line); });
    ASSERT_TRUE(e.ok()) << e.error().to_string();
    engine_ = std::move(e).value();
    tpipe::server_config cfg;
    cfg.member = "IMSA";
    cfg.heartbeat_interval = 0;
    server_ = std::make_unique<tpipe::server_session>(cfg, *engine_);
    engine_->attach([this](const std::function<void(tpipe::server_session&)>& f) { f(*server_); });
    engine_->set_sender([this](std::string_view, bytes b) {
      if (synchronous_) {
        client_->session->receive(b, now_);
        return;
      }
      wire_.emplace_back(false, std::move(b));
    });
  }
  void close_engine() {
    server_.reset();
    engine_.reset();
    wire_.clear();
    client_->session->server_gone("IMS stopped");
  }
  void pump() {
    for (int guard = 0; !wire_.empty() && guard < 10000; ++guard) {
      auto [to_server, b] = std::move(wire_.front());
      wire_.pop_front();
      now_ += 1;
      if (to_server) {
        if (server_) server_->receive(client_name, b, now_);
      } else {
        client_->session->receive(b, now_);
      }
    }
  }
  void connect() {
    server_->client_joined(client_name, now_);
    client_->session->start(now_);
    pump();
    ASSERT_TRUE(client_->ready) << client_->lost_reason;
  }
  void send(const otma_message& m) {
    auto r = client_->session->send_input(m, now_);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    pump();
  }
  const tpipe::input_response& last_response() const { return client_->responses.back(); }
  std::string last_output_text() const {
    return client_->outputs.empty() ? std::string() : all_text(client_->outputs.back());
  }
  std::size_t queued(const std::string& tpipe) const {
    const auto& outs = engine_->log().state().outputs;
    auto it = outs.find({client_name, tpipe});
    return it == outs.end() ? 0 : it->second.size();
  }
  bool console_has(const std::string& id) const {
    for (const auto& l : console_) {
      if (l.find(id) != std::string::npos) return true;
    }
    return false;
  }

  fs::path dir_;
  ims::definitions defs_;
  std::deque<std::pair<bool, bytes>> wire_;
  std::unique_ptr<test_client> client_;
  std::unique_ptr<engine> engine_;
  std::unique_ptr<tpipe::server_session> server_;
  std::vector<std::string> console_;
  tpipe::millis now_ = 1000;
  bool synchronous_ = false;
};

input_options cm0_sync(std::uint32_t rsn) {
  input_options o;
  o.synchronized = true;
  o.rsn = rsn;
  return o;
}

input_options cm1_plain() {
  input_options o;
  o.cm1 = true;
  return o;
}

// Item 1: a client that bids again on the same XCF membership (ACK timeout -> lose -> start()) must not
// leave its old CM1 run behind: the new session's send numbers restart at 1, so the new ACK would commit it.
TEST_F(engine_review_test, rebid_backs_out_the_old_sessions_cm1_run) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("CM1TP", "ECHO    OLD", cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 1u);
  ASSERT_EQ(engine_->active_inputs(client_name), 1u);
  client_->session->server_gone("ack timeout");
  client_->auto_ack = true;
  client_->session->start(now_);
  pump();
  ASSERT_TRUE(client_->ready);
  // The old run is backed out at the bid, without a commit confirmation.
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  EXPECT_TRUE(client_->commits.empty());
  send(make_input("CM1TP", "ECHO    NEW", cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_NE(last_output_text().find("NEW"), std::string::npos);
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  const auto& runs = engine_->log().state().runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].outcome.find("BACKED OUT"), std::string::npos) << runs[0].outcome;
  EXPECT_EQ(runs[1].outcome, "OK");
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_TRUE(client_->commits[0].committed);
  EXPECT_EQ(client_->commits[0].send_seq, client_->outputs.back().mci.send_seq);
}

// Item 2: dequeue-last-output is one journal step. A crash right after it (the Tpipe flags' set_tpipe, the
// last record, never written) must leave the output gone AND the send number advanced; with two steps
// (purge, then set_tpipe) the number stayed behind and the next resync dequeued the NEXT output.
TEST_F(engine_review_test, dequeue_last_output_dequeues_and_advances_in_one_record) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    FIRST", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    SECOND", cm0_sync(2)));
  ASSERT_EQ(client_->outputs.size(), 1u);  // one in flight, the second queued
  ASSERT_EQ(queued("MQTP1"), 2u);
  client_->records["MQTP1"].receive = 1;  // committed FIRST, its ACK lost
  close_engine();
  open_engine();
  connect();
  ASSERT_FALSE(client_->decisions.empty());
  EXPECT_EQ(client_->decisions.back().action, otma::represynch_action::dequeue_last_output);
  EXPECT_EQ(queued("MQTP1"), 1u);
  close_engine();

  // Cut the log's last record: the state a crash just before it leaves.
  const fs::path log = dir_ / "journal.log";
  std::ifstream in(log, std::ios::binary);
  bytes file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::size_t off = 8, last = 0;
  while (off + 4 <= file.size()) {
    last = off;
    off += 9 + load_u32(file.data() + off, byte_order::big);
  }
  ASSERT_EQ(off, file.size()) << "journal records do not end at the end of the file";
  fs::resize_file(log, last);
  auto j = journal::open(dir_, false);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  const auto& st = j.value().state();
  ASSERT_EQ(st.outputs.at({client_name, "MQTP1"}).size(), 1u);
  auto decoded = otma::decode_message(st.outputs.at({client_name, "MQTP1"}).front().data);
  ASSERT_TRUE(decoded.ok());
  EXPECT_NE(all_text(decoded.value()).find("SECOND"), std::string::npos);
  EXPECT_EQ(st.tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
}

// Item 3: /DEQUEUE of the output in flight on a synchronized Tpipe is refused: the client may have
// committed it, and the next output would reuse its recoverable number.
TEST_F(engine_review_test, dequeue_of_the_synchronized_output_in_flight_is_refused) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    A1", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    A2", cm0_sync(2)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  const auto lines =
      engine_->operator_command("/DEQUEUE TMEMBER " + std::string(client_name) + " TPIPE MQTP1 PURGE1");
  bool refused = false, counted = false;
  for (const auto& l : lines) {
    refused = refused || l.find("IS IN USE") != std::string::npos;
    counted = counted || l.rfind("IMB5065I 0 OUTPUT MESSAGE(S) DEQUEUED", 0) == 0;
  }
  EXPECT_TRUE(refused);
  EXPECT_TRUE(counted);
  pump();
  EXPECT_EQ(queued("MQTP1"), 2u);
  ASSERT_EQ(client_->outputs.size(), 1u);  // A2 not sent in its place
  client_->auto_ack = true;
  client_->session->ack_output(client_->outputs[0]);
  pump();
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_EQ(client_->outputs[0].mci.recoverable_seq, 1u);
  EXPECT_EQ(client_->outputs[1].mci.recoverable_seq, 2u);
  EXPECT_NE(all_text(client_->outputs[1]).find("A2"), std::string::npos);
}

// Item 3: PURGE (all) still dequeues what is not in flight.
TEST_F(engine_review_test, dequeue_purge_keeps_only_the_output_in_flight) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    B1", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    B2", cm0_sync(2)));
  send(make_input("MQTP1", "ECHO    B3", cm0_sync(3)));
  ASSERT_EQ(queued("MQTP1"), 3u);
  const auto lines =
      engine_->operator_command("/DEQUEUE TMEMBER " + std::string(client_name) + " TPIPE MQTP1 PURGE");
  EXPECT_EQ(queued("MQTP1"), 1u);
  bool counted = false;
  for (const auto& l : lines) counted = counted || l.rfind("IMB5065I 2 OUTPUT MESSAGE(S) DEQUEUED", 0) == 0;
  EXPECT_TRUE(counted);
}

// Item 4: CM0 input with a nonzero recoverable number makes its Tpipe synchronized (spec §1.10 [C]), so
// the Tpipe is listed in SRVresynch.
TEST_F(engine_review_test, recoverable_number_without_the_flag_makes_the_tpipe_synchronized) {
  open_engine();
  connect();
  input_options o;
  o.rsn = 1;  // CM0, synchronized flag not set
  send(make_input("MQTP9", "ECHO    NS", o));
  EXPECT_TRUE(last_response().ack);
  const auto& t = engine_->log().state().tpipes.at({client_name, "MQTP9"});
  EXPECT_TRUE(t.synchronized);
  EXPECT_EQ(t.recv_rsn, 1u);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 1u);
  const auto synced = engine_->synchronized_tpipes(client_name);
  ASSERT_EQ(synced.size(), 1u);
  EXPECT_EQ(synced[0].name, "MQTP9");
}

// Item 5: a CM1 CONFIRM transaction that abends gets its DFS555I reply and a commit confirmation "aborted".
TEST_F(engine_review_test, cm1_confirm_abend_gets_an_aborted_commit_confirmation) {
  ims::program_def pg;
  pg.name = "EXTPGM";
  pg.external = "/bin/false";
  defs_.programs["EXTPGM"] = pg;
  ims::transaction_def t;
  t.code = "EXTTRAN";
  t.program = "EXTPGM";
  defs_.transactions["EXTTRAN"] = t;
  open_engine();
  connect();
  send(make_input("CM1TP", "EXTTRAN DATA", cm1_plain()));
  EXPECT_TRUE(last_response().ack);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_NE(last_output_text().find("DFS555I"), std::string::npos);
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_FALSE(client_->commits[0].committed);
  EXPECT_EQ(client_->commits[0].send_seq, client_->outputs.back().mci.send_seq);
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
}

// Item 6: output for recoverable-number-0 input carries no recoverable number and does not advance the
// send number (spec §1.10 [C], ARCHITECTURE.md step 6).
TEST_F(engine_review_test, rsn0_input_output_uses_no_recoverable_send_number) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    R1", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 1u);
  send(make_input("MQTP1", "ECHO    NP", cm0_sync(0)));
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
  // The DFS064 path too.
  send(make_input("MQTP1", "BADTRAN X", cm0_sync(0)));
  ASSERT_EQ(client_->outputs.size(), 3u);
  EXPECT_NE(last_output_text().find("DFS064"), std::string::npos);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
  EXPECT_EQ(queued("MQTP1"), 0u);
}

// Item 7: REPresynch after TBresynch while an output is in flight: still one output in flight, not resent.
TEST_F(engine_review_test, tbresynch_keeps_the_output_in_flight) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  client_->session->send_tbresynch("MQTP1");
  pump();
  engine_->tick(now_);
  pump();
  EXPECT_EQ(client_->outputs.size(), 1u);
  client_->session->ack_output(client_->outputs[0]);
  pump();
  EXPECT_EQ(queued("MQTP1"), 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
}

// Item 9: spec §1.10 [C]: a command with recoverable number 0 on a synchronized Tpipe is run (ACKed); a
// nonzero number is NAKed X'23'; a CM0 command is run too (§2.9).
TEST_F(engine_review_test, commands_with_number_0_or_cm0_are_run) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  ASSERT_TRUE(last_response().ack);
  const std::size_t before = client_->outputs.size();
  send(make_input("MQTP1", "/DIS OTMA", cm0_sync(0)));
  EXPECT_TRUE(last_response().ack);
  EXPECT_GT(client_->outputs.size(), before);
  send(make_input("MQTP1", "/DIS OTMA", cm0_sync(2)));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::seq_not_recoverable);
  send(make_input("PLAINTP", "/DIS OTMA", input_options{}));
  EXPECT_TRUE(last_response().ack);
}

// Item 10: CM1 on a synchronized Tpipe is NAKed X'1C' before the destination is looked at (§1.10 table).
TEST_F(engine_review_test, cm1_on_a_synchronized_tpipe_is_1c_before_dfs064) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  const std::size_t before = client_->outputs.size();
  send(make_input("MQTP1", "BADTRAN X", cm1_plain()));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::cm1_on_synchronized_tpipe);
  EXPECT_EQ(client_->outputs.size(), before);
}

}  // namespace
}  // namespace imsb::imsemu
