#pragma once
// The bridge's state records (docs/design/state-queue.md; docs/design/commit-modes.md, CM0 steps 4–7 [D]):
// persistent messages on the state queue SYSTEM.IMS.BRIDGE.STATE, so the same design works on any queue
// manager. Each record is one message whose CorrelId is its key (key_of); an update is "get the old one by
// CorrelId, put the new one" in the caller's unit of work. This header is the pure codec: bytes ↔ records,
// keys, Tpipe names.
//
// Record kinds [D]:
//  - tpipe assignment: bridge queue name → its number (assigned once, kept forever): key "A" + number.
//  - send record of a synchronized Tpipe: last input IMS ACKed. key "S" + tpipe.
//  - receive record of a synchronized Tpipe: last output committed. key "R" + tpipe.
//  - in-flight record: (tpipe, n+1, the request's message token). key "F" + tpipe.
//  - CM1 marker: (tpipe, the request's token), committed before a CM1 send, cleared in the reply's
//    unit of work; one found at restart is a request whose outcome is unknown. key "M" + token hex(12).
//  - stopped Tpipe (IMB2020E / IMB2003E until RESET TPIPE): key "X" + tpipe.
// Body: "IMSBST01" (8 bytes ASCII), kind (1 byte), then fields big-endian / blank-padded ASCII, fixed per
// kind. The record carries XCF group and member so one state queue serves every partner.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"

namespace imsb::bridgemap {

inline constexpr std::string_view state_queue_name = "SYSTEM.IMS.BRIDGE.STATE";

enum class record_kind : std::uint8_t {
  assignment = 'A',
  send = 'S',
  receive = 'R',
  in_flight = 'F',
  cm1_marker = 'M',
  stopped = 'X',
};

using token16 = std::array<std::uint8_t, 16>;
using correl24 = std::array<std::uint8_t, 24>;

struct state_record {
  record_kind kind = record_kind::assignment;
  std::string xcf_group;     // ≤ 8
  std::string xcf_member;    // ≤ 16 (the IMS partner)
  std::string tpipe;         // ≤ 8; empty for assignment
  std::string queue;         // ≤ 48: assignment (the bridge queue), in_flight / cm1_marker (its queue)
  std::uint32_t number = 0;  // assignment: the queue's number; send/receive/in_flight: the sequence number
  token16 token{};           // in_flight, cm1_marker
  std::string reason;        // stopped: why (≤ 120, for DISPLAY)

  friend bool operator==(const state_record& a, const state_record& b);
};

// The CorrelId that names a record: 24 bytes, ASCII, blank padded: kind letter, then for A the number
// (8 digits), for S/R/F/X the group '.' member '.' tpipe cut to fit, for M the group's first 3 characters
// + token hex (20 chars). Two records with the same key are the same record.
correl24 key_of(const state_record& r);

bytes encode_record(const state_record& r);
// Errors: make_mqrc(MQRC_FORMAT_ERROR) naming "STATE.<field>" and its offset: bad eyecatcher, unknown
// kind, short body, a name field with characters outside the MQ name set.
result<state_record> decode_record(bytes_view body);

// Tpipe names [D] (docs/design/tpipes.md): prefix (1–4 characters, default "CSQ") + the queue's number in
// base 36 (digits then A–Z, uppercase, at least one digit) + 'S' (synchronized) or 'N', 8 characters at most:
// with prefix "CSQ" numbers 1 .. 36^4-1. Errors: make_mqrc(MQRC_STORAGE_CLASS_ERROR) (2105) when the number
// does not fit or the prefix is not 1–4 characters of A–Z, 0–9, @, $ (OTMA's name characters).
result<std::string> tpipe_name(std::string_view prefix, std::uint32_t number, bool synchronized);
// The inverse: nullopt when `tpipe` is not one of ours for `prefix`.
struct tpipe_parts {
  std::uint32_t number = 0;
  bool synchronized = false;
};
std::optional<tpipe_parts> parse_tpipe_name(std::string_view prefix, std::string_view tpipe);

}  // namespace imsb::bridgemap
