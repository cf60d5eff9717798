// The printer (for mqdump): every byte of a buffer described once, names from the layout tables.
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"
#include "vectors.hpp"

namespace imsb::otma {
namespace {

const printed_field* find(const std::vector<printed_field>& fields, const std::string& name) {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

void expect_tiles(const std::vector<printed_field>& fields, std::size_t size, const std::string& what) {
  std::size_t end = 0;
  for (const auto& f : fields) {
    EXPECT_EQ(f.offset, end) << what << ": " << f.name;
    end = f.offset + f.length;
  }
  EXPECT_EQ(end, size) << what;
}

TEST(Describe, EveryGoldenVectorIsDescribedByteForByte) {
  for (const char* name : {"client_bid.hex", "cbresynch.hex", "cbresynch_ack.hex", "srvresynch.hex",
                           "srvresynch_ack.hex", "reqresynch.hex", "transaction.hex"}) {
    bytes b = imsb::test::read_hex_vector(std::string("otma/") + name);
    expect_tiles(describe(test::decode_ok(b)), b.size(), name);
  }
}

TEST(Describe, ClientBidFieldsAndNotes) {
  auto fields = describe(test::decode_ok(imsb::test::read_hex_vector("otma/client_bid.hex")));
  ASSERT_EQ(fields.front().name, "mci.architecture_level");
  const printed_field* cmd = find(fields, "mci.command_type");
  ASSERT_TRUE(cmd);
  EXPECT_EQ(cmd->offset, 4u);
  EXPECT_EQ(cmd->value, "X'04'");
  EXPECT_EQ(cmd->note, "client_bid");
  const printed_field* chain_flags = find(fields, "mci.chain_flags");
  ASSERT_TRUE(chain_flags);
  EXPECT_EQ(chain_flags->note, "first+last");
  EXPECT_EQ(find(fields, "mci.prefix_flags")->note, "state_data+security_data");
  const printed_field* member = find(fields, "state_data.client_bid.member_name");
  ASSERT_TRUE(member);
  EXPECT_EQ(member->offset, 34u);
  EXPECT_EQ(member->length, 16u);
  EXPECT_EQ(member->value, "'CLIENT1         '");
  EXPECT_EQ(find(fields, "state_data.client_bid.hash_table_size")->value, "101 (X'00000065')");
  EXPECT_EQ(find(fields, "state_data.length")->note, "client_bid");
  EXPECT_EQ(find(fields, "security_data.flag")->note, "C (check)");
  EXPECT_EQ(find(fields, "security_data.subfield[0].type")->note, "utoken");
}

TEST(Describe, UnknownFlagBitsShownInHex) {
  otma_message m;
  m.mci.message_type = msg_type::transaction | 0x01;
  auto fields = describe(m);
  EXPECT_EQ(find(fields, "mci.message_type")->note, "transaction+X'01'");
}

TEST(Describe, MqUserDataAndSegments) {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  mq_user_data mq;
  mq.iih_flags = 0x20;
  m.user = encode_mq_user_data(mq).value();
  m.application = application_data{{{0, test::ebcdic("IVTNO")}, {0, {}}}};
  auto fields = describe(m);
  expect_tiles(fields, test::encode_ok(m).size(), "mq user data");
  EXPECT_EQ(find(fields, "user_data.mq.iih_flags")->offset, mci_size + 340);
  EXPECT_EQ(find(fields, "application_data.segment[0].data")->note, "'IVTNO'");
  EXPECT_EQ(find(fields, "application_data.segment[1].LL")->value, "4 (X'0004')");
}

TEST(Describe, RawUserDataAndTrailer) {
  otma_message m;
  m.mci.message_type = msg_type::data;
  m.user = user_data{{0xAB}};
  m.trailer = {0, 0};
  auto fields = describe(m);
  expect_tiles(fields, test::encode_ok(m).size(), "raw user data");
  EXPECT_EQ(find(fields, "user_data.body")->value, "AB");
  EXPECT_EQ(find(fields, "trailer")->value, "0000");
}

}  // namespace
}  // namespace imsb::otma
