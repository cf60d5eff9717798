// Line reassembly and tokens; the rules and their sources are listed in imsb/mqsc/lexer.hpp.

#include "imsb/mqsc/lexer.hpp"

namespace imsb::mqsc {
namespace {

constexpr char fold(char c) noexcept {
  // Only a-z: bytes of other scripts are left as they are (a quoted string is the way to keep case).
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

bool is_word_char(char c) noexcept {
  return !is_blank(c) && c != ',' && c != '(' && c != ')' && c != ';' && c != '\'';
}

}  // namespace

source_position command_source::position_of(std::size_t offset) const noexcept {
  return offset < positions.size() ? positions[offset] : end;
}

std::vector<command_source> split_commands(std::string_view script) {
  std::vector<command_source> out;
  command_source current;
  bool in_command = false;
  char pending = 0;  // '+' or '-' when the previous content line was continued
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= script.size()) {
    std::size_t nl = script.find('\n', pos);
    if (nl == std::string_view::npos) nl = script.size();
    std::string_view line = script.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    std::size_t first = 0;
    while (first < line.size() && is_blank(line[first])) ++first;
    if (first == line.size()) continue;  // blank line
    if (line[0] == '*') continue;        // comment: '*' in the first position only

    if (!in_command) {
      current = command_source{};
      current.first_line = line_no;
      in_command = true;
    } else {
      current.lines += '\n';
    }
    current.lines.append(line);

    std::size_t last = line.size() - 1;
    while (is_blank(line[last])) --last;  // stops: line[first] is not blank
    const char tail = line[last];
    const bool continued = tail == '-' || tail == '+';
    // '+' continues from the first non-blank character of this line, '-' from its first column.
    const std::size_t start = pending == '+' ? first : 0;
    const std::size_t stop = continued ? last : last + 1;
    for (std::size_t i = start; i < stop; ++i) {
      current.text += line[i];
      current.positions.push_back({line_no, i + 1});
    }
    current.end = {line_no, stop + 1};
    if (continued) {
      pending = tail;
    } else {
      pending = 0;
      in_command = false;
      out.push_back(std::move(current));
    }
  }
  if (in_command) out.push_back(std::move(current));  // continued past the last line
  return out;
}

token_list tokenize(const command_source& source) {
  token_list out;
  const std::string& text = source.text;
  const std::size_t n = text.size();
  bool separated = true;
  std::size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (is_blank(c) || c == ',') {
      separated = true;
      ++i;
      continue;
    }
    token t;
    t.offset = i;
    t.position = source.position_of(i);
    t.separated = separated;
    if (c == '(' || c == ')' || c == ';') {
      t.kind = c == '(' ? token_kind::open_paren : c == ')' ? token_kind::close_paren : token_kind::semicolon;
      t.text.assign(1, c);
      t.length = 1;
      ++i;
    } else if (c == '\'') {
      // A quoted string ends at a quote not followed by another; '' inside stands for one quote [C].
      std::size_t j = i + 1;
      bool closed = false;
      while (j < n) {
        if (text[j] == '\'') {
          if (j + 1 < n && text[j + 1] == '\'') {
            t.text += '\'';
            j += 2;
            continue;
          }
          ++j;
          closed = true;
          break;
        }
        t.text += text[j++];
      }
      if (!closed) {
        out.unterminated_quote = t.position;
        return out;
      }
      t.kind = token_kind::quoted;
      t.length = j - i;
      i = j;
    } else {
      std::size_t j = i;
      while (j < n && is_word_char(text[j])) t.text += fold(text[j++]);
      t.kind = token_kind::word;
      t.length = j - i;
      i = j;
    }
    separated = false;
    out.tokens.push_back(std::move(t));
  }
  return out;
}

}  // namespace imsb::mqsc
