#pragma once
// Our signed UTOKEN for Linux [D] (docs/design/otma.md): the 80 bytes the bridge puts in the security-data
// UTOKEN subfield (`X'51' X'00'` + 80) where z/OS would carry a RACF UTOKEN from RACROUTE REQUEST=TOKENBLD.
// Only the layout lives here (pure, big-endian safe); the HMAC-SHA256 is computed in transport/
// (transport/include/imsb/transport/utoken.hpp, OpenSSL), with a key the bridge and the emulator share.
//
// Layout [D] (all integers big-endian, as everything on the OTMA wire [C: IMS-SAMPLE]):
//   +0   1  X'50'   the token's length (80), as a RACF UTOKEN starts [C-hex: IMS-SAMPLE]: `50 01 ...`
//   +1   1  X'C9'   our version byte; RACF writes a small version number there (X'01'), never X'C9', so
//                   a real RACF token is told apart from ours [D]
//   +2   8  user ID, EBCDIC 037, blank padded (as the user-ID subfield [C: ICON-SEC])
//   +10  8  group (RACF group), EBCDIC 037, blank padded; all blanks when none
//   +18  8  issued-at, seconds since 1970-01-01 UTC
//   +26  4  valid-for, seconds after issued-at
//   +30  8  nonce, chosen by the signer (makes two tokens of the same second differ)
//   +38 32  HMAC-SHA256 tag over bytes +0..+37 (the "signed part")
//   +70 10  X'00' padding
// The signed part includes bytes 0 and 1, so a token cannot be replayed under another version.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"

namespace imsb::otma {

namespace utoken_layout {
inline constexpr std::size_t size = 80;             // [C: IMS-SEC] a UTOKEN is 80 bytes
inline constexpr std::uint8_t length_byte = 0x50;   // byte 0: 80
inline constexpr std::uint8_t version_byte = 0xC9;  // byte 1: ours [D]
inline constexpr std::size_t user_id_offset = 2;
inline constexpr std::size_t group_offset = 10;
inline constexpr std::size_t name_size = 8;
inline constexpr std::size_t issued_at_offset = 18;
inline constexpr std::size_t valid_for_offset = 26;
inline constexpr std::size_t nonce_offset = 30;
inline constexpr std::size_t tag_offset = 38;
inline constexpr std::size_t tag_size = 32;  // HMAC-SHA256
inline constexpr std::size_t padding_offset = tag_offset + tag_size;
inline constexpr std::size_t signed_size = tag_offset;  // bytes +0..+37
}  // namespace utoken_layout

struct utoken_fields {
  // CCSID 819 text. encode: MQCHARn semantics (a NUL ends the value, blanks after, cut at 8);
  // decode: the 8 characters, padding included.
  std::string user_id;
  std::string group;
  std::uint64_t issued_at = 0;  // seconds since the epoch
  std::uint32_t valid_for = 0;  // seconds
  std::uint64_t nonce = 0;
};

struct decoded_utoken {
  utoken_fields fields;
  std::array<std::uint8_t, utoken_layout::tag_size> tag{};
  bytes signed_part;  // the bytes the tag covers, as they came
};

// The bytes the HMAC covers (utoken_layout::signed_size of them) for these fields.
bytes utoken_signed_part(const utoken_fields& fields);
// The 80-byte token: signed part, tag, zero padding. `tag32` gives the tag's 32 bytes; a shorter view is
// zero filled and a longer one cut (callers pass an HMAC-SHA256 result, always 32).
bytes encode_utoken(const utoken_fields& fields, bytes_view tag32);
// Errors (sense X'0005' security violation, the answer a bad token gets [D], sense.hpp) name the field and
// its offset in `token`: UTOKEN.length (not 80 bytes), UTOKEN.length_byte (+0 not X'50'),
// UTOKEN.version (+1 not X'C9'), UTOKEN.user_id / UTOKEN.group (a name that would not re-encode to the
// same bytes, e.g. holding a NUL), UTOKEN.padding (not zeros). Whatever it accepts, encode_utoken gives
// back byte for byte.
result<decoded_utoken> decode_utoken(bytes_view token);

}  // namespace imsb::otma
