// Recursive descent over the tokens of one command:
//   command    := verb [object-type [ '(' name ')' ]] parameter* [';']
//   parameter  := keyword [ '(' value+ ')' ]
//   value      := word | quoted | word '(' group ')'       (HOST(1414), 9.20.4.98(1000,1100))
// The verb comes first, the object type second and its name right after it [C] MQSC rules (z/OS lets
// the object type move; scripts here must keep it second [D]). Parameters come in any order, each once.

#include "imsb/mqsc/parser.hpp"

#include <map>
#include <utility>

#include "imsb/mqsc/lexer.hpp"
#include "imsb/mqsc/printer.hpp"
#include "imsb/mqsc/vocabulary.hpp"

namespace imsb::mqsc {
namespace {

constexpr std::string_view end_of_command = "end of command";

bool is_keyword(std::string_view w) noexcept {
  if (w.empty() || w[0] < 'A' || w[0] > 'Z') return false;
  for (char c : w)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

// WHERE(attribute operator value) operators [C] MQSC DISPLAY commands, "WHERE" filter.
bool is_where_operator(std::string_view op) noexcept {
  for (std::string_view o : {"LT", "GT", "EQ", "NE", "LE", "GE", "LK", "NL", "CT", "EX", "CTG", "EXG"})
    if (o == op) return true;
  return false;
}

std::string describe(const token& t) {
  switch (t.kind) {
    case token_kind::word:
      return t.text;
    case token_kind::quoted: {
      constexpr std::size_t shown = 40;
      if (t.text.size() <= shown) return "quoted string " + quote(t.text);
      return "quoted string " + quote(t.text.substr(0, shown)) + "...";
    }
    case token_kind::open_paren:
      return "'('";
    case token_kind::close_paren:
      return "')'";
    case token_kind::semicolon:
      return "';'";
  }
  return "?";
}

std::string describe(const mqsc_value& v) { return v.quoted ? "quoted string " + quote(v.text) : v.text; }

std::string position_text(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

struct located_value {
  mqsc_value value;
  source_position position;
};

enum class outcome { command, error, empty };

class command_parser {
 public:
  command_parser(const command_source& source, const token_list& tokens)
      : source_(source), tokens_(tokens.tokens), unterminated_(tokens.unterminated_quote) {}

  outcome run(command& cmd, parse_error& err) {
    find_end();
    if (end_ == 0 && !trailing_) {
      if (unterminated_) return fail_at_end(err, error_kind::unterminated_quote, "an MQSC verb");
      return outcome::empty;  // a line holding only ';'
    }
    if (end_ != 0 && !(read_verb(cmd) && read_object_type(cmd) && read_name(cmd) && read_parameters(cmd)))
      return report(err);
    if (trailing_) {
      // The command before ';' was good (or absent): the text after it is the error.
      fail(error_kind::unexpected_token, trailing_->first, "end of line after ';'", trailing_->second);
      return report(err);
    }
    cmd.line = source_.first_line;
    cmd.text = source_.lines;
    if (find_supported(cmd.verb, cmd.object_type) == nullptr) {
      cmd.supported = false;
      cmd.unsupported_reason = unsupported_reason(cmd.verb, cmd.object_type);
    }
    return outcome::command;
  }

 private:
  outcome report(parse_error& err) {
    err = std::move(error_);
    return outcome::error;
  }

  bool fail(error_kind kind, source_position at, std::string expected, std::string found) {
    error_.kind = kind;
    error_.line = at.line;
    error_.column = at.column;
    error_.verb = verb_;
    error_.object_type = object_type_;
    error_.keyword = keyword_;
    error_.expected = std::move(expected);
    error_.found = std::move(found);
    return false;
  }
  bool fail_at(error_kind kind, const token& t, std::string expected) {
    return fail(kind, t.position, std::move(expected), describe(t));
  }
  // The tokens ran out: either the command really ended, or a quoted string swallowed the rest.
  bool fail_end(error_kind kind, std::string expected) {
    if (unterminated_)
      return fail(error_kind::unterminated_quote, *unterminated_, "a closing quote (')",
                  std::string(end_of_command));
    const source_position at = end_ < tokens_.size() ? tokens_[end_].position : source_.end;
    return fail(kind, at, std::move(expected), std::string(end_of_command));
  }
  outcome fail_at_end(parse_error& err, error_kind kind, std::string expected) {
    fail_end(kind, std::move(expected));
    return report(err);
  }

  bool at_end() const noexcept { return pos_ >= end_; }

  // ';' ends the command; anything after it is an error [D] (lexer.hpp), reported once the command
  // before it has been read, so that the message names that command.
  void find_end() {
    end_ = tokens_.size();
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      if (tokens_[i].kind != token_kind::semicolon) continue;
      end_ = i;
      if (i + 1 < tokens_.size())
        trailing_.emplace(tokens_[i + 1].position, describe(tokens_[i + 1]));
      else if (unterminated_)
        trailing_.emplace(*unterminated_, "a quoted string");
      unterminated_.reset();  // it lies after the ';'
      break;
    }
  }

  bool read_verb(command& cmd) {
    const token& t = tokens_[pos_];
    const auto verb = t.kind == token_kind::word ? canonical_verb(t.text) : std::nullopt;
    if (!verb)
      return fail_at(error_kind::unknown_verb, t,
                     "an MQSC verb (ALTER, CLEAR, DEFINE, DELETE, DISPLAY, END, PING, REFRESH, RESET, "
                     "RESOLVE, RESUME, SET, START, STOP, SUSPEND ...)");
    ++pos_;
    cmd.verb = std::string(*verb);
    verb_ = cmd.verb;
    return true;
  }

  bool read_object_type(command& cmd) {
    if (cmd.verb == "END") {  // END takes nothing
      if (at_end()) return true;
      return fail_at(error_kind::unexpected_token, tokens_[pos_], "end of command after END");
    }
    if (at_end()) return fail_end(error_kind::missing_object_type, "an object type after " + cmd.verb);
    const token& t = tokens_[pos_];
    if (t.kind != token_kind::word)
      return fail_at(error_kind::missing_object_type, t, "an object type after " + cmd.verb);
    const auto object = canonical_object_type(t.text);
    if (!object)
      return fail_at(error_kind::unknown_object_type, t,
                     "an MQSC object type (QLOCAL, QREMOTE, QALIAS, QMODEL, CHANNEL, QMGR ...)");
    if (!verb_applies(cmd.verb, *object))
      return fail_at(error_kind::invalid_object_type, t, "an object type that " + cmd.verb + " applies to");
    ++pos_;
    cmd.object_type = std::string(*object);
    object_type_ = cmd.object_type;
    return true;
  }

  bool read_name(command& cmd) {
    if (cmd.verb == "END") return true;
    const supported_command* s = find_supported(cmd.verb, cmd.object_type);
    // Commands we do not implement get the general syntax check only [D].
    const name_rule rule = s != nullptr ? s->name : name_rule::optional;
    const bool has_name = !at_end() && tokens_[pos_].kind == token_kind::open_paren;
    if (!has_name) {
      if (rule != name_rule::required) return true;
      const std::string expected = "'(' and the object name after " + cmd.object_type;
      return at_end() ? fail_end(error_kind::missing_name, expected)
                      : fail_at(error_kind::missing_name, tokens_[pos_], expected);
    }
    if (rule == name_rule::none)
      return fail_at(error_kind::unexpected_name, tokens_[pos_],
                     "a keyword (" + cmd.object_type + " takes no name)");
    std::vector<located_value> values;
    if (!read_values(values)) return false;
    if (values.size() > 1)
      return fail(error_kind::unexpected_token, values[1].position, "one object name",
                  describe(values[1].value));
    cmd.name = std::move(values[0].value);
    return true;
  }

  bool read_parameters(command& cmd) {
    std::map<std::string, source_position, std::less<>> seen;
    while (!at_end()) {
      const token& t = tokens_[pos_];
      if (t.kind != token_kind::word || !is_keyword(t.text))
        return fail_at(error_kind::unexpected_token, t, "a keyword");
      parameter p;
      p.keyword = t.text;
      p.line = t.position.line;
      p.column = t.position.column;
      keyword_ = p.keyword;
      if (!check_repeated(seen, t)) return false;
      seen.emplace(p.keyword, t.position);
      ++pos_;
      if (!at_end() && tokens_[pos_].kind == token_kind::open_paren) {
        std::vector<located_value> values;
        if (!read_values(values)) return false;
        if (p.keyword == "WHERE" && !check_where(values)) return false;
        p.has_parens = true;
        for (auto& v : values) p.values.push_back(std::move(v.value));
      } else if (p.keyword == "WHERE") {
        return fail_at(error_kind::invalid_where, t, "WHERE(attribute operator value)");
      }
      cmd.parameters.push_back(std::move(p));
      keyword_.clear();
    }
    if (unterminated_) return fail_end(error_kind::unterminated_quote, "");
    return true;
  }

  // "Repeated parameters are not allowed. Repeating a parameter with its NO version, as in REPLACE
  // NOREPLACE, is also not allowed." [C: MQSC-RULES]
  bool check_repeated(const std::map<std::string, source_position, std::less<>>& seen, const token& t) {
    const std::string& k = t.text;
    if (auto it = seen.find(k); it != seen.end())
      return fail(error_kind::repeated_keyword, t.position, k + " only once",
                  "it again (first at " + position_text(it->second.line, it->second.column) + ")");
    std::string other;
    if (k.size() > 2 && k.compare(0, 2, "NO") == 0 && seen.count(k.substr(2)) != 0)
      other = k.substr(2);
    else if (seen.count("NO" + k) != 0)
      other = "NO" + k;
    if (other.empty()) return true;
    const source_position first = seen.find(other)->second;
    const std::string& plain = other.size() < k.size() ? other : k;
    return fail(error_kind::repeated_keyword, t.position, "only one of " + plain + " and NO" + plain,
                "both (" + other + " at " + position_text(first.line, first.column) + ")");
  }

  bool check_where(const std::vector<located_value>& values) {
    const token& open = tokens_[where_open_];
    if (values.size() != 3)
      return fail(error_kind::invalid_where, open.position, "WHERE(attribute operator value)",
                  std::to_string(values.size()) + (values.size() == 1 ? " value" : " values"));
    if (values[0].value.quoted || !is_keyword(values[0].value.text))
      return fail(error_kind::invalid_where, values[0].position, "an attribute name",
                  describe(values[0].value));
    if (values[1].value.quoted || !is_where_operator(values[1].value.text))
      return fail(error_kind::invalid_where, values[1].position,
                  "an operator (LT, GT, EQ, NE, LE, GE, LK, NL, CT, EX, CTG, EXG)",
                  describe(values[1].value));
    return true;
  }

  // At '(': reads values up to the matching ')'. Blanks and commas separate values [C].
  bool read_values(std::vector<located_value>& values) {
    const token& open = tokens_[pos_];
    where_open_ = pos_;
    ++pos_;
    const token* previous = nullptr;
    for (;;) {
      if (at_end()) return fail_end(error_kind::missing_parenthesis, "')'");
      const token& t = tokens_[pos_];
      switch (t.kind) {
        case token_kind::close_paren:
          ++pos_;
          if (values.empty())
            return fail(error_kind::empty_value, open.position, "a value between the parentheses", "'()'");
          return true;
        case token_kind::open_paren:
          return fail_at(error_kind::unexpected_token, t, "a value or ')'");
        case token_kind::semicolon:  // not reached: ';' ends the tokens (find_end)
          return fail_at(error_kind::unexpected_token, t, "')'");
        case token_kind::quoted:
        case token_kind::word:
          break;
      }
      // abc'def' or 'abc'def: one value must end before the next begins [D].
      if (previous != nullptr && !t.separated)
        return fail_at(error_kind::unexpected_token, t, "a blank, ',' or ')' after " + describe(*previous));
      located_value v{{t.text, t.kind == token_kind::quoted}, t.position};
      previous = &t;
      if (t.kind == token_kind::word && pos_ + 1 < end_ && tokens_[pos_ + 1].kind == token_kind::open_paren &&
          !tokens_[pos_ + 1].separated) {
        if (!read_group(v.value.text)) return false;
      } else {
        ++pos_;
      }
      values.push_back(std::move(v));
    }
  }

  // WORD(...) inside a value, as in CONNAME(HOST(1414)) and LOCLADDR(9.20.4.98(1000,1100)) [I]: the
  // whole group is one value, folded to upper case, blanks dropped, commas kept. A group that does not
  // close, or holds a quoted string, is more likely a keyword written before the ')' it needed
  // (MAXDEPTH(5 DESCR('x')): the error says so.
  bool read_group(std::string& text) {
    const token& word = tokens_[pos_];
    const auto not_a_group = [&] {
      return fail(error_kind::missing_parenthesis, word.position, "')'", word.text + "(");
    };
    int depth = 0;
    std::size_t i = pos_ + 1;
    for (;; ++i) {
      if (i >= end_) {
        if (unterminated_) return fail_end(error_kind::unterminated_quote, "");
        return not_a_group();
      }
      const token& t = tokens_[i];
      if (t.kind == token_kind::quoted) return not_a_group();
      if (t.kind == token_kind::open_paren) {
        if (i + 1 < end_ && tokens_[i + 1].kind == token_kind::close_paren)
          return fail(error_kind::empty_value, t.position, "a value between the parentheses", "'()'");
        ++depth;
      } else if (t.kind == token_kind::close_paren && --depth == 0) {
        break;
      }
    }
    const std::string& raw = source_.text;
    text.clear();
    for (std::size_t k = word.offset; k <= tokens_[i].offset; ++k) {
      const char c = raw[k];
      if (is_blank(c)) continue;
      text += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    }
    pos_ = i + 1;
    return true;
  }

  const command_source& source_;
  const std::vector<token>& tokens_;
  std::optional<source_position> unterminated_;
  std::optional<std::pair<source_position, std::string>> trailing_;  // what follows a ';'
  std::size_t end_ = 0;                                              // tokens_[end_] is the ';' or the end
  std::size_t pos_ = 0;
  std::size_t where_open_ = 0;
  std::string verb_;
  std::string object_type_;
  std::string keyword_;
  parse_error error_;
};

outcome parse_one(const command_source& source, command& cmd, parse_error& err) {
  const token_list tokens = tokenize(source);
  return command_parser(source, tokens).run(cmd, err);
}

}  // namespace

parse_result parse(std::string_view script) {
  parse_result result;
  for (const command_source& source : split_commands(script)) {
    command cmd;
    parse_error err;
    switch (parse_one(source, cmd, err)) {
      case outcome::command:
        result.commands.push_back(std::move(cmd));
        break;
      case outcome::error:
        result.errors.push_back(std::move(err));
        break;
      case outcome::empty:
        break;
    }
  }
  return result;
}

command_result parse_command(std::string_view text) {
  command_result result;
  for (const command_source& source : split_commands(text)) {
    command cmd;
    parse_error err;
    const outcome o = parse_one(source, cmd, err);
    if (o == outcome::empty) continue;
    if (result.cmd) {
      // A second command, good or bad: the caller asked for exactly one.
      parse_error extra;
      extra.kind = error_kind::unexpected_token;
      extra.line = source.first_line;
      extra.column = source.positions.empty() ? 1 : source.positions.front().column;
      extra.verb = result.cmd->verb;
      extra.object_type = result.cmd->object_type;
      extra.expected = "end of input after one command";
      extra.found = "another command";
      result.cmd.reset();
      result.error = std::move(extra);
      return result;
    }
    if (o == outcome::error) {
      result.error = std::move(err);
      return result;
    }
    result.cmd = std::move(cmd);
  }
  if (!result.cmd)
    result.error =
        parse_error{error_kind::unknown_verb, 1, 1, "", "", "", "an MQSC verb", std::string(end_of_command)};
  return result;
}

}  // namespace imsb::mqsc
