// member_tool: one XCF member in a process of its own, for the end-to-end tests that kill or stop it.
//
//   member_tool --connect HOST:PORT --group G --member M [--lasting]
//               [--tls-ca F] [--tls-cert F] [--tls-key F]
//
// Joins through the TCP client backend and prints "READY rc rsn" (or "JOIN-FAILED rc rsn", exit 3);
// then echoes every message back to its source (same stream, control area and data) and prints
// "EVENT kind member state" for each group event. SIGTERM or SIGINT: leave, print "LEFT rc rsn", exit 0.
// Exit 2: usage error.

#include <signal.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "imsb/transport/tcp_xcf.hpp"

namespace {

// Standard output from a thread of its own: the handlers run on the backend's I/O thread, which must
// go on answering the hub's PINGs even when nobody reads our output pipe (a full pipe blocks the
// write). Lines wait here meanwhile, in order; the test tools print few enough for memory.
class line_writer {
 public:
  line_writer() : thread_([this] { run(); }) {}
  ~line_writer() {  // writes what is queued, then ends
    {
      std::lock_guard<std::mutex> lock(mu_);
      ending_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  line_writer(const line_writer&) = delete;
  line_writer& operator=(const line_writer&) = delete;

  void say(std::string line) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(std::move(line));
    }
    cv_.notify_one();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return ending_ || !lines_.empty(); });
      if (lines_.empty()) return;  // ending, and all written
      std::deque<std::string> batch;
      batch.swap(lines_);
      lock.unlock();
      for (const auto& l : batch) std::cout << l << '\n';
      std::cout.flush();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> lines_;
  bool ending_ = false;
  std::thread thread_;  // last: it starts in the constructor and uses the members above
};

line_writer* out = nullptr;  // set for main's lifetime

void say(const std::string& line) { out->say(line); }

std::string code_text(imsb::xcf::return_code c) { return std::to_string(c.rc) + " " + std::to_string(c.rsn); }

class echo_handler : public imsb::xcf::member_handler {
 public:
  void attach(imsb::xcf::member* m) {
    std::lock_guard<std::mutex> lock(mu_);
    member_ = m;
  }
  void on_message(imsb::xcf::message msg) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (member_ == nullptr) return;
    imsb::xcf::send_options options;
    options.stream = msg.stream;
    options.ordered = msg.ordered;
    const auto rc =
        member_->send(imsb::xcf::target::by_token(msg.source_token), msg.control, msg.data, options);
    if (rc != imsb::xcf::codes::ok) say("ECHO-REFUSED " + code_text(rc));
  }
  void on_event(const imsb::xcf::member_event& e) override {
    say("EVENT " + std::string(imsb::xcf::to_string(e.kind)) + " " + e.member.name + " " +
        std::string(imsb::xcf::to_string(e.member.state)));
  }

 private:
  std::mutex mu_;
  imsb::xcf::member* member_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  imsb::transport::tcp_service_options options;
  imsb::xcf::join_request request;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--lasting") {
      request.lasting = true;
    } else if (arg == "--connect" && has_value) {
      options.endpoint = argv[++i];
    } else if (arg == "--group" && has_value) {
      request.group = argv[++i];
    } else if (arg == "--member" && has_value) {
      request.member = argv[++i];
    } else if (arg == "--tls-ca" && has_value) {
      options.tls.ca_file = argv[++i];
    } else if (arg == "--tls-cert" && has_value) {
      options.tls.cert_file = argv[++i];
    } else if (arg == "--tls-key" && has_value) {
      options.tls.key_file = argv[++i];
    } else {
      std::cerr << "member_tool: bad argument '" << arg << "'" << std::endl;
      return 2;
    }
  }
  // The I/O thread inherits the mask: the signals are taken only by sigwait below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  options.log = [](const std::string& line) { std::cerr << line << std::endl; };
  line_writer writer;  // before the service: its threads may still say something until they end
  out = &writer;
  try {
    imsb::transport::tcp_service service(options);
    echo_handler handler;
    auto joined = service.join(request, handler);
    if (!joined.code.ok()) {
      say("JOIN-FAILED " + code_text(joined.code));
      return 3;
    }
    handler.attach(joined.joined.get());
    say("READY " + code_text(joined.code));
    int sig = 0;
    sigwait(&stop_signals, &sig);
    handler.attach(nullptr);
    say("LEFT " + code_text(joined.joined->leave()));
  } catch (const std::exception& e) {
    std::cerr << "member_tool: " << e.what() << std::endl;
    return 2;
  }
  return 0;
}
