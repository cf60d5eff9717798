// libFuzzer target for the PCF codec (mq::decode_pcf, encode_pcf) and the event builder.
//
// The first byte chooses the encoding and the message CCSID; the rest is decoded as PCF. What
// decodes must tile the input from its start (header, then each parameter), and re-encode to bytes
// that decode again to the same structure. A failure names a field at an offset inside the input
// with one of the PCF reason codes. The event builder's output always decodes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/pcf.hpp"

namespace {

using namespace imsb;
using namespace imsb::mq;

void require(bool ok) {
  if (!ok) std::abort();
}

constexpr std::int32_t encodings[] = {546, 785, 273, 0};
constexpr std::int32_t ccsids[] = {819, 37, 500, 1047, 1140, 1208, 0, 4711};

bool pcf_rc(const std::error_code& ec) {
  if (ec.category() != mqrc_category()) return false;
  switch (ec.value()) {
    case MQRC_CFH_ERROR:
    case MQRC_CFIN_ERROR:
    case MQRC_CFST_ERROR:
    case MQRC_CFIL_ERROR:
    case MQRC_CFSL_ERROR:
    case MQRC_CFBS_ERROR:
    case MQRC_CFGR_ERROR:
      return true;
    default:
      return false;
  }
}

bool same(const pcf_message& a, const pcf_message& b, bool same_offsets) {
  if (!(a.header == b.header) || a.parameters.size() != b.parameters.size()) return false;
  for (std::size_t i = 0; i < a.parameters.size(); ++i) {
    const pcf_parameter& x = a.parameters[i];
    const pcf_parameter& y = b.parameters[i];
    if (x.type != y.type || x.parameter != y.parameter || x.value != y.value || x.ccsid != y.ccsid ||
        x.raw != y.raw || x.depth != y.depth || (same_offsets && x.offset != y.offset))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::int32_t encoding = encodings[data[0] % 4];
  const std::int32_t ccsid = ccsids[(data[0] >> 2) % 8];
  const bytes_view in(data + 1, size - 1);

  auto m = decode_pcf(in, encoding, ccsid);
  if (!m) {
    require(pcf_rc(m.error().code));
    require(!m.error().field.empty() && !m.error().detail.empty());
    require(m.error().offset <= in.size() || in.size() < 36);
    return 0;
  }
  require(m->length >= 36 && m->length <= in.size());
  std::size_t next = 36;
  for (const pcf_parameter& p : m->parameters) {
    require(p.offset == next && p.length >= 8 && p.length % 4 == 0 && p.offset + p.length <= m->length);
    next += p.length;
  }
  require(next == m->length);

  // Re-encode: it decodes again to the same structure. MQCFST lengths are recomputed from the
  // string, so a longer padding than needed (or a UTF-8 string with malformed or non-ASCII bytes)
  // may change one parameter's length, and one may grow while another shrinks: the offsets agree
  // when every parameter kept its length.
  bytes again;
  encode_pcf(*m, encoding, ccsid, again);
  auto back = decode_pcf(again, encoding, ccsid);
  require(back.ok());
  require(back->length == again.size());
  bool same_lengths = back->parameters.size() == m->parameters.size();
  for (std::size_t i = 0; same_lengths && i < m->parameters.size(); ++i) {
    same_lengths = back->parameters[i].length == m->parameters[i].length;
  }
  require(same(*back, *m, same_lengths));
  // A second round trip changes nothing: the first one's output is already in canonical form.
  bytes twice;
  encode_pcf(*back, encoding, ccsid, twice);
  require(twice == again);

  // The event builder from whatever names the input holds.
  if (!m->parameters.empty() && m->parameters[0].type == MQCFT_STRING) {
    const std::string& t = m->parameters[0].text;
    const event_message e =
        bridge_event((data[0] & 1) != 0, t.substr(0, 8), t.size() > 8 ? t.substr(8, 16) : "",
                     MQRQ_BRIDGE_STOPPED_ERROR, m->header.reason, t, encoding, ccsid);
    auto ev = decode_pcf(e.data, encoding, ccsid);
    require(ev.ok() && ev->length == e.data.size());
    require(ev->header.reason == ((data[0] & 1) != 0 ? MQRC_BRIDGE_STARTED : MQRC_BRIDGE_STOPPED));
  }
  return 0;
}
