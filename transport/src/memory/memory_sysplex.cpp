// The in-memory XCF backend (memory_xcf.hpp). One mutex guards the whole sysplex; handlers are called
// with it released, so that they may call back in. Everything a handler will see — messages, events,
// send results — and the heartbeat timers are items of one queue ordered by (due time, sequence
// number): that single order makes FIFO per stream, "events in the order of the changes" and
// determinism hold by construction.
//
// Every item names the member object (session) whose handler it is for and the join of that object it
// belongs to. Whatever ends a join — leave, quiesce, failure, the object's end — takes every item of
// that object off the queue at once, so no exit runs after the member's own IXCLEAVE or IXCQUIES
// [C: XCF-STATES] and nothing is left that could reach a handler its owner has since destroyed.

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "imsb/sync/mutex.hpp"
#include "imsb/transport/memory_xcf.hpp"

namespace imsb::transport {

namespace codes = xcf::codes;
using std::chrono::milliseconds;
using xcf::return_code;

namespace detail {
namespace {

enum class item_kind : std::uint8_t { message, event, send_done, heartbeat_missing, heartbeat_failure };

// The SEND payload before the data: target_token[8] target_name[16] stream(2) msgcntl[32] (README
// "The xcfhub protocol"); max_message limits that payload, as the hub's --max-message does [D].
constexpr std::size_t send_prefix_size = 8 + xcf::member_name_length + 2 + 32;

// Per (source join, target join, stream): FIFO and the refused-stream rule of README "Send".
struct stream_key {
  std::uint64_t source = 0;  // incarnations
  std::uint64_t target = 0;
  std::uint16_t stream = 0;
  friend bool operator<(const stream_key& a, const stream_key& b) noexcept {
    return std::tie(a.source, a.target, a.stream) < std::tie(b.source, b.target, b.stream);
  }
};

struct stream_state {
  milliseconds ordered_due{0};  // when the last ordered message is due: later ones wait behind it
  // Refused with 12/0: every later send of the stream is refused too until one carries "resume"
  // (README "Send").
  bool refused = false;
  // The sender's on_send_done for the refusal has returned: its next send of the stream resumes.
  bool resume_armed = false;
  // That on_send_done is running: only a send from the handler itself (the dispatching thread) resumes.
  // A send from another thread meanwhile was decided before the sender heard of the refusal; letting it
  // resume would put it ahead of the messages the handler is about to re-send. [D]
  bool reporting = false;
  // Refusals of sends older than the last resume are stale (the sender already re-sent them): their
  // reports must not arm resume again, or a new send could overtake the re-sent ones. [D]
  std::uint64_t last_resume_id = 0;
};

struct item {
  item_kind kind = item_kind::message;
  std::uint64_t session = 0;      // whose handler
  std::uint64_t incarnation = 0;  // the join of that session it belongs to
  // A link-loss notification (memory_faults::disconnect): it belongs to a join that has already ended,
  // and is delivered while the object's link is down or after its reconnect, until the object leaves,
  // quiesces, fails again or ends.
  bool link_loss = false;
  // message
  xcf::message msg;
  std::string group;
  std::string target_name;
  std::size_t bytes = 0;  // counted against the target's buffer
  // message (its send) and send_done
  std::uint64_t send_id = 0;
  // event
  xcf::member_event event;
  // send_done
  return_code code;
  stream_key stream;       // for 12/0: arms resume on this stream
  bool reordered = false;  // already part of a reordered batch: a later batch does not undo it
};

struct record {  // a (group, member) that is not not-defined
  xcf::member_info info;
  bool lasting = false;
  std::uint64_t incarnation = 0;
  std::uint64_t session = 0;
};

struct session {  // one member object handed out by join(): one "connection"
  xcf::join_request request;
  xcf::member_handler* handler = nullptr;
  std::uint64_t incarnation = 0;  // its current join; 0 when it is not (or no longer) joined
  xcf::member_token token{};
  bool link_up = true;
  bool hung = false;  // stop_heartbeats: its handler is not called
  // What its handler has been told of the group, by name: the join's snapshot, then every event handed
  // to it. A link loss reports these members failed, not the ones the handler has not heard of.
  std::map<std::string, xcf::member_info> told;
};

struct counted_rule {
  message_filter filter;
  std::size_t remaining = 1;
  milliseconds delay{0};
};

struct reorder_rule {
  message_filter filter;
  reorder_mode mode = reorder_mode::reverse;
  std::mt19937_64 engine;
  std::size_t batches = 1;
};

struct fail_send_rule {
  std::string group;
  std::string member;
  std::size_t countdown = 1;
  return_code code;
};

using queue_key = std::pair<milliseconds::rep, std::uint64_t>;  // (due, sequence)

bool matches(const message_filter& f, const std::string& group, const std::string& source,
             const std::string& target) {
  return (f.group.empty() || f.group == group) && (f.source.empty() || f.source == source) &&
         (f.target.empty() || f.target == target);
}

// Uses up one application of the oldest matching rule, if any.
counted_rule* take(std::vector<counted_rule>& rules, const std::string& group, const std::string& source,
                   const std::string& target) {
  for (auto& r : rules) {
    if (r.remaining > 0 && matches(r.filter, group, source, target)) {
      if (r.remaining != memory_faults::always) --r.remaining;
      return &r;
    }
  }
  return nullptr;
}

void forget_used(std::vector<counted_rule>& rules) {
  rules.erase(
      std::remove_if(rules.begin(), rules.end(), [](const counted_rule& r) { return r.remaining == 0; }),
      rules.end());
}

// A token that is unique in the sysplex and never all zeros (a zero token means "by name"): a tag byte
// and the join's incarnation, so a send by token finds its target without a search.
constexpr std::uint8_t token_tag = 0xD4;  // 'M' in EBCDIC: recognisable in a dump, and never zero

xcf::member_token make_token(std::uint64_t incarnation) {
  xcf::member_token t{};
  t[0] = token_tag;
  for (std::size_t i = 0; i < 7; ++i) t[7 - i] = static_cast<std::uint8_t>(incarnation >> (8 * i));
  return t;
}

std::uint64_t incarnation_of(const xcf::member_token& t) {
  if (t[0] != token_tag) return 0;
  std::uint64_t incarnation = 0;
  for (std::size_t i = 1; i < t.size(); ++i) incarnation = incarnation << 8 | t[i];
  return incarnation;
}

// The sysplexes this thread is dispatching, innermost last. A run() from a handler on that thread must
// not dispatch the same sysplex (it would call a second handler while the first one still runs); it
// may dispatch another one, whose handlers may in turn call the first one's run().
thread_local std::vector<const void*> t_dispatching;

bool dispatching_here(const void* plex) {
  return std::find(t_dispatching.begin(), t_dispatching.end(), plex) != t_dispatching.end();
}

}  // namespace

struct memory_plex {
  explicit memory_plex(memory_sysplex_options o) : options(std::move(o)) {}

  const memory_sysplex_options options;  // read-only
  // Guards the whole sysplex: every member below but dispatch_mutex and call_done. Taken under
  // dispatch_mutex (dispatch()), never the other way round.
  mutable sync::mutex mutex;
  sync::mutex dispatch_mutex IMSB_ACQUIRED_BEFORE(mutex);    // one run() at a time; guards no data
  sync::condition_variable call_done;                        // a handler call ended (calling_session changed)
  std::uint64_t calling_session IMSB_GUARDED_BY(mutex) = 0;  // whose handler runs now (0: none)

  milliseconds now IMSB_GUARDED_BY(mutex){0};
  std::uint64_t next_sequence IMSB_GUARDED_BY(mutex) = 0;
  std::uint64_t next_incarnation IMSB_GUARDED_BY(mutex) = 0;
  std::uint64_t next_session IMSB_GUARDED_BY(mutex) = 0;
  std::uint64_t next_send_id IMSB_GUARDED_BY(mutex) = 0;

  std::map<std::pair<std::string, std::string>, record> records IMSB_GUARDED_BY(mutex);  // (group, member)
  // Into records (nodes do not move).
  std::unordered_map<std::uint64_t, record*> by_incarnation IMSB_GUARDED_BY(mutex);
  std::map<std::uint64_t, session> sessions IMSB_GUARDED_BY(mutex);
  std::map<std::string, std::vector<std::string>> allow_lists IMSB_GUARDED_BY(mutex);
  std::map<queue_key, item> queue IMSB_GUARDED_BY(mutex);
  // Items due for a hung member, out of the queue so that dispatch does not step over them again and
  // again; they keep their keys (and so their order) until the member's failure discards them.
  std::map<std::uint64_t, std::map<queue_key, item>> held IMSB_GUARDED_BY(mutex);  // by session
  std::size_t held_count IMSB_GUARDED_BY(mutex) = 0;
  std::map<std::uint64_t, std::size_t> queued_bytes IMSB_GUARDED_BY(mutex);  // per target incarnation
  std::map<stream_key, stream_state> streams IMSB_GUARDED_BY(mutex);
  std::vector<wire_record> traffic IMSB_GUARDED_BY(mutex);

  std::vector<counted_rule> drops IMSB_GUARDED_BY(mutex), delays IMSB_GUARDED_BY(mutex),
      duplicates IMSB_GUARDED_BY(mutex);
  std::vector<reorder_rule> reorders IMSB_GUARDED_BY(mutex);
  std::vector<fail_send_rule> fail_sends IMSB_GUARDED_BY(mutex);

  // --- lookups (mutex held) ---------------------------------------------------------------------
  record* record_of(std::uint64_t incarnation) IMSB_REQUIRES(mutex) {
    if (incarnation == 0) return nullptr;
    auto it = by_incarnation.find(incarnation);
    return it == by_incarnation.end() ? nullptr : it->second;
  }
  record* active_record_of(std::uint64_t incarnation) IMSB_REQUIRES(mutex) {
    record* r = record_of(incarnation);
    return r != nullptr && r->info.state == xcf::member_state::active ? r : nullptr;
  }
  record* find_record(std::string_view group, std::string_view name) IMSB_REQUIRES(mutex) {
    auto it = records.find({std::string(group), std::string(name)});
    return it == records.end() ? nullptr : &it->second;
  }
  session* session_of(std::uint64_t id) IMSB_REQUIRES(mutex) {
    auto it = sessions.find(id);
    return it == sessions.end() ? nullptr : &it->second;
  }

  record& put_record(const std::string& group, const std::string& name, std::uint64_t incarnation)
      IMSB_REQUIRES(mutex) {
    record& r = records[{group, name}];
    if (r.incarnation != 0) by_incarnation.erase(r.incarnation);
    r.incarnation = incarnation;
    by_incarnation[incarnation] = &r;
    return r;
  }
  void erase_record(std::string_view group, std::string_view name) IMSB_REQUIRES(mutex) {
    auto it = records.find({std::string(group), std::string(name)});
    if (it == records.end()) return;
    by_incarnation.erase(it->second.incarnation);
    records.erase(it);
  }

  std::vector<xcf::member_info> snapshot(std::string_view group, std::string_view name = {}) const
      IMSB_REQUIRES(mutex) {
    std::vector<xcf::member_info> out;
    for (const auto& [key, r] : records)
      if (key.first == group && (name.empty() || key.second == name)) out.push_back(r.info);
    return out;
  }

  // --- queue ------------------------------------------------------------------------------------
  void enqueue(item it, milliseconds due) IMSB_REQUIRES(mutex) {
    queue.emplace(queue_key{due.count(), ++next_sequence}, std::move(it));
  }

  void enqueue_event(std::uint64_t session_id, std::uint64_t incarnation, xcf::event_kind kind,
                     const xcf::member_info& about, bool link_loss = false) IMSB_REQUIRES(mutex) {
    item it;
    it.kind = item_kind::event;
    it.session = session_id;
    it.incarnation = incarnation;
    it.link_loss = link_loss;
    it.event = {kind, about};
    enqueue(std::move(it), now);
  }

  void enqueue_send_done(std::uint64_t session_id, std::uint64_t incarnation, std::uint64_t send_id,
                         return_code code, stream_key stream = {}) IMSB_REQUIRES(mutex) {
    item it;
    it.kind = item_kind::send_done;
    it.session = session_id;
    it.incarnation = incarnation;
    it.send_id = send_id;
    it.code = code;
    it.stream = stream;
    enqueue(std::move(it), now);
  }

  // Events go to every other active member of the group (README "Events"), at once.
  void announce(xcf::event_kind kind, const xcf::member_info& about, std::uint64_t about_incarnation)
      IMSB_REQUIRES(mutex) {
    for (const auto& [key, r] : records)
      if (key.first == about.group && r.info.state == xcf::member_state::active &&
          r.incarnation != about_incarnation)
        enqueue_event(r.session, r.incarnation, kind, about);
  }

  void log(wire_record::what kind, const std::string& group, const xcf::message& m, const std::string& target,
           std::size_t size, std::uint64_t send_id, return_code code = codes::ok) IMSB_REQUIRES(mutex) {
    wire_record w;
    w.kind = kind;
    w.at = now;
    w.group = group;
    w.source = m.source_name;
    w.target = target;
    w.stream = m.stream;
    w.ordered = m.ordered;
    w.control = m.control;
    w.size = size;
    w.send_id = send_id;
    w.code = code;
    traffic.push_back(std::move(w));
  }

  void release_bytes(const item& it) IMSB_REQUIRES(mutex) {
    auto q = queued_bytes.find(it.incarnation);
    if (q == queued_bytes.end()) return;
    q->second -= std::min(q->second, it.bytes);
    if (q->second == 0) queued_bytes.erase(q);
  }

  // A queued message that will never be delivered, because its target left, quiesced or failed first.
  // Discarded silently, as IXCLEAVE discards undelivered messages [C: XCF-LEAVE] and the hub does: the
  // sender is not told (README "Failure", "Leave") [D].
  void discard_message(const item& it) IMSB_REQUIRES(mutex) {
    release_bytes(it);
    log(wire_record::what::discarded, it.group, it.msg, it.target_name, it.msg.data.size(), it.send_id);
  }

  // Everything queued for that member object, whatever join it belongs to: its inbound messages are
  // discarded, its exits are not scheduled any more ([C: XCF-STATES]: not after the member's own
  // IXCLEAVE/IXCQUIES), its send results and link-loss notifications are dropped.
  void purge_session(std::uint64_t session_id) IMSB_REQUIRES(mutex) {
    std::vector<item> discarded;
    auto drop = [&](item& it) {
      if (it.kind == item_kind::message) discarded.push_back(std::move(it));
    };
    for (auto q = queue.begin(); q != queue.end();) {
      if (q->second.session == session_id) {
        drop(q->second);
        q = queue.erase(q);
      } else {
        ++q;
      }
    }
    if (auto h = held.find(session_id); h != held.end()) {
      held_count -= h->second.size();
      for (auto& [key, it] : h->second) drop(it);
      held.erase(h);
    }
    for (const auto& d : discarded) discard_message(d);
  }

  // A join that is over (left, quiesced, failed, replaced): nobody sends from it or to it any more.
  void forget_join(std::uint64_t incarnation) IMSB_REQUIRES(mutex) {
    queued_bytes.erase(incarnation);
    for (auto it = streams.begin(); it != streams.end();)
      it = it->first.source == incarnation || it->first.target == incarnation ? streams.erase(it)
                                                                              : std::next(it);
  }

  // --- membership -------------------------------------------------------------------------------
  return_code check_join(const xcf::join_request& request) const IMSB_REQUIRES(mutex) {
    if (names::check_xcf_group_name(request.group, options.name_rules) ||
        names::check_xcf_member_name(request.member, options.name_rules))
      return codes::bad_name;  // README "Join" [D]
    auto allow = allow_lists.find(request.group);
    if (allow != allow_lists.end() &&
        std::find(allow->second.begin(), allow->second.end(), request.member) == allow->second.end())
      return codes::not_authorized;
    return codes::ok;
  }

  // IXCJOIN for a new member object (session_id 0) or a reconnecting one.
  return_code join(const xcf::join_request& request, xcf::member_handler& handler, std::uint64_t& session_id,
                   std::vector<xcf::member_info>& members) IMSB_REQUIRES(mutex) {
    if (return_code refused = check_join(request); refused != codes::ok) return refused;
    record* previous = find_record(request.group, request.member);
    return_code code = codes::ok;
    if (previous != nullptr) {
      switch (previous->info.state) {
        case xcf::member_state::active:
          return codes::already_active;
        case xcf::member_state::failed:
          code = codes::was_failed;
          break;
        case xcf::member_state::quiesced:
          code = codes::was_quiesced;
          break;
        default:
          break;
      }
    }
    if (code == codes::ok) {  // 4/8 and 4/0C win over 4/4 [C: XCF-JOIN]
      bool any_active = false;
      for (const auto& [key, r] : records)
        any_active = any_active || (key.first == request.group && r.info.state == xcf::member_state::active);
      if (!any_active) code = codes::first_active;
    }
    if (previous != nullptr) {  // the quiesced member's old object no longer owns the name
      if (session* old = session_of(previous->session);
          old != nullptr && old->incarnation == previous->incarnation)
        old->incarnation = 0;
      forget_join(previous->incarnation);
    }

    const std::uint64_t incarnation = ++next_incarnation;
    const bool fresh = session_id == 0;
    if (fresh) session_id = ++next_session;
    session& s = sessions[session_id];
    s.request = request;
    s.handler = &handler;
    s.incarnation = incarnation;
    s.token = make_token(incarnation);
    s.link_up = true;
    s.hung = false;

    record& r = put_record(request.group, request.member, incarnation);
    r.info.group = request.group;
    r.info.name = request.member;
    r.info.token = s.token;
    r.info.state = xcf::member_state::active;
    r.info.ustate = request.ustate;
    r.info.memdata = request.memdata;
    r.info.system = options.system;
    r.lasting = request.lasting;
    r.session = session_id;

    announce(xcf::event_kind::active, r.info, incarnation);
    members = snapshot(request.group);
    // A new object's handler knows the group from the join's answer; a reconnecting one learns it from
    // the events its reconnect queues.
    if (fresh)
      for (const auto& info : members) s.told[info.name] = info;
    return code;
  }

  // The member ends without IXCLEAVE: failed if lasting, else not-defined [C: XCF-JOIN]. Messages it
  // sent stay queued; messages to it are discarded (README "Failure").
  void fail(std::uint64_t session_id, bool link_lost) IMSB_REQUIRES(mutex) {
    session& s = sessions.at(session_id);
    record* r = active_record_of(s.incarnation);
    if (r == nullptr) return;
    const std::uint64_t incarnation = r->incarnation;
    purge_session(session_id);
    forget_join(incarnation);
    xcf::member_info about = r->info;
    if (r->lasting) {
      r->info.state = xcf::member_state::failed;
      about.state = xcf::member_state::failed;
    } else {
      erase_record(about.group, about.name);
      about.state = xcf::member_state::not_defined;
    }
    s.incarnation = 0;
    announce(xcf::event_kind::failed, about, incarnation);
    if (link_lost) {
      // What the TCP client tells its member when the hub is lost (README "Client backend behaviour"): it
      // can no longer reach anyone, so every member its handler knew active is failed as far as it can
      // tell — those it was told of, not those whose events were still on the way (and are now dropped).
      for (const auto& [name, known] : s.told) {
        if (name == about.name || known.state != xcf::member_state::active) continue;
        xcf::member_info gone = known;
        gone.state = xcf::member_state::failed;
        enqueue_event(session_id, incarnation, xcf::event_kind::failed, gone, true);
      }
      enqueue_event(session_id, incarnation, xcf::event_kind::failed, about, true);
      s.link_up = false;
    }
  }

  // --- send (IXCMSGOX) ---------------------------------------------------------------------------
  return_code refuse_now(const session& s, const xcf::target& to, const xcf::message& m, std::size_t size,
                         std::uint64_t send_id, return_code code) IMSB_REQUIRES(mutex) {
    log(wire_record::what::refused, s.request.group, m, to.name, size, send_id, code);
    return code;
  }

  // Resource shortage (README "Send" [D], XCF's TIMEOUT=0 behaviour [C: XCF-MSGO]): reported through
  // on_send_done as the hub's SEND_RSP is, so that a sender meets the pipelined case it meets over TCP.
  return_code refuse_later(std::uint64_t session_id, std::uint64_t source_incarnation, const stream_key& key,
                           const std::string& group, const xcf::message& m, const std::string& target_name,
                           std::size_t size, std::uint64_t send_id) IMSB_REQUIRES(mutex) {
    log(wire_record::what::refused, group, m, target_name, size, send_id, codes::resource_shortage);
    enqueue_send_done(session_id, source_incarnation, send_id, codes::resource_shortage, key);
    return codes::ok;
  }

  record* find_target(const std::string& group, const xcf::target& to) IMSB_REQUIRES(mutex) {
    if (!to.name.empty()) return find_record(group, to.name);
    record* r = record_of(incarnation_of(to.token));
    return r != nullptr && r->info.group == group && r->info.token == to.token ? r : nullptr;
  }

  return_code send(std::uint64_t session_id, const xcf::target& to, const xcf::control_area& control,
                   bytes_view data, const xcf::send_options& how, std::uint64_t* send_id_out)
      IMSB_REQUIRES(mutex) {
    const std::uint64_t send_id = ++next_send_id;
    if (send_id_out != nullptr) *send_id_out = send_id;
    session& s = sessions.at(session_id);
    xcf::message m;
    m.source_name = s.request.member;
    m.source_token = s.token;
    m.stream = how.stream;
    m.ordered = how.ordered;
    m.control = control;

    // A target name must be an XCF member name as it is, unpadded [C: XCF-NAMES2]; refused before
    // anything else, as the TCP client does (it never reaches the hub).
    if (!to.name.empty() && names::check_xcf_member_name(to.name, names::xcf_rules::xcf))
      return refuse_now(s, to, m, data.size(), send_id, codes::bad_name);
    if (!s.link_up) return refuse_now(s, to, m, data.size(), send_id, codes::link_down);
    // Every rule for this member counts this send; the oldest one that reaches its nth fires.
    std::optional<return_code> injected;
    for (auto& rule : fail_sends)
      if (rule.group == s.request.group && rule.member == s.request.member && --rule.countdown == 0 &&
          !injected)
        injected = rule.code;
    fail_sends.erase(std::remove_if(fail_sends.begin(), fail_sends.end(),
                                    [](const fail_send_rule& r) { return r.countdown == 0; }),
                     fail_sends.end());
    if (injected) return refuse_now(s, to, m, data.size(), send_id, *injected);
    record* self = active_record_of(s.incarnation);
    if (self == nullptr) return refuse_now(s, to, m, data.size(), send_id, codes::not_active);
    // README "Details": --max-message limits the SEND payload, the 58 bytes before the data included.
    if (data.size() > options.max_message || options.max_message - data.size() < send_prefix_size)
      return refuse_now(s, to, m, data.size(), send_id, codes::too_big);

    record* target = find_target(s.request.group, to);
    if (target == nullptr || target->info.state != xcf::member_state::active)
      return refuse_now(s, to, m, data.size(), send_id, codes::not_active);  // README "Send" [D]

    const std::string group = s.request.group;
    const std::string target_name = target->info.name;
    const std::uint64_t source_incarnation = self->incarnation;
    const std::uint64_t target_incarnation = target->incarnation;
    const std::uint64_t target_session = target->session;
    const stream_key key{source_incarnation, target_incarnation, how.stream};
    stream_state& st = streams[key];
    const std::size_t bytes = data.size() + xcf::control_area{}.size();

    if (st.refused) {
      const bool resume = st.resume_armed || (st.reporting && dispatching_here(this));
      if (!resume)
        return refuse_later(session_id, source_incarnation, key, group, m, target_name, data.size(), send_id);
      st.refused = false;  // this send carries "resume"
      st.resume_armed = false;
      st.reporting = false;
      st.last_resume_id = send_id;
    }
    std::size_t& queued = queued_bytes[target_incarnation];
    if (queued + bytes > options.target_buffer) {
      st.refused = true;
      st.resume_armed = false;
      st.reporting = false;
      if (queued == 0) queued_bytes.erase(target_incarnation);
      return refuse_later(session_id, source_incarnation, key, group, m, target_name, data.size(), send_id);
    }

    log(wire_record::what::accepted, group, m, target_name, data.size(), send_id);
    if (how.ack) enqueue_send_done(session_id, source_incarnation, send_id, codes::ok);
    if (take(drops, group, m.source_name, target_name) != nullptr) {
      log(wire_record::what::dropped, group, m, target_name, data.size(), send_id);
      forget_used(drops);
      if (queued == 0) queued_bytes.erase(target_incarnation);
      return codes::ok;
    }
    milliseconds due = now;
    if (counted_rule* d = take(delays, group, m.source_name, target_name); d != nullptr) due += d->delay;
    forget_used(delays);
    if (m.ordered) {
      due = std::max(due, st.ordered_due);
      st.ordered_due = due;
    }
    const bool twice = take(duplicates, group, m.source_name, target_name) != nullptr;
    forget_used(duplicates);

    item it;
    it.kind = item_kind::message;
    it.session = target_session;
    it.incarnation = target_incarnation;
    m.data = data.to_bytes();
    it.msg = std::move(m);
    it.group = group;
    it.target_name = target_name;
    it.bytes = bytes;
    it.send_id = send_id;
    queued += bytes;
    if (twice) {
      queued += bytes;
      log(wire_record::what::duplicated, group, it.msg, target_name, data.size(), send_id);
      enqueue(it, due);
    }
    enqueue(std::move(it), due);
    return codes::ok;
  }

  // --- dispatch -----------------------------------------------------------------------------------
  void apply_reorders() IMSB_REQUIRES(mutex) {
    for (auto& rule : reorders) {
      if (rule.batches == 0) continue;
      std::vector<item*> batch;
      for (auto& [key, it] : queue) {
        if (key.first > now.count()) break;
        if (it.kind == item_kind::message && !it.msg.ordered && !it.reordered &&
            matches(rule.filter, it.group, it.msg.source_name, it.target_name))
          batch.push_back(&it);
      }
      if (batch.size() < 2) continue;
      std::vector<item> contents;
      contents.reserve(batch.size());
      for (item* p : batch) {
        p->reordered = true;
        contents.push_back(std::move(*p));
      }
      if (rule.mode == reorder_mode::reverse) {
        std::reverse(contents.begin(), contents.end());
      } else {
        // Fisher–Yates on the raw engine output: std::shuffle's algorithm differs between libraries.
        for (std::size_t i = contents.size() - 1; i > 0; --i)
          std::swap(contents[i], contents[static_cast<std::size_t>(rule.engine() % (i + 1))]);
      }
      for (std::size_t i = 0; i < batch.size(); ++i) *batch[i] = std::move(contents[i]);
      if (rule.batches != memory_faults::always) --rule.batches;
    }
    reorders.erase(std::remove_if(reorders.begin(), reorders.end(),
                                  [](const reorder_rule& r) { return r.batches == 0; }),
                   reorders.end());
  }

  // Whether the item still belongs to its session's current join. Whatever ends a join purges the
  // session's items, so this only catches what slipped through (a join replaced under a quiesced object).
  bool current(const item& it, const session& s) IMSB_REQUIRES(mutex) {
    if (it.link_loss) return true;
    return s.incarnation == it.incarnation && active_record_of(it.incarnation) != nullptr;
  }

  void heartbeat_timer(const item& it) IMSB_REQUIRES(mutex) {
    session* s = session_of(it.session);
    if (s == nullptr || s->incarnation != it.incarnation || !s->hung) return;
    record* r = active_record_of(it.incarnation);
    if (r == nullptr) return;
    if (it.kind == item_kind::heartbeat_missing) {
      announce(xcf::event_kind::status_missing, r->info, r->incarnation);  // GEPLMISR [C: XCF-STATES]
    } else {
      s->hung = false;  // the process, when it wakes up, finds its link gone
      fail(it.session, true);
    }
  }

  // One handler call to make, taken off the queue with the mutex held.
  struct call {
    xcf::member_handler* handler = nullptr;
    item it;
    bool reports_refusal = false;  // a 12/0 whose report arms resume once the handler returns
  };

  // Takes the next due item; timers are handled on the way. False when nothing is due. Each item is
  // stepped over at most once: timers and dead items leave the queue, a hung member's go to `held`.
  bool next_call(call& out) IMSB_REQUIRES(mutex) {
    if (!reorders.empty()) apply_reorders();
    for (auto q = queue.begin(); q != queue.end();) {
      if (q->first.first > now.count()) return false;
      item& it = q->second;
      if (it.kind == item_kind::heartbeat_missing || it.kind == item_kind::heartbeat_failure) {
        item timer = std::move(it);
        queue.erase(q);
        heartbeat_timer(timer);
        q = queue.begin();  // the timer may have queued or removed items
        continue;
      }
      session* s = session_of(it.session);
      if (s == nullptr || !current(it, *s)) {
        item gone = std::move(it);
        q = queue.erase(q);
        if (gone.kind == item_kind::message) discard_message(gone);
        continue;
      }
      if (s->hung) {
        held[it.session].emplace(q->first, std::move(it));
        ++held_count;
        q = queue.erase(q);
        continue;
      }
      out.handler = s->handler;
      out.it = std::move(it);
      out.reports_refusal = false;
      queue.erase(q);
      if (out.it.kind == item_kind::message) {
        release_bytes(out.it);
        log(wire_record::what::delivered, out.it.group, out.it.msg, out.it.target_name,
            out.it.msg.data.size(), out.it.send_id);
      } else if (out.it.kind == item_kind::event) {
        s->told[out.it.event.member.name] = out.it.event.member;
      } else if (out.it.kind == item_kind::send_done && out.it.code == codes::resource_shortage) {
        auto st = streams.find(out.it.stream);
        if (st != streams.end() && st->second.refused && out.it.send_id >= st->second.last_resume_id) {
          st->second.reporting = true;  // a re-send from inside the handler resumes
          out.reports_refusal = true;
        }
      }
      return true;
    }
    return false;
  }

  // After the handler call (mutex held): the sender has now heard of the refusal, so its next send of the
  // stream resumes, from any thread (README "Send").
  void end_call(const call& c) IMSB_REQUIRES(mutex) {
    if (c.reports_refusal) {
      auto st = streams.find(c.it.stream);
      if (st != streams.end() && st->second.reporting) {
        st->second.reporting = false;
        st->second.resume_armed = true;
      }
    }
    calling_session = 0;
  }

  // leave() and the member's end: once they return, no call of that member's handler is running, so the
  // handler may be destroyed. Not from the dispatching thread: the call in progress there is the caller.
  void wait_for_calls_of(std::uint64_t session_id, sync::unique_lock& lock) IMSB_REQUIRES(mutex) {
    if (dispatching_here(this)) return;
    while (calling_session == session_id) call_done.wait(lock);
  }

  delivery_counts dispatch(std::size_t limit) IMSB_EXCLUDES(dispatch_mutex, mutex) {
    delivery_counts counts;
    if (dispatching_here(this)) return counts;
    sync::lock_guard one_run(dispatch_mutex);
    struct dispatching_guard {  // restored even when a handler throws
      explicit dispatching_guard(const void* self) { t_dispatching.push_back(self); }
      ~dispatching_guard() { t_dispatching.pop_back(); }
      dispatching_guard(const dispatching_guard&) = delete;
      dispatching_guard& operator=(const dispatching_guard&) = delete;
    } guard(this);
    while (counts.total() < limit) {
      call c;
      {
        sync::lock_guard lock(mutex);
        if (!next_call(c)) break;
        calling_session = c.it.session;
      }
      struct call_guard {  // ends the call even when the handler throws
        memory_plex& plex;
        const call& c;
        ~call_guard() {
          {
            sync::lock_guard lock(plex.mutex);
            plex.end_call(c);
          }
          plex.call_done.notify_all();
        }
        call_guard(const call_guard&) = delete;
        call_guard& operator=(const call_guard&) = delete;
      } ending{*this, c};
      switch (c.it.kind) {
        case item_kind::message:
          ++counts.messages;
          c.handler->on_message(std::move(c.it.msg));
          break;
        case item_kind::event:
          ++counts.events;
          c.handler->on_event(c.it.event);
          break;
        case item_kind::send_done:
          ++counts.send_results;
          c.handler->on_send_done(c.it.send_id, c.it.code);
          break;
        default:
          break;
      }
    }
    return counts;
  }
};

namespace {

// One member object (xcf::member) handed out by memory_sysplex::join.
class memory_member final : public xcf::member {
 public:
  memory_member(std::shared_ptr<memory_plex> plex, std::uint64_t session_id, std::string group,
                std::string name)
      : plex_(std::move(plex)), session_(session_id), group_(std::move(group)), name_(std::move(name)) {}

  ~memory_member() override {
    sync::unique_lock lock(plex_->mutex);
    // Ending without IXCLEAVE is a failure (member.hpp); a quiesced member stays quiesced (README).
    plex_->fail(session_, false);
    plex_->purge_session(session_);  // link-loss notifications still queued, if its link was down
    plex_->sessions.erase(session_);
    plex_->wait_for_calls_of(session_, lock);
  }
  memory_member(const memory_member&) = delete;
  memory_member& operator=(const memory_member&) = delete;

  const std::string& group() const noexcept override { return group_; }
  const std::string& name() const noexcept override { return name_; }
  xcf::member_token token() const override {
    sync::lock_guard lock(plex_->mutex);
    return plex_->sessions.at(session_).token;
  }

  return_code send(const xcf::target& to, const xcf::control_area& control, bytes_view data,
                   const xcf::send_options& options, std::uint64_t* send_id) override {
    sync::lock_guard lock(plex_->mutex);
    return plex_->send(session_, to, control, data, options, send_id);
  }

  return_code query(std::vector<xcf::member_info>& out, std::string_view member_name) override {
    sync::lock_guard lock(plex_->mutex);
    if (!plex_->sessions.at(session_).link_up) return codes::link_down;
    out = plex_->snapshot(group_, member_name);  // IXCQUERY needs no membership (README "Connections")
    return !member_name.empty() && out.empty() ? codes::not_found : codes::ok;
  }

  return_code set_user_state(const xcf::user_state& state) override {
    sync::lock_guard lock(plex_->mutex);
    record* self = nullptr;
    if (return_code refused = active_self(self); refused != codes::ok) return refused;
    self->info.ustate = state;
    plex_->announce(xcf::event_kind::user_state, self->info, self->incarnation);  // IXCSETUS [C: XCF-STATES]
    return codes::ok;
  }

  return_code quiesce() override {
    sync::lock_guard lock(plex_->mutex);
    record* self = nullptr;
    if (return_code refused = active_self(self); refused != codes::ok) return refused;
    // Receives nothing more and stays quiesced until it re-joins (4/0C) or is removed (README "Quiesce");
    // no exit of its own is scheduled after IXCQUIES [C: XCF-STATES].
    plex_->purge_session(session_);
    plex_->forget_join(self->incarnation);
    self->info.state = xcf::member_state::quiesced;
    plex_->announce(xcf::event_kind::quiesced, self->info, self->incarnation);
    return codes::ok;
  }

  return_code remove(std::string_view member_name) override {
    sync::lock_guard lock(plex_->mutex);
    record* self = nullptr;
    if (return_code refused = active_self(self); refused != codes::ok) return refused;
    record* victim = plex_->find_record(group_, member_name);
    if (victim == nullptr) return codes::not_found;
    if (victim->info.state == xcf::member_state::active) return codes::already_active;  // IXCDELET: failed
    xcf::member_info about = victim->info;  // or quiesced only [C]
    const std::uint64_t incarnation = victim->incarnation;
    plex_->forget_join(incarnation);
    plex_->erase_record(group_, member_name);
    about.state = xcf::member_state::not_defined;
    plex_->announce(xcf::event_kind::removed, about, incarnation);
    return codes::ok;
  }

  return_code leave() override {
    sync::unique_lock lock(plex_->mutex);
    session& s = plex_->sessions.at(session_);
    if (!s.link_up) return codes::link_down;
    record* self = plex_->record_of(s.incarnation);
    if (self == nullptr) return codes::not_active;  // IXCLEAVE 8/4 [C]
    // Its outbound messages stay queued and are delivered; its inbound ones are discarded, and no exit of
    // its own runs any more, link-loss notifications of an earlier join included [C: XCF-LEAVE, XCF-STATES].
    const std::uint64_t incarnation = self->incarnation;
    xcf::member_info about = self->info;
    plex_->purge_session(session_);
    plex_->forget_join(incarnation);
    plex_->erase_record(group_, name_);
    s.incarnation = 0;
    about.state = xcf::member_state::not_defined;
    plex_->announce(xcf::event_kind::left, about, incarnation);
    plex_->wait_for_calls_of(session_, lock);
    return codes::ok;
  }

 private:
  return_code active_self(record*& self) IMSB_REQUIRES(plex_->mutex) {
    session& s = plex_->sessions.at(session_);
    if (!s.link_up) return codes::link_down;
    self = plex_->active_record_of(s.incarnation);
    return self == nullptr ? codes::not_active : codes::ok;
  }

  std::shared_ptr<memory_plex> plex_;
  std::uint64_t session_;
  std::string group_;
  std::string name_;
};

}  // namespace
}  // namespace detail

// --- memory_sysplex --------------------------------------------------------------------------------

memory_sysplex::memory_sysplex(memory_sysplex_options options)
    : plex_(std::make_shared<detail::memory_plex>(std::move(options))), faults_(*plex_) {}

memory_sysplex::~memory_sysplex() = default;

xcf::join_result memory_sysplex::join(const xcf::join_request& request, xcf::member_handler& handler) {
  sync::lock_guard lock(plex_->mutex);
  xcf::join_result result;
  std::uint64_t session_id = 0;
  result.code = plex_->join(request, handler, session_id, result.members);
  if (result.code.ok())
    result.joined = std::make_unique<detail::memory_member>(plex_, session_id, request.group, request.member);
  return result;
}

void memory_sysplex::allow(std::string group, std::vector<std::string> members) {
  sync::lock_guard lock(plex_->mutex);
  plex_->allow_lists[std::move(group)] = std::move(members);
}

delivery_counts memory_sysplex::run(std::size_t limit) { return plex_->dispatch(limit); }
delivery_counts memory_sysplex::run_one() { return plex_->dispatch(1); }

void memory_sysplex::advance(milliseconds by) {
  sync::lock_guard lock(plex_->mutex);
  if (by.count() > 0) plex_->now += by;
}

milliseconds memory_sysplex::now() const {
  sync::lock_guard lock(plex_->mutex);
  return plex_->now;
}

std::size_t memory_sysplex::pending() const {
  sync::lock_guard lock(plex_->mutex);
  return plex_->queue.size() + plex_->held_count;
}

std::vector<xcf::member_info> memory_sysplex::members(std::string_view group) const {
  sync::lock_guard lock(plex_->mutex);
  return plex_->snapshot(group);
}

std::vector<wire_record> memory_sysplex::traffic() const {
  sync::lock_guard lock(plex_->mutex);
  return plex_->traffic;
}

void memory_sysplex::clear_traffic() {
  sync::lock_guard lock(plex_->mutex);
  plex_->traffic.clear();
}

// --- memory_faults ---------------------------------------------------------------------------------

void memory_faults::drop(const message_filter& filter, std::size_t count) {
  sync::lock_guard lock(plex_->mutex);
  if (count > 0) plex_->drops.push_back({filter, count, {}});
}

void memory_faults::delay(const message_filter& filter, milliseconds by, std::size_t count) {
  sync::lock_guard lock(plex_->mutex);
  if (count > 0) plex_->delays.push_back({filter, count, std::max(by, milliseconds{0})});
}

void memory_faults::duplicate(const message_filter& filter, std::size_t count) {
  sync::lock_guard lock(plex_->mutex);
  if (count > 0) plex_->duplicates.push_back({filter, count, {}});
}

void memory_faults::reorder(const message_filter& filter, reorder_mode mode, std::uint64_t seed,
                            std::size_t batches) {
  sync::lock_guard lock(plex_->mutex);
  if (batches > 0) plex_->reorders.push_back({filter, mode, std::mt19937_64(seed), batches});
}

void memory_faults::fail_send(std::string group, std::string member, std::size_t nth, return_code code) {
  sync::lock_guard lock(plex_->mutex);
  plex_->fail_sends.push_back({std::move(group), std::move(member), std::max<std::size_t>(nth, 1), code});
}

return_code memory_faults::disconnect(std::string_view group, std::string_view member) {
  sync::lock_guard lock(plex_->mutex);
  detail::record* r = plex_->find_record(group, member);
  if (r == nullptr) return codes::not_found;
  detail::session* s = plex_->session_of(r->session);
  if (r->info.state != xcf::member_state::active || s == nullptr || s->incarnation != r->incarnation)
    return codes::not_active;
  s->hung = false;  // what it held is purged by the failure
  plex_->fail(r->session, true);
  return codes::ok;
}

return_code memory_faults::reconnect(std::string_view group, std::string_view member) {
  sync::lock_guard lock(plex_->mutex);
  std::uint64_t session_id = 0;
  for (const auto& [id, s] : plex_->sessions)  // the latest object of that name whose link is down
    if (!s.link_up && s.request.group == group && s.request.member == member) session_id = id;
  if (session_id == 0) return codes::not_found;
  detail::session& s = plex_->sessions.at(session_id);
  std::vector<xcf::member_info> members;
  const return_code code = plex_->join(s.request, *s.handler, session_id, members);
  if (!code.ok()) {
    s.link_up = false;
    return code;
  }
  // What the TCP client's member sees after its re-join: itself active, then every active member.
  const xcf::member_info* self = nullptr;
  for (const auto& info : members)
    if (info.name == member) self = &info;
  plex_->enqueue_event(session_id, s.incarnation, xcf::event_kind::active, *self);
  for (const auto& info : members)
    if (&info != self && info.state == xcf::member_state::active)
      plex_->enqueue_event(session_id, s.incarnation, xcf::event_kind::active, info);
  return code;
}

return_code memory_faults::stop_heartbeats(std::string_view group, std::string_view member) {
  sync::lock_guard lock(plex_->mutex);
  detail::record* r = plex_->find_record(group, member);
  if (r == nullptr) return codes::not_found;
  detail::session* s = plex_->session_of(r->session);
  if (r->info.state != xcf::member_state::active || s == nullptr || s->incarnation != r->incarnation ||
      s->hung)
    return codes::not_active;
  s->hung = true;
  const milliseconds interval = plex_->options.heartbeat;
  detail::item missing;
  missing.kind = detail::item_kind::heartbeat_missing;
  missing.session = r->session;
  missing.incarnation = r->incarnation;
  detail::item failure = missing;
  failure.kind = detail::item_kind::heartbeat_failure;
  plex_->enqueue(std::move(missing), plex_->now + 2 * interval);
  plex_->enqueue(std::move(failure), plex_->now + 3 * interval);
  return codes::ok;
}

void memory_faults::clear() {
  sync::lock_guard lock(plex_->mutex);
  plex_->drops.clear();
  plex_->delays.clear();
  plex_->duplicates.clear();
  plex_->reorders.clear();
  plex_->fail_sends.clear();
}

}  // namespace imsb::transport
