// Fuzzes MQSC applied to a queue manager's catalog (imsb/objects/mqsc_exec.hpp): any bytes as a runmqsc
// script, on a fresh queue manager. Invariants (trap on violation): run_script never crashes; fed line
// by line through script_runner it prints exactly what run_script prints and leaves the same catalog
// (runmqsc streams, tests and `-f` files run whole); every changed catalog still encodes to text that
// decodes again (what the store writes, it can read back); run as a running queue manager runs it
// (queue status for DISPLAY's CURDEPTH, IPPROCS, OPPROCS) it leaves the same catalog.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/objects/catalog_text.hpp"
#include "imsb/objects/mqsc_exec.hpp"

namespace {

using namespace imsb::objects;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

const exec_context ctx{"2026-11-29", "12.00.00", false};

// As the queue manager's engine gives it (qmgr/src/engine_admin.cpp): a status for every local queue.
exec_context running_ctx() {
  exec_context r = ctx;
  r.qmgr_running = true;
  r.local_queue_status = [](const std::string& q) -> std::optional<exec_context::queue_status> {
    if (q.empty()) return std::nullopt;
    return exec_context::queue_status{static_cast<std::int64_t>(q.size() * 7 % 11),
                                      static_cast<std::int64_t>(q.size() % 2),
                                      static_cast<std::int64_t>(q.front() % 3)};
  };
  return r;
}

// A new queue manager's catalog, made once and copied for each run (making it is most of a run's cost).
object_catalog fresh() {
  static const object_catalog base = [] {
    auto made = new_queue_manager("QM1", imsb::names::fs_profile::fat83, "DLQ", "XMITQ", ctx);
    require(made.ok());
    return std::move(made.value());
  }();
  return base;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;  // MQSC scripts are text; long inputs only slow the search
  const std::string_view script(reinterpret_cast<const char*>(data), size);

  object_catalog whole = fresh();
  const script_outcome all = run_script(whole, script, ctx);

  object_catalog streamed = fresh();
  script_runner runner(streamed, ctx);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= script.size()) {
    std::size_t nl = script.find('\n', start);
    if (nl == std::string_view::npos) nl = script.size();
    if (nl == script.size() && start == script.size()) break;  // no empty line after a final '\n'
    for (auto& l : runner.feed_line(script.substr(start, nl - start))) lines.push_back(std::move(l));
    start = nl + 1;
  }
  script_outcome tail = runner.finish();
  for (auto& l : tail.lines) lines.push_back(std::move(l));
  require(lines == all.lines);
  require(tail.read == all.read && tail.syntax_errors == all.syntax_errors && tail.failed == all.failed);

  const std::string text = encode_catalog(whole);
  require(text == encode_catalog(streamed));
  static const exec_context running = running_ctx();
  object_catalog live = fresh();
  (void)run_script(live, script, running);
  require(encode_catalog(live) == text);
  auto back = decode_catalog(text);
  require(back.ok());
  require(encode_catalog(back.value()) == text);
  return 0;
}
