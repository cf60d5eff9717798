#pragma once
// The TCP client backend of the XCF member interface: each joined member is one connection to a running
// xcfhub (transport/README.md "Client backend behaviour" [D]; docs/design/xcf-emulation.md).
//
// Threading: a tcp_service owns one I/O thread; every member_handler call of its members runs there, one
// at a time. send() is thread-safe and never blocks, also from inside a handler. join, query,
// set_user_state, quiesce, remove and leave wait for the hub's answer: called from a handler (where the
// answer could never be read) they return tcp_codes::called_from_handler instead of deadlocking.
// Handlers must not throw. Destroying a member (without leave: an abnormal end, the hub makes it a
// failure) waits for a handler call of it that is running on the I/O thread, and no call starts after;
// from inside its own handler it takes effect when that handler returns. Members may outlive their
// tcp_service (they keep the I/O thread).
//
// Refusals (README "Send"): after the hub refused a SEND with 12/0 it refuses the rest of that (target,
// stream) until a SEND carries the resume flag. The backend sets it on the first send of the stream
// after on_send_done reported the refusal — or on a send made inside that on_send_done. While that
// on_send_done runs, sends of the stream from other threads are refused 12/0 at once (their sender
// may not know of the refusal yet, and only the re-send of the refused message may resume). Refusals
// of messages sent before the last resume do not arm it again. A sender that goes back to the first
// refused message on each refusal it has not already answered gets every message delivered once, in
// order (tests/e2e/xcf/exchange_test.cpp).
//
// Link loss (end of stream, an error, an ERROR frame, or nothing heard for three of the hub's heartbeat
// intervals, checked every quarter interval): the handler gets `failed` for every member it knew active,
// then for itself; sends are refused with link_down (12/4); the backend re-joins with back-off and then
// reports `active` for itself and for each active member. Sends still queued when the link dropped are
// lost without on_send_done: the `failed` event for ourselves says that everything in flight is in
// doubt, as after an XCF failure. The back-off (reconnect_initial doubling to reconnect_max, each delay
// ±20 % at random so that many members do not come back in step) starts again from reconnect_initial
// only after a re-joined link has stayed up for 2 s: a hub that accepts and drops at once is not
// hammered.
//
// Decisions for the link-down cases (README "Client backend behaviour" [D]):
// - leave() while the link is down (or while re-joining) returns link_down (12/4) and ends the member
//   here: no more re-joins, no more handler calls, every later call returns not_active (8/4). The hub
//   already made the member fail; a lasting member stays failed there until removed (IXCDELET) or
//   re-joined, as after a lost system.
// - quiesce() or leave() whose link drops before the hub answered returns link_down and ends the member
//   the same way (no events: the exits are not scheduled after the member's own IXCQUIES/IXCLEAVE,
//   [C: XCF-STATES]).
// - A re-join the hub refuses for good — 8/14 (bad name) or 8/18 (not on the allow-list) — stops the
//   re-joins (IMB3054E). The member stays failed (its handler already got `failed` for itself) and gets
//   no more handler calls; send and the other services return link_down (12/4), leave() ends it
//   (12/4). Other refusals (8/8 while the hub still holds the old connection, 12/0) are retried.
// - A stream's resume state is kept per (how the target is addressed, stream): by name and by token
//   are different keys here, while the hub keeps one refusal per (member, stream); a sender that mixes
//   the two for one member and stream must re-send through the form that was refused. States of
//   targets that left, failed or were removed are dropped once nothing refers to them, so re-joined
//   tokens do not pile up.
// - join() when the backend's I/O thread is stuck (a handler that never returns) gives up after
//   connect_timeout + 2 s with link_down without waiting for that thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/transport/tcp_common.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::transport {

namespace detail {
class client_core;  // the I/O thread, the configuration and the TLS context (tcp_xcf.cpp)
}  // namespace detail

namespace tcp_codes {
// A blocking service (join, query, leave, ...) was called from inside a member_handler, on the backend's
// own I/O thread, where the answer could never be read [D].
inline constexpr xcf::return_code called_from_handler{8, 0x24};
}  // namespace tcp_codes

struct tcp_service_options {
  std::string endpoint;  // the hub, "host:port" or "[v6]:port"
  // TLS when any file is set: ca_file verifies the hub (whose certificate must name the endpoint's host),
  // cert_file + key_file are presented to it (needed when the hub runs with --tls-ca).
  tls_files tls;
  // Bounds TCP connect + TLS handshake + JOIN_RSP, for join() and for each re-join attempt.
  std::chrono::milliseconds connect_timeout{5000};
  // Re-join back-off after a link loss: initial, doubling up to max, each delay ±20 % (README [D]).
  std::chrono::milliseconds reconnect_initial{100};
  std::chrono::milliseconds reconnect_max{5000};
  // Bytes queued for the hub per member; send() over it is refused with resource_shortage (12/0). One
  // frame is always accepted when nothing is queued, so a message up to the hub's maximum can always go.
  std::size_t outbound_limit = 8 * 1024 * 1024;
  // Console lines (with IMB3050-IMB3054 IDs): connection failures, link losses, re-joins. Empty: silent.
  // Called from the I/O thread or the thread that called join.
  std::function<void(const std::string& line)> log;
};

class tcp_service final : public xcf::service {
 public:
  // Starts the I/O thread. Throws std::invalid_argument for a malformed endpoint or unusable TLS files
  // (a configuration error, found at start-up).
  explicit tcp_service(tcp_service_options options);
  ~tcp_service() override;
  tcp_service(const tcp_service&) = delete;
  tcp_service& operator=(const tcp_service&) = delete;

  // Connects, sends JOIN and waits for JOIN_RSP (at most connect_timeout): the hub's code (0/0, 4/4, 4/8,
  // 4/0C, or a refusal 8/8, 8/14, 8/18), bad_name when a name breaks XCF's rules [C: XCF-NAMES2] before
  // anything is sent, link_down when the hub cannot be reached, or called_from_handler. The handler must
  // outlive the member; it may be called before join returns (as XCF may run the exits before IXCJOIN returns
  // [C: XCF-MUR]).
  xcf::join_result join(const xcf::join_request& request, xcf::member_handler& handler) override;

  // IXCQUERY without joining, on a connection of its own: every group (group empty), one group, or one
  // member of it. What `xcfhub status` shows.
  xcf::return_code query(std::vector<xcf::member_info>& out, std::string_view group = {},
                         std::string_view member_name = {});

 private:
  std::shared_ptr<detail::client_core> core_;
};

// Diagnostics of one member of this backend (tests, monitoring): what it holds now.
struct tcp_member_stats {
  bool linked = false;              // joined and the link is up
  std::size_t stream_states = 0;    // (target, stream) resume states kept (README "Send")
  std::size_t send_runs = 0;        // runs of sends whose stream a SEND_RSP may still name
  std::size_t reader_capacity = 0;  // bytes the frame reader of the current connection holds
  std::uint32_t reader_limit = 0;   // the largest frame payload it accepts now
};
// nullopt when `m` is not a member of this backend, when called from a handler of the backend, or
// when its I/O thread does not answer within a second.
std::optional<tcp_member_stats> tcp_stats(const xcf::member& m);

}  // namespace imsb::transport
