#pragma once
// The one table of what the bridge does with each answer from IMS (docs/design/errors.md: IBM's rules
// [C: CANNOT-PUT], flood control [I: IMS-FLOOD] and our back-off [D]). docs/bridge-errors.md is checked
// against describe_table() by a unit test, so the code and the docs cannot drift apart.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace imsb::bridgemap {

enum class outcome : std::uint8_t {
  // The message is bad or IMS refused it for its own content or destination: dead-letter it with
  // `feedback` (MQDLH Reason), exception report if asked, console message, the queue goes on. With
  // "error message follows" the DFS text that IMS sends next is the reply, and the request is consumed
  // (got) instead of dead-lettered.
  application_error,
  // IMS is short of something (flood X'30', X'11', X'2E', degraded server state): back the message out
  // (it stays on its queue), pause every queue of that partner, retry with capped back-off; after the
  // configured limit the queue stops (IMB2003E).
  resources,
  // Protocol trouble (X'1F', no answer in time, partner or link gone, queue-manager connection broken):
  // docs/design/commit-modes.md, CM0 step 7 — drop the session, reconnect, reload the state records, bid
  // with resync.
  protocol_reset,
  // X'1C' and unknown sense codes: the Tpipe stops with a console message (IMB2003E) until an operator
  // RESET TPIPE or a restart.
  stop_tpipe,
};
std::string_view to_string(outcome o) noexcept;

struct nak_decision {
  outcome what = outcome::stop_tpipe;
  std::int32_t feedback = 0;   // for application_error: 300+sense or 600+reason (otma::feedback_for_nak)
  bool reply_follows = false;  // application_error with "error message follows": the DFS text is the reply
};

// The decision for a NAK of input. `error_message_follows` is the NAK's processing flag.
nak_decision decide_nak(std::uint16_t sense, std::uint16_t reason, bool error_message_follows) noexcept;

// One row per sense code the table names (and a last row for "any other"): sense (0 for other),
// outcome, feedback text and the console message ID used. For docs and the docs-match test.
struct table_row {
  std::uint16_t sense;
  std::string_view sense_name;
  outcome what;
  std::string_view feedback;  // "335", "600+reason", "—"
  std::string_view console;   // "IMB2001I" ...
  std::string_view note;
};
const std::vector<table_row>& describe_table();

// Back-off for `resources`: attempt 1, 2, ... → milliseconds to wait, doubling from initial_ms, capped
// at max_ms. Pure; the engine adds no jitter (one partner, one timer).
std::uint64_t backoff_ms(unsigned attempt, std::uint64_t initial_ms, std::uint64_t max_ms) noexcept;

}  // namespace imsb::bridgemap
