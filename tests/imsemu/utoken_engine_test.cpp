// The engine's UTOKEN rules (engine.hpp rule 4 and the bid; spec/otma-xcf.md §1.6, §3.1, §3.2 [D]) with a
// fake verifier: the engine only asks the hook, so any verdict can be staged. The real HMAC is
// transport/utoken's (tests/transport/utoken) and the two meet in tests/e2e/imsemu/utoken_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine_rig.hpp"
#include "imsb/otma/utoken.hpp"

namespace imsb::imsemu {
namespace {

using namespace test_rig;

const bytes good_token(16, 0x11);  // what make_input carries
const bytes bad_token(16, 0x22);

struct verifier_call {
  bytes token;
  std::string user;
  std::string group;
};

class utoken_engine_test : public engine_test {
 protected:
  // USER1 may run SHOWOTMA and /DIS; a token verifies when it is good_token (or a well-formed token of
  // ours naming the user asked about).
  void define_user(ims::otma_security level) {
    defs_.security = level;
    ims::user_def u;
    u.id = "USER1";
    u.transactions = {"SHOWOTMA"};
    u.commands = {"DIS"};
    defs_.users["USER1"] = u;
  }
  void install_verifier() {
    engine_->set_utoken_verifier([this](bytes_view token, std::string_view user, std::string_view group) {
      calls_.push_back({token.to_bytes(), std::string(user), std::string(group)});
      if (token.to_bytes() == good_token) return token_check::verified;
      auto ours = otma::decode_utoken(token);
      if (ours && codepage::field_value(ours->fields.user_id) == user) return token_check::verified;
      return token_check::invalid;
    });
  }
  otma_message showotma(const bytes* token, std::uint8_t flag = otma::security_flag::check) {
    input_options o = cm1_plain();
    o.user = "USER1";
    o.group = "GROUP1";
    o.security_flag = flag;
    o.utoken = token != nullptr;
    otma_message m = make_input("SECTP", "SHOWOTMA", o);
    if (token != nullptr) m.security->set_utoken(*token);
    return m;
  }
  void expect_refused() {
    ASSERT_FALSE(client_->responses.empty());
    EXPECT_FALSE(last_response().ack);
    EXPECT_EQ(last_response().sense, otma::sense::security_violation);
    EXPECT_TRUE(last_response().error_message_follows);
    EXPECT_EQ(last_output_text(), "DFS1292E SECURITY VIOLATION\n");
  }
  void expect_token_line(const std::string& line) {
    ASSERT_FALSE(client_->responses.empty());
    EXPECT_TRUE(last_response().ack) << "sense " << last_response().sense;
    EXPECT_NE(last_output_text().find(line + "\n"), std::string::npos) << last_output_text();
  }
  // A client whose bid carries this security data (and nothing else changed).
  void bid_with(const otma::security_data& se) {
    tpipe::client_config cfg;
    cfg.bid.member = client_name;
    cfg.bid.security = se;
    cfg.server_member = "IMSA";
    cfg.resync = true;
    client_->session = std::make_unique<tpipe::client_session>(cfg, *client_);
    server_->client_joined(client_name, now_);
    client_->session->start(now_);
    pump();
  }

  std::vector<verifier_call> calls_;
};

TEST_F(utoken_engine_test, without_a_key_a_token_is_carried_not_checked_and_shows_notverified) {
  define_user(ims::otma_security::check);
  open_engine();
  connect();
  send(showotma(&bad_token));
  expect_token_line("TOKEN=NOTVERIFIED");
  EXPECT_FALSE(console_has("IMB5040W"));
}

TEST_F(utoken_engine_test, verified_token_under_check_runs_and_shows_verified_for_the_message_user) {
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  connect();
  send(showotma(&good_token));
  expect_token_line("TOKEN=VERIFIED");
  ASSERT_FALSE(calls_.empty());
  EXPECT_EQ(calls_.front().token, good_token);
  EXPECT_EQ(calls_.front().user, "USER1");  // the subfields' values, without padding
  EXPECT_EQ(calls_.front().group, "GROUP1");
}

TEST_F(utoken_engine_test, invalid_token_under_check_is_naked_0005_with_dfs1292e) {
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  connect();
  send(showotma(&bad_token));
  expect_refused();
  EXPECT_TRUE(console_has("IMB5040W"));
  EXPECT_TRUE(console_has("IMB5027W"));
}

TEST_F(utoken_engine_test, invalid_token_under_full_is_refused_too) {
  define_user(ims::otma_security::full);
  open_engine();
  install_verifier();
  connect();
  send(showotma(&bad_token));
  expect_refused();
}

TEST_F(utoken_engine_test, under_profile_the_message_flag_decides_whether_the_token_is_checked) {
  define_user(ims::otma_security::profile);
  open_engine();
  install_verifier();
  connect();
  send(showotma(&bad_token, otma::security_flag::check));
  expect_refused();
  send(showotma(&bad_token, otma::security_flag::full));
  expect_refused();
  send(showotma(&bad_token, otma::security_flag::none));
  expect_token_line("TOKEN=INVALID");  // not checked, still reported
}

TEST_F(utoken_engine_test, under_none_an_invalid_token_is_not_refused_and_shows_invalid) {
  define_user(ims::otma_security::none);
  open_engine();
  install_verifier();
  connect();
  send(showotma(&bad_token));
  expect_token_line("TOKEN=INVALID");
  EXPECT_FALSE(console_has("IMB5040W"));
}

TEST_F(utoken_engine_test, no_token_with_a_key_shows_none_and_the_user_rule_alone_decides) {
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  connect();
  send(showotma(nullptr));
  expect_token_line("TOKEN=NONE");
  EXPECT_TRUE(calls_.empty());
}

TEST_F(utoken_engine_test, invalid_token_on_a_command_is_refused_as_the_user_rule_does) {
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  connect();
  input_options o = cm1_plain();
  o.user = "USER1";
  o.security_flag = otma::security_flag::check;
  o.utoken = true;
  otma_message m = make_input("CMDTP", "/DIS OTMA", o);
  m.security->set_utoken(bad_token);
  send(m);
  expect_refused();
  m.security->set_utoken(good_token);
  send(m);
  ASSERT_EQ(client_->responses.size(), 2u);
  EXPECT_TRUE(last_response().ack);
}

otma::security_data bid_security(const bytes& token, const std::string& user) {
  otma::security_data se;
  se.flag = otma::security_flag::check;
  if (!user.empty()) se.set_user_id(user);
  se.set_utoken(token);
  return se;
}

TEST_F(utoken_engine_test, bid_with_an_invalid_token_under_check_is_naked_0005) {
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  bid_with(bid_security(bad_token, "USER1"));
  EXPECT_FALSE(client_->ready);
  EXPECT_EQ(client_->bid_rejected, otma::sense::security_violation);
  EXPECT_TRUE(console_has("IMB5023W"));
}

TEST_F(utoken_engine_test, bid_with_a_valid_token_under_check_is_accepted) {
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  bid_with(bid_security(good_token, "USER1"));
  EXPECT_TRUE(client_->ready) << client_->lost_reason;
  EXPECT_EQ(client_->bid_rejected, 0);
}

TEST_F(utoken_engine_test, bid_without_a_user_subfield_is_checked_for_the_token_own_user) {
  // IBM's client-bid carries only the UTOKEN (spec §1.12 [C-hex]).
  define_user(ims::otma_security::check);
  open_engine();
  install_verifier();
  otma::utoken_fields f;
  f.user_id = "BRIDGE";
  f.group = "MQ";
  f.issued_at = 1;
  f.valid_for = 1;
  const bytes token = otma::encode_utoken(f, bytes(32, 0x5A));
  bid_with(bid_security(token, ""));
  EXPECT_TRUE(client_->ready) << client_->lost_reason;
  ASSERT_FALSE(calls_.empty());
  EXPECT_EQ(calls_.back().user, "BRIDGE");
  EXPECT_EQ(calls_.back().group, "MQ");
}

TEST_F(utoken_engine_test, bid_with_an_invalid_token_is_accepted_under_none_and_without_a_key) {
  define_user(ims::otma_security::none);
  open_engine();
  install_verifier();
  bid_with(bid_security(bad_token, "USER1"));
  EXPECT_TRUE(client_->ready) << client_->lost_reason;
  EXPECT_TRUE(calls_.empty());  // not even asked
}

TEST_F(utoken_engine_test, bid_with_any_token_is_accepted_under_check_without_a_key) {
  define_user(ims::otma_security::check);
  open_engine();
  bid_with(bid_security(bad_token, "USER1"));
  EXPECT_TRUE(client_->ready) << client_->lost_reason;
}

}  // namespace
}  // namespace imsb::imsemu
