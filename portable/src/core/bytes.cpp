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

bool from_hex(std::string_view text, bytes& out) { return from_hex(text, out, nullptr); }

bool from_hex(std::string_view text, bytes& out, hex_error* error) {
  // Where character `at` is, for the error; counted only when there is one.
  const auto fail = [&](std::size_t at, std::string reason) {
    if (error == nullptr) return false;
    error->offset = at;
    error->line = 1;
    std::size_t line_start = 0;
    for (std::size_t k = 0; k < at; ++k) {
      if (text[k] == '\n') {
        ++error->line;
        line_start = k + 1;
      }
    }
    error->column = at - line_start + 1;
    error->reason = std::move(reason);
    return false;
  };
  bytes result;
  int pending = -1;
  std::size_t pending_at = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {  // comment to end of line
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '|') continue;
    int v = hex_value(c);
    if (v < 0) {
      const auto u = static_cast<std::uint8_t>(c);
      const std::uint8_t byte[1] = {u};
      return fail(i, (u >= 0x20 && u < 0x7F ? "'" + std::string(1, c) + "'"
                                            : "byte X'" + to_hex(bytes_view(byte, 1)) + "'") +
                         " is not a hex digit");
    }
    if (pending < 0) {
      pending = v;
      pending_at = i;
    } else {
      result.push_back(static_cast<std::uint8_t>((pending << 4) | v));
      pending = -1;
    }
  }
  if (pending >= 0)
    return fail(pending_at, "odd number of hex digits (" + std::to_string(2 * result.size() + 1) + ")");
  out = std::move(result);
  return true;
}

std::string decode_error::to_string() const {
  std::string s = field + " at offset " + std::to_string(offset) + ": " + detail;
  if (code) s += " (" + code.message() + ")";
  return s;
}

}  // namespace imsb
