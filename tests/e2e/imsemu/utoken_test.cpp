// The signed UTOKEN end to end (our own format [D], docs/design/otma.md): a real imsemu with --utoken-key and
// /SECURE OTMA CHECK, a scripted client whose SHOWOTMA input carries a token signed by
// transport::utoken_key — the bridge's side of the scheme — with the emulator's key or another one.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/otma/utoken.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/transport/utoken.hpp"
#include "otma_client.hpp"

namespace imsb::test {
namespace {

// USER1 may run SHOWOTMA; OTMA security checks every message [C: IMS-SEC-CHECK].
const char* const definitions = R"(IMS GRNAME=XCFGRP1,OTMANM=IMSA
CREATE PGM NAME(SHOWOTMA) SET(FP(N),RUN(builtin:SHOWOTMA))
CREATE TRAN NAME(SHOWOTMA) SET(PGM(SHOWOTMA),RECOVER(Y),RESP(N),SPASZ(0),FP(N))
USER ID=USER1,TRANS=(SHOWOTMA)
/SECURE OTMA CHECK
)";

const char* const key_hex = "3f1c9a7be20d4568a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718";
const char* const other_key_hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

std::uint64_t now_seconds() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

transport::utoken_key key_of(const char* hex) {
  bytes raw;
  EXPECT_TRUE(from_hex(hex, raw));
  auto k = transport::utoken_key::from_bytes(raw);
  EXPECT_TRUE(k.ok());
  return *k;
}

class utoken_e2e : public imsemu_e2e {
 protected:
  void SetUp() override {
    imsemu_e2e::SetUp();
    def_file_ = write("secure.def", definitions);
    key_file_ = write("utoken.key", std::string(key_hex) + "\n");
  }
  std::string write(const std::string& name, const std::string& content) {
    const std::string path = dir_.file(name);
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  // SHOWOTMA from USER1 (security flag C, no group) carrying `token`, CM1 on a plain Tpipe.
  static otma::otma_message showotma(const bytes& token) {
    otma::otma_message m = make_input("SECTP", "SHOWOTMA", 0, "USER1");
    m.security->set_utoken(token);
    return m;
  }
  bool log_has(std::string_view text) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5000);
    while (std::chrono::steady_clock::now() < until) {
      if (read_file(log_of(starts_)).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  void expect_security_violation(const tpipe::input_response& r) {
    EXPECT_FALSE(r.ack);
    EXPECT_EQ(r.sense, otma::sense::security_violation);
    EXPECT_TRUE(r.error_message_follows);
    EXPECT_EQ(last_output(), "DFS1292E SECURITY VIOLATION\n");
  }

  static otma::security_data bid_security(const std::string& user, const bytes& token) {
    otma::security_data se;
    se.flag = otma::security_flag::check;
    if (!user.empty()) se.set_user_id(user);
    se.set_utoken(token);
    return se;
  }
  std::size_t log_count(std::string_view text) {
    const std::string log = read_file(log_of(starts_));
    std::size_t n = 0;
    for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
    return n;
  }

  std::string def_file_;
  std::string key_file_;
};

TEST_F(utoken_e2e, token_signed_with_the_emulator_key_is_verified_under_secure_check) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  EXPECT_TRUE(log_has(imsb::msg::IMB5042I));
  connect_client();
  const bytes token = key_of(key_hex).sign("USER1", "", now_seconds(), 300, 1);
  const auto r = exchange(showotma(token));
  EXPECT_TRUE(r.ack) << "sense " << r.sense;
  const std::string out = last_output();
  EXPECT_NE(out.find("TOKEN=VERIFIED\n"), std::string::npos) << out;
  EXPECT_NE(out.find("USERID=USER1\n"), std::string::npos) << out;
}

TEST_F(utoken_e2e, token_signed_with_another_key_is_naked_as_a_security_violation_with_dfs1292e) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  connect_client();
  const bytes token = key_of(other_key_hex).sign("USER1", "", now_seconds(), 300, 2);
  expect_security_violation(exchange(showotma(token)));
  EXPECT_TRUE(log_has(imsb::msg::IMB5041W));
  EXPECT_TRUE(log_has("bad_signature"));
  EXPECT_TRUE(log_has(imsb::msg::IMB5040W));
  // The session goes on: a good token right after is accepted.
  const auto r = exchange(showotma(key_of(key_hex).sign("USER1", "", now_seconds(), 300, 3)));
  EXPECT_TRUE(r.ack) << "sense " << r.sense;
}

TEST_F(utoken_e2e, expired_token_is_refused) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  connect_client();
  // Issued ten minutes ago, valid for one.
  const bytes token = key_of(key_hex).sign("USER1", "", now_seconds() - 600, 60, 4);
  expect_security_violation(exchange(showotma(token)));
  EXPECT_TRUE(log_has("expired"));
}

TEST_F(utoken_e2e, token_for_another_user_is_refused) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  connect_client();
  const bytes token = key_of(key_hex).sign("USER2", "", now_seconds(), 300, 5);
  expect_security_violation(exchange(showotma(token)));
  EXPECT_TRUE(log_has("wrong_user"));
}

TEST_F(utoken_e2e, without_utoken_key_a_token_is_carried_unchecked_and_shows_notverified) {
  start_ims({"--config", def_file_});
  connect_client();
  const bytes token = key_of(other_key_hex).sign("USER1", "", now_seconds(), 300, 6);
  const auto r = exchange(showotma(token));
  EXPECT_TRUE(r.ack) << "sense " << r.sense;
  EXPECT_NE(last_output().find("TOKEN=NOTVERIFIED\n"), std::string::npos) << last_output();
}

TEST_F(utoken_e2e, short_or_missing_key_file_stops_imsemu_with_exit_8_and_imb5043e) {
  const std::vector<std::string> base{"--group", group_name, "--member", ims_member,    "--hub",
                                      endpoint_, "--state",  state_,     "--no-console"};
  auto with_key = [&](const std::string& key) {
    std::vector<std::string> args = base;
    args.push_back("--utoken-key");
    args.push_back(key);
    return args;
  };
  const std::string short_key = write("short.key", std::string(62, 'a') + "\n");
  EXPECT_EQ(run_program(IMSB_IMSEMU, with_key(short_key), std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("short.log"))),
            8);
  const std::string short_log = read_file(dir_.file("short.log"));
  EXPECT_NE(short_log.find(imsb::msg::IMB5043E), std::string::npos) << short_log;
  EXPECT_NE(short_log.find("at least 64"), std::string::npos) << short_log;
  EXPECT_EQ(run_program(IMSB_IMSEMU, with_key(dir_.file("missing.key")), std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("missing.log"))),
            8);
  EXPECT_NE(read_file(dir_.file("missing.log")).find(imsb::msg::IMB5043E), std::string::npos);
  // A folder is refused like any bad key file (exit 8), not an internal error (exit 12).
  EXPECT_EQ(run_program(IMSB_IMSEMU, with_key(dir_.file("")), std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("folder.log"))),
            8);
  const std::string folder_log = read_file(dir_.file("folder.log"));
  EXPECT_NE(folder_log.find(imsb::msg::IMB5043E), std::string::npos) << folder_log;
  EXPECT_NE(folder_log.find("not a regular file"), std::string::npos) << folder_log;
  // --utoken-required alone is a usage error.
  std::vector<std::string> required_only = base;
  required_only.push_back("--utoken-required");
  EXPECT_EQ(run_program(IMSB_IMSEMU, required_only, std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("required.log"))),
            2);
  EXPECT_EQ(run_program(IMSB_IMSEMU, {"--help"}, std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("help.log"))),
            0);
  EXPECT_NE(read_file(dir_.file("help.log")).find("--utoken-key"), std::string::npos);
  EXPECT_NE(read_file(dir_.file("help.log")).find("--utoken-required"), std::string::npos);
}

// A client-bid's token is verified with the real key.
TEST_F(utoken_e2e, client_bid_with_a_token_signed_with_the_key_is_accepted_under_secure_check) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  raw_member m(endpoint_, "MQBIDDER");
  ASSERT_TRUE(m.join().ok());
  const bytes token = key_of(key_hex).sign("USER1", "", now_seconds(), 300, 10);
  const auto answer = m.bid("MQBIDDER", bid_security("USER1", token));
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->mci.is_ack()) << "sense " << answer->mci.sense_code;
  EXPECT_TRUE(log_has(std::string(imsb::msg::IMB5022I) + " bid of MQBIDDER accepted"));
}

TEST_F(utoken_e2e, client_bid_with_a_token_signed_with_another_key_is_naked_0005) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  raw_member m(endpoint_, "MQBIDDER");
  ASSERT_TRUE(m.join().ok());
  const bytes token = key_of(other_key_hex).sign("USER1", "", now_seconds(), 300, 11);
  const auto answer = m.bid("MQBIDDER", bid_security("USER1", token));
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->mci.is_nak());
  EXPECT_EQ(answer->mci.sense_code, otma::sense::security_violation);
  EXPECT_TRUE(log_has(std::string(imsb::msg::IMB5023W) + " bid of MQBIDDER rejected (sense X'0005')"));
  EXPECT_TRUE(log_has("bad_signature"));
}

// A bid with only a UTOKEN (IBM's sample bid [C-hex: IMS-SAMPLE]) is the token's user's for the CLIENT
// allow-list too.
TEST_F(utoken_e2e, token_only_client_bid_is_checked_against_client_users_as_the_token_user) {
  const std::string defs = write("client.def", std::string(definitions) +
                                                   "USER ID=BRIDGE,TRANS=(SHOWOTMA)\n"
                                                   "CLIENT MEMBER=(MQBID*),USERS=(BRIDGE)\n");
  start_ims({"--config", defs, "--utoken-key", key_file_});
  {
    raw_member m(endpoint_, "MQBIDOK");
    ASSERT_TRUE(m.join().ok());
    const auto answer =
        m.bid("MQBIDOK", bid_security("", key_of(key_hex).sign("BRIDGE", "", now_seconds(), 300, 12)));
    ASSERT_TRUE(answer.has_value());
    EXPECT_TRUE(answer->mci.is_ack()) << "sense " << answer->mci.sense_code;
  }
  raw_member m(endpoint_, "MQBIDNO");
  ASSERT_TRUE(m.join().ok());
  const auto answer =
      m.bid("MQBIDNO", bid_security("", key_of(key_hex).sign("USER1", "", now_seconds(), 300, 13)));
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->mci.is_nak());
  EXPECT_EQ(answer->mci.sense_code, otma::sense::security_violation);
  EXPECT_TRUE(log_has("not permitted by a CLIENT statement for user USER1"));
}

// --utoken-required.
TEST_F(utoken_e2e, utoken_required_refuses_a_message_without_a_token) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_, "--utoken-required"});
  EXPECT_TRUE(log_has("UTOKEN REQUIRED"));
  connect_client();
  expect_security_violation(exchange(make_input("SECTP", "SHOWOTMA", 0, "USER1")));
  EXPECT_TRUE(log_has(imsb::msg::IMB5056W));
  const auto r = exchange(showotma(key_of(key_hex).sign("USER1", "", now_seconds(), 300, 14)));
  EXPECT_TRUE(r.ack) << "sense " << r.sense;
}

TEST_F(utoken_e2e, without_utoken_required_a_message_without_a_token_runs_as_its_user) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  connect_client();
  const auto r = exchange(make_input("SECTP", "SHOWOTMA", 0, "USER1"));
  EXPECT_TRUE(r.ack) << "sense " << r.sense;
  EXPECT_NE(last_output().find("TOKEN=NONE\n"), std::string::npos) << last_output();
}

// Under NONE a token that is not ours (a RACF token) is no news: not logged per message.
TEST_F(utoken_e2e, under_secure_none_a_foreign_token_is_not_logged) {
  std::string none_defs = definitions;
  none_defs.replace(none_defs.find("/SECURE OTMA CHECK"), 18, "/SECURE OTMA NONE");
  start_ims({"--config", write("none.def", none_defs), "--utoken-key", key_file_});
  connect_client();
  const bytes racf(80, 0x01);
  for (int i = 0; i < 3; ++i) {
    const auto r = exchange(showotma(racf));
    EXPECT_TRUE(r.ack) << "sense " << r.sense;
    EXPECT_NE(last_output().find("TOKEN=INVALID\n"), std::string::npos) << last_output();
  }
  EXPECT_EQ(log_count(imsb::msg::IMB5041W), 0u) << read_file(log_of(starts_));
}

// A user name with EBCDIC X'25' (LF) cannot start a log line of its own.
TEST_F(utoken_e2e, a_user_name_with_a_line_feed_cannot_forge_a_log_line) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  connect_client();
  otma::otma_message m = showotma(key_of(other_key_hex).sign("USER1", "", now_seconds(), 300, 15));
  m.security->set_user_id("X\nDFS9");
  expect_security_violation(exchange(m));
  EXPECT_TRUE(log_has(imsb::msg::IMB5040W));
  const std::string log = read_file(log_of(starts_));
  EXPECT_EQ(log.find("\nDFS9"), std::string::npos) << log;
  EXPECT_NE(log.find("'X.DFS9'"), std::string::npos) << log;
}

// The key file's mode.
TEST_F(utoken_e2e, a_key_file_open_to_others_is_warned_about) {
  ASSERT_EQ(::chmod(key_file_.c_str(), 0644), 0);
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  EXPECT_TRUE(log_has(imsb::msg::IMB5042I));
  EXPECT_TRUE(log_has(imsb::msg::IMB5055W));
  stop_ims();
  ASSERT_EQ(::chmod(key_file_.c_str(), 0600), 0);
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  EXPECT_TRUE(log_has(imsb::msg::IMB5042I));
  EXPECT_EQ(log_count(imsb::msg::IMB5055W), 0u);
}

}  // namespace
}  // namespace imsb::test
