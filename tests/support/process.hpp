#pragma once
// Test support: child processes for end-to-end tests (xcfhub, helper tools, openssl). POSIX only; the
// portable/ tests do not use it.
//
// A child_process is RAII: its destructor continues a stopped child, kills it (SIGKILL) and reaps it,
// so no child outlives a failed assertion. Children also get SIGKILL when the thread that started them
// ends (PR_SET_PDEATHSIG), so even a crashed test program leaves nothing running: start them from the
// test's main thread.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace imsb::test {

using std::chrono::milliseconds;

// Where a child's standard output and error go.
struct output_to {
  enum class mode { inherit, capture, file } how = mode::inherit;
  std::string path;  // mode::file: stdout and stderr both appended there
  static output_to inherit() { return {}; }
  static output_to capture() { return {mode::capture, {}}; }  // stdout through a pipe; stderr inherited
  static output_to file(std::string p) { return {mode::file, std::move(p)}; }
};

class child_process {
 public:
  child_process() = default;

  // Starts `program` (a path, or a name looked up in PATH) with `args`. Throws std::runtime_error when
  // the program cannot be started at all.
  child_process(const std::string& program, const std::vector<std::string>& args,
                output_to output = output_to::inherit()) {
    int pipe_fds[2] = {-1, -1};
    if (output.how == output_to::mode::capture && ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    }
    int file_fd = -1;
    if (output.how == output_to::mode::file) {
      file_fd = ::open(output.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (file_fd < 0) throw std::runtime_error("open " + output.path + ": " + std::strerror(errno));
    }
    // exec failures come back through this pipe (closed on a successful exec).
    int status_fds[2];
    if (::pipe2(status_fds, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    const std::string path = find_program(program);
    std::vector<std::string> argv_text{program};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
      // Only async-signal-safe calls from here to exec: the parent has threads.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      if (pipe_fds[1] >= 0) ::dup2(pipe_fds[1], STDOUT_FILENO);
      if (file_fd >= 0) {
        ::dup2(file_fd, STDOUT_FILENO);
        ::dup2(file_fd, STDERR_FILENO);
      }
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execv(path.c_str(), argv.data());  // execv, unlike execvp, is async-signal-safe
      const int e = errno;
      [[maybe_unused]] const auto ignored = ::write(status_fds[1], &e, sizeof e);
      ::_exit(127);
    }
    pid_ = pid;
    ::close(status_fds[1]);
    if (pipe_fds[1] >= 0) ::close(pipe_fds[1]);
    if (file_fd >= 0) ::close(file_fd);
    out_fd_ = pipe_fds[0];
    int exec_errno = 0;
    ssize_t n;
    do {
      n = ::read(status_fds[0], &exec_errno, sizeof exec_errno);
    } while (n < 0 && errno == EINTR);
    ::close(status_fds[0]);
    if (n == static_cast<ssize_t>(sizeof exec_errno)) {
      wait_exit(milliseconds(5000));
      throw std::runtime_error("cannot run " + program + ": " + std::strerror(exec_errno));
    }
  }

  child_process(child_process&& other) noexcept { *this = std::move(other); }
  child_process& operator=(child_process&& other) noexcept {
    if (this != &other) {
      stop();
      pid_ = std::exchange(other.pid_, -1);
      out_fd_ = std::exchange(other.out_fd_, -1);
      status_ = std::exchange(other.status_, std::nullopt);
      buffer_ = std::move(other.buffer_);
      eof_ = other.eof_;
    }
    return *this;
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() { stop(); }

  pid_t pid() const noexcept { return pid_; }
  bool started() const noexcept { return pid_ > 0; }
  // Not reaped yet (it may have ended: see wait_exit).
  bool running() {
    poll_exit();
    return pid_ > 0 && !status_;
  }

  bool signal(int sig) { return pid_ > 0 && !status_ && ::kill(pid_, sig) == 0; }

  // Reaps the child if it ends within `timeout`: its wait status (WIFEXITED...), or nothing.
  std::optional<int> wait_exit(milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      poll_exit();
      if (status_ || pid_ <= 0) return status_;
      if (std::chrono::steady_clock::now() >= until) return std::nullopt;
      std::this_thread::sleep_for(milliseconds(2));
    }
  }

  // SIGCONT + SIGKILL and reap. Safe to call twice; the destructor calls it.
  void stop() noexcept {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGCONT);
      ::kill(pid_, SIGKILL);
      int st = 0;
      while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
      }
      status_ = st;
    }
    if (out_fd_ >= 0) {
      ::close(out_fd_);
      out_fd_ = -1;
    }
  }

  // Captured standard output: the next line (without '\n') that contains `text`, read within `timeout`;
  // lines before it are skipped. Nothing when it does not come (or the child closed its output).
  std::optional<std::string> wait_for_line(std::string_view text, milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      for (auto nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n')) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (line.find(text) != std::string::npos) return line;
      }
      const auto now = std::chrono::steady_clock::now();
      if (eof_ || now >= until) return std::nullopt;
      read_some(std::chrono::duration_cast<milliseconds>(until - now));
    }
  }

  // Everything the child writes to its captured output until it closes it (or `timeout`).
  std::string read_all(milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!eof_) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= until) break;
      read_some(std::chrono::duration_cast<milliseconds>(until - now));
    }
    return std::exchange(buffer_, {});
  }

 private:
  // `program` itself when it names a path, else the first executable of that name in $PATH.
  static std::string find_program(const std::string& program) {
    if (program.find('/') != std::string::npos) return program;
    const char* env = std::getenv("PATH");
    std::string dirs = env != nullptr ? env : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const std::string candidate =
          (end == start ? std::string(".") : dirs.substr(start, end - start)) + "/" + program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
    return program;  // execv fails and says so
  }

  void poll_exit() {
    if (pid_ <= 0 || status_) return;
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) status_ = st;
  }

  void read_some(milliseconds timeout) {
    if (out_fd_ < 0) {
      eof_ = true;
      return;
    }
    pollfd p{out_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(1, timeout.count())));
    if (ready <= 0) return;
    char buf[4096];
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      eof_ = true;
    }
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::optional<int> status_;
  std::string buffer_;
  bool eof_ = false;
};

// Runs a program to its end (output inherited) and gives its exit code, or -1 when it was killed or ran
// past `timeout` (then it is killed).
inline int run_program(const std::string& program, const std::vector<std::string>& args,
                       milliseconds timeout = milliseconds(30000), output_to output = output_to::inherit()) {
  child_process child(program, args, std::move(output));
  const auto status = child.wait_exit(timeout);
  if (!status || !WIFEXITED(*status)) return -1;
  return WEXITSTATUS(*status);
}

// The contents of `path` once it exists and is not empty, within `timeout`. Meant for files written
// whole and renamed into place (xcfhub --port-file).
inline std::optional<std::string> wait_for_file(const std::string& path, milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      if (!ss.str().empty()) return ss.str();
    }
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class temp_dir {
 public:
  temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/imsb-e2e-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("mkdtemp: " + std::string(std::strerror(errno)));
    path_ = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::string& path() const noexcept { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace imsb::test
