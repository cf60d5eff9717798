// IMS type-1 commands and FAULT commands (commands.hpp). Pure: text and state in, lines and effects out.
//
// Message IDs: IMS's own where it has one. The texts of DFS058I, DFS105I, DFS107, DFS108, DFS121I,
// DFS127, DFS130, DFS163, DFS180 and DFS1268 are IBM's [C: IMS messages DFS101-DFS200, DFS058I,
// DFS1268]; which of them IMS picks in each case below is our reading [I]. IMB5060-IMB5079 are the
// emulator's own lines.
#include "imsb/imsemu/commands.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::imsemu {
namespace {

// --- text helpers ---------------------------------------------------------------------------------

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string rtrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string pad(std::string_view s, std::size_t n) {
  std::string out(s);
  if (out.size() < n) out.append(n - out.size(), ' ');
  return out;
}

std::string rjust(std::uint64_t v, std::size_t n) {
  std::string s = std::to_string(v);
  if (s.size() < n) s.insert(0, n - s.size(), ' ');
  return s;
}

std::vector<std::string> split_words(std::string_view text) {
  // Commas separate parameters as blanks do ("/STO TRAN A,B") [D].
  std::vector<std::string> words;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == ',' || c == '\t' || c == '\r' || c == '\n' || c == '\0') {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

std::optional<std::uint32_t> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

// "0030", "30", "X'0030'", "0x30": 1-4 hex digits.
std::optional<std::uint16_t> parse_sense(std::string_view s) {
  if (s.size() >= 3 && s[0] == 'X' && s[1] == '\'' && s.back() == '\'') {
    s = s.substr(2, s.size() - 3);
  } else if (s.size() >= 2 && s[0] == '0' && s[1] == 'X') {
    s = s.substr(2);
  }
  if (s.empty() || s.size() > 4) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<std::uint32_t>(d);
  }
  return static_cast<std::uint16_t>(v);
}

// --- IMS messages ---------------------------------------------------------------------------------

const char* const msg_required_keyword = "DFS107 REQUIRED KEYWORD NOT PRESENT";
const char* const msg_syntax = "DFS108 COMMAND SYNTAX INVALID";
const char* const msg_too_long = "DFS121I PARAMETER TOO LONG";
const char* const msg_too_many_keywords = "DFS127 TOO MANY KEYWORDS";
const char* const msg_combination = "DFS130 INVALID KEYWORD COMBINATION";
const char* const msg_keyword_invalid = "DFS163 KEYWORD IS INVALID";
const char* const msg_no_conversation = "DFS180 NO ACTIVE CONVERSATION IN PROCESS, CANNOT PROCESS COMMAND";

std::string verb_incorrect(std::string_view verb) {
  return "DFS105I COMMAND VERB " + std::string(verb) + " IS INCORRECT";
}

// DFS058I: "CCC COMMAND COMPLETED [EXCEPT KKK P01, P02, ...ETC.]" — up to 10 parameters [C: DFS058I].
std::string completed(std::string_view command, std::string_view keyword,
                      const std::vector<std::string>& exceptions) {
  std::string line = "DFS058I " + std::string(command) + " COMMAND COMPLETED";
  if (exceptions.empty()) return line;
  line += " EXCEPT " + std::string(keyword) + " ";
  for (std::size_t i = 0; i < exceptions.size() && i < 10; ++i) {
    if (i != 0) line += ", ";
    line += exceptions[i];
  }
  if (exceptions.size() > 10) line += ", ...ETC.";
  return line;
}

// [I] IMS lists a named resource it does not know as "name IS INVALID" in /DISPLAY output.
std::string is_invalid(std::string_view name) { return "DFS000I     " + std::string(name) + " IS INVALID"; }

// --- parsing --------------------------------------------------------------------------------------

enum class verb { display, stop, start, dequeue, exit };

std::optional<verb> verb_of(std::string_view w) {
  // IMS accepts a verb's first three characters for the whole [C: IMS command syntax].
  if (w == "/DIS" || w == "/DISPLAY") return verb::display;
  if (w == "/STO" || w == "/STOP") return verb::stop;
  if (w == "/STA" || w == "/START") return verb::start;
  if (w == "/DEQ" || w == "/DEQUEUE") return verb::dequeue;
  if (w == "/EXI" || w == "/EXIT") return verb::exit;
  return std::nullopt;
}

const char* verb_name(verb v) {
  switch (v) {
    case verb::display:
      return "DISPLAY";
    case verb::stop:
      return "STOP";
    case verb::start:
      return "START";
    case verb::dequeue:
      return "DEQUEUE";
    case verb::exit:
      return "EXIT";
  }
  return "";
}

// Keyword synonyms [C: IMS keyword table: TRANSACTION/TRAN/TRANS, CONVERSATION/CONV, TMEMBER/TMEM].
std::string keyword_of(std::string_view w) {
  if (w == "TRAN" || w == "TRANS" || w == "TRANSACTION") return "TRAN";
  if (w == "TMEMBER" || w == "TMEM") return "TMEMBER";
  if (w == "TPIPE") return "TPIPE";
  if (w == "OTMA") return "OTMA";
  if (w == "CONV" || w == "CONVERSATION") return "CONV";
  if (w == "PURGE") return "PURGE";
  if (w == "PURGE1") return "PURGE1";
  if (w == "QCNT") return "QCNT";
  return {};
}

struct keyword_group {
  std::string keyword;
  std::vector<std::string> params;
};

struct parsed_command {
  std::vector<keyword_group> groups;
  std::string error;  // an IMS message when the text does not parse
  const keyword_group* find(std::string_view k) const {
    for (const auto& g : groups)
      if (g.keyword == k) return &g;
    return nullptr;
  }
};

parsed_command parse_keywords(const std::vector<std::string>& words) {
  parsed_command p;
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::string k = keyword_of(words[i]);
    if (!k.empty()) {
      if (p.find(k) != nullptr) {
        p.error = msg_too_many_keywords;
        return p;
      }
      p.groups.push_back({k, {}});
    } else if (p.groups.empty()) {
      p.error = msg_keyword_invalid;
      return p;
    } else {
      p.groups.back().params.push_back(words[i]);
    }
  }
  return p;
}

bool only_keywords(const parsed_command& p, std::initializer_list<std::string_view> allowed) {
  for (const auto& g : p.groups)
    if (std::find(allowed.begin(), allowed.end(), g.keyword) == allowed.end()) return false;
  return true;
}

// --- the state as the commands see it -------------------------------------------------------------

struct tpipe_view {
  std::string name;
  bool synchronized = false;
  bool stopped = false;
  std::uint64_t enqct = 0;
  std::uint64_t deqct = 0;
  std::uint64_t qct = 0;
  bool conversation_active = false;
  std::uint32_t conversation_id = 0;
};

bool member_known(const command_state& s, std::string_view m) {
  if (s.clients.find(m) != s.clients.end()) return true;
  for (const auto& [key, value] : s.journal.tpipes)
    if (key.first == m) return true;
  return false;
}

std::vector<std::string> all_members(const command_state& s) {
  std::set<std::string> names;
  for (const auto& [name, c] : s.clients) names.insert(name);
  for (const auto& [key, value] : s.journal.tpipes) names.insert(key.first);
  return {names.begin(), names.end()};
}

// The engine's in-memory Tpipes and the journal's durable ones, merged (a synchronized Tpipe of a client
// that has not come back since a restart is only in the journal). QCT: the journal's queue (queued CM0
// output is logged there) or the engine's count, the larger [C: IMS-RS-CS]; counts are CM0 only
// [C: MQ-BRIDGE].
std::map<std::string, tpipe_view> tpipes_of(const command_state& s, const std::string& m) {
  std::map<std::string, tpipe_view> out;
  auto c = s.clients.find(m);
  if (c != s.clients.end()) {
    for (const auto& [name, t] : c->second.tpipes) {
      tpipe_view& v = out[name];
      v.name = name;
      v.synchronized = t.synchronized;
      v.stopped = t.stopped;
      v.enqct = t.enqct;
      v.deqct = t.deqct;
      v.qct = t.qct;
      v.conversation_active = t.conversation_active;
      v.conversation_id = t.conversation_id;
    }
  }
  for (const auto& [key, t] : s.journal.tpipes) {
    if (key.first != m) continue;
    tpipe_view& v = out[key.second];
    v.name = key.second;
    v.synchronized = v.synchronized || t.synchronized;
    v.stopped = v.stopped || t.stopped;
  }
  for (const auto& [key, q] : s.journal.outputs) {
    if (key.first != m) continue;
    tpipe_view& v = out[key.second];
    v.name = key.second;
    v.qct = std::max<std::uint64_t>(v.qct, q.size());
  }
  return out;
}

bool all_param(const std::vector<std::string>& p) { return p.size() == 1 && p[0] == "ALL"; }

// --- /DISPLAY -------------------------------------------------------------------------------------

void display_tran(const command_state& s, const std::vector<std::string>& params, command_result& r) {
  // [D] plain /DIS TRAN: name, class, queue count, status (IMS's full layout has more columns).
  r.lines.push_back("DFS000I TRAN     CLS      QCT STATUS");
  std::vector<std::string> names;
  if (all_param(params)) {
    for (const auto& [code, t] : s.defs.transactions) names.push_back(code);
  } else {
    names = params;
  }
  for (const auto& n : names) {
    const ims::transaction_def* t = s.defs.transaction(n);
    if (t == nullptr) {
      r.lines.push_back(is_invalid(n));
      continue;
    }
    auto q = s.transaction_queue_counts.find(n);
    std::uint64_t qct = q == s.transaction_queue_counts.end() ? 0 : q->second;
    bool stopped = s.stopped_transactions.count(n) != 0;
    r.lines.push_back(rtrim("DFS000I " + pad(t->code, 8) + " " + rjust(t->message_class, 3) + " " +
                            rjust(qct, 8) + " " + (stopped ? "STOP" : "")));
  }
}

std::string member_status(const command_state& s, const std::string& m) {
  auto c = s.clients.find(m);
  // [I] IMS's USER-STATUS of a client that has bid and been told server-available is ACCEPT TRAFFIC.
  return (c != s.clients.end() && c->second.ready) ? "ACCEPT TRAFFIC" : "DISCONNECTED";
}

// One member's Tpipes. `header`: the column header goes first (once per command: /DIS TMEMBER ALL TPIPE ALL
// lists every member under one header).
void display_tpipes(const command_state& s, const std::string& m, const std::vector<std::string>& tpipes,
                    command_result& r, bool header = true) {
  if (!member_known(s, m)) {
    r.lines.push_back(is_invalid(m));
    return;
  }
  auto views = tpipes_of(s, m);
  std::vector<std::string> names;
  if (all_param(tpipes)) {
    if (views.empty()) {
      r.lines.push_back("DFS1268 NO TPIPES ASSOCIATED WITH TMEMBER");  // [C: DFS1268]
      return;
    }
    for (const auto& [n, v] : views) names.push_back(n);
  } else {
    names = tpipes;
  }
  // Header and member line [C: MQ-BRIDGE]; [D] the column layout (status at column 49).
  if (header) r.lines.push_back("DFS000I MEMBER/TPIPE  ENQCT  DEQCT  QCT  STATUS");
  r.lines.push_back(rtrim("DFS000I " + pad(m, 41) + member_status(s, m)));
  for (const auto& n : names) {
    auto v = views.find(n);
    if (v == views.end()) {
      r.lines.push_back(is_invalid(n));
      continue;
    }
    std::string status;
    auto add = [&status](const char* word) {
      if (!status.empty()) status += ' ';
      status += word;
    };
    if (v->second.synchronized) add("SYN");          // [C: MQ-BRIDGE]
    if (v->second.stopped) add("STO");               // [I]
    if (v->second.conversation_active) add("CONV");  // [D]
    r.lines.push_back(rtrim("DFS000I     " + pad(n, 8) + "  " + rjust(v->second.enqct, 8) + " " +
                            rjust(v->second.deqct, 8) + " " + rjust(v->second.qct, 8) + " " + status));
  }
}

// /DIS OTMA ≡ /DIS TMEMBER ALL [C: IMS /DISPLAY OTMA]: the group, then the server, then each client.
// [I] the columns GROUP/MEMBER XCF-STATUS USER-STATUS SECURITY TIB INPT; widths are ours [D].
std::string otma_line(std::string_view first, std::string_view xcf, std::string_view user,
                      std::string_view sec, std::string tib, std::string inpt) {
  return rtrim("DFS000I " + pad(first, 17) + " " + pad(xcf, 12) + " " + pad(user, 14) + " " + pad(sec, 8) +
               " " + pad(tib, 5) + " " + inpt);
}

void display_members(const command_state& s, const std::vector<std::string>& members, bool with_server,
                     command_result& r) {
  const std::string sec(ims::to_string(s.defs.security));
  const std::string& server = s.member.empty() ? s.defs.otmanm : s.member;
  r.lines.push_back(otma_line("GROUP/MEMBER", "XCF-STATUS", "USER-STATUS", "SECURITY", "TIB", "INPT"));
  r.lines.push_back(otma_line(s.defs.grname, "", "", "", "", ""));
  if (with_server) r.lines.push_back(otma_line("-" + server, "ACTIVE", "SERVER", sec, "", ""));
  for (const auto& m : members) {
    if (!member_known(s, m)) {
      r.lines.push_back(is_invalid(m));
      continue;
    }
    auto c = s.clients.find(m);
    bool ready = c != s.clients.end() && c->second.ready;
    std::uint32_t tib = c == s.clients.end() ? 0 : c->second.tib_count;
    std::uint32_t inpt = c == s.clients.end() ? s.defs.tib_limit : c->second.tib_limit;
    r.lines.push_back(otma_line("-" + m, ready ? "ACTIVE" : "NOT DEFINED", member_status(s, m), sec,
                                std::to_string(tib), std::to_string(inpt)));
  }
  if (with_server) {
    // Emulator-only: the X'3C' server state and the global TIB count [D].
    r.lines.push_back(std::string(imsb::msg::IMB5064I) + " SERVER STATE " + s.server_state + " TIB " +
                      std::to_string(s.tib_count) + "/" + std::to_string(s.tib_limit));
  }
}

void run_display(const command_state& s, const parsed_command& p, command_result& r) {
  if (p.groups.empty()) {
    r.lines.push_back(msg_required_keyword);
    return;
  }
  if (const auto* g = p.find("TRAN")) {
    if (p.groups.size() != 1) return r.lines.push_back(msg_combination);
    if (g->params.empty()) return r.lines.push_back(msg_syntax);
    for (const auto& n : g->params)
      if (n.size() > 8) return r.lines.push_back(msg_too_long);
    return display_tran(s, g->params, r);
  }
  if (const auto* g = p.find("OTMA")) {
    if (p.groups.size() != 1) return r.lines.push_back(msg_combination);
    if (!g->params.empty()) return r.lines.push_back(msg_syntax);
    return display_members(s, all_members(s), true, r);
  }
  if (const auto* g = p.find("TMEMBER")) {
    if (!only_keywords(p, {"TMEMBER", "TPIPE", "QCNT"})) return r.lines.push_back(msg_combination);
    if (p.find("QCNT") != nullptr) return r.lines.push_back(msg_keyword_invalid);  // shared queues only
    if (g->params.empty()) return r.lines.push_back(msg_syntax);
    for (const auto& n : g->params)
      if (n.size() > 16) return r.lines.push_back(msg_too_long);
    const auto* t = p.find("TPIPE");
    if (t == nullptr) {
      if (all_param(g->params)) return display_members(s, all_members(s), true, r);
      return display_members(s, g->params, false, r);
    }
    if (g->params.size() != 1 || t->params.empty()) return r.lines.push_back(msg_syntax);
    for (const auto& n : t->params)
      if (n.size() > 8) return r.lines.push_back(msg_too_long);
    if (all_param(g->params)) {
      // [C: IMS /DISPLAY TMEMBER ALL TPIPE ALL] every client member and its Tpipes, under one header;
      // [D] a member without Tpipes shows its member line only.
      if (!all_param(t->params)) return r.lines.push_back(msg_syntax);
      r.lines.push_back("DFS000I MEMBER/TPIPE  ENQCT  DEQCT  QCT  STATUS");
      for (const auto& m : all_members(s)) {
        if (tpipes_of(s, m).empty()) {
          r.lines.push_back(rtrim("DFS000I " + pad(m, 41) + member_status(s, m)));
          continue;
        }
        display_tpipes(s, m, t->params, r, false);
      }
      return;
    }
    return display_tpipes(s, g->params[0], t->params, r);
  }
  r.lines.push_back(msg_keyword_invalid);
}

// --- /STOP, /START --------------------------------------------------------------------------------

void run_stop_start(const command_state& s, verb v, const parsed_command& p, command_result& r) {
  const bool stop = v == verb::stop;
  if (p.groups.empty()) return r.lines.push_back(msg_required_keyword);
  if (const auto* g = p.find("TRAN")) {
    if (p.groups.size() != 1) return r.lines.push_back(msg_combination);
    if (g->params.empty()) return r.lines.push_back(msg_syntax);
    std::vector<std::string> names, except;
    if (all_param(g->params)) {
      for (const auto& [code, t] : s.defs.transactions) names.push_back(code);
    } else {
      names = g->params;
    }
    for (const auto& n : names) {
      if (n.size() > 8) return r.lines.push_back(msg_too_long);
    }
    for (const auto& n : names) {
      if (s.defs.transaction(n) == nullptr) {
        except.push_back(n);  // [C: DFS058I EXCEPT names the parameters not processed]
        continue;
      }
      (stop ? r.effects.stop_transactions : r.effects.start_transactions).push_back(n);
    }
    return r.lines.push_back(completed(verb_name(v), "TRAN", except));
  }
  if (const auto* g = p.find("TMEMBER")) {
    if (!only_keywords(p, {"TMEMBER", "TPIPE"})) return r.lines.push_back(msg_combination);
    const auto* t = p.find("TPIPE");
    // [D] /STO TMEMBER without TPIPE (stop a member's input) is not emulated.
    if (t == nullptr) return r.lines.push_back(msg_required_keyword);
    if (g->params.size() != 1 || all_param(g->params) || t->params.empty())
      return r.lines.push_back(msg_syntax);
    const std::string& m = g->params[0];
    if (m.size() > 16) return r.lines.push_back(msg_too_long);
    for (const auto& n : t->params)
      if (n.size() > 8) return r.lines.push_back(msg_too_long);
    if (!member_known(s, m)) return r.lines.push_back(completed(verb_name(v), "TMEMBER", {m}));
    auto views = tpipes_of(s, m);
    std::vector<std::string> names, except;
    if (all_param(t->params)) {
      for (const auto& [n, tv] : views) names.push_back(n);
    } else {
      names = t->params;
    }
    for (const auto& n : names) {
      if (views.find(n) == views.end()) {
        except.push_back(n);  // [D] a Tpipe that does not exist yet is not created by a command
        continue;
      }
      (stop ? r.effects.stop_tpipes : r.effects.start_tpipes).push_back({m, n});
    }
    return r.lines.push_back(completed(verb_name(v), "TPIPE", except));
  }
  r.lines.push_back(msg_keyword_invalid);
}

// --- /DEQUEUE -------------------------------------------------------------------------------------

void run_dequeue(const command_state& s, const parsed_command& p, command_result& r) {
  // [C: MQ "Controlling the IMS bridge"] /DEQUEUE TMEMBER tm TPIPE tp: PURGE removes all messages,
  // PURGE1 the first only. [I] one of them is required.
  const auto* g = p.find("TMEMBER");
  const auto* t = p.find("TPIPE");
  const auto* purge = p.find("PURGE");
  const auto* purge1 = p.find("PURGE1");
  if (!only_keywords(p, {"TMEMBER", "TPIPE", "PURGE", "PURGE1"}))
    return r.lines.push_back(msg_keyword_invalid);
  if (g == nullptr || t == nullptr || (purge == nullptr && purge1 == nullptr))
    return r.lines.push_back(msg_required_keyword);
  if (purge != nullptr && purge1 != nullptr) return r.lines.push_back(msg_combination);
  if ((purge != nullptr && !purge->params.empty()) || (purge1 != nullptr && !purge1->params.empty()))
    return r.lines.push_back("DFS239 NO PARAMETER ALLOWED WITH PURGE OR PURGE1.");  // [C: DFS239]
  if (g->params.size() != 1 || t->params.size() != 1 || all_param(g->params) || all_param(t->params))
    return r.lines.push_back(msg_syntax);
  const std::string& m = g->params[0];
  const std::string& n = t->params[0];
  if (m.size() > 16 || n.size() > 8) return r.lines.push_back(msg_too_long);
  if (!member_known(s, m)) return r.lines.push_back(completed("DEQUEUE", "TMEMBER", {m}));
  auto views = tpipes_of(s, m);
  if (views.find(n) == views.end()) return r.lines.push_back(completed("DEQUEUE", "TPIPE", {n}));
  auto q = s.journal.outputs.find(tpipe_key{m, n});
  if (q != s.journal.outputs.end()) {
    for (const auto& out : q->second) {
      r.effects.purge_outputs.push_back(out.id);
      if (purge1 != nullptr) break;
    }
  }
  r.lines.push_back(completed("DEQUEUE", "", {}));
  r.lines.push_back(std::string(imsb::msg::IMB5065I) + " " + std::to_string(r.effects.purge_outputs.size()) +
                    " OUTPUT MESSAGE(S) DEQUEUED FROM " + m + " TPIPE " + n);
}

// --- /EXIT ----------------------------------------------------------------------------------------

void run_exit(const command_state& s, const parsed_command& p, command_result& r) {
  // [C: IMS /EXIT syntax] /EXIT [CONV conv# | TMEMBER m TPIPE t]; conv# is 4 digits with leading zeros.
  if (!only_keywords(p, {"CONV", "TMEMBER", "TPIPE"})) return r.lines.push_back(msg_keyword_invalid);
  const auto* conv = p.find("CONV");
  const auto* g = p.find("TMEMBER");
  const auto* t = p.find("TPIPE");
  if ((g == nullptr) != (t == nullptr)) return r.lines.push_back(msg_required_keyword);
  std::optional<std::uint32_t> id;
  if (conv != nullptr) {
    if (conv->params.size() != 1 || conv->params[0].size() != 4) return r.lines.push_back(msg_syntax);
    id = parse_decimal(conv->params[0]);
    if (!id) return r.lines.push_back(msg_syntax);
  }
  std::optional<tpipe_key> where;
  if (g != nullptr) {
    if (g->params.size() != 1 || t->params.size() != 1) return r.lines.push_back(msg_syntax);
    if (g->params[0].size() > 16 || t->params[0].size() > 8) return r.lines.push_back(msg_too_long);
    where = tpipe_key{g->params[0], t->params[0]};
  } else if (!id) {
    // [D] a bare /EXIT from a client ends the conversation of the Tpipe it came on.
    if (!s.origin) return r.lines.push_back(msg_required_keyword);
    where = s.origin;
  }
  std::optional<tpipe_key> found;
  for (const auto& m : all_members(s)) {
    if (where && where->first != m) continue;
    for (const auto& [n, v] : tpipes_of(s, m)) {
      if (where && where->second != n) continue;
      if (!v.conversation_active) continue;
      if (id && v.conversation_id != *id) continue;
      found = tpipe_key{m, n};
    }
  }
  if (!found) return r.lines.push_back(msg_no_conversation);
  r.effects.end_conversations.push_back(*found);
  r.lines.push_back("DFS576I EXIT COMPLETED, TRANSACTION DISCARDED");  // [I]
}

// --- FAULT ----------------------------------------------------------------------------------------

const char* const fault_fields[] = {"stop_answering",         "withhold_next_acks", "ignore_next_client_acks",
                                    "duplicate_next_outputs", "nak_next_sense",     "delay_output_ms",
                                    "crash_after_log",        "crash_after_run",    "hold_runs"};

std::vector<fault_change> fault_values(const faults& f) {
  return {{"stop_answering", f.stop_answering ? 1u : 0u},
          {"withhold_next_acks", f.withhold_next_acks},
          {"ignore_next_client_acks", f.ignore_next_client_acks},
          {"duplicate_next_outputs", f.duplicate_next_outputs},
          {"nak_next_sense", f.nak_next_sense},
          {"delay_output_ms", f.delay_output_ms},
          {"crash_after_log", f.crash_after_log ? 1u : 0u},
          {"crash_after_run", f.crash_after_run ? 1u : 0u},
          {"hold_runs", f.hold_runs ? 1u : 0u}};
}

std::string shown(const fault_change& c) {
  if (c.field == "nak_next_sense") {
    static const char hex[] = "0123456789ABCDEF";
    std::string h = "X'";
    for (int shift = 12; shift >= 0; shift -= 4) h += hex[(c.value >> shift) & 0xF];
    return c.field + "=" + h + "'";
  }
  return c.field + "=" + std::to_string(c.value);
}

void fault_error(command_result& r, const std::string& detail) {
  r.lines.push_back(std::string(imsb::msg::IMB5061E) + " FAULT COMMAND REJECTED: " + detail);
}

void run_fault(const command_state& s, const std::vector<std::string>& w, command_result& r) {
  r.recognized = true;
  if (s.origin) {
    r.lines.push_back(std::string(imsb::msg::IMB5062E) +
                      " FAULT COMMANDS ARE ACCEPTED FROM THE OPERATOR CONSOLE ONLY");
    return;
  }
  auto n = w.size();
  auto word = [&w](std::size_t i) -> std::string_view { return i < w.size() ? std::string_view(w[i]) : ""; };
  const std::string_view what = word(1);
  auto count_arg = [&](std::size_t i, const char* field) {
    if (n != i + 1) return fault_error(r, "EXPECTED ONE NUMBER AFTER " + w[i - 1]);
    auto v = parse_decimal(w[i]);
    if (!v) return fault_error(r, "'" + w[i] + "' IS NOT A NUMBER 0-4294967295");
    r.effects.fault_changes.push_back({field, *v});
  };
  auto ack_word = [&](std::size_t i) { return word(i) == "ACK" || word(i) == "ACKS"; };
  auto output_word = [&](std::size_t i) { return word(i) == "OUTPUT" || word(i) == "OUTPUTS"; };
  if (what == "STOP" && n == 2) {
    r.effects.fault_changes.push_back({"stop_answering", 1});
  } else if (what == "RESUME" && n == 2) {
    r.effects.fault_changes.push_back({"stop_answering", 0});
  } else if (what == "WITHHOLD" && ack_word(2)) {
    count_arg(3, "withhold_next_acks");
  } else if (what == "IGNORE" && ack_word(2)) {
    count_arg(3, "ignore_next_client_acks");
  } else if (what == "DUPLICATE" && output_word(2)) {
    count_arg(3, "duplicate_next_outputs");
  } else if (what == "DELAY" && output_word(2)) {
    count_arg(3, "delay_output_ms");
  } else if (what == "NAK") {
    if (n != 3) return fault_error(r, "EXPECTED FAULT NAK xxxx (HEX SENSE CODE)");
    auto v = parse_sense(w[2]);
    if (!v) return fault_error(r, "'" + w[2] + "' IS NOT A SENSE CODE OF 1-4 HEX DIGITS");
    r.effects.fault_changes.push_back({"nak_next_sense", *v});
  } else if (what == "CRASH" && n == 4 && word(2) == "AFTER" && (word(3) == "LOG" || word(3) == "RUN")) {
    r.effects.fault_changes.push_back({word(3) == "LOG" ? "crash_after_log" : "crash_after_run", 1});
  } else if ((what == "HOLD" || what == "RELEASE") && n == 3 && word(2) == "RUNS") {
    r.effects.fault_changes.push_back({"hold_runs", what == "HOLD" ? 1u : 0u});
  } else if (what == "RESTART" && n == 3 && (word(2) == "WARM" || word(2) == "COLD")) {
    // [D] the program does the restart (program.cpp), after this answer and outside the link's lock.
    r.effects.fault_changes.push_back({"restart_requested", word(2) == "WARM" ? 1u : 2u});
    r.lines.push_back(std::string(imsb::msg::IMB5066I) + " FAULT RESTART " + std::string(word(2)) +
                      " SCHEDULED");
    return;
  } else if (what == "CLEAR" && n == 2) {
    for (const char* f : fault_fields) r.effects.fault_changes.push_back({f, 0});
  } else if (what == "SHOW" && n == 2) {
    for (const auto& c : fault_values(s.fault_settings))
      r.lines.push_back(std::string(imsb::msg::IMB5063I) + " FAULT " + shown(c));
    return;
  } else {
    return fault_error(r,
                       "USE FAULT STOP|RESUME|WITHHOLD ACK n|IGNORE ACK n|DUPLICATE OUTPUT n|NAK xxxx|"
                       "DELAY OUTPUT ms|CRASH AFTER LOG|CRASH AFTER RUN|HOLD RUNS|RELEASE RUNS|"
                       "RESTART WARM|RESTART COLD|CLEAR|SHOW");
  }
  if (what == "CLEAR") {
    r.lines.push_back(std::string(imsb::msg::IMB5060I) + " FAULT SETTINGS CLEARED");
    return;
  }
  for (const auto& c : r.effects.fault_changes)
    r.lines.push_back(std::string(imsb::msg::IMB5060I) + " FAULT SET " + shown(c));
}

}  // namespace

command_result run_command(const command_state& state, std::string_view text) {
  command_result r;
  std::string t = upper(text);
  // [I] a command may end with a period, as typed at an IMS terminal.
  while (!t.empty() && (t.back() == ' ' || t.back() == '.')) t.pop_back();
  const auto words = split_words(t);
  if (words.empty()) {
    r.lines.push_back(msg_syntax);
    return r;
  }
  if (words[0] == "FAULT") {
    run_fault(state, words, r);
    return r;
  }
  auto v = verb_of(words[0]);
  if (!v) {
    r.lines.push_back(verb_incorrect(words[0]));
    return r;
  }
  r.recognized = true;
  const parsed_command p = parse_keywords(words);
  if (!p.error.empty()) {
    r.lines.push_back(p.error);
    return r;
  }
  switch (*v) {
    case verb::display:
      run_display(state, p, r);
      break;
    case verb::stop:
    case verb::start:
      run_stop_start(state, *v, p, r);
      break;
    case verb::dequeue:
      run_dequeue(state, p, r);
      break;
    case verb::exit:
      run_exit(state, p, r);
      break;
  }
  return r;
}

void apply_fault_changes(faults& target, const std::vector<fault_change>& changes) {
  for (const auto& c : changes) {
    if (c.field == "stop_answering") target.stop_answering = c.value != 0;
    if (c.field == "withhold_next_acks") target.withhold_next_acks = c.value;
    if (c.field == "ignore_next_client_acks") target.ignore_next_client_acks = c.value;
    if (c.field == "duplicate_next_outputs") target.duplicate_next_outputs = c.value;
    if (c.field == "nak_next_sense") target.nak_next_sense = static_cast<std::uint16_t>(c.value);
    if (c.field == "delay_output_ms") target.delay_output_ms = c.value;
    if (c.field == "crash_after_log") target.crash_after_log = c.value != 0;
    if (c.field == "crash_after_run") target.crash_after_run = c.value != 0;
    if (c.field == "hold_runs") target.hold_runs = c.value != 0;
    if (c.field == "restart_requested") target.restart_requested = static_cast<std::uint8_t>(c.value);
  }
}

std::vector<bytes> architected_display_tran(const command_state& state, std::string_view text,
                                            std::int32_t ccsid) {
  // [C: IMS-DISTRAN]: LL ZZ code(8) flag1 flag2 status.
  constexpr std::uint8_t not_found = 0xFF, bad_syntax = 0xFE, fast_path_exclusive = 0x08;
  constexpr std::uint8_t response = 0x80, conversational = 0x40, update = 0x20, irrecoverable = 0x10;
  constexpr std::uint8_t status_stopped = 0x80;
  auto segment = [ccsid](std::string_view code, std::uint8_t f1, std::uint8_t f2, std::uint8_t st,
                         std::string_view error) {
    bytes seg(15, 0);
    codepage::put_field(seg.data() + 4, 8, code, ccsid);
    seg[12] = f1;
    seg[13] = f2;
    seg[14] = st;
    if (!error.empty()) {
      auto conv =
          codepage::convert(bytes_view(reinterpret_cast<const std::uint8_t*>(error.data()), error.size()),
                            codepage::ccsid_819, ccsid);
      seg.insert(seg.end(), conv.out.begin(), conv.out.end());
    }
    store_u16(seg.data(), static_cast<std::uint16_t>(seg.size()), byte_order::big);
    return seg;
  };
  std::vector<bytes> out;
  std::string t = upper(text);
  while (!t.empty() && (t.back() == ' ' || t.back() == '.')) t.pop_back();
  const auto words = split_words(t);
  const bool is_display = !words.empty() && verb_of(words[0]) == verb::display;
  const parsed_command p = is_display ? parse_keywords(words) : parsed_command{};
  const keyword_group* g = p.find("TRAN");
  if (!is_display || !p.error.empty() || g == nullptr || p.groups.size() != 1 || g->params.empty()) {
    // [I] X'FE': the data area carries the error text.
    std::string error = !is_display ? (words.empty() ? msg_syntax : verb_incorrect(words[0]))
                                    : (!p.error.empty() ? p.error : std::string(msg_syntax));
    out.push_back(segment("", bad_syntax, 0, 0, error));
    return out;
  }
  std::vector<std::string> names;
  if (all_param(g->params)) {
    for (const auto& [code, tr] : state.defs.transactions) names.push_back(code);
  } else {
    names = g->params;
  }
  for (const auto& n : names) {
    const ims::transaction_def* tr = n.size() <= 8 ? state.defs.transaction(n) : nullptr;
    if (tr == nullptr) {
      out.push_back(segment(n.substr(0, 8), not_found, 0, 0, ""));
      continue;
    }
    // [I] our mapping of the definitions onto the flags: Fast Path → exclusive; a recoverable
    // transaction has update capability [D]; multi-segment and uppercase are not modelled.
    std::uint8_t f1 = tr->fast_path ? fast_path_exclusive : 0x00;
    std::uint8_t f2 = 0;
    if (tr->response_mode) f2 |= response;
    if (tr->conversational) f2 |= conversational;
    if (tr->recoverable) f2 |= update;
    if (!tr->recoverable) f2 |= irrecoverable;
    std::uint8_t st = state.stopped_transactions.count(n) != 0 ? status_stopped : 0;
    out.push_back(segment(tr->code, f1, f2, st, ""));
  }
  return out;
}

}  // namespace imsb::imsemu
