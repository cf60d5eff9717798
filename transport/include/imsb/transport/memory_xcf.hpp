#pragma once
// The in-memory XCF backend: one emulated sysplex inside one process, for unit tests of the OTMA
// session layer (tpipe/) and of the bridge (transport/README.md). Its members behave as the xcfhub's do
// (docs/design/xcf-emulation.md, README "The xcfhub protocol" [D]), but nothing happens on its own:
// messages, events and send results are queued and handed to the members' handlers only when the test
// calls run() or run_one(), on the test's thread, and time is a virtual clock the test moves with
// advance(). So a test decides exactly what interleaving it checks, and the same test gives the same
// result on every run.
//
// Faults are injected on cue (docs/design/style.md, Seastar): messages dropped, delayed, duplicated or
// reordered on the way, a member's link dropped, a send refused, a member that stops answering heartbeats.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/names/name_rules.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::transport {

namespace detail {
struct memory_plex;  // the sysplex's state, shared with the member objects it hands out
}

struct memory_sysplex_options {
  // Largest SEND payload accepted by send(): the 58 bytes before the data (target token and name,
  // stream, control area) plus the data; larger → 8/10 (README "Details": --max-message limits the
  // payload, as the hub's does) [D]. The largest data is thus max_message - 58.
  std::size_t max_message = 1024 * 1024;
  // Bytes queued for one target member (data plus the 32-byte control area of each message not yet
  // delivered) before sends to it are refused with 12/0 (README "Send", hub --target-buffer) [D].
  // Keep it at least max_message, or a message of that size is never accepted. After a 12/0 the
  // stream stays refused until the sender has heard of it: a send from inside that on_send_done, or
  // any send once it has returned, resumes the stream (README "Send").
  std::size_t target_buffer = 8 * 1024 * 1024;
  // A member that stops answering is reported status_missing after two intervals and fails after
  // three (README "Failure": three heartbeat intervals of silence) [D].
  std::chrono::milliseconds heartbeat{1000};
  // Which name rules join() applies: XCF's own by default [C: XCF-NAMES2], or the bridge's [D].
  names::xcf_rules name_rules = names::xcf_rules::xcf;
  std::string system = "MEMPLEX";  // member_info::system of every member (at most 8 characters)
};

// What run() and run_one() handed to handlers.
struct delivery_counts {
  std::size_t messages = 0;      // on_message calls
  std::size_t events = 0;        // on_event calls
  std::size_t send_results = 0;  // on_send_done calls
  std::size_t total() const noexcept { return messages + events + send_results; }
};

// Which messages a fault applies to. Empty fields match anything: message_filter{} is every message.
struct message_filter {
  std::string group;
  std::string source;  // member names
  std::string target;
  static message_filter any() { return {}; }
  static message_filter between(std::string source, std::string target) {
    return {{}, std::move(source), std::move(target)};
  }
};

enum class reorder_mode : std::uint8_t {
  reverse,  // the due batch backwards: the simplest order a test can predict
  shuffle,  // a seeded random permutation (the same seed gives the same order on every platform)
};

// One thing that happened on "the wire" between members, in the order it happened.
struct wire_record {
  enum class what : std::uint8_t {
    accepted,    // send() took it: queued for the target
    refused,     // send() refused it: code says why (synchronous, or 12/0 later through on_send_done)
    dropped,     // lost on the way by a drop fault: never delivered, nobody told
    duplicated,  // a second copy queued by a duplicate fault
    delivered,   // handed to the target's on_message
    // Thrown away because the target left, failed or quiesced first: silently, the sender is not told,
    // as IXCLEAVE discards undelivered messages [C: XCF-LEAVE] and the hub does (README "Failure").
    discarded,
  };
  what kind = what::accepted;
  std::chrono::milliseconds at{0};  // virtual time
  std::string group;
  std::string source;
  std::string target;  // empty when send() refused it before finding the target
  std::uint16_t stream = 0;
  bool ordered = true;
  xcf::control_area control{};
  std::size_t size = 0;  // data bytes
  std::uint64_t send_id = 0;
  xcf::return_code code;  // for refused; ok otherwise
};

// Fault injection, reached through memory_sysplex::faults(). Counted faults apply to the next `count`
// matching messages accepted from now on (1: one-shot); `always` never wears out. When several rules
// of one kind match a message, the oldest one applies.
class memory_faults {
 public:
  static constexpr std::size_t always = std::numeric_limits<std::size_t>::max();

  // A signalling path that loses a message after XCF accepted it: the target never sees it and the
  // sender is not told (an ack asked for is still given, as acceptance preceded the loss).
  void drop(const message_filter& filter, std::size_t count = 1);
  // A slow or rebuilding signalling path: the message becomes due `by` later on the virtual clock.
  // On an ordered stream the messages sent after it wait behind it (FIFO per stream holds, [D]).
  void delay(const message_filter& filter, std::chrono::milliseconds by, std::size_t count = 1);
  // A message delivered twice (a path retry after a lost acknowledgement).
  void duplicate(const message_filter& filter, std::size_t count = 1);
  // XCF without DELIVERMSG=ORDERED guarantees no order ([C: XCF-MSGO], TIBCO's warning [C: TIBCO-SUB]): the
  // next time at least two unordered matching messages are due together, `batches` times, they are delivered
  // in `mode` order. Ordered messages are never reordered.
  void reorder(const message_filter& filter, reorder_mode mode, std::uint64_t seed = 0,
               std::size_t batches = 1);
  // The nth send() from now by that member fails at once with `code` (default 12/08): the failure
  // of IXCMSGOX itself, or of the client's link, at exactly that point of a protocol exchange.
  void fail_send(std::string group, std::string member, std::size_t nth = 1,
                 xcf::return_code code = xcf::codes::injected_failure);
  // The member's link drops (the TCP client loses the hub; the address space's connection to XCF
  // ends): it fails — failed if it joined lasting, not-defined otherwise — the other members get
  // `failed`, its queued inbound messages are discarded (silently) and what else was queued for its
  // handler is dropped, its own handler gets `failed` for every member it knew active (those the
  // join's answer and the events handed to it so far showed active) and then for itself, and its
  // services answer 12/04 until reconnect(). Those link-loss events are delivered while the link is
  // down or after reconnect(), never after the member's own leave() or quiesce() [C: XCF-STATES].
  // 8/04 when the member is not active, 8/20 when unknown.
  xcf::return_code disconnect(std::string_view group, std::string_view member);
  // The member's link comes back: it re-joins with its original join_request (a new token; 4/8 when
  // it was failed), the others get `active`, and its own handler gets `active` for itself and for
  // every active member of the group (README "Client backend behaviour"). Returns the join's code;
  // when that refuses (its name active again elsewhere: 8/8), the link stays down. 8/20 when no
  // member of that name is disconnected.
  xcf::return_code reconnect(std::string_view group, std::string_view member);
  // The member's process hangs (stopped, looping, paged out): it stops answering heartbeats. Its
  // handler is no longer called; after two heartbeat intervals the others get status_missing, after
  // three it fails as in disconnect() (its held inbound is discarded, and its handler — as if the
  // process woke up — gets the link-loss events). 8/04 when not active, 8/20 when unknown.
  xcf::return_code stop_heartbeats(std::string_view group, std::string_view member);
  // Forgets the rules not yet used up (drop, delay, duplicate, reorder, fail_send).
  void clear();

 private:
  friend class memory_sysplex;
  explicit memory_faults(detail::memory_plex& plex) noexcept : plex_(&plex) {}
  detail::memory_plex* plex_;
};

// One emulated sysplex. Members that join() it are xcf::member objects that may outlive it. Safe to
// call from several threads (one mutex); handlers run on the thread that calls run()/run_one(), one at
// a time, never while the sysplex is locked: from a handler every service may be called (send() always;
// the others too, which the real backends forbid, member.hpp). run() called from inside one of this
// sysplex's handlers does nothing: the outer run() delivers what the handler caused; a handler may run
// another sysplex, whose handlers may call this one's run() (which then does nothing either).
// leave() and the member object's destructor, called on another thread while that member's handler is
// running, wait for the call to end: once they return the handler may be destroyed. Messages to a
// member that leaves, quiesces or fails before they are delivered are discarded silently (README
// "Leave", "Failure"); on_send_done reports 12/0 refusals and, when asked, acceptance — one of the two
// per send, never both.
class memory_sysplex final : public xcf::service {
 public:
  static constexpr std::size_t default_run_limit = 1'000'000;

  explicit memory_sysplex(memory_sysplex_options options = {});
  ~memory_sysplex() override;
  memory_sysplex(const memory_sysplex&) = delete;
  memory_sysplex& operator=(const memory_sysplex&) = delete;

  // IXCJOIN ([C: XCF-JOIN]; README "Join"): 0/0; 4/4 first active member; 4/8 re-join of a failed
  // member (a new token); 4/0C re-join of a quiesced member (when both apply, 4/8 or 4/0C wins over
  // 4/4); refused 8/8 name active, 8/14 bad name, 8/18 not on the allow-list. `handler` must outlive
  // the member or its leave().
  xcf::join_result join(const xcf::join_request& request, xcf::member_handler& handler) override;

  // The group's allow-list (stand-in for RACF's IMSXCF profiles [D]): only these names
  // may join it from now on. Without a call every name may.
  void allow(std::string group, std::vector<std::string> members);

  // Hands every item due now to its handler, including what handlers cause while it runs, until
  // nothing is due (or `limit` handler calls, against two members answering each other forever).
  // Items are due in (virtual time, queue order): FIFO per (source, target, stream) for ordered sends.
  delivery_counts run(std::size_t limit = default_run_limit);
  // The next single handler call, if any item is due.
  delivery_counts run_one();
  // Moves the virtual clock; what becomes due (delayed messages, heartbeat timeouts) happens at the
  // next run(), in time order.
  void advance(std::chrono::milliseconds by);
  std::chrono::milliseconds now() const;
  std::size_t pending() const;  // items queued, due or not (messages, events, send results, timers)

  // The group as IXCQUERY shows it (members not not-defined), by name.
  std::vector<xcf::member_info> members(std::string_view group) const;
  std::vector<wire_record> traffic() const;
  void clear_traffic();

  memory_faults& faults() noexcept { return faults_; }

 private:
  std::shared_ptr<detail::memory_plex> plex_;
  memory_faults faults_;
};

// A member_handler that records what the exits saw, for tests. The optional hooks run after recording:
// a test answers from inside the exit with them (send() from a handler, as OTMA does). Not thread-safe:
// read it on the thread that calls run().
class recording_handler : public xcf::member_handler {
 public:
  struct send_result {
    std::uint64_t send_id = 0;
    xcf::return_code code;
  };
  std::vector<xcf::message> messages;
  std::vector<xcf::member_event> events;
  std::vector<send_result> send_results;
  std::function<void(const xcf::message&)> after_message;
  std::function<void(const xcf::member_event&)> after_event;
  std::function<void(const send_result&)> after_send_done;

  void on_message(xcf::message msg) override {
    messages.push_back(std::move(msg));
    if (after_message) after_message(messages.back());
  }
  void on_event(const xcf::member_event& event) override {
    events.push_back(event);
    if (after_event) after_event(events.back());
  }
  void on_send_done(std::uint64_t send_id, xcf::return_code code) override {
    send_results.push_back({send_id, code});
    if (after_send_done) after_send_done(send_results.back());
  }
  void clear() {
    messages.clear();
    events.clear();
    send_results.clear();
  }
};

}  // namespace imsb::transport
