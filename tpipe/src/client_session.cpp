// The client role of an OTMA session (client_session.hpp): IBM's OTMA flows [C: IMS-FLOWS];
// docs/design/commit-modes.md, CM0 steps 5–7.
//
// Rules of the exchange this file relies on, agreed with the server role (server_session.cpp):
// - After ACKing a CBresynch the server always sends one SRVresynch, possibly with no names; with no
//   names the client is ready once it has ACKed it. [D] (IBM's sample always lists names
//   [C-hex: IMS-SAMPLE-RS].)
// - One REQresynch follows per listed name; the client is ready when it has answered every one. A
//   REPresynch ACK, if the server sends one, is not waited for. [D]
// - REQresynch after the session is ready (after a TBresynch, or when the server starts one) is
//   answered the same way and does not change the state. [C: IMS-SD-TB]
//
// Re-entrancy: observer callbacks may call back into the session (the link holds a recursive mutex),
// e.g. ack_output() from on_output(), send_input() from on_session_ready(), start() from
// on_session_lost(). So no iterator or reference into the session's containers is held across a
// callback, and after each callback the state is checked again before going on.

#include "imsb/tpipe/client_session.hpp"

#include <algorithm>
#include <system_error>
#include <utility>
#include <variant>

#include "imsb/otma/sense.hpp"

namespace imsb::tpipe {

namespace {

// A chain longer than this is not a message we could ever need: a protocol error. [D]
constexpr std::size_t max_chain_buffers = 4096;

std::string hex4(std::uint32_t v) {
  static const char digits[] = "0123456789ABCDEF";
  std::string s = "X'0000'";
  for (int i = 0; i < 4; ++i) s[static_cast<std::size_t>(5 - i)] = digits[(v >> (4 * i)) & 0xF];
  return s;
}

decode_error session_error(std::errc code, std::string detail) {
  return decode_error{std::make_error_code(code), "tpipe.client_session", 0, std::move(detail)};
}

bool all_zero(const otma::raw_bytes<8>& token) {
  return std::all_of(token.begin(), token.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace

std::string_view to_string(client_state state) noexcept {
  switch (state) {
    case client_state::idle:
      return "idle";
    case client_state::bidding:
      return "bidding";
    case client_state::resyncing:
      return "resyncing";
    case client_state::active:
      return "active";
    case client_state::lost:
      return "lost";
  }
  return "unknown";
}

client_session::client_session(client_config config, client_observer& observer)
    : config_(std::move(config)), observer_(observer), server_token_(config_.bid.server_token) {}

void client_session::start(millis now) {
  // A fresh session: whatever was outstanding belongs to the old one and is settled by resync.
  // Send-sequence numbers keep counting per Tpipe across sessions [D], so that an answer to an input
  // of an old session can never be taken for one of the new.
  pending_.clear();
  srv_tpipes_.clear();
  reqresynch_expected_ = 0;
  chain_.clear();
  send_bid(now);
}

void client_session::send_bid(millis now) {
  state_ = client_state::bidding;
  bid_sent_at_ = now;
  bid_params params = config_.bid;
  // The server's token, once known (from its bid ACK or server-available), goes in the destination
  // token of later bids. [I: IMS-SD-CB]
  if (!all_zero(server_token_)) params.server_token = server_token_;
  send_message(make_client_bid(params, config_.resync));
}

void client_session::server_joined(millis now) {
  switch (state_) {
    case client_state::idle:
    case client_state::lost:
    case client_state::bidding:
      // [C: IMS-CB-FLOW]: a client that notices the server joining sends its client-bid.
      send_bid(now);
      return;
    case client_state::resyncing:
    case client_state::active:
      // The server came back without our seeing it go: it restarted, so the session we had is gone
      // and what was in flight is in doubt (resync settles it). Bid again unless the owner already
      // did from on_session_lost.
      lose("server member " + config_.server_member + " joined again: session dropped, bidding again");
      if (state_ == client_state::lost) start(now);
      return;
  }
}

void client_session::server_gone(const std::string& why) {
  if (state_ == client_state::idle || state_ == client_state::lost) return;
  lose("server member " + config_.server_member + " gone: " + why);
}

void client_session::receive(bytes_view buffer, millis now) {
  // After a loss nothing is answered or ACKed until start() (docs/design/commit-modes.md, CM0 step 7).
  if (state_ == client_state::lost) return;

  auto decoded = otma::decode_message(buffer);
  if (state_ == client_state::idle) {
    // Not started: there is no session to lose. Only a server-available means something: the
    // server saw us join before our owner started us, and we answer it with a bid [C: IMS-SA-FLOW].
    if (decoded && classify(decoded.value(), /*from_client=*/false) == message_kind::server_available) {
      handle(decoded.value(), now);
    }
    return;
  }
  if (!decoded) {
    lose("undecodable buffer from " + config_.server_member + ": " + decoded.error().to_string());
    return;
  }
  // Chained buffers [C: IMS-MSGS-CLI]: collect from first to last, then decode the chain as one message.
  const std::uint8_t position = decoded->mci.chain_flags & otma::chain::position_mask;
  if (position == 0 || position == otma::chain::single) {
    if (!chain_.empty()) {
      lose("unchained buffer from " + config_.server_member + " inside a chain of " +
           std::to_string(chain_.size()) + " buffers");
      return;
    }
    handle(decoded.value(), now);
    return;
  }
  if (position == otma::chain::discard || (position & otma::chain::discard) != 0) {
    chain_.clear();  // the sender abandoned the chain [R]
    return;
  }
  if (position == otma::chain::first) chain_.clear();
  if (chain_.size() >= max_chain_buffers) {
    lose("chain from " + config_.server_member + " longer than " + std::to_string(max_chain_buffers) +
         " buffers");
    return;
  }
  chain_.emplace_back(buffer.begin(), buffer.end());
  if (position != otma::chain::last) return;
  std::vector<bytes> buffers = std::move(chain_);
  chain_.clear();
  std::vector<bytes_view> views(buffers.begin(), buffers.end());
  auto whole = otma::decode_chain(views);
  if (!whole) {
    lose("bad chain from " + config_.server_member + ": " + whole.error().to_string());
    return;
  }
  handle(whole.value(), now);
}

void client_session::handle(const otma::otma_message& message, millis now) {
  const message_kind kind = classify(message, /*from_client=*/false);
  const bool before_ack = state_ == client_state::bidding;
  switch (kind) {
    case message_kind::bid_ack:
    case message_kind::bid_nak:
      handle_bid_answer(message, kind == message_kind::bid_ack, now);
      return;
    case message_kind::server_available:
      if (message.state) {
        if (auto* sa = std::get_if<otma::server_available_state_data>(&*message.state)) {
          server_token_ = sa->originator_token;
        }
      }
      if (state_ == client_state::idle) send_bid(now);  // the server saw us first: bid [C: IMS-SA-FLOW]
      // While our bid is out the two crossed, as they do on every connect (we bid as we join, the
      // server announces itself as it sees us join): the bid already sent is answered, so a second
      // one would only run the resync exchange twice [D]. A bid that is lost ends in bid_timeout.
      // "The client should ignore a Server-Available message after it has successfully completed its
      // client-bid" [C: IMS-SA-FLOW]
      return;
    case message_kind::srvresynch:
      if (before_ack) break;
      handle_srvresynch(message, now);
      return;
    case message_kind::reqresynch:
      if (before_ack) break;
      handle_reqresynch(message, now);
      return;
    case message_kind::represynch_ack:
      return;  // not waited for (see the rules at the top)
    case message_kind::input_ack:
    case message_kind::input_nak:
      handle_input_answer(message, kind == message_kind::input_ack);
      return;
    case message_kind::output:
      if (before_ack) break;
      observer_.on_output(message);
      return;
    case message_kind::commit_confirmation:
      if (before_ack) break;
      observer_.on_commit_confirmation(tpipe_of(message), message.mci.send_seq,
                                       (message.mci.commit_confirmation & otma::commit::committed) != 0);
      return;
    case message_kind::server_state: {
      const otma::server_state_data* sd =
          message.state ? std::get_if<otma::server_state_data>(&*message.state) : nullptr;
      if (!sd) {
        // State data is mandatory on every OTMA message [C: IMS-SD].
        lose("server state (X'3C') from " + config_.server_member + " without its state data");
        return;
      }
      observer_.on_server_state(sd->status);
      return;
    }
    case message_kind::suspend:
      observer_.on_suspend();
      return;
    default:
      break;
  }
  lose("unexpected " + std::string(to_string(kind)) + " from " + config_.server_member + " while " +
       std::string(to_string(state_)) + " (tpipe '" + tpipe_of(message) + "', send seq " +
       std::to_string(message.mci.send_seq) + ")");
}

void client_session::handle_bid_answer(const otma::otma_message& message, bool ack, millis now) {
  if (state_ != client_state::bidding) {
    // A second answer: two bids crossed with a server-available (they may cross). Ignored.
    ++stray_responses_;
    return;
  }
  if (!ack) {
    const std::uint16_t sense = message.mci.sense_code;
    const std::uint16_t reason = message.mci.reason_code;
    observer_.on_bid_rejected(sense, reason);
    if (state_ != client_state::bidding) return;  // the owner acted from the callback
    lose("client-bid rejected by " + config_.server_member + ": sense " + hex4(sense) + " reason " +
         hex4(reason));
    return;
  }
  // The ACK echoes the bid's state data with the server's member name and token [I: IMS-SD-CB].
  if (message.state) {
    if (auto* cb = std::get_if<otma::client_bid_state_data>(&*message.state)) {
      server_token_ = cb->originator_token;
    }
  }
  if (!config_.resync) {
    state_ = client_state::active;
    observer_.on_session_ready();
    return;
  }
  // CBresynch ACKed: the server sends one SRVresynch next (see the rules at the top). The bid timeout
  // also bounds each silent gap of the exchange [D], so a server that never sends it cannot hang us.
  state_ = client_state::resyncing;
  bid_sent_at_ = now;
  srv_tpipes_.clear();
  reqresynch_expected_ = 0;
}

void client_session::handle_srvresynch(const otma::otma_message& message, millis now) {
  const otma::srvresynch_state_data* sd =
      message.state ? std::get_if<otma::srvresynch_state_data>(&*message.state) : nullptr;
  if (!sd) {
    lose("SRVresynch from " + config_.server_member + " without its list of tpipe names");
    return;
  }
  std::vector<std::string> names;
  for (const auto& n : sd->tpipe_names) {
    std::string name = n.value();
    // IBM's sample pads the list with zeros [C-hex: IMS-SAMPLE-RS]: an empty name is no Tpipe.
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  // ACK first: IMS sends the REQresynchs after it [C: IMS-SAMPLE-RS]. We never NAK it (that
  // would stop IMS's resync, DFS2393I).
  const client_state state = state_;
  send_message(make_ack(message));
  if (state_ != state) return;
  // In resyncing this is the exchange the bid started (or, after two bids crossed, its restart: the
  // new list replaces the old). While active it is a server-started resync: answered as it comes,
  // the session stays active.
  if (state_ == client_state::resyncing) {
    srv_tpipes_ = names;
    reqresynch_expected_ = names.size();
    bid_sent_at_ = now;
  }
  // Synchronized Tpipes of ours that IMS does not list: IMS cold-started them (docs/design/resync.md).
  const std::vector<std::string> ours = observer_.our_synchronized_tpipes();
  for (const std::string& tpipe : ours) {
    if (state_ != state) return;
    if (std::find(names.begin(), names.end(), tpipe) == names.end()) {
      observer_.on_tpipe_unknown_to_server(tpipe);
    }
  }
  if (state_ == client_state::resyncing && reqresynch_expected_ == 0) {
    state_ = client_state::active;
    observer_.on_session_ready();
  }
}

void client_session::handle_reqresynch(const otma::otma_message& message, millis now) {
  const otma::reqresynch_state_data* sd =
      message.state ? std::get_if<otma::reqresynch_state_data>(&*message.state) : nullptr;
  if (!sd) {
    lose("REQresynch from " + config_.server_member + " without its state data");
    return;
  }
  std::string tpipe = sd->tpipe_name.value();
  if (tpipe.empty()) tpipe = tpipe_of(message);
  if (state_ == client_state::resyncing && reqresynch_expected_ == 0) {
    lose("REQresynch for tpipe '" + tpipe + "' from " + config_.server_member + " before SRVresynch");
    return;
  }
  const std::uint32_t ims_send = sd->ims_send_seq;
  const std::uint32_t ims_receive = sd->ims_receive_seq;

  // No record: a Tpipe we never used, all numbers zero.
  const client_state state = state_;
  const client_tpipe_record record = observer_.tpipe_record(tpipe).value_or(client_tpipe_record{});
  if (state_ != state) return;
  const resync_decision decision = decide_resync(record, ims_send, ims_receive);
  // The owner hears the decision before the REPresynch goes: after ims_has_it it must finish CM0 step 5
  // first, then answer (docs/design/resync.md). If it cannot, it ends the session from the
  // callback and nothing is sent.
  observer_.on_resync_decision(tpipe, decision);
  if (state_ != state) return;
  send_message(make_represynch(tpipe, decision.client_send, decision.client_receive, decision.action));
  if (state_ != state || state_ != client_state::resyncing) return;

  auto it = std::find(srv_tpipes_.begin(), srv_tpipes_.end(), tpipe);
  if (it == srv_tpipes_.end()) return;  // not listed (or asked twice): answered, nothing to count
  srv_tpipes_.erase(it);
  --reqresynch_expected_;
  bid_sent_at_ = now;
  if (reqresynch_expected_ == 0) {
    state_ = client_state::active;
    observer_.on_session_ready();
  }
}

void client_session::handle_input_answer(const otma::otma_message& message, bool ack) {
  const std::string tpipe = tpipe_of(message);
  const std::uint32_t seq = message.mci.send_seq;
  // "The send-sequence numbers must match for the original data message and the response message"
  // [C: IMS-MCI-X].
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const pending_input& p) { return p.send_seq == seq && p.tpipe == tpipe; });
  if (it == pending_.end()) {
    // Like IMS with a stray ACK [C: IMS-MSG-DFS1284E]: ignored, not a reason to drop the session.
    ++stray_responses_;
    return;
  }
  input_response response;
  response.tpipe = tpipe;
  response.send_seq = seq;
  response.recoverable_seq = it->recoverable_seq;
  response.ack = ack;
  if (!ack) {
    response.sense = message.mci.sense_code;
    response.reason = message.mci.reason_code;
    response.error_message_follows =
        (message.mci.processing_flags & otma::processing::error_message_follows) != 0;
  }
  pending_.erase(it);
  observer_.on_input_response(response);
  // docs/design/commit-modes.md, CM0 step 7: IMS refused our recoverable number, so our numbers and IMS's
  // disagree; only a resync can settle which input IMS has. The owner hears the NAK first, then the session
  // ends and the next bid resyncs [C: IMS-RESYNC].
  if (!ack && response.sense == otma::sense::invalid_recoverable_seq && response.recoverable_seq != 0 &&
      state_ == client_state::active) {
    lose("recoverable sequence number not accepted (X'1F'): resync on reconnect");
  }
}

result<std::uint32_t> client_session::send_input(otma::otma_message message, millis now) {
  if (state_ != client_state::active) {
    return session_error(std::errc::operation_not_permitted,
                         "input not sent: the session is " + std::string(to_string(state_)));
  }
  const std::string tpipe = tpipe_of(message);
  if (tpipe.empty()) {
    return session_error(std::errc::invalid_argument, "input not sent: no tpipe name in the MCI");
  }
  auto next = next_send_seq_.find(tpipe);
  std::uint32_t seq = next == next_send_seq_.end() ? 1 : next->second;
  if (seq == 0) seq = 1;  // after wrapping: 0 numbers nothing
  message.mci.send_seq = seq;
  if (message.mci.message_type == 0) message.mci.message_type = otma::msg_type::transaction;
  // CM0 always asks for the ACK; for CM1 the session needs it too, to match the answer [C: IMS-CTS-FLOW].
  message.mci.response_flag |= otma::response::requested;
  auto encoded = otma::encode_message(message);
  if (!encoded) return encoded.error();

  next_send_seq_[tpipe] = seq + 1;
  // Recorded before sending: the answer may come back inside observer_.send().
  pending_.push_back(pending_input{tpipe, seq, message.mci.recoverable_seq, now});
  observer_.send(std::move(encoded).value());
  return seq;
}

void client_session::ack_output(const otma::otma_message& output) {
  if (state_ == client_state::idle || state_ == client_state::lost) return;
  if (!output.mci.response_requested()) return;  // nothing is waiting for it (CM1 sync level NONE)
  send_message(make_ack(output));
}

void client_session::nak_output(const otma::otma_message& output, std::uint16_t sense) {
  if (state_ == client_state::idle || state_ == client_state::lost) return;
  if (!output.mci.response_requested()) return;
  send_message(make_nak(output, sense));
}

void client_session::send_deallocate(std::string_view tpipe, const otma::raw_bytes<16>& server_token) {
  if (state_ != client_state::active) return;
  send_message(make_deallocate(tpipe, server_token));
}

void client_session::send_tbresynch(std::string_view tpipe) {
  // "at any time after the initial non-deferred resync of this tpipe" [C: IMS-SD-TB]
  if (state_ != client_state::active) return;
  send_message(make_tbresynch(tpipe));
}

void client_session::tick(millis now) {
  const auto overdue = [now](millis since, millis limit) { return now > since && now - since > limit; };
  if (state_ == client_state::bidding || state_ == client_state::resyncing) {
    if (overdue(bid_sent_at_, config_.bid_timeout)) {
      lose(std::string(state_ == client_state::bidding ? "no answer to the client-bid"
                                                       : "resync exchange stalled") +
           " from " + config_.server_member + " after " + std::to_string(now - bid_sent_at_) +
           " ms: session dropped");
      return;
    }
  }
  if (state_ != client_state::resyncing && state_ != client_state::active) return;
  for (const pending_input& p : pending_) {
    if (overdue(p.sent_at, config_.ack_timeout)) {
      // Never a resend on a timer (docs/design/commit-modes.md, CM0 step 7): drop, reconnect, resync.
      lose("no ACK for tpipe " + p.tpipe + " seq " + std::to_string(p.send_seq) + " after " +
           std::to_string(now - p.sent_at) + " ms: session dropped, resync on reconnect (never resent)");
      return;
    }
  }
}

void client_session::lose(const std::string& reason) {
  if (state_ == client_state::lost) return;
  state_ = client_state::lost;
  pending_.clear();
  srv_tpipes_.clear();
  reqresynch_expected_ = 0;
  chain_.clear();
  observer_.on_session_lost(reason);
}

void client_session::send_message(const otma::otma_message& message) {
  auto encoded = otma::encode_message(message);
  if (!encoded) {
    lose("cannot encode " + std::string(to_string(classify(message, /*from_client=*/true))) + " for " +
         config_.server_member + ": " + encoded.error().to_string());
    return;
  }
  observer_.send(std::move(encoded).value());
}

}  // namespace imsb::tpipe
