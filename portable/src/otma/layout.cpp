#include "imsb/otma/layout.hpp"

#include <string>

#include "imsb/otma/mci.hpp"

namespace imsb::otma {
namespace layout {

namespace {
std::string hex_digits(std::uint32_t value, std::size_t size) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s(size * 2, '0');
  for (std::size_t i = s.size(); i-- > 0; value >>= 4) s[i] = digits[value & 0x0F];
  return s;
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

std::string name_code(std::uint32_t value, value_names labels) {
  for (const value_name& v : labels) {
    if (v.value == value) return std::string(v.name);
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
  for (const layout::value_name& v : mci_names::command_type) {
    if (v.value == command_type) return v.name;
  }
  return {};
}

}  // namespace imsb::otma
