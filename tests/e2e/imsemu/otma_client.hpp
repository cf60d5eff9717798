#pragma once
// The scripted OTMA client of the imsemu end-to-end tests (tpipe::client_link over the xcfhub TCP backend,
// recording what IMS sends and ACKing output only after it has "committed" it: CM0 step 6 of
// docs/design/commit-modes.md, [C: IMS-RS-CS]) and the fixture that starts xcfhub and imsemu as child
// processes on loopback.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/xcf_link.hpp"
#include "imsb/transport/tcp_xcf.hpp"
#include "imsemu_e2e.hpp"
#include "process.hpp"

namespace imsb::test {

using otma::otma_message;
using std::chrono::milliseconds;

// ---- The scripted OTMA client -----------------------------------------------------------------------

// Owner of a client_link: callbacks come on the backend's I/O thread under the link's lock; this class
// records under its own mutex and never takes the link's lock while holding it.
class otma_client final : public tpipe::client_observer {
 public:
  // `member`: the client's XCF member name (a second client, e.g. an ALTPCB destination, needs another).
  explicit otma_client(const std::string& endpoint, const std::string& member = client_member) {
    transport::tcp_service_options o;
    o.endpoint = endpoint;
    o.connect_timeout = milliseconds(5000);
    service_ = std::make_unique<transport::tcp_service>(o);
    tpipe::client_config cfg;
    cfg.bid.member = member;
    cfg.server_member = ims_member;
    cfg.resync = true;
    link_ = std::make_unique<tpipe::client_link>(cfg, *this);
  }
  ~otma_client() override {
    link_->leave();
    link_.reset();
  }

  xcf::return_code join() { return link_->join(*service_, group_name); }

  result<std::uint32_t> send(const otma_message& m) {
    return link_->with_session(
        [&](tpipe::client_session& s) { return s.send_input(m, tpipe::steady_now()); });
  }

  // The test's own answer to an output it did not auto-ACK (auto_ack false): a NAK with `sense`. Not under
  // the client's mutex (the link's lock is taken).
  void nak_output(const otma_message& m, std::uint16_t sense) {
    link_->with_session([&](tpipe::client_session& s) { s.nak_output(m, sense); });
  }

  // ACK an output by hand (with auto_ack off), and deallocate a conversation [C: IMS-CONV]. Not under the
  // client's mutex either.
  void ack(const otma_message& m) {
    link_->with_session([&](tpipe::client_session& s) { s.ack_output(m); });
  }
  void deallocate(const std::string& tpipe, const otma::raw_bytes<16>& server_token) {
    link_->with_session([&](tpipe::client_session& s) { s.send_deallocate(tpipe, server_token); });
  }

  // Waits until `pred` (called under the client's mutex) holds.
  bool wait(const std::function<bool()>& pred, milliseconds timeout = wait_long) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, pred);
  }
  template <class F>
  auto locked(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    return f();
  }

  // tpipe::client_observer
  void send(bytes) override {}  // the link sends
  void on_session_ready() override {
    note([&] { ++ready_count; });
  }
  void on_bid_rejected(std::uint16_t sense, std::uint16_t) override {
    note([&] { bid_rejected = sense; });
  }
  void on_session_lost(const std::string& reason) override {
    note([&] {
      ++lost_count;
      lost_reason = reason;
    });
  }
  std::optional<tpipe::client_tpipe_record> tpipe_record(std::string_view tpipe) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = records.find(std::string(tpipe));
    if (it == records.end()) return std::nullopt;
    return it->second;
  }
  void on_resync_decision(std::string_view, const tpipe::resync_decision& d) override {
    note([&] { decisions.push_back(d); });
  }
  void on_tpipe_unknown_to_server(std::string_view) override {}
  void on_input_response(const tpipe::input_response& r) override {
    note([&] {
      responses.push_back(r);
      if (r.ack && r.recoverable_seq != 0) records[r.tpipe].send = r.recoverable_seq;
    });
  }
  void on_output(const otma_message& m) override {
    bool ack = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      outputs.push_back(m);
      if (m.mci.response_requested() && auto_ack) {
        // CM0 step 6: commit first (the receive number and the message are ours now), then ACK.
        if (m.mci.recoverable_seq != 0) records[tpipe::tpipe_of(m)].receive = m.mci.recoverable_seq;
        committed.push_back(all_text(m));
        ack = true;
      }
    }
    cv_.notify_all();
    // Inside the link's lock already (recursive): the ACK goes out before the next callback.
    if (ack) link_->with_session([&](tpipe::client_session& s) { s.ack_output(m); });
  }
  void on_commit_confirmation(std::string_view, std::uint32_t, bool c) override {
    note([&] { commits.push_back(c); });
  }
  void on_server_state(std::uint16_t) override {}
  void on_suspend() override {
    note([&] { ++suspends; });
  }
  std::vector<std::string> our_synchronized_tpipes() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> v;
    for (const auto& [k, r] : records) v.push_back(k);
    return v;
  }

  // Recorded state: read it under locked() or inside wait() predicates.
  int ready_count = 0;
  int lost_count = 0;
  int suspends = 0;
  std::uint16_t bid_rejected = 0;
  std::string lost_reason;
  bool auto_ack = true;
  std::map<std::string, tpipe::client_tpipe_record> records;
  std::vector<tpipe::resync_decision> decisions;
  std::vector<tpipe::input_response> responses;
  std::vector<otma_message> outputs;
  std::vector<std::string> committed;  // texts of the outputs committed and ACKed
  std::vector<bool> commits;

 private:
  template <class F>
  void note(F&& f) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      f();
    }
    cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<transport::tcp_service> service_;
  std::unique_ptr<tpipe::client_link> link_;
};

// ---- The fixture: xcfhub, imsemu, one state folder --------------------------------------------------

class imsemu_e2e : public ::testing::Test {
 protected:
  void SetUp() override {
    state_ = dir_.file("state");
    endpoint_ = start_xcfhub(dir_, hub_, hub_heartbeat_ms_);
  }
  void TearDown() override {
    client_.reset();
    if (ims_.running()) {
      ims_.signal(SIGTERM);
      ims_.wait_exit(milliseconds(10000));
    }
    ims_.stop();
    hub_.stop();
    if (HasFailure()) {
      for (int i = 1; i <= starts_; ++i) {
        std::cerr << "---- imsemu start " << i << " ----\n" << read_file(log_of(i));
      }
    }
  }

  std::string log_of(int start) const { return dir_.file("imsemu-" + std::to_string(start) + ".log"); }

  // Starts imsemu and waits for its ready line (IMB5080I); `extra` options after the usual ones.
  void start_ims(const std::vector<std::string>& extra = {}) {
    ++starts_;
    // --no-console: the test's standard input is not the emulator's operator console.
    std::vector<std::string> args{"--group", group_name, "--member", ims_member,    "--hub",
                                  endpoint_, "--state",  state_,     "--no-console"};
    args.insert(args.end(), extra.begin(), extra.end());
    ims_ = child_process(IMSB_IMSEMU, args, output_to::file(log_of(starts_)));
    const auto until = std::chrono::steady_clock::now() + wait_long;
    while (read_file(log_of(starts_)).find(imsb::msg::IMB5080I) == std::string::npos) {
      ASSERT_TRUE(ims_.running()) << "imsemu ended:\n" << read_file(log_of(starts_));
      ASSERT_LT(std::chrono::steady_clock::now(), until) << read_file(log_of(starts_));
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
  // SIGTERM: the planned stop; exit code 0.
  void stop_ims() {
    ASSERT_TRUE(ims_.signal(SIGTERM));
    const auto status = ims_.wait_exit(milliseconds(10000));
    ASSERT_TRUE(status.has_value());
    ASSERT_TRUE(WIFEXITED(*status)) << *status;
    EXPECT_EQ(WEXITSTATUS(*status), 0);
  }

  void connect_client() {
    client_ = std::make_unique<otma_client>(endpoint_);
    const auto rc = client_->join();
    ASSERT_TRUE(rc.ok()) << rc.rc << "/" << rc.rsn;
    ASSERT_TRUE(client_->wait([&] { return client_->ready_count >= 1; })) << client_->lost_reason;
  }

  // Sends one input and waits for its ACK/NAK and, when `outputs` > 0, for that many more outputs.
  tpipe::input_response exchange(const otma_message& m, std::size_t outputs = 1) {
    const std::size_t responses_before = client_->locked([&] { return client_->responses.size(); });
    const std::size_t outputs_before = client_->locked([&] { return client_->outputs.size(); });
    const auto sent = client_->send(m);
    EXPECT_TRUE(sent.ok()) << (sent.ok() ? std::string() : sent.error().to_string());
    EXPECT_TRUE(client_->wait([&] {
      return client_->responses.size() > responses_before &&
             client_->outputs.size() >= outputs_before + outputs;
    })) << "no answer to "
        << all_text(m);
    return client_->locked([&] {
      return client_->responses.size() > responses_before ? client_->responses.back()
                                                          : tpipe::input_response{};
    });
  }
  std::string last_output() {
    return client_->locked(
        [&] { return client_->outputs.empty() ? std::string() : all_text(client_->outputs.back()); });
  }

  // xcfhub's liveness interval (hub_args); a test that proves the emulator stays responsive sets the
  // hub's default (1000 ms) in its constructor.
  int hub_heartbeat_ms_ = 3000;
  temp_dir dir_;
  std::string state_;
  std::string endpoint_;
  child_process hub_;
  child_process ims_;
  int starts_ = 0;
  std::unique_ptr<otma_client> client_;
};

}  // namespace imsb::test
