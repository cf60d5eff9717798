#pragma once
// Support for the queue-manager control-command tests: each test gets a fresh temporary prefix and runs
// the real programs (crtmqm, dltmqm, runmqsc, dspmqfls) against it, capturing standard output, standard
// error and the exit code separately; the catalog is then read back through the store API, as a queue
// manager would read it after a restart.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/objects/object.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"
#include "shell_text.hpp"
#include "vectors.hpp"

namespace imsb::test {

// One command of runmqsc's output: its echo ("     1 : DEFINE ...", continuation lines included) and
// the result lines that follow it, up to the next echo or the closing summary.
struct mqsc_block {
  std::string echo;
  std::vector<std::string> results;
};

inline bool is_echo_start(const std::string& l) {
  std::size_t i = l.find_first_not_of(' ');
  if (i == std::string::npos || i == 0) return false;
  const std::size_t d = i;
  while (i < l.size() && l[i] >= '0' && l[i] <= '9') ++i;
  return i > d && l.compare(i, 2, " :") == 0;
}

inline bool is_echo_continuation(const std::string& l) {
  const std::size_t i = l.find_first_not_of(' ');
  return i != std::string::npos && i > 0 && l[i] == ':';
}

inline bool is_summary(const std::string& l) {
  return contains(l, "MQSC command") && (contains(l, " read") || contains(l, "processed"));
}

inline std::vector<mqsc_block> mqsc_blocks(const std::string& out) {
  std::vector<mqsc_block> blocks;
  bool in_summary = false;
  for (const auto& l : lines_of(out)) {
    if (is_echo_start(l)) {
      blocks.push_back({l, {}});
      in_summary = false;
    } else if (!blocks.empty() && blocks.back().results.empty() && is_echo_continuation(l)) {
      blocks.back().echo += "\n" + l;
    } else if (is_summary(l)) {
      in_summary = true;
    } else if (!blocks.empty() && !in_summary && !l.empty()) {
      blocks.back().results.push_back(l);
    }
  }
  return blocks;
}

// A runmqsc whose standard input is a FIFO that the test keeps open and writes to, line by line, as an
// operator at a terminal would type; its standard output is captured (child_process::wait_for_line),
// its standard error goes to a file.
class live_runmqsc {
 public:
  live_runmqsc(const std::string& fifo, const std::string& err_file, const std::vector<std::string>& args) {
    if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + fifo);
    // O_RDWR does not wait for a reader (Linux), and O_CLOEXEC keeps this end out of every child, so
    // that runmqsc sees the end of its input exactly when close_input() is called.
    fd_ = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("open " + fifo);
    std::string cmd = "exec " + sh_quote(IMSB_RUNMQSC);
    for (const auto& a : args) cmd += " " + sh_quote(a);
    cmd += " <" + sh_quote(fifo) + " 2>" + sh_quote(err_file);
    child_ = child_process("/bin/sh", {"-c", cmd}, output_to::capture());
  }
  live_runmqsc(const live_runmqsc&) = delete;
  live_runmqsc& operator=(const live_runmqsc&) = delete;
  ~live_runmqsc() {
    child_.stop();
    close_input();
  }

  void write(std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = ::write(fd_, text.data(), text.size());
      if (n <= 0) throw std::runtime_error("write to runmqsc's FIFO");
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void close_input() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  child_process& child() { return child_; }
  // The exit code once runmqsc ends within `timeout`, else -1.
  int exit_code(milliseconds timeout) {
    const auto st = child_.wait_exit(timeout);
    return st && WIFEXITED(*st) ? WEXITSTATUS(*st) : -1;
  }

 private:
  int fd_ = -1;
  child_process child_;
};

class qmgr_e2e : public ::testing::Test {
 protected:
  std::string prefix() const { return dir_.file("mqm"); }
  std::string file(std::string_view name) const { return dir_.file(name); }

  // Runs `program args...` through /bin/sh with `input` on standard input and `env` (NAME=value
  // words) in its environment.
  ran run(const std::string& program, const std::vector<std::string>& args, const std::string& input = {},
          const std::string& env = {}) {
    const std::string n = std::to_string(++seq_);
    const std::string in = dir_.file("stdin." + n);
    const std::string out = dir_.file("stdout." + n);
    const std::string err = dir_.file("stderr." + n);
    {
      std::ofstream f(in, std::ios::binary);
      f << input;
    }
    std::string cmd = env.empty() ? "exec " : "exec env " + env + " ";
    cmd += sh_quote(program);
    for (const auto& a : args) cmd += " " + sh_quote(a);
    cmd += " <" + sh_quote(in) + " >" + sh_quote(out) + " 2>" + sh_quote(err);
    ran r;
    r.code = run_program("/bin/sh", {"-c", cmd}, milliseconds(30000));
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  std::vector<std::string> with_prefix(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--prefix", prefix()});
    return args;
  }
  ran crtmqm(const std::string& qm, std::vector<std::string> options = {}) {
    options.push_back(qm);
    return run(IMSB_CRTMQM, with_prefix(std::move(options)));
  }
  ran dltmqm(const std::string& qm) { return run(IMSB_DLTMQM, with_prefix({qm})); }
  ran runmqsc(const std::string& qm, const std::string& script, std::vector<std::string> options = {}) {
    options.push_back(qm);
    return run(IMSB_RUNMQSC, with_prefix(std::move(options)), script);
  }
  ran dspmqfls(std::vector<std::string> args) { return run(IMSB_DSPMQFLS, with_prefix(std::move(args))); }

  // crtmqm that must work (fails the test otherwise).
  void create(const std::string& qm, std::vector<std::string> options = {}) {
    const ran r = crtmqm(qm, std::move(options));
    ASSERT_EQ(r.code, 0) << r.both();
  }
  // runmqsc that must exit with `expect`.
  ran mqsc(const std::string& qm, const std::string& script, int expect = 0) {
    ran r = runmqsc(qm, script);
    EXPECT_EQ(r.code, expect) << script << "\n" << r.both();
    return r;
  }

  qmgr::queue_manager_store store(const std::string& qm) const {
    auto s = qmgr::queue_manager_store::open(prefix(), qm);
    if (!s) throw std::runtime_error("open " + qm + ": " + s.error().to_string());
    return std::move(s).value();
  }
  // The catalog as a (re)starting queue manager reads it.
  objects::object_catalog load(const std::string& qm) const {
    auto c = store(qm).load();
    if (!c) throw std::runtime_error("load " + qm + ": " + c.error().to_string());
    return std::move(c).value();
  }
  std::string catalog_bytes(const std::string& qm) const {
    return read_file(store(qm).catalog_path().string());
  }

 private:
  temp_dir dir_;
  int seq_ = 0;
};

}  // namespace imsb::test
