// RESET TPIPE's resync [C: RESYNC, RESET-TPIPE]: a record marked `reset` is not compared with IMS's numbers;
// the REPresynch says X'08' (reset sequence numbers) with ours, which IMS then takes.
#include <gtest/gtest.h>

#include "imsb/otma/state_data.hpp"
#include "imsb/tpipe/resync.hpp"

namespace imsb::tpipe {
namespace {

namespace act = otma::represynch_action;

TEST(resync_reset, numbers_are_given_not_compared) {
  client_tpipe_record ours;
  ours.send = 3;
  ours.receive = 2;
  ours.reset = true;
  const resync_decision d = decide_resync(ours, 1, 1);  // would be a mismatch without the reset
  EXPECT_EQ(d.input, input_outcome::consistent);
  EXPECT_EQ(d.output, output_outcome::continue_tpipe);
  EXPECT_EQ(d.action, act::reset_sequence_numbers);
  EXPECT_EQ(d.client_send, 3u);
  EXPECT_EQ(d.client_receive, 2u);
  const server_tpipe_numbers ims = apply_represynch({1, 1}, d.action, d.client_send, d.client_receive);
  EXPECT_EQ(ims.receive, 3u);
  EXPECT_EQ(ims.send, 2u);
}

TEST(resync_reset, input_still_in_flight_goes_again) {
  client_tpipe_record ours;
  ours.send = 1;
  ours.receive = 1;
  ours.in_flight = 2;
  ours.reset = true;
  const resync_decision d = decide_resync(ours, 7, 9);
  EXPECT_EQ(d.input, input_outcome::resend_in_flight);
  EXPECT_EQ(d.action, act::reset_sequence_numbers);
  EXPECT_EQ(d.client_send, 1u);
}

TEST(resync_reset, without_reset_the_same_numbers_are_a_mismatch) {
  client_tpipe_record ours;
  ours.send = 3;
  ours.receive = 2;
  EXPECT_EQ(decide_resync(ours, 1, 1).action, act::stop_tpipe);
}

}  // namespace
}  // namespace imsb::tpipe
