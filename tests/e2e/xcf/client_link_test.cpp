// The client backend's link against a scripted stand-in for the hub (fake_hub.hpp), for what a real
// hub never does: accept every re-join and drop it at once (the back-off must still grow, with
// jitter), and send frames over the maximum it announced (transport/README.md "Client backend
// behaviour" [D]).

#include <gtest/gtest.h>

#include "fake_hub.hpp"
#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

namespace frame = xcf::frame;

// A hub that takes each JOIN and closes at once, twelve times; then keeps one link up for 2.3 s and
// drops it; then keeps the next until the client goes. The gaps between a close and the next connection
// are the client's back-off delays.
TEST(XcfClientLink, BackoffGrowsWhileTheHubDropsUsAndJitters) {
  constexpr int flaps = 13;  // connections 0..12 dropped at once: 12 gaps
  constexpr milliseconds held(2300);
  fake_hub hub([&](fake_hub_connection& conn, int n) {
    if (!conn.accept_join(65536, 0, static_cast<std::uint8_t>(n), milliseconds(5000))) return;
    if (n < flaps) return;
    conn.wait_close(n == flaps ? held : milliseconds(60000));
  });
  auto options = client_options(hub.endpoint());
  options.reconnect_initial = milliseconds(50);
  options.reconnect_max = milliseconds(400);
  transport::tcp_service service(options);
  recorder events;
  auto me = service.join(join_as("IMSBGRP", "FLAPPER"), events);
  ASSERT_TRUE(me.code.ok()) << xcf::describe(me.code);
  ASSERT_TRUE(hub.wait_accepted(flaps + 2, milliseconds(30000))) << hub.visit_count() << " connections";
  const auto visits = hub.visits();

  // Nominal delays: 50 doubling to 400 ms — the successful re-joins did not reset it, since none of
  // those links stayed up for 2 s. Timers never fire early, so a gap below its nominal delay shows the
  // jitter; without jitter none would be.
  const milliseconds slack(200);
  milliseconds nominal(50);
  int below = 0;
  std::string gaps;
  for (int k = 0; k < flaps; ++k) {  // gap k: connection k dropped, k + 1 accepted
    const auto gap = std::chrono::duration_cast<std::chrono::microseconds>(
        visits[static_cast<std::size_t>(k) + 1].accepted - visits[static_cast<std::size_t>(k)].closed);
    gaps += " " + std::to_string(gap.count() / 1000);
    EXPECT_GE(gap, nominal * 8 / 10 - milliseconds(2))
        << "gap " << k << " (nominal " << nominal.count() << " ms)";
    EXPECT_LE(gap, nominal * 12 / 10 + slack) << "gap " << k << " (nominal " << nominal.count() << " ms)";
    if (gap < nominal * 99 / 100) ++below;
    nominal = std::min(nominal * 2, milliseconds(400));
  }
  // After a link that stayed up for 2.3 s the back-off starts again from 50 ms (±20 %).
  const auto after_held = std::chrono::duration_cast<std::chrono::microseconds>(visits[flaps + 1].accepted -
                                                                                visits[flaps].closed);
  const auto held_for = visits[flaps].closed - visits[flaps].accepted;
  std::cout << "[ timing   ] back-off gaps (ms):" << gaps << "; after a link up for "
            << std::chrono::duration_cast<milliseconds>(held_for).count()
            << " ms: " << after_held.count() / 1000 << " ms\n";
  EXPECT_GT(below, 0) << "no delay below its nominal value: no jitter";
  EXPECT_GE(after_held, milliseconds(40) - milliseconds(2));
  EXPECT_LE(after_held, milliseconds(60) + slack);
}

// Frames over the maximum the hub announced in JOIN_RSP break the link: a header that claims more than
// any frame may carry is refused at once (not waited for), and a whole DELIVER over the maximum too.
TEST(XcfClientLink, FramesOverTheHubsMaximumBreakTheLink) {
  constexpr std::uint32_t max_payload = 4096;
  std::atomic<bool> header_refused{false};
  std::atomic<long long> header_refused_ms{-1};
  std::atomic<bool> deliver_refused{false};
  fake_hub hub([&](fake_hub_connection& conn, int n) {
    if (!conn.accept_join(max_payload, 0, static_cast<std::uint8_t>(n), milliseconds(5000))) return;
    if (n == 0) {
      // Let the client settle on the announced maximum, then claim a 6 MB DELIVER and send nothing more.
      std::this_thread::sleep_for(milliseconds(200));
      bytes head;
      frame::encode_header(frame::header{frame::frame_type::deliver, frame::flags::ordered, 0, 6000000},
                           head);
      const auto sent = steady::now();
      if (!conn.write(head)) return;
      header_refused = conn.wait_close(milliseconds(5000));
      header_refused_ms = std::chrono::duration_cast<milliseconds>(steady::now() - sent).count();
      return;
    }
    frame::deliver_payload d;
    d.source_name = "OTHER";
    d.stream = 1;
    if (n == 1) {
      d.data = bytes(8000, 0x5A);  // 58 + 8000 bytes of payload: over 4096
      if (!conn.send(frame::frame_type::deliver, 0, d)) return;
      deliver_refused = conn.wait_close(milliseconds(5000));
      return;
    }
    d.data = bytes(100, 0x5B);  // within the maximum: delivered
    if (!conn.send(frame::frame_type::deliver, 0, d)) return;
    conn.wait_close(milliseconds(60000));
  });
  std::vector<std::string> log;
  std::mutex log_mu;
  auto options = client_options(hub.endpoint());
  options.reconnect_initial = milliseconds(20);
  options.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mu);
    log.push_back(line);
  };
  transport::tcp_service service(options);
  recorder events;
  auto me = service.join(join_as("IMSBGRP", "GUARDED"), events);
  ASSERT_TRUE(me.code.ok()) << xcf::describe(me.code);
  const auto got = events.wait_messages(1, milliseconds(15000));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, bytes(100, 0x5B));
  EXPECT_TRUE(header_refused) << "the client waited for a 6 MB payload";
  std::cout << "[ timing   ] oversized header refused after " << header_refused_ms << " ms\n";
  EXPECT_LT(header_refused_ms, 1000);
  EXPECT_TRUE(deliver_refused) << "the client took a DELIVER over the hub's maximum";
  std::size_t failures = 0;
  for (const auto& e : events.events()) {
    if (e.event.kind == xcf::event_kind::failed && e.event.member.name == "GUARDED") ++failures;
  }
  EXPECT_EQ(failures, 2u);
  std::lock_guard<std::mutex> lock(log_mu);
  std::string all;
  for (const auto& l : log) all += l + "\n";
  EXPECT_NE(all.find("does not decode"), std::string::npos) << all;
  EXPECT_NE(all.find("over its maximum of 4096"), std::string::npos) << all;
}

}  // namespace
}  // namespace imsb::test
