// The daemon commands strmqm, endmqm, dspmq, runmqlsr and mqpasswd (daemon.hpp), and the mqput/mqget
// entry points that connect for real (mqtools.cpp holds their logic).
//
// How strmqm, the lock and the pid file fit together [D]:
// - The daemon (the forked child, or strmqm -f itself) takes the queue manager's flock after the fork.
//   flock belongs to the open file description: taken in the child, it is the child's alone, so the
//   parent's exit changes nothing and a kill -9 of the daemon frees it (the kernel closes the fd).
// - Right after the lock, the daemon writes <qmgr dir>/qmgr.pid; a clean end (and a failed start)
//   removes it while still holding the lock, so a strmqm starting meanwhile never has its new pid file
//   removed by the one ending. So for dspmq: lock held by the pid of the pid file → Running; lock free
//   and a pid file → Ended unexpectedly; neither → Ended normally.
// - Whether the pid file names the daemon (daemon_alive): the holder of the flock on qmgr.lock, as
//   /proc/locks shows it (flock has no F_GETLK; /proc/locks gives the pid that took the lock), must be
//   that pid; without /proc/locks, /proc/<pid>/cmdline must name strmqm and the queue manager [D].
// - The bindings socket's path is recorded in <qmgr dir>/qmanager/bindings (connect.hpp).
// - The parent waits on a pipe for one line from the child: "0 <text>" when the bindings socket serves,
//   or "<exit code> <IMB line>" when the start failed; EOF without a line means the child died.

#include <fcntl.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>

#include "client_connection.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mqi/admin.hpp"
#include "imsb/objects/object.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/control.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "imsb/qmgr/daemon.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/server.hpp"
#include "imsb/qmgr/store.hpp"

namespace imsb::qmgr {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr int exit_already_running = 5;  // strmqm [I] IBM AMQ8041
constexpr int exit_not_running = 40;     // endmqm [I] IBM
constexpr auto quiesce_limit = std::chrono::seconds(30);

struct usage_error {
  std::string text;
};

std::string line(std::string_view id, const std::string& text) { return std::string(id) + ": " + text; }
void say(std::ostream& os, std::string_view id, const std::string& text) { os << line(id, text) << '\n'; }
std::string qname(const std::string& s) { return "'" + s + "'"; }

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    const auto style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(desc).positional(positional).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error{e.what()};
  }
  return vm;
}

std::optional<std::string> opt(const po::variables_map& vm, const char* name) {
  if (vm.count(name) == 0) return std::nullopt;
  return vm[name].as<std::string>();
}

const char* const common_options_text = R"(
Common options:
  --prefix DIR   the folder that holds mqs.ini and qmgrs/ (default: IMSBRIDGE_PREFIX, else /var/mqm
                 when writable, else $HOME/.imsbridge)
  -h, --help     this text
)";

std::optional<prefix_info> prefix_of(const po::variables_map& vm, std::ostream& err) {
  auto p = resolve_prefix(opt(vm, "prefix"));
  if (!p) {
    say(err, msg::IMB1157E, "The prefix cannot be used: " + p.error().to_string());
    return std::nullopt;
  }
  return std::move(p).value();
}

// The queue manager named, else the only one of the prefix (as control.cpp's choose_qmgr) [D].
std::optional<std::string> choose_qmgr(const std::optional<std::string>& given, const prefix_info& prefix,
                                       std::string_view program, std::ostream& err) {
  if (given) return given;
  auto list = list_queue_managers(prefix.path);
  if (!list) {
    say(err, msg::IMB1160E,
        "Cannot read the queue managers of " + prefix.path.string() + ": " + list.error().to_string());
    return std::nullopt;
  }
  if (list->size() == 1) return list->front().name;
  if (list->empty()) {
    say(err, msg::IMB1158E,
        std::string(program) + ": there is no queue manager in " + prefix.path.string() + " (" +
            prefix.source + "); create one with crtmqm.");
    return std::nullopt;
  }
  say(err, msg::IMB1166E,
      std::string(program) + ": name the queue manager: " + std::to_string(list->size()) +
          " queue managers in " + prefix.path.string() + ".");
  return std::nullopt;
}

bool is_code(const decode_error& e, std::errc c) { return e.code == std::make_error_condition(c); }

// The store, or an IMB1158E (exit 16) / IMB1160E (exit 20) line; `code` gets the exit code.
std::optional<queue_manager_store> open_store(const prefix_info& prefix, const std::string& name,
                                              std::ostream& err, int& code) {
  auto store = queue_manager_store::open(prefix.path, name);
  if (store) return std::move(store).value();
  if (is_code(store.error(), std::errc::no_such_file_or_directory)) {
    say(err, msg::IMB1158E,
        "Queue manager " + name + " does not exist in " + prefix.path.string() + " (" + prefix.source + ").");
    code = exit_code::qmgr_not_found;
  } else {
    say(err, msg::IMB1160E, "Cannot open queue manager " + name + ": " + store.error().to_string() + ".");
    code = exit_code::error;
  }
  return std::nullopt;
}

std::string reason_text(const decode_error& e) {
  std::string s = e.detail;
  while (!s.empty() && s.back() == '.') s.pop_back();
  if (e.code.category() == mq::mqrc_category()) {
    const auto* info = mq::find_mqrc(e.code.value());
    const std::string rc = (info != nullptr ? std::string(info->name) : std::string("MQRC")) + " (" +
                           std::to_string(e.code.value()) + ")";
    if (s.find(rc) != std::string::npos) return s;  // a detail that names the code already
    return s.empty() ? rc : s + ": " + rc;
  }
  return s.empty() ? e.code.message() : s + ": " + e.code.message();
}

fs::path pid_file(const queue_manager_store& store) { return store.directory() / "qmgr.pid"; }

// The pid in the pid file, if there is one with a number.
std::optional<pid_t> read_pid(const queue_manager_store& store) {
  std::ifstream f(pid_file(store));
  long pid = 0;
  if (!(f >> pid) || pid <= 0) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The pid that holds the flock on the queue manager's qmgr.lock, from /proc/locks (Linux: a line
// "N: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF"; waiters are marked "->").
// std::nullopt when /proc/locks cannot tell (no such file, no line for the lock).
std::optional<pid_t> lock_holder(const queue_manager_store& store) {
  struct stat st {};
  if (::stat((store.directory() / "qmgr.lock").c_str(), &st) != 0) return std::nullopt;
  std::ifstream f("/proc/locks");
  std::string l;
  while (std::getline(f, l)) {
    std::istringstream in(l);
    std::string num, kind, mode, rw, dev;
    long pid = 0;
    if (!(in >> num >> kind)) continue;
    if (kind == "->") continue;  // a waiter
    if (kind != "FLOCK" || !(in >> mode >> rw >> pid >> dev)) continue;
    unsigned maj = 0, min = 0;
    unsigned long long ino = 0;
    if (std::sscanf(dev.c_str(), "%x:%x:%llu", &maj, &min, &ino) != 3) continue;
    if (ino == static_cast<unsigned long long>(st.st_ino) && maj == major(st.st_dev) &&
        min == minor(st.st_dev) && pid > 0)
      return static_cast<pid_t>(pid);
  }
  return std::nullopt;
}

// Whether `pid` is the live daemon of the queue manager, not a process that got the pid of a dead one
// (so endmqm never signals an unrelated process): the holder of its lock (lock_holder); when
// /proc/locks cannot tell, a process whose command line names strmqm and the queue manager [D].
bool daemon_alive(pid_t pid, const queue_manager_store& store) {
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  if (const auto holder = lock_holder(store)) return *holder == pid;
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start < cmd.size()) {
    const auto nul = cmd.find('\0', start);
    words.push_back(cmd.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  bool strmqm = false, named = false;
  for (const auto& w : words) {
    if (fs::path(w).filename() == "strmqm") strmqm = true;
    if (w == store.name()) named = true;
  }
  return strmqm && named;
}

std::string os_user() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return std::to_string(::geteuid());
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// ------------------------------------------------------------------------------------------------------
// strmqm

const char* const strmqm_usage = R"(Usage: strmqm [-f] [--ini FILE] [--no-fsync] [--prefix DIR] [QM]
Starts the queue manager's daemon and returns once it serves its bindings socket. The daemon applies
<qmgr dir>/qmanager/startup.mqsc (or the file named by StartupMQSC= in --ini FILE) at every start and
starts the LISTENER objects with CONTROL(QMGR). Its output goes to <qmgr dir>/errors/.

  -f           stay in the foreground (SIGTERM or SIGINT end it as endmqm does, SIGUSR1 as endmqm -i)
  --ini FILE   a file of Key=Value lines ('#' or ';' begins a comment line):
                 StartupMQSC=FILE           the MQSC applied at every start
                 TLS.CertFile=FILE          TLS for every TCP listener of the daemon: its certificate
                 TLS.KeyFile=FILE           (PEM chain) and private key; both needed
                 TLS.CAFile=FILE            CA certificates that verify client certificates (a client
                                            with a verified certificate logs in as its CN)
                 TLS.RequireClientCert=yes  refuse clients without a verified certificate (needs CAFile)
               The TLS settings apply to all the daemon's listeners (LISTENER objects and runmqlsr);
               a client without TLS is refused by them. Relative paths are taken from the folder of FILE.
  --no-fsync   do not fsync the recovery log (benchmarks only: a crash may lose messages)
)";

const char* const strmqm_exits = R"(
Exit codes: 0 started; 5 already running (IMB1221E, as IBM's AMQ8041); 16 no such queue manager;
20 error (IMB1222E).
)";

struct daemon_config {
  std::string name;
  fs::path prefix;
  std::optional<fs::path> startup_mqsc;  // from --ini
  tls_options tls;                       // from --ini: every TCP listener's TLS
  bool fsync = true;
  bool foreground = false;
};

// Tells whoever waits for the start (strmqm's parent through the pipe, or the terminal with -f).
class start_reporter {
 public:
  start_reporter(int fd, std::ostream& out, std::ostream& err) : fd_(fd), out_(out), err_(err) {}
  void ready(const std::string& text) { send(0, text); }
  void failed(int code, const std::string& text) { send(code, text); }

 private:
  void send(int code, const std::string& text) {
    if (done_) return;
    done_ = true;
    if (fd_ >= 0) {
      (void)write_all(fd_, std::to_string(code) + " " + text + "\n");
      ::close(fd_);
      fd_ = -1;
    } else {
      (code == 0 ? out_ : err_) << text << '\n';
      (code == 0 ? out_ : err_).flush();
    }
  }
  int fd_;
  std::ostream& out_;
  std::ostream& err_;
  bool done_ = false;
};

// strmqm --ini FILE: Key=Value lines, '#' and ';' comment lines [D]. Unknown keys are refused (a typo in
// a TLS key must not start a daemon without TLS). Relative paths are from the file's folder.
struct ini_settings {
  std::optional<fs::path> startup_mqsc;
  tls_options tls;
};

ini_settings read_ini(const std::string& file) {
  std::ifstream f(file);
  if (!f) throw usage_error{"--ini " + file + ": cannot be read"};
  const fs::path base = fs::absolute(fs::path(file)).parent_path();
  const auto path_of = [&](const std::string& v) { return (base / fs::path(v)).lexically_normal(); };
  ini_settings ini;
  std::string l;
  int n = 0;
  while (std::getline(f, l)) {
    ++n;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.pop_back();
    std::size_t i = l.find_first_not_of(" \t");
    if (i == std::string::npos || l[i] == '#' || l[i] == ';') continue;
    l.erase(0, i);
    const auto eq = l.find('=');
    if (eq == std::string::npos)
      throw usage_error{"--ini " + file + " line " + std::to_string(n) + ": not Key=Value"};
    std::string key = l.substr(0, eq);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = l.substr(eq + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    const auto where = "--ini " + file + " line " + std::to_string(n) + ": " + key;
    if (value.empty()) throw usage_error{where + " has no value"};
    if (key == "StartupMQSC") {
      ini.startup_mqsc = path_of(value);
    } else if (key == "TLS.CertFile") {
      ini.tls.cert_file = path_of(value).string();
    } else if (key == "TLS.KeyFile") {
      ini.tls.key_file = path_of(value).string();
    } else if (key == "TLS.CAFile") {
      ini.tls.ca_file = path_of(value).string();
    } else if (key == "TLS.RequireClientCert") {
      std::string v;
      for (char c : value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (v == "yes" || v == "true" || v == "1") {
        ini.tls.require_client_cert = true;
      } else if (v == "no" || v == "false" || v == "0") {
        ini.tls.require_client_cert = false;
      } else {
        throw usage_error{where + "=" + value + ": yes or no"};
      }
    } else {
      throw usage_error{where +
                        ": unknown key (StartupMQSC, TLS.CertFile, TLS.KeyFile, TLS.CAFile, "
                        "TLS.RequireClientCert)"};
    }
  }
  const bool any_tls = !ini.tls.cert_file.empty() || !ini.tls.key_file.empty() || !ini.tls.ca_file.empty() ||
                       ini.tls.require_client_cert;
  if (any_tls) {
    if (ini.tls.cert_file.empty() || ini.tls.key_file.empty())
      throw usage_error{"--ini " + file + ": TLS needs both TLS.CertFile and TLS.KeyFile"};
    if (ini.tls.require_client_cert && ini.tls.ca_file.empty())
      throw usage_error{"--ini " + file + ": TLS.RequireClientCert needs TLS.CAFile"};
    ini.tls.enabled = true;
  }
  return ini;
}

// The daemon's life: lock, pid file, queue manager, server, startup MQSC, listeners, "ready", then
// signals until the end. Signals SIGTERM/SIGINT/SIGUSR1 must be blocked in the calling thread before
// this runs (every thread the queue manager and the server start inherits the mask; the main thread
// takes them with sigtimedwait).
int run_daemon(const daemon_config& cfg, start_reporter& report) {
  auto opened = queue_manager_store::open(cfg.prefix, cfg.name);
  if (!opened) {
    report.failed(exit_code::error,
                  line(msg::IMB1222E, "Queue manager " + qname(cfg.name) +
                                          " cannot start: " + opened.error().to_string() + "."));
    return exit_code::error;
  }
  const queue_manager_store store = std::move(opened).value();
  auto lock = store.try_lock();
  if (!lock) {
    if (is_code(lock.error(), std::errc::device_or_resource_busy)) {
      report.failed(exit_already_running, line(msg::IMB1221E, "Queue manager " + qname(cfg.name) +
                                                                  " is already running (or runmqsc is "
                                                                  "editing its objects)."));
      return exit_already_running;
    }
    report.failed(exit_code::error,
                  line(msg::IMB1222E, "Queue manager " + qname(cfg.name) +
                                          " cannot be locked: " + lock.error().to_string() + "."));
    return exit_code::error;
  }
  {
    std::ofstream pf(pid_file(store), std::ios::trunc);
    pf << ::getpid() << '\n';
    if (!pf.flush()) {
      report.failed(exit_code::error, line(msg::IMB1222E, "Cannot write " + pid_file(store).string() + "."));
      return exit_code::error;
    }
  }
  // From here a failure removes the pid file: the start failed cleanly, nothing ended unexpectedly. It
  // does so under the lock: `held` is a second descriptor of the locked open file description, so the
  // flock stays ours even when queue_manager::start has failed and dropped its qmgr_lock [D].
  struct held_lock {
    int fd = -1;
    ~held_lock() {
      if (fd >= 0) ::close(fd);
    }
  } held;
  held.fd = ::fcntl(lock->native_handle(), F_DUPFD_CLOEXEC, 0);
  auto fail = [&](const std::string& text) {
    std::error_code ec;
    fs::remove(pid_file(store), ec);  // before `held` (and the queue manager) release the lock
    report.failed(exit_code::error,
                  line(msg::IMB1222E, "Queue manager " + qname(cfg.name) + " cannot start: " + text));
    return exit_code::error;
  };

  auto catalog = store.load();
  if (!catalog) return fail(catalog.error().to_string() + ".");
  runtime_options ro;
  ro.log.fsync = cfg.fsync;
  auto started = queue_manager::start(store, std::move(lock).value(), ro);
  if (!started) return fail(reason_text(started.error()) + ".");
  std::unique_ptr<queue_manager> qm = std::move(started).value();

  server_options so;
  auto socket = bindings_socket_path(cfg.prefix, cfg.name);
  if (!socket) return fail(reason_text(socket.error()) + ".");
  so.bindings_socket = *socket;
  so.credential_file = store.directory() / "qmanager" / "credentials";
  so.tls = cfg.tls;
  if (so.tls.enabled && so.tls.require_client_cert) {
    // TLS.RequireClientCert must be enforced, never silently ignored: the server's TLS context must
    // refuse a client without a certificate, or the daemon does not start [D].
    auto ctx = detail::make_tls_context(so.tls, true);
    if (!ctx) return fail(reason_text(ctx.error()) + ".");
    if ((SSL_CTX_get_verify_mode(ctx->get()) & SSL_VERIFY_FAIL_IF_NO_PEER_CERT) == 0)
      return fail("TLS.RequireClientCert=yes is not supported by this build's TLS server.");
  }
  auto srv_started = server::start(*qm, so);
  if (!srv_started) return fail(reason_text(srv_started.error()) + ".");
  std::unique_ptr<server> srv = std::move(srv_started).value();
  // Every user's clients find the socket through the recorded path, whatever their environment.
  if (auto r = record_bindings_socket(store.directory(), *socket); !r) {
    srv.reset();
    return fail(reason_text(r.error()) + ".");
  }

  // The startup MQSC and the CONTROL(QMGR) listeners, through an administrator's in-process connection.
  {
    principal admin;
    admin.user = os_user();
    admin.administrator = true;
    admin.appl_name = "strmqm";
    auto conn = qm->connect(admin);
    if (!conn) return fail(reason_text(conn.error()) + ".");
    const fs::path startup = cfg.startup_mqsc.value_or(store.directory() / "qmanager" / "startup.mqsc");
    std::error_code ec;
    if (fs::exists(startup, ec)) {
      std::ifstream f(startup, std::ios::binary);
      std::stringstream script;
      script << f.rdbuf();
      auto reply = mqi::administration_over(**conn)->mqsc(script.str());
      if (!reply) {
        qm->log_error(
            line(msg::IMB1227W, "Startup MQSC " + startup.string() + ": " + reason_text(reply.error())));
      } else {
        for (const auto& l : reply->lines) std::cout << l << '\n';
        if (reply->exit_code != 0)
          qm->log_error(
              line(msg::IMB1227W, "Startup MQSC " + startup.string() + ": a command failed (exit code " +
                                      std::to_string(reply->exit_code) + "); see the daemon's output."));
      }
    }
    for (const auto* rec : catalog->list(objects::object_family::listener)) {
      if (rec->text("CONTROL") != "QMGR") continue;
      auto reply = mqi::administration_over(**conn)->mqsc("START LISTENER('" + rec->name + "')\n");
      if (!reply || reply->exit_code != 0) {
        std::string why =
            reply ? (reply->lines.empty() ? std::string() : reply->lines.back()) : reason_text(reply.error());
        qm->log_error(line(msg::IMB1228W, "Listener " + rec->name + " did not start: " + why));
      }
    }
    (void)(*conn)->disconnect();
  }
  std::cout.flush();

  report.ready(line(msg::IMB1220I, "Queue manager " + qname(cfg.name) + " started."));

  // Wait for the end: SIGTERM/SIGINT quiesce, SIGUSR1 immediately.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR1);
  int sig = 0;
  while (sig <= 0) sig = ::sigwaitinfo(&set, nullptr);
  const bool immediate = sig == SIGUSR1;
  qm->log_error(line(msg::IMB1226I, std::string("Queue manager ") + qname(cfg.name) + " ending " +
                                        (immediate ? "immediately (SIGUSR1)." : "(quiesce).")));
  qm->quiesce();
  if (!immediate) {
    // Connected programs may finish their current call and disconnect, for at most 30 s; a SIGUSR1
    // meanwhile (endmqm -i) cuts the wait short.
    const auto until = std::chrono::steady_clock::now() + quiesce_limit;
    const timespec tick{0, 50 * 1000 * 1000};
    while (qm->connection_count() > 0 && std::chrono::steady_clock::now() < until) {
      if (::sigtimedwait(&set, nullptr, &tick) == SIGUSR1) break;
    }
  }
  qm->stop_connections();
  srv->stop();
  srv.reset();
  qm->log_error(line(msg::IMB1242I, "Queue manager " + qname(cfg.name) + " ended."));
  // The pid file goes while the lock is still ours (`held`, and the queue manager's): a strmqm that
  // takes the lock next writes its own pid file, which this one must not remove [D].
  std::error_code ec;
  fs::remove(pid_file(store), ec);
  qm.reset();  // flushes the log; the lock is released when `held` closes too
  return exit_code::ok;
}

// Closes every descriptor >= `from` but `keep` (the forked daemon: nothing of its caller's stays open).
void close_descriptors_from(int from, int keep) {
#ifdef SYS_close_range
  if (keep < from && ::syscall(SYS_close_range, static_cast<unsigned>(from), ~0U, 0U) == 0) return;
#endif
  std::vector<int> open_fds;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
    const int fd = std::atoi(it->path().filename().c_str());
    if (fd >= from && fd != keep) open_fds.push_back(fd);  // the iterator's own fd fails to close later
  }
  if (!ec) {
    for (int fd : open_fds) ::close(fd);
    return;
  }
  const long limit = ::sysconf(_SC_OPEN_MAX);
  for (long fd = from; fd < (limit > 0 ? limit : 65536); ++fd)
    if (fd != keep) ::close(static_cast<int>(fd));
}

void block_daemon_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR1);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

// The forked daemon's standard streams: stdin from /dev/null, stdout and stderr appended to
// <qmgr dir>/errors/daemon.out (else /dev/null).
void redirect_stdio(const fs::path& qmgr_dir) {
  std::error_code ec;
  fs::create_directories(qmgr_dir / "errors", ec);
  const int in = ::open("/dev/null", O_RDONLY);
  int out = ::open((qmgr_dir / "errors" / "daemon.out").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0640);
  if (out < 0) out = ::open("/dev/null", O_WRONLY);
  if (in >= 0) ::dup2(in, STDIN_FILENO);
  if (out >= 0) {
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
  }
  if (in > STDERR_FILENO) ::close(in);
  if (out > STDERR_FILENO) ::close(out);
}

// The daemon serves connections on a pool of threads that grows with the calls that wait, and glibc
// gives threads their own malloc arena (up to 8 per core), each keeping the memory its thread freed: a
// queue manager that saw many calls come and go holds far more than it uses (the soak in bench/RESULTS.md).
// Two arenas keep that bounded at little cost, the engine being one mutex anyway [D]. Before any thread
// starts.
void cap_malloc_arenas() {
#ifdef M_ARENA_MAX
  (void)::mallopt(M_ARENA_MAX, 2);
#endif
}

int strmqm_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "foreground,f", po::bool_switch(), "")("ini", po::value<std::string>(), "")(
      "no-fsync", po::bool_switch(), "")("qmgr", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("qmgr", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << strmqm_usage << common_options_text << strmqm_exits;
    return exit_code::ok;
  }
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  const auto name = choose_qmgr(opt(vm, "qmgr"), *prefix, "strmqm", err);
  if (!name) return exit_code::error;
  int code = exit_code::error;
  const auto store = open_store(*prefix, *name, err, code);
  if (!store) return code;

  daemon_config cfg;
  cfg.name = store->name();
  cfg.prefix = prefix->path;
  cfg.fsync = !vm["no-fsync"].as<bool>();
  cfg.foreground = vm["foreground"].as<bool>();
  if (auto ini = opt(vm, "ini")) {
    auto settings = read_ini(*ini);
    cfg.startup_mqsc = settings.startup_mqsc;
    cfg.tls = settings.tls;
  }
  // A quick answer when it runs; the daemon's own try_lock decides.
  if (store->locked_by_other()) {
    say(err, msg::IMB1221E,
        "Queue manager " + qname(cfg.name) + " is already running (or runmqsc is editing its objects).");
    return exit_already_running;
  }

  if (cfg.foreground) {
    cap_malloc_arenas();
    block_daemon_signals();
    start_reporter report(-1, out, err);
    return run_daemon(cfg, report);
  }

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    say(err, msg::IMB1222E, std::string("pipe: ") + std::strerror(errno));
    return exit_code::error;
  }
  out.flush();
  err.flush();
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    say(err, msg::IMB1222E, std::string("fork: ") + std::strerror(errno));
    ::close(fds[0]);
    ::close(fds[1]);
    return exit_code::error;
  }
  if (pid == 0) {
    // The daemon: its own session (no controlling terminal, not in the caller's process group), its
    // streams to the errors folder, then the queue manager. Never returns into the caller's code.
    ::close(fds[0]);
    // Nothing of the caller's but the pipe: an inherited descriptor (a test's capture pipe, a terminal)
    // would stay open as long as the daemon runs. The pipe moves to 3, then everything above goes,
    // however high (close_range, else /proc/self/fd).
    int report_fd = fds[1];
    if (report_fd != STDERR_FILENO + 1 &&
        ::dup3(report_fd, STDERR_FILENO + 1, O_CLOEXEC) == STDERR_FILENO + 1)
      report_fd = STDERR_FILENO + 1;
    close_descriptors_from(report_fd + 1, report_fd);
    ::setsid();
    redirect_stdio(store->directory());
    cap_malloc_arenas();
    block_daemon_signals();
    int rc = exit_code::error;
    try {
      std::ostringstream sink_out;
      std::ostringstream sink_err;
      start_reporter report(report_fd, sink_out, sink_err);
      rc = run_daemon(cfg, report);
    } catch (const std::exception& e) {
      (void)write_all(report_fd, std::to_string(exit_code::error) + " " +
                                     line(msg::IMB1241S, std::string("strmqm daemon: ") + e.what()) + "\n");
    }
    std::cout.flush();
    std::cerr.flush();
    ::_exit(rc);
  }
  ::close(fds[1]);
  std::string answer;
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<std::size_t>(n));
    if (answer.find('\n') != std::string::npos) break;
  }
  ::close(fds[0]);
  if (answer.empty()) {
    int st = 0;
    (void)::waitpid(pid, &st, 0);
    say(err, msg::IMB1222E,
        "Queue manager " + qname(cfg.name) + " cannot start: its daemon ended before it was ready (see " +
            (store->directory() / "errors").string() + ").");
    return exit_code::error;
  }
  if (answer.back() == '\n') answer.pop_back();
  const auto space = answer.find(' ');
  const int rc = std::atoi(answer.substr(0, space).c_str());
  const std::string text = space == std::string::npos ? std::string() : answer.substr(space + 1);
  if (rc != 0) {
    int st = 0;
    (void)::waitpid(pid, &st, 0);  // it ends right after saying why
    err << text << '\n';
    return rc;
  }
  out << text << '\n';
  return exit_code::ok;
}

// ------------------------------------------------------------------------------------------------------
// endmqm

const char* const endmqm_usage = R"(Usage: endmqm [-i] [-w] [--prefix DIR] [QM]
Ends the queue manager's daemon and returns when it has ended. Default: quiesce (new connections are
refused; connected programs get MQRC_Q_MGR_QUIESCING and at most 30 s to disconnect). -i: immediately
(every connection broken, its unit of work backed out). -w: wait for the end (always done).
)";

const char* const endmqm_exits = R"(
Exit codes: 0 ended; 16 no such queue manager; 40 not running (IMB1224E); 20 error (IMB1225E).
)";

int endmqm_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "immediate,i", po::bool_switch(), "")("wait,w", po::bool_switch(), "")("qmgr", po::value<std::string>(),
                                                                             "");
  po::positional_options_description pos;
  pos.add("qmgr", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << endmqm_usage << common_options_text << endmqm_exits;
    return exit_code::ok;
  }
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  const auto name = choose_qmgr(opt(vm, "qmgr"), *prefix, "endmqm", err);
  if (!name) return exit_code::error;
  int code = exit_code::error;
  const auto store = open_store(*prefix, *name, err, code);
  if (!store) return code;
  if (!store->locked_by_other()) {
    say(err, msg::IMB1224E, "Queue manager " + qname(store->name()) + " is not running.");
    return exit_not_running;
  }
  const auto pid = read_pid(*store);
  if (!pid || !daemon_alive(*pid, *store)) {
    say(err, msg::IMB1225E,
        "Queue manager " + qname(store->name()) + " is locked but " + pid_file(*store).string() +
            " names no running daemon: runmqsc may be editing its objects, or a program runs it inside "
            "itself (imsbridge with qmgr.connect=local:QM, mqput/mqget --local): end that program. "
            "Nothing was done.");
    return exit_code::error;
  }
  const bool immediate = vm["immediate"].as<bool>();
  if (::kill(*pid, immediate ? SIGUSR1 : SIGTERM) != 0) {
    say(err, msg::IMB1225E,
        "Cannot signal the daemon (pid " + std::to_string(*pid) + "): " + std::strerror(errno) + ".");
    return exit_code::error;
  }
  // The quiesce may take its 30 s; then the daemon stops the connections and flushes the log.
  const auto until = std::chrono::steady_clock::now() + quiesce_limit + std::chrono::seconds(30);
  while (store->locked_by_other()) {
    if (std::chrono::steady_clock::now() > until) {
      say(err, msg::IMB1225E,
          "Queue manager " + qname(store->name()) + " (pid " + std::to_string(*pid) +
              ") did not end within 60 s. Try endmqm -i.");
      return exit_code::error;
    }
    sleep_ms(20);
  }
  say(out, msg::IMB1223I, "Queue manager " + qname(store->name()) + " ended.");
  return exit_code::ok;
}

// ------------------------------------------------------------------------------------------------------
// dspmq

const char* const dspmq_usage = R"(Usage: dspmq [-m QM] [--prefix DIR]
One line per queue manager of the prefix (or QM only), IBM's form:
  QMNAME(QM1)                                               STATUS(Running)
STATUS: Running; Ended normally; Ended unexpectedly (its daemon died: strmqm recovers it).
)";

const char* const dspmq_exits = R"(
Exit codes: 0; 16 no such queue manager (-m); 20 error.
)";

std::string status_of(const queue_manager_store& store) {
  if (store.locked_by_other()) {
    const auto pid = read_pid(store);
    // No pid file: runmqsc is editing a stopped queue manager. A pid file whose daemon is gone: it died,
    // and its lock is not yet released by the kernel (a kill -9 in progress) or runmqsc took it since.
    if (!pid) return "Ended normally";
    return daemon_alive(*pid, store) ? "Running" : "Ended unexpectedly";
  }
  std::error_code ec;
  return fs::exists(pid_file(store), ec) ? "Ended unexpectedly" : "Ended normally";
}

int dspmq_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")("qmgr,m", po::value<std::string>(),
                                                                           "");
  const auto vm = parse(args, desc, {});
  if (vm.count("help") != 0) {
    out << dspmq_usage << common_options_text << dspmq_exits;
    return exit_code::ok;
  }
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  std::vector<std::string> names;
  if (auto m = opt(vm, "qmgr")) {
    names.push_back(*m);
  } else {
    auto list = list_queue_managers(prefix->path);
    if (!list) {
      say(err, msg::IMB1160E,
          "Cannot read the queue managers of " + prefix->path.string() + ": " + list.error().to_string());
      return exit_code::error;
    }
    for (const auto& e : *list) names.push_back(e.name);
  }
  for (const auto& n : names) {
    int code = exit_code::error;
    const auto store = open_store(*prefix, n, err, code);
    if (!store) return code;
    const std::string left = "QMNAME(" + store->name() + ")";
    out << std::left << std::setw(58) << left << (left.size() >= 58 ? " " : "") << "STATUS("
        << status_of(*store) << ")\n";
  }
  return exit_code::ok;
}

// ------------------------------------------------------------------------------------------------------
// runmqlsr

const char* const runmqlsr_usage = R"(Usage: runmqlsr [-m QM] -t TCP -p PORT [--address ADDR] [--prefix DIR]
A TCP listener for the running queue manager QM (without -m: the prefix's only one): the daemon listens
on PORT (DEFINE LISTENER(RUNMQLSR.PORT) and START LISTENER through the bindings connection) until runmqlsr
ends (SIGTERM, SIGINT) or the queue manager ends; then the listener is stopped. --address: a host name or
an IP address to listen on.
TLS: the listener uses the daemon's TLS settings (strmqm --ini: TLS.CertFile= ...), which apply to all
its listeners; there is no per-listener TLS.
)";

const char* const runmqlsr_exits = R"(
Exit codes: 0 ended; 16 no such queue manager (IMB1158E); 20 error (IMB1230E, IMB1236E).
)";

std::string mqsc_text(const mqi::mqsc_reply& r) {
  std::string s;
  for (const auto& l : r.lines) s += (s.empty() ? "" : " | ") + l;
  return s;
}

int runmqlsr_body(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "qmgr,m", po::value<std::string>(), "")("transport,t", po::value<std::string>()->default_value("TCP"),
                                              "")("port,p", po::value<int>(), "")(
      "address", po::value<std::string>(), "");
  const auto vm = parse(args, desc, {});
  if (vm.count("help") != 0) {
    out << runmqlsr_usage << common_options_text << runmqlsr_exits;
    return exit_code::ok;
  }
  std::string t = vm["transport"].as<std::string>();
  for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (t != "TCP") throw usage_error{"-t " + t + ": only TCP"};
  if (vm.count("port") == 0) throw usage_error{"-p PORT is needed"};
  const int port = vm["port"].as<int>();
  if (port < 1 || port > 65535) throw usage_error{"-p " + std::to_string(port) + ": not a port"};
  // The address goes into an MQSC command: a host name or an IPv4/IPv6 address only, so that nothing
  // in it can end the quoted IPADDR('...') and add attributes or commands [D].
  const auto address = opt(vm, "address");
  if (address) {
    const bool ok = !address->empty() && address->size() <= 253 &&
                    address->find_first_not_of(
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                        "0123456789.-:_%") == std::string::npos;
    if (!ok) throw usage_error{"--address " + *address + ": not a host name or an IP address"};
  }
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  const auto name = choose_qmgr(opt(vm, "qmgr"), *prefix, "runmqlsr", err);
  if (!name) return exit_code::error;
  int code = exit_code::error;
  const auto store = open_store(*prefix, *name, err, code);
  if (!store) return code;

  connect_options co;
  co.target = store->name();
  co.prefix = prefix->path.string();
  co.appl_name = "runmqlsr";
  auto conn = connect(co);
  if (!conn) {
    say(err, msg::IMB1236E,
        "Cannot connect to queue manager " + store->name() + ": " + reason_text(conn.error()) + ".");
    return exit_code::error;
  }
  const std::string lsr = "RUNMQLSR." + std::to_string(port);
  std::string define = "DEFINE LISTENER('" + lsr + "') TRPTYPE(TCP) PORT(" + std::to_string(port) + ")";
  if (address) define += " IPADDR('" + *address + "')";  // checked: no quote can be in it
  define += " CONTROL(MANUAL) REPLACE\nSTART LISTENER('" + lsr + "')\n";
  auto started = mqi::administration_over(**conn)->mqsc(define);
  if (!started || started->exit_code != 0) {
    say(err, msg::IMB1230E,
        "Listener " + lsr + " of queue manager " + store->name() +
            " did not start: " + (started ? mqsc_text(*started) : reason_text(started.error())));
    return exit_code::error;
  }
  say(out, msg::IMB1229I,
      "Listener " + lsr + " of queue manager " + qname(store->name()) + " listens on port " +
          std::to_string(port) + ".");
  out.flush();

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigset_t old;
  ::pthread_sigmask(SIG_BLOCK, &set, &old);
  const timespec tick{0, 200 * 1000 * 1000};
  for (;;) {
    const int sig = ::sigtimedwait(&set, nullptr, &tick);
    if (sig > 0) break;
    if (!store->locked_by_other()) break;  // the queue manager ended: so does its listener
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (store->locked_by_other())
    (void)mqi::administration_over(**conn)->mqsc("STOP LISTENER('" + lsr + "')\n");
  (void)(*conn)->disconnect();
  return exit_code::ok;
}

// ------------------------------------------------------------------------------------------------------
// mqpasswd

const char* const mqpasswd_usage = R"(Usage: mqpasswd [-m QM] [--prefix DIR] [--delete] [--list] [USER]
Sets USER's password (one line read from standard input) in the queue manager's credential file
<qmgr dir>/qmanager/credentials (salted PBKDF2-SHA256 hashes), removes USER with --delete, or lists the
users with --list. TCP clients log in with these passwords.
)";

const char* const mqpasswd_exits = R"(
Exit codes: 0 done; 16 no such queue manager; 20 error (IMB1232E).
)";

int mqpasswd_body(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                  std::ostream& err) {
  po::options_description desc;
  desc.add_options()("help,h", "")("prefix", po::value<std::string>(), "")(
      "qmgr,m", po::value<std::string>(), "")("delete", po::bool_switch(), "")("list", po::bool_switch(), "")(
      "user", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("user", 1);
  const auto vm = parse(args, desc, pos);
  if (vm.count("help") != 0) {
    out << mqpasswd_usage << common_options_text << mqpasswd_exits;
    return exit_code::ok;
  }
  const bool list = vm["list"].as<bool>();
  const bool del = vm["delete"].as<bool>();
  const auto user = opt(vm, "user");
  if (list && (del || user)) throw usage_error{"--list takes no USER and no --delete"};
  if (!list && !user) throw usage_error{"name the USER"};
  if (user &&
      (user->empty() || user->find(':') != std::string::npos || user->find('\n') != std::string::npos))
    throw usage_error{"USER must be non-empty, without ':'"};
  const auto prefix = prefix_of(vm, err);
  if (!prefix) return exit_code::error;
  const auto name = choose_qmgr(opt(vm, "qmgr"), *prefix, "mqpasswd", err);
  if (!name) return exit_code::error;
  int code = exit_code::error;
  const auto store = open_store(*prefix, *name, err, code);
  if (!store) return code;
  const fs::path file = store->directory() / "qmanager" / "credentials";
  if (list) {
    auto users = credentials::users(file);
    if (!users) {
      say(err, msg::IMB1232E, "Cannot read " + file.string() + ": " + users.error().to_string() + ".");
      return exit_code::error;
    }
    for (const auto& u : *users) out << u << '\n';
    return exit_code::ok;
  }
  if (del) {
    auto r = credentials::remove_user(file, *user);
    if (!r) {
      say(err, msg::IMB1232E,
          "Cannot remove " + *user + " from " + file.string() + ": " + r.error().to_string() + ".");
      return exit_code::error;
    }
    say(out, msg::IMB1231I, "User " + *user + " removed from " + file.string() + ".");
    return exit_code::ok;
  }
  std::string password;
  // On a terminal the password is not shown as it is typed (echo off for that line, then restored) [D].
  termios saved{};
  const bool terminal =
      &in == &std::cin && ::isatty(STDIN_FILENO) == 1 && ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (terminal) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;
    // Echo off first, then the prompt: whatever is typed after the prompt is never shown.
    (void)::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    err << ("Password for " + *user + ": ");
    err.flush();
  }
  std::getline(in, password);
  if (terminal) (void)::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty()) {
    say(err, msg::IMB1232E, "No password on standard input (one line). Nothing was changed.");
    return exit_code::error;
  }
  auto r = credentials::set_password(file, *user, password);
  if (!r) {
    say(err, msg::IMB1232E,
        "Cannot set the password of " + *user + " in " + file.string() + ": " + r.error().to_string() +
            ". Nothing was changed.");
    return exit_code::error;
  }
  say(out, msg::IMB1231I, "Password of " + *user + " set in " + file.string() + ".");
  return exit_code::ok;
}

template <class Body>
int guarded(std::string_view program, std::ostream& err, Body body) {
  try {
    return body();
  } catch (const usage_error& e) {
    say(err, msg::IMB1155E,
        std::string(program) + ": " + e.text + ". Run " + std::string(program) + " --help.");
    return exit_code::error;
  } catch (const std::exception& e) {
    say(err, msg::IMB1241S, std::string(program) + ": internal error: " + e.what());
    return exit_code::error;
  }
}

}  // namespace

int strmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("strmqm", err, [&] { return strmqm_body(args, out, err); });
}
int endmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("endmqm", err, [&] { return endmqm_body(args, out, err); });
}
int dspmq(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("dspmq", err, [&] { return dspmq_body(args, out, err); });
}
int runmqlsr(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded("runmqlsr", err, [&] { return runmqlsr_body(args, out, err); });
}
int mqpasswd(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  return guarded("mqpasswd", err, [&] { return mqpasswd_body(args, in, out, err); });
}
namespace detail {

int runmqsc_running(const fs::path& prefix, const std::string& qmgr_name,
                    const std::function<std::optional<std::string>()>& next_line, bool interactive,
                    bool no_echo, std::ostream& out, std::ostream& err) {
  connect_options co;
  co.target = qmgr_name;
  co.prefix = prefix.string();
  co.appl_name = "runmqsc";
  auto conn = connect(co);
  if (!conn) {
    if (conn.error().code.category() == mq::mqrc_category() &&
        conn.error().code.value() == mq::MQRC_Q_MGR_NOT_AVAILABLE)
      return -1;
    say(err, msg::IMB1240E,
        "Cannot connect to queue manager " + qmgr_name + ": " + reason_text(conn.error()) + ".");
    return exit_code::error;
  }
  say(out, msg::IMB1162I, "Starting MQSC for queue manager " + qmgr_name + " (running).");
  out << '\n';
  out.flush();
  int code = exit_code::ok;
  // An echo line of the executor: "     1 : DEFINE ..." (and its continuations "       : ...").
  const auto is_echo = [](const std::string& l) {
    const auto i = l.find_first_not_of(' ');
    if (i == std::string::npos || i == 0) return false;
    auto j = i;
    while (j < l.size() && l[j] >= '0' && l[j] <= '9') ++j;
    return l.compare(j, 2, " :") == 0 || (j == i && l[i] == ':');
  };
  const auto send = [&](const std::string& script) -> bool {
    auto reply = mqi::administration_over(**conn)->mqsc(script);
    if (!reply) {
      say(err, msg::IMB1240E,
          "Queue manager " + qmgr_name + " refused the MQSC commands: " + reason_text(reply.error()) + ".");
      code = exit_code::error;
      return false;
    }
    for (const auto& l : reply->lines)
      if (!(no_echo && is_echo(l))) out << l << '\n';
    out.flush();
    if (reply->exit_code > code) code = reply->exit_code;
    return true;
  };
  std::string script;
  while (auto l = next_line()) {
    script += *l;
    script += '\n';
    // MQSC continues a command on the next line after a trailing '+' or '-' [C]; a terminal's command is
    // sent as soon as it is complete, so its answer comes before the next is typed.
    std::string t = *l;
    while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.pop_back();
    const bool continued = !t.empty() && (t.back() == '+' || t.back() == '-');
    if (interactive && !continued) {
      if (!send(script)) break;
      script.clear();
    }
  }
  if (!script.empty() && code != exit_code::error) send(script);
  (void)(*conn)->disconnect();
  return code;
}

}  // namespace detail

int mqput(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  return detail::mqput(args, in, out, err, [](const connect_options& o) { return connect(o); });
}
int mqget(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return detail::mqget(args, out, err, [](const connect_options& o) { return connect(o); });
}

}  // namespace imsb::qmgr
