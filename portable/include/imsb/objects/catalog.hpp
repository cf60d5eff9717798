#pragma once
// A snapshot of the queue-manager objects that name resolution (docs/design/queue-manager.md) needs. It
// is meant to grow into the full object catalog (attributes, put/get inhibit, limits) without changing
// what is here.
//
// Names are held without blank padding and compared exactly: MQ names are case sensitive [C: NAMING-V6].

#include <map>
#include <string>
#include <string_view>

namespace imsb::objects {

struct queue_manager_attributes {
  std::string name;
  std::string deadq;
  std::string defxmitq;  // blank = no default transmission queue [C: OPEN-REMOTE, RC2087]
};

enum class queue_type { local, alias, remote, model };

// USAGE of a local queue; MQUS_NORMAL = 0, MQUS_TRANSMISSION = 1 [C: XQH-DOC, CMQC-PY].
enum class queue_usage { normal, xmitq };

struct queue_definition {
  std::string name;
  queue_type type = queue_type::local;
  queue_usage usage = queue_usage::normal;  // local (and model) queues only
  std::string target;                       // alias: TARGET / BaseQName (TARGTYPE(QUEUE))
  std::string rname;                        // remote: RNAME (blank = queue-manager alias)
  std::string rqmname;                      // remote: RQMNAME
  std::string xmitq;                        // remote: XMITQ
};

struct catalog_snapshot {
  queue_manager_attributes qmgr;
  // std::less<> so that find() can look up a string_view without building a string.
  std::map<std::string, queue_definition, std::less<>> queues;

  // The queue of that exact name, or nullptr.
  const queue_definition* find(std::string_view name) const;
  // Adds or replaces a definition under its own name.
  void put(queue_definition def);
};

}  // namespace imsb::objects
