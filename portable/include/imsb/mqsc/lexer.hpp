#pragma once
// The MQSC tokenizer, in two steps: split a script into commands the way runmqsc reassembles them
// from lines, then cut one command into tokens. Every character keeps the line and column it came
// from, so errors point at the text the operator wrote.
//
// Line rules (IBM's MQSC command reference [C: MQSC-RULES] and IBM "MQSC input file syntax"; [C] unless
// marked):
//   * each command starts on a new line; leading blanks are ignored;
//   * a line with '*' in column 1 is a comment; blank lines are ignored; both are skipped even in the
//     middle of a continued command;
//   * the last non-blank character of a line decides: '-' continues with the next line from its first
//     column, '+' continues from its first non-blank character; the '-' or '+' itself is dropped. This
//     holds inside quoted strings too ('Fr-' + 'ed' and 'Fr+' + '   ed' both give 'Fred');
//   * ';' outside quotes ends the command, also after a '+' on the previous line (Multiplatforms;
//     runmqsc needs it only then). Text after it in the same command is an error [D]: each command
//     starts on a new line, so "DEF QL(A); DEF QL(B)" is refused rather than half run;
//   * [D] a tab counts as a blank; a '\r' before the '\n' is dropped (files written on Windows);
//     no line-length limit and no z/OS sequence columns 73-80 (scripts for z/OS must be trimmed).
// Token rules:
//   * blanks and commas separate; runs of them count as one [C];
//   * '(' and ')' are tokens; a quoted string runs from ' to the next ' that is not doubled ('') [C];
//   * any other run of characters is a word, folded to upper case (a-z only) [C]. Words are not
//     restricted further here [D]: which names and values are valid is the catalog's business.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace imsb::mqsc {

struct source_position {
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based, counted in bytes of the line
};

// One command as reassembled from its lines.
struct command_source {
  std::string text;                        // reassembled; continuation characters removed
  std::vector<source_position> positions;  // where each character of text was written
  source_position end;                     // just past the last character of the command
  std::size_t first_line = 0;
  std::string lines;  // the lines as written, joined with '\n' (for echoing)

  source_position position_of(std::size_t offset) const noexcept;
};

// Splits a script into commands. Comment and blank lines produce nothing.
std::vector<command_source> split_commands(std::string_view script);

enum class token_kind { word, quoted, open_paren, close_paren, semicolon };

struct token {
  token_kind kind = token_kind::word;
  std::string text;        // word: folded to upper case; quoted: content, '' undone; else the character
  std::size_t offset = 0;  // in command_source::text
  std::size_t length = 0;  // in command_source::text, quotes included
  source_position position;
  bool separated = true;  // a blank or comma (or the start of the command) comes right before it
};

struct token_list {
  std::vector<token> tokens;
  // Set when the command ends inside a quoted string; tokens holds what came before it.
  std::optional<source_position> unterminated_quote;
};

token_list tokenize(const command_source& source);

// True for ' ' and '\t', the characters that separate (with ',') outside quotes.
constexpr bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

}  // namespace imsb::mqsc
