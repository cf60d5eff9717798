// External programs through the real emulator (issue 6: "an executable that receives the input segments
// and writes output segments in a documented format"): a definitions file naming /bin/sh programs written
// into the test's folder, xcfhub and imsemu as processes, and the scripted OTMA client. The format is
// imsemu/README.md "External programs" [D]; the abend path is the engine's (DFS555I to the client, the run
// backed out; CM1 CONFIRM also hears "aborted", spec/otma-xcf.md §2.4).

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/otma/message.hpp"
#include "imsemu_e2e.hpp"
#include "otma_client.hpp"
#include "process.hpp"

namespace imsb::test {
namespace {

// Replies with one EBCDIC segment naming the transaction and the client member from its environment:
// logic of the user's own, in the documented format (LL big-endian including LLZZ, ZZ 0).
constexpr const char* greeter = R"(cat >/dev/null
text="HELLO FROM $IMS_TRANCODE FOR $IMS_MEMBER VIA $IMS_TPIPE"
len=$(( ${#text} + 4 ))
printf "\\$(printf %03o $((len / 256)))\\$(printf %03o $((len % 256)))\\000\\000"
printf '%s' "$text" | iconv -f ISO-8859-1 -t IBM037)";

constexpr const char* failing = R"(cat >/dev/null
echo "no customer record" >&2
exit 3)";

constexpr const char* sleeper = R"(cat >/dev/null
sleep 30)";

class external_e2e : public imsemu_e2e {
 protected:
  void write_script(const std::string& name, const std::string& body) {
    const std::string path = dir_.file(name);
    {
      std::ofstream f(path, std::ios::binary);
      f << "#!/bin/sh\n" << body << "\n";
    }
    ::chmod(path.c_str(), 0755);
  }
  // The definitions: XGREET (CM0 and CM1), XFAIL (exits 3), XMISS (no such file), XSLOW (sleeps past its
  // PROCLIM of 1 second).
  void start_with_programs() {
    write_script("greet.sh", greeter);
    write_script("fail.sh", failing);
    write_script("sleep.sh", sleeper);
    const std::string defs = dir_.file("ext.def");
    std::ofstream f(defs);
    f << "IMS GRNAME=" << group_name << ",OTMANM=" << ims_member << ",IMSID=IMSA\n"
      << "APPLCTN PSB=XGREET,PGMTYPE=TP,\n      PGM=external:" << dir_.file("greet.sh") << "\n"
      << "TRANSACT CODE=XGREET,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
      << "APPLCTN PSB=XFAIL,PGMTYPE=TP,\n      PGM=external:" << dir_.file("fail.sh") << "\n"
      << "TRANSACT CODE=XFAIL,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
      << "APPLCTN PSB=XMISS,PGMTYPE=TP,\n      PGM=external:" << dir_.file("missing.sh") << "\n"
      << "TRANSACT CODE=XMISS,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
      << "APPLCTN PSB=XSLOW,PGMTYPE=TP,\n      PGM=external:" << dir_.file("sleep.sh") << "\n"
      << "TRANSACT CODE=XSLOW,MSGTYPE=(SNGLSEG,RESPONSE,1),PROCLIM=(1,1)\n";
    f.close();
    start_ims({"--config", defs});
  }
  bool log_has(const std::string& what) { return read_file(log_of(starts_)).find(what) != std::string::npos; }
  // Console lines are written after the run; wait for them rather than race the emulator's stdout.
  bool wait_log(const std::string& what) {
    const auto until = std::chrono::steady_clock::now() + wait_long;
    while (!log_has(what)) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return true;
  }
};

TEST_F(external_e2e, cm1_reply_is_what_the_external_program_wrote) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP1", "XGREET SOMETHING", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "HELLO FROM XGREET FOR MQCLIENT VIA XTP1\n");
  // Our ACK commits the run: commit confirmation "committed".
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));
  EXPECT_TRUE(client_->locked([&] { return client_->commits[0]; }));
}

TEST_F(external_e2e, cm0_reply_is_what_the_external_program_wrote_with_its_recoverable_number) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP2", "XGREET", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(r.recoverable_seq, 1u);
  EXPECT_EQ(last_output(), "HELLO FROM XGREET FOR MQCLIENT VIA XTP2\n");
  EXPECT_EQ(client_->locked([&] { return client_->outputs.back().mci.recoverable_seq; }), 1u);
}

TEST_F(external_e2e, cm1_program_exiting_3_abends_u0456_dfs555i_and_commit_aborted) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP3", "XFAIL DATA", 0));
  EXPECT_TRUE(r.ack);
  const std::string reply = last_output();
  EXPECT_NE(reply.find("DFS555I TRANSACTION XFAIL ABEND U0456"), std::string::npos) << reply;
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));
  EXPECT_FALSE(client_->locked([&] { return client_->commits[0]; }));  // backed out: "aborted"
  EXPECT_TRUE(wait_log("IMB5045I PGM(XFAIL) TRAN(XFAIL) STDERR: no customer record"));
  EXPECT_TRUE(wait_log("IMB5047E PGM(XFAIL) TRAN(XFAIL) ENDED WITH EXIT STATUS 3"));
  EXPECT_TRUE(wait_log("DFS554A IMSA XFAIL XFAIL ABEND U0456"));
}

TEST_F(external_e2e, cm0_program_exiting_3_gets_dfs555i_as_committed_output) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP4", "XFAIL DATA", 1));
  EXPECT_TRUE(r.ack);  // CM0: the input was logged and ACKed before the run
  const std::string reply = last_output();
  EXPECT_NE(reply.find("DFS555I TRANSACTION XFAIL ABEND U0456"), std::string::npos) << reply;
  EXPECT_EQ(client_->locked([&] { return client_->committed.size(); }), 1u);
  EXPECT_TRUE(wait_log("IMB5033W program abended: transaction XFAIL U0456"));
}

TEST_F(external_e2e, program_that_does_not_exist_abends_with_the_errno_text) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP5", "XMISS", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("DFS555I TRANSACTION XMISS ABEND U0456"), std::string::npos) << last_output();
  EXPECT_TRUE(wait_log("IMB5046E PGM(XMISS) TRAN(XMISS) NOT STARTED"));
  EXPECT_TRUE(wait_log("No such file or directory"));
}

TEST_F(external_e2e, program_running_past_its_proclim_time_abends_u0240) {
  start_with_programs();
  connect_client();
  const auto started = std::chrono::steady_clock::now();
  const auto r = exchange(make_input("XTP6", "XSLOW", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("DFS555I TRANSACTION XSLOW ABEND U0240"), std::string::npos) << last_output();
  // PROCLIM=(1,1): stopped after about a second, not the default 30 s nor the script's own 30 s.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_TRUE(wait_log("DFS554A IMSA XSLOW XSLOW ABEND U0240"));
}

}  // namespace
}  // namespace imsb::test
