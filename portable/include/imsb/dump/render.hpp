#pragma once
// The two renderers of a decoded document (tree.hpp): an indented listing for people and one JSON
// object for programs. Both walk the same tree.

#include <string>
#include <string_view>

#include "imsb/dump/tree.hpp"

namespace imsb::dump {

// The listing: one line per node, offsets (decimal) in the first column, children indented two
// spaces; data nodes are followed by hex + text lines of 16 bytes. Ends with a newline.
std::string render_text(const node& root);

// One JSON object (RFC 8259), pretty-printed with two-space indentation, ending with a newline.
// Pure ASCII: every non-ASCII character is written as \uXXXX (surrogate pairs above U+FFFF).
std::string render_json(const node& root);

// A JSON string literal, quotes included. `utf8` is UTF-8; control characters are escaped
// (\n \t ... or \u00XX), non-ASCII as \uXXXX, and each malformed UTF-8 byte as \uFFFD.
std::string json_string(std::string_view utf8);

}  // namespace imsb::dump
