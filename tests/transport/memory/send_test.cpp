// IXCMSGOX on the in-memory sysplex: addressing, refusals, ordering, explicit delivery, sends from
// handlers and the resource-shortage rule ([C: XCF-MSGO], transport/README.md "Send" [D]).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
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
using test::texts;

namespace codes = xcf::codes;
using std::chrono::milliseconds;

xcf::send_options on_stream(std::uint16_t stream, bool ordered = true, bool ack = false) {
  xcf::send_options o;
  o.stream = stream;
  o.ordered = ordered;
  o.ack = ack;
  return o;
}

// IMS and an MQ queue manager in one group, join events delivered and forgotten.
struct pair_of_members : ::testing::Test {
  memory_sysplex plex;
  std::unique_ptr<node> ims;
  std::unique_ptr<node> mq;
  explicit pair_of_members(memory_sysplex_options o = {}) : plex(std::move(o)) {}
  void SetUp() override {
    ims = join(plex, request("OTMAGRP", "IMS1"));
    mq = join(plex, request("OTMAGRP", "MQ1"));
    plex.run();
    ims->handler.clear();
    mq->handler.clear();
  }
  xcf::return_code send(node& from, const std::string& to, const std::string& data, xcf::send_options o = {},
                        std::uint64_t* id = nullptr) {
    return from.member().send(xcf::target::by_name(to), {}, bytes_view::of(data), o, id);
  }
};

TEST_F(pair_of_members, NothingIsDeliveredBeforeRunAndRunCountsWhatItDelivered) {
  ASSERT_EQ(send(*mq, "IMS1", "one"), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", "two"), codes::ok);
  EXPECT_TRUE(ims->handler.messages.empty());
  EXPECT_EQ(plex.pending(), 2u);

  delivery_counts one = plex.run_one();
  EXPECT_EQ(one.messages, 1u);
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{"one"}));
  delivery_counts rest = plex.run();
  EXPECT_EQ(rest.messages, 1u);
  EXPECT_EQ(rest.total(), 1u);
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(plex.run().total(), 0u);
  EXPECT_EQ(plex.run_one().total(), 0u);
  EXPECT_EQ(plex.pending(), 0u);
}

TEST_F(pair_of_members, TheMessageCarriesSourceStreamControlAndData) {
  xcf::control_area mci{};
  for (std::size_t i = 0; i < mci.size(); ++i) mci[i] = static_cast<std::uint8_t>(0xC0 + i);
  const bytes data = {0x00, 0x01, 0xFF, 0x40};
  ASSERT_EQ(mq->member().send(xcf::target::by_name("IMS1"), mci, data, on_stream(7, false)), codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.messages.size(), 1u);
  const xcf::message& m = ims->handler.messages[0];
  EXPECT_EQ(m.source_name, "MQ1");
  EXPECT_EQ(m.source_token, mq->member().token());
  EXPECT_EQ(m.stream, 7u);
  EXPECT_FALSE(m.ordered);
  EXPECT_EQ(m.control, mci);
  EXPECT_EQ(m.data, data);
  EXPECT_TRUE(mq->handler.send_results.empty());  // no ack asked, no refusal

  const auto wire = plex.traffic();
  ASSERT_EQ(wire.size(), 2u);
  EXPECT_EQ(wire[0].kind, wire_record::what::accepted);
  EXPECT_EQ(wire[1].kind, wire_record::what::delivered);
  for (const auto& w : wire) {
    EXPECT_EQ(w.group, "OTMAGRP");
    EXPECT_EQ(w.source, "MQ1");
    EXPECT_EQ(w.target, "IMS1");
    EXPECT_EQ(w.stream, 7u);
    EXPECT_EQ(w.control, mci);
    EXPECT_EQ(w.size, 4u);
  }
  plex.clear_traffic();
  EXPECT_TRUE(plex.traffic().empty());
}

TEST_F(pair_of_members, SendByToken) {
  ASSERT_EQ(mq->member().send(xcf::target::by_token(ims->member().token()), {}, bytes_view::of("tok")),
            codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.messages.size(), 1u);
  EXPECT_EQ(text(ims->handler.messages[0]), "tok");

  // A token names one join: after IMS re-joins, the old token reaches nobody.
  const xcf::member_token old_token = ims->member().token();
  ASSERT_EQ(ims->member().leave(), codes::ok);
  auto again = join(plex, request("OTMAGRP", "IMS1"));
  EXPECT_EQ(mq->member().send(xcf::target::by_token(old_token), {}, {}), codes::not_active);
  EXPECT_EQ(mq->member().send(xcf::target::by_token(again->member().token()), {}, {}), codes::ok);
}

// A target name is an XCF member name as it is [C: XCF-NAMES2]: padded, lowercase or with other
// characters it names nobody, and the send is refused 8/14 as by the TCP client, not 8/4.
TEST_F(pair_of_members, TargetNameBreakingXcfRulesIs8_14) {
  for (const std::string bad : {"IMS1    ", " IMS1", "ims1", "ims-1", "IMS.1", "M1234567890123456"}) {
    EXPECT_EQ(send(*mq, bad, "x"), codes::bad_name) << "'" << bad << "'";
  }
  const auto wire = plex.traffic();
  ASSERT_EQ(wire.size(), 6u);
  for (const auto& w : wire) {
    EXPECT_EQ(w.kind, wire_record::what::refused);
    EXPECT_EQ(w.code, codes::bad_name);
  }
  // XCF's own rules, not the bridge's: # and a leading digit name a member.
  auto odd = join(plex, request("OTMAGRP", "1M#"));
  EXPECT_EQ(send(*mq, "1M#", "x"), codes::ok);
  plex.run();
  EXPECT_TRUE(ims->handler.messages.empty());
  ASSERT_EQ(odd->handler.messages.size(), 1u);
}

TEST_F(pair_of_members, SendToAMemberNotActiveIs8_4) {
  EXPECT_EQ(send(*mq, "NOBODY", "x"), codes::not_active);
  EXPECT_EQ(send(*mq, "", "x"), codes::not_active);  // neither name nor token
  const auto wire = plex.traffic();
  ASSERT_EQ(wire.size(), 2u);
  EXPECT_EQ(wire[0].kind, wire_record::what::refused);
  EXPECT_EQ(wire[0].code, codes::not_active);
  plex.run();
  EXPECT_TRUE(mq->handler.send_results.empty());  // a synchronous refusal is not reported again
}

// README "Details": --max-message limits the SEND payload: target token[8] and name[16], stream(2) and
// the control area[32] — 58 bytes — then the data.
constexpr std::size_t send_prefix = 58;

TEST(MemorySend, TooBigIs8_10WhenTheSendPayloadIsOverTheConfiguredMaximum) {
  memory_sysplex_options o;
  o.max_message = 100;
  memory_sysplex plex(o);
  auto a = join(plex, request("GRP", "A"));
  auto b = join(plex, request("GRP", "B"));
  const bytes at_max(100 - send_prefix, 0x5C), over(100 - send_prefix + 1, 0x5C);
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, at_max), codes::ok);
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, over), codes::too_big);
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes(100, 0x5C)), codes::too_big);
  plex.run();
  ASSERT_EQ(b->handler.messages.size(), 1u);
  EXPECT_EQ(b->handler.messages[0].data.size(), 100u - send_prefix);
}

TEST(MemorySend, AMaximumBelowThePrefixRefusesEvenEmptyData) {
  memory_sysplex_options o;
  o.max_message = send_prefix - 1;
  memory_sysplex plex(o);
  auto a = join(plex, request("GRP", "A"));
  auto b = join(plex, request("GRP", "B"));
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, {}), codes::too_big);
}

TEST(MemorySend, DefaultMaximumIsOneMebibyteOfPayload) {
  memory_sysplex plex;
  auto a = join(plex, request("GRP", "A"));
  auto b = join(plex, request("GRP", "B"));
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes(1024 * 1024 - send_prefix)), codes::ok);
  // What the hub with its default --max-message refuses (probe: 1 MiB - 10 bytes of data).
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes(1024 * 1024 - send_prefix + 1)),
            codes::too_big);
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes(1024 * 1024 - 10)), codes::too_big);
}

TEST_F(pair_of_members, AckAsksForAPositiveOnSendDone) {
  std::uint64_t with_ack = 0, without = 0;
  ASSERT_EQ(send(*mq, "IMS1", "a", on_stream(0, true, true), &with_ack), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", "b", on_stream(0, true, false), &without), codes::ok);
  EXPECT_NE(with_ack, without);
  EXPECT_TRUE(mq->handler.send_results.empty());  // only from run()
  plex.run();
  ASSERT_EQ(mq->handler.send_results.size(), 1u);
  EXPECT_EQ(mq->handler.send_results[0].send_id, with_ack);
  EXPECT_EQ(mq->handler.send_results[0].code, codes::ok);
}

// A send has at most one outcome reported: its ack, or its refusal. Messages discarded because the
// target left are discarded silently [C: XCF-LEAVE], even when they were acked or duplicated.
TEST_F(pair_of_members, NeverTwoOutcomesForOneSend) {
  std::uint64_t acked = 0, duplicated = 0;
  ASSERT_EQ(send(*mq, "IMS1", "x", on_stream(0, true, true), &acked), codes::ok);
  plex.faults().duplicate(message_filter::any());
  ASSERT_EQ(send(*mq, "IMS1", "y", {}, &duplicated), codes::ok);
  ASSERT_EQ(ims->member().leave(), codes::ok);
  plex.run();
  ASSERT_EQ(mq->handler.send_results.size(), 1u);
  EXPECT_EQ(mq->handler.send_results[0].send_id, acked);
  EXPECT_EQ(mq->handler.send_results[0].code, codes::ok);
  EXPECT_TRUE(ims->handler.messages.empty());
  std::size_t discarded = 0;
  for (const auto& w : plex.traffic())
    if (w.kind == wire_record::what::discarded) ++discarded;
  EXPECT_EQ(discarded, 3u);  // x and both copies of y
}

TEST_F(pair_of_members, OrderedStreamStaysFifoWhenOneMessageIsDelayed) {
  plex.faults().delay(message_filter::between("MQ1", "IMS1"), milliseconds(100));
  ASSERT_EQ(send(*mq, "IMS1", "m1", on_stream(1)), codes::ok);  // delayed
  ASSERT_EQ(send(*mq, "IMS1", "m2", on_stream(1)), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", "m3", on_stream(1)), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", "n1", on_stream(2)), codes::ok);  // another stream does not wait
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{"n1"}));
  plex.advance(milliseconds(99));
  EXPECT_EQ(plex.run().messages, 0u);
  plex.advance(milliseconds(1));
  EXPECT_EQ(plex.run().messages, 3u);
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{"n1", "m1", "m2", "m3"}));
  EXPECT_EQ(plex.now(), milliseconds(100));
}

TEST_F(pair_of_members, UnorderedMessageOvertakesADelayedOne) {
  plex.faults().delay(message_filter::any(), milliseconds(10));
  ASSERT_EQ(send(*mq, "IMS1", "u1", on_stream(1, false)), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", "u2", on_stream(1, false)), codes::ok);
  plex.advance(milliseconds(10));
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{"u2", "u1"}));
}

TEST_F(pair_of_members, SendFromInsideAHandler) {
  // IMS answers every message at once from its message exit, as OTMA does with ACKs.
  ims->handler.after_message = [&](const xcf::message& m) {
    EXPECT_EQ(plex.run().total(), 0u);  // a nested run() does nothing
    EXPECT_EQ(ims->member().send(xcf::target::by_token(m.source_token), {}, bytes_view::of("ack " + text(m))),
              codes::ok);
  };
  int next = 1;
  mq->handler.after_message = [&](const xcf::message&) {
    if (next < 10) {
      EXPECT_EQ(send(*mq, "IMS1", std::to_string(next++)), codes::ok);
    }
  };
  ASSERT_EQ(send(*mq, "IMS1", "0"), codes::ok);
  const delivery_counts counts = plex.run();
  EXPECT_EQ(counts.messages, 20u);
  ASSERT_EQ(mq->handler.messages.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(text(mq->handler.messages[i]), "ack " + std::to_string(i));
}

TEST_F(pair_of_members, RunStopsAtItsLimit) {
  // Two members that answer each other forever.
  ims->handler.after_message = [&](const xcf::message&) { send(*ims, "MQ1", "ping"); };
  mq->handler.after_message = [&](const xcf::message&) { send(*mq, "IMS1", "pong"); };
  ASSERT_EQ(send(*mq, "IMS1", "start"), codes::ok);
  EXPECT_EQ(plex.run(50).messages, 50u);
  EXPECT_EQ(plex.pending(), 1u);
}

TEST_F(pair_of_members, ServicesMayBeCalledFromAHandler) {
  ims->handler.after_message = [&](const xcf::message&) {
    std::vector<xcf::member_info> out;
    EXPECT_EQ(ims->member().query(out), codes::ok);
    EXPECT_EQ(out.size(), 2u);
    EXPECT_EQ(ims->member().leave(), codes::ok);
  };
  ASSERT_EQ(send(*mq, "IMS1", "bye"), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", "never"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{"bye"}));
  ASSERT_EQ(mq->handler.events.size(), 1u);
  EXPECT_EQ(mq->handler.events[0].kind, xcf::event_kind::left);
}

// --- resource shortage (12/0) and the refused-stream rule -------------------------------------------

constexpr std::size_t message_size = 10;
constexpr std::size_t queued_size = message_size + 32;  // data plus the control area

memory_sysplex_options buffer_for(std::size_t messages) {
  memory_sysplex_options o;
  o.target_buffer = messages * queued_size;
  return o;
}

std::string payload(int i) {
  std::string s = std::to_string(i);
  s.resize(message_size, '.');
  return s;
}

struct small_buffer : pair_of_members {
  small_buffer() : pair_of_members(buffer_for(1)) {}
};

TEST_F(small_buffer, RefusedStreamStaysRefusedUntilTheSenderHasSeenTheRefusal) {
  std::uint64_t id[6] = {};
  ASSERT_EQ(send(*mq, "IMS1", payload(1), {}, &id[1]), codes::ok);  // fills the buffer
  ASSERT_EQ(send(*mq, "IMS1", payload(2), {}, &id[2]), codes::ok);  // refused, reported later
  ASSERT_EQ(send(*mq, "IMS1", payload(3), {}, &id[3]), codes::ok);  // refused: the stream is refused

  ASSERT_EQ(plex.run_one().messages, 1u);  // delivers m1: the buffer is empty again
  // The sender has not seen the refusal yet: a new message must not overtake m2 and m3.
  ASSERT_EQ(send(*mq, "IMS1", payload(4), {}, &id[4]), codes::ok);
  // Another stream is not affected.
  ASSERT_EQ(send(*mq, "IMS1", payload(9), on_stream(1)), codes::ok);

  ASSERT_EQ(plex.run_one().send_results, 1u);
  ASSERT_EQ(mq->handler.send_results.size(), 1u);
  EXPECT_EQ(mq->handler.send_results[0].send_id, id[2]);
  EXPECT_EQ(mq->handler.send_results[0].code, codes::resource_shortage);
  plex.run();
  ASSERT_EQ(mq->handler.send_results.size(), 3u);
  EXPECT_EQ(mq->handler.send_results[1].send_id, id[3]);
  EXPECT_EQ(mq->handler.send_results[2].send_id, id[4]);
  EXPECT_EQ(mq->handler.send_results[2].code, codes::resource_shortage);
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{payload(1), payload(9)}));

  // Having seen the refusals, the sender re-sends from m2: the backend sets resume on that send.
  mq->handler.send_results.clear();
  for (int i = 2; i <= 4; ++i) {
    ASSERT_EQ(send(*mq, "IMS1", payload(i)), codes::ok);
    plex.run();
  }
  EXPECT_EQ(texts(ims->handler.messages),
            (std::vector<std::string>{payload(1), payload(9), payload(2), payload(3), payload(4)}));
  EXPECT_TRUE(mq->handler.send_results.empty());
}

TEST_F(small_buffer, AStaleRefusalDoesNotArmResume) {
  std::uint64_t id[4] = {};
  ASSERT_EQ(send(*mq, "IMS1", payload(1), {}, &id[1]), codes::ok);
  ASSERT_EQ(send(*mq, "IMS1", payload(2), {}, &id[2]), codes::ok);  // refused
  ASSERT_EQ(send(*mq, "IMS1", payload(3), {}, &id[3]), codes::ok);  // refused
  ASSERT_EQ(plex.run_one().messages, 1u);                           // m1 delivered
  ASSERT_EQ(plex.run_one().send_results, 1u);                       // refusal of m2 seen
  ASSERT_EQ(send(*mq, "IMS1", payload(2)), codes::ok);              // resume: accepted
  ASSERT_EQ(send(*mq, "IMS1", payload(3)), codes::ok);              // buffer full: refused again
  ASSERT_EQ(plex.run_one().send_results, 1u);                       // the old refusal of m3: stale
  ASSERT_EQ(plex.run_one().messages, 1u);                           // m2 delivered, buffer empty
  // A new message now must wait for the re-sent m3, whose refusal the sender has not seen yet.
  ASSERT_EQ(send(*mq, "IMS1", payload(4)), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (std::vector<std::string>{payload(1), payload(2)}));
  const auto& results = mq->handler.send_results;
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) EXPECT_EQ(r.code, codes::resource_shortage);
  ASSERT_EQ(send(*mq, "IMS1", payload(3)), codes::ok);
  plex.run();
  ASSERT_EQ(send(*mq, "IMS1", payload(4)), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages),
            (std::vector<std::string>{payload(1), payload(2), payload(3), payload(4)}));
}

// A sender that keeps a window of unconfirmed messages and, on a 12/0, re-sends from the first refused
// one — what the OTMA layer must do (README "Send").
class resending_sender {
 public:
  resending_sender(node& from, std::string to, int total) : from_(from), to_(std::move(to)), total_(total) {
    from_.handler.after_send_done = [this](const recording_handler::send_result& r) { on_result(r); };
  }
  void pump() {  // sends what may be sent now
    while (next_ < total_) {
      std::uint64_t id = 0;
      ASSERT_EQ(from_.member().send(xcf::target::by_name(to_), {}, bytes_view::of(payload(next_)), {}, &id),
                codes::ok);
      index_of_[id] = next_++;
    }
  }
  int refusals = 0;

 private:
  void on_result(const recording_handler::send_result& r) {
    ASSERT_EQ(r.code, codes::resource_shortage);
    auto it = index_of_.find(r.send_id);
    if (it == index_of_.end()) return;  // a send already given up and re-sent
    ++refusals;
    const int refused = it->second;
    // Everything from the refused one on was refused too (the stream stays refused): forget those
    // sends, so that their own refusal reports, still on the way, are recognised as stale.
    for (auto i = index_of_.begin(); i != index_of_.end();)
      i = i->second >= refused ? index_of_.erase(i) : std::next(i);
    next_ = refused;
    pump();
  }

  node& from_;
  std::string to_;
  int total_;
  int next_ = 0;
  std::map<std::uint64_t, int> index_of_;
};

TEST(MemorySend, SenderResendingFromTheFirstRefusalGetsEveryMessageOnceInOrder) {
  memory_sysplex plex(buffer_for(3));
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  resending_sender sender(*mq, "IMS1", 50);
  sender.pump();
  plex.run();
  EXPECT_GT(sender.refusals, 10);  // the buffer really was too small
  ASSERT_EQ(ims->handler.messages.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(text(ims->handler.messages[i]), payload(i)) << i;
  EXPECT_EQ(plex.pending(), 0u);
}

TEST(MemorySend, BufferIsPerTarget) {
  memory_sysplex plex(buffer_for(1));
  auto a = join(plex, request("GRP", "A"));
  auto b = join(plex, request("GRP", "B"));
  auto c = join(plex, request("GRP", "C"));
  plex.run();
  ASSERT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes_view::of(payload(1))), codes::ok);
  ASSERT_EQ(a->member().send(xcf::target::by_name("C"), {}, bytes_view::of(payload(2))), codes::ok);
  ASSERT_EQ(c->member().send(xcf::target::by_name("B"), {}, bytes_view::of(payload(3))), codes::ok);
  plex.run();
  EXPECT_EQ(b->handler.messages.size(), 1u);
  EXPECT_EQ(c->handler.messages.size(), 1u);
  ASSERT_EQ(c->handler.send_results.size(), 1u);  // B's buffer was full when C sent
  EXPECT_EQ(c->handler.send_results[0].code, codes::resource_shortage);
  EXPECT_TRUE(a->handler.send_results.empty());
}

TEST(MemorySend, SafeWhenSendersRunOnOtherThreadsThanRun) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq1 = join(plex, request("GRP", "MQ1"));
  auto mq2 = join(plex, request("GRP", "MQ2"));
  plex.run();
  constexpr int per_sender = 500;
  auto sender = [&](node* from) {
    for (int i = 0; i < per_sender; ++i)
      EXPECT_EQ(from->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of(std::to_string(i))),
                codes::ok);
  };
  std::thread t1(sender, mq1.get()), t2(sender, mq2.get());
  std::size_t delivered = 0;
  // Bounded: a lost message must fail the test, not hang it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (delivered < 2 * per_sender && std::chrono::steady_clock::now() < deadline) {
    delivered += plex.run().messages;
    std::this_thread::yield();
  }
  t1.join();
  t2.join();
  delivered += plex.run().messages;
  EXPECT_EQ(delivered, 2u * per_sender);
  EXPECT_EQ(plex.run().messages, 0u);
  // Each sender's stream is FIFO whatever the interleaving of the two.
  std::map<std::string, int> next;
  for (const auto& m : ims->handler.messages) EXPECT_EQ(text(m), std::to_string(next[m.source_name]++));
  EXPECT_EQ(next["MQ1"], per_sender);
  EXPECT_EQ(next["MQ2"], per_sender);
}

}  // namespace
}  // namespace imsb::transport
