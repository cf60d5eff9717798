#include "imsb/bridgemap/outcomes.hpp"

#include "imsb/core/messages.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::bridgemap {

namespace s = otma::sense;

std::string_view to_string(outcome o) noexcept {
  switch (o) {
    case outcome::application_error:
      return "application_error";
    case outcome::resources:
      return "resources";
    case outcome::protocol_reset:
      return "protocol_reset";
    case outcome::stop_tpipe:
      return "stop_tpipe";
  }
  return "unknown";
}

namespace {

// The one table (docs/design/errors.md, the three outcomes [D]; IBM's dispositions [C: CANNOT-PUT,
// IMS-FLOOD]). decide_nak() reads it, docs/bridge-errors.md repeats it and a unit test holds the two
// together. Sense 0 is the last row: any code the table does not name.
const std::vector<table_row> rows = {
    // Application errors [C: CANNOT-PUT]: IMS refused the message for its own content or
    // destination — CSQ2001I, dead letter with 300 + sense (600 + reason for X'1A'), the queue goes on.
    {s::rejected_see_reason, "OTMA_SENSE_REJECTED_SEE_REASON", outcome::application_error, "600+reason",
     imsb::msg::IMB2001I,
     "[C] MQ-FB: the reason gives the feedback (MQFB_IMS_NACK_1A_REASON_FIRST + reason)"},
    {s::seq_not_recoverable, "OTMA_SENSE_SEQ_NOT_RECOVERABLE", outcome::application_error, "335",
     imsb::msg::IMB2001I,
     "[C] a command or an unrecoverable transaction with a recoverable number; the bridge refuses a "
     "persistent CM0 command with the same 335 before sending [D]"},
    {s::security_violation, "OTMA_SENSE_SECURITY_VIOLATION", outcome::application_error, "305",
     imsb::msg::IMB2001I, "[D] emulator code for DFS1292E; the DFS text follows and is the reply"},
    {s::invalid_commit_mode, "OTMA_SENSE_INVALID_COMMIT_MODE", outcome::application_error, "307",
     imsb::msg::IMB2001I,
     "[D] emulator code for DFS1291E (Fast Path or conversational with CM0); the DFS text is the reply"},
    {s::invalid_message, "OTMA_SENSE_INVALID_MESSAGE", outcome::application_error, "301", imsb::msg::IMB2001I,
     "[D] emulator code: invalid message, or conversation input with a wrong server token"},
    {s::unknown_destination, "OTMA_SENSE_UNKNOWN_DESTINATION", outcome::application_error, "302",
     imsb::msg::IMB2001I,
     "[D] emulator code for DFS1286E / DFS1287E / DFS1288E (destination is a CPI-C transaction or an "
     "LTERM); the DFS text is the reply"},
    {s::invalid_name, "OTMA_SENSE_INVALID_NAME", outcome::application_error, "308", imsb::msg::IMB2001I,
     "[D] emulator code: lowercase or reserved name"},
    // Resources [I: IMS-FLOOD]: back out, pause the partner, retry with capped back-off [D].
    {s::flood, "OTMA_SENSE_FLOOD", outcome::resources, "—", imsb::msg::IMB2019W,
     "[C] DFS1989E flood: backed out, the partner pauses (IMB2019W says how long); IMB2003E when the "
     "retries run out"},
    {s::rrs_not_enabled, "OTMA_SENSE_RRS_NOT_ENABLED", outcome::resources, "—", imsb::msg::IMB2019W,
     "[C] IMS is not enabled for RRS: backed out and retried; IMB2003E when the retries run out"},
    {s::syncpt_not_supported, "OTMA_SENSE_SYNCPT_NOT_SUPPORTED", outcome::resources, "—", imsb::msg::IMB2019W,
     "[C] two-phase commit not supported now: backed out and retried; IMB2003E when the retries run out"},
    // Protocol trouble: docs/design/commit-modes.md, CM0 step 7 (drop, reconnect, reload, resync).
    {s::invalid_recoverable_seq, "OTMA_SENSE_INVALID_RECOVERABLE_SEQ", outcome::protocol_reset, "—",
     imsb::msg::IMB2005W,
     "[C] our numbers and IMS's disagree: resync settles them (IMB2020E, IMB2023E if it cannot)"},
    // Stop the Tpipe until RESET TPIPE or a restart.
    {s::cm1_on_synchronized_tpipe, "OTMA_SENSE_CM1_ON_SYNC_TPIPE", outcome::stop_tpipe, "—",
     imsb::msg::IMB2003E, "[C] CM1 on a synchronized Tpipe: a bridge fault, never the message's"},
    {0, "any other sense", outcome::stop_tpipe, "—", imsb::msg::IMB2003E,
     "[D] unknown to the table: the message goes back to its queue, the Tpipe stops"},
};

}  // namespace

const std::vector<table_row>& describe_table() { return rows; }

nak_decision decide_nak(std::uint16_t sense, std::uint16_t reason, bool error_message_follows) noexcept {
  nak_decision d;
  for (const auto& row : rows) {
    if (row.sense != sense || row.sense == 0) continue;
    d.what = row.what;
    if (row.what == outcome::application_error) {
      d.feedback = otma::feedback_for_nak(sense, reason);
      d.reply_follows = error_message_follows;
    }
    return d;
  }
  d.what = outcome::stop_tpipe;  // the last row: any other sense code
  return d;
}

std::uint64_t backoff_ms(unsigned attempt, std::uint64_t initial_ms, std::uint64_t max_ms) noexcept {
  if (initial_ms >= max_ms) return max_ms;
  std::uint64_t wait = initial_ms;
  for (unsigned i = 1; i < attempt; ++i) {
    if (wait >= max_ms / 2) return max_ms;  // doubling again would reach or pass the cap
    wait *= 2;
  }
  return wait;
}

}  // namespace imsb::bridgemap
