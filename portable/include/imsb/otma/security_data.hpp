#pragma once
// The security-data section (DSECT TMAMSEC, IMS Connect HWSOMSEC), spec/otma-xcf.md §1.6:
//   +0 length(2, counts itself)  +2 flag  +3 length of the subfields  +4 subfields: len(1) type(1) data
// where a subfield's len counts type + data but not itself [C-hex: the client-bid's `52 | 51 00` + 80].

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
inline constexpr std::size_t max_subfields_size = 0xFF;  // OMSECFLN is one byte

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

  // The first subfield of a type, or nullptr.
  const security_subfield* find(std::uint8_t type) const noexcept;

  // User ID and profile as CCSID 819 text without trailing blanks; nothing if absent.
  std::optional<std::string> user_id() const;
  std::optional<std::string> profile() const;
  std::optional<bytes_view> utoken() const;

  // Replace (or add) the subfield: names are written as 8 EBCDIC bytes, blank padded, as IMS Connect
  // does (len X'09', §1.6 [C]); a longer name is cut at 8 (MQCHARn semantics).
  void set_user_id(std::string_view text_819);
  void set_profile(std::string_view text_819);
  void set_utoken(bytes_view token);

  std::size_t subfields_size() const noexcept;  // the value of byte 3
  std::size_t encoded_size() const noexcept { return security_header_size + subfields_size(); }

  friend bool operator==(const security_data& a, const security_data& b) {
    return a.flag == b.flag && a.subfields == b.subfields;
  }
  friend bool operator!=(const security_data& a, const security_data& b) { return !(a == b); }
};

// `section` is the whole section (length field included, section.size() == its length); checks
// that the subfield-length byte and every subfield length agree with the section length.
result<security_data> decode_security_data(bytes_view section, std::size_t offset);
std::optional<decode_error> check_security_data(const security_data& se, std::size_t offset);
void append_security_data(const security_data& se, bytes& out);
void print_security_data(const security_data& se, std::size_t offset, std::vector<printed_field>& out);

}  // namespace imsb::otma
