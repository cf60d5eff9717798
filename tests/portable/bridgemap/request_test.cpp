// MQ request → OTMA input (bridgemap/request.hpp): what IMS gets for each kind of request, checked on
// the encoded bytes where byte order or character set matters (docs/design/character-data.md;
// [C: BRIDGE-MSGS, CONV, OTMA-EXPIRY]; what imsemu reads back: commit mode, sync level, LTERM, MOD name,
// server token, security).

#include "imsb/bridgemap/request.hpp"

#include <gtest/gtest.h>

#include "bridgemap_test_util.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/otma/message.hpp"

namespace imsb::bridgemap {
namespace {

using namespace test;

mq::mqiih iih_with(char commit_mode, std::int32_t flags = 0) {
  mq::mqiih iih;
  iih.commit_mode = commit_mode;
  iih.flags = flags;
  iih.lterm_override = codepage::pad_field("LTERM1", 8);
  iih.mfs_map_name = codepage::pad_field("MIDIN", 8);
  iih.reply_to_format = codepage::pad_field("MQSTR", 8);
  iih.authenticator = codepage::pad_field("SECRET", 8);
  return iih;
}

const otma::transaction_state_data& sd_of(const otma::otma_message& m) {
  return std::get<otma::transaction_state_data>(*m.state);
}

TEST(bridgemap_request, ascii_little_endian_request_reaches_ims_as_ebcdic_big_endian) {
  auto r = make_request(request_md(enc_le, 819, true), iih_with('0'), {"IVTNO DISPLAY LAST1", "SEG2"});
  validate(r);
  auto m = build_input(r.md, r.data, r.validated, default_input());
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  auto wire = otma::encode_message(*m);
  ASSERT_TRUE(wire.ok());
  auto back = otma::decode_message(*wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->segments().size(), 2u);
  // "IVTNO" in EBCDIC, literally (not through the codec under test).
  const bytes ivtno = {0xC9, 0xE5, 0xE3, 0xD5, 0xD6, 0x40};
  EXPECT_EQ(bytes(back->segments()[0].data.begin(), back->segments()[0].data.begin() + 6), ivtno);
  EXPECT_EQ(back->segments()[1].data, (bytes{0xE2, 0xC5, 0xC7, 0xF2}));  // "SEG2"
  // The application data in the wire bytes: LL big-endian (4 + 4 = 8 for "SEG2"), as OTMA's integers.
  const bytes& w = *wire;
  const bytes tail(w.end() - 8, w.end());
  EXPECT_EQ(tail, (bytes{0x00, 0x08, 0x00, 0x00, 0xE2, 0xC5, 0xC7, 0xF2}));
  // MCI: a transaction, response requested, our Tpipe, the recoverable number, synchronized.
  EXPECT_EQ(back->mci.message_type, otma::msg_type::transaction);
  EXPECT_TRUE(back->mci.response_requested());
  EXPECT_EQ(back->mci.tpipe_name.value(), "CSQ0001S");
  EXPECT_EQ(back->mci.recoverable_seq, 7u);
  EXPECT_EQ(back->mci.send_seq, 0u);
  EXPECT_NE(back->mci.processing_flags & otma::processing::synchronized_tpipe, 0);
  const auto& sd = sd_of(*back);
  EXPECT_EQ(sd.commit_mode_bits(), otma::sync_flags::commit_then_send);
  EXPECT_EQ(sd.sync_level(), otma::sync_flags::sync_level_confirm);
  EXPECT_EQ(sd.lterm_override.value(), "LTERM1");
  EXPECT_EQ(sd.modname.value(), "MIDIN");
  EXPECT_EQ(sd.server_state & otma::server_state::conversational, 0);
  EXPECT_EQ(sd.expiration, -1);
  // Security: the user, flag CHECK; the Authenticator never reaches IMS.
  ASSERT_TRUE(back->security.has_value());
  EXPECT_EQ(back->security->flag, otma::security_flag::check);
  EXPECT_EQ(back->security->user_id().value_or(""), "ALICE");
  EXPECT_FALSE(back->security->profile().has_value());
  const bytes secret = text_in("SECRET", 37);
  const bytes secret_ascii = text_in("SECRET", 819);
  EXPECT_EQ(std::search(w.begin(), w.end(), secret.begin(), secret.end()), w.end());
  EXPECT_EQ(std::search(w.begin(), w.end(), secret_ascii.begin(), secret_ascii.end()), w.end());
}

TEST(bridgemap_request, user_data_keeps_the_request_mqmd_iih_fields_and_token) {
  auto r = make_request(request_md(enc_le, 819, true), iih_with('1', mq::MQIIH_PASS_EXPIRATION), {"IVTNO X"});
  validate(r);
  input_context ctx = default_input();
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_TRUE(m->user.has_value());
  auto ud = otma::decode_mq_user_data(*m->user);
  ASSERT_TRUE(ud.ok());
  auto md = mq::decode_mqmd(bytes_view(ud->mqmd.data(), ud->mqmd.size()), enc_le, 819);
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->version, 1);
  EXPECT_EQ(md->msg_id, r.md.msg_id);
  EXPECT_EQ(md->reply_to_q, r.md.reply_to_q);
  EXPECT_EQ(md->format, std::string(mq::MQFMT_IMS));
  // Integers of the kept MQMD are in the queue manager's encoding: Version 1 little-endian at +4.
  EXPECT_EQ(ud->mqmd[4], 1);
  EXPECT_EQ(ud->mqmd[7], 0);
  EXPECT_EQ(std::string(ud->reply_to_format.begin(), ud->reply_to_format.end()), "MQSTR   ");
  EXPECT_EQ(ud->iih_flags, static_cast<std::uint32_t>(mq::MQIIH_PASS_EXPIRATION));
  // The token at +344 (user-data body offset 342).
  ASSERT_GE(m->user->body.size(), 342u + 16u);
  EXPECT_EQ(m->user->body[342], 1);
  EXPECT_EQ(m->user->body[342 + 15], 16);
  auto t = token_of(*m);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, ctx.token);
}

TEST(bridgemap_request, token_of_needs_our_user_data) {
  otma::otma_message m;
  EXPECT_FALSE(token_of(m).has_value());
  m.user = otma::user_data{bytes(10, 0)};
  EXPECT_FALSE(token_of(m).has_value());
}

TEST(bridgemap_request, cm1_is_send_then_commit_confirm_and_not_synchronized) {
  auto r = make_request(request_md(enc_le, 819, true), iih_with('1'), {"IVTNO X"});
  validate(r);
  input_context ctx = default_input();
  ctx.tpipe = "CSQ0001N";
  ctx.synchronized = false;
  ctx.recoverable_seq = 0;
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(sd_of(*m).commit_mode_bits(), otma::sync_flags::send_then_commit);
  EXPECT_EQ(sd_of(*m).sync_level(), otma::sync_flags::sync_level_confirm);
  EXPECT_EQ(m->mci.processing_flags & otma::processing::synchronized_tpipe, 0);
  EXPECT_EQ(m->mci.recoverable_seq, 0u);
}

TEST(bridgemap_request, commands_always_go_send_then_commit) {
  auto r = make_request(request_md(enc_le, 819, true), iih_with('0'), {"/DIS TRAN ALL"});
  validate(r);
  ASSERT_TRUE(r.validated.is_command);
  input_context ctx = default_input();
  ctx.synchronized = false;
  ctx.recoverable_seq = 0;
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(sd_of(*m).commit_mode_bits(), otma::sync_flags::send_then_commit);
}

TEST(bridgemap_request, no_mqiih_request_is_cm0_with_format_as_mfs_map_and_check) {
  mq::mqmd md = request_md(enc_le, 819, false);
  md.format = codepage::pad_field("MYMID", 8);
  auto r = make_request(md, std::nullopt, {"IVTNO DISPLAY"});
  validate(r);
  input_context ctx = default_input();
  ctx.security_flag = r.validated.security_scope;
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(sd_of(*m).commit_mode_bits(), otma::sync_flags::commit_then_send);
  EXPECT_EQ(sd_of(*m).modname.value(), "MYMID");
  EXPECT_EQ(sd_of(*m).lterm_override.value(), "");
  EXPECT_EQ(m->security->flag, otma::security_flag::check);
  auto ud = otma::decode_mq_user_data(*m->user);
  ASSERT_TRUE(ud.ok());
  EXPECT_EQ(std::string(ud->reply_to_format.begin(), ud->reply_to_format.end()), "        ");
  EXPECT_EQ(ud->iih_flags, 0u);
}

TEST(bridgemap_request, security_scope_full_group_and_utoken) {
  mq::mqiih iih = iih_with('1');
  iih.security_scope = 'F';
  auto r = make_request(request_md(enc_le, 819, true), iih, {"IVTNO X"});
  validate(r);
  input_context ctx = default_input();
  ctx.security_flag = r.validated.security_scope;
  ctx.group = "GROUP1";
  ctx.utoken = bytes{1, 2, 3, 4, 5};
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->security->flag, otma::security_flag::full);
  EXPECT_EQ(m->security->profile().value_or(""), "GROUP1");
  ASSERT_TRUE(m->security->utoken().has_value());
  EXPECT_EQ(m->security->utoken()->to_bytes(), (bytes{1, 2, 3, 4, 5}));
  // No user, group or token: no security section at all.
  ctx.user.clear();
  ctx.group.clear();
  ctx.utoken.reset();
  auto none = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->security.has_value());
  // A UTOKEN over OTMA's 80 bytes is refused before anything is sent.
  ctx.utoken = bytes(81, 7);
  EXPECT_FALSE(build_input(r.md, r.data, r.validated, ctx).ok());
}

TEST(bridgemap_request, conversation_step_carries_the_server_token) {
  mq::mqiih iih = iih_with('1');
  iih.tran_state = 'C';
  for (std::size_t i = 0; i < 16; ++i) iih.tran_instance_id[i] = static_cast<std::uint8_t>(0xC0 + i);
  auto r = make_request(request_md(enc_le, 819, true), iih, {"IVTCV ADD JONES"});
  validate(r);
  input_context ctx = default_input();
  ctx.synchronized = false;
  ctx.recoverable_seq = 0;
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  // [C: IMS-CONV, ICON-MCI]: type Data, server state Conversational, the token.
  EXPECT_EQ(m->mci.message_type, otma::msg_type::data);
  EXPECT_NE(sd_of(*m).server_state & otma::server_state::conversational, 0);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(sd_of(*m).server_token[i], 0xC0 + i);
  // A first step (TranState ' ') is a transaction without a token.
  iih.tran_state = ' ';
  auto r1 = make_request(request_md(enc_le, 819, true), iih, {"IVTCV DISPLAY JONES"});
  validate(r1);
  auto m1 = build_input(r1.md, r1.data, r1.validated, ctx);
  ASSERT_TRUE(m1.ok());
  EXPECT_EQ(m1->mci.message_type, otma::msg_type::transaction);
  EXPECT_EQ(sd_of(*m1).server_state & otma::server_state::conversational, 0);
  EXPECT_EQ(sd_of(*m1).server_token, (otma::raw_bytes<16>{}));
}

TEST(bridgemap_request, architected_display_asks_for_the_extended_response) {
  mq::mqiih iih = iih_with('1');
  iih.tran_state = 'A';
  auto r = make_request(request_md(enc_le, 819, true), iih, {"/DIS TRAN IVTNO"});
  validate(r);
  auto m = build_input(r.md, r.data, r.validated, default_input());
  ASSERT_TRUE(m.ok());
  EXPECT_NE(m->mci.response_flag & otma::response::extended_requested, 0);
}

TEST(bridgemap_request, iih_flags_map_to_state_data) {
  auto r = make_request(
      request_md(enc_le, 819, true),
      iih_with('0', mq::MQIIH_IGNORE_PURG | mq::MQIIH_CM0_REQUEST_RESPONSE | mq::MQIIH_PASS_EXPIRATION),
      {"IVTNO X"});
  r.md.expiry = 1234;
  validate(r);
  auto m = build_input(r.md, r.data, r.validated, default_input());
  ASSERT_TRUE(m.ok());
  EXPECT_NE(sd_of(*m).txn_flags & otma::txn_flags::ignore_purg, 0);
  EXPECT_NE(sd_of(*m).txn_flags & otma::txn_flags::pass_expiration, 0);
  EXPECT_NE(sd_of(*m).server_state & otma::server_state::cm0_dfs2082, 0);
  EXPECT_EQ(sd_of(*m).expiration, 1234);  // tenths, unchanged
  // Without PASS_EXPIRATION the expiry stays with MQ: IMS gets none [C: MQ-REPLY].
  auto r0 = make_request(request_md(enc_le, 819, true), iih_with('0', mq::MQIIH_IGNORE_PURG), {"IVTNO X"});
  r0.md.expiry = 1234;
  validate(r0);
  auto m0 = build_input(r0.md, r0.data, r0.validated, default_input());
  ASSERT_TRUE(m0.ok());
  EXPECT_EQ(sd_of(*m0).expiration, -1);
  EXPECT_EQ(sd_of(*m0).txn_flags & otma::txn_flags::pass_expiration, 0);
  // CM0_REQUEST_RESPONSE is for CM0 only.
  auto r1 =
      make_request(request_md(enc_le, 819, true), iih_with('1', mq::MQIIH_CM0_REQUEST_RESPONSE), {"IVTNO X"});
  validate(r1);
  auto m1 = build_input(r1.md, r1.data, r1.validated, default_input());
  ASSERT_TRUE(m1.ok());
  EXPECT_EQ(sd_of(*m1).server_state & otma::server_state::cm0_dfs2082, 0);
  EXPECT_EQ(sd_of(*m1).txn_flags, 0);
}

TEST(bridgemap_request, ccsid_q_mgr_means_the_queue_managers) {
  auto r = make_request(request_md(enc_le, 819, true), iih_with('0'), {"IVTNO X"});
  validate(r);
  r.md.coded_char_set_id = 0;  // MQCCSI_Q_MGR, resolved by the caller for the validator
  auto m = build_input(r.md, r.data, r.validated, default_input(enc_le, 819));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->segments()[0].data, (bytes{0xC9, 0xE5, 0xE3, 0xD5, 0xD6, 0x40, 0xE7}));  // "IVTNO X" in 037
}

TEST(bridgemap_request, conversion_none_passes_bytes_untouched) {
  auto r = make_request(request_md(enc_le, 819, true), iih_with('0'), {"IVTNO abc"});
  validate(r);
  input_context ctx = default_input();
  ctx.partner.convert = conversion::none;
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->segments()[0].data, text_in("IVTNO abc", 819));
}

TEST(bridgemap_request, ebcdic_big_endian_request_needs_no_conversion) {
  auto r = make_request(request_md(enc_be, 500, true), iih_with('0'), {"IVTNO X"});
  validate(r);
  input_context ctx = default_input();
  ctx.partner.ccsid = 500;
  auto m = build_input(r.md, r.data, r.validated, ctx);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->segments()[0].data, text_in("IVTNO X", 500));
}

TEST(bridgemap_request, unconvertible_character_is_2119_naming_segment_and_offset) {
  // UTF-8 "€" (E2 82 AC) has no equivalent in CCSID 037.
  mq::mqmd md = request_md(enc_le, 1208, true);
  request_msg r;
  r.md = md;
  mq::encode_mqiih(iih_with('0'), enc_le, 1208, r.data);
  const std::string first = "IVTNO X";
  const bytes seg1 = llzz(first, enc_le, 1208);
  r.data.insert(r.data.end(), seg1.begin(), seg1.end());
  const bytes text = {'A', 'B', 0xE2, 0x82, 0xAC};
  bytes seg2(4);
  store_u16(seg2.data(), static_cast<std::uint16_t>(4 + text.size()), byte_order::little);
  seg2.insert(seg2.end(), text.begin(), text.end());
  r.data.insert(r.data.end(), seg2.begin(), seg2.end());
  validate(r);
  auto m = build_input(r.md, r.data, r.validated, default_input(enc_le, 1208));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, mq::make_mqrc(mq::MQRC_NOT_CONVERTED));
  EXPECT_EQ(m.error().field, "OTMA.application_data.segment[1]");
  EXPECT_EQ(m.error().offset, 84u + seg1.size() + 4 + 2);  // the byte after "AB"
}

TEST(bridgemap_request, expiry_seconds_round_up) {
  EXPECT_FALSE(expiry_seconds(-1).has_value());
  EXPECT_FALSE(expiry_seconds(-7).has_value());
  EXPECT_EQ(expiry_seconds(0).value_or(99), 0u);
  EXPECT_EQ(expiry_seconds(1).value_or(0), 1u);
  EXPECT_EQ(expiry_seconds(10).value_or(0), 1u);
  EXPECT_EQ(expiry_seconds(11).value_or(0), 2u);
  EXPECT_EQ(expiry_seconds(999999999).value_or(0), 100000000u);
}

}  // namespace
}  // namespace imsb::bridgemap
