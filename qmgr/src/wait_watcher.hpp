#pragma once
// The sockets of the connections whose call waits inside an MQGET on a server runner (server.cpp). The client
// protocol alternates — one request, then its response — so a socket that becomes readable while its get
// waits has ended (the program stopped its connection, exited, or was killed) or broke: the watcher then
// stops that connection's wait (mqi::connection::stop), so the thread returns at once and the unit of work
// is backed out, rather than when the wait ends or a message comes [D]. One thread per server, asleep in
// epoll_wait() until a watched socket becomes readable: the waiting thread adds its socket to the epoll
// set itself, so a get that waits costs the watcher no wake-up unless its client goes.

#include <cstdint>
#include <map>
#include <thread>

#include "async_consume.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::qmgr::detail {

class wait_watcher {
 public:
  wait_watcher();
  ~wait_watcher();
  wait_watcher(const wait_watcher&) = delete;
  wait_watcher& operator=(const wait_watcher&) = delete;

  // Watches `fd` while the scope lives; `c` (and `wake`) must outlive it. With `wake` (a consumer's
  // dispatcher waiting in wait_for_change): bytes that come meanwhile are the client's wake frame, and
  // wake it; a socket that ended stops `c` as for a get.
  class scope {
   public:
    scope(wait_watcher& w, std::uint64_t id) : w_(&w), id_(id) {}
    scope(scope&& o) noexcept : w_(o.w_), id_(o.id_) { o.w_ = nullptr; }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    scope& operator=(scope&&) = delete;
    ~scope() {
      if (w_ != nullptr) w_->remove(id_);
    }

   private:
    wait_watcher* w_;
    std::uint64_t id_;
  };
  [[nodiscard]] scope watch(int fd, mqi::connection& c, consume_backend* wake = nullptr);

  // Stops the wait of every watched connection (the server is stopping).
  void stop_all();

 private:
  struct entry {
    int fd;
    mqi::connection* c;
    consume_backend* wake;
  };
  void remove(std::uint64_t id);
  void loop();

  sync::mutex mu_;
  std::map<std::uint64_t, entry> watched_ IMSB_GUARDED_BY(mu_);
  std::uint64_t next_id_ IMSB_GUARDED_BY(mu_) = 1;
  int epoll_fd_ = -1;
  int end_fd_ = -1;  // an eventfd in the set: the destructor's way to end loop()
  std::thread thread_;
};

}  // namespace imsb::qmgr::detail
