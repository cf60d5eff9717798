#pragma once
// The mqdump command line and what it prints, as pure functions so that tests reach all of it;
// apps/mqdump/main.cpp only reads the input, calls run_dump / run_explain, prints and exits.

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "imsb/dump/decode.hpp"

namespace imsb::dump {

// Exit codes (documented in --help).
inline constexpr int exit_decoded = 0;    // decoded, and no finding
inline constexpr int exit_bad_input = 1;  // unreadable or bad input, a header that does not decode, a
                                          // message that fails the bridge's validation (IMB4006W), an
                                          // unknown --explain code, out of memory (main.cpp)
inline constexpr int exit_usage = 2;      // a usage error

struct command_line {
  options decode;
  bool json = false;
  bool hex = false;  // the input is hex text (--hex, or a file name ending in .hex)
  bool help = false;
  std::optional<std::string> explain;  // --explain CODE (its words up to the next --option, joined by blanks)
  std::string input = "-";             // a file name, or "-" for standard input
};

struct usage_error {
  std::string message;  // one line, starting with IMB4001E
};

// `args` excludes the program name.
std::variant<command_line, usage_error> parse_command_line(const std::vector<std::string>& args);

std::string help_text();

struct run_output {
  std::string out;  // for standard output
  std::string err;  // for standard error (diagnostics, each line starting with a message ID)
  int exit_code = exit_decoded;
};

// Decodes `content` (the bytes read from the input, or hex text with cl.hex) and renders it.
run_output run_dump(const command_line& cl, std::string_view content);
// --explain.
run_output run_explain(const command_line& cl);

}  // namespace imsb::dump
