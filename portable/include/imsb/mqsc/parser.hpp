#pragma once
// The MQSC parser: script text in, typed commands and syntax errors out. Pure: no I/O, no state.

#include <optional>
#include <string_view>
#include <vector>

#include "imsb/mqsc/command.hpp"
#include "imsb/mqsc/error.hpp"

namespace imsb::mqsc {

struct parse_result {
  std::vector<command> commands;    // the good ones, in script order (unsupported ones included)
  std::vector<parse_error> errors;  // at most one per bad command, in script order

  bool ok() const noexcept { return errors.empty(); }
};

// Parses a whole script. A bad command is reported and skipped; parsing goes on with the next one,
// as runmqsc does. END is returned as a command like any other: the caller decides to stop there.
parse_result parse(std::string_view script);

struct command_result {
  std::optional<command> cmd;        // set when the text held exactly one good command
  std::optional<parse_error> error;  // set otherwise (an empty text is an error too)

  bool ok() const noexcept { return cmd.has_value(); }
};

// Parses text that must hold exactly one command (it may span continued lines), as typed at a prompt.
command_result parse_command(std::string_view text);

}  // namespace imsb::mqsc
