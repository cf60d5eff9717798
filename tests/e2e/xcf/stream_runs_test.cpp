// Sends without ack to two streams in turn: every send starts a new run (tcp_xcf.cpp member_link::
// runs_), no SEND_RSP comes for accepted sends, so past 256 runs the client fences them with a PING.
// A receiver that stalls makes the hub refuse 12/0, and each refusal must arm the stream of the refused
// send — which holds only if the hub answers in request order, its PONG after the SEND_RSPs before it
// (transport/README.md "Client backend behaviour", "Send" [D]). Both streams must resume and deliver
// every message once, in order.

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

constexpr std::uint64_t per_stream = 10000;
constexpr std::size_t message_size = 2048;  // every message: a stall fills the hub's 64 KiB buffer fast

bytes message_data(int stream, std::uint64_t seq) {
  bytes b(message_size);
  pattern_fill(static_cast<std::uint64_t>(stream), seq, b.data(), b.size());
  return b;
}

// The sender: goes back to the first refused message of a stream on each refusal it has not already
// answered (README "Send"); refusals of sends made before that are stale.
class two_stream_sender : public xcf::member_handler {
 public:
  struct lane {
    std::uint64_t next = 0;
    std::uint64_t gen = 0;
    std::uint64_t refusals = 0;
    std::uint64_t stale = 0;
    steady::time_point resume_at{};
  };

  void on_message(xcf::message) override {}
  void on_event(const xcf::member_event&) override {}
  void on_send_done(std::uint64_t id, xcf::return_code code) override {
    std::lock_guard<std::mutex> lock(mu);
    const auto found = sent.find(id);
    if (found == sent.end()) {
      fail("an answer for an unknown (or already answered) send " + std::to_string(id));
      return;
    }
    const auto [stream, seq, gen] = found->second;
    sent.erase(found);
    if (code != xcf::codes::resource_shortage) {  // ack was not asked: only refusals come
      fail("send " + std::to_string(id) + " answered " + xcf::describe(code));
      return;
    }
    lane& l = lanes[stream];
    if (gen != l.gen) {
      ++l.stale;
      return;
    }
    ++l.refusals;
    l.next = seq;
    ++l.gen;
    l.resume_at = steady::now() + milliseconds(1);
  }
  void fail(const std::string& what) {
    if (error.empty()) error = what;
  }

  std::mutex mu;                                                                // everything below
  lane lanes[3];                                                                // streams 1 and 2
  std::map<std::uint64_t, std::tuple<int, std::uint64_t, std::uint64_t>> sent;  // id → stream, seq, gen
  std::string error;
};

class two_stream_receiver : public xcf::member_handler {
 public:
  void on_message(xcf::message m) override {
    if (take(m)) std::this_thread::sleep_for(milliseconds(20));
  }
  // Checks and counts a message; true when the receiver should stall now, so that the hub's buffer
  // for it fills and the hub refuses.
  bool take(const xcf::message& m) {
    std::lock_guard<std::mutex> lock(mu);
    if (m.stream != 1 && m.stream != 2) {
      fail("message on stream " + std::to_string(m.stream));
      return false;
    }
    const std::uint64_t seq = control_seq(m.control);
    if (m.source_name != "SOURCE") fail("message from '" + m.source_name + "'");
    if (seq != expected[m.stream]) {
      fail("stream " + std::to_string(m.stream) + ": got " + std::to_string(seq) + ", expected " +
           std::to_string(expected[m.stream]));
      return false;
    }
    if (m.control != pattern_control(m.stream, seq) || m.data != message_data(m.stream, seq)) {
      fail("stream " + std::to_string(m.stream) + ": message " + std::to_string(seq) + " is not intact");
      return false;
    }
    expected[m.stream] = seq + 1;
    return ++total % 400 == 0;
  }
  void on_event(const xcf::member_event&) override {}
  void fail(const std::string& what) {
    if (error.empty()) error = what;
  }
  bool done() {
    std::lock_guard<std::mutex> lock(mu);
    return expected[1] >= per_stream && expected[2] >= per_stream;
  }

  std::mutex mu;
  std::uint64_t expected[3] = {0, 0, 0};
  std::uint64_t total = 0;
  std::string error;
};

TEST(XcfStreamRuns, TwoStreamsWithoutAckResumeAcrossFencedRuns) {
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", "1000", "--target-buffer", "65536", "--max-message", "8192",
                        "--log-level", "error"});
  two_stream_sender sender;
  two_stream_receiver receiver;
  auto options = client_options(hub.endpoint());
  options.outbound_limit = 256 * 1024;
  transport::tcp_service service_a(options);
  transport::tcp_service service_b(options);
  auto a = service_a.join(join_as("IMSBGRP", "SOURCE"), sender);
  ASSERT_TRUE(a.code.ok()) << xcf::describe(a.code);
  auto b = service_b.join(join_as("IMSBGRP", "SINK"), receiver);
  ASSERT_TRUE(b.code.ok()) << xcf::describe(b.code);

  std::atomic<bool> stop{false};
  std::size_t most_runs = 0;
  std::thread sending([&] {
    xcf::send_options so;
    so.ack = false;
    while (!stop) {
      for (int s = 1; s <= 2; ++s) {
        std::lock_guard<std::mutex> lock(sender.mu);
        if (!sender.error.empty()) return;
        auto& l = sender.lanes[s];
        if (steady::now() < l.resume_at || l.next >= per_stream) continue;
        const std::uint64_t seq = l.next;
        so.stream = static_cast<std::uint16_t>(s);
        const bytes data = message_data(s, seq);
        std::uint64_t id = 0;
        const auto rc = a.joined->send(xcf::target::by_name("SINK"),
                                       pattern_control(static_cast<std::uint64_t>(s), seq), data, so, &id);
        if (rc == xcf::codes::ok) {
          sender.sent[id] = {s, seq, l.gen};
          l.next = seq + 1;
        } else if (rc != xcf::codes::resource_shortage) {
          sender.fail("send refused at once: " + xcf::describe(rc));
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  });
  const auto started = steady::now();
  auto last_progress = started;
  std::uint64_t last_total = 0;
  bool all = false;
  while (steady::now() - started < milliseconds(90000)) {
    std::this_thread::sleep_for(milliseconds(100));
    if (receiver.done()) {
      all = true;
      break;
    }
    {
      std::lock_guard<std::mutex> l1(sender.mu);
      std::lock_guard<std::mutex> l2(receiver.mu);
      if (!sender.error.empty() || !receiver.error.empty()) break;
      if (receiver.total != last_total) {
        last_total = receiver.total;
        last_progress = steady::now();
      }
    }
    if (const auto st = transport::tcp_stats(*a.joined)) most_runs = std::max(most_runs, st->send_runs);
    if (steady::now() - last_progress > milliseconds(10000)) break;  // stuck: a stream never resumed
  }
  const auto elapsed = std::chrono::duration_cast<milliseconds>(steady::now() - started).count();
  stop = true;
  sending.join();

  {
    // Not held over leave(): a late answer would need sender.mu on the I/O thread.
    std::lock_guard<std::mutex> l1(sender.mu);
    std::lock_guard<std::mutex> l2(receiver.mu);
    EXPECT_EQ(sender.error, "");
    EXPECT_EQ(receiver.error, "");
    for (int s = 1; s <= 2; ++s) {
      std::cout << "[ stats    ] stream " << s << ": delivered " << receiver.expected[s] << ", hub refusals "
                << sender.lanes[s].refusals << " (+" << sender.lanes[s].stale << " stale)\n";
      EXPECT_EQ(receiver.expected[s], per_stream) << "stream " << s;
      // Both streams were refused and resumed, so each refusal armed its own stream.
      EXPECT_GT(sender.lanes[s].refusals, 0u) << "stream " << s;
    }
  }
  EXPECT_TRUE(all) << "no delivery for 10 s, or an error";
  std::cout << "[ timing   ] " << 2 * per_stream << " messages on two streams in " << elapsed
            << " ms; at most " << most_runs << " runs outstanding\n";
  // The fences keep the runs bounded: a PING goes past 256 and its PONG trims them.
  EXPECT_GT(most_runs, 0u);
  EXPECT_LE(most_runs, 4096u);
  const auto st = transport::tcp_stats(*a.joined);
  ASSERT_TRUE(st);
  EXPECT_LE(st->stream_states, 2u);
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

}  // namespace
}  // namespace imsb::test
