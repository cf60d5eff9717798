#include "imsb/mq/mqiih.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "mq_test_util.hpp"
#include "mqmd_golden.hpp"

namespace imsb::mq {
namespace {

using test::wire;

bytes encoded(const mqiih& iih, const wire& w) {
  bytes b;
  encode_mqiih(iih, w.encoding, w.ccsid, b);
  return b;
}

mqiih sample_mqiih() {
  mqiih iih;
  iih.encoding = test::distinct(4);
  iih.coded_char_set_id = test::distinct(5);
  iih.format = "MQIMSVS ";
  iih.flags =
      MQIIH_PASS_EXPIRATION | MQIIH_REPLY_FORMAT_NONE | MQIIH_IGNORE_PURG | MQIIH_CM0_REQUEST_RESPONSE;
  iih.lterm_override = "LTERM01 ";
  iih.mfs_map_name = "MID00001";
  iih.reply_to_format = "MQSTR   ";
  iih.authenticator = "passw0rd";
  iih.tran_instance_id = test::byte_pattern<16>(0x21);
  iih.tran_state = MQITS_IN_CONVERSATION;
  iih.commit_mode = MQICM_SEND_THEN_COMMIT;
  iih.security_scope = MQISS_FULL;
  iih.reserved = 'R';
  return iih;
}

void expect_iih_error(const result<mqiih>& r, const std::string& field, std::size_t offset) {
  ASSERT_FALSE(r.ok()) << "expected an error at " << field;
  EXPECT_EQ(r.error().code, make_mqrc(MQRC_IIH_ERROR)) << r.error().to_string();
  EXPECT_EQ(r.error().field, field) << r.error().to_string();
  EXPECT_EQ(r.error().offset, offset) << r.error().to_string();
}

void put_long(bytes& b, std::size_t off, std::int32_t v, const wire& w) {
  const bytes lb = test::long_bytes(static_cast<std::uint32_t>(v), w);
  std::copy(lb.begin(), lb.end(), b.begin() + static_cast<std::ptrdiff_t>(off));
}

TEST(Mqiih, DefaultsAreMqiihDefault) {
  const mqiih iih;
  EXPECT_EQ(iih.struc_id, "IIH ");
  EXPECT_EQ(iih.version, 1);
  EXPECT_EQ(iih.struc_length, 84);
  EXPECT_EQ(iih.encoding, 0);
  EXPECT_EQ(iih.coded_char_set_id, 0);
  EXPECT_EQ(iih.format, MQFMT_NONE);
  EXPECT_EQ(iih.flags, MQIIH_NONE);
  EXPECT_EQ(iih.lterm_override, "        ");
  EXPECT_EQ(iih.mfs_map_name, "        ");
  EXPECT_EQ(iih.reply_to_format, MQFMT_NONE);
  EXPECT_EQ(iih.authenticator, MQIAUT_NONE);
  EXPECT_EQ(iih.tran_instance_id, MQITII_NONE);
  EXPECT_EQ(iih.tran_state, ' ');
  EXPECT_EQ(iih.commit_mode, '0');
  EXPECT_EQ(iih.security_scope, 'C');
  EXPECT_EQ(iih.reserved, ' ');
}

TEST(Mqiih, EveryFieldAtItsOffset) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const mqiih iih = sample_mqiih();
    const bytes b = encoded(iih, w);
    ASSERT_EQ(b.size(), 84u);
    test::expect_chars(b, 0, 4, "IIH ", w, "StrucId");
    test::expect_long(b, 4, 1, w, "Version");
    test::expect_long(b, 8, 84, w, "StrucLength");
    test::expect_long(b, 12, iih.encoding, w, "Encoding");
    test::expect_long(b, 16, iih.coded_char_set_id, w, "CodedCharSetId");
    test::expect_chars(b, 20, 8, "MQIMSVS ", w, "Format");
    test::expect_long(b, 28, 0x39, w, "Flags");
    test::expect_chars(b, 32, 8, "LTERM01 ", w, "LTermOverride");
    test::expect_chars(b, 40, 8, "MID00001", w, "MFSMapName");
    test::expect_chars(b, 48, 8, "MQSTR   ", w, "ReplyToFormat");
    test::expect_chars(b, 56, 8, "passw0rd", w, "Authenticator");
    test::expect_raw(b, 64, iih.tran_instance_id, "TranInstanceId");
    test::expect_chars(b, 80, 1, "C", w, "TranState");
    test::expect_chars(b, 81, 1, "1", w, "CommitMode");
    test::expect_chars(b, 82, 1, "F", w, "SecurityScope");
    test::expect_chars(b, 83, 1, "R", w, "Reserved");
    auto back = decode_mqiih(b, w.encoding, w.ccsid);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, iih);
    EXPECT_EQ(back->chars_ccsid, w.ccsid);
  }
}

// MQIIH_DEFAULT written out by hand ([C: CMQC-H, CMQC-PY]; EBCDIC '0' X'F0', 'C' X'C3').
TEST(Mqiih, DefaultBytesByHand) {
  bytes expect_be;
  ASSERT_TRUE(
      from_hex("C9C9C840 00000001 00000054 00000000 00000000 4040404040404040 00000000"
               "4040404040404040 4040404040404040 4040404040404040 4040404040404040"
               "00000000000000000000000000000000 40 F0 C3 40",
               expect_be));
  EXPECT_EQ(to_hex(encoded(mqiih{}, test::zos_037)), to_hex(expect_be));
  bytes expect_le;
  ASSERT_TRUE(
      from_hex("49494820 01000000 54000000 00000000 00000000 2020202020202020 00000000"
               "2020202020202020 2020202020202020 2020202020202020 2020202020202020"
               "00000000000000000000000000000000 20 30 43 20",
               expect_le));
  EXPECT_EQ(to_hex(encoded(mqiih{}, test::linux_819)), to_hex(expect_le));
}

TEST(Mqiih, StrucIdIsAcceptedInEitherFamily) {
  const mqiih iih = sample_mqiih();
  auto from_ebcdic = decode_mqiih(encoded(iih, test::zos_037), 785, 819);
  ASSERT_TRUE(from_ebcdic.ok()) << from_ebcdic.error().to_string();
  EXPECT_EQ(from_ebcdic->chars_ccsid, 37);
  EXPECT_EQ(*from_ebcdic, iih);
  auto from_ascii = decode_mqiih(encoded(iih, test::linux_819), 546, 1047);
  ASSERT_TRUE(from_ascii.ok()) << from_ascii.error().to_string();
  EXPECT_EQ(from_ascii->chars_ccsid, 819);
  EXPECT_EQ(*from_ascii, iih);
  // The single-character fields are characters: 'C' is X'C3' in EBCDIC and X'43' in ASCII.
  EXPECT_EQ(from_ebcdic->tran_state, MQITS_IN_CONVERSATION);
  EXPECT_EQ(from_ascii->tran_state, MQITS_IN_CONVERSATION);
}

TEST(Mqiih, ShortBuffersAreIihErrors) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const bytes b = encoded(sample_mqiih(), w);
    for (std::size_t n = 0; n < 84; ++n) {
      auto r = decode_mqiih(bytes_view(b).sub(0, n), w.encoding, w.ccsid);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_IIH_ERROR));
      EXPECT_LE(r.error().offset, n);
    }
    expect_iih_error(decode_mqiih(bytes_view(b).sub(0, 2), w.encoding, w.ccsid), "MQIIH.StrucId", 0);
    expect_iih_error(decode_mqiih(bytes_view(b).sub(0, 4), w.encoding, w.ccsid), "MQIIH.Version", 4);
    expect_iih_error(decode_mqiih(bytes_view(b).sub(0, 10), w.encoding, w.ccsid), "MQIIH.StrucLength", 8);
    expect_iih_error(decode_mqiih(bytes_view(b).sub(0, 50), w.encoding, w.ccsid), "MQIIH.ReplyToFormat", 48);
    expect_iih_error(decode_mqiih(bytes_view(b).sub(0, 83), w.encoding, w.ccsid), "MQIIH.Reserved", 83);
    EXPECT_TRUE(decode_mqiih(b, w.encoding, w.ccsid).ok());
    // Data after the MQIIH is not the decoder's business.
    bytes longer = b;
    longer.resize(200, 0xFF);
    EXPECT_TRUE(decode_mqiih(longer, w.encoding, w.ccsid).ok());
  }
}

TEST(Mqiih, EachBadHeaderFieldIsAnIihError) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const bytes good = encoded(sample_mqiih(), w);
    for (const char* id : {"IIH_", "IHH ", "iih ", "MD  ", "    "}) {
      bytes b = good;
      const bytes idb = test::chars(id, 4, w);
      std::copy(idb.begin(), idb.end(), b.begin());
      expect_iih_error(decode_mqiih(b, w.encoding, w.ccsid), "MQIIH.StrucId", 0);
    }
    for (std::int32_t v : {0, 2, -1, 0x01000000}) {
      bytes b = good;
      put_long(b, 4, v, w);
      expect_iih_error(decode_mqiih(b, w.encoding, w.ccsid), "MQIIH.Version", 4);
    }
    for (std::int32_t len : {0, 83, 85, 168, -84, 0x54000000}) {
      bytes b = good;
      put_long(b, 8, len, w);
      auto r = decode_mqiih(b, w.encoding, w.ccsid);
      expect_iih_error(r, "MQIIH.StrucLength", 8);
      EXPECT_NE(r.error().detail.find(std::to_string(len)), std::string::npos) << r.error().detail;
    }
    // Fields the queue manager does not check decode as they are (for Flags [D]: IBM does not say what
    // undefined bits do).
    bytes b = good;
    put_long(b, 28, 0x7FFFFFF0, w);
    b[80] = w.ebcdic ? 0xE7 : 0x58;  // TranState 'X'
    auto r = decode_mqiih(b, w.encoding, w.ccsid);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->flags, 0x7FFFFFF0);
    EXPECT_EQ(r->tran_state, 'X');
  }
}

TEST(Mqiih, RoundTripsRandomValues) {
  test::random_values rnd(84);
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    for (int i = 0; i < 3000; ++i) {
      mqiih iih;
      iih.encoding = rnd.any_long();
      iih.coded_char_set_id = rnd.any_long();
      iih.format = rnd.text(8);
      iih.flags = rnd.any_long();
      iih.lterm_override = rnd.text(8);
      iih.mfs_map_name = rnd.text(8);
      iih.reply_to_format = rnd.text(8);
      iih.authenticator = rnd.text(8);
      iih.tran_instance_id = rnd.raw<16>();
      iih.tran_state = rnd.one_char();
      iih.commit_mode = rnd.one_char();
      iih.security_scope = rnd.one_char();
      iih.reserved = rnd.one_char();
      const bytes b = encoded(iih, w);
      ASSERT_EQ(b.size(), 84u);
      auto back = decode_mqiih(b, w.encoding, w.ccsid);
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      ASSERT_EQ(*back, iih) << "iteration " << i;
      ASSERT_EQ(encoded(*back, w), b) << "iteration " << i;
    }
  }
}

TEST(Mqiih, OtherEbcdicCodePagesRoundTrip) {
  mqiih iih = sample_mqiih();
  for (std::int32_t ccsid : {500, 1047, 1140}) {
    SCOPED_TRACE(ccsid);
    bytes b;
    encode_mqiih(iih, 785, ccsid, b);
    EXPECT_EQ(to_hex(bytes_view(b).sub(0, 4)), "C9C9C840");
    auto back = decode_mqiih(b, 785, ccsid);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->chars_ccsid, ccsid);
    EXPECT_EQ(*back, iih);
  }
}

TEST(Mqiih, EqualityComparesEveryFieldButNotCharsCcsid) {
  const mqiih base = sample_mqiih();
  for (std::size_t n = 0; n < 16; ++n) {
    mqiih other = base;
    test::change_nth_field change(n);
    visit_mqiih_fields(change, other);
    ASSERT_TRUE(change.changed());
    EXPECT_NE(other, base) << "field " << n;
  }
  mqiih same = base;
  same.chars_ccsid = 1047;
  EXPECT_EQ(same, base);
}

}  // namespace
}  // namespace imsb::mq
