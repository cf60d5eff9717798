#include "imsb/bridgemap/operator.hpp"

#include <cctype>
#include <system_error>
#include <utility>
#include <vector>

namespace imsb::bridgemap {
namespace {

// One word of the command line: KEYWORD or KEYWORD(value), as MQSC writes them. `has_value` tells
// KEYWORD() (an empty value) from KEYWORD.
struct word {
  std::string keyword;  // upper-cased
  std::string value;    // upper-cased unless it was quoted
  bool has_value = false;
  std::size_t offset = 0;        // of the keyword in the line
  std::size_t value_offset = 0;  // of the value
};

decode_error op_error(std::string field, std::size_t offset, std::string detail) {
  return decode_error{std::make_error_code(std::errc::invalid_argument), std::move(field), offset,
                      std::move(detail)};
}

char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string upper_of(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = upper(c);
  return r;
}

// Splits the line into words. A value is everything up to the matching ')'; in quotes ('...', with
// '' for a quote) it keeps its case, otherwise it is upper-cased as MQSC does.
result<std::vector<word>> split(std::string_view line) {
  std::vector<word> words;
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    while (i < n && is_space(line[i])) ++i;
    if (i >= n) break;
    word w;
    w.offset = i;
    const std::size_t start = i;
    while (i < n && !is_space(line[i]) && line[i] != '(' && line[i] != ')') ++i;
    if (i == start) {
      return op_error(std::string(1, line[i]), i, std::string("unexpected '") + line[i] + "'");
    }
    w.keyword = upper_of(line.substr(start, i - start));
    std::size_t j = i;
    while (j < n && is_space(line[j])) ++j;
    if (j < n && line[j] == '(') {
      i = j + 1;
      while (i < n && is_space(line[i])) ++i;
      w.has_value = true;
      w.value_offset = i;
      if (i < n && line[i] == '\'') {
        ++i;
        bool closed = false;
        while (i < n) {
          if (line[i] == '\'') {
            if (i + 1 < n && line[i + 1] == '\'') {
              w.value += '\'';
              i += 2;
              continue;
            }
            closed = true;
            ++i;
            break;
          }
          w.value += line[i++];
        }
        if (!closed)
          return op_error(w.keyword, w.value_offset, w.keyword + ": the quoted value has no closing quote");
        while (i < n && is_space(line[i])) ++i;
        if (i >= n || line[i] != ')')
          return op_error(w.keyword, i, w.keyword + ": ')' expected after the quoted value");
      } else {
        const std::size_t vstart = i;
        while (i < n && line[i] != ')' && line[i] != '(') ++i;
        if (i >= n || line[i] != ')') return op_error(w.keyword, w.offset, w.keyword + ": '(' without ')'");
        std::string_view v = line.substr(vstart, i - vstart);
        while (!v.empty() && is_space(v.back())) v.remove_suffix(1);
        w.value = upper_of(v);
      }
      ++i;  // the ')'
    }
    words.push_back(std::move(w));
  }
  return words;
}

result<std::uint32_t> number(const word& w) {
  const std::string what = w.keyword + " must be 0..4294967295";
  if (w.value.empty() || w.value.size() > 10) return op_error(w.keyword, w.value_offset, what);
  std::uint64_t v = 0;
  for (char c : w.value) {
    if (c < '0' || c > '9') return op_error(w.keyword, w.value_offset, what);
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v > 0xFFFFFFFFull) return op_error(w.keyword, w.value_offset, what);
  return static_cast<std::uint32_t>(v);
}

// A name of at most `max` characters without blanks (Tpipe names 8, XCF group 8, XCF member 16)
// [C: IMS-NAMES, XCF-NAMES2].
std::optional<decode_error> check_name(const word& w, std::size_t max) {
  if (w.value.empty()) return op_error(w.keyword, w.value_offset, w.keyword + " needs a name");
  if (w.value.size() > max) {
    return op_error(w.keyword, w.value_offset,
                    w.keyword + "(" + w.value + ") is longer than " + std::to_string(max) + " characters");
  }
  for (char c : w.value) {
    if (is_space(c) || c == ',' || static_cast<unsigned char>(c) < 0x20) {
      return op_error(w.keyword, w.value_offset,
                      w.keyword + "(" + w.value + ") contains a blank or a control character");
    }
  }
  return std::nullopt;
}

std::optional<decode_error> no_value(const word& w) {
  if (w.has_value) return op_error(w.keyword, w.offset, w.keyword + " takes no value");
  return std::nullopt;
}

std::optional<decode_error> no_more(const std::vector<word>& ws, std::size_t from, std::string_view command) {
  if (ws.size() > from) {
    return op_error(ws[from].keyword, ws[from].offset,
                    std::string(command) + " takes nothing more; found " + ws[from].keyword);
  }
  return std::nullopt;
}

result<operator_command> display(const std::vector<word>& ws) {
  if (auto e = no_value(ws[0])) return *e;
  if (ws.size() < 2)
    return op_error("DISPLAY", ws[0].offset, "DISPLAY needs PARTNER, QUEUE, TPIPE or SYSTEM");
  const word& what = ws[1];
  operator_command c;
  if (what.keyword == "TPIPE") {
    c.verb = operator_verb::display_tpipe;
    c.tpipe = "*";
    if (what.has_value) {
      if (what.value != "*") {
        if (auto e = check_name(what, 8)) return *e;
      }
      c.tpipe = what.value;
    }
  } else {
    if (what.keyword == "PARTNER") {
      c.verb = operator_verb::display_partner;
    } else if (what.keyword == "QUEUE") {
      c.verb = operator_verb::display_queue;
    } else if (what.keyword == "SYSTEM") {
      c.verb = operator_verb::display_system;
    } else {
      return op_error(what.keyword, what.offset,
                      "DISPLAY " + what.keyword + " is not known; DISPLAY PARTNER, QUEUE, TPIPE or SYSTEM");
    }
    if (auto e = no_value(what)) return *e;
  }
  if (auto e = no_more(ws, 2, "DISPLAY " + what.keyword)) return *e;
  return c;
}

// SUSPEND / RESUME QMGR FACILITY(IMSBRIDGE) [C: CONTROL-BRIDGE].
result<operator_command> facility(const std::vector<word>& ws, operator_verb verb) {
  const std::string& cmd = ws[0].keyword;
  if (auto e = no_value(ws[0])) return *e;
  if (ws.size() < 2 || ws[1].keyword != "QMGR") {
    return op_error(ws.size() < 2 ? cmd : ws[1].keyword, ws.size() < 2 ? ws[0].offset : ws[1].offset,
                    cmd + " needs QMGR FACILITY(IMSBRIDGE)");
  }
  if (auto e = no_value(ws[1])) return *e;
  if (ws.size() < 3 || ws[2].keyword != "FACILITY") {
    return op_error("FACILITY", ws.size() < 3 ? ws[1].offset : ws[2].offset,
                    cmd + " QMGR needs FACILITY(IMSBRIDGE)");
  }
  if (!ws[2].has_value || ws[2].value != "IMSBRIDGE") {
    return op_error("FACILITY", ws[2].has_value ? ws[2].value_offset : ws[2].offset,
                    "FACILITY(" + ws[2].value + ") is not supported: only FACILITY(IMSBRIDGE)");
  }
  if (auto e = no_more(ws, 3, cmd + " QMGR FACILITY(IMSBRIDGE)")) return *e;
  operator_command c;
  c.verb = verb;
  return c;
}

// RESET TPIPE(name) XCFMNAME(m) [XCFGNAME(g)] [SENDSEQ(n)] [RCVSEQ(n)] [ACTION(COMMIT|BACKOUT)]
// [C: RESET-TPIPE]; keywords after TPIPE in any order, each at most once, as MQSC.
result<operator_command> reset(const std::vector<word>& ws) {
  if (auto e = no_value(ws[0])) return *e;
  if (ws.size() < 2 || ws[1].keyword != "TPIPE") {
    return op_error(ws.size() < 2 ? "RESET" : ws[1].keyword, ws.size() < 2 ? ws[0].offset : ws[1].offset,
                    "RESET needs TPIPE(name)");
  }
  operator_command c;
  c.verb = operator_verb::reset_tpipe;
  if (!ws[1].has_value) return op_error("TPIPE", ws[1].offset, "RESET TPIPE needs a Tpipe name: TPIPE(name)");
  if (auto e = check_name(ws[1], 8)) return *e;
  c.tpipe = ws[1].value;
  bool seen_member = false;
  bool seen_group = false;
  for (std::size_t i = 2; i < ws.size(); ++i) {
    const word& w = ws[i];
    const bool dup = (w.keyword == "XCFMNAME" && seen_member) || (w.keyword == "XCFGNAME" && seen_group) ||
                     (w.keyword == "SENDSEQ" && c.send_seq) || (w.keyword == "RCVSEQ" && c.receive_seq) ||
                     (w.keyword == "ACTION" && c.reset_action != operator_command::action::none) ||
                     w.keyword == "TPIPE";
    if (dup) return op_error(w.keyword, w.offset, w.keyword + " is given twice");
    const bool known = w.keyword == "XCFMNAME" || w.keyword == "XCFGNAME" || w.keyword == "SENDSEQ" ||
                       w.keyword == "RCVSEQ" || w.keyword == "ACTION";
    if (!known) {
      return op_error(w.keyword, w.offset,
                      "RESET TPIPE does not take " + w.keyword +
                          "; it takes XCFMNAME, XCFGNAME, SENDSEQ, RCVSEQ and ACTION");
    }
    if (!w.has_value) return op_error(w.keyword, w.offset, w.keyword + " needs a value in parentheses");
    if (w.keyword == "XCFMNAME") {
      if (auto e = check_name(w, 16)) return *e;
      c.xcf_member = w.value;
      seen_member = true;
    } else if (w.keyword == "XCFGNAME") {
      if (auto e = check_name(w, 8)) return *e;
      c.xcf_group = w.value;
      seen_group = true;
    } else if (w.keyword == "SENDSEQ") {
      auto n = number(w);
      if (!n) return n.error();
      c.send_seq = *n;
    } else if (w.keyword == "RCVSEQ") {
      auto n = number(w);
      if (!n) return n.error();
      c.receive_seq = *n;
    } else {
      if (w.value == "COMMIT") {
        c.reset_action = operator_command::action::commit;
      } else if (w.value == "BACKOUT") {
        c.reset_action = operator_command::action::backout;
      } else {
        return op_error("ACTION", w.value_offset,
                        "ACTION(" + w.value + ") must be ACTION(COMMIT) or ACTION(BACKOUT)");
      }
    }
  }
  if (!seen_member) return op_error("XCFMNAME", ws[1].offset, "RESET TPIPE needs XCFMNAME");
  return c;
}

}  // namespace

result<operator_command> parse_operator_command(std::string_view line) {
  auto ws = split(line);
  if (!ws) return ws.error();
  if (ws->empty()) return op_error("", 0, "empty command");
  const std::string& verb = ws->front().keyword;
  if (verb == "DISPLAY" || verb == "DIS" || verb == "DISP") return display(*ws);
  if (verb == "SUSPEND") return facility(*ws, operator_verb::suspend);
  if (verb == "RESUME") return facility(*ws, operator_verb::resume);
  if (verb == "RESET") return reset(*ws);
  if (verb == "STOP") {
    if (auto e = no_value(ws->front())) return *e;
    if (auto e = no_more(*ws, 1, "STOP")) return *e;
    operator_command c;
    c.verb = operator_verb::stop;
    return c;
  }
  return op_error(
      verb, ws->front().offset,
      "unknown command " + verb + "; the commands are DISPLAY, SUSPEND, RESUME, RESET TPIPE and STOP");
}

}  // namespace imsb::bridgemap
