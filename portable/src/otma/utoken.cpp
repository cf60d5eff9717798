#include "imsb/otma/utoken.hpp"

#include <algorithm>

#include "imsb/codepage/codepage.hpp"
#include "imsb/otma/layout.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::otma {

namespace {

namespace L = utoken_layout;

void store_u64(std::uint8_t* p, std::uint64_t v) {
  store_u32(p, static_cast<std::uint32_t>(v >> 32), byte_order::big);
  store_u32(p + 4, static_cast<std::uint32_t>(v), byte_order::big);
}

std::uint64_t load_u64(const std::uint8_t* p) {
  return std::uint64_t{load_u32(p, byte_order::big)} << 32 | load_u32(p + 4, byte_order::big);
}

// A bad token is answered as a security violation, not a prefix error: the prefix itself is well formed
// (sense X'0005' [D], docs/design/otma.md).
decode_error token_error(std::string field, std::size_t offset, std::string detail) {
  return decode_error{make_sense(sense::security_violation), std::move(field), offset, std::move(detail)};
}

std::string hex_byte(std::uint8_t b) { return "X'" + to_hex(bytes_view(&b, 1)) + "'"; }

// The name field as text, or an error when the text would not encode back to these bytes: encode
// uses MQCHARn semantics, so a NUL (or anything after one) cannot survive the round trip.
result<std::string> name_at(bytes_view token, std::size_t offset, const char* field) {
  const bytes_view raw = token.sub(offset, L::name_size);
  std::string text = codepage::get_field(raw, name_ccsid);
  std::array<std::uint8_t, L::name_size> again{};
  codepage::put_field(again.data(), again.size(), text, name_ccsid);
  const auto diff = std::mismatch(raw.begin(), raw.end(), again.begin());
  if (diff.first != raw.end()) {
    const auto at = static_cast<std::size_t>(diff.first - raw.begin());
    return token_error(field, offset + at,
                       "byte " + hex_byte(*diff.first) + " cannot be part of an EBCDIC blank-padded name");
  }
  return text;
}

}  // namespace

bytes utoken_signed_part(const utoken_fields& fields) {
  bytes b(L::signed_size);
  b[0] = L::length_byte;
  b[1] = L::version_byte;
  codepage::put_field(b.data() + L::user_id_offset, L::name_size, fields.user_id, name_ccsid);
  codepage::put_field(b.data() + L::group_offset, L::name_size, fields.group, name_ccsid);
  store_u64(b.data() + L::issued_at_offset, fields.issued_at);
  store_u32(b.data() + L::valid_for_offset, fields.valid_for, byte_order::big);
  store_u64(b.data() + L::nonce_offset, fields.nonce);
  return b;
}

bytes encode_utoken(const utoken_fields& fields, bytes_view tag32) {
  bytes b = utoken_signed_part(fields);
  b.resize(L::size, 0);
  const bytes_view tag = tag32.sub(0, L::tag_size);
  std::copy(tag.begin(), tag.end(), b.begin() + L::tag_offset);
  return b;
}

result<decoded_utoken> decode_utoken(bytes_view token) {
  if (token.size() != L::size) {
    return token_error("UTOKEN.length", 0,
                       std::to_string(token.size()) + " bytes; a UTOKEN is " + std::to_string(L::size));
  }
  if (token[0] != L::length_byte) {
    return token_error("UTOKEN.length_byte", 0,
                       hex_byte(token[0]) + "; our UTOKEN starts with X'50' (its length, 80)");
  }
  if (token[1] != L::version_byte) {
    return token_error("UTOKEN.version", 1,
                       hex_byte(token[1]) + "; ours is X'C9' (anything else: a RACF or unknown token)");
  }
  for (std::size_t i = L::padding_offset; i < L::size; ++i) {
    if (token[i] != 0) return token_error("UTOKEN.padding", i, hex_byte(token[i]) + "; must be X'00'");
  }
  decoded_utoken d;
  auto user = name_at(token, L::user_id_offset, "UTOKEN.user_id");
  if (!user) return user.error();
  auto group = name_at(token, L::group_offset, "UTOKEN.group");
  if (!group) return group.error();
  d.fields.user_id = std::move(*user);
  d.fields.group = std::move(*group);
  d.fields.issued_at = load_u64(token.data() + L::issued_at_offset);
  d.fields.valid_for = load_u32(token.data() + L::valid_for_offset, byte_order::big);
  d.fields.nonce = load_u64(token.data() + L::nonce_offset);
  std::copy_n(token.data() + L::tag_offset, L::tag_size, d.tag.begin());
  d.signed_part = token.sub(0, L::signed_size).to_bytes();
  return d;
}

}  // namespace imsb::otma
