#include "imsb/dump/decode.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/dump/render.hpp"
#include "imsb/mq/chain.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"
#include "json_check.hpp"
#include "vectors.hpp"

namespace imsb::dump {
namespace {

using namespace imsb::mq;

const std::vector<std::string> mq_samples = {
    "samples/iih_request_ascii.hex", "samples/iih_request_ebcdic.hex", "samples/request_no_iih.hex",
    "samples/dead_letter.hex",       "samples/xmit_request.hex",       "samples/iih_bad_struclength.hex"};
const std::vector<std::string> otma_vectors = {"otma/client_bid.hex",       "otma/cbresynch.hex",
                                               "otma/cbresynch_ack.hex",    "otma/srvresynch.hex",
                                               "otma/srvresynch_ack.hex",   "otma/reqresynch.hex",
                                               "otma/transaction.hex",      "samples/otma_transaction_mq.hex",
                                               "samples/otma_nak_flood.hex"};

std::vector<std::string> names_of(const node& n) {
  std::vector<std::string> out;
  for (const auto& c : n.children) out.push_back(c.name);
  return out;
}

const node& child(const node& n, const std::string& name) {
  for (const auto& c : n.children)
    if (c.name == name) return c;
  static const node none;
  ADD_FAILURE() << "no child " << name << " in " << n.name;
  return none;
}

void append_segment(bytes& out, std::string_view text, byte_order order, int ll_delta = 0) {
  std::uint8_t llzz[4];
  store_u16(llzz, static_cast<std::uint16_t>(4 + text.size() + ll_delta), order);
  store_u16(llzz + 2, 0, order);
  out.insert(out.end(), llzz, llzz + 4);
  out.insert(out.end(), text.begin(), text.end());
}

// Every offset a document shows lies inside the input, and data never runs past it.
void expect_inside(const node& n, std::size_t size) {
  if (n.offset) {
    EXPECT_LE(*n.offset, size) << n.name;
    if (n.kind == node_kind::field || n.kind == node_kind::data || n.kind == node_kind::segment) {
      EXPECT_LE(*n.offset + n.length, size) << n.name;
    }
  }
  if (n.kind == node_kind::data) {
    EXPECT_EQ(n.raw.size(), n.length) << n.name;
  }
  for (const auto& c : n.children) expect_inside(c, size);
}

TEST(DumpMessage, AsciiRequestWithMqiih) {
  const bytes in = test::read_hex_vector("samples/iih_request_ascii.hex");
  dump_result r = dump_message(in);
  ASSERT_TRUE(r.ok());
  const node& doc = r.document;
  EXPECT_EQ(doc.value, "MQMD > MQIIH > data 'MQIMSVS '");
  EXPECT_EQ(names_of(doc), (std::vector<std::string>{"MQMD", "MQIIH", "IMS request", "data"}));
  const node& md = child(doc, "MQMD");
  EXPECT_EQ(md.length, 364u);
  EXPECT_EQ(child(md, "MsgType").meaning.substr(0, 12), "MQMT_REQUEST");
  EXPECT_EQ(child(md, "Report").meaning, "MQRO_EXCEPTION_WITH_DATA + MQRO_PASS_MSG_ID");
  EXPECT_EQ(child(md, "Persistence").number, 1);
  const node& iih = child(doc, "MQIIH");
  EXPECT_EQ(iih.offset, 364u);
  EXPECT_EQ(child(iih, "Flags").meaning, "MQIIH_PASS_EXPIRATION");
  EXPECT_EQ(child(iih, "CommitMode").value, "'0'");
  const node& req = child(doc, "IMS request");
  EXPECT_EQ(child(req, "trancode").value, "'PART    '");
  const node& data = child(doc, "data");
  ASSERT_EQ(data.children.size(), 2u);
  const node& s1 = data.children[0];
  EXPECT_EQ(s1.kind, node_kind::segment);
  EXPECT_EQ(s1.offset, 448u);
  EXPECT_EQ(child(s1, "LL").number, 21);
  EXPECT_EQ(child(s1, "text").text, "PART     AN960C10");
  EXPECT_EQ(data.children[1].offset, 469u);
  EXPECT_EQ(child(data.children[1], "text").text, "WIDGET, QTY 12");
  expect_inside(doc, in.size());
}

TEST(DumpMessage, EbcdicBigEndianRequestReadsLikeTheAsciiOne) {
  const bytes in = test::read_hex_vector("samples/iih_request_ebcdic.hex");
  dump_result r = dump_message(in);
  ASSERT_TRUE(r.ok());
  const node& md = child(r.document, "MQMD");
  EXPECT_EQ(child(md, "StrucId").meaning, "EBCDIC");
  EXPECT_EQ(child(md, "Encoding").number, 785);
  EXPECT_EQ(child(md, "Format").value, "'MQIMS   '");
  EXPECT_EQ(child(md, "ReplyToQ").value, "'APP.REPLY" + std::string(39, ' ') + "'");
  EXPECT_EQ(child(r.document, "MQIIH").value, "Encoding 785, CCSID 500");
  const node& data = child(r.document, "data");
  ASSERT_EQ(data.children.size(), 2u);
  EXPECT_EQ(child(data.children[0], "text").text, "PART     AN960C10");
  EXPECT_EQ(child(data.children[0], "text").raw.front(), 0xD7);  // EBCDIC 'P'
  EXPECT_EQ(child(child(r.document, "IMS request"), "trancode").value, "'PART    '");
}

TEST(DumpMessage, RequestWithoutMqiihTakesTheFormatAsMfsMapName) {
  dump_result r = dump_message(test::read_hex_vector("samples/request_no_iih.hex"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(names_of(r.document), (std::vector<std::string>{"MQMD", "IMS request", "data"}));
  EXPECT_EQ(child(child(r.document, "IMS request"), "MFSMapName").value, "'PARTMID '");
  EXPECT_EQ(child(r.document, "data").children.size(), 2u);
}

TEST(DumpMessage, DeadLetterShowsTheReasonAndTheSameFindingFromTheValidator) {
  dump_result r = dump_message(test::read_hex_vector("samples/dead_letter.hex"));
  ASSERT_TRUE(r.ok());  // a finding is not a decoding error
  EXPECT_EQ(r.document.value, "MQMD > MQDLH > MQIIH > data 'MQIMSVS '");
  const node& dlh = child(r.document, "MQDLH");
  EXPECT_EQ(child(dlh, "Reason").number, 294);
  EXPECT_EQ(child(dlh, "Reason").meaning, describe_feedback(294));
  EXPECT_EQ(child(dlh, "DestQName").value, "'IMS.BRIDGE.Q" + std::string(36, ' ') + "'");
  const node& finding = r.document.children.back();
  EXPECT_EQ(finding.kind, node_kind::finding);
  EXPECT_EQ(finding.id, imsb::msg::IMB4006W);
  EXPECT_EQ(finding.name, "LLZZ[1].LL");
  EXPECT_EQ(finding.offset, 620u);  // the first LL, after MQMD 364 + MQDLH 172 + MQIIH 84
  EXPECT_EQ(finding.meaning, describe_feedback(294));
  // One offset base in the whole line: the validator's offsets within the data it checks are moved
  // to offsets in the input, and its lengths say which bytes they count.
  EXPECT_EQ(finding.value,
            "segment 1 at offset 620: LL 40 runs 1 byte(s) past the end of the message (39 bytes left); "
            "sum of LL 0 + header 84 vs message length 123 (the message the bridge checks is the 123 bytes "
            "from offset 536)");
  // The bad segment is shown as bytes, not lost.
  const node& data = child(r.document, "data");
  ASSERT_EQ(data.children.size(), 1u);
  EXPECT_EQ(data.children[0].name, "rest");
  EXPECT_EQ(data.children[0].length, 39u);
}

TEST(DumpMessage, TransmissionQueueMessageNestsTheOriginalMqmd) {
  dump_result r = dump_message(test::read_hex_vector("samples/xmit_request.hex"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.value, "MQMD > MQXQH > MQIIH > data 'MQIMSVS '");
  const node& xqh = child(r.document, "MQXQH");
  EXPECT_EQ(child(xqh, "RemoteQMgrName").value, "'QMZ" + std::string(45, ' ') + "'");
  const node& desc = child(xqh, "MsgDesc");
  EXPECT_EQ(desc.kind, node_kind::structure);
  EXPECT_EQ(desc.offset, 324u + 104u);
  EXPECT_EQ(desc.children.size(), 24u);  // version-1 layout
  EXPECT_EQ(child(desc, "Format").value, "'MQIMS   '");
  EXPECT_EQ(child(r.document, "MQIIH").offset, 324u + 428u);
  EXPECT_EQ(child(r.document, "data").children.size(), 2u);
}

TEST(DumpMessage, BadStrucLengthStopsWithTheFieldAndItsOffset) {
  const bytes in = test::read_hex_vector("samples/iih_bad_struclength.hex");
  dump_result r = dump_message(in);
  ASSERT_FALSE(r.ok());
  const node* e = r.error();
  EXPECT_EQ(e->id, imsb::msg::IMB4002E);
  EXPECT_EQ(e->name, "MQIIH.StrucLength");
  EXPECT_EQ(e->offset, 364u + 8u);
  EXPECT_NE(e->meaning.find("MQRC_IIH_ERROR"), std::string::npos);
  // What was decoded before it, and the MQIIH's own fields, are still there.
  EXPECT_EQ(names_of(r.document), (std::vector<std::string>{"MQMD", "MQIIH", "MQIIH.StrucLength"}));
  EXPECT_EQ(child(child(r.document, "MQIIH"), "StrucLength").number, 80);
  const std::string text = render_text(r.document);
  EXPECT_NE(text.find("\nIMB4002E MQIIH.StrucLength at offset 372: "), std::string::npos) << text;
}

TEST(DumpMessage, SegmentFindingWithoutDeadLetterHeader) {
  mqmd md;
  md.format = std::string(MQFMT_IMS);
  md.encoding = MQENC_NATIVE_LINUX_X86;
  md.coded_char_set_id = 819;
  bytes in;
  encode_mqmd(md, 546, 819, in);
  mqiih iih;
  iih.format = std::string(MQFMT_IMS_VAR_STRING);
  encode_mqiih(iih, 546, 819, in);
  append_segment(in, "TRAN1 data", byte_order::little);
  append_segment(in, "", byte_order::little, -4);  // LL 0
  dump_result r = dump_message(in);
  ASSERT_TRUE(r.ok());
  const node& f = r.document.children.back();
  EXPECT_EQ(f.kind, node_kind::finding);
  EXPECT_EQ(f.name, "LLZZ[2].LL");
  EXPECT_EQ(f.offset, 324u + 84u + 14u);
  EXPECT_EQ(f.value.rfind("segment 2 at offset 422: LL 0", 0), 0u) << f.value;
  EXPECT_NE(f.value.find("the 102 bytes from offset 324"), std::string::npos) << f.value;
  EXPECT_EQ(f.meaning, describe_feedback(MQFB_DATA_LENGTH_ZERO));
  const node& data = child(r.document, "data");
  ASSERT_EQ(data.children.size(), 2u);  // segment 1, then the 4 bytes of the bad one
  EXPECT_EQ(data.children[0].kind, node_kind::segment);
  EXPECT_EQ(data.children[1].name, "rest");
}

TEST(DumpMessage, FormatOptionForDataWithoutMqmd) {
  const bytes full = test::read_hex_vector("samples/iih_request_ebcdic.hex");
  const bytes in(full.begin() + 364, full.end());  // MQIIH and segments, EBCDIC big-endian
  options o;
  o.format = "MQIMS";
  o.encoding = 785;
  o.ccsid = 500;
  dump_result r = dump_message(in, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.value, "data without MQMD, --format MQIMS > MQIIH > data 'MQIMSVS '");
  EXPECT_EQ(child(r.document, "data").children.size(), 2u);
  // Without --format the "IIH " StrucId is found, and the byte order from its Version.
  dump_result guessed = dump_message(in);
  ASSERT_TRUE(guessed.ok());
  EXPECT_EQ(child(guessed.document, "MQIIH").value, "Encoding 785, CCSID 37");
  EXPECT_EQ(child(child(guessed.document, "data").children[0], "text").text, "PART     AN960C10");
}

TEST(DumpMessage, VarStringFormatIsJustSegments) {
  bytes in;
  append_segment(in, "/DIS TRAN ALL", byte_order::little);
  options o;
  o.format = "MQIMSVS";
  dump_result r = dump_message(in, o);
  ASSERT_TRUE(r.ok());
  const node& req = child(r.document, "IMS request");
  EXPECT_EQ(child(req, "trancode").value, "'/DIS    '");
  EXPECT_NE(child(req, "trancode").meaning.find("IMS command"), std::string::npos);
}

TEST(DumpMessage, NoIntegerOrderIsAFinding) {
  bytes in;
  append_segment(in, "TRAN1", byte_order::little);
  options o;
  o.format = "MQIMSVS";
  o.encoding = 0;
  dump_result r = dump_message(in, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.children.back().kind, node_kind::finding);
  EXPECT_NE(r.document.children.back().meaning.find("MQRC_FORMAT_ERROR"), std::string::npos);
}

TEST(DumpMessage, UserFormatThatIsNotSegmentsIsJustBytes) {
  options o;
  o.format = "MYFMT";
  const std::string text = "hello";
  dump_result r = dump_message(bytes(text.begin(), text.end()), o);
  ASSERT_TRUE(r.ok());
  const node& data = child(r.document, "data");
  EXPECT_NE(data.meaning.find("not LLZZ segments"), std::string::npos);
  EXPECT_EQ(child(data, "bytes").text, "hello");
  for (const auto& c : r.document.children) EXPECT_NE(c.kind, node_kind::finding);
}

TEST(DumpMessage, PlainBytesAndEmptyInput) {
  const std::string text = "just text\n";
  dump_result r = dump_message(bytes(text.begin(), text.end()));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.name, "data");
  EXPECT_EQ(child(r.document, "bytes").text, "just text.");
  dump_result e = dump_message(bytes{});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error()->id, imsb::msg::IMB4007E);
}

TEST(DumpMessage, OtmaGoldenVectors) {
  for (const auto& v : otma_vectors) {
    SCOPED_TRACE(v);
    const bytes in = test::read_hex_vector(v);
    dump_result r = dump_message(in);  // found by its X'01' architecture level
    ASSERT_TRUE(r.ok()) << render_text(r.document);
    EXPECT_EQ(r.document.name, "OTMA message");
    const node& mci = child(r.document, "OTMA MCI");
    EXPECT_EQ(mci.children.size(), 15u);
    EXPECT_EQ(child(mci, "architecture_level").meaning, "OTMA architecture level 1");
    expect_inside(r.document, in.size());
    options o;
    o.otma = true;
    EXPECT_EQ(render_json(dump_message(in, o).document), render_json(r.document));
  }
}

TEST(DumpMessage, OtmaClientBid) {
  dump_result r = dump_message(test::read_hex_vector("otma/client_bid.hex"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.value, "command client_bid");
  const node& mci = child(r.document, "OTMA MCI");
  EXPECT_EQ(child(mci, "command_type").meaning, "client_bid");
  EXPECT_EQ(child(mci, "prefix_flags").meaning, "state_data+security_data");
  const node& sd = child(r.document, "OTMA state data");
  EXPECT_EQ(sd.value, "client_bid");
  EXPECT_EQ(child(sd, "member_name").value, "'CLIENT1         '");
  const node& se = child(r.document, "OTMA security data");
  EXPECT_EQ(child(se, "subfield[0].data").kind, node_kind::data);  // the 80-byte UTOKEN
}

TEST(DumpMessage, OtmaTransactionWithTheBridgesUserData) {
  dump_result r = dump_message(test::read_hex_vector("samples/otma_transaction_mq.hex"));
  ASSERT_TRUE(r.ok());
  const node& sd = child(r.document, "OTMA state data");
  EXPECT_EQ(child(sd, "sync_flags").meaning, "commit-then-send (CM0), sync level NONE");
  const node& us = child(r.document, "OTMA user data");
  EXPECT_EQ(us.value, "the bridge's MQ layout [D]");
  const node& md = child(us, "mq.mqmd");
  EXPECT_EQ(md.kind, node_kind::structure);
  EXPECT_EQ(md.offset, 124u);
  EXPECT_EQ(child(md, "Format").value, "'MQIMS   '");
  EXPECT_EQ(child(md, "ReplyToQ").value, "'APP.REPLY" + std::string(39, ' ') + "'");
  EXPECT_EQ(child(us, "mq.reply_to_format").value, "'MQIMSVS '");
  EXPECT_EQ(child(us, "mq.iih_flags").meaning, "MQIIH.Flags: MQIIH_PASS_EXPIRATION");
  const node& ap = child(r.document, "OTMA application data");
  ASSERT_EQ(ap.children.size(), 2u);
  EXPECT_EQ(child(ap.children[0], "text").text, "PART     AN960C10");
}

TEST(DumpMessage, OtmaNakExplainsTheSenseCode) {
  dump_result r = dump_message(test::read_hex_vector("samples/otma_nak_flood.hex"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.meaning.substr(0, 11), "NAK X'0030'");
  const node& sense = child(child(r.document, "OTMA MCI"), "sense_code");
  EXPECT_NE(sense.meaning.find("OTMA_SENSE_FLOOD"), std::string::npos);
  EXPECT_NE(sense.meaning.find("(348)"), std::string::npos);
}

TEST(DumpMessage, OtmaDecodeErrorKeepsTheSectionsBefore) {
  bytes in = test::read_hex_vector("otma/transaction.hex");
  in[102] = 0x7F;  // the security section's length now runs past the buffer
  options o;
  o.otma = true;  // without --otma, bytes that do not decode as OTMA are not taken for OTMA
  dump_result r = dump_message(in, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error()->id, imsb::msg::IMB4002E);
  EXPECT_EQ(r.error()->name, "OTMA.security_data.length");
  EXPECT_EQ(r.error()->offset, 102u);
  EXPECT_EQ(names_of(r.document),
            (std::vector<std::string>{"OTMA MCI", "OTMA state data", "OTMA.security_data.length"}));
}

// A header that does not decode leaves the ones before it, its own fields that fit, and the error
// at its absolute offset; the describing values still come from the header before it.
TEST(DumpMessage, DamagedHeaderShowsTheHeadersBeforeIt) {
  bytes in = test::read_hex_vector("samples/dead_letter.hex");
  in[536] = 0x00;  // the MQIIH's StrucId
  dump_result r = dump_message(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.document.value, "MQMD > MQDLH > MQIIH");
  EXPECT_EQ(names_of(r.document), (std::vector<std::string>{"MQMD", "MQDLH", "MQIIH", "MQIIH.StrucId"}));
  EXPECT_EQ(child(r.document, "MQDLH").offset, 364u);
  const node& iih = child(r.document, "MQIIH");
  EXPECT_EQ(iih.offset, 536u);
  EXPECT_EQ(iih.value, "Encoding 546, CCSID 819");
  EXPECT_EQ(child(iih, "Version").number, 1);
  EXPECT_EQ(r.error()->offset, 536u);
  EXPECT_NE(r.error()->meaning.find("MQRC_IIH_ERROR"), std::string::npos);

  // Without an MQMD (data that starts with the MQDLH), cut inside the MQIIH.
  const bytes tail(in.begin() + 364, in.begin() + 536 + 40);
  dump_result t = dump_message(tail);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.document.value, "data without MQMD, starts with MQDEAD's header > MQDLH > MQIIH");
  EXPECT_EQ(names_of(t.document), (std::vector<std::string>{"MQDLH", "MQIIH", "MQIIH.StrucId"}));
  EXPECT_EQ(t.error()->offset, 172u);
}

// Byte 0 = X'01' alone does not make OTMA: without --otma the MCI must be plausible and the whole
// buffer must decode, else the bytes are shown as data and decoding succeeds.
TEST(DumpMessage, OtmaIsGuessedOnlyFromAPlausibleMci) {
  // A PCF command in little-endian: MQCFH Type 1 (MQCFT_COMMAND), StrucLength 36, Version 1,
  // Command 1 (MQCMD_CHANGE_Q_MGR) ... starts with X'01000000'.
  bytes pcf;
  for (std::int32_t v : {1, 36, 1, 1, 1, 1, 0, 0, 0}) {
    std::uint8_t w[4];
    store_i32(w, v, byte_order::little);
    pcf.insert(pcf.end(), w, w + 4);
  }
  dump_result r = dump_message(pcf);
  ASSERT_TRUE(r.ok()) << render_text(r.document);
  EXPECT_EQ(r.document.name, "data");
  EXPECT_NE(r.document.value.find("message type X'00'"), std::string::npos) << r.document.value;
  EXPECT_EQ(child(r.document, "bytes").length, 36u);

  // Plain text after a X'01' byte.
  const std::string text =
      "\x01"
      "this is just some text, no OTMA message at all";
  r = dump_message(bytes(text.begin(), text.end()));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.name, "data");

  // A real OTMA message with a prefix-flag bit OTMA does not define, or an unknown message-type bit.
  bytes otma = test::read_hex_vector("otma/transaction.hex");
  bytes bad_prefix = otma;
  bad_prefix[15] |= 0x01;
  r = dump_message(bad_prefix);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.name, "data");
  EXPECT_NE(r.document.value.find("prefix flags"), std::string::npos) << r.document.value;
  bytes bad_type = otma;
  bad_type[1] |= 0x02;
  r = dump_message(bad_type);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.name, "data");

  // An MCI that looks right but a prefix that does not decode: bytes too, exit 0; --otma still
  // decodes it as far as it goes and stops with IMB4002E.
  bytes bad_section = otma;
  bad_section[102] = 0x7F;
  r = dump_message(bad_section);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.document.name, "data");
  EXPECT_NE(r.document.value.find("OTMA.security_data.length"), std::string::npos) << r.document.value;
  options o;
  o.otma = true;
  EXPECT_FALSE(dump_message(bad_section, o).ok());
  EXPECT_EQ(dump_message(bad_prefix, o).document.name, "OTMA message");

  // The golden vectors themselves are still found.
  EXPECT_EQ(dump_message(otma).document.name, "OTMA message");
}

// --format without --ccsid: an EBCDIC StrucId chooses CCSID 037 for the data, as the header
// decoders choose it for the header's own fields.
TEST(DumpMessage, FormatOptionTakesEbcdicFromTheStrucId) {
  const bytes full = test::read_hex_vector("samples/iih_request_ebcdic.hex");
  const bytes in(full.begin() + 364, full.end());
  options o;
  o.format = "MQIMS";
  o.encoding = 785;
  dump_result r = dump_message(in, o);
  ASSERT_TRUE(r.ok()) << render_text(r.document);
  const node& data = child(r.document, "data");
  ASSERT_EQ(data.children.size(), 2u);
  EXPECT_EQ(child(data.children[0], "text").text, "PART     AN960C10");
  EXPECT_EQ(child(child(r.document, "IMS request"), "trancode").value, "'PART    '");
  // --ccsid still wins.
  o.ccsid = 819;
  r = dump_message(in, o);
  EXPECT_NE(child(child(r.document, "data").children[0], "text").text, "PART     AN960C10");
  // An ASCII StrucId keeps 819.
  const bytes ascii_full = test::read_hex_vector("samples/iih_request_ascii.hex");
  options a;
  a.format = "MQIMS";
  r = dump_message(bytes(ascii_full.begin() + 364, ascii_full.end()), a);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(child(child(r.document, "data").children[0], "text").text, "PART     AN960C10");
}

// EBCDIC CCSIDs the codepage library has no table for are shown through 037, and the listing says so.
TEST(DumpMessage, UnconvertedEbcdicCcsidIsShownAsCcsid037) {
  bytes in = test::read_hex_vector("samples/iih_request_ebcdic.hex");
  store_i32(in.data() + 28, 1141, byte_order::big);  // MQMD.CodedCharSetId: Germany with euro
  dump_result r = dump_message(in);
  const node& data = child(r.document, "data");
  ASSERT_FALSE(data.children.empty()) << render_text(r.document);
  const node& text = child(data.children[0], "text");
  EXPECT_EQ(text.text, "PART     AN960C10");
  EXPECT_EQ(text.meaning, "shown as CCSID 037: CCSID 1141 is not converted by mqdump");
  EXPECT_EQ(child(child(r.document, "MQMD"), "CodedCharSetId").meaning,
            "EBCDIC, not converted by mqdump: text is shown as CCSID 037");

  const std::uint8_t hello[] = {0xC8, 0xC5, 0xD3, 0xD3, 0xD6, 0x4B};
  options o;
  o.ccsid = 273;
  dump_result plain = dump_message(bytes(hello, hello + 6), o);
  EXPECT_EQ(child(plain.document, "bytes").text, "HELLO.");
  EXPECT_EQ(child(plain.document, "bytes").meaning,
            "shown as CCSID 037: CCSID 273 is not converted by mqdump");
}

// A finding about the describing header (the validator's "MQMD.CodedCharSetId") points at that
// header's field, not at an offset in the data after it.
TEST(DumpMessage, FindingOnTheMqmdCcsidPointsAtTheMqmdField) {
  bytes in = test::read_hex_vector("samples/iih_request_ascii.hex");
  store_i32(in.data() + 28, 437, byte_order::little);  // MQMD.CodedCharSetId: a CCSID the bridge cannot read
  dump_result r = dump_message(in);
  ASSERT_TRUE(r.ok());
  ASSERT_NE(r.finding(), nullptr) << render_text(r.document);
  EXPECT_EQ(r.finding()->name, "MQMD.CodedCharSetId");
  EXPECT_EQ(r.finding()->offset, 28u);

  // Without a header to point at (--format, --ccsid), the finding has no offset.
  options o;
  o.format = "MQIMS";
  o.ccsid = 437;
  dump_result f = dump_message(bytes(in.begin() + 364, in.end()), o);
  ASSERT_NE(f.finding(), nullptr) << render_text(f.document);
  EXPECT_EQ(f.finding()->name, "MQMD.CodedCharSetId");
  EXPECT_FALSE(f.finding()->offset.has_value());
  EXPECT_EQ(render_text(f.document).find("at offset 0:"), std::string::npos);
}

// MQIIH.ReplyToFormat is the format the reply's MQIIH will carry, not an MFS map name.
TEST(DumpMessage, OtmaUserDataReplyToFormatIsWordedAsTheReplysFormat) {
  dump_result r = dump_message(test::read_hex_vector("samples/otma_transaction_mq.hex"));
  ASSERT_TRUE(r.ok());
  const node& rf = child(child(r.document, "OTMA user data"), "mq.reply_to_format");
  EXPECT_NE(rf.meaning.find("the reply's MQIIH"), std::string::npos) << rf.meaning;
}

TEST(DumpMessage, MqmdThatDoesNotDecodeIsShownAsItWasRead) {
  bytes in = test::read_hex_vector("samples/iih_request_ebcdic.hex");
  store_i32(in.data() + 4, 3, byte_order::big);  // Version 3
  dump_result r = dump_message(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.document.value, "MQMD");
  EXPECT_EQ(names_of(r.document), (std::vector<std::string>{"MQMD", "MQMD.Version"}));
  const node& md = child(r.document, "MQMD");
  EXPECT_EQ(md.value, "Encoding 785, CCSID 37 (from its StrucId and Version)");
  EXPECT_EQ(md.length, 364u);  // a Version above 2 is shown with the version-2 layout
  EXPECT_EQ(r.error()->offset, 4u);
}

void never_crashes(const bytes& in, const options& o) {
  dump_result r = dump_message(in, o);
  expect_inside(r.document, in.size());
  const std::string t = render_text(r.document);
  const std::string j = render_json(r.document);
  EXPECT_FALSE(t.empty());
  ASSERT_EQ(test::json_error(j), "") << j;
  if (!r.ok()) {
    EXPECT_EQ(r.error()->id.substr(0, 4), "IMB4");
  }
}

TEST(DumpMessage, EveryTruncationOfEveryVectorDecodesOrStopsCleanly) {
  std::vector<std::string> all = mq_samples;
  all.insert(all.end(), otma_vectors.begin(), otma_vectors.end());
  for (const auto& v : all) {
    SCOPED_TRACE(v);
    const bytes full = test::read_hex_vector(v);
    for (std::size_t n = 0; n <= full.size(); ++n) {
      const bytes in(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      never_crashes(in, {});
      options o;
      o.otma = true;
      never_crashes(in, o);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(DumpMessage, RandomBytesNeverCrash) {
  std::mt19937 rng(4002);
  const std::vector<bytes> starts = {{},
                                     {'M', 'D', ' ', ' '},
                                     {0xD4, 0xC4, 0x40, 0x40},
                                     {'I', 'I', 'H', ' '},
                                     {'D', 'L', 'H', ' '},
                                     {'X', 'Q', 'H', ' '},
                                     {0x01}};
  for (int i = 0; i < 3000; ++i) {
    bytes in = starts[static_cast<std::size_t>(i) % starts.size()];
    const std::size_t n = rng() % 900;
    for (std::size_t k = 0; k < n; ++k) in.push_back(static_cast<std::uint8_t>(rng()));
    if (in.size() >= 8 && rng() % 2) in[4] = 1, in[5] = in[6] = in[7] = 0;  // a plausible Version
    options o;
    if (rng() % 5 == 0) o.format = "MQIMS";
    if (rng() % 7 == 0) o.format = "MQIMSVS";
    if (rng() % 9 == 0) o.otma = true;
    if (rng() % 3 == 0) o.encoding = static_cast<std::int32_t>(rng());
    if (rng() % 3 == 0) o.ccsid = static_cast<std::int32_t>(rng() % 1300);
    never_crashes(in, o);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace imsb::dump
