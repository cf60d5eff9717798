// server_session driven by a fake client written in the test: every buffer the session sends is decoded
// and classified as a client would, and the client's messages are built with protocol.hpp's builders.

#include "imsb/tpipe/server_session.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"

namespace imsb::tpipe {
namespace {

namespace rsa = otma::represynch_action;

struct sent_message {
  std::string client;
  otma::otma_message message;
  message_kind kind = message_kind::unknown;
};

struct represynch_call {
  std::string client;
  std::string tpipe;
  std::uint8_t action = 0;
  std::uint32_t client_send = 0;
  std::uint32_t client_receive = 0;
};

// The owner: records every callback and answers as the test sets it up; hooks let a callback call back
// into the session, as imsemu's owner does under the link's recursive mutex.
class fake_owner : public server_observer {
 public:
  std::vector<sent_message> sent;
  bid_verdict verdict;
  std::map<std::string, std::vector<synchronized_tpipe>> synchronized;
  std::vector<std::string> bids, ready, srv_rejected, errors;
  std::vector<std::pair<std::string, std::string>> lost;
  std::vector<represynch_call> represynchs;
  std::vector<std::pair<std::string, otma::otma_message>> inputs, deallocates;
  std::vector<output_response> responses;
  std::vector<std::tuple<std::string, std::string, std::uint32_t>> timeouts;
  std::function<void(std::string_view, const otma::otma_message&)> input_hook;
  std::function<void(std::string_view)> ready_hook;

  void send(std::string_view client, bytes buffer) override {
    auto decoded = otma::decode_message(buffer);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    sent.push_back({std::string(client), *decoded, classify(*decoded, /*from_client=*/false)});
  }
  bid_verdict on_bid(std::string_view client, const otma::otma_message&) override {
    bids.emplace_back(client);
    return verdict;
  }
  void on_client_ready(std::string_view client) override {
    ready.emplace_back(client);
    if (ready_hook) ready_hook(client);
  }
  void on_client_lost(std::string_view client, const std::string& reason) override {
    lost.emplace_back(std::string(client), reason);
  }
  std::vector<synchronized_tpipe> synchronized_tpipes(std::string_view client) override {
    auto it = synchronized.find(std::string(client));
    return it == synchronized.end() ? std::vector<synchronized_tpipe>{} : it->second;
  }
  void on_represynch(std::string_view client, std::string_view tpipe, std::uint8_t action,
                     std::uint32_t client_send, std::uint32_t client_receive) override {
    represynchs.push_back({std::string(client), std::string(tpipe), action, client_send, client_receive});
  }
  void on_srvresynch_rejected(std::string_view client) override { srv_rejected.emplace_back(client); }
  void on_input(std::string_view client, const otma::otma_message& input) override {
    inputs.emplace_back(std::string(client), input);
    if (input_hook) input_hook(client, input);
  }
  void on_output_response(const output_response& response) override { responses.push_back(response); }
  void on_output_timeout(std::string_view client, std::string_view tpipe, std::uint32_t send_seq) override {
    timeouts.emplace_back(std::string(client), std::string(tpipe), send_seq);
  }
  void on_deallocate(std::string_view client, const otma::otma_message& message) override {
    deallocates.emplace_back(std::string(client), message);
  }
  void on_protocol_error(std::string_view, const std::string& what) override { errors.push_back(what); }
};

constexpr millis heartbeat = 60'000;
constexpr millis ack_timeout = 120'000;

server_config make_config() {
  server_config c;
  c.member = "IMSA";
  c.token = {0, 0, 0, 1, 0, 0, 0, 7};
  c.heartbeat_interval = heartbeat;
  c.output_ack_timeout = ack_timeout;
  return c;
}

otma::otma_message transaction(const std::string& tpipe, std::uint32_t send_seq) {
  otma::otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.response_flag = otma::response::requested;
  m.mci.tpipe_name.set(tpipe);
  m.mci.send_seq = send_seq;
  m.state = otma::transaction_state_data{};
  m.application = otma::application_data{{otma::segment{0, bytes{0xC9, 0xE5, 0xE3, 0xD5, 0xD6}}}};
  return m;
}

otma::otma_message output(const std::string& tpipe) {
  otma::otma_message m;
  m.mci.tpipe_name.set(tpipe);
  m.state = otma::transaction_state_data{};
  m.application = otma::application_data{{otma::segment{0, bytes{0xC8, 0xC9}}}};
  return m;
}

class server_session_test : public ::testing::Test {
 protected:
  fake_owner owner;
  server_session session{make_config(), owner};

  void feed(const std::string& client, const otma::otma_message& message, millis now = 0) {
    auto encoded = otma::encode_message(message);
    ASSERT_TRUE(encoded.ok()) << encoded.error().to_string();
    session.receive(client, *encoded, now);
  }
  std::vector<sent_message> take() {
    auto out = std::move(owner.sent);
    owner.sent.clear();
    return out;
  }
  static std::vector<message_kind> kinds(const std::vector<sent_message>& sent) {
    std::vector<message_kind> out;
    for (const auto& s : sent) out.push_back(s.kind);
    return out;
  }
  otma::otma_message bid_message(const std::string& client, bool resync) {
    bid_params p;
    p.member = client;
    p.token = {9, 9, 9, 9, 0, 0, 0, 1};
    return make_client_bid(p, resync);
  }
  // A plain bid, ACKed, everything it causes taken away.
  void connect(const std::string& client, millis now = 0) {
    feed(client, bid_message(client, false), now);
    ASSERT_TRUE(session.client_ready(client));
    take();
  }
  // A CBresynch with the owner's tpipes for `client`; returns the SRVresynch.
  otma::otma_message cbresynch(const std::string& client, millis now = 0) {
    feed(client, bid_message(client, true), now);
    auto sent = take();
    EXPECT_EQ(kinds(sent), (std::vector<message_kind>{message_kind::bid_ack, message_kind::server_state,
                                                      message_kind::srvresynch}));
    return sent.empty() ? otma::otma_message{} : sent.back().message;
  }
};

std::vector<std::string> srvresynch_names(const otma::otma_message& m) {
  std::vector<std::string> out;
  const auto* sd = m.state ? std::get_if<otma::srvresynch_state_data>(&*m.state) : nullptr;
  if (sd == nullptr) return out;
  for (const auto& n : sd->tpipe_names) out.push_back(n.value());
  return out;
}

// --- connecting [C: IMS-CB-FLOW, IMS-SA-FLOW] ---------------------------------------------------------

TEST_F(server_session_test, client_joined_sends_server_available_with_our_member_and_token) {
  session.client_joined("CSQ1", 0);
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].client, "CSQ1");
  EXPECT_EQ(sent[0].kind, message_kind::server_available);
  const auto* sd = std::get_if<otma::server_available_state_data>(&*sent[0].message.state);
  ASSERT_NE(sd, nullptr);
  EXPECT_EQ(sd->member_name.value(), "IMSA");
  EXPECT_EQ(sd->originator_token, make_config().token);
  EXPECT_FALSE(session.client_ready("CSQ1"));
}

TEST_F(server_session_test, join_event_after_a_successful_bid_sends_no_server_available) {
  connect("CSQ1");
  session.client_joined("CSQ1", 5);
  EXPECT_TRUE(take().empty());
  EXPECT_TRUE(session.client_ready("CSQ1"));
}

TEST_F(server_session_test, bid_is_acked_then_one_server_state_normal_then_client_ready) {
  feed("CSQ1", bid_message("CSQ1", false));
  auto sent = take();
  ASSERT_EQ(kinds(sent), (std::vector<message_kind>{message_kind::bid_ack, message_kind::server_state}));
  const auto* sd = std::get_if<otma::client_bid_state_data>(&*sent[0].message.state);
  ASSERT_NE(sd, nullptr);
  EXPECT_EQ(sd->member_name.value(), "IMSA");
  EXPECT_EQ(sd->originator_token, make_config().token);
  const auto* st = std::get_if<otma::server_state_data>(&*sent[1].message.state);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->status, otma::server_status::normal);
  EXPECT_EQ(owner.bids, std::vector<std::string>{"CSQ1"});
  EXPECT_EQ(owner.ready, std::vector<std::string>{"CSQ1"});
  EXPECT_EQ(session.ready_clients(), std::vector<std::string>{"CSQ1"});
}

TEST_F(server_session_test, rejected_bid_gets_nak_with_the_owners_sense_and_reason_and_nothing_else) {
  owner.verdict = {false, otma::sense::invalid_name, 5};
  feed("csq1", bid_message("csq1", false));
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].kind, message_kind::bid_nak);
  EXPECT_EQ(sent[0].message.mci.sense_code, otma::sense::invalid_name);
  EXPECT_EQ(sent[0].message.mci.reason_code, 5);
  EXPECT_TRUE(owner.ready.empty());
  EXPECT_FALSE(session.client_ready("csq1"));
}

// --- resync as the server [C: IMS-RESYNC] -------------------------------------------------------------

TEST_F(server_session_test, cbresynch_without_synchronized_tpipes_sends_empty_srvresynch_ready_on_its_ack) {
  auto srv = cbresynch("CSQ1");
  EXPECT_TRUE(srvresynch_names(srv).empty());
  EXPECT_FALSE(session.client_ready("CSQ1"));
  EXPECT_TRUE(owner.ready.empty());
  feed("CSQ1", make_ack(srv));
  EXPECT_TRUE(take().empty());  // no REQresynch
  EXPECT_TRUE(session.client_ready("CSQ1"));
  EXPECT_EQ(owner.ready, std::vector<std::string>{"CSQ1"});
}

TEST_F(server_session_test, cbresynch_with_two_tpipes_requests_each_and_is_ready_after_both_answers) {
  owner.synchronized["CSQ1"] = {{"CSQ00001", {7, 3}}, {"CSQ00002", {0, 12}}};
  auto srv = cbresynch("CSQ1");
  EXPECT_EQ(srvresynch_names(srv), (std::vector<std::string>{"CSQ00001", "CSQ00002"}));
  feed("CSQ1", make_ack(srv));
  auto sent = take();
  ASSERT_EQ(kinds(sent), (std::vector<message_kind>{message_kind::reqresynch, message_kind::reqresynch}));
  const auto* r1 = std::get_if<otma::reqresynch_state_data>(&*sent[0].message.state);
  const auto* r2 = std::get_if<otma::reqresynch_state_data>(&*sent[1].message.state);
  ASSERT_TRUE(r1 != nullptr && r2 != nullptr);
  EXPECT_EQ(r1->tpipe_name.value(), "CSQ00001");
  EXPECT_EQ(r1->ims_send_seq, 7u);
  EXPECT_EQ(r1->ims_receive_seq, 3u);
  EXPECT_EQ(r2->tpipe_name.value(), "CSQ00002");
  EXPECT_EQ(r2->ims_send_seq, 0u);
  EXPECT_EQ(r2->ims_receive_seq, 12u);

  feed("CSQ1", make_represynch("CSQ00002", 12, 0, rsa::continue_tpipe));
  EXPECT_EQ(kinds(take()), std::vector<message_kind>{message_kind::represynch_ack});
  EXPECT_FALSE(session.client_ready("CSQ1"));
  EXPECT_TRUE(owner.ready.empty());
  feed("CSQ1", make_represynch("CSQ00001", 3, 8, rsa::dequeue_last_output));
  EXPECT_EQ(kinds(take()), std::vector<message_kind>{message_kind::represynch_ack});
  EXPECT_TRUE(session.client_ready("CSQ1"));
  EXPECT_EQ(owner.ready, std::vector<std::string>{"CSQ1"});
  ASSERT_EQ(owner.represynchs.size(), 2u);
  EXPECT_EQ(owner.represynchs[1].tpipe, "CSQ00001");
  EXPECT_EQ(owner.represynchs[1].client_receive, 8u);
}

class represynch_action_test : public server_session_test,
                               public ::testing::WithParamInterface<std::uint8_t> {};

TEST_P(represynch_action_test, reaches_the_owner_with_the_clients_numbers) {
  owner.synchronized["CSQ1"] = {{"CSQT", {10, 20}}};
  feed("CSQ1", make_ack(cbresynch("CSQ1")));
  take();
  feed("CSQ1", make_represynch("CSQT", 21, 11, GetParam()));
  ASSERT_EQ(owner.represynchs.size(), 1u);
  EXPECT_EQ(owner.represynchs[0].client, "CSQ1");
  EXPECT_EQ(owner.represynchs[0].tpipe, "CSQT");
  EXPECT_EQ(owner.represynchs[0].action, GetParam());
  EXPECT_EQ(owner.represynchs[0].client_send, 21u);
  EXPECT_EQ(owner.represynchs[0].client_receive, 11u);
  EXPECT_TRUE(session.client_ready("CSQ1"));
}

INSTANTIATE_TEST_SUITE_P(every_action, represynch_action_test,
                         ::testing::Values(rsa::continue_tpipe, rsa::dequeue_last_output,
                                           rsa::reset_sequence_numbers, rsa::stop_tpipe,
                                           rsa::stop_and_wait_tbresynch));

TEST_F(server_session_test, represynch_without_response_requested_gets_no_ack) {
  owner.synchronized["CSQ1"] = {{"CSQT", {1, 1}}};
  feed("CSQ1", make_ack(cbresynch("CSQ1")));
  take();
  auto rep = make_represynch("CSQT", 1, 1, rsa::continue_tpipe);
  rep.mci.response_flag = 0;
  feed("CSQ1", rep);
  EXPECT_TRUE(take().empty());
  EXPECT_EQ(owner.represynchs.size(), 1u);
  EXPECT_TRUE(session.client_ready("CSQ1"));
}

TEST_F(server_session_test, srvresynch_nak_stops_resync_and_leaves_the_client_connected) {
  owner.synchronized["CSQ1"] = {{"CSQT", {1, 1}}};
  auto srv = cbresynch("CSQ1");
  feed("CSQ1", make_nak(srv, otma::sense::invalid_message));
  EXPECT_TRUE(take().empty());  // DFS2393I: no REQresynch
  EXPECT_EQ(owner.srv_rejected, std::vector<std::string>{"CSQ1"});
  EXPECT_TRUE(session.client_ready("CSQ1"));
  EXPECT_EQ(owner.ready, std::vector<std::string>{"CSQ1"});
}

TEST_F(server_session_test, represynch_nobody_asked_for_is_reported_and_naked) {
  connect("CSQ1");
  feed("CSQ1", make_represynch("CSQT", 1, 1, rsa::reset_sequence_numbers));
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_TRUE(sent[0].message.mci.is_nak());
  EXPECT_EQ(sent[0].message.mci.sense_code, otma::sense::invalid_message);
  EXPECT_TRUE(owner.represynchs.empty());
  EXPECT_EQ(owner.errors.size(), 1u);
}

TEST_F(server_session_test, tbresynch_gets_a_reqresynch_with_ims_numbers_and_its_represynch_is_applied) {
  owner.synchronized["CSQ1"] = {{"CSQA", {1, 2}}, {"CSQB", {40, 50}}};
  connect("CSQ1");
  feed("CSQ1", make_tbresynch("CSQB"));
  auto sent = take();
  ASSERT_EQ(kinds(sent), std::vector<message_kind>{message_kind::reqresynch});
  const auto* r = std::get_if<otma::reqresynch_state_data>(&*sent[0].message.state);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->tpipe_name.value(), "CSQB");
  EXPECT_EQ(r->ims_send_seq, 40u);
  EXPECT_EQ(r->ims_receive_seq, 50u);
  feed("CSQ1", make_represynch("CSQB", 50, 40, rsa::continue_tpipe));
  EXPECT_EQ(kinds(take()), std::vector<message_kind>{message_kind::represynch_ack});
  ASSERT_EQ(owner.represynchs.size(), 1u);
  EXPECT_EQ(owner.represynchs[0].tpipe, "CSQB");
  EXPECT_EQ(owner.ready.size(), 1u);  // not "ready" a second time
}

TEST_F(server_session_test, tbresynch_for_a_tpipe_that_is_not_synchronized_is_naked) {
  connect("CSQ1");
  feed("CSQ1", make_tbresynch("NOSUCH"));
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_TRUE(sent[0].message.mci.is_nak());
  EXPECT_EQ(sent[0].message.mci.sense_code, otma::sense::unknown_destination);
  EXPECT_EQ(owner.errors.size(), 1u);
}

TEST_F(server_session_test, tbresynch_during_the_initial_exchange_does_not_count_towards_ready) {
  owner.synchronized["CSQ1"] = {{"CSQA", {1, 1}}, {"CSQB", {2, 2}}};
  feed("CSQ1", make_ack(cbresynch("CSQ1")));
  take();
  feed("CSQ1", make_represynch("CSQA", 1, 1, rsa::stop_and_wait_tbresynch));
  feed("CSQ1", make_tbresynch("CSQA"));
  feed("CSQ1", make_represynch("CSQA", 1, 1, rsa::continue_tpipe));
  EXPECT_FALSE(session.client_ready("CSQ1"));
  feed("CSQ1", make_represynch("CSQB", 2, 2, rsa::continue_tpipe));
  EXPECT_TRUE(session.client_ready("CSQ1"));
  EXPECT_EQ(owner.represynchs.size(), 3u);
}

// --- input --------------------------------------------------------------------------------------------

TEST_F(server_session_test, input_before_a_bid_is_naked_and_not_handed_on) {
  feed("CSQ1", transaction("CSQT", 1));
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].kind, message_kind::input_nak);
  EXPECT_EQ(sent[0].message.mci.sense_code, otma::sense::invalid_message);
  EXPECT_EQ(sent[0].message.mci.send_seq, 1u);
  EXPECT_TRUE(owner.inputs.empty());
}

TEST_F(server_session_test, input_while_resync_is_unfinished_is_naked) {
  owner.synchronized["CSQ1"] = {{"CSQT", {1, 1}}};
  feed("CSQ1", make_ack(cbresynch("CSQ1")));
  take();
  feed("CSQ1", transaction("CSQT", 1));
  EXPECT_EQ(kinds(take()), std::vector<message_kind>{message_kind::input_nak});
  EXPECT_TRUE(owner.inputs.empty());
}

TEST_F(server_session_test, input_goes_to_the_owner_who_acks_or_naks_it) {
  connect("CSQ1");
  feed("CSQ1", transaction("CSQT", 4));
  ASSERT_EQ(owner.inputs.size(), 1u);
  EXPECT_TRUE(take().empty());  // CM0: no ACK before the owner has logged it
  session.ack_input("CSQ1", owner.inputs[0].second);
  session.nak_input("CSQ1", owner.inputs[0].second, otma::sense::security_violation, 3, true);
  auto sent = take();
  ASSERT_EQ(kinds(sent), (std::vector<message_kind>{message_kind::input_ack, message_kind::input_nak}));
  EXPECT_EQ(sent[0].message.mci.send_seq, 4u);
  EXPECT_EQ(tpipe_of(sent[0].message), "CSQT");
  EXPECT_EQ(sent[1].message.mci.sense_code, otma::sense::security_violation);
  EXPECT_EQ(sent[1].message.mci.reason_code, 3);
  EXPECT_NE(sent[1].message.mci.processing_flags & otma::processing::error_message_follows, 0);
}

TEST_F(server_session_test, conversation_data_is_input_too) {
  connect("CSQ1");
  auto m = transaction("CSQT", 2);
  m.mci.message_type = otma::msg_type::data;
  std::get<otma::transaction_state_data>(*m.state).server_state = otma::server_state::conversational;
  feed("CSQ1", m);
  ASSERT_EQ(owner.inputs.size(), 1u);
  session.ack_input("CSQ1", owner.inputs[0].second);
  EXPECT_EQ(kinds(take()), std::vector<message_kind>{message_kind::input_ack});
}

TEST_F(server_session_test, owner_may_ack_input_from_inside_on_input) {
  connect("CSQ1");
  owner.input_hook = [this](std::string_view client, const otma::otma_message& input) {
    session.ack_input(client, input);
  };
  feed("CSQ1", transaction("CSQT", 1));
  feed("CSQ1", transaction("CSQT", 2));
  auto sent = take();
  ASSERT_EQ(kinds(sent), (std::vector<message_kind>{message_kind::input_ack, message_kind::input_ack}));
  EXPECT_EQ(sent[1].message.mci.send_seq, 2u);
}

TEST_F(server_session_test, owner_may_send_output_from_inside_on_client_ready) {
  owner.ready_hook = [this](std::string_view client) {
    auto seq = session.send_output(client, output("CSQT"), true, 0);
    EXPECT_TRUE(seq.ok());
  };
  owner.synchronized["CSQ1"] = {{"CSQT", {0, 0}}};
  feed("CSQ1", make_ack(cbresynch("CSQ1")));
  take();
  feed("CSQ1", make_represynch("CSQT", 0, 0, rsa::continue_tpipe));
  EXPECT_EQ(kinds(take()), (std::vector<message_kind>{message_kind::represynch_ack, message_kind::output}));
}

TEST_F(server_session_test, deallocate_goes_to_the_owner) {
  connect("CSQ1");
  otma::raw_bytes<16> token{};
  token[0] = 0x42;
  feed("CSQ1", make_deallocate("CSQT", token));
  ASSERT_EQ(owner.deallocates.size(), 1u);
  EXPECT_EQ(tpipe_of(owner.deallocates[0].second), "CSQT");
}

// --- output [C: IMS-RESYNC, IMS-CTS-FLOW] -------------------------------------------------------------

TEST_F(server_session_test, output_is_numbered_per_client_and_tpipe) {
  connect("CSQ1");
  connect("CSQ2");
  std::vector<std::uint32_t> seqs;
  for (const auto& [client, tpipe] : std::vector<std::pair<std::string, std::string>>{
           {"CSQ1", "T1"}, {"CSQ1", "T1"}, {"CSQ1", "T2"}, {"CSQ2", "T1"}, {"CSQ1", "T1"}, {"CSQ2", "T1"}}) {
    auto seq = session.send_output(client, output(tpipe), false, 0);
    ASSERT_TRUE(seq.ok());
    seqs.push_back(*seq);
  }
  EXPECT_EQ(seqs, (std::vector<std::uint32_t>{1, 2, 1, 1, 3, 2}));
  auto sent = take();
  ASSERT_EQ(sent.size(), 6u);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i].kind, message_kind::output);
    EXPECT_EQ(sent[i].message.mci.message_type, otma::msg_type::data);
    EXPECT_EQ(sent[i].message.mci.send_seq, seqs[i]);
    EXPECT_FALSE(sent[i].message.mci.response_requested());
  }
  EXPECT_EQ(sent[3].client, "CSQ2");
}

TEST_F(server_session_test, output_asks_for_a_response_when_told_and_matches_ack_and_nak) {
  connect("CSQ1");
  ASSERT_TRUE(session.send_output("CSQ1", output("T1"), true, 0).ok());
  ASSERT_TRUE(session.send_output("CSQ1", output("T1"), true, 0).ok());
  auto sent = take();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_TRUE(sent[0].message.mci.response_requested());
  feed("CSQ1", make_nak(sent[1].message, 0x0020));
  feed("CSQ1", make_ack(sent[0].message));
  ASSERT_EQ(owner.responses.size(), 2u);
  EXPECT_EQ(owner.responses[0].send_seq, 2u);
  EXPECT_FALSE(owner.responses[0].ack);
  EXPECT_EQ(owner.responses[0].sense, 0x0020);
  EXPECT_EQ(owner.responses[1].client, "CSQ1");
  EXPECT_EQ(owner.responses[1].tpipe, "T1");
  EXPECT_EQ(owner.responses[1].send_seq, 1u);
  EXPECT_TRUE(owner.responses[1].ack);
  EXPECT_TRUE(owner.errors.empty());
  // Answered once: the same ACK again is stray.
  feed("CSQ1", make_ack(sent[0].message));
  EXPECT_EQ(owner.responses.size(), 2u);
  EXPECT_EQ(owner.errors.size(), 1u);
}

TEST_F(server_session_test, stray_ack_is_ignored_and_logged_as_dfs1284e) {
  connect("CSQ1");
  auto out = output("T9");
  out.mci.message_type = otma::msg_type::data;
  out.mci.send_seq = 77;
  feed("CSQ1", make_ack(out));
  EXPECT_TRUE(take().empty());
  EXPECT_TRUE(owner.responses.empty());
  ASSERT_EQ(owner.errors.size(), 1u);
  EXPECT_NE(owner.errors[0].find("DFS1284E"), std::string::npos);
  EXPECT_NE(owner.errors[0].find("T9"), std::string::npos);
}

TEST_F(server_session_test, output_to_a_client_that_is_not_ready_is_refused) {
  auto seq = session.send_output("CSQ1", output("T1"), true, 0);
  ASSERT_FALSE(seq.ok());
  EXPECT_EQ(seq.error().code, std::make_error_code(std::errc::operation_not_permitted));
  EXPECT_TRUE(take().empty());
}

TEST_F(server_session_test, unanswered_output_times_out_once_and_a_late_ack_still_matches) {
  connect("CSQ1", 1'000);
  ASSERT_TRUE(session.send_output("CSQ1", output("T1"), true, 1'000).ok());
  ASSERT_TRUE(session.send_output("CSQ1", output("T2"), false, 1'000).ok());
  auto sent = take();
  session.tick(1'000 + ack_timeout - 1);
  EXPECT_TRUE(owner.timeouts.empty());
  session.tick(1'000 + ack_timeout);
  ASSERT_EQ(owner.timeouts.size(), 1u);
  EXPECT_EQ(owner.timeouts[0], std::make_tuple(std::string("CSQ1"), std::string("T1"), 1u));
  session.tick(1'000 + 5 * ack_timeout);
  EXPECT_EQ(owner.timeouts.size(), 1u);
  feed("CSQ1", make_ack(sent[0].message));
  EXPECT_EQ(owner.responses.size(), 1u);
}

// --- server state, heartbeat, suspend, commit ---------------------------------------------------------

TEST_F(server_session_test, heartbeat_goes_to_ready_clients_every_interval) {
  connect("CSQ1", 0);
  connect("CSQ2", 10);
  session.client_joined("CSQ3", 20);  // joined, never bid: no heartbeat
  take();
  auto heartbeats = [this] {
    std::vector<std::string> to;
    for (const auto& s : take()) {
      EXPECT_EQ(s.kind, message_kind::server_state);
      to.push_back(s.client);
    }
    return to;
  };
  session.tick(heartbeat - 1);
  EXPECT_TRUE(heartbeats().empty());
  session.tick(heartbeat);
  EXPECT_EQ(heartbeats(), (std::vector<std::string>{"CSQ1", "CSQ2"}));
  session.tick(heartbeat + 1);
  session.tick(2 * heartbeat - 1);
  EXPECT_TRUE(heartbeats().empty());
  session.tick(2 * heartbeat);
  EXPECT_EQ(heartbeats().size(), 2u);
}

TEST(server_session_heartbeat, interval_zero_sends_none) {
  fake_owner owner;
  auto config = make_config();
  config.heartbeat_interval = 0;
  server_session session(config, owner);
  bid_params params;
  params.member = "CSQ1";
  auto bid = make_client_bid(params, false);
  auto encoded = otma::encode_message(bid);
  ASSERT_TRUE(encoded.ok());
  session.receive("CSQ1", *encoded, 0);
  owner.sent.clear();
  session.tick(10 * heartbeat);
  EXPECT_TRUE(owner.sent.empty());
}

TEST_F(server_session_test, server_state_change_goes_to_ready_clients_and_follows_later_bids) {
  connect("CSQ1");
  session.set_server_state(otma::server_status::degraded);
  EXPECT_EQ(session.server_state(), otma::server_status::degraded);
  auto sent = take();
  ASSERT_EQ(kinds(sent), std::vector<message_kind>{message_kind::server_state});
  EXPECT_EQ(std::get<otma::server_state_data>(*sent[0].message.state).status, otma::server_status::degraded);
  feed("CSQ2", bid_message("CSQ2", false));
  sent = take();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(std::get<otma::server_state_data>(*sent[1].message.state).status, otma::server_status::degraded);
}

TEST_F(server_session_test, suspend_goes_to_every_ready_client) {
  connect("CSQ1");
  connect("CSQ2");
  session.client_joined("CSQ3", 0);
  take();
  session.suspend_all();
  auto sent = take();
  ASSERT_EQ(kinds(sent), (std::vector<message_kind>{message_kind::suspend, message_kind::suspend}));
  EXPECT_EQ(sent[0].client, "CSQ1");
  EXPECT_EQ(sent[1].client, "CSQ2");
}

TEST_F(server_session_test, commit_confirmation_names_tpipe_and_send_sequence) {
  connect("CSQ1");
  session.send_commit_confirmation("CSQ1", "T1", 5, false);
  auto sent = take();
  ASSERT_EQ(kinds(sent), std::vector<message_kind>{message_kind::commit_confirmation});
  EXPECT_EQ(tpipe_of(sent[0].message), "T1");
  EXPECT_EQ(sent[0].message.mci.send_seq, 5u);
  EXPECT_EQ(sent[0].message.mci.commit_confirmation, otma::commit::aborted);
}

// --- losing clients, bad buffers ------------------------------------------------------------------------

TEST_F(server_session_test, client_gone_drops_its_state_and_tells_the_owner) {
  connect("CSQ1");
  ASSERT_TRUE(session.send_output("CSQ1", output("T1"), true, 0).ok());
  auto out = take()[0].message;
  session.client_gone("CSQ1", "member failed");
  ASSERT_EQ(owner.lost.size(), 1u);
  EXPECT_EQ(owner.lost[0].second, "member failed");
  EXPECT_FALSE(session.client_ready("CSQ1"));
  EXPECT_FALSE(session.send_output("CSQ1", output("T1"), true, 0).ok());
  session.tick(10 * ack_timeout);
  EXPECT_TRUE(owner.timeouts.empty());
  session.client_gone("NEVER", "left");
  EXPECT_EQ(owner.lost.size(), 1u);
  feed("CSQ1", make_ack(out));  // its output was dropped with it
  EXPECT_TRUE(owner.responses.empty());
  EXPECT_EQ(owner.errors.size(), 1u);
}

TEST_F(server_session_test, a_new_bid_starts_numbering_again) {
  connect("CSQ1");
  ASSERT_EQ(*session.send_output("CSQ1", output("T1"), false, 0), 1u);
  ASSERT_EQ(*session.send_output("CSQ1", output("T1"), false, 0), 2u);
  connect("CSQ1");
  EXPECT_EQ(*session.send_output("CSQ1", output("T1"), false, 0), 1u);
}

// A bid replacing a live session ends the old one for the owner first ("re-bid"): the new session's send
// numbers restart at 1 and must not match the old session's output; an ACK of the old output is stray.
TEST_F(server_session_test, a_bid_replacing_a_live_session_reports_the_old_one_lost) {
  session.client_joined("CSQ1", 0);
  connect("CSQ1");
  EXPECT_TRUE(owner.lost.empty()) << "the first bid after a join replaces nothing";
  ASSERT_TRUE(session.send_output("CSQ1", output("T1"), true, 0).ok());
  auto old_out = take()[0].message;
  connect("CSQ1");
  ASSERT_EQ(owner.lost.size(), 1u);
  EXPECT_EQ(owner.lost[0].first, "CSQ1");
  EXPECT_EQ(owner.lost[0].second, "re-bid");
  EXPECT_EQ(owner.ready.size(), 2u);
  feed("CSQ1", make_ack(old_out));
  EXPECT_TRUE(owner.responses.empty());
  // A bid while the old session is still resyncing replaces it too.
  owner.synchronized["CSQ1"] = {synchronized_tpipe{"T1", {0, 0}}};
  cbresynch("CSQ1");
  ASSERT_EQ(owner.lost.size(), 2u);
  cbresynch("CSQ1");
  EXPECT_EQ(owner.lost.size(), 3u);
}

TEST_F(server_session_test, undecodable_buffer_with_an_mci_is_naked_as_prefix_format_error) {
  connect("CSQ1");
  auto encoded = otma::encode_message(transaction("CSQT", 3));
  ASSERT_TRUE(encoded.ok());
  bytes cut(encoded->begin(), encoded->begin() + 40);  // the state data runs past the end
  session.receive("CSQ1", cut, 0);
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_TRUE(sent[0].message.mci.is_nak());
  EXPECT_EQ(sent[0].message.mci.sense_code, otma::sense::prefix_format_error);
  EXPECT_EQ(sent[0].message.mci.send_seq, 3u);
  EXPECT_EQ(owner.errors.size(), 1u);
  EXPECT_TRUE(owner.inputs.empty());
}

TEST_F(server_session_test, buffer_shorter_than_an_mci_is_reported_only) {
  connect("CSQ1");
  session.receive("CSQ1", bytes{0x01, 0x40, 0x20}, 0);
  session.receive("CSQ1", bytes{}, 0);
  EXPECT_TRUE(take().empty());
  EXPECT_EQ(owner.errors.size(), 2u);
}

TEST_F(server_session_test, undecodable_response_is_not_answered) {
  connect("CSQ1");
  auto out = output("T1");
  out.mci.message_type = otma::msg_type::data;
  auto ack = make_ack(out);
  ack.state = otma::transaction_state_data{};
  auto encoded = otma::encode_message(ack);
  ASSERT_TRUE(encoded.ok());
  bytes cut(encoded->begin(), encoded->begin() + 36);
  session.receive("CSQ1", cut, 0);
  EXPECT_TRUE(take().empty());
  EXPECT_EQ(owner.errors.size(), 1u);
}

TEST_F(server_session_test, message_only_a_server_sends_is_naked_when_a_client_sends_it) {
  connect("CSQ1");
  feed("CSQ1", make_reqresynch("CSQT", 1, 1));
  auto sent = take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_TRUE(sent[0].message.mci.is_nak());
  EXPECT_EQ(sent[0].message.mci.sense_code, otma::sense::invalid_message);
  EXPECT_EQ(owner.errors.size(), 1u);
}

}  // namespace
}  // namespace imsb::tpipe
