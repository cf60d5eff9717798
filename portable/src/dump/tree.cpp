#include "imsb/dump/tree.hpp"

#include "imsb/codepage/codepage.hpp"

namespace imsb::dump {
namespace {

constexpr char hex_digits[] = "0123456789ABCDEF";

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Visible characters only: no C0/C1 controls, DEL, no-break space or soft hyphen, which would look
// like something else (or nothing) in a listing.
bool printable(std::uint32_t cp) noexcept {
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp >= 0x80 && cp <= 0xA0) return false;
  return cp != 0xAD;
}

// IBM's single-byte and mixed EBCDIC CCSIDs (country code pages, their euro versions, and the
// Japanese, Korean and Chinese host code pages) [I], from IBM's CCSID tables.
bool known_ebcdic(std::int32_t ccsid) noexcept {
  static constexpr std::int32_t ebcdic[] = {
      37,   256,  273,  275,  277,  278,  280,   284,   285,   290,   297,   300,  420,  423,  424,
      500,  803,  833,  834,  835,  836,  837,   838,   870,   871,   875,   880,  905,  918,  924,
      930,  931,  933,  935,  937,  939,  1025,  1026,  1027,  1047,  1097,  1112, 1122, 1123, 1130,
      1132, 1137, 1140, 1141, 1142, 1143, 1144,  1145,  1146,  1147,  1148,  1149, 1153, 1154, 1155,
      1156, 1157, 1158, 1159, 1160, 1164, 1166,  1364,  1371,  1388,  1390,  1399, 4396, 4930, 4933,
      4971, 5026, 5035, 5123, 8482, 9027, 12712, 13121, 13124, 16684, 16804, 28709};
  for (std::int32_t e : ebcdic)
    if (e == ccsid) return true;
  return false;
}

}  // namespace

std::int32_t display_ccsid(std::int32_t ccsid) noexcept {
  if (codepage::supported(ccsid) || !known_ebcdic(ccsid)) return ccsid;
  return codepage::ccsid_037;
}

std::string display_note(std::int32_t ccsid) {
  if (display_ccsid(ccsid) == ccsid) return {};
  return "shown as CCSID 037: CCSID " + std::to_string(ccsid) + " is not converted by mqdump";
}

std::string_view kind_name(node_kind k) noexcept {
  switch (k) {
    case node_kind::document:
      return "document";
    case node_kind::structure:
      return "structure";
    case node_kind::field:
      return "field";
    case node_kind::segment:
      return "segment";
    case node_kind::data:
      return "data";
    case node_kind::finding:
      return "finding";
    case node_kind::error:
      return "error";
  }
  return "field";
}

const node* node::find(std::string_view child_name) const {
  if (name == child_name) return this;
  for (const auto& c : children)
    if (const node* n = c.find(child_name)) return n;
  return nullptr;
}

node structure_node(std::string name, std::size_t offset, std::size_t length, std::string value) {
  node n;
  n.kind = node_kind::structure;
  n.name = std::move(name);
  n.offset = offset;
  n.length = length;
  n.value = std::move(value);
  return n;
}

node field_node(std::string name, std::size_t offset, std::size_t length, std::string value,
                std::string meaning) {
  node n;
  n.kind = node_kind::field;
  n.name = std::move(name);
  n.offset = offset;
  n.length = length;
  n.value = std::move(value);
  n.meaning = std::move(meaning);
  return n;
}

node number_node(std::string name, std::size_t offset, std::size_t length, std::int64_t number,
                 std::string value, std::string meaning) {
  node n = field_node(std::move(name), offset, length, std::move(value), std::move(meaning));
  n.number = number;
  return n;
}

std::string quote_819(std::string_view text_819) {
  std::string out = "'";
  for (char ch : text_819) {
    auto c = static_cast<std::uint8_t>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (printable(c)) {
      append_utf8(out, c);
    } else {
      out += "\\x";
      out += hex_digits[c >> 4];
      out += hex_digits[c & 0x0F];
    }
  }
  out += '\'';
  return out;
}

std::string hex_value(bytes_view b) { return "X'" + to_hex(b) + "'"; }

std::string hex32(std::uint32_t v) {
  std::uint8_t b[4];
  store_u32(b, v, byte_order::big);
  return hex_value(bytes_view(b, 4));
}
std::string hex16(std::uint16_t v) {
  std::uint8_t b[2];
  store_u16(b, v, byte_order::big);
  return hex_value(bytes_view(b, 2));
}
std::string hex8(std::uint8_t v) { return hex_value(bytes_view(&v, 1)); }

namespace {

// display_char for a CCSID display_ccsid has already resolved.
std::string char_in(std::uint8_t byte, std::int32_t ccsid) {
  std::int32_t cp = byte;
  if (ccsid == codepage::ccsid_1208) {
    if (byte >= 0x80) cp = -1;  // one byte of a multi-byte sequence: shown as '.'
  } else if (codepage::is_ebcdic(ccsid) && codepage::supported(ccsid)) {
    cp = codepage::to_unicode(byte, ccsid);
  }
  if (cp < 0 || !printable(static_cast<std::uint32_t>(cp))) return ".";
  std::string out;
  append_utf8(out, static_cast<std::uint32_t>(cp));
  return out;
}

}  // namespace

std::string display_char(std::uint8_t byte, std::int32_t ccsid) {
  return char_in(byte, display_ccsid(ccsid));
}

std::string display_text(bytes_view b, std::int32_t ccsid) {
  // One look-up per byte value, not per byte: inputs can be megabytes long.
  const std::int32_t shown = display_ccsid(ccsid);
  std::string table[256];
  for (int v = 0; v < 256; ++v) table[v] = char_in(static_cast<std::uint8_t>(v), shown);
  std::string out;
  out.reserve(b.size());
  for (std::uint8_t byte : b) out += table[byte];
  return out;
}

node data_node(std::string name, std::size_t offset, bytes_view b, std::int32_t ccsid) {
  node n;
  n.kind = node_kind::data;
  n.name = std::move(name);
  n.offset = offset;
  n.length = b.size();
  n.raw = b.to_bytes();
  n.text = display_text(b, ccsid);
  n.meaning = display_note(ccsid);
  return n;
}

}  // namespace imsb::dump
