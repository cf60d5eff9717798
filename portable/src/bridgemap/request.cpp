#include "imsb/bridgemap/request.hpp"

#include <string>

#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/otma/user_data.hpp"

namespace imsb::bridgemap {

namespace {

decode_error not_converted(std::string field, std::size_t offset, std::string detail) {
  decode_error e;
  e.code = mq::make_mqrc(mq::MQRC_NOT_CONVERTED);
  e.field = std::move(field);
  e.offset = offset;
  e.detail = std::move(detail);
  return e;
}

// The CCSID MQCHARn fields of our own are written in: the queue manager's when the codec knows it,
// else 819 (what encode_mqmd writes for an unsupported CCSID, so the two agree).
std::int32_t field_ccsid(std::int32_t ccsid) noexcept {
  return codepage::supported(ccsid) ? ccsid : codepage::ccsid_819;
}

std::uint8_t security_flag_byte(char c) noexcept {
  switch (c) {
    case 'F':
      return otma::security_flag::full;
    case 'N':
      return otma::security_flag::none;
    default:
      return otma::security_flag::check;  // MQISS_CHECK is assumed for anything else [C: IIH-SECSCOPE]
  }
}

// One segment's text for IMS: converted to the partner's CCSID with `text`, as found with `none`
// (docs/design/character-data.md [D]).
result<bytes> segment_text(const mq::llzz_segment& seg, std::size_t index, std::int32_t from_ccsid,
                           const partner_data& partner) {
  const std::string field = "OTMA.application_data.segment[" + std::to_string(index) + "]";
  if (partner.convert == conversion::none || from_ccsid == partner.ccsid) return seg.text.to_bytes();
  codepage::conversion c = codepage::convert(seg.text, from_ccsid, partner.ccsid);
  if (c.unsupported) {
    return not_converted(field, seg.offset,
                         "cannot convert CCSID " + std::to_string(from_ccsid) + " to the partner's CCSID " +
                             std::to_string(partner.ccsid));
  }
  if (c.substitutions != 0) {
    const std::size_t at = seg.offset + mq::llzz_prefix_length + c.first_bad_offset;
    return not_converted(field, at,
                         std::to_string(c.substitutions) + " character(s) of CCSID " +
                             std::to_string(from_ccsid) + " have no equivalent in CCSID " +
                             std::to_string(partner.ccsid) + ", the first at offset " + std::to_string(at) +
                             " of the message data");
  }
  if (c.out.size() + otma::llzz_size > otma::max_segment_size) {
    decode_error e;
    e.code = mq::make_mqrc(mq::MQRC_CONVERTED_MSG_TOO_BIG);
    e.field = field;
    e.offset = seg.offset;
    e.detail = "converted segment has " + std::to_string(c.out.size() + otma::llzz_size) +
               " bytes; OTMA allows 32767";
    return e;
  }
  return std::move(c.out);
}

}  // namespace

result<otma::otma_message> build_input(const mq::mqmd& md, bytes_view data, const mq::bridge_request& request,
                                       const input_context& ctx) {
  (void)data;  // the segments view it; kept in the signature so the caller's buffer is explicit
  const std::optional<mq::mqiih>& iih = request.iih;
  const std::int32_t iih_flags = iih ? iih->flags : mq::MQIIH_NONE;
  // [C: CONV]: a later step of a conversation says TranState 'C' and quotes TranInstanceId.
  const bool conversation_step = request.tran_state == mq::MQITS_IN_CONVERSATION;
  // IMS commands always go send-then-commit (docs/design/commit-modes.md, IMS commands [D]: CM0 command
  // output cannot be tied back to its command [C: IMS-CMDS]).
  const bool cm1 = request.is_command || request.commit_mode == mq::MQICM_SEND_THEN_COMMIT;

  otma::otma_message m;
  // [C: ICON-MCI]: later input of a conversation is type Data with server state
  // Conversational (tpipe/protocol classifies it as conversation data); anything else a transaction.
  m.mci.message_type = conversation_step ? otma::msg_type::data : otma::msg_type::transaction;
  m.mci.response_flag = otma::response::requested;
  // [I: MQ-IIH, IMS-DISTRAN]: TranState 'A' (architected /DISPLAY TRANSACTION) asks for the extended
  // response.
  if (request.tran_state == mq::MQITS_ARCHITECTED) m.mci.response_flag |= otma::response::extended_requested;
  m.mci.tpipe_name.set(ctx.tpipe);
  m.mci.processing_flags = ctx.synchronized ? otma::processing::synchronized_tpipe : 0;
  m.mci.recoverable_seq = ctx.recoverable_seq;

  otma::transaction_state_data sd;
  sd.sync_flags = static_cast<std::uint8_t>(
      (cm1 ? otma::sync_flags::send_then_commit : otma::sync_flags::commit_then_send) |
      otma::sync_flags::sync_level_confirm);
  if ((iih_flags & mq::MQIIH_IGNORE_PURG) != 0) sd.txn_flags |= otma::txn_flags::ignore_purg;
  if ((iih_flags & mq::MQIIH_PASS_EXPIRATION) != 0) sd.txn_flags |= otma::txn_flags::pass_expiration;
  // [C: IIH-FLAGS]: MQIIH_CM0_REQUEST_RESPONSE sets TMAMHRSP for CM0 only.
  if (!cm1 && (iih_flags & mq::MQIIH_CM0_REQUEST_RESPONSE) != 0)
    sd.server_state |= otma::server_state::cm0_dfs2082;
  if (conversation_step && iih) {
    sd.server_state |= otma::server_state::conversational;
    for (std::size_t i = 0; i < sd.server_token.size(); ++i) sd.server_token[i] = iih->tran_instance_id[i];
  }
  // Blank (8 blanks from the validator) stays blank: "none", the Tpipe name is used [C: IIH-LTERM].
  sd.lterm_override.set(request.lterm_override);
  sd.modname.set(request.mfs_map_name);
  // [C: MQ-REPLY, IIH-FLAGS]: MQMD.Expiry goes to IMS only when the MQIIH asks (PASS_EXPIRATION); the
  // state data keeps it in tenths, as left at get (otma/state_data.hpp; docs/design/otma.md) [D].
  if ((iih_flags & mq::MQIIH_PASS_EXPIRATION) != 0 && md.expiry != mq::MQEI_UNLIMITED && md.expiry >= 0)
    sd.expiration = md.expiry;
  m.state = sd;

  if (!ctx.user.empty() || !ctx.group.empty() || ctx.utoken) {
    otma::security_data se;
    se.flag = security_flag_byte(ctx.security_flag);
    if (!ctx.user.empty()) se.set_user_id(ctx.user);
    if (!ctx.group.empty()) se.set_profile(ctx.group);
    if (ctx.utoken) se.set_utoken(*ctx.utoken);
    m.security = std::move(se);
  }

  // The user data: what the reply needs, IMS returns it untouched ([C: REPLY-MD]; layout [D],
  // docs/design/otma.md).
  otma::mq_user_data ud;
  mq::mqmd md1 = md;
  md1.version = mq::MQMD_VERSION_1;
  bytes mdb;
  encode_mqmd(md1, ctx.qmgr_encoding, ctx.qmgr_ccsid, mdb);
  for (std::size_t i = 0; i < ud.mqmd.size() && i < mdb.size(); ++i) ud.mqmd[i] = mdb[i];
  const std::string rtf = iih ? iih->reply_to_format : std::string(mq::MQFMT_NONE);
  codepage::put_field(ud.reply_to_format.data(), ud.reply_to_format.size(), rtf, field_ccsid(ctx.qmgr_ccsid));
  ud.iih_flags = static_cast<std::uint32_t>(iih_flags);
  ud.reserved.assign(ctx.token.begin(), ctx.token.end());  // +344: the token (token_of) [D]
  auto us = otma::encode_mq_user_data(ud);
  if (!us) return us.error();
  m.user = std::move(us).value();

  // MQCCSI_Q_MGR (0) means the queue manager's CCSID, as the validator was told (bridge_validator.hpp).
  const std::int32_t text_ccsid =
      md.coded_char_set_id == mq::MQCCSI_Q_MGR ? ctx.qmgr_ccsid : md.coded_char_set_id;
  otma::application_data ap;
  for (std::size_t i = 0; i < request.segments.size(); ++i) {
    const mq::llzz_segment& seg = request.segments[i];
    auto text = segment_text(seg, i, text_ccsid, ctx.partner);
    if (!text) return text.error();
    ap.segments.push_back(otma::segment{seg.zz, std::move(text).value()});
  }
  m.application = std::move(ap);

  // What the session would refuse to encode (a UTOKEN over 80 bytes, a name too long) is refused here,
  // before anything is committed for this message.
  auto encoded = otma::encode_message(m);
  if (!encoded) return encoded.error();
  return m;
}

std::optional<std::array<std::uint8_t, 16>> token_of(const otma::otma_message& output) {
  if (!output.user) return std::nullopt;
  auto ud = otma::decode_mq_user_data(*output.user);
  if (!ud || ud->reserved.size() < 16) return std::nullopt;
  std::array<std::uint8_t, 16> t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = ud->reserved[i];
  return t;
}

std::optional<std::uint32_t> expiry_seconds(std::int32_t expiry_tenths) noexcept {
  if (expiry_tenths < 0) return std::nullopt;  // MQEI_UNLIMITED (-1); other negatives are not expiries
  return static_cast<std::uint32_t>((static_cast<std::int64_t>(expiry_tenths) + 9) / 10);
}

}  // namespace imsb::bridgemap
