// IBM's sample OTMA messages [C-hex: IMS-SAMPLE, IMS-SAMPLE-RS] (tests/vectors/otma/): each decodes,
// re-encodes byte for byte, and its IBM bytes read as IBM published them, field by field.
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"
#include "vectors.hpp"

namespace imsb::otma {
namespace {

using imsb::test::read_hex_vector;
using test::encode_ok;
using test::hex;

otma_message decode_vector(const std::string& name, const bytes& b) {
  auto r = decode_message(b);
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : otma_message{};
}

class GoldenVector : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenVector, DecodesAndReencodesByteForByte) {
  const std::string name = std::string("otma/") + GetParam();
  bytes b = read_hex_vector(name);
  otma_message m = decode_vector(name, b);
  EXPECT_EQ(to_hex(encode_ok(m)), to_hex(b)) << name;
  auto chained = encode_chain(m, 0);
  ASSERT_TRUE(chained.ok());
  ASSERT_EQ(chained->size(), 1u);
  EXPECT_EQ((*chained)[0], b);
}

INSTANTIATE_TEST_SUITE_P(Otma, GoldenVector,
                         ::testing::Values("client_bid.hex", "cbresynch.hex", "cbresynch_ack.hex",
                                           "srvresynch.hex", "srvresynch_ack.hex", "reqresynch.hex",
                                           "transaction.hex"));

TEST(GoldenVectors, ClientBidIsIBMsSample) {
  bytes b = read_hex_vector("otma/client_bid.hex");
  ASSERT_EQ(b.size(), 172u);
  otma_message m = decode_vector("client_bid", b);
  EXPECT_EQ(m.mci.architecture_level, 1);
  EXPECT_EQ(m.mci.message_type, msg_type::command);
  EXPECT_EQ(m.mci.response_flag, response::requested);
  EXPECT_EQ(m.mci.command_type, command::client_bid);
  EXPECT_EQ(m.mci.tpipe_name.raw, filled<8>(0x40));
  EXPECT_EQ(m.mci.chain_flags, chain::single);
  EXPECT_EQ(m.mci.prefix_flags, prefix::state_data | prefix::security_data);
  EXPECT_EQ(m.mci.send_seq, 0u);
  EXPECT_EQ(m.mci.reserved, 0x0400);
  ASSERT_TRUE(m.state);
  ASSERT_EQ(kind_of(*m.state), state_data_kind::client_bid);
  const auto& c = std::get<client_bid_state_data>(*m.state);
  EXPECT_EQ(c.member_name.text(), "CLIENT1         ");
  EXPECT_EQ(c.originator_token, (raw_bytes<8>{0x01, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00, 0x02}));
  EXPECT_EQ(c.destination_token, (raw_bytes<8>{0x01, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00, 0x01}));
  EXPECT_EQ(c.dru_exit_name.value(), "DFSYDRU0");
  EXPECT_EQ(c.max_blocksize, 0x2000);
  EXPECT_EQ(c.flags, 0);
  EXPECT_EQ(c.flags2, 0);
  EXPECT_EQ(c.acee_aging, 0x7FFFFFFFu);
  EXPECT_EQ(c.hash_table_size, 101u);
  EXPECT_TRUE(c.extension.empty());
  ASSERT_TRUE(m.security);
  EXPECT_EQ(m.security->flag, security_flag::check);
  EXPECT_EQ(m.security->subfields_size(), 0x52u);
  ASSERT_EQ(m.security->subfields.size(), 1u);
  ASSERT_TRUE(m.security->utoken());
  EXPECT_EQ(m.security->utoken()->size(), 80u);
  EXPECT_EQ(m.security->utoken()->sub(0, 8).to_bytes(), hex("5001805915569555"));
  EXPECT_FALSE(m.user);
  EXPECT_FALSE(m.application);
  EXPECT_TRUE(m.trailer.empty());
}

TEST(GoldenVectors, CBresynchIsIBMsSample) {
  bytes b = read_hex_vector("otma/cbresynch.hex");
  otma_message m = decode_vector("cbresynch", b);
  EXPECT_EQ(test::slice(b, 0, 32),
            hex("01102000 0C004040 40404040 4040A0C0 00000000 00000000 00000000 00000000"));
  EXPECT_EQ(m.mci.command_type, command::cbresynch);
  EXPECT_EQ(m.mci.reserved, 0);
  const auto& c = std::get<client_bid_state_data>(*m.state);
  EXPECT_EQ(c.member_name.value(), "MQXCF6");
  EXPECT_EQ(c.originator_token, (raw_bytes<8>{0x01, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x01}));
  EXPECT_EQ(c.destination_token, (raw_bytes<8>{0x01, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x02}));
  EXPECT_EQ(c.dru_exit_name.value(), "DFSYDRU0");
  EXPECT_EQ(c.max_blocksize, 0x0800);
  EXPECT_EQ(c.acee_aging, 0x7FFFFFFFu);
  EXPECT_EQ(c.hash_table_size, 0x65u);
  EXPECT_EQ(m.security->flag, security_flag::check);
  EXPECT_EQ(m.security->utoken()->sub(0, 4).to_bytes(), hex("5001A051"));  // IBM's last published bytes
}

TEST(GoldenVectors, CBresynchAckEchoesStateAndSecurityData) {
  otma_message bid = decode_vector("cbresynch", read_hex_vector("otma/cbresynch.hex"));
  otma_message ack = decode_vector("cbresynch_ack", read_hex_vector("otma/cbresynch_ack.hex"));
  EXPECT_EQ(ack.mci.message_type, msg_type::command | msg_type::response);
  EXPECT_TRUE(ack.mci.is_ack());
  EXPECT_EQ(ack.mci.response_flag, response::ack);
  EXPECT_EQ(ack.mci.command_type, command::cbresynch);
  EXPECT_EQ(ack.state, bid.state);
  EXPECT_EQ(ack.security, bid.security);
}

TEST(GoldenVectors, SrvresynchIsIBMsSample) {
  bytes b = read_hex_vector("otma/srvresynch.hex");
  ASSERT_EQ(b.size(), 48u);
  otma_message m = decode_vector("srvresynch", b);
  EXPECT_EQ(m.mci.command_type, command::srvresynch);
  EXPECT_EQ(m.mci.response_flag, response::requested);
  EXPECT_EQ(m.mci.tpipe_name.raw, filled<8>(0x00));
  EXPECT_EQ(m.mci.prefix_flags, prefix::state_data);
  EXPECT_EQ(m.mci.segment_seq, 1);
  const auto& s = std::get<srvresynch_state_data>(*m.state);
  ASSERT_EQ(s.tpipe_names.size(), 1u);
  EXPECT_EQ(s.tpipe_names[0].value(), "JBJ0000E");
  EXPECT_EQ(m.trailer, bytes(6, 0));
}

// IBM gives only `01 30 A0 00 2C 00 …` for the client ACK of SRVresynch [C-hex: IMS-SAMPLE-RS]; the rest of
// the vector is ours [D]: the SRVresynch's bytes from MCI+6 on, echoed.
TEST(GoldenVectors, SrvresynchAckFirstSixBytesAreIBMs) {
  bytes b = read_hex_vector("otma/srvresynch_ack.hex");
  EXPECT_EQ(test::slice(b, 0, 6), hex("0130A000 2C00"));
  otma_message m = decode_vector("srvresynch_ack", b);
  EXPECT_EQ(m.mci.message_type, 0x30);
  EXPECT_EQ(m.mci.response_flag, response::ack | response::requested);
  EXPECT_TRUE(m.mci.is_ack());
  EXPECT_EQ(m.mci.command_type, command::srvresynch);
  // Ours [D]: everything after MCI+5 repeats the SRVresynch.
  bytes srv = read_hex_vector("otma/srvresynch.hex");
  ASSERT_EQ(b.size(), srv.size());
  EXPECT_EQ(test::slice(b, 6, b.size() - 6), test::slice(srv, 6, srv.size() - 6));
}

// Which bytes of each vector are IBM's ([C-hex: IMS-SAMPLE, IMS-SAMPLE-RS]), and the file marks the first
// byte that is not with a `# [D] completed:` comment (tests/vectors/otma/README.md).
TEST(GoldenVectors, IBMsBytesEndWhereTheFileSaysOursBegin) {
  const struct {
    const char* file;
    std::size_t ibm_bytes;
  } vectors[] = {
      {"client_bid.hex", 172},    // every byte [C-hex]
      {"cbresynch.hex", 96},      // MCI 32 + SD 54 + SE `0056 C3 52 51 00 50 01 A0 51` (10)
      {"cbresynch_ack.hex", 96},  // the same
      {"srvresynch.hex", 48},     // every byte, zero padding included
      {"srvresynch_ack.hex", 6},  // `01 30 A0 00 2C 00`
      {"reqresynch.hex", 9},      // `01 10 00 00 30 00 D1 C2 D1`
      {"transaction.hex", 26},    // MCI+0..25
  };
  for (const auto& v : vectors) {
    const std::string text = imsb::test::read_text(imsb::test::vectors_dir() + "/otma/" + v.file);
    const std::size_t marker = text.find("# [D] completed:");
    bytes ibm;
    ASSERT_TRUE(from_hex(text.substr(0, marker), ibm)) << v.file;
    EXPECT_EQ(ibm.size(), v.ibm_bytes) << v.file;
    const bytes all = read_hex_vector(std::string("otma/") + v.file);
    EXPECT_EQ(marker == std::string::npos, v.ibm_bytes == all.size()) << v.file;
  }
}

TEST(GoldenVectors, ReqresynchFirstBytesAreIBMs) {
  bytes b = read_hex_vector("otma/reqresynch.hex");
  EXPECT_EQ(test::slice(b, 0, 9), hex("01100000 3000D1C2 D1"));
  otma_message m = decode_vector("reqresynch", b);
  EXPECT_EQ(m.mci.command_type, command::reqresynch);
  EXPECT_EQ(m.mci.response_flag, 0);
  EXPECT_EQ(m.mci.tpipe_name.value(), "JBJ0000E");
  const auto& q = std::get<reqresynch_state_data>(*m.state);
  EXPECT_EQ(q.tpipe_name, m.mci.tpipe_name);
  EXPECT_EQ(q.ims_send_seq, 5u);
  EXPECT_EQ(q.ims_receive_seq, 4u);
}

TEST(GoldenVectors, TransactionFirst26BytesAreIBMsAndTotalIsD6) {
  bytes b = read_hex_vector("otma/transaction.hex");
  ASSERT_EQ(b.size(), mci_size + 0xD6);
  EXPECT_EQ(test::slice(b, 0, 26), hex("01402000 0000E3D7 C9D7C5F1 4040A0D0 00000001 00000000 0000"));
  otma_message m = decode_vector("transaction", b);
  EXPECT_EQ(m.mci.message_type, msg_type::transaction);
  EXPECT_TRUE(m.mci.response_requested());
  EXPECT_EQ(m.mci.tpipe_name.value(), "TPIPE1");
  EXPECT_EQ(m.mci.prefix_flags, prefix::state_data | prefix::security_data | prefix::application_data);
  EXPECT_EQ(m.mci.send_seq, 1u);
  ASSERT_EQ(kind_of(*m.state), state_data_kind::transaction);
  // Ours [D]: CM0 with sync level CONFIRM, the only sync level CM0 supports [C: TC-2021].
  EXPECT_EQ(std::get<transaction_state_data>(*m.state).sync_flags,
            sync_flags::commit_then_send | sync_flags::sync_level_confirm);
  EXPECT_EQ(b[mci_size + 3], 0x41);
  EXPECT_EQ(m.security->user_id(), "USER1");
  ASSERT_EQ(m.segments().size(), 1u);
  std::string text = codepage::get_field(m.segments()[0].data, codepage::ccsid_037);
  EXPECT_EQ(codepage::field_value(text), "IVTNO DISPLAY LAST1");
}

}  // namespace
}  // namespace imsb::otma
