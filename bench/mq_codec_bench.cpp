// Decode and encode speed of a typical bridge request: MQMD v2 + MQIIH + two LLZZ segments, in the
// Linux representation (546/819) and the z/OS one (785/037). Decode is what the bridge does per
// message: the MQMD, then walk_chain from its Format, then the LL walk; encode builds the same bytes.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/mq/chain.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"

namespace {

using namespace imsb;
using namespace imsb::mq;

struct representation {
  std::int32_t encoding;
  std::int32_t ccsid;
};
constexpr representation representations[] = {{MQENC_NATIVE_LINUX_X86, 819}, {MQENC_NATIVE_ZOS, 37}};

mqmd request_mqmd(const representation& r) {
  mqmd md;
  md.version = MQMD_VERSION_2;
  md.msg_type = MQMT_REQUEST;
  md.encoding = r.encoding;
  md.coded_char_set_id = r.ccsid;
  md.format = std::string(MQFMT_IMS);
  md.persistence = MQPER_PERSISTENT;
  md.reply_to_q = codepage::pad_field("APP.REPLY.QUEUE", MQ_Q_NAME_LENGTH);
  md.reply_to_q_mgr = codepage::pad_field("QM1", MQ_Q_MGR_NAME_LENGTH);
  md.user_identifier = codepage::pad_field("USER01", MQ_USER_ID_LENGTH);
  return md;
}

mqiih request_mqiih() {
  mqiih iih;
  iih.format = std::string(MQFMT_IMS_VAR_STRING);
  iih.lterm_override = "LTERM01 ";
  iih.commit_mode = MQICM_SEND_THEN_COMMIT;
  return iih;
}

constexpr std::string_view segments[] = {"TRAN0001 first segment of the request",
                                         "second segment with some more application data"};

// LLZZ + characters (the text is ASCII here; the conversion of segment text is not measured).
void append_segment(bytes& out, std::string_view text, byte_order order) {
  const std::size_t at = out.size();
  out.resize(at + 4 + text.size());
  store_u16(out.data() + at, static_cast<std::uint16_t>(4 + text.size()), order);
  store_u16(out.data() + at + 2, 0, order);
  for (std::size_t i = 0; i < text.size(); ++i) out[at + 4 + i] = static_cast<std::uint8_t>(text[i]);
}

bytes build(const mqmd& md, const mqiih& iih, const representation& r) {
  bytes out;
  out.reserve(512);
  encode_mqmd(md, r.encoding, r.ccsid, out);
  encode_mqiih(iih, r.encoding, r.ccsid, out);
  for (std::string_view s : segments) append_segment(out, s, integer_order(r.encoding));
  return out;
}

void BM_decode_mqmd_iih_llzz(benchmark::State& state) {
  const representation& r = representations[state.range(0)];
  const bytes msg = build(request_mqmd(r), request_mqiih(), r);
  for (auto _ : state) {
    auto md = decode_mqmd(msg, r.encoding, r.ccsid);
    if (!md) {
      state.SkipWithError("MQMD did not decode");
      break;
    }
    const std::size_t md_length = MQMD_LENGTH_2;
    auto chain = walk_chain(bytes_view(msg).sub(md_length), md->format, md->encoding, md->coded_char_set_id);
    if (!chain) {
      state.SkipWithError("chain did not decode");
      break;
    }
    const byte_order order = integer_order(chain->data_encoding);
    std::size_t at = md_length + chain->data_offset;
    std::size_t count = 0;
    while (at + 4 <= msg.size()) {
      at += load_u16(msg.data() + at, order);
      ++count;
    }
    benchmark::DoNotOptimize(count);
    benchmark::DoNotOptimize(chain);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * msg.size()));
  state.SetLabel(r.encoding == MQENC_NATIVE_ZOS ? "785/037" : "546/819");
}
BENCHMARK(BM_decode_mqmd_iih_llzz)->Arg(0)->Arg(1);

void BM_encode_mqmd_iih_llzz(benchmark::State& state) {
  const representation& r = representations[state.range(0)];
  const mqmd md = request_mqmd(r);
  const mqiih iih = request_mqiih();
  bytes out;
  out.reserve(512);
  for (auto _ : state) {
    out.clear();
    encode_mqmd(md, r.encoding, r.ccsid, out);
    encode_mqiih(iih, r.encoding, r.ccsid, out);
    for (std::string_view s : segments) append_segment(out, s, integer_order(r.encoding));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
  state.SetLabel(r.encoding == MQENC_NATIVE_ZOS ? "785/037" : "546/819");
}
BENCHMARK(BM_encode_mqmd_iih_llzz)->Arg(0)->Arg(1);

}  // namespace
