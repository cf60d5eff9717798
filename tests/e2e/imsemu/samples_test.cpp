// IBM's sample OTMA messages [C-hex: IMS-SAMPLE, IMS-SAMPLE-RS] — the client-bid complete as published, the
// others as our [D]-completed vectors (tests/vectors/otma/README.md) — sent byte for byte from a raw XCF
// member to a real imsemu through a real xcfhub, and answered as the engine's rules say (engine.hpp). imsemu
// runs with its default definitions, which include /SECURE OTMA NONE, so the samples' IBM UTOKENs are not
// checked [C: IMS-SEC-CHECK].

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <variant>

#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsemu_e2e.hpp"

namespace imsb::test {
namespace {

namespace cmd = otma::command;

class samples_e2e : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(rig_.start_ims({"--group", group_name, "--member", ims_member})) << rig_.log();
  }
  void TearDown() override {
    member_.reset();
    if (HasFailure()) std::cerr << "---- imsemu ----\n" << rig_.log();
  }
  // Joins as `name`: the client's XCF member name is the one its bid names [C: IMS-SD-CB].
  void join_as(const std::string& name) {
    member_ = std::make_unique<raw_member>(rig_.endpoint, name);
    const auto rc = member_->join();
    ASSERT_TRUE(rc.ok()) << rc.rc << "/" << rc.rsn;
  }
  // Sends a sample's bytes as they are, then waits for IMS's ACK of that command; the ACK's index.
  long bid_and_expect_ack(const std::string& file, std::uint8_t command) {
    const bytes sample = read_hex("otma/" + file);
    const auto rc = member_->send(bytes_view(sample));
    EXPECT_TRUE(rc.ok()) << rc.rc << "/" << rc.rsn;
    const long i = member_->wait_for(0, [&](const otma::otma_message& m) {
      return m.mci.is_response() && m.mci.is_command() && m.mci.command_type == command;
    });
    EXPECT_GE(i, 0) << "no answer to " << file;
    if (i < 0) return i;
    const auto m = *member_->at(static_cast<std::size_t>(i)).otma;
    // MCI X'30' (response to a command) with X'80' ACK [C: IMS-MCI].
    EXPECT_EQ(m.mci.message_type, otma::msg_type::response | otma::msg_type::command) << file;
    EXPECT_EQ(m.mci.response_flag, otma::response::ack) << file;
    EXPECT_EQ(m.mci.sense_code, 0u) << file;
    return i;
  }

  ims_rig rig_;
  std::unique_ptr<raw_member> member_;
};

TEST_F(samples_e2e, ibm_client_bid_as_published_is_acked) {
  join_as("CLIENT1");
  const long ack = bid_and_expect_ack("client_bid.hex", cmd::client_bid);
  ASSERT_GE(ack, 0);
  EXPECT_TRUE(rig_.wait_log(std::string(imsb::msg::IMB5022I) + " bid of CLIENT1 accepted")) << rig_.log();
  // A plain bid: no SRVresynch follows ([C: IMS-RESYNC] — only CBresynch starts resync).
  const long srv = member_->wait_for(
      0,
      [](const otma::otma_message& m) {
        return m.mci.is_command() && !m.mci.is_response() && m.mci.command_type == cmd::srvresynch;
      },
      std::chrono::milliseconds(500));
  EXPECT_LT(srv, 0);
}

TEST_F(samples_e2e, ibm_cbresynch_is_acked_and_followed_by_srvresynch) {
  join_as("MQXCF6");
  const long ack = bid_and_expect_ack("cbresynch.hex", cmd::cbresynch);
  ASSERT_GE(ack, 0);
  // [C: IMS-RESYNC, IMS-SD-SRV]: after CBresynch IMS sends SRVresynch, listing the synchronized Tpipes: none
  // for a member IMS has never seen.
  const long srv = member_->wait_for(static_cast<std::size_t>(ack), [](const otma::otma_message& m) {
    return m.mci.is_command() && !m.mci.is_response() && m.mci.command_type == cmd::srvresynch;
  });
  ASSERT_GE(srv, 0);
  const auto m = *member_->at(static_cast<std::size_t>(srv)).otma;
  ASSERT_TRUE(m.state.has_value());
  const auto* sd = std::get_if<otma::srvresynch_state_data>(&*m.state);
  ASSERT_NE(sd, nullptr);
  EXPECT_TRUE(sd->tpipe_names.empty());
}

TEST_F(samples_e2e, ibm_transaction_sample_after_the_bid) {
  join_as("CLIENT1");
  ASSERT_GE(bid_and_expect_ack("client_bid.hex", cmd::client_bid), 0);
  const bytes sample = read_hex("otma/transaction.hex");
  const auto in = otma::decode_message(bytes_view(sample));
  ASSERT_TRUE(in.ok()) << in.error().to_string();
  // What the sample is (tests/vectors/otma/README.md): CM0 (commit-then-send) on TPIPE1, recoverable
  // number 0, first segment 'IVTNO DISPLAY LAST1'.
  ASSERT_EQ(tpipe::tpipe_of(*in), "TPIPE1");
  ASSERT_EQ(in->mci.recoverable_seq, 0u);
  const std::size_t from = member_->count();
  const auto rc = member_->send(bytes_view(sample));
  ASSERT_TRUE(rc.ok()) << rc.rc << "/" << rc.rsn;

  // engine.hpp rule 2: the destination is the first word of the first segment, IVTNO: the input is ACKed
  // and IVTNO runs. Its fixed columns (programs.hpp [D]) read this free-form text as process code
  // 'SPLAY LA', so its answer is IBM's "PROCESS CODE IS NOT VALID" — and not DFS064.
  const long ack = member_->wait_for(from, [](const otma::otma_message& m) { return m.mci.is_response(); });
  ASSERT_GE(ack, 0);
  const auto a = *member_->at(static_cast<std::size_t>(ack)).otma;
  EXPECT_TRUE(a.mci.is_ack()) << "sense " << a.mci.sense_code;
  EXPECT_EQ(tpipe::tpipe_of(a), "TPIPE1");
  EXPECT_EQ(a.mci.send_seq, in->mci.send_seq);
  const long out =
      member_->wait_for(from, [](const otma::otma_message& m) { return m.mci.is(otma::msg_type::data); });
  ASSERT_GE(out, 0);
  const auto o = *member_->at(static_cast<std::size_t>(out)).otma;
  EXPECT_EQ(tpipe::tpipe_of(o), "TPIPE1");
  EXPECT_TRUE(o.mci.response_requested());  // CM0 output waits for the client's ACK [C: IMS-CTS-FLOW]
  EXPECT_EQ(o.mci.recoverable_seq, 0u);     // no recoverable number in, none out [C: IMS-RS-SUMMARY]
  EXPECT_EQ(all_text(o).find("DFS064"), std::string::npos) << all_text(o);
  EXPECT_NE(all_text(o).find("PROCESS CODE IS NOT VALID"), std::string::npos) << all_text(o);
}

}  // namespace
}  // namespace imsb::test
