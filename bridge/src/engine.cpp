// The bridge engine (engine.hpp): docs/design/commit-modes.md (one CM0 transaction end to end, steps 1-8,
// CM1, IMS commands) and docs/design/errors.md (the three outcomes of every error). Threads: one per worker
// (bridge queue), one per partner (IMS member), one for discovery; the transport's thread only posts events
// (no MQ work there).

#include "imsb/bridge/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <variant>

#include "engine_parts.hpp"
#include "imsb/bridge/state_store.hpp"
#include "imsb/bridgemap/operator.hpp"
#include "imsb/bridgemap/outcomes.hpp"
#include "imsb/bridgemap/reply.hpp"
#include "imsb/bridgemap/request.hpp"
#include "imsb/bridgemap/state_records.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/pcf.hpp"
#include "imsb/mqi/admin.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/sync/mutex.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/resync.hpp"
#include "imsb/tpipe/xcf_link.hpp"

namespace imsb::bridge {

namespace {

using bridgemap::record_kind;
using bridgemap::state_record;
using bridgemap::token16;
using detail::connection_broken;
using detail::trim;
using namespace std::chrono_literals;

// [D] NAK X'23' for a persistent CM0 command (docs/design/commit-modes.md, IMS commands): MQFB 300 + X'23'
// = 335.
constexpr std::int32_t feedback_cm0_command = mq::MQFB_IMS_ERROR + otma::sense::seq_not_recoverable;

std::string hex_token(const token16& t) { return to_hex(bytes_view(t.data(), t.size())); }

// Only MQRC_NO_MSG_AVAILABLE says a request is gone already (expired, got by an operator); any
// other refusal of a get by token (2016 GET(DISABLED) ...) leaves it on its queue.
bool request_gone(const decode_error& e) { return mqi::reason_of(e) == mq::MQRC_NO_MSG_AVAILABLE; }

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

state_record make_record(record_kind kind, const std::string& group, const std::string& member,
                         const std::string& tpipe) {
  state_record r;
  r.kind = kind;
  r.xcf_group = group;
  r.xcf_member = member;
  r.tpipe = tpipe;
  return r;
}

}  // namespace

struct partner;
struct worker;

// ---- events --------------------------------------------------------------------------------------------

struct worker_event {
  enum class kind : std::uint8_t {
    ready,          // the partner's session is ready (resync decisions came before, in order)
    lost,           // the session ended
    response,       // ACK/NAK of an input of ours
    output,         // output on our non-synchronized Tpipe (CM1, command output, DFS text)
    confirmation,   // commit confirmation
    resync,         // a resync decision for our synchronized Tpipe
    unknown_tpipe,  // IMS did not list our synchronized Tpipe (cold start)
    reset,          // RESET TPIPE from the operator
  } what = kind::ready;
  tpipe::input_response response;
  otma::otma_message output;
  std::uint32_t seq = 0;
  bool committed = false;
  tpipe::resync_decision decision;
  bridgemap::operator_command command;
  std::shared_ptr<struct reset_request> answer;  // reset: answered through it (engine::command)
  std::uint64_t gen = 0;                         // ready / lost: the partner's session generation
};

// RESET TPIPE from engine::command(), answered by the queue's worker: the command may give up
// waiting (timeout) and cancel it, and the worker may be disconnected or stopping; every case answers.
struct reset_request {
  sync::mutex mu;
  sync::condition_variable cv;
  bool cancelled IMSB_GUARDED_BY(mu) = false;
  bool started IMSB_GUARDED_BY(mu) = false;
  bool done IMSB_GUARDED_BY(mu) = false;
  std::string answer IMSB_GUARDED_BY(mu);
  // Worker side: false when the command gave up (nothing is done then).
  bool start() IMSB_EXCLUDES(mu) {
    sync::lock_guard lock(mu);
    if (cancelled) return false;
    started = true;
    return true;
  }
  void finish(std::string a) IMSB_EXCLUDES(mu) {
    {
      sync::lock_guard lock(mu);
      answer = std::move(a);
      done = true;
    }
    cv.notify_all();
  }
  // Waiting side, `lock` holding mu: waits at most `d` for finish(); whether it came.
  bool wait_done(sync::unique_lock& lock, std::chrono::seconds d) IMSB_REQUIRES(mu) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!done)
      if (cv.wait_until(lock, until) == std::cv_status::timeout) break;
    return done;
  }
};

struct partner_event {
  enum class kind : std::uint8_t {
    ready,
    lost,
    rejected,
    output,
    resync,
    unknown_tpipe,
    server_state,
    suspend,
    reset,
    set_receive  // RESET TPIPE's RCVSEQ: the receive record is the partner's to write
  } what = kind::ready;
  std::string text;
  otma::otma_message output;
  std::string tpipe;
  tpipe::resync_decision decision;
  std::uint16_t status = 0;
  std::uint64_t gen = 0;                          // ready / lost: the session generation
  std::uint32_t number = 0;                       // set_receive
  std::shared_ptr<reset_request> done = nullptr;  // set_receive: "" once written, else the error
};

// ---- the engine's shared state ---------------------------------------------------------------------------

// engine::impl is private to engine; partners and workers know the engine as this.
struct engine_core {
  engine_core(bridge_config c, engine_hooks h) : config(std::move(c)), hooks(std::move(h)) {}

  bridge_config config;
  engine_hooks hooks;

  // The engine's own connection: discovery, assignments, RESET TPIPE's checks; under own_mu.
  sync::mutex own_mu;
  std::unique_ptr<mqi::connection> own IMSB_GUARDED_BY(own_mu);
  std::unique_ptr<state_store> own_store IMSB_GUARDED_BY(own_mu);

  // Set by engine::start() before the discovery thread, the workers and the partners start; read-only after.
  std::unique_ptr<xcf::service> xcf;
  std::string qmgr_name, member_name, dlq;
  std::int32_t qmgr_ccsid = 1208;
  // The numbers' encoding of what the bridge makes (replies, dead letters, events, the request MQMD kept
  // in OTMA user data): the queue manager platform's MQENC_NATIVE, read by MQINQ at start.
  std::int32_t qmgr_encoding = mqi::native_encoding_of(mq::MQPL_UNIX);

  detail::record_cache records;
  std::vector<state_record> loaded;  // at start: every record (assignments, markers ...)

  // Partners, workers, assignments, refused queues, and each partner's by_tpipe. Taken under own_mu
  // (discover()), never the other way round.
  mutable sync::mutex mu;
  std::map<std::string, std::unique_ptr<partner>> partners IMSB_GUARDED_BY(mu);  // "group.member"
  std::vector<std::unique_ptr<worker>> workers IMSB_GUARDED_BY(mu);
  std::map<std::string, std::uint32_t> assignments IMSB_GUARDED_BY(mu);  // queue → number
  std::set<std::string> refused IMSB_GUARDED_BY(mu);  // queues refused (second member of a group ...)

  std::atomic<bool> suspended{false};
  std::atomic<bool> quiescing{false};
  std::atomic<bool> stop_asked{false};
  std::atomic<bool> stopped{false};
  std::atomic<bool> started{false};

  std::thread discovery;
  // Guards no data: quiesce() takes it between setting `quiescing` and notifying, so that the discovery
  // loop cannot miss the wake-up between its check of `quiescing` and its wait.
  sync::mutex disc_mu;
  sync::condition_variable disc_cv;

  tpipe::millis now() const { return hooks.clock ? hooks.clock() : tpipe::steady_now(); }
  void console(const std::string& line) const {
    if (hooks.console) hooks.console(line);
  }
  bridgemap::reply_context reply_ctx(const std::string& group, const std::string& member) const {
    bridgemap::reply_context ctx;
    ctx.qmgr_name = qmgr_name;
    ctx.qmgr_ccsid = qmgr_ccsid;
    ctx.qmgr_encoding = qmgr_encoding;
    ctx.xcf_group = group;
    ctx.xcf_member = member;
    ctx.partner = config.partner(group, member).data;
    ctx.now_ms = wall_ms();
    return ctx;
  }

  // Bridge started / stopped [C: BRIDGE-EVENT] on SYSTEM.ADMIN.CHANNEL.EVENT, as IBM's queue manager
  // puts them; a queue manager without that queue gets none (as IBM's, whose event queues may be deleted).
  void put_event(bool is_start, const std::string& group, const std::string& member, bool error)
      IMSB_EXCLUDES(own_mu) {
    const mq::event_message ev = mq::bridge_event(
        is_start, group, member, error ? mq::MQRQ_BRIDGE_STOPPED_ERROR : mq::MQRQ_BRIDGE_STOPPED_OK, 0,
        qmgr_name, qmgr_encoding, qmgr_ccsid);
    sync::lock_guard lock(own_mu);
    if (!own) return;
    (void)own->put1({"SYSTEM.ADMIN.CHANNEL.EVENT", ""}, ev.md, ev.data,
                    mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING);
  }

  result<mqi::done> discover() IMSB_EXCLUDES(own_mu, mu);
  void discovery_loop() IMSB_EXCLUDES(disc_mu, own_mu, mu);
  worker* worker_for(const std::string& queue) IMSB_REQUIRES(mu);
  // Makes `w` the worker of p's Tpipe `tp`.
  void route(partner& p, const std::string& tp, worker* w) IMSB_REQUIRES(mu);
};

struct engine::impl : engine_core {
  using engine_core::engine_core;
};

// ---- a partner: one OTMA session with one IMS member
// -------------------------------------------------------

struct partner final : tpipe::client_observer {
  partner(engine_core& e, std::string g, std::string m) : eng(e), group(std::move(g)), member(std::move(m)) {}
  ~partner() override { stop(); }

  engine_core& eng;
  std::string group, member;
  std::unique_ptr<tpipe::client_link> link;
  std::thread th;
  detail::event_queue<partner_event> events;
  std::atomic<bool> stopping{false};

  // Receive side (CM0 output, step 6): its own connection and state store; partner thread only.
  std::unique_ptr<mqi::connection> conn;
  std::unique_ptr<state_store> store;

  mutable sync::mutex st_mu;
  std::string state IMSB_GUARDED_BY(st_mu) = "STARTING";
  std::atomic<bool> ready{false};
  std::atomic<bool> joined{false};
  // Counts session starts and ends, changed under the link's lock (in the callbacks): a worker sends only
  // in the session whose ready event (and the resync decisions before it) it has handled.
  std::atomic<std::uint64_t> session_gen{0};
  // A bridge-started event was put and no stopped one since (partner thread; quiesce() once it ended).
  bool announced = false;
  std::atomic<std::uint64_t> paused_until{0};  // flood / resources back-off (engine clock)
  unsigned backoff_attempt = 0;                // partner thread
  std::atomic<std::uint64_t> possible_duplicates{0}, duplicates_ignored{0};
  std::optional<tpipe::millis> rejoin_at, rebid_at;  // partner thread
  // CM0 output that could not be put nor dead-lettered.
  std::set<std::string> held_tpipes IMSB_GUARDED_BY(st_mu);
  // RESET TPIPE done: IMS is told the new numbers at the next resync, REPresynch X'08'.
  std::set<std::string, std::less<>> reset_requested IMSB_GUARDED_BY(st_mu);
  // Tpipes whose last input was NAKed with "error message follows": the next output with sequence number 0
  // on it is that message, a reply with the error's PutApplType/PutApplName.
  std::set<std::string, std::less<>> error_text_follows IMSB_GUARDED_BY(st_mu);
  // Tpipes whose receive number must become 0 (IMS cold start) and is not durable yet: no output on them
  // is put or ACKed until it is (partner thread only).
  std::set<std::string> receive_reset_pending;
  bool ensure_receive_reset(const std::string& tp);
  bool take_error_text(const std::string& tp) {
    sync::lock_guard lock(st_mu);
    return error_text_follows.erase(tp) != 0;
  }
  bool is_held(const std::string& tp) const {
    sync::lock_guard lock(st_mu);
    return held_tpipes.count(tp) != 0;
  }
  void hold(const std::string& tp, bool on) {
    sync::lock_guard lock(st_mu);
    if (on)
      held_tpipes.insert(tp);
    else
      held_tpipes.erase(tp);
  }

  // tpipe name → worker (set at creation: engine_core::route).
  std::map<std::string, worker*, std::less<>> by_tpipe IMSB_GUARDED_BY(eng.mu);

  void set_state(std::string s) {
    sync::lock_guard lock(st_mu);
    state = std::move(s);
  }
  std::string get_state() const {
    sync::lock_guard lock(st_mu);
    return state;
  }
  bool paused() const { return eng.now() < paused_until.load(); }
  void pause_for(std::uint64_t ms) {
    const std::uint64_t until = eng.now() + ms;
    if (until > paused_until.load()) paused_until = until;
  }

  void start();
  void stop();
  void run();
  void handle(partner_event& e);
  void handle_output(const otma::otma_message& out, std::uint64_t gen);
  // Several outputs of one session, as they came: those that are ordinary (a reply to put, the next
  // receive number or 0, distinct Tpipes) in one unit of work, one commit and then their ACKs; the rest
  // one by one after them, as handle_output does. Should anything of the joint unit of work fail short of
  // the connection, it is backed out and each output is handled alone.
  void handle_outputs(std::vector<partner_event>& batch);
  static constexpr std::size_t max_output_batch = 64;
  // The receive side's connection is unusable or a commit's outcome unknown: backed out, the connection
  // dropped, and the session reset, so that nothing more is ACKed and IMS sends again after resync (step 7).
  void drop_receive(const std::string& why) {
    (void)conn->backout();
    store.reset();
    conn.reset();
    reset_session(why);
  }
  // Output m (not 0) of tp is committed: the cache says so.
  void received(const std::string& tp, std::uint32_t m) {
    eng.records.update(detail::record_cache::key(group, member, tp), [&](detail::tpipe_records& t) {
      t.receive = m;
      t.has_receive = true;
    });
  }
  // ACKs `out`, unless its session (gen) has ended meanwhile.
  void ack_in(const otma::otma_message& out, std::uint64_t gen) {
    link->with_session([&](tpipe::client_session& s) {
      if (session_gen.load() == gen) s.ack_output(out);
      return 0;
    });
  }
  bool has_error_text(const std::string& tp) const {
    sync::lock_guard lock(st_mu);
    return error_text_follows.count(tp) != 0;
  }
  void reset_session(const std::string& why);
  worker* worker_by_tpipe(std::string_view tp) IMSB_EXCLUDES(eng.mu) {
    sync::lock_guard lock(eng.mu);
    auto it = by_tpipe.find(tp);
    return it == by_tpipe.end() ? nullptr : it->second;
  }
  bool connect_receive();
  bool reload_records();

  // client_observer (the transport's thread, under the link's lock: post, never MQ work)
  void send(bytes) override {}  // the link sends itself
  void on_session_ready() override {
    const std::uint64_t g = ++session_gen;
    events.post({partner_event::kind::ready, {}, {}, {}, {}, 0, g});
  }
  void on_bid_rejected(std::uint16_t sense, std::uint16_t reason) override {
    char buf[64];
    std::snprintf(buf, sizeof buf, "sense X'%04X' reason X'%04X'", sense, reason);
    events.post({partner_event::kind::rejected, buf, {}, {}, {}, 0});
  }
  void on_session_lost(const std::string& reason) override {
    ready = false;
    const std::uint64_t g = ++session_gen;
    events.post({partner_event::kind::lost, reason, {}, {}, {}, 0, g});
  }
  std::optional<tpipe::client_tpipe_record> tpipe_record(std::string_view tp) override {
    const std::string k = detail::record_cache::key(group, member, std::string(tp));
    if (!eng.records.has(k)) return std::nullopt;
    const detail::tpipe_records r = eng.records.get(k);
    tpipe::client_tpipe_record out;
    out.send = r.send;
    out.receive = r.receive;
    out.in_flight = r.in_flight;
    {
      sync::lock_guard lock(st_mu);
      out.reset = reset_requested.count(tp) != 0;
    }
    return out;
  }
  void on_resync_decision(std::string_view tp, const tpipe::resync_decision& d) override {
    if (d.action == otma::represynch_action::reset_sequence_numbers) {
      sync::lock_guard lock(st_mu);
      reset_requested.erase(std::string(tp));
    }
    partner_event e{partner_event::kind::resync, {}, {}, std::string(tp), d, 0};
    events.post(std::move(e));
  }
  void on_tpipe_unknown_to_server(std::string_view tp) override {
    events.post({partner_event::kind::unknown_tpipe, {}, {}, std::string(tp), {}, 0});
  }
  void on_input_response(const tpipe::input_response& r) override;
  void on_output(const otma::otma_message& m) override;
  void on_commit_confirmation(std::string_view tp, std::uint32_t seq, bool committed) override;
  void on_server_state(std::uint16_t status) override {
    events.post({partner_event::kind::server_state, {}, {}, {}, {}, status});
  }
  void on_suspend() override { events.post({partner_event::kind::suspend, {}, {}, {}, {}, 0}); }
  std::vector<std::string> our_synchronized_tpipes() override;
};

// ---- a worker: one bridge queue ------------------------------------------------------------------------

struct worker {
  worker(engine_core& e, partner& p, std::string q, std::uint32_t n, std::string ptkta)
      : eng(e), part(p), queue(std::move(q)), number(n), passtkta(std::move(ptkta)) {}
  ~worker() { stop(); }

  engine_core& eng;
  partner& part;
  std::string queue;
  std::uint32_t number;
  std::string passtkta;
  std::string sync_tp, nsync_tp;
  std::thread th;
  detail::event_queue<worker_event> events;
  // RESET TPIPE requests: apart from `events`, so that they are answered while disconnected.
  detail::event_queue<worker_event> control;
  std::atomic<bool> stopping{false};

  // Set by browse_one(), cleared by the post of the signal it set (connection.hpp get_request::signal) on
  // the queue manager's thread, which may call it until conn, below, closes the handle: so declared before
  // conn (members go in reverse order).
  std::atomic<bool> signal_set{false};

  // Worker thread only.
  std::unique_ptr<mqi::connection> conn;
  std::unique_ptr<state_store> store;
  mqi::hobj h = 0;
  bool connected = false;
  bool session_ready = false;
  std::uint64_t ready_gen = 0;    // the session generation of the last ready event handled
  std::uint64_t dropped_gen = 0;  // the partner's session generation when our connection last broke
  bool browse_first = true;
  // The worker's one wait (docs/design/concurrency.md, "The bridge") [D]: when its queue has nothing for it,
  // it sets a signal on its handle (MQGMO_SET_SIGNAL, connection.hpp get_request::signal) that the queue
  // manager posts into `events` when a message arrives, and waits on `events`, which its partner's events
  // also end (signal_set, above, says whether one is armed). A connection that refuses signals (the socket
  // backends) gets the waits of before: a 100 ms waiting browse when idle, a 2 ms poll while messages are
  // out with IMS.
  bool signals_refused = false;
  bool resync_pending = false;       // an in-flight record waits for the partner's resync decision
  bool pending_resend = false;       // resync said "resend the in-flight message": once the session is ready
  std::optional<mqi::message> held;  // browsed, waiting for its Tpipe
  struct cm0_sent {
    token16 token{};
    std::uint32_t send_seq = 0, rseq = 0;
    bool persistent = false;
    mqi::message msg;
  };
  std::optional<cm0_sent> cm0;
  struct cm1_sent {
    token16 token{};
    std::uint32_t send_seq = 0;
    bool command = false;
    mqi::message msg;
    std::optional<otma::user_data> user;  // ours, for output that comes back without it (command output)
    bool architected = false;             // TranState 'A': the output is /DIS TRAN's binary attributes
  };
  std::vector<cm1_sent> cm1;
  std::set<token16> stale_markers;  // CM1 markers whose request's outcome is unknown
  // The security verdict of each request, for its life in the bridge: a resend (flood NAK retry, CM1
  // aborted, stale marker, new session) is not a new use of a PassTicket. Entries of requests no longer on
  // the queue go when a browse pass from the first message ends (`seen_this_pass`).
  std::map<token16, security_verdict> verdicts;
  std::set<token16> seen_this_pass;
  bool pass_from_first = false;
  struct awaiting {
    std::uint32_t seq = 0;
    token16 token{};
    tpipe::millis since = 0;
    bool had_request = false;
    std::uint64_t gen = 0;  // the session the output came in
  };
  std::optional<awaiting> confirm;    // a CM1 unit of work open until IMS's commit confirmation
  std::deque<worker_event> deferred;  // events held while `confirm` is open
  unsigned resource_attempts = 0;
  tpipe::millis retry_connect_at = 0;
  // A destructive get refused with anything but 2033 (2016 GET(DISABLED) above all) does not mean
  // "gone": the unit of work is backed out, the record or marker stays, the queue takes no new work until
  // `gets_paused_until`, and the settlements queued here are tried again then (worker thread only).
  std::deque<std::function<void()>> settle_later;
  tpipe::millis gets_paused_until = 0;
  unsigned get_pause_attempts = 0;
  void pause_gets(const decode_error& e, const std::string& what, std::function<void()> again = {});

  // Any thread.
  mutable sync::mutex st_mu;
  std::string stopped_reason IMSB_GUARDED_BY(st_mu);  // queue stopped (IMB2003E)
  // The rescan saw GET(DISABLED) while stopped: GET(ENABLED) restarts.
  bool get_disabled_seen IMSB_GUARDED_BY(st_mu) = false;
  // CM1 NAK "stop the Tpipe": the non-synchronized side only.
  std::string nsync_stopped_reason IMSB_GUARDED_BY(st_mu);
  std::atomic<bool> rewind{false};  // restarted from another thread: browse from the first message
  std::atomic<std::uint64_t> sent{0}, replies{0}, dead_letters{0}, backouts{0};
  std::atomic<unsigned> outstanding_cm1{0};
  std::atomic<bool> cm0_busy{false};

  std::string key() const { return detail::record_cache::key(part.group, part.member, sync_tp); }
  bool queue_stopped() const {
    sync::lock_guard lock(st_mu);
    return !stopped_reason.empty();
  }
  void stop_queue(const std::string& why) {
    {
      sync::lock_guard lock(st_mu);
      if (!stopped_reason.empty()) return;
      stopped_reason = why;
    }
    eng.console(std::string(imsb::msg::IMB2003E) + " Bridge queue " + queue + " (partner " + part.group +
                "." + part.member + ") stopped: " + why);
  }
  // A stopped queue restarts when the Tpipes, IMS/OTMA or the queue manager are restarted, or the operator
  // toggles GET, as IBM's does [C: CANNOT-PUT]: clears the queue's stopped state, any thread.
  void restart_queue(const std::string& why) {
    {
      sync::lock_guard lock(st_mu);
      if (stopped_reason.empty() && nsync_stopped_reason.empty()) return;
      stopped_reason.clear();
      nsync_stopped_reason.clear();
      get_disabled_seen = false;
    }
    rewind = true;
    events.wake();
    eng.console(std::string(imsb::msg::IMB2153I) + " Bridge queue " + queue + " (partner " + part.group +
                "." + part.member + ") restarted: " + why);
  }
  // The rescan's view of the queue's GET attribute (discovery thread).
  void observe_get(bool disabled) {
    bool restart = false;
    {
      sync::lock_guard lock(st_mu);
      if (stopped_reason.empty() && nsync_stopped_reason.empty()) return;
      if (disabled) {
        if (!get_disabled_seen && !stopped_reason.empty())
          stopped_reason += "; GET(DISABLED) seen: GET(ENABLED) restarts it";
        get_disabled_seen = true;
      } else {
        restart = get_disabled_seen;
      }
    }
    if (restart) restart_queue("the operator set GET(DISABLED) then GET(ENABLED)");
  }
  bool nsync_stopped() const {
    sync::lock_guard lock(st_mu);
    return !nsync_stopped_reason.empty();
  }
  void stop_nsync(const std::string& why) {
    {
      sync::lock_guard lock(st_mu);
      if (!nsync_stopped_reason.empty()) return;
      nsync_stopped_reason = why;
    }
    eng.console(std::string(imsb::msg::IMB2003E) + " Tpipe " + nsync_tp + " of bridge queue " + queue +
                " (partner " + part.group + "." + part.member + ") stopped: " + why +
                "; CM1 requests and commands wait, CM0 goes on");
  }
  std::string status_text() const {
    {
      sync::lock_guard lock(st_mu);
      if (!stopped_reason.empty()) return "STOPPED (" + stopped_reason + ")";
    }
    if (eng.suspended) return "SUSPENDED";
    if (!part.ready) return "WAITING FOR PARTNER";
    if (part.paused()) return "PAUSED";
    return "RUNNING";
  }

  void start() {
    th = std::thread([this] { run(); });
  }
  void stop() {
    stopping = true;
    events.wake();
    if (th.joinable()) th.join();
  }
  bool idle() const { return !cm0_busy && outstanding_cm1 == 0; }
  // The send number whose step 5 (request got, send record, in-flight record removed) waits, staged and
  // not committed, in conn's unit of work: the next persistent CM0 request's step 4 commits with it, one
  // log force for both [D] (docs/design/commit-modes.md, step 5). Anything else flushes it first.
  std::optional<std::uint32_t> step5_open;

  void run();
  bool reconnect();
  void drop_connection(const decode_error& e);
  void handle(worker_event& e);
  bool can_take_work() const;
  bool browse_one();
  bool process(const mqi::message& msg);
  void reject(const mqi::message& msg, std::int32_t reason, const std::string& why);
  result<mqi::message> get_by_token(const token16& t, bool syncpoint);
  result<mqi::message> browse_by_token(const token16& t);
  result<mqi::done> put_dead_letter(const mq::mqmd& md, bytes_view data, std::int32_t reason,
                                    const std::string& dest_q, const std::string& dest_qmgr);
  void put_report(const mq::mqmd& md, bytes_view data, std::int32_t feedback);
  result<std::uint32_t> send_input(otma::otma_message m);
  std::optional<otma::otma_message> build(const mqi::message& msg, bool synchronized, std::uint32_t rseq,
                                          std::int32_t* reason, std::string* why);
  void on_response(const tpipe::input_response& r);
  void on_cm0_response(const tpipe::input_response& r);
  void on_cm1_response(const tpipe::input_response& r, std::size_t index);
  void remove_non_persistent(const token16& t);
  void settle_cm0_application_nak(const cm0_sent& s, const bridgemap::nak_decision& d,
                                  const std::string& sense);
  void on_output(const otma::otma_message& out);
  void on_confirmation(std::uint32_t seq, bool committed);
  void on_lost();
  void on_resync(const tpipe::resync_decision& d);
  void on_unknown_tpipe();
  std::string on_reset(const bridgemap::operator_command& c);
  bool commit_or_drop();
  // Step 5 for the in-flight request. `stage`: its changes are left in the connection's open unit of work
  // (step5_open), for the next request's step 4 to commit with them; else committed now.
  void finish_in_flight(const std::string& how, bool stage = false);
  // Step 5 of `n` is durable: the cache says so.
  void step5_done(std::uint32_t n);
  // Commits a staged step 5 alone (before anything else uses the connection, or a wait); false when that
  // commit failed (commit_or_drop has dropped the connection or stopped the queue).
  bool flush_step5();
  void resend_in_flight();
  bool load_records();
  bool write_stopped(const std::string& why);
};

// ==== partner
// ====================================================================================================

void partner::start() {
  tpipe::client_config cc;
  cc.bid.member = eng.member_name;
  cc.bid.dru_exit = eng.config.dru_exit;
  cc.bid.acee_aging = eng.config.age;
  cc.server_member = member;
  cc.resync = true;
  cc.ack_timeout = eng.config.ack_timeout_ms;
  cc.bid_timeout = eng.config.bid_timeout_ms;
  tpipe::clock_fn clock = eng.hooks.clock ? eng.hooks.clock : tpipe::clock_fn(tpipe::steady_now);
  link = std::make_unique<tpipe::client_link>(cc, *this, clock);
  th = std::thread([this] { run(); });
}

void partner::stop() {
  stopping = true;
  events.wake();
  if (th.joinable()) th.join();
  if (link) {
    link->leave();
    link.reset();
  }
  if (conn) {
    (void)conn->disconnect();
    store.reset();
    conn.reset();
  }
}

bool partner::connect_receive() {
  store.reset();
  conn.reset();
  auto c = eng.hooks.connect();
  if (!c) {
    eng.console(std::string(imsb::msg::IMB2023E) + " Cannot resync with partner " + group + "." + member +
                ": queue manager connection failed: " + c.error().to_string());
    return false;
  }
  conn = std::move(c).value();
  store = std::make_unique<state_store>(*conn);
  auto o = store->open(false);
  if (!o) {
    eng.console(std::string(imsb::msg::IMB2023E) + " Cannot resync with partner " + group + "." + member +
                ": state queue: " + o.error().to_string());
    store.reset();
    conn.reset();
    return false;
  }
  return true;
}

// Before every join or re-bid, this partner's S/R/F/X records as the state queue has them (on
// the receive connection): a commit whose outcome was unknown may have happened or not, and resync must
// tell IMS the durable numbers, not the memory's.
bool partner::reload_records() {
  if (!conn && !connect_receive()) return false;
  const std::uint64_t since = eng.records.version();
  auto all = store->load_all();
  if (!all) {
    eng.console(std::string(imsb::msg::IMB2023E) + " Cannot resync with partner " + group + "." + member +
                ": state records not loaded: " + all.error().to_string());
    if (connection_broken(all.error())) {
      store.reset();
      conn.reset();
    }
    return false;
  }
  std::map<std::string, detail::tpipe_records> fresh;
  for (const state_record& r : *all) {
    if (r.xcf_group != group || r.xcf_member != member) continue;
    if (r.kind != record_kind::send && r.kind != record_kind::receive && r.kind != record_kind::in_flight &&
        r.kind != record_kind::stopped)
      continue;  // markers, assignments: not a Tpipe's numbers
    detail::tpipe_records& t = fresh[detail::record_cache::key(group, member, r.tpipe)];
    detail::apply_record(t, r);
    // A receive number still to be reset after an IMS cold start is 0, whatever is durable.
    if (r.kind == record_kind::receive && receive_reset_pending.count(r.tpipe) != 0) t.receive = 0;
  }
  for (auto& [k, t] : fresh) (void)eng.records.replace_if_unchanged(k, t, since);
  return true;
}

void partner::run() {
  tpipe::millis last_tick = 0;
  // Join once the receive connection is there (CM0 step 7, docs/design/commit-modes.md: the records are
  // loaded before a bid).
  rejoin_at = eng.now();
  while (!stopping) {
    if (auto e = events.pop(50ms)) handle(*e);
    if (stopping) break;
    const tpipe::millis now = eng.now();
    if (rejoin_at && now >= *rejoin_at && !eng.quiescing) {
      rejoin_at.reset();
      if (!reload_records()) {
        // The queue manager may be back in a moment (a restart): the capped back-off, not its cap at once.
        rejoin_at = now + bridgemap::backoff_ms(++backoff_attempt, eng.config.backoff_initial_ms,
                                                eng.config.backoff_max_ms);
        continue;
      }
      set_state("BIDDING");
      const xcf::return_code rc = link->join(*eng.xcf, group);
      if (!rc.ok()) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "IXCJOIN %u/%u", rc.rc, rc.rsn);
        eng.console(std::string(imsb::msg::IMB2002E) + " Bid to partner " + group + "." + member +
                    " failed: " + buf + "; retrying");
        set_state(std::string("LOST (") + buf + ")");
        rejoin_at = now + bridgemap::backoff_ms(++backoff_attempt, eng.config.backoff_initial_ms,
                                                eng.config.backoff_max_ms);
      } else {
        joined = true;
      }
    }
    if (rebid_at && now >= *rebid_at && !eng.quiescing) {
      rebid_at.reset();
      // A rebid asked for by an earlier loss while a newer session already runs (two losses in a row):
      // nothing to do, and no reload of the records under the workers' feet.
      const bool session_gone = joined && link->with_session([](tpipe::client_session& s) {
        return s.state() == tpipe::client_state::lost || s.state() == tpipe::client_state::idle;
      });
      if (session_gone && !reload_records()) {
        rebid_at = now + bridgemap::backoff_ms(++backoff_attempt, eng.config.backoff_initial_ms,
                                               eng.config.backoff_max_ms);
      } else if (session_gone) {
        link->with_session([&](tpipe::client_session& s) {
          if (s.state() == tpipe::client_state::lost || s.state() == tpipe::client_state::idle) s.start(now);
          return 0;
        });
        set_state("BIDDING");
      }
    }
    if (joined && now - last_tick >= 100) {
      last_tick = now;
      link->tick();
    }
  }
}

void partner::reset_session(const std::string& why) {
  partner_event e;
  e.what = partner_event::kind::reset;
  e.text = why;
  events.post(std::move(e));
}

std::vector<std::string> partner::our_synchronized_tpipes() {
  std::vector<std::string> out;
  sync::lock_guard lock(eng.mu);
  for (const auto& [tp, w] : by_tpipe) {
    if (tp != w->sync_tp) continue;
    const std::string k = detail::record_cache::key(group, member, tp);
    if (eng.records.has(k)) out.push_back(tp);
  }
  return out;
}

void partner::on_input_response(const tpipe::input_response& r) {
  if (!r.ack && r.error_message_follows) {
    // Before the output is posted: IMS sends the NAK, then the message (same link, in order).
    sync::lock_guard lock(st_mu);
    error_text_follows.insert(r.tpipe);
  }
  if (worker* w = worker_by_tpipe(r.tpipe)) {
    worker_event e;
    e.what = worker_event::kind::response;
    e.response = r;
    w->events.post(std::move(e));
  }
}

void partner::on_output(const otma::otma_message& m) {
  const std::string tp = tpipe::tpipe_of(m);
  worker* w = worker_by_tpipe(tp);
  if (w != nullptr && tp == w->nsync_tp) {
    // CM1 and command output: the worker's connection holds the request (one unit of work).
    worker_event e;
    e.what = worker_event::kind::output;
    e.output = m;
    e.gen = session_gen.load();
    w->events.post(std::move(e));
    return;
  }
  partner_event e;
  e.what = partner_event::kind::output;
  e.output = m;
  e.gen = session_gen.load();  // ACKed or NAKed only in this session
  events.post(std::move(e));
}

void partner::on_commit_confirmation(std::string_view tp, std::uint32_t seq, bool committed) {
  if (worker* w = worker_by_tpipe(tp)) {
    worker_event e;
    e.what = worker_event::kind::confirmation;
    e.seq = seq;
    e.committed = committed;
    e.gen = session_gen.load();
    w->events.post(std::move(e));
  }
}

void partner::handle(partner_event& e) {
  std::vector<worker*> mine;
  {
    sync::lock_guard lock(eng.mu);
    for (const auto& [tp, w] : by_tpipe)
      if (tp == w->sync_tp) mine.push_back(w);
  }
  const tpipe::millis now = eng.now();
  switch (e.what) {
    case partner_event::kind::ready: {
      backoff_attempt = 0;
      set_state(paused() ? "FLOODED" : "ACTIVE");
      ready = true;
      eng.console(std::string(imsb::msg::IMB2004I) + " Bridge started with partner " + group + "." + member +
                  " as member " + eng.member_name);
      if (!announced) eng.put_event(true, group, member, false);
      announced = true;
      for (worker* w : mine)
        w->events.post({worker_event::kind::ready, {}, {}, 0, false, {}, {}, nullptr, e.gen});
      return;
    }
    case partner_event::kind::rejected:
      eng.console(std::string(imsb::msg::IMB2002E) + " Client-bid to partner " + group + "." + member +
                  " rejected: " + e.text);
      return;
    case partner_event::kind::lost: {
      ready = false;
      set_state("LOST (" + e.text + ")");
      eng.console(std::string(imsb::msg::IMB2005W) + " Bridge stopped with partner " + group + "." + member +
                  ": " + e.text);
      if (announced) eng.put_event(false, group, member, !stopping && !eng.quiescing);
      announced = false;
      for (worker* w : mine)
        w->events.post({worker_event::kind::lost, {}, {}, 0, false, {}, {}, nullptr, e.gen});
      if (!stopping && !eng.quiescing) {
        const auto wait = bridgemap::backoff_ms(++backoff_attempt, eng.config.backoff_initial_ms,
                                                eng.config.backoff_max_ms);
        if (joined) {
          rebid_at = now + wait;
        } else {
          rejoin_at = now + wait;
        }
      }
      return;
    }
    case partner_event::kind::reset: {
      // CM0 step 7 (docs/design/commit-modes.md): drop the session (leave XCF), reload, bid with resync
      // again.
      eng.console(std::string(imsb::msg::IMB2005W) + " Session with partner " + group + "." + member +
                  " dropped: " + e.text);
      if (joined) {
        link->leave();
        joined = false;
      }
      ready = false;
      if (announced) eng.put_event(false, group, member, true);
      announced = false;
      for (worker* w : mine)
        w->events.post({worker_event::kind::lost, {}, {}, 0, false, {}, {}, nullptr, session_gen.load()});
      if (store) {
        // The receive connection too: if it broke, a fresh one is made before the next bid.
        auto probe = store->load_all();
        if (!probe && connection_broken(probe.error())) {
          store.reset();
          conn.reset();
        }
      }
      rebid_at.reset();
      rejoin_at = now + bridgemap::backoff_ms(++backoff_attempt, eng.config.backoff_initial_ms,
                                              eng.config.backoff_max_ms);
      return;
    }
    case partner_event::kind::output: {
      // The outputs right behind it, of the same session, go in one unit of work with it (handle_outputs).
      std::vector<partner_event> batch;
      while (batch.size() + 1 < max_output_batch) {
        auto next = events.pop_if(
            [&](const partner_event& n) { return n.what == partner_event::kind::output && n.gen == e.gen; });
        if (!next) break;
        batch.push_back(std::move(*next));
      }
      if (batch.empty()) {
        handle_output(e.output, e.gen);
        return;
      }
      batch.insert(batch.begin(), std::move(e));
      handle_outputs(batch);
      return;
    }
    case partner_event::kind::set_receive: {
      // One writer per record: the receive record only from this thread's connection.
      const std::string k = detail::record_cache::key(group, member, e.tpipe);
      if (!conn && !connect_receive()) {
        eng.console(std::string(imsb::msg::IMB2152E) + " Tpipe " + e.tpipe + " (partner " + group + "." +
                    member + "): RESET TPIPE's RCVSEQ not written: no queue-manager connection");
        if (e.done) e.done->finish("no queue-manager connection for the receive side");
        return;
      }
      state_record r = make_record(record_kind::receive, group, member, e.tpipe);
      r.number = e.number;
      auto p = store->put(r);
      auto c = p ? conn->commit() : result<mqi::done>(p.error());
      if (!c) {
        (void)conn->backout();
        eng.console(std::string(imsb::msg::IMB2152E) + " Tpipe " + e.tpipe + " (partner " + group + "." +
                    member + "): RESET TPIPE's RCVSEQ(" + std::to_string(e.number) +
                    ") not written: " + c.error().to_string());
        if (connection_broken(c.error())) {
          store.reset();
          conn.reset();
        }
        if (e.done) e.done->finish(c.error().to_string());
        return;
      }
      receive_reset_pending.erase(e.tpipe);
      eng.records.update(k, [&](detail::tpipe_records& t) {
        t.receive = e.number;
        t.has_receive = true;
      });
      if (e.done) e.done->finish("");
      return;
    }
    case partner_event::kind::resync: {
      worker* w = worker_by_tpipe(e.tpipe);
      if (e.decision.input == tpipe::input_outcome::mismatch ||
          e.decision.output == tpipe::output_outcome::mismatch) {
        eng.console(std::string(imsb::msg::IMB2020E) + " Sequence numbers for Tpipe " + e.tpipe +
                    " (partner " + group + "." + member + ") do not match: " + e.decision.reason +
                    "; Tpipe stopped until RESET TPIPE");
      }
      if (w != nullptr) {
        worker_event we;
        we.what = worker_event::kind::resync;
        we.decision = e.decision;
        w->events.post(std::move(we));
      } else {
        eng.console(std::string(imsb::msg::IMB2025E) + " Cannot resync Tpipe " + e.tpipe + " with partner " +
                    group + "." + member + ": no bridge queue of ours uses it");
      }
      return;
    }
    case partner_event::kind::unknown_tpipe: {
      // Said only when the cold start loses something: a Tpipe at 0/0 with nothing in flight (one that
      // never carried a message, or none since the last cold start) is not listed by IMS at any bid.
      const detail::tpipe_records rec = eng.records.get(detail::record_cache::key(group, member, e.tpipe));
      if (rec.send != 0 || rec.receive != 0 || rec.in_flight) {
        eng.console(std::string(imsb::msg::IMB2021W) + " Partner " + group + "." + member +
                    " does not know Tpipe " + e.tpipe +
                    " (IMS cold start): sequence numbers reset (were send " + std::to_string(rec.send) +
                    ", receive " + std::to_string(rec.receive) +
                    (rec.in_flight ? ", in flight " + std::to_string(*rec.in_flight) +
                                         "), the message in flight is sent again as input 1"
                                   : std::string(")")));
      }
      // The receive side's number: reset here, on the receive connection. Until that is durable no output
      // of the Tpipe is ACKed: outputs 1..old would be taken for duplicates.
      receive_reset_pending.insert(e.tpipe);
      if (!ensure_receive_reset(e.tpipe)) reset_session("receive number of " + e.tpipe + " not reset");
      if (worker* w = worker_by_tpipe(e.tpipe)) {
        worker_event we;
        we.what = worker_event::kind::unknown_tpipe;
        w->events.post(std::move(we));
      }
      return;
    }
    case partner_event::kind::server_state:
      if (e.status == otma::server_status::normal) {
        if (paused_until.load() != 0) {
          paused_until = 0;
          backoff_attempt = 0;
          if (ready) set_state("ACTIVE");
          eng.console(std::string(imsb::msg::IMB2012I) + " Partner " + group + "." + member +
                      " relieved: bridge queues resume");
        }
      } else {
        const auto wait = bridgemap::backoff_ms(++backoff_attempt, eng.config.backoff_initial_ms,
                                                eng.config.backoff_max_ms);
        pause_for(wait);
        set_state("FLOODED");
        eng.console(std::string(imsb::msg::IMB2011W) + " Partner " + group + "." + member +
                    " reports server state " +
                    (e.status == otma::server_status::degraded ? std::string("degraded")
                                                               : std::string("unavailable")) +
                    ": bridge queues paused for " + std::to_string(wait) + " ms");
      }
      return;
    case partner_event::kind::suspend:
      eng.console(std::string(imsb::msg::IMB2005W) + " Partner " + group + "." + member +
                  " suspended the session (planned IMS shutdown)");
      return;
  }
}

bool partner::ensure_receive_reset(const std::string& tp) {
  if (receive_reset_pending.count(tp) == 0) return true;
  if (!conn && !connect_receive()) return false;
  state_record r = make_record(record_kind::receive, group, member, tp);
  r.number = 0;
  auto p = store->put(r);
  auto c = p ? conn->commit() : result<mqi::done>(p.error());
  if (!c) {
    (void)conn->backout();
    eng.console(std::string(imsb::msg::IMB2152E) + " Tpipe " + tp + " (partner " + group + "." + member +
                "): receive number 0 after the IMS cold start not written (" + c.error().to_string() +
                "); no output is acknowledged on it until it is");
    if (connection_broken(c.error())) {
      store.reset();
      conn.reset();
    }
    return false;
  }
  receive_reset_pending.erase(tp);
  eng.records.update(detail::record_cache::key(group, member, tp), [](detail::tpipe_records& t) {
    t.receive = 0;
    t.has_receive = true;
  });
  return true;
}

// CM0 output (CM0 step 6, docs/design/commit-modes.md) and any output not for a worker's non-synchronized
// Tpipe.
void partner::handle_output(const otma::otma_message& out, std::uint64_t gen) {
  // Output of a session already gone: nothing is put nor ACKed; IMS sends it again after resync.
  if (gen != session_gen.load()) return;
  const std::string tp = tpipe::tpipe_of(out);
  const std::string k = detail::record_cache::key(group, member, tp);
  const std::uint32_t m = out.mci.recoverable_seq;
  const bool answer = out.mci.response_requested();
  worker* w = worker_by_tpipe(tp);
  if (!conn && !connect_receive()) {
    // No connection: nothing may be ACKed (step 7). The session is dropped and IMS re-sends at resync.
    reset_session("queue-manager connection for output unavailable");
    return;
  }
  if (is_held(tp)) return;  // held until operator action: never ACK
  if (!ensure_receive_reset(tp)) {
    reset_session("receive number of " + tp + " not reset after the IMS cold start");
    return;
  }
  const detail::tpipe_records rec = eng.records.get(k);
  if (rec.stopped) return;
  if (m != 0) {
    if (m <= rec.receive) {
      ++duplicates_ignored;
      eng.console(std::string(imsb::msg::IMB2009W) + " Duplicate output " + std::to_string(m) + " on Tpipe " +
                  tp + " from " + group + "." + member + " (received " + std::to_string(rec.receive) +
                  "): ACKed, no reply put");
      ack_in(out, gen);
      return;
    }
    if (m > rec.receive + 1) {
      const std::string why = "output " + std::to_string(m) + " after " + std::to_string(rec.receive);
      eng.console(std::string(imsb::msg::IMB2020E) + " Sequence numbers for Tpipe " + tp + " (partner " +
                  group + "." + member + ") do not match: " + why + "; Tpipe stopped until RESET TPIPE");
      state_record x = make_record(record_kind::stopped, group, member, tp);
      x.reason = std::string(imsb::msg::IMB2020E) + " " + why;
      if (store->put(x) && conn->commit()) {
        eng.records.update(k, [&](detail::tpipe_records& t) { t.stopped = x.reason; });
      } else {
        (void)conn->backout();
      }
      return;
    }
  }
  bridgemap::reply_context ctx = eng.reply_ctx(group, member);
  ctx.error_reply = m == 0 && take_error_text(tp);
  auto reply = bridgemap::build_reply(out, ctx);
  bool ok = true;
  std::string trouble;
  if (reply) {
    auto put = conn->put1({reply->queue, reply->qmgr}, reply->md, reply->data,
                          mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_FAIL_IF_QUIESCING);
    if (!put) {
      if (connection_broken(put.error())) {
        drop_receive("reply put: " + put.error().to_string());
        return;
      }
      // The reply cannot be put (2085, 2035 ...): the dead-letter queue, with that MQRC [C: REPLY-MSGS].
      const std::int32_t rc = mqi::reason_of(put.error());
      trouble = "reply to " + reply->queue + " not put: " + put.error().to_string();
      if (eng.dlq.empty()) {
        ok = false;
      } else {
        bridgemap::outgoing dl =
            bridgemap::make_dead_letter(reply->md, reply->data, rc, reply->queue, reply->qmgr, ctx);
        ok = static_cast<bool>(
            conn->put1({eng.dlq, ""}, dl.md, dl.data, mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT));
      }
    }
  } else {
    // Output that cannot be turned into a reply (no user data of ours, not convertible): dead letter.
    const std::int32_t reason = mq::feedback_of(reply.error().code);
    trouble = "output on Tpipe " + tp + " not a reply: " + reply.error().to_string();
    // IMS's segments as it sent them, and the MQDLH says what they are (not what the request was).
    const bridgemap::output_original orig = bridgemap::output_as_original(out, mq::MQPER_PERSISTENT, ctx);
    if (eng.dlq.empty()) {
      ok = false;
    } else {
      bridgemap::outgoing dl = bridgemap::make_dead_letter(
          orig.md, orig.data, reason, trim(orig.md.reply_to_q), trim(orig.md.reply_to_q_mgr), ctx);
      ok = static_cast<bool>(
          conn->put1({eng.dlq, ""}, dl.md, dl.data, mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT));
    }
  }
  if (!ok) {
    // Neither the reply nor the dead letter: NAK to IMS, and (CM0) the Tpipe holds until operator action.
    (void)conn->backout();
    eng.console(std::string(imsb::msg::IMB2016E) + " Output on Tpipe " + tp + " from " + group + "." +
                member + " could not be put nor dead-lettered (" + trouble +
                "): NAKed, Tpipe held until RESET TPIPE");
    link->with_session([&](tpipe::client_session& s) {
      if (session_gen.load() == gen) s.nak_output(out, otma::sense::invalid_message);
      return 0;
    });
    hold(tp, true);
    return;
  }
  if (m != 0) {
    state_record r = make_record(record_kind::receive, group, member, tp);
    r.number = m;
    if (!store->put(r)) {
      (void)conn->backout();
      reset_session("receive record for " + tp + " not written");
      return;
    }
  }
  auto c = conn->commit();
  if (!c) {
    drop_receive("commit of output on " + tp + ": " + c.error().to_string());  // unknown outcome
    return;
  }
  if (m != 0) received(tp, m);
  if (!trouble.empty()) {
    eng.console(std::string(imsb::msg::IMB2015W) + " " + trouble + "; dead-lettered");
    if (w) ++w->dead_letters;
  } else if (w) {
    ++w->replies;
  }
  if (answer) ack_in(out, gen);
}

void partner::handle_outputs(std::vector<partner_event>& batch) {
  const std::uint64_t gen = batch.front().gen;
  const bool usable = gen == session_gen.load() && (conn || connect_receive());
  struct joint_output {
    const otma::otma_message* out;
    std::string tp;
    std::uint32_t m;
  };
  std::vector<joint_output> joint;
  std::vector<const partner_event*> alone;
  std::set<std::string> tps;
  for (const partner_event& ev : batch) {
    std::string tp = tpipe::tpipe_of(ev.output);
    const std::uint32_t m = ev.output.mci.recoverable_seq;
    bool ordinary = usable && ev.gen == gen && tps.insert(tp).second && !is_held(tp) &&
                    receive_reset_pending.count(tp) == 0 && !(m == 0 && has_error_text(tp));
    if (ordinary) {
      const detail::tpipe_records rec = eng.records.get(detail::record_cache::key(group, member, tp));
      ordinary = !rec.stopped && (m == 0 || m == rec.receive + 1);
    }
    if (ordinary)
      joint.push_back({&ev.output, std::move(tp), m});
    else
      alone.push_back(&ev);
  }
  const auto one_by_one = [&](bool all) {
    if (all)
      for (const partner_event& ev : batch) handle_output(ev.output, ev.gen);
    else
      for (const partner_event* ev : alone) handle_output(ev->output, ev->gen);
  };
  if (joint.size() < 2) {
    one_by_one(true);
    return;
  }
  const bridgemap::reply_context ctx = eng.reply_ctx(group, member);
  bool clean = true;
  for (const joint_output& j : joint) {
    auto reply = bridgemap::build_reply(*j.out, ctx);
    if (!reply) {
      clean = false;  // a dead letter: handle_output's to write
      break;
    }
    auto put = conn->put1({reply->queue, reply->qmgr}, reply->md, reply->data,
                          mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_FAIL_IF_QUIESCING);
    if (!put && connection_broken(put.error())) {
      drop_receive("reply put: " + put.error().to_string());  // none ACKed: IMS sends them all again
      return;
    }
    if (!put) {
      clean = false;
      break;
    }
    if (j.m != 0) {
      state_record r = make_record(record_kind::receive, group, member, j.tp);
      r.number = j.m;
      if (!store->put(r)) {
        clean = false;
        break;
      }
    }
  }
  if (!clean) {
    (void)conn->backout();
    one_by_one(true);
    return;
  }
  auto c = conn->commit();
  if (!c) {
    drop_receive("commit of " + std::to_string(joint.size()) + " outputs: " + c.error().to_string());
    return;
  }
  for (const joint_output& j : joint) {
    if (j.m != 0) received(j.tp, j.m);
    if (worker* w = worker_by_tpipe(j.tp)) ++w->replies;
    if (j.out->mci.response_requested()) ack_in(*j.out, gen);
  }
  one_by_one(false);
}

// ==== worker
// ====================================================================================================

void worker::run() {
  while (!stopping) {
    while (auto rq = control.pop(0ms)) {
      if (connected && !confirm && flush_step5())
        handle(*rq);
      else if (rq->answer && rq->answer->start())
        rq->answer->finish(std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + rq->command.tpipe +
                           ") refused: queue " + queue +
                           (connected ? " has a CM1 unit of work open; try again" : " is not connected"));
    }
    const tpipe::millis now = eng.now();
    if (!connected) {
      if (now < retry_connect_at) {
        // Queued events wait for the connection (they need it). A plain pause: events.wait() returns at
        // once while events are queued, and moving retry_connect_at here would put the retry off forever.
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::min<tpipe::millis>(50, retry_connect_at - now)));
        continue;
      }
      if (!reconnect()) {
        retry_connect_at = std::max(retry_connect_at, eng.now() + eng.config.backoff_initial_ms);
        continue;
      }
    }
    // Events first: responses, outputs, confirmations (while a CM1 unit of work is open, only its
    // confirmation and a session loss; the rest waits, so that no commit ends that unit of work early).
    // Events deferred before are taken first, once per turn (one may be deferred again).
    std::deque<worker_event> earlier;
    if (!confirm) earlier.swap(deferred);
    for (int n = 0; n < 64 && !stopping; ++n) {
      std::optional<worker_event> e;
      if (!earlier.empty()) {
        e = std::move(earlier.front());
        earlier.pop_front();
      } else {
        e = events.pop(0ms);
      }
      if (!e) break;
      const bool defer =
          (confirm && e->what != worker_event::kind::confirmation && e->what != worker_event::kind::lost) ||
          // Output of a session whose ready event (and resync decisions) this worker has not handled yet.
          (e->what == worker_event::kind::output && e->gen > ready_gen);
      if (defer) {
        deferred.push_back(std::move(*e));
        continue;
      }
      if (!flush_step5()) {  // (a staged step 5 is the ACK's before this event's)
        deferred.push_back(std::move(*e));
        break;
      }
      handle(*e);
      if (!connected) break;
    }
    for (auto& e : earlier) deferred.push_back(std::move(e));
    if (!connected || stopping) continue;
    // A staged step 5 waits only for process() (held, browse_one() below), which commits it with the next
    // request's step 4 or flushes it; each other branch flushes it first. (None is staged while a CM1
    // unit of work waits for its confirmation: the ACK that stages it is deferred then, and the output
    // that opens that unit of work flushed it before.)
    if (confirm) {
      if (eng.now() - confirm->since > eng.config.ack_timeout_ms) {
        // No commit confirmation: the outcome is unknown; back out and resync (never a resend on a timer).
        (void)conn->backout();
        stale_markers.insert(confirm->token);
        confirm.reset();
        part.reset_session("no commit confirmation within the ACK timeout");
      } else {
        events.wait(20ms);
      }
      continue;
    }
    if (eng.now() < gets_paused_until) {
      (void)flush_step5();
      events.wait(20ms);
      continue;
    }
    if (pending_resend && session_ready && !queue_stopped() && !cm0) {
      if (!flush_step5()) continue;
      pending_resend = false;  // kept while the queue was stopped
      resend_in_flight();
      continue;
    }
    if (!settle_later.empty()) {
      if (!flush_step5()) continue;
      // Settlements backed out before: tried again in order; one may queue itself again.
      std::deque<std::function<void()>> todo;
      todo.swap(settle_later);
      while (!todo.empty() && connected) {
        std::function<void()> f = std::move(todo.front());
        todo.pop_front();
        f();
      }
      if (connected && settle_later.empty()) get_pause_attempts = 0;
      continue;
    }
    if (!can_take_work()) {
      (void)flush_step5();
      events.wait(eng.quiescing ? 20ms : 100ms);
      continue;
    }
    if (held) {
      const mqi::message m = *held;
      if (process(m)) {
        held.reset();
      } else {
        events.wait(20ms);
      }
      continue;
    }
    // Nothing new on the queue: wait for the signal browse_one() set on it and for the partner's events at
    // once (at most 100 ms, so that stop and suspend are seen). Without signals: idle, browse_one() already
    // waited on the queue; with CM1 messages out with IMS, a request put meanwhile would not end a wait
    // for their ACKs and output, so that wait is brief (20 ms here held a third of CM1 requests back by up
    // to 20 ms: bench/RESULTS.md).
    if (!browse_one()) events.wait(signal_set ? 100ms : idle() ? 0ms : 2ms);
  }
  while (auto rq = control.pop(0ms))
    if (rq->answer && rq->answer->start())
      rq->answer->finish(std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + rq->command.tpipe +
                         ") refused: the bridge is stopping");
  if (connected) {
    if (confirm) (void)conn->backout();
    (void)flush_step5();
    (void)conn->disconnect();
  }
}

bool worker::reconnect() {
  store.reset();
  conn.reset();  // its handle's signal, if any, goes with it, never posted
  signal_set = false;
  signals_refused = false;
  auto c = eng.hooks.connect();
  if (!c) {
    eng.console(std::string(imsb::msg::IMB2018W) + " Bridge queue " + queue +
                ": cannot connect to the queue manager (" + c.error().to_string() + "); retrying");
    return false;
  }
  conn = std::move(c).value();
  auto o = conn->open({queue, ""}, mq::MQOO_INPUT_EXCLUSIVE | mq::MQOO_BROWSE | mq::MQOO_FAIL_IF_QUIESCING |
                                       mq::MQOO_SAVE_ALL_CONTEXT);
  if (!o) {
    eng.console(std::string(imsb::msg::IMB2003E) + " Bridge queue " + queue +
                " cannot be opened: " + o.error().to_string() + "; retrying");
    conn.reset();
    retry_connect_at = eng.now() + eng.config.backoff_max_ms;
    return false;
  }
  h = o->handle;
  store = std::make_unique<state_store>(*conn);
  if (auto so = store->open(false); !so) {
    eng.console(std::string(imsb::msg::IMB2003E) + " Bridge queue " + queue +
                ": state queue cannot be opened (" + so.error().to_string() + "); retrying");
    store.reset();
    conn.reset();
    return false;
  }
  connected = true;
  browse_first = true;
  held.reset();
  if (!load_records()) {
    // Without the records nothing may be settled or sent: a failed connect, retried.
    store.reset();
    conn.reset();
    connected = false;
    return false;
  }
  return true;
}

// The records of this queue's Tpipes, from the state queue (at start, after a reconnect). The send side
// only (S, F, X): the receive number is the partner's, written and reloaded on its own connection, and this
// browse may be older than its last commit.
bool worker::load_records() {
  auto all = store->load_all();
  if (!all) {
    eng.console(std::string(imsb::msg::IMB2018W) + " Bridge queue " + queue + ": state records not loaded (" +
                all.error().to_string() + "); retrying");
    return false;
  }
  detail::tpipe_records fresh;
  bool any = false;
  stale_markers.clear();
  for (const state_record& r : *all) {
    if (r.xcf_group != part.group || r.xcf_member != part.member) continue;
    if (r.kind == record_kind::cm1_marker && r.queue == queue) {
      stale_markers.insert(r.token);
      continue;
    }
    if (r.tpipe != sync_tp) continue;
    any = true;
    detail::apply_record(fresh, r);
  }
  const bool known = eng.records.has(key());
  if (any)
    eng.records.update(key(), [&](detail::tpipe_records& t) {
      if (known) {
        fresh.receive = t.receive;
        fresh.has_receive = t.has_receive;
      }
      t = fresh;
    });
  resync_pending = fresh.in_flight.has_value();
  if (!stale_markers.empty())
    eng.console(std::string(imsb::msg::IMB2010W) + " Bridge queue " + queue + ": " +
                std::to_string(stale_markers.size()) +
                " CM1 request(s) with an unknown outcome will be sent again (possible duplicates)");
  return true;
}

void worker::drop_connection(const decode_error& e) {
  eng.console(std::string(imsb::msg::IMB2018W) + " Bridge queue " + queue +
              ": queue-manager connection broken (" + e.to_string() + "): reconnecting, then resync with " +
              part.group + "." + part.member);
  // The store refers to the connection (its destructor closes its handle): it goes first.
  store.reset();
  conn.reset();
  signal_set = false;
  connected = false;
  if (confirm && confirm->had_request) stale_markers.insert(confirm->token);  // outcome unknown
  confirm.reset();
  held.reset();
  cm0.reset();
  cm0_busy = false;
  step5_open.reset();  // never committed: the records reloaded and resync settle it, as after a crash
  for (const cm1_sent& s : cm1) stale_markers.insert(s.token);
  cm1.clear();
  outstanding_cm1 = 0;
  // Settlements backed out: the records and markers reloaded after the reconnect, and resync, settle them.
  settle_later.clear();
  gets_paused_until = 0;
  retry_connect_at = eng.now() + eng.config.backoff_initial_ms;
  dropped_gen = part.session_gen.load();
  part.reset_session("queue-manager connection of " + queue + " broken");
}

bool worker::can_take_work() const {
  return !stopping && !eng.quiescing && !eng.suspended && session_ready && !part.paused() && !queue_stopped();
}

// Browses the next message; false when there was none.
bool worker::browse_one() {
  if (rewind.exchange(false)) browse_first = true;
  mqi::get_request g;
  g.options = (browse_first ? mq::MQGMO_BROWSE_FIRST : mq::MQGMO_BROWSE_NEXT) | mq::MQGMO_FAIL_IF_QUIESCING |
              mq::MQGMO_NO_SYNCPOINT;
  // A signal outstanding on h forbids MQGMO_WAIT (MQRC_SIGNAL_OUTSTANDING): run() waits for it instead.
  const bool arm = !signals_refused && !signal_set.load();
  if (arm) {
    g.options |= mq::MQGMO_SET_SIGNAL;
    g.wait_interval_ms = mq::MQWI_UNLIMITED;
    g.signal = [this](std::int32_t) {
      signal_set = false;
      events.wake();
    };
    signal_set = true;  // before the call: the queue manager may post it before the call returns
  } else if (signals_refused && idle()) {
    g.options |= mq::MQGMO_WAIT;
    g.wait_interval_ms = 100;  // short, so that stop, suspend and events are seen
  }
  g.match_options = mq::MQMO_NONE;
  if (browse_first) {
    pass_from_first = true;
    seen_this_pass.clear();
  }
  auto got = conn->get(h, g);
  const bool signalled = arm && got && got.reason() == mq::MQRC_SIGNAL_REQUEST_ACCEPTED;
  if (arm && !signalled) {
    const std::int32_t r = got ? got.reason() : mqi::reason_of(got.error());
    if (r != mq::MQRC_SIGNAL_OUTSTANDING) signal_set = false;  // none was armed by this call
    if (r == mq::MQRC_OPTIONS_ERROR || r == mq::MQRC_SIGNAL1_ERROR || r == mq::MQRC_WAIT_INTERVAL_ERROR) {
      signals_refused = true;  // this connection cannot post one: the waits of before from now on
      (void)flush_step5();
      return false;
    }
    if (r == mq::MQRC_SIGNAL_OUTSTANDING) {  // one is armed already: run() waits for it
      (void)flush_step5();
      return false;
    }
  }
  if (signalled || (!got && mqi::reason_of(got.error()) == mq::MQRC_NO_MSG_AVAILABLE)) {
    if (pass_from_first) {
      // A whole pass: verdicts of requests not met in it (and not out with IMS) belong to requests gone.
      const detail::tpipe_records rec = eng.records.get(key());
      for (auto it = verdicts.begin(); it != verdicts.end();) {
        bool keep = seen_this_pass.count(it->first) != 0 || (cm0 && cm0->token == it->first) ||
                    (rec.in_flight && rec.in_flight_token == it->first) ||
                    stale_markers.count(it->first) != 0 || (confirm && confirm->token == it->first);
        for (const cm1_sent& s : cm1) keep = keep || s.token == it->first;
        it = keep ? std::next(it) : verdicts.erase(it);
      }
    }
    pass_from_first = false;
    seen_this_pass.clear();
    browse_first = true;  // what was skipped may be ours again (backed out, resync)
    (void)flush_step5();  // nothing to commit it with: run() waits now
    return false;
  }
  if (!got) {
    if (!connection_broken(got.error()) && !flush_step5()) return false;
    if (connection_broken(got.error())) {
      drop_connection(got.error());
    } else if (mqi::reason_of(got.error()) == mq::MQRC_GET_INHIBITED) {
      pause_gets(got.error(), "browse refused");  // until the operator enables GET again
    } else {
      stop_queue("browse failed: " + got.error().to_string());
    }
    return false;
  }
  browse_first = false;
  get_pause_attempts = 0;
  const token16 t = got->token;
  if (pass_from_first) seen_this_pass.insert(t);
  const detail::tpipe_records rec = eng.records.get(key());
  if (rec.in_flight && rec.in_flight_token == t) return true;  // settled by resync
  if (cm0 && cm0->token == t) return true;  // sent, its ACK not yet in (non-persistent: no record; #2)
  for (const cm1_sent& s : cm1)
    if (s.token == t) return true;
  if (confirm && confirm->token == t) return true;
  // The browse waited: a SUSPEND, a pause or a lost session may have come meanwhile.
  if (!can_take_work()) {
    (void)flush_step5();
    held = std::move(got).value();
  } else if (!process(*got)) {
    held = std::move(got).value();
  }
  return true;
}

result<mqi::message> worker::get_by_token(const token16& t, bool syncpoint) {
  mqi::get_request g;
  g.options = mq::MQGMO_NO_WAIT | mq::MQGMO_FAIL_IF_QUIESCING |
              (syncpoint ? mq::MQGMO_SYNCPOINT : mq::MQGMO_NO_SYNCPOINT);
  g.match_options = mq::MQMO_MATCH_MSG_TOKEN;
  g.msg_token = t;
  return conn->get(h, g);
}

result<mqi::message> worker::browse_by_token(const token16& t) {
  mqi::get_request g;
  g.options = mq::MQGMO_BROWSE_FIRST | mq::MQGMO_NO_WAIT | mq::MQGMO_NO_SYNCPOINT;
  g.match_options = mq::MQMO_MATCH_MSG_TOKEN;
  g.msg_token = t;
  return conn->get(h, g);
}

result<mqi::done> worker::put_dead_letter(const mq::mqmd& md, bytes_view data, std::int32_t reason,
                                          const std::string& dest_q, const std::string& dest_qmgr) {
  if (eng.dlq.empty())
    return decode_error{mq::make_mqrc(mq::MQRC_UNKNOWN_OBJECT_NAME), "DEADQ", 0,
                        "queue manager " + eng.qmgr_name + " has no dead-letter queue"};
  bridgemap::outgoing dl = bridgemap::make_dead_letter(md, data, reason, dest_q, dest_qmgr,
                                                       eng.reply_ctx(part.group, part.member));
  auto p = conn->put1({eng.dlq, ""}, dl.md, dl.data,
                      mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_FAIL_IF_QUIESCING);
  if (!p) return p.error();
  ++dead_letters;
  return mqi::done{};
}

// An exception report to the requester [I: ACTIVITY-MD, CANNOT-PUT]. Put with MQPMO_SET_ALL_CONTEXT from the
// bridge's own connection: the report carries the originator's identity context, but the authority
// checked is the bridge's [D] (IBM's bridge puts with the originator's authority; ours has none to borrow).
void worker::put_report(const mq::mqmd& md, bytes_view data, std::int32_t feedback) {
  auto rep = bridgemap::make_exception_report(md, data, feedback, eng.reply_ctx(part.group, part.member));
  if (!rep) return;
  auto p = conn->put1({rep->queue, rep->qmgr}, rep->md, rep->data,
                      mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT);
  if (!p && !eng.dlq.empty()) {
    // Undeliverable report: to the dead-letter queue, as the queue manager does with reports.
    (void)put_dead_letter(rep->md, rep->data, mqi::reason_of(p.error()), rep->queue, rep->qmgr);
  }
}

bool worker::commit_or_drop() {
  auto c = conn->commit();
  if (c) return true;
  if (connection_broken(c.error())) {
    drop_connection(c.error());
  } else {
    (void)conn->backout();
    stop_queue("commit failed: " + c.error().to_string());
  }
  return false;
}

void worker::pause_gets(const decode_error& e, const std::string& what, std::function<void()> again) {
  ++get_pause_attempts;
  const auto wait =
      bridgemap::backoff_ms(get_pause_attempts, eng.config.backoff_initial_ms, eng.config.backoff_max_ms);
  gets_paused_until = eng.now() + wait;
  if (again) settle_later.push_back(std::move(again));
  browse_first = true;
  if (get_pause_attempts == 1)
    eng.console(std::string(imsb::msg::IMB2150W) + " Bridge queue " + queue + ": " + what + " (" +
                e.to_string() + "): backed out; the queue is paused and tries again until the get works");
}

// Bad message or IMS application error (the first two of the three outcomes, docs/design/errors.md): DLQ
// with `reason`, exception report if asked, the request got, one unit of work; the queue goes on.
void worker::reject(const mqi::message& msg, std::int32_t reason, const std::string& why) {
  auto dl = put_dead_letter(msg.md, msg.data, reason, queue, "");
  if (!dl) {
    (void)conn->backout();
    if (connection_broken(dl.error())) {
      drop_connection(dl.error());
      return;
    }
    // The queue stops taking messages when the DLQ cannot be used [C: CANNOT-PUT].
    stop_queue("dead-letter queue unusable (" + dl.error().to_string() + ") for a message refused: " + why);
    return;
  }
  put_report(msg.md, msg.data, reason);
  auto g = get_by_token(msg.token, true);
  if (!g && connection_broken(g.error())) {
    (void)conn->backout();
    drop_connection(g.error());
    return;
  }
  if (!g && !request_gone(g.error())) {
    // Still on the queue: no dead letter without the get; browsed and refused again once gets work.
    (void)conn->backout();
    pause_gets(g.error(), "refused message not got");
    return;
  }
  if (!commit_or_drop()) return;
  eng.console(std::string(imsb::msg::IMB2008W) + " Message on " + queue + " dead-lettered with reason " +
              std::to_string(reason) + " (" + mq::describe_feedback(reason) + "): " + why);
}

result<std::uint32_t> worker::send_input(otma::otma_message m) {
  const tpipe::millis now = eng.now();
  return part.link->with_session([&](tpipe::client_session& s) -> result<std::uint32_t> {
    // Under the link's lock: the session is the one whose ready event this worker handled.
    if (part.session_gen.load() != ready_gen)
      return decode_error{std::make_error_code(std::errc::operation_not_permitted), "session", 0,
                          "the session changed; waiting for its ready event"};
    return s.send_input(std::move(m), now);
  });
}

std::optional<otma::otma_message> worker::build(const mqi::message& msg, bool synchronized,
                                                std::uint32_t rseq, std::int32_t* reason, std::string* why) {
  const std::int32_t ccsid = msg.md.coded_char_set_id == 0 ? eng.qmgr_ccsid : msg.md.coded_char_set_id;
  auto req = mq::validate_bridge_message(msg.data, msg.md.format, msg.md.encoding, ccsid);
  if (!req) {
    *reason = mq::feedback_of(req.error().code);
    *why = req.error().to_string();
    return std::nullopt;
  }
  const partner_config& pc = eng.config.partner(part.group, part.member);
  bridgemap::input_context ctx;
  ctx.tpipe = synchronized ? sync_tp : nsync_tp;
  ctx.synchronized = synchronized;
  ctx.recoverable_seq = rseq;
  ctx.token = msg.token;
  ctx.partner = pc.data;
  ctx.qmgr_encoding = eng.qmgr_encoding;
  ctx.qmgr_ccsid = eng.qmgr_ccsid;
  ctx.user = trim(msg.md.user_identifier);
  ctx.security_flag = req->security_scope;
  if (eng.hooks.security != nullptr) {
    security_inputs in;
    in.user = ctx.user;
    if (req->iih) in.authenticator = trim(req->iih->authenticator);
    in.passticket_appl = passtkta;
    auto known = verdicts.find(msg.token);
    security_verdict v = known != verdicts.end() ? known->second : eng.hooks.security->check(pc.access, in);
    if (v.allowed && known == verdicts.end()) verdicts.emplace(msg.token, v);
    if (!v.allowed) {
      eng.console(std::string(imsb::msg::IMB2101W) + " User " + in.user + " not authorized for partner " +
                  part.group + "." + part.member + " (access " + std::string(to_string(pc.access)) +
                  "): " + v.reason);
      *reason = mq::MQFB_NOT_AUTHORIZED_FOR_IMS;
      *why = "not authorized: " + v.reason;
      return std::nullopt;
    }
    ctx.group = v.group;
    ctx.utoken = v.utoken;
  }
  auto m = bridgemap::build_input(msg.md, msg.data, *req, ctx);
  if (!m) {
    *reason = mq::feedback_of(m.error().code);
    *why = m.error().to_string();
    return std::nullopt;
  }
  return std::move(m).value();
}

// One browsed message: validate, check, build, send (docs/design/commit-modes.md: CM0 steps 2-4, CM1, IMS
// commands). false: it must wait (its Tpipe is busy) and stays held.
bool worker::process(const mqi::message& msg) {
  const std::int32_t ccsid = msg.md.coded_char_set_id == 0 ? eng.qmgr_ccsid : msg.md.coded_char_set_id;
  auto req = mq::validate_bridge_message(msg.data, msg.md.format, msg.md.encoding, ccsid);
  const bool persistent = msg.md.persistence == mq::MQPER_PERSISTENT;
  const bool cm0_kind = req && !req->is_command && req->commit_mode == '0';
  // A staged step 5 (step5_open) is committed with this request's step 4 when it is a persistent CM0
  // request that goes now; otherwise alone, first.
  if (!(cm0_kind && persistent) && !flush_step5()) return false;
  if (!req) {
    reject(msg, mq::feedback_of(req.error().code), req.error().to_string());
    return true;
  }
  if (req->is_command && persistent && req->commit_mode == '0') {
    reject(msg, feedback_cm0_command, "a persistent CM0 request carries an IMS command");
    return true;
  }
  if (cm0_kind) {
    detail::tpipe_records rec = eng.records.get(key());
    const std::optional<std::uint32_t> staged = step5_open;
    if (staged) {  // as the cache will say once it is committed
      rec.send = *staged;
      rec.has_send = true;
      rec.in_flight.reset();
    }
    if (cm0 || rec.in_flight || rec.stopped || resync_pending || part.is_held(sync_tp)) {
      (void)flush_step5();
      return false;
    }
    const std::uint32_t rseq = persistent ? rec.send + 1 : 0;
    std::int32_t reason = 0;
    std::string why;
    auto m = build(msg, true, rseq, &reason, &why);
    if (!m) {
      if (!flush_step5()) return false;
      reject(msg, reason, why);
      return true;
    }
    if (persistent) {
      // Step 4: the in-flight record is committed before the send (with the last request's step 5 when
      // it is staged: one unit of work, and a crash leaves both or neither).
      state_record f = make_record(record_kind::in_flight, part.group, part.member, sync_tp);
      f.number = rseq;
      f.token = msg.token;
      f.queue = queue;
      auto p = store->put(f);
      // Not committed: a staged step 5 went with the backout, so it is done again alone (its request is
      // back on the queue, its record in place) before the failure is dealt with as before.
      const auto redo_step5 = [&] {
        step5_open.reset();
        if (staged && connected) finish_in_flight("ACK");
      };
      if (!p) {
        (void)conn->backout();
        if (connection_broken(p.error())) {
          drop_connection(p.error());
        } else {
          redo_step5();
          stop_queue("in-flight record not written: " + p.error().to_string());
        }
        return true;
      }
      step5_open.reset();
      if (!commit_or_drop()) {
        if (staged && connected)
          finish_in_flight("ACK");  // (commit_or_drop backed out and stopped the queue)
        return true;
      }
      if (staged) step5_done(*staged);
      eng.records.update(key(), [&](detail::tpipe_records& t) {
        t.in_flight = rseq;
        t.in_flight_token = msg.token;
        t.in_flight_queue = queue;
      });
    }
    auto s = send_input(std::move(*m));
    if (!s) {
      // Refused before anything went out (the session changed): the record names a message IMS cannot
      // have, so it goes now; the message is browsed again in the next session.
      browse_first = true;
      if (persistent) {
        auto rm = store->remove(
            bridgemap::key_of(make_record(record_kind::in_flight, part.group, part.member, sync_tp)));
        if (!rm) {
          (void)conn->backout();
          if (connection_broken(rm.error())) drop_connection(rm.error());
          return true;
        }
        if (commit_or_drop())
          eng.records.update(key(), [](detail::tpipe_records& t) { t.in_flight.reset(); });
      }
      return true;
    }
    cm0 = cm0_sent{msg.token, *s, rseq, persistent, msg};
    cm0_busy = true;
    ++sent;
    return true;
  }
  // CM1 or an IMS command (send-then-commit on the non-synchronized Tpipe).
  if (!flush_step5()) return false;
  if (nsync_stopped()) return true;  // left on the queue (not held: CM0 requests behind it go on)
  if (cm1.size() >= std::max(1u, eng.config.cm1_window)) return false;
  if (req->is_command)
    for (const cm1_sent& s : cm1)
      if (s.command) return false;
  std::int32_t reason = 0;
  std::string why;
  auto m = build(msg, false, 0, &reason, &why);
  if (!m) {
    reject(msg, reason, why);
    return true;
  }
  const bool again = stale_markers.erase(msg.token) != 0;
  if (!again) {
    state_record mk = make_record(record_kind::cm1_marker, part.group, part.member, nsync_tp);
    mk.token = msg.token;
    mk.queue = queue;
    auto p = store->put(mk);
    if (!p) {
      (void)conn->backout();
      if (connection_broken(p.error()))
        drop_connection(p.error());
      else
        stop_queue("CM1 marker not written: " + p.error().to_string());
      return true;
    }
    if (!commit_or_drop()) return true;
  }
  std::optional<otma::user_data> user = m->user;
  auto s = send_input(std::move(*m));
  if (!s) {
    // Not sent (the session changed): a marker written for it goes; one from before stays.
    browse_first = true;
    if (again) {
      stale_markers.insert(msg.token);
      return true;
    }
    state_record mk = make_record(record_kind::cm1_marker, part.group, part.member, nsync_tp);
    mk.token = msg.token;
    if (store->remove(bridgemap::key_of(mk)))
      (void)commit_or_drop();
    else
      (void)conn->backout();
    return true;
  }
  if (again) {
    ++part.possible_duplicates;
    eng.console(std::string(imsb::msg::IMB2010W) + " CM1 request on " + queue + " (token " +
                hex_token(msg.token) + ") sent again: its outcome was unknown, it may run twice");
  }
  cm1.push_back(cm1_sent{msg.token, *s, req->is_command, msg, std::move(user)});
  cm1.back().architected = req->is_command && req->tran_state == mq::MQITS_ARCHITECTED;
  outstanding_cm1 = static_cast<unsigned>(cm1.size());
  ++sent;
  return true;
}

void worker::handle(worker_event& e) {
  switch (e.what) {
    case worker_event::kind::ready:
      // The ready of a session our broken connection had dropped (queued while we reconnected): its
      // resync decisions were lost with the connection, and the next session brings them again.
      if (e.gen != 0 && e.gen <= dropped_gen) return;
      ready_gen = e.gen;
      session_ready = true;
      browse_first = true;
      restart_queue("the session with " + part.group + "." + part.member + " was established again");
      if (resync_pending) {
        const detail::tpipe_records rec = eng.records.get(key());
        if (rec.in_flight && !rec.stopped)
          eng.console(std::string(imsb::msg::IMB2025E) + " Cannot resync Tpipe " + sync_tp +
                      " with partner " + part.group + "." + part.member +
                      ": IMS sent no decision for the message in flight " + std::to_string(*rec.in_flight) +
                      "; Tpipe held until RESET TPIPE");
        resync_pending = false;
      }
      if (pending_resend) {
        pending_resend = false;
        resend_in_flight();
      }
      return;
    case worker_event::kind::lost:
      on_lost();
      return;
    case worker_event::kind::response:
      on_response(e.response);
      return;
    case worker_event::kind::output:
      // Output of a session already lost: nothing was committed for it and it is not ACKed (a new
      // incarnation of IMS would take the ACK for one of its own); the request is sent again.
      if (e.gen < ready_gen) return;
      on_output(e.output);
      return;
    case worker_event::kind::confirmation:
      if (confirm && confirm->gen != e.gen) return;
      on_confirmation(e.seq, e.committed);
      return;
    case worker_event::kind::resync:
      on_resync(e.decision);
      return;
    case worker_event::kind::unknown_tpipe:
      on_unknown_tpipe();
      return;
    case worker_event::kind::reset:
      if (e.answer && e.answer->start()) e.answer->finish(on_reset(e.command));
      return;
  }
}

void worker::on_lost() {
  session_ready = false;
  pending_resend = false;
  resync_pending = eng.records.get(key()).in_flight.has_value();
  held.reset();
  browse_first = true;
  if (confirm) {
    (void)conn->backout();
    stale_markers.insert(confirm->token);
    confirm.reset();
  }
  if (cm0) {
    if (cm0->persistent) resync_pending = true;  // the in-flight record stays: resync settles it
    cm0.reset();
    cm0_busy = false;
  }
  for (const cm1_sent& s : cm1) stale_markers.insert(s.token);
  cm1.clear();
  outstanding_cm1 = 0;
}

void worker::on_response(const tpipe::input_response& r) {
  if (cm0 && r.tpipe == sync_tp && r.send_seq == cm0->send_seq) {
    on_cm0_response(r);
    return;
  }
  for (std::size_t i = 0; i < cm1.size(); ++i)
    if (r.tpipe == nsync_tp && cm1[i].send_seq == r.send_seq) {
      on_cm1_response(r, i);
      return;
    }
}

void worker::on_cm0_response(const tpipe::input_response& r) {
  cm0_sent s = std::move(*cm0);
  cm0.reset();
  cm0_busy = false;
  // A browse that found this request again while it was out must not send it once more.
  if (held && held->token == s.token) held.reset();
  if (r.ack) {
    resource_attempts = 0;
    if (!s.persistent) {
      // Step 8: irrecoverable; the request goes after the ACK, no unit of work needed.
      remove_non_persistent(s.token);
      return;
    }
    // Step 5: get the request, send = n+1, clear the in-flight record, one unit of work (committed with
    // the next request's step 4 when one follows at once: step5_open).
    finish_in_flight("ACK", true);
    return;
  }
  const bridgemap::nak_decision d = bridgemap::decide_nak(r.sense, r.reason, r.error_message_follows);
  auto clear_in_flight = [&]() -> bool {
    if (!s.persistent) return true;
    auto rm = store->remove(
        bridgemap::key_of(make_record(record_kind::in_flight, part.group, part.member, sync_tp)));
    if (!rm) {
      (void)conn->backout();
      if (connection_broken(rm.error())) drop_connection(rm.error());
      return false;
    }
    return true;
  };
  auto after_commit = [&]() {
    if (s.persistent) eng.records.update(key(), [](detail::tpipe_records& t) { t.in_flight.reset(); });
  };
  char sense[32];
  std::snprintf(sense, sizeof sense, "X'%04X' reason X'%04X'", r.sense, r.reason);
  switch (d.what) {
    case bridgemap::outcome::application_error:
      settle_cm0_application_nak(s, d, sense);
      return;
    case bridgemap::outcome::resources: {
      // Outcome 3: the request stays on its queue; the whole partner backs off.
      if (!clear_in_flight() || !commit_or_drop()) return;
      after_commit();
      ++backouts;
      ++resource_attempts;
      const auto wait =
          bridgemap::backoff_ms(resource_attempts, eng.config.backoff_initial_ms, eng.config.backoff_max_ms);
      part.pause_for(wait);
      browse_first = true;
      if (resource_attempts > eng.config.resource_retry_limit) {
        stop_queue("IMS short of resources (NAK " + std::string(sense) + ") " +
                   std::to_string(resource_attempts) + " times in a row");
        return;
      }
      eng.console(std::string(imsb::msg::IMB2019W) + " Message on " + queue + " NAKed by " + part.group +
                  "." + part.member + " (sense " + sense + "): backed out, partner paused " +
                  std::to_string(wait) + " ms");
      return;
    }
    case bridgemap::outcome::protocol_reset:
      if (s.persistent) resync_pending = true;
      part.reset_session(std::string("NAK ") + sense + " on Tpipe " + sync_tp);
      return;
    case bridgemap::outcome::stop_tpipe: {
      state_record x = make_record(record_kind::stopped, part.group, part.member, sync_tp);
      x.reason = (std::string(imsb::msg::IMB2003E) + " NAK ") + sense;
      if (!clear_in_flight()) return;
      auto p = store->put(x);
      if (!p) {
        // Not durable: the Tpipe is stopped in memory all the same (nothing more is sent on it) and the
        // in-flight record stays, for resync to settle after a restart.
        (void)conn->backout();
        eng.records.update(key(), [&](detail::tpipe_records& t) { t.stopped = x.reason; });
        eng.console(std::string(imsb::msg::IMB2152E) + " Tpipe " + sync_tp + " of " + queue + " NAKed " +
                    sense + ": stopped record not written (" + p.error().to_string() +
                    "); the Tpipe is stopped");
        if (connection_broken(p.error())) drop_connection(p.error());
        return;
      }
      if (!commit_or_drop()) return;
      after_commit();
      eng.records.update(key(), [&](detail::tpipe_records& t) { t.stopped = x.reason; });
      eng.console(std::string(imsb::msg::IMB2003E) + " Tpipe " + sync_tp + " of " + queue + " stopped: NAK " +
                  sense + " from " + part.group + "." + part.member + "; RESET TPIPE to restart it");
      browse_first = true;
      return;
    }
  }
}

// Step 8: a non-persistent CM0 request IMS ACKed goes from its queue (no unit of work). Not got (2016 ...):
// the queue pauses and tries again, and it is never sent again meanwhile.
void worker::remove_non_persistent(const token16& t) {
  auto g = get_by_token(t, false);
  if (g) return;
  if (connection_broken(g.error())) {
    drop_connection(g.error());
    return;
  }
  if (!request_gone(g.error()))
    pause_gets(g.error(), "non-persistent request IMS has not got", [this, t] { remove_non_persistent(t); });
}

// A CM0 NAK for the message's own content (outcome 2): DLQ with 300+sense (or, when IMS's error message
// follows, that message is the reply), the request got, the in-flight record cleared, one unit of work.
// Done again later when the request cannot be got yet.
void worker::settle_cm0_application_nak(const cm0_sent& s, const bridgemap::nak_decision& d,
                                        const std::string& sense) {
  const auto in_flight_key =
      bridgemap::key_of(make_record(record_kind::in_flight, part.group, part.member, sync_tp));
  if (!d.reply_follows) {
    auto dl = put_dead_letter(s.msg.md, s.msg.data, d.feedback, queue, "");
    if (!dl) {
      (void)conn->backout();
      if (connection_broken(dl.error())) {
        drop_connection(dl.error());
        return;
      }
      stop_queue("dead-letter queue unusable: " + dl.error().to_string());
      // The in-flight record goes (the NAK used no number) so that the Tpipe is not blocked; the request
      // stays on its queue and is sent again once the queue restarts.
      if (s.persistent) {
        auto rm = store->remove(in_flight_key);
        if (!rm) {
          (void)conn->backout();
          if (connection_broken(rm.error())) drop_connection(rm.error());
          return;
        }
        if (commit_or_drop())
          eng.records.update(key(), [](detail::tpipe_records& t) { t.in_flight.reset(); });
      }
      return;
    }
    put_report(s.msg.md, s.msg.data, d.feedback);
  }
  auto g = get_by_token(s.token, true);
  if (!g) {
    if (connection_broken(g.error())) {
      (void)conn->backout();
      drop_connection(g.error());
      return;
    }
    if (!request_gone(g.error())) {
      (void)conn->backout();
      pause_gets(g.error(), "request NAKed by IMS not got",
                 [this, s, d, sense] { settle_cm0_application_nak(s, d, sense); });
      return;
    }
  }
  if (s.persistent) {
    auto rm = store->remove(in_flight_key);
    if (!rm) {
      (void)conn->backout();
      if (connection_broken(rm.error())) drop_connection(rm.error());
      return;
    }
  }
  if (!commit_or_drop()) return;
  if (s.persistent) eng.records.update(key(), [](detail::tpipe_records& t) { t.in_flight.reset(); });
  eng.console(std::string(imsb::msg::IMB2001I) + " Message on " + queue + " NAKed by " + part.group + "." +
              part.member + " (sense " + sense +
              (d.reply_follows
                   ? std::string("): IMS's error message is the reply")
                   : "): put on the dead-letter queue with feedback " + std::to_string(d.feedback)));
}

// Step 5 (and resync's "IMS has it"): get the request by token, send = in-flight number, clear the
// in-flight record, commit.
void worker::step5_done(std::uint32_t n) {
  eng.records.update(key(), [&](detail::tpipe_records& t) {
    t.send = n;
    t.has_send = true;
    t.in_flight.reset();
  });
}

bool worker::flush_step5() {
  if (!step5_open) return true;
  const std::uint32_t n = *step5_open;
  step5_open.reset();
  if (!commit_or_drop()) return false;
  step5_done(n);
  return true;
}

void worker::finish_in_flight(const std::string& how, bool stage) {
  const detail::tpipe_records rec = eng.records.get(key());
  if (!rec.in_flight) return;
  const std::uint32_t n = *rec.in_flight;
  auto g = get_by_token(rec.in_flight_token, true);
  if (!g) {
    if (connection_broken(g.error())) {
      (void)conn->backout();
      drop_connection(g.error());
      return;
    }
    if (!request_gone(g.error())) {
      // Still on its queue (2016 ...): the record stays, and this is done again once the get works.
      (void)conn->backout();
      pause_gets(g.error(), "in-flight request " + std::to_string(n) + " not got",
                 [this, how] { finish_in_flight(how); });
      return;
    }
    // Gone already (expired, or got by an operator): IMS has it all the same; the record is settled.
    eng.console(std::string(imsb::msg::IMB2026W) + " In-flight request " + std::to_string(n) + " of Tpipe " +
                sync_tp + " no longer on " + queue + ": " + g.error().to_string());
  }
  state_record sr = make_record(record_kind::send, part.group, part.member, sync_tp);
  sr.number = n;
  auto p = store->put(sr);
  auto rm = p ? store->remove(
                    bridgemap::key_of(make_record(record_kind::in_flight, part.group, part.member, sync_tp)))
              : result<mqi::done>(p.error());
  if (!rm) {
    (void)conn->backout();
    if (connection_broken(rm.error()))
      drop_connection(rm.error());
    else
      stop_queue("send record not written: " + rm.error().to_string());
    return;
  }
  if (stage) {
    step5_open = n;
    return;
  }
  if (!commit_or_drop()) return;
  step5_done(n);
  if (how != "ACK")
    eng.console(std::string(imsb::msg::IMB2022I) + " Tpipe " + sync_tp + ": IMS has input " +
                std::to_string(n) + " (" + how + "): request removed from " + queue);
}

void worker::resend_in_flight() {
  const detail::tpipe_records rec = eng.records.get(key());
  if (!rec.in_flight || rec.stopped) return;
  if (queue_stopped()) {
    pending_resend = true;  // after the queue restarts (a new session, RESET TPIPE, GET toggled)
    return;
  }
  const auto in_flight_key =
      bridgemap::key_of(make_record(record_kind::in_flight, part.group, part.member, sync_tp));
  auto b = browse_by_token(rec.in_flight_token);
  if (!b) {
    if (connection_broken(b.error())) {
      drop_connection(b.error());
      return;
    }
    if (!request_gone(b.error())) {
      pause_gets(b.error(), "in-flight request " + std::to_string(*rec.in_flight) + " not browsed",
                 [this] { resend_in_flight(); });
      return;
    }
    // The request is gone: nothing to send; the record goes.
    if (auto rm = store->remove(in_flight_key); !rm) {
      (void)conn->backout();
      if (connection_broken(rm.error())) drop_connection(rm.error());
      return;
    }
    if (commit_or_drop()) eng.records.update(key(), [](detail::tpipe_records& t) { t.in_flight.reset(); });
    return;
  }
  std::int32_t reason = 0;
  std::string why;
  auto m = build(*b, true, *rec.in_flight, &reason, &why);
  if (!m) {
    // It cannot be built again (conversion, security ...): returning would block the Tpipe for
    // ever. The request goes to the dead-letter queue and its record goes, one unit of work.
    auto dl = put_dead_letter(b->md, b->data, reason, queue, "");
    auto g = dl ? get_by_token(b->token, true) : result<mqi::message>(dl.error());
    if (!g && dl && request_gone(g.error())) g = *b;  // gone meanwhile: the record is settled all the same
    auto rm = g ? store->remove(in_flight_key) : result<mqi::done>(g.error());
    if (!rm) {
      (void)conn->backout();
      if (connection_broken(rm.error())) {
        drop_connection(rm.error());
      } else if (mqi::reason_of(rm.error()) == mq::MQRC_GET_INHIBITED) {
        pause_gets(rm.error(), "in-flight request that cannot be sent again not got",
                   [this] { resend_in_flight(); });
      } else {
        stop_queue("in-flight request " + std::to_string(*rec.in_flight) +
                   " can neither be sent again nor dead-lettered: " + rm.error().to_string());
        pending_resend = true;
      }
      return;
    }
    if (!commit_or_drop()) return;
    eng.records.update(key(), [](detail::tpipe_records& t) { t.in_flight.reset(); });
    eng.console(std::string(imsb::msg::IMB2151E) + " Tpipe " + sync_tp + ": input " +
                std::to_string(*rec.in_flight) + " on " + queue + " cannot be sent again (" + why +
                "): put on the dead-letter queue with reason " + std::to_string(reason));
    return;
  }
  auto s = send_input(std::move(*m));
  if (!s) return;  // the session changed: the next resync decides again
  eng.console(std::string(imsb::msg::IMB2022I) + " Tpipe " + sync_tp + ": input " +
              std::to_string(*rec.in_flight) + " not received by IMS: sent again after resync");
  cm0 = cm0_sent{b->token, *s, *rec.in_flight, true, *b};
  cm0_busy = true;
}

void worker::on_resync(const tpipe::resync_decision& d) {
  resync_pending = false;
  const bool mismatch =
      d.input == tpipe::input_outcome::mismatch || d.output == tpipe::output_outcome::mismatch;
  if (mismatch) {
    (void)write_stopped(std::string(imsb::msg::IMB2020E) + " " + d.reason);
    return;
  }
  if (d.input == tpipe::input_outcome::ims_has_it) finish_in_flight("resync");
  // Sent once the session is ready (send_input needs it): the ready event follows every decision.
  if (d.input == tpipe::input_outcome::resend_in_flight) pending_resend = true;
}

bool worker::write_stopped(const std::string& why) {
  state_record x = make_record(record_kind::stopped, part.group, part.member, sync_tp);
  x.reason = why.substr(0, 120);
  auto p = store->put(x);
  auto c = p ? conn->commit() : result<mqi::done>(p.error());
  if (!c) {
    (void)conn->backout();
    // IMS was told the Tpipe is stopped (X'0C'): it is not used whatever the state queue says; a new
    // resync after a reconnect says so again.
    eng.records.update(key(), [&](detail::tpipe_records& t) { t.stopped = x.reason; });
    eng.console(std::string(imsb::msg::IMB2152E) + " Tpipe " + sync_tp + " (partner " + part.group + "." +
                part.member + "): stopped record not written (" + c.error().to_string() +
                "); the Tpipe is stopped all the same");
    if (connection_broken(c.error())) drop_connection(c.error());
    return false;
  }
  eng.records.update(key(), [&](detail::tpipe_records& t) { t.stopped = x.reason; });
  return true;
}

void worker::on_unknown_tpipe() {
  resync_pending = false;
  const detail::tpipe_records rec = eng.records.get(key());
  tpipe::client_tpipe_record ours{rec.send, rec.receive, rec.in_flight};
  const tpipe::client_tpipe_record fresh = tpipe::after_ims_cold_start(ours);
  state_record sr = make_record(record_kind::send, part.group, part.member, sync_tp);
  sr.number = fresh.send;
  auto p = store->put(sr);
  if (p && fresh.in_flight && rec.in_flight) {
    state_record f = make_record(record_kind::in_flight, part.group, part.member, sync_tp);
    f.number = *fresh.in_flight;
    f.token = rec.in_flight_token;
    f.queue = queue;
    p = store->put(f);
  }
  if (!p) {
    (void)conn->backout();
    return;
  }
  if (!commit_or_drop()) return;
  eng.records.update(key(), [&](detail::tpipe_records& t) {
    t.send = fresh.send;
    t.has_send = true;
    if (fresh.in_flight && rec.in_flight) t.in_flight = *fresh.in_flight;
  });
  if (rec.in_flight) pending_resend = true;
}

void worker::on_cm1_response(const tpipe::input_response& r, std::size_t index) {
  if (r.ack) {
    resource_attempts = 0;
    return;  // the output follows
  }
  cm1_sent s = std::move(cm1[index]);
  cm1.erase(cm1.begin() + static_cast<std::ptrdiff_t>(index));
  outstanding_cm1 = static_cast<unsigned>(cm1.size());
  const bridgemap::nak_decision d = bridgemap::decide_nak(r.sense, r.reason, r.error_message_follows);
  const auto marker_key = bridgemap::key_of([&] {
    state_record mk = make_record(record_kind::cm1_marker, part.group, part.member, nsync_tp);
    mk.token = s.token;
    return mk;
  }());
  char sense[32];
  std::snprintf(sense, sizeof sense, "X'%04X' reason X'%04X'", r.sense, r.reason);
  switch (d.what) {
    case bridgemap::outcome::application_error: {
      if (!d.reply_follows) {
        auto dl = put_dead_letter(s.msg.md, s.msg.data, d.feedback, queue, "");
        if (!dl) {
          (void)conn->backout();
          if (connection_broken(dl.error()))
            drop_connection(dl.error());
          else
            stop_queue("dead-letter queue unusable: " + dl.error().to_string());
          return;
        }
        put_report(s.msg.md, s.msg.data, d.feedback);
      }
      auto g = get_by_token(s.token, true);
      if (!g && (connection_broken(g.error()) || !request_gone(g.error()))) {
        // Not got: the marker stays (marked stale, so the resend is counted) and the queue pauses.
        (void)conn->backout();
        stale_markers.insert(s.token);
        if (connection_broken(g.error()))
          drop_connection(g.error());
        else
          pause_gets(g.error(), "CM1 request NAKed by IMS not got");
        return;
      }
      if (auto rm = store->remove(marker_key); !rm) {
        (void)conn->backout();
        stale_markers.insert(s.token);
        if (connection_broken(rm.error())) drop_connection(rm.error());
        return;
      }
      if (!commit_or_drop()) return;
      eng.console(std::string(imsb::msg::IMB2001I) + " Message on " + queue + " NAKed by " + part.group +
                  "." + part.member + " (sense " + sense +
                  (d.reply_follows
                       ? std::string("): IMS's error message is the reply")
                       : "): put on the dead-letter queue with feedback " + std::to_string(d.feedback)));
      return;
    }
    case bridgemap::outcome::resources: {
      (void)store->remove(marker_key);
      if (!commit_or_drop()) return;
      ++backouts;
      ++resource_attempts;
      const auto wait =
          bridgemap::backoff_ms(resource_attempts, eng.config.backoff_initial_ms, eng.config.backoff_max_ms);
      part.pause_for(wait);
      browse_first = true;
      if (resource_attempts > eng.config.resource_retry_limit)
        stop_queue("IMS short of resources (NAK " + std::string(sense) + ")");
      else
        eng.console(std::string(imsb::msg::IMB2019W) + " Message on " + queue + " NAKed by " + part.group +
                    "." + part.member + " (sense " + sense + "): backed out, partner paused " +
                    std::to_string(wait) + " ms");
      return;
    }
    case bridgemap::outcome::protocol_reset:
      stale_markers.insert(s.token);
      part.reset_session(std::string("NAK ") + sense + " on Tpipe " + nsync_tp);
      return;
    case bridgemap::outcome::stop_tpipe:
      if (auto rm = store->remove(marker_key); !rm) {
        (void)conn->backout();
        if (connection_broken(rm.error())) drop_connection(rm.error());
      } else {
        (void)commit_or_drop();
      }
      browse_first = true;
      stop_nsync(std::string("NAK ") + sense);  // the synchronized Tpipe (CM0) goes on
      return;
  }
}

// CM1 / command output (send-then-commit): in one unit of work put the reply, get the request, remove the
// marker; ACK; commit on "committed", back out on "aborted".
void worker::on_output(const otma::otma_message& out) {
  const auto tok = bridgemap::token_of(out);
  std::optional<cm1_sent> req;
  if (tok) {
    for (std::size_t i = 0; i < cm1.size(); ++i)
      if (cm1[i].token == *tok) {
        req = std::move(cm1[i]);
        cm1.erase(cm1.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
  if (!req && !tok) {
    // Command output carries no user data of ours: it belongs to the one command outstanding, as
    // commands go one at a time for that reason ([C: IMS-CMDS]; docs/design/commit-modes.md, IMS
    // commands).
    for (std::size_t i = 0; i < cm1.size(); ++i)
      if (cm1[i].command) {
        req = std::move(cm1[i]);
        cm1.erase(cm1.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
  outstanding_cm1 = static_cast<unsigned>(cm1.size());
  bridgemap::reply_context ctx = eng.reply_ctx(part.group, part.member);
  ctx.architected = req && req->architected;
  ctx.error_reply = !req && part.take_error_text(nsync_tp);
  otma::otma_message with_user;
  const otma::otma_message* src = &out;
  if (req && !out.user && req->user) {
    with_user = out;
    with_user.user = req->user;
    src = &with_user;
  }
  auto reply = bridgemap::build_reply(*src, ctx);
  std::string trouble;
  bool ok = true;
  if (reply) {
    auto p = conn->put1({reply->queue, reply->qmgr}, reply->md, reply->data,
                        mq::MQPMO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_FAIL_IF_QUIESCING);
    if (!p) {
      if (connection_broken(p.error())) {
        if (req) stale_markers.insert(req->token);  // off the cm1 list already: still counted
        drop_connection(p.error());
        return;
      }
      trouble = "reply to " + reply->queue + " not put: " + p.error().to_string();
      const std::int32_t rc = mqi::reason_of(p.error());
      ok = static_cast<bool>(put_dead_letter(reply->md, reply->data, rc, reply->queue, reply->qmgr));
    }
  } else {
    trouble = "output not a reply: " + reply.error().to_string();
    const auto reason = mq::feedback_of(reply.error().code);
    if (req) {
      ok = static_cast<bool>(put_dead_letter(req->msg.md, req->msg.data, reason, queue, ""));
    } else {
      // Unsolicited output without our user data: the dead-letter queue, with what IMS sent.
      const bridgemap::output_original orig = bridgemap::output_as_original(
          *src, mq::MQPER_NOT_PERSISTENT, eng.reply_ctx(part.group, part.member));
      ok = static_cast<bool>(put_dead_letter(orig.md, orig.data, reason, "", ""));
    }
  }
  if (!ok) {
    (void)conn->backout();
    eng.console(std::string(imsb::msg::IMB2016E) + " Output on Tpipe " + nsync_tp + " from " + part.group +
                "." + part.member + " could not be put nor dead-lettered (" + trouble + "): NAKed");
    part.link->with_session([&](tpipe::client_session& s) {
      if (part.session_gen.load() == ready_gen) s.nak_output(out, otma::sense::invalid_message);  // #7
      return 0;
    });
    if (req) stale_markers.insert(req->token);
    browse_first = true;
    return;
  }
  if (req) {
    auto g = get_by_token(req->token, true);
    if (!g && connection_broken(g.error())) {
      stale_markers.insert(req->token);
      drop_connection(g.error());
      return;
    }
    if (!g && !request_gone(g.error())) {
      // The reply without the get would leave the request to run again uncounted: back out,
      // NAK the output (IMS backs the transaction out), keep the marker as stale, pause the queue.
      (void)conn->backout();
      part.link->with_session([&](tpipe::client_session& s) {
        if (part.session_gen.load() == ready_gen) s.nak_output(out, otma::sense::invalid_message);
        return 0;
      });
      stale_markers.insert(req->token);
      pause_gets(g.error(), "CM1 request answered by IMS not got");
      return;
    }
    state_record mk = make_record(record_kind::cm1_marker, part.group, part.member, nsync_tp);
    mk.token = req->token;
    (void)store->remove(bridgemap::key_of(mk));
  }
  if (!trouble.empty()) eng.console(std::string(imsb::msg::IMB2015W) + " " + trouble + "; dead-lettered");
  if (out.mci.response_requested()) {
    const bool acked = part.link->with_session([&](tpipe::client_session& s) {
      if (part.session_gen.load() != ready_gen) return false;  // the session ended meanwhile
      s.ack_output(out);
      return true;
    });
    if (!acked) {
      (void)conn->backout();
      if (req) stale_markers.insert(req->token);
      browse_first = true;
      return;
    }
    confirm = awaiting{out.mci.send_seq, req ? req->token : token16{}, eng.now(), req.has_value(), ready_gen};
    if (trouble.empty()) ++replies;
    return;
  }
  if (commit_or_drop() && trouble.empty()) ++replies;
}

void worker::on_confirmation(std::uint32_t seq, bool committed) {
  if (!confirm || confirm->seq != seq) return;  // a confirmation for output we did not wait on
  const awaiting a = *confirm;
  confirm.reset();
  if (committed) {
    (void)commit_or_drop();
    return;
  }
  // IMS backed the transaction out: so do we (the reply goes, the request and its marker come back).
  (void)conn->backout();
  ++backouts;
  if (a.had_request) stale_markers.insert(a.token);
  browse_first = true;
}

std::string worker::on_reset(const bridgemap::operator_command& c) {
  if (!connected)
    return std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe + ") refused: queue " + queue +
           " is not connected";
  if (cm0 || confirm)
    return std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe +
           ") refused: the Tpipe has work outstanding";
  const detail::tpipe_records rec = eng.records.get(key());
  if (c.reset_action == bridgemap::operator_command::action::commit && rec.in_flight) {
    auto g = get_by_token(rec.in_flight_token, true);
    if (!g && connection_broken(g.error())) {
      drop_connection(g.error());
      return std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe +
             ") failed: " + g.error().to_string();
    }
    if (!g && !request_gone(g.error())) {
      // Still on its queue (2016 ...): COMMIT would leave it to run again; refused, the operator retries.
      (void)conn->backout();
      return std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe +
             ") ACTION(COMMIT) failed: the request in flight cannot be got (" + g.error().to_string() + ")";
    }
  }
  auto fail = [&](const decode_error& e) {
    (void)conn->backout();
    return std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe + ") failed: " + e.to_string();
  };
  std::string receive_trouble;
  std::uint32_t send = rec.send;
  if (c.reset_action == bridgemap::operator_command::action::commit && rec.in_flight) send = *rec.in_flight;
  if (c.send_seq) send = *c.send_seq;
  const std::uint32_t receive = c.receive_seq ? *c.receive_seq : rec.receive;
  state_record sr = make_record(record_kind::send, part.group, part.member, sync_tp);
  sr.number = send;
  if (auto p = store->put(sr); !p) return fail(p.error());
  const bool clear_flight = c.reset_action != bridgemap::operator_command::action::none;
  if (clear_flight)
    if (auto p = store->remove(
            bridgemap::key_of(make_record(record_kind::in_flight, part.group, part.member, sync_tp)));
        !p)
      return fail(p.error());
  if (auto p = store->remove(
          bridgemap::key_of(make_record(record_kind::stopped, part.group, part.member, sync_tp)));
      !p)
    return fail(p.error());
  auto cm = conn->commit();
  if (!cm) return fail(cm.error());
  eng.records.update(key(), [&](detail::tpipe_records& t) {
    t.send = send;
    t.has_send = true;
    if (clear_flight) t.in_flight.reset();
    t.stopped.reset();
  });
  {
    // The receive record: written by the partner's thread, before the re-bid posted below.
    partner_event pe;
    pe.what = partner_event::kind::set_receive;
    pe.tpipe = sync_tp;
    pe.number = receive;
    auto done = std::make_shared<reset_request>();
    pe.done = done;
    part.events.post(std::move(pe));
    sync::unique_lock lock(done->mu);
    // The partner's thread never waits for a worker: no deadlock; bounded all the same.
    if (!done->wait_done(lock, std::chrono::seconds(20)))
      receive_trouble = "the partner did not write RCVSEQ in time";
    else
      receive_trouble = done->answer;
  }
  part.hold(sync_tp, false);
  resync_pending = false;
  browse_first = true;
  restart_queue("RESET TPIPE(" + sync_tp + ")");
  // RESET TPIPE "initiates resynchronization with IMS" [C: RESYNC, RESET-TPIPE] — SENDSEQ becomes IMS's
  // receive number and RCVSEQ its send number, and a Tpipe IMS stopped at the mismatch starts again. OTMA
  // resynchronizes only at a client-bid, so the session is dropped and bid again (CM0 step 7,
  // docs/design/commit-modes.md).
  {
    sync::lock_guard lock(part.st_mu);
    part.reset_requested.insert(sync_tp);
  }
  part.reset_session("RESET TPIPE(" + sync_tp + "): resynchronizing so that IMS takes the new numbers");
  if (!receive_trouble.empty()) {
    return std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + sync_tp + ") SENDSEQ(" +
           std::to_string(send) + ") done, RCVSEQ not written: " + receive_trouble;
  }
  const std::string line =
      std::string(imsb::msg::IMB2013I) + " RESET TPIPE(" + sync_tp + ") XCFMNAME(" + part.member +
      ") done: SENDSEQ(" + std::to_string(send) + ") RCVSEQ(" + std::to_string(receive) + ")" +
      (c.reset_action == bridgemap::operator_command::action::commit    ? " ACTION(COMMIT)"
       : c.reset_action == bridgemap::operator_command::action::backout ? " ACTION(BACKOUT)"
                                                                        : "");
  eng.console(line);
  return line;
}

// ==== the engine
// ===============================================================================================

engine::engine(bridge_config config, engine_hooks hooks)
    : impl_(std::make_unique<impl>(std::move(config), std::move(hooks))) {}

engine::~engine() { quiesce(0); }

worker* engine_core::worker_for(const std::string& queue) {
  for (auto& w : workers)
    if (w->queue == queue) return w.get();
  return nullptr;
}

void engine_core::route(partner& p, const std::string& tp, worker* w) {
  // p.eng is this engine, so p.eng.mu is the mu held: the analysis cannot tell from the names alone.
  assert(&p.eng == this);
  p.eng.mu.assert_held();
  p.by_tpipe[tp] = w;
}

result<mqi::done> engine_core::discover() {
  sync::lock_guard own_lock(own_mu);
  if (!own || !own_store)
    return decode_error{mq::make_mqrc(mq::MQRC_CONNECTION_BROKEN), "MQCONN", 0,
                        "the engine's connection is down"};
  // Administration (admin.hpp), not the message path: Inquire Storage Class, then Inquire Queue.
  const auto admin = mqi::administration_over(*own);
  auto classes = admin->inquire_storage_classes("*");
  if (!classes) return classes.error();
  struct stg {
    std::string group, member, passtkta;
  };
  std::map<std::string, stg> stgs;
  for (const auto& c : *classes) {
    stg s{c.xcf_group_name, c.xcf_member_name, c.pass_ticket_appl};
    if (!s.group.empty() && !s.member.empty()) stgs.emplace(c.name, s);
  }
  auto queues = admin->inquire_queues("*", mq::MQQT_LOCAL);
  if (!queues) return queues.error();
  std::vector<worker*> fresh;
  std::vector<partner*> fresh_partners;
  for (const auto& q : *queues) {
    auto it = stgs.find(q.storage_class);
    if (it == stgs.end()) continue;
    const stg& s = it->second;
    sync::unique_lock lock(mu);
    if (worker* known = worker_for(q.name)) {
      // Outside `mu` (restart_queue prints); workers go only in quiesce, after this thread ended.
      lock.unlock();
      known->observe_get(q.inhibit_get == mq::MQQA_GET_INHIBITED);
      continue;
    }
    if (refused.count(q.name) != 0) continue;
    // One partner per (group, IMS member); one member of ours per group (engine.hpp): a second IMS member
    // in a group would need our member to serve several sessions, which the link does not do yet.
    bool other_member = false;
    for (const auto& [k, p] : partners)
      if (p->group == s.group && p->member != s.member) other_member = true;
    if (other_member) {
      refused.insert(q.name);
      lock.unlock();
      console(std::string(imsb::msg::IMB2024E) + " Bridge queue " + q.name + " refused: group " + s.group +
              " already has an IMS partner; " + "one IMS member per XCF group is supported");
      continue;
    }
    std::uint32_t number = 0;
    if (auto a = assignments.find(q.name); a != assignments.end()) {
      number = a->second;
    } else {
      std::uint32_t max = 0;
      for (const auto& [n, v] : assignments) max = std::max(max, v);
      state_record r;
      r.kind = record_kind::assignment;
      r.queue = q.name;
      r.number = max + 1;
      lock.unlock();
      auto p = own_store->put(r);
      auto c = p ? own->commit() : result<mqi::done>(p.error());
      lock.lock();
      if (!c) {
        (void)own->backout();
        return c.error();
      }
      number = max + 1;
      assignments[q.name] = number;
    }
    auto sname = bridgemap::tpipe_name(config.tpipe_prefix, number, true);
    auto nname = bridgemap::tpipe_name(config.tpipe_prefix, number, false);
    if (!sname || !nname) {
      refused.insert(q.name);
      lock.unlock();
      console(std::string(imsb::msg::IMB2024E) + " Bridge queue " + q.name +
              " refused: " + (sname ? nname.error() : sname.error()).to_string());
      continue;
    }
    const std::string pk = s.group + "." + s.member;
    auto pit = partners.find(pk);
    if (pit == partners.end()) {
      pit = partners.emplace(pk, std::make_unique<partner>(*this, s.group, s.member)).first;
      fresh_partners.push_back(pit->second.get());
    }
    auto w = std::make_unique<worker>(*this, *pit->second, q.name, number, s.passtkta);
    w->sync_tp = *sname;
    w->nsync_tp = *nname;
    route(*pit->second, w->sync_tp, w.get());
    route(*pit->second, w->nsync_tp, w.get());
    fresh.push_back(w.get());
    workers.push_back(std::move(w));
  }
  for (worker* w : fresh) {
    console(std::string(imsb::msg::IMB2014I) + " Bridge queue " + w->queue + " uses Tpipes " + w->sync_tp +
            " and " + w->nsync_tp + " to partner " + w->part.group + "." + w->part.member);
    // A queue found while its partner's session runs: its Tpipes are new (no records, nothing to resync).
    if (w->part.ready) {
      worker_event ready;
      ready.what = worker_event::kind::ready;
      ready.gen = w->part.session_gen.load();
      w->events.post(std::move(ready));
    }
    w->start();
  }
  for (partner* p : fresh_partners) p->start();
  return mqi::done{};
}

void engine_core::discovery_loop() {
  sync::unique_lock lock(disc_mu);
  while (!quiescing) {
    disc_cv.wait_for(lock, std::chrono::milliseconds(std::max<std::uint64_t>(config.rescan_ms, 10)));
    if (quiescing) break;
    lock.unlock();
    auto d = discover();
    if (!d) {
      console(std::string(imsb::msg::IMB2003E) +
              " Looking for bridge queues failed: " + d.error().to_string());
      if (connection_broken(d.error())) {
        // The engine's own connection: reconnect it (the workers and partners mind their own).
        sync::lock_guard own_lock(own_mu);
        own_store.reset();
        own.reset();
        if (auto c = hooks.connect()) {
          own = std::move(c).value();
          own_store = std::make_unique<state_store>(*own);
          if (!own_store->open(false)) own_store.reset();
        }
      }
    }
    lock.lock();
  }
}

result<done> engine::start() {
  impl& e = *impl_;
  if (!e.hooks.connect)
    return decode_error{mq::make_mqrc(mq::MQRC_UNEXPECTED_ERROR), "connect", 0, "no connect hook"};
  auto c = e.hooks.connect();
  if (!c) return c.error();
  {
    // No other thread runs yet: the locks only keep the rule that own and assignments are used under them.
    sync::lock_guard own_lock(e.own_mu);
    e.own = std::move(c).value();
    e.qmgr_name = e.own->qmgr_name();
    e.member_name = e.config.member.empty() ? e.qmgr_name : e.config.member;
    // The queue manager's dead-letter queue, CCSID and platform (so its encoding), by MQINQ: a bridge that
    // cannot read them would make replies in guessed encodings, so it does not start.
    auto qm = mqi::inquire_qmgr(*e.own);
    if (!qm) return qm.error();
    e.dlq = qm->dead_letter_q;
    e.qmgr_ccsid = qm->ccsid;
    e.qmgr_encoding = mqi::native_encoding_of(qm->platform);
    e.own_store = std::make_unique<state_store>(*e.own);
    if (auto o = e.own_store->open(true); !o) return o.error();
    auto all = e.own_store->load_all();
    if (!all) return all.error();
    sync::lock_guard lock(e.mu);
    for (const state_record& r : *all) {
      if (r.kind == record_kind::assignment) {
        e.assignments[r.queue] = r.number;
        continue;
      }
      const std::string k = detail::record_cache::key(r.xcf_group, r.xcf_member, r.tpipe);
      e.records.update(k, [&](detail::tpipe_records& t) { detail::apply_record(t, r); });
    }
  }
  if (!e.hooks.make_xcf)
    return decode_error{std::make_error_code(std::errc::invalid_argument), "xcf", 0, "no XCF backend"};
  e.xcf = e.hooks.make_xcf();
  if (!e.xcf)
    return decode_error{std::make_error_code(std::errc::invalid_argument), "xcf", 0, "no XCF backend"};
  if (auto d = e.discover(); !d) return d.error();
  e.started = true;
  e.discovery = std::thread([&e] { e.discovery_loop(); });
  std::size_t nq = 0;
  {
    sync::lock_guard lock(e.mu);
    nq = e.workers.size();
  }
  e.console(std::string(imsb::msg::IMB2006I) + " Bridge engine started on queue manager " + e.qmgr_name +
            " as XCF member " + e.member_name + ": " + std::to_string(nq) + " bridge queue(s)");
  return std::monostate{};
}

void engine::quiesce(std::uint64_t grace_ms) {
  impl& e = *impl_;
  if (e.stopped.exchange(true)) return;
  e.quiescing = true;
  { sync::lock_guard lock(e.disc_mu); }
  e.disc_cv.notify_all();
  if (e.discovery.joinable()) e.discovery.join();
  // In-flight work finishes (at most grace_ms): workers take nothing new while quiescing.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  for (;;) {
    bool busy = false;
    {
      sync::lock_guard lock(e.mu);
      for (const auto& w : e.workers)
        if (!w->idle()) busy = true;
    }
    if (!busy || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(10ms);
  }
  std::vector<std::unique_ptr<worker>> workers;
  std::map<std::string, std::unique_ptr<partner>> partners;
  {
    sync::lock_guard lock(e.mu);
    workers.swap(e.workers);
    partners.swap(e.partners);
  }
  for (auto& w : workers) w->stop();
  for (auto& [k, p] : partners) {
    p->stop();  // leaves XCF
    if (p->announced) e.put_event(false, p->group, p->member, false);
    p->announced = false;
  }
  workers.clear();
  partners.clear();
  if (e.started)
    e.console(std::string(imsb::msg::IMB2007I) + " Bridge engine stopped on queue manager " + e.qmgr_name);
  sync::lock_guard lock(e.own_mu);
  e.own_store.reset();
  if (e.own) {
    (void)e.own->disconnect();
    e.own.reset();
  }
}

bool engine::stop_requested() const noexcept { return impl_->stop_asked; }

std::vector<partner_status> engine::partners() const {
  std::vector<partner_status> out;
  sync::lock_guard lock(impl_->mu);
  for (const auto& [k, p] : impl_->partners) {
    partner_status s;
    s.xcf_group = p->group;
    s.xcf_member = p->member;
    s.state = p->get_state();
    if (p->ready && p->paused()) s.state = "FLOODED";
    s.possible_duplicates = p->possible_duplicates;
    s.duplicates_ignored = p->duplicates_ignored;
    out.push_back(s);
  }
  return out;
}

std::vector<queue_status> engine::queues() const {
  std::vector<queue_status> out;
  sync::lock_guard lock(impl_->mu);
  for (const auto& w : impl_->workers) {
    queue_status s;
    s.queue = w->queue;
    s.xcf_group = w->part.group;
    s.xcf_member = w->part.member;
    s.state = w->status_text();
    s.sent = w->sent;
    s.replies = w->replies;
    s.dead_letters = w->dead_letters;
    s.backouts = w->backouts;
    out.push_back(s);
  }
  return out;
}

std::vector<tpipe_status> engine::tpipes() const {
  std::vector<tpipe_status> out;
  sync::lock_guard lock(impl_->mu);
  for (const auto& w : impl_->workers) {
    for (bool sync : {true, false}) {
      tpipe_status t;
      t.name = sync ? w->sync_tp : w->nsync_tp;
      t.xcf_group = w->part.group;
      t.xcf_member = w->part.member;
      t.queue = w->queue;
      t.synchronized = sync;
      if (sync) {
        const detail::tpipe_records r = impl_->records.get(w->key());
        t.send = r.send;
        t.receive = r.receive;
        t.in_flight = r.in_flight;
        t.outstanding = w->cm0_busy ? 1 : 0;
        if (r.stopped) t.state = "STOPPED (" + *r.stopped + ")";
      } else {
        t.outstanding = w->outstanding_cm1;
      }
      if (t.state.empty())
        t.state = w->queue_stopped()              ? "STOPPED (queue)"
                  : (!sync && w->nsync_stopped()) ? "STOPPED (NAK)"
                                                  : (w->part.ready ? "ACTIVE" : "INACTIVE");
      out.push_back(t);
    }
  }
  return out;
}

std::vector<std::string> engine::command(std::string_view line) {
  impl& e = *impl_;
  auto parsed = bridgemap::parse_operator_command(line);
  if (!parsed) return {std::string(imsb::msg::IMB2034E) + " " + parsed.error().detail};
  const bridgemap::operator_command& c = *parsed;
  std::vector<std::string> out;
  switch (c.verb) {
    case bridgemap::operator_verb::display_partner:
      for (const partner_status& p : partners())
        out.push_back(std::string(imsb::msg::IMB2030I) + " PARTNER(" + p.xcf_group + "." + p.xcf_member +
                      ") STATE(" + p.state + ") POSSDUP(" + std::to_string(p.possible_duplicates) +
                      ") DUPOUTPUT(" + std::to_string(p.duplicates_ignored) + ")");
      if (out.empty()) out.push_back(std::string(imsb::msg::IMB2030I) + " no partners");
      return out;
    case bridgemap::operator_verb::display_queue:
      for (const queue_status& q : queues())
        out.push_back(std::string(imsb::msg::IMB2031I) + " QUEUE(" + q.queue + ") PARTNER(" + q.xcf_group +
                      "." + q.xcf_member + ") STATE(" + q.state + ") SENT(" + std::to_string(q.sent) +
                      ") REPLIES(" + std::to_string(q.replies) + ") DLQ(" + std::to_string(q.dead_letters) +
                      ") BACKOUTS(" + std::to_string(q.backouts) + ")");
      if (out.empty()) out.push_back(std::string(imsb::msg::IMB2031I) + " no bridge queues");
      return out;
    case bridgemap::operator_verb::display_tpipe:
      for (const tpipe_status& t : tpipes()) {
        if (!c.tpipe.empty() && c.tpipe != "*" && c.tpipe != t.name) continue;
        out.push_back(std::string(imsb::msg::IMB2032I) + " TPIPE(" + t.name + ") PARTNER(" + t.xcf_group +
                      "." + t.xcf_member + ") QUEUE(" + t.queue + ") TYPE(" +
                      (t.synchronized ? "SYNC" : "NONSYNC") + ") STATE(" + t.state + ") SENDSEQ(" +
                      std::to_string(t.send) + ") RCVSEQ(" + std::to_string(t.receive) + ") INFLIGHT(" +
                      (t.in_flight ? std::to_string(*t.in_flight) : std::string("NONE")) + ") OUTSTANDING(" +
                      std::to_string(t.outstanding) + ")");
      }
      if (out.empty())
        out.push_back(std::string(imsb::msg::IMB2032I) + " no Tpipe matches " +
                      (c.tpipe.empty() ? std::string("*") : c.tpipe));
      return out;
    case bridgemap::operator_verb::display_system: {
      std::size_t np = 0, nq = 0;
      {
        sync::lock_guard lock(e.mu);
        np = e.partners.size();
        nq = e.workers.size();
      }
      out.push_back(std::string(imsb::msg::IMB2033I) + " SYSTEM QMGR(" + e.qmgr_name + ") MEMBER(" +
                    e.member_name + ") TPIPEPFX(" + e.config.tpipe_prefix + ") PARTNERS(" +
                    std::to_string(np) + ") QUEUES(" + std::to_string(nq) + ") FACILITY(" +
                    (e.suspended ? "SUSPENDED" : "ACTIVE") + ") STATE(" +
                    (e.quiescing ? "QUIESCING" : "RUNNING") + ") DEADQ(" + e.dlq + ")");
      return out;
    }
    case bridgemap::operator_verb::suspend:
      e.suspended = true;
      out.push_back(std::string(imsb::msg::IMB2017I) +
                    " IMSBRIDGE facility suspended: no new messages are sent; outputs are still handled");
      e.console(out.back());
      return out;
    case bridgemap::operator_verb::resume:
      e.suspended = false;
      out.push_back(std::string(imsb::msg::IMB2017I) + " IMSBRIDGE facility resumed");
      e.console(out.back());
      return out;
    case bridgemap::operator_verb::stop:
      e.stop_asked = true;
      out.push_back(std::string(imsb::msg::IMB2017I) + " STOP accepted: the bridge quiesces");
      e.console(out.back());
      return out;
    case bridgemap::operator_verb::reset_tpipe: {
      auto answer = std::make_shared<reset_request>();
      {
        // Posted under e.mu: the worker cannot be destroyed meanwhile; not used after the lock.
        sync::lock_guard lock(e.mu);
        worker* target = nullptr;
        for (const auto& w : e.workers) {
          if (w->part.member != c.xcf_member) continue;
          if (!c.xcf_group.empty() && w->part.group != c.xcf_group) continue;
          if (w->sync_tp == c.tpipe) target = w.get();
        }
        if (target == nullptr)
          return {std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe +
                  ") refused: no synchronized Tpipe of that name for XCFMNAME(" + c.xcf_member + ")"};
        worker_event ev;
        ev.what = worker_event::kind::reset;
        ev.command = c;
        ev.answer = answer;
        target->control.post(std::move(ev));
        target->events.wake();
      }
      sync::unique_lock lock(answer->mu);
      if (!answer->wait_done(lock, std::chrono::seconds(30))) {
        if (!answer->started) {
          answer->cancelled = true;  // the worker will not run it later
          return {std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe +
                  ") not answered: the queue's worker is busy; not done"};
        }
        // Under way: its answer is worth waiting for (a unit of work on the state queue).
        if (!answer->wait_done(lock, std::chrono::seconds(30)))
          return {std::string(imsb::msg::IMB2034E) + " RESET TPIPE(" + c.tpipe +
                  ") still running: DISPLAY TPIPE shows its outcome"};
      }
      return {answer->answer};
    }
  }
  return {std::string(imsb::msg::IMB2034E) + " unknown command"};
}

}  // namespace imsb::bridge
