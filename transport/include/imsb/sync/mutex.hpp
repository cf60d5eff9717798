#pragma once
// A mutex, its locks and a condition variable that clang's thread-safety analysis can check
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html): libstdc++'s std::mutex carries no capability
// attribute, so data marked IMSB_GUARDED_BY(mu) would never be checked against a std::lock_guard.
// docs/design/concurrency.md, "Checking it" [D]. The wrappers add nothing at run time: each holds the
// std:: object and forwards to it; under other compilers the attributes expand to nothing.

#include <cassert>
#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define IMSB_TSA(x) __attribute__((x))
#else
#define IMSB_TSA(x)
#endif

#define IMSB_CAPABILITY(name) IMSB_TSA(capability(name))
#define IMSB_SCOPED_CAPABILITY IMSB_TSA(scoped_lockable)
#define IMSB_GUARDED_BY(m) IMSB_TSA(guarded_by(m))
#define IMSB_PT_GUARDED_BY(m) IMSB_TSA(pt_guarded_by(m))
#define IMSB_REQUIRES(...) IMSB_TSA(requires_capability(__VA_ARGS__))
#define IMSB_ACQUIRE(...) IMSB_TSA(acquire_capability(__VA_ARGS__))
#define IMSB_RELEASE(...) IMSB_TSA(release_capability(__VA_ARGS__))
#define IMSB_TRY_ACQUIRE(...) IMSB_TSA(try_acquire_capability(__VA_ARGS__))
#define IMSB_EXCLUDES(...) IMSB_TSA(locks_excluded(__VA_ARGS__))
#define IMSB_ASSERT_CAPABILITY(m) IMSB_TSA(assert_capability(m))
#define IMSB_RETURN_CAPABILITY(m) IMSB_TSA(lock_returned(m))
#define IMSB_ACQUIRED_BEFORE(...) IMSB_TSA(acquired_before(__VA_ARGS__))
// For a function whose locking the analysis cannot follow (a lock handed over to a callee, released
// on some paths only): say why beside each use.
#define IMSB_NO_THREAD_SAFETY_ANALYSIS IMSB_TSA(no_thread_safety_analysis)

namespace imsb::sync {

class condition_variable;

class IMSB_CAPABILITY("mutex") mutex {
 public:
  mutex() = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  void lock() IMSB_ACQUIRE() { m_.lock(); }
  void unlock() IMSB_RELEASE() { m_.unlock(); }
  bool try_lock() IMSB_TRY_ACQUIRE(true) { return m_.try_lock(); }
  // Tells the analysis that the caller holds this mutex where it cannot see it (a callback run under it).
  void assert_held() const IMSB_ASSERT_CAPABILITY(this) {}

 private:
  friend class unique_lock;
  std::mutex m_;
};

// std::lock_guard.
class IMSB_SCOPED_CAPABILITY lock_guard {
 public:
  explicit lock_guard(mutex& m) IMSB_ACQUIRE(m) : m_(m) { m_.lock(); }
  ~lock_guard() IMSB_RELEASE() { m_.unlock(); }
  lock_guard(const lock_guard&) = delete;
  lock_guard& operator=(const lock_guard&) = delete;

 private:
  mutex& m_;
};

// std::unique_lock over one mutex for its whole life: locked at construction (or deferred), unlocked and
// locked again at will, released at destruction if held.
// A function handed the lock by reference unlocks and relocks it with unlock(m) / lock(m), naming the
// mutex: clang 14's analysis cannot tell which mutex a unique_lock parameter holds, so the function says
// IMSB_REQUIRES(m) (or IMSB_RELEASE(m) when it returns with the lock released) and the calls name m.
class IMSB_SCOPED_CAPABILITY unique_lock {
 public:
  explicit unique_lock(mutex& m) IMSB_ACQUIRE(m) : l_(m.m_), m_(&m) {}
  unique_lock(mutex& m, std::defer_lock_t) IMSB_EXCLUDES(m) : l_(m.m_, std::defer_lock), m_(&m) {}
  ~unique_lock() IMSB_RELEASE() {}
  unique_lock(const unique_lock&) = delete;
  unique_lock& operator=(const unique_lock&) = delete;
  void lock() IMSB_ACQUIRE() { l_.lock(); }
  void unlock() IMSB_RELEASE() { l_.unlock(); }
  bool owns_lock() const noexcept { return l_.owns_lock(); }
  void unlock(mutex& m) IMSB_RELEASE(m) IMSB_NO_THREAD_SAFETY_ANALYSIS {
    assert(&m == m_);
    (void)m;
    l_.unlock();
  }
  void lock(mutex& m) IMSB_ACQUIRE(m) IMSB_NO_THREAD_SAFETY_ANALYSIS {
    assert(&m == m_);
    (void)m;
    l_.lock();
  }

 private:
  friend class condition_variable;
  std::unique_lock<std::mutex> l_;
  [[maybe_unused]] mutex* m_;  // the one mutex it manages: unlock(m) and lock(m) check it
};

// std::condition_variable over sync::unique_lock. The predicate forms are left out on purpose: the
// analysis checks a lambda as a function of its own, holding nothing, so a predicate reading guarded data
// would have to be exempted; write `while (!ready) cv.wait(lock);` instead, which it checks.
class condition_variable {
 public:
  void notify_one() noexcept { cv_.notify_one(); }
  void notify_all() noexcept { cv_.notify_all(); }
  void wait(unique_lock& l) { cv_.wait(l.l_); }
  template <class Clock, class Duration>
  std::cv_status wait_until(unique_lock& l, const std::chrono::time_point<Clock, Duration>& t) {
    return cv_.wait_until(l.l_, t);
  }
  template <class Rep, class Period>
  std::cv_status wait_for(unique_lock& l, const std::chrono::duration<Rep, Period>& d) {
    return cv_.wait_for(l.l_, d);
  }

 private:
  std::condition_variable cv_;
};

}  // namespace imsb::sync
