// Architected /DIS TRAN output [C: IMS-DISTRAN].
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "imsb/otma/transaction_attributes.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

TEST(TransactionAttributes, FieldsAtTheirSegmentOffsets) {
  transaction_attributes t;
  t.trancode.set("IVTNO");
  t.type = tran_type::valid;
  t.attributes = tran_attribute::response_mode | tran_attribute::irrecoverable;
  t.status = tran_status::stopped;
  otma_message m;
  m.mci.message_type = msg_type::data;
  m.application = application_data{{encode_transaction_attributes(t)}};
  bytes b = test::encode_ok(m);
  const std::size_t seg = mci_size;
  EXPECT_EQ(test::slice(b, seg, 15), test::hex("000F 0000 C9E5E3D5D6404040 00 90 80"));
  auto back = decode_transaction_attributes(test::decode_ok(b).segments()[0], seg);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, t);
  EXPECT_TRUE(back->usable_from_otma());
  EXPECT_EQ(back->trancode.value(), "IVTNO");
}

TEST(TransactionAttributes, InvalidSyntaxKeepsTheErrorText) {
  transaction_attributes t;
  t.trancode.set("BAD");
  t.type = tran_type::invalid_syntax;
  t.extension = test::ebcdic("DFS056 COMMAND ERROR");
  auto back = decode_transaction_attributes(encode_transaction_attributes(t));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
  EXPECT_FALSE(back->usable_from_otma());
  std::vector<printed_field> out;
  print_transaction_attributes(*back, 100, out);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].offset, 104u);
  EXPECT_EQ(out[1].note, "invalid_syntax");
  EXPECT_EQ(out[4].note, "'DFS056 COMMAND ERROR'");
}

TEST(TransactionAttributes, ShortSegmentIsAnError) {
  segment s{0, bytes(10, 0x40)};
  auto r = decode_transaction_attributes(s, 40);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.transaction_attributes");
  EXPECT_EQ(r.error().offset, 40u);
}

TEST(TransactionAttributes, FlagValues) {
  EXPECT_EQ(tran_type::cpic, 0x04);
  EXPECT_EQ(tran_type::fast_path_exclusive, 0x08);
  EXPECT_EQ(tran_type::fast_path_potential, 0x0C);
  EXPECT_EQ(tran_type::msc_remote, 0x10);
  EXPECT_EQ(tran_type::not_found, 0xFF);
  EXPECT_EQ(tran_attribute::conversational, 0x40);
  EXPECT_EQ(tran_attribute::update, 0x20);
  EXPECT_EQ(tran_attribute::multi_segment, 0x08);
  EXPECT_EQ(tran_attribute::uppercase, 0x04);
  EXPECT_EQ(tran_status::online_change_pending, 0x40);
}

}  // namespace
}  // namespace imsb::otma
