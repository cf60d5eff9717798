#include "imsb/core/bytes.hpp"

#include "imsb/core/result.hpp"

namespace imsb {

std::string to_hex(bytes_view b, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (std::uint8_t c : b) {
    s.push_back(digits[c >> 4]);
    s.push_back(digits[c & 0x0F]);
  }
  return s;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

bool from_hex(std::string_view text, bytes& out) {
  bytes result;
  int pending = -1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {  // comment to end of line
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '|') continue;
    int v = hex_value(c);
    if (v < 0) return false;
    if (pending < 0) {
      pending = v;
    } else {
      result.push_back(static_cast<std::uint8_t>((pending << 4) | v));
      pending = -1;
    }
  }
  if (pending >= 0) return false;
  out = std::move(result);
  return true;
}

std::string decode_error::to_string() const {
  std::string s = field + " at offset " + std::to_string(offset) + ": " + detail;
  if (code) s += " (" + code.message() + ")";
  return s;
}

}  // namespace imsb
