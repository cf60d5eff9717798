#pragma once
// Helpers shared by the OTMA codec tests.

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/otma/message.hpp"

namespace imsb::otma {
// Readable failure output: one line per field (gtest finds it by ADL).
inline void PrintTo(const otma_message& m, std::ostream* os) {
  for (const auto& f : describe(m)) {
    *os << "\n  " << f.offset << " " << f.name << " = " << f.value;
    if (!f.note.empty()) *os << " " << f.note;
  }
}
}  // namespace imsb::otma

namespace imsb::otma::test {

inline bytes hex(std::string_view text) {
  bytes b;
  EXPECT_TRUE(from_hex(text, b)) << "bad hex in test: " << text;
  return b;
}

// ISO 8859-1 text -> EBCDIC 037 bytes.
inline bytes ebcdic(std::string_view text) {
  return codepage::convert(bytes_view::of(text), codepage::ccsid_819, codepage::ccsid_037).out;
}

inline bytes encode_ok(const otma_message& m) {
  auto r = encode_message(m);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : bytes{};
}

inline otma_message decode_ok(bytes_view b) {
  auto r = decode_message(b);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : otma_message{};
}

inline std::string field_of(const result<otma_message>& r) { return r.ok() ? "<decoded>" : r.error().field; }

inline std::uint16_t u16_at(const bytes& b, std::size_t off) {
  return load_u16(b.data() + off, byte_order::big);
}
inline std::uint32_t u32_at(const bytes& b, std::size_t off) {
  return load_u32(b.data() + off, byte_order::big);
}
inline bytes slice(const bytes& b, std::size_t off, std::size_t len) {
  return bytes_view(b).sub(off, len).to_bytes();
}

// A command message whose state data has the given kind's layout.
inline otma_message command_message(std::uint8_t command_type) {
  otma_message m;
  m.mci.message_type = msg_type::command;
  m.mci.response_flag = response::requested;
  m.mci.command_type = command_type;
  return m;
}

}  // namespace imsb::otma::test
