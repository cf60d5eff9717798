// libFuzzer target: the IMS emulator's input path. A fresh engine (cold start, default definitions) behind
// a real tpipe::server_session takes what one client member sends after a valid client-bid.
//
// Garbage from a client gets a NAK or makes that client failed, never a crash. Checked
// besides "no crash, no sanitizer report": every buffer the engine sends decodes with
// otma::decode_message, and it sends only to the client that spoke.
//
// Input: records [op:1][length:2 big-endian][payload:length] (a short last record takes what is left).
//   op % 8  0..3  payload received from the client as one buffer
//           4     tick, now += payload's first two bytes (ms)
//           5     tick, now += 130 s (past the 120 s output-ACK timeout)
//           6     the client answers the last output it got: ACK, or NAK with the payload's sense code
//                 (built with tpipe::make_ack/make_nak so that the send-sequence numbers match)
//           7     the client leaves and comes back: client_gone, client_joined, client-bid (CBresynch
//                 when the payload's first byte is odd)
// The seed corpus (corpus/imsemu_input/) holds such records made from real OTMA messages.

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "imsb/core/bytes.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace {

using namespace imsb;

constexpr std::string_view client_name = "MQCLIENT";

// One state folder per process, reused by every run. Never destroyed: the exit handler still needs it.
const std::filesystem::path& state_dir() {
  static const std::filesystem::path* const dir = [] {
    // tmpfs when there is one: the journal fsyncs every input, which on a disk would bound the run rate.
    std::string tmpl = std::filesystem::is_directory("/dev/shm") ? "/dev/shm/imsemu-input-fuzz-XXXXXX"
                                                                 : "/tmp/imsemu-input-fuzz-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(state_dir(), ec);
    });
    return new std::filesystem::path(tmpl);
  }();
  return *dir;
}

const ims::definitions& defs() {
  static const ims::definitions d = ims::default_definitions("XCFGRP1", "IMSA");
  return d;
}

bytes encoded(const otma::otma_message& m) {
  auto r = otma::encode_message(m);
  if (!r.ok()) std::abort();  // the harness's own messages always encode
  return std::move(r).value();
}

bytes bid_buffer(bool resync) {
  tpipe::bid_params p;
  p.member = std::string(client_name);
  return encoded(tpipe::make_client_bid(p, resync));
}

class harness {
 public:
  harness() {
    // A cold start appends to the journal rather than emptying it, and open() replays the whole file: a
    // log kept across runs would make each run slower than the one before. Each run starts from no file.
    std::error_code ec;
    std::filesystem::remove(state_dir() / "journal.log", ec);
    auto e = imsemu::engine::open(defs(), state_dir(), true, [](const std::string&) {});
    if (!e.ok()) std::abort();
    engine_ = std::move(e).value();
    tpipe::server_config cfg;
    cfg.member = "IMSA";
    server_ = std::make_unique<tpipe::server_session>(cfg, *engine_);
    engine_->attach([this](const std::function<void(tpipe::server_session&)>& f) { f(*server_); });
    engine_->set_sender([this](std::string_view client, bytes b) { on_sent(client, std::move(b)); });
  }
  ~harness() {
    server_.reset();  // the session refers to the engine
    engine_.reset();
  }

  void join_and_bid(bool resync) {
    server_->client_joined(client_name, now_);
    receive(bid_buffer(resync));
  }
  void leave() { server_->client_gone(client_name, "fuzz: client left"); }
  void receive(bytes_view b) { server_->receive(client_name, b, ++now_); }
  void tick(tpipe::millis by) {
    now_ += by;
    server_->tick(now_);
    engine_->tick(now_);
  }
  void answer_last_output(bytes_view payload) {
    if (!last_output_) return;
    const bool nak = !payload.empty() && (payload.data()[0] & 1) != 0;
    const std::uint16_t sense = payload.size() >= 3 ? load_u16(payload.data() + 1, byte_order::big) : 0x0001;
    receive(encoded(nak ? tpipe::make_nak(*last_output_, sense) : tpipe::make_ack(*last_output_)));
  }

 private:
  void on_sent(std::string_view client, bytes b) {
    // The engine answers only the client that spoke (there is no other member in this run).
    if (client != client_name) std::abort();
    auto m = otma::decode_message(b);
    if (!m.ok()) std::abort();  // every buffer the engine sends must decode
    if (tpipe::classify(m.value(), false) == tpipe::message_kind::output) last_output_ = std::move(m).value();
  }

  std::unique_ptr<imsemu::engine> engine_;
  std::unique_ptr<tpipe::server_session> server_;
  std::optional<otma::otma_message> last_output_;
  tpipe::millis now_ = 1000;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness h;
  h.join_and_bid(false);
  std::size_t pos = 0;
  while (pos < size) {
    const std::uint8_t op = data[pos++];
    std::size_t len = 0;
    if (size - pos >= 2) {
      len = static_cast<std::size_t>(data[pos]) << 8 | data[pos + 1];
      pos += 2;
    } else {
      pos = size;
    }
    if (len > size - pos) len = size - pos;
    const bytes_view payload(data + pos, len);
    pos += len;
    switch (op % 8) {
      case 4:
        h.tick(payload.size() >= 2 ? load_u16(payload.data(), byte_order::big) : 1);
        break;
      case 5:
        h.tick(130'000);
        break;
      case 6:
        h.answer_last_output(payload);
        break;
      case 7:
        h.leave();
        h.join_and_bid(!payload.empty() && (payload.data()[0] & 1) != 0);
        break;
      default:
        h.receive(payload);
        break;
    }
  }
  return 0;
}
