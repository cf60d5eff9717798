#pragma once
// Each fixed part of the OTMA prefix (the MCI, each state-data variant, the MQ user data) is declared
// once as a table of fields: name, offset, member. The decoder, the encoder, equality and the printer
// (mqdump) all walk the same table, so an offset lives in exactly one place.
//
// Protocol names stay raw EBCDIC bytes inside the codec [D] (docs/design/otma.md); `ebcdic_name` exposes them
// as CCSID 819 text through explicit accessors. OTMA names use only characters that are the same in 037, 500,
// 1047 and 1140 (glibc's iconv tables, scripts/gen-codepage-vectors), so 037 is used to convert them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"

namespace imsb::otma {

inline constexpr std::int32_t name_ccsid = codepage::ccsid_037;  // EBCDIC names [C: IMS-SAMPLE]
inline constexpr std::uint8_t ebcdic_blank = 0x40;               // [C: IMS-NAMES]: names are blank padded

template <std::size_t N>
constexpr std::array<std::uint8_t, N> filled(std::uint8_t value) noexcept {
  std::array<std::uint8_t, N> a{};
  for (auto& b : a) b = value;
  return a;
}

// A fixed-length OTMA name (tpipe, member, DRU exit, LTERM, MODNAME): left-justified, blank padded, EBCDIC
// [C: IMS-NAMES, IMS-SAMPLE]. The bytes are kept as received so that a decoded prefix re-encodes exactly,
// even when a sender put zeros where a name could be (the SRVresynch sample's MCI tpipe [C: IMS-SAMPLE-RS]).
template <std::size_t N>
struct ebcdic_name {
  std::array<std::uint8_t, N> raw = filled<N>(ebcdic_blank);

  static ebcdic_name of(std::string_view text_819) {
    ebcdic_name n;
    n.set(text_819);
    return n;
  }
  // CCSID 819 text, padding included.
  std::string text() const { return codepage::get_field(bytes_view(raw.data(), N), name_ccsid); }
  // The logical name: up to the first NUL, without trailing blanks.
  std::string value() const { return std::string(codepage::field_value(text())); }
  // MQCHARn semantics: converted to EBCDIC, blank padded, cut at N characters.
  void set(std::string_view text_819) { codepage::put_field(raw.data(), N, text_819, name_ccsid); }

  friend bool operator==(const ebcdic_name& a, const ebcdic_name& b) { return a.raw == b.raw; }
  friend bool operator!=(const ebcdic_name& a, const ebcdic_name& b) { return !(a == b); }
};

// Opaque bytes: tokens, reserved areas, the MQMD carried in the MQ user data.
template <std::size_t N>
using raw_bytes = std::array<std::uint8_t, N>;

// One line of a printed structure, for mqdump and test failure messages. Offsets are absolute in the
// buffer that was decoded.
struct printed_field {
  std::string name;    // "MCI.message_type", "state_data.client_bid.member_name"
  std::size_t offset;  // byte offset in the OTMA buffer
  std::size_t length;  // field length in bytes
  std::string value;   // "54 (X'0036')", "X'A0'", "'CLIENT1         '", hex for raw bytes
  std::string note;    // flag or code names ("first+last", "client_bid"), empty if none
};

namespace layout {

enum class kind : std::uint8_t {
  number,  // big-endian unsigned (or signed, for std::int32_t members) integer
  flags,   // a byte of bit flags: printed with the names of the bits that are set
  code,    // a byte holding one enumerated value: printed with its name
  name,    // ebcdic_name<N>
  raw,     // raw_bytes<N>: printed in hex
};

struct value_name {
  std::uint32_t value;
  std::string_view name;
};

// A view of a constexpr table of value names (bit names for `flags`, values for `code`).
struct value_names {
  const value_name* data = nullptr;
  std::size_t size = 0;
  constexpr const value_name* begin() const noexcept { return data; }
  constexpr const value_name* end() const noexcept { return data + size; }
};
template <std::size_t N>
constexpr value_names names_of(const value_name (&table)[N]) noexcept {
  return {table, N};
}

// Bytes a member type occupies on the wire.
template <class M>
struct wire_size;
template <>
struct wire_size<std::uint8_t> : std::integral_constant<std::size_t, 1> {};
template <>
struct wire_size<std::uint16_t> : std::integral_constant<std::size_t, 2> {};
template <>
struct wire_size<std::uint32_t> : std::integral_constant<std::size_t, 4> {};
template <>
struct wire_size<std::int32_t> : std::integral_constant<std::size_t, 4> {};
template <std::size_t N>
struct wire_size<std::array<std::uint8_t, N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t N>
struct wire_size<ebcdic_name<N>> : std::integral_constant<std::size_t, N> {};

template <class S, class M>
struct field {
  std::string_view name;
  std::size_t offset;  // from the start of the structure (a section's offset counts its length field)
  M S::*member;
  kind how;
  value_names labels;
  static constexpr std::size_t size = wire_size<M>::value;
};

template <class S, class M>
constexpr field<S, M> make(std::string_view name, std::size_t offset, M S::*member, kind how = kind::number,
                           value_names labels = {}) noexcept {
  return {name, offset, member, how, labels};
}

// --- reading and writing one member (OTMA is big-endian [C: IMS-SAMPLE]) ----------------------
inline void get(const std::uint8_t* p, std::uint8_t& v) noexcept { v = p[0]; }
inline void get(const std::uint8_t* p, std::uint16_t& v) noexcept { v = load_u16(p, byte_order::big); }
inline void get(const std::uint8_t* p, std::uint32_t& v) noexcept { v = load_u32(p, byte_order::big); }
inline void get(const std::uint8_t* p, std::int32_t& v) noexcept { v = load_i32(p, byte_order::big); }
template <std::size_t N>
void get(const std::uint8_t* p, std::array<std::uint8_t, N>& v) noexcept {
  for (std::size_t i = 0; i < N; ++i) v[i] = p[i];
}
template <std::size_t N>
void get(const std::uint8_t* p, ebcdic_name<N>& v) noexcept {
  get(p, v.raw);
}

inline void put(std::uint8_t* p, std::uint8_t v) noexcept { p[0] = v; }
inline void put(std::uint8_t* p, std::uint16_t v) noexcept { store_u16(p, v, byte_order::big); }
inline void put(std::uint8_t* p, std::uint32_t v) noexcept { store_u32(p, v, byte_order::big); }
inline void put(std::uint8_t* p, std::int32_t v) noexcept { store_i32(p, v, byte_order::big); }
template <std::size_t N>
void put(std::uint8_t* p, const std::array<std::uint8_t, N>& v) noexcept {
  for (std::size_t i = 0; i < N; ++i) p[i] = v[i];
}
template <std::size_t N>
void put(std::uint8_t* p, const ebcdic_name<N>& v) noexcept {
  put(p, v.raw);
}

// --- whole tables ---------------------------------------------------------------------------
// The end offset of a table whose fields tile [start, end) with no gap and no overlap; 0 if they
// do not. Used in static_asserts next to each table.
template <class... F>
constexpr std::size_t tiled_end(const std::tuple<F...>& table, std::size_t start) noexcept {
  std::size_t end = start;
  bool ok = true;
  std::apply([&](const auto&... f) { ((ok = ok && f.offset == end, end = f.offset + f.size), ...); }, table);
  return ok ? end : 0;
}

// `base` points at offset 0 of the structure; the caller has checked that the bytes are there.
template <class S, class... F>
void decode(const std::tuple<F...>& table, const std::uint8_t* base, S& out) noexcept {
  std::apply([&](const auto&... f) { (get(base + f.offset, out.*(f.member)), ...); }, table);
}

template <class S, class... F>
void encode(const std::tuple<F...>& table, const S& in, std::uint8_t* base) noexcept {
  std::apply([&](const auto&... f) { (put(base + f.offset, in.*(f.member)), ...); }, table);
}

template <class S, class... F>
bool equal(const std::tuple<F...>& table, const S& a, const S& b) noexcept {
  return std::apply([&](const auto&... f) { return (... && (a.*(f.member) == b.*(f.member))); }, table);
}

// Formatting of one value (layout.cpp).
std::string format_number(std::uint32_t value, std::size_t size, bool is_signed);
std::string format_byte(std::uint8_t value);                      // "X'A0'"
std::string name_flags(std::uint32_t value, value_names labels);  // "first+last", "+X'01'" for unknown bits
// The value's name, or "" (a view of the constexpr table `labels` looks at).
std::string_view name_code(std::uint32_t value, value_names labels) noexcept;
std::string quote(const std::string& text_819);  // "'CLIENT1 '"

inline printed_field print_one(std::string name, std::size_t offset, std::uint8_t v, kind how,
                               value_names labels) {
  std::string note = how == kind::flags  ? name_flags(v, labels)
                     : how == kind::code ? std::string(name_code(v, labels))
                                         : std::string();
  std::string value = how == kind::number ? format_number(v, 1, false) : format_byte(v);
  return {std::move(name), offset, 1, std::move(value), std::move(note)};
}
inline printed_field print_one(std::string name, std::size_t offset, std::uint16_t v, kind, value_names) {
  return {std::move(name), offset, 2, format_number(v, 2, false), ""};
}
inline printed_field print_one(std::string name, std::size_t offset, std::uint32_t v, kind, value_names) {
  return {std::move(name), offset, 4, format_number(v, 4, false), ""};
}
inline printed_field print_one(std::string name, std::size_t offset, std::int32_t v, kind, value_names) {
  return {std::move(name), offset, 4, format_number(static_cast<std::uint32_t>(v), 4, true), ""};
}
template <std::size_t N>
printed_field print_one(std::string name, std::size_t offset, const std::array<std::uint8_t, N>& v, kind,
                        value_names) {
  return {std::move(name), offset, N, to_hex(bytes_view(v.data(), N)), ""};
}
template <std::size_t N>
printed_field print_one(std::string name, std::size_t offset, const ebcdic_name<N>& v, kind, value_names) {
  return {std::move(name), offset, N, quote(v.text()), "X'" + to_hex(bytes_view(v.raw.data(), N)) + "'"};
}

// Appends one printed_field per table entry; names are `prefix` + field name, offsets `base` + offset.
template <class S, class... F>
void print(const std::tuple<F...>& table, const S& in, std::string_view prefix, std::size_t base,
           std::vector<printed_field>& out) {
  std::apply(
      [&](const auto&... f) {
        (out.push_back(print_one(std::string(prefix) + std::string(f.name), base + f.offset, in.*(f.member),
                                 f.how, f.labels)),
         ...);
      },
      table);
}

}  // namespace layout
}  // namespace imsb::otma
