// libFuzzer target for the bridge's reply path (bridgemap/reply.hpp, token_of): any bytes that
// otma::decode_message accepts go to build_reply, request_md_of and token_of under several queue-manager
// and partner settings (ASCII little-endian and EBCDIC big-endian queue managers, conversion text and
// none), then the dead letter and exception report of the request found. Nothing may crash; a reply
// that builds must be exactly [MQIIH] + whole LLZZ segments in its own encoding, with an MQIIH iff its
// Format is MQIMS; a refusal is MQFB_IMS_ERROR (no user data of ours) or a conversion code.
#include <cstddef>
#include <cstdint>
#include <string>

#include "imsb/bridgemap/reply.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

void check_reply(const imsb::bridgemap::outgoing& o) {
  namespace mq = imsb::mq;
  const bool iih = o.md.format == mq::MQFMT_IMS;
  std::size_t at = iih ? mq::MQIIH_LENGTH_1 : 0;
  require(o.data.size() >= at);
  const auto order = imsb::integer_order(o.md.encoding);
  while (at < o.data.size()) {
    require(o.data.size() - at >= 4);
    const std::size_t ll = imsb::load_u16(o.data.data() + at, order);
    require(ll >= 4 && ll <= o.data.size() - at);
    at += ll;
  }
  require(o.md.msg_type == mq::MQMT_REPLY && o.md.version == mq::MQMD_VERSION_1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace b = imsb::bridgemap;
  namespace mq = imsb::mq;
  auto message = imsb::otma::decode_message(imsb::bytes_view(data, size));
  if (!message.ok()) return 0;
  (void)b::token_of(*message);
  struct setting {
    std::int32_t encoding, ccsid, partner_ccsid;
    b::conversion convert;
  };
  static const setting settings[] = {{546, 819, 37, b::conversion::text},
                                     {546, 1208, 1140, b::conversion::text},
                                     {785, 500, 500, b::conversion::text},
                                     {546, 819, 37, b::conversion::none}};
  for (const setting& s : settings) {
    b::reply_context ctx;
    ctx.qmgr_name = "QM1";
    ctx.qmgr_encoding = s.encoding;
    ctx.qmgr_ccsid = s.ccsid;
    ctx.xcf_group = "GRP1";
    ctx.xcf_member = "IMS1";
    ctx.partner.ccsid = s.partner_ccsid;
    ctx.partner.convert = s.convert;
    ctx.now_ms = 1764477000000;
    auto reply = b::build_reply(*message, ctx);
    if (reply.ok()) {
      check_reply(*reply);
    } else {
      const auto code = reply.error().code;
      require(code == mq::make_mqfb(mq::MQFB_IMS_ERROR) || code == mq::make_mqrc(mq::MQRC_NOT_CONVERTED) ||
              code == mq::make_mqrc(mq::MQRC_CONVERTED_MSG_TOO_BIG));
    }
    auto md = b::request_md_of(*message, ctx);
    if (!md.ok()) continue;
    const imsb::bytes_view body(data, size);
    const auto dl = b::make_dead_letter(*md, body, 300, "IMS.BRIDGE.Q", "", ctx);
    require(dl.data.size() == 172 + size);
    const auto report = b::make_exception_report(*md, body, 300, ctx);
    if (report) require(report->data.size() <= size && report->md.msg_type == mq::MQMT_REPORT);
  }
  return 0;
}
