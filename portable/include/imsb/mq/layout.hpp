#pragma once
// The wire layout of each MQ header structure, declared once as a table: the encoders, decoders, the printer
// (mqdump) and the golden tests all read these tables, so an offset lives in exactly one place. Field names
// are IBM's (StrucId, Version, Report, MsgType, ...).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"

namespace imsb::mq {

enum class field_kind {
  mqlong,  // 4-byte signed integer in the byte order of the structure's Encoding
  mqchar,  // MQCHARn: characters in the structure's CCSID, blank padded
  mqbyte,  // MQBYTEn: binary, never converted
  mqmd1,   // an embedded version-1 MQMD (MQXQH.MsgDesc)
};

struct field_desc {
  std::string_view name;  // IBM's field name
  std::uint16_t offset;
  std::uint16_t length;
  field_kind kind;
};

struct layout {
  std::string_view struc_name;  // "MQMD", "MQIIH", "MQDLH", "MQXQH"
  const field_desc* fields;
  std::size_t count;
  std::size_t length;  // total length of the structure

  const field_desc* begin() const noexcept { return fields; }
  const field_desc* end() const noexcept { return fields + count; }
};

// version 2 (or higher) gives the 364-byte MQMD, anything else the 324-byte version 1.
const layout& mqmd_layout(int version);
const layout& mqiih_layout();
const layout& mqdlh_layout();
const layout& mqxqh_layout();

// nullptr when the layout has no such field.
const field_desc* find_field(const layout& l, std::string_view name) noexcept;

// One decoded field, for printers: every field of a structure, whatever its kind.
struct field_value {
  const field_desc* desc = nullptr;
  std::int32_t number = 0;  // mqlong fields
  std::string text;         // mqchar fields, as CCSID 819 text, padding kept
  bytes raw;                // the field's bytes as they are in the buffer (all kinds)
};

// Decodes every field of `l` that lies wholly inside `in` (a short buffer gives the fields that fit).
// `encoding` gives the byte order of mqlong fields; `ccsid` the character set of mqchar fields, except
// that a StrucId in the other character family (ASCII vs EBCDIC) wins, as in the typed decoders.
std::vector<field_value> decode_fields(const layout& l, bytes_view in, std::int32_t encoding,
                                       std::int32_t ccsid);

}  // namespace imsb::mq
