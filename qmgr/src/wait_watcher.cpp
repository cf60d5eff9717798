// wait_watcher.hpp: poll() over the sockets of waiting gets and a self-pipe.

#include "wait_watcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace imsb::qmgr::detail {

wait_watcher::wait_watcher() {
  if (::pipe2(wake_fd_, O_CLOEXEC | O_NONBLOCK) != 0) {
    wake_fd_[0] = wake_fd_[1] = -1;
    return;  // no watcher: waits end as they did before it (by their interval, a message or a stop)
  }
  thread_ = std::thread([this] { loop(); });
}

wait_watcher::~wait_watcher() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    ending_ = true;
  }
  wake();
  if (thread_.joinable()) thread_.join();
  for (int fd : wake_fd_)
    if (fd >= 0) ::close(fd);
}

wait_watcher::scope wait_watcher::watch(int fd, mqi::connection& c) {
  std::uint64_t id = 0;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    watched_.emplace(id, entry{fd, &c});
  }
  wake();
  return scope(*this, id);
}

void wait_watcher::remove(std::uint64_t id) {
  const std::lock_guard<std::mutex> lock(mu_);  // never while loop() stops this entry's connection
  watched_.erase(id);
}

void wait_watcher::stop_all() {
  const std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, e] : watched_) e.c->stop();
}

void wait_watcher::wake() {
  if (wake_fd_[1] < 0) return;
  const char b = 1;
  (void)!::write(wake_fd_[1], &b, 1);  // a full pipe already wakes the loop
}

void wait_watcher::loop() {
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  for (;;) {
    fds.assign(1, pollfd{wake_fd_[0], POLLIN, 0});
    ids.assign(1, 0);
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (ending_) return;
      for (const auto& [id, e] : watched_) {
        fds.push_back(pollfd{e.fd, POLLIN, 0});
        ids.push_back(id);
      }
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if ((fds[0].revents & POLLIN) != 0) {
      char buf[64];
      while (::read(wake_fd_[0], buf, sizeof buf) > 0) {
      }
    }
    const std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto it = watched_.find(ids[i]);
      if (it == watched_.end()) continue;  // its get ended meanwhile
      char b = 0;
      const ssize_t n = ::recv(fds[i].fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) it->second.c->stop();
      // Ended, broken, or bytes a client may not send during a call: no longer watched either way (the
      // thread reads them after the get, and a bad frame closes the connection).
      if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) watched_.erase(it);
    }
  }
}

}  // namespace imsb::qmgr::detail
