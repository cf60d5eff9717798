#pragma once
// What the two queue-manager round-trip benchmarks (qmgr_roundtrip, rabbitmq_roundtrip) share, so that
// their figures are measured the same way: N connections, each on its own thread and its own queue,
// each doing put-then-get of one message of `size` bytes as fast as it can for `seconds`; latency of
// each round trip recorded; one result line. bench/RESULTS.md "Queue manager round trips".

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace imsb::bench {

struct roundtrip_args {
  int connections = 1;
  bool persistent = true;
  double seconds = 5;
  std::size_t size = 256;
  std::string mode;  // free text for the result line ("in-process", "bindings", "tcp", "rabbitmq")
};

// Parses --connections N --persistent 0|1 --seconds S --size B (anything else: usage, exit 2).
inline roundtrip_args parse_roundtrip_args(int argc, char** argv, const char* usage) {
  roundtrip_args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s\n", usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--connections")
      a.connections = std::atoi(value().c_str());
    else if (k == "--persistent")
      a.persistent = value() != "0";
    else if (k == "--seconds")
      a.seconds = std::atof(value().c_str());
    else if (k == "--size")
      a.size = static_cast<std::size_t>(std::atol(value().c_str()));
    else if (k == "--mode")
      a.mode = value();
    else {
      std::fprintf(stderr, "%s\n", usage);
      std::exit(2);
    }
  }
  if (a.connections < 1 || a.seconds <= 0) {
    std::fprintf(stderr, "%s\n", usage);
    std::exit(2);
  }
  return a;
}

// Runs `one(worker, stop)` on `connections` threads; each returns its latencies in microseconds (one per
// round trip) or an empty vector with an error already printed. Prints:
//   system=<s> mode=<m> persistent=<0|1> connections=<n> size=<b> seconds=<t> roundtrips=<k> per_s=<r>
//   p50_us=<..> p99_us=<..>
// and returns 0, or 1 when a worker failed.
inline int run_roundtrips(
    const char* system, const roundtrip_args& a,
    const std::function<std::vector<std::uint32_t>(int, const std::atomic<bool>&)>& one) {
  std::atomic<bool> stop{false};
  std::vector<std::vector<std::uint32_t>> lat(static_cast<std::size_t>(a.connections));
  std::vector<std::thread> threads;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < a.connections; ++i)
    threads.emplace_back([&, i] { lat[static_cast<std::size_t>(i)] = one(i, stop); });
  std::this_thread::sleep_for(std::chrono::duration<double>(a.seconds));
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<std::uint32_t> all;
  for (auto& v : lat) {
    if (v.empty()) return 1;
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all[std::min(all.size() - 1, static_cast<std::size_t>(p * all.size()))];
  };
  std::printf(
      "system=%s mode=%s persistent=%d connections=%d size=%zu seconds=%.1f roundtrips=%zu per_s=%.0f "
      "p50_us=%u p99_us=%u\n",
      system, a.mode.c_str(), a.persistent ? 1 : 0, a.connections, a.size, elapsed, all.size(),
      static_cast<double>(all.size()) / elapsed, pct(0.50), pct(0.99));
  return 0;
}

inline std::uint32_t micros_since(std::chrono::steady_clock::time_point t) {
  return static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t).count());
}

}  // namespace imsb::bench
