#pragma once
// What the xcf end-to-end tests share: a real xcfhub started on loopback port 0, a member_handler that
// records what it sees, message patterns that check themselves, and test certificates made with the
// `openssl` command in a temporary directory (never committed keys).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "imsb/transport/tcp_xcf.hpp"
#include "imsb/xcf/member.hpp"
#include "process.hpp"

namespace imsb::test {

using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

// ---- The hub ---------------------------------------------------------------------------------------

// xcfhub on 127.0.0.1, its console lines in a file of the test's directory (shown when a test fails).
class hub_process {
 public:
  // `port` 0: the system chooses (read back from --port-file); otherwise that port (a restart).
  hub_process(const temp_dir& dir, std::vector<std::string> extra, std::uint16_t port = 0)
      : log_path_(dir.file("xcfhub-" + std::to_string(++count_) + ".log")) {
    const std::string port_file = dir.file("port-" + std::to_string(count_));
    std::vector<std::string> args{"--listen", "127.0.0.1:" + std::to_string(port), "--port-file", port_file};
    args.insert(args.end(), extra.begin(), extra.end());
    proc_ = child_process(IMSB_XCFHUB, args, output_to::file(log_path_));
    const auto text = wait_for_file(port_file, milliseconds(15000));
    if (!text) throw std::runtime_error("xcfhub wrote no port file; its log:\n" + read_file(log_path_));
    port_ = static_cast<std::uint16_t>(std::stoi(*text));
  }
  ~hub_process() {
    proc_.stop();
    if (::testing::Test::HasFailure())
      std::cerr << "---- " << log_path_ << " ----\n" << tail_of_log() << "----\n";
  }

  std::uint16_t port() const noexcept { return port_; }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  child_process& process() noexcept { return proc_; }
  std::string log() const { return read_file(log_path_); }

 private:
  std::string tail_of_log() const {
    const std::string all = read_file(log_path_);
    return all.size() <= 6000 ? all : "...\n" + all.substr(all.size() - 6000);
  }

  static inline int count_ = 0;
  std::string log_path_;
  child_process proc_;
  std::uint16_t port_ = 0;
};

inline transport::tcp_service_options client_options(const std::string& endpoint) {
  transport::tcp_service_options o;
  o.endpoint = endpoint;
  o.connect_timeout = milliseconds(5000);
  return o;
}

inline xcf::join_request join_as(std::string group, std::string member, bool lasting = false) {
  xcf::join_request r;
  r.group = std::move(group);
  r.member = std::move(member);
  r.lasting = lasting;
  return r;
}

// ---- A handler that records ------------------------------------------------------------------------

struct seen_event {
  xcf::member_event event;
  steady::time_point at;
};

class recorder : public xcf::member_handler {
 public:
  void on_message(xcf::message msg) override {
    std::lock_guard<std::mutex> lock(mu_);
    messages_.push_back(std::move(msg));
    cv_.notify_all();
  }
  void on_event(const xcf::member_event& event) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back({event, steady::now()});
    cv_.notify_all();
  }
  void on_send_done(std::uint64_t id, xcf::return_code code) override {
    std::lock_guard<std::mutex> lock(mu_);
    done_.emplace_back(id, code);
    cv_.notify_all();
  }

  // The first event of `kind` about `name` at index `from` or later, within `timeout`.
  std::optional<seen_event> wait_event(xcf::event_kind kind, const std::string& name, milliseconds timeout,
                                       std::size_t from = 0) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<seen_event> found;
    cv_.wait_for(lock, timeout, [&] {
      for (std::size_t i = from; i < events_.size(); ++i) {
        if (events_[i].event.kind == kind && events_[i].event.member.name == name) {
          found = events_[i];
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::size_t event_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_.size();
  }
  std::vector<seen_event> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

  // Waits for `n` messages in all; then hands them over (and forgets them).
  std::vector<xcf::message> wait_messages(std::size_t n, milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return messages_.size() >= n; });
    std::vector<xcf::message> out(std::make_move_iterator(messages_.begin()),
                                  std::make_move_iterator(messages_.end()));
    messages_.clear();
    return out;
  }
  std::vector<std::pair<std::uint64_t, xcf::return_code>> send_done() const {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  std::optional<xcf::return_code> wait_send_done(std::uint64_t id, milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<xcf::return_code> found;
    cv_.wait_for(lock, timeout, [&] {
      for (const auto& [i, c] : done_) {
        if (i == id) found = c;
      }
      return found.has_value();
    });
    return found;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<seen_event> events_;
  std::deque<xcf::message> messages_;
  std::vector<std::pair<std::uint64_t, xcf::return_code>> done_;
};

// ---- Messages that check themselves ------------------------------------------------------------------

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Message `seq` of stream `salt`: a size log-uniform in 1..max (seq 0 is 1 byte, seq 1 is max),
// bytes from a PRNG seeded by (salt, seq), and a control area that starts with salt and seq.
inline std::size_t pattern_size(std::uint64_t salt, std::uint64_t seq, std::size_t max = 65536) {
  if (seq == 0) return 1;
  if (seq == 1) return max;
  std::uint64_t s = salt * 0x100000001B3ull ^ seq ^ 0x5A17u;
  const double u = static_cast<double>(splitmix64(s) >> 11) / static_cast<double>(1ull << 53);  // [0, 1)
  const auto size = static_cast<std::size_t>(std::exp(u * std::log(static_cast<double>(max) + 1.0)));
  return std::clamp<std::size_t>(size, 1, max);
}

// Eight PRNG bytes at a time, copied in host byte order: sender and receiver run on the same host, and
// the Debug build must not spend the test's time here.
inline void pattern_fill(std::uint64_t salt, std::uint64_t seq, std::uint8_t* out, std::size_t n) {
  std::uint64_t s = salt ^ (seq * 0x9E3779B97F4A7C15ull);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t v = splitmix64(s);
    std::memcpy(out + i, &v, 8);
  }
  if (i < n) {
    const std::uint64_t v = splitmix64(s);
    std::memcpy(out + i, &v, n - i);
  }
}

inline bytes pattern_data(std::uint64_t salt, std::uint64_t seq, std::size_t max = 65536) {
  bytes b(pattern_size(salt, seq, max));
  pattern_fill(salt, seq, b.data(), b.size());
  return b;
}

inline xcf::control_area pattern_control(std::uint64_t salt, std::uint64_t seq) {
  xcf::control_area c{};
  for (int k = 0; k < 8; ++k) {
    c[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(salt >> (56 - 8 * k));
    c[static_cast<std::size_t>(8 + k)] = static_cast<std::uint8_t>(seq >> (56 - 8 * k));
  }
  pattern_fill(salt + 1, seq, c.data() + 16, 16);
  return c;
}

inline std::uint64_t control_seq(const xcf::control_area& c) {
  std::uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v = (v << 8) | c[static_cast<std::size_t>(8 + k)];
  return v;
}

// Empty when `msg` is message `seq` of `salt`; otherwise what is wrong.
inline std::string pattern_check(std::uint64_t salt, std::uint64_t seq, const xcf::message& msg,
                                 std::size_t max = 65536) {
  if (msg.control != pattern_control(salt, seq)) {
    return "control area of message " + std::to_string(seq) + " is wrong (it names seq " +
           std::to_string(control_seq(msg.control)) + ")";
  }
  const bytes expected = pattern_data(salt, seq, max);
  if (msg.data.size() != expected.size()) {
    return "message " + std::to_string(seq) + " has " + std::to_string(msg.data.size()) +
           " bytes, expected " + std::to_string(expected.size());
  }
  const auto diff = std::mismatch(expected.begin(), expected.end(), msg.data.begin());
  if (diff.first != expected.end()) {
    return "message " + std::to_string(seq) + " differs at byte " +
           std::to_string(diff.first - expected.begin());
  }
  return {};
}

// ---- Two members sending to each other at once ---------------------------------------------------------

// Member A sends messages 0, 1, 2... of one pattern to B while B sends another to A, each from a thread
// of its own. The receivers check sequence and content. Every send asks for an answer (ack), and at
// most `window` sends wait for theirs, so that a sender never runs far ahead of what the hub has seen
// (a SEND_RSP may queue behind the DELIVERs to the sender). A 12/0 refusal from the hub makes the
// sender go back to the first refused message (README "Send": the backend sets the resume flag on the
// next send); the refusals of messages sent after it are stale and ignored. Local 12/0 (the backend's
// outbound bound) is retried after a short pause.
class duplex_exchange {
 public:
  struct settings {
    std::uint64_t count = 1000;  // per direction; 0: until finish()
    std::size_t max_size = 65536;
    std::uint64_t stall_every = 0;      // the receiving handler sleeps stall_time every stall_every messages,
    milliseconds stall_time{0};         // so that the hub's buffer for it fills and refuses
    std::chrono::microseconds pace{0};  // pause after each send
    // After the hub refused, wait this long before going back: the target's buffer needs time to drain.
    std::chrono::microseconds back_off{2000};
    std::size_t window = 128;  // sends without their answer yet
    // on_send_done lingers this long after going back, so that the sending thread tries its next send
    // while the report still runs (the backend must not let that one resume the stream).
    std::chrono::microseconds linger{0};
  };
  struct lane_stats {
    std::uint64_t sent = 0;            // accepted by send() (re-sends included)
    std::uint64_t delivered = 0;       // received in order and intact
    std::uint64_t hub_refusals = 0;    // 12/0 from the hub that made the sender go back
    std::uint64_t stale_refusals = 0;  // 12/0 for messages after the one gone back to
    std::uint64_t local_refusals = 0;  // 12/0 from send() itself (outbound bound)
    std::uint64_t acked = 0;           // answered 0/0
    std::uint64_t unanswered = 0;      // sends still waiting for their answer
  };

  explicit duplex_exchange(settings s) : settings_(s) {
    for (int i = 0; i < 2; ++i) {
      lanes_[i].salt = 0xA11CE000u + static_cast<std::uint64_t>(i);
      lanes_[i].limit = s.count == 0 ? std::numeric_limits<std::uint64_t>::max() : s.count;
    }
  }
  ~duplex_exchange() { stop(); }
  duplex_exchange(const duplex_exchange&) = delete;
  duplex_exchange& operator=(const duplex_exchange&) = delete;

  // The handler to join side 0 (A) or 1 (B) with.
  xcf::member_handler& handler(int side) { return handlers_[side]; }

  void start(xcf::member& a, xcf::member& b) {
    lanes_[0].from = &a;
    lanes_[0].from_name = a.name();
    lanes_[0].to = b.name();
    lanes_[1].from = &b;
    lanes_[1].from_name = b.name();
    lanes_[1].to = a.name();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this, i] { send_loop(lanes_[i]); });
  }
  // Open-ended mode: no messages beyond those already sent (re-sends still go).
  void finish() {
    for (auto& l : lanes_) {
      std::lock_guard<std::mutex> lock(l.mu);
      l.limit = l.high;
    }
  }
  // Until every lane delivered all and every send got its answer (the last acks may come after the
  // last delivery on a loaded machine). true: all delivered and answered; false on an error, or once no
  // message was delivered or answered on either lane for `stalled` (or after `cap` in all). The exchange's
  // speed is the machine's (a shared 2-core CI runner took 55 s for 90 % of it); what must not happen is that
  // it stops moving.
  bool wait_while_moving(milliseconds stalled, milliseconds cap) {
    const auto until = steady::now() + cap;
    std::uint64_t last = progress();
    auto moved_at = steady::now();
    while (steady::now() < until) {
      if (!error().empty()) return false;
      if (all_delivered()) return true;
      std::this_thread::sleep_for(milliseconds(5));
      const std::uint64_t now_at = progress();
      if (now_at != last) {
        last = now_at;
        moved_at = steady::now();
      } else if (steady::now() - moved_at > stalled) {
        return false;
      }
    }
    return all_delivered();
  }
  void stop() {
    stopping_ = true;
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  std::string error() const {
    std::lock_guard<std::mutex> lock(error_mu_);
    return error_;
  }
  // The group events side 0 (A) or 1 (B) saw.
  std::vector<xcf::member_event> events(int side) {
    std::lock_guard<std::mutex> lock(events_mu_);
    return events_[side];
  }
  lane_stats stats(int index) {  // 0: A to B, 1: B to A
    std::lock_guard<std::mutex> lock(lanes_[index].mu);
    lane_stats s = lanes_[index].st;
    s.delivered = lanes_[index].delivered;
    s.unanswered = lanes_[index].sent.size();
    return s;
  }

 private:
  struct lane {
    std::uint64_t salt = 0;
    xcf::member* from = nullptr;
    std::string from_name;  // what the receiver must see as the source
    std::string to;
    std::mutex mu;  // sender state below
    std::condition_variable answered;
    std::uint64_t next = 0;          // the next message to send
    std::uint64_t gen = 0;           // bumped when the sender goes back
    std::uint64_t limit = 0;         // messages to send in all
    std::uint64_t high = 0;          // highest message sent + 1
    steady::time_point resume_at{};  // no sends before (after a refusal)
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>>
        sent;  // unanswered: id → (seq, gen)
    lane_stats st;
    std::atomic<std::uint64_t> delivered{0};  // receiver's count (its handler thread only writes)
  };

  class side_handler : public xcf::member_handler {
   public:
    side_handler(duplex_exchange& x, int side) : x_(x), side_(side) {}
    void on_message(xcf::message msg) override {
      lane& in = x_.lanes_[1 - side_];
      const std::uint64_t expected = in.delivered.load();
      const std::uint64_t seq = control_seq(msg.control);
      if (msg.source_name != in.from_name || msg.stream != stream || !msg.ordered) {
        x_.fail("lane " + std::to_string(1 - side_) + ": message " + std::to_string(seq) + " from '" +
                msg.source_name + "' on stream " + std::to_string(msg.stream) +
                (msg.ordered ? "" : " (unordered)") + ", expected '" + in.from_name + "' on stream " +
                std::to_string(stream) + " (ordered)");
        return;
      }
      if (seq != expected) {
        x_.fail("lane " + std::to_string(1 - side_) + ": got message " + std::to_string(seq) + ", expected " +
                std::to_string(expected));
        return;
      }
      if (auto problem = pattern_check(in.salt, seq, msg, x_.settings_.max_size); !problem.empty()) {
        x_.fail("lane " + std::to_string(1 - side_) + ": " + problem);
        return;
      }
      in.delivered.store(expected + 1);
      if (x_.settings_.stall_every != 0 && (expected + 1) % x_.settings_.stall_every == 0) {
        std::this_thread::sleep_for(x_.settings_.stall_time);
      }
    }
    void on_event(const xcf::member_event& event) override {
      std::lock_guard<std::mutex> lock(x_.events_mu_);
      x_.events_[side_].push_back(event);
    }
    void on_send_done(std::uint64_t id, xcf::return_code code) override {
      lane& out = x_.lanes_[side_];
      if (code != xcf::codes::resource_shortage && code != xcf::codes::ok) {
        x_.fail("lane " + std::to_string(side_) + ": send " + std::to_string(id) +
                " refused: " + xcf::describe(code));
        return;
      }
      std::unique_lock<std::mutex> lock(out.mu);
      const auto found = out.sent.find(id);
      if (found == out.sent.end()) {
        x_.fail("lane " + std::to_string(side_) + ": answer for an unknown (or answered) send " +
                std::to_string(id));
        return;
      }
      const auto [seq, gen] = found->second;
      out.sent.erase(found);
      out.answered.notify_all();
      if (code == xcf::codes::ok) {
        ++out.st.acked;
        return;
      }
      if (gen != out.gen) {
        ++out.st.stale_refusals;
        return;
      }
      ++out.st.hub_refusals;
      out.next = seq;  // go back to the first refused message
      ++out.gen;
      out.resume_at = steady::now() + x_.settings_.back_off;
      if (x_.settings_.linger.count() > 0) {
        lock.unlock();
        std::this_thread::sleep_for(x_.settings_.linger);
      }
    }

   private:
    duplex_exchange& x_;
    int side_;
  };

  std::uint64_t progress() {  // deliveries and answers so far, both lanes
    std::uint64_t n = 0;
    for (auto& l : lanes_) {
      std::lock_guard<std::mutex> lock(l.mu);
      n += l.delivered.load() + l.st.acked + l.st.hub_refusals + l.st.stale_refusals;
    }
    return n;
  }

  bool all_delivered() {
    for (auto& l : lanes_) {
      std::lock_guard<std::mutex> lock(l.mu);
      if (l.limit == std::numeric_limits<std::uint64_t>::max() || l.delivered.load() < l.limit) return false;
      if (!l.sent.empty()) return false;
    }
    return true;
  }

  void fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (error_.empty()) error_ = what;
  }

  static constexpr std::uint16_t stream = 7;  // every message goes on it, ordered

  void send_loop(lane& l) {
    xcf::send_options options;
    options.stream = stream;
    options.ack = true;
    while (!stopping_ && error().empty()) {
      std::uint64_t seq = 0;
      std::uint64_t gen = 0;
      steady::time_point not_before;
      {
        std::unique_lock<std::mutex> lock(l.mu);
        if (l.sent.size() >= settings_.window) {
          l.answered.wait_for(lock, milliseconds(10));
          continue;
        }
        not_before = l.resume_at;
        if (l.next >= l.limit) {
          if (l.delivered.load() >= l.limit) return;
          seq = std::numeric_limits<std::uint64_t>::max();
        } else {
          seq = l.next;
          gen = l.gen;
        }
      }
      if (seq == std::numeric_limits<std::uint64_t>::max()) {  // all sent: refusals may still come
        std::this_thread::sleep_for(milliseconds(1));
        continue;
      }
      if (steady::now() < not_before) std::this_thread::sleep_until(not_before);
      const bytes data = pattern_data(l.salt, seq, settings_.max_size);
      const xcf::control_area control = pattern_control(l.salt, seq);
      bool pause = false;
      {
        std::lock_guard<std::mutex> lock(l.mu);
        if (gen != l.gen || seq != l.next) continue;  // the handler made us go back meanwhile
        std::uint64_t id = 0;
        const auto rc = l.from->send(xcf::target::by_name(l.to), control, data, options, &id);
        if (rc == xcf::codes::ok) {
          l.sent[id] = {seq, gen};
          ++l.st.sent;
          l.next = seq + 1;
          l.high = std::max(l.high, l.next);
        } else if (rc == xcf::codes::resource_shortage) {
          ++l.st.local_refusals;
          pause = true;
        } else {
          fail("send of message " + std::to_string(seq) + " refused at once: " + xcf::describe(rc));
          return;
        }
      }
      if (pause) std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (settings_.pace.count() > 0) std::this_thread::sleep_for(settings_.pace);
    }
  }

  settings settings_;
  lane lanes_[2];
  side_handler handlers_[2] = {side_handler(*this, 0), side_handler(*this, 1)};
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex events_mu_;
  std::vector<xcf::member_event> events_[2];
  mutable std::mutex error_mu_;
  std::string error_;
};

// Stops an exchange's sending threads when it goes out of scope. Declared after the members the
// exchange sends through, so that an early return (a failed ASSERT) stops the threads before the
// members are destroyed.
class exchange_stopper {
 public:
  explicit exchange_stopper(duplex_exchange& x) : x_(x) {}
  ~exchange_stopper() { x_.stop(); }
  exchange_stopper(const exchange_stopper&) = delete;
  exchange_stopper& operator=(const exchange_stopper&) = delete;

 private:
  duplex_exchange& x_;
};

// ---- Certificates ------------------------------------------------------------------------------------

// PEM files made with the openssl command: CA "a" signs the hub (SAN IP:127.0.0.1, DNS:localhost),
// client IMS1, and a hub certificate for another host (SAN DNS:xcfhub.invalid, IP:192.0.2.1); CA "b"
// (not trusted by the hub) signs client ROGUE.
struct test_certs {
  std::string ca_a, hub_cert, hub_key, client_cert, client_key;
  std::string ca_b, rogue_cert, rogue_key;
  std::string elsewhere_cert, elsewhere_key;
};

// Runs openssl with its chatter in `log`; throws when it fails.
inline void openssl(const std::vector<std::string>& args, const std::string& log) {
  const int rc = run_program("openssl", args, milliseconds(30000), output_to::file(log));
  if (rc != 0) {
    std::string line = "openssl";
    for (const auto& a : args) line += " " + a;
    throw std::runtime_error("failed (" + std::to_string(rc) + "): " + line + "\n" + read_file(log));
  }
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline test_certs make_test_certs(const temp_dir& dir) {
  const auto f = [&](const std::string& name) { return dir.file(name); };
  const std::string log = f("openssl.log");
  const std::vector<std::string> ec_key{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                        "-nodes"};
  auto make_ca = [&](const std::string& name) {
    std::vector<std::string> a{"req", "-x509"};
    a.insert(a.end(), ec_key.begin(), ec_key.end());
    a.insert(a.end(), {"-keyout", f(name + ".key"), "-out", f(name + ".pem"), "-days", "2", "-subj",
                       "/CN=imsb test " + name, "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                       "keyUsage=critical,keyCertSign,cRLSign"});
    openssl(a, log);
  };
  auto make_leaf = [&](const std::string& name, const std::string& ca, const std::string& cn,
                       const std::string& ext, int serial) {
    std::vector<std::string> a{"req"};
    a.insert(a.end(), ec_key.begin(), ec_key.end());
    a.insert(a.end(), {"-keyout", f(name + ".key"), "-out", f(name + ".csr"), "-subj", "/CN=" + cn});
    openssl(a, log);
    write_text(f(name + ".ext"), ext);
    openssl({"x509", "-req", "-in", f(name + ".csr"), "-CA", f(ca + ".pem"), "-CAkey", f(ca + ".key"),
             "-set_serial", std::to_string(serial), "-out", f(name + ".pem"), "-days", "2", "-extfile",
             f(name + ".ext")},
            log);
  };
  make_ca("ca-a");
  make_ca("ca-b");
  make_leaf("hub", "ca-a", "localhost",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
            1);
  make_leaf("client", "ca-a", "IMS1",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n", 2);
  make_leaf("rogue", "ca-b", "ROGUE",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n", 3);
  // The CN names our host on purpose: only the SAN counts (RFC 6125), and it names another.
  make_leaf("elsewhere", "ca-a", "127.0.0.1",
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
            "subjectAltName=DNS:xcfhub.invalid,IP:192.0.2.1\n",
            4);
  return {f("ca-a.pem"), f("hub.pem"),   f("hub.key"),   f("client.pem"),    f("client.key"),
          f("ca-b.pem"), f("rogue.pem"), f("rogue.key"), f("elsewhere.pem"), f("elsewhere.key")};
}

}  // namespace imsb::test
