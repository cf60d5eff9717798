// The credential file (qmgr/src/credentials.cpp): set, check, wrong, unknown, remove, mode 0600.

#include "imsb/qmgr/credentials.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace imsb::qmgr {
namespace {

namespace fs = std::filesystem;

class credentials_test : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/imsb-cred-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    file_ = dir_ / "credentials";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, file_;
};

TEST_F(credentials_test, set_then_check) {
  ASSERT_TRUE(credentials::set_password(file_, "alice", "s3cret").ok());
  EXPECT_TRUE(credentials::check_password(file_, "alice", "s3cret"));
  EXPECT_FALSE(credentials::check_password(file_, "alice", "s3cret "));
  EXPECT_FALSE(credentials::check_password(file_, "alice", ""));
  EXPECT_FALSE(credentials::check_password(file_, "bob", "s3cret"));
}

TEST_F(credentials_test, missing_file_refuses_everyone) {
  EXPECT_FALSE(credentials::check_password(file_, "alice", "x"));
  auto u = credentials::users(file_);
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->empty());
}

TEST_F(credentials_test, file_is_0600_and_holds_no_password) {
  ASSERT_TRUE(credentials::set_password(file_, "alice", "PlainTextPassword").ok());
  struct stat st {};
  ASSERT_EQ(::stat(file_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(file_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("PlainTextPassword"), std::string::npos);
  EXPECT_EQ(text.rfind("alice:pbkdf2-sha256:", 0), 0u) << text;
  EXPECT_FALSE(fs::exists(dir_ / "credentials.tmp"));
}

TEST_F(credentials_test, same_password_gets_another_salt) {
  ASSERT_TRUE(credentials::set_password(file_, "a", "pw").ok());
  ASSERT_TRUE(credentials::set_password(file_, "b", "pw").ok());
  std::ifstream in(file_);
  std::string la, lb;
  std::getline(in, la);
  std::getline(in, lb);
  EXPECT_NE(la.substr(la.find(':', 20)), lb.substr(lb.find(':', 20)));
}

TEST_F(credentials_test, replace_and_remove) {
  ASSERT_TRUE(credentials::set_password(file_, "alice", "one").ok());
  ASSERT_TRUE(credentials::set_password(file_, "bob", "two").ok());
  ASSERT_TRUE(credentials::set_password(file_, "alice", "three").ok());
  EXPECT_FALSE(credentials::check_password(file_, "alice", "one"));
  EXPECT_TRUE(credentials::check_password(file_, "alice", "three"));
  auto u = credentials::users(file_);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(*u, (std::vector<std::string>{"bob", "alice"}));
  ASSERT_TRUE(credentials::remove_user(file_, "alice").ok());
  EXPECT_FALSE(credentials::check_password(file_, "alice", "three"));
  EXPECT_TRUE(credentials::check_password(file_, "bob", "two"));
  auto missing = credentials::remove_user(file_, "alice");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, std::errc::no_such_file_or_directory);
}

TEST_F(credentials_test, bad_user_names_and_lines) {
  EXPECT_FALSE(credentials::set_password(file_, "", "x").ok());
  EXPECT_FALSE(credentials::set_password(file_, "a:b", "x").ok());
  {
    std::ofstream out(file_);
    out << "mallory:pbkdf2-sha256:1:zz:00\n"                              // bad hex
        << "eve:plain:secret\n"                                           // not our scheme
        << "trent:pbkdf2-sha256:-5:00:" << std::string(64, '0') << "\n";  // bad count
  }
  EXPECT_FALSE(credentials::check_password(file_, "mallory", ""));
  EXPECT_FALSE(credentials::check_password(file_, "eve", "secret"));
  EXPECT_FALSE(credentials::check_password(file_, "trent", ""));
  // Lines we cannot read survive an update of another user.
  ASSERT_TRUE(credentials::set_password(file_, "alice", "pw").ok());
  std::ifstream in(file_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("eve:plain:secret"), std::string::npos);
  EXPECT_TRUE(credentials::check_password(file_, "alice", "pw"));
}

// An unknown user costs a PBKDF2 derivation like a known one: the time of a refusal must not tell
// whether the name has a line [D].
TEST_F(credentials_test, an_unknown_user_costs_as_much_as_a_known_one) {
  ASSERT_TRUE(credentials::set_password(file_, "alice", "s3cret").ok());
  auto time_of = [&](const char* user) {
    auto best = std::chrono::steady_clock::duration::max();
    for (int i = 0; i < 3; ++i) {  // the fastest of three: scheduling noise only ever adds time
      auto t0 = std::chrono::steady_clock::now();
      EXPECT_FALSE(credentials::check_password(file_, user, "wrong"));
      best = std::min(best, std::chrono::steady_clock::now() - t0);
    }
    return best;
  };
  auto known = time_of("alice");
  auto unknown = time_of("nobody-at-all");
  EXPECT_GT(unknown * 3, known) << "known "
                                << std::chrono::duration_cast<std::chrono::microseconds>(known).count()
                                << " us, unknown "
                                << std::chrono::duration_cast<std::chrono::microseconds>(unknown).count()
                                << " us";
}

// Concurrent set_password calls (mqpasswd run twice at once) must not lose an update.
TEST_F(credentials_test, concurrent_set_password_loses_nothing) {
  constexpr int threads = 6, rounds = 3;
  std::vector<std::thread> ts;
  std::vector<int> failures(threads, 0);
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
        if (!credentials::set_password(file_, "u" + std::to_string(t) + "_" + std::to_string(r), "pw").ok())
          ++failures[static_cast<std::size_t>(t)];
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  auto u = credentials::users(file_);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->size(), static_cast<std::size_t>(threads * rounds));
  EXPECT_TRUE(credentials::check_password(file_, "u3_2", "pw"));
}

}  // namespace
}  // namespace imsb::qmgr
