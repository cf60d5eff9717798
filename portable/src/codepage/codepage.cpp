#include "imsb/codepage/codepage.hpp"

#include <array>

namespace imsb::codepage {
namespace {

#include "tables.inc"

// Reverse tables (Unicode U+0000..U+00FF and the euro sign -> EBCDIC byte), built once at compile time.
struct reverse_table {
  std::array<std::int16_t, 256> latin1{};  // -1: no mapping
  std::int16_t euro = -1;                  // U+20AC (1140 only)
};

constexpr reverse_table make_reverse(const std::uint16_t (&forward)[256]) {
  reverse_table r{};
  for (auto& v : r.latin1) v = -1;
  for (int b = 0; b < 256; ++b) {
    std::uint16_t cp = forward[b];
    if (cp < 256) {
      r.latin1[cp] = static_cast<std::int16_t>(b);
    } else if (cp == 0x20AC) {
      r.euro = static_cast<std::int16_t>(b);
    }
  }
  return r;
}

constexpr reverse_table kReverse037 = make_reverse(kEbcdic037);
constexpr reverse_table kReverse500 = make_reverse(kEbcdic500);
constexpr reverse_table kReverse1047 = make_reverse(kEbcdic1047);
constexpr reverse_table kReverse1140 = make_reverse(kEbcdic1140);

struct sbcs {
  const std::uint16_t* forward;
  const reverse_table* reverse;
};

const sbcs* ebcdic_table(std::int32_t ccsid) noexcept {
  static const sbcs t037{kEbcdic037, &kReverse037};
  static const sbcs t500{kEbcdic500, &kReverse500};
  static const sbcs t1047{kEbcdic1047, &kReverse1047};
  static const sbcs t1140{kEbcdic1140, &kReverse1140};
  switch (ccsid) {
    case ccsid_037:
      return &t037;
    case ccsid_500:
      return &t500;
    case ccsid_1047:
      return &t1047;
    case ccsid_1140:
      return &t1140;
    default:
      return nullptr;
  }
}

constexpr std::uint32_t kReplacement = 0xFFFD;

// Decodes one UTF-8 sequence at in[i]; returns the code point or -1 for malformed input
// (overlong forms, surrogates and truncated sequences are malformed); advances i.
std::int32_t next_utf8(bytes_view in, std::size_t& i) noexcept {
  std::uint8_t b0 = in[i];
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int len = 0;
  std::uint32_t cp = 0;
  std::uint32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1Fu, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0Fu, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    ++i;
    return -1;
  }
  if (i + static_cast<std::size_t>(len) > in.size()) {
    ++i;
    return -1;
  }
  for (int k = 1; k < len; ++k) {
    std::uint8_t b = in[i + static_cast<std::size_t>(k)];
    if ((b & 0xC0) != 0x80) {
      ++i;
      return -1;
    }
    cp = (cp << 6) | (b & 0x3Fu);
  }
  i += static_cast<std::size_t>(len);
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  return static_cast<std::int32_t>(cp);
}

void append_utf8(bytes& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<std::uint8_t>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<std::uint8_t>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<std::uint8_t>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<std::uint8_t>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<std::uint8_t>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<std::uint8_t>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<std::uint8_t>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<std::uint8_t>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<std::uint8_t>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<std::uint8_t>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

bool supported(std::int32_t ccsid) noexcept {
  return ebcdic_table(ccsid) != nullptr || ccsid == ccsid_819 || ccsid == ccsid_1208;
}

bool is_ebcdic(std::int32_t ccsid) noexcept { return ebcdic_table(ccsid) != nullptr; }

std::uint8_t substitute(std::int32_t ccsid) noexcept { return is_ebcdic(ccsid) ? 0x3F : 0x1A; }

std::uint8_t blank(std::int32_t ccsid) noexcept { return is_ebcdic(ccsid) ? 0x40 : 0x20; }

std::int32_t to_unicode(std::uint8_t byte, std::int32_t sbcs_ccsid) noexcept {
  if (const sbcs* t = ebcdic_table(sbcs_ccsid)) return t->forward[byte];
  if (sbcs_ccsid == ccsid_819) return byte;
  if (sbcs_ccsid == ccsid_1208) return byte < 0x80 ? byte : -1;
  return -1;
}

int from_unicode(std::uint32_t code_point, std::int32_t sbcs_ccsid) noexcept {
  if (const sbcs* t = ebcdic_table(sbcs_ccsid)) {
    if (code_point < 256) return t->reverse->latin1[code_point];
    if (code_point == 0x20AC) return t->reverse->euro;
    return -1;
  }
  if (sbcs_ccsid == ccsid_819) return code_point < 256 ? static_cast<int>(code_point) : -1;
  if (sbcs_ccsid == ccsid_1208) return code_point < 0x80 ? static_cast<int>(code_point) : -1;
  return -1;
}

conversion convert(bytes_view in, std::int32_t from_ccsid, std::int32_t to_ccsid) {
  conversion r;
  if (!supported(from_ccsid) || !supported(to_ccsid)) {
    r.unsupported = true;
    return r;
  }
  r.out.reserve(in.size());
  auto bad = [&r](std::size_t at) {
    if (r.substitutions++ == 0) r.first_bad_offset = at;
  };
  auto emit = [&](std::int32_t cp, std::size_t at) {
    if (cp < 0) {
      bad(at);
      if (to_ccsid == ccsid_1208) {
        append_utf8(r.out, kReplacement);
      } else {
        r.out.push_back(substitute(to_ccsid));
      }
      return;
    }
    if (to_ccsid == ccsid_1208) {
      append_utf8(r.out, static_cast<std::uint32_t>(cp));
      return;
    }
    int b = from_unicode(static_cast<std::uint32_t>(cp), to_ccsid);
    if (b < 0) {
      bad(at);
      r.out.push_back(substitute(to_ccsid));
    } else {
      r.out.push_back(static_cast<std::uint8_t>(b));
    }
  };
  if (from_ccsid == ccsid_1208) {
    for (std::size_t i = 0; i < in.size();) {
      std::size_t at = i;
      emit(next_utf8(in, i), at);
    }
  } else {
    for (std::size_t i = 0; i < in.size(); ++i) emit(to_unicode(in[i], from_ccsid), i);
  }
  return r;
}

std::string get_field(bytes_view field, std::int32_t ccsid) {
  std::string s;
  s.reserve(field.size());
  if (ccsid == ccsid_1208) {
    // A UTF-8 header field: each byte kept if ASCII, otherwise converted where it maps to 819.
    conversion c = convert(field, ccsid_1208, ccsid_819);
    s.assign(c.out.begin(), c.out.end());
    s.resize(field.size(), ' ');
    return s;
  }
  for (std::uint8_t b : field) {
    std::int32_t cp = to_unicode(b, ccsid);
    s.push_back(cp >= 0 && cp < 256 ? static_cast<char>(cp) : static_cast<char>(0x1A));
  }
  return s;
}

void put_field(std::uint8_t* dst, std::size_t n, std::string_view value_819, std::int32_t ccsid) {
  std::size_t nul = value_819.find('\0');
  if (nul != std::string_view::npos) value_819 = value_819.substr(0, nul);
  std::size_t i = 0;
  if (ccsid == ccsid_1208 || !supported(ccsid)) {
    // Multi-byte target (or an unsupported CCSID, which convert() leaves empty): the general path.
    conversion c = convert(bytes_view::of(value_819), ccsid_819, ccsid);
    std::size_t len = c.out.size() < n ? c.out.size() : n;
    // Never cut a UTF-8 sequence in two: back up to the start of the last whole character.
    if (ccsid == ccsid_1208 && len < c.out.size()) {
      while (len > 0 && (c.out[len] & 0xC0) == 0x80) --len;
    }
    for (; i < len; ++i) dst[i] = c.out[i];
  } else {
    // Single-byte target: one character per byte, no allocation (header fields are on the hot path).
    for (; i < n && i < value_819.size(); ++i) {
      int b = from_unicode(static_cast<std::uint8_t>(value_819[i]), ccsid);
      dst[i] = b < 0 ? substitute(ccsid) : static_cast<std::uint8_t>(b);
    }
  }
  for (; i < n; ++i) dst[i] = blank(ccsid);
}

std::string_view field_value(std::string_view raw_819) noexcept {
  std::size_t nul = raw_819.find('\0');
  if (nul != std::string_view::npos) raw_819 = raw_819.substr(0, nul);
  std::size_t end = raw_819.find_last_not_of(' ');
  return end == std::string_view::npos ? std::string_view{} : raw_819.substr(0, end + 1);
}

std::string pad_field(std::string_view value, std::size_t n) {
  std::string s(value.substr(0, n));
  s.resize(n, ' ');
  return s;
}

std::string latin1_to_utf8(std::string_view latin1) {
  conversion c = convert(bytes_view::of(latin1), ccsid_819, ccsid_1208);
  return std::string(c.out.begin(), c.out.end());
}

}  // namespace imsb::codepage
