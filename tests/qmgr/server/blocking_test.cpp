// qmgr/src/blocking.hpp: the hooks a thread installs see each outermost wait once, however deep the
// regions nest (the server's runner counts waits; a nested region counted twice would make it believe
// more runners wait than serve).

#include "blocking.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace imsb::qmgr::detail {
namespace {

struct counts {
  int enters = 0;
  int leaves = 0;
  int depth_seen = 0;  // enters - leaves, at most
};

void on_enter(void* c) noexcept {
  auto& n = *static_cast<counts*>(c);
  ++n.enters;
  if (n.enters - n.leaves > n.depth_seen) n.depth_seen = n.enters - n.leaves;
}
void on_leave(void* c) noexcept { ++static_cast<counts*>(c)->leaves; }

TEST(blocking_region, nested_regions_call_the_hooks_once) {
  counts n;
  blocking_hooks hooks{&on_enter, &on_leave, &n};
  thread_blocking_hooks() = &hooks;
  {
    blocking_region outer;
    EXPECT_EQ(n.enters, 1);
    {
      blocking_region inner;
      blocking_region innermost;
      EXPECT_EQ(n.enters, 1);
    }
    EXPECT_EQ(n.leaves, 0);
  }
  EXPECT_EQ(n.enters, 1);
  EXPECT_EQ(n.leaves, 1);
  { blocking_region again; }
  EXPECT_EQ(n.enters, 2);
  EXPECT_EQ(n.leaves, 2);
  EXPECT_EQ(n.depth_seen, 1);
  thread_blocking_hooks() = nullptr;
}

TEST(blocking_region, a_thread_without_hooks_calls_nothing) {
  counts n;
  blocking_hooks hooks{&on_enter, &on_leave, &n};
  thread_blocking_hooks() = &hooks;
  std::thread other([] {
    blocking_region r;  // this thread installed none
    EXPECT_EQ(thread_blocking_depth(), 0);
  });
  other.join();
  EXPECT_EQ(n.enters, 0);
  thread_blocking_hooks() = nullptr;
}

}  // namespace
}  // namespace imsb::qmgr::detail
