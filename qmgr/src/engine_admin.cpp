// The running queue manager's administration (queue_manager.hpp): MQSC through a connection and
// DISPLAY-like inquiries. The catalog is the engine's, under its mutex; each change is saved by the
// store at once, so that runmqsc against a running queue manager has one writer [D].

#include <ctime>
#include <utility>

#include "engine.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mqsc/lexer.hpp"
#include "imsb/mqsc/parser.hpp"
#include "imsb/objects/mqsc_exec.hpp"

namespace imsb::qmgr::engine_detail {
namespace {

// runmqsc's echo: the command number right-aligned in 6 columns, " : ", the text (as mqsc_exec.cpp).
void echo(std::size_t number, std::string_view text, std::vector<std::string>& lines) {
  bool first = true;
  for (std::size_t start = 0;;) {
    const std::size_t nl = text.find('\n', start);
    const std::string_view part =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    const std::string n = first ? std::to_string(number) : std::string();
    std::string l(n.size() < 6 ? 6 - n.size() : 0, ' ');
    l.append(n).append(" : ").append(part);
    lines.push_back(std::move(l));
    first = false;
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

std::string label(const mqsc::command& cmd) {
  std::string l = cmd.verb + " " + cmd.object_type;
  if (cmd.name) l += "(" + cmd.name->text + ")";
  return l;
}

std::string count_text(std::size_t n, std::string_view one, std::string_view many, std::string_view none) {
  if (n == 0) return std::string(none);
  if (n == 1) return std::string(one);
  return std::to_string(n) + std::string(many);
}

}  // namespace

result<std::vector<mqi::object_attributes>> engine::inquire_objects(const conn_state& c,
                                                                    const std::string& type,
                                                                    const std::string& generic) {
  std::vector<mqi::object_attributes> out;
  auto add = [&](const objects::object_record& rec, std::string_view objtype) IMSB_REQUIRES(mu) {
    if (!objects::matches_generic(generic, rec.name)) return;
    if (!authorized(c.who, objtype, rec.name, "INQ")) return;  // listed only with INQ authority
    mqi::object_attributes a;
    a.type = std::string(objects::to_mqsc_word(rec.type));
    a.name = rec.name;
    for (const auto& [k, v] : rec.attrs) a.attributes.emplace(k, v);
    if (rec.type == objects::object_type::qlocal) {
      auto it = queues.find(rec.name);
      a.attributes["CURDEPTH"] = std::to_string(it == queues.end() ? 0 : it->second.messages.size());
    }
    out.push_back(std::move(a));
  };
  if (type == "QMGR") {
    add(catalog.qmgr(), "QMGR");
    return out;
  }
  const bool all_queues = type == "QUEUE";
  const std::optional<objects::object_type> t = objects::object_type_from_mqsc(type);
  if (!all_queues && !t)
    return mqi_error("MQINQ", mq::MQRC_OPTION_NOT_VALID_FOR_TYPE, "unknown object type " + type);
  const objects::object_family family = all_queues ? objects::object_family::queue : objects::family_of(*t);
  const std::string objtype = family == objects::object_family::queue ? "QUEUE" : type;
  for (const objects::object_record* rec : catalog.list(family))
    if (all_queues || rec->type == *t) add(*rec, objtype);
  return out;
}

objects::exec_context engine::exec_now() const {
  const std::time_t tt = std::chrono::system_clock::to_time_t(now());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char date[16], time[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  std::strftime(time, sizeof time, "%H.%M.%S", &tm);
  return objects::exec_context{date, time, true};
}

result<mqi::mqsc_reply> engine::run_mqsc(sync::unique_lock& lk, const conn_state& c,
                                         const std::string& script) {
  if (!authorized(c.who, "QMGR", catalog.qmgr_name(), "CTRL")) {
    log_error(std::string(imsb::msg::IMB1180E) + ": user " + c.who.user +
              " not authorized: CTRL on queue manager " + catalog.qmgr_name() + " (MQSC)");
    return mqi_error("MQSC", mq::MQRC_NOT_AUTHORIZED,
                     "user " + c.who.user + " is not an administrator of " + catalog.qmgr_name());
  }
  objects::exec_context ctx = exec_now();
  // DISPLAY QLOCAL/QUEUE's CURDEPTH, IPPROCS, OPPROCS: execute() runs under `mu`, as DISPLAY QSTATUS does.
  // (Called only inside execute() below, under mu: through a std::function, which the analysis does not
  // follow.)
  ctx.local_queue_status = [this](const std::string& q)
                               IMSB_REQUIRES(mu) -> std::optional<objects::exec_context::queue_status> {
    const local_queue* lq = queue_of(q);
    if (lq == nullptr) return std::nullopt;
    objects::exec_context::queue_status st;
    st.curdepth = static_cast<std::int64_t>(lq->messages.size());
    st.ipprocs = lq->open_input;
    st.opprocs = lq->open_output;
    return st;
  };

  mqi::mqsc_reply reply;
  std::size_t read = 0, syntax_errors = 0, failed = 0;
  for (const mqsc::command_source& src : mqsc::split_commands(script)) {
    mqsc::command_result parsed = mqsc::parse_command(src.lines);
    if (!parsed.ok()) {
      ++read;
      ++syntax_errors;
      echo(read, src.lines, reply.lines);
      reply.lines.push_back(std::string(imsb::msg::IMB1051E) + ": MQSC syntax error: " +
                            (parsed.error ? parsed.error->message() : std::string("no command")));
      continue;
    }
    const mqsc::command& cmd = *parsed.cmd;
    if (cmd.verb == "END") break;
    ++read;
    echo(read, src.lines, reply.lines);
    auto fail = [&](std::string l) {
      reply.lines.push_back(std::move(l));
      ++failed;
    };
    const std::string name = cmd.name ? cmd.name->text : std::string();
    // A checkpoint writes queue files outside mu, at paths it asked for before (queue_file_fn): a
    // DELETE waits for it, so that no queue folder goes while a checkpoint writes into it [D].
    if (cmd.verb == "DELETE")
      while (checkpoint_running) cv.wait(lk);
    // The commands the engine answers itself (queue_manager.hpp).
    if ((cmd.verb == "DELETE" || cmd.verb == "CLEAR") && cmd.object_type == "QLOCAL" && cmd.name) {
      // queue_of(): a queue's state is made when first used, so one not used since the start (or just
      // defined) is found too (before: IMB1044E "not found" for CLEAR QLOCAL of such a queue).
      if (local_queue* found = queue_of(name)) {
        local_queue& q = *found;
        bool in_uow = false;
        for (const auto& [k, m] : q.messages) in_uow = in_uow || !m.visible();
        if (q.open_input + q.open_output > 0 || in_uow) {
          fail(std::string(imsb::msg::IMB1184E) + ": " + label(cmd) + ": queue in use (" +
               mq::describe_reason(mq::MQRC_OBJECT_IN_USE) + ")");
          continue;
        }
        const bool purge = cmd.verb == "CLEAR" || cmd.find("PURGE") != nullptr;
        if (!q.messages.empty() && !purge) {
          fail(std::string(imsb::msg::IMB1183E) + ": " + label(cmd) + ": queue not empty, " +
               std::to_string(q.messages.size()) + " messages (" + mq::describe_reason(mq::MQRC_Q_NOT_EMPTY) +
               ")");
          continue;
        }
        // Persistent messages removed are logged as gets, so that a queue defined again under the same
        // name never gets them back at recovery [D]. Removed like gets outside syncpoint: locked (so
        // invisible) while finish() waits for the log outside the mutex, then gone; when the log fails
        // (MQRC 2056 / 2102 ...) they are unlocked, the command fails and nothing is cleared.
        log_batch batch;
        for (auto& [k, m] : q.messages) {
          m.locked_by = c.id;
          m.committing = msg_entry::commit_state::get;
          batch.pending.push_back(uow_op{false, name, k});
          if (!m.persistent) continue;
          log_op g{log_op::kind::get, name, {}};
          g.message.token = m.token;
          batch.ops.push_back(std::move(g));
        }
        result<done> logged = finish(lk, batch, cmd.verb == "CLEAR" ? "CLEAR" : "DELETE");
        lk.lock(mu);
        if (!logged) {
          fail(std::string(imsb::msg::IMB1188E) + ": " + label(cmd) +
               ": the recovery log failed, nothing was removed: " + logged.error().to_string());
          continue;
        }
        if (cmd.verb == "DELETE") {
          // The mutex was let go: a checkpoint may have begun, or a handle opened, meanwhile.
          while (checkpoint_running) cv.wait(lk);
          auto again = queues.find(name);
          if (again != queues.end() &&
              (again->second.open_input + again->second.open_output > 0 || !again->second.messages.empty())) {
            fail(std::string(imsb::msg::IMB1184E) + ": " + label(cmd) + ": queue in use (" +
                 mq::describe_reason(mq::MQRC_OBJECT_IN_USE) + ")");
            continue;
          }
        }
        if (cmd.verb == "CLEAR") {
          reply.lines.push_back(std::string(imsb::msg::IMB1185I) + ": Message queue cleared.");
          continue;
        }
      } else if (cmd.verb == "CLEAR") {
        fail(std::string(imsb::msg::IMB1044E) + ": " + label(cmd) + ": object '" + name + "' not found");
        continue;
      }
    }
    if (cmd.verb == "DISPLAY" && cmd.object_type == "QSTATUS") {
      const std::string pattern = cmd.name ? cmd.name->text : std::string("*");
      std::size_t shown = 0;
      for (const objects::object_record* rec : catalog.list(objects::object_family::queue)) {
        if (rec->type != objects::object_type::qlocal || !objects::matches_generic(pattern, rec->name))
          continue;
        ++shown;
        const local_queue* q = queue_of(rec->name);
        reply.lines.push_back(std::string(imsb::msg::IMB1186I) + ": Display queue status details.");
        reply.lines.push_back("   QUEUE(" + rec->name + ")" + std::string(" ") + "TYPE(QUEUE)");
        reply.lines.push_back("   CURDEPTH(" + std::to_string(q->messages.size()) + ")   IPPROCS(" +
                              std::to_string(q->open_input) + ")");
        reply.lines.push_back("   OPPROCS(" + std::to_string(q->open_output) + ")");
      }
      if (shown == 0)
        fail(std::string(imsb::msg::IMB1044E) + ": " + label(cmd) + ": object '" + pattern + "' not found");
      continue;
    }
    // The other runtime commands (START/STOP LISTENER ...) go to the server's handler, called without
    // the engine's mutex: it may well ask the queue manager something.
    const bool runtime = cmd.verb == "START" || cmd.verb == "STOP" || cmd.verb == "RESET" ||
                         cmd.verb == "SUSPEND" || cmd.verb == "RESUME" ||
                         (cmd.verb == "DISPLAY" && cmd.object_type == "CHSTATUS");
    if (runtime && runtime_handler) {
      const queue_manager::runtime_command_fn handler = runtime_handler;
      lk.unlock(mu);
      std::optional<std::vector<std::string>> handled = handler(cmd.verb, cmd.object_type, name);
      lk.lock(mu);
      if (handled) {
        // The first line's message ID tells success: IMBnnnnS, S = E or S is a failure.
        const bool ok = handled->empty() || handled->front().size() < 8 ||
                        (handled->front()[7] != 'E' && handled->front()[7] != 'S');
        for (auto& l : *handled) reply.lines.push_back(std::move(l));
        if (!ok) ++failed;
        continue;
      }
    }
    const objects::object_catalog before = catalog;
    objects::exec_outcome r = objects::execute(catalog, cmd, ctx);
    for (auto& l : r.lines) reply.lines.push_back(std::move(l));
    if (r.status == objects::exec_status::failed || r.status == objects::exec_status::unsupported) ++failed;
    if (!r.changed) continue;
    result<done> saved = store.save(catalog);
    if (!saved) {
      const bool kept = queue_manager_store::save_replaced_catalog(saved.error());
      if (!kept) catalog = before;
      fail(std::string(imsb::msg::IMB1187E) + ": " + label(cmd) + ": the catalog cannot be saved: " +
           saved.error().to_string() + (kept ? " (the change was kept)" : " (the change was undone)"));
      log_error(std::string(imsb::msg::IMB1187E) + ": MQSC " + label(cmd) + ": " + saved.error().to_string());
    }
    refresh_after_catalog_change();  // new queues appear at once, deleted ones go
  }
  reply.lines.emplace_back();
  reply.lines.push_back(read == 0   ? std::string("No MQSC commands read.")
                        : read == 1 ? std::string("One MQSC command read.")
                                    : std::to_string(read) + " MQSC commands read.");
  reply.lines.push_back(count_text(syntax_errors, "One command has a syntax error.",
                                   " commands have a syntax error.", "No commands have a syntax error."));
  reply.lines.push_back(count_text(failed, "One valid MQSC command could not be processed.",
                                   " valid MQSC commands could not be processed.",
                                   "All valid MQSC commands were processed."));
  reply.exit_code = syntax_errors + failed == 0 ? 0 : 10;
  return reply;
}

result<done> engine::apply_catalog_command(const std::string& command, const char* call) {
  objects::exec_context ctx = exec_now();
  mqsc::command_result parsed = mqsc::parse_command(command);
  if (!parsed.ok())
    return mqi_error(call, mq::MQRC_UNEXPECTED_ERROR,
                     "the change " + command + " does not parse: " +
                         (parsed.error ? parsed.error->message() : std::string("no command")));
  const objects::object_catalog before = catalog;
  objects::exec_outcome r = objects::execute(catalog, *parsed.cmd, ctx);
  if (r.status == objects::exec_status::failed || r.status == objects::exec_status::unsupported) {
    catalog = before;
    std::string why;
    for (const auto& l : r.lines) why += (why.empty() ? "" : " ") + l;
    return mqi_error(call, mq::MQRC_UNEXPECTED_ERROR, command + ": " + why);
  }
  if (!r.changed) return std::monostate{};
  result<done> saved = store.save(catalog);
  if (!saved) {
    if (!queue_manager_store::save_replaced_catalog(saved.error())) {
      catalog = before;
      log_error((std::string(imsb::msg::IMB1187E) + ": ") + call + " " + command + ": " +
                saved.error().to_string());
      return mqi_error(call, mq::MQRC_RESOURCE_PROBLEM,
                       "the catalog cannot be saved: " + saved.error().to_string());
    }
  }
  refresh_after_catalog_change();
  return std::monostate{};
}

}  // namespace imsb::qmgr::engine_detail
