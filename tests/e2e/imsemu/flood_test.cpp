// Flood control (thresholds [C: IMS-FLOOD], the emulator's X'3C' [D]; engine.hpp rule 5) trips at the
// configured TIB limit and relieves, seen from a raw XCF member against a real imsemu.
//
// The inputs are kept active without a fault: CM1 input stays active (logged, its run not committed)
// until the client ACKs the reply [C: IMS-STC-FLOW], and this client holds its ACKs. (faults::hold_runs has
// no FAULT command word, so neither --fault nor the operator console can set it.) Releasing the ACKs
// commits the runs, which is the relief.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsemu_e2e.hpp"

namespace imsb::test {
namespace {

constexpr std::uint32_t tib_limit = 200;  // INPUT= lowest allowed value [C: IMS-FLOOD]
constexpr const char* flood_client = "MQFLOOD";

std::string tpipe_no(std::uint32_t i) {
  char name[16];
  std::snprintf(name, sizeof name, "FL%04u", static_cast<unsigned>(i));
  return name;
}

bool is_server_state(const otma::otma_message& m, std::uint16_t status) {
  if (!m.mci.is_command() || m.mci.is_response() || m.mci.command_type != otma::command::server_state)
    return false;
  const auto* sd = m.state ? std::get_if<otma::server_state_data>(&*m.state) : nullptr;
  return sd != nullptr && sd->status == status;
}

bool is_input_response(const otma::otma_message& m, const std::string& tpipe) {
  return m.mci.is_response() && !m.mci.is_command() && tpipe::tpipe_of(m) == tpipe;
}

TEST(flood_e2e, trips_at_the_tib_limit_and_relieves) {
  ims_rig rig;
  // On any failure (an ASSERT returns early), the hub's log too: it says why it closed a connection.
  struct hub_log_on_failure {
    ims_rig& rig;
    ~hub_log_on_failure() {
      if (::testing::Test::HasFailure())
        std::cerr << "---- xcfhub ----\n" << read_file(rig.dir.file("xcfhub.log"));
    }
  } dump{rig};
  const std::string defs = rig.dir.file("flood.def");
  {
    std::ofstream f(defs);
    f << "IMS GRNAME=" << group_name << ",OTMANM=" << ims_member << ",INPUT=" << tib_limit
      << ",MAXTP=0,HEARTBEAT=0\n"
      << "APPLCTN PSB=ECHO,PGMTYPE=TP\n"
      << "TRANSACT CODE=ECHO,MSGTYPE=(MULTSEG,NONRESPONSE,1)\n"
      << "/SECURE OTMA NONE\n";
  }
  ASSERT_TRUE(rig.start_ims({"--config", defs})) << rig.log();
  raw_member client(rig.endpoint, flood_client);
  ASSERT_TRUE(client.join().ok());

  tpipe::bid_params bid;
  bid.member = flood_client;
  ASSERT_TRUE(client.send(tpipe::make_client_bid(bid, false)).ok());
  ASSERT_GE(
      client.wait_for(0, [](const otma::otma_message& m) { return m.mci.is_ack() && m.mci.is_command(); }),
      0);

  // Up to the limit: every CM1 input is ACKed and run; its reply waits for our ACK, so it stays active.
  std::vector<long> ack_at(tib_limit + 2, -1);
  for (std::uint32_t i = 0; i < tib_limit; ++i) {
    ASSERT_TRUE(client.send(make_input(tpipe_no(i), "ECHO    " + tpipe_no(i), 0)).ok()) << i;
  }
  for (std::uint32_t i = 0; i < tib_limit; ++i) {
    ack_at[i] =
        client.wait_for(0, [&](const otma::otma_message& m) { return is_input_response(m, tpipe_no(i)); });
    ASSERT_GE(ack_at[i], 0) << "no answer to input " << i << "\n" << rig.log();
    ASSERT_TRUE(client.at(static_cast<std::size_t>(ack_at[i])).otma->mci.is_ack()) << i;
  }
  // X'3C' degraded at 80 % [D]: after the ACK of input 160 (160 active), before that of input 161.
  const long degraded = client.wait_for(
      0, [](const otma::otma_message& m) { return is_server_state(m, otma::server_status::degraded); });
  ASSERT_GE(degraded, 0);
  const std::uint32_t at80 = tib_limit * 80 / 100;
  EXPECT_GT(degraded, ack_at[at80 - 1]);
  EXPECT_LT(degraded, ack_at[at80]);
  EXPECT_TRUE(rig.wait_log("DFS1988W OTMA INPUT MESSAGES (TIB) FOR MEMBER MQFLOOD AT 80% OF 200"))
      << rig.log();
  EXPECT_TRUE(rig.wait_log("AT 95% OF 200")) << rig.log();

  // At the limit: NAK X'30' and DFS1989E.
  ASSERT_TRUE(client.send(make_input(tpipe_no(tib_limit), "ECHO    OVER", 0)).ok());
  const long nak = client.wait_for(
      0, [&](const otma::otma_message& m) { return is_input_response(m, tpipe_no(tib_limit)); });
  ASSERT_GE(nak, 0);
  const auto n = *client.at(static_cast<std::size_t>(nak)).otma;
  EXPECT_TRUE(n.mci.is_nak());
  EXPECT_EQ(n.mci.sense_code, otma::sense::flood);
  EXPECT_TRUE(rig.wait_log("DFS1989E OTMA INPUT MESSAGES (TIB) FOR MEMBER MQFLOOD REACHED THE LIMIT 200"))
      << rig.log();
  EXPECT_EQ(rig.log().find("DFS0767I"), std::string::npos);

  // Relief: ACK the replies; each ACK commits a run. At <= 50 % active: DFS0767I and X'3C' normal.
  std::vector<otma::otma_message> replies;
  for (std::uint32_t i = 0; i < tib_limit; ++i) {
    const long r = client.wait_for(0, [&](const otma::otma_message& m) {
      return m.mci.is(otma::msg_type::data) && tpipe::tpipe_of(m) == tpipe_no(i);
    });
    ASSERT_GE(r, 0) << "no reply on " << tpipe_no(i);
    replies.push_back(*client.at(static_cast<std::size_t>(r)).otma);
    EXPECT_TRUE(replies.back().mci.response_requested());
  }
  const std::size_t before_relief = client.count();
  for (const auto& r : replies) ASSERT_TRUE(client.send(tpipe::make_ack(r)).ok());
  EXPECT_TRUE(rig.wait_log("DFS0767I OTMA INPUT MESSAGE FLOOD RELIEVED FOR MEMBER MQFLOOD")) << rig.log();
  EXPECT_GE(client.wait_for(
                before_relief,
                [](const otma::otma_message& m) { return is_server_state(m, otma::server_status::normal); }),
            0);

  // New input is accepted again.
  const std::string again = tpipe_no(tib_limit + 1);
  ASSERT_TRUE(client.send(make_input(again, "ECHO    AGAIN", 0)).ok());
  const long ok =
      client.wait_for(0, [&](const otma::otma_message& m) { return is_input_response(m, again); });
  ASSERT_GE(ok, 0);
  EXPECT_TRUE(client.at(static_cast<std::size_t>(ok)).otma->mci.is_ack());
  const long out = client.wait_for(0, [&](const otma::otma_message& m) {
    return m.mci.is(otma::msg_type::data) && tpipe::tpipe_of(m) == again;
  });
  ASSERT_GE(out, 0);
  EXPECT_EQ(all_text(*client.at(static_cast<std::size_t>(out)).otma), "ECHO    AGAIN\n");
  if (HasFailure()) std::cerr << "---- imsemu ----\n" << rig.log();
}

}  // namespace
}  // namespace imsb::test
