// Members that end badly, in processes of their own (member_tool): killed (the TCP close tells the hub
// at once), stopped (only the heartbeat can tell), and a duplicate name (refused, the first one keeps
// working). transport/README.md "Failure" and "Join" [D]; [C: XCF-STATES, XCF-JOIN].

#include <gtest/gtest.h>

#include <csignal>

#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

// member_tool joined as `name`, echoing what it gets.
child_process start_member_tool(const hub_process& hub, const std::string& name, bool lasting) {
  std::vector<std::string> args{"--connect", hub.endpoint(), "--group", "IMSBGRP", "--member", name};
  if (lasting) args.push_back("--lasting");
  child_process tool(IMSB_MEMBER_TOOL, args, output_to::capture());
  const auto ready = tool.wait_for_line("READY", milliseconds(15000));
  if (!ready) throw std::runtime_error("member_tool " + name + " did not join");
  return tool;
}

// Sends one message to `name` and waits for the echo: the member's process is alive and its link up.
void expect_echo(xcf::member& from, recorder& events, const std::string& name, std::uint64_t seq) {
  const bytes data = pattern_data(77, seq, 1000);
  ASSERT_EQ(from.send(xcf::target::by_name(name), pattern_control(77, seq), data), xcf::codes::ok);
  const auto got = events.wait_messages(1, milliseconds(10000));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].source_name, name);
  EXPECT_EQ(pattern_check(77, seq, got[0], 1000), "");
}

class XcfMemberFailure : public ::testing::TestWithParam<bool> {};

// SIGKILL: the kernel closes the socket, so the hub knows at once — well before the three heartbeats
// (3 s here) it would take otherwise.
TEST_P(XcfMemberFailure, KilledProcessIsSeenAtOnceByTheTcpClose) {
  const bool lasting = GetParam();
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", "1000"});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder observer;
  auto me = service.join(join_as("IMSBGRP", "OBSERVER"), observer);
  ASSERT_TRUE(me.code.ok()) << xcf::describe(me.code);

  child_process tool = start_member_tool(hub, "VICTIM", lasting);
  ASSERT_TRUE(observer.wait_event(xcf::event_kind::active, "VICTIM", milliseconds(5000)));
  expect_echo(*me.joined, observer, "VICTIM", 1);

  const auto killed_at = steady::now();
  ASSERT_TRUE(tool.signal(SIGKILL));
  const auto failed = observer.wait_event(xcf::event_kind::failed, "VICTIM", milliseconds(5000));
  ASSERT_TRUE(failed) << "no failed event for the killed member";
  const auto after = std::chrono::duration_cast<milliseconds>(failed->at - killed_at);
  EXPECT_LT(after.count(), 2000) << "seen after " << after.count() << " ms: by heartbeat, not by the close";
  std::cout << "[ timing   ] failed event " << after.count() << " ms after SIGKILL (heartbeat 1000 ms)\n";
  // Lasting: failed, and it can re-join with 4/8; otherwise gone (not-defined).
  EXPECT_EQ(failed->event.member.state, lasting ? xcf::member_state::failed : xcf::member_state::not_defined);
  const auto status = tool.wait_exit(milliseconds(5000));
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL);

  std::vector<xcf::member_info> members;
  const auto rc = me.joined->query(members, "VICTIM");
  if (lasting) {
    ASSERT_EQ(rc, xcf::codes::ok);
    ASSERT_EQ(members.size(), 1u);
    EXPECT_EQ(members[0].state, xcf::member_state::failed);
    recorder again;
    transport::tcp_service other(client_options(hub.endpoint()));
    auto rejoined = other.join(join_as("IMSBGRP", "VICTIM", true), again);
    EXPECT_EQ(rejoined.code, xcf::codes::was_failed);  // [C: XCF-JOIN] IXCJOINRSNWASFAILED
  } else {
    EXPECT_EQ(rc, xcf::codes::not_found);
    EXPECT_TRUE(members.empty());
  }
  // Sending to it is refused at once or by SEND_RSP: it is not active.
  std::uint64_t id = 0;
  const bytes data{1, 2, 3};
  if (!lasting) {
    const auto sent = me.joined->send(xcf::target::by_name("VICTIM"), {}, data, {}, &id);
    if (sent == xcf::codes::ok) {
      EXPECT_EQ(observer.wait_send_done(id, milliseconds(5000)), xcf::codes::not_active);
    } else {
      EXPECT_EQ(sent, xcf::codes::not_active);
    }
  }
  EXPECT_EQ(me.joined->leave(), xcf::codes::ok);
}

INSTANTIATE_TEST_SUITE_P(LastingOrNot, XcfMemberFailure, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Lasting" : "NotLasting";
                         });

// SIGSTOP: the socket stays open and nothing is said; only three silent heartbeat intervals tell.
// The rule: a stopped member is declared failed within three heartbeat intervals of
// its last sign of life. The hub checks every quarter interval, so "within" means at most 3¼ intervals
// after the last frame it heard (README "Failure"), plus scheduling slack for a loaded machine.
TEST(XcfMemberStopped, StoppedProcessFailsAfterThreeHeartbeats) {
  constexpr int heartbeat_ms = 500;
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", std::to_string(heartbeat_ms)});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder observer;
  auto me = service.join(join_as("IMSBGRP", "OBSERVER"), observer);
  ASSERT_TRUE(me.code.ok()) << xcf::describe(me.code);
  child_process tool = start_member_tool(hub, "SLEEPER", true);
  ASSERT_TRUE(observer.wait_event(xcf::event_kind::active, "SLEEPER", milliseconds(5000)));

  // The echo is (nearly) the last thing the hub hears from it: a PONG may still slip in before the stop.
  expect_echo(*me.joined, observer, "SLEEPER", 2);
  const auto last_heard = steady::now();
  ASSERT_TRUE(tool.signal(SIGSTOP));
  const auto stopped_at = steady::now();
  const auto failed = observer.wait_event(xcf::event_kind::failed, "SLEEPER", milliseconds(10000));
  ASSERT_TRUE(failed) << "a stopped member was not declared failed";
  const auto since_heard = std::chrono::duration_cast<milliseconds>(failed->at - last_heard).count();
  const auto since_stop = std::chrono::duration_cast<milliseconds>(failed->at - stopped_at).count();
  std::cout << "[ timing   ] failed " << since_stop << " ms after SIGSTOP (heartbeat " << heartbeat_ms
            << " ms, bounds " << 2 * heartbeat_ms << ".." << 3 * heartbeat_ms + heartbeat_ms / 4 + 300
            << ")\n";
  // Not before three silent intervals (less what it takes the echo to reach us from the hub)...
  EXPECT_GE(since_heard, 3 * heartbeat_ms - 50);
  // ...its last PONG came at most one interval before the stop...
  EXPECT_GE(since_stop, 2 * heartbeat_ms);
  // ...and within three intervals and the quarter-interval check, plus 300 ms of scheduling slack.
  EXPECT_LE(since_stop, 3 * heartbeat_ms + heartbeat_ms / 4 + 300);
  EXPECT_EQ(failed->event.member.state, xcf::member_state::failed);
  // README "Failure": EVENT status_missing comes before failed for a heartbeat loss.
  const auto missing = observer.wait_event(xcf::event_kind::status_missing, "SLEEPER", milliseconds(0));
  ASSERT_TRUE(missing);
  EXPECT_LE(missing->at, failed->at);

  ASSERT_TRUE(tool.signal(SIGCONT));
  tool.stop();
  EXPECT_EQ(me.joined->leave(), xcf::codes::ok);
}

// member_tool's output is a pipe nobody reads for a while (a test busy elsewhere, a stuck log
// collector): once the pipe is full its events wait, but its I/O thread must go on answering the hub's
// PINGs, or the hub would declare it failed.
TEST(XcfMemberStopped, BlockedOutputDoesNotStopTheHeartbeat) {
  constexpr int heartbeat_ms = 200;
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", std::to_string(heartbeat_ms)});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder observer;
  auto me = service.join(join_as("IMSBGRP", "CHATTER"), observer);
  ASSERT_TRUE(me.code.ok()) << xcf::describe(me.code);
  child_process tool = start_member_tool(hub, "MUTED", false);
  ASSERT_TRUE(observer.wait_event(xcf::event_kind::active, "MUTED", milliseconds(5000)));

  // Each user-state change is an EVENT line of about 40 bytes for the tool: 4000 of them are well
  // over a 64 KiB pipe, which this test does not read until the end.
  xcf::user_state state{};
  for (int i = 0; i < 4000; ++i) {
    state[0] = static_cast<std::uint8_t>(i);
    state[1] = static_cast<std::uint8_t>(i >> 8);
    ASSERT_EQ(me.joined->set_user_state(state), xcf::codes::ok);
  }
  // Ten heartbeat intervals with the pipe full.
  std::this_thread::sleep_for(milliseconds(10 * heartbeat_ms));
  for (const auto& e : observer.events()) {
    EXPECT_NE(e.event.kind, xcf::event_kind::status_missing) << e.event.member.name;
    EXPECT_NE(e.event.kind, xcf::event_kind::failed) << e.event.member.name;
  }
  std::vector<xcf::member_info> members;
  ASSERT_EQ(me.joined->query(members, "MUTED"), xcf::codes::ok);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].state, xcf::member_state::active);
  expect_echo(*me.joined, observer, "MUTED", 3);  // and it still works

  // Its events all come out once the pipe is read, in order.
  ASSERT_TRUE(tool.signal(SIGTERM));
  const std::string out = tool.read_all(milliseconds(15000));
  std::size_t lines = 0;
  for (std::size_t at = out.find("EVENT user-state CHATTER"); at != std::string::npos;
       at = out.find("EVENT user-state CHATTER", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 4000u);
  EXPECT_NE(out.find("LEFT 0 0"), std::string::npos) << out.substr(out.size() > 300 ? out.size() - 300 : 0);
  EXPECT_EQ(me.joined->leave(), xcf::codes::ok);
}

// A second member of an active name is refused 8/8; the first goes on as if nothing happened.
TEST(XcfDuplicateName, SecondJoinRefusedAndFirstKeepsWorking) {
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", "1000"});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder peer_events;
  auto peer = service.join(join_as("IMSBGRP", "PEER"), peer_events);
  ASSERT_TRUE(peer.code.ok());
  child_process first = start_member_tool(hub, "TWIN", false);
  ASSERT_TRUE(peer_events.wait_event(xcf::event_kind::active, "TWIN", milliseconds(5000)));

  // The duplicate from another process...
  child_process second(IMSB_MEMBER_TOOL,
                       {"--connect", hub.endpoint(), "--group", "IMSBGRP", "--member", "TWIN"},
                       output_to::capture());
  const auto refused = second.wait_for_line("JOIN-FAILED", milliseconds(15000));
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused, "JOIN-FAILED 8 8");
  const auto status = second.wait_exit(milliseconds(5000));
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 3);
  // ...and from this one.
  recorder dup_events;
  transport::tcp_service other(client_options(hub.endpoint()));
  auto dup = other.join(join_as("IMSBGRP", "TWIN"), dup_events);
  EXPECT_EQ(dup.code, xcf::codes::already_active);
  EXPECT_EQ(dup.joined, nullptr);

  // The first TWIN still echoes, and nobody saw it fail or leave.
  for (std::uint64_t seq = 10; seq < 15; ++seq) expect_echo(*peer.joined, peer_events, "TWIN", seq);
  for (const auto& e : peer_events.events()) {
    EXPECT_NE(e.event.kind, xcf::event_kind::failed) << e.event.member.name;
    EXPECT_NE(e.event.kind, xcf::event_kind::left) << e.event.member.name;
  }
  std::vector<xcf::member_info> members;
  ASSERT_EQ(peer.joined->query(members, "TWIN"), xcf::codes::ok);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].state, xcf::member_state::active);
  EXPECT_TRUE(first.running());
  EXPECT_EQ(peer.joined->leave(), xcf::codes::ok);
}

}  // namespace
}  // namespace imsb::test
