// The client backend survives a hub restart: failed events for everyone it knew and for itself, link
// down while the hub is gone, then a re-join with back-off and active events, and messages flow again
// (transport/README.md "Client backend behaviour" [D]).

#include <gtest/gtest.h>

#include <csignal>

#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

// Index of the first event of `kind` about `name` at `from` or later, or -1.
int find_event(const std::vector<seen_event>& events, xcf::event_kind kind, const std::string& name,
               std::size_t from = 0) {
  for (std::size_t i = from; i < events.size(); ++i) {
    if (events[i].event.kind == kind && events[i].event.member.name == name) return static_cast<int>(i);
  }
  return -1;
}

TEST(XcfReconnect, MemberRejoinsAfterTheHubIsKilledAndRestarted) {
  temp_dir dir;
  auto hub = std::make_unique<hub_process>(dir, std::vector<std::string>{"--heartbeat-ms", "500"});
  const std::uint16_t port = hub->port();
  std::vector<std::string> log_a;
  std::mutex log_mu;
  auto options_a = client_options(hub->endpoint());
  options_a.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mu);
    log_a.push_back(line);
  };
  transport::tcp_service service_a(options_a);
  transport::tcp_service service_b(client_options(hub->endpoint()));
  recorder events_a;
  recorder events_b;
  auto a = service_a.join(join_as("IMSBGRP", "ROAMER", true), events_a);
  ASSERT_TRUE(a.code.ok());
  auto b = service_b.join(join_as("IMSBGRP", "ANCHOR"), events_b);
  ASSERT_TRUE(b.code.ok());
  ASSERT_TRUE(events_a.wait_event(xcf::event_kind::active, "ANCHOR", milliseconds(5000)));

  const bytes before = pattern_data(9, 0);
  ASSERT_EQ(a.joined->send(xcf::target::by_name("ANCHOR"), pattern_control(9, 0), before), xcf::codes::ok);
  ASSERT_EQ(events_b.wait_messages(1, milliseconds(5000)).size(), 1u);

  // The hub dies without a word.
  ASSERT_TRUE(hub->process().signal(SIGKILL));
  ASSERT_TRUE(hub->process().wait_exit(milliseconds(5000)));
  ASSERT_TRUE(events_a.wait_event(xcf::event_kind::failed, "ROAMER", milliseconds(5000)));
  ASSERT_TRUE(events_b.wait_event(xcf::event_kind::failed, "ANCHOR", milliseconds(5000)));
  {
    // `failed` for the member it knew, then for itself.
    const auto seen = events_a.events();
    const int other = find_event(seen, xcf::event_kind::failed, "ANCHOR");
    const int self = find_event(seen, xcf::event_kind::failed, "ROAMER");
    ASSERT_GE(other, 0);
    EXPECT_LT(other, self);
    EXPECT_EQ(seen[static_cast<std::size_t>(self)].event.member.state, xcf::member_state::failed);
  }
  const std::size_t mark_a = events_a.event_count();
  const std::size_t mark_b = events_b.event_count();
  // While it is gone, sends and requests say link down.
  EXPECT_EQ(a.joined->send(xcf::target::by_name("ANCHOR"), {}, before), xcf::codes::link_down);
  std::vector<xcf::member_info> members;
  EXPECT_EQ(a.joined->query(members), xcf::codes::link_down);
  std::this_thread::sleep_for(milliseconds(700));  // let a few re-join attempts fail

  // A new hub on the same port.
  hub = std::make_unique<hub_process>(dir, std::vector<std::string>{"--heartbeat-ms", "500"}, port);
  ASSERT_EQ(hub->port(), port);
  const auto self_active =
      events_a.wait_event(xcf::event_kind::active, "ROAMER", milliseconds(15000), mark_a);
  ASSERT_TRUE(self_active) << "no re-join";
  ASSERT_TRUE(events_a.wait_event(xcf::event_kind::active, "ANCHOR", milliseconds(15000), mark_a));
  ASSERT_TRUE(events_b.wait_event(xcf::event_kind::active, "ANCHOR", milliseconds(15000), mark_b));
  ASSERT_TRUE(events_b.wait_event(xcf::event_kind::active, "ROAMER", milliseconds(15000), mark_b));
  EXPECT_EQ(self_active->event.member.token, a.joined->token());  // token() follows the re-join

  // Messages flow again, both ways.
  for (std::uint64_t seq = 1; seq <= 20; ++seq) {
    const bytes data = pattern_data(9, seq, 20000);
    ASSERT_EQ(a.joined->send(xcf::target::by_name("ANCHOR"), pattern_control(9, seq), data), xcf::codes::ok);
  }
  auto got = events_b.wait_messages(20, milliseconds(10000));
  ASSERT_EQ(got.size(), 20u);
  for (std::uint64_t seq = 1; seq <= 20; ++seq) EXPECT_EQ(pattern_check(9, seq, got[seq - 1], 20000), "");
  const bytes back{0xC1, 0xC2};
  ASSERT_EQ(b.joined->send(xcf::target::by_name("ROAMER"), {}, back), xcf::codes::ok);
  got = events_a.wait_messages(1, milliseconds(10000));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, back);
  ASSERT_EQ(a.joined->query(members), xcf::codes::ok);
  EXPECT_EQ(members.size(), 2u);

  {
    std::lock_guard<std::mutex> lock(log_mu);
    auto has = [&](const char* id) {
      return std::any_of(log_a.begin(), log_a.end(),
                         [&](const std::string& l) { return l.rfind(id, 0) == 0; });
    };
    EXPECT_TRUE(has("IMB3051W"));
    EXPECT_TRUE(has("IMB3053W"));  // attempts while the hub was down
    EXPECT_TRUE(has("IMB3052I"));
  }
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

// The hub falls silent without closing (SIGSTOP): three heartbeats later the client gives up on it,
// and re-joins once it answers again.
TEST(XcfReconnect, SilentHubIsDeclaredLostAfterThreeHeartbeats) {
  constexpr int heartbeat_ms = 200;
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", std::to_string(heartbeat_ms)});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder events;
  auto me = service.join(join_as("IMSBGRP", "WATCHER"), events);
  ASSERT_TRUE(me.code.ok());
  ASSERT_TRUE(hub.process().signal(SIGSTOP));
  const auto stopped_at = steady::now();
  const auto failed = events.wait_event(xcf::event_kind::failed, "WATCHER", milliseconds(5000));
  ASSERT_TRUE(failed);
  const auto after = std::chrono::duration_cast<milliseconds>(failed->at - stopped_at).count();
  EXPECT_GE(after, 2 * heartbeat_ms);  // the last PING came at most one interval before the stop
  EXPECT_LE(after, 4 * heartbeat_ms + 400);
  EXPECT_EQ(me.joined->send(xcf::target::by_name("WATCHER"), {}, bytes{1}), xcf::codes::link_down);

  // The hub wakes up: it still holds the old connection as active until its own heartbeat notices
  // (or the close arrives), so early re-joins may be refused 8/8; the back-off keeps trying.
  const std::size_t mark = events.event_count();
  ASSERT_TRUE(hub.process().signal(SIGCONT));
  ASSERT_TRUE(events.wait_event(xcf::event_kind::active, "WATCHER", milliseconds(15000), mark));
  std::vector<xcf::member_info> members;
  ASSERT_EQ(me.joined->query(members), xcf::codes::ok);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].state, xcf::member_state::active);
  EXPECT_EQ(me.joined->leave(), xcf::codes::ok);
}

}  // namespace
}  // namespace imsb::test
