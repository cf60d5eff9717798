#pragma once
// Helpers for the MQ structure tests. The expected bytes are built here by hand (shifts and a small
// EBCDIC table), not with the codecs or the codepage library under test, so that a golden test is an
// independent check. Nothing here depends on the host's byte order.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/layout.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::mq::test {

// The two representations every structure is tested in: Linux x86 (little-endian, ASCII/819) and
// z/OS (big-endian, EBCDIC/037).
struct wire {
  const char* name;
  std::int32_t encoding;
  std::int32_t ccsid;
  bool big_endian;
  bool ebcdic;
};
inline constexpr wire linux_819{"546/819", 546, 819, false, false};
inline constexpr wire zos_037{"785/037", 785, 37, true, true};
inline constexpr wire wires[] = {linux_819, zos_037};

// CCSID 037 for the characters the tests use (IBM's code page chart).
inline std::uint8_t ebcdic_037(char c) {
  if (c >= 'A' && c <= 'I') return static_cast<std::uint8_t>(0xC1 + (c - 'A'));
  if (c >= 'J' && c <= 'R') return static_cast<std::uint8_t>(0xD1 + (c - 'J'));
  if (c >= 'S' && c <= 'Z') return static_cast<std::uint8_t>(0xE2 + (c - 'S'));
  if (c >= 'a' && c <= 'i') return static_cast<std::uint8_t>(0x81 + (c - 'a'));
  if (c >= 'j' && c <= 'r') return static_cast<std::uint8_t>(0x91 + (c - 'j'));
  if (c >= 's' && c <= 'z') return static_cast<std::uint8_t>(0xA2 + (c - 's'));
  if (c >= '0' && c <= '9') return static_cast<std::uint8_t>(0xF0 + (c - '0'));
  switch (c) {
    case ' ':
      return 0x40;
    case '.':
      return 0x4B;
    case '_':
      return 0x6D;
    case '-':
      return 0x60;
    case '/':
      return 0x61;
    case '*':
      return 0x5C;
    case '\0':
      return 0x00;
    default:
      break;
  }
  ADD_FAILURE() << "test table has no EBCDIC for '" << c << "'";
  return 0x3F;
}

// The bytes of an MQCHARn field holding `text`, blank padded to n.
inline bytes chars(std::string_view text, std::size_t n, const wire& w) {
  bytes out;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    out.push_back(w.ebcdic ? ebcdic_037(c) : static_cast<std::uint8_t>(c));
  }
  return out;
}

inline bytes long_bytes(std::uint32_t v, const wire& w) {
  const bytes be{static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
                 static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
  return w.big_endian ? be : bytes{be[3], be[2], be[1], be[0]};
}

inline std::string hex_at(const bytes& b, std::size_t off, std::size_t len) {
  if (off + len > b.size()) return "<past end: " + std::to_string(b.size()) + " bytes>";
  return to_hex(bytes_view(b.data() + off, len));
}

inline void expect_long(const bytes& b, std::size_t off, std::int32_t v, const wire& w, const char* field) {
  EXPECT_EQ(hex_at(b, off, 4), to_hex(long_bytes(static_cast<std::uint32_t>(v), w)))
      << field << " at offset " << off << " (" << w.name << ")";
}

inline void expect_chars(const bytes& b, std::size_t off, std::size_t n, std::string_view text, const wire& w,
                         const char* field) {
  EXPECT_EQ(hex_at(b, off, n), to_hex(chars(text, n, w)))
      << field << " at offset " << off << " (" << w.name << ")";
}

template <std::size_t N>
inline void expect_raw(const bytes& b, std::size_t off, const std::array<std::uint8_t, N>& v,
                       const char* field) {
  EXPECT_EQ(hex_at(b, off, N), to_hex(bytes_view(v.data(), N))) << field << " at offset " << off;
}

// A value that differs in every byte position, so a swapped or shifted field shows.
inline std::int32_t distinct(std::uint32_t seed) {
  return static_cast<std::int32_t>(0x0A000000u | ((seed & 0xFFu) << 16) | 0x00005A00u | (seed & 0x7Fu));
}

template <std::size_t N>
inline std::array<std::uint8_t, N> byte_pattern(std::uint8_t first) {
  std::array<std::uint8_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<std::uint8_t>(first + 3 * i);
  return a;
}

// Seeded generator for the round-trip properties: std::mt19937's sequence is fixed by the standard,
// and the helpers below use only its raw output, so every platform sees the same values.
class random_values {
 public:
  explicit random_values(std::uint32_t seed) : gen_(seed) {}
  std::uint32_t next() { return static_cast<std::uint32_t>(gen_()); }
  std::int32_t any_long() { return static_cast<std::int32_t>(next()); }
  std::uint32_t below(std::uint32_t n) { return next() % n; }
  // n characters that CCSID 037 and 819 both represent one to one: Latin-1 without NUL (a NUL ends
  // an MQCHARn value, so it does not survive encoding by design).
  std::string text(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(1 + below(255)));
    return s;
  }
  char one_char() { return text(1)[0]; }
  template <std::size_t N>
  std::array<std::uint8_t, N> raw() {
    std::array<std::uint8_t, N> a{};
    for (auto& b : a) b = static_cast<std::uint8_t>(next());
    return a;
  }

 private:
  std::mt19937 gen_;
};

// An MQMD with random values in every field of `version` (1 or 2); the version-2 fields of a
// version-1 MQMD keep their defaults. Characters as random_values::text, so they round-trip.
inline mqmd random_mqmd(random_values& rnd, std::int32_t version) {
  mqmd md;
  md.version = version;
  md.report = rnd.any_long();
  md.msg_type = rnd.any_long();
  md.expiry = rnd.any_long();
  md.feedback = rnd.any_long();
  md.encoding = rnd.any_long();
  md.coded_char_set_id = rnd.any_long();
  md.format = rnd.text(8);
  md.priority = rnd.any_long();
  md.persistence = rnd.any_long();
  md.msg_id = rnd.raw<24>();
  md.correl_id = rnd.raw<24>();
  md.backout_count = rnd.any_long();
  md.reply_to_q = rnd.text(48);
  md.reply_to_q_mgr = rnd.text(48);
  md.user_identifier = rnd.text(12);
  md.accounting_token = rnd.raw<32>();
  md.appl_identity_data = rnd.text(32);
  md.put_appl_type = rnd.any_long();
  md.put_appl_name = rnd.text(28);
  md.put_date = rnd.text(8);
  md.put_time = rnd.text(8);
  md.appl_origin_data = rnd.text(4);
  if (version >= 2) {
    md.group_id = rnd.raw<24>();
    md.msg_seq_number = rnd.any_long();
    md.offset = rnd.any_long();
    md.msg_flags = rnd.any_long();
    md.original_length = rnd.any_long();
  }
  return md;
}

// `md` with its version-2 fields back at their defaults and its Version kept: what the 324-byte
// version-1 layout carries (MQXQH.MsgDesc [C: XQH-DOC]).
inline mqmd version_1_part(mqmd md) {
  const mqmd defaults;
  md.group_id = defaults.group_id;
  md.msg_seq_number = defaults.msg_seq_number;
  md.offset = defaults.offset;
  md.msg_flags = defaults.msg_flags;
  md.original_length = defaults.original_length;
  return md;
}

}  // namespace imsb::mq::test

namespace imsb::mq::test {

// Changes the n-th field a visitor reaches (n counts from 0), to check that == sees every field.
class change_nth_field {
 public:
  explicit change_nth_field(std::size_t n) : n_(n) {}
  template <class T>
  void operator()(std::string_view, T& member) {
    if (i_++ == n_) change(member);
  }
  bool changed() const { return i_ > n_; }

 private:
  static void change(std::int32_t& v) { v = static_cast<std::int32_t>(static_cast<std::uint32_t>(v) + 1u); }
  static void change(std::string& s) { s[0] = s[0] == 'X' ? 'Y' : 'X'; }
  static void change(char& c) { c = c == 'X' ? 'Y' : 'X'; }
  template <std::size_t N>
  static void change(std::array<std::uint8_t, N>& a) {
    a[N - 1] = static_cast<std::uint8_t>(a[N - 1] ^ 0x01);
  }
  template <class S>
  static void change(S& nested) {
    nested.version += 1;
  }

  std::size_t n_;
  std::size_t i_ = 0;
};

}  // namespace imsb::mq::test
