// The imsemu program's logic (program.hpp): definitions, engine + server_link, timer, console, stop.
//
// Console IDs: IMS's own for the OTMA XCF group [C: IMS messages DFS2360I "XCF GROUP JOINED
// SUCCESSFULLY.", DFS2361I "XCF GROUP CLOSED SUCCESSFULLY.", DFS2364E "RC=rc REASON=reason XCF JOIN
// FAILURE."]; IMB5080-IMB5099 for the emulator's own lines.

#include "imsb/imsemu/program.hpp"

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::imsemu {

namespace {

decode_error error_of(std::errc code, std::string field, std::string detail) {
  return decode_error{std::make_error_code(code), std::move(field), 0, std::move(detail)};
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08X", v);
  return buf;
}

std::string upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace

result<ims::definitions> load_definitions(const program_options& options) {
  ims::definitions defs;
  if (!options.config_file.empty()) {
    std::ifstream in(options.config_file, std::ios::binary);
    if (!in) {
      const int e = errno;
      return decode_error{std::error_code(e != 0 ? e : ENOENT, std::generic_category()), "definitions", 0,
                          "cannot read '" + options.config_file + "'"};
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = ims::parse_definitions(text.str());
    if (!parsed.ok()) return parsed.error();
    defs = std::move(parsed).value();
    if (!options.group.empty()) defs.grname = upper(options.group);
    if (!options.member.empty()) defs.otmanm = upper(options.member);
  } else {
    defs = ims::default_definitions(upper(options.group), upper(options.member));
  }
  if (defs.grname.empty() || defs.otmanm.empty()) {
    return error_of(std::errc::invalid_argument, "definitions",
                    "no XCF group or member: give --group and --member, or an IMS GRNAME=,OTMANM= statement");
  }
  return defs;
}

result<std::unique_ptr<program>> program::open(const program_options& options, console_fn console) {
  auto defs = load_definitions(options);
  if (!defs.ok()) return defs.error();
  auto e = engine::open(*defs, options.state_dir, options.cold_start, console);
  if (!e.ok()) return e.error();
  std::unique_ptr<program> p(new program(std::move(e).value(), *defs, options, console));
  for (const auto& f : options.faults) {
    const auto lines = p->operator_command("FAULT " + f);
    for (const auto& l : lines) {
      // commands.cpp answers a bad FAULT with IMB5061E and changes nothing.
      if (l.rfind(msg::IMB5061E, 0) == 0) return error_of(std::errc::invalid_argument, "--fault " + f, l);
    }
    for (const auto& l : lines) console(l);
  }
  return p;
}

program::program(std::unique_ptr<engine> e, const ims::definitions& defs, const program_options& options,
                 console_fn console)
    : console_(std::move(console)),
      group_(defs.grname),
      member_(defs.otmanm),
      imsid_(defs.imsid),
      state_dir_(options.state_dir.string()),
      cold_(options.cold_start),
      tick_ms_(options.tick_ms == 0 ? 100 : options.tick_ms),
      engine_(std::move(e)) {
  tpipe::server_config cfg;
  cfg.member = defs.otmanm;
  // [D] server token {u32 member index, u32 generation} (server_session.hpp): the generation is the
  // start time, so a client can tell a restarted IMS from the one it bid to.
  store_u32(cfg.token.data(), 1, byte_order::big);
  store_u32(cfg.token.data() + 4, static_cast<std::uint32_t>(std::time(nullptr)), byte_order::big);
  cfg.heartbeat_interval =
      options.heartbeat_ms ? *options.heartbeat_ms : std::uint64_t{defs.heartbeat_seconds} * 1000;
  cfg.output_ack_timeout = options.output_ack_timeout_ms;
  link_ = std::make_unique<tpipe::server_link>(cfg, *engine_);
  tpipe::server_link* link = link_.get();
  engine_->attach([link](const std::function<void(tpipe::server_session&)>& f) {
    link->with_session([&f](tpipe::server_session& s) { f(s); });
  });
}

program::~program() { stop("program ended"); }

xcf::return_code program::start(xcf::service& xcf, std::chrono::milliseconds retry_for) {
  const auto until = std::chrono::steady_clock::now() + retry_for;
  xcf::return_code rc;
  for (;;) {
    rc = link_->join(xcf, group_);
    if (rc.ok() || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!rc.ok()) {
    console_("DFS2364E RC=" + hex(rc.rc) + " REASON=" + hex(rc.rsn) + " XCF JOIN FAILURE. GROUP=" + group_ +
             " MEMBER=" + member_);
    return rc;
  }
  joined_ = true;
  console_("DFS2360I XCF GROUP JOINED SUCCESSFULLY. GROUP=" + group_ + " MEMBER=" + member_);
  console_(std::string(msg::IMB5080I) + " IMSEMU READY. IMSID=" + imsid_ + " GROUP=" + group_ +
           " MEMBER=" + member_ + " START=" + (cold_ ? "COLD" : "WARM") + " STATE=" + state_dir_);
  {
    std::lock_guard<std::mutex> lock(timer_mutex_);
    timer_stop_ = false;
  }
  if (!timer_.joinable()) timer_ = std::thread([this] { timer_loop(); });
  return rc;
}

void program::timer_loop() {
  std::unique_lock<std::mutex> lock(timer_mutex_);
  while (!timer_stop_) {
    timer_cv_.wait_for(lock, std::chrono::milliseconds(tick_ms_), [this] { return timer_stop_; });
    if (timer_stop_) break;
    lock.unlock();
    link_->tick();
    const tpipe::millis now = tpipe::steady_now();
    link_->with_session([&](tpipe::server_session&) { engine_->tick(now); });
    lock.lock();
  }
}

std::vector<std::string> program::operator_command(std::string_view line) {
  return link_->with_session([&](tpipe::server_session&) { return engine_->operator_command(line); });
}

void program::stop(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(timer_mutex_);
    timer_stop_ = true;
  }
  timer_cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  if (!joined_.exchange(false)) return;
  console_(std::string(msg::IMB5082I) + " STOPPING: " + why);
  // §2.2 [D]: a planned stop tells every ready client with suspend (X'14') before IMS leaves.
  link_->with_session([](tpipe::server_session& s) { s.suspend_all(); });
  link_->leave();
  console_("DFS2361I XCF GROUP CLOSED SUCCESSFULLY. GROUP=" + group_ + " MEMBER=" + member_);
}

}  // namespace imsb::imsemu
