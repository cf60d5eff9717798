#pragma once
// The bridge engine (docs/design/commit-modes.md: one CM0 transaction end to end, CM1, IMS commands;
// docs/design/errors.md: the three outcomes of every error). It finds bridge queues (local queues whose
// STGCLASS has XCFGNAME and XCFMNAME), makes one partner per (group, IMS member) — an OTMA client session
// over one XCF member of ours in that group (tpipe::client_link) — and one worker per bridge queue, opened
// for exclusive input.
//
// Threads and connections: each worker has its own queue-manager connection (its unit of work holds the
// request get, the send-side state records and, for CM1, the reply); each partner has one receive-side
// connection for CM0 output (reply put + receive record in one unit of work, then the ACK) and one
// thread that runs its session events in order; one more connection discovers queues and puts events.
//
// Never a resend on a timer: every kind of trouble ends in CM0 step 7 of docs/design/commit-modes.md (drop
// the session, reconnect what broke, reload the state records, bid with resync).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/bridge/config.hpp"
#include "imsb/bridge/security.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/tpipe/client_session.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::bridge {

struct engine_hooks {
  // A new connection to the queue manager (called once per worker, per partner, and for the engine's own
  // work; again after a connection breaks).
  std::function<result<std::unique_ptr<mqi::connection>>()> connect;
  // The XCF backend; one service serves every member the engine joins.
  std::function<std::unique_ptr<xcf::service>()> make_xcf;
  // One console line, already carrying its IMBnnnnS ID. Called from any thread.
  std::function<void(const std::string& line)> console;
  std::function<tpipe::millis()> clock;  // empty: tpipe::steady_now
  security_checker* security = nullptr;  // nullptr: every partner treated as CONTROL (no UTOKEN)
};

struct tpipe_status {
  std::string name, xcf_group, xcf_member, queue;
  bool synchronized = false;
  std::string state;  // "ACTIVE", "STOPPED (reason)", "HELD" ...
  std::uint32_t send = 0, receive = 0;
  std::optional<std::uint32_t> in_flight;
  unsigned outstanding = 0;  // CM1 messages sent and not yet committed or backed out
};
struct queue_status {
  std::string queue, xcf_group, xcf_member,
      state;  // "RUNNING", "WAITING FOR PARTNER", "STOPPED (...)", "SUSPENDED"
  std::uint64_t sent = 0, replies = 0, dead_letters = 0, backouts = 0;
};
struct partner_status {
  std::string xcf_group, xcf_member, state;  // "ACTIVE", "BIDDING", "RESYNCING", "LOST (...)", "FLOODED"
  std::uint64_t possible_duplicates = 0;     // CM1 requests sent again after their outcome became unknown
  std::uint64_t duplicates_ignored = 0;      // CM0 outputs with a number already received (ACKed, not put)
};

class engine {
 public:
  engine(bridge_config config, engine_hooks hooks);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // Connects, opens (defines, embedded) the state queue, finds the bridge queues, joins XCF and starts
  // partners and workers. Errors: the queue-manager connection or the state queue (MQRC), the XCF
  // backend (named). Partners that cannot bid do not fail start(): they retry and say so (IMB2002E).
  result<done> start();
  // One operator command line (DISPLAY ..., SUSPEND/RESUME QMGR FACILITY(IMSBRIDGE), RESET TPIPE ...,
  // STOP): the answer lines. Thread-safe. "STOP" asks for a quiesce; stop_requested() then says so.
  std::vector<std::string> command(std::string_view line);
  // SIGTERM: no new gets; in-flight work finishes (at most `grace_ms`); partners leave XCF; events put.
  void quiesce(std::uint64_t grace_ms = 10000);
  bool stop_requested() const noexcept;

  std::vector<partner_status> partners() const;
  std::vector<queue_status> queues() const;
  std::vector<tpipe_status> tpipes() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace imsb::bridge
