// Both OTMA roles for real, each behind its xcf_link, over the in-memory XCF backend: a small IMS-like server
// owner and a small bridge-like client owner (CM0 steps 3–7 of docs/design/commit-modes.md), with faults
// injected by the backend. Time is the test's: the links read `now`, the backend has its own virtual clock,
// and everything is delivered by memory_sysplex::run() on the test thread, except in the one test that pumps
// the backend from a second thread to exercise the link's lock.

#include "imsb/tpipe/xcf_link.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "imsb/otma/message.hpp"
#include "imsb/otma/state_data.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/transport/memory_xcf.hpp"

namespace imsb::tpipe {
namespace {

const std::string group = "GRP1";
const std::string ims = "IMS1";
const std::string mq = "MQ1";

otma::otma_message transaction(const std::string& tpipe, std::uint32_t rsn) {
  otma::otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.tpipe_name.set(tpipe);
  m.mci.recoverable_seq = rsn;
  m.state = otma::transaction_state_data{};
  m.application = otma::application_data{{otma::segment{0, bytes{0xC9, 0xE5, 0xE3, 0xD5, 0xD6}}}};
  return m;
}

// --- the server owner: an IMS that logs input, ACKs it and answers each with one CM0 output ---------

struct server_tpipe {
  server_tpipe_numbers numbers;            // send: last output ACKed; receive: last input logged
  std::optional<otma::otma_message> held;  // the output sent and not yet ACKed (recoverable send + 1)
  std::uint32_t held_send_seq = 0;         // its MCI send-sequence number
};

struct represynch_seen {
  std::string tpipe;
  std::uint8_t action = 0;
  std::uint32_t client_send = 0;
  std::uint32_t client_receive = 0;
};

class test_server_owner : public server_observer {
 public:
  server_link* link = nullptr;
  const millis* now = nullptr;
  bool hold_inputs = false;  // take input without logging or ACKing it (IMS stalls)

  std::map<std::string, server_tpipe, std::less<>> tpipes;  // one client in these tests: by Tpipe
  std::vector<std::string> ready;
  std::vector<std::string> lost;
  std::vector<represynch_seen> represynchs;
  std::vector<output_response> output_responses;
  std::vector<std::string> protocol_errors;
  std::vector<std::string> output_errors;
  std::vector<otma::otma_message> held_inputs;
  std::size_t inputs_logged = 0;
  std::size_t outputs_sent = 0;

  void send(std::string_view, bytes) override { ADD_FAILURE() << "the link sends, not the owner"; }
  bid_verdict on_bid(std::string_view, const otma::otma_message&) override { return {}; }
  void on_client_ready(std::string_view client) override {
    ready.emplace_back(client);
    // After resync with "continue", IMS sends again what it still holds (CM0 step 7).
    for (auto& [name, t] : tpipes) {
      if (t.held) send_output(client, name, *t.held);
    }
  }
  void on_client_lost(std::string_view, const std::string& reason) override { lost.push_back(reason); }
  std::vector<synchronized_tpipe> synchronized_tpipes(std::string_view) override {
    std::vector<synchronized_tpipe> out;
    for (const auto& [name, t] : tpipes) out.push_back({name, t.numbers});
    return out;
  }
  void on_represynch(std::string_view, std::string_view tpipe, std::uint8_t action, std::uint32_t client_send,
                     std::uint32_t client_receive) override {
    represynchs.push_back({std::string(tpipe), action, client_send, client_receive});
    auto& t = tpipes[std::string(tpipe)];
    t.numbers = apply_represynch(t.numbers, action, client_send, client_receive);
    if (action == otma::represynch_action::dequeue_last_output) t.held.reset();  // [C: IMS-SD-REP]
  }
  void on_srvresynch_rejected(std::string_view) override { ADD_FAILURE() << "SRVresynch rejected"; }
  void on_input(std::string_view client, const otma::otma_message& input) override {
    if (hold_inputs) {
      held_inputs.push_back(input);
      return;
    }
    const std::string tpipe = tpipe_of(input);
    auto& t = tpipes[tpipe];
    // Logged, then ACKed ([C: IMS-RS-CS]: no ACK before logging), then the transaction's one output.
    t.numbers.receive = input.mci.recoverable_seq;
    ++inputs_logged;
    link->with_session([&](server_session& s) { s.ack_input(client, input); });
    otma::otma_message out;
    out.mci.tpipe_name.set(tpipe);
    out.mci.recoverable_seq = t.numbers.send + 1;
    out.state = otma::transaction_state_data{};
    out.application = otma::application_data{
        {otma::segment{0, bytes{0xD6, static_cast<std::uint8_t>(out.mci.recoverable_seq & 0xFF)}}}};
    tpipes[tpipe].held = out;
    send_output(client, tpipe, out);
  }
  void on_output_response(const output_response& response) override {
    output_responses.push_back(response);
    auto it = tpipes.find(response.tpipe);
    if (it == tpipes.end() || !it->second.held || it->second.held_send_seq != response.send_seq) return;
    if (response.ack) {
      // Only now does IMS dequeue the output and log its send number [C: IMS-RS-CS].
      it->second.numbers.send = it->second.held->mci.recoverable_seq;
      it->second.held.reset();
    }
  }
  void on_output_timeout(std::string_view, std::string_view, std::uint32_t) override {}
  void on_deallocate(std::string_view, const otma::otma_message&) override {}
  void on_protocol_error(std::string_view, const std::string& what) override {
    protocol_errors.push_back(what);
  }

 private:
  void send_output(std::string_view client, const std::string& tpipe, const otma::otma_message& out) {
    auto seq = link->with_session(
        [&](server_session& s) { return s.send_output(client, out, /*response_requested=*/true, *now); });
    if (!seq.ok()) {
      output_errors.push_back(seq.error().to_string());  // the client went meanwhile
      return;
    }
    ++outputs_sent;
    tpipes[tpipe].held_send_seq = seq.value();
  }
};

// --- the client owner: a bridge that records in-flight input, commits output, then ACKs it ----------

class test_client_owner : public client_observer {
 public:
  client_link* link = nullptr;
  const millis* now = nullptr;
  // Runs after an output is committed and before its ACK goes (a test arms a fault here).
  std::function<void(const otma::otma_message&)> before_ack;

  std::map<std::string, client_tpipe_record, std::less<>> records;
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> delivered;  // outputs committed, by rsn
  std::map<std::string, std::size_t, std::less<>> input_acks;
  std::vector<std::string> lost;
  std::vector<std::pair<std::string, resync_decision>> decisions;
  std::vector<std::string> unknown_to_server;
  std::vector<std::string> resend_after_ready;
  std::vector<std::uint16_t> server_states;
  std::size_t ready = 0;
  std::size_t duplicates = 0;
  std::size_t naks = 0;

  // CM0 step 4: the in-flight record first, then the send.
  result<std::uint32_t> send_input(const std::string& tpipe) {
    return link->with_session([&](client_session& s) -> result<std::uint32_t> {
      auto& r = records[tpipe];
      const std::uint32_t rsn = r.in_flight ? *r.in_flight : r.send + 1;
      r.in_flight = rsn;
      return s.send_input(transaction(tpipe, rsn), *now);
    });
  }

  void send(bytes) override { ADD_FAILURE() << "the link sends, not the owner"; }
  void on_session_ready() override {
    ++ready;
    std::vector<std::string> again = std::move(resend_after_ready);
    resend_after_ready.clear();
    for (const auto& tpipe : again) EXPECT_TRUE(send_input(tpipe).ok());
  }
  void on_bid_rejected(std::uint16_t, std::uint16_t) override { ADD_FAILURE() << "bid rejected"; }
  void on_session_lost(const std::string& reason) override { lost.push_back(reason); }
  std::optional<client_tpipe_record> tpipe_record(std::string_view tpipe) override {
    auto it = records.find(tpipe);
    if (it == records.end()) return std::nullopt;
    return it->second;
  }
  void on_resync_decision(std::string_view tpipe, const resync_decision& decision) override {
    decisions.emplace_back(std::string(tpipe), decision);
    auto& r = records[std::string(tpipe)];
    if (decision.input == input_outcome::ims_has_it) {
      r.send = *r.in_flight;  // step 5 finished first
      r.in_flight.reset();
    } else if (decision.input == input_outcome::resend_in_flight) {
      resend_after_ready.emplace_back(tpipe);
    }
  }
  void on_tpipe_unknown_to_server(std::string_view tpipe) override {
    unknown_to_server.emplace_back(tpipe);
    auto& r = records[std::string(tpipe)];
    r = after_ims_cold_start(r);
    if (r.in_flight) resend_after_ready.emplace_back(tpipe);
  }
  void on_input_response(const input_response& response) override {
    auto& r = records[response.tpipe];
    if (!response.ack) {
      ++naks;
      r.in_flight.reset();
      return;
    }
    ++input_acks[response.tpipe];
    if (response.recoverable_seq != 0) r.send = response.recoverable_seq;  // step 5
    r.in_flight.reset();
  }
  void on_output(const otma::otma_message& message) override {
    const std::string tpipe = tpipe_of(message);
    const std::uint32_t rsn = message.mci.recoverable_seq;
    auto& r = records[tpipe];
    if (rsn != 0 && rsn <= r.receive) {
      ++duplicates;  // step 6: a duplicate is ACKed and not put
    } else {
      delivered[tpipe].push_back(rsn);
      if (rsn != 0) r.receive = rsn;  // committed with the reply put
      if (before_ack) before_ack(message);
    }
    link->with_session([&](client_session& s) { s.ack_output(message); });  // then ACKed
  }
  void on_commit_confirmation(std::string_view, std::uint32_t, bool) override {}
  void on_server_state(std::uint16_t status) override { server_states.push_back(status); }
  void on_suspend() override {}
  std::vector<std::string> our_synchronized_tpipes() override {
    std::vector<std::string> out;
    for (const auto& [name, r] : records) out.push_back(name);
    return out;
  }
};

// A service that lets the backend deliver before join() returns, as XCF may run the exits before
// IXCJOIN returns [C: XCF-MUR].
class eager_service : public xcf::service {
 public:
  explicit eager_service(transport::memory_sysplex& plex) : plex_(plex) {}
  xcf::join_result join(const xcf::join_request& request, xcf::member_handler& handler) override {
    xcf::join_result result = plex_.join(request, handler);
    delivered_during_join = plex_.run();
    return result;
  }
  transport::delivery_counts delivered_during_join;

 private:
  transport::memory_sysplex& plex_;
};

class link_test : public ::testing::Test {
 protected:
  void SetUp() override {
    server_owner.now = &now;
    client_owner.now = &now;
  }

  server_config server_cfg() const {
    server_config c;
    c.member = ims;
    c.token = {0, 0, 0, 1, 0, 0, 0, 1};
    c.heartbeat_interval = 60'000;
    c.output_ack_timeout = 120'000;
    return c;
  }
  client_config client_cfg(bool resync = true) const {
    client_config c;
    c.bid.member = mq;
    c.bid.token = {0, 0, 0, 2, 0, 0, 0, 1};
    c.server_member = ims;
    c.resync = resync;
    c.ack_timeout = 5'000;
    c.bid_timeout = 5'000;
    return c;
  }
  void make_server() {
    server = std::make_unique<server_link>(server_cfg(), server_owner, clock);
    server_owner.link = server.get();
  }
  void make_client(bool resync = true) {
    client = std::make_unique<client_link>(client_cfg(resync), client_owner, clock);
    client_owner.link = client.get();
  }
  // Server first, then the client: both ready.
  void connect() {
    make_server();
    ASSERT_TRUE(server->join(plex, group).ok());
    make_client();
    ASSERT_TRUE(client->join(plex, group).ok());
    plex.run();
    ASSERT_EQ(client_owner.ready, 1u);
    ASSERT_EQ(server_owner.ready.size(), 1u);
    ASSERT_EQ(state(), client_state::active);
  }
  client_state state() {
    return client->with_session([](client_session& s) { return s.state(); });
  }
  // The server member goes and comes back with its numbers (the owner keeps them): IMS restarts.
  void restart_server() {
    server->leave();
    plex.run();
    ASSERT_EQ(state(), client_state::lost);
    ASSERT_TRUE(server->join(plex, group).ok());
    plex.run();
  }
  // The kinds of the messages `source` got accepted for `target`, read from the control area alone:
  // it must be the MCI (xcf_link.hpp's wire rule).
  std::vector<message_kind> wire(const std::string& source, const std::string& target) const {
    std::vector<message_kind> out;
    for (const auto& r : plex.traffic()) {
      if (r.kind != transport::wire_record::what::accepted || r.source != source || r.target != target)
        continue;
      EXPECT_EQ(r.stream, 0u);
      EXPECT_TRUE(r.ordered);
      otma::otma_message m;
      otma::layout::decode(otma::mci_layout, r.control.data(), m.mci);
      out.push_back(classify(m, /*from_client=*/source == mq));
    }
    return out;
  }
  static std::size_t count(const std::vector<message_kind>& kinds, message_kind kind) {
    return static_cast<std::size_t>(std::count(kinds.begin(), kinds.end(), kind));
  }
  // `expected` appears in `kinds` in this order (other kinds may come between).
  static bool in_order(const std::vector<message_kind>& kinds, const std::vector<message_kind>& expected) {
    auto it = kinds.begin();
    for (message_kind k : expected) {
      it = std::find(it, kinds.end(), k);
      if (it == kinds.end()) return false;
      ++it;
    }
    return true;
  }
  // CM0: one input in flight per Tpipe; the next goes once the last is ACKed and answered.
  void run_inputs(const std::vector<std::string>& tpipes, std::size_t per_tpipe) {
    std::map<std::string, std::size_t> sent;
    for (std::size_t round = 0; round < per_tpipe * 4; ++round) {
      bool any = false;
      for (const auto& t : tpipes) {
        if (sent[t] == per_tpipe || client_owner.records[t].in_flight) continue;
        ASSERT_TRUE(client_owner.send_input(t).ok());
        ++sent[t];
        any = true;
      }
      plex.run();
      if (!any) break;
    }
    for (const auto& t : tpipes) ASSERT_EQ(sent[t], per_tpipe) << t;
  }

  transport::memory_sysplex plex;
  millis now = 1'000;
  clock_fn clock = [this] { return now; };
  test_server_owner server_owner;
  test_client_owner client_owner;
  // Declared after the owners they call, so destroyed before them.
  std::unique_ptr<server_link> server;
  std::unique_ptr<client_link> client;
};

TEST_F(link_test, bid_resync_and_ready_with_no_records) {
  connect();
  const auto up = wire(mq, ims);
  ASSERT_FALSE(up.empty());
  EXPECT_EQ(up.front(), message_kind::cbresynch);
  EXPECT_GE(count(up, message_kind::srvresynch_ack), 1u);
  EXPECT_TRUE(
      in_order(wire(ims, mq), {message_kind::bid_ack, message_kind::server_state, message_kind::srvresynch}));
  EXPECT_TRUE(server->with_session([](server_session& s) { return s.client_ready(mq); }));
  EXPECT_TRUE(client_owner.lost.empty());
  EXPECT_TRUE(server_owner.lost.empty());
  // The heartbeat comes from server_link::tick() with the injected clock.
  const std::size_t states = client_owner.server_states.size();
  now += 60'000;
  server->tick();
  plex.run();
  EXPECT_EQ(client_owner.server_states.size(), states + 1);
}

TEST_F(link_test, client_first_then_server_join_starts_the_session) {
  make_client();
  ASSERT_TRUE(client->join(plex, group).ok());
  plex.run();
  EXPECT_EQ(state(), client_state::idle);  // nobody to bid to
  EXPECT_TRUE(wire(mq, ims).empty());
  make_server();
  ASSERT_TRUE(server->join(plex, group).ok());
  plex.run();
  EXPECT_EQ(client_owner.ready, 1u);
  EXPECT_EQ(server_owner.ready.size(), 1u);
  EXPECT_GE(count(wire(ims, mq), message_kind::server_available), 1u);
  EXPECT_EQ(wire(mq, ims).front(), message_kind::cbresynch);
}

TEST_F(link_test, hundred_cm0_inputs_on_three_tpipes_each_get_ack_and_one_output) {
  connect();
  // The bid and server-available cross at connect [C: IMS-SA-FLOW]; the client does not bid a second time, so
  // the exchange runs once: no stray answer, no protocol error.
  EXPECT_TRUE(server_owner.protocol_errors.empty());
  const auto strays = client->with_session([](client_session& s) { return s.stray_responses(); });
  EXPECT_EQ(strays, 0u);
  EXPECT_EQ(count(wire(mq, ims), message_kind::cbresynch), 1u);
  const std::vector<std::string> tpipes = {"TPIPE1", "TPIPE2", "TPIPE3"};
  run_inputs(tpipes, 100);
  std::vector<std::uint32_t> one_to_hundred(100);
  for (std::uint32_t i = 0; i < 100; ++i) one_to_hundred[i] = i + 1;
  for (const auto& t : tpipes) {
    SCOPED_TRACE(t);
    EXPECT_EQ(client_owner.input_acks[t], 100u);
    EXPECT_EQ(client_owner.delivered[t], one_to_hundred);  // exactly one output per input, in order
    const client_tpipe_record& r = client_owner.records[t];
    EXPECT_EQ(r.send, 100u);
    EXPECT_EQ(r.receive, 100u);
    EXPECT_FALSE(r.in_flight);
    const server_tpipe& s = server_owner.tpipes[t];
    EXPECT_EQ(s.numbers.send, r.receive);
    EXPECT_EQ(s.numbers.receive, r.send);
    EXPECT_FALSE(s.held);
  }
  EXPECT_EQ(server_owner.output_responses.size(), 300u);
  EXPECT_TRUE(std::all_of(server_owner.output_responses.begin(), server_owner.output_responses.end(),
                          [](const output_response& r) { return r.ack; }));
  EXPECT_EQ(client_owner.duplicates, 0u);
  EXPECT_EQ(client_owner.naks, 0u);
  EXPECT_TRUE(server_owner.protocol_errors.empty());
  EXPECT_EQ(client->with_session([](client_session& s) { return s.stray_responses(); }), strays);
  EXPECT_EQ(count(wire(mq, ims), message_kind::transaction), 300u);
  EXPECT_EQ(count(wire(mq, ims), message_kind::output_ack), 300u);
}

TEST_F(link_test, cbresynch_with_records_continues_every_tpipe) {
  connect();
  const std::vector<std::string> tpipes = {"TPIPE1", "TPIPE2", "TPIPE3"};
  run_inputs(tpipes, 5);
  plex.clear_traffic();
  restart_server();
  EXPECT_EQ(client_owner.lost.size(), 1u);
  EXPECT_EQ(client_owner.ready, 2u);
  ASSERT_EQ(client_owner.decisions.size(), 3u);
  for (const auto& [tpipe, d] : client_owner.decisions) {
    SCOPED_TRACE(tpipe);
    EXPECT_EQ(d.input, input_outcome::consistent);
    EXPECT_EQ(d.output, output_outcome::continue_tpipe);
    EXPECT_EQ(d.action, otma::represynch_action::continue_tpipe);
  }
  ASSERT_EQ(server_owner.represynchs.size(), 3u);
  for (const auto& r : server_owner.represynchs) {
    EXPECT_EQ(r.action, otma::represynch_action::continue_tpipe);
    EXPECT_EQ(r.client_send, 5u);
    EXPECT_EQ(r.client_receive, 5u);
  }
  const auto up = wire(mq, ims);
  const auto down = wire(ims, mq);
  EXPECT_TRUE(in_order(up, {message_kind::cbresynch, message_kind::srvresynch_ack, message_kind::represynch,
                            message_kind::represynch, message_kind::represynch}));
  EXPECT_TRUE(in_order(down, {message_kind::bid_ack, message_kind::srvresynch, message_kind::reqresynch,
                              message_kind::reqresynch, message_kind::reqresynch}));
  EXPECT_EQ(count(down, message_kind::output), 0u);  // nothing held, nothing re-sent
  // The Tpipes go on from their numbers.
  run_inputs(tpipes, 1);
  for (const auto& t : tpipes) {
    EXPECT_EQ(client_owner.records[t].send, 6u);
    EXPECT_EQ(client_owner.delivered[t].back(), 6u);
    EXPECT_EQ(server_owner.tpipes[t].numbers.send, 6u);
  }
}

TEST_F(link_test, lost_output_ack_is_dequeued_after_server_restart_not_delivered_twice) {
  connect();
  // The client commits output 1 of TPIPE1, and its ACK is lost on the way (IMS fails before it gets
  // it: IBM's sample flow [C: IMS-SAMPLE-RS]).
  client_owner.before_ack = [this](const otma::otma_message&) {
    plex.faults().drop(transport::message_filter::between(mq, ims), 1);
    client_owner.before_ack = nullptr;
  };
  ASSERT_TRUE(client_owner.send_input("TPIPE1").ok());
  plex.run();
  EXPECT_EQ(client_owner.delivered["TPIPE1"], std::vector<std::uint32_t>{1});
  EXPECT_EQ(client_owner.records["TPIPE1"].receive, 1u);
  ASSERT_TRUE(server_owner.tpipes["TPIPE1"].held);  // IMS still holds it, send number not logged
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.send, 0u);
  EXPECT_TRUE(server_owner.output_responses.empty());

  plex.clear_traffic();
  restart_server();
  ASSERT_EQ(client_owner.decisions.size(), 1u);
  EXPECT_EQ(client_owner.decisions[0].second.output, output_outcome::dequeue_last_output);
  EXPECT_EQ(client_owner.decisions[0].second.input, input_outcome::consistent);
  ASSERT_EQ(server_owner.represynchs.size(), 1u);
  EXPECT_EQ(server_owner.represynchs[0].action, otma::represynch_action::dequeue_last_output);
  EXPECT_FALSE(server_owner.tpipes["TPIPE1"].held);  // dropped, not re-sent
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.send, 1u);
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.receive, 1u);
  EXPECT_EQ(count(wire(ims, mq), message_kind::output), 0u);
  EXPECT_EQ(client_owner.delivered["TPIPE1"], std::vector<std::uint32_t>{1});
  EXPECT_EQ(client_owner.duplicates, 0u);

  ASSERT_TRUE(client_owner.send_input("TPIPE1").ok());
  plex.run();
  EXPECT_EQ(client_owner.delivered["TPIPE1"], (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.send, 2u);
}

TEST_F(link_test, input_ack_and_output_lost_ims_has_it_and_resends_the_output_once) {
  connect();
  // IMS logged the input, but its ACK and the output are both lost on the way: the client never
  // committed anything, IMS still holds the output.
  plex.faults().drop(transport::message_filter::between(ims, mq), 2);
  ASSERT_TRUE(client_owner.send_input("TPIPE1").ok());
  plex.run();
  EXPECT_TRUE(client_owner.delivered["TPIPE1"].empty());
  ASSERT_TRUE(client_owner.records["TPIPE1"].in_flight);
  ASSERT_TRUE(server_owner.tpipes["TPIPE1"].held);

  restart_server();
  ASSERT_EQ(client_owner.decisions.size(), 1u);
  EXPECT_EQ(client_owner.decisions[0].second.input, input_outcome::ims_has_it);  // logged: not resent
  EXPECT_EQ(client_owner.decisions[0].second.output, output_outcome::continue_tpipe);
  EXPECT_EQ(server_owner.represynchs.at(0).action, otma::represynch_action::continue_tpipe);
  // IMS re-sent what it held: delivered once, and ACKed this time.
  EXPECT_EQ(client_owner.delivered["TPIPE1"], std::vector<std::uint32_t>{1});
  EXPECT_EQ(client_owner.records["TPIPE1"].send, 1u);
  EXPECT_FALSE(client_owner.records["TPIPE1"].in_flight);
  EXPECT_FALSE(server_owner.tpipes["TPIPE1"].held);
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.send, 1u);
  EXPECT_EQ(server_owner.inputs_logged, 1u);  // the input ran once
}

TEST_F(link_test, server_failure_loses_the_session_nothing_resent_then_rebid_on_rejoin) {
  server_owner.tpipes["TPIPE1"];  // a synchronized Tpipe IMS knows, numbers 0/0
  connect();
  server_owner.hold_inputs = true;  // IMS takes the input and fails before logging it
  ASSERT_TRUE(client_owner.send_input("TPIPE1").ok());
  plex.run();
  ASSERT_EQ(server_owner.held_inputs.size(), 1u);

  ASSERT_EQ(plex.faults().disconnect(group, ims), xcf::codes::ok);
  plex.run();
  ASSERT_EQ(client_owner.lost.size(), 1u);
  EXPECT_NE(client_owner.lost[0].find("failed"), std::string::npos) << client_owner.lost[0];
  EXPECT_EQ(state(), client_state::lost);
  EXPECT_EQ(client->with_session([](client_session& s) { return s.inputs_outstanding(); }), 0u);
  EXPECT_EQ(client_owner.records["TPIPE1"].in_flight, std::optional<std::uint32_t>(1));

  // Never a resend on a timer: the ACK timeout passes and nothing goes out.
  const std::size_t up_before = wire(mq, ims).size();
  now += 60'000;
  client->tick();
  plex.run();
  EXPECT_EQ(wire(mq, ims).size(), up_before);
  EXPECT_EQ(client_owner.lost.size(), 1u);

  // IMS comes back: the client bids again with resync; IMS never logged the input, so it is resent.
  server_owner.hold_inputs = false;
  plex.clear_traffic();
  client_owner.decisions.clear();
  ASSERT_TRUE(plex.faults().reconnect(group, ims).ok());
  plex.run();
  EXPECT_EQ(wire(mq, ims).front(), message_kind::cbresynch);
  EXPECT_EQ(client_owner.ready, 2u);
  ASSERT_EQ(client_owner.decisions.size(), 1u);
  EXPECT_EQ(client_owner.decisions[0].second.input, input_outcome::resend_in_flight);
  EXPECT_EQ(client_owner.delivered["TPIPE1"], std::vector<std::uint32_t>{1});
  EXPECT_EQ(client_owner.records["TPIPE1"].send, 1u);
  EXPECT_EQ(server_owner.inputs_logged, 1u);
}

TEST_F(link_test, server_link_destroyed_without_leave_is_a_failure_for_the_client) {
  connect();
  server.reset();
  plex.run();
  ASSERT_EQ(client_owner.lost.size(), 1u);
  EXPECT_NE(client_owner.lost[0].find("failed"), std::string::npos) << client_owner.lost[0];
  EXPECT_EQ(state(), client_state::lost);
}

TEST_F(link_test, client_ack_timeout_on_the_injected_clock_loses_the_session) {
  connect();
  server_owner.hold_inputs = true;
  ASSERT_TRUE(client_owner.send_input("TPIPE1").ok());
  plex.run();
  const std::size_t up_before = wire(mq, ims).size();
  now += 5'000;  // the limit itself: not yet over it
  client->tick();
  EXPECT_TRUE(client_owner.lost.empty());
  now += 1;
  client->tick();
  plex.run();
  ASSERT_EQ(client_owner.lost.size(), 1u);
  EXPECT_EQ(wire(mq, ims).size(), up_before);  // nothing resent
}

TEST_F(link_test, client_leave_is_a_lost_session_and_a_lost_client) {
  connect();
  client->leave();
  plex.run();
  EXPECT_EQ(client_owner.lost.size(), 1u);
  EXPECT_EQ(server_owner.lost.size(), 1u);
  EXPECT_FALSE(server->with_session([](server_session& s) { return s.client_ready(mq); }));
  // And joins again: a fresh bid, ready again.
  ASSERT_TRUE(client->join(plex, group).ok());
  plex.run();
  EXPECT_EQ(client_owner.ready, 2u);
  EXPECT_EQ(server_owner.ready.size(), 2u);
}

TEST_F(link_test, refused_send_by_the_client_loses_its_session) {
  connect();
  plex.faults().fail_send(group, mq, 1);
  auto seq = client_owner.send_input("TPIPE1");
  ASSERT_TRUE(seq.ok());
  ASSERT_EQ(client_owner.lost.size(), 1u);
  EXPECT_NE(client_owner.lost[0].find("refused"), std::string::npos) << client_owner.lost[0];
  EXPECT_EQ(state(), client_state::lost);
  EXPECT_EQ(client->with_session([](client_session& s) { return s.inputs_outstanding(); }), 0u);
  plex.run();
  EXPECT_EQ(count(wire(mq, ims), message_kind::transaction), 0u);
  EXPECT_EQ(server_owner.inputs_logged, 0u);
}

TEST_F(link_test, refusal_reported_later_loses_the_session_but_a_stale_one_does_not) {
  connect();
  // A refusal for a send older than the current session's bid: that session is over already.
  client->on_send_done(0, xcf::codes::resource_shortage);
  EXPECT_EQ(state(), client_state::active);
  EXPECT_TRUE(client_owner.lost.empty());
  // A later one (XCF's 12/0 after accepting the call) ends it.
  client->on_send_done(~std::uint64_t{0}, xcf::codes::resource_shortage);
  EXPECT_EQ(state(), client_state::lost);
  ASSERT_EQ(client_owner.lost.size(), 1u);
  EXPECT_NE(client_owner.lost[0].find("refused"), std::string::npos);
}

TEST_F(link_test, refused_send_by_the_server_is_a_lost_client) {
  connect();
  plex.faults().fail_send(group, ims, 1);  // the input's ACK
  ASSERT_TRUE(client_owner.send_input("TPIPE1").ok());
  plex.run();
  ASSERT_GE(server_owner.lost.size(), 1u);
  EXPECT_NE(server_owner.lost[0].find("refused"), std::string::npos) << server_owner.lost[0];
  EXPECT_EQ(server_owner.output_errors.size(), 1u);  // the output found the client gone
  EXPECT_EQ(count(wire(ims, mq), message_kind::input_ack), 0u);
  EXPECT_FALSE(server->with_session([](server_session& s) { return s.client_ready(mq); }));
}

TEST_F(link_test, stray_acks_are_ignored_by_both_roles_and_the_wire_carries_the_mci) {
  // A raw IMS: the test answers the bid itself, then sends an ACK of an input never sent.
  transport::recording_handler raw_ims;
  auto raw = plex.join({group, ims, true, {}, {}}, raw_ims);
  ASSERT_TRUE(raw.code.ok());
  make_client(/*resync=*/false);
  ASSERT_TRUE(client->join(plex, group).ok());
  plex.run();
  ASSERT_EQ(raw_ims.messages.size(), 1u);
  const xcf::message& bid = raw_ims.messages[0];
  ASSERT_GE(bid.data.size(), 32u);
  EXPECT_TRUE(std::equal(bid.control.begin(), bid.control.end(), bid.data.begin()));  // control = MCI
  EXPECT_EQ(bid.stream, 0u);
  EXPECT_TRUE(bid.ordered);
  auto decoded = otma::decode_message(bid.data);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(classify(decoded.value(), true), message_kind::client_bid);
  auto send_raw = [&](const otma::otma_message& m) {
    auto enc = otma::encode_message(m);
    ASSERT_TRUE(enc.ok());
    xcf::control_area control{};
    std::copy_n(enc.value().begin(), 32, control.begin());
    ASSERT_EQ(raw.joined->send(xcf::target::by_name(mq), control, enc.value()), xcf::codes::ok);
  };
  send_raw(make_ack(decoded.value(), ims, {}));
  plex.run();
  ASSERT_EQ(state(), client_state::active);
  otma::otma_message never_sent = transaction("TPIPE9", 0);
  never_sent.mci.send_seq = 7;
  send_raw(make_input_ack(never_sent));
  plex.run();
  EXPECT_EQ(client->with_session([](client_session& s) { return s.stray_responses(); }), 1u);
  EXPECT_EQ(state(), client_state::active);
  EXPECT_TRUE(client_owner.lost.empty());

  // A raw client at the server: bids, then ACKs an output the server never sent (DFS1284E).
  make_server();
  ASSERT_TRUE(raw.joined->leave().ok());
  plex.run();
  ASSERT_TRUE(server->join(plex, group).ok());
  transport::recording_handler raw_mq2;
  auto raw2 = plex.join({group, "MQ2", true, {}, {}}, raw_mq2);
  ASSERT_TRUE(raw2.code.ok());
  plex.run();
  auto send_raw2 = [&](const otma::otma_message& m) {
    auto enc = otma::encode_message(m);
    ASSERT_TRUE(enc.ok());
    xcf::control_area control{};
    std::copy_n(enc.value().begin(), 32, control.begin());
    ASSERT_EQ(raw2.joined->send(xcf::target::by_name(ims), control, enc.value()), xcf::codes::ok);
  };
  bid_params p;
  p.member = "MQ2";
  send_raw2(make_client_bid(p, /*resync=*/false));
  plex.run();
  ASSERT_TRUE(server->with_session([](server_session& s) { return s.client_ready("MQ2"); }));
  server_owner.protocol_errors.clear();
  otma::otma_message out;
  out.mci.message_type = otma::msg_type::data;
  out.mci.response_flag = otma::response::requested;
  out.mci.tpipe_name.set("TPIPE1");
  out.mci.send_seq = 5;
  send_raw2(make_ack(out));
  plex.run();
  ASSERT_EQ(server_owner.protocol_errors.size(), 1u);
  EXPECT_NE(server_owner.protocol_errors[0].find("DFS1284E"), std::string::npos);
  EXPECT_TRUE(server->with_session([](server_session& s) { return s.client_ready("MQ2"); }));
}

TEST_F(link_test, calls_before_join_returned_are_kept_and_handled_after) {
  make_server();
  ASSERT_TRUE(server->join(plex, group).ok());
  make_client();
  eager_service eager(plex);
  // Inside the join, the server sees the client active and sends server-available, which the client's
  // exit gets before join() has returned.
  ASSERT_TRUE(client->join(eager, group).ok());
  EXPECT_GE(eager.delivered_during_join.messages, 1u);
  plex.run();
  EXPECT_EQ(client_owner.ready, 1u);
  EXPECT_EQ(server_owner.ready.size(), 1u);
  // The kept server-available crossed our bid [C: IMS-SA-FLOW]: handled, and answered by no second bid.
  EXPECT_EQ(count(wire(mq, ims), message_kind::cbresynch), 1u);
}

TEST_F(link_test, calls_before_any_join_are_ignored) {
  make_client();
  xcf::message msg;
  msg.source_name = ims;
  msg.data = bytes(40, 0);
  client->on_message(msg);
  xcf::member_event event;
  event.kind = xcf::event_kind::failed;
  event.member.group = group;
  event.member.name = ims;
  client->on_event(event);
  client->on_send_done(1, xcf::codes::resource_shortage);
  EXPECT_EQ(state(), client_state::idle);
  EXPECT_TRUE(client_owner.lost.empty());
  // A join after that starts clean.
  make_server();
  ASSERT_TRUE(server->join(plex, group).ok());
  ASSERT_TRUE(client->join(plex, group).ok());
  plex.run();
  EXPECT_EQ(client_owner.ready, 1u);
}

// The link as a thread boundary: the backend's exits run on a pump thread, the owner sends from the test
// thread, and each side waits only on a condition variable.
TEST_F(link_test, backend_thread_and_owner_thread_share_the_link) {
  connect();
  std::mutex m;
  std::condition_variable cv;
  std::size_t outputs = 0;
  client_owner.before_ack = [&](const otma::otma_message&) {
    {
      std::lock_guard<std::mutex> lock(m);
      ++outputs;
    }
    cv.notify_all();
  };
  std::atomic<bool> stop{false};
  std::thread pump([&] {
    while (!stop.load()) {
      if (plex.run().total() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  constexpr std::size_t inputs = 30;
  bool all = true;
  for (std::size_t i = 0; i < inputs && all; ++i) {
    // The next input once the last one's output is here (records are read under the link's lock).
    std::unique_lock<std::mutex> lock(m);
    all = cv.wait_for(lock, std::chrono::seconds(10), [&] { return outputs == i; });
    lock.unlock();
    // The ACK came before the output (one ordered stream): nothing is in flight now.
    all = all &&
          client->with_session([&](client_session&) { return !client_owner.records["TPIPE1"].in_flight; });
    all = all && client_owner.send_input("TPIPE1").ok();
  }
  {
    std::unique_lock<std::mutex> lock(m);
    all = all && cv.wait_for(lock, std::chrono::seconds(10), [&] { return outputs == inputs; });
  }
  stop = true;
  pump.join();
  plex.run();
  ASSERT_TRUE(all);
  EXPECT_EQ(client_owner.delivered["TPIPE1"].size(), inputs);
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.send, inputs);
  EXPECT_EQ(server_owner.tpipes["TPIPE1"].numbers.receive, inputs);
  EXPECT_EQ(client_owner.duplicates, 0u);
}

}  // namespace
}  // namespace imsb::tpipe
