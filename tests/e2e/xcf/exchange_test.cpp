// Two members exchange many messages through a real xcfhub, both directions at once: content and order
// arrive intact, and the hub's 12/0 refusals are survived by re-sending from the first refused message
// with the resume flag (transport/README.md "Send" [D]).

#include <gtest/gtest.h>

#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

constexpr std::uint64_t messages_per_direction = 50000;  // 100,000 messages in all

TEST(XcfExchange, HundredThousandMessagesBothWaysInOrderAcrossRefusals) {
  temp_dir dir;
  // A small buffer per target, and a receiver that stalls now and then, so that the hub refuses.
  hub_process hub(dir, {"--heartbeat-ms", "1000", "--max-message", "131072", "--target-buffer", "1048576",
                        "--log-level", "error"});
  duplex_exchange::settings settings;
  settings.count = messages_per_direction;
  settings.stall_every = 5000;
  settings.stall_time = milliseconds(60);
  // The sender goes back while on_send_done still runs: the resume must land on the re-send only.
  settings.back_off = std::chrono::microseconds(500);
  settings.linger = std::chrono::microseconds(3000);
  duplex_exchange exchange(settings);

  // One service (and I/O thread) per member, as two processes would have. A small outbound bound keeps
  // the sender close to what the hub has seen, so a refusal wastes few sends.
  auto options = client_options(hub.endpoint());
  options.outbound_limit = 256 * 1024;
  transport::tcp_service service_a(options);
  transport::tcp_service service_b(options);
  auto a = service_a.join(join_as("IMSBGRP", "ALPHA"), exchange.handler(0));
  ASSERT_TRUE(a.code.ok()) << xcf::describe(a.code);
  auto b = service_b.join(join_as("IMSBGRP", "BRAVO"), exchange.handler(1));
  ASSERT_TRUE(b.code.ok()) << xcf::describe(b.code);

  const exchange_stopper stopper(exchange);  // before a and b go, whatever happens
  const auto started = steady::now();
  exchange.start(*a.joined, *b.joined);
  // Not a speed test: it fails when the exchange stops moving for 10 s (or takes over 300 s).
  const bool done = exchange.wait_while_moving(milliseconds(10000), milliseconds(300000));
  const auto elapsed = std::chrono::duration_cast<milliseconds>(steady::now() - started);
  exchange.stop();
  std::uint64_t refusals = 0;
  for (int lane = 0; lane < 2; ++lane) {
    const auto st = exchange.stats(lane);
    std::cout << "[ stats    ] lane " << lane << ": delivered " << st.delivered << ", sent " << st.sent
              << ", hub refusals " << st.hub_refusals << " (+" << st.stale_refusals
              << " stale), local refusals " << st.local_refusals << ", acknowledged " << st.acked << "\n";
    refusals += st.hub_refusals;
  }
  ASSERT_EQ(exchange.error(), "");
  ASSERT_TRUE(done) << "the exchange stopped moving for 10 s (or took over 300 s) after " << elapsed.count()
                    << " ms";
  for (int lane = 0; lane < 2; ++lane) {
    const auto st = exchange.stats(lane);
    EXPECT_EQ(st.delivered, messages_per_direction) << "lane " << lane;
    EXPECT_GE(st.sent, messages_per_direction) << "lane " << lane;
    // Every send got exactly one answer: accepted once per message, refused for each re-send.
    EXPECT_EQ(st.unanswered, 0u) << "lane " << lane;
    EXPECT_EQ(st.acked, messages_per_direction) << "lane " << lane;
    EXPECT_EQ(st.sent, st.acked + st.hub_refusals + st.stale_refusals) << "lane " << lane;
  }
  EXPECT_GT(refusals, 0u) << "the stalls should have made the hub refuse";
  std::cout << "[ timing   ] " << 2 * messages_per_direction << " messages in " << elapsed.count() << " ms\n";
  RecordProperty("exchange_ms", static_cast<int>(elapsed.count()));

  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

// The sizes the exchange uses: log-uniform over 1..65536, both ends included.
TEST(XcfExchange, PatternSizesCoverOneByteTo64KiB) {
  std::size_t small = 0;
  std::size_t large = 0;
  for (std::uint64_t seq = 0; seq < messages_per_direction; ++seq) {
    const auto n = pattern_size(0xA11CE000u, seq);
    ASSERT_GE(n, 1u);
    ASSERT_LE(n, 65536u);
    if (n <= 256) ++small;
    if (n > 16384) ++large;
  }
  EXPECT_EQ(pattern_size(0xA11CE000u, 0), 1u);
  EXPECT_EQ(pattern_size(0xA11CE000u, 1), 65536u);
  // log-uniform: half the sizes up to 256 (2^8 of 2^16), an eighth above 16384.
  EXPECT_NEAR(static_cast<double>(small) / messages_per_direction, 0.5, 0.03);
  EXPECT_NEAR(static_cast<double>(large) / messages_per_direction, 0.125, 0.03);
}

}  // namespace
}  // namespace imsb::test
