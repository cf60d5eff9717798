// The emulator's definitions file (imsb/ims/definitions.hpp): IMS stage-1 macros, type-2 CREATE, DFSYDTx
// 'D' descriptors and a RACF stand-in, read as one text. Pure: no I/O, no exceptions; the first error ends
// the parse and names its line and keyword.
//
// Sources of the rules (labels [C]/[I]/[D] as in docs/design/README.md):
//  - TRANSACT MSGTYPE=(SNGLSEG|MULTSEG,RESPONSE|NONRESPONSE,class): segment count, response mode, message
//    class [C: IBM stage-1 TRANSACT macro]. The class is held in one byte here, so 1–255 (IMS 15 allows up
//    to 999) [D].
//  - TRANSACT SPA=(size[,STRUNC|RTRUNC]): a conversational transaction; a SPA is 16–32767 bytes [C: IBM
//    "Planning for conversational processing"].
//  - TRANSACT INQUIRY=(YES|NO[,RECOVER|NORECOV]): only inquiry transactions may be unrecoverable ("all
//    update transactions are recoverable"), and RECOVER is the default [C: IBM "IMS transaction types",
//    "Recoverable versus nonrecoverable transactions"].
//  - FPATH=YES: Fast Path. "All Fast Path transactions must be defined as recoverable" [C: IBM "IMS
//    transaction types"]; a Fast Path transaction is not conversational [I: IMS's FP restrictions].
//  - D name TYPE= TMEMBER= TPIPE=: blank-separated keywords, a name or a mask ending in '*'; a duplicate
//    descriptor name is an error (DFS2385E "DUPLICATE DESCRIPTOR NAME FOUND") [C: IBM DFSYDTx].
//  - /SECURE OTMA level [C: IMS-OTMASE, IMS-SEC-CHECK]; IMS accepts a verb's first three letters [C].
//  - Command authority compares the first three letters of a verb (RACF CIMS profiles name IMS commands
//    by their three-letter abbreviation) [I].
//
// Layout rules [D] beyond the header's: a statement's text may start in any column; keywords are
// separated by ',' or blanks, with blanks allowed around '=' and inside parentheses; a value may be
// quoted ('it''s'); the column-72 rule applies to card images (lines of 72–80 characters whose column 71
// is blank), so free-form text that merely runs past column 71 is never cut; columns 72–80 of such a
// card, and of the cards that continue it, are its continuation mark and sequence field and ignored. Comment
// lines may stand between continued lines; a blank one may not.

#include "imsb/ims/definitions.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/ims/programs.hpp"
#include "imsb/names/name_rules.hpp"

namespace imsb::ims {

std::string_view to_string(otma_security level) noexcept {
  switch (level) {
    case otma_security::none:
      return "NONE";
    case otma_security::check:
      return "CHECK";
    case otma_security::full:
      return "FULL";
    case otma_security::profile:
      return "PROFILE";
  }
  return "?";
}

namespace {

constexpr std::size_t card_continuation_column = 72;  // 1-based, as IMS macros [C]
constexpr std::size_t card_length = 80;
constexpr std::size_t max_nesting = 8;  // parentheses; bounds the recursion on any input
constexpr std::uint32_t min_spa = 16;
constexpr std::uint32_t max_spa = 32767;

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
char upper(char c) noexcept { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = upper(c);
  return out;
}
bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (upper(a[i]) != upper(b[i])) return false;
  return true;
}
std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}
std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}

// A character as it may be shown in a message: printable ASCII as is, anything else as X'hh'.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  constexpr char hex[] = "0123456789ABCDEF";
  return std::string("X'") + hex[u >> 4] + hex[u & 0xf] + "'";
}
// A value quoted for a message, control bytes made visible and long values shortened.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < 60; ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    out += (u >= 0x20 && u < 0x7f) ? std::string(1, s[i]) : shown(s[i]);
  }
  if (s.size() > 60) out += "...";
  return out + "'";
}

// IMS names (transaction codes, PSBs, LTERMs, user IDs, groups): 1–8 of A–Z 0–9 @ $ #, first not a
// digit [C: IMS names]. Why `name` breaks the rule, or nullopt.
std::optional<std::string> ims_name_problem(std::string_view name, std::size_t max_length = 8) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > max_length) return "is longer than " + std::to_string(max_length) + " characters";
  if (name[0] >= '0' && name[0] <= '9') return std::string("starts with a digit");
  for (char c : name) {
    if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' || c == '$' || c == '#') continue;
    if (c >= 'a' && c <= 'z') return "has lowercase " + shown(c) + " (IMS names are upper case)";
    return "has " + shown(c) + ", not one of A-Z 0-9 @ $ #";
  }
  return std::nullopt;
}

// One operand, or one element of a parenthesised list: `WORD`, `WORD(list)`, `(list)`, `WORD=value`,
// or empty (an omitted positional element, as in SPA=(80,)).
struct node {
  std::string text;  // as written (quotes removed)
  bool is_quoted = false;
  bool has_list = false;
  std::vector<node> list;
  std::vector<node> value;  // one node when written WORD=value
  std::size_t begin = 0;    // span in the statement text
  std::size_t end = 0;

  bool empty() const noexcept { return text.empty() && !is_quoted && !has_list && value.empty(); }
  bool is_atom() const noexcept { return !has_list && value.empty(); }
};

// A statement's text joined from its lines, with the input offset of every character.
struct statement {
  std::string text;
  std::vector<std::size_t> offset;
};

class parser {
 public:
  explicit parser(std::string_view input) : input_(input) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < input.size(); ++i)
      if (input[i] == '\n') line_starts_.push_back(i + 1);
  }

  result<definitions> run();

 private:
  // --- errors -------------------------------------------------------------------------------------
  void fail_at_input(std::size_t input_offset, std::string detail) {
    if (error_) return;
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), input_offset);
    const auto line = static_cast<std::size_t>(it - line_starts_.begin());  // 1-based
    decode_error err;
    err.code = std::make_error_code(std::errc::invalid_argument);
    err.field = "definitions.line " + std::to_string(line);
    err.offset = line_starts_[line - 1];
    err.detail = std::move(detail);
    error_ = std::move(err);
  }
  std::size_t input_offset(std::size_t pos) const {
    if (stmt_.offset.empty()) return stmt_start_;
    return stmt_.offset[std::min(pos, stmt_.offset.size() - 1)];
  }
  // "<VERB>: <problem>" at a position of the statement.
  bool fail(std::size_t pos, const std::string& problem) {
    fail_at_input(input_offset(pos), verb_ + ": " + problem);
    return false;
  }
  // "<VERB>: keyword <KW>: <problem>".
  bool fail_keyword(const node& n, std::string_view keyword, const std::string& problem) {
    return fail(n.begin, "keyword " + std::string(keyword) + ": " + problem);
  }
  std::string raw(const node& n) const {
    return stmt_.text.substr(n.begin, n.end > n.begin ? n.end - n.begin : 0);
  }

  // --- lines and statements -----------------------------------------------------------------------
  bool read_statements();
  bool run_statement();

  // --- operands -----------------------------------------------------------------------------------
  void skip_blanks(std::size_t& i) const {
    while (i < stmt_.text.size() && is_blank(stmt_.text[i])) ++i;
  }
  bool parse_operands(std::size_t from, std::vector<node>& out);
  bool parse_item(std::size_t& i, std::size_t depth, node& out);
  bool parse_list(std::size_t& i, std::size_t depth, node& out);

  // Keyword operands of a statement: WORD=value (or WORD(list) where `paren_form`), each at most once,
  // each one of `known`.
  using keyword_map = std::map<std::string, const node*, std::less<>>;
  bool collect_keywords(const std::vector<node>& items, std::size_t first,
                        std::initializer_list<std::string_view> known, bool paren_form, keyword_map& out);
  // The single value of a keyword: WORD=atom, or WORD(atom) in the paren form.
  const node* single_value(const node& n, std::string_view keyword, bool paren_form);
  bool scalar(const node& n, std::string_view keyword, bool paren_form, std::string& out);
  bool name_value(const node& n, std::string_view keyword, bool paren_form, std::string& out);
  bool number_value(const node& n, std::string_view keyword, bool paren_form, std::uint32_t min,
                    std::uint32_t max, std::uint32_t& out);
  bool yes_no_value(const node& n, std::string_view keyword, bool paren_form, bool& out);
  // Elements of a list value: WORD=(a,b) / WORD=a, or WORD(a,b) in the paren form.
  bool list_value(const node& n, std::string_view keyword, bool paren_form, std::vector<const node*>& out);
  bool name_list(const node& n, std::string_view keyword, bool paren_form, std::vector<std::string>& out);
  bool program_runner(const node& n, std::string_view keyword, bool paren_form, program_def& program);

  // --- statements ---------------------------------------------------------------------------------
  bool ims_statement(const std::vector<node>& ops);
  bool applctn_statement(const std::vector<node>& ops);
  bool transact_statement(const std::vector<node>& ops);
  bool name_statement(const std::vector<node>& ops);
  bool create_statement(const std::vector<node>& ops);
  bool create_pgm(const node& name, const node* set);
  bool create_tran(const node& name, const node* set);
  bool descriptor_statement(const std::vector<node>& ops);
  bool command_list(const node& n, std::vector<std::string>& out);
  bool user_statement(const std::vector<node>& ops);
  bool group_statement(const std::vector<node>& ops);
  bool secure_statement(const std::vector<node>& ops);
  bool stop_statement(const std::vector<node>& ops);
  bool client_statement(const std::vector<node>& ops);
  bool finish();

  bool add_program(const node& at, std::string_view keyword, program_def program);
  bool add_transaction(const node& at, std::string_view keyword, transaction_def tran);

  std::string_view input_;
  std::vector<std::size_t> line_starts_;
  std::optional<decode_error> error_;
  definitions defs_;

  statement stmt_;
  std::size_t stmt_start_ = 0;  // input offset of the statement's first line
  std::string verb_;

  const program_def* current_applctn_ = nullptr;  // the APPLCTN a TRANSACT belongs to
  bool seen_ims_ = false;
  struct deferred {  // checked once everything is read: later statements may define what these name
    std::size_t input_offset;
    std::string detail_prefix;
    std::string name;
  };
  std::vector<deferred> user_groups_;  // USER GROUPS=(g): g must be a GROUP
  std::vector<deferred> stops_;        // STOP TRAN=t: t must be a transaction
};

// Splits the input into statements (continuations joined) and runs each.
bool parser::read_statements() {
  bool continuing = false;
  bool card_continued = false;  // the statement so far came on cards continued in column 72
  std::size_t last_line_start = 0;
  for (std::size_t n = 0; n < line_starts_.size(); ++n) {
    const std::size_t start = line_starts_[n];
    if (start == input_.size() && n > 0) break;  // the end of a text whose last line ends with '\n'
    std::size_t stop = n + 1 < line_starts_.size() ? line_starts_[n + 1] - 1 : input_.size();
    std::string_view line = input_.substr(start, stop - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    if (!line.empty() && line[0] == '*') continue;  // a comment, even between continued lines
    if (trim_right(line).empty()) {
      if (continuing) {
        fail_at_input(start, "the statement above continues (a ',' or column 72) but this line is blank");
        return false;
      }
      continue;
    }

    bool continues = false;
    const bool card = line.size() >= card_continuation_column && line.size() <= card_length;
    if (card && !is_blank(line[card_continuation_column - 1]) &&
        is_blank(line[card_continuation_column - 2])) {
      continues = true;
      line = line.substr(0, card_continuation_column - 1);
      card_continued = true;
    } else if (card && continuing && card_continued) {
      line = line.substr(0, card_continuation_column - 1);  // the last card of a continued deck
    }
    std::size_t lead = line.size() - trim_left(line).size();
    std::string_view content = trim_right(line.substr(lead));
    if (!content.empty() && content.back() == ',') continues = true;

    if (!continuing) {
      stmt_ = statement{};
      stmt_start_ = start;
    } else if (!content.empty() && !stmt_.text.empty() && stmt_.text.back() != ',') {
      stmt_.text.push_back(' ');  // a card continued in column 72 without a comma: a separator
      stmt_.offset.push_back(start);
    }
    for (std::size_t i = 0; i < content.size(); ++i) {
      stmt_.text.push_back(content[i]);
      stmt_.offset.push_back(start + lead + i);
    }
    last_line_start = start;
    continuing = continues;
    if (!continuing) card_continued = false;
    if (!continuing && !run_statement()) return false;
  }
  if (continuing) {
    fail_at_input(last_line_start, "the statement continues (a ',' or column 72) past the end of the input");
    return false;
  }
  return true;
}

bool parser::parse_operands(std::size_t from, std::vector<node>& out) {
  std::size_t i = from;
  for (;;) {
    skip_blanks(i);
    if (i >= stmt_.text.size()) return true;
    const char c = stmt_.text[i];
    if (c == ',') {
      if (!out.empty() && i > 0) {
        // One ',' after an operand separates it from the next; a second one leaves an operand out.
        std::size_t j = i + 1;
        skip_blanks(j);
        if (j < stmt_.text.size() && stmt_.text[j] == ',') return fail(j, "an empty operand (',,')");
        if (j >= stmt_.text.size()) return fail(i, "a ',' with no operand after it");
        i = j;
        continue;
      }
      return fail(i, "an operand is missing before ','");
    }
    if (c == ')') return fail(i, "a ')' without its '('");
    node n;
    if (!parse_item(i, 0, n)) return false;
    if (n.text.empty() && !n.is_quoted && n.has_list) return fail(n.begin, "a list without a keyword");
    out.push_back(std::move(n));
    skip_blanks(i);
    if (i < stmt_.text.size() && stmt_.text[i] != ',' && !is_blank(stmt_.text[i]) && stmt_.text[i] != '(') {
      if (stmt_.text[i] == ')') return fail(i, "a ')' without its '('");
      if (stmt_.text[i] == '=') return fail(i, "a '=' without a keyword before it");
    }
  }
}

bool parser::parse_list(std::size_t& i, std::size_t depth, node& out) {
  // At '('.
  if (depth >= max_nesting) return fail(i, "parentheses nested deeper than " + std::to_string(max_nesting));
  const std::size_t open = i;
  ++i;
  out.has_list = true;
  for (;;) {
    node item;
    if (!parse_item(i, depth + 1, item)) return false;
    out.list.push_back(std::move(item));
    skip_blanks(i);
    if (i >= stmt_.text.size()) return fail(open, "a '(' without its ')'");
    const char c = stmt_.text[i];
    if (c == ')') {
      ++i;
      out.end = i;
      return true;
    }
    if (c == ',') {
      ++i;
      continue;
    }
    if (c == '=') return fail(i, "a '=' inside parentheses");
    // Blanks also separate elements (IMS type-2 commands allow them): the loop reads the next one.
  }
}

bool parser::parse_item(std::size_t& i, std::size_t depth, node& out) {
  skip_blanks(i);
  const std::string& t = stmt_.text;
  out.begin = i;
  out.end = i;
  if (i >= t.size() || t[i] == ',' || t[i] == ')') return true;  // an omitted element
  if (t[i] == '(') return parse_list(i, depth, out);
  if (t[i] == '=') return fail(i, "a '=' without a keyword before it");
  if (t[i] == '\'') {
    out.is_quoted = true;
    ++i;
    for (;;) {
      if (i >= t.size()) return fail(out.begin, "a quote without its closing quote");
      if (t[i] == '\'') {
        if (i + 1 < t.size() && t[i + 1] == '\'') {
          out.text.push_back('\'');
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      out.text.push_back(t[i++]);
    }
  } else {
    while (i < t.size() && !is_blank(t[i]) && t[i] != ',' && t[i] != '(' && t[i] != ')' && t[i] != '=' &&
           t[i] != '\'')
      out.text.push_back(t[i++]);
  }
  out.end = i;
  if (!out.is_quoted && i < t.size() && t[i] == '(') {
    node list;
    if (!parse_list(i, depth, list)) return false;
    out.has_list = true;
    out.list = std::move(list.list);
    out.end = i;
    return true;
  }
  std::size_t j = i;
  skip_blanks(j);
  if (j < t.size() && t[j] == '=') {
    if (out.is_quoted) return fail(j, "a '=' after a quoted value");
    ++j;
    skip_blanks(j);
    if (j >= t.size() || t[j] == ',' || t[j] == ')' || is_blank(t[j]))
      return fail(out.begin, "keyword " + upper(out.text) + ": no value after '='");
    node value;
    if (!parse_item(j, depth + 1, value)) return false;
    if (!value.value.empty()) return fail(value.begin, "keyword " + upper(out.text) + ": a second '='");
    out.value.push_back(std::move(value));
    i = j;
    out.end = i;
  }
  return true;
}

bool parser::collect_keywords(const std::vector<node>& items, std::size_t first,
                              std::initializer_list<std::string_view> known, bool paren_form,
                              keyword_map& out) {
  for (std::size_t k = first; k < items.size(); ++k) {
    const node& n = items[k];
    const std::string key = upper(n.text);
    if (n.is_quoted || key.empty())
      return fail(n.begin, "unexpected " + quoted(raw(n)) + " where a keyword was expected");
    bool found = false;
    for (std::string_view kw : known) found = found || kw == key;
    if (!found) {
      std::string list;
      for (std::string_view kw : known) list += (list.empty() ? "" : ", ") + std::string(kw);
      return fail_keyword(n, key, "unknown keyword (known here: " + list + ")");
    }
    if (paren_form ? !n.has_list || !n.value.empty() : n.value.empty())
      return fail_keyword(n, key, paren_form ? "expected " + key + "(value)" : "expected " + key + "=value");
    if (!out.emplace(key, &n).second) return fail_keyword(n, key, "given twice");
  }
  return true;
}

const node* parser::single_value(const node& n, std::string_view keyword, bool paren_form) {
  const node* v = nullptr;
  if (paren_form) {
    if (n.list.size() == 1) v = &n.list[0];
  } else if (!n.value.empty()) {
    v = &n.value[0];
  }
  if (v == nullptr || !v->is_atom() || v->empty()) {
    fail_keyword(n, keyword, quoted(raw(n)) + " is not a single value");
    return nullptr;
  }
  return v;
}

bool parser::scalar(const node& n, std::string_view keyword, bool paren_form, std::string& out) {
  const node* v = single_value(n, keyword, paren_form);
  if (v == nullptr) return false;
  out = v->text;
  return true;
}

bool parser::name_value(const node& n, std::string_view keyword, bool paren_form, std::string& out) {
  if (!scalar(n, keyword, paren_form, out)) return false;
  if (auto problem = ims_name_problem(out)) return fail_keyword(n, keyword, quoted(out) + " " + *problem);
  return true;
}

bool parser::number_value(const node& n, std::string_view keyword, bool paren_form, std::uint32_t min,
                          std::uint32_t max, std::uint32_t& out) {
  std::string text;
  if (!scalar(n, keyword, paren_form, text)) return false;
  std::uint64_t value = 0;
  bool digits = !text.empty() && text.size() <= 10;
  for (char c : text) {
    if (c < '0' || c > '9') digits = false;
    if (digits) value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (!digits) return fail_keyword(n, keyword, quoted(text) + " is not a number");
  if (value < min || value > max)
    return fail_keyword(n, keyword,
                        quoted(text) + " is outside " + std::to_string(min) + "-" + std::to_string(max));
  out = static_cast<std::uint32_t>(value);
  return true;
}

bool parser::yes_no_value(const node& n, std::string_view keyword, bool paren_form, bool& out) {
  std::string text;
  if (!scalar(n, keyword, paren_form, text)) return false;
  if (iequals(text, "YES") || iequals(text, "Y")) {
    out = true;
  } else if (iequals(text, "NO") || iequals(text, "N")) {
    out = false;
  } else {
    return fail_keyword(n, keyword, quoted(text) + " is not YES or NO");
  }
  return true;
}

bool parser::list_value(const node& n, std::string_view keyword, bool paren_form,
                        std::vector<const node*>& out) {
  out.clear();
  if (paren_form) {
    for (const node& e : n.list) out.push_back(&e);
  } else if (!n.value.empty()) {
    const node& v = n.value[0];
    if (v.has_list && v.text.empty() && !v.is_quoted) {
      for (const node& e : v.list) out.push_back(&e);
    } else {
      out.push_back(&v);
    }
  }
  for (const node* e : out)
    if (!e->is_atom()) return fail_keyword(n, keyword, quoted(raw(*e)) + " is not a simple value");
  return true;
}

bool parser::name_list(const node& n, std::string_view keyword, bool paren_form,
                       std::vector<std::string>& out) {
  std::vector<const node*> elements;
  if (!list_value(n, keyword, paren_form, elements)) return false;
  out.clear();
  for (const node* e : elements) {
    if (e->empty()) continue;  // (A,,B): an omitted element says nothing
    if (auto problem = ims_name_problem(e->text))
      return fail_keyword(n, keyword, quoted(e->text) + " " + *problem);
    if (std::find(out.begin(), out.end(), e->text) == out.end()) out.push_back(e->text);
  }
  return true;
}

// PGM=builtin:NAME | external:/path [D].
bool parser::program_runner(const node& n, std::string_view keyword, bool paren_form, program_def& program) {
  std::string text;
  if (!scalar(n, keyword, paren_form, text)) return false;
  const auto colon = text.find(':');
  const std::string kind = upper(std::string_view(text).substr(0, colon == std::string::npos ? 0 : colon));
  const std::string what = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  if (kind == "BUILTIN") {
    const std::string name = upper(what);
    if (!is_builtin(name)) {
      std::string list;
      for (std::string_view b : builtin_programs()) list += (list.empty() ? "" : " ") + std::string(b);
      return fail_keyword(n, keyword, quoted(what) + " is not a built-in program (" + list + ")");
    }
    program.builtin = name;
    program.external.clear();
    return true;
  }
  if (kind == "EXTERNAL") {
    if (what.empty()) return fail_keyword(n, keyword, "external: needs the path of a program");
    program.external = what;
    program.builtin.clear();
    return true;
  }
  return fail_keyword(n, keyword, quoted(text) + " is neither builtin:NAME nor external:PATH");
}

bool parser::add_program(const node& at, std::string_view keyword, program_def program) {
  if (defs_.programs.count(program.name) != 0)
    return fail_keyword(at, keyword, "program " + program.name + " is defined twice");
  const std::string name = program.name;
  current_applctn_ = &defs_.programs.emplace(name, std::move(program)).first->second;
  return true;
}

bool parser::add_transaction(const node& at, std::string_view keyword, transaction_def tran) {
  if (defs_.transactions.count(tran.code) != 0) {
    return fail_keyword(at, keyword,
                        "transaction " + tran.code + " is defined twice (first on line " +
                            std::to_string(defs_.transactions.find(tran.code)->second.line) + ")");
  }
  if (const auto lt = defs_.lterms.find(tran.code); lt != defs_.lterms.end())
    return fail_keyword(at, keyword,
                        tran.code + " is already an LTERM (line " + std::to_string(lt->second) +
                            "): a transaction and an LTERM cannot share a name");
  if (tran.fast_path && !tran.recoverable)
    return fail_keyword(at, keyword,
                        "Fast Path transaction " + tran.code + " must be recoverable (IMS requires it)");
  if (tran.fast_path && tran.conversational)
    return fail_keyword(at, keyword, "Fast Path transaction " + tran.code + " cannot be conversational");
  const std::string code = tran.code;
  defs_.transactions.emplace(code, std::move(tran));
  return true;
}

// IMS GRNAME=,OTMANM=,IMSID=,MAXTP=,INPUT=,HEARTBEAT= ([C: IMS-GRNAME, IMS-FLOOD, IMS-MSG-DFS4385E];
// HEARTBEAT [D]).
bool parser::ims_statement(const std::vector<node>& ops) {
  if (seen_ims_) return fail(0, "a second IMS statement (the system is defined once)");
  seen_ims_ = true;
  keyword_map kw;
  if (!collect_keywords(ops, 0, {"GRNAME", "OTMANM", "IMSID", "MAXTP", "INPUT", "HEARTBEAT"}, false, kw))
    return false;
  for (const auto& [key, n] : kw) {
    if (key == "GRNAME") {
      std::string v;
      if (!scalar(*n, key, false, v)) return false;
      if (auto p = names::check_xcf_group_name(v, names::xcf_rules::bridge))
        return fail_keyword(*n, key, p->reason);
      defs_.grname = v;
    } else if (key == "OTMANM") {
      std::string v;
      if (!scalar(*n, key, false, v)) return false;
      if (auto p = names::check_xcf_member_name(v, names::xcf_rules::bridge))
        return fail_keyword(*n, key, p->reason);
      defs_.otmanm = v;
    } else if (key == "IMSID") {
      std::string v;
      if (!scalar(*n, key, false, v)) return false;
      // 1–4 characters [C: IMS IMSID]; the IMS name characters [I].
      if (auto p = ims_name_problem(v, 4)) return fail_keyword(*n, key, quoted(v) + " " + *p);
      defs_.imsid = v;
    } else if (key == "MAXTP") {
      // Up to six digits, as DFSOTMA's MAXTP= [I]; 0 = no limit [D].
      if (!number_value(*n, key, false, 0, 999999, defs_.maxtp)) return false;
    } else if (key == "INPUT") {
      std::uint32_t v = 0;
      if (!number_value(*n, key, false, 0, 9999, v)) return false;
      if (v != 0 && v < 200)  // 200–9999, 0 = off [C: IMS-FLOOD]
        return fail_keyword(*n, key,
                            quoted(raw(n->value[0])) + " is outside 200-9999 (0 turns flood control off)");
      defs_.tib_limit = v;
    } else if (key == "HEARTBEAT") {
      // Seconds between X'3C' server-state messages, 0 = none [D].
      if (!number_value(*n, key, false, 0, 86400, defs_.heartbeat_seconds)) return false;
    }
  }
  return true;
}

// APPLCTN PSB=,PGMTYPE=TP[,FPATH=][,PGM=] (stage-1 [C]; PGM= [D]). SCHDTYP, RESIDENT and DOPT are
// IBM's keywords that mean nothing to the emulator: accepted so that real stage-1 text reads [D].
bool parser::applctn_statement(const std::vector<node>& ops) {
  keyword_map kw;
  if (!collect_keywords(ops, 0, {"PSB", "PGMTYPE", "FPATH", "PGM", "SCHDTYP", "RESIDENT", "DOPT"}, false, kw))
    return false;
  program_def program;
  const auto psb = kw.find("PSB");
  if (psb == kw.end()) return fail(0, "keyword PSB: missing (APPLCTN PSB=name)");
  if (!name_value(*psb->second, "PSB", false, program.name)) return false;
  if (const auto t = kw.find("PGMTYPE"); t != kw.end()) {
    std::vector<const node*> parts;
    if (!list_value(*t->second, "PGMTYPE", false, parts)) return false;
    // (TP[,class]): the emulator runs message programs only [D].
    if (parts.empty() || !iequals(parts[0]->text, "TP"))
      return fail_keyword(
          *t->second, "PGMTYPE",
          quoted(raw(t->second->value[0])) + " is not TP (the emulator runs message programs only)");
  }
  if (const auto f = kw.find("FPATH"); f != kw.end())
    if (!yes_no_value(*f->second, "FPATH", false, program.fast_path)) return false;
  if (const auto p = kw.find("PGM"); p != kw.end()) {
    if (!program_runner(*p->second, "PGM", false, program)) return false;
  } else if (is_builtin(program.name)) {
    program.builtin = program.name;
  } else {
    return fail(0, "keyword PGM: missing: PSB " + program.name +
                       " is not a built-in, so PGM=builtin:NAME or PGM=external:PATH must say what runs it");
  }
  return add_program(*psb->second, "PSB", std::move(program));
}

// TRANSACT CODE=,MSGTYPE=,SPA=,INQUIRY=,FPATH= (stage-1 [C]). PRTY PROCLIM EDIT MODE PARLIM SEGNO SEGSIZE
// MAXRGN WFI: IBM's, accepted and ignored [D].
bool parser::transact_statement(const std::vector<node>& ops) {
  keyword_map kw;
  if (!collect_keywords(ops, 0,
                        {"CODE", "MSGTYPE", "SPA", "INQUIRY", "FPATH", "PRTY", "PROCLIM", "EDIT", "MODE",
                         "PARLIM", "SEGNO", "SEGSIZE", "MAXRGN", "WFI"},
                        false, kw))
    return false;
  const auto code = kw.find("CODE");
  if (code == kw.end()) return fail(0, "keyword CODE: missing (TRANSACT CODE=name)");
  if (current_applctn_ == nullptr)
    return fail_keyword(*code->second, "CODE",
                        "a TRANSACT before any APPLCTN (it belongs to the APPLCTN above it)");
  std::vector<std::string> codes;  // CODE=(A,B): several codes with the same attributes [I]
  if (!name_list(*code->second, "CODE", false, codes)) return false;
  if (codes.empty()) return fail_keyword(*code->second, "CODE", "no transaction code");

  transaction_def tran;
  tran.program = current_applctn_->name;
  tran.fast_path = current_applctn_->fast_path;
  tran.line = static_cast<std::size_t>(
      std::upper_bound(line_starts_.begin(), line_starts_.end(), input_offset(code->second->begin)) -
      line_starts_.begin());

  if (const auto m = kw.find("MSGTYPE"); m != kw.end()) {
    std::vector<const node*> parts;
    if (!list_value(*m->second, "MSGTYPE", false, parts)) return false;
    bool seg = false, resp = false, cls = false;
    for (const node* p : parts) {
      if (p->empty()) continue;
      const std::string v = upper(p->text);
      if ((v == "SNGLSEG" || v == "MULTSEG") && !seg) {
        seg = true;
      } else if ((v == "RESPONSE" || v == "NONRESPONSE") && !resp) {
        resp = true;
        tran.response_mode = v == "RESPONSE";
      } else if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos && !cls) {
        cls = true;
        if (v.size() > 3 || std::stoul(v) < 1 || std::stoul(v) > 255)
          return fail_keyword(*m->second, "MSGTYPE", "class " + quoted(p->text) + " is outside 1-255");
        tran.message_class = static_cast<std::uint8_t>(std::stoul(v));
      } else {
        return fail_keyword(
            *m->second, "MSGTYPE",
            quoted(p->text) + " is not SNGLSEG|MULTSEG, RESPONSE|NONRESPONSE or a class, once each");
      }
    }
  }
  if (const auto s = kw.find("SPA"); s != kw.end()) {
    std::vector<const node*> parts;
    if (!list_value(*s->second, "SPA", false, parts)) return false;
    const std::string size = parts.empty() ? std::string() : parts[0]->text;
    if (size.empty() || size.size() > 5 || size.find_first_not_of("0123456789") != std::string::npos)
      return fail_keyword(*s->second, "SPA", quoted(raw(s->second->value[0])) + " is not a size");
    const auto spa = static_cast<std::uint32_t>(std::stoul(size));
    if (spa < min_spa || spa > max_spa)
      return fail_keyword(*s->second, "SPA", "size " + size + " is outside 16-32767");
    if (parts.size() > 2 || (parts.size() == 2 && !parts[1]->empty() && !iequals(parts[1]->text, "STRUNC") &&
                             !iequals(parts[1]->text, "RTRUNC")))
      return fail_keyword(*s->second, "SPA",
                          quoted(raw(s->second->value[0])) + " is not (size[,STRUNC|RTRUNC])");
    tran.conversational = true;
    tran.spa_size = spa;
  }
  if (const auto q = kw.find("INQUIRY"); q != kw.end()) {
    std::vector<const node*> parts;
    if (!list_value(*q->second, "INQUIRY", false, parts)) return false;
    const std::string what = upper(raw(q->second->value[0]));
    const std::string inquiry = parts.empty() ? std::string() : upper(parts[0]->text);
    const std::string recover = parts.size() > 1 ? upper(parts[1]->text) : std::string();
    if (parts.size() > 2 || (inquiry != "YES" && inquiry != "NO") ||
        (!recover.empty() && recover != "RECOVER" && recover != "NORECOV"))
      return fail_keyword(*q->second, "INQUIRY", quoted(what) + " is not (YES|NO[,RECOVER|NORECOV])");
    if (inquiry == "NO" && recover == "NORECOV")
      return fail_keyword(*q->second, "INQUIRY",
                          "only an inquiry transaction can be NORECOV (updates are recoverable)");
    tran.recoverable = recover != "NORECOV";
  }
  if (const auto f = kw.find("FPATH"); f != kw.end()) {
    bool fp = false;
    if (!yes_no_value(*f->second, "FPATH", false, fp)) return false;
    tran.fast_path = tran.fast_path || fp;
  }
  if (const auto pl = kw.find("PROCLIM"); pl != kw.end()) {
    // PROCLIM=(count,time) (stage-1 [C]); the time, in seconds, 1-65535 [I].
    std::vector<const node*> parts;
    if (!list_value(*pl->second, "PROCLIM", false, parts)) return false;
    const std::string what = quoted(raw(pl->second->value[0]));
    if (parts.size() > 2) return fail_keyword(*pl->second, "PROCLIM", what + " is not (count,seconds)");
    for (const node* p : parts) {
      if (p->empty()) continue;
      if (p->text.size() > 5 || p->text.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(p->text) > 65535)
        return fail_keyword(*pl->second, "PROCLIM",
                            what + ": " + quoted(p->text) + " is not a number 0-65535");
    }
    if (parts.size() == 2 && !parts[1]->empty())
      tran.time_limit_seconds = static_cast<std::uint32_t>(std::stoul(parts[1]->text));
  }
  // A Fast Path rule that fails is reported at the keyword that breaks it.
  const node* at = code->second;
  std::string_view at_kw = "CODE";
  if (tran.fast_path && !tran.recoverable) {
    at = kw.find("INQUIRY")->second;
    at_kw = "INQUIRY";
  } else if (tran.fast_path && tran.conversational) {
    at = kw.find("SPA")->second;
    at_kw = "SPA";
  }
  for (const std::string& c : codes) {
    transaction_def one = tran;
    one.code = c;
    if (!add_transaction(*at, at_kw, std::move(one))) return false;
  }
  return true;
}

// NAME lterm (stage-1 [C]).
bool parser::name_statement(const std::vector<node>& ops) {
  if (ops.empty() || !ops[0].is_atom() || ops[0].is_quoted)
    return fail(0, "NAME needs an LTERM name (NAME IVTNOLT)");
  if (ops.size() > 1)
    return fail(ops[1].begin, "unexpected " + quoted(raw(ops[1])) + " after the LTERM name");
  const node& n = ops[0];
  if (auto p = ims_name_problem(n.text)) return fail(n.begin, "LTERM " + quoted(n.text) + " " + *p);
  if (const auto lt = defs_.lterms.find(n.text); lt != defs_.lterms.end())
    return fail(n.begin,
                "LTERM " + n.text + " is defined twice (first on line " + std::to_string(lt->second) + ")");
  if (const auto t = defs_.transactions.find(n.text); t != defs_.transactions.end())
    return fail(n.begin, n.text + " is already a transaction (line " + std::to_string(t->second.line) +
                             "): a transaction and an LTERM cannot share a name");
  const auto line = static_cast<std::size_t>(
      std::upper_bound(line_starts_.begin(), line_starts_.end(), input_offset(n.begin)) -
      line_starts_.begin());
  defs_.lterms.emplace(n.text, line);
  return true;
}

// CREATE PGM|PROGRAM NAME(..) SET(..) / CREATE TRAN|TRANSACTION NAME(..) SET(..) [C: IMS type-2 CREATE].
bool parser::create_statement(const std::vector<node>& ops) {
  if (ops.empty() || !ops[0].is_atom()) return fail(0, "CREATE needs PGM or TRAN");
  const std::string type = upper(ops[0].text);
  const bool pgm = type == "PGM" || type == "PROGRAM";
  const bool tran = type == "TRAN" || type == "TRANSACTION";
  if (!pgm && !tran) return fail(ops[0].begin, quoted(ops[0].text) + " is not PGM or TRAN");
  verb_ = "CREATE " + std::string(pgm ? "PGM" : "TRAN");
  keyword_map kw;
  if (!collect_keywords(ops, 1, {"NAME", "SET"}, true, kw)) return false;
  const auto name = kw.find("NAME");
  if (name == kw.end()) return fail(ops[0].begin, "keyword NAME: missing (NAME(name))");
  const auto set = kw.find("SET");
  return pgm ? create_pgm(*name->second, set == kw.end() ? nullptr : set->second)
             : create_tran(*name->second, set == kw.end() ? nullptr : set->second);
}

bool parser::create_pgm(const node& name, const node* set) {
  std::vector<std::string> names;
  if (!name_list(name, "NAME", true, names)) return false;
  if (names.empty()) return fail_keyword(name, "NAME", "no program name");
  program_def program;
  bool has_run = false;
  if (set != nullptr) {
    keyword_map kw;
    if (!collect_keywords(set->list, 0, {"FP", "RUN"}, true, kw)) return false;
    if (const auto fp = kw.find("FP"); fp != kw.end()) {
      std::string v;
      if (!scalar(*fp->second, "FP", true, v)) return false;
      v = upper(v);
      if (v != "E" && v != "N" && v != "Y")
        return fail_keyword(*fp->second, "FP", quoted(v) + " is not E or N");
      program.fast_path = v != "N";  // E = Fast Path exclusive [C]; Y accepted for it [D]
    }
    if (const auto run = kw.find("RUN"); run != kw.end()) {
      if (!program_runner(*run->second, "RUN", true, program)) return false;
      has_run = true;
    }
  }
  for (const std::string& n : names) {
    program_def one = program;
    one.name = n;
    if (!has_run) {
      if (!is_builtin(n))
        return fail_keyword(
            name, "NAME",
            n + " is not a built-in, so SET(RUN(builtin:NAME|external:PATH)) must say what runs it");
      one.builtin = n;
    }
    if (!add_program(name, "NAME", std::move(one))) return false;
  }
  return true;
}

bool parser::create_tran(const node& name, const node* set) {
  std::vector<std::string> codes;
  if (!name_list(name, "NAME", true, codes)) return false;
  if (codes.empty()) return fail_keyword(name, "NAME", "no transaction code");
  if (set == nullptr) return fail_keyword(name, "SET", "missing: SET(PGM(name)) says which program runs it");
  keyword_map kw;
  if (!collect_keywords(
          set->list, 0,
          {"PGM", "RECOVER", "RESP", "SPASZ", "CONV", "FP", "STATUS", "CLASS", "INQ", "SPATRUNC", "PLCTTIME"},
          true, kw))
    return false;
  transaction_def tran;
  const auto pgm = kw.find("PGM");
  if (pgm == kw.end()) return fail_keyword(*set, "PGM", "missing: SET(PGM(name)) says which program runs it");
  if (!name_value(*pgm->second, "PGM", true, tran.program)) return false;
  const auto program = defs_.programs.find(tran.program);
  if (program == defs_.programs.end())
    return fail_keyword(
        *pgm->second, "PGM",
        "program " + tran.program + " is not defined (define it above with APPLCTN or CREATE PGM)");
  tran.fast_path = program->second.fast_path;
  if (const auto r = kw.find("RECOVER"); r != kw.end())
    if (!yes_no_value(*r->second, "RECOVER", true, tran.recoverable)) return false;
  if (const auto r = kw.find("RESP"); r != kw.end())
    if (!yes_no_value(*r->second, "RESP", true, tran.response_mode)) return false;
  if (const auto i = kw.find("INQ"); i != kw.end()) {
    bool inquiry = false;
    if (!yes_no_value(*i->second, "INQ", true, inquiry)) return false;
  }
  if (const auto t = kw.find("SPATRUNC"); t != kw.end()) {
    std::string v;
    if (!scalar(*t->second, "SPATRUNC", true, v)) return false;
    if (!iequals(v, "S") && !iequals(v, "R"))
      return fail_keyword(*t->second, "SPATRUNC", quoted(v) + " is not S or R");
  }
  if (const auto c = kw.find("CLASS"); c != kw.end()) {
    std::uint32_t cls = 0;
    if (!number_value(*c->second, "CLASS", true, 1, 255, cls)) return false;
    tran.message_class = static_cast<std::uint8_t>(cls);
  }
  if (const auto pl = kw.find("PLCTTIME"); pl != kw.end()) {
    // Hundredths of a second (type-2 [C]), held as whole seconds, rounded up.
    std::uint32_t hundredths = 0;
    if (!number_value(*pl->second, "PLCTTIME", true, 1, 6553500, hundredths)) return false;
    tran.time_limit_seconds = (hundredths + 99) / 100;
  }
  std::uint32_t spa = 0;
  const auto spasz = kw.find("SPASZ");
  if (spasz != kw.end()) {
    if (!number_value(*spasz->second, "SPASZ", true, 0, max_spa, spa)) return false;
    if (spa != 0 && spa < min_spa)
      return fail_keyword(*spasz->second, "SPASZ",
                          "size " + std::to_string(spa) + " is outside 16-32767 (0 = none)");
  }
  const auto conv = kw.find("CONV");
  bool conversational = spa != 0;
  if (conv != kw.end()) {
    if (!yes_no_value(*conv->second, "CONV", true, conversational)) return false;
    if (conversational && spa == 0)
      return fail_keyword(*conv->second, "CONV", "a conversational transaction needs SPASZ(16-32767)");
    if (!conversational && spa != 0)
      return fail_keyword(*spasz->second, "SPASZ", "a SPA size on a transaction with CONV(N)");
  }
  tran.conversational = conversational;
  tran.spa_size = spa;
  if (const auto f = kw.find("FP"); f != kw.end()) {
    std::string v;
    if (!scalar(*f->second, "FP", true, v)) return false;
    v = upper(v);
    // E = Fast Path exclusive, P = potential (runs as a full-function transaction here), N = none [C]; Y
    // accepted for E [D].
    if (v != "E" && v != "N" && v != "P" && v != "Y")
      return fail_keyword(*f->second, "FP", quoted(v) + " is not E, P or N");
    tran.fast_path = v == "E" || v == "Y";
  }
  if (const auto s = kw.find("STATUS"); s != kw.end()) {
    std::string v;
    if (!scalar(*s->second, "STATUS", true, v)) return false;
    v = upper(v);
    if (v != "STOPPED" && v != "STARTED")
      return fail_keyword(*s->second, "STATUS", quoted(v) + " is not STOPPED or STARTED");
    tran.stopped = v == "STOPPED";
  }
  tran.line = static_cast<std::size_t>(
      std::upper_bound(line_starts_.begin(), line_starts_.end(), input_offset(name.begin)) -
      line_starts_.begin());
  const node* at = &name;
  std::string_view at_kw = "NAME";
  if (tran.fast_path && !tran.recoverable && kw.count("RECOVER") != 0) {
    at = kw.find("RECOVER")->second;
    at_kw = "RECOVER";
  } else if (tran.fast_path && tran.conversational && spasz != kw.end()) {
    at = spasz->second;
    at_kw = "SPASZ";
  }
  for (const std::string& c : codes) {
    transaction_def one = tran;
    one.code = c;
    if (!add_transaction(*at, at_kw, std::move(one))) return false;
  }
  return true;
}

// D name [TYPE=MQSERIES|IMSCON] TMEMBER= TPIPE= [SYNTP=Y|N] (DFSYDTx [C]; SYNTP [I]).
bool parser::descriptor_statement(const std::vector<node>& ops) {
  if (ops.empty() || !ops[0].is_atom() || ops[0].is_quoted)
    return fail(0, "D needs a destination name (D ALTDEST TMEMBER=member TPIPE=tpipe)");
  destination_descriptor d;
  d.name = ops[0].text;
  if (d.name.empty()) return fail(0, "D needs a destination name");
  // 1–8 characters, an IMS name or a mask ending in '*' ('*' alone matches every destination) [D].
  const std::string_view stem =
      std::string_view(d.name).substr(0, d.name.size() - (d.name.back() == '*' ? 1 : 0));
  if (d.name.size() > 8)
    return fail(ops[0].begin, "destination " + quoted(d.name) + " is longer than 8 characters");
  if (!stem.empty())
    if (auto p = ims_name_problem(stem))
      return fail(ops[0].begin, "destination " + quoted(d.name) + " " + *p);
  for (const auto& other : defs_.descriptors)
    if (other.name == d.name) return fail(ops[0].begin, "duplicate descriptor name " + d.name);
  keyword_map kw;
  if (!collect_keywords(ops, 1, {"TYPE", "TMEMBER", "TPIPE", "SYNTP"}, false, kw)) return false;
  if (const auto t = kw.find("TYPE"); t != kw.end()) {
    std::string v;
    if (!scalar(*t->second, "TYPE", false, v)) return false;
    // Only OTMA client destinations make sense for a (TMEMBER, TPIPE) route [D].
    if (!iequals(v, "MQSERIES") && !iequals(v, "IMSCON"))
      return fail_keyword(*t->second, "TYPE", quoted(v) + " is not MQSERIES or IMSCON");
  }
  const auto m = kw.find("TMEMBER");
  if (m == kw.end())
    return fail(ops[0].begin, "keyword TMEMBER: missing (the OTMA client member to send to)");
  if (!scalar(*m->second, "TMEMBER", false, d.tmember)) return false;
  if (auto p = names::check_xcf_member_name(d.tmember, names::xcf_rules::bridge))
    return fail_keyword(*m->second, "TMEMBER", p->reason);
  const auto t = kw.find("TPIPE");
  if (t == kw.end()) return fail(ops[0].begin, "keyword TPIPE: missing (the Tpipe to send on)");
  if (!scalar(*t->second, "TPIPE", false, d.tpipe)) return false;
  if (auto p = names::check_tpipe_name(d.tpipe)) return fail_keyword(*t->second, "TPIPE", p->reason);
  if (const auto s = kw.find("SYNTP"); s != kw.end())
    if (!yes_no_value(*s->second, "SYNTP", false, d.synchronized)) return false;
  defs_.descriptors.push_back(std::move(d));
  return true;
}

// Command verbs: 3–10 letters, a leading '/' allowed and dropped, held upper case [D].
bool command_verb_ok(std::string& verb) {
  if (!verb.empty() && verb[0] == '/') verb.erase(0, 1);
  verb = upper(verb);
  if (verb.size() < 3 || verb.size() > 10) return false;
  return std::all_of(verb.begin(), verb.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// USER ID=,GROUPS=(..),TRANS=(..),CMDS=(..) and GROUP NAME=,TRANS=(..),CMDS=(..) [D].
// CMDS=(verb,...) of USER and GROUP: each a command verb (command_verb_ok), held as it normalises it.
bool parser::command_list(const node& n, std::vector<std::string>& out) {
  std::vector<const node*> verbs;
  if (!list_value(n, "CMDS", false, verbs)) return false;
  for (const node* v : verbs) {
    std::string verb = v->text;
    if (v->empty()) continue;
    if (!command_verb_ok(verb)) return fail_keyword(n, "CMDS", quoted(v->text) + " is not a command verb");
    out.push_back(verb);
  }
  return true;
}

bool parser::user_statement(const std::vector<node>& ops) {
  keyword_map kw;
  if (!collect_keywords(ops, 0, {"ID", "GROUPS", "TRANS", "CMDS"}, false, kw)) return false;
  const auto id = kw.find("ID");
  if (id == kw.end()) return fail(0, "keyword ID: missing (USER ID=name)");
  user_def user;
  if (!name_value(*id->second, "ID", false, user.id)) return false;
  if (defs_.users.count(user.id) != 0)
    return fail_keyword(*id->second, "ID", "user " + user.id + " is defined twice");
  if (const auto g = kw.find("GROUPS"); g != kw.end()) {
    if (!name_list(*g->second, "GROUPS", false, user.groups)) return false;
    for (const std::string& name : user.groups)
      user_groups_.push_back({input_offset(g->second->begin), "USER: keyword GROUPS: ", name});
  }
  if (const auto t = kw.find("TRANS"); t != kw.end())
    if (!name_list(*t->second, "TRANS", false, user.transactions)) return false;
  if (const auto c = kw.find("CMDS"); c != kw.end())
    if (!command_list(*c->second, user.commands)) return false;
  const std::string key = user.id;
  defs_.users.emplace(key, std::move(user));
  return true;
}

bool parser::group_statement(const std::vector<node>& ops) {
  keyword_map kw;
  if (!collect_keywords(ops, 0, {"NAME", "TRANS", "CMDS"}, false, kw)) return false;
  const auto name = kw.find("NAME");
  if (name == kw.end()) return fail(0, "keyword NAME: missing (GROUP NAME=name)");
  group_def group;
  if (!name_value(*name->second, "NAME", false, group.name)) return false;
  if (defs_.groups.count(group.name) != 0)
    return fail_keyword(*name->second, "NAME", "group " + group.name + " is defined twice");
  if (const auto t = kw.find("TRANS"); t != kw.end())
    if (!name_list(*t->second, "TRANS", false, group.transactions)) return false;
  if (const auto c = kw.find("CMDS"); c != kw.end())
    if (!command_list(*c->second, group.commands)) return false;
  const std::string key = group.name;
  defs_.groups.emplace(key, std::move(group));
  return true;
}

// /SECURE OTMA NONE|CHECK|FULL|PROFILE [C: IMS-OTMASE, IMS-SEC-CHECK]; a later one replaces an earlier
// one, as the command would [D].
bool parser::secure_statement(const std::vector<node>& ops) {
  if (ops.size() != 2 || !ops[0].is_atom() || !ops[1].is_atom() || !iequals(ops[0].text, "OTMA"))
    return fail(ops.empty() ? 0 : ops[0].begin, "expected /SECURE OTMA NONE|CHECK|FULL|PROFILE");
  const std::string level = upper(ops[1].text);
  if (level == "NONE") {
    defs_.security = otma_security::none;
  } else if (level == "CHECK") {
    defs_.security = otma_security::check;
  } else if (level == "FULL") {
    defs_.security = otma_security::full;
  } else if (level == "PROFILE") {
    defs_.security = otma_security::profile;
  } else {
    return fail(ops[1].begin,
                "keyword OTMA: " + quoted(ops[1].text) + " is not NONE, CHECK, FULL or PROFILE");
  }
  return true;
}

// CLIENT MEMBER=m|(m1,mask*)[,USERS=(u1,u2)] [D] (definitions.hpp).
bool parser::client_statement(const std::vector<node>& ops) {
  keyword_map kw;
  if (!collect_keywords(ops, 0, {"MEMBER", "USERS"}, false, kw)) return false;
  const auto m = kw.find("MEMBER");
  if (m == kw.end()) return fail(0, "keyword MEMBER: missing (CLIENT MEMBER=name)");
  std::vector<const node*> members;
  if (!list_value(*m->second, "MEMBER", false, members)) return false;
  std::vector<std::string> users;
  if (const auto u = kw.find("USERS"); u != kw.end())
    if (!name_list(*u->second, "USERS", false, users)) return false;
  bool any = false;
  for (const node* n : members) {
    if (n->empty()) continue;
    client_def c;
    c.member = upper(n->text);
    // An XCF member name [C: XCF-NAMES2], or its stem before a final '*'.
    const std::string stem = c.member.substr(0, c.member.size() - (c.member.back() == '*' ? 1 : 0));
    if (!stem.empty())
      if (auto p = names::check_xcf_member_name(stem, names::xcf_rules::bridge))
        return fail_keyword(*m->second, "MEMBER", quoted(n->text) + ": " + p->reason);
    c.users = users;
    defs_.clients.push_back(std::move(c));
    any = true;
  }
  if (!any) return fail_keyword(*m->second, "MEMBER", "no member name");
  return true;
}

// STOP TRAN=t|(t1,t2) [D].
bool parser::stop_statement(const std::vector<node>& ops) {
  keyword_map kw;
  if (!collect_keywords(ops, 0, {"TRAN"}, false, kw)) return false;
  const auto t = kw.find("TRAN");
  if (t == kw.end()) return fail(0, "keyword TRAN: missing (STOP TRAN=code)");
  std::vector<std::string> codes;
  if (!name_list(*t->second, "TRAN", false, codes)) return false;
  if (codes.empty()) return fail_keyword(*t->second, "TRAN", "no transaction code");
  for (std::string& c : codes)
    stops_.push_back({input_offset(t->second->begin), "STOP: keyword TRAN: ", std::move(c)});
  return true;
}

bool parser::run_statement() {
  const std::string& t = stmt_.text;
  std::size_t i = 0;
  while (i < t.size() && !is_blank(t[i]) && t[i] != ',') ++i;
  verb_ = upper(std::string_view(t).substr(0, i));
  const std::string verb = verb_;
  static constexpr std::string_view known[] = {"IMS",  "APPLCTN", "TRANSACT", "NAME", "CREATE", "D",
                                               "USER", "GROUP",   "/SECURE",  "/SEC", "STOP",   "CLIENT"};
  if (std::find(std::begin(known), std::end(known), verb) == std::end(known)) {
    fail_at_input(
        stmt_start_,
        "unknown statement " + quoted(verb) +
            " (known: IMS, APPLCTN, TRANSACT, NAME, CREATE, D, USER, GROUP, /SECURE, STOP, CLIENT)");
    return false;
  }
  if (verb == "/SEC") verb_ = "/SECURE";
  std::vector<node> ops;
  if (!parse_operands(i, ops)) return false;
  if (verb == "IMS") return ims_statement(ops);
  if (verb == "APPLCTN") return applctn_statement(ops);
  if (verb == "TRANSACT") return transact_statement(ops);
  if (verb == "NAME") return name_statement(ops);
  if (verb == "CREATE") return create_statement(ops);
  if (verb == "D") return descriptor_statement(ops);
  if (verb == "USER") return user_statement(ops);
  if (verb == "GROUP") return group_statement(ops);
  if (verb == "/SECURE" || verb == "/SEC") return secure_statement(ops);
  if (verb == "CLIENT") return client_statement(ops);
  return stop_statement(ops);
}

bool parser::finish() {
  for (const deferred& d : user_groups_)
    if (defs_.groups.count(d.name) == 0) {
      fail_at_input(d.input_offset,
                    d.detail_prefix + "group " + d.name + " is not defined by a GROUP statement");
      return false;
    }
  for (const deferred& d : stops_) {
    const auto t = defs_.transactions.find(d.name);
    if (t == defs_.transactions.end()) {
      fail_at_input(d.input_offset, d.detail_prefix + "transaction " + d.name + " is not defined");
      return false;
    }
    t->second.stopped = true;
  }
  return true;
}

result<definitions> parser::run() {
  if (!read_statements() || !finish()) {
    if (!error_) fail_at_input(stmt_start_, "invalid statement");
    return *std::move(error_);
  }
  return std::move(defs_);
}

// Whether `destination` matches a descriptor name: equal, or starting with a mask's stem.
bool matches(std::string_view pattern, std::string_view destination) noexcept {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return destination.substr(0, pattern.size()) == pattern;
  }
  return pattern == destination;
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// RACF command profiles are named by a verb's first three letters [I].
bool has_command(const std::vector<std::string>& verbs, std::string_view verb) {
  const std::string_view key = verb.substr(0, 3);
  return std::any_of(verbs.begin(), verbs.end(),
                     [&](const std::string& v) { return std::string_view(v).substr(0, 3) == key; });
}

}  // namespace

const transaction_def* definitions::transaction(std::string_view code) const {
  const auto it = transactions.find(code);
  return it == transactions.end() ? nullptr : &it->second;
}

const program_def* definitions::program(std::string_view name) const {
  const auto it = programs.find(name);
  return it == programs.end() ? nullptr : &it->second;
}

bool definitions::is_lterm(std::string_view name) const { return lterms.find(name) != lterms.end(); }

const destination_descriptor* definitions::descriptor_for(std::string_view destination) const {
  destination = trim_right(destination);  // an 8-byte blank-padded field compares as its value [D]
  for (const auto& d : descriptors)
    if (matches(d.name, destination)) return &d;
  return nullptr;
}

bool definitions::may_run_transaction(std::string_view user, std::string_view code) const {
  const auto u = users.find(trim_right(user));
  if (u == users.end()) return false;
  code = trim_right(code);
  if (contains(u->second.transactions, code)) return true;
  for (const std::string& g : u->second.groups) {
    const auto group = groups.find(g);
    if (group != groups.end() && contains(group->second.transactions, code)) return true;
  }
  return false;
}

bool definitions::may_run_command(std::string_view user, std::string_view verb) const {
  const auto u = users.find(trim_right(user));
  if (u == users.end()) return false;
  std::string v(trim_right(verb));
  if (!command_verb_ok(v)) return false;
  if (has_command(u->second.commands, v)) return true;
  for (const std::string& g : u->second.groups) {
    const auto group = groups.find(g);
    if (group != groups.end() && has_command(group->second.commands, v)) return true;
  }
  return false;
}

bool definitions::may_bid(std::string_view member, std::string_view user) const {
  if (clients.empty()) return true;
  user = trim_right(user);
  for (const auto& c : clients) {
    if (!matches(c.member, member)) continue;
    return c.users.empty() || contains(c.users, user);
  }
  return false;
}

result<definitions> parse_definitions(std::string_view text) { return parser(text).run(); }

definitions default_definitions(std::string_view grname, std::string_view otmanm) {
  // IBM's IVP defines IVTNO non-conversational and IVTCV conversational with an 80-byte SPA, both
  // recoverable and non-response [I: recalled from the IVP's stage-1]; the other built-ins follow IVTNO [D].
  static constexpr std::string_view text =
      "APPLCTN PSB=IVTNO,PGMTYPE=TP\n"
      "TRANSACT CODE=IVTNO,MSGTYPE=(SNGLSEG,NONRESPONSE,1)\n"
      "APPLCTN PSB=IVTCV,PGMTYPE=TP\n"
      "TRANSACT CODE=IVTCV,MSGTYPE=(SNGLSEG,NONRESPONSE,1),SPA=(80,)\n"
      "APPLCTN PSB=ECHO,PGMTYPE=TP\n"
      "TRANSACT CODE=ECHO,MSGTYPE=(MULTSEG,NONRESPONSE,1)\n"
      "APPLCTN PSB=SHOWOTMA,PGMTYPE=TP\n"
      "TRANSACT CODE=SHOWOTMA,MSGTYPE=(MULTSEG,NONRESPONSE,1)\n"
      "APPLCTN PSB=ALTOUT,PGMTYPE=TP\n"
      "TRANSACT CODE=ALTOUT,MSGTYPE=(MULTSEG,NONRESPONSE,1)\n"
      "NAME IVTNOLT\n"
      "/SECURE OTMA NONE\n";
  auto parsed = parse_definitions(text);
  definitions defs = parsed.ok() ? std::move(parsed.value()) : definitions{};
  defs.grname = std::string(grname);
  defs.otmanm = std::string(otmanm);
  return defs;
}

}  // namespace imsb::ims
