// The in-process mqi::connection of the running queue manager (queue_manager.hpp, connection.hpp):
// MQOPEN, MQPUT, MQPUT1, MQGET, MQINQ, MQCMIT, MQBACK, MQCLOSE and MQDISC on the engine (engine.hpp).

#include <algorithm>
#include <utility>

#include "async_consume.hpp"
#include "blocking.hpp"
#include "engine.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/objects/resolution.hpp"

namespace imsb::qmgr::engine_detail {
namespace {

std::string hex32(std::int32_t v) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out(8, '0');
  auto u = static_cast<std::uint32_t>(v);
  for (int i = 7; i >= 0; --i, u >>= 4) out[static_cast<std::size_t>(i)] = digits[u & 0xf];
  return out;
}

bool matches(const msg_entry& e, const mqi::get_request& req) {
  if ((req.match_options & mq::MQMO_MATCH_MSG_TOKEN) != 0) return e.token == req.msg_token;
  if ((req.match_options & mq::MQMO_MATCH_MSG_ID) != 0 && req.msg_id != mq::MQMI_NONE &&
      e.b->md.msg_id != req.msg_id)
    return false;
  if ((req.match_options & mq::MQMO_MATCH_CORREL_ID) != 0 && req.correl_id != mq::MQCI_NONE &&
      e.b->md.correl_id != req.correl_id)
    return false;
  return true;
}

class local_connection final : public mqi::connection, public qmgr::detail::consume_backend {
 public:
  local_connection(std::shared_ptr<engine> e, std::shared_ptr<conn_state> c)
      : e_(std::move(e)), c_(std::move(c)) {}
  ~local_connection() override {
    consume_.halt();  // no callback runs from here on
    // A connection that ends without MQDISC backs its unit of work out (connection.hpp).
    sync::unique_lock lk(e_->mu);
    if (c_->broken || c_->disconnected) return;
    log_batch batch;
    e_->break_locked(*c_, batch);
    (void)e_->finish(lk, batch, "MQDISC");
  }

  const std::string& qmgr_name() const override { return e_->qmgr_name; }

  mqi::result<mqi::open_result> open(const mqi::object_descriptor& od, std::int32_t options) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQOPEN")) return *bad;
    result<mqi::hobj> h = open_locked(od, options, "MQOPEN");
    if (!h) return h.error();
    const handle_state& hs = c_->handles.at(*h);
    return mqi::open_result{*h, hs.resolved_q, hs.resolved_qmgr};
  }

  mqi::result<mqi::done> close(mqi::hobj handle) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQCLOSE")) return *bad;
    if (c_->handles.count(handle) == 0)
      return mqi_error("MQCLOSE", mq::MQRC_HOBJ_ERROR, "handle " + std::to_string(handle) + " is not open");
    e_->close_handle_locked(*c_, handle);
    lk.unlock();
    consume_.closed(handle);  // its consumer, if any, is deregistered
    return mqi::done{};
  }

  mqi::result<mqi::put_result> put(mqi::hobj handle, const mq::mqmd& md, bytes_view data,
                                   std::int32_t options) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQPUT")) return *bad;
    log_batch batch;
    auto pr = put_locked(handle, md, data, options, "MQPUT", batch);
    if (!pr) return pr;
    // Outside syncpoint the put (and its COA) becomes visible once durable; when the log fails, finish()
    // undoes it, so that the call that failed changed nothing (recovery_log.hpp) [D]. The force is the
    // call's last step.
    auto r = e_->finish(lk, batch, "MQPUT", true);
    if (!r) return r.error();
    return pr;
  }

  mqi::result<mqi::put_result> put1(const mqi::object_descriptor& od, const mq::mqmd& md, bytes_view data,
                                    std::int32_t options) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQPUT1")) return *bad;
    std::int32_t oo = mq::MQOO_OUTPUT;
    if ((options & mq::MQPMO_FAIL_IF_QUIESCING) != 0) oo |= mq::MQOO_FAIL_IF_QUIESCING;
    if ((options & mq::MQPMO_SET_ALL_CONTEXT) != 0) oo |= mq::MQOO_SET_ALL_CONTEXT;
    if ((options & mq::MQPMO_SET_IDENTITY_CONTEXT) != 0) oo |= mq::MQOO_SET_IDENTITY_CONTEXT;
    if ((options & mq::MQPMO_PASS_ALL_CONTEXT) != 0) oo |= mq::MQOO_PASS_ALL_CONTEXT;
    if ((options & mq::MQPMO_PASS_IDENTITY_CONTEXT) != 0) oo |= mq::MQOO_PASS_IDENTITY_CONTEXT;
    result<mqi::hobj> h = open_locked(od, oo, "MQPUT1");
    if (!h) return h.error();
    const mqi::hobj hv = *h;
    log_batch batch;
    auto pr = put_locked(hv, md, data, options, "MQPUT1", batch);
    if (!pr) {
      e_->close_handle_locked(*c_, hv);
      return pr;
    }
    // The handle is closed once the put is durable (or undone): until then it keeps the queue from being
    // deleted. The server installs no force_sink for MQPUT1 (blocking.hpp), so `last` changes nothing.
    auto r = e_->finish(lk, batch, "MQPUT1", true);
    lk.lock();
    if (!c_->broken) e_->close_handle_locked(*c_, hv);
    if (!r) return r.error();
    return pr;
  }

  mqi::result<mqi::message> get(mqi::hobj handle, const mqi::get_request& req) override {
    return get_impl(handle, req);
  }

  mqi::result<mqi::inquiry> inquire(mqi::hobj handle, const std::vector<std::int32_t>& selectors) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQINQ")) return *bad;
    auto it = c_->handles.find(handle);
    if (it == c_->handles.end())
      return mqi_error("MQINQ", mq::MQRC_HOBJ_ERROR, "handle " + std::to_string(handle) + " is not open");
    if ((it->second.options & mq::MQOO_INQUIRE) == 0)
      return mqi_error("MQINQ", mq::MQRC_NOT_OPEN_FOR_INQUIRE, "the object was not opened with MQOO_INQUIRE");
    if (it->second.qmgr_object)
      return engine_detail::inquire_attributes(e_->catalog.qmgr(), true, nullptr, selectors);
    auto rec = definition_of(it->second, "MQINQ");
    if (!rec) return rec.error();
    const local_queue* q =
        (*rec)->type == objects::object_type::qlocal ? e_->queue_of((*rec)->name) : nullptr;
    return engine_detail::inquire_attributes(**rec, false, q, selectors);
  }

  mqi::result<mqi::done> set(mqi::hobj handle, const std::vector<std::int32_t>& selectors,
                             const std::vector<std::int32_t>& int_attrs,
                             const std::vector<std::string>& char_attrs) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQSET")) return *bad;
    auto it = c_->handles.find(handle);
    if (it == c_->handles.end())
      return mqi_error("MQSET", mq::MQRC_HOBJ_ERROR, "handle " + std::to_string(handle) + " is not open");
    if ((it->second.options & mq::MQOO_SET) == 0)
      return mqi_error("MQSET", mq::MQRC_NOT_OPEN_FOR_SET, "the queue was not opened with MQOO_SET");
    auto rec = definition_of(it->second, "MQSET");  // an alias's GET/PUT are its own, as for MQINQ
    if (!rec) return rec.error();
    auto cmd = engine_detail::mqset_command(**rec, selectors, int_attrs, char_attrs);
    if (!cmd) return cmd.error();
    auto applied = e_->apply_catalog_command(*cmd, "MQSET");
    if (!applied) return applied.error();
    e_->changed();  // a get waiting on a queue that was GET(DISABLED) looks again
    return mqi::done{};
  }

  mqi::result<std::vector<mqi::object_attributes>> inquire_objects(const std::string& type,
                                                                   const std::string& generic) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQINQ")) return *bad;
    return e_->inquire_objects(*c_, type, generic);
  }

  mqi::result<mqi::mqsc_reply> mqsc(const std::string& script) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQSC")) return *bad;
    return e_->run_mqsc(lk, *c_, script);
  }

  mqi::result<mqi::done> commit() override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQCMIT")) return *bad;
    log_batch batch;
    e_->commit_locked(*c_, batch);
    auto r = e_->finish(lk, batch, "MQCMIT", true);
    if (!r) return r.error();
    return mqi::done{};
  }

  mqi::result<mqi::done> backout() override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQBACK")) return *bad;
    log_batch batch;
    e_->backout_locked(*c_, batch);
    auto r = e_->finish(lk, batch, "MQBACK", true);
    if (!r) return r.error();
    return mqi::done{};
  }

  mqi::result<mqi::done> begin() override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQBEGIN")) return *bad;
    if (!c_->uow.empty())
      return mqi_error("MQBEGIN", mq::MQRC_UOW_IN_PROGRESS, "the connection has a unit of work in progress");
    return mqi::result<mqi::done>::warning(
        mqi::done{}, mq::MQRC_NO_EXTERNAL_PARTICIPANTS,
        "no other resource manager takes part: the unit of work is the queue manager's alone");
  }

  mqi::result<mqi::status_report> stat(std::int32_t type) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQSTAT")) return *bad;
    if (type == mq::MQSTAT_TYPE_ASYNC_ERROR) return mqi::status_report{};
    if (type == mq::MQSTAT_TYPE_RECONNECTION || type == mq::MQSTAT_TYPE_RECONNECTION_ERROR)
      return mqi_error("MQSTAT", mq::MQRC_ENVIRONMENT_ERROR, "reconnection status is for client connections");
    return mqi_error("MQSTAT", mq::MQRC_STAT_TYPE_ERROR,
                     "Type " + std::to_string(type) + " is not MQSTAT_TYPE_*");
  }

  mqi::result<mqi::done> callback(std::int32_t operation, const mqi::callback_descriptor& cbd,
                                  mqi::hobj handle, const mqi::get_request& request) override {
    {
      sync::unique_lock lk(e_->mu);
      if (auto bad = check("MQCB")) return *bad;
    }
    return consume_.callback(operation, cbd, handle, request);
  }

  mqi::result<mqi::done> control(std::int32_t operation) override {
    {
      sync::unique_lock lk(e_->mu);
      if (auto bad = check("MQCTL", false, true)) return *bad;
    }
    return consume_.control(operation);
  }

  void stop() noexcept override {
    const sync::lock_guard lk(e_->mu);
    c_->stopped = true;
    e_->changed(*c_);  // the waiting get or dispatcher, if any, looks again and sees the stop
  }

  // consume_backend
  std::uint32_t wait_for_change(std::uint32_t mark, bool wait) override {
    sync::unique_lock lk(e_->mu);
    if (wait) {
      detail::blocking_region waiting;  // blocking.hpp
      engine::waiter w(*e_, c_.get(), std::string());
      while (e_->change_mark == mark && !c_->woken && !c_->stopped && !c_->broken && !c_->disconnected)
        w.cv.wait(lk);
      c_->woken = false;
    }
    return e_->change_mark;
  }
  void wake() noexcept override {
    const sync::lock_guard lk(e_->mu);
    c_->woken = true;
    e_->changed(*c_);
  }
  mqi::result<std::int32_t> open_options(mqi::hobj handle) override {
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQCB")) return *bad;
    auto it = c_->handles.find(handle);
    if (it == c_->handles.end())
      return mqi_error("MQCB", mq::MQRC_HOBJ_ERROR, "handle " + std::to_string(handle) + " is not open");
    return it->second.options;
  }
  mqi::result<mqi::message> consumer_get(mqi::hobj handle, const mqi::get_request& request) override {
    return get_impl(handle, request);
  }

  mqi::result<mqi::done> disconnect() override {
    if (auto bad = consume_.end_for_disconnect()) return *bad;
    sync::unique_lock lk(e_->mu);
    if (auto bad = check("MQDISC", true)) return *bad;
    log_batch batch;
    // MQDISC commits on distributed platforms [I]; after a stop it backs out, as the socket backends'
    // stop, which ends the connection, does (connection.hpp) [D].
    if (c_->stopped) {
      e_->backout_locked(*c_, batch);
    } else {
      e_->commit_locked(*c_, batch);
    }
    while (!c_->handles.empty()) e_->close_handle_locked(*c_, c_->handles.begin()->first);
    c_->disconnected = true;
    e_->changed(*c_);  // (a dispatcher of its own, if one still waits)
    e_->conns.erase(c_->id);
    auto r = e_->finish(lk, batch, "MQDISC");
    if (!r) return r.error();
    return mqi::done{};
  }

 private:
  // The definition a queue handle opened (an alias or remote definition answers for itself), else its
  // local queue; MQRC_Q_DELETED when the queue went since MQOPEN. mu held.
  result<const objects::object_record*> definition_of(const handle_state& h, const char* call) const
      IMSB_REQUIRES(e_->mu) {
    if (e_->queue_of(h) == nullptr)
      return mqi_error(call, mq::MQRC_Q_DELETED, "queue " + h.local_queue + " was deleted");
    const objects::object_record* rec = e_->queue_record(h.object_name);
    if (rec == nullptr) rec = e_->queue_record(h.local_queue);
    if (rec == nullptr) return mqi_error(call, mq::MQRC_Q_DELETED, "queue " + h.object_name + " deleted");
    return rec;
  }

  // mu held. `even_stopped`: MQDISC; `while_consuming`: MQCTL, which other threads may call while
  // consumption is started (every other call then fails with MQRC_HCONN_ASYNC_ACTIVE from them).
  std::optional<decode_error> check(const char* call, bool even_stopped = false,
                                    bool while_consuming = false) const IMSB_REQUIRES(e_->mu) {
    if (!while_consuming) {
      if (auto busy = consume_.refuse(call)) return busy;
    }
    if (c_->disconnected)
      return mqi_error(call, mq::MQRC_HCONN_ERROR, "the connection was disconnected (MQDISC)");
    if (c_->broken)
      return mqi_error(call, mq::MQRC_CONNECTION_BROKEN, "the queue manager ended the connection");
    if (c_->stopped && !even_stopped) return stopped_error(call);
    return std::nullopt;
  }
  static decode_error stopped_error(const char* call) {
    return mqi_error(call, mq::MQRC_CONNECTION_STOPPING, "the connection was stopped (connection::stop)");
  }

  result<mqi::hobj> open_locked(const mqi::object_descriptor& od, std::int32_t options, const char* call)
      IMSB_REQUIRES(e_->mu);
  result<mqi::hobj> open_qmgr_locked(const mqi::object_descriptor& od, std::int32_t options, const char* call)
      IMSB_REQUIRES(e_->mu);
  // MQPUT's checks and the put itself, its log records and pending changes in `batch` for the caller's
  // finish().
  mqi::result<mqi::put_result> put_locked(mqi::hobj handle, const mq::mqmd& md, bytes_view data,
                                          std::int32_t options, const char* call, log_batch& batch)
      IMSB_REQUIRES(e_->mu);

  mqi::result<mqi::message> get_impl(mqi::hobj handle, const mqi::get_request& req) IMSB_EXCLUDES(e_->mu);

  std::shared_ptr<engine> e_;
  std::shared_ptr<conn_state> c_;
  qmgr::detail::async_consume consume_{*this, *this};  // last: ends first
};

result<mqi::hobj> local_connection::open_locked(const mqi::object_descriptor& od, std::int32_t options,
                                                const char* call) {
  // The MQOO options imsbridge knows; any other bit is MQRC_OPTIONS_ERROR rather than silently ignored
  // [D]: access (INPUT_*, BROWSE, OUTPUT, INQUIRE, SET), context (PASS_*, SAVE_ALL, SET_*),
  // FAIL_IF_QUIESCING, and the hints that change nothing on a single queue manager without clusters or
  // clients' read-ahead: BIND_ON_OPEN / BIND_NOT_FIXED / BIND_ON_GROUP, RESOLVE_LOCAL_Q, NO_READ_AHEAD /
  // READ_AHEAD (IBM's values [C] cmqc.h). Not: ALTERNATE_USER_AUTHORITY, RESOLVE_NAMES, CO_OP, NO_MULTICAST.
  constexpr std::int32_t known_oo =
      mq::MQOO_INPUT_AS_Q_DEF | mq::MQOO_INPUT_SHARED | mq::MQOO_INPUT_EXCLUSIVE | mq::MQOO_BROWSE |
      mq::MQOO_OUTPUT | mq::MQOO_INQUIRE | mq::MQOO_SET | mq::MQOO_PASS_IDENTITY_CONTEXT |
      mq::MQOO_PASS_ALL_CONTEXT | mq::MQOO_SAVE_ALL_CONTEXT | mq::MQOO_SET_IDENTITY_CONTEXT |
      mq::MQOO_SET_ALL_CONTEXT | mq::MQOO_FAIL_IF_QUIESCING | 0x00004000 /* BIND_ON_OPEN */ |
      0x00008000 /* BIND_NOT_FIXED */ | 0x00400000 /* BIND_ON_GROUP */ | mq::MQOO_RESOLVE_LOCAL_Q |
      0x00080000 /* NO_READ_AHEAD */ | 0x00100000 /* READ_AHEAD */;
  if ((options & ~known_oo) != 0)
    return mqi_error(call, mq::MQRC_OPTIONS_ERROR,
                     "unsupported MQOO options X'" + hex32(options & ~known_oo) + "'");
  const std::int32_t input_bits =
      options & (mq::MQOO_INPUT_AS_Q_DEF | mq::MQOO_INPUT_SHARED | mq::MQOO_INPUT_EXCLUSIVE);
  if ((input_bits & (input_bits - 1)) != 0)
    return mqi_error(call, mq::MQRC_OPTIONS_ERROR, "more than one MQOO_INPUT_* option");
  const std::int32_t access =
      input_bits | mq::MQOO_BROWSE | mq::MQOO_OUTPUT | mq::MQOO_INQUIRE | mq::MQOO_SET;
  if ((options & access) == 0)
    return mqi_error(call, mq::MQRC_OPTIONS_ERROR, "none of MQOO_INPUT_*, BROWSE, OUTPUT, INQUIRE, SET");
  if (e_->quiescing && (options & mq::MQOO_FAIL_IF_QUIESCING) != 0)
    return mqi_error(call, mq::MQRC_Q_MGR_QUIESCING, "the queue manager is quiescing");
  if (od.object_type == mq::MQOT_Q_MGR) return open_qmgr_locked(od, options, call);
  if (od.object_type != mq::MQOT_Q)
    return mqi_error(call, mq::MQRC_OBJECT_TYPE_ERROR,
                     "object type " + std::to_string(od.object_type) +
                         ": imsbridge opens queues (MQOT_Q) and the queue manager (MQOT_Q_MGR)");
  const std::string name = trimmed(od.object_name);
  const std::string qmgr = trimmed(od.object_qmgr_name);
  const bool for_input = (options & (input_bits | mq::MQOO_BROWSE | mq::MQOO_SET)) != 0;
  const objects::resolution r = for_input ? objects::resolve_for_input(e_->snap, name, qmgr)
                                          : objects::resolve_for_output(e_->snap, name, qmgr);
  if (!r.ok()) return mqi_error(call, r.mqrc, "cannot open " + name + (qmgr.empty() ? "" : " at " + qmgr));
  // Dynamic queues from a model queue are not supported [D].
  if (r.model_queue)
    return mqi_error(call, mq::MQRC_OPTION_NOT_VALID_FOR_TYPE,
                     name + " is a model queue: dynamic queues are not supported by imsbridge");
  // Authority is checked on the object named when it is a queue definition here; when the object
  // queue manager is another one, on the definition the resolution goes through: the queue-manager
  // alias (QREMOTE named as the queue manager) if there is one, else the transmission queue — never a
  // local queue that happens to have the object's name [I] IBM's OAM ("a remote queue manager: the
  // check is on the transmission queue or queue-manager alias").
  const bool other_qmgr = !qmgr.empty() && qmgr != e_->catalog.qmgr_name();
  std::string auth_name = e_->queue_record(name) != nullptr ? name : r.local_queue;
  if (other_qmgr) {
    const objects::object_record* alias = e_->queue_record(qmgr);
    auth_name = alias != nullptr && alias->type == objects::object_type::qremote ? qmgr : r.local_queue;
  }
  const std::pair<std::int32_t, const char*> needs[] = {
      {input_bits, "GET"},
      {mq::MQOO_BROWSE, "BROWSE"},
      {mq::MQOO_OUTPUT, "PUT"},
      {mq::MQOO_INQUIRE, "INQ"},
      {mq::MQOO_SET, "SET"},
      {mq::MQOO_PASS_IDENTITY_CONTEXT, "PASSID"},
      {mq::MQOO_PASS_ALL_CONTEXT, "PASSALL"},
      {mq::MQOO_SET_IDENTITY_CONTEXT, "SETID"},
      {mq::MQOO_SET_ALL_CONTEXT, "SETALL"},
  };
  for (const auto& [bits, authority] : needs) {
    if ((options & bits) == 0) continue;
    if (e_->authorized(c_->who, "QUEUE", auth_name, authority)) continue;
    // SETALL includes SETID [I] IBM's OAM.
    if (std::string_view(authority) == "SETID" && e_->authorized(c_->who, "QUEUE", auth_name, "SETALL"))
      continue;
    // Likewise PASSALL includes PASSID [I] (MQOO_PASS_ALL_CONTEXT implies MQOO_PASS_IDENTITY_CONTEXT).
    if (std::string_view(authority) == "PASSID" && e_->authorized(c_->who, "QUEUE", auth_name, "PASSALL"))
      continue;
    e_->log_error(std::string(imsb::msg::IMB1180E) + ": user " + c_->who.user + " not authorized: " +
                  std::string(authority) + " on queue " + auth_name + " (" + call + ")");
    return mqi_error(call, mq::MQRC_NOT_AUTHORIZED,
                     "user " + c_->who.user + " lacks " + authority + " authority on queue " + auth_name);
  }
  local_queue* q = e_->queue_of(r.local_queue);
  if (q == nullptr) return mqi_error(call, mq::MQRC_UNKNOWN_OBJECT_NAME, "no local queue " + r.local_queue);
  handle_state hs;
  hs.object_name = name;
  hs.local_queue = r.local_queue;
  hs.resolved_q = r.resolved_q;
  hs.resolved_qmgr = r.resolved_qmgr;
  hs.generation = q->generation;
  hs.xmit = r.needs_xmit_header;
  hs.options = options;
  if (input_bits != 0) {
    const objects::object_record* lrec = e_->queue_record(r.local_queue);
    const bool exclusive = input_bits == mq::MQOO_INPUT_EXCLUSIVE ||
                           (input_bits == mq::MQOO_INPUT_AS_Q_DEF && attr_is(lrec, "DEFSOPT", "EXCL")) ||
                           attr_is(lrec, "SHARE", "NOSHARE");
    if (q->exclusive || (exclusive && q->open_input > 0))
      return mqi_error(
          call, mq::MQRC_OBJECT_IN_USE,
          "queue " + r.local_queue + (q->exclusive ? " is open for exclusive input" : " is open for input"));
    hs.input = true;
    hs.exclusive = exclusive;
    ++q->open_input;
    q->exclusive = exclusive;
  }
  if ((options & mq::MQOO_OUTPUT) != 0) ++q->open_output;
  const mqi::hobj h = c_->next_hobj();
  c_->handles.emplace(h, std::move(hs));
  return h;
}

// MQOPEN of the queue manager object, for MQINQ: MQOO_INQUIRE (and FAIL_IF_QUIESCING) only, else
// MQRC_OPTION_NOT_VALID_FOR_TYPE; ObjectName blank or this queue manager's name, else
// MQRC_UNKNOWN_OBJECT_NAME; INQ authority on the queue manager [C] the MQOPEN topic's MQOT_Q_MGR rules.
result<mqi::hobj> local_connection::open_qmgr_locked(const mqi::object_descriptor& od, std::int32_t options,
                                                     const char* call) {
  if ((options & ~(mq::MQOO_INQUIRE | mq::MQOO_FAIL_IF_QUIESCING)) != 0)
    return mqi_error(call, mq::MQRC_OPTION_NOT_VALID_FOR_TYPE,
                     "the queue manager object opens with MQOO_INQUIRE only");
  const std::string name = trimmed(od.object_name);
  const std::string& own = e_->catalog.qmgr_name();
  if (!name.empty() && name != own)
    return mqi_error(call, mq::MQRC_UNKNOWN_OBJECT_NAME, name + " is not this queue manager (" + own + ")");
  const std::string qmgr = trimmed(od.object_qmgr_name);
  if (!qmgr.empty() && qmgr != own)
    return mqi_error(call, mq::MQRC_UNKNOWN_OBJECT_Q_MGR,
                     "the queue manager object of " + qmgr + " cannot be opened from " + own);
  if (!e_->authorized(c_->who, "QMGR", own, "INQ")) {
    e_->log_error(std::string(imsb::msg::IMB1180E) + ": user " + c_->who.user +
                  " not authorized: INQ on queue manager " + own + " (" + call + ")");
    return mqi_error(call, mq::MQRC_NOT_AUTHORIZED,
                     "user " + c_->who.user + " lacks INQ authority on queue manager " + own);
  }
  handle_state hs;
  hs.object_name = own;
  hs.options = options;
  hs.qmgr_object = true;
  const mqi::hobj h = c_->next_hobj();
  c_->handles.emplace(h, std::move(hs));
  return h;
}

mqi::result<mqi::put_result> local_connection::put_locked(mqi::hobj handle, const mq::mqmd& md,
                                                          bytes_view data, std::int32_t options,
                                                          const char* call, log_batch& batch) {
  auto hit = c_->handles.find(handle);
  if (hit == c_->handles.end())
    return mqi_error(call, mq::MQRC_HOBJ_ERROR, "handle " + std::to_string(handle) + " is not open");
  const handle_state& h = hit->second;
  if ((h.options & mq::MQOO_OUTPUT) == 0)
    return mqi_error(call, mq::MQRC_NOT_OPEN_FOR_OUTPUT, "the queue was not opened with MQOO_OUTPUT");
  // The MQPMO options imsbridge knows; any other bit is MQRC_OPTIONS_ERROR [D]: SYNCPOINT,
  // NO_SYNCPOINT, the context options (DEFAULT, PASS_*, SET_*, NO_CONTEXT), NEW_MSG_ID, NEW_CORREL_ID,
  // FAIL_IF_QUIESCING, and SYNC_RESPONSE (0x20000: what every put here is). Not: ALTERNATE_USER_AUTHORITY,
  // LOGICAL_ORDER, ASYNC_RESPONSE, RESOLVE_LOCAL_Q, publish/subscribe options.
  constexpr std::int32_t known_pmo =
      mq::MQPMO_SYNCPOINT | mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_DEFAULT_CONTEXT | mq::MQPMO_NEW_MSG_ID |
      mq::MQPMO_NEW_CORREL_ID | mq::MQPMO_PASS_IDENTITY_CONTEXT | mq::MQPMO_PASS_ALL_CONTEXT |
      mq::MQPMO_SET_IDENTITY_CONTEXT | mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_FAIL_IF_QUIESCING |
      mq::MQPMO_NO_CONTEXT | 0x00020000 /* SYNC_RESPONSE */;
  if ((options & ~known_pmo) != 0)
    return mqi_error(call, mq::MQRC_OPTIONS_ERROR,
                     "unsupported MQPMO options X'" + hex32(options & ~known_pmo) + "'");
  if ((options & mq::MQPMO_SYNCPOINT) != 0 && (options & mq::MQPMO_NO_SYNCPOINT) != 0)
    return mqi_error(call, mq::MQRC_OPTIONS_ERROR, "MQPMO_SYNCPOINT with MQPMO_NO_SYNCPOINT");
  if ((e_->quiescing || e_->ended) && (options & mq::MQPMO_FAIL_IF_QUIESCING) != 0)
    return mqi_error(call, mq::MQRC_Q_MGR_QUIESCING, "the queue manager is quiescing");
  // A context option needs the open option that allows it (or one that implies it: SET_ALL implies
  // every other, PASS_ALL and SET_IDENTITY imply PASS_IDENTITY), else IBM's MQRC_NOT_OPEN_FOR_PASS_ALL /
  // PASS_IDENT / SET_ALL / SET_IDENT (2093..2096) [C] IBM's reason-code texts. Without it anyone with
  // PUT could forge UserIdentifier by "passing" it.
  struct context_need {
    std::int32_t pmo, oo, rc;
    const char* what;
  };
  const context_need context_needs[] = {
      {mq::MQPMO_SET_ALL_CONTEXT, mq::MQOO_SET_ALL_CONTEXT, mq::MQRC_NOT_OPEN_FOR_SET_ALL,
       "MQPMO_SET_ALL_CONTEXT needs MQOO_SET_ALL_CONTEXT"},
      {mq::MQPMO_SET_IDENTITY_CONTEXT, mq::MQOO_SET_IDENTITY_CONTEXT | mq::MQOO_SET_ALL_CONTEXT,
       mq::MQRC_NOT_OPEN_FOR_SET_IDENT, "MQPMO_SET_IDENTITY_CONTEXT needs MQOO_SET_IDENTITY_CONTEXT"},
      {mq::MQPMO_PASS_ALL_CONTEXT, mq::MQOO_PASS_ALL_CONTEXT | mq::MQOO_SET_ALL_CONTEXT,
       mq::MQRC_NOT_OPEN_FOR_PASS_ALL, "MQPMO_PASS_ALL_CONTEXT needs MQOO_PASS_ALL_CONTEXT"},
      {mq::MQPMO_PASS_IDENTITY_CONTEXT,
       mq::MQOO_PASS_IDENTITY_CONTEXT | mq::MQOO_PASS_ALL_CONTEXT | mq::MQOO_SET_IDENTITY_CONTEXT |
           mq::MQOO_SET_ALL_CONTEXT,
       mq::MQRC_NOT_OPEN_FOR_PASS_IDENT, "MQPMO_PASS_IDENTITY_CONTEXT needs MQOO_PASS_IDENTITY_CONTEXT"},
  };
  for (const context_need& n : context_needs)
    if ((options & n.pmo) != 0 && (h.options & n.oo) == 0) return mqi_error(call, n.rc, n.what);
  const objects::object_record* opened = e_->queue_record(h.object_name);
  const objects::object_record* target = e_->queue_record(h.local_queue);
  if (target == nullptr || e_->queue_of(h) == nullptr)
    return mqi_error(call, mq::MQRC_Q_DELETED, "queue " + h.local_queue + " was deleted");
  // An alias or remote definition that is PUT(DISABLED) inhibits too [I: DISPLAY-QUEUE].
  if (attr_is(opened, "PUT", "DISABLED"))
    return mqi_error(call, mq::MQRC_PUT_INHIBITED, "queue " + h.object_name + " is PUT(DISABLED)");
  rules::put_context ctx = e_->context_for(c_->who, opened != nullptr ? opened : target);
  ctx.may_set_identity = (h.options & (mq::MQOO_SET_IDENTITY_CONTEXT | mq::MQOO_SET_ALL_CONTEXT)) != 0;
  ctx.may_set_all = (h.options & mq::MQOO_SET_ALL_CONTEXT) != 0;
  result<mq::mqmd> prepared = rules::prepare_put(md, options, ctx);
  if (!prepared) {
    decode_error err = prepared.error();
    err.field = call + std::string(": ") + err.field;
    return err;
  }
  mq::mqmd out = std::move(prepared).value();
  if (auto ok = rules::check_put_headers(out, data); !ok) {
    decode_error err = ok.error();
    err.field = call + std::string(": ") + err.field;
    return err;
  }
  // Reply-to queue alias and the local queue manager's name when ReplyToQMgr is blank
  // [C: QREMOTE-USES, REPLYALIAS-WMB].
  std::string rq = trimmed(out.reply_to_q), rqm = trimmed(out.reply_to_q_mgr);
  if (!rq.empty()) {
    objects::apply_reply_to_alias(e_->snap, rq, rqm);
    if (rqm.empty()) rqm = e_->catalog.qmgr_name();
    out.reply_to_q = pad(rq, mq::MQ_Q_NAME_LENGTH);
    out.reply_to_q_mgr = pad(rqm, mq::MQ_Q_MGR_NAME_LENGTH);
  }
  const bool syncpoint = (options & mq::MQPMO_SYNCPOINT) != 0;
  conn_state* uow = syncpoint ? c_.get() : nullptr;
  result<msg_key> key = [&]() IMSB_REQUIRES(e_->mu) -> result<msg_key> {
    if (!h.xmit) return e_->deliver(uow, h.local_queue, out, data.to_bytes(), batch, call);
    rules::outgoing x = rules::make_xmit(out, data, h.local_queue, h.resolved_q, h.resolved_qmgr, ctx);
    return e_->deliver(uow, h.local_queue, x.md, std::move(x.data), batch, call);
  }();
  if (!key) return key.error();
  ++e_->counters.puts;
  if (!h.xmit && !e_->is_xmitq(h.local_queue) && (out.report & mq::MQRO_COA) != 0) {
    // COA when the message reaches its local queue, in the put's unit of work [C: JAVA-MQRO].
    // Not on a transmission queue (put there directly): COA is for the destination queue [I].
    const msg_entry& ent = e_->queues[h.local_queue].messages.at(*key);
    e_->report(rules::report_kind::coa, ent, uow, batch);
  }
  return mqi::put_result{out, h.resolved_q, h.resolved_qmgr};
}

mqi::result<mqi::message> local_connection::get_impl(mqi::hobj handle, const mqi::get_request& req) {
  sync::unique_lock lk(e_->mu);
  if (auto bad = check("MQGET")) return *bad;
  auto hit = c_->handles.find(handle);
  if (hit == c_->handles.end())
    return mqi_error("MQGET", mq::MQRC_HOBJ_ERROR, "handle " + std::to_string(handle) + " is not open");
  // The MQGMO options imsbridge knows; any other bit is MQRC_OPTIONS_ERROR [D]: WAIT, SYNCPOINT,
  // NO_SYNCPOINT, SYNCPOINT_IF_PERSISTENT, BROWSE_FIRST / NEXT / MSG_UNDER_CURSOR, MSG_UNDER_CURSOR,
  // ACCEPT_TRUNCATED_MSG, FAIL_IF_QUIESCING, CONVERT (accepted: the data is returned as put, the
  // getter's MQMD says its CCSID and encoding), and the message-property options (NO_PROPERTIES,
  // PROPERTIES_IN_HANDLE / FORCE_MQRFH2 / COMPATIBILITY: no message here has properties). LOCK is
  // refused below; not supported: SET_SIGNAL, MARK_SKIP_BACKOUT, UNLOCK, LOGICAL_ORDER, COMPLETE_MSG,
  // ALL_MSGS_AVAILABLE, ALL_SEGMENTS_AVAILABLE, the MARK/UNMARK browse options (IBM's values [C] cmqc.h).
  constexpr std::int32_t known_gmo =
      mq::MQGMO_WAIT | mq::MQGMO_SYNCPOINT | mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_SYNCPOINT_IF_PERSISTENT |
      mq::MQGMO_BROWSE_FIRST | mq::MQGMO_BROWSE_NEXT | mq::MQGMO_BROWSE_MSG_UNDER_CURSOR |
      mq::MQGMO_MSG_UNDER_CURSOR | mq::MQGMO_ACCEPT_TRUNCATED_MSG | mq::MQGMO_FAIL_IF_QUIESCING |
      mq::MQGMO_CONVERT | mq::MQGMO_LOCK | mq::MQGMO_SET_SIGNAL | 0x02000000 /* PROPERTIES_IN_HANDLE */ |
      0x04000000 /* NO_PROPERTIES */ | 0x08000000 /* PROPERTIES_FORCE_MQRFH2 */ |
      0x10000000 /* PROPERTIES_COMPATIBILITY */;
  if ((req.options & ~known_gmo) != 0)
    return mqi_error("MQGET", mq::MQRC_OPTIONS_ERROR,
                     "unsupported MQGMO options X'" + hex32(req.options & ~known_gmo) + "'");
  // At most one of the positioning options [C] IBM's MQGMO Options.
  const std::int32_t position =
      req.options & (mq::MQGMO_BROWSE_FIRST | mq::MQGMO_BROWSE_NEXT | mq::MQGMO_BROWSE_MSG_UNDER_CURSOR |
                     mq::MQGMO_MSG_UNDER_CURSOR);
  if ((position & (position - 1)) != 0)
    return mqi_error("MQGET", mq::MQRC_OPTIONS_ERROR,
                     "more than one of BROWSE_FIRST, BROWSE_NEXT, BROWSE_MSG_UNDER_CURSOR, MSG_UNDER_CURSOR");
  const std::int32_t sync_bits =
      req.options & (mq::MQGMO_SYNCPOINT | mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_SYNCPOINT_IF_PERSISTENT);
  if ((sync_bits & (sync_bits - 1)) != 0)
    return mqi_error("MQGET", mq::MQRC_OPTIONS_ERROR,
                     "more than one of MQGMO_SYNCPOINT, NO_SYNCPOINT, SYNCPOINT_IF_PERSISTENT");
  const bool browse_cursor = (req.options & mq::MQGMO_BROWSE_MSG_UNDER_CURSOR) != 0;
  const bool browse = browse_cursor || (req.options & (mq::MQGMO_BROWSE_FIRST | mq::MQGMO_BROWSE_NEXT)) != 0;
  if (browse && (hit->second.options & mq::MQOO_BROWSE) == 0)
    return mqi_error("MQGET", mq::MQRC_NOT_OPEN_FOR_BROWSE, "the queue was not opened with MQOO_BROWSE");
  if (!browse && !hit->second.input)
    return mqi_error("MQGET", mq::MQRC_NOT_OPEN_FOR_INPUT, "the queue was not opened for input");
  // MQGMO_SET_SIGNAL (connection.hpp get_request::signal): not with a wait; one signal per handle, which
  // a wait may not overlap either [C] IBM's MQRC_SIGNAL_OUTSTANDING; only MQWI_UNLIMITED [D].
  const bool set_signal = (req.options & mq::MQGMO_SET_SIGNAL) != 0;
  if (set_signal && (req.options & mq::MQGMO_WAIT) != 0)
    return mqi_error("MQGET", mq::MQRC_OPTIONS_ERROR, "MQGMO_SET_SIGNAL with MQGMO_WAIT");
  if (set_signal && !req.signal)
    return mqi_error("MQGET", mq::MQRC_SIGNAL1_ERROR, "MQGMO_SET_SIGNAL without a signal to post");
  if (set_signal && req.wait_interval_ms != mq::MQWI_UNLIMITED)
    return mqi_error("MQGET", mq::MQRC_WAIT_INTERVAL_ERROR,
                     "a signal's WaitInterval must be MQWI_UNLIMITED here (no expiry is posted)");
  if ((set_signal || (req.options & mq::MQGMO_WAIT) != 0) &&
      e_->signal_of(*c_, handle, hit->second.local_queue) != e_->signals.end())
    return mqi_error("MQGET", mq::MQRC_SIGNAL_OUTSTANDING, "a signal is outstanding for this handle");
  // MQGMO_LOCK (a browse lock) is not supported [D]: say so rather than ignore it.
  if ((req.options & mq::MQGMO_LOCK) != 0)
    return mqi_error("MQGET", mq::MQRC_OPTIONS_ERROR, "MQGMO_LOCK is not supported by imsbridge");
  // MQGMO_MSG_UNDER_CURSOR (destructive) and MQGMO_BROWSE_MSG_UNDER_CURSOR (browse again): the message
  // the last browse returned, whatever the match options.
  const bool under_cursor = browse_cursor || (req.options & mq::MQGMO_MSG_UNDER_CURSOR) != 0;
  if (under_cursor && !hit->second.browse_seq)
    return mqi_error("MQGET", mq::MQRC_NO_MSG_UNDER_CURSOR, "no browse has positioned the cursor");
  if ((e_->quiescing || e_->ended) && (req.options & mq::MQGMO_FAIL_IF_QUIESCING) != 0)
    return mqi_error("MQGET", mq::MQRC_Q_MGR_QUIESCING, "the queue manager is quiescing");
  // SYNCPOINT_IF_PERSISTENT: under syncpoint when the message found is persistent (decided below).
  const bool syncpoint_always = !browse && (req.options & mq::MQGMO_SYNCPOINT) != 0;
  const bool syncpoint_if_persistent = !browse && (req.options & mq::MQGMO_SYNCPOINT_IF_PERSISTENT) != 0;
  const bool wait = (req.options & mq::MQGMO_WAIT) != 0;
  const bool unlimited = wait && req.wait_interval_ms == mq::MQWI_UNLIMITED;
  // Waits are measured on the steady clock whatever options.clock says (expiry uses options.clock).
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(wait && !unlimited ? std::max(0, req.wait_interval_ms) : 0);
  log_batch batch;
  bool waited = false;  // for counters.get_waits
  for (;;) {
    if ((c_->broken || c_->stopped) && waited) ++e_->counters.get_waits.stopped;
    if (c_->broken)
      return mqi_error("MQGET", mq::MQRC_CONNECTION_BROKEN, "the queue manager ended the connection");
    if (c_->stopped) return stopped_error("MQGET");
    handle_state& h = c_->handles.at(handle);
    local_queue* q = e_->queue_of(h);
    if (q == nullptr)
      return mqi_error("MQGET", mq::MQRC_Q_DELETED, "queue " + h.local_queue + " was deleted");
    // Browse too: IBM MQ refuses every MQGET, browse included, with 2016 while the queue is GET(DISABLED).
    if (attr_is(e_->queue_record(h.local_queue), "GET", "DISABLED") ||
        attr_is(e_->queue_record(h.object_name), "GET", "DISABLED"))
      return mqi_error("MQGET", mq::MQRC_GET_INHIBITED, "queue " + h.object_name + " is GET(DISABLED)");
    // One pass: expired messages met are removed (their own batch, an EXPIRATION report each).
    const std::int64_t now = e_->now_ms();
    std::vector<msg_key> expired;
    std::optional<msg_key> found;
    const bool from_cursor = browse && (req.options & mq::MQGMO_BROWSE_NEXT) != 0 && h.browse_seq.has_value();
    for (const auto& [k, m] : q->messages) {
      if (!m.visible()) continue;
      if (rules::expired(m.b->md.expiry, m.put_time_ms, now)) {
        expired.push_back(k);
        continue;
      }
      if (under_cursor) {
        if (k.seq != *h.browse_seq) continue;
        found = k;
        break;
      }
      if (!matches(m, req)) continue;
      if (browse) {
        // Browse cursors go by arrival [D].
        if (from_cursor && k.seq <= *h.browse_seq) continue;
        if (!found || k.seq < found->seq) found = k;
      } else {
        found = k;  // the first in queue order; expired messages after it wait until a get meets them
        break;
      }
    }
    // Removed like a get outside syncpoint: locked until the removal is durable (finish()).
    for (const msg_key& k : expired) {
      msg_entry& m = q->messages.at(k);
      m.locked_by = c_->id;
      m.committing = msg_entry::commit_state::get;
      batch.pending.push_back(uow_op{false, h.local_queue, k});
      ++e_->counters.expired;
      if (m.persistent) {
        log_op g{log_op::kind::get, h.local_queue, {}};
        g.message.token = m.token;
        batch.ops.push_back(std::move(g));
      }
      e_->report(rules::report_kind::expiration, m, nullptr, batch);
      q = e_->queue_of(h);  // a report may have gone to this very queue
    }
    if (found) {
      auto it = q->messages.find(*found);
      msg_entry& m = it->second;
      const std::size_t len = m.b->data.size();
      if (req.max_length && len > *req.max_length && (req.options & mq::MQGMO_ACCEPT_TRUNCATED_MSG) == 0) {
        (void)e_->finish(lk, batch, "MQGET");
        return mqi_error(
            "MQGET", mq::MQRC_TRUNCATED_MSG_FAILED,
            "message of " + std::to_string(len) + " bytes, buffer " + std::to_string(*req.max_length));
      }
      mqi::message out;
      out.md = m.b->md;
      out.md.version = mq::MQMD_VERSION_2;
      out.md.backout_count = m.backout_count;
      out.md.expiry = rules::remaining(m.b->md.expiry, m.put_time_ms, now);
      out.data_length = len;
      out.data.assign(m.b->data.begin(),
                      m.b->data.begin() +
                          static_cast<std::ptrdiff_t>(req.max_length ? std::min(len, *req.max_length) : len));
      out.token = m.token;
      const bool syncpoint = syncpoint_always || (syncpoint_if_persistent && m.persistent);
      const std::int64_t maxumsgs = e_->max_uncommitted();
      if (!browse && syncpoint && static_cast<std::int64_t>(c_->uow.size()) >= maxumsgs) {
        (void)e_->finish(lk, batch, "MQGET");  // (the catalog may not be read after this: mu is let go)
        return mqi_error("MQGET", mq::MQRC_SYNCPOINT_LIMIT_REACHED,
                         "the unit of work holds MAXUMSGS " + std::to_string(maxumsgs) + " messages");
      }
      if (browse) {
        h.browse_seq = found->seq;
      } else {
        ++e_->counters.gets;
        if (syncpoint) {
          m.locked_by = c_->id;
          c_->uow.push_back(uow_op{false, h.local_queue, *found});
        } else {
          // Removed only once the get is durable; when the log fails the message stays (finish()) [D].
          m.locked_by = c_->id;
          m.committing = msg_entry::commit_state::get;
          batch.pending.push_back(uow_op{false, h.local_queue, *found});
          if (m.persistent) {
            log_op g{log_op::kind::get, h.local_queue, {}};
            g.message.token = m.token;
            batch.ops.push_back(std::move(g));
          }
          // No COD from a transmission queue: COD is the receiving application's get at the destination
          // [C: JAVA-MQRO], not a channel's [I].
          if ((m.b->md.report & mq::MQRO_COD) != 0 && !e_->is_xmitq(h.local_queue))
            e_->report(rules::report_kind::cod, m, nullptr, batch);
        }
      }
      if (waited) ++e_->counters.get_waits.message;
      auto r = e_->finish(lk, batch, "MQGET", true);
      if (!r) return r.error();
      if (out.data.size() < len) {
        std::string why =
            "message of " + std::to_string(len) + " bytes, buffer " + std::to_string(out.data.size());
        return mqi::result<mqi::message>::warning(std::move(out), mq::MQRC_TRUNCATED_MSG_ACCEPTED,
                                                  std::move(why));
      }
      return out;
    }
    if (!batch.empty()) {
      // Expired messages removed: make that durable before waiting on.
      auto r = e_->finish(lk, batch, "MQGET");
      lk.lock();
      if (!r) return r.error();
      continue;
    }
    if (under_cursor)
      return mqi_error("MQGET", mq::MQRC_NO_MSG_UNDER_CURSOR, "the message under the browse cursor is gone");
    if (wait && (e_->quiescing || e_->ended))
      return mqi_error("MQGET", mq::MQRC_Q_MGR_QUIESCING, "the queue manager is quiescing");
    if (set_signal) {
      e_->signals.emplace(h.local_queue, engine::armed_signal{c_.get(), handle, req.signal});
      return mqi::result<mqi::message>::warning(mqi::message{}, mq::MQRC_SIGNAL_REQUEST_ACCEPTED,
                                                "no message on " + h.local_queue + " now: a signal is set");
    }
    if (!wait || (!unlimited && std::chrono::steady_clock::now() >= deadline)) {
      if (waited) ++e_->counters.get_waits.timeout;
      return mqi_error("MQGET", mq::MQRC_NO_MSG_AVAILABLE, "no message on " + h.local_queue);
    }
    waited = true;
    detail::blocking_region waiting;  // blocking.hpp
    // Woken by a message it could take on its queue, its connection, or what concerns everyone.
    const auto takes = [&req](const msg_entry& m) { return matches(m, req); };
    engine::waiter w(*e_, c_.get(), h.local_queue, takes);
    if (unlimited)
      w.cv.wait(lk);
    else
      w.cv.wait_until(lk, deadline);
  }
}

}  // namespace

std::unique_ptr<mqi::connection> make_local_connection(std::shared_ptr<engine> e,
                                                       std::shared_ptr<conn_state> c) {
  return std::make_unique<local_connection>(std::move(e), std::move(c));
}

}  // namespace imsb::qmgr::engine_detail
