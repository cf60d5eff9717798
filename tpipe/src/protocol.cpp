#include "imsb/tpipe/protocol.hpp"

#include <utility>
#include <variant>

namespace imsb::tpipe {
namespace {

namespace cmd = otma::command;
namespace mt = otma::msg_type;
namespace rsp = otma::response;

// A protocol command with nothing but its MCI: arch 1, single buffer (chain X'A0' as in every
// single-buffer sample [C-hex: IMS-SAMPLE, IMS-SAMPLE-RS]), tpipe blank.
otma::otma_message command_message(std::uint8_t command_type, std::uint8_t response_flag) {
  otma::otma_message m;
  m.mci.message_type = mt::command;
  m.mci.response_flag = response_flag;
  m.mci.command_type = command_type;
  return m;
}

bool is_kind_of_bid(std::uint8_t command_type) {
  return command_type == cmd::client_bid || command_type == cmd::cbresynch;
}

const otma::transaction_state_data* transaction_state(const otma::otma_message& m) {
  if (!m.state) return nullptr;
  return std::get_if<otma::transaction_state_data>(&*m.state);
}

message_kind classify_command(const otma::mci& m) {
  if (m.is_response()) {
    // Responses to protocol commands: type X'30' command+response, the command echoed
    // [C-hex: IMS-SAMPLE-RS].
    const bool ack = (m.response_flag & rsp::ack) != 0;
    const bool nak = (m.response_flag & rsp::nak) != 0;
    if (ack == nak) return message_kind::unknown;  // neither, or both: not a response we can act on
    if (is_kind_of_bid(m.command_type)) return ack ? message_kind::bid_ack : message_kind::bid_nak;
    if (m.command_type == cmd::srvresynch)
      return ack ? message_kind::srvresynch_ack : message_kind::srvresynch_nak;
    if (m.command_type == cmd::represynch && ack) return message_kind::represynch_ack;
    return message_kind::unknown;
  }
  switch (m.command_type) {
    case cmd::client_bid:
      return message_kind::client_bid;
    case cmd::cbresynch:
      return message_kind::cbresynch;
    case cmd::server_available:
      return message_kind::server_available;
    case cmd::srvresynch:
      return message_kind::srvresynch;
    case cmd::reqresynch:
      return message_kind::reqresynch;
    case cmd::represynch:
      return message_kind::represynch;
    case cmd::tbresynch:
      return message_kind::tbresynch;
    case cmd::suspend:
      return message_kind::suspend;
    case cmd::server_state:
      return message_kind::server_state;
    default:
      return message_kind::unknown;
  }
}

// The MCI of a response to `of`: its tpipe, send-sequence number (the ACK/NAK echoes the number of
// the message it answers [C: IMS-MCI-X]), recoverable and segment sequence numbers; one buffer.
otma::mci response_mci(const otma::mci& of, std::uint8_t message_type, std::uint8_t response_flag) {
  otma::mci m = of;
  m.message_type = message_type;
  m.response_flag = response_flag;
  m.commit_confirmation = 0;
  m.processing_flags = 0;
  m.chain_flags = otma::chain::single;
  m.prefix_flags = 0;  // encode_message sets the section bits from the sections present
  m.sense_code = 0;
  m.reason_code = 0;
  return m;
}

// The kind `of` is when we are asked to answer it. Type X'80' (output or conversation data) is taken
// as output: the client answers output far more often than a server answers conversation data, and
// the server has make_input_ack() for the latter.
message_kind kind_to_answer(const otma::otma_message& of) {
  const auto& m = of.mci;
  if (!m.is_command() && !m.is_response() && (m.message_type & mt::data) != 0) return message_kind::output;
  if (!m.is_command() && !m.is_response() && (m.message_type & mt::commit_confirmation) != 0)
    return message_kind::deallocate;  // a server does not answer its own commit confirmation
  return classify(of, /*from_client=*/true);
}

otma::otma_message make_input_response(const otma::otma_message& input, std::uint8_t response_flag) {
  // IMS's ACK/NAK of client input: type X'60' transaction+response [C: IMS-MCI-X] with the
  // first input buffer echoed [C: IMS-MSGS-CLI]; the application data is left out (the header's
  // contract) since the client has it and only needs the prefix to match the answer.
  otma::otma_message r;
  r.mci = response_mci(input.mci, mt::transaction | mt::response, response_flag);
  r.state = input.state;
  r.security = input.security;
  r.user = input.user;
  return r;
}

otma::otma_message response_to(const otma::otma_message& of, std::uint8_t response_flag,
                               std::string_view server_member, const otma::raw_bytes<8>& server_token) {
  otma::otma_message r;
  switch (kind_to_answer(of)) {
    case message_kind::client_bid:
    case message_kind::cbresynch: {
      // ACK/NAK of a bid: MC, SD, SE, type X'30' ([C: IMS-CB-FLOW], [C-hex: IMS-SAMPLE-RS]).
      r.mci = response_mci(of.mci, mt::command | mt::response, response_flag);
      r.state = of.state;
      r.security = of.security;
      if (!server_member.empty() && r.state) {
        if (auto* sd = std::get_if<otma::client_bid_state_data>(&*r.state)) {
          // The originator of the ACK is the server: "the server returns its own token in the ACK"
          // and the client keeps it as the destination token of later commands [I: IMS-SD-CB]. With
          // no server name given, the SD is echoed unchanged as in IBM's CBresynch ACK [C-hex].
          sd->destination_token = sd->originator_token;
          sd->member_name.set(server_member);
          sd->originator_token = server_token;
        }
      }
      return r;
    }
    case message_kind::srvresynch:
    case message_kind::represynch: {
      // SRVresynch's ACK: MCI 30/A0/2C [C-hex: IMS-SAMPLE-RS]; IBM shows only MCI+0..5, the rest of
      // the SRVresynch is echoed [D] (tests/vectors/otma/srvresynch_ack.hex). REPresynch's ACK
      // X'30'/X'80'/X'34' [I], its SD echoed likewise [D].
      r = of;
      r.mci = response_mci(of.mci, mt::command | mt::response, response_flag);
      r.user.reset();
      r.application.reset();
      return r;
    }
    case message_kind::transaction:
    case message_kind::conversation_data:
      return make_input_response(of, response_flag);
    case message_kind::output:
      // Client ACK/NAK of output: type X'20' (the table's "or A0" is [I]), MCI only, with the
      // output's send-sequence number ([C: ICON-MCI], type byte [I]).
      r.mci = response_mci(of.mci, mt::response, response_flag);
      return r;
    default:
      // Anything else (deallocate, commit confirmation, other commands): the type with the response
      // bit, the MCI echoed [D]; IBM documents no ACK for these.
      r.mci =
          response_mci(of.mci, static_cast<std::uint8_t>(of.mci.message_type | mt::response), response_flag);
      return r;
  }
}

void set_nak(otma::otma_message& r, std::uint16_t sense, std::uint16_t reason, bool error_message_follows) {
  r.mci.sense_code = sense;    // MCI+20, offset [I]
  r.mci.reason_code = reason;  // MCI+22, offset [I]
  if (error_message_follows) r.mci.processing_flags |= otma::processing::error_message_follows;  // [D] bit
}

}  // namespace

std::string_view to_string(message_kind kind) noexcept {
  switch (kind) {
    case message_kind::unknown:
      return "unknown";
    case message_kind::client_bid:
      return "client_bid";
    case message_kind::cbresynch:
      return "cbresynch";
    case message_kind::bid_ack:
      return "bid_ack";
    case message_kind::bid_nak:
      return "bid_nak";
    case message_kind::server_available:
      return "server_available";
    case message_kind::srvresynch:
      return "srvresynch";
    case message_kind::srvresynch_ack:
      return "srvresynch_ack";
    case message_kind::srvresynch_nak:
      return "srvresynch_nak";
    case message_kind::reqresynch:
      return "reqresynch";
    case message_kind::represynch:
      return "represynch";
    case message_kind::represynch_ack:
      return "represynch_ack";
    case message_kind::tbresynch:
      return "tbresynch";
    case message_kind::suspend:
      return "suspend";
    case message_kind::server_state:
      return "server_state";
    case message_kind::transaction:
      return "transaction";
    case message_kind::conversation_data:
      return "conversation_data";
    case message_kind::input_ack:
      return "input_ack";
    case message_kind::input_nak:
      return "input_nak";
    case message_kind::output:
      return "output";
    case message_kind::output_ack:
      return "output_ack";
    case message_kind::output_nak:
      return "output_nak";
    case message_kind::commit_confirmation:
      return "commit_confirmation";
    case message_kind::deallocate:
      return "deallocate";
  }
  return "unknown";
}

message_kind classify(const otma::otma_message& message, bool from_client) noexcept {
  const auto& m = message.mci;
  if (m.architecture_level != otma::architecture_level_1) return message_kind::unknown;  // [C: IMS-MCI]
  if (m.is_command()) return classify_command(m);
  if (m.is_response()) {
    const bool ack = (m.response_flag & rsp::ack) != 0;
    const bool nak = (m.response_flag & rsp::nak) != 0;
    if (ack == nak) return message_kind::unknown;
    // IMS's ACK of input is transaction+response X'60' [C: IMS-MCI-X]; the client's ACK of
    // output is X'20' or X'A0' [I]. A server's response without the transaction bit (an ACK of
    // conversation data a real IMS might type X'A0') is still about input: the direction decides.
    if ((m.message_type & mt::transaction) != 0 || !from_client)
      return ack ? message_kind::input_ack : message_kind::input_nak;
    return ack ? message_kind::output_ack : message_kind::output_nak;
  }
  if ((m.message_type & mt::transaction) != 0) return message_kind::transaction;  // [C-hex: IMS-SAMPLE]
  if ((m.message_type & mt::data) != 0) {
    if (!from_client) return message_kind::output;
    // Later input of a conversation: type Data with server state Conversational
    // [C: ICON-MCI, IMS-CONV]; type Data from a client without it is nothing IMS accepts.
    const auto* sd = transaction_state(message);
    if (sd != nullptr && (sd->server_state & otma::server_state::conversational) != 0)
      return message_kind::conversation_data;
    return message_kind::unknown;
  }
  // Commit confirmation: the server confirms, a client deallocates [C: IMS-MCI, ICON-MCI].
  if ((m.message_type & mt::commit_confirmation) != 0)
    return from_client ? message_kind::deallocate : message_kind::commit_confirmation;
  return message_kind::unknown;
}

// --- connecting -----------------------------------------------------------------------------------

otma::otma_message make_client_bid(const bid_params& params, bool resync) {
  // MCI 10/20/04 (CBresynch 0C), prefix C0 SD+SE [C-hex: IMS-SAMPLE, IMS-SAMPLE-RS]. MCI+30 is
  // left 0000 as in IBM MQ's own CBresynch [C-hex]; the plain client-bid sample's X'0400' is unexplained.
  auto m = command_message(resync ? cmd::cbresynch : cmd::client_bid, rsp::requested);
  m.mci.prefix_flags = otma::prefix::state_data | otma::prefix::security_data;
  otma::client_bid_state_data sd;
  sd.member_name.set(params.member);            // +2 originator's member [C]
  sd.originator_token = params.token;           // +18 [C]
  sd.destination_token = params.server_token;   // +26 [C]; zeros until the server's is known [I]
  sd.dru_exit_name.set(params.dru_exit);        // +34 [C]
  sd.max_blocksize = params.max_blocksize;      // +42 [C]
  sd.flags = params.flags;                      // +44 OMHDRQUE [C]
  sd.acee_aging = params.acee_aging;            // +46 [I offset]
  sd.hash_table_size = params.hash_table_size;  // +50 [I offset]
  m.state = std::move(sd);
  m.security = params.security;  // optional [C: IMS-CB-FLOW]
  return m;
}

otma::otma_message make_server_available(std::string_view server_member, const otma::raw_bytes<8>& token) {
  // MCI 10/(20)/08: command code [R], response flag "(20)" as docs/design/otma.md gives it; the client
  // answers with a client-bid, not an ACK [C: IMS-SA-FLOW]. The SE IMS would send is unknown: none [D].
  auto m = command_message(cmd::server_available, rsp::requested);
  otma::server_available_state_data sd;
  sd.member_name.set(server_member);  // IMS fills in its own member name and token [I: IMS-SD-CB]
  sd.originator_token = token;
  m.state = std::move(sd);
  return m;
}

// --- responses ------------------------------------------------------------------------------------

otma::otma_message make_ack(const otma::otma_message& of, std::string_view server_member,
                            const otma::raw_bytes<8>& server_token) {
  std::uint8_t flag = rsp::ack;
  // The client's ACK of SRVresynch carries X'A0', ACK + response requested [C-hex: IMS-SAMPLE-RS].
  if (of.mci.is_command() && !of.mci.is_response() && of.mci.command_type == cmd::srvresynch)
    flag |= rsp::requested;
  return response_to(of, flag, server_member, server_token);
}

otma::otma_message make_nak(const otma::otma_message& of, std::uint16_t sense, std::uint16_t reason,
                            bool error_message_follows) {
  auto r = response_to(of, rsp::nak, {}, {});  // X'40', sense at MCI+20 ([C: IMS-MCI], offset [I])
  set_nak(r, sense, reason, error_message_follows);
  return r;
}

otma::otma_message make_input_ack(const otma::otma_message& input) {
  return make_input_response(input, rsp::ack);
}

otma::otma_message make_input_nak(const otma::otma_message& input, std::uint16_t sense, std::uint16_t reason,
                                  bool error_message_follows) {
  auto r = make_input_response(input, rsp::nak);
  set_nak(r, sense, reason, error_message_follows);
  return r;
}

// --- resynchronization ----------------------------------------------------------------------------

otma::otma_message make_srvresynch(const std::vector<std::string>& tpipe_names) {
  // MCI 10/20/2C, tpipe zeros, prefix 80, segment sequence 1: IBM's sample byte for byte
  // [C-hex: IMS-SAMPLE-RS] but for its zero padding after the SD, which we do not send.
  auto m = command_message(cmd::srvresynch, rsp::requested);
  m.mci.tpipe_name.raw.fill(0);
  m.mci.segment_seq = 1;
  otma::srvresynch_state_data sd;
  sd.tpipe_names.reserve(tpipe_names.size());
  for (const auto& name : tpipe_names) sd.tpipe_names.push_back(otma::ebcdic_name<8>::of(name));
  m.state = std::move(sd);
  return m;
}

otma::otma_message make_reqresynch(std::string_view tpipe, std::uint32_t ims_send_seq,
                                   std::uint32_t ims_receive_seq) {
  // MCI 10/00/30 with the tpipe name in the MCI [C-hex: IMS-SAMPLE-RS]; SD [C: IMS-SD-REQ].
  auto m = command_message(cmd::reqresynch, 0x00);
  m.mci.tpipe_name.set(tpipe);
  m.mci.segment_seq = 1;  // as in IMS's SRVresynch [C-hex]; REQresynch's own is not shown [D]
  otma::reqresynch_state_data sd;
  sd.tpipe_name.set(tpipe);
  sd.ims_send_seq = ims_send_seq;
  sd.ims_receive_seq = ims_receive_seq;
  m.state = std::move(sd);
  return m;
}

otma::otma_message make_represynch(std::string_view tpipe, std::uint32_t client_send_seq,
                                   std::uint32_t client_receive_seq, std::uint8_t action) {
  // MCI 10/(20)/34: command code [I] (+4 after REQresynch's 30); response requested so that IMS ACKs
  // ("ACK (if requested)" [C: IMS-RESYNC]). The tpipe in the MCI as in REQresynch [I]; SD [C: IMS-SD-REP].
  auto m = command_message(cmd::represynch, rsp::requested);
  m.mci.tpipe_name.set(tpipe);
  otma::represynch_state_data sd;
  sd.tpipe_name.set(tpipe);
  sd.client_send_seq = client_send_seq;
  sd.client_receive_seq = client_receive_seq;
  sd.tpipe_flag1 = action;  // otma::represynch_action:: [C, partial]
  m.state = std::move(sd);
  return m;
}

otma::otma_message make_tbresynch(std::string_view tpipe) {
  // MCI 10/(20)/38: command code [I]; SD `len, tpipe name` [C: IMS-SD-TB].
  auto m = command_message(cmd::tbresynch, rsp::requested);
  m.mci.tpipe_name.set(tpipe);
  otma::tbresynch_state_data sd;
  sd.tpipe_name.set(tpipe);
  m.state = std::move(sd);
  return m;
}

// --- server state, suspend, commit ----------------------------------------------------------------

otma::otma_message make_server_state(std::uint16_t status) {
  // MCI 10/../3C, SD status [C: IMS-SD-SS]; a heartbeat asks for no response [D].
  auto m = command_message(cmd::server_state, 0x00);
  otma::server_state_data sd;
  sd.status = status;
  m.state = std::move(sd);
  return m;
}

otma::otma_message make_suspend() {
  // MCI 10/../14 TMAMCSPA [C: IMS-TERM]; its state data, if any, is unknown: none [D].
  return command_message(cmd::suspend, 0x00);
}

otma::otma_message make_commit_confirmation(std::string_view tpipe, std::uint32_t send_seq, bool committed) {
  // MCI type 08, MCI+3 committed X'80' / aborted X'40' ([C: IMS-MCI]; values [R]).
  otma::otma_message m;
  m.mci.message_type = mt::commit_confirmation;
  m.mci.commit_confirmation = committed ? otma::commit::committed : otma::commit::aborted;
  m.mci.tpipe_name.set(tpipe);
  m.mci.send_seq = send_seq;
  return m;
}

otma::otma_message make_deallocate(std::string_view tpipe, const otma::raw_bytes<16>& server_token) {
  // MCI type 08 with SD server state Conversational and the server token [C: IMS-CONV].
  // Conversations are send-then-commit [C: IMS-CONV]: sync flags CM1 + CONFIRM ([R] values).
  otma::otma_message m;
  m.mci.message_type = mt::commit_confirmation;
  m.mci.tpipe_name.set(tpipe);
  otma::transaction_state_data sd;
  sd.server_state = otma::server_state::conversational;
  sd.sync_flags = otma::sync_flags::send_then_commit | otma::sync_flags::sync_level_confirm;
  sd.server_token = server_token;
  m.state = std::move(sd);
  return m;
}

std::string tpipe_of(const otma::otma_message& message) { return message.mci.tpipe_name.value(); }

}  // namespace imsb::tpipe
