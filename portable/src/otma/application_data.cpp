#include "imsb/otma/application_data.hpp"

#include <string>

#include "format_error.hpp"

namespace imsb::otma {

using detail::format_error;
using detail::num;

std::size_t application_data::encoded_size() const noexcept {
  std::size_t n = 0;
  for (const auto& s : segments) n += s.encoded_size();
  return n;
}

result<application_data> decode_application_data(bytes_view section, std::size_t offset,
                                                 std::size_t first_index) {
  if (section.empty()) {  // [C: IMS-APP]: application data is "one or more IMS segments"
    return format_error("OTMA.application_data.segment[" + num(first_index) + "].LL", offset,
                        "the prefix flags say application data follows, but the buffer ends here; "
                        "application data is one or more IMS segments");
  }
  application_data ap;
  std::size_t pos = 0;
  for (std::size_t i = first_index; pos < section.size(); ++i) {
    const std::string field = "OTMA.application_data.segment[" + num(i) + "]";
    if (section.size() - pos < llzz_size) {
      return format_error(field + ".LL", offset + pos,
                          num(section.size() - pos) + " bytes left after the last segment; LLZZ needs 4");
    }
    const std::size_t ll = load_u16(section.data() + pos, byte_order::big);
    if (ll < llzz_size) {
      return format_error(field + ".LL", offset + pos, "LL " + num(ll) + " is less than 4 (LL counts LLZZ)");
    }
    if (ll > max_segment_size) {  // [C: IMS-APP]
      return format_error(field + ".LL", offset + pos,
                          "LL " + num(ll) + " exceeds the 32767-byte segment limit");
    }
    if (ll > section.size() - pos) {
      return format_error(field + ".LL", offset + pos,
                          "LL " + num(ll) + " runs past the end of the buffer (" + num(section.size() - pos) +
                              " bytes left)");
    }
    segment s;
    s.zz = load_u16(section.data() + pos + 2, byte_order::big);
    s.data = section.sub(pos + llzz_size, ll - llzz_size).to_bytes();
    ap.segments.push_back(std::move(s));
    pos += ll;
  }
  return ap;
}

std::optional<decode_error> check_application_data(const application_data& ap, std::size_t offset) {
  if (ap.segments.empty()) {  // [C: IMS-APP]: "one or more IMS segments"; decode refuses the flag alone
    return format_error("OTMA.application_data", offset,
                        "no segments; application data is one or more IMS segments (leave it out instead)");
  }
  std::size_t pos = offset;
  for (std::size_t i = 0; i < ap.segments.size(); ++i) {
    const std::size_t ll = ap.segments[i].encoded_size();
    if (ll > max_segment_size) {
      return format_error("OTMA.application_data.segment[" + num(i) + "].LL", pos,
                          "LL " + num(ll) + " exceeds the 32767-byte segment limit");
    }
    pos += ll;
  }
  return std::nullopt;
}

void append_application_data(const application_data& ap, bytes& out) {
  for (const auto& s : ap.segments) {
    const std::size_t base = out.size();
    out.resize(base + llzz_size);
    store_u16(out.data() + base, static_cast<std::uint16_t>(s.encoded_size()), byte_order::big);
    store_u16(out.data() + base + 2, s.zz, byte_order::big);
    out.insert(out.end(), s.data.begin(), s.data.end());
  }
}

}  // namespace imsb::otma
