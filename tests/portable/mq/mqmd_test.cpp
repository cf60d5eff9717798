#include "imsb/mq/mqmd.hpp"

#include <gtest/gtest.h>

#include <string>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "mq_test_util.hpp"
#include "mqmd_golden.hpp"

namespace imsb::mq {
namespace {

using test::wire;

bytes encoded(const mqmd& md, const wire& w) {
  bytes b;
  encode_mqmd(md, w.encoding, w.ccsid, b);
  return b;
}

void expect_md_error(const result<mqmd>& r, const std::string& field, std::size_t offset) {
  ASSERT_FALSE(r.ok()) << "expected an error at " << field;
  EXPECT_EQ(r.error().code, make_mqrc(MQRC_MD_ERROR)) << r.error().to_string();
  EXPECT_EQ(r.error().field, field) << r.error().to_string();
  EXPECT_EQ(r.error().offset, offset) << r.error().to_string();
  EXPECT_FALSE(r.error().detail.empty());
}

TEST(Mqmd, DefaultsAreMqmdDefault) {
  const mqmd md;
  EXPECT_EQ(md.struc_id, "MD  ");
  EXPECT_EQ(md.version, 1);
  EXPECT_EQ(md.report, MQRO_NONE);
  EXPECT_EQ(md.msg_type, MQMT_DATAGRAM);
  EXPECT_EQ(md.expiry, -1);
  EXPECT_EQ(md.feedback, 0);
  EXPECT_EQ(md.encoding, 546);
  EXPECT_EQ(md.coded_char_set_id, 0);
  EXPECT_EQ(md.format, "        ");
  EXPECT_EQ(md.priority, -1);
  EXPECT_EQ(md.persistence, 2);
  EXPECT_EQ(md.msg_id, MQMI_NONE);
  EXPECT_EQ(md.correl_id, MQCI_NONE);
  EXPECT_EQ(md.backout_count, 0);
  EXPECT_EQ(md.reply_to_q, std::string(48, ' '));
  EXPECT_EQ(md.reply_to_q_mgr, std::string(48, ' '));
  EXPECT_EQ(md.user_identifier, std::string(12, ' '));
  EXPECT_EQ(md.accounting_token, MQACT_NONE);
  EXPECT_EQ(md.appl_identity_data, std::string(32, ' '));
  EXPECT_EQ(md.put_appl_type, MQAT_NO_CONTEXT);
  EXPECT_EQ(md.put_appl_name, std::string(28, ' '));
  EXPECT_EQ(md.put_date, std::string(8, ' '));
  EXPECT_EQ(md.put_time, std::string(8, ' '));
  EXPECT_EQ(md.appl_origin_data, std::string(4, ' '));
  EXPECT_EQ(md.group_id, MQGI_NONE);
  EXPECT_EQ(md.msg_seq_number, 1);
  EXPECT_EQ(md.offset, 0);
  EXPECT_EQ(md.msg_flags, MQMF_NONE);
  EXPECT_EQ(md.original_length, -1);
}

TEST(Mqmd, Version2EveryFieldAtItsOffset) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const mqmd md = test::sample_mqmd(2);
    const bytes b = encoded(md, w);
    ASSERT_EQ(b.size(), 364u);
    test::expect_mqmd_bytes(b, 0, md, w, true);
    auto back = decode_mqmd(b, w.encoding, w.ccsid);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, md);
    EXPECT_EQ(back->chars_ccsid, w.ccsid);
  }
}

TEST(Mqmd, Version1StopsAt324Bytes) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    mqmd md = test::sample_mqmd(1);
    const bytes b = encoded(md, w);
    ASSERT_EQ(b.size(), 324u);
    test::expect_mqmd_bytes(b, 0, md, w, false);
    // Version-2 members are not written by a version-1 MQMD and come back as defaults.
    md.group_id = test::byte_pattern<24>(1);
    md.msg_seq_number = 7;
    EXPECT_EQ(encoded(md, w), b);
    auto back = decode_mqmd(b, w.encoding, w.ccsid);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->group_id, MQGI_NONE);
    EXPECT_EQ(back->msg_seq_number, 1);
    EXPECT_EQ(back->original_length, MQOL_UNDEFINED);
    EXPECT_EQ(back->reply_to_q_mgr, md.reply_to_q_mgr);
  }
}

// The first 48 bytes of MQMD_DEFAULT written out by hand from IBM's MQMD_DEFAULT [C: CMQC-H].
TEST(Mqmd, DefaultBytesByHand) {
  bytes expect_le;
  ASSERT_TRUE(
      from_hex("4D442020 01000000 00000000 08000000 FFFFFFFF 00000000 22020000 00000000"
               "2020202020202020 FFFFFFFF 02000000",
               expect_le));
  bytes expect_be;
  ASSERT_TRUE(
      from_hex("D4C44040 00000001 00000000 00000008 FFFFFFFF 00000000 00000222 00000000"
               "4040404040404040 FFFFFFFF 00000002",
               expect_be));
  const bytes le = encoded(mqmd{}, test::linux_819);
  const bytes be = encoded(mqmd{}, test::zos_037);
  EXPECT_EQ(to_hex(bytes_view(le).sub(0, 48)), to_hex(expect_le));
  EXPECT_EQ(to_hex(bytes_view(be).sub(0, 48)), to_hex(expect_be));
  EXPECT_EQ(to_hex(bytes_view(le).sub(100, 4)), "20202020");  // ReplyToQ blanks
  EXPECT_EQ(to_hex(bytes_view(be).sub(100, 4)), "40404040");
  EXPECT_EQ(to_hex(bytes_view(be).sub(48, 4)), "00000000");  // MsgId MQMI_NONE
}

TEST(Mqmd, StrucIdIsAcceptedInEitherFamily) {
  const mqmd md = test::sample_mqmd(2);
  const bytes ebcdic = encoded(md, test::zos_037);
  const bytes ascii = encoded(md, test::linux_819);
  struct {
    const bytes* in;
    std::int32_t encoding;
    std::int32_t ccsid;
    std::int32_t used;
  } cases[] = {
      {&ebcdic, 785, 819, 37},    {&ebcdic, 785, 0, 37},     {&ebcdic, 785, 500, 500},
      {&ebcdic, 785, 1047, 1047}, {&ebcdic, 785, 1208, 37},  {&ascii, 546, 37, 819},
      {&ascii, 546, 0, 819},      {&ascii, 546, 1208, 1208}, {&ascii, 546, -1, 819},
      {&ascii, 546, 99999, 819},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("ccsid " + std::to_string(c.ccsid));
    auto r = decode_mqmd(*c.in, c.encoding, c.ccsid);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->chars_ccsid, c.used);
    EXPECT_EQ(r->struc_id, "MD  ");
    EXPECT_EQ(r->reply_to_q, md.reply_to_q);
    EXPECT_EQ(r->put_appl_name, md.put_appl_name);
  }
}

TEST(Mqmd, ShortBuffersNameTheFirstMissingField) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const bytes v2 = encoded(test::sample_mqmd(2), w);
    for (std::size_t n = 0; n < v2.size(); ++n) {
      auto r = decode_mqmd(bytes_view(v2).sub(0, n), w.encoding, w.ccsid);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_MD_ERROR));
      EXPECT_LE(r.error().offset, n);
    }
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 0), w.encoding, w.ccsid), "MQMD.StrucId", 0);
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 3), w.encoding, w.ccsid), "MQMD.StrucId", 0);
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 7), w.encoding, w.ccsid), "MQMD.Version", 4);
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 100), w.encoding, w.ccsid), "MQMD.ReplyToQ", 100);
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 323), w.encoding, w.ccsid), "MQMD.ApplOriginData", 320);
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 324), w.encoding, w.ccsid), "MQMD.GroupId", 324);
    expect_md_error(decode_mqmd(bytes_view(v2).sub(0, 363), w.encoding, w.ccsid), "MQMD.OriginalLength", 360);

    const bytes v1 = encoded(test::sample_mqmd(1), w);
    EXPECT_TRUE(decode_mqmd(v1, w.encoding, w.ccsid).ok());
    expect_md_error(decode_mqmd(bytes_view(v1).sub(0, 323), w.encoding, w.ccsid), "MQMD.ApplOriginData", 320);
  }
}

TEST(Mqmd, BadStrucIdIsAnError) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const bytes good = encoded(mqmd{}, w);
    for (const char* id : {"MD X", "md  ", "DM  ", "    ", "IIH "}) {
      bytes b = good;
      const bytes id_bytes = test::chars(id, 4, w);
      std::copy(id_bytes.begin(), id_bytes.end(), b.begin());
      expect_md_error(decode_mqmd(b, w.encoding, w.ccsid), "MQMD.StrucId", 0);
    }
    // Half ASCII, half EBCDIC.
    bytes mixed = good;
    mixed[0] = 0x4D;
    mixed[1] = 0x44;
    mixed[2] = 0x40;
    mixed[3] = 0x40;
    expect_md_error(decode_mqmd(mixed, w.encoding, w.ccsid), "MQMD.StrucId", 0);
  }
}

TEST(Mqmd, BadVersionIsAnError) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    for (std::int32_t v : {0, 3, -1, 0x01000000, 0x02000000}) {
      bytes b = encoded(test::sample_mqmd(2), w);
      const bytes vb = test::long_bytes(static_cast<std::uint32_t>(v), w);
      std::copy(vb.begin(), vb.end(), b.begin() + 4);
      auto r = decode_mqmd(b, w.encoding, w.ccsid);
      expect_md_error(r, "MQMD.Version", 4);
      EXPECT_NE(r.error().detail.find(std::to_string(v)), std::string::npos) << r.error().detail;
    }
    // A good MQMD read with the other byte order has a bad Version.
    const bytes b = encoded(test::sample_mqmd(1), w);
    expect_md_error(decode_mqmd(b, w.big_endian ? 546 : 785, w.ccsid), "MQMD.Version", 4);
  }
}

TEST(Mqmd, RoundTripsRandomValues) {
  test::random_values rnd(20240131);
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    for (int i = 0; i < 3000; ++i) {
      const mqmd md = test::random_mqmd(rnd, 1 + static_cast<std::int32_t>(rnd.below(2)));
      const bytes b = encoded(md, w);
      ASSERT_EQ(b.size(), md.version == 2 ? 364u : 324u);
      auto back = decode_mqmd(b, w.encoding, w.ccsid);
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      ASSERT_EQ(*back, md) << "iteration " << i;
      ASSERT_EQ(encoded(*back, w), b) << "iteration " << i;
    }
  }
}

TEST(Mqmd, EncodeAppends) {
  bytes b{0xAA, 0xBB};
  encode_mqmd(mqmd{}, 785, 37, b);
  ASSERT_EQ(b.size(), 326u);
  EXPECT_EQ(b[0], 0xAA);
  EXPECT_EQ(b[1], 0xBB);
  EXPECT_EQ(b[2], 0xD4);
  auto r = decode_mqmd(bytes_view(b).sub(2), 785, 37);
  EXPECT_TRUE(r.ok());
}

TEST(Mqmd, UnsupportedCcsidEncodesAscii) {
  bytes b;
  encode_mqmd(mqmd{}, 546, 0, b);
  EXPECT_EQ(to_hex(bytes_view(b).sub(0, 4)), "4D442020");
}

TEST(Mqmd, ValuesLongerOrShorterThanTheFieldArePaddedOrCut) {
  mqmd md;
  md.reply_to_q = "SHORT";
  md.format = "MQSTR";
  md.put_appl_name = std::string(40, 'P');
  md.user_identifier = std::string("AB\0CD", 5);
  const bytes b = encoded(md, test::zos_037);
  auto r = decode_mqmd(b, 785, 37);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->reply_to_q, test::pad("SHORT", 48));
  EXPECT_EQ(r->format, "MQSTR   ");
  EXPECT_EQ(r->put_appl_name, std::string(28, 'P'));
  EXPECT_EQ(r->put_date, std::string(8, ' '));         // the next field is untouched
  EXPECT_EQ(r->user_identifier, test::pad("AB", 12));  // a NUL ends an MQCHARn value
}

TEST(Mqmd, EqualityComparesEveryFieldButNotCharsCcsid) {
  const mqmd base = test::sample_mqmd(2);
  for (std::size_t n = 0; n < 29; ++n) {
    mqmd other = base;
    test::change_nth_field change(n);
    visit_mqmd_fields(change, other);
    ASSERT_TRUE(change.changed());
    EXPECT_NE(other, base) << "field " << n;
  }
  mqmd same = base;
  same.chars_ccsid = 500;
  EXPECT_EQ(same, base);
}

}  // namespace
}  // namespace imsb::mq
