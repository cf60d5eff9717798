// Multi-buffer messages [C: IMS-MSGS-CLI, IMS-MCI-X]: chain flags, send-sequence numbers, reassembly.
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::decode_ok;
using test::encode_ok;

otma_message transaction_with(std::size_t segment_count) {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  m.mci.response_flag = response::requested;
  m.mci.tpipe_name.set("TPIPE1");
  m.mci.send_seq = 42;
  m.mci.recoverable_seq = 7;
  m.state = state_data(transaction_state_data{});
  security_data se;
  se.set_user_id("USER1");
  m.security = se;
  m.user = user_data{{1, 2, 3}};
  m.application = application_data{};
  for (std::size_t i = 0; i < segment_count; ++i) {
    m.application->segments.push_back({0, bytes(i + 1, static_cast<std::uint8_t>(0xC1 + i % 9))});
  }
  return m;
}

std::vector<bytes_view> views(const std::vector<bytes>& buffers) {
  return std::vector<bytes_view>(buffers.begin(), buffers.end());
}

std::vector<bytes> chain_ok(const otma_message& m, std::size_t per) {
  auto r = encode_chain(m, per);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : std::vector<bytes>{};
}

TEST(Chain, OneBufferIsTheMessageWithChainFlagsA0) {
  otma_message m = transaction_with(3);
  auto buffers = chain_ok(m, 5);
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(buffers[0], encode_ok(m));
  EXPECT_EQ(buffers[0][14], chain::single);
  auto back = decode_chain(views(buffers));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, m);
}

TEST(Chain, ZeroMeansNoLimit) {
  auto buffers = chain_ok(transaction_with(40), 0);
  EXPECT_EQ(buffers.size(), 1u);
}

TEST(Chain, MessageWithoutApplicationData) {
  otma_message m = transaction_with(0);
  m.application.reset();
  auto buffers = chain_ok(m, 1);
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(*decode_chain(views(buffers)), m);
}

TEST(Chain, TwoBuffers) {
  otma_message m = transaction_with(2);
  auto buffers = chain_ok(m, 1);
  ASSERT_EQ(buffers.size(), 2u);
  otma_message first = decode_ok(buffers[0]);
  otma_message second = decode_ok(buffers[1]);
  EXPECT_EQ(first.mci.chain_flags, chain::first);
  EXPECT_EQ(second.mci.chain_flags, chain::last);
  // The first buffer carries the full prefix, the later ones MCI + application data [C].
  EXPECT_EQ(first.mci.prefix_flags,
            prefix::state_data | prefix::security_data | prefix::user_data | prefix::application_data);
  EXPECT_EQ(second.mci.prefix_flags, prefix::application_data);
  EXPECT_EQ(second.mci.send_seq, 42u);
  EXPECT_EQ(second.mci.tpipe_name.value(), "TPIPE1");
  EXPECT_EQ(first.mci.segment_seq, 0);
  EXPECT_EQ(second.mci.segment_seq, 1);
  EXPECT_EQ(first.segments().size(), 1u);
  EXPECT_EQ(second.segments().size(), 1u);
  EXPECT_EQ(buffers[1].size(), mci_size + 4 + 2);
  auto back = decode_chain(views(buffers));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, m);
}

TEST(Chain, ManyBuffers) {
  otma_message m = transaction_with(10);
  m.mci.segment_seq = 1;  // numbered from 1, as in the SRVresynch sample
  auto buffers = chain_ok(m, 3);
  ASSERT_EQ(buffers.size(), 4u);  // 3 + 3 + 3 + 1
  const std::uint8_t expected[] = {chain::first, chain::middle, chain::middle, chain::last};
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    otma_message part = decode_ok(buffers[i]);
    EXPECT_EQ(part.mci.chain_flags, expected[i]) << i;
    EXPECT_EQ(part.mci.segment_seq, 1 + i) << i;
    EXPECT_EQ(part.segments().size(), i == 3 ? 1u : 3u) << i;
  }
  auto back = decode_chain(views(buffers));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, m);
  auto again = encode_chain(*back, 3);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, buffers);
}

TEST(Chain, OneSegmentPerBufferAsIMSSendsOutput) {
  otma_message m = transaction_with(25);
  auto buffers = chain_ok(m, 1);
  ASSERT_EQ(buffers.size(), 25u);
  auto back = decode_chain(views(buffers));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->segments().size(), 25u);
  EXPECT_EQ(*back, m);
}

TEST(Chain, OutOfOrderBuffersAreRejected) {
  auto buffers = chain_ok(transaction_with(3), 1);
  std::swap(buffers[1], buffers[2]);  // first, last, middle
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].mci.chain_flags");
  EXPECT_EQ(r.error().offset, 14u);
}

TEST(Chain, MissingLastBuffer) {
  auto buffers = chain_ok(transaction_with(3), 1);
  buffers.pop_back();  // first, middle: the chain never ends
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].mci.chain_flags");
}

TEST(Chain, LoneFirstBufferIsNotASingle) {
  auto buffers = chain_ok(transaction_with(3), 1);
  buffers.resize(1);
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[0].mci.chain_flags");
}

TEST(Chain, DiscardedChain) {
  auto buffers = chain_ok(transaction_with(2), 1);
  buffers[1][14] = chain::discard;
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].mci.chain_flags");
  EXPECT_NE(r.error().detail.find("discard"), std::string::npos);
}

TEST(Chain, SendSequenceNumberMustMatch) {
  auto buffers = chain_ok(transaction_with(3), 1);
  store_u32(buffers[2].data() + 16, 43, byte_order::big);
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[2].mci.send_seq");
  EXPECT_EQ(r.error().offset, 16u);
}

TEST(Chain, TpipeMustMatch) {
  auto buffers = chain_ok(transaction_with(2), 1);
  buffers[1][6] = 0xC1;
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].mci.tpipe_name");
}

TEST(Chain, LaterBufferWithPrefixSections) {
  otma_message m = transaction_with(2);
  auto buffers = chain_ok(m, 1);
  otma_message second = decode_ok(buffers[1]);
  second.user = user_data{{1}};
  buffers[1] = encode_ok(second);
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].mci.prefix_flags");
}

// IBM: "If the names do not fit in one buffer, chained multi-segment buffers are used" for
// SRVresynch [C: IMS-SD-SRV]: each buffer of the chain carries state data with more tpipe names.
otma_message srvresynch_part(std::uint8_t chain_flags, std::initializer_list<const char*> names) {
  otma_message m = test::command_message(command::srvresynch);
  m.mci.chain_flags = chain_flags;
  srvresynch_state_data s;
  for (const char* n : names) s.tpipe_names.push_back(ebcdic_name<8>::of(n));
  m.state = state_data(s);
  return m;
}

std::vector<std::string> names_of(const otma_message& m) {
  std::vector<std::string> out;
  for (const auto& n : std::get<srvresynch_state_data>(*m.state).tpipe_names) out.push_back(n.value());
  return out;
}

TEST(Chain, SrvresynchNamesContinueInLaterBuffers) {
  const std::vector<bytes> buffers = {encode_ok(srvresynch_part(chain::first, {"TP1", "TP2"})),
                                      encode_ok(srvresynch_part(chain::middle, {"TP3"})),
                                      encode_ok(srvresynch_part(chain::last, {"TP4", "TP5"}))};
  auto back = decode_chain(views(buffers));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(names_of(*back), (std::vector<std::string>{"TP1", "TP2", "TP3", "TP4", "TP5"}));
  EXPECT_EQ(back->mci.chain_flags, chain::single);
  EXPECT_FALSE(back->application);
}

TEST(Chain, EncodeSplitsSrvresynchNamesSymmetrically) {
  otma_message m = srvresynch_part(chain::single, {"TP1", "TP2", "TP3", "TP4", "TP5"});
  auto buffers = encode_chain(m, 0, 2);
  ASSERT_TRUE(buffers.ok()) << buffers.error().to_string();
  ASSERT_EQ(buffers->size(), 3u);  // 2 + 2 + 1 names
  const std::uint8_t positions[] = {chain::first, chain::middle, chain::last};
  const std::vector<std::string> expected[] = {{"TP1", "TP2"}, {"TP3", "TP4"}, {"TP5"}};
  for (std::size_t i = 0; i < 3; ++i) {
    otma_message part = decode_ok((*buffers)[i]);
    EXPECT_EQ(part.mci.chain_flags, positions[i]) << i;
    EXPECT_EQ(part.mci.prefix_flags, prefix::state_data) << i;  // SD in every buffer, nothing else
    EXPECT_EQ(names_of(part), expected[i]) << i;
  }
  auto back = decode_chain(views(*buffers));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, m);
  EXPECT_EQ(chain_ok(m, 0).size(), 1u);  // no limit on names: one buffer
  // The names limit is for SRVresynch only: a transaction's state data is never split.
  EXPECT_EQ(encode_chain(transaction_with(2), 0, 1)->size(), 1u);
}

TEST(Chain, OnlySrvresynchMayCarryStateDataInLaterBuffers) {
  // A later buffer of an output message with state data is still refused [C: IMS-MSGS-CLI].
  otma_message m = transaction_with(2);
  m.mci.message_type = msg_type::data;
  auto buffers = chain_ok(m, 1);
  otma_message second = decode_ok(buffers[1]);
  second.state = state_data(transaction_state_data{});
  buffers[1] = encode_ok(second);
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].mci.prefix_flags");
  // A SRVresynch's later buffer carries state data only: no security or user data.
  otma_message last = srvresynch_part(chain::last, {"TP2"});
  security_data se;
  se.set_user_id("USER1");
  last.security = se;
  auto r2 = decode_chain(views({encode_ok(srvresynch_part(chain::first, {"TP1"})), encode_ok(last)}));
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().field, "OTMA.chain[1].mci.prefix_flags");
}

TEST(Chain, BadBufferErrorNamesTheBuffer) {
  auto buffers = chain_ok(transaction_with(2), 1);
  buffers[1][mci_size + 1] = 0x02;  // segment LL 2
  auto r = decode_chain(views(buffers));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].application_data.segment[0].LL");
  EXPECT_EQ(r.error().offset, mci_size);
}

TEST(Chain, NoBuffers) {
  auto r = decode_chain({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain");
}

TEST(Chain, EncodeErrorNamesTheBuffer) {
  otma_message m = transaction_with(2);
  m.application->segments[1].data.assign(40000, 0);
  auto r = encode_chain(m, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.chain[1].application_data.segment[0].LL");
}

}  // namespace
}  // namespace imsb::otma
