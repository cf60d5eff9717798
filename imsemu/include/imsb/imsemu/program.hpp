#pragma once
// The imsemu program without its main(): definitions loaded, the engine bound to an XCF member
// through tpipe::server_link, a timer thread, the operator console and the orderly stop. apps/imsemu/
// main.cpp parses the command line, makes the XCF backend (xcfhub's TCP client) and handles signals;
// everything else is here, so tests can run a whole emulator in-process over any xcf::service.
//
// Threads: the XCF backend calls the link from its own thread; the timer thread calls link.tick() and
// engine.tick(); the console and the command socket's thread call operator_command(). All go through
// the link's (recursive) lock, so the engine, which is not thread-safe, sees one caller at a time.
// FAULT RESTART replaces the engine and the link: the timer thread does it under engine_mutex_, which
// operator_command and with_engine take too (never while holding the link's lock). Joining the group,
// with its retries, is done without engine_mutex_, so operator commands are answered meanwhile; a
// restart whose join fails keeps trying on the timer thread every rejoin_interval until it joins or stops.
// External programs run on the worker thread (engine.hpp program_runner), one at a time, without the
// link's lock; their completion takes the link's lock (not engine_mutex_). stop() and FAULT RESTART cancel
// the run in flight (SIGKILL to its process group), drop its completion and join the worker before the
// engine goes, so a completion never reaches a replaced engine.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/tpipe/xcf_link.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::imsemu {

struct program_options {
  std::string config_file;  // definitions file; empty: ims::default_definitions
  std::string group;        // --group: overrides the file's GRNAME
  std::string member;       // --member: overrides the file's OTMANM
  std::filesystem::path state_dir = "imsemu-state";
  bool cold_start = false;
  std::optional<std::uint64_t> heartbeat_ms;      // X'3C' interval; default the definitions' HEARTBEAT=
  std::uint64_t output_ack_timeout_ms = 120'000;  // DFS3494E after this long without the client's answer
  std::vector<std::string> faults;                // each one engine FAULT command without the word FAULT
  std::uint64_t tick_ms = 100;                    // the timer thread's period
  // --utoken-key: checks UTOKENs (engine.hpp rule 4 and bids); empty: tokens are not checked. Handed to
  // every engine the program opens (a FAULT RESTART's too).
  imsemu::utoken_verifier utoken_verifier;
  // --utoken-required [D]: refuse input and client-bids that name a user without a UTOKEN (engine.hpp
  // rule 4); off: the user ID is trusted, as IMS does when MQ sends no UTOKEN [C: MQ-SEC].
  bool utoken_required = false;
};

// The definitions the program runs with: the file's (ims::parse_definitions) or ims::default_definitions,
// then --group / --member. Errors: the file cannot be read (generic errno, field "definitions"), a parse
// error (as parse_definitions), no group or member at all (std::errc::invalid_argument).
result<ims::definitions> load_definitions(const program_options& options);

class program {
 public:
  // Loads the definitions, opens the engine on the state folder (warm, or cold with cold_start) and
  // applies the faults (an unknown one: std::errc::invalid_argument naming it). Console lines of the
  // engine and of the program go to `console`, from any of the threads above.
  static result<std::unique_ptr<program>> open(const program_options& options, console_fn console);
  ~program();  // stop() if still running
  program(const program&) = delete;
  program& operator=(const program&) = delete;

  // Joins the OTMA XCF group as a lasting member (DFS2360I), retrying for `retry_for` while the backend
  // refuses (the hub may still hold a killed predecessor's connection); DFS2364E when it gives up.
  // Then starts the timer thread.
  xcf::return_code start(xcf::service& xcf, std::chrono::milliseconds retry_for);
  // An operator console line: an IMS command, or an emulator FAULT command; the lines to print.
  std::vector<std::string> operator_command(std::string_view line);
  // Planned stop: close the command socket, suspend to every client (X'14'), leave the group
  // (DFS2361I), stop the timer.
  void stop(const std::string& why);

  // The local command socket (--command-socket) [D]: a Unix stream socket at `path`, created with mode
  // 0600; a stale socket file there is replaced, a live one (another imsemu answers) or any other file
  // is an error. It is removed by stop(). Each line a connection sends is run as operator_command and
  // answered with the answer's lines, then one empty line (command_end_marker). Errors: the path does
  // not fit sockaddr_un::sun_path (std::errc::filename_too_long), address_in_use, not_a_socket, errno.
  result<done> listen_commands(const std::filesystem::path& path);
  static constexpr std::string_view command_end_marker = "";

  const ims::definitions& definitions() const noexcept { return defs_; }
  // The engine, for in-process tests; use it through with_engine from other threads.
  // After a restart whose engine failed to open (IMB5089E) there is none: f is not called and the
  // result is value-initialised.
  template <class F>
  auto with_engine(F&& f) {
    using result_type = decltype(f(std::declval<engine&>()));
    std::lock_guard<std::mutex> lock(engine_mutex_);
    if (!engine_ || !link_) {
      if constexpr (std::is_void_v<result_type>)
        return;
      else
        return result_type{};
    }
    return link_->with_session([&](tpipe::server_session&) { return f(*engine_); });
  }
  // [D] how often a restart that could not join the group tries again (IMB5067W).
  static constexpr std::chrono::milliseconds rejoin_interval{5000};
  // Whether the program is a member of its XCF group now (DFS2360I, until DFS2361I or a failed restart).
  bool joined() const noexcept { return joined_; }

 private:
  program(std::unique_ptr<engine> e, const ims::definitions& defs, const program_options& options,
          console_fn console);
  void timer_loop();
  void make_link();
  // Called without engine_mutex_ (only the thread that replaces link_ calls it: start() before the timer
  // runs, then the timer thread); the retries end early when the timer is stopped.
  xcf::return_code join_group(std::chrono::milliseconds retry_for);
  // FAULT RESTART WARM|COLD, on the timer thread: as stop(), then the engine reopened, then as start().
  void restart(bool cold);
  void command_loop();
  void close_commands();
  void start_worker();
  void worker_loop();
  void submit_run(external_job job);
  // Cancels the run in flight (kills its process group), drops its completion, joins the worker.
  void stop_worker();

  console_fn console_;
  utoken_verifier utoken_verifier_;
  bool utoken_required_ = false;
  ims::definitions defs_;
  tpipe::server_config link_config_;
  std::uint32_t generation_ = 0;  // the server token's generation (start time, +1 per restart)
  xcf::service* xcf_ = nullptr;   // from start(), for a restart's re-join
  std::chrono::milliseconds retry_for_{0};
  std::mutex engine_mutex_;           // engine_ and link_ are replaced under it (restart)
  std::uint8_t restart_pending_ = 0;  // under timer_mutex_: 1 warm, 2 cold
  int command_fd_ = -1;
  std::filesystem::path command_path_;
  std::uint64_t command_dev_ = 0;  // the socket file this program made (close_commands removes only it)
  std::uint64_t command_ino_ = 0;
  std::atomic<bool> command_stop_{false};
  std::thread command_thread_;
  std::string group_;
  std::string member_;
  std::string imsid_;
  std::string state_dir_;
  bool cold_ = false;
  std::uint64_t tick_ms_;
  std::unique_ptr<engine> engine_;
  std::unique_ptr<tpipe::server_link> link_;
  std::mutex timer_mutex_;
  std::condition_variable timer_cv_;
  bool timer_stop_ = false;
  std::thread timer_;
  std::atomic<bool> joined_{false};
  // Timer thread only: a restart's join failed; the next try is due at next_rejoin_.
  bool rejoin_pending_ = false;
  std::chrono::steady_clock::time_point next_rejoin_{};
  std::mutex run_mutex_;  // the worker's state below
  std::condition_variable run_cv_;
  std::optional<external_job> run_job_;  // handed over, not started yet
  bool run_stop_ = false;
  bool run_cancelled_ = false;  // the run in flight: drop its completion
  int run_pgid_ = 0;            // its process group while it is live (external_options::on_started)
  std::thread worker_;
};

}  // namespace imsb::imsemu
