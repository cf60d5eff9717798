// Fuzz target for the MQSC parser: any text must parse without crashing, and every command it accepts
// must print (to_mqsc) and parse back to the same command — the round-trip property of
// imsb/mqsc/printer.hpp. A broken property traps so libFuzzer keeps the input.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/mqsc/parser.hpp"
#include "imsb/mqsc/printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace imsb::mqsc;
  if (size > 64 * 1024) return 0;  // longer scripts add time, not paths
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const parse_result result = parse(text);
  for (const command& cmd : result.commands) {
    const std::string printed = to_mqsc(cmd);
    const parse_result back = parse(printed);
    if (!back.ok() || back.commands.size() != 1 || back.commands[0] != cmd) __builtin_trap();
    if (to_mqsc(back.commands[0]) != printed) __builtin_trap();
    if (cmd.line == 0 || cmd.text.empty()) __builtin_trap();
  }
  for (const parse_error& e : result.errors)
    if (e.line == 0 || e.column == 0 || e.message().empty()) __builtin_trap();

  const command_result single = parse_command(text);
  if (single.ok() == single.error.has_value()) __builtin_trap();
  return 0;
}
