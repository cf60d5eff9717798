#pragma once
// The security-data section (DSECT TMAMSEC, IMS Connect HWSOMSEC) [C: IMS-SEC, ICON-SEC]:
//   +0 length(2, counts itself)  +2 flag  +3 reserved (the subfields' length)  +4 subfields: len(1)
//   type(1) data
// where a subfield's len counts type + data but not itself [C-hex: IMS-SAMPLE, the client-bid's
// `52 | 51 00` + 80].

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/layout.hpp"

namespace imsb::otma {

namespace security_flag {                    // OMSECFLG, EBCDIC letters [C]
inline constexpr std::uint8_t none = 0xD5;   // C'N': no RACF checking
inline constexpr std::uint8_t check = 0xC3;  // C'C': transaction and command authorization
inline constexpr std::uint8_t full = 0xC6;   // C'F': check + ACEE in the dependent region
}  // namespace security_flag

namespace security_type {                                 // subfield types
inline constexpr std::uint8_t utoken = 0x00;              // [C] RACF UTOKEN, up to 80 bytes
inline constexpr std::uint8_t user_id = 0x02;             // [C] EBCDIC, blank padded, up to 8
inline constexpr std::uint8_t profile = 0x03;             // [C] RACF group, up to 8
inline constexpr std::uint8_t network_user_id = 0x04;     // [C] existence; length [?]
inline constexpr std::uint8_t network_session_id = 0x05;  // [I] value; existence [C]
}  // namespace security_type

inline constexpr std::size_t security_header_size = 4;   // length, flag, subfield length
inline constexpr std::size_t max_utoken_size = 80;       // [C]
inline constexpr std::size_t max_user_id_size = 8;       // [C]
inline constexpr std::size_t max_profile_size = 8;       // [C]
inline constexpr std::size_t max_subfields_size = 0xFF;  // what byte 3 (OMSECFLN, one byte) can count

struct security_subfield {
  std::uint8_t type = security_type::user_id;
  bytes data;  // raw: EBCDIC for user ID and profile, opaque for the UTOKEN and unknown types

  friend bool operator==(const security_subfield& a, const security_subfield& b) {
    return a.type == b.type && a.data == b.data;
  }
  friend bool operator!=(const security_subfield& a, const security_subfield& b) { return !(a == b); }
};

struct security_data {
  std::uint8_t flag = security_flag::check;
  std::vector<security_subfield> subfields;  // in wire order; unknown types kept as they came
  // Byte 3 (OMSECFLN). IMS calls it "reserved" [C: IMS-SEC]; IMS Connect writes the subfields' length there
  // (X'0A' for a user ID, X'14' for user ID + group [C: ICON-SEC]), as IBM's client-bid sample does (X'52'
  // [C-hex: IMS-SAMPLE]). Nothing: written that way, as subfields_size(). The decoder keeps the byte it read,
  // whatever its value (the subfields are found by the section length), so that a section re-encodes exactly.
  std::optional<std::uint8_t> subfield_length;

  // The first subfield of a type, or nullptr.
  const security_subfield* find(std::uint8_t type) const noexcept;

  // User ID and profile as CCSID 819 text without trailing blanks; nothing if absent.
  std::optional<std::string> user_id() const;
  std::optional<std::string> profile() const;
  std::optional<bytes_view> utoken() const;

  // Replace (or add) the subfield: names are written as 8 EBCDIC bytes, blank padded, as IMS Connect
  // does (len X'09' [C: ICON-SEC]); a longer name is cut at 8 (MQCHARn semantics).
  void set_user_id(std::string_view text_819);
  void set_profile(std::string_view text_819);
  void set_utoken(bytes_view token);

  std::size_t subfields_size() const noexcept;  // bytes of subfields: byte 3 as IMS Connect writes it
  // The byte 3 encode writes: subfield_length if given, else subfields_size() (which check_security_data
  // then requires to fit in a byte).
  std::uint8_t subfield_length_byte() const noexcept {
    return subfield_length.value_or(static_cast<std::uint8_t>(subfields_size()));
  }
  std::size_t encoded_size() const noexcept { return security_header_size + subfields_size(); }

  // Equal when they encode to the same bytes (byte 3 compared as written).
  friend bool operator==(const security_data& a, const security_data& b) {
    return a.flag == b.flag && a.subfields == b.subfields &&
           a.subfield_length_byte() == b.subfield_length_byte();
  }
  friend bool operator!=(const security_data& a, const security_data& b) { return !(a == b); }
};

// `section` is the whole section (length field included, section.size() == its length). The subfields
// must fill it exactly, each within IBM's maximum for its type; byte 3 may hold anything (kept in
// subfield_length).
result<security_data> decode_security_data(bytes_view section, std::size_t offset);
// Why `se` cannot be encoded, or nothing: a subfield over its type's maximum, subfields over 255
// bytes with no explicit subfield_length, a section over 65535 bytes.
std::optional<decode_error> check_security_data(const security_data& se, std::size_t offset);
void append_security_data(const security_data& se, bytes& out);
void print_security_data(const security_data& se, std::size_t offset, std::vector<printed_field>& out);

}  // namespace imsb::otma
