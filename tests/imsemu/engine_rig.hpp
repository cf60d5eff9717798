#pragma once
// The engine's test rig, shared by engine_test and engine_review_test: the engine driven through a real
// tpipe::server_session against a tpipe::client_session, their send() callbacks wired to each other's
// receive() through a queue (no XCF), with a temporary state folder.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/client_session.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace imsb::imsemu::test_rig {

namespace fs = std::filesystem;
using otma::otma_message;

inline constexpr const char* client_name = "MQCLIENT";

inline std::string text_of(const bytes& raw) {
  const auto c = codepage::convert(raw, codepage::ccsid_037, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

inline bytes ebcdic(const std::string& s) {
  return codepage::convert(bytes_view::of(s), codepage::ccsid_819, codepage::ccsid_037).out;
}

inline std::string all_text(const otma_message& m) {
  std::string s;
  for (const auto& seg : m.segments()) s += text_of(seg.data) + "\n";
  return s;
}

// IVTNO columns: trancode 8, process code 8, last 10, first 10, extension 10, zip 7.
inline std::string phone_line(const std::string& tran, const std::string& code, const std::string& last,
                              const std::string& first = {}, const std::string& ext = {},
                              const std::string& zip = {}) {
  return codepage::pad_field(tran, 8) + codepage::pad_field(code, 8) + codepage::pad_field(last, 10) +
         codepage::pad_field(first, 10) + codepage::pad_field(ext, 10) + codepage::pad_field(zip, 7);
}

struct input_options {
  bool cm1 = false;
  bool synchronized = false;
  std::uint32_t rsn = 0;
  std::string user;
  std::string group;
  std::uint8_t security_flag = otma::security_flag::none;
  bool utoken = false;
  std::string lterm;
};

inline otma_message make_input(const std::string& tpipe, const std::string& text, const input_options& o) {
  otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.tpipe_name.set(tpipe);
  m.mci.processing_flags = o.synchronized ? otma::processing::synchronized_tpipe : 0;
  m.mci.recoverable_seq = o.rsn;
  otma::transaction_state_data sd;
  sd.sync_flags = static_cast<std::uint8_t>(
      (o.cm1 ? otma::sync_flags::send_then_commit : otma::sync_flags::commit_then_send) |
      otma::sync_flags::sync_level_confirm);
  if (!o.lterm.empty()) sd.lterm_override.set(o.lterm);
  m.state = sd;
  if (!o.user.empty()) {
    otma::security_data se;
    se.flag = o.security_flag;
    se.set_user_id(o.user);
    if (!o.group.empty()) se.set_profile(o.group);
    if (o.utoken) se.set_utoken(bytes(16, 0x11));
    m.security = se;
  }
  otma::application_data ap;
  ap.segments.push_back(otma::segment{0, ebcdic(text)});
  m.application = ap;
  return m;
}

struct commit_seen {
  std::string tpipe;
  std::uint32_t send_seq;
  bool committed;
};

class test_client final : public tpipe::client_observer {
 public:
  explicit test_client(std::deque<std::pair<bool, bytes>>& wire) : wire_(wire) {
    tpipe::client_config cfg;
    cfg.bid.member = client_name;
    cfg.server_member = "IMSA";
    cfg.resync = true;
    session = std::make_unique<tpipe::client_session>(cfg, *this);
  }

  void send(bytes buffer) override {
    if (direct) {
      direct(buffer);
      return;
    }
    wire_.emplace_back(true, std::move(buffer));
  }
  void on_session_ready() override { ready = true; }
  void on_bid_rejected(std::uint16_t sense, std::uint16_t) override { bid_rejected = sense; }
  void on_session_lost(const std::string& reason) override {
    ready = false;
    lost_reason = reason;
  }
  std::optional<tpipe::client_tpipe_record> tpipe_record(std::string_view tpipe) override {
    auto it = records.find(std::string(tpipe));
    if (it == records.end()) return std::nullopt;
    return it->second;
  }
  void on_resync_decision(std::string_view, const tpipe::resync_decision& d) override {
    decisions.push_back(d);
  }
  void on_tpipe_unknown_to_server(std::string_view) override {}
  void on_input_response(const tpipe::input_response& r) override {
    responses.push_back(r);
    if (r.ack && r.recoverable_seq != 0) records[r.tpipe].send = r.recoverable_seq;
  }
  void on_output(const otma_message& m) override {
    outputs.push_back(m);
    if (!m.mci.response_requested() || !auto_ack) return;
    // CM0 step 6: commit (record the receive number), then ACK.
    if (m.mci.recoverable_seq != 0) records[tpipe::tpipe_of(m)].receive = m.mci.recoverable_seq;
    session->ack_output(m);
  }
  void on_commit_confirmation(std::string_view tpipe, std::uint32_t seq, bool committed) override {
    commits.push_back({std::string(tpipe), seq, committed});
  }
  void on_server_state(std::uint16_t status) override { server_states.push_back(status); }
  void on_suspend() override {}
  std::vector<std::string> our_synchronized_tpipes() override {
    std::vector<std::string> v;
    for (const auto& [k, r] : records) v.push_back(k);
    return v;
  }

  std::unique_ptr<tpipe::client_session> session;
  std::function<void(const bytes&)> direct;  // synchronous wiring: straight into the server
  bool ready = false;
  bool auto_ack = true;
  std::uint16_t bid_rejected = 0;
  std::string lost_reason;
  std::map<std::string, tpipe::client_tpipe_record> records;
  std::vector<tpipe::resync_decision> decisions;
  std::vector<tpipe::input_response> responses;
  std::vector<otma_message> outputs;
  std::vector<commit_seen> commits;
  std::vector<std::uint16_t> server_states;

 private:
  std::deque<std::pair<bool, bytes>>& wire_;
};

class engine_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-engine-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    defs_ = ims::default_definitions("XCFGRP1", "IMSA");
    client_ = std::make_unique<test_client>(wire_);
  }
  void TearDown() override {
    server_.reset();
    engine_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void open_engine() {
    auto e = engine::open(defs_, dir_, false, [this](const std::string& line) { console_.push_back(line); });
    ASSERT_TRUE(e.ok()) << e.error().to_string();
    engine_ = std::move(e).value();
    tpipe::server_config cfg;
    cfg.member = "IMSA";
    cfg.heartbeat_interval = 0;
    server_ = std::make_unique<tpipe::server_session>(cfg, *engine_);
    engine_->attach([this](const std::function<void(tpipe::server_session&)>& f) { f(*server_); });
    engine_->set_sender([this](std::string_view, bytes b) {
      if (synchronous_) {
        client_->session->receive(b, now_);
        return;
      }
      wire_.emplace_back(false, std::move(b));
    });
  }
  void close_engine() {
    server_.reset();
    engine_.reset();
    wire_.clear();
    client_->session->server_gone("IMS stopped");
  }
  void pump() {
    for (int guard = 0; !wire_.empty() && guard < 10000; ++guard) {
      auto [to_server, b] = std::move(wire_.front());
      wire_.pop_front();
      now_ += 1;
      if (to_server) {
        if (server_) server_->receive(client_name, b, now_);
      } else {
        client_->session->receive(b, now_);
      }
    }
  }
  void connect() {
    server_->client_joined(client_name, now_);
    client_->session->start(now_);
    pump();
    ASSERT_TRUE(client_->ready) << client_->lost_reason;
  }
  void send(const otma_message& m) {
    auto r = client_->session->send_input(m, now_);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    pump();
  }
  const tpipe::input_response& last_response() const { return client_->responses.back(); }
  std::string last_output_text() const {
    return client_->outputs.empty() ? std::string() : all_text(client_->outputs.back());
  }
  std::size_t queued(const std::string& tpipe) const {
    const auto& outs = engine_->log().state().outputs;
    auto it = outs.find({client_name, tpipe});
    return it == outs.end() ? 0 : it->second.size();
  }
  bool console_has(std::string_view id) const {
    for (const auto& l : console_) {
      if (l.find(id) != std::string::npos) return true;
    }
    return false;
  }

  fs::path dir_;
  ims::definitions defs_;
  std::deque<std::pair<bool, bytes>> wire_;
  std::unique_ptr<test_client> client_;
  std::unique_ptr<engine> engine_;
  std::unique_ptr<tpipe::server_session> server_;
  std::vector<std::string> console_;
  tpipe::millis now_ = 1000;
  bool synchronous_ = false;
};

inline input_options cm0_sync(std::uint32_t rsn) {
  input_options o;
  o.synchronized = true;
  o.rsn = rsn;
  return o;
}

inline input_options cm1_plain() {
  input_options o;
  o.cm1 = true;
  return o;
}

}  // namespace imsb::imsemu::test_rig
