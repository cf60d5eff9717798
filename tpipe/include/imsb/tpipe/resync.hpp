#pragma once
// The client's decision for one synchronized Tpipe during resynchronization: docs/design/resync.md (CM0
// step 7 [D]), which refines the decision IBM's resync pages imply [I: IMS-SD-REP, IMS-SAMPLE-RS]. Pure:
// the owner persists and acts on the answer.
//
// Numbers are the last recoverable sequence numbers used (0 = none yet; 0 is never a message's number
// [C: IMS-RS-ASSUME]). The client's `send` is the last input IMS ACKed, `in_flight` the number of an input
// sent (committed as in flight) but not yet known ACKed; `receive` the last output the client committed.

#include <cstdint>
#include <optional>
#include <string>

namespace imsb::tpipe {

struct client_tpipe_record {
  std::uint32_t send = 0;                  // last input IMS ACKed
  std::uint32_t receive = 0;               // last output committed
  std::optional<std::uint32_t> in_flight;  // input sent, outcome unknown (always send + 1)
  // The operator's RESET TPIPE set these numbers: IMS takes them (REPresynch X'08', reset sequence
  // numbers) instead of their being compared ([C: RESYNC]: SENDSEQ "also becomes the partner's
  // receive number", RCVSEQ the partner's send number).
  bool reset = false;
};

enum class input_outcome : std::uint8_t {
  consistent,        // IMS's receive number is our send number and nothing is in flight
  ims_has_it,        // IMS's receive number equals the in-flight number: finish step 5 (get, record) first
  resend_in_flight,  // IMS's receive number is exactly one below the in-flight number: send it again
  mismatch,          // anything else: reported (CSQ2020E's twin), Tpipe stopped until RESET TPIPE
};

enum class output_outcome : std::uint8_t {
  continue_tpipe,       // IMS's send number equals our receive: IMS re-sends what it still holds
  dequeue_last_output,  // IMS's send number is one below our receive: we committed it, the ACK was lost
  mismatch,             // anything else
};

struct resync_decision {
  input_outcome input = input_outcome::consistent;
  output_outcome output = output_outcome::continue_tpipe;
  // The REPresynch tpipe flag 1 to send: otma::represynch_action:: continue (00), dequeue last output
  // (04), or stop (0C) on any mismatch.
  std::uint8_t action = 0x00;
  // The client numbers to put in the REPresynch: after ims_has_it the send number is the in-flight one.
  std::uint32_t client_send = 0;
  std::uint32_t client_receive = 0;
  std::string reason;  // for the console: what was compared and what it means
};

resync_decision decide_resync(const client_tpipe_record& ours, std::uint32_t ims_send,
                              std::uint32_t ims_receive);

// A Tpipe of ours that IMS does not list in SRVresynch (IMS cold-started): numbers reset to 0 so the next
// input is 1, the in-flight message to be re-sent (docs/design/resync.md).
client_tpipe_record after_ims_cold_start(const client_tpipe_record& ours);

// Server side: IMS's numbers after a REPresynch `action` with the client's numbers [C: IMS-SD-REP]:
// continue → unchanged; dequeue last output → the held output is dropped and IMS's send number is
// the client's receive; reset → both set to the client's values; stop / stop-and-wait → unchanged.
struct server_tpipe_numbers {
  std::uint32_t send = 0;     // last output sent (IMS recoverable send number)
  std::uint32_t receive = 0;  // last input logged (IMS recoverable receive number)
};
server_tpipe_numbers apply_represynch(server_tpipe_numbers ims, std::uint8_t action,
                                      std::uint32_t client_send, std::uint32_t client_receive);

}  // namespace imsb::tpipe
