// bindings_socket_path (qmgr/src/connect.cpp): short whatever the prefix and name; a private folder.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "imsb/qmgr/connect.hpp"

namespace imsb::qmgr {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test and restores it after.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~scoped_env() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class socket_path_test : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/imsb-sock-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(socket_path_test, short_with_a_48_character_name_and_a_long_prefix) {
  scoped_env rt("IMSBRIDGE_RUNTIME_DIR", nullptr);
  scoped_env xdg("XDG_RUNTIME_DIR", (dir_ / "xdg").c_str());
  fs::create_directory(dir_ / "xdg");
  std::string name(48, 'Q');
  fs::path prefix = "/" + std::string(200, 'p') + "/" + std::string(200, 'x');
  auto p = bindings_socket_path(prefix, name);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_LT(p->string().size(), sizeof(sockaddr_un{}.sun_path));
  EXPECT_EQ(p->parent_path(), dir_ / "xdg" / "imsbridge");
  EXPECT_EQ(p->extension(), ".sock");
  EXPECT_EQ(p->stem().string().size(), 16u);
  struct stat st {};
  ASSERT_EQ(::stat(p->parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);  // others traverse it to reach the socket (connect.hpp)
}

TEST_F(socket_path_test, differs_by_prefix_and_name_and_is_stable) {
  scoped_env rt("IMSBRIDGE_RUNTIME_DIR", dir_.c_str());
  auto a = bindings_socket_path("/var/mqm", "QM1");
  auto b = bindings_socket_path("/var/mqm", "QM2");
  auto c = bindings_socket_path("/opt/mqm", "QM1");
  auto a2 = bindings_socket_path("/var/mqm/", "QM1");
  auto a3 = bindings_socket_path("/var/mqm/../mqm", "QM1");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && a2.ok() && a3.ok());
  EXPECT_EQ(a->parent_path(), dir_);
  EXPECT_NE(*a, *b);
  EXPECT_NE(*a, *c);
  EXPECT_EQ(*a, *a2);
  EXPECT_EQ(*a, *a3);
  EXPECT_EQ(*a, *bindings_socket_path("/var/mqm", "QM1"));
}

TEST_F(socket_path_test, runtime_folder_of_another_mode_is_refused) {
  scoped_env rt("IMSBRIDGE_RUNTIME_DIR", nullptr);
  scoped_env xdg("XDG_RUNTIME_DIR", dir_.c_str());
  ::chmod(dir_.c_str(), 0711);  // an XDG folder others can pass through: the only kind used
  fs::create_directory(dir_ / "imsbridge");
  ::chmod((dir_ / "imsbridge").c_str(), 0777);
  auto p = bindings_socket_path("/var/mqm", "QM1");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, std::errc::permission_denied);
}

TEST_F(socket_path_test, too_long_a_runtime_folder_is_an_error) {
  fs::path deep = dir_ / std::string(120, 'd');
  scoped_env rt("IMSBRIDGE_RUNTIME_DIR", deep.c_str());
  auto p = bindings_socket_path("/var/mqm", "QM1");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, std::errc::filename_too_long);
}

}  // namespace
}  // namespace imsb::qmgr
