#include "codec_detail.hpp"

#include <utility>

#include "imsb/mq/codes.hpp"

namespace imsb::mq::detail {
namespace {

std::string hex_of(bytes_view b) { return "X'" + to_hex(b) + "'"; }

std::string ebcdic_hex(std::string_view s) {
  bytes b;
  for (char c : s) {
    b.push_back(static_cast<std::uint8_t>(
        codepage::from_unicode(static_cast<unsigned char>(c), codepage::ccsid_037)));
  }
  return hex_of(b);
}

// The family in which each of the first n bytes of `id` is a character `accept(i, c)` takes. The
// capital letters and blank StrucIds are made of have the same EBCDIC code points in 037, 500, 1047
// and 1140, so 037 stands for them all; no byte is such a character in both families (X'20'/X'40',
// X'41'../X'C1'..), so at most one family matches.
template <class Accept>
family family_where(bytes_view id, std::size_t n, Accept accept) noexcept {
  if (id.size() < n) return family::unknown;
  for (family f : {family::ascii, family::ebcdic}) {
    const std::int32_t ccsid = f == family::ascii ? codepage::ccsid_819 : codepage::ccsid_037;
    bool all = true;
    for (std::size_t i = 0; i < n && all; ++i) all = accept(i, codepage::to_unicode(id[i], ccsid));
    if (all) return f;
  }
  return family::unknown;
}

}  // namespace

family struc_id_family(bytes_view id, std::string_view expected) noexcept {
  return family_where(id, expected.size(), [expected](std::size_t i, std::int32_t c) {
    return c == static_cast<unsigned char>(expected[i]);
  });
}

family family_of_struc_id(bytes_view id) noexcept {
  return family_where(id, 4, [](std::size_t, std::int32_t c) { return c == ' ' || (c >= 'A' && c <= 'Z'); });
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
