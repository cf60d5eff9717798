// Name resolution (N = ObjectName, M = ObjectQMgrName) [C: NAMERES, QNAMERES-V6, QMALIAS, OPEN-REMOTE],
// steps numbered as the comments below cite them (docs/design/queue-manager.md):
//  1. M blank or the local queue manager: a. N is a local queue; b. N is a model queue (a dynamic
//     queue is made from it); c. N is an alias queue: its base; d. N is a local definition of a remote
//     queue: (RNAME, RQMNAME) through a transmission queue; e. N is not defined.
//  2. M not blank and not local: a. M is a queue-manager alias (a QREMOTE with a blank RNAME);
//     b. M names a local queue, which must be a transmission queue; c. else DEFXMITQ, if set; d. else
//     MQRC_UNKNOWN_REMOTE_Q_MGR; e. N blank: MQRC_REMOTE_Q_NAME_ERROR.

#include "imsb/objects/resolution.hpp"

#include <string>

#include "imsb/mq/constants.hpp"

namespace imsb::objects {
namespace {

using namespace imsb::mq;  // NOLINT: MQRC_* read like the IBM documentation

// [C: XQH-DOC] (the cluster transmission queue may not be DEFXMITQ, step 1d [C: RC2199]).
constexpr std::string_view cluster_xmitq = "SYSTEM.CLUSTER.TRANSMIT.QUEUE";
// MQ_Q_MGR_NAME_LENGTH [C: NAMING-V6, MQGO-CONST].
constexpr std::size_t qmgr_name_length = 48;

std::string describe(const queue_definition& def) {
  switch (def.type) {
    case queue_type::local:
      return "QLOCAL(" + def.name + ")";
    case queue_type::alias:
      return "QALIAS(" + def.name + ")";
    case queue_type::remote:
      return "QREMOTE(" + def.name + ")";
    case queue_type::model:
      return "QMODEL(" + def.name + ")";
  }
  return def.name;
}

// Characters allowed in MQ object names: A-Z a-z 0-9 . / _ % [C: NAMING-V6].
bool valid_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '/' ||
         c == '_' || c == '%';
}

bool valid_qmgr_name(std::string_view name) {
  if (name.size() > qmgr_name_length) return false;
  for (char c : name) {
    if (!valid_name_char(c)) return false;
  }
  return true;
}

class resolver {
 public:
  explicit resolver(const catalog_snapshot& catalog) : catalog_(catalog), local_(catalog.qmgr.name) {}

  resolution output(std::string_view n, std::string_view m) {
    // "ObjectQMgrName is resolved before ObjectName" [C: NAMERES].
    if (m.empty() || m == local_) return local_name(n);
    // An embedded blank or a character outside the name set: not a valid QM name [C] RC2086.
    if (!valid_qmgr_name(m)) return fail(MQRC_UNKNOWN_OBJECT_Q_MGR);
    return remote_qmgr(n, m);
  }

 private:
  // Step 1: M blank or local.
  resolution local_name(std::string_view n) {
    const queue_definition* def = catalog_.find(n);
    if (def == nullptr) return fail(MQRC_UNKNOWN_OBJECT_NAME);  // 1e [I]
    follow(*def);
    switch (def->type) {
      case queue_type::local:  // 1a [C]
        return local_queue(def->name);
      case queue_type::model: {  // 1b [C]; [D] the caller creates the dynamic queue
        resolution r = local_queue(def->name);
        r.model_queue = true;
        return r;
      }
      case queue_type::alias:
        return alias(*def);
      case queue_type::remote:
        return remote_queue(*def);
    }
    return fail(MQRC_UNKNOWN_OBJECT_NAME);
  }

  // Step 1c [C: ALIAS-BASE-EVENT, BASEQNAME-DOC]; [I] the error-code mapping. The base is
  // resolved once: an alias of an alias (or of a model) is a type error, so there is no loop to guard.
  resolution alias(const queue_definition& def) {
    const queue_definition* base = catalog_.find(def.target);
    if (base == nullptr) return fail(MQRC_UNKNOWN_ALIAS_BASE_Q);
    follow(*base);
    if (base->type == queue_type::local) return local_queue(base->name);
    if (base->type == queue_type::remote && !base->rname.empty()) return remote_queue(*base);
    // An alias, a model, or a QM alias (no RNAME) is not a valid base.
    return fail(MQRC_ALIAS_BASE_Q_TYPE_ERROR);
  }

  // Step 1d: local definition of a remote queue.
  resolution remote_queue(const queue_definition& def) {
    if (def.rname.empty()) return fail(MQRC_REMOTE_Q_NAME_ERROR);                              // [C] RC2184
    if (def.rqmname.empty() || def.rqmname == local_) return fail(MQRC_UNKNOWN_REMOTE_Q_MGR);  // [C] RC2087
    // "When a remote queue definition exists, no alias definitions are referenced" [C] QNAMERES-V6;
    // [I] so RQMNAME is not looked up as a QM alias here.
    return to_xmitq(def.rname, def.rqmname, def.xmitq);
  }

  // Step 2: M not blank and not local.
  resolution remote_qmgr(std::string_view n, std::string_view m) {
    if (n.empty()) return fail(MQRC_REMOTE_Q_NAME_ERROR);  // 2e [C] RC2184
    const queue_definition* def = catalog_.find(m);
    if (def != nullptr && def->type == queue_type::remote) {
      follow(*def);
      // A QREMOTE with an RNAME is not a QM alias [C] RC2087.
      if (!def->rname.empty()) return fail(MQRC_UNKNOWN_REMOTE_Q_MGR);
      // [I] a QM alias must name a queue manager.
      if (def->rqmname.empty()) return fail(MQRC_UNKNOWN_REMOTE_Q_MGR);
      // 2a [C] XMITQNAME-DOC, QMALIAS: XMITQ ignored, the queue is looked up on this QM. [I] looked up
      // with the full step 1 (it may be an alias or a remote definition).
      if (def->rqmname == local_) return local_name(n);
      // 2a [C] QMALIAS: the header QM becomes RQMNAME.
      return to_xmitq(std::string(n), def->rqmname, def->xmitq);
    }
    if (def != nullptr && def->type == queue_type::local) {
      // 2b [C] OPEN-REMOTE: M names the transmission queue, destination (N, M).
      follow(*def);
      if (def->usage != queue_usage::xmitq) return fail(MQRC_XMIT_Q_USAGE_ERROR);  // [C] RC2092 wording [I]
      return via(std::string(n), std::string(m), def->name);
    }
    if (def != nullptr && def->type == queue_type::model) {
      follow(*def);
      return fail(MQRC_UNKNOWN_REMOTE_Q_MGR);  // 2b [C]
    }
    // [I] an alias queue named M is not a transmission queue name: fall through to DEFXMITQ.
    return default_xmitq(std::string(n), std::string(m));  // 2c/2d
  }

  // Transmission-queue choice for a remote destination: XMITQ, else the local queue named after the QM,
  // else DEFXMITQ [C] LOCALQ-DOC, XMITQNAME-DOC.
  resolution to_xmitq(std::string q, std::string qm, const std::string& xmitq) {
    if (!xmitq.empty()) {
      const queue_definition* x = catalog_.find(xmitq);
      if (x == nullptr) return fail(MQRC_UNKNOWN_XMIT_Q);  // [C] RC2196
      follow(*x);
      if (x->type != queue_type::local) return fail(MQRC_XMIT_Q_TYPE_ERROR);     // [I] 2091
      if (x->usage != queue_usage::xmitq) return fail(MQRC_XMIT_Q_USAGE_ERROR);  // [I] 2092
      return via(std::move(q), std::move(qm), x->name);
    }
    const queue_definition* named = catalog_.find(qm);
    // [I] only a local queue named after the QM counts as "a transmission queue with the same name";
    // a local queue of that name without USAGE(XMITQ) is a usage error rather than skipped.
    if (named != nullptr && named->type == queue_type::local) {
      follow(*named);
      if (named->usage != queue_usage::xmitq) return fail(MQRC_XMIT_Q_USAGE_ERROR);
      return via(std::move(q), std::move(qm), named->name);
    }
    return default_xmitq(std::move(q), std::move(qm));
  }

  // DEFXMITQ: blank → 2087 [C] RC2087; missing → 2197 [I]; not local → 2198 [C] DEFXMIT-TYPE-EVENT;
  // not USAGE(XMITQ) or the cluster transmission queue → 2199 [C] RC2199.
  resolution default_xmitq(std::string q, std::string qm) {
    const std::string& d = catalog_.qmgr.defxmitq;
    if (d.empty()) return fail(MQRC_UNKNOWN_REMOTE_Q_MGR);
    const queue_definition* x = catalog_.find(d);
    if (x == nullptr) return fail(MQRC_UNKNOWN_DEF_XMIT_Q);
    follow(*x);
    if (x->type != queue_type::local) return fail(MQRC_DEF_XMIT_Q_TYPE_ERROR);
    if (x->usage != queue_usage::xmitq || x->name == cluster_xmitq) return fail(MQRC_DEF_XMIT_Q_USAGE_ERROR);
    return via(std::move(q), std::move(qm), x->name);
  }

  resolution local_queue(const std::string& name) {
    resolution r = take();
    r.resolved_q = name;
    r.resolved_qmgr = local_;
    r.local_queue = name;
    return r;
  }

  resolution via(std::string q, std::string qm, const std::string& xmitq) {
    resolution r = take();
    r.resolved_q = std::move(q);
    r.resolved_qmgr = std::move(qm);
    r.local_queue = xmitq;
    r.needs_xmit_header = true;  // [C: QNAMERES-V6]
    return r;
  }

  resolution fail(std::int32_t mqrc) {
    resolution r = take();
    r.mqrc = mqrc;
    return r;
  }

  void follow(const queue_definition& def) { path_.push_back(describe(def)); }

  resolution take() {
    resolution r;
    r.path = std::move(path_);
    path_.clear();
    return r;
  }

  const catalog_snapshot& catalog_;
  const std::string& local_;
  std::vector<std::string> path_;
};

}  // namespace

std::string_view trim_name(std::string_view field) {
  auto nul = field.find('\0');
  if (nul != std::string_view::npos) field = field.substr(0, nul);
  auto last = field.find_last_not_of(' ');
  return last == std::string_view::npos ? std::string_view() : field.substr(0, last + 1);
}

resolution resolve_for_output(const catalog_snapshot& catalog, std::string_view object_name,
                              std::string_view object_qmgr) {
  return resolver(catalog).output(trim_name(object_name), trim_name(object_qmgr));
}

resolution resolve_for_input(const catalog_snapshot& catalog, std::string_view object_name,
                             std::string_view object_qmgr) {
  resolution r = resolve_for_output(catalog, object_name, object_qmgr);
  // Input, browse or set must resolve to a local queue [C: NAMERES]; the reason code for a
  // remote resolution is IBM's MQRC_OPTION_NOT_VALID_FOR_TYPE [I]. Errors found while resolving keep
  // their own reason [I].
  if (r.ok() && r.needs_xmit_header) {
    r.mqrc = MQRC_OPTION_NOT_VALID_FOR_TYPE;
    r.resolved_q.clear();
    r.resolved_qmgr.clear();
    r.local_queue.clear();
    r.needs_xmit_header = false;
  }
  return r;
}

resolution resolve_at_receiver(const catalog_snapshot& catalog, std::string_view remote_q,
                               std::string_view remote_qmgr) {
  // [C: RECV-CHAN]: exactly as an application naming both the queue and the QM.
  resolution r = resolve_for_output(catalog, remote_q, remote_qmgr);
  std::string_view m = trim_name(remote_qmgr);
  // [C: QMALIAS]: "the queue manager name received in the transmission header is replaced with the
  // RQMNAME" — visible as a resolved QM different from the one the header carried.
  r.header_qmgr_changed = r.ok() && !m.empty() && r.resolved_qmgr != m;
  return r;
}

bool apply_reply_to_alias(const catalog_snapshot& catalog, std::string& reply_to_q,
                          std::string& reply_to_qmgr) {
  reply_to_q = std::string(trim_name(reply_to_q));
  reply_to_qmgr = std::string(trim_name(reply_to_qmgr));
  // Only with ReplyToQMgr blank [C: REPLYALIAS-WMB].
  if (!reply_to_qmgr.empty()) return false;
  const queue_definition* def = reply_to_q.empty() ? nullptr : catalog.find(reply_to_q);
  if (def != nullptr && def->type == queue_type::remote) {
    // XMITQ plays no part [C] XMITQNAME-DOC. [I] a blank RNAME keeps ReplyToQ; a blank RQMNAME means
    // the local QM.
    if (!def->rname.empty()) reply_to_q = def->rname;
    reply_to_qmgr = def->rqmname.empty() ? catalog.qmgr.name : def->rqmname;
    return true;
  }
  // No alias: the QM fills in its own name [C] REPLY-MD.
  reply_to_qmgr = catalog.qmgr.name;
  return false;
}

}  // namespace imsb::objects
