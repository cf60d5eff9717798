#pragma once
// Syntax errors of MQSC scripts. runmqsc reports a bad command and goes on with the next one, so the
// parser collects these rather than stopping; each names where it is, the command, the keyword and
// what was expected, in words an operator can act on.

#include <cstddef>
#include <string>
#include <system_error>
#include <type_traits>

namespace imsb::mqsc {

// Stable: tests, tools and the docs refer to these by name and number.
enum class error_kind {
  unknown_verb = 1,         // FOO QLOCAL(A); DEFI (synonyms are not minimum strings)
  missing_object_type = 2,  // DEFINE with nothing after it
  unknown_object_type = 3,  // DEFINE QFOO(A)
  invalid_object_type = 4,  // CLEAR CHANNEL(A): the verb does not apply to that object type
  missing_name = 5,         // DEFINE QLOCAL MAXDEPTH(5)
  unexpected_name = 6,      // ALTER QMGR(X): the object type takes no name
  missing_parenthesis = 7,  // MAXDEPTH(5 at the end of the command
  unterminated_quote = 8,   // DESCR('abc at the end of the command
  repeated_keyword = 9,     // DESCR(A) DESCR(B), REPLACE NOREPLACE
  unexpected_token = 10,    // anything else out of place
  empty_value = 11,         // MAXDEPTH(), NAMES(,)
  invalid_where = 12,       // WHERE(CURDEPTH) or WHERE(CURDEPTH XX 5)
};

const std::error_category& mqsc_category() noexcept;
std::error_code make_error_code(error_kind kind) noexcept;
// "unknown_verb", "missing_parenthesis" ...
const char* error_kind_name(error_kind kind) noexcept;

struct parse_error {
  error_kind kind = error_kind::unexpected_token;
  std::size_t line = 0;     // 1-based
  std::size_t column = 0;   // 1-based, on that line
  std::string verb;         // canonical verb, empty when the verb itself is the problem
  std::string object_type;  // canonical object type, empty when not known yet
  std::string keyword;      // the parameter being read, empty outside parameters
  std::string expected;     // "')'", "a keyword", "one object name"
  std::string found;        // "end of command", "'('", "quoted string 'abc'", "MAXDEPTH"

  std::error_code code() const noexcept { return make_error_code(kind); }
  // "line 3, column 14: DEFINE QLOCAL: keyword MAXDEPTH: expected ')' but found end of command"
  std::string message() const;
};

}  // namespace imsb::mqsc

namespace std {
template <>
struct is_error_code_enum<imsb::mqsc::error_kind> : true_type {};
}  // namespace std
