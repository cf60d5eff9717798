#pragma once
// Shared by the imsemu end-to-end tests (imsemu_test.cpp, kill_test.cpp): the XCF names they use and the
// OTMA data helpers for a scripted client (tpipe::client_link over the xcfhub TCP backend).

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/transport/tcp_xcf.hpp"
#include "imsb/xcf/member.hpp"
#include "process.hpp"

namespace imsb::test {

inline constexpr const char* group_name = "XCFGRP1";
inline constexpr const char* ims_member = "IMSA";
inline constexpr const char* client_member = "MQCLIENT";
inline constexpr std::chrono::milliseconds wait_long{15000};
// xcfhub's liveness interval for these tests: a member silent for three of them is closed. The emulator
// answers on the thread that also fsyncs its journal, so on a loaded CI machine (ASan, two cores) a burst
// such as flood_test's 200 inputs can stall it past the hub's default 3 s; kills are seen at once anyway,
// when the TCP connection drops.
inline std::vector<std::string> hub_args(const std::string& port_file, int heartbeat_ms = 3000) {
  return {"--listen", "127.0.0.1:0",    "--port-file",
          port_file,  "--heartbeat-ms", std::to_string(heartbeat_ms)};
}

// ---- OTMA data --------------------------------------------------------------------------------------

inline std::string text_of(const bytes& raw) {
  const auto c = codepage::convert(raw, codepage::ccsid_037, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

inline bytes ebcdic(const std::string& s) {
  return codepage::convert(bytes_view::of(s), codepage::ccsid_819, codepage::ccsid_037).out;
}

inline std::string all_text(const otma::otma_message& m) {
  std::string s;
  for (const auto& seg : m.segments()) s += text_of(seg.data) + "\n";
  return s;
}

// IVTNO columns: trancode 8, process code 8, last 10, first 10, extension 10, zip 7.
inline std::string phone_line(const std::string& code, const std::string& last, const std::string& first = {},
                              const std::string& ext = {}, const std::string& zip = {}) {
  return codepage::pad_field("IVTNO", 8) + codepage::pad_field(code, 8) + codepage::pad_field(last, 10) +
         codepage::pad_field(first, 10) + codepage::pad_field(ext, 10) + codepage::pad_field(zip, 7);
}

// CM0 on a synchronized Tpipe with recoverable number `rsn`, or (rsn 0) CM1 on a plain Tpipe.
inline otma::otma_message make_input(const std::string& tpipe, const std::string& text, std::uint32_t rsn,
                                     const std::string& user = {}) {
  otma::otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.tpipe_name.set(tpipe);
  m.mci.processing_flags = rsn != 0 ? otma::processing::synchronized_tpipe : 0;
  m.mci.recoverable_seq = rsn;
  otma::transaction_state_data sd;
  sd.sync_flags = static_cast<std::uint8_t>(
      (rsn != 0 ? otma::sync_flags::commit_then_send : otma::sync_flags::send_then_commit) |
      otma::sync_flags::sync_level_confirm);
  m.state = sd;
  if (!user.empty()) {
    otma::security_data se;
    se.flag = otma::security_flag::check;
    se.set_user_id(user);
    m.security = se;
  }
  otma::application_data ap;
  ap.segments.push_back(otma::segment{0, ebcdic(text)});
  m.application = ap;
  return m;
}

// ---- Raw XCF member and the programs (samples_test.cpp, flood_test.cpp) ------------------------------

// A .hex vector under tests/vectors/ (hex digits, whitespace, '#' comments). The path comes from
// IMSB_VECTORS_DIR when the build defines it, else from this file's place in the tree.
inline std::string e2e_vectors_dir() {
#ifdef IMSB_VECTORS_DIR
  return IMSB_VECTORS_DIR;
#else
  std::string here = __FILE__;
  const auto at = here.rfind("/e2e/imsemu/");
  if (at == std::string::npos) throw std::runtime_error("cannot place tests/vectors from " + here);
  return here.substr(0, at) + "/vectors";
#endif
}
inline bytes read_hex(const std::string& relative) {
  bytes out;
  if (!from_hex(read_file(e2e_vectors_dir() + "/" + relative), out))
    throw std::runtime_error("bad hex in " + relative);
  return out;
}

// An XCF member joined through the xcfhub TCP backend with a plain member_handler: what it sends are exactly
// the given bytes (the control area a copy of the first 32, as tpipe/src/xcf_link.cpp does [I: XCF-MSGO]),
// and it records every message it gets, decoded when it decodes.
class raw_member final : public xcf::member_handler {
 public:
  struct received {
    bytes data;
    std::optional<otma::otma_message> otma;
    std::chrono::steady_clock::time_point at{};  // when it arrived (heartbeat intervals)
  };

  raw_member(const std::string& endpoint, const std::string& name) : name_(name) {
    transport::tcp_service_options o;
    o.endpoint = endpoint;
    o.connect_timeout = std::chrono::milliseconds(5000);
    service_ = std::make_unique<transport::tcp_service>(o);
  }
  ~raw_member() override {
    if (member_) member_->leave();
    member_.reset();
    service_.reset();
  }

  xcf::return_code join() {
    xcf::join_request rq;
    rq.group = group_name;
    rq.member = name_;
    auto r = service_->join(rq, *this);
    if (r.code.ok()) member_ = std::move(r.joined);
    return r.code;
  }

  xcf::return_code send(bytes_view data, const std::string& to = ims_member) {
    xcf::control_area control{};
    std::copy_n(data.begin(), std::min(control.size(), data.size()), control.begin());
    xcf::send_options opt;  // stream 0, ordered, as tpipe/xcf_link
    return member_->send(xcf::target::by_name(to), control, data, opt);
  }
  xcf::return_code send(const otma::otma_message& m, const std::string& to = ims_member) {
    auto enc = otma::encode_message(m);
    if (!enc) return xcf::codes::protocol_error;
    return send(bytes_view(*enc), to);
  }

  // A client-bid naming `name` (normally this member's own), with this security data: IMS's answer, ACK
  // or NAK, if one came; nullopt also when the send was refused.
  std::optional<otma::otma_message> bid(const std::string& name,
                                        std::optional<otma::security_data> security = std::nullopt) {
    tpipe::bid_params p;
    p.member = name;
    p.security = std::move(security);
    const std::size_t from = count();
    if (!send(tpipe::make_client_bid(p, false)).ok()) return std::nullopt;
    const long i = wait_for(from, [](const otma::otma_message& r) {
      return r.mci.is_response() && r.mci.is_command() && r.mci.command_type == otma::command::client_bid;
    });
    if (i < 0) return std::nullopt;
    return at(static_cast<std::size_t>(i)).otma;
  }

  // Waits for a message from index `from` on that satisfies `pred`; its index, or -1.
  long wait_for(std::size_t from, const std::function<bool(const otma::otma_message&)>& pred,
                std::chrono::milliseconds timeout = wait_long) {
    std::unique_lock<std::mutex> lock(mu_);
    long found = -1;
    cv_.wait_for(lock, timeout, [&] {
      for (std::size_t i = from; i < got_.size(); ++i) {
        if (got_[i].otma && pred(*got_[i].otma)) {
          found = static_cast<long>(i);
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::size_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return got_.size();
  }
  received at(std::size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    return got_.at(i);
  }

  void on_message(xcf::message msg) override {
    received r;
    r.at = std::chrono::steady_clock::now();
    r.data = std::move(msg.data);
    auto d = otma::decode_message(bytes_view(r.data));
    if (d) r.otma = std::move(d).value();
    {
      std::lock_guard<std::mutex> lock(mu_);
      got_.push_back(std::move(r));
    }
    cv_.notify_all();
  }
  void on_event(const xcf::member_event&) override {}

 private:
  std::string name_;
  std::unique_ptr<transport::tcp_service> service_;
  std::unique_ptr<xcf::member> member_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<received> got_;
};

// Starts xcfhub on a free loopback port, its log dir/xcfhub.log; the endpoint "127.0.0.1:port". Throws
// std::runtime_error, with the hub's log, when it gives no port.
inline std::string start_xcfhub(const temp_dir& dir, child_process& hub, int heartbeat_ms = 3000) {
  const std::string port_file = dir.file("hub.port");
  hub =
      child_process(IMSB_XCFHUB, hub_args(port_file, heartbeat_ms), output_to::file(dir.file("xcfhub.log")));
  const auto port = wait_for_file(port_file, wait_long);
  if (!port) throw std::runtime_error("xcfhub gave no port: " + read_file(dir.file("xcfhub.log")));
  return "127.0.0.1:" + std::to_string(std::stoi(*port));
}

// xcfhub and imsemu as child processes on loopback, with their logs in a temporary folder.
class ims_rig {
 public:
  ims_rig() { endpoint = start_xcfhub(dir, hub); }
  ~ims_rig() {
    if (ims.running()) {
      ims.signal(SIGTERM);
      ims.wait_exit(std::chrono::milliseconds(10000));
    }
    ims.stop();
    hub.stop();
  }
  std::string log() const { return read_file(dir.file("imsemu.log")); }

  // Starts imsemu (no operator console) and waits for its ready line IMB5080I; false if it did not come.
  bool start_ims(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"--hub", endpoint, "--state", dir.file("state"), "--no-console"};
    args.insert(args.end(), extra.begin(), extra.end());
    ims = child_process(IMSB_IMSEMU, args, output_to::file(dir.file("imsemu.log")));
    return wait_log(imsb::msg::IMB5080I);
  }
  // Waits until imsemu's console shows `what` (at or after `from` in its log); false on timeout.
  bool wait_log(std::string_view what, std::size_t from = 0,
                std::chrono::milliseconds timeout = wait_long) const {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const std::string text = log();
      if (text.size() > from && text.find(what, from) != std::string::npos) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  temp_dir dir;
  std::string endpoint;
  child_process hub;
  child_process ims;
};

}  // namespace imsb::test
