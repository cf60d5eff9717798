// blocking.hpp: each thread's hooks.

#include "blocking.hpp"

namespace imsb::qmgr::detail {

blocking_hooks*& thread_blocking_hooks() noexcept {
  static thread_local blocking_hooks* hooks = nullptr;
  return hooks;
}

force_sink*& thread_force_sink() noexcept {
  static thread_local force_sink* sink = nullptr;
  return sink;
}

int& thread_blocking_depth() noexcept {
  static thread_local int depth = 0;
  return depth;
}

}  // namespace imsb::qmgr::detail
