// OTMA prefix codec speed: decode and encode of a full transaction prefix as the bridge builds it —
// MCI + transaction state data + security data with a user ID + the 344-byte MQ user data
// (our layout [D], docs/design/otma.md) + two LLZZ segments.
#include <benchmark/benchmark.h>

#include "imsb/otma/message.hpp"

namespace {

using namespace imsb::otma;

otma_message full_transaction() {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  m.mci.response_flag = response::requested;
  m.mci.tpipe_name.set("JBJ0000E");
  m.mci.send_seq = 1;
  m.mci.recoverable_seq = 1;
  transaction_state_data sd;
  sd.modname.set("MODIN");
  m.state = state_data(sd);
  security_data se;
  se.set_user_id("USER1");
  m.security = se;
  mq_user_data mq;
  mq.iih_flags = 0x20;
  m.user = encode_mq_user_data(mq).value();
  m.application = application_data{{{0, imsb::bytes(120, 0xC1)}, {0, imsb::bytes(80, 0xC2)}}};
  return m;
}

void BM_otma_decode_transaction(benchmark::State& state) {
  const imsb::bytes wire = encode_message(full_transaction()).value();
  for (auto _ : state) {
    auto m = decode_message(wire);
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * wire.size()));
  state.counters["bytes"] = static_cast<double>(wire.size());
}
BENCHMARK(BM_otma_decode_transaction);

void BM_otma_encode_transaction(benchmark::State& state) {
  const otma_message m = full_transaction();
  std::size_t size = 0;
  for (auto _ : state) {
    auto b = encode_message(m);
    size = b->size();
    benchmark::DoNotOptimize(b);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}
BENCHMARK(BM_otma_encode_transaction);

void BM_otma_decode_mq_user_data(benchmark::State& state) {
  const otma_message m = full_transaction();
  for (auto _ : state) {
    auto mq = decode_mq_user_data(*m.user);
    benchmark::DoNotOptimize(mq);
  }
}
BENCHMARK(BM_otma_decode_mq_user_data);

}  // namespace
