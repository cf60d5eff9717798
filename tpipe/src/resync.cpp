#include "imsb/tpipe/resync.hpp"

#include "imsb/otma/state_data.hpp"

namespace imsb::tpipe {
namespace {

// "One below" modulo 2^32 [D]: IBM says nothing of the numbers wrapping, so UINT32_MAX is taken as one
// below 0 like any other pair, and the guards against 0 below do the rest. 0 is never a message's
// number [C: IMS-RS-ASSUME], so a 0 on our side never has a number one below it: that would be IMS at
// UINT32_MAX against "none yet", a mismatch.
bool one_below(std::uint32_t lower, std::uint32_t upper) noexcept {
  return upper != 0 && static_cast<std::uint32_t>(lower + 1U) == upper;
}

std::string num(std::uint32_t v) { return std::to_string(v); }

}  // namespace

resync_decision decide_resync(const client_tpipe_record& ours, std::uint32_t ims_send,
                              std::uint32_t ims_receive) {
  resync_decision d;
  d.client_send = ours.send;
  d.client_receive = ours.receive;

  // RESET TPIPE [C: RESYNC]: nothing to compare, IMS is told our numbers (X'08' also ends a
  // stop that an earlier mismatch asked for); an input still in flight goes again as send + 1.
  if (ours.reset) {
    d.input = ours.in_flight ? input_outcome::resend_in_flight : input_outcome::consistent;
    d.output = output_outcome::continue_tpipe;
    d.action = otma::represynch_action::reset_sequence_numbers;
    d.reason = "RESET TPIPE: IMS takes send " + num(ours.send) + " / receive " + num(ours.receive);
    return d;
  }

  // Input direction: IMS's receive number against our send / in-flight numbers (docs/design/resync.md,
  // refining [I: IMS-SD-REP, IMS-SAMPLE-RS]). IMS logs input before it ACKs [C: IMS-RS-CS], so a logged
  // in-flight input is IMS's for good: we must not send it again.
  std::string input_reason;
  if (ours.in_flight) {
    const std::uint32_t flying = *ours.in_flight;
    if (flying != 0 && ims_receive == flying) {
      d.input = input_outcome::ims_has_it;
      d.client_send = flying;  // CM0 step 5 is finished before the REPresynch goes out
      input_reason = "IMS receive " + num(ims_receive) + " = in-flight " + num(flying) + ": IMS has it";
    } else if (one_below(ims_receive, flying)) {
      d.input = input_outcome::resend_in_flight;
      input_reason = "IMS receive " + num(ims_receive) + " = in-flight " + num(flying) + " - 1: resend it";
    } else {
      d.input = input_outcome::mismatch;
      input_reason = "IMS receive " + num(ims_receive) + " vs in-flight " + num(flying) + " (send " +
                     num(ours.send) + "): mismatch";
    }
  } else if (ims_receive == ours.send) {
    d.input = input_outcome::consistent;
    input_reason = "IMS receive " + num(ims_receive) + " = our send: consistent";
  } else {
    d.input = input_outcome::mismatch;
    input_reason = "IMS receive " + num(ims_receive) + " vs our send " + num(ours.send) + ": mismatch";
  }

  // Output direction: IMS logs its send number only after our ACK [C: IMS-RS-CS], so it may lag our
  // receive by the one output we committed and never got to ACK [I: IMS-SD-REP, IMS-SAMPLE-RS].
  std::string output_reason;
  if (ims_send == ours.receive) {
    d.output = output_outcome::continue_tpipe;
    output_reason = "IMS send " + num(ims_send) + " = our receive: continue";
  } else if (one_below(ims_send, ours.receive)) {
    d.output = output_outcome::dequeue_last_output;
    output_reason =
        "IMS send " + num(ims_send) + " = our receive " + num(ours.receive) + " - 1: dequeue last output";
  } else {
    d.output = output_outcome::mismatch;
    output_reason = "IMS send " + num(ims_send) + " vs our receive " + num(ours.receive) + ": mismatch";
  }

  // REPresynch tpipe flag 1 [C: IMS-SD-REP]: stop X'0C' on any mismatch (the bridge reports it,
  // CSQ2020E's twin; the Tpipe waits for RESET TPIPE), else dequeue X'04' or continue X'00'.
  if (d.input == input_outcome::mismatch || d.output == output_outcome::mismatch)
    d.action = otma::represynch_action::stop_tpipe;
  else if (d.output == output_outcome::dequeue_last_output)
    d.action = otma::represynch_action::dequeue_last_output;
  else
    d.action = otma::represynch_action::continue_tpipe;

  d.reason = "input: " + input_reason + "; output: " + output_reason;
  return d;
}

client_tpipe_record after_ims_cold_start(const client_tpipe_record& ours) {
  // A cold-started tpipe starts again from 1 [C: MQ-RESYNC]; IMS lost the in-flight input with
  // everything else, so it goes again as number 1 (docs/design/resync.md).
  client_tpipe_record r;
  if (ours.in_flight) r.in_flight = 1;
  return r;
}

server_tpipe_numbers apply_represynch(server_tpipe_numbers ims, std::uint8_t action,
                                      std::uint32_t client_send, std::uint32_t client_receive) {
  namespace act = otma::represynch_action;
  switch (action) {
    case act::dequeue_last_output:
      // "IMS can dequeue the last output message, and the recoverable send-sequence number is
      // updated" [C: IMS-SD-REP]: to what the client received.
      ims.send = client_receive;
      break;
    case act::reset_sequence_numbers:
      // "IMS resets both recoverable numbers to the values passed" [C: IMS-SD-REP]; the client's send
      // number is IMS's receive number and the other way round [I].
      ims.send = client_receive;
      ims.receive = client_send;
      break;
    case act::continue_tpipe:           // [C] nothing changes
    case act::stop_tpipe:               // [C] the tpipe stops with its numbers
    case act::stop_and_wait_tbresynch:  // [C] likewise, until TBresynch
    default:                            // an action we do not know changes nothing [D]
      break;
  }
  return ims;
}

}  // namespace imsb::tpipe
