// The 32-byte MCI: every field at its offset, every flag constant [C: IMS-MCI, IMS-MCI-X, ICON-MCI].
#include <gtest/gtest.h>

#include "imsb/otma/mci.hpp"
#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::decode_ok;
using test::encode_ok;

TEST(Mci, DecodesEveryByteAtItsOffset) {
  bytes b(mci_size);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(0x81 + i);
  b[15] = 0x0F;  // prefix flags: no section bits, so the buffer is the MCI alone
  otma_message m = decode_ok(b);
  EXPECT_EQ(m.mci.architecture_level, 0x81);
  EXPECT_EQ(m.mci.message_type, 0x82);
  EXPECT_EQ(m.mci.response_flag, 0x83);
  EXPECT_EQ(m.mci.commit_confirmation, 0x84);
  EXPECT_EQ(m.mci.command_type, 0x85);
  EXPECT_EQ(m.mci.processing_flags, 0x86);
  EXPECT_EQ(bytes(m.mci.tpipe_name.raw.begin(), m.mci.tpipe_name.raw.end()), test::slice(b, 6, 8));
  EXPECT_EQ(m.mci.chain_flags, 0x8F);
  EXPECT_EQ(m.mci.prefix_flags, 0x0F);
  EXPECT_EQ(m.mci.send_seq, 0x91929394u);  // big-endian [C-hex: IMS-SAMPLE]
  EXPECT_EQ(m.mci.sense_code, 0x9596);
  EXPECT_EQ(m.mci.reason_code, 0x9798);
  EXPECT_EQ(m.mci.recoverable_seq, 0x999A9B9Cu);
  EXPECT_EQ(m.mci.segment_seq, 0x9D9E);
  EXPECT_EQ(m.mci.reserved, 0x9FA0);
  EXPECT_FALSE(m.state || m.security || m.user || m.application);
  EXPECT_TRUE(m.trailer.empty());
  EXPECT_EQ(encode_ok(m), b);
}

TEST(Mci, EncodesEveryFieldAtItsOffset) {
  otma_message m;
  m.mci.architecture_level = architecture_level_1;
  m.mci.message_type = msg_type::transaction;
  m.mci.response_flag = response::requested;
  m.mci.commit_confirmation = commit::aborted;
  m.mci.command_type = 0;
  m.mci.processing_flags = processing::synchronized_tpipe;
  m.mci.tpipe_name.set("TPIPE1");
  m.mci.chain_flags = chain::single;
  m.mci.send_seq = 0x01020304;
  m.mci.sense_code = 0x0030;
  m.mci.reason_code = 0x0007;
  m.mci.recoverable_seq = 0x0A0B0C0D;
  m.mci.segment_seq = 0x0001;
  m.mci.reserved = 0x0400;
  bytes b = encode_ok(m);
  ASSERT_EQ(b.size(), mci_size);
  EXPECT_EQ(b, test::hex("01 40 20 40 00 80 E3D7C9D7C5F14040 A0 00 01020304 0030 0007 0A0B0C0D 0001 0400"));
}

TEST(Mci, DefaultsAreArchitectureLevelOneSingleBufferBlankTpipe) {
  bytes b = encode_ok(otma_message{});
  EXPECT_EQ(b, test::hex("01 00 00 00 00 00 4040404040404040 A0 00 00000000 0000 0000 00000000 0000 0000"));
}

TEST(Mci, MessageTypeBits) {
  EXPECT_EQ(msg_type::data, 0x80);
  EXPECT_EQ(msg_type::transaction, 0x40);
  EXPECT_EQ(msg_type::response, 0x20);
  EXPECT_EQ(msg_type::command, 0x10);
  EXPECT_EQ(msg_type::commit_confirmation, 0x08);
  EXPECT_EQ(msg_type::sync_program_switch, 0x04);
  // ACK of a client-bid = command + response [C-hex: IMS-SAMPLE-RS]; ACK of a transaction = X'60'.
  EXPECT_EQ(msg_type::command | msg_type::response, 0x30);
  EXPECT_EQ(msg_type::transaction | msg_type::response, 0x60);
}

TEST(Mci, ResponseFlagBits) {
  EXPECT_EQ(response::ack, 0x80);
  EXPECT_EQ(response::nak, 0x40);
  EXPECT_EQ(response::requested, 0x20);
  EXPECT_EQ(response::extended_requested, 0x10);
  EXPECT_EQ(response::callout_response, 0x08);
  EXPECT_EQ(response::delayed_ack_nak, 0x02);
}

TEST(Mci, CommitChainPrefixAndProcessingBits) {
  EXPECT_EQ(commit::committed, 0x80);
  EXPECT_EQ(commit::aborted, 0x40);
  EXPECT_EQ(chain::first, 0x80);
  EXPECT_EQ(chain::middle, 0x40);
  EXPECT_EQ(chain::last, 0x20);
  EXPECT_EQ(chain::discard, 0x10);
  EXPECT_EQ(chain::single, 0xA0);
  EXPECT_EQ(prefix::state_data, 0x80);
  EXPECT_EQ(prefix::security_data, 0x40);
  EXPECT_EQ(prefix::user_data, 0x20);
  EXPECT_EQ(prefix::application_data, 0x10);
  EXPECT_EQ(processing::synchronized_tpipe, 0x80);
  EXPECT_EQ(processing::error_message_follows, 0x20);
}

TEST(Mci, ProtocolCommandTypes) {
  EXPECT_EQ(command::client_bid, 0x04);
  EXPECT_EQ(command::server_available, 0x08);
  EXPECT_EQ(command::cbresynch, 0x0C);
  EXPECT_EQ(command::suspend, 0x14);
  EXPECT_EQ(command::srvresynch, 0x2C);
  EXPECT_EQ(command::reqresynch, 0x30);
  EXPECT_EQ(command::represynch, 0x34);
  EXPECT_EQ(command::tbresynch, 0x38);
  EXPECT_EQ(command::server_state, 0x3C);
  EXPECT_EQ(command::resume_processing, 0x18);
  EXPECT_EQ(command::resume_output_tpipe, 0x24);
  EXPECT_EQ(command::resume_hold_queue, 0x28);
  EXPECT_EQ(command::no_msgs_on_hold_queue, 0x40);
  EXPECT_EQ(command_name(command::cbresynch), "cbresynch");
  EXPECT_EQ(command_name(command::server_state), "server_state");
  EXPECT_EQ(command_name(0x7F), "");
}

TEST(Mci, PredicatesReadTheBits) {
  mci m;
  m.message_type = msg_type::command | msg_type::response;
  m.response_flag = response::ack | response::requested;  // the client ACK of SRVresynch, X'A0'
  EXPECT_TRUE(m.is_command());
  EXPECT_TRUE(m.is_response());
  EXPECT_TRUE(m.is_ack());
  EXPECT_FALSE(m.is_nak());
  EXPECT_TRUE(m.response_requested());
  m.response_flag = response::nak;
  EXPECT_TRUE(m.is_nak());
  EXPECT_FALSE(m.is_ack());
  m.message_type = msg_type::transaction;  // a NAK bit without the response type is not a NAK
  EXPECT_FALSE(m.is_nak());
  m.prefix_flags = prefix::state_data | prefix::application_data;
  EXPECT_TRUE(m.has(prefix::state_data));
  EXPECT_FALSE(m.has(prefix::user_data));
}

TEST(Mci, TpipeNameIsEbcdicBlankPadded) {
  mci m;
  EXPECT_EQ(m.tpipe_name.raw, filled<8>(0x40));
  m.tpipe_name.set("TPIPE1");
  EXPECT_EQ(bytes(m.tpipe_name.raw.begin(), m.tpipe_name.raw.end()), test::hex("E3D7C9D7C5F14040"));
  EXPECT_EQ(m.tpipe_name.text(), "TPIPE1  ");
  EXPECT_EQ(m.tpipe_name.value(), "TPIPE1");
  m.tpipe_name.set("LONGERTHAN8");  // MQCHARn: cut at 8
  EXPECT_EQ(m.tpipe_name.value(), "LONGERTH");
  EXPECT_EQ(ebcdic_name<8>::of("JBJ0000E").raw,
            (raw_bytes<8>{0xD1, 0xC2, 0xD1, 0xF0, 0xF0, 0xF0, 0xF0, 0xC5}));
}

TEST(Mci, EncoderSetsSectionBitsAndKeepsTheLowFour) {
  otma_message m;
  m.mci.prefix_flags = prefix::user_data | 0x05;  // says user data, but there is none
  m.state = state_data(transaction_state_data{});
  m.mci.message_type = msg_type::transaction;
  EXPECT_EQ(prefix_flags_for(m), prefix::state_data | 0x05);
  bytes b = encode_ok(m);
  EXPECT_EQ(b[15], prefix::state_data | 0x05);
  otma_message back = decode_ok(b);
  EXPECT_EQ(back.mci.prefix_flags, prefix::state_data | 0x05);
  EXPECT_TRUE(back.state.has_value());
  EXPECT_FALSE(back.user.has_value());
}

TEST(Mci, EqualityComparesEveryField) {
  mci a;
  mci b;
  EXPECT_EQ(a, b);
  b.reserved = 1;
  EXPECT_NE(a, b);
  b = a;
  b.tpipe_name.raw[7] = 0;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace imsb::otma
