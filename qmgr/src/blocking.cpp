// blocking.hpp: each thread's hooks.

#include "blocking.hpp"

namespace imsb::qmgr::detail {

blocking_hooks*& thread_blocking_hooks() noexcept {
  static thread_local blocking_hooks* hooks = nullptr;
  return hooks;
}

}  // namespace imsb::qmgr::detail
