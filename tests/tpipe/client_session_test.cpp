// client_session driven by a fake server written in the test: every buffer the session sends is
// decoded and classified, and the server's answers are built with protocol.hpp's builders.

#include "imsb/tpipe/client_session.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/resync.hpp"

namespace imsb::tpipe {
namespace {

namespace act = otma::represynch_action;

const otma::raw_bytes<8> client_token{1, 0, 0, 1, 0, 3, 0, 2};
const otma::raw_bytes<8> ims_token{0, 0, 0, 7, 0, 0, 0, 9};

struct recording_observer : client_observer {
  std::vector<otma::otma_message> sent;  // decoded
  int ready = 0;
  std::vector<std::string> lost;
  std::vector<std::pair<std::uint16_t, std::uint16_t>> rejected;
  std::map<std::string, client_tpipe_record> records;
  std::vector<std::string> record_asked;
  std::vector<std::pair<std::string, resync_decision>> decisions;
  std::vector<std::string> unknown;
  std::vector<input_response> responses;
  std::vector<otma::otma_message> outputs;
  std::vector<std::tuple<std::string, std::uint32_t, bool>> commits;
  std::vector<std::uint16_t> states;
  int suspends = 0;
  std::vector<std::string> ours;
  std::vector<std::string> events;  // the order of callbacks and sends

  std::function<void(const otma::otma_message&)> send_hook;
  std::function<void()> ready_hook;
  std::function<void(const otma::otma_message&)> output_hook;
  std::function<void(const std::string&)> lost_hook;
  std::function<void(std::string_view, const resync_decision&)> decision_hook;

  void send(bytes buffer) override {
    auto decoded = otma::decode_message(buffer);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    events.push_back("send " + std::string(to_string(classify(decoded.value(), true))));
    sent.push_back(std::move(decoded).value());
    if (send_hook) send_hook(otma::otma_message(sent.back()));
  }
  void on_session_ready() override {
    ++ready;
    events.push_back("ready");
    if (ready_hook) ready_hook();
  }
  void on_bid_rejected(std::uint16_t sense, std::uint16_t reason) override {
    rejected.emplace_back(sense, reason);
    events.push_back("rejected");
  }
  void on_session_lost(const std::string& reason) override {
    lost.push_back(reason);
    events.push_back("lost");
    if (lost_hook) lost_hook(reason);
  }
  std::optional<client_tpipe_record> tpipe_record(std::string_view tpipe) override {
    record_asked.emplace_back(tpipe);
    auto it = records.find(std::string(tpipe));
    if (it == records.end()) return std::nullopt;
    return it->second;
  }
  void on_resync_decision(std::string_view tpipe, const resync_decision& decision) override {
    decisions.emplace_back(std::string(tpipe), decision);
    events.push_back("decision " + std::string(tpipe));
    if (decision_hook) decision_hook(tpipe, decision);
  }
  void on_tpipe_unknown_to_server(std::string_view tpipe) override { unknown.emplace_back(tpipe); }
  void on_input_response(const input_response& response) override { responses.push_back(response); }
  void on_output(const otma::otma_message& message) override {
    outputs.push_back(message);
    if (output_hook) output_hook(message);
  }
  void on_commit_confirmation(std::string_view tpipe, std::uint32_t send_seq, bool committed) override {
    commits.emplace_back(std::string(tpipe), send_seq, committed);
  }
  void on_server_state(std::uint16_t status) override { states.push_back(status); }
  void on_suspend() override { ++suspends; }
  std::vector<std::string> our_synchronized_tpipes() override { return ours; }
};

class client_session_test : public ::testing::Test {
 protected:
  client_config config(bool resync) {
    client_config c;
    c.bid.member = "MQCLIENT";
    c.bid.token = client_token;
    c.server_member = "IMSA";
    c.resync = resync;
    c.ack_timeout = 1000;
    c.bid_timeout = 500;
    return c;
  }
  void make(bool resync) { session = std::make_unique<client_session>(config(resync), obs); }

  void feed(const otma::otma_message& m, millis now = 0) {
    auto b = otma::encode_message(m);
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    session->receive(b.value(), now);
  }
  message_kind sent_kind(std::size_t i) const { return classify(obs.sent.at(i), /*from_client=*/true); }
  message_kind last_kind() const { return classify(obs.sent.back(), /*from_client=*/true); }

  // The fake server's ACK of the last bid the session sent.
  otma::otma_message bid_ack() const { return make_ack(obs.sent.back(), "IMSA", ims_token); }

  void activate(millis now = 0) {
    make(false);
    session->start(now);
    feed(bid_ack(), now);
    ASSERT_EQ(session->state(), client_state::active);
  }
  // CBresynch, its ACK and a SRVresynch listing `names`; the session is then waiting for REQresynchs.
  void resync_with(const std::vector<std::string>& names) {
    make(true);
    session->start(0);
    ASSERT_EQ(last_kind(), message_kind::cbresynch);
    feed(bid_ack());
    ASSERT_EQ(session->state(), client_state::resyncing);
    feed(make_srvresynch(names));
  }
  static otma::otma_message transaction(const std::string& tpipe, std::uint32_t rsn = 0) {
    otma::otma_message m;
    m.mci.message_type = otma::msg_type::transaction;
    m.mci.tpipe_name.set(tpipe);
    m.mci.recoverable_seq = rsn;
    m.state = otma::transaction_state_data{};
    m.application = otma::application_data{{otma::segment{0, bytes{0xC9, 0xE5, 0xE3, 0xD5, 0xD6}}}};
    return m;
  }
  static otma::otma_message output(const std::string& tpipe, std::uint32_t seq, bool response_requested) {
    otma::otma_message m;
    m.mci.message_type = otma::msg_type::data;
    m.mci.response_flag = response_requested ? otma::response::requested : 0;
    m.mci.tpipe_name.set(tpipe);
    m.mci.send_seq = seq;
    m.state = otma::transaction_state_data{};
    m.application = otma::application_data{{otma::segment{0, bytes{0xC8, 0xC9}}}};
    return m;
  }
  // IMS's answer to the sent input number `i` (index into obs.sent).
  otma::otma_message input_ack(std::size_t i) const { return make_ack(obs.sent.at(i)); }

  recording_observer obs;
  std::unique_ptr<client_session> session;
};

// --- bidding --------------------------------------------------------------------------------------

TEST_F(client_session_test, plain_bid_then_ack_makes_the_session_ready) {
  make(false);
  EXPECT_EQ(session->state(), client_state::idle);
  session->start(0);
  EXPECT_EQ(session->state(), client_state::bidding);
  ASSERT_EQ(obs.sent.size(), 1u);
  EXPECT_EQ(last_kind(), message_kind::client_bid);
  const auto& bid = std::get<otma::client_bid_state_data>(*obs.sent[0].state);
  EXPECT_EQ(bid.member_name.value(), "MQCLIENT");
  EXPECT_EQ(bid.originator_token, client_token);
  EXPECT_EQ(obs.ready, 0);

  feed(bid_ack());
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_EQ(obs.ready, 1);
  EXPECT_EQ(session->server_token(), ims_token);
  EXPECT_EQ(obs.sent.size(), 1u);  // nothing more to say after a plain bid
}

TEST_F(client_session_test, resync_config_sends_cbresynch_and_waits_for_srvresynch) {
  make(true);
  session->start(0);
  EXPECT_EQ(last_kind(), message_kind::cbresynch);
  feed(bid_ack());
  EXPECT_EQ(session->state(), client_state::resyncing);
  EXPECT_EQ(obs.ready, 0);
  EXPECT_EQ(session->send_input(transaction("T1"), 0).error().code,
            std::make_error_code(std::errc::operation_not_permitted));
}

TEST_F(client_session_test, bid_nak_reports_the_sense_and_loses_the_session) {
  make(false);
  session->start(0);
  feed(make_nak(obs.sent.back(), 0x0008, 0x0002));
  ASSERT_EQ(obs.rejected.size(), 1u);
  EXPECT_EQ(obs.rejected[0], std::make_pair(std::uint16_t{0x0008}, std::uint16_t{0x0002}));
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_NE(obs.lost[0].find("X'0008'"), std::string::npos) << obs.lost[0];
  EXPECT_EQ(obs.events, (std::vector<std::string>{"send client_bid", "rejected", "lost"}));
  // Nothing more is sent after the loss, whatever arrives.
  feed(make_server_available("IMSA", ims_token));
  session->tick(100000);
  EXPECT_EQ(obs.sent.size(), 1u);
}

TEST_F(client_session_test, server_available_while_bidding_is_not_answered_with_a_second_bid) {
  // They cross on every connect: a second bid would run the resync exchange twice.
  make(false);
  session->start(0);
  feed(make_server_available("IMSA", ims_token), 10);
  ASSERT_EQ(obs.sent.size(), 1u);
  EXPECT_EQ(session->state(), client_state::bidding);
  feed(bid_ack());
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_EQ(obs.ready, 1);
  EXPECT_EQ(session->stray_responses(), 0u);
  // A bid lost in between still ends in the bid timeout, not in a hang.
  make(false);
  session->start(0);
  feed(make_server_available("IMSA", ims_token), 10);
  session->tick(config(false).bid_timeout + 1);
  EXPECT_EQ(session->state(), client_state::lost);
}

TEST_F(client_session_test, server_available_before_start_is_answered_with_a_bid) {
  make(true);
  feed(make_tbresynch("T1"));  // anything else before start() is ignored
  const bytes garbage{0x01};
  session->receive(garbage, 0);
  EXPECT_TRUE(obs.sent.empty());
  EXPECT_TRUE(obs.lost.empty());
  feed(make_server_available("IMSA", ims_token));
  ASSERT_EQ(obs.sent.size(), 1u);
  EXPECT_EQ(last_kind(), message_kind::cbresynch);
  EXPECT_EQ(session->state(), client_state::bidding);
}

TEST_F(client_session_test, server_available_after_a_successful_bid_is_ignored) {
  activate();
  feed(make_server_available("IMSA", ims_token));
  EXPECT_EQ(obs.sent.size(), 1u);
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_EQ(obs.ready, 1);
}

TEST_F(client_session_test, server_joined_starts_an_idle_session_and_server_gone_loses_it) {
  make(false);
  session->server_gone("not there yet");  // idle: nothing to lose
  EXPECT_TRUE(obs.lost.empty());
  session->server_joined(0);
  EXPECT_EQ(last_kind(), message_kind::client_bid);
  feed(bid_ack());
  session->server_gone("member failed");
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_NE(obs.lost[0].find("member failed"), std::string::npos);
  session->server_gone("again");
  EXPECT_EQ(obs.lost.size(), 1u);  // lost once
  session->server_joined(5);       // it came back: bid again
  EXPECT_EQ(session->state(), client_state::bidding);
  EXPECT_EQ(obs.sent.size(), 2u);
}

TEST_F(client_session_test, server_joined_while_active_drops_the_session_and_bids_again) {
  activate();
  ASSERT_TRUE(session->send_input(transaction("T1"), 0).ok());
  session->server_joined(1);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_EQ(session->state(), client_state::bidding);
  EXPECT_EQ(last_kind(), message_kind::client_bid);
  EXPECT_EQ(session->inputs_outstanding(), 0u);
}

TEST_F(client_session_test, bid_unanswered_past_bid_timeout_loses_the_session) {
  make(false);
  session->start(100);
  session->tick(600);  // exactly the timeout: not yet
  EXPECT_EQ(session->state(), client_state::bidding);
  session->tick(601);
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_NE(obs.lost[0].find("client-bid"), std::string::npos) << obs.lost[0];
  feed(bid_ack(), 602);  // too late: ignored
  EXPECT_EQ(obs.ready, 0);
  EXPECT_EQ(obs.sent.size(), 1u);
}

TEST_F(client_session_test, start_after_a_loss_bids_afresh) {
  activate();
  session->server_gone("x");
  session->start(10);
  EXPECT_EQ(session->state(), client_state::bidding);
  EXPECT_EQ(obs.sent.size(), 2u);
  // The second bid names the server's token learnt from the first ACK.
  EXPECT_EQ(std::get<otma::client_bid_state_data>(*obs.sent[1].state).destination_token, ims_token);
  feed(bid_ack());
  EXPECT_EQ(obs.ready, 2);
}

// --- resync ---------------------------------------------------------------------------------------

TEST_F(client_session_test, resync_with_no_tpipes_is_ready_once_srvresynch_is_acked) {
  resync_with({});
  ASSERT_EQ(obs.sent.size(), 2u);
  EXPECT_EQ(sent_kind(1), message_kind::srvresynch_ack);
  EXPECT_EQ(obs.sent[1].mci.response_flag, otma::response::ack | otma::response::requested);  // X'A0'
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_EQ(obs.ready, 1);
  EXPECT_EQ(obs.events, (std::vector<std::string>{"send cbresynch", "send srvresynch_ack", "ready"}));
}

TEST_F(client_session_test, resync_with_one_tpipe_answers_its_reqresynch_then_is_ready) {
  obs.records["T1"] = client_tpipe_record{4, 9, std::nullopt};
  resync_with({"T1"});
  EXPECT_EQ(session->state(), client_state::resyncing);
  EXPECT_EQ(obs.ready, 0);
  feed(make_reqresynch("T1", 9, 4));
  ASSERT_EQ(obs.sent.size(), 3u);
  EXPECT_EQ(last_kind(), message_kind::represynch);
  const auto& rep = std::get<otma::represynch_state_data>(*obs.sent.back().state);
  EXPECT_EQ(rep.tpipe_name.value(), "T1");
  EXPECT_EQ(rep.client_send_seq, 4u);
  EXPECT_EQ(rep.client_receive_seq, 9u);
  EXPECT_EQ(rep.tpipe_flag1, act::continue_tpipe);
  ASSERT_EQ(obs.decisions.size(), 1u);
  EXPECT_EQ(obs.decisions[0].second.input, input_outcome::consistent);
  EXPECT_EQ(obs.decisions[0].second.output, output_outcome::continue_tpipe);
  // The owner hears the decision before the REPresynch leaves, then ready (docs/design/commit-modes.md,
  // CM0 step 7).
  EXPECT_EQ(obs.events, (std::vector<std::string>{"send cbresynch", "send srvresynch_ack", "decision T1",
                                                  "send represynch", "ready"}));
  EXPECT_EQ(session->state(), client_state::active);
  // IMS's ACK of the REPresynch, if any, changes nothing.
  feed(make_ack(obs.sent.back()));
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_EQ(session->stray_responses(), 0u);
}

TEST_F(client_session_test, resync_with_three_tpipes_sends_each_decision) {
  // T1: we committed output 8 but IMS never got the ACK (IMS send 7) -> dequeue last output.
  obs.records["T1"] = client_tpipe_record{3, 8, std::nullopt};
  // T2: input 6 in flight and IMS logged it (IMS receive 6) -> IMS has it, our send becomes 6.
  obs.records["T2"] = client_tpipe_record{5, 2, 6u};
  // T3: IMS's receive is far from ours -> mismatch, stop the Tpipe.
  obs.records["T3"] = client_tpipe_record{10, 0, std::nullopt};
  resync_with({"T1", "T2", "T3"});
  feed(make_reqresynch("T2", 2, 6));
  feed(make_reqresynch("T1", 7, 3));
  EXPECT_EQ(obs.ready, 0);
  EXPECT_EQ(session->state(), client_state::resyncing);
  feed(make_reqresynch("T3", 0, 4));
  EXPECT_EQ(obs.ready, 1);
  EXPECT_EQ(session->state(), client_state::active);

  ASSERT_EQ(obs.sent.size(), 5u);
  const auto rep = [&](std::size_t i) {
    return std::get<otma::represynch_state_data>(*obs.sent.at(i).state);
  };
  EXPECT_EQ(rep(2).tpipe_name.value(), "T2");
  EXPECT_EQ(rep(2).tpipe_flag1, act::continue_tpipe);
  EXPECT_EQ(rep(2).client_send_seq, 6u);
  EXPECT_EQ(rep(2).client_receive_seq, 2u);
  EXPECT_EQ(rep(3).tpipe_name.value(), "T1");
  EXPECT_EQ(rep(3).tpipe_flag1, act::dequeue_last_output);
  EXPECT_EQ(rep(3).client_send_seq, 3u);
  EXPECT_EQ(rep(3).client_receive_seq, 8u);
  EXPECT_EQ(rep(4).tpipe_name.value(), "T3");
  EXPECT_EQ(rep(4).tpipe_flag1, act::stop_tpipe);
  ASSERT_EQ(obs.decisions.size(), 3u);
  EXPECT_EQ(obs.decisions[0].second.input, input_outcome::ims_has_it);
  EXPECT_EQ(obs.decisions[1].second.output, output_outcome::dequeue_last_output);
  EXPECT_EQ(obs.decisions[2].second.input, input_outcome::mismatch);
  EXPECT_EQ(obs.record_asked, (std::vector<std::string>{"T2", "T1", "T3"}));
}

TEST_F(client_session_test, resend_in_flight_decision_is_reported) {
  obs.records["T1"] = client_tpipe_record{5, 0, 6u};  // IMS never logged 6
  resync_with({"T1"});
  feed(make_reqresynch("T1", 0, 5));
  ASSERT_EQ(obs.decisions.size(), 1u);
  EXPECT_EQ(obs.decisions[0].second.input, input_outcome::resend_in_flight);
  EXPECT_EQ(std::get<otma::represynch_state_data>(*obs.sent.back().state).client_send_seq, 5u);
  EXPECT_EQ(obs.ready, 1);
}

TEST_F(client_session_test, tpipe_without_record_is_answered_as_all_zeros) {
  resync_with({"NEWPIPE"});
  feed(make_reqresynch("NEWPIPE", 0, 0));
  const auto& rep = std::get<otma::represynch_state_data>(*obs.sent.back().state);
  EXPECT_EQ(rep.client_send_seq, 0u);
  EXPECT_EQ(rep.client_receive_seq, 0u);
  EXPECT_EQ(rep.tpipe_flag1, act::continue_tpipe);
  EXPECT_EQ(obs.ready, 1);
}

TEST_F(client_session_test, our_tpipes_missing_from_srvresynch_are_reported_unknown) {
  obs.ours = {"A", "B", "C"};
  resync_with({"B"});
  EXPECT_EQ(obs.unknown, (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(obs.ready, 0);  // B still to come
  feed(make_reqresynch("B", 0, 0));
  EXPECT_EQ(obs.ready, 1);
}

TEST_F(client_session_test, all_our_tpipes_unknown_with_an_empty_srvresynch) {
  obs.ours = {"A"};
  resync_with({});
  EXPECT_EQ(obs.unknown, (std::vector<std::string>{"A"}));
  EXPECT_EQ(obs.ready, 1);
}

TEST_F(client_session_test, reqresynch_before_srvresynch_is_a_protocol_error) {
  make(true);
  session->start(0);
  feed(bid_ack());
  feed(make_reqresynch("T1", 0, 0));
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_NE(obs.lost[0].find("before SRVresynch"), std::string::npos) << obs.lost[0];
  EXPECT_EQ(obs.sent.size(), 1u);
}

TEST_F(client_session_test, resync_that_stalls_past_bid_timeout_loses_the_session) {
  make(true);
  session->start(0);
  feed(bid_ack(), 100);
  session->tick(600);
  EXPECT_EQ(session->state(), client_state::resyncing);
  session->tick(601);
  EXPECT_EQ(session->state(), client_state::lost);
}

TEST_F(client_session_test, reqresynch_after_tbresynch_is_answered_while_active) {
  obs.records["T1"] = client_tpipe_record{2, 2, std::nullopt};
  resync_with({});
  session->send_tbresynch("T1");
  EXPECT_EQ(last_kind(), message_kind::tbresynch);
  EXPECT_EQ(std::get<otma::tbresynch_state_data>(*obs.sent.back().state).tpipe_name.value(), "T1");
  feed(make_reqresynch("T1", 1, 2));
  EXPECT_EQ(last_kind(), message_kind::represynch);
  EXPECT_EQ(std::get<otma::represynch_state_data>(*obs.sent.back().state).tpipe_flag1,
            act::dequeue_last_output);
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_EQ(obs.ready, 1);
}

TEST_F(client_session_test, owner_ending_the_session_from_the_decision_stops_the_represynch) {
  obs.records["T1"] = client_tpipe_record{5, 0, 6u};
  obs.decision_hook = [&](std::string_view, const resync_decision&) {
    session->server_gone("commit failed");
  };
  resync_with({"T1"});
  feed(make_reqresynch("T1", 0, 6));
  EXPECT_EQ(session->state(), client_state::lost);
  EXPECT_EQ(obs.sent.size(), 2u);  // CBresynch and the SRVresynch ACK only
  EXPECT_EQ(obs.ready, 0);
}

// --- input ----------------------------------------------------------------------------------------

TEST_F(client_session_test, send_seq_is_numbered_per_tpipe_and_asks_for_a_response) {
  activate();
  EXPECT_EQ(session->send_input(transaction("T1", 1), 0).value(), 1u);
  EXPECT_EQ(session->send_input(transaction("T1", 2), 0).value(), 2u);
  EXPECT_EQ(session->send_input(transaction("T2"), 0).value(), 1u);
  EXPECT_EQ(session->send_input(transaction("T1", 3), 0).value(), 3u);
  ASSERT_EQ(obs.sent.size(), 5u);
  const std::vector<std::pair<std::string, std::uint32_t>> expected{
      {"T1", 1}, {"T1", 2}, {"T2", 1}, {"T1", 3}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& m = obs.sent[i + 1];
    EXPECT_EQ(classify(m, true), message_kind::transaction);
    EXPECT_EQ(m.mci.tpipe_name.value(), expected[i].first);
    EXPECT_EQ(m.mci.send_seq, expected[i].second);
    EXPECT_TRUE(m.mci.response_requested());
  }
  EXPECT_EQ(obs.sent[2].mci.recoverable_seq, 2u);  // left as the owner set it
  EXPECT_EQ(session->inputs_outstanding(), 4u);
}

TEST_F(client_session_test, ack_and_nak_are_matched_by_tpipe_and_send_seq) {
  activate();
  ASSERT_TRUE(session->send_input(transaction("T1", 7), 0).ok());  // sent[1]
  ASSERT_TRUE(session->send_input(transaction("T2"), 0).ok());     // sent[2]
  ASSERT_TRUE(session->send_input(transaction("T1", 8), 0).ok());  // sent[3]
  feed(input_ack(3));                                              // out of order
  feed(make_nak(obs.sent[2], 0x001A, 0x001D, true));
  feed(input_ack(1));
  ASSERT_EQ(obs.responses.size(), 3u);
  EXPECT_EQ(obs.responses[0].tpipe, "T1");
  EXPECT_EQ(obs.responses[0].send_seq, 2u);
  EXPECT_EQ(obs.responses[0].recoverable_seq, 8u);
  EXPECT_TRUE(obs.responses[0].ack);
  EXPECT_EQ(obs.responses[1].tpipe, "T2");
  EXPECT_EQ(obs.responses[1].send_seq, 1u);
  EXPECT_FALSE(obs.responses[1].ack);
  EXPECT_EQ(obs.responses[1].sense, 0x001A);
  EXPECT_EQ(obs.responses[1].reason, 0x001D);
  EXPECT_TRUE(obs.responses[1].error_message_follows);
  EXPECT_EQ(obs.responses[2].recoverable_seq, 7u);
  EXPECT_EQ(session->inputs_outstanding(), 0u);
  EXPECT_EQ(session->stray_responses(), 0u);
}

// CM0 step 7 (docs/design/commit-modes.md): IMS refusing our recoverable number (X'1F') means the numbers
// disagree; the owner hears the NAK, then the session ends so the next bid resyncs. X'1F' on unrecoverable
// input does not.
TEST_F(client_session_test, nak_1f_of_recoverable_input_ends_the_session_after_the_response) {
  activate();
  ASSERT_TRUE(session->send_input(transaction("T2"), 0).ok());     // sent[1]
  ASSERT_TRUE(session->send_input(transaction("T1", 5), 0).ok());  // sent[2]
  feed(make_nak(obs.sent[1], otma::sense::invalid_recoverable_seq, 0, false));
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_TRUE(obs.lost.empty());
  feed(make_nak(obs.sent[2], otma::sense::invalid_recoverable_seq, 0, false));
  ASSERT_EQ(obs.responses.size(), 2u);
  EXPECT_FALSE(obs.responses[1].ack);
  EXPECT_EQ(obs.responses[1].recoverable_seq, 5u);
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_NE(obs.lost[0].find("X'1F'"), std::string::npos) << obs.lost[0];
  ASSERT_GE(obs.events.size(), 1u);
  EXPECT_EQ(obs.events.back(), "lost");
}

TEST_F(client_session_test, stray_ack_is_ignored_and_counted) {
  activate();
  ASSERT_TRUE(session->send_input(transaction("T1"), 0).ok());
  auto stray = input_ack(1);
  stray.mci.send_seq = 99;
  feed(stray);
  auto other_tpipe = input_ack(1);
  other_tpipe.mci.tpipe_name.set("T9");
  feed(other_tpipe);
  feed(input_ack(1));
  feed(input_ack(1));  // a duplicate: answered already
  EXPECT_EQ(session->stray_responses(), 3u);
  EXPECT_EQ(obs.responses.size(), 1u);
  EXPECT_EQ(session->state(), client_state::active);
  EXPECT_TRUE(obs.lost.empty());
}

TEST_F(client_session_test, input_unanswered_past_ack_timeout_loses_the_session_and_is_never_resent) {
  activate();
  ASSERT_TRUE(session->send_input(transaction("T1", 1), 100).ok());
  ASSERT_TRUE(session->send_input(transaction("T1", 2), 500).ok());
  feed(input_ack(1));
  session->tick(1500);  // the second is exactly 1000 ms old
  EXPECT_EQ(session->state(), client_state::active);
  const std::size_t sent_before = obs.sent.size();
  session->tick(1501);
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_EQ(obs.lost[0],
            "no ACK for tpipe T1 seq 2 after 1001 ms: session dropped, resync on reconnect "
            "(never resent)");
  EXPECT_EQ(session->inputs_outstanding(), 0u);
  // Nothing more goes out: no resend, no ACK of late output, no input.
  session->tick(5000);
  feed(input_ack(2));
  feed(output("T1", 1, true));
  session->ack_output(output("T1", 1, true));
  session->send_tbresynch("T1");
  EXPECT_EQ(session->send_input(transaction("T1"), 6000).error().code,
            std::make_error_code(std::errc::operation_not_permitted));
  EXPECT_EQ(obs.sent.size(), sent_before);
  EXPECT_TRUE(obs.outputs.empty());
  EXPECT_TRUE(obs.responses.size() == 1u);
  EXPECT_EQ(obs.lost.size(), 1u);
}

TEST_F(client_session_test, input_without_tpipe_is_refused) {
  activate();
  auto r = session->send_input(transaction(""), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_EQ(obs.sent.size(), 1u);
}

TEST_F(client_session_test, input_acked_inside_send_is_matched) {
  // The answer may come back before send() returns (a backend that delivers in line).
  activate();
  obs.send_hook = [&](const otma::otma_message& m) {
    if (classify(m, true) == message_kind::transaction) feed(make_ack(m));
  };
  auto r = session->send_input(transaction("T1"), 0);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(obs.responses.size(), 1u);
  EXPECT_EQ(obs.responses[0].send_seq, r.value());
  EXPECT_EQ(session->inputs_outstanding(), 0u);
  EXPECT_EQ(session->stray_responses(), 0u);
}

// --- output and the rest ---------------------------------------------------------------------------

TEST_F(client_session_test, output_is_handed_on_and_answered_by_the_owner) {
  activate();
  feed(output("T1", 5, true));
  ASSERT_EQ(obs.outputs.size(), 1u);
  EXPECT_EQ(obs.outputs[0].mci.send_seq, 5u);
  session->ack_output(obs.outputs[0]);
  EXPECT_EQ(last_kind(), message_kind::output_ack);
  EXPECT_EQ(obs.sent.back().mci.send_seq, 5u);
  EXPECT_EQ(obs.sent.back().mci.tpipe_name.value(), "T1");
  session->nak_output(obs.outputs[0], 0x0001);
  EXPECT_EQ(last_kind(), message_kind::output_nak);
  EXPECT_EQ(obs.sent.back().mci.sense_code, 0x0001);
  // Output that asked for no answer gets none.
  feed(output("T2", 1, false));
  const std::size_t n = obs.sent.size();
  session->ack_output(obs.outputs.back());
  EXPECT_EQ(obs.sent.size(), n);
}

TEST_F(client_session_test, ack_output_from_inside_on_output) {
  activate();
  obs.output_hook = [&](const otma::otma_message& m) { session->ack_output(m); };
  feed(output("T1", 1, true));
  feed(output("T1", 2, true));
  ASSERT_EQ(obs.sent.size(), 3u);
  EXPECT_EQ(sent_kind(1), message_kind::output_ack);
  EXPECT_EQ(obs.sent[1].mci.send_seq, 1u);
  EXPECT_EQ(obs.sent[2].mci.send_seq, 2u);
}

TEST_F(client_session_test, send_input_from_inside_on_session_ready) {
  obs.ready_hook = [&] { EXPECT_TRUE(session->send_input(transaction("T1"), 0).ok()); };
  resync_with({});
  EXPECT_EQ(last_kind(), message_kind::transaction);
  EXPECT_EQ(session->inputs_outstanding(), 1u);
}

TEST_F(client_session_test, start_from_inside_on_session_lost_bids_once) {
  activate();
  obs.lost_hook = [&](const std::string&) { session->start(1); };
  session->server_joined(1);  // loses, the owner restarts: the session must not bid a second time
  EXPECT_EQ(session->state(), client_state::bidding);
  EXPECT_EQ(obs.sent.size(), 2u);
}

TEST_F(client_session_test, chained_output_is_delivered_once_whole) {
  activate();
  auto out = output("T1", 3, true);
  out.application->segments.push_back(otma::segment{0, bytes{0xC1}});
  out.application->segments.push_back(otma::segment{0, bytes{0xC2}});
  auto buffers = otma::encode_chain(out, 1);
  ASSERT_TRUE(buffers.ok());
  ASSERT_EQ(buffers->size(), 3u);
  session->receive((*buffers)[0], 0);
  session->receive((*buffers)[1], 0);
  EXPECT_TRUE(obs.outputs.empty());
  session->receive((*buffers)[2], 0);
  ASSERT_EQ(obs.outputs.size(), 1u);
  EXPECT_EQ(obs.outputs[0].segments().size(), 3u);
  EXPECT_EQ(session->state(), client_state::active);
}

TEST_F(client_session_test, commit_confirmation_server_state_and_suspend_reach_the_owner) {
  activate();
  feed(make_commit_confirmation("T4", 12, true));
  feed(make_commit_confirmation("T4", 13, false));
  feed(make_server_state(otma::server_status::degraded));
  feed(make_suspend());
  EXPECT_EQ(obs.commits,
            (std::vector<std::tuple<std::string, std::uint32_t, bool>>{{"T4", 12, true}, {"T4", 13, false}}));
  EXPECT_EQ(obs.states, (std::vector<std::uint16_t>{otma::server_status::degraded}));
  EXPECT_EQ(obs.suspends, 1);
  EXPECT_EQ(session->state(), client_state::active);
}

TEST_F(client_session_test, deallocate_is_sent_while_active) {
  activate();
  otma::raw_bytes<16> conv{};
  conv[0] = 0x42;
  session->send_deallocate("T1", conv);
  EXPECT_EQ(last_kind(), message_kind::deallocate);
  EXPECT_EQ(std::get<otma::transaction_state_data>(*obs.sent.back().state).server_token, conv);
}

TEST_F(client_session_test, undecodable_buffer_loses_the_session_with_the_decode_error) {
  activate();
  const bytes garbage{0x01, 0x80, 0x20};  // shorter than an MCI
  session->receive(garbage, 0);
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  auto expected = otma::decode_message(garbage);
  ASSERT_FALSE(expected.ok());
  EXPECT_NE(obs.lost[0].find(expected.error().to_string()), std::string::npos) << obs.lost[0];
  EXPECT_EQ(obs.sent.size(), 1u);
}

TEST_F(client_session_test, client_direction_message_from_the_server_is_a_protocol_error) {
  activate();
  feed(make_tbresynch("T1"));
  EXPECT_EQ(session->state(), client_state::lost);
  ASSERT_EQ(obs.lost.size(), 1u);
  EXPECT_NE(obs.lost[0].find("tbresynch"), std::string::npos) << obs.lost[0];
}

TEST_F(client_session_test, output_before_the_bid_ack_is_a_protocol_error) {
  make(false);
  session->start(0);
  feed(output("T1", 1, true));
  EXPECT_EQ(session->state(), client_state::lost);
  EXPECT_TRUE(obs.outputs.empty());
}

TEST(client_state_names, every_state_has_a_name) {
  EXPECT_EQ(to_string(client_state::idle), "idle");
  EXPECT_EQ(to_string(client_state::bidding), "bidding");
  EXPECT_EQ(to_string(client_state::resyncing), "resyncing");
  EXPECT_EQ(to_string(client_state::active), "active");
  EXPECT_EQ(to_string(client_state::lost), "lost");
}

}  // namespace
}  // namespace imsb::tpipe
