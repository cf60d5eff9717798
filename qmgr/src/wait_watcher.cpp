// wait_watcher.hpp: an epoll set of the sockets of waiting gets, and an eventfd that ends the loop.

#include "wait_watcher.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace imsb::qmgr::detail {

namespace {
constexpr std::uint64_t end_id = 0;  // the eventfd's id in the set; watched ids start at 1
}

wait_watcher::wait_watcher() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  end_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = end_id;
  if (epoll_fd_ < 0 || end_fd_ < 0 || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, end_fd_, &ev) != 0) {
    // No watcher: waits end as they did before it (by their interval, a message or a stop).
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (end_fd_ >= 0) ::close(end_fd_);
    epoll_fd_ = end_fd_ = -1;
    return;
  }
  thread_ = std::thread([this] { loop(); });
}

wait_watcher::~wait_watcher() {
  if (end_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!::write(end_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (end_fd_ >= 0) ::close(end_fd_);
}

wait_watcher::scope wait_watcher::watch(int fd, mqi::connection& c, consume_backend* wake) {
  const sync::lock_guard lock(mu_);
  const std::uint64_t id = next_id_++;
  watched_.emplace(id, entry{fd, &c, wake});
  if (epoll_fd_ >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;  // one report per wait, then the entry goes
    ev.data.u64 = id;
    (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
  return scope(*this, id);
}

void wait_watcher::remove(std::uint64_t id) {
  const sync::lock_guard lock(mu_);  // never while loop() stops this entry's connection
  auto it = watched_.find(id);
  if (it == watched_.end()) return;
  if (epoll_fd_ >= 0) (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->second.fd, nullptr);
  watched_.erase(it);
}

void wait_watcher::stop_all() {
  const sync::lock_guard lock(mu_);
  for (auto& [id, e] : watched_) e.c->stop();
}

void wait_watcher::loop() {
  epoll_event events[16];
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events, 16, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    const sync::lock_guard lock(mu_);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t id = events[i].data.u64;
      if (id == end_id) return;
      auto it = watched_.find(id);
      if (it == watched_.end()) continue;  // its get ended meanwhile
      char b = 0;
      const ssize_t got = ::recv(it->second.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
      const bool gone = got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
      if (gone) it->second.c->stop();
      if (got > 0 && it->second.wake != nullptr) it->second.wake->wake();
      // Ended, broken, or bytes a client may not send during a call (the thread reads them after the
      // get, and a bad frame closes the connection): reported once (EPOLLONESHOT), no longer watched.
      if (gone || got > 0) {
        (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->second.fd, nullptr);
        watched_.erase(it);
      } else {
        epoll_event ev{};  // a spurious report: watch on
        ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
        ev.data.u64 = id;
        (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, it->second.fd, &ev);
      }
    }
  }
}

}  // namespace imsb::qmgr::detail
