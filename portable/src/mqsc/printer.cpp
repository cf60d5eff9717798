#include "imsb/mqsc/printer.hpp"

#include "imsb/mqsc/lexer.hpp"

namespace imsb::mqsc {
namespace {

void append_value(std::string& out, const mqsc_value& v) {
  if (v.quoted || !is_plain_value(v.text))
    out += quote(v.text);
  else
    out += v.text;
}

}  // namespace

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  for (char c : text) {
    if (c == '\'') out += '\'';  // '' stands for one quote inside a quoted string [C]
    out += c;
  }
  out += '\'';
  return out;
}

bool is_plain_value(std::string_view text) {
  // The lexer's and parser's rules for one unquoted value, in the form they print it: a word, or a
  // word with a group right after it (HOST(1414)) that closes at the end. printer_test.cpp checks this
  // against the parser itself on random text.
  if (text.empty()) return false;
  std::size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(') break;
    if (c == '\n' || is_blank(c) || c == ',' || c == ')' || c == ';' || c == '\'' || (c >= 'a' && c <= 'z'))
      return false;
  }
  if (i == 0) return false;
  if (i == text.size()) return true;
  int depth = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || is_blank(c) || c == ';' || c == '\'' || (c >= 'a' && c <= 'z')) return false;
    if (c == '(') {
      std::size_t next = i + 1;
      while (next < text.size() && text[next] == ',') ++next;
      if (next < text.size() && text[next] == ')') return false;  // "()" is an empty value
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i + 1 == text.size();
    }
  }
  return false;  // the group does not close
}

std::string to_mqsc(const command& cmd) {
  std::string out = cmd.verb;
  if (!cmd.object_type.empty()) {
    out += ' ';
    out += cmd.object_type;
  }
  if (cmd.name) {
    out += '(';
    append_value(out, *cmd.name);
    out += ')';
  }
  for (const parameter& p : cmd.parameters) {
    out += ' ';
    out += p.keyword;
    if (!p.has_parens) continue;
    // WHERE(CURDEPTH GT 0) reads as a phrase; lists are written as IBM's DISPLAY output writes them.
    const char separator = p.keyword == "WHERE" ? ' ' : ',';
    out += '(';
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      if (i != 0) out += separator;
      append_value(out, p.values[i]);
    }
    out += ')';
  }
  return out;
}

}  // namespace imsb::mqsc
