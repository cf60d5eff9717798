#include "imsb/mq/mqxqh.hpp"

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

bytes encoded(const mqxqh& xqh, const wire& w) {
  bytes b;
  encode_mqxqh(xqh, w.encoding, w.ccsid, b);
  return b;
}

mqxqh sample_mqxqh() {
  mqxqh xqh;
  xqh.remote_q_name = test::pad("IMS.BRIDGE.Q", 48);
  xqh.remote_q_mgr_name = test::pad("QMZOS", 48);
  xqh.msg_desc = test::sample_mqmd(1);
  return xqh;
}

void expect_xqh_error(const result<mqxqh>& r, const std::string& field, std::size_t offset) {
  ASSERT_FALSE(r.ok()) << "expected an error at " << field;
  EXPECT_EQ(r.error().code, make_mqrc(MQRC_XQH_ERROR)) << r.error().to_string();
  EXPECT_EQ(r.error().field, field) << r.error().to_string();
  EXPECT_EQ(r.error().offset, offset) << r.error().to_string();
}

void put_long(bytes& b, std::size_t off, std::int32_t v, const wire& w) {
  const bytes lb = test::long_bytes(static_cast<std::uint32_t>(v), w);
  std::copy(lb.begin(), lb.end(), b.begin() + static_cast<std::ptrdiff_t>(off));
}

TEST(Mqxqh, Defaults) {
  const mqxqh xqh;
  EXPECT_EQ(xqh.struc_id, "XQH ");
  EXPECT_EQ(xqh.version, 1);
  EXPECT_EQ(xqh.remote_q_name, std::string(48, ' '));
  EXPECT_EQ(xqh.remote_q_mgr_name, std::string(48, ' '));
  EXPECT_EQ(xqh.msg_desc, mqmd{});
}

TEST(Mqxqh, EveryFieldAtItsOffsetIncludingTheEmbeddedMqmd) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const mqxqh xqh = sample_mqxqh();
    const bytes b = encoded(xqh, w);
    ASSERT_EQ(b.size(), 428u);
    test::expect_chars(b, 0, 4, "XQH ", w, "StrucId");
    test::expect_long(b, 4, 1, w, "Version");
    test::expect_chars(b, 8, 48, "IMS.BRIDGE.Q", w, "RemoteQName");
    test::expect_chars(b, 56, 48, "QMZOS", w, "RemoteQMgrName");
    test::expect_mqmd_bytes(b, 104, xqh.msg_desc, w, false);
    auto back = decode_mqxqh(b, w.encoding, w.ccsid);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, xqh);
    EXPECT_EQ(back->chars_ccsid, w.ccsid);
    EXPECT_EQ(back->msg_desc.chars_ccsid, w.ccsid);
  }
}

TEST(Mqxqh, EmbeddedMqmdIsAlwaysVersion1Layout) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    mqxqh xqh = sample_mqxqh();
    xqh.msg_desc = test::sample_mqmd(2);
    const bytes b = encoded(xqh, w);
    ASSERT_EQ(b.size(), 428u);
    test::expect_mqmd_bytes(b, 104, xqh.msg_desc, w, false);
    auto back = decode_mqxqh(b, w.encoding, w.ccsid);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->msg_desc.version, 2);
    EXPECT_EQ(back->msg_desc.group_id, MQGI_NONE);  // not carried by the 324-byte MsgDesc
    EXPECT_EQ(back->msg_desc.reply_to_q, xqh.msg_desc.reply_to_q);
  }
}

// [C: XQH-DOC]: MsgDesc is a 324-byte version-1 MQMD; the version-2 fields of the original
// travel in an MQMDE after the MQXQH [I]. A Version of 2 found there is kept, and only 324 bytes are
// read and written, so the MQXQH stays 428 bytes and re-encodes byte for byte.
TEST(Mqxqh, Version2MsgDescIsReadAndWrittenAs324Bytes) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    bytes v2 = encoded(sample_mqxqh(), w);
    put_long(v2, 104 + 4, 2, w);
    // Bytes that would be GroupId .. OriginalLength if MsgDesc were read as 364 bytes.
    bytes with_tail = v2;
    with_tail.insert(with_tail.end(), 40, 0x11);
    for (const bytes* in : {&v2, &with_tail}) {
      auto back = decode_mqxqh(*in, w.encoding, w.ccsid);
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      EXPECT_EQ(back->msg_desc.version, 2);
      EXPECT_EQ(back->msg_desc.group_id, MQGI_NONE);
      EXPECT_EQ(back->msg_desc.msg_seq_number, 1);
      EXPECT_EQ(back->msg_desc.offset, 0);
      EXPECT_EQ(back->msg_desc.msg_flags, MQMF_NONE);
      EXPECT_EQ(back->msg_desc.original_length, MQOL_UNDEFINED);
      const bytes again = encoded(*back, w);
      ASSERT_EQ(again.size(), 428u);
      EXPECT_EQ(to_hex(again), to_hex(v2));
    }
  }
}

TEST(Mqxqh, StrucIdIsAcceptedInEitherFamily) {
  const mqxqh xqh = sample_mqxqh();
  const bytes e = encoded(xqh, test::zos_037);
  EXPECT_EQ(to_hex(bytes_view(e).sub(0, 4)), "E7D8C840");
  auto from_ebcdic = decode_mqxqh(e, 785, 819);
  ASSERT_TRUE(from_ebcdic.ok()) << from_ebcdic.error().to_string();
  EXPECT_EQ(from_ebcdic->chars_ccsid, 37);
  EXPECT_EQ(*from_ebcdic, xqh);
  const bytes a = encoded(xqh, test::linux_819);
  EXPECT_EQ(to_hex(bytes_view(a).sub(0, 4)), "58514820");
  auto from_ascii = decode_mqxqh(a, 546, 500);
  ASSERT_TRUE(from_ascii.ok()) << from_ascii.error().to_string();
  EXPECT_EQ(from_ascii->chars_ccsid, 819);
  EXPECT_EQ(*from_ascii, xqh);
}

TEST(Mqxqh, ShortBuffersAndBadFieldsAreXqhErrors) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const bytes good = encoded(sample_mqxqh(), w);
    for (std::size_t n = 0; n < 428; ++n) {
      auto r = decode_mqxqh(bytes_view(good).sub(0, n), w.encoding, w.ccsid);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_XQH_ERROR));
      EXPECT_LE(r.error().offset, n);
    }
    expect_xqh_error(decode_mqxqh(bytes_view(good).sub(0, 0), w.encoding, w.ccsid), "MQXQH.StrucId", 0);
    expect_xqh_error(decode_mqxqh(bytes_view(good).sub(0, 6), w.encoding, w.ccsid), "MQXQH.Version", 4);
    expect_xqh_error(decode_mqxqh(bytes_view(good).sub(0, 104), w.encoding, w.ccsid), "MQXQH.MsgDesc", 104);
    expect_xqh_error(decode_mqxqh(bytes_view(good).sub(0, 427), w.encoding, w.ccsid), "MQXQH.MsgDesc", 104);

    bytes bad_id = good;
    const bytes idb = test::chars("XQH_", 4, w);
    std::copy(idb.begin(), idb.end(), bad_id.begin());
    expect_xqh_error(decode_mqxqh(bad_id, w.encoding, w.ccsid), "MQXQH.StrucId", 0);

    for (std::int32_t v : {0, 2, 0x01000000}) {
      bytes b = good;
      put_long(b, 4, v, w);
      expect_xqh_error(decode_mqxqh(b, w.encoding, w.ccsid), "MQXQH.Version", 4);
    }

    bytes bad_md_id = good;
    const bytes mdb = test::chars("DLH ", 4, w);
    std::copy(mdb.begin(), mdb.end(), bad_md_id.begin() + 104);
    expect_xqh_error(decode_mqxqh(bad_md_id, w.encoding, w.ccsid), "MQXQH.MsgDesc.StrucId", 104);

    // "MD  " in the other character family than the MQXQH itself.
    bytes other_family = good;
    const test::wire& other = w.ebcdic ? test::linux_819 : test::zos_037;
    const bytes odb = test::chars("MD  ", 4, other);
    std::copy(odb.begin(), odb.end(), other_family.begin() + 104);
    expect_xqh_error(decode_mqxqh(other_family, w.encoding, w.ccsid), "MQXQH.MsgDesc.StrucId", 104);

    for (std::int32_t v : {0, 3, -1}) {
      bytes b = good;
      put_long(b, 108, v, w);
      expect_xqh_error(decode_mqxqh(b, w.encoding, w.ccsid), "MQXQH.MsgDesc.Version", 108);
    }
    bytes v2 = good;
    put_long(v2, 108, 2, w);
    EXPECT_TRUE(decode_mqxqh(v2, w.encoding, w.ccsid).ok());
  }
}

TEST(Mqxqh, RoundTripsRandomValues) {
  test::random_values rnd(428);
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    for (int i = 0; i < 2000; ++i) {
      mqxqh xqh;
      xqh.remote_q_name = rnd.text(48);
      xqh.remote_q_mgr_name = rnd.text(48);
      // Random version-2 fields too: the 324-byte MsgDesc must drop them, whatever Version says.
      xqh.msg_desc = test::random_mqmd(rnd, 1 + static_cast<std::int32_t>(rnd.below(2)));
      const bytes b = encoded(xqh, w);
      ASSERT_EQ(b.size(), 428u);
      auto back = decode_mqxqh(b, w.encoding, w.ccsid);
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      mqxqh expected = xqh;
      expected.msg_desc = test::version_1_part(xqh.msg_desc);
      ASSERT_EQ(*back, expected) << "iteration " << i;
      ASSERT_EQ(encoded(*back, w), b) << "iteration " << i;
    }
  }
}

TEST(Mqxqh, EqualityComparesEveryFieldAndTheEmbeddedMqmd) {
  const mqxqh base = sample_mqxqh();
  for (std::size_t n = 0; n < 5; ++n) {
    mqxqh other = base;
    test::change_nth_field change(n);
    visit_mqxqh_fields(change, other);
    ASSERT_TRUE(change.changed());
    EXPECT_NE(other, base) << "field " << n;
  }
  mqxqh other = base;
  other.msg_desc.put_time[0] = 'Z';
  EXPECT_NE(other, base);
}

}  // namespace
}  // namespace imsb::mq
