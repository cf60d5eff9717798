#include "imsb/mq/chain.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "mq_test_util.hpp"
#include "mqmd_golden.hpp"

namespace imsb::mq {
namespace {

// LLZZ segments: LL counts itself and ZZ [C: IMS-SEGFMT]; integers in `encoding`'s order.
void append_segment(bytes& out, std::string_view text_ascii, std::int32_t encoding) {
  const std::size_t at = out.size();
  out.resize(at + 4 + text_ascii.size());
  store_u16(out.data() + at, static_cast<std::uint16_t>(4 + text_ascii.size()), integer_order(encoding));
  store_u16(out.data() + at + 2, 0, integer_order(encoding));
  for (std::size_t i = 0; i < text_ascii.size(); ++i)
    out[at + 4 + i] = static_cast<std::uint8_t>(text_ascii[i]);
}

mqiih iih_for(std::string_view format) {
  mqiih iih;
  iih.format = std::string(format);
  iih.lterm_override = "LTERM01 ";
  iih.commit_mode = MQICM_SEND_THEN_COMMIT;
  return iih;
}

// MQMD (Linux, 546/819) → MQDLH → MQIIH → two LLZZ segments. The MQDLH says the data after it is
// z/OS data (785/500), so the MQIIH is big-endian EBCDIC.
struct dlh_message {
  bytes msg;
  mqmd md;
  mqdlh dlh;
  mqiih iih;
};

dlh_message make_dlh_message() {
  dlh_message m;
  m.md.version = 2;
  m.md.format = std::string(MQFMT_DEAD_LETTER_HEADER);
  m.md.encoding = 546;
  m.md.coded_char_set_id = 819;
  m.dlh.reason = MQFB_IIH_ERROR;
  m.dlh.dest_q_name = test::pad("IMS.BRIDGE.Q", 48);
  m.dlh.encoding = 785;
  m.dlh.coded_char_set_id = 500;
  m.dlh.format = std::string(MQFMT_IMS);
  m.iih = iih_for(MQFMT_IMS_VAR_STRING);
  encode_mqmd(m.md, 546, 819, m.msg);
  encode_mqdlh(m.dlh, 546, 819, m.msg);
  encode_mqiih(m.iih, 785, 500, m.msg);
  append_segment(m.msg, "TRAN0001 data", 785);
  append_segment(m.msg, "more", 785);
  return m;
}

TEST(MqChain, DeadLetterHeaderThenImsHeader) {
  const dlh_message m = make_dlh_message();
  auto r = walk_message_with_mqmd(m.msg);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const header_chain& c = *r;
  ASSERT_EQ(c.headers.size(), 3u);

  EXPECT_EQ(c.headers[0].struc_name, "MQMD");
  EXPECT_EQ(c.headers[0].offset, 0u);
  EXPECT_EQ(c.headers[0].length, 364u);
  EXPECT_EQ(c.headers[0].encoding, 546);
  EXPECT_EQ(c.headers[0].ccsid, 819);
  EXPECT_EQ(std::get<mqmd>(c.headers[0].value), m.md);

  EXPECT_EQ(c.headers[1].struc_name, "MQDLH");
  EXPECT_EQ(c.headers[1].offset, 364u);
  EXPECT_EQ(c.headers[1].length, 172u);
  EXPECT_EQ(c.headers[1].encoding, 546);  // described by the MQMD
  EXPECT_EQ(c.headers[1].ccsid, 819);
  EXPECT_EQ(std::get<mqdlh>(c.headers[1].value), m.dlh);

  EXPECT_EQ(c.headers[2].struc_name, "MQIIH");
  EXPECT_EQ(c.headers[2].offset, 536u);
  EXPECT_EQ(c.headers[2].length, 84u);
  EXPECT_EQ(c.headers[2].encoding, 785);  // described by the MQDLH
  EXPECT_EQ(c.headers[2].ccsid, 500);
  EXPECT_EQ(std::get<mqiih>(c.headers[2].value), m.iih);
  EXPECT_EQ(std::get<mqiih>(c.headers[2].value).chars_ccsid, 500);

  EXPECT_EQ(c.data_offset, 620u);
  EXPECT_EQ(c.data_encoding, 785);  // the MQIIH keeps its own [C: IIH-DOC]
  EXPECT_EQ(c.data_ccsid, 500);
  EXPECT_EQ(c.data_format, "MQIMSVS ");
  EXPECT_EQ(load_u16(m.msg.data() + c.data_offset, byte_order::big), 4 + 13);
}

TEST(MqChain, TransmissionHeaderThenImsHeader) {
  // A z/OS message on a transmission queue: MQMD (785/037) → MQXQH → MQIIH → LLZZ.
  mqmd md;
  md.format = std::string(MQFMT_XMIT_Q_HEADER);
  md.encoding = 785;
  md.coded_char_set_id = 37;
  mqxqh xqh;
  xqh.remote_q_name = test::pad("IMS.BRIDGE.Q", 48);
  xqh.remote_q_mgr_name = test::pad("QMZ", 48);
  xqh.msg_desc.format = std::string(MQFMT_IMS);
  xqh.msg_desc.encoding = 546;
  xqh.msg_desc.coded_char_set_id = 819;
  xqh.msg_desc.reply_to_q = test::pad("APP.REPLY", 48);
  const mqiih iih = iih_for(MQFMT_STRING);
  bytes msg;
  encode_mqmd(md, 785, 37, msg);
  encode_mqxqh(xqh, 785, 37, msg);
  encode_mqiih(iih, 546, 819, msg);
  append_segment(msg, "TRAN", 546);

  auto r = walk_message_with_mqmd(msg);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->headers.size(), 3u);
  EXPECT_EQ(r->headers[0].encoding, 785);
  EXPECT_EQ(r->headers[0].ccsid, 37);
  EXPECT_EQ(r->headers[1].struc_name, "MQXQH");
  EXPECT_EQ(r->headers[1].offset, 324u);
  EXPECT_EQ(r->headers[1].length, 428u);
  EXPECT_EQ(std::get<mqxqh>(r->headers[1].value), xqh);
  EXPECT_EQ(r->headers[2].struc_name, "MQIIH");
  EXPECT_EQ(r->headers[2].offset, 752u);
  EXPECT_EQ(r->headers[2].encoding, 546);
  EXPECT_EQ(r->headers[2].ccsid, 819);
  EXPECT_EQ(std::get<mqiih>(r->headers[2].value), iih);
  EXPECT_EQ(r->data_offset, 836u);
  EXPECT_EQ(r->data_format, "MQSTR   ");
  EXPECT_EQ(r->data_encoding, 546);
  EXPECT_EQ(r->data_ccsid, 819);
}

TEST(MqChain, DeadLetteredTransmissionMessage) {
  // MQDLH → MQXQH → MQIIH, all EBCDIC big-endian, walked from the MQMD's description.
  mqdlh dlh;
  dlh.format = std::string(MQFMT_XMIT_Q_HEADER);
  dlh.encoding = 785;
  dlh.coded_char_set_id = 1047;
  mqxqh xqh;
  xqh.msg_desc.format = std::string(MQFMT_IMS);
  xqh.msg_desc.encoding = 785;
  xqh.msg_desc.coded_char_set_id = 1047;
  bytes msg;
  encode_mqdlh(dlh, 785, 37, msg);
  encode_mqxqh(xqh, 785, 1047, msg);
  encode_mqiih(iih_for(MQFMT_NONE), 785, 1047, msg);
  auto r = walk_chain(msg, "MQDEAD", 785, 37);  // an unpadded format name compares equal
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->headers.size(), 3u);
  EXPECT_EQ(r->headers[0].struc_name, "MQDLH");
  EXPECT_EQ(r->headers[1].struc_name, "MQXQH");
  EXPECT_EQ(r->headers[1].ccsid, 1047);
  EXPECT_EQ(r->headers[2].struc_name, "MQIIH");
  EXPECT_EQ(r->data_offset, 172u + 428u + 84u);
  EXPECT_EQ(r->data_offset, msg.size());
  EXPECT_EQ(r->data_format, std::string(MQFMT_NONE));
}

TEST(MqChain, OtherFormatsEndTheChain) {
  const bytes data{0x00, 0x08, 0x00, 0x00, 'T', 'R', 'A', 'N'};
  for (std::string_view fmt : {MQFMT_STRING, MQFMT_NONE, MQFMT_IMS_VAR_STRING, MQFMT_MD_EXTENSION,
                               MQFMT_RF_HEADER_2, MQFMT_CICS, std::string_view("DFSMO1  ")}) {
    auto r = walk_chain(data, fmt, 785, 37);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->headers.empty());
    EXPECT_EQ(r->data_offset, 0u);
    EXPECT_EQ(r->data_format, std::string(fmt));
    EXPECT_EQ(r->data_encoding, 785);
    EXPECT_EQ(r->data_ccsid, 37);
  }
  auto empty = walk_chain(bytes_view(), "MQSTR", 546, 819);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->data_format, "MQSTR   ");
}

TEST(MqChain, UndefinedEncodingAndCcsidInheritTheHeadersOwn) {
  // MQDLH_DEFAULT has Encoding 0 and CodedCharSetId 0: the data is read as the MQDLH was [D].
  mqdlh dlh;
  dlh.format = std::string(MQFMT_IMS);
  bytes msg;
  encode_mqdlh(dlh, 785, 37, msg);
  encode_mqiih(mqiih{}, 785, 37, msg);
  auto r = walk_chain(msg, MQFMT_DEAD_LETTER_HEADER, 785, 37);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->headers.size(), 2u);
  EXPECT_EQ(r->headers[1].encoding, 785);
  EXPECT_EQ(r->headers[1].ccsid, 37);
  EXPECT_EQ(r->data_encoding, 785);
  EXPECT_EQ(r->data_ccsid, 37);

  // MQCCSI_INHERIT (-2) too.
  dlh.coded_char_set_id = MQCCSI_INHERIT;
  dlh.encoding = 273;
  msg.clear();
  encode_mqdlh(dlh, 546, 819, msg);
  encode_mqiih(mqiih{}, 273, 819, msg);
  r = walk_chain(msg, MQFMT_DEAD_LETTER_HEADER, 546, 819);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->headers[1].encoding, 273);
  EXPECT_EQ(r->headers[1].ccsid, 819);
}

TEST(MqChain, TruncatedChainsAreErrorsAtTheRightHeader) {
  const dlh_message m = make_dlh_message();
  for (std::size_t n = 0; n <= m.msg.size(); ++n) {
    auto r = walk_message_with_mqmd(bytes_view(m.msg).sub(0, n));
    if (n < 364) {
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_MD_ERROR)) << n;
      EXPECT_EQ(r.error().field.substr(0, 5), "MQMD.");
    } else if (n < 536) {
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_DLH_ERROR)) << n;
      EXPECT_GE(r.error().offset, 364u);
      EXPECT_LE(r.error().offset, n);
    } else if (n < 620) {
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_IIH_ERROR)) << n;
      EXPECT_GE(r.error().offset, 536u);
      EXPECT_LE(r.error().offset, n);
    } else {
      ASSERT_TRUE(r.ok()) << n << ": " << r.error().to_string();
      EXPECT_EQ(r->headers.size(), 3u);
      EXPECT_EQ(r->data_offset, 620u);
    }
  }
}

TEST(MqChain, ErrorOffsetsAreWithinTheWholeMessage) {
  dlh_message m = make_dlh_message();
  // MQIIH.StrucLength (big-endian, after MQMD v2 + MQDLH) set to 80.
  store_i32(m.msg.data() + 364 + 172 + 8, 80, byte_order::big);
  auto r = walk_message_with_mqmd(m.msg);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, make_mqrc(MQRC_IIH_ERROR));
  EXPECT_EQ(r.error().field, "MQIIH.StrucLength");
  EXPECT_EQ(r.error().offset, 364u + 172u + 8u);

  // The MQDLH says MQIMS but what follows is not an MQIIH.
  dlh_message n = make_dlh_message();
  n.msg[536] = 0x00;
  auto r2 = walk_message_with_mqmd(n.msg);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().field, "MQIIH.StrucId");
  EXPECT_EQ(r2.error().offset, 536u);
}

TEST(MqChain, MqmdEncodingIsDetectedFromTheBytes) {
  struct {
    std::int32_t encoding;
    std::int32_t ccsid;
    std::int32_t detected_encoding;
    std::int32_t detected_ccsid;
  } cases[] = {{546, 819, 546, 819}, {785, 37, 785, 37}, {273, 819, 273, 819}, {785, 500, 785, 37}};
  for (const auto& c : cases) {
    for (std::int32_t version : {1, 2}) {
      SCOPED_TRACE(std::to_string(c.encoding) + "/" + std::to_string(c.ccsid) + " v" +
                   std::to_string(version));
      mqmd md = test::sample_mqmd(version);
      md.format = std::string(MQFMT_STRING);
      md.encoding = 273;
      md.coded_char_set_id = 1208;
      bytes msg;
      encode_mqmd(md, c.encoding, c.ccsid, msg);
      msg.push_back(0x41);
      auto r = walk_message_with_mqmd(msg);
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      ASSERT_EQ(r->headers.size(), 1u);
      EXPECT_EQ(r->headers[0].encoding, c.detected_encoding);
      EXPECT_EQ(r->headers[0].ccsid, c.detected_ccsid);
      EXPECT_EQ(std::get<mqmd>(r->headers[0].value), md);
      EXPECT_EQ(r->data_offset, version == 2 ? 364u : 324u);
      // The data is described by the MQMD's own Encoding/CodedCharSetId fields.
      EXPECT_EQ(r->data_encoding, 273);
      EXPECT_EQ(r->data_ccsid, 1208);
    }
  }
}

TEST(MqChain, MqmdQueueManagerCcsidInheritsTheMqmds) {
  mqmd md;  // CodedCharSetId 0 = MQCCSI_Q_MGR, Encoding 546
  md.format = std::string(MQFMT_IMS);
  md.encoding = 0;
  bytes msg;
  encode_mqmd(md, 785, 37, msg);
  encode_mqiih(mqiih{}, 785, 37, msg);
  auto r = walk_message_with_mqmd(msg);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->headers.size(), 2u);
  EXPECT_EQ(r->headers[1].encoding, 785);
  EXPECT_EQ(r->headers[1].ccsid, 37);
}

TEST(MqChain, NotAnMqmd) {
  auto r = walk_message_with_mqmd(bytes{'D', 'L', 'H', ' ', 0, 0, 0, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, make_mqrc(MQRC_MD_ERROR));
  EXPECT_EQ(r.error().field, "MQMD.StrucId");

  auto v = walk_message_with_mqmd(bytes{'M', 'D', ' ', ' ', 0, 0, 0, 3});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().field, "MQMD.Version");

  auto empty = walk_message_with_mqmd(bytes_view());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().field, "MQMD.StrucId");
}

TEST(MqChainPartial, KeepsTheHeadersBeforeTheFailure) {
  // The MQDLH says MQIMS but what follows is not an MQIIH.
  dlh_message m = make_dlh_message();
  m.msg[536] = 0x00;
  const chain_walk w = walk_message_with_mqmd_partial(m.msg);
  ASSERT_TRUE(w.error.has_value());
  EXPECT_EQ(w.error->code, make_mqrc(MQRC_IIH_ERROR));
  EXPECT_EQ(w.error->field, "MQIIH.StrucId");
  EXPECT_EQ(w.error->offset, 536u);  // within the whole message, not the MQIIH
  ASSERT_EQ(w.chain.headers.size(), 2u);
  EXPECT_EQ(w.chain.headers[0].struc_name, "MQMD");
  EXPECT_EQ(std::get<mqmd>(w.chain.headers[0].value), m.md);
  EXPECT_EQ(w.chain.headers[1].struc_name, "MQDLH");
  EXPECT_EQ(w.chain.headers[1].offset, 364u);
  EXPECT_EQ(std::get<mqdlh>(w.chain.headers[1].value), m.dlh);
  // data_* describe the header that did not decode, as the MQDLH describes it.
  EXPECT_EQ(w.chain.data_offset, 536u);
  EXPECT_EQ(w.chain.data_encoding, 785);
  EXPECT_EQ(w.chain.data_ccsid, 500);
  EXPECT_EQ(w.chain.data_format, "MQIMS   ");
  EXPECT_EQ(chain_header_layout(w.chain.data_format), &mqiih_layout());
}

TEST(MqChainPartial, ErrorOffsetsAreAbsoluteInTheWalkedBuffer) {
  // Data without an MQMD: MQDLH → MQXQH → MQIIH whose StrucLength is wrong.
  mqdlh dlh;
  dlh.format = std::string(MQFMT_XMIT_Q_HEADER);
  mqxqh xqh;
  xqh.msg_desc.format = std::string(MQFMT_IMS);
  xqh.msg_desc.encoding = 273;
  xqh.msg_desc.coded_char_set_id = 819;
  bytes msg;
  encode_mqdlh(dlh, 785, 37, msg);
  encode_mqxqh(xqh, 785, 37, msg);
  encode_mqiih(iih_for(MQFMT_NONE), 273, 819, msg);
  store_i32(msg.data() + 172 + 428 + 8, 83, byte_order::big);

  const chain_walk w = walk_chain_partial(msg, "MQDEAD", 785, 37);
  ASSERT_TRUE(w.error.has_value());
  EXPECT_EQ(w.error->field, "MQIIH.StrucLength");
  EXPECT_EQ(w.error->offset, 172u + 428u + 8u);
  ASSERT_EQ(w.chain.headers.size(), 2u);
  EXPECT_EQ(w.chain.headers[0].struc_name, "MQDLH");
  EXPECT_EQ(w.chain.headers[0].offset, 0u);
  EXPECT_EQ(w.chain.headers[1].struc_name, "MQXQH");
  EXPECT_EQ(w.chain.headers[1].offset, 172u);
  EXPECT_EQ(std::get<mqxqh>(w.chain.headers[1].value), xqh);
  EXPECT_EQ(w.chain.data_offset, 600u);
  EXPECT_EQ(w.chain.data_encoding, 273);
  EXPECT_EQ(w.chain.data_ccsid, 819);

  // The all-or-nothing walks report the same error, at the same offset.
  auto r = walk_chain(msg, "MQDEAD", 785, 37);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, w.error->field);
  EXPECT_EQ(r.error().offset, w.error->offset);

  // Behind an MQMD the same failure is 324 bytes further on.
  mqmd md;
  md.format = std::string(MQFMT_DEAD_LETTER_HEADER);
  md.encoding = 785;
  md.coded_char_set_id = 37;
  bytes with_md;
  encode_mqmd(md, 785, 37, with_md);
  with_md.insert(with_md.end(), msg.begin(), msg.end());
  const chain_walk m = walk_message_with_mqmd_partial(with_md);
  ASSERT_TRUE(m.error.has_value());
  EXPECT_EQ(m.error->offset, 324u + 172u + 428u + 8u);
  ASSERT_EQ(m.chain.headers.size(), 3u);
  EXPECT_EQ(m.chain.headers[2].offset, 324u + 172u);
  EXPECT_EQ(m.chain.data_offset, 324u + 600u);
}

TEST(MqChainPartial, ACleanWalkHasNoErrorAndTheWholeChain) {
  const dlh_message m = make_dlh_message();
  const chain_walk w = walk_message_with_mqmd_partial(m.msg);
  EXPECT_FALSE(w.error.has_value());
  auto r = walk_message_with_mqmd(m.msg);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(w.chain.headers.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(w.chain.headers[i].struc_name, r->headers[i].struc_name);
    EXPECT_EQ(w.chain.headers[i].offset, r->headers[i].offset);
  }
  EXPECT_EQ(std::get<mqiih>(w.chain.headers[2].value), m.iih);
  EXPECT_EQ(w.chain.data_offset, 620u);
  EXPECT_EQ(w.chain.data_format, "MQIMSVS ");

  const chain_walk none = walk_chain_partial(bytes_view(), "MQSTR", 546, 819);
  EXPECT_FALSE(none.error.has_value());
  EXPECT_TRUE(none.chain.headers.empty());
  EXPECT_EQ(none.chain.data_format, "MQSTR   ");
}

TEST(MqChainPartial, EveryTruncationKeepsWhatFits) {
  const dlh_message m = make_dlh_message();
  for (std::size_t n = 0; n <= m.msg.size(); ++n) {
    SCOPED_TRACE(n);
    const bytes_view cut = bytes_view(m.msg).sub(0, n);
    const chain_walk w = walk_message_with_mqmd_partial(cut);
    const std::size_t decoded = n < 364 ? 0 : n < 536 ? 1 : n < 620 ? 2 : 3;
    const std::size_t stopped_at = n < 364 ? 0 : n < 536 ? 364 : 536;
    ASSERT_EQ(w.chain.headers.size(), decoded);
    EXPECT_EQ(w.error.has_value(), n < 620);
    auto r = walk_message_with_mqmd(cut);
    EXPECT_EQ(r.ok(), !w.error.has_value());
    if (w.error) {
      EXPECT_EQ(w.chain.data_offset, stopped_at);
      EXPECT_EQ(r.error().code, w.error->code);
      EXPECT_EQ(r.error().field, w.error->field);
      EXPECT_EQ(r.error().offset, w.error->offset);
      EXPECT_GE(w.error->offset, stopped_at);
      EXPECT_LE(w.error->offset, n);
    }
  }
}

TEST(MqChainPartial, AnMqmdThatDoesNotDecodeLeavesWhatItWasReadAs) {
  bytes msg;
  encode_mqmd(test::sample_mqmd(2), 785, 37, msg);
  store_i32(msg.data() + 4, 3, byte_order::big);  // Version 3
  const chain_walk w = walk_message_with_mqmd_partial(msg);
  ASSERT_TRUE(w.error.has_value());
  EXPECT_EQ(w.error->field, "MQMD.Version");
  EXPECT_EQ(w.error->offset, 4u);
  EXPECT_TRUE(w.chain.headers.empty());
  EXPECT_EQ(w.chain.data_offset, 0u);
  EXPECT_EQ(w.chain.data_encoding, 785);  // EBCDIC StrucId; Version 3 shows no byte order
  EXPECT_EQ(w.chain.data_ccsid, 37);
  EXPECT_EQ(w.chain.data_format, std::string(MQFMT_NONE));

  const chain_walk not_md = walk_message_with_mqmd_partial(bytes{'D', 'L', 'H', ' ', 0, 0, 0, 1});
  ASSERT_TRUE(not_md.error.has_value());
  EXPECT_EQ(not_md.error->field, "MQMD.StrucId");
  EXPECT_EQ(not_md.chain.data_encoding, 546);
  EXPECT_EQ(not_md.chain.data_ccsid, 819);
}

TEST(MqChain, HeaderEncodingIsDetectedFromStrucIdAndVersion) {
  struct {
    std::int32_t encoding;
    std::int32_t ccsid;
    std::int32_t detected_encoding;
    std::int32_t detected_ccsid;
  } cases[] = {{546, 819, 546, 819}, {273, 819, 273, 819}, {785, 37, 785, 37},
               {785, 500, 785, 37},  {546, 37, 546, 37},   {273, 1047, 785, 37}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.encoding) + "/" + std::to_string(c.ccsid));
    bytes dlh, xqh, iih;
    encode_mqdlh(mqdlh{}, c.encoding, c.ccsid, dlh);
    encode_mqxqh(mqxqh{}, c.encoding, c.ccsid, xqh);
    encode_mqiih(mqiih{}, c.encoding, c.ccsid, iih);
    for (const auto& [in, id] : {std::pair{&dlh, MQDLH_STRUC_ID}, std::pair{&xqh, MQXQH_STRUC_ID},
                                 std::pair{&iih, MQIIH_STRUC_ID}}) {
      auto d = detect_header_encoding(*in, id);
      ASSERT_TRUE(d.has_value()) << id;
      EXPECT_EQ(d->encoding, c.detected_encoding) << id;
      EXPECT_EQ(d->ccsid, c.detected_ccsid) << id;
    }
    EXPECT_FALSE(detect_header_encoding(dlh, MQIIH_STRUC_ID).has_value());
    EXPECT_FALSE(detect_header_encoding(iih, MQMD_STRUC_ID).has_value());
  }
  // No Version to read, or one that is neither 1 nor 2 either way: the family's usual platform.
  auto ascii = detect_header_encoding(bytes{'I', 'I', 'H', ' '}, MQIIH_STRUC_ID);
  ASSERT_TRUE(ascii.has_value());
  EXPECT_EQ(ascii->encoding, 546);
  EXPECT_EQ(ascii->ccsid, 819);
  auto ebcdic = detect_header_encoding(bytes{0xC9, 0xC9, 0xC8, 0x40, 0, 0, 0, 3}, MQIIH_STRUC_ID);
  ASSERT_TRUE(ebcdic.has_value());
  EXPECT_EQ(ebcdic->encoding, 785);
  EXPECT_EQ(ebcdic->ccsid, 37);
  auto big3 = detect_header_encoding(bytes{'M', 'D', ' ', ' ', 0, 0, 0, 3}, MQMD_STRUC_ID);
  ASSERT_TRUE(big3.has_value());
  EXPECT_EQ(big3->encoding, 546);
  EXPECT_FALSE(detect_header_encoding(bytes{'M', 'D', ' '}, MQMD_STRUC_ID).has_value());
  EXPECT_FALSE(detect_header_encoding(bytes_view(), MQMD_STRUC_ID).has_value());
}

TEST(MqChain, ChainHeaderLayoutFollowsTheFormat) {
  EXPECT_EQ(chain_header_layout(MQFMT_DEAD_LETTER_HEADER), &mqdlh_layout());
  EXPECT_EQ(chain_header_layout("MQXMIT"), &mqxqh_layout());
  EXPECT_EQ(chain_header_layout(std::string_view("MQIMS\0\0\0", 8)), &mqiih_layout());
  for (std::string_view f : {MQFMT_IMS_VAR_STRING, MQFMT_STRING, MQFMT_NONE, std::string_view("DFSMO1  ")})
    EXPECT_EQ(chain_header_layout(f), nullptr) << f;
}

TEST(MqChain, SameFormat) {
  EXPECT_TRUE(same_format("MQIMS", "MQIMS   "));
  EXPECT_TRUE(same_format(std::string_view("MQIMS\0xx", 8), "MQIMS   "));
  EXPECT_TRUE(same_format("", MQFMT_NONE));
  EXPECT_FALSE(same_format("MQIMSVS ", "MQIMS   "));
  EXPECT_FALSE(same_format("mqims   ", "MQIMS   "));
}

}  // namespace
}  // namespace imsb::mq
