#pragma once
// xcfhub: the TCP emulator of XCF signalling (transport/README.md "The xcfhub protocol" [D], after
// docs/design/xcf-emulation.md). The `hub` class is the whole server; apps/xcfhub is a thin main() around
// it, and tests or imsemu can embed one on their own io_context.
//
// Threading [D]: everything runs on the one thread that runs the io_context, so frames of one
// connection are handled in arrival order and FIFO per (source, target, stream) follows from the
// per-connection write queues. Call start(), port() and snapshot() on that thread (or before it runs),
// and destroy the hub there or after run() returned, before the io_context; stop() may be called from any
// thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "imsb/transport/tcp_common.hpp"
#include "imsb/xcf/frame.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::transport {

enum class log_level : std::uint8_t { error, warning, info, debug };
// "error" | "warning" | "info" | "debug"; false when the text is none of them.
bool parse_log_level(std::string_view text, log_level& out);

// A console line: "IMB3005I member joined: ..." (message ID first, docs/design/style.md). The sink adds what
// it likes (a time stamp) and writes it somewhere.
using log_sink = std::function<void(log_level level, std::string_view line)>;

// The stand-in for RACF's IMSXCF.* profiles [D]: a group with an entry admits only the members listed;
// other groups admit anyone. Names are ASCII, unpadded.
using allow_list = std::map<std::string, std::set<std::string>>;

// "GROUP=M1,M2" (blanks around names ignored) into `list` (entries for the same group add up). false
// and `error` set when the text is malformed or a name breaks the XCF rules [C: XCF-NAMES2].
bool add_allow_entry(std::string_view text, allow_list& list, std::string& error);
// A file of such lines; '#' starts a comment, blank lines are skipped. `error` names file and line.
bool load_allow_file(const std::string& path, allow_list& list, std::string& error);

struct hub_options {
  endpoint_spec listen{"127.0.0.1", 5099};
  std::string system_name = "XCFHUB";  // member_info.system of every member (1-8 characters A-Z 0-9 $ # @)
  std::uint32_t max_message = xcf::frame::default_max_payload;  // payload limit, ≤ hard_max_payload
  // Bytes queued to one connection and not yet written; a SEND that would pass it is refused 12/0.
  // 0 = the default, 8 MiB (raised to hold one frame of max_message when that is bigger).
  std::size_t target_buffer = 0;
  std::chrono::milliseconds heartbeat{1000};
  // Open connections (joined or not); one more is accepted and closed at once (IMB3026W).
  std::size_t max_connections = 1024;
  // Member records of every group (active, quiesced, failed); a JOIN that needs one more: 12/0.
  std::size_t max_members = 4096;
  allow_list allow;
  tls_files tls;  // cert + key: every connection TLS; ca as well: client certificates required
  log_level level = log_level::info;
  log_sink log;  // empty: lines go to standard error
};

inline constexpr std::size_t default_target_buffer = 8 * 1024 * 1024;  // [D] transport/README.md
inline constexpr std::size_t max_max_connections = 1000000;
inline constexpr std::size_t max_max_members = 65536;  // a QUERY_RSP of all of them: 5.3 MB

// Start-up failures (exceptions only while starting, docs/design/style.md): the message ID to print
// with what().
class hub_start_error : public std::runtime_error {
 public:
  hub_start_error(std::string_view id, const std::string& text) : std::runtime_error(text), id_(id) {}
  std::string_view id() const noexcept { return id_; }

 private:
  std::string_view id_;
};

class hub {
 public:
  hub(boost::asio::io_context& io, hub_options options);
  ~hub();
  hub(const hub&) = delete;
  hub& operator=(const hub&) = delete;

  // Checks the options, builds the TLS context, binds and listens, arms the heartbeat; logs IMB3001I.
  // Signals are the caller's: arm a signal_set that calls stop() before start() (apps/xcfhub).
  // Throws hub_start_error (IMB3016E bad option, IMB3017E cannot listen, IMB3018E TLS files).
  void start();
  // The bound port (the one the system chose for port 0); 0 before start().
  std::uint16_t port() const noexcept;
  // "127.0.0.1:40312": where clients connect.
  std::string listening_on() const;
  // Closes the listener and every connection (members are not told: the hub is gone) and cancels
  // timers, so that io_context::run() returns once nothing else is pending. Logs IMB3002I. Any thread.
  void stop();

  // Every group's members (active, quiesced, failed), ordered by group then member name.
  std::vector<xcf::member_info> snapshot() const;
  // Options as used (defaults resolved).
  const hub_options& options() const noexcept;

 private:
  class impl;
  std::shared_ptr<impl> impl_;  // shared with its own handlers, which must not outlive it unseen
};

// ---- xcfhub status -----------------------------------------------------------------------------------

struct status_request {
  endpoint_spec connect;
  tls_files tls;  // any file set → TLS (ca: verify the hub; cert + key: present a client certificate)
  std::chrono::milliseconds timeout{5000};
};

struct status_result {
  bool ok = false;
  std::string_view error_id;              // IMB3021E (cannot reach), IMB3022E (answer not usable) when !ok
  std::string error;                      // the reason, for people
  std::vector<xcf::member_info> members;  // ordered by group, then member name
};

// Connects, sends QUERY with a blank group (every group, transport/README.md "Status") and waits for
// QUERY_RSP. Runs its own io_context; blocks for at most about `timeout`.
status_result query_status(const status_request& request);

// The listing `xcfhub status` prints: one block per group, one line per member (name, state, token in
// hex, system; user state in hex when it is not all zeros). JSON: {"groups":[{"group":..,"members":[..]}]}.
std::string format_status(const std::vector<xcf::member_info>& members);
std::string format_status_json(const std::vector<xcf::member_info>& members);

}  // namespace imsb::transport
