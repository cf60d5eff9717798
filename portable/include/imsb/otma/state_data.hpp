#pragma once
// The state-data section (DSECT TMAMHDR): one layout per kind of message, chosen by MCI+1 and MCI+4
// [C: IMS-SD]. Each fixed layout is a table (layout.hpp); bytes past the fixed part are kept raw in
// `extension`, and a variant the codec does not know is kept whole in raw_state_data, so no byte is ever lost
// and every decoded section re-encodes exactly.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/layout.hpp"
#include "imsb/otma/mci.hpp"

namespace imsb::otma {

inline constexpr std::size_t section_length_size = 2;  // every section's LL counts itself [C: IMS-SD-TXN]

// --- transaction / output state data [C: IMS-SD-TXN] ----------------------------------------------
// Known IBM offsets: 0 length [C], 2 server state [C], 3 sync flags [C existence, R values],
// 5 flags (X'20' reroute [C]), 62 reroute tpipe [C]. Everything else is the [D] emulator/bridge layout
// (docs/design/otma.md), used until the real DSECT is checked.
inline constexpr std::size_t transaction_state_size = 70;  // X'0046' [D]

namespace server_state {
inline constexpr std::uint8_t conversational = 0x80;       // [C] both sides, conversational data
inline constexpr std::uint8_t cm0_dfs2082 = 0x40;          // [C] TMAMHRSP: DFS2082 if no IOPCB reply
inline constexpr std::uint8_t from_hold_queue = 0x20;      // [C] set on CM0 output, echoed in the ACK
inline constexpr std::uint8_t hold_queue_capable = 0x10;   // [C-partial]
inline constexpr std::uint8_t rerouted = 0x08;             // [C-partial]
inline constexpr std::uint8_t cm1_timeout = 0x04;          // [C-partial]
inline constexpr std::uint8_t transaction_expired = 0x02;  // [C-partial]
}  // namespace server_state

namespace sync_flags {
inline constexpr std::uint8_t commit_then_send = 0x40;    // CM0 [R]
inline constexpr std::uint8_t send_then_commit = 0x20;    // CM1 [R]
inline constexpr std::uint8_t sync_level_none = 0x00;     // [R]
inline constexpr std::uint8_t sync_level_confirm = 0x01;  // [R]
inline constexpr std::uint8_t sync_level_syncpt = 0x02;   // [R]
inline constexpr std::uint8_t sync_level_mask = 0x03;
}  // namespace sync_flags

namespace txn_flags {                                  // state-data byte 4 [D]
inline constexpr std::uint8_t ignore_purg = 0x80;      // [D] MQIIH_IGNORE_PURG
inline constexpr std::uint8_t pass_expiration = 0x40;  // [D] MQIIH_PASS_EXPIRATION
}  // namespace txn_flags

namespace route_flags {                                      // state-data byte 5
inline constexpr std::uint8_t reroute_request = 0x20;        // [C] TMAMHRRQ
inline constexpr std::uint8_t purge_not_deliverable = 0x10;  // [D] (TMAMPCM0 exists, bit [?])
}  // namespace route_flags

struct transaction_state_data {
  std::uint8_t server_state = 0;  // +2  [C]
  // +3 values [R]. CM0 (our default, as MQ's: MQICM_COMMIT_THEN_SEND [C: IIH-COMMIT]) supports only
  // sync level CONFIRM [C: TC-2021].
  std::uint8_t sync_flags = sync_flags::commit_then_send | sync_flags::sync_level_confirm;
  std::uint8_t txn_flags = 0;         // +4  [D]
  std::uint8_t route_flags = 0;       // +5  [C] X'20', others [D]
  std::uint16_t cm1_timeout = 0;      // +6  seconds, 0 = server default [D]
  ebcdic_name<8> lterm_override;      // +8  blank = none [D]
  ebcdic_name<8> modname;             // +16 MFS map name [D]
  raw_bytes<16> client_correlator{};  // +24 echoed unchanged [D]
  raw_bytes<16> server_token{};       // +40 conversation ID (MQIIH TranInstanceId) [D]
  std::int32_t expiration = -1;       // +56 tenths of a second, -1 = none [D]
  std::uint16_t reserved = 0;         // +60 [D]
  ebcdic_name<8> reroute_tpipe;       // +62 [C offset]
  bytes extension;                    // +70.. kept raw

  std::uint8_t commit_mode_bits() const noexcept { return sync_flags & 0x60; }
  std::uint8_t sync_level() const noexcept { return sync_flags & sync_flags::sync_level_mask; }
};

// --- client-bid and CBresynch [C: IMS-SD-CB, IMS-SAMPLE] ------------------------------------------
inline constexpr std::size_t client_bid_state_size = 54;  // X'0036' [C-hex: IMS-SAMPLE]; 2+16+8+8+8+2+1+1+4+4

namespace client_bid_flags {  // byte 44, OMHDRQUE [C]
inline constexpr std::uint8_t hold_queue = 0x80;
inline constexpr std::uint8_t otma_ci = 0x40;
inline constexpr std::uint8_t ims_connect = 0x20;  // OMHDRICN
inline constexpr std::uint8_t ibm_mq = 0x10;       // OMHDRCMQ: reserved for IBM MQ
inline constexpr std::uint8_t sync_program_switch = 0x08;
}  // namespace client_bid_flags

namespace client_bid_flags2 {                       // byte 45, OMHDRFL2 [C]
inline constexpr std::uint8_t tib_limit = 0x80;     // OMHDRMXI with OMHDRTIB
inline constexpr std::uint8_t cm1_timeout = 0x20;   // OMHDRTMO
inline constexpr std::uint8_t rrs_cascade = 0x10;   // OMHDRCSC
inline constexpr std::uint8_t super_member = 0x08;  // OMHDRSMI
}  // namespace client_bid_flags2

inline constexpr std::size_t multirtp_offset = 64;  // TMAMHFG3 [C: IMS-MULTIRTP]
inline constexpr std::uint8_t multirtp_flag = 0x80;

struct client_bid_state_data {
  ebcdic_name<16> member_name;        // +2  XCF member of the originator [C]
  raw_bytes<8> originator_token{};    // +18 [C]
  raw_bytes<8> destination_token{};   // +26 [C]
  ebcdic_name<8> dru_exit_name;       // +34 client-bid only [C]
  std::uint16_t max_blocksize = 0;    // +42 OMHDRMBS, units unknown [C]
  std::uint8_t flags = 0;             // +44 client_bid_flags:: [C]
  std::uint8_t flags2 = 0;            // +45 client_bid_flags2:: [C]
  std::uint32_t acee_aging = 0;       // +46 seconds; order [C], offset [I]
  std::uint32_t hash_table_size = 0;  // +50 order [C], offset [I]
  // +54.. optional extensions (TIB limit, CM1 timeout, super-member name: offsets [?]), kept raw.
  bytes extension;

  // TMAMHFG3 X'80' at state-data byte 64: parallel RESUME TPIPE (MULTIRTP) [C].
  bool multirtp() const noexcept {
    std::size_t i = multirtp_offset - client_bid_state_size;
    return extension.size() > i && (extension[i] & multirtp_flag) != 0;
  }
};

// --- server-available ----------------------------------------------------------------------------
// "For server-available the layout is the same up to byte 34; IMS fills in its own member name and
// token" [I]. Past byte 34 nothing is known (the client-bid's DRU exit, MaxBlocksize, flags, aging
// value and hash-table size are a client's parameters), so a section of 34 bytes is whole and
// whatever follows is kept raw.
inline constexpr std::size_t server_available_state_size = 34;

struct server_available_state_data {
  ebcdic_name<16> member_name;       // +2  IMS's XCF member name [I]
  raw_bytes<8> originator_token{};   // +18 IMS's token [I]
  raw_bytes<8> destination_token{};  // +26 [I]
  bytes extension;                   // +34.. [?], kept raw
};

// --- server state protocol command X'3C' [C: IMS-SD-SS] -------------------------------------------
inline constexpr std::size_t server_state_size = 4;

namespace server_status {  // TMAMRSIM_STATUS [C]
inline constexpr std::uint16_t unavailable = 0x01;
inline constexpr std::uint16_t degraded = 0x02;
inline constexpr std::uint16_t normal = 0x03;
}  // namespace server_status

struct server_state_data {
  std::uint16_t status = server_status::normal;  // +2 [C]
  bytes extension;                               // +4.. resource-specific data [?], kept raw
};

// --- resynchronization [C: IMS-SD-SRV, IMS-SD-REQ, IMS-SD-REP, IMS-SD-TB] -------------------------
// SRVresynch: the list of synchronized tpipe names [C: IMS-SD-SRV].
struct srvresynch_state_data {
  std::vector<ebcdic_name<8>> tpipe_names;  // +2, 8 bytes each
};

inline constexpr std::size_t reqresynch_size = 26;  // [C: IMS-SD-REQ]

struct reqresynch_state_data {
  ebcdic_name<8> tpipe_name;          // +2
  std::uint32_t ims_send_seq = 0;     // +10 IMS recoverable send-sequence number
  std::uint32_t ims_receive_seq = 0;  // +14 IMS recoverable receive-sequence number
  std::uint8_t tpipe_flag1 = 0;       // +18 reserved
  std::uint8_t tpipe_flag2 = 0;       // +19 reserved
  raw_bytes<6> reserved{};            // +20
  bytes extension;                    // +26.. kept raw
};

namespace represynch_action {  // REPresynch tpipe flag 1 [C: IMS-SD-REP, partial]
inline constexpr std::uint8_t continue_tpipe = 0x00;
inline constexpr std::uint8_t dequeue_last_output = 0x04;
inline constexpr std::uint8_t reset_sequence_numbers = 0x08;
inline constexpr std::uint8_t stop_tpipe = 0x0C;
inline constexpr std::uint8_t stop_and_wait_tbresynch = 0x10;
}  // namespace represynch_action

// Bytes 0–18 are IBM's [C: IMS-SD-REP]; what follows is [?], so a section that ends after tpipe
// flag 1 is whole and the rest is kept raw.
inline constexpr std::size_t represynch_size = 19;
// What we send after byte 18: flag 2 and 6 reserved bytes, zeros, mirroring REQresynch [I], so that
// our REPresynch is as long as IMS's REQresynch (26 bytes).
inline constexpr std::size_t represynch_mirrored_tail_size = 7;

struct represynch_state_data {
  ebcdic_name<8> tpipe_name;             // +2
  std::uint32_t client_send_seq = 0;     // +10 client recoverable send-sequence number
  std::uint32_t client_receive_seq = 0;  // +14 client recoverable receive-sequence number
  std::uint8_t tpipe_flag1 = represynch_action::continue_tpipe;  // +18 [C]
  bytes extension = bytes(represynch_mirrored_tail_size, 0);     // +19.. [?]/[I], kept raw
};

inline constexpr std::size_t tbresynch_size = 10;  // [C: IMS-SD-TB]

struct tbresynch_state_data {
  ebcdic_name<8> tpipe_name;  // +2
  bytes extension;            // +10.. kept raw
};

// --- anything else (suspend, resume output, unknown commands, message type 0) -------------------
struct raw_state_data {
  bytes body;  // the section without its length field
};

// The variant index order is state_data_kind's.
using state_data = std::variant<raw_state_data, transaction_state_data, client_bid_state_data,
                                server_available_state_data, server_state_data, srvresynch_state_data,
                                reqresynch_state_data, represynch_state_data, tbresynch_state_data>;

enum class state_data_kind : std::uint8_t {
  raw,
  transaction,
  client_bid,
  server_available,
  server_state,
  srvresynch,
  reqresynch,
  represynch,
  tbresynch,
};
static_assert(static_cast<std::size_t>(state_data_kind::tbresynch) + 1 == std::variant_size_v<state_data>,
              "one state_data_kind per variant, in the variant's order");

// Which layout the state data of a message with this MCI has (chosen by MCI+1 and MCI+4 [C: IMS-SD]).
state_data_kind state_data_kind_for(const mci& m) noexcept;
inline state_data_kind kind_of(const state_data& sd) noexcept {
  return static_cast<state_data_kind>(sd.index());
}
std::string_view to_string(state_data_kind k) noexcept;

// --- the layout tables (offsets count the section's length field) --------------------------------
inline constexpr auto transaction_state_layout = std::make_tuple(
    layout::make("server_state", 2, &transaction_state_data::server_state, layout::kind::flags),
    layout::make("sync_flags", 3, &transaction_state_data::sync_flags, layout::kind::flags),
    layout::make("txn_flags", 4, &transaction_state_data::txn_flags, layout::kind::flags),
    layout::make("route_flags", 5, &transaction_state_data::route_flags, layout::kind::flags),
    layout::make("cm1_timeout", 6, &transaction_state_data::cm1_timeout),
    layout::make("lterm_override", 8, &transaction_state_data::lterm_override, layout::kind::name),
    layout::make("modname", 16, &transaction_state_data::modname, layout::kind::name),
    layout::make("client_correlator", 24, &transaction_state_data::client_correlator, layout::kind::raw),
    layout::make("server_token", 40, &transaction_state_data::server_token, layout::kind::raw),
    layout::make("expiration", 56, &transaction_state_data::expiration),
    layout::make("reserved", 60, &transaction_state_data::reserved),
    layout::make("reroute_tpipe", 62, &transaction_state_data::reroute_tpipe, layout::kind::name));
static_assert(layout::tiled_end(transaction_state_layout, 2) == transaction_state_size);

inline constexpr auto client_bid_state_layout = std::make_tuple(
    layout::make("member_name", 2, &client_bid_state_data::member_name, layout::kind::name),
    layout::make("originator_token", 18, &client_bid_state_data::originator_token, layout::kind::raw),
    layout::make("destination_token", 26, &client_bid_state_data::destination_token, layout::kind::raw),
    layout::make("dru_exit_name", 34, &client_bid_state_data::dru_exit_name, layout::kind::name),
    layout::make("max_blocksize", 42, &client_bid_state_data::max_blocksize),
    layout::make("flags", 44, &client_bid_state_data::flags, layout::kind::flags),
    layout::make("flags2", 45, &client_bid_state_data::flags2, layout::kind::flags),
    layout::make("acee_aging", 46, &client_bid_state_data::acee_aging),
    layout::make("hash_table_size", 50, &client_bid_state_data::hash_table_size));
static_assert(layout::tiled_end(client_bid_state_layout, 2) == client_bid_state_size);

inline constexpr auto server_available_state_layout = std::make_tuple(
    layout::make("member_name", 2, &server_available_state_data::member_name, layout::kind::name),
    layout::make("originator_token", 18, &server_available_state_data::originator_token, layout::kind::raw),
    layout::make("destination_token", 26, &server_available_state_data::destination_token,
                 layout::kind::raw));
static_assert(layout::tiled_end(server_available_state_layout, 2) == server_available_state_size);

inline constexpr auto server_state_layout =
    std::make_tuple(layout::make("status", 2, &server_state_data::status));
static_assert(layout::tiled_end(server_state_layout, 2) == server_state_size);

inline constexpr auto reqresynch_layout =
    std::make_tuple(layout::make("tpipe_name", 2, &reqresynch_state_data::tpipe_name, layout::kind::name),
                    layout::make("ims_send_seq", 10, &reqresynch_state_data::ims_send_seq),
                    layout::make("ims_receive_seq", 14, &reqresynch_state_data::ims_receive_seq),
                    layout::make("tpipe_flag1", 18, &reqresynch_state_data::tpipe_flag1, layout::kind::flags),
                    layout::make("tpipe_flag2", 19, &reqresynch_state_data::tpipe_flag2, layout::kind::flags),
                    layout::make("reserved", 20, &reqresynch_state_data::reserved, layout::kind::raw));
static_assert(layout::tiled_end(reqresynch_layout, 2) == reqresynch_size);

namespace represynch_names {
inline constexpr layout::value_name action[] = {
    {represynch_action::continue_tpipe, "continue"},
    {represynch_action::dequeue_last_output, "dequeue_last_output"},
    {represynch_action::reset_sequence_numbers, "reset_sequence_numbers"},
    {represynch_action::stop_tpipe, "stop_tpipe"},
    {represynch_action::stop_and_wait_tbresynch, "stop_and_wait_tbresynch"}};
}

inline constexpr auto represynch_layout =
    std::make_tuple(layout::make("tpipe_name", 2, &represynch_state_data::tpipe_name, layout::kind::name),
                    layout::make("client_send_seq", 10, &represynch_state_data::client_send_seq),
                    layout::make("client_receive_seq", 14, &represynch_state_data::client_receive_seq),
                    layout::make("tpipe_flag1", 18, &represynch_state_data::tpipe_flag1, layout::kind::code,
                                 layout::names_of(represynch_names::action)));
static_assert(layout::tiled_end(represynch_layout, 2) == represynch_size);

inline constexpr auto tbresynch_layout =
    std::make_tuple(layout::make("tpipe_name", 2, &tbresynch_state_data::tpipe_name, layout::kind::name));
static_assert(layout::tiled_end(tbresynch_layout, 2) == tbresynch_size);

bool operator==(const transaction_state_data& a, const transaction_state_data& b) noexcept;
bool operator==(const client_bid_state_data& a, const client_bid_state_data& b) noexcept;
bool operator==(const server_available_state_data& a, const server_available_state_data& b) noexcept;
bool operator==(const server_state_data& a, const server_state_data& b) noexcept;
bool operator==(const srvresynch_state_data& a, const srvresynch_state_data& b) noexcept;
bool operator==(const reqresynch_state_data& a, const reqresynch_state_data& b) noexcept;
bool operator==(const represynch_state_data& a, const represynch_state_data& b) noexcept;
bool operator==(const tbresynch_state_data& a, const tbresynch_state_data& b) noexcept;
bool operator==(const raw_state_data& a, const raw_state_data& b) noexcept;
inline bool operator!=(const transaction_state_data& a, const transaction_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const client_bid_state_data& a, const client_bid_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const server_available_state_data& a, const server_available_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const server_state_data& a, const server_state_data& b) noexcept { return !(a == b); }
inline bool operator!=(const srvresynch_state_data& a, const srvresynch_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const reqresynch_state_data& a, const reqresynch_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const represynch_state_data& a, const represynch_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const tbresynch_state_data& a, const tbresynch_state_data& b) noexcept {
  return !(a == b);
}
inline bool operator!=(const raw_state_data& a, const raw_state_data& b) noexcept { return !(a == b); }

// --- section codec --------------------------------------------------------------------------------
// `section` is the whole section, its length field included, and section.size() equals that length
// (decode_message checks it). `offset` is where the section starts in the buffer, for errors.
result<state_data> decode_state_data(bytes_view section, state_data_kind kind, std::size_t offset);
// The encoded size of the section, its length field included.
std::size_t encoded_size(const state_data& sd) noexcept;
// Why `sd` cannot be encoded as the state data of a message whose MCI calls for `expected`
// (state_data_kind_for), or nothing: a variant other than `expected` (the decoder would read its
// bytes in another layout), a section over 65535 bytes, or bytes decode_state_data would refuse.
std::optional<decode_error> check_state_data(const state_data& sd, state_data_kind expected,
                                             std::size_t offset);
void append_state_data(const state_data& sd, bytes& out);
// One printed_field per field, the length field included.
void print_state_data(const state_data& sd, std::size_t offset, std::vector<printed_field>& out);

}  // namespace imsb::otma
