#pragma once
// Character conversion between the EBCDIC code pages IMS installations use (037, 500, 1047, 1140)
// and ISO 8859-1 (819) / UTF-8 (1208). Tables are glibc iconv's (scripts/gen-codepage-vectors);
// for 1047 we follow glibc's LF mapping (U+000A <-> X'25'), not z/OS's X'15' [D]
// (docs/design/character-data.md).
//
// A character that cannot be represented in the target becomes the target's substitute character
// (X'3F' in EBCDIC, X'1A' in 819, U+FFFD in UTF-8) and is counted, so that callers can report
// MQRC_NOT_CONVERTED (2119) instead of silently replacing it (docs/design/character-data.md).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/core/bytes.hpp"

namespace imsb::codepage {

inline constexpr std::int32_t ccsid_037 = 37;
inline constexpr std::int32_t ccsid_500 = 500;
inline constexpr std::int32_t ccsid_1047 = 1047;
inline constexpr std::int32_t ccsid_1140 = 1140;
inline constexpr std::int32_t ccsid_819 = 819;    // ISO 8859-1, the host text of decoded fields
inline constexpr std::int32_t ccsid_1208 = 1208;  // UTF-8

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

bool supported(std::int32_t ccsid) noexcept;
bool is_ebcdic(std::int32_t ccsid) noexcept;
// The single-byte substitute character of a single-byte CCSID (X'3F' EBCDIC, X'1A' ASCII).
std::uint8_t substitute(std::int32_t ccsid) noexcept;
// The blank (space) of a CCSID: X'40' in EBCDIC, X'20' otherwise.
std::uint8_t blank(std::int32_t ccsid) noexcept;

struct conversion {
  bytes out;
  std::size_t substitutions = 0;        // characters that had no mapping (or malformed UTF-8 input)
  std::size_t first_bad_offset = npos;  // input byte offset of the first of them
  bool unsupported = false;             // one of the CCSIDs is not supported: out is empty
  bool ok() const noexcept { return !unsupported && substitutions == 0; }
};

// Converts text from one supported CCSID to another.
conversion convert(bytes_view in, std::int32_t from_ccsid, std::int32_t to_ccsid);

// Single code points, for tables and tests. Returns -1 when not mappable / not supported.
std::int32_t to_unicode(std::uint8_t byte, std::int32_t sbcs_ccsid) noexcept;
int from_unicode(std::uint32_t code_point, std::int32_t sbcs_ccsid) noexcept;

// --- Fixed-length character fields (MQCHARn; OTMA names) --------------------------------------
// Decoded fields are held as CCSID 819 text, one byte per character, padding included, so that a
// decoded structure re-encodes to the same bytes.
std::string get_field(bytes_view field, std::int32_t ccsid);
// MQCHARn semantics on encode: the value is converted to `ccsid`; a NUL ends the value and the rest
// of the n bytes are blanks; a longer value is cut at n bytes.
void put_field(std::uint8_t* dst, std::size_t n, std::string_view value_819, std::int32_t ccsid);
// The logical value of a field: up to the first NUL, without trailing blanks.
std::string_view field_value(std::string_view raw_819) noexcept;
// Pads (or cuts) a value to n characters with blanks, MQCHARn style.
std::string pad_field(std::string_view value, std::size_t n);

// Conversions of host text for display: ISO 8859-1 -> UTF-8.
std::string latin1_to_utf8(std::string_view latin1);

}  // namespace imsb::codepage
