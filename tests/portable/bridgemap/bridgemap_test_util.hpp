#pragma once
// Shared helpers of the bridgemap tests: requests as an application puts them (MQIIH + LLZZ, in either
// byte order and character set), validated as the bridge's worker does, and IMS output made from an
// input as imsemu makes it (the input's state and user data come back [C: IMS-CTS-FLOW, IMS-USR]).

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "imsb/bridgemap/reply.hpp"
#include "imsb/bridgemap/request.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::bridgemap::test {

inline constexpr std::int32_t enc_le = 546;  // Linux x86 native
inline constexpr std::int32_t enc_be = 785;  // z/OS native

// Text in a CCSID, by the codec (the tests that check conversion compare with literal bytes instead).
inline bytes text_in(const std::string& s, std::int32_t ccsid) {
  return codepage::convert(bytes_view::of(s), codepage::ccsid_819, ccsid).out;
}
inline std::string text_of(bytes_view b, std::int32_t ccsid) {
  const bytes out = codepage::convert(b, ccsid, codepage::ccsid_819).out;
  return std::string(out.begin(), out.end());
}

// One LLZZ segment in `encoding`'s byte order, text in `ccsid`.
inline bytes llzz(const std::string& text, std::int32_t encoding, std::int32_t ccsid, std::uint16_t zz = 0) {
  const bytes t = text_in(text, ccsid);
  bytes out(4);
  store_u16(out.data(), static_cast<std::uint16_t>(t.size() + 4), integer_order(encoding));
  store_u16(out.data() + 2, zz, integer_order(encoding));
  out.insert(out.end(), t.begin(), t.end());
  return out;
}

struct request_msg {
  mq::mqmd md;
  bytes data;  // after the MQMD
  mq::bridge_request validated;
};

inline mq::mqmd request_md(std::int32_t encoding, std::int32_t ccsid, bool with_iih) {
  mq::mqmd md;
  md.msg_type = mq::MQMT_REQUEST;
  md.encoding = encoding;
  md.coded_char_set_id = ccsid;
  md.format = with_iih ? std::string(mq::MQFMT_IMS) : std::string(mq::MQFMT_IMS_VAR_STRING);
  md.priority = 4;
  md.persistence = mq::MQPER_PERSISTENT;
  for (std::size_t i = 0; i < md.msg_id.size(); ++i) md.msg_id[i] = static_cast<std::uint8_t>(0xA0 + i);
  for (std::size_t i = 0; i < md.correl_id.size(); ++i) md.correl_id[i] = static_cast<std::uint8_t>(0x10 + i);
  md.reply_to_q = codepage::pad_field("APP.REPLY", 48);
  md.reply_to_q_mgr = codepage::pad_field("QM2", 48);
  md.user_identifier = codepage::pad_field("alice", 12);
  md.accounting_token[0] = 0x16;
  md.accounting_token[31] = 0x99;
  md.appl_identity_data = codepage::pad_field("ident", 32);
  md.put_appl_name = codepage::pad_field("app", 28);
  return md;
}

// Validates the message (the test fails if it does not validate) and keeps the view's buffer alive.
inline request_msg make_request(const mq::mqmd& md, const std::optional<mq::mqiih>& iih,
                                const std::vector<std::string>& segments) {
  request_msg r;
  r.md = md;
  if (iih) mq::encode_mqiih(*iih, md.encoding, md.coded_char_set_id, r.data);
  for (const auto& s : segments) {
    const bytes seg = llzz(s, md.encoding, md.coded_char_set_id);
    r.data.insert(r.data.end(), seg.begin(), seg.end());
  }
  return r;
}

// Validation must run on the final buffer (segments view it): call after the request_msg is in place.
inline void validate(request_msg& r) {
  auto v = mq::validate_bridge_message(r.data, r.md.format, r.md.encoding, r.md.coded_char_set_id);
  ASSERT_TRUE(v.ok()) << v.error().to_string();
  r.validated = std::move(v).value();
}

inline input_context default_input(std::int32_t qmgr_encoding = enc_le, std::int32_t qmgr_ccsid = 819) {
  input_context ctx;
  ctx.tpipe = "CSQ0001S";
  ctx.synchronized = true;
  ctx.recoverable_seq = 7;
  for (std::size_t i = 0; i < ctx.token.size(); ++i) ctx.token[i] = static_cast<std::uint8_t>(i + 1);
  ctx.qmgr_encoding = qmgr_encoding;
  ctx.qmgr_ccsid = qmgr_ccsid;
  ctx.user = "ALICE";
  return ctx;
}

inline reply_context default_reply(std::int32_t qmgr_encoding = enc_le, std::int32_t qmgr_ccsid = 819) {
  reply_context ctx;
  ctx.qmgr_name = "QM1";
  ctx.qmgr_ccsid = qmgr_ccsid;
  ctx.qmgr_encoding = qmgr_encoding;
  ctx.xcf_group = "GRP1";
  ctx.xcf_member = "IMS1";
  ctx.now_ms = 1764477000000;  // 2025-11-30 04:30:00.00 UTC
  return ctx;
}

// IMS's output for `input` as imsemu builds it (output_for): type Data, the input's state and user
// data, the given EBCDIC segments (037), the send / recoverable numbers given.
inline otma::otma_message output_for(const otma::otma_message& input, const std::vector<std::string>& lines,
                                     std::uint32_t recoverable_seq, const std::string& modname = {}) {
  otma::otma_message out;
  out.mci.message_type = otma::msg_type::data;
  out.mci.tpipe_name = input.mci.tpipe_name;
  out.mci.recoverable_seq = recoverable_seq;
  out.state = input.state;
  auto& sd = std::get<otma::transaction_state_data>(*out.state);
  sd.server_state = static_cast<std::uint8_t>(sd.server_state & ~otma::server_state::conversational);
  if (!modname.empty()) sd.modname.set(modname);
  out.user = input.user;
  otma::application_data ap;
  for (const auto& l : lines) ap.segments.push_back(otma::segment{0, text_in(l, 37)});
  out.application = ap;
  return out;
}

}  // namespace imsb::bridgemap::test
