#pragma once
// The decoded document that mqdump prints: a tree of nodes built once, then rendered as an indented
// listing or as one JSON object (render.hpp), so that the two outputs cannot disagree.
//
// All text in a node is UTF-8 and already display-safe: character fields are quoted with
// non-printable characters written as \xNN, so a renderer never has to know where a value came from.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"

namespace imsb::dump {

enum class node_kind : std::uint8_t {
  document,   // the root: what the input is
  structure,  // a header (MQMD, MQIIH, OTMA MCI ...) or a group of nodes
  field,      // one field of a structure
  segment,    // one LLZZ segment
  data,       // bytes shown as hex and text
  finding,    // something wrong with a message that decoded (a bridge validation failure)
  error,      // a header that did not decode: decoding stopped here
};

std::string_view kind_name(node_kind k) noexcept;

struct node {
  node_kind kind = node_kind::field;
  std::string name;                    // IBM's field name, or the structure's name
  std::optional<std::size_t> offset;   // absolute byte offset in the input, when the node has one
  std::size_t length = 0;              // bytes covered (0 when not meaningful)
  std::string value;                   // the value as shown: 546, 'MD  ', X'00..', ...
  std::optional<std::int64_t> number;  // the numeric value, for numeric fields
  std::string meaning;                 // what the value means; empty when nothing to say
  std::string id;                      // message ID for findings and errors (IMB4002E ...)
  bytes raw;                           // data nodes: the bytes shown as hex and text
  std::string text;                    // data nodes: the bytes as text, one character per byte
  std::vector<node> children;

  node& add(node child) {
    children.push_back(std::move(child));
    return children.back();
  }
  // The first descendant (depth first, this node included) with this name; nullptr if none.
  const node* find(std::string_view child_name) const;
};

// Builders for the common node shapes.
node structure_node(std::string name, std::size_t offset, std::size_t length, std::string value = {});
node field_node(std::string name, std::size_t offset, std::size_t length, std::string value,
                std::string meaning = {});
node number_node(std::string name, std::size_t offset, std::size_t length, std::int64_t number,
                 std::string value, std::string meaning = {});

// Display helpers shared by the decoders.
// 'text' with quotes; characters outside printable ISO 8859-1 become \xNN. Input is CCSID 819 text;
// the result is UTF-8.
std::string quote_819(std::string_view text_819);
// X'0011AB' (upper-case hex, IBM style).
std::string hex_value(bytes_view b);
// "X'0000000F'" for a 32-bit value, "X'1A'" for a byte.
std::string hex32(std::uint32_t v);
std::string hex8(std::uint8_t v);
std::string hex16(std::uint16_t v);

// The CCSID text in `ccsid` is displayed in: `ccsid` itself, except an EBCDIC CCSID the codepage
// library does not convert (273, 277, 280, 284, 285, 297, 871, 1141-1149 ...), shown through 037,
// whose letters, digits and most punctuation it shares (not as ISO 8859-1, which would be nonsense).
std::int32_t display_ccsid(std::int32_t ccsid) noexcept;
// What a listing says when display_ccsid differs: "shown as CCSID 037: CCSID 273 is not converted by
// mqdump"; empty otherwise.
std::string display_note(std::int32_t ccsid);

// The character of one byte in a CCSID for display: a printable character as UTF-8, else ".".
// CCSIDs that are neither supported nor EBCDIC are shown as ISO 8859-1.
std::string display_char(std::uint8_t byte, std::int32_t ccsid);
// The bytes as display text, one character per byte (see display_char).
std::string display_text(bytes_view b, std::int32_t ccsid);

// A data node: the bytes with their hex and display text in `ccsid`; its meaning is display_note.
node data_node(std::string name, std::size_t offset, bytes_view b, std::int32_t ccsid);

}  // namespace imsb::dump
