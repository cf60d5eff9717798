#pragma once
// The bridge's operator commands, parsed — in MQSC's words where IBM has them:
//   DISPLAY PARTNER | DISPLAY QUEUE | DISPLAY TPIPE[(name|*)] | DISPLAY SYSTEM     (DIS, DISP accepted)
//   SUSPEND QMGR FACILITY(IMSBRIDGE)   RESUME QMGR FACILITY(IMSBRIDGE)            [C: CONTROL-BRIDGE]
//   RESET TPIPE(name) XCFMNAME(m) [XCFGNAME(g)] [SENDSEQ(n)] [RCVSEQ(n)] [ACTION(COMMIT|BACKOUT)]
//                                                                                 [C: RESET-TPIPE]
//   STOP
// Keywords are case-insensitive; names inside parentheses keep their case (MQ names are case-sensitive)
// except that unquoted names are upper-cased as MQSC does. Pure: the engine acts on the result.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "imsb/core/result.hpp"

namespace imsb::bridgemap {

enum class operator_verb : std::uint8_t {
  display_partner,
  display_queue,
  display_tpipe,
  display_system,
  suspend,
  resume,
  reset_tpipe,
  stop,
};

struct operator_command {
  operator_verb verb = operator_verb::display_system;
  std::string tpipe;       // display_tpipe filter ("*" or a name), reset_tpipe's name
  std::string xcf_member;  // reset_tpipe (required)
  std::string xcf_group;   // reset_tpipe (optional: empty = the only group with that member)
  std::optional<std::uint32_t> send_seq;
  std::optional<std::uint32_t> receive_seq;
  enum class action : std::uint8_t { none, commit, backout } reset_action = action::none;
};

// Errors: decode_error with a generic category (std::errc::invalid_argument) and a detail that says what
// is wrong in the operator's words ("RESET TPIPE needs XCFMNAME", "SENDSEQ must be 0..4294967295",
// "unknown command FOO"); field = the keyword at fault.
result<operator_command> parse_operator_command(std::string_view line);

}  // namespace imsb::bridgemap
