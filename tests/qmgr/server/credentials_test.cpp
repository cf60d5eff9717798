// The credential file (qmgr/src/credentials.cpp): set, check, wrong, unknown, remove, mode 0600.

#include "imsb/qmgr/credentials.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace
}  // namespace imsb::qmgr
