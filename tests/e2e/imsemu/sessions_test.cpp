// OTMA sessions through a real xcfhub and imsemu: what the emulator shows of a client's message
// (SHOWOTMA, field by field), CM1 with sync levels NONE and CONFIRM, an IVTCV conversation ended three
// ways, ALTPCB output to a second client member through a destination descriptor, the client-bid checks,
// server-available and the X'3C' heartbeat, and /SECURE OTMA FULL and PROFILE. The definitions are
// written by each test into its own temporary folder (portable/include/imsb/ims/definitions.hpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsemu_e2e.hpp"
#include "otma_client.hpp"
#include "process.hpp"

namespace imsb::test {
namespace {

namespace sf = otma::sync_flags;

constexpr const char* second_member = "MQCLI2";  // the ALTPCB destination's client member
constexpr const char* alt_tpipe = "ALTTP";

// The system under test: every built-in, one LTERM, a descriptor per kind of ALTPCB destination, and the
// RACF stand-in (GROUP/USER), with the given /SECURE OTMA level.
std::string definitions_text(const std::string& secure) {
  return std::string(
             "IMS GRNAME=XCFGRP1,OTMANM=IMSA,IMSID=IMSA,MAXTP=500,INPUT=5000,HEARTBEAT=60\n"
             "APPLCTN PSB=IVTNO,PGMTYPE=TP\n"
             "TRANSACT CODE=IVTNO,MSGTYPE=(SNGLSEG,NONRESPONSE,1)\n"
             "APPLCTN PSB=IVTCV,PGMTYPE=TP\n"
             "TRANSACT CODE=IVTCV,MSGTYPE=(SNGLSEG,NONRESPONSE,1),SPA=(80,)\n"
             "APPLCTN PSB=ECHO,PGMTYPE=TP\n"
             "TRANSACT CODE=ECHO,MSGTYPE=(MULTSEG,RESPONSE,1)\n"
             "CREATE PGM NAME(SHOWOTMA) SET(FP(N),RUN(builtin:SHOWOTMA))\n"
             "CREATE TRAN NAME(SHOWOTMA) SET(PGM(SHOWOTMA),RECOVER(Y),RESP(N),SPASZ(0),FP(N))\n"
             "APPLCTN PSB=ALTOUT,PGMTYPE=TP\n"
             "TRANSACT CODE=ALTOUT,MSGTYPE=(MULTSEG,NONRESPONSE,1)\n"
             "NAME IVTNOLT\n"
             "D ALTDEST TYPE=MQSERIES TMEMBER=MQCLI2 TPIPE=ALTTP SYNTP=N\n"
             "D MQ* TYPE=MQSERIES TMEMBER=MQCLI2 TPIPE=ALTSYN SYNTP=Y\n"
             "GROUP NAME=CLERKS,TRANS=(IVTNO,IVTCV),CMDS=(DIS)\n"
             "GROUP NAME=OPER,TRANS=(ECHO,SHOWOTMA),CMDS=(DIS,STA,STO)\n"
             "USER ID=CLERK1,GROUPS=(CLERKS)\n"
             "USER ID=ADMIN,GROUPS=(CLERKS,OPER),TRANS=(ALTOUT),CMDS=(EXIT)\n"
             "/SECURE OTMA ") +
         secure + "\n";
}

// What the client puts in one input, field by field.
struct input_fields {
  std::string tpipe;
  std::vector<std::string> segments;  // texts, first one with the trancode
  bool cm1 = true;
  std::uint8_t sync_level = sf::sync_level_confirm;
  std::uint32_t rsn = 0;
  bool synchronized = false;
  std::string lterm;
  std::string modname;
  std::optional<std::uint8_t> security_flag;  // nothing: no security section
  std::string user;
  std::string group;
  bytes utoken;
};

otma::otma_message build(const input_fields& f) {
  otma::otma_message m;
  m.mci.message_type = otma::msg_type::transaction;
  m.mci.tpipe_name.set(f.tpipe);
  m.mci.processing_flags = f.synchronized ? otma::processing::synchronized_tpipe : 0;
  m.mci.recoverable_seq = f.rsn;
  otma::transaction_state_data sd;
  sd.sync_flags =
      static_cast<std::uint8_t>((f.cm1 ? sf::send_then_commit : sf::commit_then_send) | f.sync_level);
  if (!f.lterm.empty()) sd.lterm_override.set(f.lterm);
  if (!f.modname.empty()) sd.modname.set(f.modname);
  m.state = sd;
  if (f.security_flag) {
    otma::security_data se;
    se.flag = *f.security_flag;
    if (!f.user.empty()) se.set_user_id(f.user);
    if (!f.group.empty()) se.set_profile(f.group);
    if (!f.utoken.empty()) se.set_utoken(bytes_view(f.utoken));
    m.security = se;
  }
  otma::application_data ap;
  for (const auto& s : f.segments) ap.segments.push_back(otma::segment{0, ebcdic(s)});
  m.application = ap;
  return m;
}

// A message that goes on an active conversation: state "conversational" and its server token [C: IMS-CONV].
otma::otma_message in_conversation(otma::otma_message m, const otma::raw_bytes<16>& token) {
  auto& sd = std::get<otma::transaction_state_data>(*m.state);
  sd.server_state = static_cast<std::uint8_t>(sd.server_state | otma::server_state::conversational);
  sd.server_token = token;
  return m;
}

const otma::transaction_state_data* state_of(const otma::otma_message& m) {
  return m.state ? std::get_if<otma::transaction_state_data>(&*m.state) : nullptr;
}

// SHOWOTMA's reply, one "KEY=value" segment each (programs.hpp): parsed, not searched. A segment that is
// not KEY=value, or a key given twice, fails the test.
std::map<std::string, std::string> shown_fields(const otma::otma_message& reply) {
  std::map<std::string, std::string> fields;
  for (const auto& seg : reply.segments()) {
    const std::string line = text_of(seg.data);
    const auto eq = line.find('=');
    EXPECT_NE(eq, std::string::npos) << "not KEY=value: '" << line << "'";
    if (eq == std::string::npos) continue;
    EXPECT_TRUE(fields.emplace(line.substr(0, eq), line.substr(eq + 1)).second) << "twice: " << line;
  }
  return fields;
}

// IVTNO/IVTCV input columns (programs.hpp): trancode 8, process code 8, last 10, first 10, ext 10, zip 7.
std::string phone(const std::string& tran, const std::string& code, const std::string& last,
                  const std::string& first = {}, const std::string& ext = {}, const std::string& zip = {}) {
  return codepage::pad_field(tran, 8) + codepage::pad_field(code, 8) + codepage::pad_field(last, 10) +
         codepage::pad_field(first, 10) + codepage::pad_field(ext, 10) + codepage::pad_field(zip, 7);
}

bytes arbitrary_utoken() {
  bytes t(otma::max_utoken_size);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return t;
}

class sessions_e2e : public imsemu_e2e {
 protected:
  // imsemu with a definitions file of this test's own; --group/--member from the fixture agree with it.
  void start_with(const std::string& secure, const std::vector<std::string>& extra = {}) {
    const std::string file = dir_.file("ims.def");
    {
      std::ofstream out(file);
      out << definitions_text(secure);
    }
    std::vector<std::string> args{"--config", file};
    args.insert(args.end(), extra.begin(), extra.end());
    start_ims(args);
  }
  bool wait_log(std::string_view what, milliseconds timeout = wait_long) const {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (read_file(log_of(starts_)).find(what) != std::string::npos) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
  otma::otma_message last() {
    return client_->locked(
        [&] { return client_->outputs.empty() ? otma::otma_message{} : client_->outputs.back(); });
  }
  std::size_t commit_count() {
    return client_->locked([&] { return client_->commits.size(); });
  }
};

// ---- SHOWOTMA: each field as the client sent it ---------------------------------------------------------

TEST_F(sessions_e2e, showotma_shows_each_field_exactly_as_the_client_sent_it) {
  start_with("NONE");
  connect_client();

  struct expected {
    input_fields in;
    std::map<std::string, std::string> shown;
    std::string out_mod;  // the reply's MFS map (MOD) name in its state data
  };
  std::vector<expected> cases;
  {
    // CM0 recoverable on a synchronized Tpipe; LTERM override, map name, user, group, flag C; three
    // segments of different lengths (LL = data + LLZZ); "MOD=" asks for the reply's MOD name.
    expected e;
    e.in.tpipe = "SHOWSYN";
    e.in.segments = {"SHOWOTMA MOD=OUTMOD1", "SECOND SEGMENT OF THE MESSAGE", "3RD"};
    e.in.cm1 = false;
    e.in.rsn = 1;
    e.in.synchronized = true;
    e.in.lterm = "LTOVR1";
    e.in.modname = "MAPIN1";
    e.in.security_flag = otma::security_flag::check;
    e.in.user = "CLERK1";
    e.in.group = "CLERKS";
    e.shown = {{"TRAN", "SHOWOTMA"},  {"COMMITMODE", "0"}, {"SYNCLEVEL", "CONFIRM"}, {"TPIPE", "SHOWSYN"},
               {"SYNCHRONIZED", "Y"}, {"LTERM", "LTOVR1"}, {"MODNAME", "MAPIN1"},    {"USERID", "CLERK1"},
               {"GROUP", "CLERKS"},   {"SECFLAG", "C"},    {"TOKEN", "NONE"},        {"SEGMENTS", "3"},
               {"LENGTHS", "24,33,7"}};
    e.out_mod = "OUTMOD1";
    cases.push_back(e);
  }
  {
    // CM1 sync level NONE on a plain Tpipe; flag F with a user and an arbitrary 80-byte UTOKEN, which no
    // key verifies; no LTERM override, no map name and no MOD=: the reply's MOD name is the input's (blank).
    expected e;
    e.in.tpipe = "SHOWCM1N";
    e.in.segments = {"SHOWOTMA", "AB"};
    e.in.sync_level = sf::sync_level_none;
    e.in.security_flag = otma::security_flag::full;
    e.in.user = "ADMIN";
    e.in.utoken = arbitrary_utoken();
    e.shown = {{"TRAN", "SHOWOTMA"},  {"COMMITMODE", "1"}, {"SYNCLEVEL", "NONE"},    {"TPIPE", "SHOWCM1N"},
               {"SYNCHRONIZED", "N"}, {"LTERM", ""},       {"MODNAME", ""},          {"USERID", "ADMIN"},
               {"GROUP", ""},         {"SECFLAG", "F"},    {"TOKEN", "NOTVERIFIED"}, {"SEGMENTS", "2"},
               {"LENGTHS", "12,6"}};
    cases.push_back(e);
  }
  {
    // CM1 CONFIRM, flag N with a user; a map name in, "MOD=" overrides it for the reply.
    expected e;
    e.in.tpipe = "SHOWCM1C";
    e.in.segments = {"SHOWOTMA MOD=REPLY2,X"};
    e.in.modname = "MAPIN3";
    e.in.security_flag = otma::security_flag::none;
    e.in.user = "CLERK1";
    e.shown = {{"TRAN", "SHOWOTMA"},  {"COMMITMODE", "1"}, {"SYNCLEVEL", "CONFIRM"}, {"TPIPE", "SHOWCM1C"},
               {"SYNCHRONIZED", "N"}, {"LTERM", ""},       {"MODNAME", "MAPIN3"},    {"USERID", "CLERK1"},
               {"GROUP", ""},         {"SECFLAG", "N"},    {"TOKEN", "NONE"},        {"SEGMENTS", "1"},
               {"LENGTHS", "25"}};
    e.out_mod = "REPLY2";
    cases.push_back(e);
  }
  {
    // No security section at all: flag N, no user, no token.
    expected e;
    e.in.tpipe = "SHOWNOSE";
    e.in.segments = {"SHOWOTMA"};
    e.shown = {{"TRAN", "SHOWOTMA"},  {"COMMITMODE", "1"}, {"SYNCLEVEL", "CONFIRM"}, {"TPIPE", "SHOWNOSE"},
               {"SYNCHRONIZED", "N"}, {"LTERM", ""},       {"MODNAME", ""},          {"USERID", ""},
               {"GROUP", ""},         {"SECFLAG", "N"},    {"TOKEN", "NONE"},        {"SEGMENTS", "1"},
               {"LENGTHS", "12"}};
    cases.push_back(e);
  }

  for (const auto& c : cases) {
    SCOPED_TRACE("tpipe " + c.in.tpipe);
    const auto r = exchange(build(c.in));
    ASSERT_TRUE(r.ack) << "sense " << r.sense;
    const otma::otma_message reply = last();
    EXPECT_EQ(tpipe::tpipe_of(reply), c.in.tpipe);
    EXPECT_EQ(shown_fields(reply), c.shown) << all_text(reply);
    const auto* sd = state_of(reply);
    ASSERT_NE(sd, nullptr);
    EXPECT_EQ(sd->modname.value(), c.out_mod);
    // The reply is on the Tpipe it came from with the number it goes by [C: IMS-RESYNC].
    EXPECT_EQ(reply.mci.recoverable_seq, c.in.rsn);
  }
}

// ---- CM1 and its sync levels [C: IMS-STC-FLOW] -----------------------------------------------------------

TEST_F(sessions_e2e, cm1_sync_level_none_output_asks_no_ack_and_commits_at_once) {
  start_with("NONE");
  connect_client();
  input_fields add;
  add.tpipe = "CM1NONE";
  add.segments = {phone("IVTNO", "ADD", "NONEMAN", "NED", "4711", "10115")};
  add.sync_level = sf::sync_level_none;
  auto r = exchange(build(add));
  ASSERT_TRUE(r.ack);
  const otma::otma_message out = last();
  EXPECT_NE(all_text(out).find("ENTRY WAS ADDED"), std::string::npos) << all_text(out);
  EXPECT_FALSE(out.mci.response_requested());
  EXPECT_EQ(client_->locked([&] { return client_->committed.size(); }), 0u);  // nothing to ACK, none sent

  // Committed with no ACK: another Tpipe reads the entry back, and no commit confirmation comes.
  input_fields show = add;
  show.tpipe = "CM1NONE2";
  show.segments = {phone("IVTNO", "DISPLAY", "NONEMAN")};
  r = exchange(build(show));
  ASSERT_TRUE(r.ack);
  EXPECT_NE(all_text(last()).find("ENTRY WAS DISPLAYED"), std::string::npos) << all_text(last());
  EXPECT_NE(all_text(last()).find("4711"), std::string::npos) << all_text(last());
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(commit_count(), 0u);
}

TEST_F(sessions_e2e, cm1_sync_level_confirm_commits_after_the_clients_ack_with_a_committed_confirmation) {
  start_with("NONE");
  connect_client();
  client_->locked([&] { client_->auto_ack = false; });
  input_fields add;
  add.tpipe = "CM1CONF";
  add.segments = {phone("IVTNO", "ADD", "CONFIRMER", "CORA", "815", "20095")};
  auto r = exchange(build(add));
  ASSERT_TRUE(r.ack);
  const otma::otma_message out = last();
  EXPECT_NE(all_text(out).find("ENTRY WAS ADDED"), std::string::npos) << all_text(out);
  EXPECT_TRUE(out.mci.response_requested());

  // Until the ACK the run is not committed: the entry is not there for anyone else, no confirmation.
  input_fields probe;
  probe.tpipe = "CM1PROBE";
  probe.segments = {phone("IVTNO", "DISPLAY", "CONFIRMER")};
  probe.sync_level = sf::sync_level_none;
  r = exchange(build(probe));
  ASSERT_TRUE(r.ack);
  EXPECT_NE(all_text(last()).find("SPECIFIED PERSON WAS NOT FOUND"), std::string::npos) << all_text(last());
  EXPECT_EQ(commit_count(), 0u);

  client_->ack(out);
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));
  EXPECT_EQ(client_->locked([&] { return client_->commits; }), std::vector<bool>{true});
  r = exchange(build(probe));
  ASSERT_TRUE(r.ack);
  EXPECT_NE(all_text(last()).find("ENTRY WAS DISPLAYED"), std::string::npos) << all_text(last());

  // A NAK of the reply backs the run out: "aborted", DFS554, and the change is not there.
  input_fields del = add;
  del.segments = {phone("IVTNO", "DELETE", "CONFIRMER")};
  r = exchange(build(del));
  ASSERT_TRUE(r.ack);
  const otma::otma_message del_out = last();
  EXPECT_NE(all_text(del_out).find("ENTRY WAS DELETED"), std::string::npos) << all_text(del_out);
  const std::size_t outputs_before = client_->locked([&] { return client_->outputs.size(); });
  client_->nak_output(del_out, otma::sense::invalid_message);
  ASSERT_TRUE(client_->wait([&] { return client_->commits.size() >= 2; }));
  EXPECT_EQ(client_->locked([&] { return client_->commits; }), (std::vector<bool>{true, false}));
  ASSERT_TRUE(client_->wait([&] { return client_->outputs.size() > outputs_before; }));
  EXPECT_NE(all_text(last()).find("DFS554"), std::string::npos) << all_text(last());
  r = exchange(build(probe));
  ASSERT_TRUE(r.ack);
  EXPECT_NE(all_text(last()).find("ENTRY WAS DISPLAYED"), std::string::npos) << all_text(last());
}

// ---- IVTCV: a conversation [C: IMS-CONV] ----------------------------------------------------------------

TEST_F(sessions_e2e, ivtcv_conversation_three_steps_with_the_spa_then_exit_and_deallocate) {
  start_with("NONE");
  connect_client();
  const std::string tp = "CONVTP";
  input_fields f;
  f.tpipe = tp;

  // A conversational transaction is CM1 only: CM0 → NAK 0x0007 and DFS1291E [C: IMS-MSG-DFS1291E].
  input_fields cm0 = f;
  cm0.tpipe = "CONVCM0";
  cm0.cm1 = false;
  cm0.segments = {phone("IVTCV", "ADD", "BROWN")};
  auto r = exchange(build(cm0));
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::invalid_commit_mode);
  EXPECT_TRUE(r.error_message_follows);
  EXPECT_NE(all_text(last()).find("DFS1291E"), std::string::npos) << all_text(last());

  // Step 1: the process code and last name; the program asks for the rest and the conversation goes on
  // under a server token.
  f.segments = {phone("IVTCV", "ADD", "BROWN")};
  r = exchange(build(f));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  otma::otma_message out = last();
  EXPECT_NE(all_text(out).find("ENTER FIRST NAME, EXTENSION AND ZIP"), std::string::npos) << all_text(out);
  const auto* sd = state_of(out);
  ASSERT_NE(sd, nullptr);
  EXPECT_NE(sd->server_state & otma::server_state::conversational, 0);
  const otma::raw_bytes<16> token = sd->server_token;
  EXPECT_NE(token, otma::raw_bytes<16>{});

  // Step 2: not enough yet — the SPA kept ADD and BROWN, so blanks in those columns are fine.
  f.segments = {phone("IVTCV", "", "", "ALICE")};
  r = exchange(in_conversation(build(f), token));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  out = last();
  EXPECT_NE(all_text(out).find("DATA IS NOT ENOUGH.  PLEASE KEY IN MORE"), std::string::npos)
      << all_text(out);
  sd = state_of(out);
  ASSERT_NE(sd, nullptr);
  EXPECT_NE(sd->server_state & otma::server_state::conversational, 0);
  EXPECT_EQ(sd->server_token, token);

  // Step 3: the rest; the entry is added under the name from step 1 and the program ends the conversation.
  f.segments = {phone("IVTCV", "", "", "ALICE", "777", "12345")};
  r = exchange(in_conversation(build(f), token));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  out = last();
  EXPECT_NE(all_text(out).find("ENTRY WAS ADDED"), std::string::npos) << all_text(out);
  EXPECT_NE(all_text(out).find("BROWN"), std::string::npos) << all_text(out);
  sd = state_of(out);
  ASSERT_NE(sd, nullptr);
  EXPECT_EQ(sd->server_state & otma::server_state::conversational, 0);
  EXPECT_TRUE(wait_log("ended by the program"));
  // The token is stale now: NAK 0x0001 ([D], docs/design/otma.md).
  r = exchange(in_conversation(build(f), token), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::invalid_message);
  input_fields ivtno = f;
  ivtno.tpipe = "CONVCHK";
  ivtno.segments = {phone("IVTNO", "DISPLAY", "BROWN")};
  r = exchange(build(ivtno));
  ASSERT_TRUE(r.ack);
  EXPECT_NE(all_text(last()).find("ALICE"), std::string::npos) << all_text(last());
  EXPECT_NE(all_text(last()).find("777"), std::string::npos) << all_text(last());

  // /EXIT: a DISPLAY keeps a conversation going; the client's bare /EXIT on its Tpipe ends it (DFS576I).
  f.segments = {phone("IVTCV", "DISPLAY", "BROWN")};
  r = exchange(build(f));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  out = last();
  EXPECT_NE(all_text(out).find("ENTRY WAS DISPLAYED"), std::string::npos) << all_text(out);
  sd = state_of(out);
  ASSERT_NE(sd, nullptr);
  ASSERT_NE(sd->server_state & otma::server_state::conversational, 0);
  const otma::raw_bytes<16> token2 = sd->server_token;
  EXPECT_NE(token2, token);  // a new conversation, a new id
  input_fields exit_cmd = f;
  exit_cmd.segments = {"/EXIT"};
  r = exchange(build(exit_cmd));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  EXPECT_EQ(all_text(last()), "DFS576I EXIT COMPLETED, TRANSACTION DISCARDED\n");
  EXPECT_TRUE(wait_log("ended by /EXIT"));
  f.segments = {phone("IVTCV", "DISPLAY", "BROWN")};
  r = exchange(in_conversation(build(f), token2), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::invalid_message);

  // Deallocate [C: IMS-CONV]: a commit-confirmation message with the server token ends it too.
  r = exchange(build(f));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  out = last();
  sd = state_of(out);
  ASSERT_NE(sd, nullptr);
  ASSERT_NE(sd->server_state & otma::server_state::conversational, 0);
  const otma::raw_bytes<16> token3 = sd->server_token;
  EXPECT_NE(token3, token2);
  // A wrong token does not end it.
  otma::raw_bytes<16> wrong = token3;
  wrong[15] ^= 0xFF;
  client_->deallocate(tp, wrong);
  EXPECT_TRUE(wait_log("server token does not match the conversation"));
  client_->deallocate(tp, token3);
  EXPECT_TRUE(wait_log("on tpipe " + tp + " of " + client_member + " ended by deallocate"));
  r = exchange(in_conversation(build(f), token3), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::invalid_message);
  // And the Tpipe is free for a new conversation.
  r = exchange(build(f));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  EXPECT_NE(all_text(last()).find("ENTRY WAS DISPLAYED"), std::string::npos) << all_text(last());
}

// IBM [C: IMS-CONV]: "When IMS acknowledges the first input, it sets server state Conversational" —
// the ACK already carries the server token the output then carries (read from a raw member: the scripted
// client does not hand its ACKs' state data to the test).
TEST_F(sessions_e2e, ivtcv_first_input_ack_sets_conversational_with_the_server_token_of_its_output) {
  start_with("NONE");
  raw_member m(endpoint_, client_member);
  ASSERT_TRUE(m.join().ok());
  const auto bid = m.bid(client_member);
  ASSERT_TRUE(bid.has_value());
  ASSERT_TRUE(bid->mci.is_ack()) << "sense " << bid->mci.sense_code;
  input_fields f;
  f.tpipe = "CONVRAW";
  f.sync_level = sf::sync_level_none;
  f.segments = {phone("IVTCV", "ADD", "GREEN")};
  otma::otma_message in = build(f);
  in.mci.send_seq = 1;
  const std::size_t from = m.count();
  ASSERT_TRUE(m.send(in).ok());
  const long ack = m.wait_for(from, [](const otma::otma_message& x) {
    return x.mci.is_response() && !x.mci.is_command() && tpipe::tpipe_of(x) == "CONVRAW";
  });
  ASSERT_GE(ack, 0);
  const otma::otma_message a = *m.at(static_cast<std::size_t>(ack)).otma;
  ASSERT_TRUE(a.mci.is_ack()) << "sense " << a.mci.sense_code;
  const auto* asd = state_of(a);
  ASSERT_NE(asd, nullptr);
  EXPECT_NE(asd->server_state & otma::server_state::conversational, 0);
  const long out =
      m.wait_for(from, [](const otma::otma_message& x) { return x.mci.is(otma::msg_type::data); });
  ASSERT_GE(out, 0);
  const otma::otma_message o = *m.at(static_cast<std::size_t>(out)).otma;
  EXPECT_NE(all_text(o).find("ENTER FIRST NAME, EXTENSION AND ZIP"), std::string::npos) << all_text(o);
  const auto* osd = state_of(o);
  ASSERT_NE(osd, nullptr);
  EXPECT_NE(osd->server_state & otma::server_state::conversational, 0);
  EXPECT_NE(osd->server_token, otma::raw_bytes<16>{});
  EXPECT_EQ(asd->server_token, osd->server_token);
}

// ---- ALTOUT: unsolicited output through a destination descriptor [C: IMS-DRU] ---------------------------

TEST_F(sessions_e2e,
       altout_reaches_the_descriptors_member_as_unsolicited_output_and_the_iopcb_reply_the_sender) {
  start_with("NONE");
  connect_client();

  // Sent before the destination's member is there: the output waits on its Tpipe queue.
  input_fields f;
  f.tpipe = "ALTSEND";
  f.segments = {"ALTOUT   DEST=ALTDEST FIRST", "SECOND SEGMENT"};
  auto r = exchange(build(f));
  ASSERT_TRUE(r.ack) << "sense " << r.sense;
  EXPECT_EQ(all_text(last()), "ALTOUT SENT 2 SEGMENTS TO ALTDEST\n");
  EXPECT_EQ(tpipe::tpipe_of(last()), "ALTSEND");

  otma_client second(endpoint_, second_member);
  ASSERT_TRUE(second.join().ok());
  ASSERT_TRUE(second.wait([&] { return second.ready_count >= 1; })) << second.lost_reason;
  ASSERT_TRUE(second.wait([&] { return second.committed.size() >= 1; }));
  otma::otma_message alt = second.locked([&] { return second.outputs.front(); });
  EXPECT_EQ(tpipe::tpipe_of(alt), alt_tpipe);
  EXPECT_EQ(all_text(alt), "ALTOUT   DEST=ALTDEST FIRST\nSECOND SEGMENT\n");
  EXPECT_TRUE(alt.mci.response_requested());  // queued output waits for its ACK [C: IMS-CTS-FLOW]
  EXPECT_EQ(alt.mci.processing_flags & otma::processing::synchronized_tpipe, 0);  // SYNTP=N
  EXPECT_EQ(alt.mci.recoverable_seq, 0u);

  // With the member there: the default destination (ALTDEST) and a masked one (MQ*, SYNTP=Y: a
  // synchronized Tpipe whose outputs carry recoverable send numbers 1, 2).
  f.segments = {"ALTOUT  THIRD"};
  r = exchange(build(f));
  ASSERT_TRUE(r.ack);
  EXPECT_EQ(all_text(last()), "ALTOUT SENT 1 SEGMENTS TO ALTDEST\n");
  for (const char* dest : {"MQREPLY", "MQOTHER"}) {
    f.segments = {std::string("ALTOUT  DEST=") + dest};
    r = exchange(build(f));
    ASSERT_TRUE(r.ack);
    EXPECT_EQ(all_text(last()), std::string("ALTOUT SENT 1 SEGMENTS TO ") + dest + "\n");
  }
  ASSERT_TRUE(second.wait([&] { return second.committed.size() >= 4; }));
  std::this_thread::sleep_for(milliseconds(300));
  const auto outs = second.locked([&] { return second.outputs; });
  ASSERT_EQ(outs.size(), 4u);
  EXPECT_EQ(tpipe::tpipe_of(outs[1]), alt_tpipe);
  EXPECT_EQ(all_text(outs[1]), "ALTOUT  THIRD\n");
  std::vector<std::uint32_t> syn_rsns;
  for (std::size_t i = 2; i < outs.size(); ++i) {
    EXPECT_EQ(tpipe::tpipe_of(outs[i]), "ALTSYN");
    EXPECT_NE(outs[i].mci.processing_flags & otma::processing::synchronized_tpipe, 0);
    syn_rsns.push_back(outs[i].mci.recoverable_seq);
  }
  EXPECT_EQ(syn_rsns, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(all_text(outs[2]), "ALTOUT  DEST=MQREPLY\n");
  // The sender got only its IOPCB replies, on its own Tpipe.
  client_->locked([&] {
    for (const auto& o : client_->outputs) EXPECT_EQ(tpipe::tpipe_of(o), "ALTSEND");
  });

  // A destination no descriptor names: dropped, and the operator hears of it (IMB5032W).
  f.segments = {"ALTOUT  DEST=NOWHERE"};
  r = exchange(build(f));
  ASSERT_TRUE(r.ack);
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5032W) + " output of ALTOUT to NOWHERE dropped"));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(second.locked([&] { return second.outputs.size(); }), 4u);
}

// ---- client-bid, server-available, heartbeat [C: IMS-CB-FLOW, IMS-SA-FLOW] ------------------------------

TEST_F(sessions_e2e, client_bid_naked_by_the_name_rules_and_by_an_undefined_user_under_secure) {
  start_with("CHECK");
  // XCF takes these names, OTMA does not [C: IMS-NAMES]: a DFS prefix, a '#'. NAK 0x0008 [D].
  for (const char* name : {"DFSCLI1", "CLI#1"}) {
    SCOPED_TRACE(name);
    raw_member m(endpoint_, name);
    ASSERT_TRUE(m.join().ok());
    const auto answer = m.bid(name);
    ASSERT_TRUE(answer.has_value());
    EXPECT_TRUE(answer->mci.is_nak());
    EXPECT_EQ(answer->mci.sense_code, otma::sense::invalid_name);
    EXPECT_TRUE(
        wait_log((std::string(imsb::msg::IMB5023W) + " bid of ") + name + " rejected (sense X'0008')"));
  }
  // The RACF stand-in ([D], docs/design/otma.md): under /SECURE OTMA a bid naming an undefined user is
  // NAKed 0x0005; a defined one is accepted.
  raw_member m(endpoint_, "MQBIDDER");
  ASSERT_TRUE(m.join().ok());
  otma::security_data se;
  se.set_user_id("NOBODY");
  auto answer = m.bid("MQBIDDER", se);
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->mci.is_nak());
  EXPECT_EQ(answer->mci.sense_code, otma::sense::security_violation);
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5023W) +
                       " bid of MQBIDDER rejected (sense X'0005'): user NOBODY is not defined"));
  se.set_user_id("CLERK1");
  answer = m.bid("MQBIDDER", se);
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->mci.is_ack()) << "sense " << answer->mci.sense_code;
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5022I) + " bid of MQBIDDER accepted"));
}

TEST_F(sessions_e2e, client_bid_naked_x0005_by_the_client_allow_list_and_accepted_when_it_permits) {
  // [D] (imsemu/README.md "Who may bid"): CLIENT statements are the allow-list (the FACILITY profiles
  // IMSXCF.group.member).
  const std::string file = dir_.file("allow.def");
  {
    std::ofstream out(file);
    out << definitions_text("NONE") << "CLIENT MEMBER=(MQCLIENT,MQOK*)\nCLIENT MEMBER=MQUSR,USERS=(CLERK1)\n";
  }
  start_ims({"--config", file});
  const auto bid_of = [&](const std::string& name, const std::string& user) {
    raw_member m(endpoint_, name);
    EXPECT_TRUE(m.join().ok());
    std::optional<otma::security_data> se;
    if (!user.empty()) {
      se.emplace();
      se->set_user_id(user);
    }
    const auto answer = m.bid(name, se);
    EXPECT_TRUE(answer.has_value()) << name;
    return answer ? std::make_pair(answer->mci.is_ack(), static_cast<int>(answer->mci.sense_code))
                  : std::make_pair(false, -1);
  };
  EXPECT_EQ(bid_of("MQOK1", ""), std::make_pair(true, 0));
  EXPECT_EQ(bid_of("MQNOPE", ""), std::make_pair(false, static_cast<int>(otma::sense::security_violation)));
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5023W) +
                       " bid of MQNOPE rejected (sense X'0005'): not permitted by a CLIENT statement"));
  EXPECT_EQ(bid_of("MQUSR", ""), std::make_pair(false, static_cast<int>(otma::sense::security_violation)));
  EXPECT_EQ(bid_of("MQUSR", "CLERK2"),
            std::make_pair(false, static_cast<int>(otma::sense::security_violation)));
  EXPECT_TRUE(wait_log("not permitted by a CLIENT statement for user CLERK2"));
  EXPECT_EQ(bid_of("MQUSR", "CLERK1"), std::make_pair(true, 0));
  connect_client();  // MQCLIENT, named in the list
}

TEST_F(sessions_e2e,
       server_available_when_a_client_joins_after_ims_and_heartbeats_at_the_configured_interval) {
  constexpr int heartbeat_ms = 400;
  start_with("NONE", {"--heartbeat-ms", std::to_string(heartbeat_ms)});
  raw_member m(endpoint_, "MQLATE");
  ASSERT_TRUE(m.join().ok());
  // IMS was there first: it tells the newcomer it is available [C: IMS-SA-FLOW].
  const long sa = m.wait_for(0, [](const otma::otma_message& x) {
    return x.mci.is_command() && !x.mci.is_response() &&
           x.mci.command_type == otma::command::server_available;
  });
  ASSERT_GE(sa, 0);
  const auto sa_msg = *m.at(static_cast<std::size_t>(sa)).otma;
  ASSERT_TRUE(sa_msg.state.has_value());
  const auto* sas = std::get_if<otma::server_available_state_data>(&*sa_msg.state);
  ASSERT_NE(sas, nullptr);
  EXPECT_EQ(sas->member_name.value(), ims_member);
  // No heartbeat before the bid: X'3C' goes to clients in session only.
  std::this_thread::sleep_for(milliseconds(heartbeat_ms * 2));
  const auto is_heartbeat = [](const otma::otma_message& x) {
    return x.mci.is_command() && !x.mci.is_response() && x.mci.command_type == otma::command::server_state;
  };
  EXPECT_LT(m.wait_for(0, is_heartbeat, milliseconds(0)), 0);

  const std::size_t before_bid = m.count();
  const auto answer = m.bid("MQLATE");
  ASSERT_TRUE(answer.has_value());
  ASSERT_TRUE(answer->mci.is_ack()) << "sense " << answer->mci.sense_code;
  const long ack = m.wait_for(before_bid, [](const otma::otma_message& x) { return x.mci.is_response(); });
  ASSERT_GE(ack, 0);
  // One X'3C' "normal" right after the ACK [D], then one every --heartbeat-ms (the emulator's
  // timer ticks every 100 ms, and a busy machine only ever makes a gap longer). Each beat is waited for
  // as long as any answer: a beat that is late, not missing, fails the bound on the mean gap below.
  std::vector<std::chrono::steady_clock::time_point> beats;
  std::size_t from = static_cast<std::size_t>(ack) + 1;
  while (beats.size() < 7) {
    const long i = m.wait_for(from, is_heartbeat);
    ASSERT_GE(i, 0) << "heartbeat " << beats.size() + 1 << " did not come";
    const auto rec = m.at(static_cast<std::size_t>(i));
    const auto* ss = std::get_if<otma::server_state_data>(&*rec.otma->state);
    ASSERT_NE(ss, nullptr);
    EXPECT_EQ(ss->status, otma::server_status::normal);
    beats.push_back(rec.at);
    from = static_cast<std::size_t>(i) + 1;
  }
  EXPECT_LT(
      std::chrono::duration_cast<milliseconds>(beats[0] - m.at(static_cast<std::size_t>(ack)).at).count(),
      heartbeat_ms / 2);
  beats.erase(beats.begin());
  std::vector<long> gaps;
  for (std::size_t i = 1; i < beats.size(); ++i) {
    gaps.push_back(
        static_cast<long>(std::chrono::duration_cast<milliseconds>(beats[i] - beats[i - 1]).count()));
  }
  const long mean = std::accumulate(gaps.begin(), gaps.end(), 0L) / static_cast<long>(gaps.size());
  std::string shown;
  for (long g : gaps) shown += std::to_string(g) + " ";
  EXPECT_GE(mean, heartbeat_ms - 50) << shown;
  EXPECT_LE(mean, heartbeat_ms + 300) << shown;
  EXPECT_GE(*std::min_element(gaps.begin(), gaps.end()), heartbeat_ms / 2) << shown;
}

// ---- /SECURE OTMA [C: IMS-SEC-CHECK] ---------------------------------------------------------------------

TEST_F(sessions_e2e, secure_otma_full_checks_every_message_whatever_its_flag) {
  start_with("FULL");
  connect_client();
  input_fields f;
  f.tpipe = "SECFULL";
  f.sync_level = sf::sync_level_none;
  struct step {
    const char* tran;
    std::optional<std::uint8_t> flag;
    const char* user;
    bool allowed;
  };
  const step steps[] = {
      {"IVTNO", otma::security_flag::check, "CLERK1", true},      // CLERKS may run IVTNO
      {"SHOWOTMA", otma::security_flag::check, "CLERK1", false},  // ... not SHOWOTMA
      {"SHOWOTMA", otma::security_flag::none, "CLERK1", false},   // N is not honoured under FULL
      {"SHOWOTMA", std::nullopt, "", false},                      // no user: nothing runs
      {"SHOWOTMA", otma::security_flag::full, "ADMIN", true},     // OPER may
      {"ECHO", otma::security_flag::none, "NOBODY", false},       // an undefined user may run nothing
  };
  for (const auto& s : steps) {
    SCOPED_TRACE(std::string(s.tran) + " as '" + s.user + "'");
    f.segments = {s.tran == std::string("IVTNO") ? phone("IVTNO", "DISPLAY", "X") : std::string(s.tran)};
    f.security_flag = s.flag;
    f.user = s.user;
    const auto r = exchange(build(f));
    EXPECT_EQ(r.ack, s.allowed) << "sense " << r.sense;
    if (s.allowed) {
      EXPECT_EQ(all_text(last()).find("DFS1292E"), std::string::npos) << all_text(last());
    } else {
      EXPECT_EQ(r.sense, otma::sense::security_violation);
      EXPECT_TRUE(r.error_message_follows);
      EXPECT_NE(all_text(last()).find("DFS1292E"), std::string::npos) << all_text(last());
    }
  }
}

TEST_F(sessions_e2e, secure_otma_profile_honours_the_messages_flag_n_runs_anything_c_checks) {
  start_with("PROFILE");
  connect_client();
  input_fields f;
  f.tpipe = "SECPROF";
  f.sync_level = sf::sync_level_none;
  struct step {
    const char* tran;
    std::optional<std::uint8_t> flag;
    const char* user;
    bool allowed;
  };
  const step steps[] = {
      {"SHOWOTMA", otma::security_flag::none, "CLERK1", true},    // N: no check at all
      {"SHOWOTMA", otma::security_flag::none, "NOBODY", true},    // not even of an unknown user
      {"SHOWOTMA", std::nullopt, "", true},                       // no security data: as N
      {"SHOWOTMA", otma::security_flag::check, "CLERK1", false},  // C: CLERKS may not
      {"IVTNO", otma::security_flag::check, "CLERK1", true},      // ... but may run IVTNO
      {"SHOWOTMA", otma::security_flag::full, "CLERK1", false},   // F checks as C does
      {"SHOWOTMA", otma::security_flag::full, "ADMIN", true},
  };
  for (const auto& s : steps) {
    SCOPED_TRACE(std::string(s.tran) + " as '" + s.user + "'");
    f.segments = {s.tran == std::string("IVTNO") ? phone("IVTNO", "DISPLAY", "X") : std::string(s.tran)};
    f.security_flag = s.flag;
    f.user = s.user;
    const auto r = exchange(build(f), 1);
    EXPECT_EQ(r.ack, s.allowed) << "sense " << r.sense;
    if (!s.allowed) {
      EXPECT_EQ(r.sense, otma::sense::security_violation);
      EXPECT_NE(all_text(last()).find("DFS1292E"), std::string::npos) << all_text(last());
    } else if (s.tran == std::string("SHOWOTMA")) {
      // It ran, and shows the flag it ran under.
      const auto shown = shown_fields(last());
      const char want = !s.flag                                 ? 'N'
                        : *s.flag == otma::security_flag::full  ? 'F'
                        : *s.flag == otma::security_flag::check ? 'C'
                                                                : 'N';
      EXPECT_EQ(shown.at("SECFLAG"), std::string(1, want));
    }
  }
}

}  // namespace
}  // namespace imsb::test
