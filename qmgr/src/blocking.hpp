#pragma once
// Waits that can last, announced. A thread that serves many connections (the server's runners,
// server.cpp) must not sit in a wait while the other connections' requests go unread, nor learn of the
// wait only by guessing from the request. So the engine marks each wait that can last — a get's wait, a
// consumer's wait for a change, a log force, a checkpoint's — with a blocking_region, and a thread that
// cares installs hooks for itself: the server's runner then hands the sockets to another runner before it
// waits [D] (docs/design/queue-manager.md "Server threads"). Threads without hooks (programs using the
// queue manager in-process) pay a thread-local load.

namespace imsb::qmgr::detail {

struct blocking_hooks {
  void (*enter)(void* context) noexcept = nullptr;
  void (*leave)(void* context) noexcept = nullptr;
  void* context = nullptr;
};

// This thread's hooks; nullptr: none.
blocking_hooks*& thread_blocking_hooks() noexcept;
// How deep this thread is in blocking regions: they nest (an MQSC call the server marks waits for a log
// force the log marks), and only the outermost calls the hooks.
int& thread_blocking_depth() noexcept;

class blocking_region {
 public:
  blocking_region() noexcept : hooks_(thread_blocking_hooks()) {
    if (hooks_ != nullptr && thread_blocking_depth()++ == 0) hooks_->enter(hooks_->context);
  }
  ~blocking_region() {
    if (hooks_ != nullptr && --thread_blocking_depth() == 0) hooks_->leave(hooks_->context);
  }
  blocking_region(const blocking_region&) = delete;
  blocking_region& operator=(const blocking_region&) = delete;

 private:
  blocking_hooks* hooks_;
};

}  // namespace imsb::qmgr::detail
