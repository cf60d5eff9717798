// The running queue manager (queue_manager.hpp): messages, units of work, waits, expiry, reports, the
// dead-letter queue, transmission queues and authorization, and its in-process mqi::connection.
// MQSC and inquiries are in engine_admin.cpp. [D] unless a source is cited ([C: KEY], the keys in
// docs/design/sources.md).

#include "imsb/qmgr/queue_manager.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <utility>

#include "blocking.hpp"
#include "engine.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/objects/resolution.hpp"

namespace imsb::qmgr {
namespace detail {
std::int32_t (*engine_log_hook)(log_hook_point where) = nullptr;
mqi::hobj engine_first_hobj = 1;
}  // namespace detail

namespace engine_detail {

namespace fs = std::filesystem;

decode_error mqi_error(std::string call, std::int32_t rc, std::string detail) {
  return decode_error{mq::make_mqrc(rc), std::move(call), 0, std::move(detail)};
}

engine::engine(queue_manager_store st, qmgr_lock lk, runtime_options opts, objects::object_catalog cat)
    : store(std::move(st)),
      options(std::move(opts)),
      lock(std::move(lk)),
      catalog(std::move(cat)),
      qmgr_name(catalog.qmgr_name()) {
  snap = catalog.snapshot();
  error_log_path =
      options.error_log.empty() ? store.directory() / "errors" / "AMQERR01.LOG" : options.error_log;
}

std::chrono::system_clock::time_point engine::now() const {
  return options.clock ? options.clock() : std::chrono::system_clock::now();
}

std::int64_t engine::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now().time_since_epoch()).count();
}

void engine::log_error(const std::string& line) {
  const std::time_t t = std::chrono::system_clock::to_time_t(now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S UTC", &tm);
  sync::lock_guard g(err_mu);
  std::error_code ec;
  fs::create_directories(error_log_path.parent_path(), ec);
  std::ofstream out(error_log_path, std::ios::app);
  out << stamp << ' ' << line << '\n';
}

const objects::object_record* engine::queue_record(const std::string& name) const {
  return catalog.find(objects::object_family::queue, name);
}

local_queue* engine::queue_of(const std::string& name) {
  const objects::object_record* rec = queue_record(name);
  if (rec == nullptr || rec->type != objects::object_type::qlocal) return nullptr;
  local_queue& q = queues[name];
  if (q.generation == 0) q.generation = next_generation++;
  return &q;
}

local_queue* engine::queue_of(const handle_state& h) {
  local_queue* q = queue_of(h.local_queue);
  return q != nullptr && q->generation == h.generation ? q : nullptr;
}

bool engine::is_xmitq(const std::string& name) const { return attr_is(queue_record(name), "USAGE", "XMITQ"); }

std::int64_t engine::max_uncommitted() const { return catalog.qmgr().integer("MAXUMSGS").value_or(10000); }

mqi::hobj conn_state::next_hobj() {
  // 1..INT32_MAX and round again, skipping 0 (never a valid handle here) and handles still open; done in
  // unsigned arithmetic, so that the wrap is defined [D].
  for (;;) {
    const mqi::hobj h = next_handle < 1 ? 1 : next_handle;
    next_handle = static_cast<mqi::hobj>(static_cast<std::uint32_t>(h) % 0x7fffffffu + 1u);
    if (handles.count(h) == 0) return h;
  }
}

void engine::refresh_queue_files() {
  std::map<std::string, fs::path> files;
  for (const objects::object_record* rec : catalog.list(objects::object_family::queue)) {
    if (rec->type != objects::object_type::qlocal) continue;
    if (auto dir = store.object_path(catalog, objects::object_family::queue, rec->name))
      files[rec->name] = *dir / "q";
  }
  sync::lock_guard g(files_mu);
  queue_files = std::move(files);
}

void engine::refresh_after_catalog_change() {
  snap = catalog.snapshot();
  refresh_queue_files();
  changed();  // a waiting get looks again: its queue may be GET(DISABLED) or gone now
  for (auto it = queues.begin(); it != queues.end();) {
    const objects::object_record* rec = queue_record(it->first);
    if (rec == nullptr || rec->type != objects::object_type::qlocal)
      it = queues.erase(it);
    else
      ++it;
  }
}

bool engine::authorized(const principal& who, std::string_view objtype, const std::string& name,
                        std::string_view authority) const {
  if (who.administrator) return true;
  return rules::authorized(catalog.authrecs(), who.user, who.groups, objtype, name, authority);
}

mqi::message_token engine::new_token() {
  // Incarnation then counter, both big-endian: unique across restarts even if a counter were reused,
  // since every start has a new incarnation (recovery_log.hpp) [D].
  mqi::message_token t{};
  const std::uint64_t c = next_token++;
  for (int i = 0; i < 8; ++i) {
    t[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(incarnation >> (56 - 8 * i));
    t[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(c >> (56 - 8 * i));
  }
  return t;
}

rules::put_context engine::context_for(const principal& who, const objects::object_record* defaults) {
  rules::put_context ctx;
  ctx.qmgr_name = catalog.qmgr_name();
  ctx.user = who.user;
  ctx.appl_name = who.appl_name;
  ctx.queue_default_persistence =
      attr_is(defaults, "DEFPSIST", "YES") ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT;
  ctx.queue_default_priority =
      defaults != nullptr ? static_cast<std::int32_t>(defaults->integer("DEFPRTY").value_or(0)) : 0;
  ctx.now = now();
  ctx.msg_id_counter = ++msg_id_counter;
  ctx.incarnation = incarnation;
  return ctx;
}

stored_message engine::to_stored(const msg_entry& e) {
  stored_message s;
  s.token = e.token;
  s.put_time_ms = e.put_time_ms;
  s.backout_count = e.backout_count;
  mq::mqmd md = e.b->md;
  md.version = mq::MQMD_VERSION_2;
  mq::encode_mqmd(md, 0x111, 819, s.md);
  s.data = e.b->data;
  return s;
}

result<msg_key> engine::deliver(conn_state* uow, const std::string& queue, const mq::mqmd& md, bytes data,
                                log_batch& batch, const char* call) {
  const objects::object_record* rec = queue_record(queue);
  local_queue* q = queue_of(queue);
  if (q == nullptr) return mqi_error(call, mq::MQRC_UNKNOWN_OBJECT_NAME, "no local queue " + queue);
  if (attr_is(rec, "PUT", "DISABLED"))
    return mqi_error(call, mq::MQRC_PUT_INHIBITED, "queue " + queue + " is PUT(DISABLED)");
  const auto qm_max = catalog.qmgr().integer("MAXMSGL").value_or(4194304);
  if (static_cast<std::int64_t>(data.size()) > qm_max)
    return mqi_error(
        call, mq::MQRC_MSG_TOO_BIG_FOR_Q_MGR,
        std::to_string(data.size()) + " bytes > queue manager MAXMSGL " + std::to_string(qm_max));
  const auto q_max = rec->integer("MAXMSGL").value_or(4194304);
  if (static_cast<std::int64_t>(data.size()) > q_max)
    return mqi_error(
        call, mq::MQRC_MSG_TOO_BIG_FOR_Q,
        std::to_string(data.size()) + " bytes > MAXMSGL " + std::to_string(q_max) + " of " + queue);
  // MAXUMSGS counts every message the unit of work put or got (IBM's text for MQRC 2024 [C]).
  if (uow != nullptr && static_cast<std::int64_t>(uow->uow.size()) >= max_uncommitted())
    return mqi_error(call, mq::MQRC_SYNCPOINT_LIMIT_REACHED,
                     "the unit of work holds MAXUMSGS " + std::to_string(max_uncommitted()) + " messages");
  const auto depth = rec->integer("MAXDEPTH").value_or(5000);
  if (static_cast<std::int64_t>(q->messages.size()) >= depth)
    return mqi_error(call, mq::MQRC_Q_FULL, "queue " + queue + " holds MAXDEPTH " + std::to_string(depth));

  msg_entry e;
  e.b = std::make_shared<const body>(body{md, std::move(data)});
  e.token = new_token();
  e.persistent = md.persistence == mq::MQPER_PERSISTENT;
  e.put_time_ms = now_ms();
  // Invisible until its unit of work commits, or (outside syncpoint) until finish() settles the call's
  // batch: after the log made it durable, when it is persistent [D].
  e.uncommitted_put = true;
  // The engine orders by MQPRI 0..9 only, whatever MQMD.Priority says (rules clamp it already; a
  // priority above 9 is queued at 9 as IBM does) [I]. MSGDLVSQ(FIFO): arrival only, the priority kept in
  // the MQMD but not in the order (IBM's MSGDLVSQ [C: LOCALQ-DOC]).
  const msg_key key{attr_is(rec, "MSGDLVSQ", "FIFO") ? 0 : std::clamp(md.priority, 0, 9), next_seq++};
  if (uow != nullptr) {
    uow->uow.push_back(uow_op{true, queue, key});
  } else {
    e.committing = msg_entry::commit_state::put;
    if (e.persistent) batch.ops.push_back(log_op{log_op::kind::put, queue, to_stored(e)});
    batch.pending.push_back(uow_op{true, queue, key});
  }
  q->messages.emplace(key, std::move(e));
  return key;
}

void engine::send_report(conn_state* uow, const rules::outgoing& out, log_batch& batch) {
  ++counters.reports;
  const objects::resolution r = objects::resolve_for_output(snap, out.queue, out.qmgr);
  std::int32_t reason = r.mqrc;
  std::string detail;
  if (r.ok() && !r.model_queue) {
    result<msg_key> put = [&]() IMSB_REQUIRES(mu) -> result<msg_key> {
      if (!r.needs_xmit_header) return deliver(uow, r.local_queue, out.md, out.data, batch, "report");
      rules::put_context ctx = context_for(principal{}, nullptr);
      rules::outgoing x =
          rules::make_xmit(out.md, out.data, r.local_queue, r.resolved_q, r.resolved_qmgr, ctx);
      return deliver(uow, r.local_queue, x.md, std::move(x.data), batch, "report");
    }();
    if (put.ok()) return;
    reason = mq::reason_of(put.error().code);
    detail = put.error().detail;
  } else if (r.model_queue) {
    reason = mq::MQRC_OPTION_NOT_VALID_FOR_TYPE;
  }
  // The reply-to queue cannot take it: the dead-letter queue, MQDLH Reason = why [C: DLH-REASON].
  const std::string deadq = trimmed(snap.qmgr.deadq);
  std::int32_t dlq_reason = mq::MQRC_UNKNOWN_OBJECT_NAME;
  if (!deadq.empty()) {
    rules::put_context ctx = context_for(principal{}, nullptr);
    rules::outgoing d = rules::make_dead_letter(
        out.md, out.data, reason, out.queue, out.qmgr.empty() ? catalog.qmgr_name() : out.qmgr, deadq, ctx);
    result<msg_key> put = deliver(uow, deadq, d.md, std::move(d.data), batch, "report");
    if (put.ok()) {
      ++counters.dead_lettered;
      return;
    }
    dlq_reason = mq::reason_of(put.error().code);
  }
  log_error((std::string(imsb::msg::IMB1181E) + ": report message (Feedback ") +
            std::to_string(out.md.feedback) + ") to " + out.queue + " at " +
            (out.qmgr.empty() ? catalog.qmgr_name() : out.qmgr) +
            " discarded: " + mq::describe_reason(reason) + (detail.empty() ? "" : " (" + detail + ")") +
            "; dead-letter queue '" + deadq + "': " + mq::describe_reason(dlq_reason));
}

void engine::report(rules::report_kind kind, const msg_entry& e, conn_state* uow, log_batch& batch) {
  rules::put_context ctx = context_for(principal{trimmed(e.b->md.user_identifier), {}, false, ""}, nullptr);
  ctx.appl_name = catalog.qmgr_name();
  std::optional<rules::outgoing> out = rules::make_report(kind, e.b->md, e.b->data, 0, e.put_time_ms, ctx);
  if (out) send_report(uow, *out, batch);
}

void engine::settle_locked(log_batch& batch, bool durable) {
  // The queues where a message may now be taken: put and made visible, or got and given back.
  std::vector<engine::takeable_message> takeable;
  for (const uow_op& op : batch.pending) {
    auto qit = queues.find(op.queue);
    if (qit == queues.end()) continue;  // the queue was deleted meanwhile
    auto it = qit->second.messages.find(op.key);
    if (it == qit->second.messages.end()) continue;
    msg_entry& e = it->second;
    e.committing = msg_entry::commit_state::none;
    if (op.put && durable) {
      e.uncommitted_put = false;
    } else if (op.put) {
      qit->second.messages.erase(it);  // the put never happened
    } else if (durable) {
      qit->second.messages.erase(it);
    } else {
      // The get never happened: unlocked, BackoutCount as it was (not a backout) [D].
      e.locked_by = 0;
    }
    if (op.put == durable) takeable.push_back({&op.queue, op.key});
  }
  changed(takeable);
  batch.pending.clear();
}

void engine::changed(std::vector<takeable_message>& list) {
  if (list.empty()) return;
  ++change_mark;
  for (const takeable_message& t : list) {
    auto qit = queues.find(*t.queue);
    if (qit == queues.end()) continue;
    auto it = qit->second.messages.find(t.key);
    if (it == qit->second.messages.end() || !it->second.visible()) continue;  // taken or gone already
    for (auto [w, end] = waiters.equal_range(*t.queue); w != end; ++w)
      if (w->second->takes(it->second)) wake(*w->second);
    for (auto [w, end] = waiters.equal_range(std::string_view{}); w != end; ++w) wake(*w->second);
    auto [from, to] = signals.equal_range(*t.queue);
    post_signals(nullptr, from, to, mq::MQEC_MSG_ARRIVED);
  }
}

void engine::commit_locked(conn_state& c, log_batch& batch) {
  // Nothing changes for others here: the puts stay invisible and the got messages locked until
  // finish() has the batch durable (then settle_locked) [D].
  std::vector<msg_entry> cod;  // COD reports, in the same batch, pending like the rest
  for (const uow_op& op : c.uow) {
    auto qit = queues.find(op.queue);
    if (qit == queues.end()) continue;  // the queue was deleted (PURGE) meanwhile
    auto it = qit->second.messages.find(op.key);
    if (it == qit->second.messages.end()) continue;
    msg_entry& e = it->second;
    if (op.put) {
      e.committing = msg_entry::commit_state::put;
      if (e.persistent) batch.ops.push_back(log_op{log_op::kind::put, op.queue, to_stored(e)});
    } else {
      e.committing = msg_entry::commit_state::get;
      if (e.persistent) {
        log_op g{log_op::kind::get, op.queue, {}};
        g.message.token = e.token;
        batch.ops.push_back(std::move(g));
      }
      if ((e.b->md.report & mq::MQRO_COD) != 0 && !is_xmitq(op.queue)) cod.push_back(e);
    }
    batch.pending.push_back(op);
  }
  if (!c.uow.empty()) ++counters.commits;
  c.uow.clear();
  for (const msg_entry& e : cod) report(rules::report_kind::cod, e, nullptr, batch);
}

void engine::backout_locked(conn_state& c, log_batch& batch) {
  std::vector<engine::takeable_message> takeable;  // the messages got and given back
  for (auto op = c.uow.rbegin(); op != c.uow.rend(); ++op) {
    auto qit = queues.find(op->queue);
    if (qit == queues.end()) continue;
    auto it = qit->second.messages.find(op->key);
    if (it == qit->second.messages.end()) continue;
    if (op->put) {
      qit->second.messages.erase(it);
      continue;
    }
    msg_entry& e = it->second;
    e.locked_by = 0;
    ++e.backout_count;
    takeable.push_back({&op->queue, op->key});
    // Logged so that BackoutCount survives a restart [D].
    if (e.persistent) {
      log_op b{log_op::kind::backout_count, op->queue, {}};
      b.message.token = e.token;
      b.message.backout_count = e.backout_count;
      batch.ops.push_back(std::move(b));
    }
  }
  changed(takeable);  // (before the clear: the names are the unit of work's)
  if (!c.uow.empty()) ++counters.backouts;
  c.uow.clear();
}

void engine::close_handle_locked(conn_state& c, mqi::hobj h) {
  auto it = c.handles.find(h);
  if (it == c.handles.end()) return;
  auto qit = queues.find(it->second.local_queue);
  if (qit != queues.end() && qit->second.generation == it->second.generation) {
    if (it->second.input) --qit->second.open_input;
    if (it->second.exclusive) qit->second.exclusive = false;
    if ((it->second.options & mq::MQOO_OUTPUT) != 0) --qit->second.open_output;
  }
  // MQCLOSE withdraws the handle's signal without posting it (connection.hpp get_request::signal).
  if (auto sig = signal_of(c, h, it->second.local_queue); sig != signals.end()) signals.erase(sig);
  c.handles.erase(it);
}

void engine::break_locked(conn_state& c, log_batch& batch) {
  backout_locked(c, batch);
  while (!c.handles.empty()) close_handle_locked(c, c.handles.begin()->first);
  c.broken = true;
  changed(c);  // its waiting get or dispatcher, if any, ends
  conns.erase(c.id);
}

result<done> engine::finish(sync::unique_lock& lk, log_batch& batch, const char* call, bool last) {
  if (!batch.ops.empty() && !log) {
    // The queue manager has ended (its log is closed): nothing can be made durable, so the call fails
    // and changes nothing [D].
    settle_locked(batch, false);
    batch.ops.clear();
    lk.unlock(mu);
    return mqi_error(call, mq::MQRC_Q_MGR_STOPPING, "the queue manager has ended: its log is closed");
  }
  if (batch.ops.empty()) {
    // Non-persistent changes only: nothing to wait for.
    settle_locked(batch, true);
    maybe_checkpoint(lk);
    lk.unlock(mu);
    return std::monostate{};
  }
  // Appended under mu, so that the log's order is the order of the changes; waited for outside it.
  result<done> r = std::monostate{};
  const std::int32_t refused =
      detail::engine_log_hook ? detail::engine_log_hook(detail::log_hook_point::append) : 0;
  const std::uint64_t checkpoints_before = checkpoints_begun;
  if (refused != 0) {
    r = mqi_error(call, refused, "the recovery log refused the batch (test hook)");
  } else {
    const std::uint64_t seq = log->append(batch.ops);
    ++log_waiters;
    recovery_log* l = log.get();
    lk.unlock(mu);
    const auto logged = [l, seq, call]() -> result<done> {
      const std::int32_t failed =
          detail::engine_log_hook ? detail::engine_log_hook(detail::log_hook_point::wait) : 0;
      if (failed != 0) return mqi_error(call, failed, "the recovery log failed (test hook)");
      return l->wait_durable(seq);
    };
    if (detail::force_sink* sink = detail::thread_force_sink(); last && sink != nullptr && !sink->rest) {
      // The caller waits without a thread (blocking.hpp): the rest once the batch is durable. The engine
      // outlives it: the caller holds a connection, and the end waits for log_waiters.
      auto kept = std::make_shared<log_batch>(std::move(batch));
      batch = log_batch{};
      sink->log = l;
      sink->seq = seq;
      sink->rest = [this, kept, logged, call, checkpoints_before]() -> result<done> {
        result<done> outcome = logged();
        sync::unique_lock relock(mu);
        if (--log_waiters == 0) cv.notify_all();
        return settle_finished(relock, *kept, std::move(outcome), call, checkpoints_before);
      };
      return std::monostate{};
    }
    r = logged();
    lk.lock(mu);
    if (--log_waiters == 0) cv.notify_all();  // the end waits for none
  }
  return settle_finished(lk, batch, std::move(r), call, checkpoints_before);
}

result<done> engine::settle_finished(sync::unique_lock& lk, log_batch& batch, result<done> r,
                                     const char* call, std::uint64_t checkpoints_before) {
  batch.ops.clear();
  settle_locked(batch, r.ok());
  if (!r.ok()) {
    // A checkpoint begun since the append counted this batch as done: take another, so that the queue
    // files do not keep what was just undone [D].
    if (checkpoints_begun != checkpoints_before) checkpoint_again = true;
    lk.unlock(mu);
    log_error(std::string(imsb::msg::IMB1182E) + ": recovery log: " + r.error().to_string());
    decode_error e = r.error();
    e.field = call;
    return e;
  }
  maybe_checkpoint(lk);
  lk.unlock(mu);
  return std::monostate{};
}

bool engine::checkpoint_may_fit() const {
  // What the queue files would take (a little over the MQMD and the data of each persistent message)
  // against what the file system has free: a checkpoint writes each new queue file before anything is
  // deleted, so it cannot succeed with less [D].
  std::uint64_t need = 64 * 1024;
  for (const auto& [name, q] : queues)
    for (const auto& [k, e] : q.messages)
      if (e.persistent) need += 364 + 64 + e.b->data.size();
  std::error_code ec;
  const fs::space_info sp = fs::space(store.directory(), ec);
  return ec || need <= sp.available;
}

void engine::maybe_checkpoint(sync::unique_lock& lk) {
  if (!log || checkpoint_running || !(checkpoint_again || log->needs_checkpoint())) return;
  // After a checkpoint failed for space, another is tried only once it may fit (gets made the queues
  // smaller, or space was freed): each attempt starts a new extent, which costs space too [D].
  if (checkpoint_blocked && !checkpoint_may_fit()) {
    checkpoint_again = true;
    return;
  }
  checkpoint_running = true;
  checkpoint_again = false;
  ++checkpoints_begun;
  const std::uint64_t cp = log->begin_checkpoint(next_token);
  // Every local queue's persistent committed messages in arrival order (a message a unit of work got
  // under syncpoint is still committed), empty queues included so that their files empty too. A batch
  // appended and not settled yet is in extent N, which the checkpoint replaces: its puts count as
  // there and its gets as done (finish() asks for another checkpoint if it then fails) [D].
  // The snapshot shares the messages' immutable bodies (a pointer and three fields a message) and the
  // log's streaming write_checkpoint encodes them one at a time outside the mutex, so that a checkpoint
  // never holds a second copy of every persistent message (the soak in bench/RESULTS.md) [D].
  struct snap_msg {
    std::shared_ptr<const body> b;
    mqi::message_token token{};
    std::int64_t put_time_ms = 0;
    std::int32_t backout_count = 0;
  };
  auto snapshot = std::make_shared<std::vector<std::pair<std::string, std::vector<snap_msg>>>>();
  for (const objects::object_record* rec : catalog.list(objects::object_family::queue)) {
    if (rec->type != objects::object_type::qlocal) continue;
    snapshot->emplace_back(rec->name, std::vector<snap_msg>{});
    auto& out = snapshot->back().second;
    auto qit = queues.find(rec->name);
    if (qit == queues.end()) continue;
    std::map<std::uint64_t, const msg_entry*> by_seq;
    for (const auto& [k, e] : qit->second.messages)
      if (e.persistent && e.committing != msg_entry::commit_state::get &&
          (!e.uncommitted_put || e.committing == msg_entry::commit_state::put))
        by_seq.emplace(k.seq, &e);
    out.reserve(by_seq.size());
    for (const auto& [s, e] : by_seq)
      out.push_back(snap_msg{e->b, e->token, e->put_time_ms, e->backout_count});
  }
  std::vector<std::pair<std::string, recovery_log::message_source>> sources;
  sources.reserve(snapshot->size());
  for (auto& [qname, msgs] : *snapshot) {
    const std::vector<snap_msg>* list = &msgs;
    sources.emplace_back(qname, [snapshot, list, i = std::size_t{0}](stored_message& next) mutable {
      if (i == list->size()) return false;
      const snap_msg& m = (*list)[i++];
      next.token = m.token;
      next.put_time_ms = m.put_time_ms;
      next.backout_count = m.backout_count;
      mq::mqmd md = m.b->md;
      md.version = mq::MQMD_VERSION_2;
      next.md.clear();
      mq::encode_mqmd(md, 0x111, 819, next.md);
      next.data.assign(m.b->data.begin(), m.b->data.end());
      return true;
    });
  }
  ++log_waiters;
  recovery_log* l = log.get();
  lk.unlock(mu);
  result<done> r = l->write_checkpoint(cp, std::move(sources));
  if (!r.ok())
    log_error(std::string(imsb::msg::IMB1182E) + ": recovery log checkpoint: " + r.error().to_string());
  lk.lock(mu);
  --log_waiters;
  checkpoint_running = false;
  // A checkpoint that did not fit (2056) is tried again once it may (above): only a checkpoint frees
  // the extents of a full file system [D].
  checkpoint_blocked = !r.ok() && r.error().code == mq::make_mqrc(mq::MQRC_Q_SPACE_NOT_AVAILABLE);
  if (checkpoint_blocked) checkpoint_again = true;
  cv.notify_all();  // what waits for the checkpoint (DELETE, the end); no get or dispatcher does
}

}  // namespace engine_detail

// --- queue_manager -------------------------------------------------------------------------------

using engine_detail::engine;

struct queue_manager::impl {
  std::shared_ptr<engine> e;
};

queue_manager::queue_manager() : impl_(std::make_unique<impl>()) {}

result<std::unique_ptr<queue_manager>> queue_manager::start(queue_manager_store store, qmgr_lock lock,
                                                            runtime_options options) {
  result<objects::object_catalog> catalog = store.load();
  if (!catalog) return catalog.error();
  result<std::vector<std::string>> repaired = store.reconcile(*catalog);
  if (!repaired) return repaired.error();
  std::unique_ptr<queue_manager> qm(new queue_manager());
  auto e = std::make_shared<engine>(std::move(store), std::move(lock), std::move(options),
                                    std::move(catalog).value());
  qm->impl_->e = e;
  // Nothing else can reach the engine yet; mu is held for the analysis's sake (and costs nothing). It is
  // let go before qm, whose destructor takes it, on every way out.
  sync::lock_guard held(e->mu);
  e->refresh_queue_files();
  engine* raw = e.get();  // the engine outlives its log (the destructor ends the log first)
  recovery_log::queue_file_fn queue_file =
      [raw](const std::string& q) -> std::optional<std::filesystem::path> {
    sync::lock_guard g(raw->files_mu);
    auto it = raw->queue_files.find(q);
    if (it == raw->queue_files.end()) return std::nullopt;
    return it->second;
  };
  recovered_state recovered;
  result<std::unique_ptr<recovery_log>> log =
      recovery_log::open(e->store.directory(), queue_file, e->options.log, recovered);
  if (!log) return log.error();
  e->log = std::move(log).value();
  e->incarnation = recovered.incarnation;
  e->next_token = std::max<std::uint64_t>(recovered.next_token, 1);
  for (auto& [qname, msgs] : recovered.queues) {
    engine_detail::local_queue* q = e->queue_of(qname);
    if (q == nullptr) continue;
    for (stored_message& s : msgs) {
      result<mq::mqmd> md = mq::decode_mqmd(s.md, 0x111, 819);
      if (!md) {
        decode_error err = md.error();
        err.field = "queue " + qname + ": " + err.field;
        return err;
      }
      engine_detail::msg_entry m;
      m.persistent = true;
      m.token = s.token;
      m.put_time_ms = s.put_time_ms;
      m.backout_count = s.backout_count;
      const std::int32_t prio = engine_detail::attr_is(e->queue_record(qname), "MSGDLVSQ", "FIFO")
                                    ? 0
                                    : std::clamp(md->priority, 0, 9);
      m.b = std::make_shared<const engine_detail::body>(
          engine_detail::body{std::move(md).value(), std::move(s.data)});
      q->messages.emplace(engine_detail::msg_key{prio, e->next_seq++}, std::move(m));
    }
  }
  recovered.queues.clear();
  e->counters.recovery = std::move(recovered);
  return qm;
}

queue_manager::~queue_manager() {
  if (!impl_ || !impl_->e) return;
  engine& e = *impl_->e;
  {
    // Ended before the connections break, so that no new connection or call slips in between [D].
    sync::lock_guard g(e.mu);
    e.quiescing = true;
    e.ended = true;
    e.changed();
  }
  stop_connections();
  sync::unique_lock lk(e.mu);
  e.changed();
  // A connection thread may still be waiting for the log outside the mutex: let it finish first.
  while (e.log_waiters != 0) e.cv.wait(lk);
  std::unique_ptr<recovery_log> log = std::move(e.log);
  lk.unlock();
  log.reset();  // writes what is buffered
  sync::lock_guard g(e.mu);
  e.lock = qmgr_lock();
}

const std::string& queue_manager::name() const noexcept { return impl_->e->qmgr_name; }
const queue_manager_store& queue_manager::store() const noexcept { return impl_->e->store; }

result<std::unique_ptr<mqi::connection>> queue_manager::connect(const principal& who) {
  engine& e = *impl_->e;
  sync::unique_lock lk(e.mu);
  if (e.quiescing || e.ended)
    return engine_detail::mqi_error("MQCONN", mq::MQRC_Q_MGR_QUIESCING,
                                    "queue manager " + name() + " is ending");
  if (!e.authorized(who, "QMGR", e.catalog.qmgr_name(), "CONNECT")) {
    lk.unlock();
    e.log_error(std::string(imsb::msg::IMB1180E) + ": user " + who.user +
                " not authorized: CONNECT on queue manager " + name());
    return engine_detail::mqi_error("MQCONN", mq::MQRC_NOT_AUTHORIZED,
                                    "user " + who.user + " lacks CONNECT authority on " + name());
  }
  auto c = std::make_shared<engine_detail::conn_state>();
  c->id = e.next_conn++;
  c->next_handle = detail::engine_first_hobj;
  c->who = who;
  e.conns.emplace(c->id, c);
  return engine_detail::make_local_connection(impl_->e, std::move(c));
}

void queue_manager::quiesce() {
  engine& e = *impl_->e;
  sync::lock_guard g(e.mu);
  e.quiescing = true;
  e.changed();
}

void queue_manager::stop_connections() {
  engine& e = *impl_->e;
  sync::unique_lock lk(e.mu);
  engine_detail::log_batch batch;
  while (!e.conns.empty()) {
    std::shared_ptr<engine_detail::conn_state> c = e.conns.begin()->second;
    e.break_locked(*c, batch);
  }
  e.changed();
  (void)e.finish(lk, batch, "endmqm");
}

std::size_t queue_manager::connection_count() const {
  sync::lock_guard g(impl_->e->mu);
  return impl_->e->conns.size();
}

void queue_manager::set_runtime_command_handler(runtime_command_fn fn) {
  sync::lock_guard g(impl_->e->mu);
  impl_->e->runtime_handler = std::move(fn);
}

void queue_manager::log_error(const std::string& line) { impl_->e->log_error(line); }

queue_manager::stats queue_manager::statistics() const {
  engine& e = *impl_->e;
  sync::lock_guard g(e.mu);
  stats s = e.counters;
  s.waiting = e.waiters.size();
  if (e.log) s.log = e.log->statistics();
  return s;
}

}  // namespace imsb::qmgr
