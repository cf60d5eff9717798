// User data [C: IMS-USR]: raw, ≤ 1024 bytes with its length; the [D] MQ layout (docs/design/otma.md).
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "imsb/otma/user_data.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::decode_ok;
using test::encode_ok;
using test::u16_at;
using test::u32_at;

otma_message with_user_data(std::size_t body_size) {
  otma_message m;
  m.mci.message_type = msg_type::data;
  user_data us;
  us.body.resize(body_size);
  for (std::size_t i = 0; i < body_size; ++i) us.body[i] = static_cast<std::uint8_t>(i * 7);
  m.user = us;
  return m;
}

TEST(UserData, RawBytesRoundTrip) {
  otma_message m = with_user_data(10);
  bytes b = encode_ok(m);
  EXPECT_EQ(b[15], prefix::user_data);
  EXPECT_EQ(u16_at(b, mci_size), 12);
  EXPECT_EQ(decode_ok(b), m);
}

TEST(UserData, EmptyBody) {
  otma_message m = with_user_data(0);
  bytes b = encode_ok(m);
  EXPECT_EQ(u16_at(b, mci_size), 2);
  EXPECT_EQ(decode_ok(b), m);
}

TEST(UserData, ExactlyTheLimitIsAccepted) {
  otma_message m = with_user_data(max_user_data_size - 2);
  bytes b = encode_ok(m);
  EXPECT_EQ(u16_at(b, mci_size), 1024);
  EXPECT_EQ(decode_ok(b), m);
}

TEST(UserData, OneByteOverTheLimitIsAnErrorBothWays) {
  otma_message m = with_user_data(max_user_data_size - 1);  // section length 1025
  auto e = encode_message(m);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().field, "OTMA.user_data.length");
  EXPECT_EQ(e.error().offset, mci_size);

  bytes b = encode_ok(with_user_data(max_user_data_size - 2));
  store_u16(b.data() + mci_size, 1025, byte_order::big);
  b.push_back(0);
  auto r = decode_message(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.user_data.length");
  EXPECT_EQ(r.error().offset, mci_size);
  EXPECT_NE(r.error().detail.find("1024"), std::string::npos);
}

mq_user_data sample_mq() {
  mq_user_data mq;
  for (std::size_t i = 0; i < mq.mqmd.size(); ++i) mq.mqmd[i] = static_cast<std::uint8_t>(i);
  mq.reply_to_format = {'M', 'Q', 'I', 'M', 'S', ' ', ' ', ' '};
  mq.iih_flags = 0x00000021;
  return mq;
}

TEST(MqUserData, FieldsAtTheirOffsets) {
  auto us = encode_mq_user_data(sample_mq());
  ASSERT_TRUE(us.ok());
  bytes section;
  append_user_data(*us, section);
  ASSERT_EQ(section.size(), mq_user_data_size);
  EXPECT_EQ(u16_at(section, 0), 344);
  EXPECT_EQ(u16_at(section, 2), 1);
  EXPECT_EQ(test::slice(section, 4, 4), test::hex("D4D8E4C4"));  // 'MQUD' in EBCDIC
  EXPECT_EQ(section[8], 0);
  EXPECT_EQ(section[8 + 323], static_cast<std::uint8_t>(323));
  EXPECT_EQ(test::slice(section, 332, 8), bytes({'M', 'Q', 'I', 'M', 'S', ' ', ' ', ' '}));
  EXPECT_EQ(u32_at(section, 340), 0x21u);
}

TEST(MqUserData, RoundTripThroughAMessage) {
  mq_user_data mq = sample_mq();
  mq.reserved = {9, 8, 7};
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  m.user = encode_mq_user_data(mq).value();
  otma_message back = decode_ok(encode_ok(m));
  ASSERT_TRUE(back.user);
  auto got = decode_mq_user_data(*back.user, mci_size);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(*got, mq);
}

TEST(MqUserData, WrongEyecatcherOrShortSection) {
  user_data us = encode_mq_user_data(sample_mq()).value();
  us.body[2] = 0x00;  // eyecatcher at section offset 4
  auto r = decode_mq_user_data(us, 50);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.user_data.mq.eyecatcher");
  EXPECT_EQ(r.error().offset, 54u);

  user_data small{bytes(100, 0)};
  auto s = decode_mq_user_data(small, 50);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().field, "OTMA.user_data.mq.length");
}

TEST(MqUserData, ReservedCannotGrowPastTheLimit) {
  mq_user_data mq = sample_mq();
  mq.reserved.assign(max_user_data_size - mq_user_data_size, 0);
  EXPECT_TRUE(encode_mq_user_data(mq).ok());
  mq.reserved.push_back(0);
  auto r = encode_mq_user_data(mq);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.user_data.length");
}

}  // namespace
}  // namespace imsb::otma
