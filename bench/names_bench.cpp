// The file-name map under the queue manager's object churn: runmqsc DEFINEs N queues (each a
// file_name_map::transform in the object name space) and then DELETEs them all (each an erase). The
// deletes run in definition order, the order a script that cleans up after itself uses.
// BM_EraseOneOfN isolates one erase + re-transform in a map that holds N names.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "imsb/names/file_name.hpp"
#include "imsb/names/file_name_map.hpp"

namespace {

using namespace imsb::names;

std::vector<std::string> queue_names(std::size_t n) {
  std::vector<std::string> names;
  names.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::string digits = std::to_string(i);
    names.push_back("APP.ORDERS." + std::string(6 - digits.size(), '0') + digits);
  }
  return names;
}

void BM_DefineThenDelete(benchmark::State& state) {
  const std::vector<std::string> names = queue_names(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    file_name_map map(fs_profile::posix, name_space::object);
    for (const std::string& name : names) {
      auto r = map.transform(name);
      if (!r.ok()) state.SkipWithError("transform failed");
    }
    for (const std::string& name : names) {
      if (!map.erase(name)) state.SkipWithError("erase failed");
    }
    benchmark::DoNotOptimize(map.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(names.size()));
}
BENCHMARK(BM_DefineThenDelete)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_EraseOneOfN(benchmark::State& state) {
  const std::vector<std::string> names = queue_names(static_cast<std::size_t>(state.range(0)));
  file_name_map map(fs_profile::posix, name_space::object);
  for (const std::string& name : names) map.transform(name);
  const std::string& middle = names[names.size() / 2];
  for (auto _ : state) {
    benchmark::DoNotOptimize(map.erase(middle));
    benchmark::DoNotOptimize(map.transform(middle));
  }
}
BENCHMARK(BM_EraseOneOfN)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
