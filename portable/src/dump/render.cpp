#include "imsb/dump/render.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

namespace imsb::dump {
namespace {

constexpr char hex_digits[] = "0123456789ABCDEF";
constexpr std::size_t offset_width = 6;
constexpr std::size_t name_width = 24;  // indentation + name, before the value
constexpr std::size_t bytes_per_line = 16;

bool any_offset(const node& n) {
  if (n.offset && n.kind != node_kind::document) return true;
  for (const auto& c : n.children)
    if (any_offset(c)) return true;
  return false;
}

// The length of the display character (UTF-8) that starts at text[i]: data nodes hold one per byte
// of the data, so a line of 16 bytes takes 16 of them. Never runs past the text.
std::size_t character_length(std::string_view text, std::size_t i) noexcept {
  const auto c = static_cast<std::uint8_t>(text[i]);
  const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return len < text.size() - i ? len : text.size() - i;
}

class text_renderer {
 public:
  // Documents without any offset (--explain) leave the offset column out.
  explicit text_renderer(bool offsets) : offsets_(offsets) {}

  void root(const node& n) {
    out_ += n.name;
    if (n.length > 0) out_ += " (" + std::to_string(n.length) + (n.length == 1 ? " byte)" : " bytes)");
    if (!n.value.empty()) out_ += ": " + n.value;
    if (!n.meaning.empty()) out_ += "  = " + n.meaning;
    out_ += '\n';
    if (n.kind == node_kind::data) hex_lines(n, "  ");
    for (const auto& c : n.children) line(c, 0);
  }

  std::string take() { return std::move(out_); }

 private:
  std::string offset_column(std::optional<std::size_t> offset) const {
    if (!offsets_) return {};
    std::string off = offset ? std::to_string(*offset) : std::string();
    if (off.size() < offset_width) off.insert(0, offset_width - off.size(), ' ');
    return off + ' ';
  }

  // Findings and errors are diagnostics: the line starts with the message ID (docs/design/rules.md).
  void diagnostic(const node& n) {
    out_ += n.id;
    out_ += ' ';
    out_ += n.name;
    if (n.offset) out_ += " at offset " + std::to_string(*n.offset);
    out_ += ": ";
    out_ += n.value;
    if (!n.meaning.empty()) out_ += "; " + n.meaning;
    out_ += '\n';
  }

  // Walks the display text along with the bytes, one line at a time: inputs can be megabytes long,
  // so nothing here is held per byte.
  void hex_lines(const node& n, const std::string& indent) {
    const std::string_view text = n.text;
    const std::size_t base = n.offset.value_or(0);
    std::size_t t = 0;  // the display character of the next byte
    for (std::size_t at = 0; at < n.raw.size(); at += bytes_per_line) {
      out_ += offset_column(base + at);
      out_ += indent;
      const std::size_t count = std::min(bytes_per_line, n.raw.size() - at);
      for (std::size_t i = 0; i < bytes_per_line; ++i) {
        if (i > 0 && i % 4 == 0) out_ += ' ';
        if (i < count) {
          out_ += hex_digits[n.raw[at + i] >> 4];
          out_ += hex_digits[n.raw[at + i] & 0x0F];
        } else {
          out_ += "  ";
        }
      }
      out_ += "  |";
      for (std::size_t i = 0; i < count; ++i) {
        if (t < text.size()) {
          const std::size_t len = character_length(text, t);
          out_.append(text, t, len);
          t += len;
        } else {
          out_ += '.';
        }
      }
      out_ += "|\n";
    }
  }

  void line(const node& n, std::size_t depth) {
    if (n.kind == node_kind::finding || n.kind == node_kind::error) {
      diagnostic(n);
      return;
    }
    const std::string indent(depth * 2, ' ');
    std::string left = indent + n.name;
    if (n.kind != node_kind::field && n.length > 0)
      left += " (" + std::to_string(n.length) + (n.length == 1 ? " byte)" : " bytes)");
    std::string rest = n.value;
    if (!n.meaning.empty()) rest += rest.empty() ? n.meaning : "  = " + n.meaning;
    out_ += offset_column(n.offset);
    out_ += left;
    if (!rest.empty()) {
      if (left.size() < name_width) out_.append(name_width - left.size(), ' ');
      out_ += ' ';
      out_ += rest;
    }
    out_ += '\n';
    if (n.kind == node_kind::data) hex_lines(n, indent + "  ");
    for (const auto& c : n.children) line(c, depth + 1);
  }

  bool offsets_;
  std::string out_;
};

void json_node(const node& n, std::size_t depth, std::string& out) {
  std::string pad((depth + 1) * 2, ' ');
  bool first = true;
  auto key = [&](std::string_view k) {
    out += first ? "\n" : ",\n";
    first = false;
    out += pad;
    out += json_string(k);
    out += ": ";
  };
  out += '{';
  key("kind");
  out += json_string(kind_name(n.kind));
  key("name");
  out += json_string(n.name);
  if (n.offset) {
    key("offset");
    out += std::to_string(*n.offset);
  }
  if (n.offset || n.length > 0) {
    key("length");
    out += std::to_string(n.length);
  }
  if (!n.value.empty()) {
    key("value");
    out += json_string(n.value);
  }
  if (n.number) {
    key("number");
    out += std::to_string(*n.number);
  }
  if (!n.meaning.empty()) {
    key("meaning");
    out += json_string(n.meaning);
  }
  if (!n.id.empty()) {
    key("id");
    out += json_string(n.id);
  }
  if (n.kind == node_kind::data) {
    key("hex");
    out += json_string(to_hex(n.raw));
    key("text");
    out += json_string(n.text);
  }
  if (!n.children.empty()) {
    key("children");
    out += '[';
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      out += i == 0 ? "\n" : ",\n";
      out += std::string((depth + 2) * 2, ' ');
      json_node(n.children[i], depth + 2, out);
    }
    out += '\n' + pad + ']';
  }
  out += '\n' + std::string(depth * 2, ' ') + '}';
}

void append_u_escape(std::string& out, std::uint32_t unit) {
  out += "\\u";
  out += hex_digits[(unit >> 12) & 0x0F];
  out += hex_digits[(unit >> 8) & 0x0F];
  out += hex_digits[(unit >> 4) & 0x0F];
  out += hex_digits[unit & 0x0F];
}

// Decodes one UTF-8 sequence at s[i]; returns the code point and its length, or length 0 when the
// bytes there are not well-formed UTF-8 (overlong, surrogate, above U+10FFFF, truncated).
std::pair<std::uint32_t, std::size_t> next_code_point(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  std::uint8_t c = byte(i);
  std::size_t len = 0;
  std::uint32_t cp = 0, min = 0;
  if (c < 0x80) return {c, 1};
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07, min = 0x10000;
  else
    return {0, 0};
  if (i + len > s.size()) return {0, 0};
  for (std::size_t k = 1; k < len; ++k) {
    std::uint8_t cc = byte(i + k);
    if ((cc & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, len};
}

}  // namespace

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    auto [cp, len] = next_code_point(s, i);
    if (len == 0) {
      append_u_escape(out, 0xFFFD);
      ++i;
      continue;
    }
    i += len;
    switch (cp) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      default:
        break;
    }
    if (cp < 0x20 || cp == 0x7F) {
      append_u_escape(out, cp);
    } else if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x10000) {
      append_u_escape(out, cp);
    } else {
      std::uint32_t v = cp - 0x10000;
      append_u_escape(out, 0xD800 + (v >> 10));
      append_u_escape(out, 0xDC00 + (v & 0x3FF));
    }
  }
  out += '"';
  return out;
}

std::string render_text(const node& root) {
  text_renderer r(any_offset(root));
  r.root(root);
  return r.take();
}

std::string render_json(const node& root) {
  std::string out;
  json_node(root, 0, out);
  out += '\n';
  return out;
}

}  // namespace imsb::dump
