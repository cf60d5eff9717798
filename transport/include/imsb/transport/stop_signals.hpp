// stop_signals: SIGINT and SIGTERM blocked in the calling thread (and so in every thread it starts after)
// and read through a signalfd, so that a program's stop is handled where it chooses (imsbridge's quiesce,
// imsbench's early end) rather than by the default action. The old mask comes back at the end, so that an
// in-process caller (tests) is left as it was. Without a signalfd the mask is given back at once: the
// signals then end the program as they always did (fd() < 0).
#pragma once

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace imsb::transport {

class stop_signals {
 public:
  stop_signals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd_ < 0) pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  ~stop_signals() {
    if (fd_ < 0) return;
    // A signal that came after the program had begun its stop is answered already (it is stopping): read
    // it here, or unblocking would deliver it and end the process with 128+signal after its clean stop.
    while (take() != 0) {
    }
    ::close(fd_);
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  stop_signals(const stop_signals&) = delete;
  stop_signals& operator=(const stop_signals&) = delete;
  int fd() const noexcept { return fd_; }
  // The signal read, 0 when none is pending (or there is no signalfd).
  int take() const {
    if (fd_ < 0) return 0;
    signalfd_siginfo info{};
    const ssize_t n = ::read(fd_, &info, sizeof info);
    return n == static_cast<ssize_t>(sizeof info) ? static_cast<int>(info.ssi_signo) : 0;
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
  int fd_ = -1;
};

}  // namespace imsb::transport
