// check_put_headers (MQRC_IIH_ERROR 2148 for each bad MQIIH field, in both encodings [C: RC2148])
// and the expiry arithmetic [C: EXPIRY-DOC].

#include <gtest/gtest.h>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/mqiih.hpp"
#include "rules_fixture.hpp"

namespace imsb::qmgr::rules::test {
namespace {

struct wire {
  const char* name;
  std::int32_t encoding;
  std::int32_t ccsid;
};
constexpr wire wires[] = {{"546/819", mq::MQENC_NATIVE_LINUX_X86, 819},
                          {"785/037", mq::MQENC_NATIVE_ZOS, 37}};

mq::mqmd ims_md(const wire& w) {
  mq::mqmd md;
  md.format = std::string(mq::MQFMT_IMS);
  md.encoding = w.encoding;
  md.coded_char_set_id = w.ccsid;
  return md;
}

bytes ims_message(const wire& w) {
  bytes out;
  mq::encode_mqiih(mq::mqiih{}, w.encoding, w.ccsid, out);
  const std::string segment("\x00\x09\x00\x00TRANA", 9);
  out.insert(out.end(), segment.begin(), segment.end());
  return out;
}

void put_i32(bytes& b, std::size_t off, std::int32_t v, const wire& w) {
  store_u32(b.data() + off, static_cast<std::uint32_t>(v), integer_order(w.encoding));
}

std::int32_t rc(const mq::mqmd& md, const bytes& data) {
  auto r = check_put_headers(md, data);
  if (r.ok()) return mq::MQRC_NONE;
  EXPECT_FALSE(r.error().field.empty());
  return r.error().code.value();
}

TEST(CheckPutHeaders, GoodMqiihInBothEncodings) {
  for (const wire& w : wires) EXPECT_EQ(rc(ims_md(w), ims_message(w)), mq::MQRC_NONE) << w.name;
}

TEST(CheckPutHeaders, EachBadFieldIs2148InBothEncodings) {
  for (const wire& w : wires) {
    SCOPED_TRACE(w.name);
    const mq::mqmd md = ims_md(w);
    bytes b = ims_message(w);
    b[0] = 'X';  // StrucId
    EXPECT_EQ(rc(md, b), mq::MQRC_IIH_ERROR);
    b = ims_message(w);
    put_i32(b, 4, 2, w);  // Version
    EXPECT_EQ(rc(md, b), mq::MQRC_IIH_ERROR);
    b = ims_message(w);
    put_i32(b, 8, 80, w);  // StrucLength
    EXPECT_EQ(rc(md, b), mq::MQRC_IIH_ERROR);
    b = ims_message(w);
    b.resize(83);  // too short
    EXPECT_EQ(rc(md, b), mq::MQRC_IIH_ERROR);
    EXPECT_EQ(rc(md, bytes{}), mq::MQRC_IIH_ERROR);
  }
}

TEST(CheckPutHeaders, QueueManagerCcsidZeroIsAccepted) {
  mq::mqmd md = ims_md(wires[0]);
  md.coded_char_set_id = mq::MQCCSI_Q_MGR;
  EXPECT_EQ(rc(md, ims_message(wires[0])), mq::MQRC_NONE);
  bytes b = ims_message(wires[0]);
  b[8] = 0;  // StrucLength 84 → 0
  EXPECT_EQ(rc(md, b), mq::MQRC_IIH_ERROR);
}

TEST(CheckPutHeaders, MqiihInTheOtherByteOrderThanTheMqmdSaysIs2148) {
  EXPECT_EQ(rc(ims_md(wires[0]), ims_message(wires[1])), mq::MQRC_IIH_ERROR);
  EXPECT_EQ(rc(ims_md(wires[1]), ims_message(wires[0])), mq::MQRC_IIH_ERROR);
}

TEST(CheckPutHeaders, OtherFormatsAreNotChecked) {
  mq::mqmd md;
  md.format = std::string(mq::MQFMT_STRING);
  EXPECT_EQ(rc(md, bytes{'x'}), mq::MQRC_NONE);
  md.format = std::string(mq::MQFMT_IMS_VAR_STRING);
  EXPECT_EQ(rc(md, bytes{}), mq::MQRC_NONE);
}

// --- expiry --------------------------------------------------------------------------------------

TEST(Expiry, UnlimitedNeverExpires) {
  EXPECT_FALSE(expired(mq::MQEI_UNLIMITED, 0, 1'000'000'000'000LL));
  EXPECT_EQ(remaining(mq::MQEI_UNLIMITED, 0, 1'000'000'000'000LL), mq::MQEI_UNLIMITED);
}

TEST(Expiry, TenthsOfASecond) {
  const std::int64_t put = 1'000'000;
  EXPECT_FALSE(expired(50, put, put));
  EXPECT_FALSE(expired(50, put, put + 4999));
  EXPECT_TRUE(expired(50, put, put + 5000));
  EXPECT_TRUE(expired(50, put, put + 60000));
  EXPECT_EQ(remaining(50, put, put), 50);
  EXPECT_EQ(remaining(50, put, put + 100), 49);
  EXPECT_EQ(remaining(50, put, put + 150), 49);  // a part tenth left counts as a tenth
  EXPECT_EQ(remaining(50, put, put + 4999), 1);  // at least 1 while not expired
  EXPECT_EQ(remaining(50, put, put + 5000), 0);
}

TEST(Expiry, ClockGoingBackDoesNotAddTime) {
  EXPECT_FALSE(expired(10, 5000, 1000));
  EXPECT_EQ(remaining(10, 5000, 1000), 10);
}

TEST(Expiry, LargestExpiryDoesNotOverflow) {
  const std::int32_t big = 999'999'999;
  EXPECT_FALSE(expired(big, 0, 99'999'999'899LL));
  EXPECT_TRUE(expired(big, 0, 99'999'999'900LL));
  EXPECT_EQ(remaining(big, 0, 0), big);
}

}  // namespace
}  // namespace imsb::qmgr::rules::test
