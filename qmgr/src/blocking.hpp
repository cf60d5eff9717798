#pragma once
// Waits that can last, announced. A thread that serves many connections (the server's runners,
// server.cpp) must not sit in a wait while the other connections' requests go unread, nor learn of the
// wait only by guessing from the request. So the engine marks each wait that can last — a get's wait, a
// consumer's wait for a change, a log force, a checkpoint's — with a blocking_region, and a thread that
// cares installs hooks for itself: the server's runner then hands the sockets to another runner before it
// waits [D] (docs/design/queue-manager.md "Server threads"). Threads without hooks (programs using the
// queue manager in-process) pay a thread-local load.

#include <cstdint>
#include <functional>

#include "imsb/core/result.hpp"

namespace imsb::qmgr {
class recovery_log;
}

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

// A log force the caller takes over. A server runner serves many connections, and a call that waits for
// the log would hand their sockets to another runner, a wake-up and a stand-by per call, where a thread
// per connection had none (bench/RESULTS.md "A log force without a thread"). So for the calls whose
// log force is their last step (MQPUT, MQGET, MQCMIT, MQBACK) the server installs a sink: the engine
// appends the batch, then, instead of waiting, leaves the log, the batch's sequence and the rest of the
// call — settling the batch, which makes it visible or undoes it — in the sink and returns what the call
// returns when the log succeeds. The caller must not answer before recovery_log::when_durable(seq) has
// called back and then rest() has run (once, always: the engine's end waits for it); rest()'s failure is
// the call's outcome instead [D] (docs/design/queue-manager.md "Server threads"). Threads without a sink
// wait as before.
struct force_sink {
  recovery_log* log = nullptr;
  std::uint64_t seq = 0;
  std::function<result<done>()> rest;  // set by the engine when it left the force to the caller
};

// This thread's sink for the call it is making; nullptr: none (the engine waits itself).
force_sink*& thread_force_sink() noexcept;

}  // namespace imsb::qmgr::detail
