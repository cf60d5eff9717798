// The MQSC vocabulary tables. Verb and object-type synonyms are IBM's (MQSC command reference,
// "Synonym:" of each command) [C]; which verb applies to which object type follows the same reference,
// z/OS-only commands included so that z/OS scripts parse [C]/[I]; the supported table is ours [D].

#include "imsb/mqsc/vocabulary.hpp"

#include <algorithm>
#include <cstdint>

namespace imsb::mqsc {
namespace {

// One bit per verb, in the order of verb_table.
enum verb_bit : std::uint32_t {
  v_alter = 1u << 0,
  v_archive = 1u << 1,
  v_backup = 1u << 2,
  v_clear = 1u << 3,
  v_define = 1u << 4,
  v_delete = 1u << 5,
  v_display = 1u << 6,
  v_end = 1u << 7,
  v_move = 1u << 8,
  v_ping = 1u << 9,
  v_purge = 1u << 10,
  v_recover = 1u << 11,
  v_refresh = 1u << 12,
  v_reset = 1u << 13,
  v_resolve = 1u << 14,
  v_resume = 1u << 15,
  v_rverify = 1u << 16,
  v_set = 1u << 17,
  v_start = 1u << 18,
  v_stop = 1u << 19,
  v_suspend = 1u << 20,
};

struct verb_info {
  std::string_view name;
  std::uint32_t bit;
};

constexpr verb_info verb_table[] = {
    {"ALTER", v_alter},     {"ARCHIVE", v_archive}, {"BACKUP", v_backup},   {"CLEAR", v_clear},
    {"DEFINE", v_define},   {"DELETE", v_delete},   {"DISPLAY", v_display}, {"END", v_end},
    {"MOVE", v_move},       {"PING", v_ping},       {"PURGE", v_purge},     {"RECOVER", v_recover},
    {"REFRESH", v_refresh}, {"RESET", v_reset},     {"RESOLVE", v_resolve}, {"RESUME", v_resume},
    {"RVERIFY", v_rverify}, {"SET", v_set},         {"START", v_start},     {"STOP", v_stop},
    {"SUSPEND", v_suspend},
};

struct synonym {
  std::string_view word;
  std::string_view canonical;
};

// IBM's "Synonym:" lines [C] (ARC LOG, RES IND among them). EXIT and QUIT end runmqsc input as END
// does [C] (MQSC command and object synonyms table), so they are END here.
// clang-format off
constexpr synonym verb_synonyms[] = {
    {"ALT", "ALTER"},
    {"ARC", "ARCHIVE"},
    {"DEF", "DEFINE"},
    {"DIS", "DISPLAY"},
    {"EXIT", "END"},
    {"QUIT", "END"},
    {"REF", "REFRESH"},
    {"RES", "RESOLVE"},
    {"STA", "START"},
};
// clang-format on

constexpr std::uint32_t object_verbs = v_alter | v_define | v_delete | v_display;

struct object_type_info {
  std::string_view name;
  std::uint32_t verbs;
  std::string_view out_of_scope;  // why imsbridge leaves the whole object type out, if it does
};

constexpr std::string_view pubsub_note = "publish/subscribe is out of scope";
constexpr std::string_view cluster_note = "clusters are out of scope";
constexpr std::string_view qsg_note = "queue-sharing groups are out of scope";
constexpr std::string_view zos_note = "it manages z/OS queue-manager resources";

constexpr object_type_info object_type_table[] = {
    {"APSTATUS", v_display, ""},
    {"ARCHIVE", v_display | v_set, zos_note},
    {"AUTHINFO", object_verbs, ""},
    {"AUTHREC", v_set | v_delete | v_display, ""},
    {"AUTHSERV", v_display, ""},
    {"BSDS", v_recover, zos_note},
    {"BUFFPOOL", object_verbs, zos_note},
    {"CFSTATUS", v_display, qsg_note},
    {"CFSTRUCT", object_verbs | v_backup | v_recover | v_reset, qsg_note},
    {"CHANNEL", object_verbs | v_start | v_stop | v_ping | v_reset | v_resolve | v_purge, ""},
    {"CHINIT", v_start | v_stop | v_display, zos_note},
    {"CHLAUTH", v_set | v_display, ""},
    {"CHSTATUS", v_display, ""},
    {"CLUSQMGR", v_display, cluster_note},
    {"CLUSTER", v_refresh | v_reset, cluster_note},
    {"CMDSERV", v_start | v_stop | v_display, zos_note},
    {"COMMINFO", object_verbs, pubsub_note},
    {"CONN", v_display | v_stop, ""},
    {"ENTAUTH", v_display, ""},
    {"GROUP", v_display, qsg_note},
    {"INDOUBT", v_resolve, zos_note},
    {"LISTENER", object_verbs | v_start | v_stop, ""},
    {"LOG", v_archive | v_define | v_display | v_set, zos_note},
    {"LSSTATUS", v_display, ""},
    {"MAXSMSGS", v_define | v_display, zos_note},
    {"NAMELIST", object_verbs, ""},
    {"POLICY", v_set | v_display | v_delete, ""},
    {"PROCESS", object_verbs, ""},
    {"PSID", object_verbs, zos_note},
    {"PUBSUB", v_display, pubsub_note},
    {"QCLUSTER", v_display, cluster_note},
    {"QALIAS", object_verbs, ""},
    {"QLOCAL", object_verbs | v_clear | v_move, ""},
    {"QMGR", v_alter | v_display | v_ping | v_refresh | v_reset | v_resume | v_suspend | v_start | v_stop,
     ""},
    {"QMODEL", object_verbs, ""},
    {"QMSTATUS", v_display, ""},
    {"QREMOTE", object_verbs, ""},
    {"QSTATS", v_reset, zos_note},
    {"QSTATUS", v_display, ""},
    {"QUEUE", v_display, ""},
    {"SBSTATUS", v_display, pubsub_note},
    {"SECURITY", v_alter | v_display | v_refresh | v_rverify, ""},
    {"SERVICE", object_verbs | v_start | v_stop, ""},
    {"SMDS", v_alter | v_display | v_reset, qsg_note},
    {"SMDSCONN", v_display | v_start | v_stop, qsg_note},
    {"STGCLASS", object_verbs, ""},
    {"SUB", object_verbs, pubsub_note},
    {"SVSTATUS", v_display, ""},
    {"SYSTEM", v_display | v_set, zos_note},
    {"TCLUSTER", v_display, cluster_note},
    {"TOPIC", object_verbs, pubsub_note},
    {"TPIPE", v_reset, ""},
    {"USAGE", v_display, zos_note},
};

// Nouns that are not in object_type_table under their own name, from IBM's "Synonym:" lines and its
// synonyms table [C]: DEF BP, DIS CS / STA CS (CMDSERV; CHSTATUS is CHS), RES IND, DEF MAXSM, DIS QC,
// DEF TPC; PRO and PROC both appear for PROCESS.
// clang-format off
constexpr synonym object_type_synonyms[] = {
    {"BP", "BUFFPOOL"},
    {"CHI", "CHINIT"},
    {"CHL", "CHANNEL"},
    {"CHS", "CHSTATUS"},
    {"CS", "CMDSERV"},
    {"DQM", "CHINIT"},
    {"IND", "INDOUBT"},
    {"LSTR", "LISTENER"},
    {"MAXSM", "MAXSMSGS"},
    {"NL", "NAMELIST"},
    {"PRO", "PROCESS"},
    {"PROC", "PROCESS"},
    {"Q", "QUEUE"},
    {"QA", "QALIAS"},
    {"QC", "QCLUSTER"},
    {"QL", "QLOCAL"},
    {"QM", "QMODEL"},
    {"QR", "QREMOTE"},
    {"QS", "QSTATUS"},
    {"SEC", "SECURITY"},
    {"STC", "STGCLASS"},
    {"THD", "THREAD"},
    {"TPC", "TOPIC"},
    {"TPS", "TPSTATUS"},
};
// clang-format on

// Object types that appear only through a synonym above or with one verb, kept apart so the main table
// stays one line per object type it describes fully.
constexpr object_type_info extra_object_types[] = {
    {"THREAD", v_display, zos_note},
    {"TOPICSTR", v_clear, pubsub_note},
    {"TPSTATUS", v_display, pubsub_note},
    {"TRACE", v_alter | v_display | v_start | v_stop, zos_note},
};

const object_type_info* find_object_type(std::string_view canonical) noexcept {
  for (const auto& o : object_type_table)
    if (o.name == canonical) return &o;
  for (const auto& o : extra_object_types)
    if (o.name == canonical) return &o;
  return nullptr;
}

const verb_info* find_verb(std::string_view canonical) noexcept {
  for (const auto& v : verb_table)
    if (v.name == canonical) return &v;
  return nullptr;
}

}  // namespace

std::optional<std::string_view> canonical_verb(std::string_view word) noexcept {
  if (const verb_info* v = find_verb(word)) return v->name;
  for (const auto& s : verb_synonyms)
    if (s.word == word) return s.canonical;
  return std::nullopt;
}

std::optional<std::string_view> canonical_object_type(std::string_view word) noexcept {
  if (const object_type_info* o = find_object_type(word)) return o->name;
  for (const auto& s : object_type_synonyms)
    if (s.word == word) return s.canonical;
  return std::nullopt;
}

bool verb_applies(std::string_view verb, std::string_view object_type) noexcept {
  const verb_info* v = find_verb(verb);
  const object_type_info* o = find_object_type(object_type);
  return v != nullptr && o != nullptr && (o->verbs & v->bit) != 0;
}

const std::vector<std::string_view>& verbs() {
  static const std::vector<std::string_view> all = [] {
    std::vector<std::string_view> v;
    for (const auto& e : verb_table) v.push_back(e.name);
    return v;
  }();
  return all;
}

const std::vector<std::pair<std::string_view, std::string_view>>& object_type_words() {
  static const std::vector<std::pair<std::string_view, std::string_view>> all = [] {
    std::vector<std::pair<std::string_view, std::string_view>> v;
    for (const auto& o : object_type_table) v.emplace_back(o.name, o.name);
    for (const auto& o : extra_object_types) v.emplace_back(o.name, o.name);
    for (const auto& s : object_type_synonyms) v.emplace_back(s.word, s.canonical);
    return v;
  }();
  return all;
}

const std::vector<supported_command>& supported_commands() {
  // The one table of what imsbridge implements [D]. Names are required on every object that has one;
  // QMGR and AUTHREC take none (AUTHREC names its profile with PROFILE()).
  static const std::vector<supported_command> table = [] {
    std::vector<supported_command> t;
    for (std::string_view verb : {"DEFINE", "ALTER", "DELETE", "DISPLAY"})
      for (std::string_view object : {"QLOCAL", "QREMOTE", "QALIAS", "QMODEL", "STGCLASS", "NAMELIST",
                                      "PROCESS", "CHANNEL", "LISTENER"})
        t.push_back({verb, object, name_rule::required});
    t.push_back({"ALTER", "QMGR", name_rule::none});
    t.push_back({"DISPLAY", "QMGR", name_rule::none});
    t.push_back({"DISPLAY", "QUEUE", name_rule::required});
    t.push_back({"SET", "AUTHREC", name_rule::none});
    t.push_back({"DELETE", "AUTHREC", name_rule::none});
    t.push_back({"DISPLAY", "AUTHREC", name_rule::none});
    // z/OS starts and stops the channel initiator's listeners by TRPTYPE/PORT without a name; the
    // other platforms name the LISTENER object [C] START LISTENER, STOP LISTENER.
    t.push_back({"START", "LISTENER", name_rule::optional});
    t.push_back({"STOP", "LISTENER", name_rule::optional});
    t.push_back({"START", "CHANNEL", name_rule::required});
    t.push_back({"STOP", "CHANNEL", name_rule::required});
    t.push_back({"RESET", "TPIPE", name_rule::required});  // [C: RESET-TPIPE]
    t.push_back({"SUSPEND", "QMGR", name_rule::none});     // FACILITY(IMSBRIDGE) [C: CONTROL-BRIDGE]
    t.push_back({"RESUME", "QMGR", name_rule::none});
    t.push_back({"DISPLAY", "QSTATUS", name_rule::required});
    t.push_back({"DISPLAY", "CHSTATUS", name_rule::required});
    t.push_back({"CLEAR", "QLOCAL", name_rule::required});
    t.push_back({"END", "", name_rule::none});
    return t;
  }();
  return table;
}

const supported_command* find_supported(std::string_view verb, std::string_view object_type) noexcept {
  const auto& table = supported_commands();
  auto it = std::find_if(table.begin(), table.end(), [&](const supported_command& s) {
    return s.verb == verb && s.object_type == object_type;
  });
  return it == table.end() ? nullptr : &*it;
}

std::string unsupported_reason(std::string_view verb, std::string_view object_type) {
  std::string r;
  r.append(verb).append(" ").append(object_type).append(" is not implemented by imsbridge");
  if (const object_type_info* o = find_object_type(object_type); o != nullptr && !o->out_of_scope.empty())
    r.append(": ").append(o->out_of_scope);
  return r;
}

}  // namespace imsb::mqsc
