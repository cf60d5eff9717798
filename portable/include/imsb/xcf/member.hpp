#pragma once
// The XCF member interface: what the OTMA layer (tpipe/, imsemu, the bridge) sees of XCF, whatever the
// backend — in-memory (tests), the TCP emulator xcfhub (Linux), or real XCF (z/OS). IBM's XCF services
// [C: XCF-JOIN, XCF-MSGO, XCF-MUR, XCF-STATES, XCF-LEAVE]: join = IXCJOIN, send = IXCMSGOX, on_message = the
// message user routine (MSGEXIT) plus IXCMSGIX, on_event = the group user routine (GRPEXIT), query =
// IXCQUERY, set_user_state = IXCSETUS, quiesce = IXCQUIES, leave = IXCLEAVE, remove = IXCDELET.
//
// Threading [D]: a backend may call a member_handler from its own thread (as XCF runs the exits
// asynchronously [C: XCF-MUR]), but never two calls for the same member at once. From inside a handler
// only send() may be called; join, query, set_user_state, quiesce, leave and remove wait for the backend
// and must be called from another thread.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/core/bytes.hpp"

namespace imsb::xcf {

inline constexpr std::size_t group_name_length = 8;    // [C: XCF-NAMES2]
inline constexpr std::size_t member_name_length = 16;  // [C: XCF-NAMES2]

// XCF's return and reason codes [C: XCF-JOIN, XCF-LEAVE] and our own where XCF has none [D]
// (docs/design/xcf-emulation.md).
struct return_code {
  std::uint32_t rc = 0;
  std::uint32_t rsn = 0;
  // rc 0 and rc 4 both mean the service was done (rc 4 carries information, as IXCJOIN's 4/4).
  bool ok() const noexcept { return rc == 0 || rc == 4; }
  friend bool operator==(return_code a, return_code b) noexcept { return a.rc == b.rc && a.rsn == b.rsn; }
  friend bool operator!=(return_code a, return_code b) noexcept { return !(a == b); }
};

namespace codes {
inline constexpr return_code ok{0, 0};
inline constexpr return_code first_active{4, 0x04};      // IXCJOINRSNFIRSTACTIVEMEMBER [C]
inline constexpr return_code was_failed{4, 0x08};        // IXCJOINRSNWASFAILED [C]
inline constexpr return_code was_quiesced{4, 0x0C};      // IXCJOINRSNWASQUIESCED [C]
inline constexpr return_code not_active{8, 0x04};        // target / self not active; IXCLEAVE 8/4 [C]
inline constexpr return_code already_active{8, 0x08};    // duplicate active name (IXCCREAT's 8/8) [D]
inline constexpr return_code already_quiesced{8, 0x0C};  // [D] from IXCCREAT's 8/0C
inline constexpr return_code too_big{8, 0x10};           // message or frame over the maximum [D]
inline constexpr return_code bad_name{8, 0x14};          // a name that name_rules.hpp refuses [D]
inline constexpr return_code not_authorized{8, 0x18};    // not on the group's allow-list (RACF stand-in) [D]
inline constexpr return_code protocol_error{8, 0x1C};    // a frame that does not decode [D]
inline constexpr return_code not_found{8, 0x20};         // remove/query: no such member [D]
inline constexpr return_code resource_shortage{12, 0x00};  // buffers full (XCF TIMEOUT=0 behaviour) [D]
inline constexpr return_code link_down{12, 0x04};          // the backend lost its link to XCF [D]
inline constexpr return_code injected_failure{12, 0x08};   // in-memory backend: a failure asked for by a test
}  // namespace codes

// "rc 8 rsn X'04': target member not active" — the name and meaning of a code, for logs and errors.
std::string describe(return_code code);

enum class member_state : std::uint8_t {  // [C: XCF-STATES]
  not_defined = 0,
  created = 1,
  active = 2,
  quiesced = 3,
  failed = 4,
};
std::string_view to_string(member_state state) noexcept;

enum class event_kind : std::uint8_t {  // the group user routine's events [C: XCF-STATES]
  active = 1,                           // joined (or re-joined)
  left = 2,                             // left the group: now not-defined
  failed = 3,                           // ended without leaving: failed if lasting, otherwise not-defined
  quiesced = 4,
  user_state = 5,      // its 32-byte user state changed
  status_missing = 6,  // it stopped answering heartbeats (followed by failed)
  removed = 7,         // a failed or quiesced member was deleted (IXCDELET): now not-defined [D]
};
std::string_view to_string(event_kind kind) noexcept;

using member_token = std::array<std::uint8_t, 8>;   // IXCYQUAA QUAMTOKN [C]
using control_area = std::array<std::uint8_t, 32>;  // IXCMSGOX MSGCNTL [C]; the OTMA MCI [I]
using user_state = std::array<std::uint8_t, 32>;    // USTATE [C]
using member_data = std::array<std::uint8_t, 8>;    // MEMDATA [C]

// Names are held as ASCII text without padding ("GRP1", "IMS1"); backends pad and convert.
struct member_info {
  std::string group;
  std::string name;
  member_token token{};
  member_state state = member_state::not_defined;
  user_state ustate{};
  member_data memdata{};
  std::string system;  // the "system" the member runs on: the hub's name, or the z/OS system name
};

struct join_request {
  std::string group;
  std::string member;
  bool lasting = false;  // LASTING=YES: a failure leaves the member failed rather than not-defined
  user_state ustate{};
  member_data memdata{};
};

// A message as the message user routine sees it.
struct message {
  std::string source_name;
  member_token source_token{};
  std::uint16_t stream = 0;
  bool ordered = true;  // sent on an ordered stream (DELIVERMSG=ORDERED) [C]
  control_area control{};
  bytes data;
};

struct member_event {
  event_kind kind = event_kind::active;
  member_info member;  // the member the event is about, with its new state and user state
};

// Where a message goes: a member name, or (name empty) a member token.
struct target {
  std::string name;
  member_token token{};
  static target by_name(std::string n) { return {std::move(n), {}}; }
  static target by_token(const member_token& t) { return {{}, t}; }
};

struct send_options {
  std::uint16_t stream = 0;
  // FIFO per (source, target, stream) when true [D: stronger than XCF's default]. Unordered messages
  // may be reordered (the in-memory backend's reorder fault [D]; docs/design/xcf-emulation.md).
  bool ordered = true;
  // Ask the backend for a positive answer as well: on_send_done(id, ok) once accepted for delivery.
  bool ack = false;
};

class member_handler {
 public:
  virtual ~member_handler() = default;
  virtual void on_message(message msg) = 0;              // MSGEXIT + IXCMSGIX
  virtual void on_event(const member_event& event) = 0;  // GRPEXIT
  // The outcome of a send() that the backend learned after send() returned: a refusal decided when the
  // send was processed (target not active then, resource shortage) always, an acceptance only when
  // send_options::ack asked for it. At most one outcome per send. Messages discarded later because the
  // target left, quiesced or failed are discarded silently, as IXCLEAVE does [C: XCF-LEAVE].
  virtual void on_send_done(std::uint64_t send_id, return_code code) {
    static_cast<void>(send_id);
    static_cast<void>(code);
  }
};

// One joined member. Destroying it without leave() is an abnormal end: the member fails (lasting) or
// disappears (not lasting), as when an address space ends without IXCLEAVE.
class member {
 public:
  virtual ~member() = default;
  virtual const std::string& group() const noexcept = 0;
  virtual const std::string& name() const noexcept = 0;
  virtual member_token token() const = 0;  // may change after the backend re-joins

  // Non-blocking. rc 0: accepted for delivery (not yet delivered); otherwise the refusal. *send_id, when
  // given, gets an id that on_send_done reports later.
  virtual return_code send(const target& to, const control_area& control, bytes_view data,
                           const send_options& options = {}, std::uint64_t* send_id = nullptr) = 0;
  // The members of our group (all of them, or the one named), with states — IXCQUERY REQINFO=GROUP.
  virtual return_code query(std::vector<member_info>& out, std::string_view member_name = {}) = 0;
  virtual return_code set_user_state(const user_state& state) = 0;
  virtual return_code quiesce() = 0;
  // IXCDELET of another member of the group that is failed or quiesced.
  virtual return_code remove(std::string_view member_name) = 0;
  // Messages this member already sent are still delivered; messages to it are discarded [C: XCF-LEAVE].
  virtual return_code leave() = 0;
};

struct join_result {
  return_code code;  // ok() → member is set
  std::unique_ptr<member> joined;
  std::vector<member_info> members;  // the group as it was when we joined, ourselves included
};

// A sysplex as seen by one program: where members join.
class service {
 public:
  virtual ~service() = default;
  virtual join_result join(const join_request& request, member_handler& handler) = 0;
};

}  // namespace imsb::xcf
