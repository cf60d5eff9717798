#include "codec_detail.hpp"

#include <utility>

#include "imsb/mq/codes.hpp"

namespace imsb::mq::detail {
namespace {

// EBCDIC of the characters StrucIds are made of; -1 for anything else.
int ebcdic_of(char c) noexcept {
  if (c == ' ') return 0x40;
  if (c >= 'A' && c <= 'I') return 0xC1 + (c - 'A');
  if (c >= 'J' && c <= 'R') return 0xD1 + (c - 'J');
  if (c >= 'S' && c <= 'Z') return 0xE2 + (c - 'S');
  return -1;
}

bool is_ascii_id_byte(std::uint8_t b) noexcept { return b == 0x20 || (b >= 'A' && b <= 'Z'); }
bool is_ebcdic_id_byte(std::uint8_t b) noexcept {
  return b == 0x40 || (b >= 0xC1 && b <= 0xC9) || (b >= 0xD1 && b <= 0xD9) || (b >= 0xE2 && b <= 0xE9);
}

std::string hex_of(bytes_view b) { return "X'" + to_hex(b) + "'"; }

std::string ebcdic_hex(std::string_view s) {
  bytes b;
  for (char c : s) b.push_back(static_cast<std::uint8_t>(ebcdic_of(c)));
  return hex_of(b);
}

}  // namespace

family struc_id_family(bytes_view id, std::string_view expected) noexcept {
  if (id.size() < expected.size()) return family::unknown;
  bool ascii = true;
  bool ebcdic = true;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (id[i] != static_cast<std::uint8_t>(expected[i])) ascii = false;
    if (id[i] != ebcdic_of(expected[i])) ebcdic = false;
  }
  return ascii ? family::ascii : ebcdic ? family::ebcdic : family::unknown;
}

family family_of_struc_id(bytes_view id) noexcept {
  if (id.size() < 4) return family::unknown;
  bool ascii = true;
  bool ebcdic = true;
  for (std::size_t i = 0; i < 4; ++i) {
    ascii = ascii && is_ascii_id_byte(id[i]);
    ebcdic = ebcdic && is_ebcdic_id_byte(id[i]);
  }
  // A blank-only id (X'20' vs X'40') cannot be both, so at most one of these holds.
  return ascii ? family::ascii : ebcdic ? family::ebcdic : family::unknown;
}

std::int32_t chars_ccsid(family f, std::int32_t ccsid) noexcept {
  const bool usable = codepage::supported(ccsid);
  switch (f) {
    case family::ascii:
      return usable && !codepage::is_ebcdic(ccsid) ? ccsid : codepage::ccsid_819;
    case family::ebcdic:
      return usable && codepage::is_ebcdic(ccsid) ? ccsid : codepage::ccsid_037;
    case family::unknown:
      break;
  }
  return usable ? ccsid : codepage::ccsid_819;
}

std::int32_t write_ccsid(std::int32_t ccsid) noexcept {
  return codepage::supported(ccsid) ? ccsid : codepage::ccsid_819;
}

decode_error field_error(const layout& l, std::string_view field, std::string detail, std::int32_t rc,
                         std::string_view prefix, std::size_t base) {
  const field_desc* f = find_field(l, field);
  decode_error e;
  e.code = make_mqrc(rc);
  e.field = std::string(prefix.empty() ? l.struc_name : prefix) + "." + std::string(field);
  e.offset = base + (f != nullptr ? f->offset : 0);
  e.detail = std::move(detail);
  return e;
}

decode_error short_buffer(const layout& l, std::size_t size, std::int32_t rc, std::string_view prefix,
                          std::size_t base) {
  std::string_view first_missing = l.count > 0 ? l.fields[0].name : std::string_view("StrucId");
  for (const field_desc& f : l) {
    if (std::size_t{f.offset} + f.length > size) {
      first_missing = f.name;
      break;
    }
  }
  return field_error(l, first_missing,
                     "buffer ends after " + std::to_string(size) + " bytes; " + std::string(l.struc_name) +
                         " needs " + std::to_string(l.length),
                     rc, prefix, base);
}

result<header_start> read_header_start(const layout& l, bytes_view in, std::string_view expected,
                                       byte_order order, std::int32_t rc, std::string_view prefix,
                                       std::size_t base) {
  if (in.size() < 4) return short_buffer(l, in.size(), rc, prefix, base);
  header_start h;
  h.fam = struc_id_family(in.sub(0, 4), expected);
  if (h.fam == family::unknown) {
    return field_error(l, "StrucId",
                       "is " + hex_of(in.sub(0, 4)) + ", must be '" + std::string(expected) + "' (" +
                           hex_of(bytes_view::of(expected)) + " ASCII or " + ebcdic_hex(expected) +
                           " EBCDIC)",
                       rc, prefix, base);
  }
  if (in.size() < 8) return short_buffer(l, in.size(), rc, prefix, base);
  h.version = load_i32(in.data() + 4, order);
  return h;
}

}  // namespace imsb::mq::detail
