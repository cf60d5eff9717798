// The client's resync decision (docs/design/resync.md; [I: IMS-RESYNC, IMS-SD-REP]), IMS cold start, and
// the server's effect of a REPresynch [C: IMS-SD-REP].
#include "imsb/tpipe/resync.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>

#include "imsb/otma/state_data.hpp"

namespace imsb::tpipe {
namespace {

namespace act = otma::represynch_action;
constexpr std::uint32_t max = std::numeric_limits<std::uint32_t>::max();

struct row {
  std::string name;
  client_tpipe_record ours;
  std::uint32_t ims_send, ims_receive;
  input_outcome input;
  output_outcome output;
  std::uint8_t action;
  std::uint32_t client_send, client_receive;
};

void PrintTo(const row& r, std::ostream* os) { *os << r.name; }

using I = input_outcome;
using O = output_outcome;

const row rows[] = {
    // --- nothing in flight -------------------------------------------------------------------------
    {"fresh_tpipe_all_zero",
     {0, 0, std::nullopt},
     0,
     0,
     I::consistent,
     O::continue_tpipe,
     act::continue_tpipe,
     0,
     0},
    {"consistent", {5, 7, std::nullopt}, 7, 5, I::consistent, O::continue_tpipe, act::continue_tpipe, 5, 7},
    {"output_ack_lost",
     {5, 7, std::nullopt},
     6,
     5,
     I::consistent,
     O::dequeue_last_output,
     act::dequeue_last_output,
     5,
     7},
    {"first_output_ack_lost",
     {0, 1, std::nullopt},
     0,
     0,
     I::consistent,
     O::dequeue_last_output,
     act::dequeue_last_output,
     0,
     1},
    {"ims_sent_more_than_we_got",
     {5, 7, std::nullopt},
     8,
     5,
     I::consistent,
     O::mismatch,
     act::stop_tpipe,
     5,
     7},
    {"ims_two_behind_on_output",
     {5, 7, std::nullopt},
     5,
     5,
     I::consistent,
     O::mismatch,
     act::stop_tpipe,
     5,
     7},
    {"ims_logged_input_we_never_sent",
     {5, 7, std::nullopt},
     7,
     6,
     I::mismatch,
     O::continue_tpipe,
     act::stop_tpipe,
     5,
     7},
    {"ims_behind_our_acked_input",
     {5, 7, std::nullopt},
     7,
     4,
     I::mismatch,
     O::continue_tpipe,
     act::stop_tpipe,
     5,
     7},
    {"ims_cold_numbers_vs_ours", {5, 7, std::nullopt}, 0, 0, I::mismatch, O::mismatch, act::stop_tpipe, 5, 7},
    // --- an input in flight (always send + 1) ------------------------------------------------------
    {"in_flight_ims_has_it", {5, 7, 6}, 7, 6, I::ims_has_it, O::continue_tpipe, act::continue_tpipe, 6, 7},
    {"in_flight_never_logged",
     {5, 7, 6},
     7,
     5,
     I::resend_in_flight,
     O::continue_tpipe,
     act::continue_tpipe,
     5,
     7},
    {"first_input_in_flight_never_logged",
     {0, 0, 1},
     0,
     0,
     I::resend_in_flight,
     O::continue_tpipe,
     act::continue_tpipe,
     0,
     0},
    {"first_input_in_flight_logged",
     {0, 0, 1},
     0,
     1,
     I::ims_has_it,
     O::continue_tpipe,
     act::continue_tpipe,
     1,
     0},
    {"in_flight_ims_ahead", {5, 7, 6}, 7, 7, I::mismatch, O::continue_tpipe, act::stop_tpipe, 5, 7},
    {"in_flight_ims_two_behind", {5, 7, 6}, 7, 4, I::mismatch, O::continue_tpipe, act::stop_tpipe, 5, 7},
    // --- combinations ------------------------------------------------------------------------------
    {"ims_has_it_and_output_ack_lost",
     {5, 7, 6},
     6,
     6,
     I::ims_has_it,
     O::dequeue_last_output,
     act::dequeue_last_output,
     6,
     7},
    {"resend_and_output_ack_lost",
     {5, 7, 6},
     6,
     5,
     I::resend_in_flight,
     O::dequeue_last_output,
     act::dequeue_last_output,
     5,
     7},
    {"ims_has_it_but_output_mismatch", {5, 7, 6}, 9, 6, I::ims_has_it, O::mismatch, act::stop_tpipe, 6, 7},
    {"resend_but_output_mismatch", {5, 7, 6}, 3, 5, I::resend_in_flight, O::mismatch, act::stop_tpipe, 5, 7},
    {"input_mismatch_output_ack_lost",
     {5, 7, std::nullopt},
     6,
     9,
     I::mismatch,
     O::dequeue_last_output,
     act::stop_tpipe,
     5,
     7},
    // --- 0 is never a message's number [C: IMS-RESYNC] ----------------------------------------------
    {"ims_max_vs_nothing_received_is_no_dequeue",
     {0, 0, std::nullopt},
     max,
     0,
     I::consistent,
     O::mismatch,
     act::stop_tpipe,
     0,
     0},
    {"in_flight_zero_is_never_ims_has_it",
     {max, 0, 0},
     0,
     0,
     I::mismatch,
     O::continue_tpipe,
     act::stop_tpipe,
     max,
     0},
    // --- wrap near UINT32_MAX: one below modulo 2^32 [D] (IBM says nothing of wrapping) ---------------
    {"near_max_consistent",
     {max - 1, max, std::nullopt},
     max,
     max - 1,
     I::consistent,
     O::continue_tpipe,
     act::continue_tpipe,
     max - 1,
     max},
    {"near_max_output_ack_lost",
     {max, max, std::nullopt},
     max - 1,
     max,
     I::consistent,
     O::dequeue_last_output,
     act::dequeue_last_output,
     max,
     max},
    {"near_max_in_flight_logged",
     {max - 1, 3, max},
     3,
     max,
     I::ims_has_it,
     O::continue_tpipe,
     act::continue_tpipe,
     max,
     3},
    {"near_max_in_flight_resend",
     {max - 1, 3, max},
     3,
     max - 1,
     I::resend_in_flight,
     O::continue_tpipe,
     act::continue_tpipe,
     max - 1,
     3},
};

class DecideResync : public ::testing::TestWithParam<row> {};

TEST_P(DecideResync, Row) {
  const row& r = GetParam();
  const resync_decision d = decide_resync(r.ours, r.ims_send, r.ims_receive);
  EXPECT_EQ(d.input, r.input) << d.reason;
  EXPECT_EQ(d.output, r.output) << d.reason;
  EXPECT_EQ(d.action, r.action) << d.reason;
  EXPECT_EQ(d.client_send, r.client_send) << d.reason;
  EXPECT_EQ(d.client_receive, r.client_receive) << d.reason;
  // The console line says what was compared: both directions and IMS's numbers.
  EXPECT_NE(d.reason.find("input:"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("output:"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find(std::to_string(r.ims_send)), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find(std::to_string(r.ims_receive)), std::string::npos) << d.reason;
}

INSTANTIATE_TEST_SUITE_P(Step7, DecideResync, ::testing::ValuesIn(rows),
                         [](const auto& param_info) { return param_info.param.name; });

TEST(DecideResync, ReasonNamesTheMismatch) {
  EXPECT_NE(decide_resync({5, 7, std::nullopt}, 7, 9).reason.find("mismatch"), std::string::npos);
  EXPECT_EQ(decide_resync({5, 7, std::nullopt}, 7, 5).reason.find("mismatch"), std::string::npos);
}

TEST(AfterImsColdStart, ResetsNumbersAndResendsTheInFlightInputAsNumberOne) {
  const client_tpipe_record with = after_ims_cold_start({41, 17, 42});
  EXPECT_EQ(with.send, 0u);
  EXPECT_EQ(with.receive, 0u);
  ASSERT_TRUE(with.in_flight.has_value());
  EXPECT_EQ(*with.in_flight, 1u);  // send + 1: the next input is 1 [C: MQ-RESYNC]

  const client_tpipe_record without = after_ims_cold_start({41, 17, std::nullopt});
  EXPECT_EQ(without.send, 0u);
  EXPECT_EQ(without.receive, 0u);
  EXPECT_FALSE(without.in_flight.has_value());

  // A cold-started IMS then reports 0/0, and the reset record resyncs cleanly.
  const resync_decision d = decide_resync(with, 0, 0);
  EXPECT_EQ(d.input, input_outcome::resend_in_flight);
  EXPECT_EQ(d.output, output_outcome::continue_tpipe);
  EXPECT_EQ(d.action, act::continue_tpipe);
}

struct apply_row {
  const char* name;
  std::uint8_t action;
  server_tpipe_numbers expected;
};

class ApplyRepresynch : public ::testing::TestWithParam<apply_row> {};

TEST_P(ApplyRepresynch, Action) {
  const apply_row& r = GetParam();
  // IMS: sent 6 (output 7 held, un-ACKed), received 5; the client: sent 5, received 7.
  const server_tpipe_numbers after = apply_represynch({6, 5}, r.action, 5, 7);
  EXPECT_EQ(after.send, r.expected.send) << r.name;
  EXPECT_EQ(after.receive, r.expected.receive) << r.name;
}

INSTANTIATE_TEST_SUITE_P(
    Section154, ApplyRepresynch,
    ::testing::Values(apply_row{"continue", act::continue_tpipe, {6, 5}},
                      apply_row{"dequeue_last_output", act::dequeue_last_output, {7, 5}},
                      apply_row{"reset_sequence_numbers", act::reset_sequence_numbers, {7, 5}},
                      apply_row{"stop_tpipe", act::stop_tpipe, {6, 5}},
                      apply_row{"stop_and_wait_tbresynch", act::stop_and_wait_tbresynch, {6, 5}},
                      apply_row{"unknown_action", 0x44, {6, 5}}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(ApplyRepresynch, ResetSetsBothNumbersCrosswise) {
  // The client's send number is IMS's receive number and the other way round [I].
  const server_tpipe_numbers after = apply_represynch({100, 200}, act::reset_sequence_numbers, 1, 2);
  EXPECT_EQ(after.receive, 1u);
  EXPECT_EQ(after.send, 2u);
  const server_tpipe_numbers zero = apply_represynch({100, 200}, act::reset_sequence_numbers, 0, 0);
  EXPECT_EQ(zero.send, 0u);
  EXPECT_EQ(zero.receive, 0u);
}

TEST(ApplyRepresynch, DequeueFollowsTheClientsReceiveNumberOnly) {
  const server_tpipe_numbers after = apply_represynch({max - 1, 9}, act::dequeue_last_output, 123, max);
  EXPECT_EQ(after.send, max);
  EXPECT_EQ(after.receive, 9u);  // the client's send number does not touch IMS's receive
}

TEST(ResyncRoundTrip, TheClientsDecisionAppliedByTheServerLeavesBothSidesConsistent) {
  // IMS: sent 6, received 5, output 7 held; the client committed output 7 (ACK lost) and has input 6
  // in flight that IMS logged.
  const client_tpipe_record ours{5, 7, 6};
  const resync_decision d = decide_resync(ours, 6, 6);
  ASSERT_EQ(d.action, act::dequeue_last_output);
  const server_tpipe_numbers ims = apply_represynch({6, 6}, d.action, d.client_send, d.client_receive);
  EXPECT_EQ(ims.send, d.client_receive);
  EXPECT_EQ(ims.receive, d.client_send);
  // A second resync from the settled records is consistent both ways.
  const resync_decision again =
      decide_resync({d.client_send, d.client_receive, std::nullopt}, ims.send, ims.receive);
  EXPECT_EQ(again.input, input_outcome::consistent);
  EXPECT_EQ(again.output, output_outcome::continue_tpipe);
}

}  // namespace
}  // namespace imsb::tpipe
