// xcf_roundtrip: round trips through a real xcfhub process, for 1 and 16 concurrent senders and 100-byte
// and 4 KiB messages, next to a raw TCP loopback ping-pong measured in the same run (the floor), given as
// the ratio to that floor. What the figures mean and what limits them: bench/RESULTS.md "XCF hub round
// trips".
//
// A standalone program rather than Google Benchmark: it needs exact percentiles over every round trip,
// many threads timed together, and a hub in a process of its own (transport/README.md: members reach
// xcfhub over TCP), started and stopped here. Everything stays on 127.0.0.1.
//
// Hub path, one round trip: sender thread → send() → client I/O thread → SEND → hub → DELIVER → echo
// member's handler (its client I/O thread), which sends the message back unchanged → SEND → hub →
// DELIVER → the sender's I/O thread → the sender thread wakes. Four frames on the wire, each
// 16 + 58 + size bytes (header, SEND/DELIVER prefix, data).
// Floor path: sender thread → write → echo thread → write → sender thread. Two frames of the same size.

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "imsb/core/bytes.hpp"
#include "imsb/transport/tcp_xcf.hpp"
#include "imsb/xcf/frame.hpp"
#include "imsb/xcf/member.hpp"

#ifndef IMSB_XCFHUB
#define IMSB_XCFHUB "xcfhub"
#endif
#ifndef IMSB_BUILD_TYPE
#define IMSB_BUILD_TYPE "unknown"
#endif

namespace {

namespace po = boost::program_options;
namespace xcf = imsb::xcf;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr int exit_ok = 0;
constexpr int exit_usage = 2;
constexpr int exit_failed = 8;  // the hub did not start, or a round trip failed (timeout, wrong answer)
constexpr int exit_internal = 12;
constexpr int exit_interrupted = 130;

constexpr const char* group_name = "BENCH";
// SEND and DELIVER carry token[8] name[16] stream(2) msgcntl[32] before the data (transport/README.md).
constexpr std::size_t message_prefix_size = 58;
constexpr std::size_t control_offset = 8 + 16 + 2;  // where msgcntl starts in that prefix

const char* const usage_text = R"(Usage: xcf_roundtrip [options]

Measures ping-pong round trips through a real xcfhub (started here on 127.0.0.1, port chosen by the
system, stopped at the end) and, in the same run, over raw TCP loopback sockets (the floor). For each
number of senders N and message size: N sender members (S01..) and N echo members (E01..) join group
BENCH; each sender sends one message (its sequence number in the control area), waits for the echo's
reply, records the round trip, and repeats, for --warmup seconds unrecorded, then --seconds recorded.
The floor does the same over N pairs of connected TCP sockets (TCP_NODELAY), one echo thread per pair,
frames of the same size as the hub's SEND/DELIVER frames. Output: a markdown table on standard output
(and --csv FILE), with the hub's figures as ratios to the floor.
)";

const char* const exit_text = R"(
Exit codes:
  0    done; the table is printed
  2    usage error
  8    the hub could not be started, or a round trip failed (no answer within --reply-timeout-ms, a
       wrong answer, a refused send, a socket error)
  12   internal error
  130  interrupted (SIGINT/SIGTERM); the hub is stopped all the same
)";

struct usage_error {
  std::string text;
};
struct run_error : std::runtime_error {  // exit_failed
  using std::runtime_error::runtime_error;
};
struct interrupted_error : std::runtime_error {
  interrupted_error() : std::runtime_error("interrupted") {}
};

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_stop_signal(int) { g_interrupted = 1; }
bool interrupted() { return g_interrupted != 0; }

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// ---- Options -------------------------------------------------------------------------------------------

enum class service_mode { shared, per_member };

struct settings {
  std::string hub_path = IMSB_XCFHUB;
  std::vector<int> senders{1, 16};
  std::vector<std::size_t> sizes{100, 4096};
  double seconds = 5.0;
  double warmup = 0.5;
  service_mode services = service_mode::shared;
  milliseconds reply_timeout{5000};
  std::string csv;
  bool run_hub = true;
  bool run_floor = true;
  std::string command_line;
};

template <typename T>
std::vector<T> parse_list(const std::string& option, const std::string& text, long long lo, long long hi) {
  std::vector<T> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
      throw usage_error{"--" + option + " '" + text + "': a comma-separated list of integers " +
                        std::to_string(lo) + " to " + std::to_string(hi)};
    }
    out.push_back(static_cast<T>(v));
  }
  if (out.empty()) throw usage_error{"--" + option + ": empty list"};
  return out;
}

// Returns false when --help was printed.
bool parse_options(int argc, char** argv, settings& s) {
  po::options_description desc("Options");
  desc.add_options()                                                                               //
      ("help,h", "print this help and exit")                                                       //
      ("hub", po::value<std::string>()->default_value(s.hub_path), "the xcfhub program to start")  //
      ("senders", po::value<std::string>()->default_value("1,16"),
       "numbers of concurrent senders, comma-separated (1 to 99 each)")  //
      ("sizes", po::value<std::string>()->default_value("100,4096"),
       "message sizes in bytes (the data; the frame adds 16 + 58), comma-separated (1 to 1048000)")  //
      ("seconds", po::value<double>()->default_value(s.seconds), "recorded time per measurement")    //
      ("warmup", po::value<double>()->default_value(s.warmup), "unrecorded time before it")          //
      ("services", po::value<std::string>()->default_value("shared"),
       "shared: one tcp_service (one client I/O thread) for all senders and one for all echoes; "
       "per-member: one for each member")  //
      ("reply-timeout-ms", po::value<long long>()->default_value(s.reply_timeout.count()),
       "a round trip that takes longer fails the run")                       //
      ("only", po::value<std::string>(), "hub or floor: measure only that")  //
      ("csv", po::value<std::string>(), "also write the results to this CSV file");
  po::variables_map vm;
  const po::positional_options_description none;
  po::store(po::command_line_parser(argc, argv).options(desc).positional(none).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << usage_text << '\n' << desc << exit_text;
    return false;
  }
  s.hub_path = vm["hub"].as<std::string>();
  s.senders = parse_list<int>("senders", vm["senders"].as<std::string>(), 1, 99);  // names S01..S99
  s.sizes = parse_list<std::size_t>("sizes", vm["sizes"].as<std::string>(), 1, 1048000);
  s.seconds = vm["seconds"].as<double>();
  s.warmup = vm["warmup"].as<double>();
  if (!(s.seconds > 0 && s.seconds <= 3600)) throw usage_error{"--seconds: must be above 0, at most 3600"};
  if (!(s.warmup >= 0 && s.warmup <= 3600)) throw usage_error{"--warmup: must be 0 to 3600"};
  const std::string mode = vm["services"].as<std::string>();
  if (mode == "shared") {
    s.services = service_mode::shared;
  } else if (mode == "per-member") {
    s.services = service_mode::per_member;
  } else {
    throw usage_error{"--services '" + mode + "': shared or per-member"};
  }
  const long long timeout = vm["reply-timeout-ms"].as<long long>();
  if (timeout < 1 || timeout > 3600 * 1000) throw usage_error{"--reply-timeout-ms: 1 to 3600000"};
  s.reply_timeout = milliseconds(timeout);
  if (vm.count("only")) {
    const std::string only = vm["only"].as<std::string>();
    if (only != "hub" && only != "floor") throw usage_error{"--only '" + only + "': hub or floor"};
    s.run_hub = only == "hub";
    s.run_floor = only == "floor";
  }
  if (vm.count("csv")) s.csv = vm["csv"].as<std::string>();
  for (int i = 0; i < argc; ++i) s.command_line += (i ? " " : "") + std::string(argv[i]);
  return true;
}

// ---- The machine -------------------------------------------------------------------------------------

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown CPU";
}

std::string load_text() {
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) != 3) return "unknown";
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << load[0] << ", " << load[1] << ", " << load[2];
  return out.str();
}

std::string machine_text() {
  struct utsname u {};
  ::uname(&u);
  std::ostringstream out;
  out << "nproc " << ::sysconf(_SC_NPROCESSORS_ONLN) << ", " << cpu_model() << ", kernel " << u.release
      << ", build " << IMSB_BUILD_TYPE;
  return out.str();
}

// ---- The hub process ------------------------------------------------------------------------------------

// xcfhub --listen 127.0.0.1:0 --port-file F, in a temporary directory that also holds its log. The
// destructor stops it (SIGTERM, then SIGKILL after 5 s) and reaps it, on success and on error alike; the
// child also gets SIGTERM if this program dies first (PR_SET_PDEATHSIG).
class hub_process {
 public:
  explicit hub_process(const std::string& program) {
    char dir_template[] = "/tmp/xcf_roundtrip.XXXXXX";
    if (::mkdtemp(dir_template) == nullptr) throw run_error(errno_text("mkdtemp"));
    dir_ = dir_template;
    port_file_ = dir_ + "/port";
    log_file_ = dir_ + "/xcfhub.log";
    if (::access(program.c_str(), X_OK) != 0) {
      cleanup_files();
      throw run_error(errno_text("cannot run the hub '" + program + "'") + " (--hub PATH)");
    }
    std::vector<std::string> args{program,    "--listen",    "127.0.0.1:0", "--port-file",
                                  port_file_, "--log-level", "warning"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int log_fd = ::open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      cleanup_files();
      throw run_error(errno_text("open " + log_file_));
    }
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) {
      ::close(log_fd);
      cleanup_files();
      throw run_error(errno_text("fork"));
    }
    if (pid_ == 0) {
      // Only async-signal-safe calls until exec: this process has threads elsewhere.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(127);
      ::setpgid(0, 0);  // a ^C at the terminal is ours to handle: we stop the hub ourselves
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(log_fd);
    try {
      wait_for_port();
    } catch (...) {
      stop();
      cleanup_files();
      throw;
    }
  }
  ~hub_process() {
    stop();
    cleanup_files();
  }
  hub_process(const hub_process&) = delete;
  hub_process& operator=(const hub_process&) = delete;

  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const noexcept { return pid_; }

  // SIGTERM and reap; the hub's exit status, as text, for the report ("exit 0").
  std::string stop() {
    if (pid_ <= 0) return exit_;
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = steady::now() + std::chrono::seconds(5);
    pid_t r = 0;
    while ((r = ::waitpid(pid_, &status, WNOHANG)) == 0 && steady::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    if (r == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      exit_ = "did not stop on SIGTERM within 5 s; killed";
    } else if (WIFEXITED(status)) {
      exit_ = "exit " + std::to_string(WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
      exit_ = "killed by signal " + std::to_string(WTERMSIG(status));
    }
    pid_ = -1;
    return exit_;
  }

  // What the hub wrote (warnings and errors only: --log-level warning).
  std::string log() const {
    std::ifstream in(log_file_);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

 private:
  void wait_for_port() {
    const auto deadline = steady::now() + std::chrono::seconds(10);
    for (;;) {
      std::ifstream in(port_file_);
      unsigned port = 0;
      if (in >> port && port > 0 && port < 65536) {
        port_ = static_cast<std::uint16_t>(port);
        return;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw run_error("xcfhub ended before it wrote its port file (status " + std::to_string(status) +
                        "): " + log());
      }
      if (steady::now() > deadline) throw run_error("xcfhub wrote no port file within 10 s: " + log());
      if (interrupted()) throw interrupted_error();
      std::this_thread::sleep_for(milliseconds(10));
    }
  }

  void cleanup_files() {
    if (dir_.empty()) return;
    std::remove(port_file_.c_str());
    std::remove((port_file_ + ".tmp").c_str());
    std::remove(log_file_.c_str());
    ::rmdir(dir_.c_str());
    dir_.clear();
  }

  std::string dir_;
  std::string port_file_;
  std::string log_file_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  std::string exit_ = "not started";
};

// ---- Timing --------------------------------------------------------------------------------------------

// One sender's connection to its echo: one round trip per call (send, wait for the answer, check it).
class lane {
 public:
  virtual ~lane() = default;
  // false and `error` set when the round trip failed; the run then stops.
  virtual bool round_trip(std::uint64_t seq, std::string& error) = 0;
};

struct figures {
  std::uint64_t trips = 0;  // recorded round trips, all senders
  double seconds = 0;       // from the end of the warm-up to the last recorded answer
  double per_second = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
  // CPU time spent while recording, in µs per recorded round trip: this program (senders, echoes, client
  // I/O threads) and, for the hub path, the hub process. With nproc cores the most there is to spend is
  // nproc × seconds; `busy` is the share of that used by the two (the rest went to other work, or idle).
  double cpu_self_us = 0, cpu_hub_us = 0, busy = 0;
};

// CPU time of this process, all threads, and of another process (clock_getcpuclockid: ns resolution).
double cpu_seconds_self() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
double cpu_seconds_of(pid_t pid) {
  clockid_t clock{};
  timespec ts{};
  if (pid <= 0 || ::clock_getcpuclockid(pid, &clock) != 0 || ::clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Nearest rank: the smallest sample with at least p of all samples at or below it.
double percentile_us(const std::vector<std::uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return static_cast<double>(sorted[rank - 1]) / 1000.0;
}

// Runs every lane on a thread of its own, all starting together: round trips during the warm-up are not
// recorded; those that start after it and before its end are.
figures drive(std::vector<lane*>& lanes, const settings& s, pid_t hub_pid) {
  struct sender_record {
    std::vector<std::uint64_t> samples;  // ns
    steady::time_point last_done{};
    std::string error;
  };
  std::vector<sender_record> records(lanes.size());
  std::mutex start_mu;
  std::condition_variable start_cv;
  bool go = false;
  steady::time_point measure_from{};
  steady::time_point measure_until{};
  std::atomic<bool> abort{false};

  std::vector<std::thread> threads;
  threads.reserve(lanes.size());
  // Threads already started must be let go and joined if a later one cannot start.
  auto release_and_join = [&] {
    abort = true;
    {
      std::lock_guard<std::mutex> lock(start_mu);
      go = true;
    }
    start_cv.notify_all();
    for (auto& t : threads) t.join();
  };
  try {
    for (std::size_t i = 0; i < lanes.size(); ++i)
      threads.emplace_back([&, i] {
        sender_record& rec = records[i];
        rec.samples.reserve(1 << 16);
        {
          std::unique_lock<std::mutex> lock(start_mu);
          start_cv.wait(lock, [&] { return go; });
        }
        std::uint64_t seq = 0;
        for (;;) {
          const auto begin = steady::now();
          if (begin >= measure_until || abort.load(std::memory_order_relaxed)) break;
          if (interrupted()) {
            rec.error = "interrupted";
            abort = true;
            break;
          }
          if (!lanes[i]->round_trip(++seq, rec.error)) {
            abort = true;
            break;
          }
          const auto end = steady::now();
          if (begin >= measure_from) {
            rec.samples.push_back(
                static_cast<std::uint64_t>(std::chrono::duration_cast<nanoseconds>(end - begin).count()));
            rec.last_done = end;
          }
        }
      });
  } catch (...) {
    release_and_join();
    throw;
  }
  {
    std::lock_guard<std::mutex> lock(start_mu);
    const auto now = steady::now();
    measure_from =
        now + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(s.warmup));
    measure_until =
        measure_from + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(s.seconds));
    go = true;
  }
  start_cv.notify_all();
  // CPU is counted from the end of the warm-up to the end (the senders stop starting trips then).
  std::this_thread::sleep_until(measure_from);
  const double self_before = cpu_seconds_self();
  const double hub_before = cpu_seconds_of(hub_pid);
  for (auto& t : threads) t.join();
  const double self_used = cpu_seconds_self() - self_before;
  const double hub_used = cpu_seconds_of(hub_pid) - hub_before;

  for (std::size_t i = 0; i < records.size(); ++i) {
    if (interrupted()) throw interrupted_error();
    if (!records[i].error.empty())
      throw run_error("sender " + std::to_string(i + 1) + ": " + records[i].error);
  }
  std::vector<std::uint64_t> all;
  steady::time_point last = measure_from;
  for (auto& r : records) {
    all.insert(all.end(), r.samples.begin(), r.samples.end());
    last = std::max(last, r.last_done);
  }
  std::sort(all.begin(), all.end());
  figures f;
  f.trips = all.size();
  f.seconds = std::chrono::duration<double>(last - measure_from).count();
  f.per_second = f.seconds > 0 ? static_cast<double>(f.trips) / f.seconds : 0;
  f.p50_us = percentile_us(all, 0.50);
  f.p99_us = percentile_us(all, 0.99);
  f.p999_us = percentile_us(all, 0.999);
  f.max_us = all.empty() ? 0 : static_cast<double>(all.back()) / 1000.0;
  if (f.trips > 0) {
    f.cpu_self_us = self_used * 1e6 / static_cast<double>(f.trips);
    f.cpu_hub_us = hub_used * 1e6 / static_cast<double>(f.trips);
  }
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (f.seconds > 0 && cores > 0) f.busy = (self_used + hub_used) / (f.seconds * static_cast<double>(cores));
  return f;
}

// ---- The hub path ----------------------------------------------------------------------------------------

void put_seq(xcf::control_area& control, std::uint64_t seq) {
  imsb::store_u32(control.data(), static_cast<std::uint32_t>(seq >> 32), imsb::byte_order::big);
  imsb::store_u32(control.data() + 4, static_cast<std::uint32_t>(seq), imsb::byte_order::big);
}
std::uint64_t get_seq(const std::uint8_t* p) {
  return (std::uint64_t{imsb::load_u32(p, imsb::byte_order::big)} << 32) |
         imsb::load_u32(p + 4, imsb::byte_order::big);
}

std::string member_name(char prefix, int i) {  // S01..S99, E01..E99 (--senders is at most 99)
  return std::string(1, prefix) + (i < 10 ? "0" : "") + std::to_string(i);
}

// Sends every message straight back to its source, from inside the message exit (the client's I/O
// thread), as a server member answering requests would.
class echo_handler final : public xcf::member_handler {
 public:
  void attach(xcf::member* m) { self_.store(m, std::memory_order_release); }
  void on_message(xcf::message msg) override {
    xcf::member* self = self_.load(std::memory_order_acquire);
    if (self == nullptr) {
      failures_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const auto rc = self->send(xcf::target::by_name(msg.source_name), msg.control, msg.data);
    if (rc != xcf::codes::ok) failures_.fetch_add(1, std::memory_order_relaxed);
  }
  void on_event(const xcf::member_event&) override {}
  std::uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  std::atomic<xcf::member*> self_{nullptr};
  std::atomic<std::uint64_t> failures_{0};
};

// The sender's side: its message exit hands the answer to the waiting sender thread.
class sender_lane final : public lane, public xcf::member_handler {
 public:
  sender_lane(std::string echo, std::size_t size, milliseconds timeout, const echo_handler& echo_side)
      : echo_(std::move(echo)), data_(size, 0xA5), timeout_(timeout), echo_side_(echo_side) {}
  void attach(xcf::member* m) { self_ = m; }

  bool round_trip(std::uint64_t seq, std::string& error) override {
    xcf::control_area control{};
    put_seq(control, seq);
    const auto rc = self_->send(xcf::target::by_name(echo_), control, imsb::bytes_view(data_));
    if (rc != xcf::codes::ok) {
      error = "send to " + echo_ + " refused: " + xcf::describe(rc);
      return false;
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, timeout_, [&] { return answered_ >= seq || !problem_.empty(); })) {
      error = "no answer from " + echo_ + " to message " + std::to_string(seq) + " within " +
              std::to_string(timeout_.count()) +
              " ms (echo refusals so far: " + std::to_string(echo_side_.failures()) + ")";
      return false;
    }
    if (!problem_.empty()) {
      error = problem_;
      return false;
    }
    if (answered_ != seq) {
      error = "answer " + std::to_string(answered_) + " to message " + std::to_string(seq);
      return false;
    }
    return true;
  }

  void on_message(xcf::message msg) override {
    const std::uint64_t seq = get_seq(msg.control.data());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (msg.source_name != echo_ || msg.data.size() != data_.size()) {
        problem_ =
            "unexpected message from " + msg.source_name + " (" + std::to_string(msg.data.size()) + " bytes)";
      } else if (seq != answered_ + 1) {
        problem_ = "answer " + std::to_string(seq) + " after " + std::to_string(answered_);
      } else {
        answered_ = seq;
      }
    }
    cv_.notify_one();  // after unlocking: the woken sender does not have to wait for the lock
  }

  void on_event(const xcf::member_event& e) override {
    // Our own link loss would show as a timeout; say what happened instead.
    if (e.kind == xcf::event_kind::failed && e.member.name == echo_) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        problem_ = "echo member " + echo_ + " failed";
      }
      cv_.notify_one();
    }
  }

 private:
  const std::string echo_;
  const imsb::bytes data_;
  const milliseconds timeout_;
  const echo_handler& echo_side_;
  xcf::member* self_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t answered_ = 0;
  std::string problem_;
};

figures measure_hub(const hub_process& hub, int n, std::size_t size, const settings& s) {
  imsb::transport::tcp_service_options options;
  options.endpoint = hub.endpoint();
  options.log = [](const std::string& line) { std::cerr << "xcf_roundtrip: " << line << std::endl; };
  // shared: index 0 serves the echoes, 1 the senders; per-member: one each (echoes first).
  std::vector<std::unique_ptr<imsb::transport::tcp_service>> services;
  auto service_for = [&](bool sender) -> imsb::transport::tcp_service& {
    if (s.services == service_mode::shared) {
      while (services.size() < 2) services.push_back(std::make_unique<imsb::transport::tcp_service>(options));
      return *services[sender ? 1 : 0];
    }
    services.push_back(std::make_unique<imsb::transport::tcp_service>(options));
    return *services.back();
  };

  std::vector<std::unique_ptr<echo_handler>> echo_handlers;
  std::vector<std::unique_ptr<sender_lane>> senders;
  std::vector<std::unique_ptr<xcf::member>> echo_members;
  std::vector<std::unique_ptr<xcf::member>> sender_members;
  auto join = [&](imsb::transport::tcp_service& svc, const std::string& name, xcf::member_handler& h) {
    xcf::join_request request;
    request.group = group_name;
    request.member = name;
    auto r = svc.join(request, h);
    if (!r.code.ok())
      throw run_error("join " + std::string(group_name) + "/" + name + ": " + xcf::describe(r.code));
    return std::move(r.joined);
  };
  for (int i = 1; i <= n; ++i) {
    echo_handlers.push_back(std::make_unique<echo_handler>());
    echo_members.push_back(join(service_for(false), member_name('E', i), *echo_handlers.back()));
    echo_handlers.back()->attach(echo_members.back().get());
  }
  for (int i = 1; i <= n; ++i) {
    senders.push_back(
        std::make_unique<sender_lane>(member_name('E', i), size, s.reply_timeout, *echo_handlers[i - 1]));
    sender_members.push_back(join(service_for(true), member_name('S', i), *senders.back()));
    senders.back()->attach(sender_members.back().get());
  }
  std::vector<lane*> lanes;
  for (auto& l : senders) lanes.push_back(l.get());

  auto leave_all = [&] {
    // Senders first, so that no echo answers into a member that is gone. A refused LEAVE is the hub's
    // problem, but it would also spoil the next measurement's joins: say so now.
    std::string refused;
    for (auto* group : {&sender_members, &echo_members}) {
      for (auto& m : *group) {
        const auto rc = m->leave();
        if (rc != xcf::codes::ok && refused.empty())
          refused = "leave " + m->name() + ": " + xcf::describe(rc);
      }
      group->clear();
    }
    if (!refused.empty()) throw run_error(refused);
  };
  figures f;
  try {
    f = drive(lanes, s, hub.pid());
  } catch (...) {
    sender_members.clear();  // abnormal end: the hub makes them fail; nothing waits for it
    echo_members.clear();
    throw;
  }
  leave_all();
  return f;
}

// ---- The floor: raw TCP loopback ----------------------------------------------------------------------

class fd_guard {
 public:
  explicit fd_guard(int fd = -1) : fd_(fd) {}
  ~fd_guard() { reset(); }
  fd_guard(fd_guard&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  fd_guard& operator=(fd_guard&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

bool write_all(int fd, const std::uint8_t* p, std::size_t n, std::string& error) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      error = errno_text("send");
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Reads one whole frame (16-byte header, length at offset 12) into `buf`, as the hub and the client do:
// read what is there into a large buffer, usually the whole frame in one call. false at end of stream
// (error empty) or on an error.
bool read_frame(int fd, std::vector<std::uint8_t>& buf, std::size_t& frame_size, std::string& error) {
  std::size_t have = 0;
  frame_size = 0;
  for (;;) {
    if (have >= imsb::xcf::frame::header_size) {
      frame_size = imsb::xcf::frame::header_size + imsb::load_u32(buf.data() + 12, imsb::byte_order::big);
      if (frame_size > buf.size()) {
        error = "frame of " + std::to_string(frame_size) + " bytes";
        return false;
      }
      if (have >= frame_size) return true;  // ping-pong: nothing follows a frame
    }
    const ssize_t r = ::recv(fd, buf.data() + have, buf.size() - have, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      error = errno_text("recv");
      return false;
    }
    if (r == 0) {
      if (have != 0) error = "end of stream inside a frame";
      return false;
    }
    have += static_cast<std::size_t>(r);
  }
}

void set_nodelay(int fd) {
  const int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    throw run_error(errno_text("TCP_NODELAY"));
}

class floor_lane final : public lane {
 public:
  floor_lane(int listener, const sockaddr_in& at, std::size_t size) {
    client_ = fd_guard(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (client_.get() < 0) throw run_error(errno_text("socket"));
    if (::connect(client_.get(), reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
      throw run_error(errno_text("connect"));
    }
    server_ = fd_guard(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
    if (server_.get() < 0) throw run_error(errno_text("accept"));
    set_nodelay(client_.get());
    set_nodelay(server_.get());
    // The hub's SEND frame of the same data size: header + prefix + data.
    const std::size_t payload = message_prefix_size + size;
    imsb::xcf::frame::header h;
    h.type = imsb::xcf::frame::frame_type::send;
    h.flags = imsb::xcf::frame::flags::ordered;
    h.length = static_cast<std::uint32_t>(payload);
    imsb::xcf::frame::encode_header(h, frame_);
    frame_.resize(imsb::xcf::frame::header_size + payload, 0xA5);
    in_.resize(frame_.size() + 64 * 1024);
    echo_ = std::thread([this] { echo(); });
  }
  ~floor_lane() override { stop(); }
  floor_lane(const floor_lane&) = delete;
  floor_lane& operator=(const floor_lane&) = delete;

  std::size_t frame_size() const noexcept { return frame_.size(); }

  bool round_trip(std::uint64_t seq, std::string& error) override {
    std::uint8_t* control = frame_.data() + imsb::xcf::frame::header_size + control_offset;
    xcf::control_area c{};
    put_seq(c, seq);
    std::copy(c.begin(), c.end(), control);
    if (!write_all(client_.get(), frame_.data(), frame_.size(), error)) return false;
    std::size_t got = 0;
    if (!read_frame(client_.get(), in_, got, error)) {
      if (error.empty()) error = "the echo closed the connection";
      return false;
    }
    const std::uint64_t answer = get_seq(in_.data() + imsb::xcf::frame::header_size + control_offset);
    if (got != frame_.size() || answer != seq) {
      error = "answer " + std::to_string(answer) + " (" + std::to_string(got) + " bytes) to message " +
              std::to_string(seq);
      return false;
    }
    return true;
  }

  // Ends the echo thread: end of stream from our side, then the thread sees it and returns.
  void stop() {
    if (client_.get() >= 0) ::shutdown(client_.get(), SHUT_RDWR);
    if (echo_.joinable()) echo_.join();
    client_.reset();
    server_.reset();
  }

 private:
  void echo() {
    std::vector<std::uint8_t> buf(frame_.size() + 64 * 1024);
    std::string error;
    std::size_t got = 0;
    while (read_frame(server_.get(), buf, got, error)) {
      if (!write_all(server_.get(), buf.data(), got, error)) break;
    }
    // An error here shows on the sender's side as a failed round trip.
  }

  fd_guard client_;
  fd_guard server_;
  imsb::bytes frame_;
  std::vector<std::uint8_t> in_;
  std::thread echo_;
};

figures measure_floor(int n, std::size_t size, const settings& s) {
  fd_guard listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.get() < 0) throw run_error(errno_text("socket"));
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  at.sin_port = 0;
  socklen_t len = sizeof at;
  if (::bind(listener.get(), reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0 ||
      ::listen(listener.get(), 128) != 0 ||
      ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&at), &len) != 0) {
    throw run_error(errno_text("listen on 127.0.0.1:0"));
  }
  std::vector<std::unique_ptr<floor_lane>> pairs;
  for (int i = 0; i < n; ++i) pairs.push_back(std::make_unique<floor_lane>(listener.get(), at, size));
  std::vector<lane*> lanes;
  for (auto& p : pairs) lanes.push_back(p.get());
  return drive(lanes, s, -1);  // the lanes' destructors end the echo threads, also after an error
}

// ---- Report --------------------------------------------------------------------------------------------

struct scenario_result {
  int senders = 0;
  std::size_t size = 0;
  std::size_t frame_bytes = 0;
  bool has_hub = false, has_floor = false;
  figures hub, floor;
};

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

std::string size_text(std::size_t size) {
  if (size >= 1024 && size % 1024 == 0) return std::to_string(size / 1024) + " KiB";
  return std::to_string(size) + " B";
}

std::string scenario_text(const scenario_result& r) {
  return std::to_string(r.senders) + (r.senders == 1 ? " sender, " : " senders, ") + size_text(r.size);
}

std::string ratio(double a, double b, int digits) { return b > 0 && a > 0 ? fixed(a / b, digits) : "-"; }

void print_table(std::ostream& out, const std::vector<scenario_result>& results) {
  out << "| scenario | msgs/s | p50 µs | p99 µs | p99.9 µs | floor msgs/s | floor p50 µs | floor p99 µs | "
         "msgs/s hub/floor | p50 hub/floor |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : results) {
    auto hub = [&](double v, int d) { return r.has_hub ? fixed(v, d) : std::string("-"); };
    auto flr = [&](double v, int d) { return r.has_floor ? fixed(v, d) : std::string("-"); };
    out << "| " << scenario_text(r) << " | " << hub(r.hub.per_second, 0) << " | " << hub(r.hub.p50_us, 1)
        << " | " << hub(r.hub.p99_us, 1) << " | " << hub(r.hub.p999_us, 1) << " | "
        << flr(r.floor.per_second, 0) << " | " << flr(r.floor.p50_us, 1) << " | " << flr(r.floor.p99_us, 1)
        << " | " << (r.has_hub && r.has_floor ? ratio(r.hub.per_second, r.floor.per_second, 3) : "-") << " | "
        << (r.has_hub && r.has_floor ? ratio(r.hub.p50_us, r.floor.p50_us, 2) : "-") << " |\n";
  }
}

// Where the time goes: CPU per round trip, and how much of the machine the measurement had.
void print_cpu_table(std::ostream& out, const std::vector<scenario_result>& results) {
  out << "| scenario | hub path: hub process CPU µs/trip | hub path: client process CPU µs/trip | "
         "hub path: busy | floor CPU µs/trip | floor: busy |\n"
         "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& r : results) {
    auto hub = [&](double v, int d) { return r.has_hub ? fixed(v, d) : std::string("-"); };
    auto flr = [&](double v, int d) { return r.has_floor ? fixed(v, d) : std::string("-"); };
    out << "| " << scenario_text(r) << " | " << hub(r.hub.cpu_hub_us, 1) << " | " << hub(r.hub.cpu_self_us, 1)
        << " | " << hub(100 * r.hub.busy, 0) << (r.has_hub ? " %" : "") << " | "
        << flr(r.floor.cpu_self_us, 1) << " | " << flr(100 * r.floor.busy, 0) << (r.has_floor ? " %" : "")
        << " |\n";
  }
}

void write_csv(const std::string& path, const std::vector<scenario_result>& results) {
  std::ofstream out(path, std::ios::trunc);
  out << "senders,size,frame_bytes,"
         "hub_trips,hub_seconds,hub_msgs_per_s,hub_p50_us,hub_p99_us,hub_p999_us,hub_max_us,"
         "hub_cpu_hub_us,hub_cpu_client_us,hub_busy,"
         "floor_trips,floor_seconds,floor_msgs_per_s,floor_p50_us,floor_p99_us,floor_p999_us,floor_max_us,"
         "floor_cpu_hub_us,floor_cpu_client_us,floor_busy,"
         "throughput_ratio,p50_ratio\n";
  auto fig = [&](const figures& f, bool has) {
    if (!has) {
      out << ",,,,,,,,,,";
      return;
    }
    out << f.trips << ',' << fixed(f.seconds, 3) << ',' << fixed(f.per_second, 1) << ',' << fixed(f.p50_us, 2)
        << ',' << fixed(f.p99_us, 2) << ',' << fixed(f.p999_us, 2) << ',' << fixed(f.max_us, 2) << ','
        << fixed(f.cpu_hub_us, 2) << ',' << fixed(f.cpu_self_us, 2) << ',' << fixed(f.busy, 3) << ',';
  };
  for (const auto& r : results) {
    out << r.senders << ',' << r.size << ',' << r.frame_bytes << ',';
    fig(r.hub, r.has_hub);
    fig(r.floor, r.has_floor);
    const bool both = r.has_hub && r.has_floor;
    out << (both ? ratio(r.hub.per_second, r.floor.per_second, 4) : "") << ','
        << (both ? ratio(r.hub.p50_us, r.floor.p50_us, 4) : "") << '\n';
  }
  out.flush();
  if (!out) throw run_error("cannot write " + path);
}

int run(const settings& s) {
  std::cout << "xcf_roundtrip: `" << s.command_line << "`\n"
            << "machine: " << machine_text() << "\n"
            << "load average before: " << load_text() << "\n"
            << "clients: "
            << (s.services == service_mode::shared ? "one tcp_service for the senders, one for the echoes"
                                                   : "one tcp_service per member")
            << "; " << s.warmup << " s warm-up, " << s.seconds << " s recorded per measurement\n"
            << std::flush;
  if (!s.csv.empty() && !std::ofstream(s.csv, std::ios::app)) {
    throw run_error("cannot write " + s.csv);  // found now, not after the measurements
  }
  std::unique_ptr<hub_process> hub;
  if (s.run_hub) {
    hub = std::make_unique<hub_process>(s.hub_path);
    std::cout << "hub: " << s.hub_path << " on " << hub->endpoint() << " (pid " << hub->pid() << ")\n"
              << std::flush;
  }
  std::vector<scenario_result> results;
  for (const int n : s.senders) {
    for (const std::size_t size : s.sizes) {
      scenario_result r;
      r.senders = n;
      r.size = size;
      r.frame_bytes = imsb::xcf::frame::header_size + message_prefix_size + size;
      // Floor first, then the hub, back to back, so that both see the same load.
      if (s.run_floor) {
        r.floor = measure_floor(n, size, s);
        r.has_floor = true;
      }
      if (s.run_hub) {
        r.hub = measure_hub(*hub, n, size, s);
        r.has_hub = true;
      }
      std::cerr << "xcf_roundtrip: " << scenario_text(r);  // progress, while the table waits for the end
      if (r.has_hub)
        std::cerr << "; hub " << fixed(r.hub.per_second, 0) << "/s p50 " << fixed(r.hub.p50_us, 1) << " µs";
      if (r.has_floor) {
        std::cerr << "; floor " << fixed(r.floor.per_second, 0) << "/s p50 " << fixed(r.floor.p50_us, 1)
                  << " µs";
      }
      std::cerr << std::endl;
      results.push_back(r);
    }
  }
  std::string hub_end;
  std::string hub_log;
  if (hub) {
    hub_end = hub->stop();
    hub_log = hub->log();
  }
  std::cout << "load average after: " << load_text() << "\n";
  if (hub) {
    // --log-level warning: what shows is a problem, apart from the IMB3023I line of the SIGTERM itself.
    std::cout << "hub: " << hub_end << "; its log:" << (hub_log.empty() ? " (empty)" : "") << "\n";
    std::istringstream lines(hub_log);
    std::string line;
    while (std::getline(lines, line)) std::cout << "    " << line << "\n";
  }
  std::cout << '\n';
  print_table(std::cout, results);
  std::cout << '\n';
  print_cpu_table(std::cout, results);
  std::cout << "\nframe bytes (header + SEND/DELIVER prefix + data): ";
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    std::cout << (i ? ", " : "") << size_text(s.sizes[i]) << " → "
              << imsb::xcf::frame::header_size + message_prefix_size + s.sizes[i];
  }
  std::cout << "; a hub round trip moves 4 frames, a floor round trip 2.\n" << std::flush;
  if (!s.csv.empty()) write_csv(s.csv, results);
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  try {
    settings s;
    if (!parse_options(argc, argv, s)) return exit_ok;
    return run(s);
  } catch (const usage_error& e) {
    std::cerr << "xcf_roundtrip: " << e.text << " (xcf_roundtrip --help)" << std::endl;
    return exit_usage;
  } catch (const po::error& e) {
    std::cerr << "xcf_roundtrip: " << e.what() << " (xcf_roundtrip --help)" << std::endl;
    return exit_usage;
  } catch (const interrupted_error&) {
    std::cerr << "xcf_roundtrip: interrupted" << std::endl;
    return exit_interrupted;
  } catch (const run_error& e) {
    std::cerr << "xcf_roundtrip: " << e.what() << std::endl;
    return exit_failed;
  } catch (const std::exception& e) {
    std::cerr << "xcf_roundtrip: internal error: " << e.what() << std::endl;
    return exit_internal;
  }
}
