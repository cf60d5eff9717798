#include "imsb/otma/layout.hpp"

#include <string>

#include "imsb/otma/mci.hpp"

namespace imsb::otma {
namespace layout {

namespace {
// The low `size` (1 to 4) bytes of `value`, as they stand on the wire (big-endian), in hex.
std::string hex_digits(std::uint32_t value, std::size_t size) {
  std::uint8_t wire[4];
  store_u32(wire, value, byte_order::big);
  return to_hex(bytes_view(wire + 4 - size, size));
}
}  // namespace

std::string format_number(std::uint32_t value, std::size_t size, bool is_signed) {
  std::string decimal = is_signed ? std::to_string(static_cast<std::int32_t>(value)) : std::to_string(value);
  return decimal + " (X'" + hex_digits(value, size) + "')";
}

std::string format_byte(std::uint8_t value) { return "X'" + hex_digits(value, 1) + "'"; }

std::string name_flags(std::uint32_t value, value_names labels) {
  std::string s;
  std::uint32_t named = 0;
  for (const value_name& v : labels) {
    if ((value & v.value) == v.value && v.value != 0) {
      if (!s.empty()) s += '+';
      s += v.name;
      named |= v.value;
    }
  }
  if (std::uint32_t rest = value & ~named; rest != 0) {
    if (!s.empty()) s += '+';
    s += "X'" + hex_digits(rest, 1) + "'";
  }
  return s;
}

std::string_view name_code(std::uint32_t value, value_names labels) noexcept {
  for (const value_name& v : labels) {
    if (v.value == value) return v.name;
  }
  return {};
}

std::string quote(const std::string& text_819) {
  std::string s = "'";
  for (char c : text_819) s += (static_cast<unsigned char>(c) < 0x20) ? '.' : c;
  return s + "'";
}

}  // namespace layout

std::string_view command_name(std::uint8_t command_type) noexcept {
  return layout::name_code(command_type, layout::names_of(mci_names::command_type));
}

}  // namespace imsb::otma
