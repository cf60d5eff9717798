// Fault injection on the in-memory sysplex (as Seastar's tests inject faults on purpose): each test names the
// real-world failure it reproduces and checks what the members see.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
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

using strings = std::vector<std::string>;

std::size_t count(const std::vector<wire_record>& wire, wire_record::what kind) {
  return static_cast<std::size_t>(
      std::count_if(wire.begin(), wire.end(), [&](const wire_record& w) { return w.kind == kind; }));
}

// IMS (lasting, as a real IMS joins), two queue managers; join events delivered and forgotten.
struct three_members : ::testing::Test {
  memory_sysplex plex;
  std::unique_ptr<node> ims = join(plex, request("OTMAGRP", "IMS1", true));
  std::unique_ptr<node> mq1 = join(plex, request("OTMAGRP", "MQ1"));
  std::unique_ptr<node> mq2 = join(plex, request("OTMAGRP", "MQ2"));
  void SetUp() override {
    plex.run();
    for (node* n : {ims.get(), mq1.get(), mq2.get()}) n->handler.clear();
    plex.clear_traffic();
  }
  xcf::return_code send(node& from, const std::string& to, const std::string& data, bool ordered = true,
                        bool ack = false) {
    xcf::send_options o;
    o.ordered = ordered;
    o.ack = ack;
    return from.member().send(xcf::target::by_name(to), {}, bytes_view::of(data), o);
  }
};

// A signalling path that loses one message after XCF took it: the OTMA layer must notice the missing
// ACK by its own timer, since nobody tells it.
TEST_F(three_members, DropLosesTheNextMessageSilently) {
  plex.faults().drop(message_filter::between("MQ1", "IMS1"));
  ASSERT_EQ(send(*mq1, "IMS1", "lost", true, true), codes::ok);
  ASSERT_EQ(send(*mq1, "IMS1", "kept", true, true), codes::ok);
  ASSERT_EQ(send(*mq2, "IMS1", "other pair"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"kept", "other pair"}));
  ASSERT_EQ(mq1->handler.send_results.size(), 2u);  // both accepted: the loss came afterwards
  for (const auto& r : mq1->handler.send_results) EXPECT_EQ(r.code, codes::ok);
  const auto wire = plex.traffic();
  EXPECT_EQ(count(wire, wire_record::what::dropped), 1u);
  EXPECT_EQ(count(wire, wire_record::what::delivered), 2u);
}

TEST_F(three_members, DropCountsAndAlways) {
  plex.faults().drop(message_filter::any(), 2);
  for (const char* s : {"1", "2", "3"}) ASSERT_EQ(send(*mq1, "IMS1", s), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"3"}));

  // A path that is down for good between one pair only.
  plex.faults().drop(message_filter::between("MQ2", "IMS1"), memory_faults::always);
  for (const char* s : {"a", "b", "c"}) ASSERT_EQ(send(*mq2, "IMS1", s), codes::ok);
  ASSERT_EQ(send(*ims, "MQ2", "reverse direction"), codes::ok);
  ASSERT_EQ(send(*mq1, "IMS1", "4"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"3", "4"}));
  EXPECT_EQ(texts(mq2->handler.messages), (strings{"reverse direction"}));

  plex.faults().clear();
  ASSERT_EQ(send(*mq2, "IMS1", "d"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"3", "4", "d"}));
}

TEST_F(three_members, FilterByGroup) {
  auto other = join(plex, request("OTHERGRP", "MQ1"));
  auto other_ims = join(plex, request("OTHERGRP", "IMS1"));
  plex.faults().drop({"OTHERGRP", "", ""}, memory_faults::always);
  ASSERT_EQ(send(*mq1, "IMS1", "kept"), codes::ok);
  ASSERT_EQ(other->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("lost")), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"kept"}));
  EXPECT_TRUE(other_ims->handler.messages.empty());
}

// A slow or rebuilding signalling path: the message arrives late, by the virtual clock.
TEST_F(three_members, DelayMakesTheMessageDueLater) {
  plex.faults().delay(message_filter::between("MQ1", "IMS1"), milliseconds(50));
  ASSERT_EQ(send(*mq1, "IMS1", "late"), codes::ok);
  ASSERT_EQ(send(*mq2, "IMS1", "on time"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"on time"}));
  plex.advance(milliseconds(49));
  EXPECT_EQ(plex.run().messages, 0u);
  plex.advance(milliseconds(1));
  EXPECT_EQ(plex.run().messages, 1u);
  EXPECT_EQ(texts(ims->handler.messages), (strings{"on time", "late"}));
}

// A path retry after a lost acknowledgement: the same message twice. The OTMA layer must discard the
// copy (same TMAMHS sequence).
TEST_F(three_members, DuplicateDeliversTheMessageTwice) {
  plex.faults().duplicate(message_filter::between("MQ1", "IMS1"));
  ASSERT_EQ(send(*mq1, "IMS1", "x"), codes::ok);
  ASSERT_EQ(send(*mq1, "IMS1", "y"), codes::ok);
  EXPECT_EQ(plex.run().messages, 3u);
  EXPECT_EQ(texts(ims->handler.messages), (strings{"x", "x", "y"}));
  EXPECT_EQ(count(plex.traffic(), wire_record::what::duplicated), 1u);
}

// XCF without DELIVERMSG=ORDERED: OTMA send-then-commit output arriving in any order (TIBCO's warning
// [C: TIBCO-SUB]).
TEST_F(three_members, ReorderReversesADueBatchOfUnorderedMessages) {
  plex.faults().reorder(message_filter::between("IMS1", "MQ1"), reorder_mode::reverse);
  for (const char* s : {"1", "2", "3", "4"}) ASSERT_EQ(send(*ims, "MQ1", s, false), codes::ok);
  plex.run();
  EXPECT_EQ(texts(mq1->handler.messages), (strings{"4", "3", "2", "1"}));
  // One batch only: the next ones arrive in order.
  for (const char* s : {"5", "6"}) ASSERT_EQ(send(*ims, "MQ1", s, false), codes::ok);
  plex.run();
  EXPECT_EQ(texts(mq1->handler.messages), (strings{"4", "3", "2", "1", "5", "6"}));
}

TEST_F(three_members, ReorderNeverTouchesOrderedMessages) {
  plex.faults().reorder(message_filter::any(), reorder_mode::reverse, 0, memory_faults::always);
  ASSERT_EQ(send(*ims, "MQ1", "o1"), codes::ok);
  ASSERT_EQ(send(*ims, "MQ1", "u1", false), codes::ok);
  ASSERT_EQ(send(*ims, "MQ1", "o2"), codes::ok);
  ASSERT_EQ(send(*ims, "MQ1", "u2", false), codes::ok);
  ASSERT_EQ(send(*ims, "MQ1", "o3"), codes::ok);
  plex.run();
  // The ordered ones keep their places; the two unordered ones swap theirs.
  EXPECT_EQ(texts(mq1->handler.messages), (strings{"o1", "u2", "o2", "u1", "o3"}));
}

strings shuffled(std::uint64_t seed) {
  memory_sysplex plex;
  auto a = join(plex, request("GRP", "A"));
  auto b = join(plex, request("GRP", "B"));
  plex.run();
  plex.faults().reorder(message_filter::any(), reorder_mode::shuffle, seed);
  xcf::send_options unordered;
  unordered.ordered = false;
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes_view::of(std::to_string(i)), unordered),
              codes::ok);
  plex.run();
  return texts(b->handler.messages);
}

TEST(MemoryFaults, ShuffleIsAPermutationFixedByItsSeed) {
  const strings first = shuffled(42);
  EXPECT_EQ(shuffled(42), first);
  strings sent;
  for (int i = 0; i < 12; ++i) sent.push_back(std::to_string(i));
  EXPECT_NE(first, sent);  // 1 chance in 12! that a correct shuffle gives this back
  strings sorted_first = first, sorted_sent = sent;
  std::sort(sorted_first.begin(), sorted_first.end());
  std::sort(sorted_sent.begin(), sorted_sent.end());
  EXPECT_EQ(sorted_first, sorted_sent);
  EXPECT_NE(shuffled(43), first);
}

// The Nth IXCMSGOX fails: an OTMA exchange broken at exactly that message.
TEST_F(three_members, FailTheNthSend) {
  plex.faults().fail_send("OTMAGRP", "MQ1", 3);
  EXPECT_EQ(send(*mq1, "IMS1", "1"), codes::ok);
  EXPECT_EQ(send(*mq2, "IMS1", "other member"), codes::ok);  // not counted
  EXPECT_EQ(send(*mq1, "IMS1", "2"), codes::ok);
  EXPECT_EQ(send(*mq1, "IMS1", "3"), codes::injected_failure);
  EXPECT_EQ(send(*mq1, "IMS1", "4"), codes::ok);
  plex.faults().fail_send("OTMAGRP", "MQ1", 1, codes::link_down);
  EXPECT_EQ(send(*mq1, "IMS1", "5"), codes::link_down);
  EXPECT_EQ(send(*mq1, "IMS1", "6"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(ims->handler.messages), (strings{"1", "other member", "2", "4", "6"}));
  const auto wire = plex.traffic();
  EXPECT_EQ(count(wire, wire_record::what::refused), 2u);
}

// The link to XCF drops under IMS (lasting): it is failed, the clients hear it, and IMS's own exit hears
// what the TCP client reports when it loses the hub.
TEST_F(three_members, DisconnectOfALastingMember) {
  ASSERT_EQ(send(*ims, "MQ1", "sent before"), codes::ok);
  ASSERT_EQ(send(*mq2, "IMS1", "queued to ims"), codes::ok);
  const xcf::member_token old_token = ims->member().token();
  ASSERT_EQ(plex.faults().disconnect("OTMAGRP", "IMS1"), codes::ok);
  EXPECT_EQ(plex.faults().disconnect("OTMAGRP", "IMS1"), codes::not_active);
  EXPECT_EQ(plex.faults().disconnect("OTMAGRP", "NOBODY"), codes::not_found);

  const auto members = plex.members("OTMAGRP");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].name, "IMS1");
  EXPECT_EQ(members[0].state, xcf::member_state::failed);

  EXPECT_EQ(send(*ims, "MQ1", "after"), codes::link_down);
  std::vector<xcf::member_info> out;
  EXPECT_EQ(ims->member().query(out), codes::link_down);
  EXPECT_EQ(ims->member().set_user_state({}), codes::link_down);
  EXPECT_EQ(ims->member().leave(), codes::link_down);
  EXPECT_EQ(send(*mq1, "IMS1", "to a failed member"), codes::not_active);

  plex.run();
  EXPECT_EQ(texts(mq1->handler.messages), (strings{"sent before"}));
  EXPECT_TRUE(ims->handler.messages.empty());
  // What was queued to IMS is discarded silently, as the hub does (README "Failure").
  EXPECT_TRUE(mq2->handler.send_results.empty());
  EXPECT_EQ(count(plex.traffic(), wire_record::what::discarded), 1u);
  for (node* n : {mq1.get(), mq2.get()}) {
    ASSERT_EQ(n->handler.events.size(), 1u);
    EXPECT_EQ(n->handler.events[0].kind, xcf::event_kind::failed);
    EXPECT_EQ(n->handler.events[0].member.name, "IMS1");
    EXPECT_EQ(n->handler.events[0].member.state, xcf::member_state::failed);
  }
  ASSERT_EQ(ims->handler.events.size(), 3u);
  EXPECT_EQ(ims->handler.events[0].member.name, "MQ1");
  EXPECT_EQ(ims->handler.events[1].member.name, "MQ2");
  EXPECT_EQ(ims->handler.events[2].member.name, "IMS1");
  for (const auto& e : ims->handler.events) EXPECT_EQ(e.kind, xcf::event_kind::failed);

  // The link comes back: a re-join as failed (4/8), a new token, and everyone is told.
  ims->handler.clear();
  mq1->handler.clear();
  ASSERT_EQ(plex.faults().reconnect("OTMAGRP", "IMS1"), codes::was_failed);
  EXPECT_NE(ims->member().token(), old_token);
  EXPECT_EQ(plex.faults().reconnect("OTMAGRP", "IMS1"), codes::not_found);
  plex.run();
  ASSERT_EQ(ims->handler.events.size(), 3u);
  EXPECT_EQ(ims->handler.events[0].member.name, "IMS1");
  EXPECT_EQ(ims->handler.events[0].member.token, ims->member().token());
  for (const auto& e : ims->handler.events) {
    EXPECT_EQ(e.kind, xcf::event_kind::active);
    EXPECT_EQ(e.member.state, xcf::member_state::active);
  }
  ASSERT_EQ(mq1->handler.events.size(), 1u);
  EXPECT_EQ(mq1->handler.events[0].kind, xcf::event_kind::active);
  EXPECT_EQ(send(*ims, "MQ1", "after reconnect"), codes::ok);
  plex.run();
  EXPECT_EQ(texts(mq1->handler.messages), (strings{"after reconnect"}));
}

TEST_F(three_members, DisconnectOfANonLastingMember) {
  ASSERT_EQ(plex.faults().disconnect("OTMAGRP", "MQ1"), codes::ok);
  plex.run();
  EXPECT_EQ(plex.members("OTMAGRP").size(), 2u);
  ASSERT_EQ(ims->handler.events.size(), 1u);
  EXPECT_EQ(ims->handler.events[0].member.state, xcf::member_state::not_defined);
  ASSERT_FALSE(mq1->handler.events.empty());
  EXPECT_EQ(mq1->handler.events.back().member.name, "MQ1");
  EXPECT_EQ(mq1->handler.events.back().member.state, xcf::member_state::not_defined);
  EXPECT_EQ(plex.faults().reconnect("OTMAGRP", "MQ1"), codes::ok);
}

TEST_F(three_members, ReconnectRefusedWhileTheNameIsActiveElsewhere) {
  ASSERT_EQ(plex.faults().disconnect("OTMAGRP", "MQ1"), codes::ok);
  auto usurper = join(plex, request("OTMAGRP", "MQ1"));
  EXPECT_EQ(plex.faults().reconnect("OTMAGRP", "MQ1"), codes::already_active);
  EXPECT_EQ(send(*mq1, "IMS1", "still down"), codes::link_down);
  usurper->result.joined.reset();
  EXPECT_EQ(plex.faults().reconnect("OTMAGRP", "MQ1"), codes::ok);
  EXPECT_EQ(send(*mq1, "IMS1", "up"), codes::ok);
}

// IMS hangs (a stopped address space): it no longer answers, XCF reports its status missing, then
// fails it. What was queued to it never arrives.
TEST_F(three_members, StoppedHeartbeatsGiveStatusMissingThenFailure) {
  ASSERT_EQ(plex.faults().stop_heartbeats("OTMAGRP", "IMS1"), codes::ok);
  EXPECT_EQ(plex.faults().stop_heartbeats("OTMAGRP", "IMS1"), codes::not_active);
  ASSERT_EQ(send(*mq1, "IMS1", "into the void"), codes::ok);  // still active: accepted
  ASSERT_EQ(send(*ims, "MQ1", "from the hung one"), codes::ok);
  ASSERT_EQ(mq2->member().set_user_state({}), codes::ok);
  plex.run();
  EXPECT_TRUE(ims->handler.messages.empty());  // held: its exits do not run
  EXPECT_TRUE(ims->handler.events.empty());
  EXPECT_EQ(texts(mq1->handler.messages), (strings{"from the hung one"}));
  mq1->handler.clear();

  plex.advance(milliseconds(1999));
  plex.run();
  EXPECT_TRUE(mq1->handler.events.empty());
  plex.advance(milliseconds(1));
  plex.run();
  ASSERT_EQ(mq1->handler.events.size(), 1u);
  EXPECT_EQ(mq1->handler.events[0].kind, xcf::event_kind::status_missing);
  EXPECT_EQ(mq1->handler.events[0].member.state, xcf::member_state::active);
  EXPECT_EQ(plex.members("OTMAGRP")[0].state, xcf::member_state::active);

  plex.advance(milliseconds(1000));
  plex.run();
  ASSERT_EQ(mq1->handler.events.size(), 2u);
  EXPECT_EQ(mq1->handler.events[1].kind, xcf::event_kind::failed);
  EXPECT_EQ(plex.members("OTMAGRP")[0].state, xcf::member_state::failed);
  EXPECT_TRUE(mq1->handler.send_results.empty());  // "into the void": discarded silently
  EXPECT_TRUE(ims->handler.messages.empty());
  EXPECT_EQ(plex.pending(), 0u);
  // When it wakes up it finds its link gone: the link-loss events, never the held ones.
  ASSERT_EQ(ims->handler.events.size(), 3u);
  for (const auto& e : ims->handler.events) EXPECT_EQ(e.kind, xcf::event_kind::failed);
  EXPECT_EQ(send(*ims, "MQ1", "x"), codes::link_down);
  EXPECT_EQ(plex.faults().reconnect("OTMAGRP", "IMS1"), codes::was_failed);
}

// The link drops and comes back before IMS's handler heard of the loss, then IMS leaves: the link-loss
// events still queued must not run after its own IXCLEAVE [C: XCF-STATES].
TEST_F(three_members, LinkLossEventsAreNotDeliveredAfterTheMembersOwnLeave) {
  ASSERT_EQ(plex.faults().disconnect("OTMAGRP", "IMS1"), codes::ok);
  ASSERT_EQ(plex.faults().reconnect("OTMAGRP", "IMS1"), codes::was_failed);
  ASSERT_EQ(ims->member().leave(), codes::ok);
  plex.run();
  EXPECT_TRUE(ims->handler.events.empty());
  EXPECT_TRUE(ims->handler.messages.empty());
  EXPECT_EQ(plex.pending(), 0u);
  ASSERT_FALSE(mq1->handler.events.empty());
  EXPECT_EQ(mq1->handler.events.back().kind, xcf::event_kind::left);
}

TEST_F(three_members, LinkLossEventsAreNotDeliveredAfterTheMembersOwnQuiesce) {
  ASSERT_EQ(plex.faults().disconnect("OTMAGRP", "IMS1"), codes::ok);
  ASSERT_EQ(plex.faults().reconnect("OTMAGRP", "IMS1"), codes::was_failed);
  ASSERT_EQ(ims->member().quiesce(), codes::ok);
  plex.run();
  EXPECT_TRUE(ims->handler.events.empty());
  EXPECT_EQ(plex.pending(), 0u);
}

// memory_xcf.hpp: `handler` must outlive the member or its leave(). Run under ASan, the old queue
// called the destroyed handler here (heap-use-after-free).
TEST(MemoryFaults, AHandlerMayBeDestroyedRightAfterLeave) {
  memory_sysplex plex;
  auto handler = std::make_unique<recording_handler>();
  recording_handler mq_handler;
  auto ims = plex.join(request("GRP", "IMS1", true), *handler);
  auto mq = plex.join(request("GRP", "MQ1"), mq_handler);
  plex.run();
  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  ASSERT_EQ(plex.faults().reconnect("GRP", "IMS1"), codes::was_failed);
  ASSERT_EQ(ims.joined->leave(), codes::ok);
  handler.reset();
  plex.run();
  EXPECT_EQ(plex.pending(), 0u);
  ASSERT_FALSE(mq_handler.events.empty());
  EXPECT_EQ(mq_handler.events.back().kind, xcf::event_kind::left);
}

// On link loss IMS's handler hears `failed` for the members it knew active — the join's snapshot and
// the events handed to it — not for MQ2, whose `active` event it had not received yet (and now never
// will: it belonged to the join that failed).
TEST(MemoryFaults, LinkLossReportsOnlyTheMembersTheHandlerWasToldOf) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", true));
  auto mq1 = join(plex, request("GRP", "MQ1"));
  plex.run();
  auto mq2 = join(plex, request("GRP", "MQ2"));  // IMS's `active` about MQ2 is still queued
  ims->handler.clear();
  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.events.size(), 2u);
  EXPECT_EQ(ims->handler.events[0].member.name, "MQ1");
  EXPECT_EQ(ims->handler.events[1].member.name, "IMS1");
  for (const auto& e : ims->handler.events) {
    EXPECT_EQ(e.kind, xcf::event_kind::failed);
    EXPECT_EQ(e.member.state, xcf::member_state::failed);
  }

  // After the reconnect it hears of every active member, MQ2 included; a second loss then reports both.
  ASSERT_EQ(plex.faults().reconnect("GRP", "IMS1"), codes::was_failed);
  plex.run();
  ims->handler.clear();
  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.events.size(), 3u);
  EXPECT_EQ(ims->handler.events[0].member.name, "MQ1");
  EXPECT_EQ(ims->handler.events[1].member.name, "MQ2");
  EXPECT_EQ(ims->handler.events[2].member.name, "IMS1");
}

// A member it was told has left is not reported failed either; nor is a member the handler heard of
// only through the link-loss events of an earlier loss that were dropped undelivered.
TEST(MemoryFaults, LinkLossFollowsTheLatestStateTheHandlerWasTold) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", true));
  auto mq1 = join(plex, request("GRP", "MQ1"));
  auto mq2 = join(plex, request("GRP", "MQ2"));
  plex.run();
  ASSERT_EQ(mq2->member().leave(), codes::ok);
  plex.run();
  ims->handler.clear();
  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  // Lost again before its handler heard anything: one set of link-loss events, not two.
  ASSERT_EQ(plex.faults().reconnect("GRP", "IMS1"), codes::was_failed);
  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.events.size(), 2u);
  EXPECT_EQ(ims->handler.events[0].member.name, "MQ1");
  EXPECT_EQ(ims->handler.events[1].member.name, "IMS1");
}

// What is queued for a hung member is held aside: it neither blocks nor slows what is due for the
// others (the old queue stepped over all of it again for every call), and it is discarded when the
// member fails.
TEST(MemoryFaults, ManyItemsHeldForAHungMemberDoNotHoldUpTheOthers) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", true));
  auto mq1 = join(plex, request("GRP", "MQ1"));
  auto mq2 = join(plex, request("GRP", "MQ2"));
  plex.run();
  ASSERT_EQ(plex.faults().stop_heartbeats("GRP", "IMS1"), codes::ok);
  constexpr int held = 5000;
  for (int i = 0; i < held; ++i) {
    ASSERT_EQ(mq1->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("held")), codes::ok);
    ASSERT_EQ(mq1->member().send(xcf::target::by_name("MQ2"), {}, bytes_view::of(std::to_string(i))),
              codes::ok);
  }
  EXPECT_EQ(plex.pending(), 2u * held + 2);  // and the two heartbeat timers
  EXPECT_EQ(plex.run().messages, static_cast<std::size_t>(held));
  ASSERT_EQ(mq2->handler.messages.size(), static_cast<std::size_t>(held));
  for (int i = 0; i < held; ++i) EXPECT_EQ(text(mq2->handler.messages[i]), std::to_string(i));
  EXPECT_EQ(plex.pending(), static_cast<std::size_t>(held) + 2);  // held, still counted
  EXPECT_TRUE(ims->handler.messages.empty());

  plex.advance(milliseconds(3000));
  plex.run();
  EXPECT_EQ(plex.pending(), 0u);
  EXPECT_TRUE(ims->handler.messages.empty());
  EXPECT_EQ(count(plex.traffic(), wire_record::what::discarded), static_cast<std::size_t>(held));
}

TEST_F(three_members, TrafficLogShowsWhatWentOverTheWire) {
  xcf::control_area mci{};
  mci[0] = 0x80;
  plex.faults().drop(message_filter::between("MQ2", "IMS1"));
  ASSERT_EQ(mq1->member().send(xcf::target::by_name("IMS1"), mci, bytes(5)), codes::ok);
  ASSERT_EQ(mq2->member().send(xcf::target::by_name("IMS1"), {}, bytes(3)), codes::ok);
  ASSERT_EQ(mq2->member().send(xcf::target::by_name("NOBODY"), {}, bytes(1)), codes::not_active);
  plex.run();
  const auto wire = plex.traffic();
  ASSERT_EQ(wire.size(), 5u);
  EXPECT_EQ(wire[0].kind, wire_record::what::accepted);
  EXPECT_EQ(wire[0].source, "MQ1");
  EXPECT_EQ(wire[0].control, mci);
  EXPECT_EQ(wire[0].size, 5u);
  EXPECT_EQ(wire[1].kind, wire_record::what::accepted);
  EXPECT_EQ(wire[2].kind, wire_record::what::dropped);
  EXPECT_EQ(wire[2].source, "MQ2");
  EXPECT_EQ(wire[3].kind, wire_record::what::refused);
  EXPECT_EQ(wire[3].target, "NOBODY");
  EXPECT_EQ(wire[3].code, codes::not_active);
  EXPECT_EQ(wire[4].kind, wire_record::what::delivered);
  EXPECT_EQ(wire[4].target, "IMS1");
  EXPECT_EQ(wire[4].send_id, wire[0].send_id);
}

}  // namespace
}  // namespace imsb::transport
