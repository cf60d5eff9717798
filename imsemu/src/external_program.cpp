// External programs (external_program.hpp; the format is ours [D], imsemu/README.md "External programs").
//
// One thread, no helper threads: stdin is written and stdout/stderr are read through poll() on
// non-blocking pipes, so a program that writes before it has read all of its input cannot deadlock us.
// The emulator has other threads (XCF backend, timer), so the child does only async-signal-safe work
// between fork and exec; everything it needs (argv, envp) is built before the fork.

#include "imsb/imsemu/external_program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <utility>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::imsemu {

namespace {

constexpr std::size_t llzz = 4;
constexpr std::size_t max_ll = 0xFFFF;
constexpr std::size_t max_stderr_line = 512;  // longer stderr lines are cut for the console
constexpr std::size_t read_chunk = 64 * 1024;
constexpr std::size_t max_stderr_kept = 64 * 1024;  // stderr beyond this is read and dropped

decode_error bad_output(std::size_t n, const char* what, std::size_t offset, std::string detail) {
  return decode_error{std::make_error_code(std::errc::bad_message),
                      "output.segment[" + std::to_string(n) + "]." + what, offset, std::move(detail)};
}

std::string errno_text(int e) { return std::generic_category().message(e); }

// A pipe whose ends close on exec (the child's copies are dup2'ed onto 0-2, which clears the flag).
struct pipe_pair {
  int read = -1;
  int write = -1;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool make_pipe(pipe_pair& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read = fds[0];
  p.write = fds[1];
  return true;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// In the child: `fd` becomes `target`, open across exec.
void move_to(int fd, int target) {
  if (fd == target) {
    ::fcntl(fd, F_SETFD, 0);
  } else {
    ::dup2(fd, target);
  }
}

// In the child: closes every descriptor from 3 on except `keep` (the exec-error pipe, close-on-exec).
void close_others(int keep) {
  const unsigned k = static_cast<unsigned>(keep);
  bool done = true;
  if (k > 3 && ::close_range(3, k - 1, 0) != 0) done = false;
  if (::close_range(k + 1, ~0U, 0) != 0) done = false;
  if (done) return;
  long limit = ::sysconf(_SC_OPEN_MAX);
  if (limit < 0 || limit > 65536) limit = 65536;
  for (int fd = 3; fd < limit; ++fd) {
    if (fd != keep) ::close(fd);
  }
}

std::string sync_level_name(std::uint8_t level) {
  switch (level) {
    case 0:
      return "NONE";
    case 2:
      return "SYNCPT";
    default:
      return "CONFIRM";
  }
}

std::vector<std::string> environment_of(const ims::input_message& in, const external_options& options) {
  const std::string lterm = in.lterm_override.empty() ? in.tpipe : in.lterm_override;  // [I] OTMA IOPCB
  return {
      "PATH=/usr/bin:/bin",
      "IMS_TRANCODE=" + in.transaction,
      "IMS_USERID=" + in.user_id,
      "IMS_GROUP=" + in.group,
      "IMS_LTERM=" + lterm,
      "IMS_TPIPE=" + in.tpipe,
      "IMS_COMMIT_MODE=" + std::to_string(in.commit_mode),
      "IMS_SYNC_LEVEL=" + sync_level_name(in.sync_level),
      "IMS_CCSID=" + std::to_string(in.ccsid),
      "IMS_SPA_SIZE=" + std::to_string(in.spa.size()),
      "IMS_MEMBER=" + options.member,
      "IMS_IMSID=" + options.imsid,
  };
}

// SIGPIPE blocked for this thread while we write to the program's stdin (a program may exit without
// reading it: EPIPE then, not the emulator's death); a SIGPIPE raised meanwhile is taken off on the way out.
class sigpipe_guard {
 public:
  sigpipe_guard() {
    sigset_t pipe_only;
    ::sigemptyset(&pipe_only);
    ::sigaddset(&pipe_only, SIGPIPE);
    sigset_t pending;
    ::sigpending(&pending);
    was_pending_ = ::sigismember(&pending, SIGPIPE) == 1;
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, &old_);
  }
  ~sigpipe_guard() {
    sigset_t pending;
    ::sigpending(&pending);
    if (!was_pending_ && ::sigismember(&pending, SIGPIPE) == 1) {
      sigset_t pipe_only;
      ::sigemptyset(&pipe_only);
      ::sigaddset(&pipe_only, SIGPIPE);
      const timespec zero{0, 0};
      ::sigtimedwait(&pipe_only, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  sigpipe_guard(const sigpipe_guard&) = delete;
  sigpipe_guard& operator=(const sigpipe_guard&) = delete;

 private:
  sigset_t old_{};
  bool was_pending_ = false;
};

// What drain() dropped beyond the bytes it keeps: stderr's dropped lines are counted for IMB5051W.
struct dropped_bytes {
  std::size_t count = 0;
  std::size_t newlines = 0;
  std::uint8_t last = 0;
};

// What came back from one run of the process.
struct process_outcome {
  int start_errno = 0;  // the program was not started: fork/pipe/exec errno
  const char* start_step = "";
  bool timed_out = false;
  bool too_much_output = false;
  int status = 0;  // waitpid status
  bytes out;
  std::string err;
  dropped_bytes err_dropped;  // stderr beyond max_stderr_kept
};

// Reads what is there, at most `max_reads` chunks (a writer as fast as we are cannot keep us here), keeping
// at most `keep` bytes in `into` and dropping the rest (a program is never blocked on a full pipe).
// False at end of file or on an error (the descriptor is then closed).
bool drain(int& fd, bytes& into, std::size_t keep, dropped_bytes* dropped = nullptr, int max_reads = 16) {
  std::uint8_t buf[read_chunk];
  for (int reads = 0; reads < max_reads;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      ++reads;
      const std::size_t got = static_cast<std::size_t>(n);
      const std::size_t room = keep > into.size() ? keep - into.size() : 0;
      const std::size_t kept = std::min(room, got);
      into.insert(into.end(), buf, buf + kept);
      if (dropped != nullptr && kept < got) {
        dropped->count += got - kept;
        dropped->newlines += static_cast<std::size_t>(std::count(buf + kept, buf + got, std::uint8_t{'\n'}));
        dropped->last = buf[got - 1];
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    close_fd(fd);
    return false;
  }
  return true;
}

process_outcome run_process(const std::string& path, const bytes& stdin_bytes,
                            const std::vector<std::string>& env, const external_options& options) {
  process_outcome po;
  std::vector<char*> argv{const_cast<char*>(path.c_str()), nullptr};
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pipe_pair in, out, err, exec_err;
  auto close_all = [&] {
    for (pipe_pair* p : {&in, &out, &err, &exec_err}) {
      close_fd(p->read);
      close_fd(p->write);
    }
  };
  if (!make_pipe(in) || !make_pipe(out) || !make_pipe(err) || !make_pipe(exec_err)) {
    po.start_errno = errno;
    po.start_step = "pipe";
    close_all();
    return po;
  }

  sigpipe_guard guard;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    po.start_errno = errno;
    po.start_step = "fork";
    close_all();
    return po;
  }
  if (pid == 0) {
    // The child: async-signal-safe calls only.
    ::setpgid(0, 0);
    // Dies with the emulator (kill -9 included). PDEATHSIG fires when the forking THREAD ends: the
    // program's worker thread lives as long as the emulator, and a test's thread outlives its run. If the
    // parent is already gone, the signal was never armed: leave at once.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s) {
      if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
    }
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    move_to(in.read, 0);
    move_to(out.write, 1);
    move_to(err.write, 2);
    close_others(exec_err.write);
    ::execve(path.c_str(), argv.data(), envp.data());
    const int e = errno;
    std::uint8_t code[4];
    store_u32(code, static_cast<std::uint32_t>(e), byte_order::big);
    ssize_t ignored = ::write(exec_err.write, code, sizeof code);
    (void)ignored;
    ::_exit(127);
  }

  // The parent. Also set here: the kill below must find the group even if the child has not run yet.
  ::setpgid(pid, pid);
  // From here until on_started(0) the group exists (the leader is not reaped before), so a kill of it
  // from another thread reaches only this program.
  if (options.on_started) options.on_started(static_cast<int>(pid));
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  close_fd(exec_err.write);
  {
    std::uint8_t code[4];
    std::size_t got = 0;
    while (got < sizeof code) {
      const ssize_t n = ::read(exec_err.read, code + got, sizeof code - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    close_fd(exec_err.read);
    if (got == sizeof code) {
      po.start_errno = static_cast<int>(load_u32(code, byte_order::big));
      po.start_step = "exec";
      if (options.on_started) options.on_started(0);
      while (::waitpid(pid, &po.status, 0) < 0 && errno == EINTR) {
      }
      close_all();
      return po;
    }
  }

  set_nonblocking(in.write);
  set_nonblocking(out.read);
  set_nonblocking(err.read);
  std::size_t written = 0;
  if (stdin_bytes.empty()) close_fd(in.write);
  bytes err_bytes;
  const std::size_t out_keep = options.max_output + 1;  // one byte more tells "too much"
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool exited = false;
  for (;;) {
    // Exited? (WNOWAIT: not reaped yet, so its process group id cannot be reused before the kill below.)
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      exited = true;
    }
    if (exited) {
      if (out.read >= 0) drain(out.read, po.out, out_keep);
      if (err.read >= 0) drain(err.read, err_bytes, max_stderr_kept, &po.err_dropped);
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      po.timed_out = true;
      break;
    }
    if (po.out.size() > options.max_output) {
      po.too_much_output = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    const int wait_ms = static_cast<int>(std::min<long long>(
        50, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    int* owners[3];
    for (int* fd : {&in.write, &out.read, &err.read}) {
      if (*fd < 0) continue;
      fds[n].fd = *fd;
      fds[n].events = static_cast<short>(fd == &in.write ? POLLOUT : POLLIN);
      fds[n].revents = 0;
      owners[n] = fd;
      ++n;
    }
    // With every pipe closed only the exit is left to wait for: look again soon.
    const int ready = ::poll(n > 0 ? fds : nullptr, n, n > 0 ? wait_ms : std::min(wait_ms, 2));
    if (ready <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      int& fd = *owners[i];
      if (&fd == &in.write) {
        if ((fds[i].revents & (POLLERR | POLLHUP)) != 0) {
          close_fd(fd);  // the program closed its stdin: the rest is not wanted
          continue;
        }
        const ssize_t w = ::write(fd, stdin_bytes.data() + written, stdin_bytes.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) ||
            written == stdin_bytes.size()) {
          close_fd(fd);  // EOF for the program (EPIPE: it did not read it all, its business)
        }
      } else {
        if (&fd == &out.read) {
          drain(fd, po.out, out_keep);
        } else {
          drain(fd, err_bytes, max_stderr_kept, &po.err_dropped);
        }
      }
    }
  }
  // The whole process group: a timed-out program's children, and whatever a finished one left behind.
  if (options.on_started) options.on_started(0);
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &po.status, 0) < 0 && errno == EINTR) {
  }
  close_all();
  po.err.assign(err_bytes.begin(), err_bytes.end());
  return po;
}

}  // namespace

result<std::vector<otma::segment>> parse_program_output(bytes_view out) {
  std::vector<otma::segment> segments;
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t n = segments.size();
    if (out.size() - at < llzz) {
      return bad_output(n, "LL", at,
                        "the output ends " + std::to_string(out.size() - at) +
                            " bytes into a segment prefix (LLZZ needs 4)");
    }
    const std::size_t ll = load_u16(out.data() + at, byte_order::big);
    const std::uint16_t zz = load_u16(out.data() + at + 2, byte_order::big);
    if (ll < llzz) {
      return bad_output(n, "LL", at, "LL " + std::to_string(ll) + " is below 4 (it counts the LLZZ prefix)");
    }
    if (ll > out.size() - at) {
      return bad_output(n, "LL", at,
                        "LL " + std::to_string(ll) + " runs past the end of the output (" +
                            std::to_string(out.size() - at) + " bytes left)");
    }
    if (zz != 0) {
      return bad_output(n, "ZZ", at + 2, "ZZ is " + otma::sense_hex(zz) + ", must be 0");
    }
    otma::segment s;
    s.data.assign(out.data() + at + llzz, out.data() + at + ll);
    segments.push_back(std::move(s));
    at += ll;
  }
  return segments;
}

bytes program_input_bytes(const std::vector<bytes>& segments) {
  bytes out;
  for (const auto& s : segments) {
    const std::size_t len = std::min(s.size(), max_ll - llzz);
    std::uint8_t prefix[llzz];
    store_u16(prefix, static_cast<std::uint16_t>(len + llzz), byte_order::big);
    store_u16(prefix + 2, 0, byte_order::big);
    out.insert(out.end(), prefix, prefix + llzz);
    out.insert(out.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(len));
  }
  return out;
}

external_result run_external_program(const std::string& path, const ims::input_message& input,
                                     const external_options& options) {
  external_result x;
  const std::string who = "PGM(" + options.program_name + ") TRAN(" + input.transaction + ")";
  auto abend = [&](std::string_view id, const char* code, const std::string& why) {
    x.run.outputs.clear();
    x.run.abend = std::string(code) + " PROGRAM " + options.program_name + " " + why;
    x.log.push_back(std::string(id) + " " + who + " " + why + " (ABEND " + code + ")");
  };

  std::vector<bytes> in_segments;
  if (!input.spa.empty()) in_segments.push_back(input.spa);
  in_segments.insert(in_segments.end(), input.segments.begin(), input.segments.end());
  const process_outcome po =
      run_process(path, program_input_bytes(in_segments), environment_of(input, options), options);

  // stderr first: it usually says why the rest went wrong. Control bytes are shown as \xNN, so a program
  // cannot forge or split a console line.
  const auto printable_line = [](const std::string& raw) {
    static const char digits[] = "0123456789ABCDEF";
    std::string out;
    for (const char ch : raw) {
      const auto b = static_cast<unsigned char>(ch);
      if (b < 0x20 || b == 0x7F) {
        out += "\\x";
        out += digits[b >> 4];
        out += digits[b & 0x0F];
      } else {
        out += ch;
      }
    }
    return out;
  };
  std::size_t logged = 0;
  std::size_t dropped = 0;
  std::size_t pos = 0;
  while (pos < po.err.size()) {
    std::size_t nl = po.err.find('\n', pos);
    if (nl == std::string::npos) nl = po.err.size();
    std::string line = po.err.substr(pos, std::min(nl - pos, max_stderr_line));
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (logged < options.max_log_lines) {
      x.log.push_back(std::string(imsb::msg::IMB5045I) + " " + who + " STDERR: " + printable_line(line));
      ++logged;
    } else {
      ++dropped;
    }
  }
  // Lines in the bytes beyond the 64 KiB kept (read and dropped) count as not logged too.
  const dropped_bytes& beyond = po.err_dropped;
  if (beyond.count > 0) {
    // Lines that start in the dropped bytes: one at their first byte when the kept part ended a line,
    // and one after each newline that more bytes follow.
    const bool kept_ended_line = !po.err.empty() && po.err.back() == '\n';
    dropped += (kept_ended_line ? 1 : 0) + beyond.newlines - (beyond.last == '\n' ? 1 : 0);
  }
  if (dropped > 0) {
    x.log.push_back(std::string(imsb::msg::IMB5051W) + " " + who + " STDERR: " + std::to_string(dropped) +
                    " MORE LINES NOT LOGGED");
  }

  if (po.start_errno != 0) {
    abend(imsb::msg::IMB5046E, abend_program_failed,
          "NOT STARTED: " + std::string(po.start_step) + " " + path + ": " + errno_text(po.start_errno));
    return x;
  }
  if (po.timed_out) {
    abend(imsb::msg::IMB5049E, abend_time_limit,
          "RAN PAST ITS TIME LIMIT OF " + std::to_string(options.timeout.count()) +
              " MS: PROCESS GROUP KILLED");
    return x;
  }
  if (po.too_much_output) {
    abend(imsb::msg::IMB5050E, abend_bad_output,
          "BAD OUTPUT: MORE THAN " + std::to_string(options.max_output) + " BYTES: PROCESS GROUP KILLED");
    return x;
  }
  if (WIFSIGNALED(po.status)) {
    abend(imsb::msg::IMB5048E, abend_program_failed,
          "ENDED BY SIGNAL " + std::to_string(WTERMSIG(po.status)));
    return x;
  }
  if (!WIFEXITED(po.status) || WEXITSTATUS(po.status) != 0) {
    abend(imsb::msg::IMB5047E, abend_program_failed,
          "ENDED WITH EXIT STATUS " + std::to_string(WIFEXITED(po.status) ? WEXITSTATUS(po.status) : -1));
    return x;
  }
  if (po.out.size() > options.max_output) {
    abend(imsb::msg::IMB5050E, abend_bad_output,
          "BAD OUTPUT: MORE THAN " + std::to_string(options.max_output) + " BYTES");
    return x;
  }
  auto parsed = parse_program_output(bytes_view(po.out));
  if (!parsed) {
    abend(imsb::msg::IMB5050E, abend_bad_output, "BAD OUTPUT: " + parsed.error().to_string());
    return x;
  }
  std::vector<otma::segment> segments = std::move(parsed).value();
  std::size_t first = 0;
  if (!input.spa.empty()) {
    // The SPA comes back first, the size IMS gave it [D] (a program cannot change a SPA's size).
    if (segments.empty() || segments.front().data.size() != input.spa.size()) {
      abend(
          imsb::msg::IMB5050E, abend_bad_output,
          "BAD OUTPUT: A CONVERSATIONAL PROGRAM MUST WRITE THE SPA (" + std::to_string(input.spa.size()) +
              " BYTES) AS ITS FIRST SEGMENT" +
              (segments.empty() ? std::string(", IT WROTE NOTHING")
                                : ", ITS FIRST SEGMENT HAS " + std::to_string(segments.front().data.size())));
      return x;
    }
    x.run.spa = segments.front().data;
    const auto blank = codepage::blank(input.ccsid);
    const std::size_t code_len = std::min<std::size_t>(8, x.run.spa.size());
    // Blanks in the SPA's trancode end the conversation, as in IMS [C: IMS-CONV].
    x.run.end_conversation =
        std::all_of(x.run.spa.begin(), x.run.spa.begin() + static_cast<std::ptrdiff_t>(code_len),
                    [&](std::uint8_t b) { return b == blank; });
    first = 1;
  }
  if (segments.size() > first) {
    ims::output_message reply;
    for (std::size_t i = first; i < segments.size(); ++i)
      reply.segments.push_back(std::move(segments[i].data));
    x.run.outputs.push_back(std::move(reply));
  }
  return x;
}

}  // namespace imsb::imsemu
