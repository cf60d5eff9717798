// RabbitMQ's side of bench/RESULTS.md "Queue manager round trips": the same round trip as qmgr_roundtrip
// (put one message, then get it) through librabbitmq (Debian's librabbitmq-dev) against a rabbitmq-server
// on 127.0.0.1: a durable queue per connection, messages published persistent (delivery mode 2) or not
// (1), each publish waiting for its publisher confirm, then basic.get without auto-ack and a manual
// basic.ack — the closest AMQP twin of an MQPUT and an MQGET outside syncpoint. bench/qmgr-vs-rabbitmq
// starts the server and runs both.
//
//   rabbitmq_roundtrip --port P [--connections N] [--persistent 0|1] [--seconds S] [--size B]

#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "roundtrip_common.hpp"

namespace {

const char* usage =
    "usage: rabbitmq_roundtrip --port P [--connections N] [--persistent 0|1] [--seconds S] [--size B]";

bool rpc_ok(amqp_connection_state_t conn, const char* what, int worker) {
  const amqp_rpc_reply_t r = amqp_get_rpc_reply(conn);
  if (r.reply_type == AMQP_RESPONSE_NORMAL) return true;
  std::fprintf(stderr, "worker %d: %s failed (reply type %d)\n", worker, what,
               static_cast<int>(r.reply_type));
  return false;
}

std::vector<std::uint32_t> worker(int id, const std::atomic<bool>& stop, int port,
                                  const imsb::bench::roundtrip_args& a) {
  std::vector<std::uint32_t> lat;
  amqp_connection_state_t conn = amqp_new_connection();
  amqp_socket_t* sock = amqp_tcp_socket_new(conn);
  if (!sock || amqp_socket_open(sock, "127.0.0.1", port) != AMQP_STATUS_OK) {
    std::fprintf(stderr, "worker %d: cannot connect to 127.0.0.1:%d\n", id, port);
    return {};
  }
  const amqp_rpc_reply_t login =
      amqp_login(conn, "/", 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, "guest", "guest");
  if (login.reply_type != AMQP_RESPONSE_NORMAL) {
    std::fprintf(stderr, "worker %d: login failed\n", id);
    return {};
  }
  amqp_channel_open(conn, 1);
  if (!rpc_ok(conn, "channel.open", id)) return {};
  const std::string q = "BENCH.RT." + std::to_string(id);
  amqp_queue_declare(conn, 1, amqp_cstring_bytes(q.c_str()), 0, /*durable*/ 1, 0, 0, amqp_empty_table);
  if (!rpc_ok(conn, "queue.declare", id)) return {};
  amqp_queue_purge(conn, 1, amqp_cstring_bytes(q.c_str()));
  if (!rpc_ok(conn, "queue.purge", id)) return {};
  amqp_confirm_select(conn, 1);
  if (!rpc_ok(conn, "confirm.select", id)) return {};

  std::string body(a.size, 'x');
  amqp_basic_properties_t props{};
  props._flags = AMQP_BASIC_DELIVERY_MODE_FLAG;
  props.delivery_mode = a.persistent ? 2 : 1;
  lat.reserve(1 << 16);
  while (!stop) {
    const auto t = std::chrono::steady_clock::now();
    amqp_bytes_t b{body.size(), body.data()};
    if (amqp_basic_publish(conn, 1, amqp_empty_bytes, amqp_cstring_bytes(q.c_str()), 0, 0, &props, b) !=
        AMQP_STATUS_OK) {
      std::fprintf(stderr, "worker %d: publish failed\n", id);
      return {};
    }
    amqp_frame_t frame;  // the publisher confirm
    if (amqp_simple_wait_frame(conn, &frame) != AMQP_STATUS_OK || frame.frame_type != AMQP_FRAME_METHOD ||
        frame.payload.method.id != AMQP_BASIC_ACK_METHOD) {
      std::fprintf(stderr, "worker %d: no publisher confirm\n", id);
      return {};
    }
    const amqp_rpc_reply_t got = amqp_basic_get(conn, 1, amqp_cstring_bytes(q.c_str()), /*no_ack*/ 0);
    if (got.reply_type != AMQP_RESPONSE_NORMAL || got.reply.id != AMQP_BASIC_GET_OK_METHOD) {
      std::fprintf(stderr, "worker %d: basic.get found no message\n", id);
      return {};
    }
    const auto* ok = static_cast<amqp_basic_get_ok_t*>(got.reply.decoded);
    const std::uint64_t tag = ok->delivery_tag;
    amqp_message_t msg;
    if (amqp_read_message(conn, 1, &msg, 0).reply_type != AMQP_RESPONSE_NORMAL || msg.body.len != a.size) {
      std::fprintf(stderr, "worker %d: message read failed\n", id);
      return {};
    }
    amqp_destroy_message(&msg);
    if (amqp_basic_ack(conn, 1, tag, 0) != AMQP_STATUS_OK) {
      std::fprintf(stderr, "worker %d: ack failed\n", id);
      return {};
    }
    amqp_maybe_release_buffers(conn);
    lat.push_back(imsb::bench::micros_since(t));
  }
  amqp_channel_close(conn, 1, AMQP_REPLY_SUCCESS);
  amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(conn);
  return lat;
}

}  // namespace

int main(int argc, char** argv) {
  // --port is ours; the rest is the common set.
  int port = 5672;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc)
      port = std::atoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  auto a = imsb::bench::parse_roundtrip_args(static_cast<int>(rest.size()), rest.data(), usage);
  if (a.mode.empty()) a.mode = "tcp";
  return imsb::bench::run_roundtrips(
      "rabbitmq", a, [&](int id, const std::atomic<bool>& stop) { return worker(id, stop, port, a); });
}
