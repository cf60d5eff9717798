// The bridge's security (bridge/src/security.cpp; IBM's rules [C: APP-ACCESS, PASSTICKET]): the four access
// levels, PassTickets (generate, validate, single use, 20 minutes, per application name), the password path
// through the hook, the key file, and the UTOKEN imsemu verifies.

#include "imsb/bridge/security.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/transport/utoken.hpp"
#include "process.hpp"

namespace imsb::bridge {
namespace {

constexpr std::int64_t t0 = 1'764'460'800;  // 2025-11-30 00:00:00 UTC, a minute boundary

bytes key_of_byte(std::uint8_t b, std::size_t n = 32) { return bytes(n, b); }

passticket_keys keys() {
  return passticket_keys::from_map({{"MVSQM1", key_of_byte(0x11)}, {"IMSAPPL", key_of_byte(0x22)}});
}

// A user directory and credential store the test controls, with a clock it moves.
struct world {
  std::int64_t now = t0 + 7;
  std::map<std::string, std::string> passwords{{"ALICE", "secret1"}, {"BOB", "secret2"}};
  std::map<std::string, std::string> groups{{"ALICE", "PAYROLL"}, {"BOB", "SALES"}, {"CAROL", "SALES"}};
  int password_checks = 0;
  int group_lookups = 0;

  security_hooks hooks() {
    security_hooks h;
    h.check_password = [this](const std::string& u, const std::string& p) {
      ++password_checks;
      auto it = passwords.find(u);
      return it != passwords.end() && it->second == p;
    };
    h.user_group = [this](const std::string& u) -> std::optional<std::string> {
      ++group_lookups;
      auto it = groups.find(u);
      if (it == groups.end()) return std::nullopt;
      return it->second;
    };
    h.now_seconds = [this] { return now; };
    return h;
  }
};

const bytes utoken_secret = key_of_byte(0x5A, 40);

class security_test : public ::testing::Test {
 protected:
  security_checker checker(std::uint32_t cache_age = 300) {
    return security_checker(w_.hooks(), keys(), utoken_secret, 3600, cache_age);
  }
  static security_inputs in(std::string user, std::string auth = "", std::string appl = "MVSQM1") {
    return security_inputs{std::move(user), std::move(auth), std::move(appl)};
  }
  world w_;
};

TEST_F(security_test, none_authenticates_every_message_and_caches_nothing) {
  auto c = checker();
  auto v = c.check(access_level::none, in("ALICE", "secret1"));
  ASSERT_TRUE(v.allowed) << v.reason;
  EXPECT_EQ(v.group, "PAYROLL");
  ASSERT_TRUE(v.utoken.has_value());
  EXPECT_EQ(w_.password_checks, 1);
  // The same user again: checked again, so a missing or wrong password is refused.
  auto again = c.check(access_level::none, in("ALICE", "secret1"));
  EXPECT_TRUE(again.allowed);
  EXPECT_EQ(w_.password_checks, 2);
  auto blank = c.check(access_level::none, in("ALICE", ""));
  EXPECT_FALSE(blank.allowed);
  EXPECT_NE(blank.reason.find("ALICE"), std::string::npos) << blank.reason;
  auto wrong = c.check(access_level::none, in("ALICE", "guessed"));
  EXPECT_FALSE(wrong.allowed);
  EXPECT_FALSE(wrong.utoken.has_value());
  // The reason goes to the console: it never holds the authenticator.
  EXPECT_EQ(wrong.reason.find("guessed"), std::string::npos) << wrong.reason;
  EXPECT_FALSE(c.check(access_level::none, in("", "secret1")).allowed);
  EXPECT_FALSE(c.check(access_level::none, in("MALLORY", "secret1")).allowed);
}

TEST_F(security_test, read_authenticates_once_then_trusts_the_cache_for_its_age) {
  auto c = checker(/*cache_age=*/300);
  EXPECT_FALSE(c.check(access_level::read, in("BOB", "")).allowed);  // never seen: must authenticate
  EXPECT_FALSE(c.check(access_level::read, in("BOB", "nope")).allowed);
  auto first = c.check(access_level::read, in("BOB", "secret2"));
  ASSERT_TRUE(first.allowed) << first.reason;
  const int checks = w_.password_checks;
  w_.now += 299;
  auto cached = c.check(access_level::read, in("BOB", ""));
  EXPECT_TRUE(cached.allowed) << cached.reason;
  EXPECT_EQ(cached.group, "SALES");
  EXPECT_TRUE(cached.utoken.has_value());
  EXPECT_EQ(w_.password_checks, checks);  // no authentication while cached
  // Another user is not covered by BOB's entry.
  EXPECT_FALSE(c.check(access_level::read, in("ALICE", "")).allowed);
  w_.now += 1;  // the age has passed: authenticate again
  EXPECT_FALSE(c.check(access_level::read, in("BOB", "")).allowed);
  EXPECT_TRUE(c.check(access_level::read, in("BOB", "secret2")).allowed);
  EXPECT_TRUE(c.check(access_level::read, in("BOB", "")).allowed);
}

TEST_F(security_test, update_checks_only_that_the_user_exists) {
  auto c = checker();
  auto v = c.check(access_level::update, in("CAROL"));  // CAROL has no password at all
  ASSERT_TRUE(v.allowed) << v.reason;
  EXPECT_EQ(v.group, "SALES");
  EXPECT_TRUE(v.utoken.has_value());
  EXPECT_EQ(w_.password_checks, 0);
  auto unknown = c.check(access_level::update, in("MALLORY", "whatever"));
  EXPECT_FALSE(unknown.allowed);
  EXPECT_NE(unknown.reason.find("MALLORY"), std::string::npos);
}

// At READ and UPDATE a user's group, once found, is trusted for the age (as the signed-on user is): the
// directory is not read for every message. A user not found is looked up again each time (one added is
// known at once); at NONE every message looks again.
TEST_F(security_test, update_and_read_keep_a_users_group_for_the_age_and_none_looks_each_time) {
  auto c = checker(/*cache_age=*/300);
  ASSERT_TRUE(c.check(access_level::update, in("CAROL")).allowed);
  ASSERT_TRUE(c.check(access_level::update, in("CAROL")).allowed);
  EXPECT_EQ(w_.group_lookups, 1);
  w_.groups["CAROL"] = "AUDIT";  // changed meanwhile: seen once the age has passed
  w_.now += 299;
  EXPECT_EQ(c.check(access_level::update, in("CAROL")).group, "SALES");
  w_.now += 1;
  EXPECT_EQ(c.check(access_level::update, in("CAROL")).group, "AUDIT");
  EXPECT_EQ(w_.group_lookups, 2);
  EXPECT_FALSE(c.check(access_level::update, in("DAVE")).allowed);
  w_.groups["DAVE"] = "SALES";
  EXPECT_TRUE(c.check(access_level::update, in("DAVE")).allowed) << "a user not found was kept as unknown";
  ASSERT_TRUE(c.check(access_level::read, in("BOB", "secret2")).allowed);
  const int lookups = w_.group_lookups;
  ASSERT_TRUE(c.check(access_level::read, in("BOB", "")).allowed);
  EXPECT_EQ(w_.group_lookups, lookups);
  ASSERT_TRUE(c.check(access_level::none, in("ALICE", "secret1")).allowed);
  ASSERT_TRUE(c.check(access_level::none, in("ALICE", "secret1")).allowed);
  EXPECT_EQ(w_.group_lookups, lookups + 2);
  auto never = checker(/*cache_age=*/0);
  ASSERT_TRUE(never.check(access_level::update, in("CAROL")).allowed);
  ASSERT_TRUE(never.check(access_level::update, in("CAROL")).allowed);
  EXPECT_EQ(w_.group_lookups, lookups + 4);
}

TEST_F(security_test, control_checks_nothing_and_sends_no_utoken) {
  auto c = checker();
  auto v = c.check(access_level::control, in("MALLORY"));
  EXPECT_TRUE(v.allowed);
  EXPECT_FALSE(v.utoken.has_value());
  EXPECT_EQ(w_.password_checks, 0);
}

TEST_F(security_test, utoken_verifies_with_the_shared_key_and_names_user_and_group) {
  auto c = checker();
  auto v = c.check(access_level::none, in("ALICE", "secret1"));
  ASSERT_TRUE(v.allowed);
  ASSERT_TRUE(v.utoken.has_value());
  auto key = transport::utoken_key::from_bytes(utoken_secret);
  ASSERT_TRUE(key.ok());
  const auto now = static_cast<std::uint64_t>(w_.now);
  EXPECT_EQ(key->verify(*v.utoken, "ALICE", "PAYROLL", now), transport::token_verdict::verified);
  EXPECT_EQ(key->verify(*v.utoken, "BOB", "PAYROLL", now), transport::token_verdict::wrong_user);
  EXPECT_EQ(key->verify(*v.utoken, "ALICE", "PAYROLL", now + 3600), transport::token_verdict::expired);
  auto other = transport::utoken_key::from_bytes(key_of_byte(0x5B, 40));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->verify(*v.utoken, "ALICE", "PAYROLL", now), transport::token_verdict::bad_signature);
  // Two tokens of the same second differ (the nonce).
  auto v2 = c.check(access_level::none, in("ALICE", "secret1"));
  ASSERT_TRUE(v2.utoken.has_value());
  EXPECT_NE(*v.utoken, *v2.utoken);
  // Without a key no token is made (the engine sends none).
  security_checker unsigned_checker(w_.hooks(), std::nullopt, std::nullopt, 3600, 300);
  auto u = unsigned_checker.check(access_level::none, in("ALICE", "secret1"));
  EXPECT_TRUE(u.allowed);
  EXPECT_FALSE(u.utoken.has_value());
}

TEST(passticket, generate_validates_for_its_user_and_appl_only) {
  auto k = keys();
  auto t = k.generate("ALICE", "MVSQM1", t0 + 30);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_EQ(t->size(), 8u);
  for (char ch : *t) EXPECT_TRUE((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) << *t;
  EXPECT_EQ(k.issued_minute(*t, "ALICE", "MVSQM1", t0 + 30), t0 / 60);
  EXPECT_EQ(k.issued_minute(*t, "ALICE", "MVSQM1", t0 + 19 * 60 + 59), t0 / 60);
  EXPECT_FALSE(k.issued_minute(*t, "ALICE", "MVSQM1", t0 + 20 * 60).has_value());
  EXPECT_FALSE(k.issued_minute(*t, "BOB", "MVSQM1", t0 + 30).has_value());
  EXPECT_FALSE(k.issued_minute(*t, "ALICE", "IMSAPPL", t0 + 30).has_value());
  EXPECT_FALSE(k.issued_minute(*t, "ALICE", "NOKEY", t0 + 30).has_value());
  // A generator whose clock runs up to a minute ahead.
  auto ahead = k.generate("ALICE", "MVSQM1", t0 + 60 + 10);
  ASSERT_TRUE(ahead.ok());
  EXPECT_EQ(k.issued_minute(*ahead, "ALICE", "MVSQM1", t0 + 50), t0 / 60 + 1);
  // Tickets of other minutes differ.
  std::set<std::string> seen;
  for (int m = 0; m < 30; ++m) seen.insert(*k.generate("ALICE", "MVSQM1", t0 + 60 * m));
  EXPECT_EQ(seen.size(), 30u);
  auto none = k.generate("ALICE", "NOKEY", t0);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, mq::make_mqfb(mq::MQFB_NOT_AUTHORIZED_FOR_IMS));
}

TEST_F(security_test, passticket_is_accepted_once) {
  auto c = checker();
  auto t = keys().generate("ALICE", "MVSQM1", w_.now);
  ASSERT_TRUE(t.ok());
  auto v = c.check(access_level::none, in("ALICE", *t));
  ASSERT_TRUE(v.allowed) << v.reason;
  EXPECT_EQ(w_.password_checks, 0);  // the ticket path, not the password hook
  EXPECT_TRUE(v.utoken.has_value());
  w_.now += 5;
  auto twice = c.check(access_level::none, in("ALICE", *t));
  EXPECT_FALSE(twice.allowed);
  EXPECT_NE(twice.reason.find("already used"), std::string::npos) << twice.reason;
  EXPECT_EQ(twice.reason.find(*t), std::string::npos) << twice.reason;
  // A ticket of the next minute is a different one and is accepted.
  w_.now += 60;
  auto next = keys().generate("ALICE", "MVSQM1", w_.now);
  ASSERT_TRUE(next.ok());
  ASSERT_NE(*next, *t);
  EXPECT_TRUE(c.check(access_level::none, in("ALICE", *next)).allowed);
}

TEST_F(security_test, passticket_older_than_20_minutes_is_refused) {
  auto c = checker();
  auto t = keys().generate("ALICE", "MVSQM1", w_.now);
  ASSERT_TRUE(t.ok());
  w_.now += 20 * 60 + 1;
  auto v = c.check(access_level::none, in("ALICE", *t));
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.reason.find(*t), std::string::npos);
}

TEST_F(security_test, passticket_for_another_appl_is_refused) {
  auto c = checker();
  auto t = keys().generate("ALICE", "IMSAPPL", w_.now);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(c.check(access_level::none, in("ALICE", *t, "MVSQM1")).allowed);
  EXPECT_FALSE(c.check(access_level::none, in("ALICE", *t, "")).allowed);  // no appl: password path
  EXPECT_TRUE(c.check(access_level::none, in("ALICE", *t, "IMSAPPL")).allowed);
  // A storage class whose PASSTKTA has no key: only passwords.
  EXPECT_TRUE(c.check(access_level::none, in("ALICE", "secret1", "OTHER")).allowed);
}

TEST_F(security_test, read_caches_a_passticket_authentication_too) {
  auto c = checker(/*cache_age=*/600);
  auto t = keys().generate("BOB", "MVSQM1", w_.now);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(c.check(access_level::read, in("BOB", *t)).allowed);
  w_.now += 30;
  EXPECT_TRUE(c.check(access_level::read, in("BOB", "")).allowed);
  EXPECT_EQ(w_.password_checks, 0);
}

TEST_F(security_test, without_hooks_nobody_authenticates) {
  security_hooks h;
  h.now_seconds = [this] { return w_.now; };
  security_checker c(h, std::nullopt, utoken_secret, 3600, 300);
  EXPECT_FALSE(c.check(access_level::none, in("ALICE", "secret1")).allowed);
  EXPECT_FALSE(c.check(access_level::update, in("ALICE")).allowed);
  EXPECT_TRUE(c.check(access_level::control, in("ALICE")).allowed);
}

// ---- the key file -----------------------------------------------------------------------------------

class passticket_file_test : public ::testing::Test {
 protected:
  std::string write(const std::string& text,
                    std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                  std::filesystem::perms::owner_write) {
    const std::string p = tmp_.file("keys");
    std::ofstream(p, std::ios::trunc) << text;
    std::filesystem::permissions(p, mode);
    return p;
  }
  test::temp_dir tmp_;
};

const std::string hex64(64, 'a');

TEST_F(passticket_file_test, loads_appl_lines_and_comments) {
  auto p = write("# PassTicket keys\n\n  mvsqm1 " + hex64 + "\r\nIMSAPPL " + std::string(80, '0') +
                 "  # trailing comment\n");
  auto k = passticket_keys::load(p);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_TRUE(k->has("MVSQM1"));  // names are upper-cased, as MQSC does
  EXPECT_TRUE(k->has("IMSAPPL"));
  EXPECT_FALSE(k->has("OTHER"));
  EXPECT_FALSE(k->readable_by_others());
  // The same key as from_map gives the same tickets.
  auto direct = passticket_keys::from_map({{"MVSQM1", bytes(32, 0xAA)}});
  EXPECT_EQ(*k->generate("U", "MVSQM1", t0), *direct.generate("U", "MVSQM1", t0));
}

TEST_F(passticket_file_test, errors_name_the_file_and_line) {
  struct bad_case {
    std::string text;
    std::size_t line;
    std::string says;
  };
  const bad_case cases[] = {
      {"# ok\nMVSQM1\n", 2, "no key"},
      {"MVSQM1 " + hex64 + " extra\n", 1, "two fields"},
      {"\n\nMVSQM1 " + hex64.substr(1) + "\n", 3, "odd"},
      {"MVSQM1 " + std::string(62, 'a') + "zz\n", 1, "not hex"},
      {"MVSQM1 " + std::string(62, 'a') + "\n", 1, "at least 32"},
      {"TOOLONGNAME " + hex64 + "\n", 1, "longer than 8"},
      {"BAD-NAME " + hex64 + "\n", 1, "outside"},
      {"MVSQM1 " + hex64 + "\nmvsqm1 " + hex64 + "\n", 2, "second key"},
  };
  for (const auto& c : cases) {
    auto p = write(c.text);
    auto k = passticket_keys::load(p);
    ASSERT_FALSE(k.ok()) << c.text;
    EXPECT_EQ(k.error().field, p);
    EXPECT_EQ(k.error().offset, c.line) << k.error().to_string();
    EXPECT_NE(k.error().detail.find("line " + std::to_string(c.line)), std::string::npos) << k.error().detail;
    EXPECT_NE(k.error().detail.find(c.says), std::string::npos) << k.error().detail;
    EXPECT_NE(k.error().detail.find(p), std::string::npos);
  }
  auto missing = passticket_keys::load(tmp_.file("nothing-here"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, std::make_error_code(std::errc::no_such_file_or_directory));
  auto folder = passticket_keys::load(tmp_.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().detail.find("not a regular file"), std::string::npos);
}

TEST_F(passticket_file_test, a_malformed_line_never_echoes_key_material) {
  const std::string secret = "0123456789abcdef" + std::string(48, 'c');
  const std::string cases[] = {secret + " APPL\n", secret + "\n", "# first\n" + secret + " MVSQM1 x\n",
                               "BAD-NAME" + secret.substr(0, 8) + " " + secret + "\n"};
  for (const auto& text : cases) {
    auto p = write(text);
    auto k = passticket_keys::load(p);
    ASSERT_FALSE(k.ok()) << text;
    const std::string said = k.error().to_string() + " " + k.error().detail;
    EXPECT_EQ(said.find(secret.substr(0, 8)), std::string::npos) << said;
    EXPECT_EQ(said.find("cccccccc"), std::string::npos) << said;
    EXPECT_NE(said.find(p), std::string::npos) << said;
  }
  // A valid name is still named: it helps find the line and is not secret.
  auto p = write("MVSQM1\n");
  auto k = passticket_keys::load(p);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().detail.find("\"MVSQM1\" has no key"), std::string::npos) << k.error().detail;
}

TEST_F(passticket_file_test, a_file_open_to_others_loads_and_says_so) {
  auto p = write("MVSQM1 " + hex64 + "\n",
                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                     std::filesystem::perms::group_read | std::filesystem::perms::others_read);
  auto k = passticket_keys::load(p);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_TRUE(k->readable_by_others());
}

}  // namespace
}  // namespace imsb::bridge
