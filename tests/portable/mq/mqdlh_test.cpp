#include "imsb/mq/mqdlh.hpp"

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

bytes encoded(const mqdlh& dlh, const wire& w) {
  bytes b;
  encode_mqdlh(dlh, w.encoding, w.ccsid, b);
  return b;
}

mqdlh sample_mqdlh() {
  mqdlh dlh;
  dlh.reason = MQFB_IMS_NACK_1A_REASON_FIRST + 0x1A;
  dlh.dest_q_name = test::pad("IMS.BRIDGE.Q", 48);
  dlh.dest_q_mgr_name = test::pad("QMZ", 48);
  dlh.encoding = test::distinct(6);
  dlh.coded_char_set_id = test::distinct(7);
  dlh.format = "MQIMS   ";
  dlh.put_appl_type = MQAT_IMS_BRIDGE;
  dlh.put_appl_name = test::pad("QMZ_bridge", 28);
  dlh.put_date = "20240229";
  dlh.put_time = "23595999";
  return dlh;
}

void expect_dlh_error(const result<mqdlh>& r, const std::string& field, std::size_t offset) {
  ASSERT_FALSE(r.ok()) << "expected an error at " << field;
  EXPECT_EQ(r.error().code, make_mqrc(MQRC_DLH_ERROR)) << r.error().to_string();
  EXPECT_EQ(r.error().field, field) << r.error().to_string();
  EXPECT_EQ(r.error().offset, offset) << r.error().to_string();
}

TEST(Mqdlh, DefaultsAreMqdlhDefault) {
  const mqdlh dlh;
  EXPECT_EQ(dlh.struc_id, "DLH ");
  EXPECT_EQ(dlh.version, 1);
  EXPECT_EQ(dlh.reason, MQRC_NONE);
  EXPECT_EQ(dlh.dest_q_name, std::string(48, ' '));
  EXPECT_EQ(dlh.dest_q_mgr_name, std::string(48, ' '));
  EXPECT_EQ(dlh.encoding, 0);
  EXPECT_EQ(dlh.coded_char_set_id, MQCCSI_UNDEFINED);
  EXPECT_EQ(dlh.format, MQFMT_NONE);
  EXPECT_EQ(dlh.put_appl_type, 0);
  EXPECT_EQ(dlh.put_appl_name, std::string(28, ' '));
  EXPECT_EQ(dlh.put_date, std::string(8, ' '));
  EXPECT_EQ(dlh.put_time, std::string(8, ' '));
}

TEST(Mqdlh, EveryFieldAtItsOffset) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const mqdlh dlh = sample_mqdlh();
    const bytes b = encoded(dlh, w);
    ASSERT_EQ(b.size(), 172u);
    test::expect_chars(b, 0, 4, "DLH ", w, "StrucId");
    test::expect_long(b, 4, 1, w, "Version");
    test::expect_long(b, 8, 626, w, "Reason");
    test::expect_chars(b, 12, 48, "IMS.BRIDGE.Q", w, "DestQName");
    test::expect_chars(b, 60, 48, "QMZ", w, "DestQMgrName");
    test::expect_long(b, 108, dlh.encoding, w, "Encoding");
    test::expect_long(b, 112, dlh.coded_char_set_id, w, "CodedCharSetId");
    test::expect_chars(b, 116, 8, "MQIMS", w, "Format");
    test::expect_long(b, 124, 19, w, "PutApplType");
    test::expect_chars(b, 128, 28, "QMZ_bridge", w, "PutApplName");
    test::expect_chars(b, 156, 8, "20240229", w, "PutDate");
    test::expect_chars(b, 164, 8, "23595999", w, "PutTime");
    auto back = decode_mqdlh(b, w.encoding, w.ccsid);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, dlh);
    EXPECT_EQ(back->chars_ccsid, w.ccsid);
  }
}

TEST(Mqdlh, StrucIdIsAcceptedInEitherFamily) {
  const mqdlh dlh = sample_mqdlh();
  const bytes e = encoded(dlh, test::zos_037);
  EXPECT_EQ(to_hex(bytes_view(e).sub(0, 4)), "C4D3C840");
  auto from_ebcdic = decode_mqdlh(e, 785, 819);
  ASSERT_TRUE(from_ebcdic.ok());
  EXPECT_EQ(from_ebcdic->chars_ccsid, 37);
  EXPECT_EQ(*from_ebcdic, dlh);
  const bytes a = encoded(dlh, test::linux_819);
  EXPECT_EQ(to_hex(bytes_view(a).sub(0, 4)), "444C4820");
  auto from_ascii = decode_mqdlh(a, 546, 37);
  ASSERT_TRUE(from_ascii.ok());
  EXPECT_EQ(from_ascii->chars_ccsid, 819);
  EXPECT_EQ(*from_ascii, dlh);
}

TEST(Mqdlh, ShortBuffersAndBadFieldsAreDlhErrors) {
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    const bytes good = encoded(sample_mqdlh(), w);
    for (std::size_t n = 0; n < 172; ++n) {
      auto r = decode_mqdlh(bytes_view(good).sub(0, n), w.encoding, w.ccsid);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code, make_mqrc(MQRC_DLH_ERROR));
      EXPECT_LE(r.error().offset, n);
    }
    expect_dlh_error(decode_mqdlh(bytes_view(good).sub(0, 1), w.encoding, w.ccsid), "MQDLH.StrucId", 0);
    expect_dlh_error(decode_mqdlh(bytes_view(good).sub(0, 5), w.encoding, w.ccsid), "MQDLH.Version", 4);
    expect_dlh_error(decode_mqdlh(bytes_view(good).sub(0, 110), w.encoding, w.ccsid), "MQDLH.Encoding", 108);
    expect_dlh_error(decode_mqdlh(bytes_view(good).sub(0, 171), w.encoding, w.ccsid), "MQDLH.PutTime", 164);

    for (const char* id : {"DLH_", "XQH ", "dlh "}) {
      bytes b = good;
      const bytes idb = test::chars(id, 4, w);
      std::copy(idb.begin(), idb.end(), b.begin());
      expect_dlh_error(decode_mqdlh(b, w.encoding, w.ccsid), "MQDLH.StrucId", 0);
    }
    for (std::int32_t v : {0, 2, -1}) {
      bytes b = good;
      const bytes vb = test::long_bytes(static_cast<std::uint32_t>(v), w);
      std::copy(vb.begin(), vb.end(), b.begin() + 4);
      expect_dlh_error(decode_mqdlh(b, w.encoding, w.ccsid), "MQDLH.Version", 4);
    }
  }
}

TEST(Mqdlh, RoundTripsRandomValues) {
  test::random_values rnd(172);
  for (const wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    for (int i = 0; i < 3000; ++i) {
      mqdlh dlh;
      dlh.reason = rnd.any_long();
      dlh.dest_q_name = rnd.text(48);
      dlh.dest_q_mgr_name = rnd.text(48);
      dlh.encoding = rnd.any_long();
      dlh.coded_char_set_id = rnd.any_long();
      dlh.format = rnd.text(8);
      dlh.put_appl_type = rnd.any_long();
      dlh.put_appl_name = rnd.text(28);
      dlh.put_date = rnd.text(8);
      dlh.put_time = rnd.text(8);
      const bytes b = encoded(dlh, w);
      ASSERT_EQ(b.size(), 172u);
      auto back = decode_mqdlh(b, w.encoding, w.ccsid);
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      ASSERT_EQ(*back, dlh) << "iteration " << i;
      ASSERT_EQ(encoded(*back, w), b) << "iteration " << i;
    }
  }
}

TEST(Mqdlh, EqualityComparesEveryField) {
  const mqdlh base = sample_mqdlh();
  for (std::size_t n = 0; n < 12; ++n) {
    mqdlh other = base;
    test::change_nth_field change(n);
    visit_mqdlh_fields(change, other);
    ASSERT_TRUE(change.changed());
    EXPECT_NE(other, base) << "field " << n;
  }
}

}  // namespace
}  // namespace imsb::mq
