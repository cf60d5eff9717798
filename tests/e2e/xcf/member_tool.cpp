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

#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <string_view>

#include "imsb/transport/tcp_xcf.hpp"

namespace {

std::mutex out_mu;

void say(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu);
  std::cout << line << std::endl;
}

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
