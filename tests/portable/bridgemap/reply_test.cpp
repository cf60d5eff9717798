// OTMA output → MQ reply, dead letters and exception reports (bridgemap/reply.hpp): IBM's reply MQMD row by
// row [C: REPLY-MD], its MQIIH [C: REPLY-IIH], the dead-letter rules [C: DLH-DOC], exception reports
// [I: ACTIVITY-MD, CANNOT-PUT], and the character data coming back in the queue manager's CCSID.

#include "imsb/bridgemap/reply.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bridgemap_test_util.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/mqdlh.hpp"

namespace imsb::bridgemap {
namespace {

using namespace test;

struct round_trip {
  request_msg request;
  otma::otma_message input;
};

round_trip send(const mq::mqmd& md, const std::optional<mq::mqiih>& iih, const std::vector<std::string>& segs,
                input_context ctx = default_input()) {
  round_trip t;
  t.request = make_request(md, iih, segs);
  validate(t.request);
  ctx.security_flag = t.request.validated.security_scope;
  auto m = build_input(t.request.md, t.request.data, t.request.validated, ctx);
  EXPECT_TRUE(m.ok()) << m.error().to_string();
  if (m.ok()) t.input = std::move(m).value();
  return t;
}

mq::mqiih iih_cm(char cm, std::int32_t flags = 0) {
  mq::mqiih iih;
  iih.commit_mode = cm;
  iih.flags = flags;
  return iih;
}

mq::mqiih decode_iih(const outgoing& o) {
  auto iih = mq::decode_mqiih(o.data, o.md.encoding, o.md.coded_char_set_id);
  EXPECT_TRUE(iih.ok());
  return iih.ok() ? *iih : mq::mqiih{};
}

TEST(bridgemap_reply, reply_mqmd_follows_the_table) {
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto out = output_for(t.input, {"ENTRY WAS DISPLAYED"}, 3, "MODOUT");
  auto r = build_reply(out, default_reply());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const mq::mqmd& md = r->md;
  const mq::mqmd& req = t.request.md;
  EXPECT_EQ(md.version, 1);
  EXPECT_EQ(md.msg_type, mq::MQMT_REPLY);
  EXPECT_EQ(md.report, mq::MQRO_NONE);
  EXPECT_EQ(md.feedback, mq::MQFB_NONE);
  EXPECT_EQ(md.expiry, mq::MQEI_UNLIMITED);
  EXPECT_EQ(md.encoding, enc_le);
  EXPECT_EQ(md.coded_char_set_id, 819);
  EXPECT_EQ(md.format, "MQIMS   ");
  EXPECT_EQ(md.priority, 4);
  EXPECT_EQ(md.persistence, mq::MQPER_PERSISTENT);         // CM0, recoverable output
  EXPECT_EQ(md.msg_id, (std::array<std::uint8_t, 24>{}));  // new: the queue manager makes it
  EXPECT_EQ(md.correl_id, req.msg_id);
  EXPECT_EQ(md.backout_count, 0);
  EXPECT_EQ(md.reply_to_q, std::string(48, ' '));
  EXPECT_EQ(md.user_identifier, req.user_identifier);
  EXPECT_EQ(md.accounting_token, req.accounting_token);
  EXPECT_EQ(md.appl_identity_data, req.appl_identity_data);
  EXPECT_EQ(md.put_appl_type, mq::MQAT_XCF);
  EXPECT_EQ(md.put_appl_name, "GRP1    IMS1                ");
  EXPECT_EQ(md.put_date, "20251130");
  EXPECT_EQ(md.put_time, "04300000");
  EXPECT_EQ(r->queue, "APP.REPLY");
  EXPECT_EQ(r->qmgr, "QM2");
}

TEST(bridgemap_reply, ebcdic_output_comes_back_ascii_little_endian) {
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto r = build_reply(output_for(t.input, {"HELLO", "WORLD 2"}, 3, "MODOUT"), default_reply());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->data.size(), 84u + 9 + 11);
  // After the MQIIH: LL little-endian, ASCII text (literal bytes).
  const bytes seg(r->data.begin() + 84, r->data.end());
  EXPECT_EQ(seg, (bytes{0x09, 0x00, 0x00, 0x00, 'H', 'E', 'L', 'L', 'O', 0x0B,
                        0x00, 0x00, 0x00, 'W',  'O', 'R', 'L', 'D', ' ', '2'}));
  // The MQIIH itself in ASCII little-endian: "IIH ", Version 1 as 01 00 00 00.
  EXPECT_EQ(bytes(r->data.begin(), r->data.begin() + 8), (bytes{'I', 'I', 'H', ' ', 1, 0, 0, 0}));
}

TEST(bridgemap_reply, utf8_queue_manager_gets_utf8_and_longer_segments) {
  auto t = send(request_md(enc_le, 1208, true), iih_cm('0'), {"IVTNO DISPLAY"}, default_input(enc_le, 1208));
  auto out = output_for(t.input, {"X"}, 3);
  out.application->segments[0].data = {0xC1, 0x51};  // "Aé" in CCSID 037
  auto r = build_reply(out, default_reply(enc_le, 1208));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->md.coded_char_set_id, 1208);
  const bytes seg(r->data.begin() + 84, r->data.end());
  EXPECT_EQ(seg, (bytes{0x07, 0x00, 0x00, 0x00, 'A', 0xC3, 0xA9}));
}

TEST(bridgemap_reply, reply_mqiih_follows_the_table) {
  mq::mqiih in = iih_cm('0');
  in.reply_to_format = codepage::pad_field("MQSTR", 8);
  in.lterm_override = codepage::pad_field("LT1", 8);
  in.authenticator = codepage::pad_field("PW", 8);
  auto t = send(request_md(enc_le, 819, true), in, {"IVTNO DISPLAY"});
  auto r = build_reply(output_for(t.input, {"X"}, 3, "MODOUT"), default_reply());
  ASSERT_TRUE(r.ok());
  const mq::mqiih iih = decode_iih(*r);
  EXPECT_EQ(iih.format, "MQSTR   ");  // the request's ReplyToFormat
  EXPECT_EQ(iih.flags, 0);
  EXPECT_EQ(iih.lterm_override, "LT1     ");
  EXPECT_EQ(iih.mfs_map_name, "MODOUT  ");
  EXPECT_EQ(iih.reply_to_format, "        ");
  EXPECT_EQ(iih.authenticator, "        ");
  EXPECT_EQ(iih.tran_instance_id, (std::array<std::uint8_t, 16>{}));
  EXPECT_EQ(iih.tran_state, ' ');
  EXPECT_EQ(iih.commit_mode, '0');
  EXPECT_EQ(iih.security_scope, ' ');
  EXPECT_EQ(iih.encoding, enc_le);
  EXPECT_EQ(iih.coded_char_set_id, 819);

  // Without ReplyToFormat the MOD name; the Tpipe when there is no LTERM override.
  auto t2 = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto r2 = build_reply(output_for(t2.input, {"X"}, 3, "MODOUT"), default_reply());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(decode_iih(*r2).format, "MODOUT  ");
  EXPECT_EQ(decode_iih(*r2).lterm_override, "CSQ0001S");
}

TEST(bridgemap_reply, reply_format_none_flag) {
  mq::mqiih in = iih_cm('0', mq::MQIIH_REPLY_FORMAT_NONE);
  in.reply_to_format = codepage::pad_field("MQSTR", 8);
  auto t = send(request_md(enc_le, 819, true), in, {"IVTNO DISPLAY"});
  auto r = build_reply(output_for(t.input, {"X"}, 3, "MODOUT"), default_reply());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(decode_iih(*r).format, "        ");
}

TEST(bridgemap_reply, no_mqiih_reply_takes_its_format_from_the_mod_name) {
  auto t = send(request_md(enc_le, 819, false), std::nullopt, {"IVTNO DISPLAY"});
  auto r = build_reply(output_for(t.input, {"OUT"}, 3, "DFSMO2"), default_reply());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->md.format, "DFSMO2  ");
  EXPECT_EQ(r->data, (bytes{0x07, 0x00, 0x00, 0x00, 'O', 'U', 'T'}));
  // The request's MFS map name (MQMD.Format) came back as the MOD name when the program set none.
  auto r2 = build_reply(output_for(t.input, {"OUT"}, 3), default_reply());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->md.format, "MQIMSVS ");
  // A blank MOD name gives MQFMT_NONE.
  auto out = output_for(t.input, {"OUT"}, 3);
  std::get<otma::transaction_state_data>(*out.state).modname.set("");
  auto r3 = build_reply(out, default_reply());
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->md.format, "        ");
}

TEST(bridgemap_reply, msg_id_and_correl_id_with_pass_options) {
  mq::mqmd md = request_md(enc_le, 819, true);
  md.report = mq::MQRO_PASS_MSG_ID | mq::MQRO_PASS_CORREL_ID;
  auto t = send(md, iih_cm('0'), {"IVTNO DISPLAY"});
  auto r = build_reply(output_for(t.input, {"X"}, 3), default_reply());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->md.msg_id, md.msg_id);
  EXPECT_EQ(r->md.correl_id, md.correl_id);
  EXPECT_EQ(r->md.report, mq::MQRO_NONE);
  md.report = mq::MQRO_PASS_MSG_ID;
  auto t2 = send(md, iih_cm('0'), {"IVTNO DISPLAY"});
  auto r2 = build_reply(output_for(t2.input, {"X"}, 3), default_reply());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->md.msg_id, md.msg_id);
  EXPECT_EQ(r2->md.correl_id, md.msg_id);
}

TEST(bridgemap_reply, pass_expiration_keeps_remaining_expiry_and_expiration_options) {
  mq::mqmd md = request_md(enc_le, 819, true);
  md.expiry = 600;
  md.report = mq::MQRO_EXPIRATION_WITH_DATA | mq::MQRO_EXCEPTION | mq::MQRO_PASS_MSG_ID;
  auto t = send(md, iih_cm('0', mq::MQIIH_PASS_EXPIRATION), {"IVTNO DISPLAY"});
  auto r = build_reply(output_for(t.input, {"X"}, 3), default_reply());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->md.expiry, 600);
  EXPECT_EQ(r->md.report, mq::MQRO_EXPIRATION_WITH_DATA);
  // Without the flag: unlimited, no report options.
  auto t2 = send(md, iih_cm('0'), {"IVTNO DISPLAY"});
  auto r2 = build_reply(output_for(t2.input, {"X"}, 3), default_reply());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->md.expiry, mq::MQEI_UNLIMITED);
  EXPECT_EQ(r2->md.report, mq::MQRO_NONE);
}

TEST(bridgemap_reply, cm0_persistence_follows_recoverability_cm1_the_request) {
  mq::mqmd md = request_md(enc_le, 819, true);
  md.persistence = mq::MQPER_NOT_PERSISTENT;
  auto t = send(md, iih_cm('0'), {"IVTNO DISPLAY"});
  // CM0: recoverable output (number ≠ 0) is persistent whatever the request; DFS text (0) is not.
  EXPECT_EQ(build_reply(output_for(t.input, {"X"}, 5), default_reply())->md.persistence,
            mq::MQPER_PERSISTENT);
  EXPECT_EQ(build_reply(output_for(t.input, {"DFS064 X"}, 0), default_reply())->md.persistence,
            mq::MQPER_NOT_PERSISTENT);
  // CM1: the request's.
  input_context ctx = default_input();
  ctx.synchronized = false;
  ctx.recoverable_seq = 0;
  auto t1 = send(md, iih_cm('1'), {"IVTNO DISPLAY"}, ctx);
  EXPECT_EQ(build_reply(output_for(t1.input, {"X"}, 0), default_reply())->md.persistence,
            mq::MQPER_NOT_PERSISTENT);
  md.persistence = mq::MQPER_PERSISTENT;
  auto t2 = send(md, iih_cm('1'), {"IVTNO DISPLAY"}, ctx);
  auto r2 = build_reply(output_for(t2.input, {"X"}, 0), default_reply());
  EXPECT_EQ(r2->md.persistence, mq::MQPER_PERSISTENT);
  EXPECT_EQ(decode_iih(*r2).commit_mode, '1');
}

TEST(bridgemap_reply, conversation_output_sets_tran_state_and_instance_id) {
  input_context ctx = default_input();
  ctx.synchronized = false;
  ctx.recoverable_seq = 0;
  auto t = send(request_md(enc_le, 819, true), iih_cm('1'), {"IVTCV DISPLAY JONES"}, ctx);
  auto out = output_for(t.input, {"ENTER DATA"}, 0);
  auto& sd = std::get<otma::transaction_state_data>(*out.state);
  sd.server_state |= otma::server_state::conversational;
  for (std::size_t i = 0; i < 16; ++i) sd.server_token[i] = static_cast<std::uint8_t>(0x50 + i);
  auto r = build_reply(out, default_reply());
  ASSERT_TRUE(r.ok());
  const mq::mqiih iih = decode_iih(*r);
  EXPECT_EQ(iih.tran_state, 'C');
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(iih.tran_instance_id[i], 0x50 + i);
  // The last step: IMS ends the conversation, TranState blank and no instance id.
  sd.server_state = 0;
  auto r2 = build_reply(out, default_reply());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(decode_iih(*r2).tran_state, ' ');
  EXPECT_EQ(decode_iih(*r2).tran_instance_id, (std::array<std::uint8_t, 16>{}));
}

TEST(bridgemap_reply, conversion_none_gives_the_partners_ccsid_and_big_endian) {
  input_context ictx = default_input();
  ictx.partner.convert = conversion::none;
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"}, ictx);
  reply_context rctx = default_reply();
  rctx.partner.convert = conversion::none;
  auto r = build_reply(output_for(t.input, {"AB"}, 3), rctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->md.encoding, 785);
  EXPECT_EQ(r->md.coded_char_set_id, 37);
  const bytes seg(r->data.begin() + 84, r->data.end());
  EXPECT_EQ(seg, (bytes{0x00, 0x06, 0x00, 0x00, 0xC1, 0xC2}));
  EXPECT_EQ(bytes(r->data.begin(), r->data.begin() + 4), (bytes{0xC9, 0xC9, 0xC8, 0x40}));  // "IIH " EBCDIC
}

TEST(bridgemap_reply, unconvertible_output_is_2119) {
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto out = output_for(t.input, {"X"}, 3);
  // X'FF' in 037 is EO (U+009F), in 819 too; use the euro of 1140 (X'9F') into 819, which has none.
  reply_context ctx = default_reply();
  ctx.partner.ccsid = 1140;
  out.application->segments[0].data = {0xC1, 0x9F};
  auto r = build_reply(out, ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_NOT_CONVERTED));
  EXPECT_EQ(r.error().field, "OTMA.application_data.segment[0]");
  EXPECT_EQ(r.error().offset, 1u);
}

TEST(bridgemap_reply, output_without_our_user_data_is_ims_error) {
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto out = output_for(t.input, {"X"}, 3);
  out.user.reset();
  auto r = build_reply(out, default_reply());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mq::make_mqfb(mq::MQFB_IMS_ERROR));
  EXPECT_EQ(r.error().field, "OTMA.user_data");
  out.user = otma::user_data{bytes(400, 0)};  // long enough, wrong eyecatcher
  EXPECT_EQ(build_reply(out, default_reply()).error().code, mq::make_mqfb(mq::MQFB_IMS_ERROR));
  EXPECT_FALSE(request_md_of(out, default_reply()).ok());
}

// Output that cannot become a reply goes to the dead-letter queue as IMS sent it, and the MQDLH says what
// that is — IMS's segments, big-endian, in the partner's CCSID — not what the request was (docs/design/
// errors.md [D]).
TEST(bridgemap_reply, output_that_is_no_reply_is_dead_lettered_as_ims_sent_it) {
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto out = output_for(t.input, {"X"}, 3);
  reply_context ctx = default_reply();
  ctx.partner.ccsid = 1140;
  out.application->segments[0].data = {0xC1, 0x9F};  // the euro of 1140: no reply in 819 (2119)
  ASSERT_FALSE(build_reply(out, ctx).ok());
  const bytes ims_sent = {0x00, 0x06, 0x00, 0x00, 0xC1, 0x9F};
  output_original known = output_as_original(out, mq::MQPER_PERSISTENT, ctx);
  EXPECT_EQ(known.data, ims_sent);
  EXPECT_EQ(known.md.msg_id, t.request.md.msg_id);  // the request's descriptor otherwise
  EXPECT_EQ(known.md.reply_to_q, t.request.md.reply_to_q);
  outgoing dl = make_dead_letter(known.md, known.data, 2119, "APP.REPLY", "", ctx);
  auto dlh = mq::decode_mqdlh(dl.data, enc_le, 819);
  ASSERT_TRUE(dlh.ok());
  EXPECT_EQ(dlh->format, "MQIMSVS ");
  EXPECT_EQ(dlh->encoding, mq::MQENC_NATIVE_ZOS);
  EXPECT_EQ(dlh->coded_char_set_id, 1140);
  EXPECT_EQ(bytes(dl.data.end() - 6, dl.data.end()), ims_sent);
  // Without user data of ours: a fresh descriptor with the persistence asked for, the same description.
  out.user.reset();
  output_original unknown = output_as_original(out, mq::MQPER_NOT_PERSISTENT, ctx);
  EXPECT_EQ(unknown.md.persistence, mq::MQPER_NOT_PERSISTENT);
  EXPECT_EQ(unknown.md.format, "MQIMSVS ");
  EXPECT_EQ(unknown.md.encoding, mq::MQENC_NATIVE_ZOS);
  EXPECT_EQ(unknown.md.coded_char_set_id, 1140);
  EXPECT_EQ(unknown.data, ims_sent);
}

TEST(bridgemap_reply, request_md_of_gives_back_the_request) {
  auto t = send(request_md(enc_le, 819, true), iih_cm('0'), {"IVTNO DISPLAY"});
  auto md = request_md_of(output_for(t.input, {"X"}, 3), default_reply());
  ASSERT_TRUE(md.ok());
  mq::mqmd want = t.request.md;
  EXPECT_EQ(md->msg_id, want.msg_id);
  EXPECT_EQ(md->correl_id, want.correl_id);
  EXPECT_EQ(md->reply_to_q, want.reply_to_q);
  EXPECT_EQ(md->user_identifier, want.user_identifier);
}

TEST(bridgemap_reply, dead_letter_layout) {
  mq::mqmd md = request_md(enc_be, 500, true);
  const bytes data = {1, 2, 3, 4, 5};
  reply_context ctx = default_reply();
  outgoing o = make_dead_letter(md, data, 296, "IMS.BRIDGE.Q", "QM1", ctx);
  EXPECT_EQ(o.md.format, "MQDEAD  ");
  EXPECT_EQ(o.md.encoding, enc_le);
  EXPECT_EQ(o.md.coded_char_set_id, 819);
  EXPECT_EQ(o.md.msg_id, md.msg_id);  // the original's descriptor otherwise
  EXPECT_EQ(o.md.user_identifier, md.user_identifier);
  EXPECT_TRUE(o.queue.empty());
  EXPECT_TRUE(o.qmgr.empty());
  ASSERT_EQ(o.data.size(), 172u + data.size());
  EXPECT_EQ(bytes(o.data.end() - 5, o.data.end()), data);
  // Reason at +8, little-endian ASCII.
  EXPECT_EQ(bytes(o.data.begin(), o.data.begin() + 12),
            (bytes{'D', 'L', 'H', ' ', 1, 0, 0, 0, 0x28, 0x01, 0, 0}));
  auto dlh = mq::decode_mqdlh(o.data, enc_le, 819);
  ASSERT_TRUE(dlh.ok());
  EXPECT_EQ(dlh->reason, 296);
  EXPECT_EQ(dlh->dest_q_name, codepage::pad_field("IMS.BRIDGE.Q", 48));
  EXPECT_EQ(dlh->dest_q_mgr_name, codepage::pad_field("QM1", 48));
  EXPECT_EQ(dlh->encoding, enc_be);
  EXPECT_EQ(dlh->coded_char_set_id, 500);
  EXPECT_EQ(dlh->format, "MQIMS   ");
  EXPECT_EQ(dlh->put_appl_type, mq::MQAT_IMS_BRIDGE);
  EXPECT_EQ(dlh->put_appl_name, codepage::pad_field("QM1", 28));
  EXPECT_EQ(dlh->put_date, "20251130");
  EXPECT_EQ(dlh->put_time, "04300000");
}

TEST(bridgemap_reply, exception_report_data_lengths) {
  mq::mqmd md = request_md(enc_le, 819, false);  // no MQIIH: the data is copied byte for byte
  bytes data(250);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i);
  const reply_context ctx = default_reply();
  md.report = mq::MQRO_NONE;
  EXPECT_FALSE(make_exception_report(md, data, 296, ctx).has_value());
  md.report = mq::MQRO_COA;
  EXPECT_FALSE(make_exception_report(md, data, 296, ctx).has_value());
  md.report = mq::MQRO_EXCEPTION;
  auto none = make_exception_report(md, data, 296, ctx);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->data.empty());
  md.report = mq::MQRO_EXCEPTION_WITH_DATA;
  auto first = make_exception_report(md, data, 296, ctx);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->data, bytes(data.begin(), data.begin() + 100));
  md.report = mq::MQRO_EXCEPTION_WITH_FULL_DATA;
  auto full = make_exception_report(md, data, 296, ctx);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->data, data);
  // Short data with WITH_DATA: all of it.
  md.report = mq::MQRO_EXCEPTION_WITH_DATA;
  EXPECT_EQ(make_exception_report(md, bytes_view(data).sub(0, 10), 296, ctx)->data.size(), 10u);
}

TEST(bridgemap_reply, exception_report_blanks_the_authenticator_dead_letter_keeps_it) {
  for (const std::int32_t ccsid : {819, 500}) {
    mq::mqmd md = request_md(enc_be, ccsid, true);
    mq::mqiih iih = iih_cm('0');
    iih.authenticator = "S3CRETPW";
    bytes data;
    mq::encode_mqiih(iih, enc_be, ccsid, data);
    const bytes body(150, 0x5A);
    data.insert(data.end(), body.begin(), body.end());
    const bytes authenticator(data.begin() + 56, data.begin() + 64);
    ASSERT_NE(authenticator, bytes(8, codepage::blank(ccsid)));
    for (const std::int32_t option : {mq::MQRO_EXCEPTION_WITH_DATA, mq::MQRO_EXCEPTION_WITH_FULL_DATA}) {
      md.report = option;
      auto r = make_exception_report(md, data, 296, default_reply());
      ASSERT_TRUE(r.has_value());
      ASSERT_GE(r->data.size(), 100u);
      EXPECT_EQ(bytes(r->data.begin() + 56, r->data.begin() + 64), bytes(8, codepage::blank(ccsid))) << ccsid;
      // Everything else is the request's.
      EXPECT_EQ(bytes(r->data.begin(), r->data.begin() + 56), bytes(data.begin(), data.begin() + 56));
      EXPECT_EQ(bytes(r->data.begin() + 64, r->data.end()),
                bytes(data.begin() + 64, data.begin() + r->data.size()));
      auto back = mq::decode_mqiih(r->data, enc_be, ccsid);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(back->authenticator, "        ");
    }
    // The dead-letter copy keeps the whole message (as IBM's does).
    const outgoing dl = make_dead_letter(md, data, 296, "IMS.BRIDGE.Q", "QM1", default_reply());
    EXPECT_EQ(bytes(dl.data.end() - static_cast<std::ptrdiff_t>(data.size()), dl.data.end()), data);
  }
}

TEST(bridgemap_reply, exception_report_descriptor) {
  mq::mqmd md = request_md(enc_le, 819, true);
  md.expiry = 900;
  md.report = mq::MQRO_EXCEPTION;
  auto r = make_exception_report(md, bytes{1}, 292, default_reply());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->md.msg_type, mq::MQMT_REPORT);
  EXPECT_EQ(r->md.feedback, 292);
  EXPECT_EQ(r->md.report, mq::MQRO_NONE);
  EXPECT_EQ(r->md.expiry, mq::MQEI_UNLIMITED);
  EXPECT_EQ(r->md.msg_id, (std::array<std::uint8_t, 24>{}));
  EXPECT_EQ(r->md.correl_id, md.msg_id);
  EXPECT_EQ(r->md.put_appl_type, mq::MQAT_IMS_BRIDGE);
  EXPECT_EQ(r->md.user_identifier, md.user_identifier);
  EXPECT_EQ(r->queue, "APP.REPLY");
  EXPECT_EQ(r->qmgr, "QM2");
  md.report = mq::MQRO_EXCEPTION | mq::MQRO_PASS_DISCARD_AND_EXPIRY | mq::MQRO_DISCARD_MSG |
              mq::MQRO_PASS_MSG_ID | mq::MQRO_PASS_CORREL_ID;
  auto r2 = make_exception_report(md, bytes{1}, 292, default_reply());
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(r2->md.report, mq::MQRO_DISCARD_MSG);
  EXPECT_EQ(r2->md.expiry, 900);
  EXPECT_EQ(r2->md.msg_id, md.msg_id);
  EXPECT_EQ(r2->md.correl_id, md.correl_id);
}

}  // namespace
}  // namespace imsb::bridgemap
