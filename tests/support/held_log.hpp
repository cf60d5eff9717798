#pragma once
// The recovery log's writer held before its next round of writes, until released: a test makes log forces
// wait as long as it likes (qmgr/include/imsb/qmgr/recovery_log.hpp detail::before_log_write). One at a
// time: it owns the hook while it lives.

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "imsb/qmgr/recovery_log.hpp"

namespace imsb::test {

struct held_log {
  static inline std::mutex mu;
  static inline std::condition_variable cv;
  static inline bool holding = false;
  static inline int held = 0;  // rounds the writer is held in now
  held_log() {
    std::lock_guard<std::mutex> guard(mu);
    holding = true;
    held = 0;
    qmgr::detail::before_log_write = [] {
      std::unique_lock<std::mutex> lock(mu);
      ++held;
      cv.notify_all();
      cv.wait(lock, [] { return !holding; });
      --held;
      cv.notify_all();  // (the destructor waits for the writer to be out)
    };
  }
  held_log(const held_log&) = delete;
  held_log& operator=(const held_log&) = delete;
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu);
      holding = false;
    }
    cv.notify_all();
  }
  // Whether the writer is held (within 10 s).
  bool writer_held() {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [] { return held > 0; });
  }
  ~held_log() {
    release();
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [] { return held == 0; });
    qmgr::detail::before_log_write = nullptr;
  }
};

}  // namespace imsb::test
