#pragma once
// Distributed-queuing name resolution (IBM's rules [C: NAMERES, QNAMERES-V6]; our algorithm:
// docs/design/queue-manager.md), as pure functions over a catalog snapshot.
// Input names may be MQCHAR fields (blank padded, or ended by a NUL): they are trimmed first.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/objects/catalog.hpp"

namespace imsb::objects {

struct resolution {
  std::int32_t mqrc = 0;  // MQRC_NONE, or why the open fails
  // Final destination (MQOD ResolvedQName / ResolvedQMgrName [C: RESOLVE-LOCAL, RESOLVEDQMGR-DOC]).
  std::string resolved_q;
  std::string resolved_qmgr;
  // The local queue actually put to (or got from): the queue itself or the transmission queue.
  std::string local_queue;
  // The message goes on local_queue with an MQXQH naming (resolved_q, resolved_qmgr) [C: QNAMERES-V6].
  bool needs_xmit_header = false;
  // local_queue is a model queue: the caller creates a dynamic queue from it [C: NAMERES].
  // [D] resolution does not invent the dynamic name; MQOPEN does, and puts it in resolved_q/local_queue.
  bool model_queue = false;
  // Receiver side: a queue-manager alias replaced the QM name the header carried [C: QMALIAS].
  bool header_qmgr_changed = false;
  // The definitions followed, in order (e.g. "QALIAS(A)", "QREMOTE(YOURQM)", "QLOCAL(REALQM)").
  std::vector<std::string> path;

  bool ok() const { return mqrc == 0; }
};

// MQOPEN for output / MQPUT1 of (ObjectName, ObjectQMgrName) [C: NAMERES, QMALIAS, RC2087].
resolution resolve_for_output(const catalog_snapshot& catalog, std::string_view object_name,
                              std::string_view object_qmgr);

// MQOPEN for input, browse or set: must end at a local queue [C: NAMERES]; otherwise
// MQRC_OPTION_NOT_VALID_FOR_TYPE [I].
resolution resolve_for_input(const catalog_snapshot& catalog, std::string_view object_name,
                             std::string_view object_qmgr);

// The receiving MCA "opens" the destination of an MQXQH like an application naming both the queue and the
// queue manager [C: RECV-CHAN]; header_qmgr_changed says a QM alias rewrote the QM name, and resolved_qmgr is
// then the new header QM [C: QMALIAS].
resolution resolve_at_receiver(const catalog_snapshot& catalog, std::string_view remote_q,
                               std::string_view remote_qmgr);

// Reply-to queue alias at MQPUT/MQPUT1 [C: QREMOTE-USES, REPLYALIAS-WMB]. Returns true when a QREMOTE
// replaced the names. Both fields are left trimmed.
bool apply_reply_to_alias(const catalog_snapshot& catalog, std::string& reply_to_q,
                          std::string& reply_to_qmgr);

// An MQCHAR value as a name: up to the first NUL, trailing blanks removed.
std::string_view trim_name(std::string_view field);

}  // namespace imsb::objects
