// The IMS emulator's engine (engine.hpp): the rules are in its header comment; the sources they come from
// are cited where each rule is applied.
//
// External programs (APPLCTN PGM=external:/path) run through external_program.hpp [D]; when one fails the
// operator sees its IMB5046E-IMB5050E line and DFS554A, and the run is backed out as a built-in's abend.

#include "imsb/imsemu/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>
#include <system_error>
#include <utility>
#include <variant>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/ims/programs.hpp"
#include "imsb/imsemu/commands.hpp"
#include "imsb/imsemu/external_program.hpp"
#include "imsb/names/name_rules.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/utoken.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/resync.hpp"

namespace imsb::imsemu {

namespace {

using otma::otma_message;

// IMS text is EBCDIC [C-hex: IMS-SAMPLE]; the bridge sends 037-compatible text
// (docs/design/character-data.md).
constexpr std::int32_t text_ccsid = codepage::ccsid_037;

std::string decode_text(bytes_view raw) {
  const auto c = codepage::convert(raw, text_ccsid, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

bytes encode_text(std::string_view text_819) {
  return codepage::convert(bytes_view::of(text_819), codepage::ccsid_819, text_ccsid).out;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(' ');
  return std::string(s.substr(first, last - first + 1));
}

std::string upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

std::string hex4(std::uint16_t v) { return otma::sense_hex(v); }

// A client-supplied name (user, group, Tpipe, destination, member) as a console line shows it: printable
// ASCII kept, anything else as '.' — a control character (EBCDIC X'25' decodes to LF), DEL, or a byte
// above X'7E' — so a client can neither split a log line nor forge one [D].
std::string printable(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7E) c = '.';
  }
  return s;
}

const otma::transaction_state_data* txn_state(const otma_message& m) {
  return m.state ? std::get_if<otma::transaction_state_data>(&*m.state) : nullptr;
}

bool is_cm1(const otma_message& m) {
  const auto* sd = txn_state(m);
  return sd != nullptr && sd->commit_mode_bits() == otma::sync_flags::send_then_commit;
}

std::uint8_t sync_level_of(const otma_message& m) {
  const auto* sd = txn_state(m);
  return sd != nullptr ? sd->sync_level() : otma::sync_flags::sync_level_confirm;
}

// The destination of an input (engine.hpp rule 2): the first word of a '/' command, else the first word
// of the first segment within its first 8 bytes.
struct destination {
  bool command = false;
  std::string name;  // trancode / LTERM, or the command verb with its '/'
  std::string text;  // the first segment as text
};

destination destination_of(const otma_message& m) {
  destination d;
  if (m.segments().empty()) return d;
  d.text = decode_text(m.segments().front().data);
  const std::string lead = trim(d.text);
  if (!lead.empty() && lead.front() == '/') {
    d.command = true;
    d.text = lead;
    d.name = upper(lead.substr(0, lead.find(' ')));
    return d;
  }
  // The transaction code is the first word of the message, 1-8 characters ended by a blank or by the
  // 8th character (IMS's input editing [I]): "IVTNO DISPLAY ..." is for IVTNO, "IVTNO   ..." too.
  const std::string_view first8 = std::string_view(d.text).substr(0, std::min<std::size_t>(8, d.text.size()));
  d.name = upper(trim(first8.substr(0, first8.find(' '))));
  return d;
}

// The conversation id as the server token ([C: IMS-CONV]: "IMS creates a conversation ID per
// tpipe and returns it in the server token"); layout ours [D]: "CONV" then the id, big-endian.
otma::raw_bytes<16> conversation_token(std::uint32_t id) {
  otma::raw_bytes<16> t{};
  t[0] = 0xC3;  // C'CONV' in EBCDIC
  t[1] = 0xD6;
  t[2] = 0xD5;
  t[3] = 0xE5;
  store_u32(t.data() + 4, id, byte_order::big);
  return t;
}

// An output message with the input's prefix ([C: IMS-CTS-FLOW, IMS-USR]: the state and user data come back
// unchanged).
otma_message output_for(const otma_message* input, const std::string& tpipe, bool synchronized,
                        const std::vector<bytes>& segments, const std::string& mod_name) {
  otma_message out;
  out.mci.message_type = otma::msg_type::data;
  out.mci.tpipe_name.set(tpipe);
  out.mci.processing_flags = synchronized ? otma::processing::synchronized_tpipe : 0;
  otma::transaction_state_data sd;
  if (input != nullptr) {
    if (const auto* in = txn_state(*input)) sd = *in;
    out.user = input->user;
  }
  sd.server_state = static_cast<std::uint8_t>(sd.server_state & ~otma::server_state::conversational);
  sd.extension.clear();
  if (!mod_name.empty()) sd.modname.set(mod_name);
  out.state = sd;
  otma::application_data ap;
  for (const auto& s : segments) ap.segments.push_back(otma::segment{0, s});
  if (ap.segments.empty()) ap.segments.push_back(otma::segment{0, encode_text(" ")});
  out.application = std::move(ap);
  return out;
}

// A database view whose changes are collected for commit_run (engine.hpp: "a phonebook view whose changes
// go into commit_run"); the base is never changed here.
class overlay_phonebook final : public ims::phonebook {
 public:
  explicit overlay_phonebook(const ims::memory_phonebook& base) : base_(base) {}
  std::optional<ims::phone_entry> find(std::string_view last_name) const override {
    auto it = local_.find(std::string(last_name));
    if (it != local_.end()) return it->second;
    return base_.find(last_name);
  }
  void put(const ims::phone_entry& entry) override {
    local_[entry.last_name] = entry;
    changes_.push_back({phonebook_change::kind::put, entry});
  }
  bool erase(std::string_view last_name) override {
    if (!find(last_name)) return false;
    local_[std::string(last_name)] = std::nullopt;
    ims::phone_entry e;
    e.last_name = std::string(last_name);
    changes_.push_back({phonebook_change::kind::erase, e});
    return true;
  }
  const std::vector<phonebook_change>& changes() const noexcept { return changes_; }

 private:
  const ims::memory_phonebook& base_;
  std::map<std::string, std::optional<ims::phone_entry>> local_;
  std::vector<phonebook_change> changes_;
};

}  // namespace

struct engine::impl {
  explicit impl(engine& e) : self(e) {}

  struct conversation {
    std::string transaction;
    bytes spa;
    std::uint32_t id = 0;
    otma::raw_bytes<16> token{};
  };
  struct tpipe_rt {
    std::vector<std::uint32_t> in_flight_seqs;  // send numbers of the output in flight (several: duplicated)
    std::uint64_t in_flight_id = 0;             // its journal output id; 0 = none in flight
    bool sending = false;                       // inside send_output() of the output in flight
    bool held = false;                          // NAKed: kept until resync, restart, /DEQ [C: IMS-CTS-FLOW]
    tpipe::millis not_before = 0;               // delay_output_ms
    std::uint64_t enqct = 0;
    std::uint64_t deqct = 0;
    std::optional<conversation> conv;
    std::uint32_t acked_conv_id = 0;  // the id the ACK of a conversation's first input gave [C: IMS-CONV]
  };
  struct client_rt {
    bool ready = false;
    std::uint32_t warned_level = 0;  // DFS1988W: the last threshold reported (80, 85, ...)
  };
  // A CM1 run waiting for the client's ACK of its reply [C: IMS-STC-FLOW].
  struct cm1_run {
    std::string client;
    std::string tpipe;
    std::uint32_t send_seq = 0;
    std::uint64_t input_id = 0;
    std::string transaction;
    std::vector<phonebook_change> changes;
    std::vector<output_spec> alt_outputs;
    otma_message input;
    bool conversational = false;
    bytes spa;
    bool end_conversation = false;
    bool new_conversation = false;  // this run started the Tpipe's conversation
    bool sending = false;           // inside send_output(): its send number is not known yet
  };

  // What the second half of a run (complete_run) needs from the first (run_input).
  struct prepared_run {
    std::uint64_t input_id = 0;
    std::string client;
    std::string tp_name;
    otma_message input;
    bool cm1 = false;
    std::uint32_t acked_conv_id = 0;
    std::string code;
    bool client_lost = false;  // CM1: its client was lost while the external run was in flight
  };

  engine& self;
  tpipe::millis now = 0;  // the last tick's time: the engine's time when no clock is set
  // engine::set_clock: asked at each use, so an input between two ticks is timed from its arrival.
  std::function<tpipe::millis()> clock;
  tpipe::millis time_now() const { return clock ? clock() : now; }
  sender_fn sender;
  program_runner runner;  // empty: external programs run synchronously (engine.hpp header)
  std::optional<prepared_run> external_in_flight;  // the external run the runner has
  utoken_verifier verifier;                        // empty: tokens are not checked (engine.hpp rule 4)
  bool utoken_required = false;                    // --utoken-required (engine.hpp rule 4, bids)
  // Logged inputs → their UTOKEN's verdict at acceptance (engine.hpp rule 4): the run shows that one, not
  // a second verification against a later clock. In memory only: after a warm restart it is verified again.
  std::map<std::uint64_t, token_check> accepted_tokens;
  std::map<tpipe_key, tpipe_rt> tpipes;
  std::map<std::string, client_rt, std::less<>> clients;
  std::vector<cm1_run> cm1_runs;
  std::set<std::string, std::less<>> stopped_trans;
  std::uint32_t next_conv_id = 1;
  bool degraded = false;
  bool running_queue = false;

  const journal_state& js() const { return self.journal_->state(); }
  void console(const std::string& line) const {
    if (self.console_) self.console_(line);
  }
  template <class F>
  void with_session(F&& f) {
    if (!self.session_) return;
    self.session_([&](tpipe::server_session& s) { f(s); });
  }
  bool journal_ok(const decode_error* err, const std::string& step) {
    if (err == nullptr) return true;
    console(std::string(imsb::msg::IMB5021E) + " journal step failed: " + step + ": " + err->to_string());
    return false;
  }

  // --- counting ---------------------------------------------------------------------------------------

  std::uint32_t active(std::string_view client) const {
    std::uint32_t n = 0;
    for (const auto& in : js().inputs) {
      if (in.client == client) ++n;
    }
    return n;
  }
  bool tpipe_known(const tpipe_key& key) const {
    return js().tpipes.count(key) != 0 || tpipes.count(key) != 0;
  }
  std::size_t tpipes_of(std::string_view client) const {
    std::set<std::string> names;
    for (const auto& [k, v] : js().tpipes) {
      if (k.first == client) names.insert(k.second);
    }
    for (const auto& [k, v] : tpipes) {
      if (k.first == client) names.insert(k.second);
    }
    return names.size();
  }
  tpipe_state tpipe_numbers(const tpipe_key& key) const {
    auto it = js().tpipes.find(key);
    return it == js().tpipes.end() ? tpipe_state{} : it->second;
  }

  // Thresholds [C: IMS-FLOOD], their use here [D]: DFS1988W at 80% and each further 5%, X'3C' degraded at
  // 80%, DFS0767I relief at ≤ 50%.
  void flood_check(const std::string& client) {
    const std::uint32_t limit = self.defs_.tib_limit;
    if (limit == 0) return;
    client_rt& c = clients[client];
    const std::uint32_t n = active(client);
    const std::uint32_t pct = static_cast<std::uint32_t>(std::uint64_t{n} * 100 / limit);
    if (pct >= 80) {
      const std::uint32_t level = 80 + (pct - 80) / 5 * 5;
      if (level > c.warned_level) {
        c.warned_level = level;
        console("DFS1988W OTMA INPUT MESSAGES (TIB) FOR MEMBER " + client + " AT " + std::to_string(level) +
                "% OF " + std::to_string(limit));
      }
      if (!degraded) {
        degraded = true;
        with_session([](tpipe::server_session& s) { s.set_server_state(otma::server_status::degraded); });
      }
    } else if (pct <= 50 && c.warned_level != 0) {
      c.warned_level = 0;
      console("DFS0767I OTMA INPUT MESSAGE FLOOD RELIEVED FOR MEMBER " + client);
      bool any = false;
      for (const auto& [name, other] : clients) any = any || other.warned_level != 0;
      if (degraded && !any) {
        degraded = false;
        with_session([](tpipe::server_session& s) { s.set_server_state(otma::server_status::normal); });
      }
    }
  }

  // --- answers to input ---------------------------------------------------------------------------------

  void nak(const std::string& client, const otma_message& input, std::uint16_t sense, const std::string& why,
           const std::string& dfs = {}) {
    console(std::string(imsb::msg::IMB5027W) + " input NAKed: member " + client + " tpipe " +
            printable(tpipe::tpipe_of(input)) + " sense " + hex4(sense) + ": " + printable(why) +
            (dfs.empty() ? "" : " (" + printable(dfs) + ")"));
    const bool follows = !dfs.empty();
    with_session([&](tpipe::server_session& s) { s.nak_input(client, input, sense, 0, follows); });
    if (follows) send_text(client, input, {dfs}, false);
  }

  void ack(const std::string& client, const otma_message& input) {
    if (self.faults_.withhold_next_acks > 0) {
      --self.faults_.withhold_next_acks;
      console(std::string(imsb::msg::IMB5030W) + " fault: ACK of input on tpipe " + tpipe::tpipe_of(input) +
              " from " + client + " withheld");
      return;
    }
    with_session([&](tpipe::server_session& s) { s.ack_input(client, input); });
  }

  // Output that is not queued: DFS text after a NAK, CM1 replies without commit, command output.
  void send_text(const std::string& client, const otma_message& input, const std::vector<std::string>& lines,
                 bool response_requested) {
    std::vector<bytes> segs;
    for (const auto& l : lines) segs.push_back(encode_text(l));
    send_volatile(client, output_for(&input, tpipe::tpipe_of(input), false, segs, {}), response_requested);
  }
  std::optional<std::uint32_t> send_volatile(const std::string& client, const otma_message& out,
                                             bool response_requested) {
    std::optional<std::uint32_t> seq;
    with_session([&](tpipe::server_session& s) {
      auto r = s.send_output(client, out, response_requested, time_now());
      if (r) {
        seq = *r;
      } else {
        console(std::string(imsb::msg::IMB5028W) + " output to " + client +
                " not sent: " + r.error().to_string());
      }
    });
    return seq;
  }

  // --- output queue (CM0) -------------------------------------------------------------------------------

  void pump(const tpipe_key& key) {
    auto q = js().outputs.find(key);
    if (q == js().outputs.end() || q->second.empty()) return;
    auto c = clients.find(key.first);
    if (c == clients.end() || !c->second.ready) return;
    if (tpipe_numbers(key).stopped) return;
    tpipe_rt& tp = tpipes[key];
    if (tp.in_flight_id != 0 || tp.held) return;
    if (self.faults_.delay_output_ms > 0) {
      const tpipe::millis t = time_now();
      if (tp.not_before == 0) {
        tp.not_before = t + self.faults_.delay_output_ms;
        return;
      }
      if (t < tp.not_before) return;
    }
    tp.not_before = 0;
    const queued_output& front = q->second.front();
    auto decoded = otma::decode_message(front.data);
    if (!decoded) {
      console(std::string(imsb::msg::IMB5021E) + " queued output " + std::to_string(front.id) +
              " does not decode: " + decoded.error().to_string());
      return;
    }
    otma_message out = std::move(decoded).value();
    // [C: IMS-RS-CS] a synchronized Tpipe's output carries the next recoverable send number.
    const bool synced = tpipe_numbers(key).synchronized && front.synchronized;
    out.mci.recoverable_seq = synced ? tpipe_numbers(key).send_rsn + 1 : 0;
    const std::uint64_t id = front.id;
    std::uint32_t copies = 1;
    if (self.faults_.duplicate_next_outputs > 0) {
      --self.faults_.duplicate_next_outputs;
      copies = 2;
      console(std::string(imsb::msg::IMB5030W) + " fault: output " + std::to_string(id) + " on tpipe " +
              key.second + " sent twice");
    }
    // The client's answer may come back inside send_output() when the wiring is synchronous (tests):
    // `sending` lets on_output_response match it before its send number is known here.
    tp.in_flight_id = id;
    tp.in_flight_seqs.clear();
    tp.sending = true;
    for (std::uint32_t i = 0; i < copies; ++i) {
      // CM0: response always requested [C: IMS-CTS-FLOW].
      auto seq = send_volatile(key.first, out, true);
      tpipe_rt& t = tpipes[key];
      if (!seq || t.in_flight_id != id) break;
      t.in_flight_seqs.push_back(*seq);
    }
    tpipe_rt& t = tpipes[key];
    t.sending = false;
    if (t.in_flight_id == id && t.in_flight_seqs.empty()) t.in_flight_id = 0;
  }

  void pump_client(std::string_view client) {
    std::vector<tpipe_key> keys;
    for (const auto& [k, v] : js().outputs) {
      if (k.first == client) keys.push_back(k);
    }
    for (const auto& k : keys) pump(k);
  }
  void pump_all() {
    std::vector<tpipe_key> keys;
    for (const auto& [k, v] : js().outputs) keys.push_back(k);
    for (const auto& k : keys) pump(k);
  }

  // --- runs ------------------------------------------------------------------------------------------------

  // `accepted`: the token's verdict at acceptance, when this engine accepted the input (engine.hpp rule 4).
  ims::input_message program_input(const otma_message& m, const std::string& client, const std::string& code,
                                   std::optional<token_check> accepted) {
    (void)client;
    ims::input_message in;
    in.transaction = code;
    in.ccsid = static_cast<std::uint16_t>(text_ccsid);
    for (const auto& s : m.segments()) {
      in.segments.push_back(s.data);
      in.segment_lengths.push_back(static_cast<std::uint16_t>(s.encoded_size()));
    }
    in.commit_mode = is_cm1(m) ? 1 : 0;
    in.sync_level = sync_level_of(m);
    in.tpipe = tpipe::tpipe_of(m);
    in.synchronized_tpipe = (m.mci.processing_flags & otma::processing::synchronized_tpipe) != 0;
    if (const auto* sd = txn_state(m)) {
      in.lterm_override = sd->lterm_override.value();
      in.mod_name = sd->modname.value();
    }
    if (m.security) {
      in.user_id = m.security->user_id().value_or("");
      in.group = m.security->profile().value_or("");
      switch (m.security->flag) {
        case otma::security_flag::check:
          in.security_flag = 'C';
          break;
        case otma::security_flag::full:
          in.security_flag = 'F';
          break;
        default:
          in.security_flag = 'N';
      }
      // After a warm restart (no verdict kept) verified again, and not logged: the input was accepted.
      in.token = accepted ? *accepted : token_of(m).state;
    }
    return in;
  }

  // Runs one logged input. `restart`: at warm start, where CM1 work in flight is discarded (DFS1970 [C]).
  // The first half (up to the program's input); complete_run does the rest. An external program with a
  // runner goes to the runner, and complete_external does the rest when it is done (engine.hpp header).
  void run_input(std::uint64_t input_id, bool restart) {
    // [D] one message region: while an external run is in flight nothing else runs; the input stays
    // logged and run_queue runs it after the run completes.
    if (external_in_flight) return;
    std::optional<token_check> accepted_token;
    if (auto t = accepted_tokens.find(input_id); t != accepted_tokens.end()) {
      accepted_token = t->second;
      accepted_tokens.erase(t);
    }
    const queued_input* qi = js().find_input(input_id);
    if (qi == nullptr) return;
    const std::string client = qi->client;
    const std::string tp_name = qi->tpipe;
    const tpipe_key key{client, tp_name};
    auto decoded = otma::decode_message(qi->otma);
    if (!decoded) {
      commit(input_id, "?", "UNDECODABLE", {}, {});
      return;
    }
    const otma_message input = std::move(decoded).value();
    const bool cm1 = is_cm1(input);
    tpipe_rt& tp = tpipes[key];
    const std::uint32_t acked_conv_id = std::exchange(tp.acked_conv_id, 0);
    const destination dest = destination_of(input);
    const std::string code = tp.conv ? tp.conv->transaction : dest.name;
    if (restart && cm1) {
      commit(input_id, code, "DISCARDED DFS1970", {}, {});
      return;
    }
    const ims::transaction_def* tran = self.defs_.transaction(code);
    if (tran == nullptr) {
      commit(input_id, code, "DFS064", {}, {});
      return;
    }
    ims::input_message in = program_input(input, client, code, accepted_token);
    if (tran->conversational) {
      if (tp.conv) {
        in.spa = tp.conv->spa;
      } else {
        // A new conversation's SPA: the trancode in its first 8 bytes, blanks after (IMS gives the first
        // input a SPA holding the trancode [C: IMS-CONV]; blanks [D]).
        in.spa = bytes(std::max<std::uint32_t>(tran->spa_size, 8), codepage::blank(text_ccsid));
        const bytes tc = encode_text(codepage::pad_field(code, 8));
        std::copy(tc.begin(), tc.end(), in.spa.begin());
      }
    }
    prepared_run p;
    p.input_id = input_id;
    p.client = client;
    p.tp_name = tp_name;
    p.input = input;
    p.cm1 = cm1;
    p.acked_conv_id = acked_conv_id;
    p.code = code;
    overlay_phonebook db(js().phonebook);
    ims::run_result r;
    const ims::program_def* prog = self.defs_.program(tran->program);
    if (prog != nullptr && !prog->builtin.empty()) {
      r = ims::run_builtin(prog->builtin, in, db);
    } else if (prog != nullptr && !prog->external.empty()) {
      external_options eo;
      eo.program_name = prog->name;
      eo.member = client;
      eo.imsid = self.defs_.imsid;
      if (tran->time_limit_seconds != 0) eo.timeout = std::chrono::seconds(tran->time_limit_seconds);
      if (runner) {
        // The job owns copies of what it needs: it runs on the runner's thread, without the lock.
        external_job job;
        job.input_id = input_id;
        job.options = eo;
        job.run = [path = prog->external, in = std::move(in)](const external_options& o) {
          return run_external_program(path, in, o);
        };
        engine* e = &self;
        job.complete = [e, input_id](external_result x) {
          if (!e->session_) {
            e->complete_external_run(input_id, std::move(x));
            return;
          }
          e->session_([&](tpipe::server_session&) { e->complete_external_run(input_id, std::move(x)); });
        };
        external_in_flight = std::move(p);
        runner(std::move(job));
        return;
      }
      external_result x = run_external_program(prog->external, in, eo);
      for (const auto& line : x.log) console(line);
      r = std::move(x.run);
    } else {
      r.abend = "U0456 PROGRAM " + tran->program + " NOT DEFINED";  // [D]
    }
    complete_run(p, std::move(r), db.changes());
  }

  // The external run in flight has ended (engine::complete_external_run, under the session access).
  void complete_external(std::uint64_t input_id, external_result x) {
    if (!external_in_flight || external_in_flight->input_id != input_id) return;  // dropped meanwhile
    prepared_run p = std::move(*external_in_flight);
    external_in_flight.reset();
    for (const auto& line : x.log) console(line);
    if (js().find_input(input_id) != nullptr) {
      if (p.cm1 && p.client_lost) {
        // The CM1 reply has nobody to go to: backed out, as a lost client's CM1 run is (on_client_lost).
        cm1_run lost;
        lost.client = p.client;
        lost.tpipe = p.tp_name;
        lost.input_id = input_id;
        lost.transaction = p.code;
        lost.input = p.input;
        finish_cm1(lost, false, "BACKED OUT: CLIENT LOST");
      } else {
        complete_run(p, std::move(x.run), {});
      }
    }
    // The inputs that waited for the region, in input order.
    if (!self.faults_.hold_runs) run_queue(false);
  }

  // The second half of a run: abend handling, commit, outputs, CM1.
  void complete_run(const prepared_run& p, ims::run_result r, std::vector<phonebook_change> changes) {
    const std::uint64_t input_id = p.input_id;
    const std::string& client = p.client;
    const std::string& tp_name = p.tp_name;
    const tpipe_key key{client, tp_name};
    const otma_message& input = p.input;
    const bool cm1 = p.cm1;
    const std::uint32_t acked_conv_id = p.acked_conv_id;
    const std::string& code = p.code;
    const ims::transaction_def* tran = self.defs_.transaction(code);
    if (tran == nullptr) {  // prepare found it; the definitions do not change
      commit(input_id, code, "DFS064", {}, {});
      return;
    }
    tpipe_rt& tp = tpipes[key];
    // [D] IMS tells the master terminal of an abend with DFS554A (region, program, transaction, code).
    if (r.abend)
      console("DFS554A " + self.defs_.imsid + " " + tran->program + " " + code + " ABEND " + *r.abend);

    // [C: IMS-RS-SUMMARY] (docs/design/commit-modes.md, CM0 step 6): output for input with recoverable
    // number 0 does not use or advance the Tpipe's recoverable send number, even on a synchronized Tpipe.
    const bool synced = tpipe_numbers(key).synchronized && input.mci.recoverable_seq != 0;
    std::vector<bytes> reply_segments;
    std::string reply_mod;
    bool has_reply = false;
    std::vector<output_spec> alt;
    std::string outcome = "OK";
    if (r.abend) {
      changes.clear();
      outcome = "ABEND " + *r.abend;
      console(std::string(imsb::msg::IMB5033W) + " program abended: transaction " + code + " " + *r.abend);
      reply_segments.push_back(encode_text("DFS555I TRANSACTION " + code + " ABEND " + *r.abend));  // [D]
      has_reply = true;
    } else {
      for (const auto& o : r.outputs) {
        if (o.destination.empty()) {
          // Several IOPCB messages: their segments go as one reply [D].
          reply_segments.insert(reply_segments.end(), o.segments.begin(), o.segments.end());
          if (!o.mod_name.empty()) reply_mod = o.mod_name;
          has_reply = true;
          continue;
        }
        const auto* d = self.defs_.descriptor_for(o.destination);
        if (d == nullptr) {
          console(std::string(imsb::msg::IMB5032W) + " output of " + code + " to " + o.destination +
                  " dropped: no descriptor");
          continue;
        }
        otma_message out = output_for(nullptr, d->tpipe, d->synchronized, o.segments, o.mod_name);
        auto enc = otma::encode_message(out);
        if (enc) alt.push_back(output_spec{d->tmember, d->tpipe, d->synchronized, std::move(enc).value()});
      }
      const auto* sd = txn_state(input);
      const bool wants_dfs2082 =
          cm1 || (sd != nullptr && (sd->server_state & otma::server_state::cm0_dfs2082) != 0);
      if (!has_reply && wants_dfs2082) {
        // [C: IMS-STC-FLOW]
        reply_segments.push_back(encode_text("DFS2082 RESPONSE MODE TRANSACTION TERMINATED WITHOUT REPLY"));
        has_reply = true;
      }
    }

    if (!cm1) {
      std::vector<output_spec> outs;
      if (has_reply) {
        otma_message out = output_for(&input, tp_name, synced, reply_segments, reply_mod);
        auto enc = otma::encode_message(out);
        if (enc) outs.push_back(output_spec{client, tp_name, synced, std::move(enc).value()});
      }
      outs.insert(outs.end(), alt.begin(), alt.end());
      if (!commit(input_id, code, outcome, changes, outs)) return;
      if (self.faults_.crash_after_run) {
        console(std::string(imsb::msg::IMB5031S) + " crash fault: after the run of input " +
                std::to_string(input_id));
        std::abort();
      }
      pump_all();
      return;
    }

    // CM1 [C: IMS-STC-FLOW]: the reply goes before the commit; with CONFIRM the commit waits for the ACK.
    otma_message out = output_for(&input, tp_name, false, reply_segments, reply_mod);
    std::uint32_t conv_id = 0;
    if (tran->conversational && !r.abend && !r.end_conversation) {
      conv_id = tp.conv ? tp.conv->id : acked_conv_id != 0 ? acked_conv_id : next_conv_id++;
      auto& sd = std::get<otma::transaction_state_data>(*out.state);
      sd.server_state = static_cast<std::uint8_t>(sd.server_state | otma::server_state::conversational);
      sd.server_token = conversation_token(conv_id);
    }
    const bool confirm = sync_level_of(input) == otma::sync_flags::sync_level_confirm && !r.abend;
    cm1_run run;
    run.client = client;
    run.tpipe = tp_name;
    run.input_id = input_id;
    run.transaction = code;
    run.changes = changes;
    run.alt_outputs = alt;
    run.input = input;
    run.conversational = tran->conversational && !r.abend;
    run.spa = r.spa;
    run.end_conversation = r.end_conversation;
    if (run.conversational && !r.end_conversation && !tpipes[key].conv) {
      conversation c;
      c.transaction = code;
      c.id = conv_id;
      c.token = conversation_token(conv_id);
      c.spa = r.spa;
      tpipes[key].conv = c;  // known now, so the next input's token can be checked
      run.new_conversation = true;
    }
    if (!confirm) {
      const auto seq = send_volatile(client, out, false);
      finish_cm1(run, true, outcome);
      // [C: IMS-FLOWS, IMS-COMMIT]: a CM1 CONFIRM transaction ends with a commit confirmation; one that
      // abended was backed out, so after its DFS555I reply the client hears "aborted" [D: no ACK asked for
      // the reply].
      if (r.abend && seq && sync_level_of(input) == otma::sync_flags::sync_level_confirm) {
        with_session(
            [&](tpipe::server_session& s) { s.send_commit_confirmation(client, tp_name, *seq, false); });
      }
      return;
    }
    // Registered before sending: the ACK may come back inside send_output() (synchronous wiring).
    run.sending = true;
    cm1_runs.push_back(run);
    auto seq = send_volatile(client, out, true);
    auto it = std::find_if(cm1_runs.begin(), cm1_runs.end(),
                           [&](const cm1_run& c) { return c.input_id == input_id; });
    if (it == cm1_runs.end()) return;  // already answered
    if (!seq) {
      cm1_runs.erase(it);
      finish_cm1(run, false, "BACKED OUT: REPLY NOT SENT");
      return;
    }
    it->send_seq = *seq;
    it->sending = false;
  }

  bool commit(std::uint64_t input_id, const std::string& code, const std::string& outcome,
              const std::vector<phonebook_change>& changes, const std::vector<output_spec>& outs) {
    const queued_input* qi = js().find_input(input_id);
    const std::string client = qi != nullptr ? qi->client : std::string();
    auto r = self.journal_->commit_run(input_id, code, outcome, changes, outs);
    if (!r) return journal_ok(&r.error(), "commit_run of input " + std::to_string(input_id));
    for (const auto& o : outs) ++tpipes[{o.client, o.tpipe}].enqct;
    if (!client.empty()) flood_check(client);
    return true;
  }

  void finish_cm1(const cm1_run& run, bool committed, const std::string& outcome) {
    const tpipe_key key{run.client, run.tpipe};
    if (committed) {
      if (!commit(run.input_id, run.transaction, outcome, run.changes, run.alt_outputs)) return;
      if (run.conversational) {
        tpipe_rt& tp = tpipes[key];
        if (run.end_conversation) {
          if (tp.conv)
            console(std::string(imsb::msg::IMB5034I) + " conversation " + std::to_string(tp.conv->id) +
                    " on tpipe " + run.tpipe + " of " + run.client + " ended by the program");
          tp.conv.reset();
        } else if (tp.conv) {
          tp.conv->spa = run.spa;
        }
      }
      pump_all();
    } else {
      commit(run.input_id, run.transaction, outcome, {}, {});
      // A backed-out first step leaves no conversation; a later one keeps the SPA as it was [D].
      if (run.new_conversation) tpipes[key].conv.reset();
    }
  }

  // Runs every logged input that is not waiting for a CM1 ACK (warm restart, held runs), in input order;
  // it stops at an external run handed to the runner (one region: the rest wait for its completion).
  void run_queue(bool restart) {
    if (running_queue) return;
    running_queue = true;
    std::vector<std::uint64_t> ids;
    for (const auto& in : js().inputs) {
      const bool waiting = std::any_of(cm1_runs.begin(), cm1_runs.end(),
                                       [&](const cm1_run& r) { return r.input_id == in.id; });
      const bool in_flight = external_in_flight && external_in_flight->input_id == in.id;
      if (!waiting && !in_flight) ids.push_back(in.id);
    }
    for (auto id : ids) {
      if (external_in_flight) break;
      run_input(id, restart);
    }
    running_queue = false;
  }

  // --- commands -------------------------------------------------------------------------------------------

  command_state make_command_state() const {
    command_state st(self.defs_, js());
    st.member = self.defs_.otmanm;
    for (const auto& [name, c] : clients) {
      client_status& cs = st.clients[name];
      cs.ready = c.ready;
      cs.tib_count = active(name);
      cs.tib_limit = self.defs_.tib_limit;
    }
    auto fill = [&](const tpipe_key& k) {
      client_status& cs = st.clients[k.first];
      tpipe_status& ts = cs.tpipes[k.second];
      const tpipe_state n = tpipe_numbers(k);
      ts.synchronized = n.synchronized;
      ts.stopped = n.stopped;
      ts.recv_rsn = n.recv_rsn;
      ts.send_rsn = n.send_rsn;
      auto rt = tpipes.find(k);
      if (rt != tpipes.end()) {
        ts.enqct = rt->second.enqct;
        ts.deqct = rt->second.deqct;
        ts.conversation_active = rt->second.conv.has_value();
        ts.conversation_id = rt->second.conv ? rt->second.conv->id : 0;
      }
    };
    for (const auto& [k, v] : js().tpipes) fill(k);
    for (const auto& [k, v] : tpipes) fill(k);
    for (const auto& [k, v] : js().outputs) fill(k);
    for (auto& [name, cs] : st.clients) {
      if (cs.tib_limit == 0) cs.tib_limit = self.defs_.tib_limit;
    }
    st.stopped_transactions = stopped_trans;
    for (const auto& in : js().inputs) {
      auto d = otma::decode_message(in.otma);
      if (!d) continue;
      auto rt = tpipes.find({in.client, in.tpipe});
      const std::string code =
          rt != tpipes.end() && rt->second.conv ? rt->second.conv->transaction : destination_of(*d).name;
      ++st.transaction_queue_counts[code];
      ++st.tib_count;
    }
    // [C: IMS-FLOOD]: the global TIB limit defaults to 10000 (the member's, INPUT=, to 5000);
    // the definitions have no statement for the global one, so the default is what /DIS OTMA shows.
    st.tib_limit = 10000;
    st.server_state = degraded ? "DEGRADED" : "NORMAL";
    st.fault_settings = self.faults_;
    return st;
  }

  // Applies a command's effects. The caller pumps output afterwards, so the command's answer goes before
  // any output it releases.
  // `lines` is the command's answer: a refused dequeue corrects its IMB5065I count and says why.
  void apply(const command_effects& fx, std::vector<std::string>& lines) {
    std::size_t refused = 0;
    // Logged so that a warm restart keeps the status (journal.hpp transaction_stopped [I]).
    auto set_tran = [&](const std::string& t, bool stopped) {
      if (auto r = self.journal_->set_transaction_stopped(t, stopped); !r)
        journal_ok(&r.error(), "set_transaction_stopped " + t);
    };
    for (const auto& t : fx.stop_transactions) {
      stopped_trans.insert(t);
      set_tran(t, true);
    }
    for (const auto& t : fx.start_transactions) {
      stopped_trans.erase(t);
      set_tran(t, false);
    }
    auto set_stopped = [&](const tpipe_key& k, bool stopped) {
      tpipe_state st = tpipe_numbers(k);
      st.stopped = stopped;
      auto r = self.journal_->set_tpipe(k.first, k.second, st);
      if (!r) journal_ok(&r.error(), "set_tpipe " + k.second);
    };
    for (const auto& k : fx.stop_tpipes) set_stopped(k, true);
    for (const auto& k : fx.start_tpipes) set_stopped(k, false);
    for (auto id : fx.purge_outputs) {
      for (auto& [k, q] : js().outputs) {
        if (std::none_of(q.begin(), q.end(), [&](const queued_output& o) { return o.id == id; })) continue;
        const tpipe_key key = k;
        tpipe_rt& rt_tp = tpipes[key];
        const auto* qo = js().find_output(id);
        if (rt_tp.in_flight_id == id && qo != nullptr && qo->synchronized &&
            tpipe_numbers(key).synchronized) {
          // [D] like IMS refusing to dequeue a message in use: the client may have committed it already
          // (its ACK in transit), and dequeuing it would let the next output reuse its recoverable send
          // number [C: IMS-RS-CS]. It goes when the client answers, or after resync.
          ++refused;
          lines.push_back(std::string(imsb::msg::IMB5065I) + " OUTPUT " + std::to_string(id) + " ON TPIPE " +
                          key.second + " OF " + key.first +
                          " IS IN USE (SENT, AWAITING THE CLIENT'S ACK): NOT DEQUEUED");
          break;
        }
        auto r = self.journal_->purge_output(id);
        if (!r) {
          journal_ok(&r.error(), "purge_output " + std::to_string(id));
          break;
        }
        tpipe_rt& tp = tpipes[key];
        ++tp.deqct;
        if (tp.in_flight_id == id) {
          tp.in_flight_id = 0;
          tp.in_flight_seqs.clear();
        }
        tp.held = false;
        break;
      }
    }
    for (const auto& k : fx.end_conversations) {
      auto it = tpipes.find(k);
      if (it != tpipes.end() && it->second.conv) {
        console(std::string(imsb::msg::IMB5034I) + " conversation " + std::to_string(it->second.conv->id) +
                " on tpipe " + k.second + " of " + k.first + " ended by /EXIT");
        it->second.conv.reset();
      }
    }
    apply_fault_changes(self.faults_, fx.fault_changes);
    if (refused != 0) {
      for (auto& l : lines) {
        const std::string count = std::to_string(fx.purge_outputs.size());
        if (l.rfind(std::string(imsb::msg::IMB5065I) + " " + count + " ", 0) == 0) {
          l = std::string(imsb::msg::IMB5065I) + " " + std::to_string(fx.purge_outputs.size() - refused) +
              l.substr(9 + count.size());
          break;
        }
      }
    }
  }

  void on_command(const std::string& client, const otma_message& input, const destination& dest,
                  bool synchronized) {
    const std::uint32_t rsn = input.mci.recoverable_seq;
    // [C: IMS-RESYNC]: commands on a synchronized Tpipe must carry recoverable number 0.
    if (synchronized && rsn != 0) {
      nak(client, input, otma::sense::seq_not_recoverable, "command with a recoverable number");
      return;
    }
    // [C: IMS-RS-SUMMARY]: CM1 on a synchronized Tpipe is refused, commands included. A command with
    // number 0 on a synchronized Tpipe is run [C: IMS-RESYNC]; so is one sent CM0, whose output cannot be
    // tied back to it [C: IMS-CMDS] — the client's concern, not a reason to refuse it.
    if (synchronized && is_cm1(input)) {
      nak(client, input, otma::sense::cm1_on_synchronized_tpipe, "CM1 command on a synchronized tpipe");
      return;
    }
    if (!authorized(input, dest.name.substr(1), true, token_of(input))) {
      nak(client, input, otma::sense::security_violation, "user not authorized for " + dest.name,
          "DFS1292E SECURITY VIOLATION");
      return;
    }
    ack(client, input);
    command_state st = make_command_state();
    st.origin = tpipe_key{client, tpipe::tpipe_of(input)};
    command_result res = run_command(st, dest.text);
    apply(res.effects, res.lines);
    // [C: IMS-CMDS]: command output does not replicate the input's prefix (only the Tpipe name is common),
    // so the client's user data does not come back with it.
    otma_message reply_to = input;
    reply_to.user.reset();
    std::vector<bytes> segs;
    const std::string verb = upper(dest.text.substr(0, 4));
    if ((input.mci.response_flag & otma::response::extended_requested) != 0 && verb == "/DIS" &&
        upper(dest.text).find(" TRAN") != std::string::npos) {
      segs = architected_display_tran(st, dest.text, text_ccsid);  // [C: IMS-DISTRAN]
      otma_message out = output_for(&reply_to, tpipe::tpipe_of(input), false, {}, {});
      out.application->segments.clear();
      for (const auto& s : segs) {
        // architected_display_tran gives whole LLZZ segments.
        if (s.size() < 4) continue;
        out.application->segments.push_back(otma::segment{0, bytes(s.begin() + 4, s.end())});
      }
      if (out.application->segments.empty())
        out.application->segments.push_back(otma::segment{0, encode_text(" ")});
      send_volatile(client, out, false);
    } else {
      send_text(client, reply_to, res.lines, false);
    }
    pump_all();
  }

  // --- security [C: MQ-SEC] -----------------------------------------------------------------------------

  // The message's UTOKEN as the verifier finds it for the message's own user ID and group (our signed
  // token [D], docs/design/otma.md). Logs nothing: authorized() reports a verdict that refuses (engine.hpp
  // rule 4).
  token_finding token_of(const otma_message& m) const {
    if (!m.security) return token_check::none;
    const auto token = m.security->utoken();
    if (!token) return token_check::none;
    if (!verifier) return token_check::not_verified;
    return verifier(*token, m.security->user_id().value_or(""), m.security->profile().value_or(""));
  }

  // IMB5041W: a token that did not verify, where that matters (rule 4 above NONE, a bid).
  void token_not_verified(std::string_view user, std::string_view group, const token_finding& token) const {
    console(std::string(imsb::msg::IMB5041W) + " UTOKEN OF USER '" + printable(user) + "' GROUP '" +
            printable(group) + "' NOT VERIFIED" +
            (token.reason.empty() ? "" : ": " + printable(token.reason)));
  }

  // `token`: token_of(input), computed once by the caller so that acceptance and run agree.
  bool authorized(const otma_message& input, const std::string& what, bool command,
                  const token_finding& token) const {
    ims::otma_security level = self.defs_.security;
    if (level == ims::otma_security::none) return true;
    if (level == ims::otma_security::profile) {
      // PROFILE: the message's flag decides [C: MQ-SEC, ICON-SEC].
      const std::uint8_t flag = input.security ? input.security->flag : otma::security_flag::none;
      if (flag != otma::security_flag::check && flag != otma::security_flag::full) return true;
    }
    const std::string user = input.security ? input.security->user_id().value_or("") : std::string();
    // [D] (docs/design/otma.md): a UTOKEN the key does not verify is a security violation, as a user not
    // allowed is.
    if (token.state == token_check::invalid) {
      token_not_verified(user, input.security->profile().value_or(""), token);
      console(std::string(imsb::msg::IMB5040W) + " input for " + printable(what) + " on tpipe " +
              printable(tpipe::tpipe_of(input)) + " refused: the UTOKEN of user '" + printable(user) +
              "' does not verify");
      return false;
    }
    // --utoken-required [D]: a user named without a token is refused as one whose token does not verify;
    // without it the user ID is trusted, as IMS does when MQ sends no UTOKEN [C: MQ-SEC].
    if (utoken_required && token.state == token_check::none && !user.empty()) {
      console(std::string(imsb::msg::IMB5056W) + " input for " + printable(what) + " on tpipe " +
              printable(tpipe::tpipe_of(input)) + " refused: user '" + printable(user) +
              "' sent no UTOKEN (--utoken-required)");
      return false;
    }
    if (user.empty()) return false;
    return command ? self.defs_.may_run_command(user, what) : self.defs_.may_run_transaction(user, what);
  }

  // --- input (engine.hpp rules 1–6) ---------------------------------------------------------------------

  void on_input(const std::string& client, const otma_message& input) {
    if (self.faults_.stop_answering) return;
    if (self.faults_.nak_next_sense != 0) {
      const std::uint16_t sense = self.faults_.nak_next_sense;
      self.faults_.nak_next_sense = 0;
      nak(client, input, sense, "fault: NAK forced");
      return;
    }
    const std::string tp_name = tpipe::tpipe_of(input);
    const tpipe_key key{client, tp_name};
    if (auto bad = names::check_tpipe_name(tp_name)) {
      nak(client, input, otma::sense::invalid_name, bad->reason);
      return;
    }
    if (input.segments().empty()) {
      nak(client, input, otma::sense::invalid_message, "no application data");
      return;
    }
    const bool cm1 = is_cm1(input);
    const std::uint32_t rsn = input.mci.recoverable_seq;
    // [C: IMS-RS-SUMMARY]: IMS goes by the recoverable number, not by the MCI processing flag ([D] for the
    // flag): CM0 input with a nonzero number makes the Tpipe synchronized, so it is resynchronized at the
    // next bid.
    const bool synchronized = (input.mci.processing_flags & otma::processing::synchronized_tpipe) != 0 ||
                              tpipe_numbers(key).synchronized || (!cm1 && rsn != 0);
    const destination dest = destination_of(input);

    // Conversations ([D], docs/design/otma.md): one per Tpipe; later input must carry its server token.
    auto rt = tpipes.find(key);
    const bool in_conv = rt != tpipes.end() && rt->second.conv.has_value();
    const auto* sd = txn_state(input);
    const bool says_conv = sd != nullptr && (sd->server_state & otma::server_state::conversational) != 0;
    if (!dest.command && (in_conv || says_conv)) {
      if (!in_conv || sd == nullptr || sd->server_token != rt->second.conv->token) {
        nak(client, input, otma::sense::invalid_message,
            in_conv ? "conversation input without its server token"
                    : "no conversation for this server token");
        return;
      }
    }

    // Rule 2: destination.
    if (!dest.command && !in_conv && self.defs_.is_lterm(dest.name)) {
      nak(client, input, otma::sense::unknown_destination, "destination " + dest.name + " is an LTERM",
          "DFS1288E DESTINATION " + dest.name + " IS AN LTERM, NOT A TRANSACTION");  // text [D]
      return;
    }
    if (dest.command) {
      on_command(client, input, dest, synchronized);
      return;
    }
    // Rule 3, first part [C: IMS-RS-SUMMARY]: CM1 on a synchronized Tpipe is refused (X'1C') whatever its
    // destination, so before the destination checks below.
    if (cm1 && synchronized) {
      nak(client, input, otma::sense::cm1_on_synchronized_tpipe, "CM1 on a synchronized tpipe");
      return;
    }
    const std::string code = in_conv ? rt->second.conv->transaction : dest.name;
    const ims::transaction_def* tran = self.defs_.transaction(code);
    std::string dfs;
    if (tran == nullptr) {
      dfs = "DFS064 DESTINATION CAN NOT BE FOUND OR CREATED, DEST=" + code;  // [C: IMS-MSG-ICO0079E]
    } else if (stopped_trans.count(code) != 0) {  // the definitions' status is in it from open()
      dfs = "DFS065 TRAN/LTERM STOPPED " + code;  // [C: IMS-MSG-ICO0079E] text, placement of the name [D]
    }
    if (!dfs.empty()) {
      // [D] (docs/design/otma.md): as output data; on CM0 through the Tpipe's queue.
      if (rsn != 0 && rsn != tpipe_numbers(key).recv_rsn + 1) {
        nak(client, input, otma::sense::invalid_recoverable_seq, "recoverable number not receive + 1");
        return;
      }
      console(std::string(imsb::msg::IMB5027W) + " " + printable(dfs) + " (member " + client + " tpipe " +
              tp_name + ")");
      if (cm1) {
        ack(client, input);
        send_text(client, input, {dfs}, false);
        return;
      }
      auto logged = log(client, input, synchronized, rsn);
      if (!logged) return;
      ack(client, input);
      // Only output for recoverable input (number ≠ 0) carries a recoverable send number [C: IMS-RS-SUMMARY].
      const bool synced_out = synchronized && rsn != 0;
      otma_message out = output_for(&input, tp_name, synced_out, {encode_text(dfs)}, {});
      auto enc = otma::encode_message(out);
      std::vector<output_spec> outs;
      if (enc) outs.push_back(output_spec{client, tp_name, synced_out, std::move(enc).value()});
      if (commit(*logged, code, dfs.substr(0, 6), {}, outs)) pump(key);
      return;
    }

    // Rule 3: commit mode and Tpipe [C: IMS-RS-SUMMARY]; CM1 on a synchronized Tpipe is checked above.
    // Sync level SYNCPT needs RRS, which the emulator has not: X'0011' [C: IMS-MSG-ICO0002E].
    if (sync_level_of(input) == otma::sync_flags::sync_level_syncpt) {
      nak(client, input, otma::sense::rrs_not_enabled, "sync level SYNCPT: IMS is not enabled for RRS");
      return;
    }
    if (!cm1 && (tran->fast_path || tran->conversational)) {
      nak(client, input, otma::sense::invalid_commit_mode, "Fast Path or conversational with CM0",
          "DFS1291E DESTINATION HAS AN INVALID COMMIT MODE");
      return;
    }
    if (rsn != 0 && !tran->recoverable) {
      nak(client, input, otma::sense::seq_not_recoverable,
          "recoverable number on an unrecoverable transaction");
      return;
    }
    if (rsn != 0 && rsn != tpipe_numbers(key).recv_rsn + 1) {
      nak(client, input, otma::sense::invalid_recoverable_seq,
          "recoverable number " + std::to_string(rsn) + " is not receive + 1 (" +
              std::to_string(tpipe_numbers(key).recv_rsn + 1) + ")");
      return;
    }
    // Rule 4: security. The token's verdict is kept with the logged input for its run.
    const token_finding token = token_of(input);
    if (!authorized(input, code, false, token)) {
      nak(client, input, otma::sense::security_violation, "user not authorized for " + code,
          "DFS1292E SECURITY VIOLATION");
      return;
    }
    // Rule 5: flood control [C: IMS-FLOOD].
    const std::uint32_t limit = self.defs_.tib_limit;
    if (limit != 0 && active(client) >= limit) {
      console("DFS1989E OTMA INPUT MESSAGES (TIB) FOR MEMBER " + client + " REACHED THE LIMIT " +
              std::to_string(limit));
      nak(client, input, otma::sense::flood, "flood: TIB limit reached");
      return;
    }
    // Rule 6: MAXTP [D].
    if (self.defs_.maxtp != 0 && !tpipe_known(key) && tpipes_of(client) >= self.defs_.maxtp) {
      console("DFS4383E MAXTP LIMIT " + std::to_string(self.defs_.maxtp) + " REACHED FOR MEMBER " + client);
      nak(client, input, otma::sense::unknown_destination, "MAXTP: no new tpipe");
      return;
    }

    auto id = log(client, input, synchronized && !cm1, rsn);
    if (!id) return;
    if (token.state != token_check::none) accepted_tokens[*id] = token.state;
    tpipes[key];
    if (self.faults_.crash_after_log) {
      console(std::string(imsb::msg::IMB5031S) + " crash fault: after logging input " + std::to_string(*id));
      std::abort();
    }
    if (tran->conversational && !in_conv) {
      // [C: IMS-CONV]: "When IMS acknowledges the first input, it sets server state
      // Conversational", with the conversation id as server token: the one the run then gives it.
      tpipe_rt& tp = tpipes[key];
      tp.acked_conv_id = next_conv_id++;
      otma_message acked = input;
      if (auto* asd = acked.state ? std::get_if<otma::transaction_state_data>(&*acked.state) : nullptr) {
        asd->server_state = static_cast<std::uint8_t>(asd->server_state | otma::server_state::conversational);
        asd->server_token = conversation_token(tp.acked_conv_id);
      }
      ack(client, acked);
    } else {
      ack(client, input);
    }
    flood_check(client);
    if (self.faults_.hold_runs) {
      console(std::string(imsb::msg::IMB5030W) + " fault: run of input " + std::to_string(*id) + " held");
      return;
    }
    run_input(*id, false);
  }

  std::optional<std::uint64_t> log(const std::string& client, const otma_message& input, bool synchronized,
                                   std::uint32_t rsn) {
    auto enc = otma::encode_message(input);
    if (!enc) {
      nak(client, input, otma::sense::prefix_format_error, enc.error().to_string());
      return std::nullopt;
    }
    auto r = self.journal_->log_input(client, tpipe::tpipe_of(input), synchronized, rsn, *enc);
    if (!r) {
      journal_ok(&r.error(), "log_input");
      nak(client, input, otma::sense::invalid_message, "journal: " + r.error().to_string());  // [D]
      return std::nullopt;
    }
    return *r;
  }

  // --- output responses -------------------------------------------------------------------------------

  void on_output_response(const tpipe::output_response& resp) {
    if (self.faults_.stop_answering) return;
    if (resp.ack && self.faults_.ignore_next_client_acks > 0) {
      --self.faults_.ignore_next_client_acks;
      console(std::string(imsb::msg::IMB5030W) + " fault: client ACK of send number " +
              std::to_string(resp.send_seq) + " on tpipe " + resp.tpipe + " ignored");
      return;
    }
    const tpipe_key key{resp.client, resp.tpipe};
    for (auto it = cm1_runs.begin(); it != cm1_runs.end(); ++it) {
      if (it->client != resp.client || it->tpipe != resp.tpipe) continue;
      if (it->send_seq != resp.send_seq && !it->sending) continue;
      if (it->sending) it->send_seq = resp.send_seq;
      cm1_run run = std::move(*it);
      cm1_runs.erase(it);
      if (resp.ack) {
        finish_cm1(run, true, "OK");
        with_session([&](tpipe::server_session& s) {
          s.send_commit_confirmation(run.client, run.tpipe, run.send_seq, true);
        });
      } else {
        // U119, DFS554 to the client [C: IMS-STC-FLOW], commit confirmation aborted [I].
        console(std::string(imsb::msg::IMB5029W) + " CM1 output of " + run.transaction + " NAKed by " +
                run.client + " (sense " + hex4(resp.sense) + "): backed out, U0119");
        // [I] IMS reports the abend to the master terminal too, not only to the client.
        // Same form as a program's own abend: region, program, transaction, code [D].
        const ims::transaction_def* t = self.defs_.transaction(run.transaction);
        console("DFS554A " + self.defs_.imsid + " " + (t != nullptr ? t->program : run.transaction) + " " +
                run.transaction + " ABEND U0119 TPIPE " + run.tpipe + " MEMBER " + run.client);
        finish_cm1(run, false, "ABEND U0119");
        send_text(run.client, run.input, {"DFS554A " + run.transaction + " ABEND U0119"}, false);  // text [D]
        with_session([&](tpipe::server_session& s) {
          s.send_commit_confirmation(run.client, run.tpipe, run.send_seq, false);
        });
      }
      return;
    }
    auto rt = tpipes.find(key);
    if (rt == tpipes.end() || rt->second.in_flight_id == 0 ||
        (!rt->second.sending && std::find(rt->second.in_flight_seqs.begin(), rt->second.in_flight_seqs.end(),
                                          resp.send_seq) == rt->second.in_flight_seqs.end())) {
      // Unsolicited answer to a volatile output (DFS text) or to a duplicate: nothing waits for it.
      return;
    }
    const std::uint64_t id = rt->second.in_flight_id;
    rt->second.in_flight_id = 0;
    rt->second.in_flight_seqs.clear();
    if (!resp.ack) {
      const auto* sd = txn_state(resp.message);
      if (sd != nullptr && (sd->route_flags & otma::route_flags::purge_not_deliverable) != 0) {
        console(std::string(imsb::msg::IMB5029W) + " output " + std::to_string(id) + " NAKed by " +
                resp.client + " with purge: dequeued");
        auto r = self.journal_->purge_output(id);
        if (!r) journal_ok(&r.error(), "purge_output");
        ++tpipes[key].deqct;
        pump(key);
        return;
      }
      console(std::string(imsb::msg::IMB5029W) + " output " + std::to_string(id) + " on tpipe " + resp.tpipe +
              " NAKed by " + resp.client + " (sense " + hex4(resp.sense) + "): kept");
      tpipes[key].held = true;
      return;
    }
    const tpipe_state n = tpipe_numbers(key);
    const queued_output* qo = js().find_output(id);
    const bool synced = n.synchronized && qo != nullptr && qo->synchronized;
    // [C: IMS-RS-CS] the send number is logged when the client ACKs.
    auto r = self.journal_->log_output_acked(
        id, synced ? std::optional<std::uint32_t>(n.send_rsn + 1) : std::nullopt);
    if (!r) {
      journal_ok(&r.error(), "log_output_acked");
      return;
    }
    ++tpipes[key].deqct;
    pump(key);
  }

  // --- resync [C: IMS-RESYNC] -----------------------------------------------------------------------

  void on_represynch(const std::string& client, const std::string& tp_name, std::uint8_t action,
                     std::uint32_t client_send, std::uint32_t client_receive) {
    const tpipe_key key{client, tp_name};
    tpipe_state st = tpipe_numbers(key);
    const tpipe::server_tpipe_numbers before{st.send_rsn, st.recv_rsn};
    const tpipe::server_tpipe_numbers after =
        tpipe::apply_represynch(before, action, client_send, client_receive);
    // "One output in flight per Tpipe" (docs/design/tpipes.md): a REPresynch after TBresynch comes while the
    // client is ready, and the output in flight stays in flight (its ACK may still come); at a bid the
    // client is not ready yet and on_client_ready sends it again anyway.
    const auto c = clients.find(client);
    const bool ready = c != clients.end() && c->second.ready;
    tpipe_rt& tp = tpipes[key];
    if (!ready) {
      tp.in_flight_id = 0;
      tp.in_flight_seqs.clear();
    }
    tp.held = false;
    if (action == otma::represynch_action::dequeue_last_output) {
      auto q = js().outputs.find(key);
      // Only output that carried a recoverable number can be what the client committed (rsn-0 output has
      // none [C: IMS-RS-SUMMARY]); outputs go one at a time, so it is the front one.
      if (q != js().outputs.end() && !q->second.empty() && q->second.front().synchronized) {
        // One durable step [C: IMS-RS-CS]: the client committed the output, so it goes and the send
        // number becomes the client's receive number together; two steps would leave a crash window in
        // which the output is gone and the number behind, and the next resync would dequeue the NEXT one.
        const std::uint64_t front_id = q->second.front().id;
        auto r = self.journal_->log_output_acked(front_id, client_receive);
        if (!r) {
          journal_ok(&r.error(), "log_output_acked (dequeue last output)");
          return;  // advance nothing
        }
        tpipe_rt& t = tpipes[key];
        ++t.deqct;
        if (t.in_flight_id == front_id) {
          t.in_flight_id = 0;
          t.in_flight_seqs.clear();
        }
      }
      st = tpipe_numbers(key);
    }
    st.send_rsn = after.send;
    st.recv_rsn = after.receive;
    if (action == otma::represynch_action::stop_tpipe ||
        action == otma::represynch_action::stop_and_wait_tbresynch) {
      st.stopped = true;
    } else if (action == otma::represynch_action::reset_sequence_numbers) {
      st.stopped = false;
    }
    st.synchronized = true;
    auto r = self.journal_->set_tpipe(client, tp_name, st);
    if (!r) journal_ok(&r.error(), "set_tpipe " + tp_name);
    console(std::string(imsb::msg::IMB5026I) + " REPresynch for tpipe " + printable(tp_name) + " of " +
            client + ": action " + hex4(action) + ", IMS send/receive " + std::to_string(before.send) + "/" +
            std::to_string(before.receive) + " -> " + std::to_string(st.send_rsn) + "/" +
            std::to_string(st.recv_rsn));
    if (ready) pump(key);
  }
};

// --- engine
// -------------------------------------------------------------------------------------------------

engine::engine(ims::definitions defs, journal j, console_fn console)
    : impl_(std::make_unique<impl>(*this)),
      defs_(std::move(defs)),
      journal_(std::make_unique<journal>(std::move(j))),
      console_(std::move(console)) {}

engine::~engine() = default;

result<std::unique_ptr<engine>> engine::open(ims::definitions defs, const std::filesystem::path& state_dir,
                                             bool cold_start, console_fn console) {
  auto j = journal::open(state_dir, cold_start);
  if (!j) return j.error();
  std::unique_ptr<engine> e(new engine(std::move(defs), std::move(j).value(), std::move(console)));
  for (const auto& [code, t] : e->defs_.transactions) {
    if (t.stopped) e->impl_->stopped_trans.insert(code);
  }
  // The operator's /STO or /STA TRAN outlives a warm restart and wins over the definitions (journal.hpp
  // transaction_stopped [I]); after a cold start the journal has none, so the definitions rule.
  for (const auto& [code, stopped] : e->journal_->state().transaction_stopped) {
    if (stopped)
      e->impl_->stopped_trans.insert(code);
    else
      e->impl_->stopped_trans.erase(code);
  }
  const journal_state& st = e->journal_->state();
  std::size_t synced = 0, outputs = 0;
  for (const auto& [k, t] : st.tpipes) synced += t.synchronized ? 1 : 0;
  for (const auto& [k, q] : st.outputs) outputs += q.size();
  if (e->console_) {
    e->console_((std::string(imsb::msg::IMB5020I) + " engine started (") + (cold_start ? "cold" : "warm") +
                " start): " + std::to_string(synced) + " synchronized tpipes, " +
                std::to_string(st.inputs.size()) + " queued inputs, " + std::to_string(outputs) +
                " queued outputs");
  }
  // Warm restart: inputs logged and not run are run now (their output waits for the client) [D].
  e->impl_->run_queue(true);
  return e;
}

void engine::attach(session_access access) { session_ = std::move(access); }
void engine::set_sender(sender_fn sender) { impl_->sender = std::move(sender); }
void engine::set_clock(std::function<tpipe::millis()> clock) { impl_->clock = std::move(clock); }

void engine::set_utoken_verifier(utoken_verifier verifier, bool required) {
  impl_->verifier = std::move(verifier);
  impl_->utoken_required = required;
}

void engine::set_program_runner(program_runner runner) { impl_->runner = std::move(runner); }

void engine::complete_external_run(std::uint64_t input_id, external_result result) {
  impl_->complete_external(input_id, std::move(result));
}

std::uint64_t engine::external_run_in_flight() const noexcept {
  return impl_->external_in_flight ? impl_->external_in_flight->input_id : 0;
}

std::uint32_t engine::active_inputs(std::string_view client) const { return impl_->active(client); }

void engine::tick(tpipe::millis now) {
  impl_->now = now;
  if (!faults_.hold_runs) impl_->run_queue(false);
  impl_->pump_all();
  for (const auto& [name, c] : impl_->clients) {
    if (c.warned_level != 0) {
      impl_->flood_check(name);
      break;
    }
  }
}

std::vector<std::string> engine::operator_command(std::string_view text) {
  command_result res = run_command(impl_->make_command_state(), text);
  impl_->apply(res.effects, res.lines);
  impl_->pump_all();
  return res.lines;
}

void engine::send(std::string_view client, bytes buffer) {
  if (impl_->sender) impl_->sender(client, std::move(buffer));
}

tpipe::bid_verdict engine::on_bid(std::string_view client, const otma::otma_message& bid) {
  tpipe::bid_verdict v;
  if (faults_.stop_answering) {
    // A bid cannot be left unanswered by the session; refuse it instead [D].
    v.accept = false;
    v.sense = otma::sense::invalid_message;
    return v;
  }
  if (auto bad = names::check_xcf_member_name(client, names::xcf_rules::bridge)) {
    v.accept = false;
    v.sense = otma::sense::invalid_name;
    impl_->console(std::string(imsb::msg::IMB5023W) + " bid of " + printable(client) + " rejected (sense " +
                   hex4(v.sense) + "): " + bad->reason);
    return v;
  }
  // The bid's user and group (engine.hpp): its subfields, else — IBM's sample bid carries only the UTOKEN
  // [C-hex: IMS-SAMPLE] — the ones its token names. Determined once: the three checks below must agree on
  // it.
  std::string user;
  std::string group;
  std::optional<bytes_view> token;
  if (bid.security) {
    user = bid.security->user_id().value_or("");
    group = bid.security->profile().value_or("");
    token = bid.security->utoken();
    if (user.empty() && token) {
      if (auto own = otma::decode_utoken(*token)) {
        user = codepage::field_value(own->fields.user_id);
        if (group.empty()) group = codepage::field_value(own->fields.group);
      }
    }
  }
  const auto refuse = [&](const std::string& why) {
    v.accept = false;
    v.sense = otma::sense::security_violation;
    impl_->console(std::string(imsb::msg::IMB5023W) + " bid of " + std::string(client) + " rejected (sense " +
                   hex4(v.sense) + "): " + why);
    return v;
  };
  // [D]: the CLIENT allow-list, standing in for the FACILITY profile IMSXCF.group.member.
  if (!defs_.may_bid(client, user)) {
    return refuse("not permitted by a CLIENT statement" +
                  (user.empty() ? "" : " for user " + printable(user)));
  }
  const bool secured = defs_.security != ims::otma_security::none;
  // IMS's JOIN check of client-bids [C: IMS-OTMASE], reduced [D]: under /SECURE OTMA other than NONE, a bid
  // naming a user must name a defined one.
  if (secured && !defs_.users.empty() && !user.empty() && defs_.users.count(user) == 0) {
    return refuse("user " + printable(user) + " is not defined");
  }
  // [C: IMS-GRNAME]: "the client's UTOKEN must be valid"; checked with our key [D] (engine.hpp).
  if (secured && token && impl_->verifier) {
    const token_finding found = impl_->verifier(*token, user, group);
    if (found.state == token_check::invalid) {
      impl_->token_not_verified(user, group, found);
      return refuse("the UTOKEN of user '" + printable(user) + "' does not verify");
    }
  }
  // --utoken-required [D]: a bid naming a user without a token is refused as one whose token does not verify.
  if (secured && !token && impl_->utoken_required && !user.empty()) {
    impl_->console(std::string(imsb::msg::IMB5056W) + " bid of " + std::string(client) + " refused: user '" +
                   printable(user) + "' sent no UTOKEN (--utoken-required)");
    return refuse("no UTOKEN for user '" + printable(user) + "'");
  }
  // A bid ends whatever session the client had (tpipe/server_session reports it as on_client_lost
  // "re-bid" first); should anything of it still be here, it is backed out the same way: the new
  // session's send numbers restart at 1 and must not match the old session's CM1 replies or output.
  const bool leftovers = std::any_of(impl_->cm1_runs.begin(), impl_->cm1_runs.end(),
                                     [&](const impl::cm1_run& r) { return r.client == client; }) ||
                         std::any_of(impl_->tpipes.begin(), impl_->tpipes.end(), [&](const auto& kv) {
                           return kv.first.first == client && kv.second.in_flight_id != 0;
                         });
  if (leftovers) on_client_lost(client, "re-bid");
  impl_->clients[std::string(client)].ready = false;
  impl_->console(std::string(imsb::msg::IMB5022I) + " bid of " + std::string(client) + " accepted");
  return v;
}

void engine::on_client_ready(std::string_view client) {
  auto& c = impl_->clients[std::string(client)];
  c.ready = true;
  // A new session: whatever was in flight belongs to the old one and is sent again [D].
  for (auto& [k, tp] : impl_->tpipes) {
    if (k.first != client) continue;
    tp.in_flight_id = 0;
    tp.in_flight_seqs.clear();
    tp.held = false;
  }
  impl_->console(std::string(imsb::msg::IMB5024I) + " client " + std::string(client) + " ready");
  impl_->pump_client(client);
}

void engine::on_client_lost(std::string_view client, const std::string& reason) {
  impl_->clients[std::string(client)].ready = false;
  for (auto& [k, tp] : impl_->tpipes) {
    if (k.first != client) continue;
    tp.in_flight_id = 0;
    tp.in_flight_seqs.clear();
  }
  std::vector<impl::cm1_run> lost;
  for (auto it = impl_->cm1_runs.begin(); it != impl_->cm1_runs.end();) {
    if (it->client == client) {
      lost.push_back(std::move(*it));
      it = impl_->cm1_runs.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& run : lost) impl_->finish_cm1(run, false, "BACKED OUT: CLIENT LOST");
  // A CM1 run still in the program: backed out when it completes (engine.hpp header).
  auto& flight = impl_->external_in_flight;
  if (flight && flight->cm1 && flight->client == client) flight->client_lost = true;
  impl_->console(std::string(imsb::msg::IMB5025W) + " client " + std::string(client) + " lost: " + reason);
}

std::vector<tpipe::synchronized_tpipe> engine::synchronized_tpipes(std::string_view client) {
  std::vector<tpipe::synchronized_tpipe> out;
  for (const auto& [k, t] : journal_->state().tpipes) {
    if (k.first != client || !t.synchronized) continue;
    out.push_back({k.second, {t.send_rsn, t.recv_rsn}});
  }
  return out;
}

void engine::on_represynch(std::string_view client, std::string_view tpipe, std::uint8_t action,
                           std::uint32_t client_send, std::uint32_t client_receive) {
  impl_->on_represynch(std::string(client), std::string(tpipe), action, client_send, client_receive);
}

void engine::on_srvresynch_rejected(std::string_view client) {
  impl_->console("DFS2393I SRVRESYNCH REJECTED BY TMEMBER=" + std::string(client));
}

void engine::on_input(std::string_view client, const otma::otma_message& input) {
  impl_->on_input(std::string(client), input);
}

void engine::on_output_response(const tpipe::output_response& response) {
  impl_->on_output_response(response);
}

void engine::on_output_timeout(std::string_view client, std::string_view tpipe, std::uint32_t send_seq) {
  impl_->console("DFS3494E OTMA TIMEOUT WAITING FOR ACK/NAK, TMEMBER=" + std::string(client) +
                 " TPIPE=" + std::string(tpipe) + " (send number " + std::to_string(send_seq) + ")");
}

void engine::on_deallocate(std::string_view client, const otma::otma_message& message) {
  const tpipe_key key{std::string(client), tpipe::tpipe_of(message)};
  auto it = impl_->tpipes.find(key);
  if (it == impl_->tpipes.end() || !it->second.conv) {
    impl_->console(std::string(imsb::msg::IMB5028W) + " deallocate on tpipe " + key.second + " from " +
                   key.first + ": no conversation");
    return;
  }
  const auto* sd = txn_state(message);
  if (sd != nullptr && sd->server_token != it->second.conv->token) {
    impl_->console(std::string(imsb::msg::IMB5028W) + " deallocate on tpipe " + key.second + " from " +
                   key.first + ": server token does not match the conversation");
    return;
  }
  impl_->console(std::string(imsb::msg::IMB5034I) + " conversation " + std::to_string(it->second.conv->id) +
                 " on tpipe " + key.second + " of " + key.first + " ended by deallocate");
  it->second.conv.reset();
}

void engine::on_protocol_error(std::string_view client, const std::string& what) {
  impl_->console(std::string(imsb::msg::IMB5028W) + " " + std::string(client) + ": " + what);
}

}  // namespace imsb::imsemu
