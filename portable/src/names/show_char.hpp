#pragma once
// Private to component names: how a reason text shows one character.

#include <cstdint>
#include <string>

#include "imsb/core/bytes.hpp"

namespace imsb::names::detail {

// Printable ASCII quoted ("'A'"), a blank as "a blank", anything else in hex as z/OS people write it
// ("X'0A'").
inline std::string show_char(char c) {
  const auto u = static_cast<std::uint8_t>(c);
  if (u >= 0x21 && u < 0x7F) return std::string("'") + c + "'";
  if (u == 0x20) return "a blank";
  return "X'" + to_hex(bytes_view(&u, 1)) + "'";
}

}  // namespace imsb::names::detail
