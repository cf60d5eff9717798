#pragma once
// The bridge end to end: real xcfhub, imsemu, queue-manager and imsbridge
// processes on loopback, each test with its own temporary prefix, runtime folder and sockets.
//
//   application (this test: qmgr::connect bindings, or imsreq as a process)
//        │ QM1 (embedded in imsbridge, "local:QM1"; or the strmqm daemon, bindings)
//   imsbridge ── xcfhub (port 0) ── imsemu (examples/imsemu/ivp.def: XCF group XCFGRP1, IMS member IMSA)
//
// The sample definitions (examples/imsbridge/bridge.mqsc: a storage class with XCFGNAME/XCFMNAME,
// bridge queues, the reply queue, a dead-letter queue with ALTER QMGR DEADQ, the state queue) and, for the
// routing tests, a second reply queue, a transmission queue, a queue-manager alias and a reply-to alias
// (bridge_rig::sample_mqsc). Our XCF member is MQXCF1, the member
// ivp.def's destination descriptors name.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "imsb/bridge/imsreq.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsemu/command_client.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/qmgr/connect.hpp"
#include "process.hpp"
#include "shell_text.hpp"

namespace imsb::test {

inline constexpr const char* qm_name = "QM1";
inline constexpr const char* bridge_member = "MQXCF1";
inline constexpr const char* xcf_group = "XCFGRP1";
inline constexpr const char* ims_member = "IMSA";
inline constexpr const char* bridge_q = "IMS.BRIDGE.Q1";
inline constexpr const char* bridge_q2 = "IMS.BRIDGE.Q2";
inline constexpr const char* reply_q = "APP.REPLY";
inline constexpr const char* reply_q2 = "APP.REPLY2";
inline constexpr const char* dead_q = "SYSTEM.DEAD.LETTER.QUEUE";
inline constexpr std::chrono::milliseconds rig_wait{30000};

inline std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

inline std::string examples_dir() {
#ifdef IMSB_EXAMPLES_DIR
  return IMSB_EXAMPLES_DIR;
#else
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/tests/e2e/bridge/")) + "/examples";
#endif
}

// A blank-padded MQCHARn.
inline std::string pad(std::string_view v, std::size_t n) {
  std::string s(v.substr(0, n));
  s.resize(n, ' ');
  return s;
}
inline std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

// SHOWOTMA's reply ("KEY=value" a segment, ims/programs.hpp) as a map.
inline std::map<std::string, std::string> showotma_fields(const std::vector<std::string>& segments) {
  std::map<std::string, std::string> m;
  for (const auto& s : segments) {
    const auto eq = s.find('=');
    if (eq != std::string::npos) m[s.substr(0, eq)] = rtrim(s.substr(eq + 1));
  }
  return m;
}

enum class qm_mode { embedded, client };
// "WORD(value)" in an operator command's answer `line` (DISPLAY TPIPE's SENDSEQ(3) ...), or "".
inline std::string field(const std::string& line, const std::string& word) {
  const std::regex re("\\b" + word + "\\(([^)]*)\\)");
  std::smatch m;
  return std::regex_search(line, m, re) ? m[1].str() : std::string();
}

inline const char* to_string(qm_mode m) { return m == qm_mode::embedded ? "embedded" : "client"; }

class bridge_rig {
 public:
  // examples/imsbridge/bridge.mqsc (storage class IMSSC with PASSTKTA IMSAPPL, IMS.BRIDGE.Q1/Q2,
  // APP.REPLY, the dead-letter queue, the state queue), then what the routing tests add.
  static std::string sample_mqsc() {
    const std::string sample = read_file(examples_dir() + "/imsbridge/bridge.mqsc");
    if (sample.empty()) return {};
    return sample +
           "DEFINE QLOCAL(APP.REPLY2)\n"
           "DEFINE QLOCAL(PLAIN.Q)\n"
           // Routing: QM2 is reached through the transmission queue QM2.XMIT; QM3 is an alias for QM2.
           "DEFINE QLOCAL(QM2.XMIT) USAGE(XMITQ)\n"
           "DEFINE QREMOTE(QM2) RNAME(' ') RQMNAME(QM2) XMITQ(QM2.XMIT)\n"
           "DEFINE QREMOTE(QM3) RNAME(' ') RQMNAME(QM2) XMITQ(QM2.XMIT)\n"
           // A reply-to alias: ReplyToQ MY.REPLY becomes APP.REPLY2 at QM1 [C: QREMOTE-USES].
           "DEFINE QREMOTE(MY.REPLY) RNAME(APP.REPLY2) RQMNAME(QM1)\n";
  }

  explicit bridge_rig(qm_mode mode) : mode_(mode) {
    ::unsetenv("MQSERVER");  // bindings for this process's connections
    ::mkdir(dir.file("run").c_str(), 0700);
  }
  ~bridge_rig() { stop(); }
  bridge_rig(const bridge_rig&) = delete;
  bridge_rig& operator=(const bridge_rig&) = delete;

  std::string prefix() const { return dir.file("mqm"); }
  std::string qmgr_dir() const { return prefix() + "/qmgrs/" + qm_name; }
  std::string ims_socket() const { return dir.file("ims.sock"); }
  std::string bridge_socket() const { return dir.file("bridge.sock"); }
  std::string env() const { return "IMSBRIDGE_RUNTIME_DIR=" + sh_quote(dir.file("run")); }
  std::string bridge_log() const { return read_file(dir.file("imsbridge.log")); }
  std::string ims_log() const { return read_file(dir.file("imsemu.log")); }
  std::string logs() const { return "--- imsbridge.log\n" + bridge_log() + "--- imsemu.log\n" + ims_log(); }
  // What each side holds now, for a failed test's message.
  std::string state() {
    if (!try_connect()) return "--- the queue manager does not answer\n";
    std::string s = "--- depths: ";
    for (const char* q : {bridge_q, reply_q, dead_q, "SYSTEM.IMS.BRIDGE.STATE"})
      s += std::string(q) + "=" + std::to_string(depth(q)) + " ";
    s += "\n--- bridge DISPLAY QUEUE / TPIPE\n" + joined(bridge_command("DISPLAY QUEUE")) +
         joined(bridge_command("DISPLAY TPIPE")) + "--- IMS /DIS TMEMBER MQXCF1 TPIPE ALL\n" +
         joined(ims_command(std::string("/DIS TMEMBER ") + bridge_member + " TPIPE ALL"));
    return s;
  }
  qm_mode mode() const { return mode_; }

  // A program with --prefix (when `with_prefix`), through /bin/sh for the environment and stdin.
  ran run(const std::string& program, const std::vector<std::string>& args, const std::string& input = {},
          bool with_prefix = true) {
    const std::string n = std::to_string(++seq_);
    const std::string in = dir.file("stdin." + n), out = dir.file("stdout." + n),
                      err = dir.file("stderr." + n);
    {
      std::ofstream f(in, std::ios::binary);
      f << input;
    }
    std::string cmd = "exec env -u MQSERVER " + env() + " " + sh_quote(program);
    if (with_prefix) cmd += " --prefix " + sh_quote(prefix());
    for (const auto& a : args) cmd += " " + sh_quote(a);
    cmd += " <" + sh_quote(in) + " >" + sh_quote(out) + " 2>" + sh_quote(err);
    ran r;
    r.code = run_program("/bin/sh", {"-c", cmd}, milliseconds(120000));
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // Everything up to a bridge ready to take requests; "" when it is, else what went wrong (and the logs).
  std::string start(const std::string& extra_mqsc = {}, const std::vector<std::string>& bridge_args = {},
                    const std::vector<std::string>& ims_args = {}) {
    const std::string mqsc = sample_mqsc();
    if (mqsc.empty()) return "cannot read " + examples_dir() + "/imsbridge/bridge.mqsc";
    ran r = run(IMSB_CRTMQM, {qm_name});
    if (r.code != 0) return "crtmqm: " + r.both();
    r = run(IMSB_RUNMQSC, {qm_name}, mqsc + extra_mqsc);
    if (r.code != 0) return "runmqsc: " + r.both();
    if (mode_ == qm_mode::client) {
      r = run(IMSB_STRMQM, {qm_name});
      if (r.code != 0) return "strmqm: " + r.both();
      daemon_started_ = true;
    }
    if (auto e = start_hub(); !e.empty()) return e;
    if (auto e = start_ims(ims_args); !e.empty()) return e;
    return start_bridge(bridge_args);
  }

  std::string start_hub() {
    const std::string port_file = dir.file("hub.port");
    hub = child_process(
        IMSB_XCFHUB, {"--listen", "127.0.0.1:" + std::to_string(hub_listen_port), "--port-file", port_file},
        output_to::file(dir.file("xcfhub.log")));
    const auto port = wait_for_file(port_file, rig_wait);
    if (!port) return "xcfhub gave no port: " + read_file(dir.file("xcfhub.log"));
    hub_port = std::stoi(*port);
    return {};
  }

  std::string start_ims(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{
        "--config",     ims_config.empty() ? examples_dir() + "/imsemu/ivp.def" : ims_config,
        "--hub",        "127.0.0.1:" + std::to_string(hub_port),
        "--state",      dir.file("ims-state"),
        "--no-console", "--command-socket",
        ims_socket()};
    args.insert(args.end(), extra.begin(), extra.end());
    // The log is appended to across restarts: only a ready line after this start counts.
    const std::size_t from = ims_log().size();
    ims = child_process(IMSB_IMSEMU, args, output_to::file(dir.file("imsemu.log")));
    if (!wait_text([this, from] { return ims_log().substr(std::min(from, ims_log().size())); },
                   imsb::msg::IMB5080I))
      return "imsemu did not start: " + ims_log();
    return {};
  }

  std::vector<std::string> bridge_command_line(const std::vector<std::string>& extra) const {
    std::vector<std::string> args{
        std::string("--qmgr.connect=") + (mode_ == qm_mode::embedded ? "local:" : "") + qm_name,
        "--qmgr.prefix=" + prefix(),
        "--xcf.url=tcp://127.0.0.1:" + std::to_string(hub_port),
        std::string("--otmacon.member=") + bridge_member,
        "--bridge.control-socket=" + bridge_socket(),
        "--bridge.console=no",
        "--bridge.rescan-ms=500"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::string start_bridge(const std::vector<std::string>& extra = {}) {
    std::string cmd = "exec env -u MQSERVER " + env() + " " + sh_quote(IMSB_IMSBRIDGE);
    for (const auto& a : bridge_command_line(extra)) cmd += " " + sh_quote(a);
    cmd += " </dev/null";
    bridge = child_process("/bin/sh", {"-c", cmd}, output_to::file(dir.file("imsbridge.log")));
    return wait_bridge_ready();
  }

  // Ready: every bridge queue is open for input (its worker runs, after the partner's bid and resync).
  std::string wait_bridge_ready(std::chrono::milliseconds timeout = rig_wait) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    std::string last;
    for (;;) {
      if (!bridge.running()) return "imsbridge ended: " + logs();
      if (!conn_) {
        auto c = try_connect();
        if (c)
          conn_ = std::move(c).value();
        else
          last = c.error().to_string();
      }
      if (conn_) {
        bool all = true;
        for (const char* q : {bridge_q, bridge_q2}) {
          auto h = conn_->open({q, ""}, mq::MQOO_INQUIRE);
          if (!h) {
            last = h.error().to_string();
            all = false;
            break;
          }
          auto st = mqi::inquire_queue(*conn_, h->handle);
          (void)conn_->close(h->handle);
          if (!st || st->open_input_count < 1) {
            last = std::string(q) + " not open for input";
            all = false;
            break;
          }
        }
        if (all) return {};
      }
      if (std::chrono::steady_clock::now() >= until) return "bridge not ready (" + last + "): " + logs();
      std::this_thread::sleep_for(milliseconds(50));
    }
  }

  result<std::unique_ptr<mqi::connection>> try_connect() const {
    qmgr::connect_options o;
    o.target = qm_name;
    o.prefix = prefix();
    o.appl_name = "bridge_e2e";
    return qmgr::connect(o);
  }
  // Forgets the test's own connection (the queue manager it reached was killed): the next use reconnects.
  void drop_connection() { conn_.reset(); }
  // The test's own connection (bindings), made once the queue manager runs.
  mqi::connection& qm() {
    if (!conn_) {
      auto c = try_connect();
      if (!c) throw std::runtime_error("connect: " + c.error().to_string());
      conn_ = std::move(c).value();
    }
    return *conn_;
  }

  void stop_bridge() {
    if (bridge.running()) {
      bridge.signal(SIGTERM);
      bridge.wait_exit(milliseconds(20000));
    }
    bridge.stop();
  }

  void stop() {
    conn_.reset();
    stop_bridge();
    if (ims.running()) {
      ims.signal(SIGTERM);
      ims.wait_exit(milliseconds(10000));
    }
    ims.stop();
    hub.stop();
    if (daemon_started_) {
      (void)run(IMSB_ENDMQM, {"-i", qm_name});
      std::ifstream f(qmgr_dir() + "/qmgr.pid");
      long pid = 0;
      if ((f >> pid) && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0)
        ::kill(static_cast<pid_t>(pid), SIGKILL);
      daemon_started_ = false;
    }
  }

  // One command to a command socket (imsemu's or the bridge's: the same protocol); its answer lines.
  static std::vector<std::string> socket_command(const std::string& path, const std::string& text) {
    auto c = imsemu::command_client::connect(path);
    if (!c) return {"<connect " + path + ": " + c.error().to_string() + ">"};
    if (auto s = c->send(text + "\n"); !s) return {"<send: " + s.error().to_string() + ">"};
    auto a = c->answer(milliseconds(15000));
    if (!a) return {"<answer: " + a.error().to_string() + ">"};
    return *a;
  }
  std::vector<std::string> ims_command(const std::string& text) const {
    return socket_command(ims_socket(), text);
  }
  std::vector<std::string> bridge_command(const std::string& text) const {
    return socket_command(bridge_socket(), text);
  }

  // The bridge's DISPLAY TPIPE line for Tpipe `tp`, or "".
  std::string tpipe_line(const std::string& tp) const {
    for (const auto& l : bridge_command("DISPLAY TPIPE(" + tp + ")"))
      if (contains(l, "TPIPE(" + tp + ")")) return l;
    return {};
  }
  // Whether `ok` holds for that line within rig_wait.
  bool wait_tpipe(const std::string& tp, const std::function<bool(const std::string&)>& ok) const {
    const auto until = std::chrono::steady_clock::now() + rig_wait;
    for (;;) {
      if (ok(tpipe_line(tp))) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // The Tpipe lines of /DIS TMEMBER MQXCF1 TPIPE ALL: name → status words ("SYN", "" ...).
  std::map<std::string, std::string> ims_tpipes() const {
    std::map<std::string, std::string> m;
    for (const auto& line : ims_command(std::string("/DIS TMEMBER ") + bridge_member + " TPIPE ALL")) {
      // "DFS000I     NAME      ENQCT    DEQCT      QCT STATUS" (imsemu/src/commands.cpp display_tpipes)
      if (line.rfind("DFS000I     ", 0) != 0) continue;
      std::istringstream in(line.substr(8));
      std::string name, enq, deq, qct, status, word;
      if (!(in >> name >> enq >> deq >> qct)) continue;
      while (in >> word) status += (status.empty() ? "" : " ") + word;
      m[name] = status;
    }
    return m;
  }

  // ---- Requests and replies through the test's connection ------------------------------------------

  // Puts `m` on `queue`; its MsgId (as put).
  std::array<std::uint8_t, 24> put(const std::string& queue, const mq::mqmd& md, const bytes& data,
                                   std::int32_t extra_options = 0) {
    auto r = qm().put1({queue, ""}, md, bytes_view(data),
                       mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_NEW_MSG_ID | extra_options);
    if (!r) throw std::runtime_error("MQPUT1 " + queue + ": " + r.error().to_string());
    return r->md.msg_id;
  }
  // A request as imsreq builds it (QM1's native encoding and CCSID 819).
  std::array<std::uint8_t, 24> put_request(const bridge::imsreq_options& o,
                                           const std::string& queue = bridge_q) {
    const auto m = bridge::build_imsreq_message(o, mq::MQENC_NATIVE_LINUX_X86, codepage::ccsid_819);
    return put(queue, m.md, m.data);
  }
  // The message with CorrelId `correl` on `queue` (destructive), waiting up to `wait`.
  std::optional<mqi::message> get(const std::string& queue, const std::array<std::uint8_t, 24>& correl,
                                  std::chrono::milliseconds wait = rig_wait) {
    auto h = qm().open({queue, ""}, mq::MQOO_INPUT_SHARED);
    if (!h) throw std::runtime_error("MQOPEN " + queue + ": " + h.error().to_string());
    mqi::get_request g;
    g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
    g.wait_interval_ms = static_cast<std::int32_t>(wait.count());
    g.match_options = mq::MQMO_MATCH_CORREL_ID;
    g.correl_id = correl;
    auto m = qm().get(h->handle, g);
    (void)qm().close(h->handle);
    if (!m) return std::nullopt;
    return std::move(m).value();
  }
  // Any message on `queue` (destructive), waiting up to `wait`.
  std::optional<mqi::message> get_any(const std::string& queue, std::chrono::milliseconds wait = rig_wait) {
    auto h = qm().open({queue, ""}, mq::MQOO_INPUT_SHARED);
    if (!h) throw std::runtime_error("MQOPEN " + queue + ": " + h.error().to_string());
    mqi::get_request g;
    g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
    g.wait_interval_ms = static_cast<std::int32_t>(wait.count());
    g.match_options = 0;
    auto m = qm().get(h->handle, g);
    (void)qm().close(h->handle);
    if (!m) return std::nullopt;
    return std::move(m).value();
  }
  std::int32_t depth(const std::string& queue) {
    auto h = qm().open({queue, ""}, mq::MQOO_INQUIRE);
    if (!h) return -1;
    auto st = mqi::inquire_queue(qm(), h->handle);
    (void)qm().close(h->handle);
    return st ? st->current_depth : -1;
  }
  // The depth of `queue` as soon as it is `want`, else as it is after `wait`. A CM0 request leaves its
  // bridge queue in the worker's unit of work at IMS's ACK (docs/design/commit-modes.md, CM0 step 5) and
  // its reply is put in the partner's at the output (step 6): a reply can be seen a moment before its
  // request is gone.
  std::int32_t depth_when(const std::string& queue, std::int32_t want,
                          std::chrono::milliseconds wait = std::chrono::milliseconds(5000)) {
    const auto until = std::chrono::steady_clock::now() + wait;
    for (;;) {
      const std::int32_t d = depth(queue);
      if (d == want || std::chrono::steady_clock::now() >= until) return d;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  // imsreq as a process against QM1 (bindings), with -m/-q/-r given unless in `args`.
  ran imsreq(const std::vector<std::string>& args) { return run(IMSB_IMSREQ, args, {}, false); }
  std::vector<std::string> imsreq_base(const std::string& queue = bridge_q,
                                       const std::string& reply = reply_q) const {
    return {"--prefix", prefix(), "-m", qm_name, "-q", queue, "-r", reply, "--wait", "30000"};
  }

  static bool wait_text(const std::function<std::string()>& text, std::string_view what,
                        std::chrono::milliseconds timeout = rig_wait) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (contains(text(), what)) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  temp_dir dir;
  std::string ims_config;  // imsemu's definitions; empty: examples/imsemu/ivp.def
  int hub_port = 0;
  int hub_listen_port = 0;  // start_hub's port; 0: the system picks one (a crash test fixes it for restarts)
  child_process hub, ims, bridge;

 private:
  qm_mode mode_;
  bool daemon_started_ = false;
  int seq_ = 0;
  std::unique_ptr<mqi::connection> conn_;
};

// Options for a request through the rig's queue (imsreq's builder).
inline bridge::imsreq_options request(std::vector<std::string> segments, char commit_mode = '0') {
  bridge::imsreq_options o;
  o.qmgr = qm_name;
  o.bridge_queue = bridge_q;
  o.reply_queue = reply_q;
  o.commit_mode = commit_mode;
  // Persistent: CM0 non-persistent input is irrecoverable, which IMS refuses for a recoverable
  // transaction such as SHOWOTMA [C: MAPPING-V6].
  o.persistence = mq::MQPER_PERSISTENT;
  o.segments = std::move(segments);
  return o;
}

}  // namespace imsb::test
