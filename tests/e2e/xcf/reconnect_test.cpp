// The client backend survives a hub restart: failed events for everyone it knew and for itself, link
// down while the hub is gone, then a re-join with back-off and active events, and messages flow again
// (transport/README.md "Client backend behaviour" [D]).

#include <gtest/gtest.h>

#include <csignal>
#include <future>

#include "imsb/core/messages.hpp"
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

  // A new hub on the same port: the port is what the client was configured with, so a restart must
  // reuse it (another program could take it meanwhile; on loopback in a test that is unlikely).
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
    auto has = [&](std::string_view id) {
      return std::any_of(log_a.begin(), log_a.end(),
                         [&](const std::string& l) { return l.rfind(id, 0) == 0; });
    };
    EXPECT_TRUE(has(imsb::msg::IMB3051W));
    EXPECT_TRUE(has(imsb::msg::IMB3053W));  // attempts while the hub was down
    EXPECT_TRUE(has(imsb::msg::IMB3052I));
  }
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

// The hub falls silent without closing (SIGSTOP): three heartbeats later the client gives up on it,
// and re-joins once it answers again. As for a stopped member (member_failure_test.cpp), the loss is
// declared within three heartbeat intervals of the last frame heard, checked every quarter interval.
TEST(XcfReconnect, SilentHubIsDeclaredLostAfterThreeHeartbeats) {
  constexpr int heartbeat_ms = 500;
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", std::to_string(heartbeat_ms)});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder events;
  auto me = service.join(join_as("IMSBGRP", "WATCHER"), events);
  ASSERT_TRUE(me.code.ok());
  ASSERT_TRUE(hub.process().signal(SIGSTOP));
  const auto stopped_at = steady::now();
  const auto failed = events.wait_event(xcf::event_kind::failed, "WATCHER", milliseconds(10000));
  ASSERT_TRUE(failed);
  const auto after = std::chrono::duration_cast<milliseconds>(failed->at - stopped_at).count();
  std::cout << "[ timing   ] hub lost " << after << " ms after SIGSTOP (heartbeat " << heartbeat_ms
            << " ms, bounds " << 2 * heartbeat_ms << ".." << 3 * heartbeat_ms + heartbeat_ms / 4 + 300
            << ")\n";
  EXPECT_GE(after, 2 * heartbeat_ms);  // the last PING came at most one interval before the stop
  EXPECT_LE(after, 3 * heartbeat_ms + heartbeat_ms / 4 + 300);  // 3¼ intervals + scheduling slack
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

// Whether the hub lists `name` in `group` (a status query on a connection of its own).
bool hub_lists(transport::tcp_service& service, const std::string& group, const std::string& name) {
  std::vector<xcf::member_info> members;
  const auto rc = service.query(members, group, name);
  EXPECT_TRUE(rc == xcf::codes::ok || rc == xcf::codes::not_found) << xcf::describe(rc);
  return std::any_of(members.begin(), members.end(),
                     [&](const xcf::member_info& m) { return m.name == name; });
}

// A log that tests read while the backend writes to it.
class shared_log {
 public:
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
    };
  }
  std::size_t count(std::string_view id) const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<std::size_t>(std::count_if(lines_.begin(), lines_.end(),
                                                  [&](const std::string& l) { return l.rfind(id, 0) == 0; }));
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_.size();
  }
  bool wait_for(std::string_view id, milliseconds timeout) const {
    const auto until = steady::now() + timeout;
    while (steady::now() < until) {
      if (count(id) > 0) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return count(id) > 0;
  }
  std::string text() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const auto& l : lines_) all += l + "\n";
    return all;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// The hub comes back with an allow-list that no longer names the member: its re-join is refused 8/18,
// which no later attempt can change. The backend stops trying (IMB3054E); the member stays failed.
TEST(XcfReconnect, RejoinRefusedForGoodStopsTheRejoins) {
  temp_dir dir;
  auto hub = std::make_unique<hub_process>(
      dir, std::vector<std::string>{"--heartbeat-ms", "500", "--allow", "IMSBGRP=EXILE,STAYER"});
  const std::uint16_t port = hub->port();
  shared_log log;
  auto options = client_options(hub->endpoint());
  options.log = log.sink();
  options.reconnect_initial = milliseconds(50);
  options.reconnect_max = milliseconds(200);
  transport::tcp_service service(options);
  transport::tcp_service other(client_options(hub->endpoint()));
  recorder events;
  recorder stayer_events;
  auto exile = service.join(join_as("IMSBGRP", "EXILE", true), events);
  ASSERT_TRUE(exile.code.ok()) << xcf::describe(exile.code);
  auto stayer = other.join(join_as("IMSBGRP", "STAYER"), stayer_events);
  ASSERT_TRUE(stayer.code.ok()) << xcf::describe(stayer.code);

  ASSERT_TRUE(hub->process().signal(SIGKILL));
  ASSERT_TRUE(hub->process().wait_exit(milliseconds(5000)));
  ASSERT_TRUE(events.wait_event(xcf::event_kind::failed, "EXILE", milliseconds(5000)));
  ASSERT_TRUE(stayer_events.wait_event(xcf::event_kind::failed, "STAYER", milliseconds(5000)));
  const std::size_t mark = events.event_count();
  const std::size_t stayer_mark = stayer_events.event_count();
  // Same port: the clients were configured with it (see above).
  hub = std::make_unique<hub_process>(
      dir, std::vector<std::string>{"--heartbeat-ms", "500", "--allow", "IMSBGRP=STAYER"}, port);
  ASSERT_TRUE(log.wait_for(imsb::msg::IMB3054E, milliseconds(15000))) << log.text();
  EXPECT_NE(log.text().find("rc 8 rsn X'18'"), std::string::npos) << log.text();
  // The other member comes back; this one does not try again.
  ASSERT_TRUE(stayer_events.wait_event(xcf::event_kind::active, "STAYER", milliseconds(15000), stayer_mark));
  const std::size_t lines = log.size();
  std::this_thread::sleep_for(milliseconds(1000));  // five times the longest back-off
  EXPECT_EQ(log.size(), lines) << log.text();
  EXPECT_EQ(log.count(imsb::msg::IMB3052I), 0u) << log.text();
  EXPECT_EQ(events.event_count(), mark) << "a handler call after the final refusal";

  // It stays failed: sends and services say link down; leave ends it.
  EXPECT_EQ(exile.joined->send(xcf::target::by_name("STAYER"), {}, bytes{1}), xcf::codes::link_down);
  std::vector<xcf::member_info> members;
  EXPECT_EQ(exile.joined->query(members), xcf::codes::link_down);
  EXPECT_EQ(exile.joined->set_user_state({}), xcf::codes::link_down);
  EXPECT_EQ(exile.joined->leave(), xcf::codes::link_down);
  EXPECT_EQ(exile.joined->leave(), xcf::codes::not_active);
  ASSERT_EQ(stayer.joined->query(members), xcf::codes::ok);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].name, "STAYER");
  EXPECT_EQ(stayer.joined->leave(), xcf::codes::ok);
}

// leave() while the link is down: 12/4, and the member ends here — it does not re-join when the hub
// returns (tcp_xcf.hpp "Decisions").
TEST(XcfReconnect, LeaveWhileTheLinkIsDownEndsTheMember) {
  temp_dir dir;
  auto hub = std::make_unique<hub_process>(dir, std::vector<std::string>{"--heartbeat-ms", "500"});
  const std::uint16_t port = hub->port();
  shared_log log;
  auto options = client_options(hub->endpoint());
  options.log = log.sink();
  options.reconnect_initial = milliseconds(50);
  options.reconnect_max = milliseconds(200);
  transport::tcp_service service(options);
  recorder events;
  auto me = service.join(join_as("IMSBGRP", "LEAVER", true), events);
  ASSERT_TRUE(me.code.ok());
  ASSERT_TRUE(hub->process().signal(SIGKILL));
  ASSERT_TRUE(hub->process().wait_exit(milliseconds(5000)));
  ASSERT_TRUE(events.wait_event(xcf::event_kind::failed, "LEAVER", milliseconds(5000)));
  ASSERT_TRUE(log.wait_for(imsb::msg::IMB3053W, milliseconds(5000)));  // it is trying to re-join

  EXPECT_EQ(me.joined->leave(), xcf::codes::link_down);
  const std::size_t events_after = events.event_count();
  const std::size_t lines = log.size();
  // Same port: the client was configured with it.
  hub = std::make_unique<hub_process>(dir, std::vector<std::string>{"--heartbeat-ms", "500"}, port);
  std::this_thread::sleep_for(milliseconds(1000));
  EXPECT_EQ(log.size(), lines) << log.text();
  EXPECT_EQ(events.event_count(), events_after);
  EXPECT_FALSE(hub_lists(service, "IMSBGRP", "LEAVER"));
  EXPECT_EQ(me.joined->leave(), xcf::codes::not_active);  // IXCLEAVE 8/4 [C]: it is gone
  EXPECT_EQ(me.joined->send(xcf::target::by_name("LEAVER"), {}, bytes{1}), xcf::codes::not_active);
}

// quiesce() whose link drops before the hub answered: 12/4, and the member ends the same way.
TEST(XcfReconnect, QuiesceCutShortByTheLinkEndsTheMember) {
  temp_dir dir;
  auto hub = std::make_unique<hub_process>(dir, std::vector<std::string>{"--heartbeat-ms", "1000"});
  const std::uint16_t port = hub->port();
  shared_log log;
  auto options = client_options(hub->endpoint());
  options.log = log.sink();
  options.reconnect_initial = milliseconds(50);
  options.reconnect_max = milliseconds(200);
  transport::tcp_service service(options);
  recorder events;
  auto me = service.join(join_as("IMSBGRP", "HUSHER", true), events);
  ASSERT_TRUE(me.code.ok());

  // The hub stops before it can answer, and dies with the QUIESCE unread.
  ASSERT_TRUE(hub->process().signal(SIGSTOP));
  auto quiesced = std::async(std::launch::async, [&] { return me.joined->quiesce(); });
  EXPECT_EQ(quiesced.wait_for(milliseconds(300)), std::future_status::timeout);
  ASSERT_TRUE(hub->process().signal(SIGKILL));
  ASSERT_TRUE(hub->process().wait_exit(milliseconds(5000)));
  ASSERT_EQ(quiesced.wait_for(milliseconds(5000)), std::future_status::ready);
  EXPECT_EQ(quiesced.get(), xcf::codes::link_down);
  // No exit runs after the member's own IXCQUIES [C: XCF-STATES]: no failed events either.
  EXPECT_EQ(events.event_count(), 0u);

  hub = std::make_unique<hub_process>(dir, std::vector<std::string>{"--heartbeat-ms", "1000"}, port);
  std::this_thread::sleep_for(milliseconds(1000));
  EXPECT_EQ(log.count(imsb::msg::IMB3053W) + log.count(imsb::msg::IMB3052I), 0u) << log.text();
  EXPECT_FALSE(hub_lists(service, "IMSBGRP", "HUSHER"));
  EXPECT_EQ(me.joined->quiesce(), xcf::codes::not_active);
  EXPECT_EQ(me.joined->leave(), xcf::codes::not_active);
}

}  // namespace
}  // namespace imsb::test
