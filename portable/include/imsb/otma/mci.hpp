#pragma once
// Message-control information (MCI): the 32 bytes at the start of every OTMA buffer (DSECT TMAMCTL,
// IMS Connect HWSOMCTL) [C: IMS-MCI, IMS-MCI-X, ICON-MCI]. Labels: [C], [I] and [D] as in
// docs/design/README.md; [C-hex] confirmed by IBM's hex dumps of real messages [C: IMS-SAMPLE,
// IMS-SAMPLE-RS]; [R] recalled: general knowledge that no public source confirms, weaker than [I];
// [?] unknown. Our choices where IBM's values are not public: docs/design/otma.md.

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "imsb/otma/layout.hpp"

namespace imsb::otma {

inline constexpr std::size_t mci_size = 32;  // "OTMA CTL HDR 32 bytes" [C: ICON-OUT]

inline constexpr std::uint8_t architecture_level_1 = 0x01;  // MCI+0 [C]: the only level there is

// MCI+1 message type (TMAMCMGT). Bit flags that combine: the ACK of a client-bid is command+response
// (X'30') and IMS's ACK of a transaction is transaction+response (X'60') [C: IMS-MCI-X, ICON-MCI].
namespace msg_type {
inline constexpr std::uint8_t data = 0x80;                 // TMAMCDTA: server output [C]
inline constexpr std::uint8_t transaction = 0x40;          // TMAMCTXN: transaction or command input [C]
inline constexpr std::uint8_t response = 0x20;             // TMAMCRSP: ACK/NAK [C]
inline constexpr std::uint8_t command = 0x10;              // TMAMCCMD: protocol command, see MCI+4 [C]
inline constexpr std::uint8_t commit_confirmation = 0x08;  // OMCTLCMT: also deallocate/send-only [C]
inline constexpr std::uint8_t sync_program_switch = 0x04;  // [C]
}  // namespace msg_type

// MCI+2 response flag (OMCTLRSI). IBM calls the values mutually exclusive, yet the client ACK of
// SRVresynch carries X'A0' (ACK + response requested) [C-hex: IMS-SAMPLE-RS], so it is bit flags.
namespace response {
inline constexpr std::uint8_t ack = 0x80;                 // [C]
inline constexpr std::uint8_t nak = 0x40;                 // [C]: sense code at MCI+20
inline constexpr std::uint8_t requested = 0x20;           // [C]
inline constexpr std::uint8_t extended_requested = 0x10;  // [C: IMS-DISTRAN]: architected attributes returned
inline constexpr std::uint8_t callout_response = 0x08;    // [C]: response to a synchronous callout
inline constexpr std::uint8_t delayed_ack_nak = 0x02;     // [C]: OMCTLDAN, IMS Connect
}  // namespace response

// MCI+3 commit-confirmation flag (OMCTLCCI), with message type X'08'. Name [C], values [R].
namespace commit {
inline constexpr std::uint8_t committed = 0x80;  // [R]
inline constexpr std::uint8_t aborted = 0x40;    // [R]
}  // namespace commit

// MCI+4 protocol command type (TMAMCTYP), meaningful when MCI+1 has X'10' [C: IMS-SD-SS].
namespace command {
inline constexpr std::uint8_t client_bid = 0x04;             // [C-hex: IMS-SAMPLE]
inline constexpr std::uint8_t server_available = 0x08;       // [R]
inline constexpr std::uint8_t cbresynch = 0x0C;              // [C-hex: IMS-SAMPLE-RS] client-bid + resync
inline constexpr std::uint8_t suspend = 0x14;                // [C: IMS-TERM] TMAMCSPA, planned shutdown
inline constexpr std::uint8_t resume_processing = 0x18;      // [D] emulator only: never send to a real IMS
inline constexpr std::uint8_t resume_output_tpipe = 0x24;    // [D] emulator only: never send to a real IMS
inline constexpr std::uint8_t resume_hold_queue = 0x28;      // [D] emulator only: never send to a real IMS
inline constexpr std::uint8_t srvresynch = 0x2C;             // [C-hex: IMS-SAMPLE-RS]
inline constexpr std::uint8_t reqresynch = 0x30;             // [C-hex: IMS-SAMPLE-RS]
inline constexpr std::uint8_t represynch = 0x34;             // [I]: follows the +4 pattern of 2C/30
inline constexpr std::uint8_t tbresynch = 0x38;              // [I]
inline constexpr std::uint8_t server_state = 0x3C;           // [C: IMS-SD-SS] TMAMMNTR, resource monitor
inline constexpr std::uint8_t no_msgs_on_hold_queue = 0x40;  // [D] emulator only: never send to a real IMS
}  // namespace command

// MCI+5 processing flags: the field exists [C: RB-ICOD], bit values are unknown (docs/design/otma.md).
namespace processing {
inline constexpr std::uint8_t synchronized_tpipe = 0x80;     // [D] (matches the [R] candidates)
inline constexpr std::uint8_t async_output = 0x40;           // [R]
inline constexpr std::uint8_t error_message_follows = 0x20;  // [D] the flag exists [C: IMS-COMMIT]
}  // namespace processing

// MCI+14 chain flags: field [C: RB-ICOD], values [R]; single-buffer samples show X'A0' [C-hex: IMS-SAMPLE].
namespace chain {
inline constexpr std::uint8_t first = 0x80;    // [R]
inline constexpr std::uint8_t middle = 0x40;   // [R]
inline constexpr std::uint8_t last = 0x20;     // [R]
inline constexpr std::uint8_t discard = 0x10;  // [R]: the sender abandons the chain
inline constexpr std::uint8_t single = first | last;
inline constexpr std::uint8_t position_mask = first | middle | last | discard;
}  // namespace chain

// MCI+15 prefix flags (OMCTLPFL): which sections follow. Name [C: ICON-HDR], bits [I] from the three IBM
// dumps [C-hex: IMS-SAMPLE, IMS-SAMPLE-RS]: the client-bid has C0 = SD+SE, SRVresynch 80 = SD, the
// transaction D0 = SD+SE+AP.
namespace prefix {
inline constexpr std::uint8_t state_data = 0x80;        // [I]
inline constexpr std::uint8_t security_data = 0x40;     // [I]
inline constexpr std::uint8_t user_data = 0x20;         // [I]: the only bit left
inline constexpr std::uint8_t application_data = 0x10;  // [I]
inline constexpr std::uint8_t sections_mask = state_data | security_data | user_data | application_data;
}  // namespace prefix

struct mci {
  std::uint8_t architecture_level = architecture_level_1;  // +0  [C]
  std::uint8_t message_type = 0;                           // +1  msg_type:: bits [C]
  std::uint8_t response_flag = 0;                          // +2  response:: bits [C]
  std::uint8_t commit_confirmation = 0;                    // +3  commit:: values [R]
  std::uint8_t command_type = 0;                           // +4  command:: values
  std::uint8_t processing_flags = 0;                       // +5  processing:: bits [?]/[D]
  ebcdic_name<8> tpipe_name;                               // +6  [C-hex: IMS-SAMPLE]
  std::uint8_t chain_flags = chain::single;                // +14 chain:: bits [R]
  // +15 [I]. encode_message() sets the four section bits from the sections present; the low four
  // bits are kept as given.
  std::uint8_t prefix_flags = 0;
  std::uint32_t send_seq = 0;         // +16 send-sequence number [C]
  std::uint16_t sense_code = 0;       // +20 NAK sense code, offset [I] (sense.hpp)
  std::uint16_t reason_code = 0;      // +22 NAK reason code, offset [I]
  std::uint32_t recoverable_seq = 0;  // +24 recoverable sequence number, offset [I]; 0 = not recoverable
  std::uint16_t segment_seq = 0;      // +28 segment sequence number, value [C-hex: IMS-SAMPLE-RS], name [I]
  // +30 meaning unknown [?]: X'0400' in the client-bid sample, X'0000' elsewhere; copied as-is.
  std::uint16_t reserved = 0;

  bool is(std::uint8_t type_bit) const noexcept { return (message_type & type_bit) != 0; }
  bool is_command() const noexcept { return is(msg_type::command); }
  bool is_response() const noexcept { return is(msg_type::response); }
  bool is_ack() const noexcept { return is_response() && (response_flag & response::ack) != 0; }
  bool is_nak() const noexcept { return is_response() && (response_flag & response::nak) != 0; }
  bool response_requested() const noexcept { return (response_flag & response::requested) != 0; }
  bool has(std::uint8_t prefix_bit) const noexcept { return (prefix_flags & prefix_bit) != 0; }
};

namespace mci_names {
inline constexpr layout::value_name message_type[] = {{msg_type::data, "data"},
                                                      {msg_type::transaction, "transaction"},
                                                      {msg_type::response, "response"},
                                                      {msg_type::command, "command"},
                                                      {msg_type::commit_confirmation, "commit_confirmation"},
                                                      {msg_type::sync_program_switch, "sync_program_switch"}};
inline constexpr layout::value_name response_flag[] = {
    {response::ack, "ack"},
    {response::nak, "nak"},
    {response::requested, "response_requested"},
    {response::extended_requested, "extended_response_requested"},
    {response::callout_response, "callout_response"},
    {response::delayed_ack_nak, "delayed_ack_nak"}};
inline constexpr layout::value_name commit_confirmation[] = {{commit::committed, "committed"},
                                                             {commit::aborted, "aborted"}};
inline constexpr layout::value_name command_type[] = {
    {command::client_bid, "client_bid"},
    {command::server_available, "server_available"},
    {command::cbresynch, "cbresynch"},
    {command::suspend, "suspend"},
    {command::resume_processing, "resume_processing"},
    {command::resume_output_tpipe, "resume_output_tpipe"},
    {command::resume_hold_queue, "resume_hold_queue"},
    {command::srvresynch, "srvresynch"},
    {command::reqresynch, "reqresynch"},
    {command::represynch, "represynch"},
    {command::tbresynch, "tbresynch"},
    {command::server_state, "server_state"},
    {command::no_msgs_on_hold_queue, "no_msgs_on_hold_queue"}};
inline constexpr layout::value_name processing_flags[] = {
    {processing::synchronized_tpipe, "synchronized_tpipe"},
    {processing::async_output, "async_output"},
    {processing::error_message_follows, "error_message_follows"}};
inline constexpr layout::value_name chain_flags[] = {
    {chain::first, "first"}, {chain::middle, "middle"}, {chain::last, "last"}, {chain::discard, "discard"}};
inline constexpr layout::value_name prefix_flags[] = {{prefix::state_data, "state_data"},
                                                      {prefix::security_data, "security_data"},
                                                      {prefix::user_data, "user_data"},
                                                      {prefix::application_data, "application_data"}};
}  // namespace mci_names

// Every byte of the MCI, once [C: IMS-MCI, ICON-MCI].
inline constexpr auto mci_layout = std::make_tuple(
    layout::make("architecture_level", 0, &mci::architecture_level),
    layout::make("message_type", 1, &mci::message_type, layout::kind::flags,
                 layout::names_of(mci_names::message_type)),
    layout::make("response_flag", 2, &mci::response_flag, layout::kind::flags,
                 layout::names_of(mci_names::response_flag)),
    layout::make("commit_confirmation", 3, &mci::commit_confirmation, layout::kind::flags,
                 layout::names_of(mci_names::commit_confirmation)),
    layout::make("command_type", 4, &mci::command_type, layout::kind::code,
                 layout::names_of(mci_names::command_type)),
    layout::make("processing_flags", 5, &mci::processing_flags, layout::kind::flags,
                 layout::names_of(mci_names::processing_flags)),
    layout::make("tpipe_name", 6, &mci::tpipe_name, layout::kind::name),
    layout::make("chain_flags", 14, &mci::chain_flags, layout::kind::flags,
                 layout::names_of(mci_names::chain_flags)),
    layout::make("prefix_flags", 15, &mci::prefix_flags, layout::kind::flags,
                 layout::names_of(mci_names::prefix_flags)),
    layout::make("send_seq", 16, &mci::send_seq), layout::make("sense_code", 20, &mci::sense_code),
    layout::make("reason_code", 22, &mci::reason_code),
    layout::make("recoverable_seq", 24, &mci::recoverable_seq),
    layout::make("segment_seq", 28, &mci::segment_seq), layout::make("reserved", 30, &mci::reserved));
static_assert(layout::tiled_end(mci_layout, 0) == mci_size, "the MCI table must cover its 32 bytes exactly");

inline bool operator==(const mci& a, const mci& b) noexcept { return layout::equal(mci_layout, a, b); }
inline bool operator!=(const mci& a, const mci& b) noexcept { return !(a == b); }

// The name of a protocol command type ("client_bid"), or "" when unknown.
std::string_view command_name(std::uint8_t command_type) noexcept;

}  // namespace imsb::otma
