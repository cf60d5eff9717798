#include "imsb/xcf/member.hpp"

#include <string>

namespace imsb::xcf {

namespace {

struct code_text {
  return_code code;
  std::string_view meaning;
};

// One meaning per (rc, rsn). XCF reuses pairs across services (IXCLEAVE's 4/4 is "exits not purged",
// [C: XCF-LEAVE]); the backends only ever return 4/4 from join, so the join meaning is the one given.
constexpr code_text code_texts[] = {
    {codes::ok, "ok"},
    {codes::first_active, "first active member of the group"},                         // [C: XCF-JOIN]
    {codes::was_failed, "re-joined a failed member, with a new token"},                // [C: XCF-JOIN]
    {codes::was_quiesced, "re-joined a quiesced member"},                              // [C: XCF-JOIN]
    {codes::not_active, "target member not active"},                                   // [C: XCF-LEAVE]
    {codes::already_active, "a member of that name is already active"},                // [D]
    {codes::already_quiesced, "member already quiesced"},                              // [D]
    {codes::too_big, "message or frame over the maximum size"},                        // [D]
    {codes::bad_name, "group or member name breaks the XCF name rules"},               // [D]
    {codes::not_authorized, "member not on the group's allow-list"},                   // [D]
    {codes::protocol_error, "protocol error: a frame that does not decode"},           // [D]
    {codes::not_found, "no such member"},                                              // [D]
    {codes::resource_shortage, "resource shortage: buffers for the target are full"},  // [D]
    {codes::link_down, "link to XCF lost"},                                            // [D]
    {codes::injected_failure, "failure injected by a test"},                           // [D]
};

// X'04', X'1C', X'0104': an even number of hex digits, as z/OS prints reason codes.
std::string hex_code(std::uint32_t v) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0x0F]);
    v >>= 4;
  } while (v != 0);
  if (s.size() % 2 != 0) s.insert(s.begin(), '0');
  return "X'" + s + "'";
}

}  // namespace

std::string describe(return_code code) {
  std::string s = "rc " + std::to_string(code.rc) + " rsn " + hex_code(code.rsn);
  for (const auto& t : code_texts) {
    if (t.code == code) {
      s += ": ";
      s += t.meaning;
      break;
    }
  }
  return s;
}

std::string_view to_string(member_state state) noexcept {
  switch (state) {  // [C: XCF-STATES] state names
    case member_state::not_defined:
      return "not-defined";
    case member_state::created:
      return "created";
    case member_state::active:
      return "active";
    case member_state::quiesced:
      return "quiesced";
    case member_state::failed:
      return "failed";
  }
  return "unknown";
}

std::string_view to_string(event_kind kind) noexcept {
  switch (kind) {
    case event_kind::active:
      return "active";
    case event_kind::left:
      return "left";
    case event_kind::failed:
      return "failed";
    case event_kind::quiesced:
      return "quiesced";
    case event_kind::user_state:
      return "user-state";
    case event_kind::status_missing:
      return "status-missing";
    case event_kind::removed:
      return "removed";
  }
  return "unknown";
}

}  // namespace imsb::xcf
