// Group events, query, user state, quiesce, remove and leave on the in-memory sysplex
// ([C: XCF-STATES, XCF-LEAVE]; transport/README.md "Events", "Leave", "Quiesce" [D]).

#include <gtest/gtest.h>

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

namespace codes = xcf::codes;

const xcf::member_info* find(const std::vector<xcf::member_info>& members, const std::string& name) {
  for (const auto& m : members)
    if (m.name == name) return &m;
  return nullptr;
}

// Four members of one group, events of their joins already delivered and forgotten.
struct group_of_four : ::testing::Test {
  memory_sysplex plex;
  std::unique_ptr<node> a = join(plex, request("GRP", "A", true));
  std::unique_ptr<node> b = join(plex, request("GRP", "B"));
  std::unique_ptr<node> c = join(plex, request("GRP", "C"));
  std::unique_ptr<node> d = join(plex, request("GRP", "D", true));
  void SetUp() override {
    plex.run();
    for (node* n : {a.get(), b.get(), c.get(), d.get()}) n->handler.clear();
  }
};

TEST_F(group_of_four, EventsReachEveryOtherActiveMemberAndNotTheSubject) {
  ASSERT_EQ(d->member().quiesce(), codes::ok);
  plex.run();
  for (node* n : {a.get(), b.get(), c.get()}) {
    ASSERT_EQ(n->handler.events.size(), 1u);
    EXPECT_EQ(n->handler.events[0].kind, xcf::event_kind::quiesced);
    EXPECT_EQ(n->handler.events[0].member.state, xcf::member_state::quiesced);
    n->handler.clear();
  }
  EXPECT_TRUE(d->handler.events.empty());

  xcf::user_state us{};
  us[0] = 0xAB;
  ASSERT_EQ(a->member().set_user_state(us), codes::ok);
  EXPECT_TRUE(b->handler.events.empty());  // nothing before run()
  const delivery_counts counts = plex.run();
  EXPECT_EQ(counts.events, 2u);
  EXPECT_EQ(counts.total(), 2u);
  for (node* n : {b.get(), c.get()}) {
    ASSERT_EQ(n->handler.events.size(), 1u);
    EXPECT_EQ(n->handler.events[0].kind, xcf::event_kind::user_state);
    EXPECT_EQ(n->handler.events[0].member.name, "A");
    EXPECT_EQ(n->handler.events[0].member.ustate, us);
  }
  EXPECT_TRUE(a->handler.events.empty());  // not the subject
  EXPECT_TRUE(d->handler.events.empty());  // not a quiesced member [C: XCF-STATES]
  EXPECT_EQ(find(plex.members("GRP"), "A")->ustate, us);
}

TEST_F(group_of_four, EventsOfSeveralChangesArriveInTheOrderOfTheChanges) {
  xcf::user_state one{}, two{};
  one[0] = 1;
  two[0] = 2;
  ASSERT_EQ(a->member().set_user_state(one), codes::ok);
  ASSERT_EQ(a->member().set_user_state(two), codes::ok);
  ASSERT_EQ(a->member().leave(), codes::ok);
  plex.run();
  ASSERT_EQ(b->handler.events.size(), 3u);
  EXPECT_EQ(b->handler.events[0].member.ustate, one);
  EXPECT_EQ(b->handler.events[1].member.ustate, two);
  EXPECT_EQ(b->handler.events[2].kind, xcf::event_kind::left);
  EXPECT_EQ(b->handler.events[2].member.state, xcf::member_state::not_defined);
}

TEST_F(group_of_four, LeaveDeliversWhatItSentAndDiscardsWhatWasSentToIt) {
  ASSERT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes_view::of("out")), codes::ok);
  std::uint64_t to_a = 0;
  ASSERT_EQ(b->member().send(xcf::target::by_name("A"), {}, bytes_view::of("in"), {}, &to_a), codes::ok);
  ASSERT_EQ(a->member().leave(), codes::ok);
  EXPECT_EQ(find(plex.members("GRP"), "A"), nullptr);  // left: not-defined, even though lasting

  plex.run();
  EXPECT_TRUE(a->handler.messages.empty());
  EXPECT_TRUE(a->handler.events.empty());
  ASSERT_EQ(b->handler.messages.size(), 1u);
  EXPECT_EQ(text(b->handler.messages[0]), "out");
  // IXCLEAVE discards undelivered messages and nobody tells their senders [C: XCF-LEAVE].
  EXPECT_TRUE(b->handler.send_results.empty());
  ASSERT_EQ(b->handler.events.size(), 1u);
  EXPECT_EQ(b->handler.events[0].kind, xcf::event_kind::left);

  bool discarded = false;
  for (const auto& w : plex.traffic())
    discarded = discarded || (w.kind == wire_record::what::discarded && w.send_id == to_a && w.target == "A");
  EXPECT_TRUE(discarded);

  EXPECT_EQ(a->member().leave(), codes::not_active);  // IXCLEAVE 8/4 [C]
  EXPECT_EQ(a->member().send(xcf::target::by_name("B"), {}, {}), codes::not_active);
  EXPECT_EQ(b->member().send(xcf::target::by_name("A"), {}, {}), codes::not_active);
  EXPECT_EQ(join(plex, request("GRP", "A", true))->result.code, codes::ok);  // not 4/8: it left
}

TEST_F(group_of_four, QuiescedMemberReceivesNothingAndMayOnlyLeave) {
  ASSERT_EQ(b->member().send(xcf::target::by_name("D"), {}, bytes_view::of("queued")), codes::ok);
  ASSERT_EQ(d->member().quiesce(), codes::ok);
  EXPECT_EQ(b->member().send(xcf::target::by_name("D"), {}, bytes_view::of("late")), codes::not_active);
  ASSERT_EQ(a->member().set_user_state({}), codes::ok);
  plex.run();
  EXPECT_TRUE(d->handler.messages.empty());
  EXPECT_TRUE(d->handler.events.empty());
  EXPECT_TRUE(b->handler.send_results.empty());  // discarded silently

  EXPECT_EQ(d->member().set_user_state({}), codes::not_active);
  EXPECT_EQ(d->member().quiesce(), codes::not_active);
  EXPECT_EQ(d->member().send(xcf::target::by_name("A"), {}, {}), codes::not_active);
  std::vector<xcf::member_info> out;
  ASSERT_EQ(d->member().query(out, "D"), codes::ok);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, xcf::member_state::quiesced);

  ASSERT_EQ(d->member().leave(), codes::ok);
  EXPECT_EQ(find(plex.members("GRP"), "D"), nullptr);
  plex.run();
  ASSERT_FALSE(a->handler.events.empty());
  EXPECT_EQ(a->handler.events.back().kind, xcf::event_kind::left);
}

TEST_F(group_of_four, RemoveDeletesOnlyFailedOrQuiescedMembers) {
  EXPECT_EQ(a->member().remove("B"), codes::already_active);
  EXPECT_EQ(a->member().remove("NOBODY"), codes::not_found);

  d->result.joined.reset();  // lasting: failed
  ASSERT_EQ(find(plex.members("GRP"), "D")->state, xcf::member_state::failed);
  ASSERT_EQ(c->member().quiesce(), codes::ok);
  plex.run();
  a->handler.clear();
  b->handler.clear();

  EXPECT_EQ(a->member().remove("D"), codes::ok);
  EXPECT_EQ(a->member().remove("C"), codes::ok);
  EXPECT_EQ(a->member().remove("D"), codes::not_found);
  EXPECT_EQ(plex.members("GRP").size(), 2u);
  plex.run();
  for (node* n : {a.get(), b.get()}) {  // the remover is told as well: it is not the subject
    ASSERT_EQ(n->handler.events.size(), 2u);
    EXPECT_EQ(n->handler.events[0].kind, xcf::event_kind::removed);
    EXPECT_EQ(n->handler.events[0].member.name, "D");
    EXPECT_EQ(n->handler.events[0].member.state, xcf::member_state::not_defined);
    EXPECT_EQ(n->handler.events[1].member.name, "C");
  }
  // Removed: the names join afresh, and the quiesced member's object is done.
  EXPECT_EQ(c->member().leave(), codes::not_active);
  EXPECT_EQ(join(plex, request("GRP", "D", true))->result.code, codes::ok);
}

TEST_F(group_of_four, OnlyAnActiveMemberMayRemove) {
  d->result.joined.reset();
  ASSERT_EQ(c->member().quiesce(), codes::ok);
  EXPECT_EQ(c->member().remove("D"), codes::not_active);
  EXPECT_EQ(find(plex.members("GRP"), "D")->state, xcf::member_state::failed);
}

TEST_F(group_of_four, QueryListsTheGroupOrOneMember) {
  std::vector<xcf::member_info> out;
  ASSERT_EQ(b->member().query(out), codes::ok);
  ASSERT_EQ(out.size(), 4u);
  for (const auto& m : out) EXPECT_EQ(m.state, xcf::member_state::active);
  ASSERT_EQ(b->member().query(out, "C"), codes::ok);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].token, c->member().token());
  EXPECT_EQ(b->member().query(out, "NOBODY"), codes::not_found);
  EXPECT_TRUE(out.empty());

  a->result.joined.reset();
  ASSERT_EQ(b->member().leave(), codes::ok);
  ASSERT_EQ(b->member().query(out), codes::ok);  // IXCQUERY needs no membership
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(find(out, "A")->state, xcf::member_state::failed);
  EXPECT_EQ(find(out, "B"), nullptr);
}

TEST_F(group_of_four, FailureDiscardsInboundSilently) {
  std::uint64_t to_b = 0;
  ASSERT_EQ(a->member().send(xcf::target::by_name("B"), {}, bytes_view::of("x"), {}, &to_b), codes::ok);
  ASSERT_EQ(b->member().send(xcf::target::by_name("C"), {}, bytes_view::of("from b")), codes::ok);
  b->result.joined.reset();
  plex.run();
  EXPECT_TRUE(b->handler.messages.empty());
  EXPECT_TRUE(a->handler.send_results.empty());  // README "Failure": messages queued to it are discarded
  bool discarded = false;
  for (const auto& w : plex.traffic())
    discarded = discarded || (w.kind == wire_record::what::discarded && w.send_id == to_b);
  EXPECT_TRUE(discarded);
  ASSERT_EQ(c->handler.messages.size(), 1u);  // what it sent before it ended still arrives
  EXPECT_EQ(text(c->handler.messages[0]), "from b");
}

TEST_F(group_of_four, EventsQueuedForAMemberThatLeavesAreNotDelivered) {
  ASSERT_EQ(a->member().set_user_state({}), codes::ok);
  ASSERT_EQ(b->member().leave(), codes::ok);
  plex.run();
  EXPECT_TRUE(b->handler.events.empty());  // [C: XCF-STATES]: not scheduled after its own IXCLEAVE
  EXPECT_EQ(c->handler.events.size(), 2u);
}

}  // namespace
}  // namespace imsb::transport
