// The in-memory sysplex with more than one thread, and with sysplexes run from each other's handlers
// (memory_xcf.hpp): leave() and a member's end wait for its handler call in progress; a refusal's resume
// belongs to the handler that heard of it; nested run() of several sysplexes does not deadlock.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "imsb/transport/memory_xcf.hpp"
#include "memory_test_support.hpp"

namespace imsb::transport {
namespace {

using test::join;
using test::node;
using test::request;
using test::text;

namespace codes = xcf::codes;
using namespace std::chrono_literals;

// Waits (bounded, so that a bug fails the test rather than hanging it) until the flag is set.
bool wait_until(const std::atomic<bool>& flag, std::chrono::milliseconds at_most = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + at_most;
  while (!flag && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  return flag;
}

// A message exit that does not return until the test releases it.
class blocking_handler : public recording_handler {
 public:
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  void on_message(xcf::message msg) override {
    started = true;
    wait_until(release);
    recording_handler::on_message(std::move(msg));
    finished = true;
  }
};

enum class ending { leave, destroy };

// run() on one thread is inside IMS's message exit when another thread ends IMS: that must not return
// before the exit has, or the caller could destroy a handler that is still running.
void ending_waits_for_the_call_in_progress(ending how) {
  memory_sysplex plex;
  blocking_handler ims_handler;
  auto ims = plex.join(request("GRP", "IMS1"), ims_handler);
  auto mq = join(plex, request("GRP", "MQ1"));
  plex.run();
  ASSERT_EQ(mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("x")), codes::ok);
  std::thread runner([&] { plex.run(); });
  ASSERT_TRUE(wait_until(ims_handler.started));
  std::atomic<bool> ended{false};
  std::thread ender([&] {
    if (how == ending::leave) {
      EXPECT_EQ(ims.joined->leave(), codes::ok);
    } else {
      ims.joined.reset();
    }
    ended = true;
  });
  // Still inside the handler: the ending must not have returned.
  EXPECT_FALSE(wait_until(ended, 200ms)) << "returned while the handler was still running";
  ims_handler.release = true;
  ender.join();
  runner.join();
  EXPECT_TRUE(ended);
  EXPECT_TRUE(ims_handler.finished);
  EXPECT_EQ(ims_handler.messages.size(), 1u);
}

TEST(MemoryThreads, LeaveWaitsForTheMembersHandlerCallInProgress) {
  ending_waits_for_the_call_in_progress(ending::leave);
}

TEST(MemoryThreads, DestroyingTheMemberWaitsForItsHandlerCallInProgress) {
  ending_waits_for_the_call_in_progress(ending::destroy);
}

// From its own exit, on the dispatching thread, a member may leave or end at once (the call in progress
// is the caller): no wait, no deadlock.
TEST(MemoryThreads, LeaveAndEndFromTheMembersOwnHandlerDoNotWait) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  plex.run();
  ims->handler.after_message = [&](const xcf::message&) { EXPECT_EQ(ims->member().leave(), codes::ok); };
  mq->handler.after_message = [&](const xcf::message&) { mq->result.joined.reset(); };
  ASSERT_EQ(mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("bye")), codes::ok);
  ASSERT_EQ(ims->member().send(xcf::target::by_name("MQ1"), {}, bytes_view::of("end")), codes::ok);
  plex.run();
  EXPECT_EQ(ims->handler.messages.size(), 1u);
  EXPECT_EQ(mq->handler.messages.size(), 1u);
  EXPECT_FALSE(mq->result.joined);
  EXPECT_TRUE(plex.members("GRP").empty());
}

// A member's end on another thread does not wait for a call of some other member's handler.
TEST(MemoryThreads, EndingAMemberDoesNotWaitForAnotherMembersCall) {
  memory_sysplex plex;
  blocking_handler ims_handler;
  auto ims = plex.join(request("GRP", "IMS1"), ims_handler);
  auto mq = join(plex, request("GRP", "MQ1"));
  plex.run();
  ASSERT_EQ(mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("x")), codes::ok);
  std::thread runner([&] { plex.run(); });
  ASSERT_TRUE(wait_until(ims_handler.started));
  std::atomic<bool> ended{false};
  std::thread ender([&] {
    EXPECT_EQ(mq->member().leave(), codes::ok);
    mq->result.joined.reset();
    ended = true;
  });
  EXPECT_TRUE(wait_until(ended));  // while IMS's handler is still blocked
  EXPECT_FALSE(ims_handler.finished);
  ims_handler.release = true;
  ender.join();
  runner.join();
  EXPECT_TRUE(ims_handler.finished);
}

// README "Send": after a 12/0 the stream stays refused until the sender has heard of the refusal. A
// send from another thread while the report is still running was decided before the sender heard of
// it: it must be refused too, or it would overtake the messages the handler is re-sending.
TEST(MemoryThreads, OnlyTheReportingHandlerResumesWhileTheReportRuns) {
  memory_sysplex_options o;
  o.target_buffer = 42;  // one message of 10 bytes and its control area
  memory_sysplex plex(o);
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  plex.run();
  auto send = [&](const std::string& data) {
    return mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of(data));
  };
  ASSERT_EQ(send("m1........"), codes::ok);  // fills the buffer
  ASSERT_EQ(send("m2........"), codes::ok);  // refused: 12/0 on the way
  ASSERT_EQ(plex.run_one().messages, 1u);    // m1 delivered, the buffer is free again

  xcf::return_code other_thread = codes::injected_failure;
  mq->handler.after_send_done = [&](const recording_handler::send_result& r) {
    if (r.code != codes::resource_shortage || mq->handler.send_results.size() != 1) return;
    // Another thread of the sender sends while the handler is still hearing of the refusal ...
    std::thread other([&] { other_thread = send("new......."); });
    other.join();
    // ... and then the handler re-sends from the refused message.
    EXPECT_EQ(send("m2........"), codes::ok);
  };
  plex.run();
  EXPECT_EQ(other_thread, codes::ok);  // send() itself accepts; the refusal is reported
  ASSERT_EQ(ims->handler.messages.size(), 2u);
  EXPECT_EQ(text(ims->handler.messages[1]), "m2........");
  ASSERT_EQ(mq->handler.send_results.size(), 2u);
  EXPECT_EQ(mq->handler.send_results[1].code, codes::resource_shortage);  // "new": refused, not ahead

  // The refusal of "new" is stale (sent before the re-send of m2 resumed the stream): the stream is
  // open, and the sender's next message goes through.
  mq->handler.after_send_done = nullptr;
  ASSERT_EQ(send("m3........"), codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.messages.size(), 3u);
  EXPECT_EQ(text(ims->handler.messages[2]), "m3........");
}

// When nobody re-sends from inside the report, the stream resumes with the sender's next send after
// the report has returned, whichever thread makes it.
TEST(MemoryThreads, AnyThreadResumesOnceTheReportHasReturned) {
  memory_sysplex_options o;
  o.target_buffer = 42;
  memory_sysplex plex(o);
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  plex.run();
  auto send = [&](const std::string& data) {
    return mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of(data));
  };
  ASSERT_EQ(send("m1........"), codes::ok);
  ASSERT_EQ(send("m2........"), codes::ok);  // refused
  plex.run();
  ASSERT_EQ(mq->handler.send_results.size(), 1u);
  std::thread other([&] { EXPECT_EQ(send("m2........"), codes::ok); });
  other.join();
  plex.run();
  ASSERT_EQ(ims->handler.messages.size(), 2u);
  EXPECT_EQ(text(ims->handler.messages[1]), "m2........");
  EXPECT_EQ(mq->handler.send_results.size(), 1u);
}

// A's handler runs B, whose handler runs A: the inner A.run() does nothing (A is already being
// dispatched on this thread) instead of deadlocking on A's dispatch lock.
TEST(MemoryThreads, NestedRunsOfSeveralSysplexesDoNotDeadlock) {
  std::promise<std::vector<std::size_t>> result;
  auto finished = result.get_future();
  std::thread worker([&result] {
    memory_sysplex a, b;
    auto a1 = join(a, request("G", "A1"));
    auto a2 = join(a, request("G", "A2"));
    auto b1 = join(b, request("G", "B1"));
    auto b2 = join(b, request("G", "B2"));
    a.run();
    b.run();
    std::size_t inner_a = 99;
    b2->handler.after_message = [&](const xcf::message&) {
      inner_a = a.run().total();
      // What the inner handler causes in A is delivered by the outer A.run().
      EXPECT_EQ(b2->member().send(xcf::target::by_name("B1"), {}, bytes_view::of("b")), codes::ok);
      EXPECT_EQ(a1->member().send(xcf::target::by_name("A2"), {}, bytes_view::of("late")), codes::ok);
    };
    EXPECT_EQ(a1->member().send(xcf::target::by_name("A2"), {}, bytes_view::of("x")), codes::ok);
    EXPECT_EQ(b1->member().send(xcf::target::by_name("B2"), {}, bytes_view::of("y")), codes::ok);
    a2->handler.after_message = [&, first = true](const xcf::message&) mutable {
      if (first) b.run();
      first = false;
    };
    const std::size_t outer = a.run().messages;
    result.set_value({inner_a, outer, a2->handler.messages.size(), b1->handler.messages.size()});
  });
  if (finished.wait_for(30s) != std::future_status::ready) {
    worker.detach();  // deadlocked: it can neither be joined nor ended
    FAIL() << "nested run() deadlocked";
  }
  worker.join();
  const std::vector<std::size_t> counts = finished.get();
  EXPECT_EQ(counts[0], 0u);  // the inner A.run() did nothing
  EXPECT_EQ(counts[1], 2u);  // the outer one delivered "x" and then "late"
  EXPECT_EQ(counts[2], 2u);
  EXPECT_EQ(counts[3], 1u);  // B1 got "b" from the inner B.run()
}

}  // namespace
}  // namespace imsb::transport
