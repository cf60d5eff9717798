// xcfhub frame codec speed (imsb/xcf/frame.hpp): every message between two members is a SEND to the hub
// and a DELIVER from it, so SEND encode/decode is the hub's per-message cost; JOIN_RSP with 16 members
// is the largest control frame a group of OTMA clients sees.
#include <benchmark/benchmark.h>

#include <string>

#include "imsb/xcf/frame.hpp"

namespace {

using namespace imsb::xcf;
using namespace imsb::xcf::frame;

payload send_of(std::size_t size) {
  send_payload s;
  s.target_name = "IMS1";
  s.stream = 1;
  s.control.fill(0x40);
  s.data.assign(size, 0xC1);
  return s;
}

payload join_rsp_of(std::size_t members) {
  join_rsp_payload r;
  r.token = {0, 0, 0, 1, 0, 0, 0, 1};
  r.heartbeat_ms = 1000;
  for (std::size_t i = 0; i < members; ++i) {
    member_info m;
    m.group = "XCFGRP1";
    m.name = "CLIENT" + std::to_string(i);
    m.token = {0, 0, 0, 1, 0, 0, 0, static_cast<std::uint8_t>(i)};
    m.state = member_state::active;
    m.system = "HUB1";
    r.members.push_back(m);
  }
  return r;
}

void encode_bench(benchmark::State& state, frame_type type, const payload& body) {
  imsb::bytes out;
  for (auto _ : state) {
    out.clear();
    const bool ok = encode(type, flags::ordered, 1, body, out);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
  state.counters["bytes"] = static_cast<double>(out.size());
}

void decode_bench(benchmark::State& state, frame_type type, const payload& body) {
  imsb::bytes wire;
  if (!encode(type, flags::ordered, 1, body, wire)) {
    state.SkipWithError("encode refused the sample");
    return;
  }
  for (auto _ : state) {
    auto d = decode(wire);
    benchmark::DoNotOptimize(d);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * wire.size()));
  state.counters["bytes"] = static_cast<double>(wire.size());
}

void BM_xcf_encode_send_100(benchmark::State& s) { encode_bench(s, frame_type::send, send_of(100)); }
void BM_xcf_decode_send_100(benchmark::State& s) { decode_bench(s, frame_type::send, send_of(100)); }
void BM_xcf_encode_send_4k(benchmark::State& s) { encode_bench(s, frame_type::send, send_of(4096)); }
void BM_xcf_decode_send_4k(benchmark::State& s) { decode_bench(s, frame_type::send, send_of(4096)); }
void BM_xcf_encode_join_rsp_16(benchmark::State& s) {
  encode_bench(s, frame_type::join_rsp, join_rsp_of(16));
}
void BM_xcf_decode_join_rsp_16(benchmark::State& s) {
  decode_bench(s, frame_type::join_rsp, join_rsp_of(16));
}
BENCHMARK(BM_xcf_encode_send_100);
BENCHMARK(BM_xcf_decode_send_100);
BENCHMARK(BM_xcf_encode_send_4k);
BENCHMARK(BM_xcf_decode_send_4k);
BENCHMARK(BM_xcf_encode_join_rsp_16);
BENCHMARK(BM_xcf_decode_join_rsp_16);

// The reader over a stream of 100-byte SENDs fed in 1460-byte TCP segments: what the hub does per
// connection.
void BM_xcf_reader_send_100_stream(benchmark::State& state) {
  imsb::bytes stream;
  for (int i = 0; i < 64; ++i)
    encode(frame_type::send, 0, static_cast<std::uint32_t>(i), send_of(100), stream);
  std::int64_t frames = 0;
  for (auto _ : state) {
    reader r;
    decoded d;
    imsb::decode_error err;
    for (std::size_t at = 0; at < stream.size(); at += 1460) {
      r.feed(imsb::bytes_view(stream).sub(at, 1460));
      while (r.next(d, err) == reader::status::frame) ++frames;
    }
  }
  state.SetItemsProcessed(frames);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
}
BENCHMARK(BM_xcf_reader_send_100_stream);

}  // namespace
