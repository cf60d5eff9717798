#pragma once
// The OTMA messages of the session layer (as IBM documents them [C: IMS-MCI-X, IMS-FLOWS]; our choices
// where it is silent are in docs/design/otma.md), built and recognised on top of the portable OTMA codec
// (imsb/otma/message.hpp). Pure functions: no state, no I/O.
//
// Flags are as IBM documents them or as its sample dumps show them [C: IMS-MCI-X, IMS-SAMPLE,
// IMS-SAMPLE-RS]; where a value is only [I] or [R] that label is kept at the builder. Sequence numbers are
// the caller's: builders take them, classify() reads them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/otma/message.hpp"

namespace imsb::tpipe {

// Every message kind the session layer tells apart. Direction: C→S client to server (the bridge
// to IMS), S→C server to client.
enum class message_kind : std::uint8_t {
  unknown,
  client_bid,           // C→S MCI 10/20/04
  cbresynch,            // C→S MCI 10/20/0C
  bid_ack,              // S→C MCI 30/80/04 or 0C
  bid_nak,              // S→C MCI 30/40/04 or 0C, sense in the MCI
  server_available,     // S→C MCI 10/../08 [R]
  srvresynch,           // S→C MCI 10/20/2C
  srvresynch_ack,       // C→S MCI 30/80(+20)/2C
  srvresynch_nak,       // C→S MCI 30/40/2C
  reqresynch,           // S→C MCI 10/00/30
  represynch,           // C→S MCI 10/../34 [I]
  represynch_ack,       // S→C MCI 30/80/34 [I]
  tbresynch,            // C→S MCI 10/../38 [I]
  suspend,              // S→C MCI 10/../14
  server_state,         // S→C MCI 10/../3C (also the heartbeat)
  transaction,          // C→S MCI 40: transaction or IMS command input
  conversation_data,    // C→S MCI 80 with state-data server state X'80': later input of a conversation
  input_ack,            // S→C MCI 60/80
  input_nak,            // S→C MCI 60/40
  output,               // S→C MCI 80: IOPCB reply, ALTPCB output, DFS message
  output_ack,           // C→S MCI 20 (or A0 [I]) / 80
  output_nak,           // C→S MCI 20 (or A0 [I]) / 40
  commit_confirmation,  // S→C MCI 08, MCI+3 committed / aborted
  deallocate,           // C→S MCI 08 (ends a conversation)
};
std::string_view to_string(message_kind kind) noexcept;

// The kind of a decoded message. Output vs conversation data (both MCI type X'80') is told by the
// direction the caller expects: `from_client` true for messages a server receives.
message_kind classify(const otma::otma_message& message, bool from_client) noexcept;

// --- connecting [C: IMS-CB-FLOW, IMS-SA-FLOW] -------------------------------------------------------

struct bid_params {
  std::string member;                                   // the client's XCF member name (≤ 16)
  otma::raw_bytes<8> token{};                           // the client's token
  otma::raw_bytes<8> server_token{};                    // the server's token if known (zeros otherwise)
  std::string dru_exit = "DFSYDRU0";                    // [R] OTMACON default
  std::uint16_t max_blocksize = 0x2000;                 // [C-hex] client-bid sample
  std::uint8_t flags = otma::client_bid_flags::ibm_mq;  // OMHDRCMQ: we are MQ's bridge [C]
  std::uint32_t acee_aging = 0x7FFFFFFF;                // [C-hex] sample; OTMACON default [R]
  std::uint32_t hash_table_size = 101;                  // [C-hex] sample
  std::optional<otma::security_data> security;          // UTOKEN etc. (optional [C: IMS-CB-FLOW])
};
// Client-bid (MCI+4 X'04'), or CBresynch (X'0C') when `resync`.
otma::otma_message make_client_bid(const bid_params& params, bool resync);

// Server-available [C: IMS-SA-FLOW]: the server's member name and token.
otma::otma_message make_server_available(std::string_view server_member, const otma::raw_bytes<8>& token);

// --- responses --------------------------------------------------------------------------------------

// The ACK of `of` as IBM gives it for that kind: the bid's ACK echoes its state and security data
// [C: IMS-CB-FLOW] with the server's member name and token [I]; an input's ACK echoes the input buffer's
// prefix without the application data (MCI 60/80, [C: IMS-MSGS-CLI] "first input buffer echoed"); a
// client's ACK of output carries the MCI only (type 20, with the output's send-sequence number)
// [C: ICON-MCI, IMS-MCI-X]; SRVresynch's ACK is MCI 30/A0/2C [C-hex: IMS-SAMPLE-RS].
// `server_member` / `server_token` are used for a bid's ACK only.
otma::otma_message make_ack(const otma::otma_message& of, std::string_view server_member = {},
                            const otma::raw_bytes<8>& server_token = {});

// The NAK of `of`: as the ACK with response X'40', the sense (and reason) in the MCI, and the processing
// flag "error message follows" when a DFS message follows ([D] bit, otma::processing::).
otma::otma_message make_nak(const otma::otma_message& of, std::uint16_t sense, std::uint16_t reason = 0,
                            bool error_message_follows = false);

// IMS's ACK / NAK of client input, whatever its type: a transaction, or conversation data (MCI type
// X'80', which make_ack() takes for output). MCI 60/80 (60/40), the input's prefix echoed without
// the application data. make_ack/make_nak of a transaction give the same.
otma::otma_message make_input_ack(const otma::otma_message& input);
otma::otma_message make_input_nak(const otma::otma_message& input, std::uint16_t sense,
                                  std::uint16_t reason = 0, bool error_message_follows = false);

// --- resynchronization [C: IMS-RESYNC] --------------------------------------------------------------

otma::otma_message make_srvresynch(const std::vector<std::string>& tpipe_names);
otma::otma_message make_reqresynch(std::string_view tpipe, std::uint32_t ims_send_seq,
                                   std::uint32_t ims_receive_seq);
otma::otma_message make_represynch(std::string_view tpipe, std::uint32_t client_send_seq,
                                   std::uint32_t client_receive_seq, std::uint8_t action);
otma::otma_message make_tbresynch(std::string_view tpipe);

// --- server state, suspend, commit [C: IMS-SD-SS, IMS-TERM, IMS-COMMIT] -----------------------------

otma::otma_message make_server_state(std::uint16_t status);  // otma::server_status::
otma::otma_message make_suspend();
otma::otma_message make_commit_confirmation(std::string_view tpipe, std::uint32_t send_seq, bool committed);
// Deallocate: ends the conversation `server_token` on `tpipe` [C: IMS-CONV].
otma::otma_message make_deallocate(std::string_view tpipe, const otma::raw_bytes<16>& server_token);

// The tpipe name of a message as text without padding (MCI+6).
std::string tpipe_of(const otma::otma_message& message);

}  // namespace imsb::tpipe
