#pragma once
// The typed tree of one MQSC command: verb, object type, object name and parameters, with every
// abbreviation already replaced by its canonical word. The object catalog validates values from this
// tree; the parser checks only the syntax (IBM's MQSC syntax rules [C: MQSC-RULES]).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace imsb::mqsc {

// One value: an object name, a parameter value, or one element of a list.
struct mqsc_value {
  // Unquoted values are folded to upper case; quoted ones are kept exactly as written, with the
  // doubled quote ('') undone [I: MQSC-RULES].
  std::string text;
  bool quoted = false;

  // A generic value ends with '*' (DISPLAY QLOCAL(IMS.*)): kept as written, the matcher decides.
  bool is_generic() const noexcept { return !text.empty() && text.back() == '*'; }
};

// KEYWORD, KEYWORD(value) or KEYWORD(v1, v2 ...).
struct parameter {
  std::string keyword;             // canonical upper case
  std::vector<mqsc_value> values;  // empty for a bare keyword (REPLACE, NOSHARE, ALL)
  bool has_parens = false;         // KEYWORD(...) rather than KEYWORD
  std::size_t line = 0;            // where the keyword starts (1-based)
  std::size_t column = 0;
};

struct command {
  std::string verb;                   // canonical: DEFINE, ALTER, DISPLAY ... (DEF, ALT, DIS normalised)
  std::string object_type;            // canonical: QLOCAL, QREMOTE, CHANNEL ...; empty for END
  std::optional<mqsc_value> name;     // the object name in parentheses after the object type, if any
  std::vector<parameter> parameters;  // in the order written
  std::size_t line = 0;               // first line of the command
  std::string text;                   // the command's lines as written (continuations included), for echoing
  bool supported = true;              // false: valid MQSC that imsbridge does not implement
  std::string unsupported_reason;     // why, when !supported

  // The parameter with this keyword (canonical upper case), or nullptr.
  const parameter* find(std::string_view keyword) const noexcept;
};

// Equality is about meaning: where a command or parameter was written (line, column, text) is not part
// of it, so that parse(to_mqsc(c)) == c holds for every parsed command.
bool operator==(const mqsc_value& a, const mqsc_value& b) noexcept;
bool operator!=(const mqsc_value& a, const mqsc_value& b) noexcept;
bool operator==(const parameter& a, const parameter& b) noexcept;
bool operator!=(const parameter& a, const parameter& b) noexcept;
bool operator==(const command& a, const command& b) noexcept;
bool operator!=(const command& a, const command& b) noexcept;

}  // namespace imsb::mqsc
