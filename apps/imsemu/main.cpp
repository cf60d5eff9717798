// imsemu: the IMS emulator. All logic is in imsb_imsemu (imsb/imsemu/program.hpp, engine.hpp);
// this file parses options, makes the xcfhub client backend, runs the operator console on standard input
// and stops on SIGINT/SIGTERM.

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>

#include "imsb/core/messages.hpp"
#include "imsb/imsemu/command_client.hpp"
#include "imsb/imsemu/program.hpp"
#include "imsb/transport/tcp_xcf.hpp"
#include "imsb/transport/utoken.hpp"

namespace po = boost::program_options;
namespace msg = imsb::msg;

namespace {

constexpr int exit_ok = 0;
constexpr int exit_usage = 2;
constexpr int exit_failed = 8;
constexpr int exit_internal = 12;

const char* const usage_text = R"(Usage:
  imsemu --config FILE [options]
  imsemu --group GROUP --member MEMBER [options]
  imsemu --command PATH 'COMMAND'      send one operator command to a running imsemu's --command-socket

imsemu emulates IMS TM and OTMA for the MQ-IMS bridge (and any OTMA client): it joins an XCF group
through xcfhub as IMS's member, accepts client bids, runs transactions with its built-in programs
(IVTNO IVTCV ECHO SHOWOTMA ALTOUT) or programs of your own (PGM=external:), keeps commit-then-send work,
Tpipe numbers and the phone book in a journal in the state folder (so a warm start resynchronizes), and
answers IMS commands.
Console lines go to standard output, each with a message ID: IMS's DFS IDs where IMS has one (DFS2360I
joined, DFS2361I left, DFS2364E join failed, ...), IMBnnnnI otherwise (docs/messages.md).
)";

const char* const definitions_text = R"(
Definitions file (--config; examples/imsemu/ivp.def is a commented sample; '*' in column 1 = comment,
a statement continues after a trailing ',' or a non-blank column 72):
  IMS GRNAME=XCFGRP1,OTMANM=IMSA,IMSID=IMSA,MAXTP=500,INPUT=5000,HEARTBEAT=60
                 XCF group and IMS member; Tpipes per client; TIB (flood) limit; X'3C' interval (s)
  APPLCTN PSB=P,PGMTYPE=TP[,FPATH=YES][,PGM=builtin:IVTNO|external:/path]
                 external:/path runs /path for each message: LLZZ segments on stdin, the reply
                 as LLZZ segments on stdout, context in IMS_* variables, exit 0 = success, else
                 abend U0456/U0457, U0240 past PROCLIM (default 30 s) (imsemu/README.md)
  TRANSACT CODE=T,MSGTYPE=(SNGLSEG|MULTSEG,RESPONSE|NONRESPONSE,1)[,SPA=(80,)]
                 [,INQUIRY=(YES,NORECOV)][,FPATH=YES][,PROCLIM=(count,seconds)]
                                                                a transaction of the APPLCTN above
  NAME LTERM                                                   an LTERM
  CREATE PGM NAME(P) SET(FP(N),RUN(builtin:ECHO))
  CREATE TRAN NAME(T) SET(PGM(P),RECOVER(Y),RESP(Y),SPASZ(0),FP(N),STATUS(STOPPED),PLCTTIME(3000))
  D NAME TMEMBER=M TPIPE=T SYNTP=Y|N                            OTMA destination descriptor (mask: NAME*)
  USER ID=U,GROUPS=(G),TRANS=(T1,T2),CMDS=(DIS)                 RACF stand-in
  GROUP NAME=G,TRANS=(T),CMDS=(DIS,STA)
  /SECURE OTMA NONE|CHECK|FULL|PROFILE
  STOP TRAN=T                                                   start with T stopped
  CLIENT MEMBER=(MQ1,CSQ*)[,USERS=(U)]     only these members (and users) may bid; else NAK X'0005'
Without --config: IVTNO, IVTCV, ECHO, SHOWOTMA, ALTOUT, LTERM IVTNOLT, /SECURE OTMA NONE, and the
--group and --member given.

Operator console (standard input, one command a line; the answer is printed):
  IMS commands: /DIS OTMA, /DIS TMEMBER name|ALL [TPIPE name|ALL], /DIS TRAN name|ALL,
                /STA|/STO TRAN|TMEMBER|TPIPE ..., /DEQUEUE TMEMBER m TPIPE t PURGE|PURGE1,
                /EXIT CONV nnnn | TMEMBER m TPIPE t   (IMS accepts the first three letters of a verb)
  FAULT STOP|RESUME|WITHHOLD ACK n|IGNORE ACK n|DUPLICATE OUTPUT n|NAK xxxx|DELAY OUTPUT ms|
        CRASH AFTER LOG|CRASH AFTER RUN|HOLD RUNS|RELEASE RUNS|CLEAR|SHOW   test faults (also --fault)
  FAULT RESTART WARM|COLD      simulate an IMS restart: suspend clients, leave the group, reopen the
                               state folder warm or cold, join again (faults start cleared)
  /CHECKPOINT FREEZE (/CHE FREEZE)                                 stop, as SIGTERM (console only)
Command socket (--command-socket PATH): a Unix socket, mode 0600, removed at stop; each line a
connection sends is run as a console command and answered with its lines, then one EMPTY line.
  imsemu --command PATH '/DIS OTMA'   prints the answer; exit 0, or 8 if it cannot connect (IMB5086E)

Signed UTOKEN (--utoken-key FILE; our own format [D]): the bridge puts an 80-byte token of ours
in the security data's UTOKEN subfield, HMAC-SHA256 over user ID, group, issue time, validity and nonce
with a key both share. FILE holds 64 or more hex digits on one line, or at least 32 raw bytes.
  Under /SECURE OTMA CHECK, FULL or PROFILE (message flagged C or F), input whose UTOKEN does not verify
  (another key, expired, issued over 60 s ahead, other user or group, not our token) is NAKed X'0005'
  with DFS1292E, as for a user not allowed (IMB5040W, IMB5041W); a client-bid's is NAKed X'0005' too.
  Under NONE nothing is refused for its token. SHOWOTMA shows TOKEN=VERIFIED or INVALID.
  Without --utoken-key tokens are carried but not checked: nothing is refused for one, TOKEN=NOTVERIFIED.
  A message or client-bid without a UTOKEN runs as the user it names (IMS trusts the user ID when MQ sends
  none), unless --utoken-required: then, under CHECK, FULL or PROFILE (C or F), one that names a
  user without a token is refused like one whose token does not verify (NAK X'0005', IMB5056W).
  A token is a bearer credential: anyone who has it can replay it, from any member and on any Tpipe, until
  it expires. Keep the key file 0600 (IMB5055W warns when group or others may read it).
)";

const char* const exit_text = R"(
Exit codes:
  0   stopped on SIGINT, SIGTERM or /CHE FREEZE (IMB5082I)
  2   usage error (IMB5083E)
  8   could not start: --utoken-key (IMB5043E); definitions, state folder, --fault, --command-socket,
      hub endpoint or TLS files, XCF join (IMB5081E); --command: no emulator answers on the socket
      (IMB5086E)
  12  internal error (IMB5084S)
)";

struct usage_error {
  std::string text;
};

// One write per line, so console lines of different threads never interleave.
std::mutex console_mutex;
void console_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(console_mutex);
  std::string text = line;
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// Set by the console's /CHE FREEZE before it raises SIGTERM, so the stop line names the command.
std::atomic<bool> freeze_requested{false};

std::string upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

bool is_freeze(const std::string& line) {
  std::string u = upper(line);
  return (u.rfind("/CHE", 0) == 0) && u.find("FREEZE") != std::string::npos;
}

// The operator console: standard input read with poll so that the thread can be stopped and joined.
class console_reader {
 public:
  explicit console_reader(imsb::imsemu::program& p) : program_(p), thread_([this] { run(); }) {}
  ~console_reader() {
    stop_ = true;
    thread_.join();
  }

 private:
  void run() {
    std::string pending;
    char buf[4096];
    while (!stop_) {
      pollfd pfd{STDIN_FILENO, POLLIN, 0};
      const int n = ::poll(&pfd, 1, 200);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || (pfd.revents & POLLNVAL) != 0) return;
      if (n == 0) continue;
      const ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        if (!pending.empty()) handle(pending);
        console_line(std::string(msg::IMB5085I) + " OPERATOR CONSOLE INPUT ENDED; RUNNING ON");
        return;
      }
      pending.append(buf, static_cast<std::size_t>(got));
      for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        handle(line);
      }
    }
  }
  void handle(std::string line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) return;
    if (is_freeze(line)) {
      freeze_requested = true;
      ::kill(::getpid(), SIGTERM);  // the main thread's sigwait does the stop
      return;
    }
    for (const auto& l : program_.operator_command(line)) console_line(l);
  }

  imsb::imsemu::program& program_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Client mode (--command PATH TEXT): one command to a running emulator's command socket; the answer
// ends with an empty line (program::command_end_marker).
int send_command(const std::string& path, const std::string& text) {
  const auto failed = [&](const imsb::decode_error& e) {
    console_line(std::string(msg::IMB5086E) + " command socket " + path + ": " + e.detail + " (" +
                 e.code.message() + ")");
    return exit_failed;
  };
  auto client = imsb::imsemu::command_client::connect(path);
  if (!client && client.error().code == std::errc::filename_too_long)
    throw usage_error{"--command " + client.error().detail};
  if (!client) return failed(client.error());
  if (auto sent = client->send(text + "\n"); !sent) return failed(sent.error());
  const auto lines = client->answer(std::chrono::minutes(1));
  if (!lines) return failed(lines.error());
  for (const std::string& line : *lines) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  return exit_ok;
}

std::uint64_t in_range(const po::variables_map& vm, const char* name, std::int64_t lo, std::int64_t hi) {
  const auto v = vm[name].as<std::int64_t>();
  if (v < lo || v > hi) {
    throw usage_error{"--" + std::string(name) + " " + std::to_string(v) + ": must be " + std::to_string(lo) +
                      " to " + std::to_string(hi)};
  }
  return static_cast<std::uint64_t>(v);
}

int run(int argc, char** argv) {
  po::options_description general("imsemu options");
  general.add_options()                                                                                   //
      ("help,h", "print this help and exit")                                                              //
      ("config", po::value<std::string>(), "definitions file (see below); else --group and --member")     //
      ("group", po::value<std::string>(), "XCF group (GRNAME); overrides the file's")                     //
      ("member", po::value<std::string>(), "IMS's XCF member name (OTMANM); overrides the file's")        //
      ("hub", po::value<std::string>()->default_value("127.0.0.1:5099"), "xcfhub HOST:PORT ([v6]:port)")  //
      ("state", po::value<std::string>()->default_value("./imsemu-state"),
       "journal folder (created if needed): queued work, Tpipe numbers, the phone book")   //
      ("cold", "cold start: drop Tpipes, queued input and output (the phone book stays)")  //
      ("heartbeat-ms", po::value<std::int64_t>(),
       "X'3C' server-state interval in ms (0 = none); default HEARTBEAT= of the definitions (60 s)")  //
      ("output-ack-timeout-ms", po::value<std::int64_t>()->default_value(120000),
       "an output unanswered this long is reported (DFS3494E)")  //
      ("fault", po::value<std::vector<std::string>>()->composing(),
       "a FAULT command at start, e.g. --fault \"NAK 0030\"; repeatable (operator commands below)")  //
      ("no-console", "do not read operator commands from standard input (background runs, tests)")   //
      ("command-socket", po::value<std::string>(),
       "also take operator commands on this Unix socket (mode 0600; see below)")  //
      ("command", po::value<std::string>(),
       "client mode: send the command given after it to the --command-socket PATH, print the answer")  //
      ("utoken-key", po::value<std::string>(),
       "verify the signed UTOKEN of messages and client-bids with the key in FILE (see below)")  //
      ("utoken-required",
       "with --utoken-key: refuse messages and client-bids that name a user but carry no UTOKEN")  //
      ("join-retry-ms", po::value<std::int64_t>()->default_value(10000),
       "keep retrying the XCF join this long (a killed predecessor may still be in the hub)");
  po::options_description tls("TLS to xcfhub (used when any of these is given)");
  tls.add_options()                                                                                    //
      ("tls-ca", po::value<std::string>(), "PEM CA file the hub's certificate is verified against")    //
      ("tls-cert", po::value<std::string>(), "PEM client certificate to present (hub with --tls-ca)")  //
      ("tls-key", po::value<std::string>(), "PEM private key of --tls-cert");
  po::options_description hidden;
  hidden.add_options()("command-text", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(general).add(tls);
  po::options_description parsed;
  parsed.add(all).add(hidden);
  po::variables_map vm;
  po::positional_options_description positional;
  positional.add("command-text", -1);
  po::store(po::command_line_parser(argc, argv).options(parsed).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << usage_text << '\n' << all << definitions_text << exit_text;
    return exit_ok;
  }
  if (vm.count("command")) {
    if (!vm.count("command-text")) throw usage_error{"--command PATH needs the command after it"};
    std::string text;
    for (const auto& w : vm["command-text"].as<std::vector<std::string>>())
      text += (text.empty() ? "" : " ") + w;
    if (text.find_first_not_of(" \t") == std::string::npos)
      throw usage_error{"--command PATH needs the command after it (it is empty)"};
    if (text.find_first_of("\r\n") != std::string::npos)
      throw usage_error{"--command sends one command: its text may not hold a line break"};
    return send_command(vm["command"].as<std::string>(), text);
  }
  if (vm.count("command-text"))
    throw usage_error{"unexpected argument '" + vm["command-text"].as<std::vector<std::string>>()[0] + "'"};

  imsb::imsemu::program_options options;
  if (vm.count("config")) options.config_file = vm["config"].as<std::string>();
  if (vm.count("group")) options.group = vm["group"].as<std::string>();
  if (vm.count("member")) options.member = vm["member"].as<std::string>();
  if (options.config_file.empty() && (options.group.empty() || options.member.empty())) {
    throw usage_error{"give --config FILE, or --group and --member"};
  }
  options.state_dir = vm["state"].as<std::string>();
  options.cold_start = vm.count("cold") != 0;
  if (vm.count("heartbeat-ms")) options.heartbeat_ms = in_range(vm, "heartbeat-ms", 0, 3600 * 1000);
  options.output_ack_timeout_ms = in_range(vm, "output-ack-timeout-ms", 1, 24 * 3600 * 1000);
  if (vm.count("fault")) options.faults = vm["fault"].as<std::vector<std::string>>();
  if (vm.count("utoken-key")) {
    const std::string key_file = vm["utoken-key"].as<std::string>();
    auto key = imsb::transport::utoken_key::load(key_file);
    if (!key.ok()) {
      console_line(std::string(msg::IMB5043E) + " --utoken-key " + key.error().to_string());
      return exit_failed;
    }
    if (key->readable_by_others()) {
      console_line(std::string(msg::IMB5055W) + " --utoken-key " + key_file +
                   ": THE KEY FILE IS OPEN TO GROUP OR OTHERS; MAKE IT 0600 (OR 0400)");
    }
    // Logs nothing itself: the engine logs IMB5041W where a verdict matters (engine.hpp rule 4).
    options.utoken_verifier = [k = std::move(key).value()](imsb::bytes_view token, std::string_view user,
                                                           std::string_view group) {
      using imsb::imsemu::token_check;
      using imsb::imsemu::token_finding;
      const auto now = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::system_clock::now().time_since_epoch());
      const auto verdict = k.verify(token, user, group, static_cast<std::uint64_t>(now.count()));
      if (verdict == imsb::transport::token_verdict::verified) return token_finding(token_check::verified);
      return token_finding(token_check::invalid, std::string(imsb::transport::to_string(verdict)));
    };
    options.utoken_required = vm.count("utoken-required") != 0;
    console_line(std::string(msg::IMB5042I) + " UTOKEN KEY LOADED FROM " + key_file +
                 (options.utoken_required ? " (UTOKEN REQUIRED)" : ""));
  } else if (vm.count("utoken-required")) {
    throw usage_error{"--utoken-required needs --utoken-key FILE"};
  }
  const auto retry = std::chrono::milliseconds(in_range(vm, "join-retry-ms", 0, 3600 * 1000));

  imsb::transport::tcp_service_options hub;
  hub.endpoint = vm["hub"].as<std::string>();
  if (vm.count("tls-ca")) hub.tls.ca_file = vm["tls-ca"].as<std::string>();
  if (vm.count("tls-cert")) hub.tls.cert_file = vm["tls-cert"].as<std::string>();
  if (vm.count("tls-key")) hub.tls.key_file = vm["tls-key"].as<std::string>();
  hub.log = console_line;

  // SIGINT/SIGTERM are taken by sigwait below; blocked before any thread starts, so every thread
  // inherits the mask and none is interrupted by them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  auto opened = imsb::imsemu::program::open(options, console_line);
  if (!opened.ok()) {
    console_line(std::string(msg::IMB5081E) + ' ' + opened.error().to_string());
    return exit_failed;
  }
  std::unique_ptr<imsb::imsemu::program> program = std::move(opened).value();
  if (vm.count("command-socket")) {
    auto listening = program->listen_commands(vm["command-socket"].as<std::string>());
    if (!listening.ok()) {
      console_line(std::string(msg::IMB5081E) + ' ' + listening.error().to_string());
      return exit_failed;
    }
  }
  std::unique_ptr<imsb::transport::tcp_service> service;
  try {
    service = std::make_unique<imsb::transport::tcp_service>(hub);
  } catch (const std::invalid_argument& e) {
    console_line(std::string(msg::IMB5081E) + " --hub/--tls: " + e.what());
    return exit_failed;
  }
  const auto rc = program->start(*service, retry);
  if (!rc.ok()) {
    console_line(std::string(msg::IMB5081E) + " cannot join the XCF group through " + hub.endpoint);
    return exit_failed;
  }
  int signal_number = 0;
  {
    std::optional<console_reader> console;
    if (vm.count("no-console") == 0) console.emplace(*program);
    while (sigwait(&stop_signals, &signal_number) != 0) {
    }
  }
  program->stop(freeze_requested ? "/CHECKPOINT FREEZE" : signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  program.reset();
  service.reset();
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const usage_error& e) {
    console_line(std::string(msg::IMB5083E) + ' ' + e.text + " (imsemu --help)");
    return exit_usage;
  } catch (const po::error& e) {
    console_line(std::string(msg::IMB5083E) + ' ' + e.what() + " (imsemu --help)");
    return exit_usage;
  } catch (const std::exception& e) {
    console_line(std::string(msg::IMB5084S) + ' ' + e.what());
    return exit_internal;
  }
}
