// MQSC applied to the object catalog. Every command is checked whole against the schema (schema.hpp)
// before the catalog is touched, and the change is then one object_catalog::put or erase, which changes
// nothing when it fails: so a command applies whole or not at all (mqsc_exec.hpp). Output lines follow
// IBM runmqsc's layout with our message IDs IMB1001–IMB1099 (core/messages.def).

#include "imsb/objects/mqsc_exec.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <utility>

#include "imsb/core/messages.hpp"
#include "imsb/mqsc/lexer.hpp"
#include "imsb/mqsc/parser.hpp"
#include "imsb/mqsc/vocabulary.hpp"
#include "imsb/names/name_rules.hpp"
#include "imsb/objects/schema.hpp"

namespace imsb::objects {
namespace {

using mqsc::command;
using mqsc::parameter;

constexpr std::string_view qsg_note = "queue-sharing groups are out of scope";

// --- output helpers ---------------------------------------------------------------------------

std::string label(const command& cmd) {
  std::string l = cmd.verb;
  if (!cmd.object_type.empty()) l.append(" ").append(cmd.object_type);
  if (cmd.name) l.append("(").append(cmd.name->text).append(")");
  return l;
}

std::string line(std::string_view id, const command& cmd, std::string_view text) {
  std::string l(id);
  l.append(": ").append(label(cmd)).append(": ").append(text);
  return l;
}

exec_outcome failure(exec_status status, std::string text) {
  exec_outcome o;
  o.status = status;
  o.lines.push_back(std::move(text));
  return o;
}

exec_outcome done(std::string text) {
  exec_outcome o;
  o.changed = true;
  o.lines.push_back(std::move(text));
  return o;
}

struct type_messages {
  std::string created, changed, deleted, details;
};

// IBM's AMQ8006I "Queue created." ... AMQ8409I "Display Queue details." in our range [D].
type_messages messages_of(object_family family) {
  switch (family) {
    case object_family::queue:
      return {std::string(imsb::msg::IMB1001I) + ": Queue created.",
              std::string(imsb::msg::IMB1002I) + ": Queue changed.",
              std::string(imsb::msg::IMB1003I) + ": Queue deleted.",
              std::string(imsb::msg::IMB1004I) + ": Display queue details."};
    case object_family::stgclass:
      return {std::string(imsb::msg::IMB1005I) + ": Storage class created.",
              std::string(imsb::msg::IMB1006I) + ": Storage class changed.",
              std::string(imsb::msg::IMB1007I) + ": Storage class deleted.",
              std::string(imsb::msg::IMB1008I) + ": Display storage class details."};
    case object_family::namelist:
      return {std::string(imsb::msg::IMB1009I) + ": Namelist created.",
              std::string(imsb::msg::IMB1010I) + ": Namelist changed.",
              std::string(imsb::msg::IMB1011I) + ": Namelist deleted.",
              std::string(imsb::msg::IMB1012I) + ": Display namelist details."};
    case object_family::process:
      return {std::string(imsb::msg::IMB1013I) + ": Process created.",
              std::string(imsb::msg::IMB1014I) + ": Process changed.",
              std::string(imsb::msg::IMB1015I) + ": Process deleted.",
              std::string(imsb::msg::IMB1016I) + ": Display process details."};
    case object_family::channel:
      return {std::string(imsb::msg::IMB1017I) + ": Channel created.",
              std::string(imsb::msg::IMB1018I) + ": Channel changed.",
              std::string(imsb::msg::IMB1019I) + ": Channel deleted.",
              std::string(imsb::msg::IMB1020I) + ": Display channel details."};
    case object_family::listener:
      return {std::string(imsb::msg::IMB1021I) + ": Listener created.",
              std::string(imsb::msg::IMB1022I) + ": Listener changed.",
              std::string(imsb::msg::IMB1023I) + ": Listener deleted.",
              std::string(imsb::msg::IMB1024I) + ": Display listener details."};
    case object_family::qmgr:
      break;
  }
  return {"", std::string(imsb::msg::IMB1025I) + ": Queue manager changed.", "",
          std::string(imsb::msg::IMB1026I) + ": Display queue manager details."};
}

// "   KEYWORD(value)" two to a line, the second at column 44 as runmqsc lays them out; an item of 40
// characters or more takes a line of its own [I] IBM runmqsc output.
void lay_out(const std::vector<std::string>& items, std::vector<std::string>& lines) {
  constexpr std::size_t indent = 3;
  constexpr std::size_t width = 40;
  std::string current;
  for (const std::string& item : items) {
    const bool wide = item.size() >= width;
    if (current.empty()) {
      current = std::string(indent, ' ') + item;
      if (wide) {
        lines.push_back(std::move(current));
        current.clear();
      }
      continue;
    }
    if (wide) {
      lines.push_back(std::move(current));
      lines.push_back(std::string(indent, ' ') + item);
      current.clear();
      continue;
    }
    current.resize(indent + width, ' ');
    current += item;
    lines.push_back(std::move(current));
    current.clear();
  }
  if (!current.empty()) lines.push_back(std::move(current));
}

std::string item(std::string_view keyword, std::string_view value) {
  std::string s(keyword);
  s.append("(").append(value.empty() ? std::string_view(" ") : value).append(")");
  return s;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string r;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) r.append(sep);
    r.append(v[i]);
  }
  return r;
}

// The items of one attribute of a record, as DISPLAY shows it; nothing when the record lacks it.
void add_attr_item(const object_record& rec, const attr_spec& spec, std::vector<std::string>& items) {
  if (spec.kind == attr_kind::name_list) {
    auto it = rec.lists.find(spec.keyword);
    if (it != rec.lists.end()) items.push_back(item(spec.keyword, join(it->second, ",")));
    return;
  }
  auto it = rec.attrs.find(spec.keyword);
  if (it == rec.attrs.end()) return;
  if (spec.kind == attr_kind::flag)
    items.push_back(it->second);
  else
    items.push_back(item(spec.keyword, it->second));
}

// --- IBM keywords imsbridge does not implement ------------------------------------------------

// Status attributes that DISPLAY QLOCAL / DISPLAY QUEUE can ask for on IBM MQ. They come from the running
// queue manager, not from the catalog, so they are "not implemented" here rather than unknown
// keywords [D]: a real-world script asking DISPLAY QLOCAL(*) WHERE(CURDEPTH GT 0) is reported as not
// supported, not as an error in the script.
bool is_status_keyword(std::string_view kw) {
  static const std::set<std::string_view> words = {"CURDEPTH", "IPPROCS",  "OPPROCS", "QMID",
                                                   "TPIPE",    "CLUSDATE", "CLUSTIME"};
  return words.count(kw) != 0;
}

// Reported as not supported rather than unknown, so that real-world scripts for IBM MQ come out as
// "applied or not supported" [D]. Not exhaustive: IBM's common ones [I].
bool is_ibm_keyword(object_family family, std::string_view kw) {
  static const std::set<std::string_view> queue_words = {
      "ACCTQ",    "CAPEXPRY", "CFSTRUCT", "CLCHNAME", "CLWLPRTY", "CLWLRANK", "CLWLUSEQ", "CUSTOM",
      "DEFBIND",  "DEFPRESP", "DEFREADA", "DISTL",    "IMGRCOVQ", "INDXTYPE", "MAXFSIZE", "MONQ",
      "NPMCLASS", "PROPCTL",  "SCOPE",    "STATQ",    "STREAMQ",  "STRMQOS"};
  static const std::set<std::string_view> channel_words = {
      "BATCHDATALIM", "BATCHHB", "BATCHINT", "BATCHLIM", "CERTLABL", "CLWLPRTY", "CLWLRANK", "CLWLWGHT",
      "COMPHDR",      "COMPMSG", "DEFCDISP", "DEFRECON", "KAINT",    "LOCLADDR", "MAXINST",  "MAXINSTC",
      "MCANAME",      "MCATYPE", "MODENAME", "MONCHL",   "MRDATA",   "MREXIT",   "MRRTY",    "MRTMR",
      "MSGDATA",      "MSGEXIT", "NETPRTY",  "PASSWORD", "PROPCTL",  "PUTAUT",   "RCVDATA",  "RCVEXIT",
      "RESETSEQ",     "SCYDATA", "SCYEXIT",  "SENDDATA", "SENDEXIT", "SHARECNV", "SPLPROT",  "SSLPEER",
      "STATCHL",      "TPNAME",  "USEDLQ",   "USERID",   "CLUSTER",  "CLUSNL"};
  static const std::set<std::string_view> qmgr_words = {
      "ACCTCONO", "ACCTINT", "ACCTMQI", "ACCTQ", "ACTIVREC", "ACTVCONO", "ACTVTRC", "ADVCAP", "BRIDGEEV",
      "CERTLABL", "CERTVPOL", "CHADEV", "CHADEXIT", "CHLAUTH", "CLWLDATA", "CLWLEXIT", "CLWLLEN", "CLWLMRUC",
      "CLWLUSEQ", "CMDEV", "CONFIGEV", "CONNAUTH", "CUSTOM", "DEFCLXQ", "IMGINTVL", "IMGLOGLN", "IMGRCOVO",
      "IMGRCOVQ", "IMGSCHED", "IPADDRV", "LOGGEREV", "MARKINT", "MAXPROPL", "MONACLS", "MONCHL", "MONQ",
      "PARENT", "PSMODE", "PSNPMSG", "PSNPRES", "PSRTYCNT", "PSSYNCPT", "REPOS", "REPOSNL", "REVDNS",
      "ROUTEREC", "SCHINIT", "SCMDSERV", "SPLCAP", "SSLCRLNL", "SSLCRYP", "SSLEV", "SSLFIPS", "SSLKEYR",
      "SSLRKEYC", "STATACLS", "STATCHL", "STATINT", "STATMQI", "STATQ", "SUITEB", "TREELIFE",
      // z/OS only: queue-sharing groups, the channel initiator's address-space settings [I].
      "ACTCHL", "ADOPTCHK", "ADOPTMCA", "CFCONLOS", "CHIADAPS", "CHIDISPS", "CHISERVP", "DNSGROUP", "DNSWLM",
      "EXPRYINT", "GROUPUR", "IGQ", "IGQAUT", "IGQUSER", "LSTRTMR", "LU62ARM", "LU62CHL", "LUGROUP", "LUNAME",
      "MAXCHL", "OPORTMAX", "OPORTMIN", "QSGNAME", "RCVTIME", "RCVTMIN", "RCVTTYPE", "SCYCASE", "SQQMNAME",
      "SSLTASKS", "TCPCHL", "TCPKEEP", "TCPNAME", "TCPSTACK", "TRAXSTR", "TRAXTBL"};
  static const std::set<std::string_view> listener_words = {"ADAPTER",  "COMMANDS", "LOCLNAME", "NTBNAMES",
                                                            "SESSIONS", "SOCKET",   "TPNAME"};
  switch (family) {
    case object_family::queue:
      return queue_words.count(kw) != 0 || is_status_keyword(kw);
    case object_family::channel:
      return channel_words.count(kw) != 0;
    case object_family::qmgr:
      return qmgr_words.count(kw) != 0;
    case object_family::listener:
      return listener_words.count(kw) != 0;
    default:
      return false;
  }
}

// --- parameters of DEFINE and ALTER -----------------------------------------------------------

struct attr_change {
  const attr_spec* spec = nullptr;
  std::string value;              // scalar kinds and flags
  std::vector<std::string> list;  // name_list
};

struct change_set {
  std::vector<attr_change> changes;
  std::optional<std::string> like;
  bool replace = false;
  bool noreplace = false;
  bool delete_authrecs = true;
};

// The flag attribute whose keyword or off word is `kw`.
const attr_spec* find_flag(object_type type, std::string_view kw) {
  for (const attr_spec& s : schema_of(type))
    if (s.kind == attr_kind::flag && (s.keyword == kw || s.off_word == kw)) return &s;
  return nullptr;
}

std::string first_value_text(const parameter& p) {
  return p.values.empty() ? std::string() : p.values[0].text;
}

// CMDSCOPE and QSGDISP: z/OS queue-sharing-group options; their local values are accepted.
std::optional<exec_outcome> check_zos_option(const command& cmd, const parameter& p, const std::string& qmgr,
                                             bool display) {
  const std::string v = trim_trailing_blanks(first_value_text(p));
  bool local = false;
  if (p.keyword == "CMDSCOPE") local = v.empty() || v == qmgr;
  if (p.keyword == "QSGDISP")
    local = v == "QMGR" || (display && (v == "ALL" || v == "LIVE" || v == "PRIVATE"));
  if (local) return std::nullopt;
  return failure(
      exec_status::unsupported,
      line(imsb::msg::IMB1050E, cmd,
           "keyword " + p.keyword + "(" + v + ") is not implemented by imsbridge: " + std::string(qsg_note)));
}

// Checks one attribute parameter of DEFINE or ALTER into a change; the failure otherwise.
std::optional<exec_outcome> check_attr(const command& cmd, object_type type, std::string_view chltype,
                                       const parameter& p, attr_change& out) {
  const std::string kw = "keyword " + p.keyword;
  const attr_spec* spec = find_attr(type, p.keyword);
  bool negative = false;
  if (spec == nullptr || spec->kind == attr_kind::flag) {
    if (const attr_spec* f = find_flag(type, p.keyword)) {
      spec = f;
      negative = p.keyword == f->off_word;
    }
  }
  if (spec == nullptr) {
    if (is_ibm_keyword(family_of(type), p.keyword))
      return failure(exec_status::unsupported,
                     line(imsb::msg::IMB1050E, cmd, kw + " is not implemented by imsbridge"));
    return failure(exec_status::failed, line(imsb::msg::IMB1040E, cmd,
                                             kw + " is not valid for " + std::string(to_mqsc_word(type))));
  }
  if (type == object_type::channel && !applies_to_chltype(*spec, chltype))
    return failure(
        exec_status::failed,
        line(imsb::msg::IMB1048E, cmd, kw + " does not apply to CHLTYPE(" + std::string(chltype) + ")"));
  if (spec->read_only)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1048E, cmd, kw + " is read-only and cannot be set"));
  out.spec = spec;
  if (spec->kind == attr_kind::flag) {
    if (p.has_parens)
      return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd, kw + " takes no value"));
    out.value = std::string(negative ? spec->off_word : spec->keyword);
    return std::nullopt;
  }
  if (!p.has_parens)
    return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd, kw + " needs a value in parentheses"));
  if (spec->kind == attr_kind::name_list) {
    checked_list l = check_list(*spec, p.values);
    if (!l.names)
      return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd, kw + ": value " + l.problem.reason));
    out.list = std::move(*l.names);
    return std::nullopt;
  }
  if (p.values.size() != 1)
    return failure(
        exec_status::failed,
        line(imsb::msg::IMB1041E, cmd, kw + " takes one value, not " + std::to_string(p.values.size())));
  checked_value v = check_value(*spec, p.values[0]);
  if (!v.text) {
    const std::string text = kw + ": value '" + p.values[0].text + "' " + v.problem.reason;
    if (v.problem.out_of_scope)
      return failure(exec_status::unsupported, line(imsb::msg::IMB1050E, cmd, text));
    return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd, text));
  }
  out.value = std::move(*v.text);
  return std::nullopt;
}

enum class verb_kind { define, alter, del };

// Reads every parameter of DEFINE, ALTER or DELETE: options of the verb and attribute changes.
std::optional<exec_outcome> read_parameters(const object_catalog& catalog, const command& cmd,
                                            object_type type, std::string_view chltype, verb_kind verb,
                                            change_set& out) {
  // A keyword imsbridge does not implement is reported only when nothing is wrong: an error is
  // what the operator must fix first [D].
  std::optional<exec_outcome> unsupported;
  for (const parameter& p : cmd.parameters) {
    if (p.keyword == "CMDSCOPE" || p.keyword == "QSGDISP") {
      if (auto f = check_zos_option(cmd, p, catalog.qmgr_name(), false)) {
        if (f->status != exec_status::unsupported) return f;
        if (!unsupported) unsupported = std::move(f);
      }
      continue;
    }
    if (verb == verb_kind::define && p.keyword == "LIKE") {
      if (!p.has_parens || p.values.size() != 1)
        return failure(exec_status::failed,
                       line(imsb::msg::IMB1041E, cmd, "keyword LIKE needs one object name"));
      out.like = trim_trailing_blanks(p.values[0].text);
      continue;
    }
    if (verb == verb_kind::define && (p.keyword == "REPLACE" || p.keyword == "NOREPLACE")) {
      (p.keyword == "REPLACE" ? out.replace : out.noreplace) = true;
      // The parser refuses both in MQSC text; a command a program builds may still carry both.
      if (out.replace && out.noreplace)
        return failure(exec_status::failed,
                       line(imsb::msg::IMB1048E, cmd, "keywords REPLACE and NOREPLACE: give only one"));
      continue;
    }
    if (verb == verb_kind::alter && p.keyword == "FORCE") continue;
    if (verb == verb_kind::del) {
      // The catalog holds no messages yet, so PURGE and NOPURGE both delete [D].
      if (type == object_type::qlocal && (p.keyword == "PURGE" || p.keyword == "NOPURGE") && !p.has_parens)
        continue;
      if (p.keyword == "AUTHREC" && p.has_parens && p.values.size() == 1 &&
          (p.values[0].text == "YES" || p.values[0].text == "NO")) {
        out.delete_authrecs = p.values[0].text == "YES";
        continue;
      }
      if (p.keyword == "CHLTABLE" && type == object_type::channel) continue;
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1040E, cmd, "keyword " + p.keyword + " is not valid on DELETE"));
    }
    if (type == object_type::channel && p.keyword == "CHLTYPE") continue;  // read before, by the caller
    attr_change c;
    if (auto f = check_attr(cmd, type, chltype, p, c)) {
      if (f->status != exec_status::unsupported) return f;
      if (!unsupported) unsupported = std::move(f);
      continue;
    }
    out.changes.push_back(std::move(c));
  }
  return unsupported;
}

void apply_changes(object_record& rec, const std::vector<attr_change>& changes) {
  for (const attr_change& c : changes) {
    if (c.spec->kind == attr_kind::name_list)
      rec.lists[std::string(c.spec->keyword)] = c.list;
    else
      rec.attrs[std::string(c.spec->keyword)] = c.value;
  }
}

// Rules across attributes, checked on the resulting object of DEFINE and ALTER.
std::optional<exec_outcome> check_result(const command& cmd, const object_record& rec, bool define) {
  if (rec.type == object_type::stgclass) {
    // "the resultant values must both be blank or both non-blank" [C: STGCLASS]
    const bool g = !rec.text("XCFGNAME").empty();
    const bool m = !rec.text("XCFMNAME").empty();
    if (g != m)
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1047E, cmd,
                          g ? "keyword XCFGNAME: XCFMNAME must be given too (both blank or both non-blank, "
                              "as IBM's DEFINE STGCLASS requires)"
                            : "keyword XCFMNAME: XCFGNAME must be given too (both blank or both non-blank, "
                              "as IBM's DEFINE STGCLASS requires)"));
  }
  if (define && rec.type == object_type::channel && rec.text("CHLTYPE") == "SDR" &&
      rec.name.rfind("SYSTEM.DEF.", 0) != 0) {
    // A sender needs where to connect and what to send from [I] IBM DEFINE CHANNEL: a required keyword
    // of DEFINE, so ALTER of an existing sender and the SYSTEM.DEF.* templates (blank CONNAME and
    // XMITQ, as IBM ships SYSTEM.DEF.SENDER) are not held to it.
    for (std::string_view k : {"CONNAME", "XMITQ"})
      if (rec.text(k).empty())
        return failure(
            exec_status::failed,
            line(imsb::msg::IMB1046E, cmd, "keyword " + std::string(k) + " is required for CHLTYPE(SDR)"));
  }
  return std::nullopt;
}

void stamp(object_record& rec, const exec_context& ctx, bool created) {
  auto set = [&](std::string_view k, const std::string& v) {
    if (rec.attrs.count(k) != 0) rec.attrs[std::string(k)] = v;
  };
  if (created) {
    set("CRDATE", ctx.date);
    set("CRTIME", ctx.time);
  }
  set("ALTDATE", ctx.date);
  set("ALTTIME", ctx.time);
}

// A record with every attribute of its schema: `base` for those it has, the schema default otherwise.
object_record complete(const object_record& base, object_type type, std::string_view name,
                       std::string_view chltype) {
  object_record r = schema_defaults(type, name, chltype);
  for (auto& [k, v] : r.attrs) {
    if (k == "CHLTYPE" || k == "QMNAME") continue;
    auto it = base.attrs.find(k);
    if (it != base.attrs.end()) v = it->second;
  }
  for (auto& [k, v] : r.lists) {
    auto it = base.lists.find(k);
    if (it != base.lists.end()) v = it->second;
  }
  return r;
}

std::optional<exec_outcome> check_object_name(const command& cmd, object_type type) {
  const std::string& n = cmd.name ? cmd.name->text : std::string();
  if (auto p = names::check_mq_object_name(n, name_rule_of(type)))
    return failure(exec_status::failed, line(imsb::msg::IMB1042E, cmd, "invalid name: " + p->reason));
  return std::nullopt;
}

// CHLTYPE of DEFINE CHANNEL: required, and one of the implemented ones.
std::optional<exec_outcome> read_chltype(const command& cmd, std::string& chltype) {
  const parameter* p = cmd.find("CHLTYPE");
  if (p == nullptr)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1046E, cmd, "keyword CHLTYPE is required on DEFINE CHANNEL"));
  if (!p->has_parens || p->values.size() != 1)
    return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd, "keyword CHLTYPE takes one value"));
  checked_value v = check_value(*find_attr(object_type::channel, "CHLTYPE"), p->values[0]);
  if (!v.text) {
    const std::string text = "keyword CHLTYPE: value '" + p->values[0].text + "' " + v.problem.reason;
    return failure(v.problem.out_of_scope ? exec_status::unsupported : exec_status::failed,
                   line(v.problem.out_of_scope ? imsb::msg::IMB1050E : imsb::msg::IMB1041E, cmd, text));
  }
  chltype = *v.text;
  return std::nullopt;
}

exec_outcome define_object(object_catalog& catalog, const command& cmd, object_type type,
                           const exec_context& ctx) {
  if (auto f = check_object_name(cmd, type)) return *f;
  const std::string name = cmd.name->text;
  const object_family family = family_of(type);
  std::string chltype;
  if (type == object_type::channel)
    if (auto f = read_chltype(cmd, chltype)) return *f;
  change_set cs;
  if (auto f = read_parameters(catalog, cmd, type, chltype, verb_kind::define, cs)) return *f;

  const object_record* existing = catalog.find(family, name);
  if (existing != nullptr) {
    if (existing->type != type)
      // IBM refuses a REPLACE that would change the queue's type [I].
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1045E, cmd,
                          "a " + std::string(to_mqsc_word(existing->type)) + " named '" + name +
                              "' already exists; a queue's type cannot be changed"));
    if (!cs.replace)
      return failure(exec_status::failed, line(imsb::msg::IMB1043E, cmd,
                                               "object '" + name + "' already exists (REPLACE replaces it)"));
    if (type == object_type::channel && existing->text("CHLTYPE") != chltype)
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1045E, cmd,
                          "channel '" + name + "' exists with CHLTYPE(" +
                              std::string(existing->text("CHLTYPE")) + "); REPLACE cannot change it"));
  }

  // Defaults: the LIKE object, else the SYSTEM.DEFAULT.* object of the type, else the schema [I] IBM.
  const object_record* base = nullptr;
  if (cs.like) {
    base = catalog.find(family, *cs.like);
    if (base == nullptr || base->type != type ||
        (type == object_type::channel && base->text("CHLTYPE") != chltype))
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1052E, cmd,
                          "keyword LIKE: no " + std::string(to_mqsc_word(type)) +
                              (type == object_type::channel ? " of CHLTYPE(" + chltype + ")" : "") +
                              " named '" + *cs.like + "'"));
  } else if (std::string_view d = default_object_name(type, chltype); !d.empty() && name != d) {
    // Without LIKE the defaults come from the SYSTEM.DEFAULT.* object; when it was deleted IBM refuses
    // the DEFINE naming it (AMQ8147E) [I]. Redefining that object itself takes the schema's defaults [D].
    const object_record* def = catalog.find(family, d);
    if (def == nullptr || def->type != type ||
        (type == object_type::channel && def->text("CHLTYPE") != chltype))
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1044E, cmd,
                          "default object '" + std::string(d) +
                              "' not found: DEFINE without LIKE copies its attributes from it"));
    base = def;
  }
  object_record rec =
      base != nullptr ? complete(*base, type, name, chltype) : schema_defaults(type, name, chltype);
  apply_changes(rec, cs.changes);
  if (auto f = check_result(cmd, rec, true)) return *f;
  stamp(rec, ctx, true);
  if (existing != nullptr) {
    // A replaced object keeps its creation date [I].
    for (std::string_view k : {"CRDATE", "CRTIME"})
      if (rec.attrs.count(k) != 0) rec.attrs[std::string(k)] = std::string(existing->text(k));
  }
  auto put = catalog.put(std::move(rec));
  if (!put)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1042E, cmd, "cannot be stored: " + put.error().detail));
  return done(std::string(messages_of(family).created));
}

// The object of the command's family and name, checked to be of the command's type.
std::optional<exec_outcome> find_typed(const object_catalog& catalog, const command& cmd, object_type type,
                                       const object_record*& out) {
  const std::string name = cmd.name ? cmd.name->text : std::string();
  out = catalog.find(family_of(type), name);
  if (out == nullptr)
    return failure(exec_status::failed, line(imsb::msg::IMB1044E, cmd, "object '" + name + "' not found"));
  if (out->type != type)
    return failure(exec_status::failed, line(imsb::msg::IMB1045E, cmd,
                                             "'" + name + "' is a " + std::string(to_mqsc_word(out->type)) +
                                                 ", not a " + std::string(to_mqsc_word(type))));
  return std::nullopt;
}

exec_outcome alter_object(object_catalog& catalog, const command& cmd, object_type type,
                          const exec_context& ctx) {
  const object_record* existing = nullptr;
  if (auto f = find_typed(catalog, cmd, type, existing)) return *f;
  const std::string chltype(existing->text("CHLTYPE"));
  if (type == object_type::channel) {
    if (const parameter* p = cmd.find("CHLTYPE")) {
      std::string given = p->values.size() == 1 ? trim_trailing_blanks(p->values[0].text) : std::string();
      for (char& c : given)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      if (given != chltype)
        return failure(exec_status::failed, line(imsb::msg::IMB1048E, cmd,
                                                 "keyword CHLTYPE: the channel is CHLTYPE(" + chltype +
                                                     "); it cannot be changed"));
    }
  }
  change_set cs;
  if (auto f = read_parameters(catalog, cmd, type, chltype, verb_kind::alter, cs)) return *f;
  object_record rec = complete(*existing, type, existing->name, chltype);
  apply_changes(rec, cs.changes);
  if (auto f = check_result(cmd, rec, false)) return *f;
  stamp(rec, ctx, false);
  auto put = catalog.put(std::move(rec));
  if (!put)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1042E, cmd, "cannot be stored: " + put.error().detail));
  return done(std::string(messages_of(family_of(type)).changed));
}

std::string_view authrec_objtype(object_family family) {
  switch (family) {
    case object_family::queue:
      return "QUEUE";
    case object_family::namelist:
      return "NAMELIST";
    case object_family::process:
      return "PROCESS";
    case object_family::channel:
      return "CHANNEL";
    case object_family::listener:
      return "LISTENER";
    default:
      return "";
  }
}

exec_outcome delete_object(object_catalog& catalog, const command& cmd, object_type type,
                           const exec_context& ctx) {
  const object_record* existing = nullptr;
  if (auto f = find_typed(catalog, cmd, type, existing)) return *f;
  if (type == object_type::qlocal && ctx.messages_unseen)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1049E, cmd,
                        "queue manager not running: DELETE QLOCAL needs a running queue manager, the only "
                        "one that knows whether the queue holds messages (without PURGE one that does is "
                        "kept: MQRC_Q_NOT_EMPTY 2055); start it with strmqm and run the command again"));
  change_set cs;
  if (auto f = read_parameters(catalog, cmd, type, "", verb_kind::del, cs)) return *f;
  const std::string name = existing->name;
  const object_family family = family_of(type);
  catalog.erase(family, name);
  // AUTHREC(YES), IBM's default: the object's own authority records go with it [I].
  if (cs.delete_authrecs) {
    const std::string_view objtype = authrec_objtype(family);
    auto& recs = catalog.authrecs();
    recs.erase(
        std::remove_if(recs.begin(), recs.end(),
                       [&](const authority_record& a) { return a.profile == name && a.objtype == objtype; }),
        recs.end());
  }
  return done(std::string(messages_of(family).deleted));
}

// --- DISPLAY ----------------------------------------------------------------------------------

struct where_clause {
  std::string attr;
  std::string op;
  std::string value;
  bool numeric = false;
  bool list = false;
  bool flag = false;  // SHARE, TRIGGER, HARDENBO ...: value YES (the keyword in force) or NO
};

struct display_request {
  bool all = false;
  bool explicit_attrs = false;  // an attribute was asked for by name (WHERE and TYPE do not count)
  std::set<std::string> attrs;  // canonical keywords asked for (WHERE's included)
  std::vector<std::pair<std::string, std::string>> filters;  // KEYWORD(value) given on DISPLAY
  std::optional<where_clause> where;
  std::vector<object_type> types;         // the types shown
  std::vector<object_type> lookup_types;  // where keywords are looked up
  std::string chltype;                    // DISPLAY CHANNEL TYPE(SDR ...): only that CHLTYPE
  bool qlocal = false;                    // QLOCAL among the types shown
  bool status = false;  // ... and a running queue manager's CURDEPTH, IPPROCS, OPPROCS can be asked for
};

// CURDEPTH, IPPROCS and OPPROCS of a local queue come from the running queue manager
// (exec_context::local_queue_status), not the catalog: DISPLAY QLOCAL/QUEUE shows them when asked for
// by name or with ALL, and WHERE filters on them [I] IBM DISPLAY QUEUE. In keyword order.
const std::vector<attr_spec>& status_specs() {
  static const std::vector<attr_spec> specs = [] {
    std::vector<attr_spec> v(3);
    v[0].keyword = "CURDEPTH";
    v[1].keyword = "IPPROCS";
    v[2].keyword = "OPPROCS";
    for (attr_spec& a : v) {
      a.kind = attr_kind::integer;
      a.max = 999999999;
      a.read_only = true;
    }
    return v;
  }();
  return specs;
}

const attr_spec* find_status_attr(const display_request& req, std::string_view kw) {
  if (!req.qlocal) return nullptr;
  for (const attr_spec& a : status_specs())
    if (a.keyword == kw) return &a;
  return nullptr;
}

// A status attribute asked for of a stopped queue manager (runmqsc editing its catalog): IMB1049E.
std::optional<exec_outcome> status_needs_running(const command& cmd, const display_request& req,
                                                 const attr_spec* spec) {
  if (spec == nullptr || req.status || find_status_attr(req, spec->keyword) != spec) return std::nullopt;
  return failure(exec_status::failed,
                 line(imsb::msg::IMB1049E, cmd,
                      "queue manager not running: " + std::string(spec->keyword) +
                          " comes from the running queue manager; start it with strmqm, then ask again"));
}

// The attribute of any of `types` for a keyword (flags by either spelling).
const attr_spec* find_display_attr(const std::vector<object_type>& types, std::string_view kw) {
  for (object_type t : types) {
    if (const attr_spec* s = find_attr(t, kw)) return s;
    if (const attr_spec* s = find_flag(t, kw)) return s;
  }
  return nullptr;
}

bool is_integer_text(std::string_view s) {
  return !s.empty() && s.size() <= 12 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string upper_text(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// DISPLAY CHANNEL TYPE(...), IBM's documented filter on CHLTYPE [I] IBM DISPLAY CHANNEL.
std::optional<exec_outcome> read_channel_type(const command& cmd, const parameter& p, display_request& req) {
  const std::string v = upper_text(trim_trailing_blanks(first_value_text(p)));
  if (!p.has_parens || p.values.size() != 1)
    return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd, "keyword TYPE takes one value"));
  if (v == "ALL") return std::nullopt;
  if (chltype_bit_of(v) != 0) {
    req.chltype = v;
    return std::nullopt;
  }
  const attr_spec& chl = *find_attr(object_type::channel, "CHLTYPE");
  std::string_view others = chl.out_of_scope_words;
  bool ibm = false;
  for (std::size_t i = 0; i < others.size();) {
    std::size_t j = others.find(' ', i);
    if (j == std::string_view::npos) j = others.size();
    ibm = ibm || others.substr(i, j - i) == v;
    i = j + 1;
  }
  if (ibm)
    return failure(exec_status::unsupported,
                   line(imsb::msg::IMB1050E, cmd,
                        "keyword TYPE(" + v +
                            ") is not implemented by imsbridge: " + std::string(chl.out_of_scope_reason)));
  return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd,
                                           "keyword TYPE: value '" + first_value_text(p) +
                                               "' is not one of ALL, SDR, RCVR, SVRCONN"));
}

// IBM's event-switch attributes that WHERE may not filter on [I] IBM DISPLAY QUEUE.
bool is_where_forbidden(std::string_view kw) {
  return kw == "QDPHIEV" || kw == "QDPLOEV" || kw == "QDPMAXEV" || kw == "QSVCIEV";
}

std::optional<exec_outcome> read_where(const command& cmd, const parameter& p, display_request& req) {
  if (p.values.size() != 3)  // the parser sees to it; a command built by a program may not
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1041E, cmd, "keyword WHERE needs (attribute operator value)"));
  where_clause w;
  w.attr = p.values[0].text;
  w.op = p.values[1].text;
  w.value = trim_trailing_blanks(p.values[2].text);
  if (is_where_forbidden(w.attr))
    return failure(
        exec_status::failed,
        line(imsb::msg::IMB1048E, cmd, "keyword WHERE: attribute " + w.attr + " cannot be used in a filter"));
  const attr_spec* spec = find_display_attr(req.lookup_types, w.attr);
  if (spec == nullptr) spec = find_status_attr(req, w.attr);
  if (auto f = status_needs_running(cmd, req, spec)) return f;
  if (spec == nullptr && (is_ibm_keyword(family_of(req.lookup_types.front()), w.attr) || w.attr == "QTYPE"))
    return failure(exec_status::unsupported,
                   line(imsb::msg::IMB1050E, cmd,
                        "keyword WHERE: attribute " + w.attr + " is not implemented by imsbridge"));
  if (spec == nullptr)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1040E, cmd,
                        "keyword WHERE: attribute " + w.attr + " is not valid for " + cmd.object_type));
  w.flag = spec->kind == attr_kind::flag;
  if (w.flag && w.attr != spec->keyword)
    return failure(exec_status::failed, line(imsb::msg::IMB1048E, cmd,
                                             "keyword WHERE: attribute " + w.attr + ": filter on " +
                                                 std::string(spec->keyword) + " with EQ YES or EQ NO"));
  w.attr = std::string(spec->keyword);
  w.numeric = spec->kind == attr_kind::integer;
  w.list = spec->kind == attr_kind::name_list;
  const bool list_op = w.op == "CT" || w.op == "EX" || w.op == "CTG" || w.op == "EXG";
  if (list_op != w.list)
    return failure(exec_status::failed, line(imsb::msg::IMB1048E, cmd,
                                             "keyword WHERE: operator " + w.op +
                                                 (w.list ? " does not apply to the list attribute "
                                                         : " applies only to list attributes, not ") +
                                                 w.attr));
  if (w.numeric && (w.op == "LK" || w.op == "NL"))
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1048E, cmd,
                        "keyword WHERE: operator " + w.op + " does not apply to the integer " + w.attr));
  if (w.numeric && !is_integer_text(w.value))
    return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd,
                                             "keyword WHERE: value '" + w.value + "' is not an integer"));
  if (spec->kind == attr_kind::keyword || w.flag) w.value = upper_text(w.value);
  if (w.flag) {
    // A flag is filtered as YES (the keyword in force) or NO, with EQ or NE only [I] IBM WHERE.
    if (w.op != "EQ" && w.op != "NE")
      return failure(exec_status::failed, line(imsb::msg::IMB1048E, cmd,
                                               "keyword WHERE: operator " + w.op + " does not apply to " +
                                                   w.attr + " (EQ or NE only)"));
    if (w.value != "YES" && w.value != "NO")
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1041E, cmd,
                          "keyword WHERE: value '" + w.value + "' for " + w.attr + " is not one of YES, NO"));
  }
  req.attrs.insert(w.attr);
  req.where = std::move(w);
  return std::nullopt;
}

std::optional<exec_outcome> read_display(const object_catalog& catalog, const command& cmd,
                                         display_request& req, bool queue_command) {
  const bool channel_command = cmd.object_type == "CHANNEL";
  for (const parameter& p : cmd.parameters) {
    if (p.keyword == "CMDSCOPE" || p.keyword == "QSGDISP") {
      if (auto f = check_zos_option(cmd, p, catalog.qmgr_name(), true)) return f;
      continue;
    }
    if (p.keyword == "ALL" && !p.has_parens) {
      req.all = true;
      continue;
    }
    if (queue_command && p.keyword == "TYPE") {
      const std::string v = first_value_text(p);
      const auto canonical = mqsc::canonical_object_type(v);
      const std::string word = v == "ALL" ? "ALL" : canonical ? std::string(*canonical) : v;
      if (word == "QCLUSTER")
        return failure(exec_status::unsupported,
                       line(imsb::msg::IMB1050E, cmd,
                            "keyword TYPE(QCLUSTER) is not implemented by imsbridge: clusters "
                            "are out of scope"));
      if (word != "ALL") {
        const auto t = object_type_from_mqsc(word);
        if (!t || family_of(*t) != object_family::queue || p.values.size() != 1)
          return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd,
                                                   "keyword TYPE: value '" + v +
                                                       "' is not one of QLOCAL, QALIAS, QREMOTE, "
                                                       "QMODEL, ALL"));
        req.types = {*t};
      }
      continue;
    }
    if (channel_command && p.keyword == "TYPE") {
      if (auto f = read_channel_type(cmd, p, req)) return f;
      continue;
    }
    if (p.keyword == "WHERE") {
      if (auto f = read_where(cmd, p, req)) return f;
      continue;
    }
    if (queue_command && p.keyword == "QTYPE" && !p.has_parens) {
      // IBM's queue-type attribute, shown as TYPE: always shown, so asking for it asks for nothing more [D].
      req.explicit_attrs = true;
      continue;
    }
    const attr_spec* spec = find_display_attr(req.lookup_types, p.keyword);
    if (spec == nullptr) spec = find_status_attr(req, p.keyword);
    if (auto f = status_needs_running(cmd, req, spec)) return f;
    if (spec == nullptr) {
      const object_family family = family_of(req.lookup_types.front());
      if (is_ibm_keyword(family, p.keyword))
        return failure(
            exec_status::unsupported,
            line(imsb::msg::IMB1050E, cmd, "keyword " + p.keyword + " is not implemented by imsbridge"));
      return failure(
          exec_status::failed,
          line(imsb::msg::IMB1040E, cmd, "keyword " + p.keyword + " is not valid for " + cmd.object_type));
    }
    req.attrs.insert(std::string(spec->keyword));
    req.explicit_attrs = true;
    if (p.has_parens) {
      // KEYWORD(value) filters as well as asks, as IBM's DISPLAY ... CHLTYPE(SDR) does [I].
      if (p.values.size() != 1)
        return failure(exec_status::failed,
                       line(imsb::msg::IMB1041E, cmd, "keyword " + p.keyword + " takes one value"));
      std::string v = trim_trailing_blanks(p.values[0].text);
      if (spec->kind == attr_kind::keyword) v = upper_text(std::move(v));  // CHLTYPE('sdr')
      if (spec->kind == attr_kind::integer) {
        checked_value cv = check_value(*spec, p.values[0]);
        if (!cv.text && v != "*")
          return failure(exec_status::failed,
                         line(imsb::msg::IMB1041E, cmd,
                              "keyword " + p.keyword + ": value '" + v + "' " + cv.problem.reason));
        if (cv.text) v = *cv.text;
      }
      if (v != "*") req.filters.emplace_back(std::string(spec->keyword), v);
    }
  }
  return std::nullopt;
}

int compare_values(const where_clause& w, std::string_view have) {
  if (w.numeric) {
    const long long a = is_integer_text(have) ? std::stoll(std::string(have)) : -1;
    const long long b = std::stoll(w.value);
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return have.compare(w.value) < 0 ? -1 : have.compare(w.value) > 0 ? 1 : 0;
}

// Whether the WHERE holds; false when the object lacks the attribute, so that DISPLAY QUEUE(*)
// WHERE(MAXDEPTH GT 0) does not show remote queues [I] IBM DISPLAY QUEUE.
bool where_holds(const where_clause& w, const object_record& rec) {
  if (w.list) {
    auto it = rec.lists.find(w.attr);
    if (it == rec.lists.end()) return false;
    const bool generic = w.op == "CTG" || w.op == "EXG";
    const bool found = std::any_of(it->second.begin(), it->second.end(), [&](const std::string& e) {
      return generic ? matches_generic(w.value, e) : e == w.value;
    });
    return (w.op == "CT" || w.op == "CTG") ? found : !found;
  }
  auto it = rec.attrs.find(w.attr);
  if (it == rec.attrs.end()) return false;
  if (w.flag) {
    const bool on = it->second == w.attr;
    return (w.op == "EQ") == (on == (w.value == "YES"));
  }
  const std::string& have = it->second;
  if (w.op == "LK") return matches_generic(w.value, have);
  if (w.op == "NL") return !matches_generic(w.value, have);
  const int c = compare_values(w, have);
  if (w.op == "EQ") return c == 0;
  if (w.op == "NE") return c != 0;
  if (w.op == "LT") return c < 0;
  if (w.op == "GT") return c > 0;
  if (w.op == "LE") return c <= 0;
  if (w.op == "GE") return c >= 0;
  return false;
}

bool filters_hold(const display_request& req, const object_record& rec) {
  for (const auto& [k, v] : req.filters) {
    auto it = rec.attrs.find(k);
    if (it == rec.attrs.end() || !matches_generic(v, it->second)) return false;
  }
  return !req.where || where_holds(*req.where, rec);
}

// The lines of one object: its details line, then the name and type, then the attributes asked for in
// alphabetical order (all of them with ALL), each only where the object has it.
void show(const object_record& rec, const display_request& req, std::vector<std::string>& lines) {
  const object_family family = family_of(rec.type);
  lines.emplace_back(messages_of(family).details);
  std::vector<std::string> items;
  items.push_back(item(name_keyword(rec.type), rec.name));
  if (family == object_family::queue) items.push_back(item("TYPE", to_mqsc_word(rec.type)));
  if (family == object_family::channel) items.push_back(item("CHLTYPE", rec.text("CHLTYPE")));
  // A local queue's status attributes (only a record display_objects gave them has them), in keyword
  // order among the others.
  auto status = status_specs().begin();
  const auto status_before = [&](std::string_view kw) {
    for (; status != status_specs().end() && (kw.empty() || status->keyword < kw); ++status)
      if (req.all || req.attrs.count(std::string(status->keyword)) != 0) add_attr_item(rec, *status, items);
  };
  for (const attr_spec& s : schema_of(rec.type)) {
    status_before(s.keyword);
    if (s.keyword == "CHLTYPE" || s.keyword == "QMNAME") continue;
    if (!req.all && req.attrs.count(std::string(s.keyword)) == 0) continue;
    add_attr_item(rec, s, items);
  }
  status_before({});
  lay_out(items, lines);
}

exec_outcome display_objects(const object_catalog& catalog, const command& cmd,
                             std::vector<object_type> types, const exec_context& ctx) {
  display_request req;
  req.types = std::move(types);
  req.lookup_types = req.types;  // DISPLAY QUEUE: all four, whatever TYPE(...) narrows the display to
  req.qlocal = std::find(req.types.begin(), req.types.end(), object_type::qlocal) != req.types.end();
  req.status = req.qlocal && ctx.local_queue_status;
  if (auto f = read_display(catalog, cmd, req, cmd.object_type == "QUEUE")) return *f;
  const std::string pattern = cmd.name ? cmd.name->text : std::string("*");
  // "ALL is assumed by default if no specific attributes are requested and the name is not generic"
  // [I] IBM DISPLAY QUEUE; a generic name with none shows the name and type only.
  const bool generic = !cmd.name || cmd.name->is_generic();
  if (!req.explicit_attrs && !generic) req.all = true;
  exec_outcome out;
  std::size_t matched = 0;
  const object_family family = family_of(req.types.front());
  for (const object_record* rec : catalog.list(family)) {
    if (std::find(req.types.begin(), req.types.end(), rec->type) == req.types.end()) continue;
    if (!req.chltype.empty() && rec->text("CHLTYPE") != req.chltype) continue;
    if (!matches_generic(pattern, rec->name)) continue;
    ++matched;
    const object_record* shown = rec;
    object_record with_status;
    if (req.status && rec->type == object_type::qlocal) {
      if (const auto st = ctx.local_queue_status(rec->name)) {
        with_status = *rec;
        with_status.attrs["CURDEPTH"] = std::to_string(st->curdepth);
        with_status.attrs["IPPROCS"] = std::to_string(st->ipprocs);
        with_status.attrs["OPPROCS"] = std::to_string(st->opprocs);
        shown = &with_status;
      }
    }
    if (filters_hold(req, *shown)) show(*shown, req, out.lines);
  }
  // IBM reports a DISPLAY whose name matches nothing as an object not found [I] (AMQ8147E); one whose
  // filters leave nothing shows nothing and has worked [I].
  if (matched == 0)
    return failure(exec_status::failed, line(imsb::msg::IMB1044E, cmd, "object '" + pattern + "' not found"));
  return out;
}

// --- QMGR ---------------------------------------------------------------------------------------

// IBM's QMID: the queue manager's name, creation date and time [I] (QM1_2026-11-29_19.08.32).
std::string qmid_of(const object_record& qm) {
  return qm.name + "_" + std::string(qm.text("CRDATE")) + "_" + std::string(qm.text("CRTIME"));
}

object_record full_qmgr(const object_catalog& catalog) {
  object_record r = complete(catalog.qmgr(), object_type::qmgr, catalog.qmgr_name(), "");
  // The read-only values are IBM's constants, whatever an older catalog holds.
  for (const attr_spec& s : schema_of(object_type::qmgr))
    if (s.read_only && !s.default_value.empty())
      r.attrs[std::string(s.keyword)] = std::string(s.default_value);
  r.attrs["QMID"] = qmid_of(r);
  return r;
}

exec_outcome alter_qmgr(object_catalog& catalog, const command& cmd, const exec_context& ctx) {
  change_set cs;
  if (auto f = read_parameters(catalog, cmd, object_type::qmgr, "", verb_kind::alter, cs)) return *f;
  object_record rec = full_qmgr(catalog);
  apply_changes(rec, cs.changes);
  stamp(rec, ctx, false);
  catalog.qmgr() = std::move(rec);
  return done(std::string(messages_of(object_family::qmgr).changed));
}

exec_outcome display_qmgr(const object_catalog& catalog, const command& cmd) {
  display_request req;
  req.types = {object_type::qmgr};
  req.lookup_types = req.types;
  if (auto f = read_display(catalog, cmd, req, false)) return *f;
  // DISPLAY QMGR with no attribute shows them all [I] IBM (ALL is its default).
  if (!req.explicit_attrs) req.all = true;
  const object_record rec = full_qmgr(catalog);
  exec_outcome out;
  // Filtered out: nothing shown, and the command has worked (as DISPLAY of objects does).
  if (filters_hold(req, rec)) show(rec, req, out.lines);
  return out;
}

// --- AUTHREC ------------------------------------------------------------------------------------

struct authrec_params {
  std::optional<std::string> profile, objtype, principal, group, match;
  std::vector<std::string> add, remove;
  bool has_add = false, has_remove = false;
};

std::optional<exec_outcome> read_authrec(const command& cmd, authrec_params& a, bool set) {
  for (const parameter& p : cmd.parameters) {
    auto one = [&](std::optional<std::string>& slot) -> std::optional<exec_outcome> {
      if (!p.has_parens || p.values.size() != 1 || trim_trailing_blanks(p.values[0].text).empty())
        return failure(exec_status::failed,
                       line(imsb::msg::IMB1041E, cmd, "keyword " + p.keyword + " needs one value"));
      slot = trim_trailing_blanks(p.values[0].text);
      return std::nullopt;
    };
    std::optional<exec_outcome> f;
    if (p.keyword == "PROFILE") {
      f = one(a.profile);
      if (!f && a.profile->size() > 48)
        f = failure(exec_status::failed,
                    line(imsb::msg::IMB1041E, cmd, "keyword PROFILE: value is longer than 48 characters"));
    } else if (p.keyword == "OBJTYPE") {
      f = one(a.objtype);
      if (!f && !is_authrec_objtype(*a.objtype))
        f = failure(exec_status::failed,
                    line(imsb::msg::IMB1041E, cmd,
                         "keyword OBJTYPE: value '" + *a.objtype + "' is not an object type"));
    } else if (p.keyword == "PRINCIPAL") {
      f = one(a.principal);
    } else if (p.keyword == "GROUP") {
      f = one(a.group);
    } else if (set && (p.keyword == "AUTHADD" || p.keyword == "AUTHRMV")) {
      auto& list = p.keyword == "AUTHADD" ? a.add : a.remove;
      (p.keyword == "AUTHADD" ? a.has_add : a.has_remove) = true;
      if (!p.has_parens)
        return failure(exec_status::failed,
                       line(imsb::msg::IMB1041E, cmd, "keyword " + p.keyword + " needs a list"));
      for (const auto& v : p.values) {
        std::string w = v.text;
        for (char& c : w)
          if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        if (!is_authority_word(w))
          return failure(exec_status::failed,
                         line(imsb::msg::IMB1041E, cmd,
                              "keyword " + p.keyword + ": value '" + v.text + "' is not an authority"));
        list.push_back(std::move(w));
      }
    } else if (!set && p.keyword == "MATCH") {
      f = one(a.match);
      if (!f) {
        a.match = upper_text(*a.match);
        if (*a.match == "MEMBERSHIP")
          f = failure(exec_status::unsupported,
                      line(imsb::msg::IMB1050E, cmd,
                           "keyword MATCH(MEMBERSHIP) is not implemented by imsbridge: it needs the "
                           "operating system's group membership"));
        else if (*a.match != "PROFILE" && *a.match != "EXACT")
          f = failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd,
                                                "keyword MATCH: value '" + *a.match +
                                                    "' is not one of PROFILE, EXACT, MEMBERSHIP"));
      }
    } else if (!set && (p.keyword == "ALL" || p.keyword == "ENTTYPE" || p.keyword == "ENTITY" ||
                        p.keyword == "AUTHLIST")) {
      continue;
    } else if (p.keyword == "SERVCOMP") {
      continue;
    } else {
      return failure(exec_status::failed,
                     line(imsb::msg::IMB1040E, cmd,
                          "keyword " + p.keyword + " is not valid for " + cmd.verb + " AUTHREC"));
    }
    if (f) return f;
  }
  if (a.principal && a.group)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1048E, cmd, "keywords PRINCIPAL and GROUP: give only one"));
  return std::nullopt;
}

std::optional<exec_outcome> require_entity(const command& cmd, authrec_params& a,
                                           const object_catalog& catalog) {
  if (!a.objtype)
    return failure(exec_status::failed, line(imsb::msg::IMB1046E, cmd, "keyword OBJTYPE is required"));
  if (!a.profile) {
    if (*a.objtype != "QMGR")
      return failure(exec_status::failed, line(imsb::msg::IMB1046E, cmd, "keyword PROFILE is required"));
    a.profile = catalog.qmgr_name();  // the queue manager's profile is its name [I]
  }
  if (!a.principal && !a.group)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1046E, cmd, "keyword PRINCIPAL or GROUP is required"));
  return std::nullopt;
}

bool same_entity(const authority_record& r, const authrec_params& a) {
  return r.profile == *a.profile && r.objtype == *a.objtype && r.principal == a.principal.value_or("") &&
         r.group == a.group.value_or("");
}

// AUTHADD/AUTHRMV words as the individual authorities of the OBJTYPE; the failure when one does not
// apply to it.
std::optional<exec_outcome> expand_authorities(const command& cmd, std::string_view keyword,
                                               const std::string& objtype,
                                               const std::vector<std::string>& words,
                                               std::set<std::string>& out) {
  for (const std::string& w : words) {
    authority_expansion e = expand_authority(objtype, w);
    if (!e.applies)
      return failure(exec_status::failed, line(imsb::msg::IMB1041E, cmd,
                                               "keyword " + std::string(keyword) + ": authority " + w +
                                                   " does not apply to OBJTYPE(" + objtype + ")"));
    out.insert(e.words.begin(), e.words.end());
  }
  return std::nullopt;
}

exec_outcome set_authrec(object_catalog& catalog, const command& cmd) {
  authrec_params a;
  if (auto f = read_authrec(cmd, a, true)) return *f;
  if (auto f = require_entity(cmd, a, catalog)) return *f;
  if (!a.has_add && !a.has_remove)
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1046E, cmd, "keyword AUTHADD or AUTHRMV is required"));
  std::set<std::string> add, remove;
  if (auto f = expand_authorities(cmd, "AUTHADD", *a.objtype, a.add, add)) return *f;
  if (auto f = expand_authorities(cmd, "AUTHRMV", *a.objtype, a.remove, remove)) return *f;
  auto& recs = catalog.authrecs();
  auto it =
      std::find_if(recs.begin(), recs.end(), [&](const authority_record& r) { return same_entity(r, a); });
  if (it == recs.end() && !a.has_add)
    return failure(exec_status::failed, line(imsb::msg::IMB1044E, cmd,
                                             "no authority record for profile '" + *a.profile +
                                                 "' and that entity: nothing to remove"));
  authority_record rec;
  if (it != recs.end()) rec = *it;
  rec.profile = *a.profile;
  rec.objtype = *a.objtype;
  rec.principal = a.principal.value_or("");
  rec.group = a.group.value_or("");
  std::set<std::string> auths(rec.authorities.begin(), rec.authorities.end());
  for (const auto& w : remove) auths.erase(w);
  auths.insert(add.begin(), add.end());
  // A record whose authorities are all removed stays, shown as AUTHLIST(NONE): "*ALL leaves the profile
  // in existence with no authorities" (only DELETE AUTHREC removes it) [I] IBM RVKMQMAUT.
  rec.authorities.assign(auths.begin(), auths.end());
  if (it != recs.end())
    *it = std::move(rec);
  else
    recs.push_back(std::move(rec));
  return done(std::string(imsb::msg::IMB1027I) + ": Authority record set.");
}

exec_outcome delete_authrec(object_catalog& catalog, const command& cmd) {
  authrec_params a;
  if (auto f = read_authrec(cmd, a, false)) return *f;
  if (auto f = require_entity(cmd, a, catalog)) return *f;
  auto& recs = catalog.authrecs();
  auto it =
      std::find_if(recs.begin(), recs.end(), [&](const authority_record& r) { return same_entity(r, a); });
  if (it == recs.end())
    return failure(exec_status::failed,
                   line(imsb::msg::IMB1044E, cmd, "no authority record for profile '" + *a.profile + "'"));
  recs.erase(it);
  return done(std::string(imsb::msg::IMB1028I) + ": Authority record deleted.");
}

exec_outcome display_authrec(const object_catalog& catalog, const command& cmd) {
  authrec_params a;
  if (auto f = read_authrec(cmd, a, false)) return *f;
  exec_outcome out;
  for (const authority_record& r : catalog.authrecs()) {
    // MATCH(PROFILE), the default: the stored profiles that cover the given name (IBM: PROFILE(ABCD)
    // returns ABCD, ABC* and AB*); MATCH(EXACT): only that profile [I] IBM DISPLAY AUTHREC.
    const bool exact = a.match && *a.match == "EXACT";
    if (a.profile && r.profile != *a.profile && (exact || !generic_profile_matches(r.profile, *a.profile)))
      continue;
    if (a.objtype && r.objtype != *a.objtype) continue;
    if (a.principal && r.principal != *a.principal) continue;
    if (a.group && r.group != *a.group) continue;
    out.lines.emplace_back(std::string(imsb::msg::IMB1029I) + ": Display authority record details.");
    const bool principal = !r.principal.empty();
    lay_out({item("PROFILE", r.profile), item("ENTITY", principal ? r.principal : r.group),
             item("ENTTYPE", principal ? "PRINCIPAL" : "GROUP"), item("OBJTYPE", r.objtype),
             item("AUTHLIST", r.authorities.empty() ? std::string("NONE") : join(r.authorities, ","))},
            out.lines);
  }
  if (out.lines.empty())
    return failure(exec_status::failed, line(imsb::msg::IMB1044E, cmd, "no authority record matches"));
  return out;
}

// --- dispatch -----------------------------------------------------------------------------------

// Commands that act on a running queue manager.
bool is_runtime_command(const command& cmd) {
  const std::string& v = cmd.verb;
  const std::string& o = cmd.object_type;
  return v == "START" || v == "STOP" || v == "CLEAR" || v == "RESET" || v == "SUSPEND" || v == "RESUME" ||
         (v == "DISPLAY" && (o == "QSTATUS" || o == "CHSTATUS"));
}

}  // namespace

exec_outcome execute(object_catalog& catalog, const mqsc::command& cmd, const exec_context& ctx) {
  if (cmd.verb == "END") {
    exec_outcome o;
    o.status = exec_status::end;
    return o;
  }
  if (!cmd.supported)
    return failure(exec_status::unsupported, line(imsb::msg::IMB1050E, cmd, cmd.unsupported_reason));
  if (is_runtime_command(cmd)) {
    if (!ctx.qmgr_running)
      return failure(exec_status::failed, line(imsb::msg::IMB1049E, cmd,
                                               "queue manager not running: " + cmd.verb + " " +
                                                   cmd.object_type + " needs a running queue manager"));
    return failure(exec_status::unsupported,
                   line(imsb::msg::IMB1050E, cmd,
                        cmd.verb + " " + cmd.object_type + " is not implemented by imsbridge yet"));
  }
  if (cmd.object_type == "AUTHREC") {
    if (cmd.verb == "SET") return set_authrec(catalog, cmd);
    if (cmd.verb == "DELETE") return delete_authrec(catalog, cmd);
    return display_authrec(catalog, cmd);
  }
  if (cmd.object_type == "QMGR") {
    if (cmd.verb == "ALTER") return alter_qmgr(catalog, cmd, ctx);
    if (cmd.verb == "DISPLAY") return display_qmgr(catalog, cmd);
  }
  if (cmd.object_type == "QUEUE" && cmd.verb == "DISPLAY")
    return display_objects(
        catalog, cmd, {object_type::qlocal, object_type::qalias, object_type::qremote, object_type::qmodel},
        ctx);
  const auto type = object_type_from_mqsc(cmd.object_type);
  if (!type || *type == object_type::qmgr)
    return failure(exec_status::unsupported,
                   line(imsb::msg::IMB1050E, cmd, mqsc::unsupported_reason(cmd.verb, cmd.object_type)));
  if (cmd.verb == "DEFINE") return define_object(catalog, cmd, *type, ctx);
  if (cmd.verb == "ALTER") return alter_object(catalog, cmd, *type, ctx);
  if (cmd.verb == "DELETE") return delete_object(catalog, cmd, *type, ctx);
  if (cmd.verb == "DISPLAY") return display_objects(catalog, cmd, {*type}, ctx);
  return failure(exec_status::unsupported,
                 line(imsb::msg::IMB1050E, cmd, mqsc::unsupported_reason(cmd.verb, cmd.object_type)));
}

// --- run_script ---------------------------------------------------------------------------------

namespace {

// runmqsc's echo: the command number right-aligned in 6 columns, " : ", the text; continuation lines
// under it with the number blank [I] IBM runmqsc.
void echo(std::size_t number, std::string_view text, std::vector<std::string>& lines) {
  std::size_t start = 0;
  bool first = true;
  for (;;) {
    const std::size_t nl = text.find('\n', start);
    const std::string_view part =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    std::string n = first ? std::to_string(number) : std::string();
    std::string l(n.size() < 6 ? 6 - n.size() : 0, ' ');
    l.append(n).append(" : ").append(part);
    lines.push_back(std::move(l));
    first = false;
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

std::string count_text(std::size_t n, std::string_view one, std::string_view many, std::string_view none) {
  if (n == 0) return std::string(none);
  if (n == 1) return std::string(one);
  return std::to_string(n) + std::string(many);
}

}  // namespace

script_runner::script_runner(object_catalog& catalog, exec_context ctx)
    : catalog_(catalog), ctx_(std::move(ctx)) {}

std::vector<std::string> script_runner::feed_line(std::string_view line) {
  std::vector<std::string> lines;
  for (;;) {
    const std::size_t nl = line.find('\n');
    std::string_view one = line.substr(0, nl);
    if (!ended_) {
      ++line_no_;
      if (!one.empty() && one.back() == '\r') one.remove_suffix(1);
      const std::size_t first = one.find_first_not_of(" \t");
      const bool skipped = first == std::string_view::npos || one[0] == '*';  // blank or comment
      if (!skipped || in_command()) {
        // Comment and blank lines inside a continued command are kept so that the parser's line
        // numbers, counted from the command's first line, stay the script's.
        if (in_command()) {
          pending_ += '\n';
        } else {
          first_line_ = line_no_;
        }
        pending_.append(one);
      }
      if (!skipped) {
        const char tail = one[one.find_last_not_of(" \t")];
        if (tail != '-' && tail != '+') run_pending(lines);
      }
    }
    if (nl == std::string_view::npos) break;
    line.remove_prefix(nl + 1);
  }
  return lines;
}

void script_runner::run_pending(std::vector<std::string>& lines) {
  const std::string chunk = std::exchange(pending_, std::string());
  const std::vector<mqsc::command_source> sources = mqsc::split_commands(chunk);
  if (sources.empty()) return;
  const mqsc::command_source& src = sources.front();
  const std::size_t shift = first_line_ - 1;  // the chunk's line 1 is the script's first_line_
  mqsc::parse_result parsed = mqsc::parse(chunk);
  if (!parsed.commands.empty()) {
    mqsc::command& cmd = parsed.commands.front();
    cmd.line += shift;
    for (auto& p : cmd.parameters) p.line += shift;
    if (cmd.verb == "END") {
      echo(progress_.read + 1, cmd.text.empty() ? src.lines : cmd.text, lines);
      ended_ = true;
      return;
    }
    ++progress_.read;
    echo(progress_.read, cmd.text.empty() ? src.lines : cmd.text, lines);
    exec_outcome r = execute(catalog_, cmd, ctx_);
    for (auto& l : r.lines) lines.push_back(std::move(l));
    if (r.status == exec_status::failed || r.status == exec_status::unsupported) ++progress_.failed;
    if (r.changed) {
      ++changes_;
      progress_.changed = true;
    }
    return;
  }
  if (!parsed.errors.empty()) {
    mqsc::parse_error& e = parsed.errors.front();
    e.line += shift;
    ++progress_.read;
    ++progress_.syntax_errors;
    echo(progress_.read, src.lines, lines);
    lines.push_back(std::string(imsb::msg::IMB1051E) + ": MQSC syntax error: " + e.message());
  }
}

script_outcome script_runner::finish() {
  std::vector<std::string> lines;
  if (!ended_ && in_command()) run_pending(lines);  // continued past the last line
  ended_ = true;
  script_outcome out = progress_;
  out.lines = std::move(lines);
  out.lines.emplace_back();
  out.lines.push_back(out.read == 0   ? std::string("No MQSC commands read.")
                      : out.read == 1 ? std::string("One MQSC command read.")
                                      : std::to_string(out.read) + " MQSC commands read.");
  out.lines.push_back(count_text(out.syntax_errors, "One command has a syntax error.",
                                 " commands have a syntax error.", "No commands have a syntax error."));
  out.lines.push_back(count_text(out.failed, "One valid MQSC command could not be processed.",
                                 " valid MQSC commands could not be processed.",
                                 "All valid MQSC commands were processed."));
  return out;
}

script_outcome run_script(object_catalog& catalog, std::string_view script, const exec_context& ctx) {
  script_runner runner(catalog, ctx);
  std::vector<std::string> lines;
  for (std::size_t pos = 0; pos <= script.size() && !runner.ended();) {
    const std::size_t nl = std::min(script.find('\n', pos), script.size());
    for (auto& l : runner.feed_line(script.substr(pos, nl - pos))) lines.push_back(std::move(l));
    pos = nl + 1;
  }
  script_outcome out = runner.finish();
  lines.insert(lines.end(), std::make_move_iterator(out.lines.begin()),
               std::make_move_iterator(out.lines.end()));
  out.lines = std::move(lines);
  return out;
}

// --- new_queue_manager ----------------------------------------------------------------------------

result<object_catalog> new_queue_manager(std::string_view qmgr_name, names::fs_profile profile,
                                         std::string_view deadq, std::string_view defxmitq,
                                         const exec_context& ctx) {
  auto bad = [](std::string field, std::string detail) {
    return decode_error{std::make_error_code(std::errc::invalid_argument), std::move(field), 0,
                        std::move(detail)};
  };
  if (auto p = names::check_queue_manager_name(qmgr_name, names::qmgr_platform::distributed))
    return bad("qmgr", p->reason);
  if (!deadq.empty())
    if (auto p = names::check_mq_object_name(deadq, names::mq_object_type::queue))
      return bad("deadq", p->reason);
  if (!defxmitq.empty())
    if (auto p = names::check_mq_object_name(defxmitq, names::mq_object_type::queue))
      return bad("defxmitq", p->reason);
  // One queue cannot be both: the dead-letter queue is USAGE(NORMAL), a transmission queue USAGE(XMITQ).
  if (!deadq.empty() && deadq == defxmitq)
    return bad("defxmitq", "is the same queue as the dead-letter queue");

  object_catalog catalog(std::string(qmgr_name), profile);
  object_record qm = schema_defaults(object_type::qmgr, qmgr_name);
  qm.attrs["DEADQ"] = std::string(deadq);
  qm.attrs["DEFXMITQ"] = std::string(defxmitq);
  stamp(qm, ctx, true);
  qm.attrs["QMID"] = qmid_of(qm);
  catalog.qmgr() = std::move(qm);

  std::vector<object_record> objects;
  auto add = [&](object_type type, std::string_view name, std::string_view chltype = {}) -> object_record& {
    object_record r = schema_defaults(type, name, chltype);
    stamp(r, ctx, true);
    objects.push_back(std::move(r));
    return objects.back();
  };
  // IBM's default and system objects (crtmqm) [I]; DEFINE copies its defaults from the SYSTEM.DEFAULT.*
  // ones, so they hold the schema's defaults.
  add(object_type::qlocal, "SYSTEM.DEFAULT.LOCAL.QUEUE");
  add(object_type::qalias, "SYSTEM.DEFAULT.ALIAS.QUEUE");
  add(object_type::qremote, "SYSTEM.DEFAULT.REMOTE.QUEUE");
  add(object_type::qmodel, "SYSTEM.DEFAULT.MODEL.QUEUE");
  add(object_type::qlocal, "SYSTEM.DEFAULT.INITIATION.QUEUE");
  add(object_type::qlocal, "SYSTEM.ADMIN.COMMAND.QUEUE");
  for (std::string_view e :
       {"SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.CHANNEL.EVENT", "SYSTEM.ADMIN.PERFM.EVENT",
        "SYSTEM.ADMIN.CONFIG.EVENT", "SYSTEM.ADMIN.COMMAND.EVENT", "SYSTEM.ADMIN.LOGGER.EVENT"})
    add(object_type::qlocal, e);
  add(object_type::stgclass, "DEFAULT");
  add(object_type::namelist, "SYSTEM.DEFAULT.NAMELIST");
  add(object_type::process, "SYSTEM.DEFAULT.PROCESS");
  add(object_type::channel, "SYSTEM.DEF.SENDER", "SDR");
  add(object_type::channel, "SYSTEM.DEF.RECEIVER", "RCVR");
  add(object_type::channel, "SYSTEM.DEF.SVRCONN", "SVRCONN");
  add(object_type::listener, "SYSTEM.DEFAULT.LISTENER.TCP");
  // DEADQ and DEFXMITQ are made as local queues (a transmission queue is a QLOCAL USAGE(XMITQ)
  // [C: XMITQ-DEF]; the DLQ one [D]). A name that is already a default queue of another type would
  // replace that default, which DEFINE QMODEL/QALIAS/QREMOTE copy from, or leave DEADQ naming a model,
  // so it is refused. Queues only: namelists, processes and channels have their own name spaces.
  for (const object_record& r : objects) {
    if (family_of(r.type) != object_family::queue || r.type == object_type::qlocal) continue;
    for (auto [field, name] : {std::pair{"deadq", deadq}, std::pair{"defxmitq", defxmitq}})
      if (name == r.name)
        return bad(field, "'" + r.name + "' is the default " + std::string(to_mqsc_word(r.type)) +
                              " of the queue manager, not a local queue");
  }
  if (!deadq.empty()) add(object_type::qlocal, deadq);
  if (!defxmitq.empty()) add(object_type::qlocal, defxmitq).attrs["USAGE"] = "XMITQ";
  for (object_record& r : objects) {
    const std::string n = r.name;
    auto put = catalog.put(std::move(r));
    if (!put) return bad(n == deadq ? "deadq" : n == defxmitq ? "defxmitq" : "qmgr", put.error().detail);
  }
  return catalog;
}

}  // namespace imsb::objects
