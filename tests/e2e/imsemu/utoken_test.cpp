// The signed UTOKEN end to end (spec/otma-xcf.md §1.6, §3.2 [D]): a real imsemu with --utoken-key and
// /SECURE OTMA CHECK, a scripted client whose SHOWOTMA input carries a token signed by
// transport::utoken_key — the bridge's side of the scheme — with the emulator's key or another one.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "imsb/transport/utoken.hpp"
#include "otma_client.hpp"

namespace imsb::test {
namespace {

// USER1 may run SHOWOTMA; OTMA security checks every message (§3.1 [C]).
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
  bool log_has(const std::string& text) {
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

  std::string def_file_;
  std::string key_file_;
};

TEST_F(utoken_e2e, token_signed_with_the_emulator_key_is_verified_under_secure_check) {
  start_ims({"--config", def_file_, "--utoken-key", key_file_});
  EXPECT_TRUE(log_has("IMB5042I"));
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
  EXPECT_TRUE(log_has("IMB5041W"));
  EXPECT_TRUE(log_has("bad_signature"));
  EXPECT_TRUE(log_has("IMB5040W"));
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
  EXPECT_NE(short_log.find("IMB5043E"), std::string::npos) << short_log;
  EXPECT_NE(short_log.find("at least 64"), std::string::npos) << short_log;
  EXPECT_EQ(run_program(IMSB_IMSEMU, with_key(dir_.file("missing.key")), std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("missing.log"))),
            8);
  EXPECT_NE(read_file(dir_.file("missing.log")).find("IMB5043E"), std::string::npos);
  EXPECT_EQ(run_program(IMSB_IMSEMU, {"--help"}, std::chrono::milliseconds(10000),
                        output_to::file(dir_.file("help.log"))),
            0);
  EXPECT_NE(read_file(dir_.file("help.log")).find("--utoken-key"), std::string::npos);
}

}  // namespace
}  // namespace imsb::test
