// IXCJOIN on the in-memory sysplex: every return code [C: XCF-JOIN] and transport/README.md "Join" [D].

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "imsb/transport/memory_xcf.hpp"
#include "memory_test_support.hpp"

namespace imsb::transport {
namespace {

using test::node;
using test::request;
using test::text;

namespace codes = xcf::codes;

std::unique_ptr<node> join(memory_sysplex& plex, const xcf::join_request& r) {
  auto n = std::make_unique<node>();
  n->result = plex.join(r, n->handler);
  return n;
}

const xcf::member_info* find(const std::vector<xcf::member_info>& members, const std::string& name) {
  for (const auto& m : members)
    if (m.name == name) return &m;
  return nullptr;
}

TEST(MemoryJoin, FirstActiveMemberGets4_4AndTheNextOne0_0) {
  memory_sysplex plex;
  auto ims = join(plex, request("OTMAGRP", "IMS1"));
  ASSERT_EQ(ims->result.code, codes::first_active);
  ASSERT_TRUE(ims->result.joined);
  auto mq = join(plex, request("OTMAGRP", "MQ1"));
  ASSERT_EQ(mq->result.code, codes::ok);

  // The snapshot is the group as it is, the new member included (README "Join").
  ASSERT_EQ(mq->result.members.size(), 2u);
  const auto* self = find(mq->result.members, "MQ1");
  const auto* other = find(mq->result.members, "IMS1");
  ASSERT_NE(self, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(self->state, xcf::member_state::active);
  EXPECT_EQ(self->group, "OTMAGRP");
  EXPECT_EQ(self->system, "MEMPLEX");
  EXPECT_EQ(self->token, mq->member().token());
  EXPECT_EQ(other->token, ims->member().token());
  EXPECT_NE(self->token, other->token);
  EXPECT_NE(self->token, xcf::member_token{});

  // Another group's first member is first again.
  auto other_group = join(plex, request("OTHERGRP", "MQ1"));
  EXPECT_EQ(other_group->result.code, codes::first_active);
}

TEST(MemoryJoin, JoinCarriesUserStateAndMemberData) {
  memory_sysplex plex;
  auto r = request("GRP", "IMS1");
  r.ustate[0] = 0x11;
  r.ustate[31] = 0x22;
  r.memdata[7] = 0x33;
  auto ims = join(plex, r);
  ASSERT_EQ(ims->result.code, codes::first_active);
  auto members = plex.members("GRP");
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].ustate, r.ustate);
  EXPECT_EQ(members[0].memdata, r.memdata);
}

TEST(MemoryJoin, DuplicateActiveNameIsRefused8_8AndTheFirstKeepsWorking) {
  memory_sysplex plex;
  auto first = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  auto second = join(plex, request("GRP", "IMS1"));
  EXPECT_EQ(second->result.code, codes::already_active);
  EXPECT_FALSE(second->result.joined);
  EXPECT_EQ(plex.members("GRP").size(), 2u);

  ASSERT_EQ(mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("hello")), codes::ok);
  plex.run();
  ASSERT_EQ(first->handler.messages.size(), 1u);
  EXPECT_TRUE(second->handler.messages.empty());
}

TEST(MemoryJoin, NamesBreakingXcfRulesAre8_14) {
  memory_sysplex plex;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "IMS1"},                  // empty group
      {"GROUP1234", "IMS1"},         // 9 characters
      {"grp", "IMS1"},               // lowercase
      {"G P", "IMS1"},               // blank
      {"GRP", ""},                   // empty member
      {"GRP", "M1234567890123456"},  // 17 characters
      {"GRP", "A-B"},                // not A-Z 0-9 $ # @
  };
  for (const auto& [group, member] : bad) {
    auto n = join(plex, request(group, member));
    EXPECT_EQ(n->result.code, codes::bad_name) << group << "/" << member;
    EXPECT_FALSE(n->result.joined);
  }
  // XCF's own rules allow # and a leading digit [C: XCF-NAMES2] ...
  EXPECT_EQ(join(plex, request("G#1", "1M#"))->result.code, codes::first_active);
  // ... the bridge's do not [D].
  memory_sysplex_options o;
  o.name_rules = names::xcf_rules::bridge;
  memory_sysplex bridge(o);
  EXPECT_EQ(join(bridge, request("G#1", "MQ1"))->result.code, codes::bad_name);
  EXPECT_EQ(join(bridge, request("GRP", "DFSX"))->result.code, codes::bad_name);
  EXPECT_EQ(join(bridge, request("GRP", "MQ1"))->result.code, codes::first_active);
}

TEST(MemoryJoin, AllowListRefusesOtherNames8_18) {
  memory_sysplex plex;
  plex.allow("OTMAGRP", {"IMS1", "MQ1"});
  auto intruder = join(plex, request("OTMAGRP", "EVIL"));
  EXPECT_EQ(intruder->result.code, codes::not_authorized);
  EXPECT_FALSE(intruder->result.joined);
  auto ims = join(plex, request("OTMAGRP", "IMS1"));
  EXPECT_EQ(ims->result.code, codes::first_active);
  // A group without a list lets everyone in.
  EXPECT_EQ(join(plex, request("OPENGRP", "EVIL"))->result.code, codes::first_active);
  const auto members = plex.members("OTMAGRP");
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].name, "IMS1");
}

TEST(MemoryJoin, LastingMemberThatEndsIsFailedAndRejoins4_8WithANewToken) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", /*lasting=*/true));
  auto mq = join(plex, request("GRP", "MQ1"));
  const xcf::member_token old_token = ims->member().token();
  ims->result.joined.reset();  // the address space ends without IXCLEAVE

  auto members = plex.members("GRP");
  const auto* failed = find(members, "IMS1");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->state, xcf::member_state::failed);

  plex.run();
  ASSERT_EQ(mq->handler.events.size(), 1u);
  EXPECT_EQ(mq->handler.events[0].kind, xcf::event_kind::failed);
  EXPECT_EQ(mq->handler.events[0].member.state, xcf::member_state::failed);
  EXPECT_TRUE(ims->handler.events.empty());  // a member that ended hears nothing

  auto again = join(plex, request("GRP", "IMS1", true));
  ASSERT_EQ(again->result.code, codes::was_failed);
  EXPECT_NE(again->member().token(), old_token);
  plex.run();
  ASSERT_EQ(mq->handler.events.size(), 2u);
  EXPECT_EQ(mq->handler.events[1].kind, xcf::event_kind::active);
  EXPECT_EQ(mq->handler.events[1].member.token, again->member().token());
}

TEST(MemoryJoin, WasFailedWinsOverFirstActive) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", true));
  ims->result.joined.reset();
  EXPECT_EQ(join(plex, request("GRP", "IMS1", true))->result.code, codes::was_failed);
}

TEST(MemoryJoin, NonLastingMemberThatEndsIsNotDefined) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", /*lasting=*/false));
  auto mq = join(plex, request("GRP", "MQ1"));
  ims->result.joined.reset();
  EXPECT_EQ(find(plex.members("GRP"), "IMS1"), nullptr);
  plex.run();
  ASSERT_EQ(mq->handler.events.size(), 1u);
  EXPECT_EQ(mq->handler.events[0].kind, xcf::event_kind::failed);
  EXPECT_EQ(mq->handler.events[0].member.state, xcf::member_state::not_defined);
  // Nothing to come back to: a plain join.
  EXPECT_EQ(join(plex, request("GRP", "IMS1"))->result.code, codes::ok);
}

TEST(MemoryJoin, NonLastingLastMemberRejoinsAsFirstActive) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  ims->result.joined.reset();
  EXPECT_TRUE(plex.members("GRP").empty());
  EXPECT_EQ(join(plex, request("GRP", "IMS1"))->result.code, codes::first_active);
}

TEST(MemoryJoin, QuiescedMemberRejoins4_0CAndTheOldObjectIsDone) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  ASSERT_EQ(ims->member().quiesce(), codes::ok);
  auto again = join(plex, request("GRP", "IMS1"));
  ASSERT_EQ(again->result.code, codes::was_quiesced);
  EXPECT_EQ(find(plex.members("GRP"), "IMS1")->state, xcf::member_state::active);

  EXPECT_EQ(ims->member().send(xcf::target::by_name("MQ1"), {}, {}), codes::not_active);
  EXPECT_EQ(ims->member().leave(), codes::not_active);
  ims->result.joined.reset();  // ending the old object does not touch the new join
  EXPECT_EQ(find(plex.members("GRP"), "IMS1")->state, xcf::member_state::active);
  EXPECT_EQ(again->member().send(xcf::target::by_name("MQ1"), {}, {}), codes::ok);
}

// A quiesced member that re-joins when nobody else is active is both "was quiesced" and "first
// active": 4/0C wins [C: XCF-JOIN], as 4/8 does for a failed one.
TEST(MemoryJoin, WasQuiescedWinsOverFirstActive) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  ASSERT_EQ(ims->result.code, codes::first_active);
  ASSERT_EQ(ims->member().quiesce(), codes::ok);
  auto again = join(plex, request("GRP", "IMS1"));
  EXPECT_EQ(again->result.code, codes::was_quiesced);
  ASSERT_EQ(again->result.members.size(), 1u);
  EXPECT_EQ(again->result.members[0].state, xcf::member_state::active);
}

// The link of a lasting member drops (failed), and someone removes the failed record before the link
// comes back: the reconnect is then a plain join, 0/0 — or 4/4 when nobody else is active.
TEST(MemoryJoin, ReconnectAfterTheFailedRecordWasRemovedIsAPlainJoin) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1", true));
  auto mq = join(plex, request("GRP", "MQ1"));
  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  ASSERT_EQ(mq->member().remove("IMS1"), codes::ok);
  EXPECT_EQ(find(plex.members("GRP"), "IMS1"), nullptr);
  ASSERT_EQ(plex.faults().reconnect("GRP", "IMS1"), codes::ok);
  EXPECT_EQ(find(plex.members("GRP"), "IMS1")->state, xcf::member_state::active);
  EXPECT_EQ(mq->member().send(xcf::target::by_name("IMS1"), {}, bytes_view::of("back")), codes::ok);
  plex.run();
  ASSERT_EQ(ims->handler.messages.size(), 1u);

  ASSERT_EQ(plex.faults().disconnect("GRP", "IMS1"), codes::ok);
  ASSERT_EQ(mq->member().remove("IMS1"), codes::ok);
  ASSERT_EQ(mq->member().leave(), codes::ok);  // nobody active any more
  ASSERT_EQ(plex.faults().reconnect("GRP", "IMS1"), codes::first_active);
  ASSERT_EQ(plex.members("GRP").size(), 1u);
}

TEST(MemoryJoin, DestroyingAQuiescedMemberLeavesItQuiesced) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  ASSERT_EQ(ims->member().quiesce(), codes::ok);
  plex.run();
  mq->handler.clear();
  ims->result.joined.reset();
  plex.run();
  EXPECT_EQ(find(plex.members("GRP"), "IMS1")->state, xcf::member_state::quiesced);
  EXPECT_TRUE(mq->handler.events.empty());
}

TEST(MemoryJoin, TheJoinerGetsNoEventAboutItself) {
  memory_sysplex plex;
  auto ims = join(plex, request("GRP", "IMS1"));
  auto mq = join(plex, request("GRP", "MQ1"));
  EXPECT_EQ(plex.run().events, 1u);
  ASSERT_EQ(ims->handler.events.size(), 1u);
  EXPECT_EQ(ims->handler.events[0].kind, xcf::event_kind::active);
  EXPECT_EQ(ims->handler.events[0].member.name, "MQ1");
  EXPECT_TRUE(mq->handler.events.empty());
}

TEST(MemoryJoin, MembersMayOutliveTheSysplex) {
  std::unique_ptr<node> ims;
  {
    memory_sysplex plex;
    ims = join(plex, request("GRP", "IMS1"));
  }
  EXPECT_EQ(ims->member().send(xcf::target::by_name("IMS1"), {}, {}), codes::ok);
  std::vector<xcf::member_info> out;
  EXPECT_EQ(ims->member().query(out), codes::ok);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(ims->member().leave(), codes::ok);
}

}  // namespace
}  // namespace imsb::transport
