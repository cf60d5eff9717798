#include "imsb/tpipe/server_session.hpp"

#include <string>
#include <system_error>
#include <utility>

#include "imsb/otma/sense.hpp"

namespace imsb::tpipe {

namespace {

// An MCI byte as IBM's documentation writes it: X'40'.
std::string hex_byte(std::uint8_t value) {
  const std::uint8_t one[1] = {value};
  return "X'" + to_hex(bytes_view(one, 1)) + "'";
}

}  // namespace

server_session::server_session(server_config config, server_observer& observer)
    : config_(std::move(config)), observer_(observer) {}

// --- helpers ------------------------------------------------------------------------------------------

server_session::client_info* server_session::find(std::string_view client) {
  auto it = clients_.find(client);
  return it == clients_.end() ? nullptr : &it->second;
}

const server_session::client_info* server_session::find(std::string_view client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? nullptr : &it->second;
}

void server_session::note_time(millis now) {
  // The heartbeat runs on one timer for all clients, as IMS's resource monitor does ([C: IMS-MON]: "a
  // heartbeat every 60 s"); its origin is the first time the session is told.
  if (!clock_started_) {
    clock_started_ = true;
    last_heartbeat_ = now;
  }
}

void server_session::send_message(std::string_view client, const otma::otma_message& message) {
  auto encoded = otma::encode_message(message);
  if (!encoded) {
    // Only our own builders feed this, so it is a bug, not input: tell the owner rather than crash.
    observer_.on_protocol_error(client, "cannot encode " + std::string(to_string(classify(message, false))) +
                                            ": " + encoded.error().to_string());
    return;
  }
  observer_.send(client, std::move(encoded).value());
}

void server_session::make_ready(std::string_view client) {
  client_info* info = find(client);
  if (info == nullptr || info->ready) return;
  info->ready = true;
  info->resyncing = false;
  info->awaiting_srvresynch_ack = false;
  observer_.on_client_ready(client);
}

// --- XCF group events -----------------------------------------------------------------------------------

void server_session::client_joined(std::string_view client, millis now) {
  note_time(now);
  // A client that joins bids at once, without waiting for us [C: IMS-SA-FLOW], so its bid may be
  // here before its join event; it ignores server-available after a successful bid, and we do not send
  // one then [D].
  const client_info* info = find(client);
  if (info != nullptr && (info->ready || info->resyncing)) return;
  clients_[std::string(client)];
  send_message(client, make_server_available(config_.member, config_.token));
}

void server_session::client_gone(std::string_view client, const std::string& why) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  clients_.erase(it);
  observer_.on_client_lost(client, why);
}

// --- input ----------------------------------------------------------------------------------------------

void server_session::receive(std::string_view client, bytes_view buffer, millis now) {
  note_time(now);
  auto decoded = otma::decode_message(buffer);
  if (!decoded) {
    reject_undecodable(client, buffer, decoded.error());
    return;
  }
  const otma::otma_message& message = *decoded;
  const message_kind kind = classify(message, true);
  switch (kind) {
    case message_kind::client_bid:
    case message_kind::cbresynch:
      on_bid(client, message, kind == message_kind::cbresynch);
      return;
    case message_kind::srvresynch_ack:
    case message_kind::srvresynch_nak:
      on_srvresynch_response(client, message, kind == message_kind::srvresynch_ack);
      return;
    case message_kind::represynch:
      on_represynch_message(client, message);
      return;
    case message_kind::tbresynch:
      on_tbresynch(client, message);
      return;
    case message_kind::transaction:
    case message_kind::conversation_data:
      if (!client_ready(client)) {
        // Input before a successful bid is not handed on (server_session.hpp; sense [D]).
        send_message(client, make_input_nak(message, otma::sense::invalid_message));  // [D] not IBM-verified
        observer_.on_protocol_error(client, std::string(to_string(kind)) + " on tpipe " + tpipe_of(message) +
                                                " from a client that has not bid: NAKed");
        return;
      }
      observer_.on_input(client, message);
      return;
    case message_kind::output_ack:
    case message_kind::output_nak:
      on_output_answer(client, message, kind == message_kind::output_ack);
      return;
    case message_kind::deallocate:
      if (!client_ready(client)) {
        observer_.on_protocol_error(
            client, "deallocate on tpipe " + tpipe_of(message) + " from a client that has not bid: ignored");
        return;
      }
      observer_.on_deallocate(client, message);
      return;
    default:
      reject_unexpected(client, message, kind);
      return;
  }
}

void server_session::reject_undecodable(std::string_view client, bytes_view buffer,
                                        const decode_error& error) {
  observer_.on_protocol_error(client, "undecodable OTMA buffer: " + error.to_string());
  if (buffer.size() < otma::mci_size) return;  // nothing to answer: no MCI to echo
  otma::otma_message prefix;
  otma::layout::decode(otma::mci_layout, buffer.data(), prefix.mci);
  // Never answer an ACK or NAK: two peers NAKing each other's NAKs would never stop.
  if (prefix.mci.is_response()) return;
  send_message(client, make_nak(prefix, otma::sense::prefix_format_error));  // [D] not IBM-verified
}

void server_session::reject_unexpected(std::string_view client, const otma::otma_message& message,
                                       message_kind kind) {
  observer_.on_protocol_error(client, "unexpected " + std::string(to_string(kind)) +
                                          " from a client (MCI type " + hex_byte(message.mci.message_type) +
                                          ", command " + hex_byte(message.mci.command_type) + ")");
  if (message.mci.is_response()) return;
  send_message(client, make_nak(message, otma::sense::invalid_message));  // [D] not IBM-verified
}

// [C: IMS-CB-FLOW]: ACK or NAK of the bid; after the ACK one X'3C' with the current status [D];
// [C: IMS-RESYNC]: a CBresynch is followed by SRVresynch.
void server_session::on_bid(std::string_view client, const otma::otma_message& bid, bool resync) {
  // A bid starts a new session with this client: whatever it had (numbering, unanswered output) belongs to
  // the old one, whose output the owner re-sends after resync [D].
  // A bid that replaces a live session (the client dropped it and bid again without leaving XCF) ends the
  // old one for the owner first, as if the client had gone: the new session's send numbers restart at 1,
  // so the owner must not match the new session's answers against the old session's output (CM1 runs
  // waiting for an ACK are backed out, output in flight is sent again after resync) [D].
  if (const client_info* old = find(client); old != nullptr && (old->ready || old->resyncing)) {
    clients_[std::string(client)] = client_info{};
    observer_.on_client_lost(client, "re-bid");
  }
  clients_[std::string(client)] = client_info{};
  const bid_verdict verdict = observer_.on_bid(client, bid);
  if (find(client) == nullptr) return;  // the owner dropped it meanwhile
  if (!verdict.accept) {
    send_message(client, make_nak(bid, verdict.sense, verdict.reason));
    return;
  }
  send_message(client, make_ack(bid, config_.member, config_.token));
  send_message(client, make_server_state(status_));
  client_info* info = find(client);
  if (info == nullptr) return;
  if (!resync) {
    make_ready(client);
    return;
  }
  info->resyncing = true;
  auto tpipes = observer_.synchronized_tpipes(client);
  info = find(client);
  if (info == nullptr) return;
  std::vector<std::string> names;
  names.reserve(tpipes.size());
  for (const auto& t : tpipes) names.push_back(t.name);
  info->resync_tpipes = std::move(tpipes);
  info->awaiting_srvresynch_ack = true;
  // Sent even with no names, so the client learns IMS has none (a cold start); it is ready once it ACKs.
  send_message(client, make_srvresynch(names));
}

void server_session::on_srvresynch_response(std::string_view client, const otma::otma_message& /*message*/,
                                            bool ack) {
  client_info* info = find(client);
  if (info == nullptr || !info->awaiting_srvresynch_ack) {
    // An answer to nothing: ignored and logged, as IMS does for stray responses [C: IMS-MSG-DFS1284E].
    observer_.on_protocol_error(
        client, std::string(ack ? "ACK" : "NAK") + " of SRVresynch that was not sent: ignored");
    return;
  }
  info->awaiting_srvresynch_ack = false;
  if (!ack) {
    // [C: IMS-MSG-DFS2393I]: "If the client NAKs the SRVresynch, IMS stops resync and issues DFS2393I". The
    // client stays connected; no REQresynch will come, so it is as ready as after a bid without resync [D].
    info->resync_tpipes.clear();
    observer_.on_srvresynch_rejected(client);
    make_ready(client);
    return;
  }
  // One REQresynch per synchronized Tpipe with IMS's numbers [C: IMS-RESYNC]. Copied first: each send is an
  // observer call that may change the session.
  const std::vector<synchronized_tpipe> tpipes = info->resync_tpipes;
  if (tpipes.empty()) {
    make_ready(client);
    return;
  }
  for (const auto& t : tpipes) {
    info = find(client);
    if (info == nullptr) return;
    auto [it, inserted] = info->reqresynch_outstanding.emplace(t.name, true);
    if (inserted) {
      ++info->represynch_expected;
    } else if (!it->second) {
      it->second = true;
      ++info->represynch_expected;
    }
  }
  for (const auto& t : tpipes) {
    if (find(client) == nullptr) return;
    send_message(client, make_reqresynch(t.name, t.numbers.send, t.numbers.receive));
  }
}

void server_session::on_represynch_message(std::string_view client, const otma::otma_message& message) {
  const auto* rep = message.state ? std::get_if<otma::represynch_state_data>(&*message.state) : nullptr;
  const std::string tpipe = rep != nullptr ? rep->tpipe_name.value() : tpipe_of(message);
  client_info* info = find(client);
  if (rep == nullptr || info == nullptr || info->reqresynch_outstanding.count(tpipe) == 0) {
    observer_.on_protocol_error(client, "REPresynch for tpipe " + tpipe + " that no REQresynch asked for");
    if (message.mci.response_requested()) {
      send_message(client, make_nak(message, otma::sense::invalid_message));  // [D] not IBM-verified
    }
    return;
  }
  auto outstanding = info->reqresynch_outstanding.find(tpipe);
  const bool initial = outstanding->second;
  info->reqresynch_outstanding.erase(outstanding);
  if (initial && info->represynch_expected > 0) --info->represynch_expected;
  const bool last_of_initial = initial && info->represynch_expected == 0 && info->resyncing;
  const std::uint8_t action = rep->tpipe_flag1;
  const std::uint32_t client_send = rep->client_send_seq;
  const std::uint32_t client_receive = rep->client_receive_seq;
  observer_.on_represynch(client, tpipe, action, client_send, client_receive);
  if (find(client) == nullptr) return;
  // IMS ACKs a REPresynch if asked to [C: IMS-RESYNC].
  if (message.mci.response_requested()) send_message(client, make_ack(message));
  if (last_of_initial) make_ready(client);
}

void server_session::on_tbresynch(std::string_view client, const otma::otma_message& message) {
  const auto* tb = message.state ? std::get_if<otma::tbresynch_state_data>(&*message.state) : nullptr;
  const std::string tpipe = tb != nullptr ? tb->tpipe_name.value() : tpipe_of(message);
  const client_info* info = find(client);
  if (info == nullptr || !(info->ready || info->resyncing)) {
    send_message(client, make_nak(message, otma::sense::invalid_message));  // [D] not IBM-verified
    observer_.on_protocol_error(client,
                                "TBresynch for tpipe " + tpipe + " from a client that has not bid: NAKed");
    return;
  }
  // [C: IMS-SD-TB]: the client is ready for the REQresynch of this Tpipe.
  auto tpipes = observer_.synchronized_tpipes(client);
  if (find(client) == nullptr) return;
  for (const auto& t : tpipes) {
    if (t.name == tpipe) {
      send_reqresynch(client, t);
      return;
    }
  }
  observer_.on_protocol_error(client, "TBresynch for tpipe " + tpipe + ", which is not synchronized");
  if (message.mci.response_requested()) {
    send_message(client, make_nak(message, otma::sense::unknown_destination));  // [D] not IBM-verified
  }
}

// [C: IMS-MCI-X]: the ACK/NAK echoes the send-sequence number of the message it answers.
void server_session::on_output_answer(std::string_view client, const otma::otma_message& message, bool ack) {
  const std::string tpipe = tpipe_of(message);
  const std::uint32_t seq = message.mci.send_seq;
  client_info* info = find(client);
  bool matched = false;
  if (info != nullptr) {
    for (auto it = info->pending.begin(); it != info->pending.end(); ++it) {
      if (it->tpipe == tpipe && it->send_seq == seq) {
        info->pending.erase(it);
        matched = true;
        break;
      }
    }
  }
  if (!matched) {
    // [C: IMS-MSG-DFS1284E]: IMS ignores an ACK/NAK for a block that is not waiting, and logs it.
    observer_.on_protocol_error(client, std::string("DFS1284E ") + (ack ? "ACK" : "NAK") +
                                            " ON NON-WAITING BLOCK IN TPIPE=" + tpipe +
                                            " MEMBER=" + std::string(client) + " (send-sequence " +
                                            std::to_string(seq) + "): ignored");
    return;
  }
  output_response response;
  response.client = std::string(client);
  response.tpipe = tpipe;
  response.send_seq = seq;
  response.ack = ack;
  response.sense = ack ? 0 : message.mci.sense_code;
  response.message = message;
  observer_.on_output_response(response);
}

// --- the owner's answers and output -------------------------------------------------------------------

void server_session::ack_input(std::string_view client, const otma::otma_message& input) {
  if (find(client) == nullptr) return;  // gone meanwhile: nobody to answer
  send_message(client, make_input_ack(input));
}

void server_session::nak_input(std::string_view client, const otma::otma_message& input, std::uint16_t sense,
                               std::uint16_t reason, bool error_message_follows) {
  if (find(client) == nullptr) return;
  send_message(client, make_input_nak(input, sense, reason, error_message_follows));
}

result<std::uint32_t> server_session::send_output(std::string_view client, otma::otma_message output,
                                                  bool response_requested, millis now) {
  note_time(now);
  client_info* info = find(client);
  if (info == nullptr || !info->ready) {
    return decode_error{std::make_error_code(std::errc::operation_not_permitted), "client", 0,
                        "client " + std::string(client) + " is not ready for output"};
  }
  const std::string tpipe = tpipe_of(output);
  auto next = info->next_send_seq.find(tpipe);
  const std::uint32_t seq = next == info->next_send_seq.end() ? 1 : next->second;
  output.mci.message_type = otma::msg_type::data;
  output.mci.send_seq = seq;
  // [C: IMS-CTS-FLOW, IMS-STC-FLOW]: response requested on CM0 always, on CM1 with sync level CONFIRM.
  if (response_requested) {
    output.mci.response_flag =
        static_cast<std::uint8_t>(output.mci.response_flag | otma::response::requested);
  } else {
    output.mci.response_flag =
        static_cast<std::uint8_t>(output.mci.response_flag & ~otma::response::requested);
  }
  auto encoded = otma::encode_message(output);
  if (!encoded) return encoded.error();  // the number is not used up
  info->next_send_seq[tpipe] = seq + 1;
  if (response_requested) info->pending.push_back({tpipe, seq, now, false});
  observer_.send(client, std::move(encoded).value());
  return seq;
}

void server_session::send_commit_confirmation(std::string_view client, std::string_view tpipe,
                                              std::uint32_t send_seq, bool committed) {
  if (find(client) == nullptr) return;
  send_message(client, make_commit_confirmation(tpipe, send_seq, committed));
}

void server_session::send_reqresynch(std::string_view client, const synchronized_tpipe& tpipe) {
  client_info* info = find(client);
  if (info == nullptr) return;
  // Outside the initial exchange, so its REPresynch does not count towards readiness.
  info->reqresynch_outstanding.emplace(tpipe.name, false);
  send_message(client, make_reqresynch(tpipe.name, tpipe.numbers.send, tpipe.numbers.receive));
}

void server_session::set_server_state(std::uint16_t status) {
  status_ = status;
  for (const auto& name : ready_clients()) {
    if (client_ready(name)) send_message(name, make_server_state(status_));
  }
}

void server_session::suspend_all() {
  for (const auto& name : ready_clients()) {
    if (client_ready(name)) send_message(name, make_suspend());
  }
}

void server_session::tick(millis now) {
  note_time(now);
  // [D]: a X'3C' heartbeat every heartbeat_interval (IMS sends one every 60 s [C: IMS-MON]).
  if (config_.heartbeat_interval > 0 && now >= last_heartbeat_ &&
      now - last_heartbeat_ >= config_.heartbeat_interval) {
    last_heartbeat_ = now;
    for (const auto& name : ready_clients()) {
      if (client_ready(name)) send_message(name, make_server_state(status_));
    }
  }
  // DFS3494E [C: IMS-MSG-DFS3494E], once per output; the output stays pending so a late answer still
  // matches it.
  struct expired {
    std::string client;
    std::string tpipe;
    std::uint32_t send_seq;
  };
  std::vector<expired> timed_out;
  for (auto& [name, info] : clients_) {
    for (auto& p : info.pending) {
      if (!p.timeout_reported && now >= p.sent_at && now - p.sent_at >= config_.output_ack_timeout) {
        p.timeout_reported = true;
        timed_out.push_back({name, p.tpipe, p.send_seq});
      }
    }
  }
  for (const auto& e : timed_out) observer_.on_output_timeout(e.client, e.tpipe, e.send_seq);
}

bool server_session::client_ready(std::string_view client) const {
  const client_info* info = find(client);
  return info != nullptr && info->ready;
}

std::vector<std::string> server_session::ready_clients() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : clients_) {
    if (info.ready) out.push_back(name);
  }
  return out;
}

}  // namespace imsb::tpipe
