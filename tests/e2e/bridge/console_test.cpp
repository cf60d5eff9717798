// bridge.console=yes with standard input a terminal in whose background imsbridge runs, as after
// "imsbridge --bridge.console=yes &" in a shell: the bridge runs on, says IMB2066I once, and reads the
// terminal only when it is brought to the foreground. Before, its first read of the terminal stopped the
// whole bridge (SIGTTIN), control socket included. A pseudo-terminal made here plays the terminal; a
// session leader forked here plays the shell.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::test {
namespace {

// The state letter of /proc/PID/stat ('S' sleeping, 'T' stopped ...), or '?'.
char process_state(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto close = all.rfind(')');
  return close != std::string::npos && close + 2 < all.size() ? all[close + 2] : '?';
}

bool wait_log(const std::string& path, std::string_view id_or_text, std::size_t count = 1) {
  const std::string text(id_or_text);
  return bridge_rig::wait_text(
      [&] {
        const std::string t = read_file(path);
        std::size_t n = 0;
        for (auto at = t.find(text); at != std::string::npos; at = t.find(text, at + 1)) ++n;
        return n >= count ? text : std::string();
      },
      text, milliseconds(20000));
}

TEST(console, in_the_background_the_bridge_runs_on_and_reads_once_in_the_foreground) {
  temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("run").c_str(), 0700), 0);
  const std::string prefix = dir.file("mqm"), log = dir.file("imsbridge.log"), sock = dir.file("bridge.sock");
  const std::string env_run = "IMSBRIDGE_RUNTIME_DIR=" + dir.file("run");
  ASSERT_EQ(run_program("/bin/sh",
                        {"-c", env_run + " " + sh_quote(IMSB_CRTMQM) + " --prefix " + sh_quote(prefix) +
                                   " QMT >/dev/null"},
                        milliseconds(30000)),
            0);

  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const std::string slave = ::ptsname(master);
  int to_leader[2], from_leader[2];
  ASSERT_EQ(::pipe(to_leader), 0);
  ASSERT_EQ(::pipe(from_leader), 0);

  // Everything the children use is made before fork: after it they only call async-signal-safe functions.
  std::vector<std::string> args{IMSB_IMSBRIDGE,
                                "--qmgr.connect=local:QMT",
                                "--qmgr.prefix=" + prefix,
                                "--xcf.url=tcp://127.0.0.1:1",  // no XCF: the bridge runs on without it
                                std::string("--otmacon.member=") + bridge_member,
                                "--bridge.control-socket=" + sock,
                                "--bridge.console=yes"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string env_entry = env_run;
  char* envp[] = {env_entry.data(), nullptr};

  const pid_t leader = ::fork();
  ASSERT_GE(leader, 0);
  if (leader == 0) {
    // The "shell": a new session whose controlling terminal is the pseudo-terminal, its own process
    // group in the foreground; the bridge in a process group of its own, so in the background.
    ::setsid();
    const int tty = ::open(slave.c_str(), O_RDWR);
    if (tty < 0 || ::ioctl(tty, TIOCSCTTY, 0) != 0) ::_exit(120);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, 1);  // never the test's own output: ctest would wait for a child left running
    ::dup2(out, 2);
    const pid_t bridge = ::fork();
    if (bridge == 0) {
      ::setpgid(0, 0);
      ::dup2(tty, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execve(argv[0], argv.data(), envp);
      ::_exit(127);
    }
    ::setpgid(bridge, bridge);
    (void)!::write(from_leader[1], &bridge, sizeof bridge);
    char c = 0;
    // 'f': bring the bridge to the foreground (the shell's fg).
    if (::read(to_leader[0], &c, 1) == 1 && c == 'f') ::tcsetpgrp(tty, bridge);
    int status = 0;
    ::waitpid(bridge, &status, 0);
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  ::close(to_leader[0]);
  ::close(from_leader[1]);
  pid_t bridge = 0;
  ASSERT_EQ(::read(from_leader[0], &bridge, sizeof bridge), static_cast<ssize_t>(sizeof bridge));
  // Ends the bridge (SIGTERM, or SIGKILL when a failed assertion returns early) and reaps the leader.
  int status = -1;
  auto stop = [&](int sig) {
    if (status != -1) return status;
    ::kill(bridge, sig);
    ::kill(bridge, SIGCONT);
    (void)!::write(to_leader[1], "q", 1);
    ::waitpid(leader, &status, 0);
    ::close(master);
    ::close(to_leader[1]);
    ::close(from_leader[0]);
    return status;
  };
  struct guard {
    std::function<int(int)> stop;
    ~guard() { stop(SIGKILL); }
  } ended{stop};

  ASSERT_TRUE(wait_log(log, imsb::msg::IMB2051I)) << read_file(log);
  EXPECT_TRUE(wait_log(log, imsb::msg::IMB2066I)) << read_file(log);
  // A line typed at the terminal meanwhile (for the shell, which here does not read it): the bridge does
  // not read it, so it is not stopped by SIGTTIN: its state, and its control socket answers.
  const std::string typed = "DISPLAY PARTNER\n";
  ASSERT_EQ(::write(master, typed.data(), typed.size()), static_cast<ssize_t>(typed.size()));
  std::this_thread::sleep_for(milliseconds(600));
  EXPECT_NE(process_state(bridge), 'T') << read_file(log);
  const auto a = bridge_rig::socket_command(sock, "DISPLAY PARTNER");
  EXPECT_TRUE(!a.empty() && contains(a.front(), imsb::msg::IMB2030I)) << joined(a) << read_file(log);

  // In the foreground it reads the terminal: the line left there, then one typed now, are answered in
  // its log (two answers more than the log had: the socket's may be logged too).
  std::size_t before = 0;
  {
    const std::string t = read_file(log);
    for (auto at = t.find(imsb::msg::IMB2030I); at != std::string::npos;
         at = t.find(imsb::msg::IMB2030I, at + 1))
      ++before;
  }
  ASSERT_EQ(::write(to_leader[1], "f", 1), 1);
  EXPECT_TRUE(wait_log(log, imsb::msg::IMB2030I, before + 1)) << read_file(log);
  ASSERT_EQ(::write(master, typed.data(), typed.size()), static_cast<ssize_t>(typed.size()));
  EXPECT_TRUE(wait_log(log, imsb::msg::IMB2030I, before + 2)) << read_file(log);

  stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << read_file(log);
  EXPECT_TRUE(contains(read_file(log), imsb::msg::IMB2053I)) << read_file(log);
}

}  // namespace
}  // namespace imsb::test
