// The attribute tables. Keywords, ranges, words and defaults are IBM's (its DEFINE STGCLASS and DISPLAY
// QUEUE pages [C: STGCLASS, STGCLASS-V6, DISPLAY-QUEUE] where they give them; the MQSC command reference
// DEFINE QLOCAL, DEFINE CHANNEL ... and the default objects' DISPLAY output for the rest [I]). What
// imsbridge leaves out of a keyword's values is marked out of scope with the reason, so that such a
// command is reported as not supported [D].

#include "imsb/objects/schema.hpp"

#include <algorithm>
#include <array>

namespace imsb::objects {
namespace {

using names::mq_object_type;

constexpr std::int64_t nines = 999999999;
constexpr std::string_view cluster_note = "clusters are out of scope";

attr_spec integer(std::string_view kw, std::int64_t lo, std::int64_t hi, std::string_view def) {
  attr_spec s;
  s.keyword = kw;
  s.kind = attr_kind::integer;
  s.min = lo;
  s.max = hi;
  s.default_value = def;
  return s;
}

attr_spec keyword(std::string_view kw, std::string_view words, std::string_view def) {
  attr_spec s;
  s.keyword = kw;
  s.kind = attr_kind::keyword;
  s.words = words;
  s.default_value = def;
  return s;
}

attr_spec string(std::string_view kw, std::int64_t length, std::string_view def = {}) {
  attr_spec s;
  s.keyword = kw;
  s.kind = attr_kind::string;
  s.max = length;
  s.default_value = def;
  return s;
}

attr_spec name(std::string_view kw, mq_object_type type, std::string_view def = {}) {
  attr_spec s;
  s.keyword = kw;
  s.kind = attr_kind::name;
  s.name_type = type;
  s.default_value = def;
  return s;
}

attr_spec flag(std::string_view kw, std::string_view off, std::string_view def) {
  attr_spec s;
  s.keyword = kw;
  s.kind = attr_kind::flag;
  s.off_word = off;
  s.default_value = def;
  return s;
}

attr_spec read_only(attr_spec s) {
  s.read_only = true;
  return s;
}

attr_spec synonym(attr_spec s, std::string_view syn) {
  s.synonym = syn;
  return s;
}

attr_spec out_of_scope(attr_spec s, std::string_view words, std::string_view reason) {
  s.out_of_scope_words = words;
  s.out_of_scope_reason = reason;
  return s;
}

attr_spec channels(attr_spec s, std::uint8_t mask) {
  s.channel_types = mask;
  return s;
}

constexpr std::string_view enabled = "ENABLED DISABLED";
constexpr std::string_view event_words = "ENABLED DISABLED";

// DESCR is 64 characters on every object ([C: STGCLASS-V6] for STGCLASS; the same on the others [I]).
attr_spec descr() { return string("DESCR", 64); }

void add_dates(std::vector<attr_spec>& t) {
  for (std::string_view k : {"ALTDATE", "ALTTIME", "CRDATE", "CRTIME"}) t.push_back(read_only(string(k, 12)));
}

// CLUSTER and CLUSNL are IBM's; only their blank value is in scope.
void add_cluster(std::vector<attr_spec>& t) {
  t.push_back(out_of_scope(name("CLUSNL", mq_object_type::namelist), "*", cluster_note));
  t.push_back(out_of_scope(name("CLUSTER", mq_object_type::cluster), "*", cluster_note));
}

// What every queue type has ([C: DISPLAY-QUEUE] for the keywords, [I] defaults).
void add_queue_common(std::vector<attr_spec>& t, bool has_get) {
  t.push_back(integer("DEFPRTY", 0, 9, "0"));
  t.push_back(keyword("DEFPSIST", "NO YES", "NO"));
  t.push_back(descr());
  if (has_get) t.push_back(keyword("GET", enabled, "ENABLED"));
  t.push_back(keyword("PUT", enabled, "ENABLED"));
  add_dates(t);
  add_cluster(t);
}

// QLOCAL and QMODEL ([C: DISPLAY-QUEUE]; defaults of SYSTEM.DEFAULT.LOCAL.QUEUE [I]).
void add_local(std::vector<attr_spec>& t) {
  add_queue_common(t, true);
  t.push_back(name("BOQNAME", mq_object_type::queue));
  t.push_back(integer("BOTHRESH", 0, nines, "0"));
  t.push_back(keyword("DEFSOPT", "EXCL SHARED", "SHARED"));
  t.push_back(flag("HARDENBO", "NOHARDENBO", "NOHARDENBO"));
  t.push_back(name("INITQ", mq_object_type::queue));
  t.push_back(integer("MAXDEPTH", 0, nines, "5000"));
  t.push_back(integer("MAXMSGL", 0, 104857600, "4194304"));
  t.push_back(keyword("MSGDLVSQ", "PRIORITY FIFO", "PRIORITY"));
  t.push_back(name("PROCESS", mq_object_type::process));
  t.push_back(integer("QDEPTHHI", 0, 100, "80"));
  t.push_back(integer("QDEPTHLO", 0, 100, "20"));
  t.push_back(keyword("QDPHIEV", event_words, "DISABLED"));
  t.push_back(keyword("QDPLOEV", event_words, "DISABLED"));
  t.push_back(keyword("QDPMAXEV", event_words, "ENABLED"));
  t.push_back(keyword("QSVCIEV", "HIGH OK NONE", "NONE"));
  t.push_back(integer("QSVCINT", 0, nines, "999999999"));
  t.push_back(integer("RETINTVL", 0, nines, "999999999"));
  t.push_back(flag("SHARE", "NOSHARE", "SHARE"));
  // Storage class DEFAULT [I] (IBM's default storage class on z/OS).
  t.push_back(name("STGCLASS", mq_object_type::storage_class, "DEFAULT"));
  t.push_back(string("TRIGDATA", 64));
  t.push_back(integer("TRIGDPTH", 1, nines, "1"));
  t.push_back(flag("TRIGGER", "NOTRIGGER", "NOTRIGGER"));
  t.push_back(integer("TRIGMPRI", 0, 9, "0"));
  t.push_back(keyword("TRIGTYPE", "FIRST EVERY DEPTH NONE", "FIRST"));
  t.push_back(keyword("USAGE", "NORMAL XMITQ", "NORMAL"));
}

std::vector<attr_spec> build(object_type type) {
  std::vector<attr_spec> t;
  switch (type) {
    case object_type::qlocal:
      add_local(t);
      break;
    case object_type::qmodel:
      add_local(t);
      t.push_back(out_of_scope(keyword("DEFTYPE", "PERMDYN TEMPDYN", "TEMPDYN"), "SHAREDYN",
                               "queue-sharing groups are out of scope"));
      break;
    case object_type::qalias:
      add_queue_common(t, true);
      // TARGQ is the older spelling of TARGET [C: MQSC-RULES].
      t.push_back(synonym(name("TARGET", mq_object_type::queue), "TARGQ"));
      t.push_back(
          out_of_scope(keyword("TARGTYPE", "QUEUE", "QUEUE"), "TOPIC", "publish/subscribe is out of scope"));
      break;
    case object_type::qremote:
      add_queue_common(t, false);
      t.push_back(name("RNAME", mq_object_type::queue));
      t.push_back(name("RQMNAME", mq_object_type::queue_manager));
      t.push_back(name("XMITQ", mq_object_type::queue));
      break;
    case object_type::stgclass: {
      // [C: STGCLASS, STGCLASS-V6, EXPLORER-STGCLASS]
      t.push_back(descr());
      t.push_back(string("PASSTKTA", 8));
      t.push_back(integer("PSID", 0, 99, "0"));
      attr_spec g;
      g.keyword = "XCFGNAME";
      g.kind = attr_kind::xcf_group;
      t.push_back(g);
      attr_spec m;
      m.keyword = "XCFMNAME";
      m.kind = attr_kind::xcf_member;
      t.push_back(m);
      t.push_back(read_only(string("ALTDATE", 12)));
      t.push_back(read_only(string("ALTTIME", 12)));
      break;
    }
    case object_type::namelist: {
      t.push_back(descr());
      attr_spec n;
      n.keyword = "NAMES";
      n.kind = attr_kind::name_list;
      n.max = 256;  // IBM: up to 256 names [I]
      t.push_back(n);
      t.push_back(keyword("NLTYPE", "NONE QUEUE CLUSTER AUTHINFO", "NONE"));
      add_dates(t);
      break;
    }
    case object_type::process:
      t.push_back(string("APPLICID", 256));
      t.push_back(keyword("APPLTYPE", "CICS DEF DOS IMS MVS NOTESAGENT NSK OS400 UNIX WINDOWS WINDOWSNT WLM",
                          "UNIX"));
      t.push_back(descr());
      t.push_back(string("ENVRDATA", 128));
      t.push_back(string("USERDATA", 128));
      add_dates(t);
      break;
    case object_type::channel: {
      constexpr std::uint8_t sr = chl_sdr | chl_rcvr;
      t.push_back(channels(integer("BATCHSZ", 1, 9999, "50"), sr));
      t.push_back(channels(out_of_scope(keyword("CHLTYPE", "SDR RCVR SVRCONN", ""),
                                        "SVR RQSTR CLNTCONN CLUSSDR CLUSRCVR AMQP MQTT",
                                        "only SDR, RCVR and SVRCONN channels are implemented"),
                           chl_all));
      t.push_back(channels(string("CONNAME", 264), chl_sdr));
      t.push_back(channels(keyword("CONVERT", "NO YES", "NO"), chl_sdr));
      t.push_back(channels(descr(), chl_all));
      t.push_back(channels(integer("DISCINT", 0, 999999, "6000"), chl_sdr | chl_svrconn));
      t.push_back(channels(integer("HBINT", 0, 999999, "300"), chl_all));
      t.push_back(channels(integer("LONGRTY", 0, nines, "999999999"), chl_sdr));
      t.push_back(channels(integer("LONGTMR", 0, 999999, "1200"), chl_sdr));
      t.push_back(channels(integer("MAXMSGL", 0, 104857600, "4194304"), chl_all));
      t.push_back(channels(string("MCAUSER", 64), chl_all));
      t.push_back(channels(keyword("NPMSPEED", "FAST NORMAL", "FAST"), sr));
      t.push_back(channels(integer("SEQWRAP", 100, nines, "999999999"), sr));
      t.push_back(channels(integer("SHORTRTY", 0, nines, "10"), chl_sdr));
      t.push_back(channels(integer("SHORTTMR", 0, 999999, "60"), chl_sdr));
      // Only where the channel is the TLS server end: IBM lists it for RCVR, RQSTR, CLUSRCVR, SVR and
      // SVRCONN, not for senders [I] IBM DEFINE CHANNEL.
      t.push_back(channels(keyword("SSLCAUTH", "REQUIRED OPTIONAL", "REQUIRED"), chl_rcvr | chl_svrconn));
      t.push_back(channels(string("SSLCIPH", 32), chl_all));
      t.push_back(channels(
          out_of_scope(keyword("TRPTYPE", "TCP", "TCP"), "LU62 NETBIOS SPX", "only TCP is implemented"),
          chl_all));
      t.push_back(channels(name("XMITQ", mq_object_type::queue), chl_sdr));
      for (std::string_view k : {"ALTDATE", "ALTTIME"})
        t.push_back(channels(read_only(string(k, 12)), chl_all));
      break;
    }
    case object_type::listener:
      t.push_back(integer("BACKLOG", 0, nines, "0"));
      t.push_back(keyword("CONTROL", "MANUAL QMGR STARTONLY", "MANUAL"));
      t.push_back(descr());
      t.push_back(string("IPADDR", 48));
      t.push_back(integer("PORT", 0, 65535, "0"));
      t.push_back(
          out_of_scope(keyword("TRPTYPE", "TCP", "TCP"), "LU62 NETBIOS SPX", "only TCP is implemented"));
      add_dates(t);
      break;
    case object_type::qmgr:
      t.push_back(keyword("AUTHOREV", event_words, "DISABLED"));
      // CCSID 819 [D] (mqsc_exec.hpp): character data is held as ISO 8859-1.
      t.push_back(integer("CCSID", 1, 65535, "819"));
      t.push_back(keyword("CHAD", event_words, "DISABLED"));
      t.push_back(keyword("CHLEV", "ENABLED DISABLED EXCEPTION", "DISABLED"));
      t.push_back(read_only(string("CMDLEVEL", 12, "930")));  // [D] the command level imsbridge shows
      // Read-only attributes DISPLAY QMGR shows on IBM MQ [I] (IBM DISPLAY QMGR): the command queue, the
      // highest priority, distribution-list and syncpoint support, and the version matching CMDLEVEL.
      t.push_back(read_only(name("COMMANDQ", mq_object_type::queue, "SYSTEM.ADMIN.COMMAND.QUEUE")));
      t.push_back(read_only(keyword("DISTL", "YES NO", "YES")));
      t.push_back(read_only(integer("MAXPRTY", 0, 9, "9")));
      // IBM's QMID is the name, creation date and time: QM1_2026-11-29_19.08.32 [I]. Filled in by the
      // executor from CRDATE/CRTIME.
      t.push_back(read_only(string("QMID", 48)));
      t.push_back(read_only(flag("SYNCPT", "", "SYNCPT")));
      t.push_back(read_only(string("VERSION", 8, "09030000")));
      t.push_back(name("DEADQ", mq_object_type::queue));
      t.push_back(name("DEFXMITQ", mq_object_type::queue));
      t.push_back(descr());
      t.push_back(keyword("INHIBTEV", event_words, "DISABLED"));
      t.push_back(keyword("LOCALEV", event_words, "DISABLED"));
      t.push_back(integer("MAXHANDS", 0, nines, "256"));
      t.push_back(integer("MAXMSGL", 32768, 104857600, "4194304"));
      t.push_back(integer("MAXUMSGS", 1, nines, "10000"));
      t.push_back(keyword("PERFMEV", event_words, "DISABLED"));
      t.push_back(read_only(string("PLATFORM", 12, "UNIX")));
      t.push_back(read_only(string("QMNAME", 48)));
      t.push_back(keyword("REMOTEEV", event_words, "DISABLED"));
      t.push_back(keyword("STRSTPEV", event_words, "ENABLED"));
      t.push_back(integer("TRIGINT", 0, nines, "999999999"));
      add_dates(t);
      break;
  }
  std::sort(t.begin(), t.end(), [](const attr_spec& a, const attr_spec& b) { return a.keyword < b.keyword; });
  return t;
}

bool has_word(std::string_view words, std::string_view word) {
  std::size_t i = 0;
  while (i < words.size()) {
    std::size_t j = words.find(' ', i);
    if (j == std::string_view::npos) j = words.size();
    if (words.substr(i, j - i) == word) return true;
    i = j + 1;
  }
  return false;
}

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return r;
}

std::string listed(std::string_view words) {
  std::string r;
  for (char c : words) {
    if (c == ' ')
      r += ", ";
    else
      r += c;
  }
  return r;
}

// The out-of-scope check shared by every kind: a value IBM has and imsbridge does not implement.
bool is_out_of_scope(const attr_spec& spec, std::string_view canonical) {
  if (spec.out_of_scope_words.empty() || canonical.empty()) return false;
  return spec.out_of_scope_words == "*" || has_word(spec.out_of_scope_words, canonical);
}

checked_value fail(std::string reason) {
  checked_value v;
  v.problem.reason = std::move(reason);
  return v;
}

}  // namespace

const std::vector<attr_spec>& schema_of(object_type type) {
  static const std::array<std::vector<attr_spec>, 10> tables = [] {
    std::array<std::vector<attr_spec>, 10> a;
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = build(static_cast<object_type>(i));
    return a;
  }();
  return tables[static_cast<std::size_t>(type)];
}

const attr_spec* find_attr(object_type type, std::string_view kw) {
  for (const attr_spec& s : schema_of(type))
    if (s.keyword == kw || (!s.synonym.empty() && s.synonym == kw)) return &s;
  return nullptr;
}

std::uint8_t chltype_bit_of(std::string_view chltype) noexcept {
  if (chltype == "SDR") return chl_sdr;
  if (chltype == "RCVR") return chl_rcvr;
  if (chltype == "SVRCONN") return chl_svrconn;
  return 0;
}

bool applies_to_chltype(const attr_spec& spec, std::string_view chltype) noexcept {
  return (spec.channel_types & chltype_bit_of(chltype)) != 0;
}

std::string_view name_keyword(object_type type) noexcept {
  switch (type) {
    case object_type::qlocal:
    case object_type::qalias:
    case object_type::qremote:
    case object_type::qmodel:
      return "QUEUE";
    case object_type::stgclass:
      return "STGCLASS";
    case object_type::namelist:
      return "NAMELIST";
    case object_type::process:
      return "PROCESS";
    case object_type::channel:
      return "CHANNEL";
    case object_type::listener:
      return "LISTENER";
    case object_type::qmgr:
      return "QMNAME";
  }
  return "";
}

names::mq_object_type name_rule_of(object_type type) noexcept {
  switch (type) {
    case object_type::stgclass:
      return mq_object_type::storage_class;
    case object_type::namelist:
      return mq_object_type::namelist;
    case object_type::process:
      return mq_object_type::process;
    case object_type::channel:
      return mq_object_type::channel;
    case object_type::listener:
      return mq_object_type::listener;
    case object_type::qmgr:
      return mq_object_type::queue_manager;
    default:
      return mq_object_type::queue;
  }
}

std::string_view default_object_name(object_type type, std::string_view chltype) noexcept {
  switch (type) {
    case object_type::qlocal:
      return "SYSTEM.DEFAULT.LOCAL.QUEUE";
    case object_type::qalias:
      return "SYSTEM.DEFAULT.ALIAS.QUEUE";
    case object_type::qremote:
      return "SYSTEM.DEFAULT.REMOTE.QUEUE";
    case object_type::qmodel:
      return "SYSTEM.DEFAULT.MODEL.QUEUE";
    case object_type::stgclass:
      // None [D]: copying storage class DEFAULT would copy its XCF names, routing every new storage
      // class to the same IMS [C: SUBMIT-IMS]; new ones take the schema's defaults.
      return "";
    case object_type::namelist:
      return "SYSTEM.DEFAULT.NAMELIST";
    case object_type::process:
      return "SYSTEM.DEFAULT.PROCESS";
    case object_type::channel:
      if (chltype == "SDR") return "SYSTEM.DEF.SENDER";
      if (chltype == "RCVR") return "SYSTEM.DEF.RECEIVER";
      if (chltype == "SVRCONN") return "SYSTEM.DEF.SVRCONN";
      return "";
    case object_type::listener:
      return "SYSTEM.DEFAULT.LISTENER.TCP";
    case object_type::qmgr:
      return "";
  }
  return "";
}

object_record schema_defaults(object_type type, std::string_view object_name, std::string_view chltype) {
  object_record r;
  r.type = type;
  r.name = std::string(object_name);
  for (const attr_spec& s : schema_of(type)) {
    if (type == object_type::channel && !applies_to_chltype(s, chltype)) continue;
    if (s.kind == attr_kind::name_list)
      r.lists[std::string(s.keyword)];
    else
      r.attrs[std::string(s.keyword)] = std::string(s.default_value);
  }
  if (type == object_type::channel) {
    r.attrs["CHLTYPE"] = std::string(chltype);
    // A server-connection channel does not time out by default [I] (SYSTEM.DEF.SVRCONN DISCINT(0)).
    if (chltype == "SVRCONN") r.attrs["DISCINT"] = "0";
  }
  if (type == object_type::qmgr) r.attrs["QMNAME"] = std::string(object_name);
  return r;
}

std::string trim_trailing_blanks(std::string_view text) {
  std::size_t n = text.size();
  while (n > 0 && text[n - 1] == ' ') --n;
  return std::string(text.substr(0, n));
}

checked_value check_value(const attr_spec& spec, const mqsc::mqsc_value& value) {
  checked_value out;
  switch (spec.kind) {
    case attr_kind::integer: {
      const std::string& t = value.text;
      std::size_t i = 0;
      while (i < t.size() && t[i] == '0' && i + 1 < t.size()) ++i;
      const std::string_view digits = std::string_view(t).substr(i);
      bool ok = !digits.empty() && digits.size() <= 12 &&
                std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
      std::int64_t n = 0;
      if (ok) {
        for (char c : digits) n = n * 10 + (c - '0');
        ok = n >= spec.min && n <= spec.max;
      }
      if (!ok)
        return fail("is not an integer from " + std::to_string(spec.min) + " to " + std::to_string(spec.max));
      out.text = std::to_string(n);
      return out;
    }
    case attr_kind::keyword: {
      const std::string w = upper(trim_trailing_blanks(value.text));
      if (is_out_of_scope(spec, w)) {
        out.problem.out_of_scope = true;
        out.problem.reason = "is not implemented by imsbridge: " + std::string(spec.out_of_scope_reason);
        return out;
      }
      if (w.empty() || !has_word(spec.words, w)) return fail("is not one of " + listed(spec.words));
      out.text = w;
      return out;
    }
    case attr_kind::string: {
      if (value.text.size() > static_cast<std::size_t>(spec.max))
        return fail("is longer than " + std::to_string(spec.max) + " characters");
      out.text = trim_trailing_blanks(value.text);
      return out;
    }
    case attr_kind::name: {
      const std::string n = trim_trailing_blanks(value.text);
      if (is_out_of_scope(spec, n)) {
        out.problem.out_of_scope = true;
        out.problem.reason = "is not implemented by imsbridge: " + std::string(spec.out_of_scope_reason);
        return out;
      }
      if (!n.empty()) {
        if (auto p = names::check_mq_object_name(n, spec.name_type))
          return fail("is not valid: " + p->reason);
      }
      out.text = n;
      return out;
    }
    case attr_kind::xcf_group:
    case attr_kind::xcf_member: {
      // XCF names: A–Z 0–9 $ # @, group 1–8, member 1–16 (lengths [C: MQGO-CONST]; characters
      // [C: XCF-NAMES2]).
      const std::string n = trim_trailing_blanks(value.text);
      if (!n.empty()) {
        auto p = spec.kind == attr_kind::xcf_group ? names::check_xcf_group_name(n, names::xcf_rules::xcf)
                                                   : names::check_xcf_member_name(n, names::xcf_rules::xcf);
        if (p) return fail("is not valid: " + p->reason);
      }
      out.text = n;
      return out;
    }
    case attr_kind::name_list:
    case attr_kind::flag:
      break;
  }
  return fail("takes no single value");
}

checked_list check_list(const attr_spec& spec, const std::vector<mqsc::mqsc_value>& values) {
  checked_list out;
  std::vector<std::string> names_out;
  for (const auto& v : values) {
    std::string n = trim_trailing_blanks(v.text);
    if (n.empty()) continue;  // NAMES(' ') is the empty list
    if (auto p = names::check_mq_name(n, 48, "name")) {
      out.problem.reason = "is not valid: " + p->reason;
      return out;
    }
    names_out.push_back(std::move(n));
  }
  if (names_out.size() > static_cast<std::size_t>(spec.max)) {
    out.problem.reason = "has more than " + std::to_string(spec.max) + " names";
    return out;
  }
  out.names = std::move(names_out);
  return out;
}

bool is_authority_word(std::string_view word) noexcept {
  static constexpr std::string_view words[] = {
      "ALL", "ALLADM", "ALLMQI", "NONE",  "ALTUSR", "BROWSE", "CHG", "CLR",     "CONNECT",
      "CRT", "CTRL",   "CTRLX",  "DLT",   "DSP",    "GET",    "INQ", "PASSALL", "PASSID",
      "PUT", "SET",    "SETALL", "SETID", "SYSTEM", "PUB",    "SUB", "RESUME",
  };
  return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

namespace {

// The authorities of one OBJTYPE: its MQI ones (ALLMQI), its administration ones (ALLADM) and the others
// that neither group holds (CRT: "MQZAO_ALL_ADMIN includes all the authorizations relevant to the object
// type, except MQZAO_CREATE" [C] IBM authorizations for PCF commands; SYSTEM on the queue manager).
struct objtype_authorities {
  std::string_view objtype;
  std::string_view mqi;
  std::string_view adm;
  std::string_view other;
};

// IBM's dspmqaut table of authorities per object type and MQ Explorer's "Authorities you can set on IBM MQ
// objects" [C] for QUEUE, QMGR, PROCESS, NAMELIST, AUTHINFO (browse/get/put/pass*/clr only on queues,
// altusr/connect only on the queue manager, set on queue, process, qmgr, authinfo, setall/setid on queue
// and qmgr; ctrl on channel, listener and service, ctrlx on channel). The rest [I]: ALLADM of QMGR as
// CHG DLT DSP (no CTRL: Explorer gives Ctrl "No" for the queue manager), RQMNAME PUT only, TOPIC and
// COMMINFO from IBM's setmqaut descriptions.
constexpr objtype_authorities authority_table[] = {
    {"QUEUE", "BROWSE GET INQ PASSALL PASSID PUT SET SETALL SETID", "CHG CLR DLT DSP", "CRT"},
    {"QMGR", "ALTUSR CONNECT INQ SET SETALL SETID", "CHG DLT DSP", "CRT SYSTEM"},
    {"PROCESS", "INQ SET", "CHG DLT DSP", "CRT"},
    {"NAMELIST", "INQ", "CHG DLT DSP", "CRT"},
    {"AUTHINFO", "INQ SET", "CHG DLT DSP", "CRT"},
    {"CHANNEL", "", "CHG CTRL CTRLX DLT DSP", "CRT"},
    {"CLNTCONN", "", "CHG DLT DSP", "CRT"},
    {"LISTENER", "", "CHG CTRL DLT DSP", "CRT"},
    {"SERVICE", "", "CHG CTRL DLT DSP", "CRT"},
    {"COMMINFO", "", "CHG DLT DSP", "CRT"},
    {"RQMNAME", "PUT", "", ""},
    {"TOPIC", "PASSALL PASSID PUB RESUME SETALL SETID SUB", "CHG CLR CTRL DLT DSP", "CRT"},
};

void append_words(std::string_view words, std::vector<std::string>& out) {
  std::size_t i = 0;
  while (i < words.size()) {
    std::size_t j = words.find(' ', i);
    if (j == std::string_view::npos) j = words.size();
    if (j > i) out.emplace_back(words.substr(i, j - i));
    i = j + 1;
  }
}

// One qualifier against one pattern qualifier: '?' any one character, '*' any run of characters.
bool qualifier_matches(std::string_view pat, std::string_view q) noexcept {
  std::size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < q.size()) {
    if (p < pat.size() && (pat[p] == '?' || pat[p] == q[n])) {
      ++p;
      ++n;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

std::vector<std::string_view> qualifiers(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  for (;;) {
    const std::size_t j = s.find('.', i);
    out.push_back(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return out;
}

bool qualifiers_match(const std::vector<std::string_view>& pat, std::size_t p,
                      const std::vector<std::string_view>& name, std::size_t n) noexcept {
  if (p == pat.size()) return n == name.size();
  if (pat[p] == "**") {
    for (std::size_t k = n; k <= name.size(); ++k)
      if (qualifiers_match(pat, p + 1, name, k)) return true;
    return false;
  }
  return n < name.size() && qualifier_matches(pat[p], name[n]) && qualifiers_match(pat, p + 1, name, n + 1);
}

}  // namespace

bool generic_profile_matches(std::string_view profile, std::string_view name) {
  if (profile == name) return true;
  return qualifiers_match(qualifiers(profile), 0, qualifiers(name), 0);
}

authority_expansion expand_authority(std::string_view objtype, std::string_view word) {
  authority_expansion out;
  const objtype_authorities* row = nullptr;
  for (const auto& r : authority_table)
    if (r.objtype == objtype) row = &r;
  if (row == nullptr || !is_authority_word(word)) return out;
  if (word == "NONE") {
    out.applies = true;
    return out;
  }
  if (word == "ALLMQI" || word == "ALL") append_words(row->mqi, out.words);
  if (word == "ALLADM" || word == "ALL") append_words(row->adm, out.words);
  // ALL is "the union of alladm, allmqi and system appropriate to the object type" [I] IBM setmqaut.
  if (word == "ALL" && has_word(row->other, "SYSTEM")) out.words.emplace_back("SYSTEM");
  if (word == "ALL" || word == "ALLMQI" || word == "ALLADM") {
    // A group that is empty for the type (ALLMQI of a channel) grants nothing but is not wrong [I].
    out.applies = true;
    std::sort(out.words.begin(), out.words.end());
    return out;
  }
  if (has_word(row->mqi, word) || has_word(row->adm, word) || has_word(row->other, word)) {
    out.applies = true;
    out.words.emplace_back(word);
  }
  return out;
}

bool is_authrec_objtype(std::string_view word) noexcept {
  static constexpr std::string_view words[] = {"AUTHINFO", "CHANNEL",  "CLNTCONN", "COMMINFO",
                                               "LISTENER", "NAMELIST", "PROCESS",  "QUEUE",
                                               "QMGR",     "RQMNAME",  "SERVICE",  "TOPIC"};
  return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

}  // namespace imsb::objects
