#pragma once
// Byte views and explicit byte order. Wire structures are encoded field by field with an explicit
// byte order; never memcpy a host struct (docs/design/rules.md).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace imsb {

using bytes = std::vector<std::uint8_t>;

// A read-only view of bytes (C++17 has no std::span).
class bytes_view {
 public:
  constexpr bytes_view() noexcept = default;
  constexpr bytes_view(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
  bytes_view(const bytes& b) noexcept : data_(b.data()), size_(b.size()) {}  // NOLINT(implicit)
  static bytes_view of(std::string_view s) noexcept {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
  }

  constexpr const std::uint8_t* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr std::uint8_t operator[](std::size_t i) const noexcept { return data_[i]; }
  constexpr const std::uint8_t* begin() const noexcept { return data_; }
  constexpr const std::uint8_t* end() const noexcept { return data_ + size_; }
  // Clamped sub-view: never reads past the end.
  constexpr bytes_view sub(std::size_t off, std::size_t len = static_cast<std::size_t>(-1)) const noexcept {
    if (off > size_) off = size_;
    if (len > size_ - off) len = size_ - off;
    return {data_ + off, len};
  }
  bytes to_bytes() const { return bytes(begin(), end()); }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

enum class byte_order : std::uint8_t { big, little };

// MQ Encoding → integer byte order: Encoding & MQENC_INTEGER_MASK (0x0F): 1 normal (big-endian),
// 2 reversed (little-endian) [C: MQENC-TABLE]. Anything else is undefined: callers report it.
constexpr bool encoding_integer_known(std::int32_t encoding) noexcept {
  return (encoding & 0x0F) == 1 || (encoding & 0x0F) == 2;
}
constexpr byte_order integer_order(std::int32_t encoding) noexcept {
  return (encoding & 0x0F) == 2 ? byte_order::little : byte_order::big;
}

constexpr std::uint16_t load_u16(const std::uint8_t* p, byte_order o) noexcept {
  return o == byte_order::big ? static_cast<std::uint16_t>((p[0] << 8) | p[1])
                              : static_cast<std::uint16_t>((p[1] << 8) | p[0]);
}
constexpr std::uint32_t load_u32(const std::uint8_t* p, byte_order o) noexcept {
  return o == byte_order::big
             ? (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3]
             : (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) | p[0];
}
constexpr std::int16_t load_i16(const std::uint8_t* p, byte_order o) noexcept {
  return static_cast<std::int16_t>(load_u16(p, o));
}
constexpr std::int32_t load_i32(const std::uint8_t* p, byte_order o) noexcept {
  return static_cast<std::int32_t>(load_u32(p, o));
}
constexpr void store_u16(std::uint8_t* p, std::uint16_t v, byte_order o) noexcept {
  if (o == byte_order::big) {
    p[0] = static_cast<std::uint8_t>(v >> 8);
    p[1] = static_cast<std::uint8_t>(v);
  } else {
    p[1] = static_cast<std::uint8_t>(v >> 8);
    p[0] = static_cast<std::uint8_t>(v);
  }
}
constexpr void store_u32(std::uint8_t* p, std::uint32_t v, byte_order o) noexcept {
  if (o == byte_order::big) {
    p[0] = static_cast<std::uint8_t>(v >> 24);
    p[1] = static_cast<std::uint8_t>(v >> 16);
    p[2] = static_cast<std::uint8_t>(v >> 8);
    p[3] = static_cast<std::uint8_t>(v);
  } else {
    p[3] = static_cast<std::uint8_t>(v >> 24);
    p[2] = static_cast<std::uint8_t>(v >> 16);
    p[1] = static_cast<std::uint8_t>(v >> 8);
    p[0] = static_cast<std::uint8_t>(v);
  }
}
constexpr void store_i16(std::uint8_t* p, std::int16_t v, byte_order o) noexcept {
  store_u16(p, static_cast<std::uint16_t>(v), o);
}
constexpr void store_i32(std::uint8_t* p, std::int32_t v, byte_order o) noexcept {
  store_u32(p, static_cast<std::uint32_t>(v), o);
}

// Hex helpers for listings, tests and error messages.
std::string to_hex(bytes_view b, bool upper = true);
// Parses hex text; whitespace (blank, tab, CR, LF), '|' and line comments starting with '#' are
// ignored. Returns false, leaving `out` untouched, on an odd digit count or any other character.
bool from_hex(std::string_view text, bytes& out);

// Where from_hex stopped: the first character it does not accept or, for an odd number of digits,
// the last digit (the one without a partner).
struct hex_error {
  std::size_t offset = 0;  // of that character in the text
  std::size_t line = 1;    // 1-based; lines end with LF
  std::size_t column = 1;  // 1-based, in bytes from the start of the line
  std::string reason;      // "'g' is not a hex digit", "byte X'0C' is not a hex digit",
                           // "odd number of hex digits (3)"
};
// The same, and on failure `*error` (when not null) says where and why.
bool from_hex(std::string_view text, bytes& out, hex_error* error);

}  // namespace imsb
