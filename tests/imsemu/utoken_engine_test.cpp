// The engine's UTOKEN rules (engine.hpp rule 4 and the bid; our own token format [D], docs/design/otma.md)
// with a fake verifier: the engine only asks the hook, so any verdict can be staged. The real HMAC is
// imsb/transport/utoken.hpp's (tests/transport/utoken/) and the two meet in tests/e2e/imsemu/utoken_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine_rig.hpp"
#include "imsb/core/messages.hpp"
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

  // A verifier whose answer the test sets (token_answer_), as a clock passing a token's expiry would.
  void install_switchable_verifier() {
    engine_->set_utoken_verifier(
        [this](bytes_view, std::string_view, std::string_view) { return token_answer_; }, required_);
  }
  void define(const std::string& id) {
    ims::user_def u;
    u.id = id;
    u.transactions = {"SHOWOTMA"};
    defs_.users[id] = u;
  }
  bool console_line_has(std::string_view id, std::string_view text) const {
    for (const auto& l : console_) {
      if (l.find(id) != std::string::npos && l.find(text) != std::string::npos) return true;
    }
    return false;
  }

  std::vector<verifier_call> calls_;
  token_finding token_answer_ = token_check::verified;
  bool required_ = false;
};

TEST_F(utoken_engine_test, without_a_key_a_token_is_carried_not_checked_and_shows_notverified) {
  define_user(ims::otma_security::check);
  open_engine();
  connect();
  send(showotma(&bad_token));
  expect_token_line("TOKEN=NOTVERIFIED");
  EXPECT_FALSE(console_has(imsb::msg::IMB5040W));
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
  EXPECT_TRUE(console_has(imsb::msg::IMB5040W));
  EXPECT_TRUE(console_has(imsb::msg::IMB5027W));
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
  EXPECT_FALSE(console_has(imsb::msg::IMB5040W));
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
  EXPECT_TRUE(console_has(imsb::msg::IMB5023W));
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
  // IBM's client-bid carries only the UTOKEN [C-hex: IMS-SAMPLE].
  define_user(ims::otma_security::check);
  define("BRIDGE");  // the bid's user is the token's: it must be defined like any other
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

otma::security_data token_only_bid(const std::string& token_user) {
  otma::utoken_fields f;
  f.user_id = token_user;
  f.group = "MQ";
  f.issued_at = 1;
  f.valid_for = 1;
  return bid_security(otma::encode_utoken(f, bytes(32, 0x5A)), "");
}

// A bid with only a UTOKEN is the token's user's for all three checks —
// the CLIENT allow-list, "the user must be defined" and the token — not the (empty) subfield's for two.
TEST_F(utoken_engine_test, token_only_bid_is_allowed_by_client_users_naming_the_token_user) {
  define_user(ims::otma_security::check);
  define("BRIDGE");
  defs_.clients.push_back(ims::client_def{client_name, {"BRIDGE"}});
  open_engine();
  install_verifier();
  bid_with(token_only_bid("BRIDGE"));
  EXPECT_TRUE(client_->ready) << client_->lost_reason;
  ASSERT_FALSE(calls_.empty());
  EXPECT_EQ(calls_.back().user, "BRIDGE");
}

TEST_F(utoken_engine_test, token_only_bid_is_refused_by_client_users_not_naming_the_token_user) {
  define_user(ims::otma_security::check);
  define("BRIDGE");
  defs_.clients.push_back(ims::client_def{client_name, {"USER1"}});
  open_engine();
  install_verifier();
  bid_with(token_only_bid("BRIDGE"));
  EXPECT_FALSE(client_->ready);
  EXPECT_EQ(client_->bid_rejected, otma::sense::security_violation);
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5023W, "not permitted by a CLIENT statement for user BRIDGE"));
}

TEST_F(utoken_engine_test, token_only_bid_for_an_undefined_user_is_refused) {
  define_user(ims::otma_security::check);  // USER1 only
  open_engine();
  install_verifier();
  bid_with(token_only_bid("STRANGER"));
  EXPECT_FALSE(client_->ready);
  EXPECT_EQ(client_->bid_rejected, otma::sense::security_violation);
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5023W, "user STRANGER is not defined"));
}

// --utoken-required.
TEST_F(utoken_engine_test, without_utoken_required_a_message_without_a_token_runs_as_its_user) {
  define_user(ims::otma_security::check);
  open_engine();
  install_switchable_verifier();
  connect();
  send(showotma(nullptr));
  expect_token_line("TOKEN=NONE");
}

TEST_F(utoken_engine_test, utoken_required_refuses_a_message_naming_a_user_without_a_token) {
  define_user(ims::otma_security::check);
  required_ = true;
  open_engine();
  install_switchable_verifier();
  connect();
  send(showotma(nullptr));
  expect_refused();
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5056W, "user 'USER1' sent no UTOKEN"));
  send(showotma(&good_token));  // with a token that verifies, the same message runs
  expect_token_line("TOKEN=VERIFIED");
}

TEST_F(utoken_engine_test, utoken_required_refuses_a_command_without_a_token) {
  define_user(ims::otma_security::full);
  required_ = true;
  open_engine();
  install_switchable_verifier();
  connect();
  input_options o = cm1_plain();
  o.user = "USER1";
  o.security_flag = otma::security_flag::full;
  send(make_input("CMDTP", "/DIS OTMA", o));
  expect_refused();
}

TEST_F(utoken_engine_test, utoken_required_does_not_apply_under_none_or_to_a_profile_message_flagged_n) {
  define_user(ims::otma_security::none);
  required_ = true;
  open_engine();
  install_switchable_verifier();
  connect();
  send(showotma(nullptr));
  expect_token_line("TOKEN=NONE");
  close_engine();
  defs_.security = ims::otma_security::profile;
  open_engine();
  install_switchable_verifier();
  connect();
  send(showotma(nullptr, otma::security_flag::none));
  expect_token_line("TOKEN=NONE");
  send(showotma(nullptr, otma::security_flag::check));
  expect_refused();
  EXPECT_FALSE(console_has(imsb::msg::IMB5041W));
}

TEST_F(utoken_engine_test, utoken_required_refuses_a_bid_naming_a_user_without_a_token) {
  define_user(ims::otma_security::check);
  required_ = true;
  open_engine();
  install_switchable_verifier();
  otma::security_data se;
  se.flag = otma::security_flag::check;
  se.set_user_id("USER1");
  bid_with(se);
  EXPECT_FALSE(client_->ready);
  EXPECT_EQ(client_->bid_rejected, otma::sense::security_violation);
  EXPECT_TRUE(console_has(imsb::msg::IMB5056W));
}

TEST_F(utoken_engine_test, without_utoken_required_a_bid_naming_a_user_without_a_token_is_accepted) {
  define_user(ims::otma_security::check);
  open_engine();
  install_switchable_verifier();
  otma::security_data se;
  se.flag = otma::security_flag::check;
  se.set_user_id("USER1");
  bid_with(se);
  EXPECT_TRUE(client_->ready) << client_->lost_reason;
}

// The verdict at acceptance is the one the run shows, however long the run waits.
TEST_F(utoken_engine_test, a_held_input_shows_the_verdict_of_its_acceptance) {
  define_user(ims::otma_security::check);
  open_engine();
  install_switchable_verifier();
  connect();
  engine_->fault_settings().hold_runs = true;
  input_options o;  // CM0
  o.user = "USER1";
  o.group = "GROUP1";
  o.security_flag = otma::security_flag::check;
  o.utoken = true;
  send(make_input("HELDTP", "SHOWOTMA", o));
  ASSERT_TRUE(last_response().ack);
  token_answer_ = token_finding(token_check::invalid, "expired");  // the token expires before the run
  engine_->fault_settings().hold_runs = false;
  engine_->tick(now_);
  pump();
  ASSERT_FALSE(client_->outputs.empty());
  EXPECT_NE(last_output_text().find("TOKEN=VERIFIED\n"), std::string::npos) << last_output_text();
  EXPECT_FALSE(console_has(imsb::msg::IMB5041W));
}

TEST_F(utoken_engine_test, after_a_warm_restart_a_queued_input_runs_without_an_alarm) {
  define_user(ims::otma_security::check);
  open_engine();
  install_switchable_verifier();
  connect();
  engine_->fault_settings().hold_runs = true;
  input_options o;
  o.user = "USER1";
  o.group = "GROUP1";
  o.security_flag = otma::security_flag::check;
  o.utoken = true;
  send(make_input("HELDTP", "SHOWOTMA", o));
  ASSERT_TRUE(last_response().ack);
  close_engine();
  console_.clear();
  token_answer_ = token_finding(token_check::invalid, "expired");
  open_engine();  // runs the queued input (its verdict was in the old engine's memory)
  install_switchable_verifier();
  connect();
  ASSERT_FALSE(client_->outputs.empty());
  EXPECT_NE(last_output_text().find("SHOWOTMA"), std::string::npos) << last_output_text();
  EXPECT_EQ(last_output_text().find("TOKEN=VERIFIED\n"), std::string::npos) << last_output_text();
  EXPECT_FALSE(console_has(imsb::msg::IMB5041W));
  EXPECT_FALSE(console_has(imsb::msg::IMB5040W));
}

TEST_F(utoken_engine_test, a_refused_token_is_logged_once_with_its_reason) {
  define_user(ims::otma_security::check);
  open_engine();
  token_answer_ = token_finding(token_check::invalid, "bad_signature");
  install_switchable_verifier();
  connect();
  send(showotma(&bad_token));
  expect_refused();
  std::size_t n = 0;
  for (const auto& l : console_) n += l.find(imsb::msg::IMB5041W) != std::string::npos ? 1 : 0;
  EXPECT_EQ(n, 1u);
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5041W,
                               "UTOKEN OF USER 'USER1' GROUP 'GROUP1' NOT VERIFIED: bad_signature"));
  EXPECT_TRUE(console_has(imsb::msg::IMB5040W));
}

TEST_F(utoken_engine_test, under_none_a_token_that_does_not_verify_is_not_logged) {
  define_user(ims::otma_security::none);
  open_engine();
  token_answer_ = token_finding(token_check::invalid, "malformed");  // e.g. a RACF token
  install_switchable_verifier();
  connect();
  send(showotma(&bad_token));
  expect_token_line("TOKEN=INVALID");
  send(showotma(&bad_token));
  expect_token_line("TOKEN=INVALID");
  EXPECT_FALSE(console_has(imsb::msg::IMB5041W));
}

// A client-supplied name cannot split or forge a console line.
TEST_F(utoken_engine_test, names_in_console_lines_are_made_printable) {
  define_user(ims::otma_security::check);
  open_engine();
  token_answer_ = token_finding(token_check::invalid, "wrong_user");
  install_switchable_verifier();
  connect();
  otma_message m = showotma(&bad_token);
  m.security->set_user_id("U\nIMB1");  // EBCDIC X'25' is LF in CCSID 819
  m.security->set_profile("G\rX");
  send(m);
  expect_refused();
  otma_message bad_tp = showotma(nullptr);
  bad_tp.mci.tpipe_name.set("T\nP");
  send(bad_tp);
  EXPECT_FALSE(last_response().ack);
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5041W, "USER 'U.IMB1' GROUP 'G.X'"));
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5040W, "user 'U.IMB1'"));
  EXPECT_TRUE(console_line_has(imsb::msg::IMB5027W, "tpipe T.P "));
  for (const auto& l : console_) {
    EXPECT_EQ(l.find_first_of("\n\r"), std::string::npos) << l;
  }
}

}  // namespace
}  // namespace imsb::imsemu
