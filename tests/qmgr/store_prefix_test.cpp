// The prefix (--prefix > IMSBRIDGE_PREFIX > /var/mqm > $HOME/.imsbridge) and mqs.ini parsing. The
// default branch is tested through detail::default_prefix with candidate paths in a temporary folder,
// never with the real /var/mqm or home.

#include <stdlib.h>

#include <gtest/gtest.h>

#include "imsb/qmgr/store.hpp"
#include "store_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

using names::fs_profile;

// Sets IMSBRIDGE_PREFIX for one test and puts back what was there.
class prefix_env {
 public:
  explicit prefix_env(const char* value) {
    if (const char* old = std::getenv("IMSBRIDGE_PREFIX")) old_ = old;
    if (value != nullptr) {
      ::setenv("IMSBRIDGE_PREFIX", value, 1);
    } else {
      ::unsetenv("IMSBRIDGE_PREFIX");
    }
  }
  ~prefix_env() {
    if (old_) {
      ::setenv("IMSBRIDGE_PREFIX", old_->c_str(), 1);
    } else {
      ::unsetenv("IMSBRIDGE_PREFIX");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(store_prefix, OptionWinsOverTheEnvironment) {
  prefix_env env("/tmp/imsb-from-env");
  auto p = resolve_prefix(std::string("/tmp/imsb-from-option"));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->path, "/tmp/imsb-from-option");
  EXPECT_EQ(p->source, "--prefix");
  auto empty = resolve_prefix(std::string());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, std::errc::invalid_argument);
}

TEST(store_prefix, EnvironmentWhenNoOption) {
  prefix_env env("/tmp/imsb-from-env");
  auto p = resolve_prefix(std::nullopt);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->path, "/tmp/imsb-from-env");
  EXPECT_EQ(p->source, "IMSBRIDGE_PREFIX");
}

TEST(store_prefix, EmptyEnvironmentFallsToTheDefault) {
  prefix_env env("");
  auto p = resolve_prefix(std::nullopt);
  // Which default depends on this machine; it is one of the two, and nothing was made.
  if (p.ok()) {
    EXPECT_TRUE(p->source == "/var/mqm (default)" || p->source == "$HOME/.imsbridge (default)") << p->source;
    EXPECT_NE(p->source, "IMSBRIDGE_PREFIX");
  } else {
    EXPECT_EQ(p.error().code, std::errc::no_such_file_or_directory);
  }
}

TEST(store_prefix, RelativePrefixesBecomeAbsolute) {
  prefix_env env("rel/env");
  auto from_env = resolve_prefix(std::nullopt);
  ASSERT_TRUE(from_env.ok());
  EXPECT_TRUE(from_env->path.is_absolute());
  EXPECT_EQ(from_env->path, fs::current_path() / "rel" / "env");
  auto from_option = resolve_prefix(std::string("rel/opt"));
  ASSERT_TRUE(from_option.ok());
  EXPECT_EQ(from_option->path, fs::current_path() / "rel" / "opt");
}

TEST(store_prefix, DefaultIsTheSystemFolderWhenUsable) {
  imsb::test::temp_dir tmp;
  const fs::path base = tmp.path();
  // Exists and is a writable folder.
  fs::create_directory(base / "mqm");
  auto existing = detail::default_prefix(base / "mqm", std::string("/home/u"));
  ASSERT_TRUE(existing.ok());
  EXPECT_EQ(existing->path, base / "mqm");
  EXPECT_EQ(existing->source, "/var/mqm (default)");
  // Does not exist, but its parent is writable.
  auto makeable = detail::default_prefix(base / "new", std::string("/home/u"));
  ASSERT_TRUE(makeable.ok());
  EXPECT_EQ(makeable->path, base / "new");
  EXPECT_FALSE(fs::exists(base / "new"));  // creates nothing
}

TEST(store_prefix, DefaultIsHomeWhenTheSystemFolderIsNotUsable) {
  imsb::test::temp_dir tmp;
  const fs::path base = tmp.path();
  // Neither it nor its parent exists.
  auto no_parent = detail::default_prefix(base / "no" / "mqm", std::string("/home/u"));
  ASSERT_TRUE(no_parent.ok());
  EXPECT_EQ(no_parent->path, fs::path("/home/u/.imsbridge"));
  EXPECT_EQ(no_parent->source, "$HOME/.imsbridge (default)");
  // A file where the folder should be.
  spit(base / "file", "x");
  auto file = detail::default_prefix(base / "file", std::string("/home/u"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->path, fs::path("/home/u/.imsbridge"));
  // No HOME.
  for (const auto& home : {std::optional<std::string>(), std::optional<std::string>("")}) {
    auto none = detail::default_prefix(base / "no" / "mqm", home);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, std::errc::no_such_file_or_directory);
    EXPECT_NE(none.error().detail.find("HOME"), std::string::npos);
  }
}

// --- mqs.ini parsing ----------------------------------------------------------------------------------

class mqs_ini_test : public store_test {
 protected:
  result<std::vector<qmgr_entry>> parse(const std::string& text) {
    spit(prefix_ / "mqs.ini", text);
    return list_queue_managers(prefix_);
  }
  void expect_error_at(const std::string& text, int line, const std::string& words) {
    auto list = parse(text);
    ASSERT_FALSE(list.ok()) << text;
    EXPECT_EQ(list.error().code, std::errc::invalid_argument);
    EXPECT_EQ(list.error().field, (prefix_ / "mqs.ini").string() + " line " + std::to_string(line)) << text;
    EXPECT_NE(list.error().detail.find(words), std::string::npos) << list.error().detail;
  }
};

TEST_F(mqs_ini_test, ReadsIbmStyleStanzasTolerantly) {
  auto list = parse(
      "#* comment *#\r\n"
      "AllQueueManagers:\r\n"
      "   DefaultPrefix=/var/mqm\r\n"
      "\r\n"
      "QueueManager:\r\n"
      "   Name=QM1\r\n"
      "   Prefix=/var/mqm\r\n"
      "   Directory=QM1\r\n"  // no FileSystem: posix
      "QueueManager:\n"
      "\tname = queue.manager2 \n"
      "   ; a comment inside\n"
      "   DIRECTORY=queue!ma.000\n"
      "   FileSystem=fat83\n"
      "   DataPath=/elsewhere\n"  // unknown keys are kept, not interpreted
      "QueueManager:\n"
      "   FileSystem=case_insensitive\n"
      "   Directory=qm3\n"
      "   Name=qm3");  // no final newline
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].name, "QM1");
  EXPECT_EQ((*list)[0].directory, "QM1");
  EXPECT_EQ((*list)[0].profile, fs_profile::posix);
  EXPECT_EQ((*list)[1].name, "queue.manager2");
  EXPECT_EQ((*list)[1].directory, "queue!ma.000");
  EXPECT_EQ((*list)[1].profile, fs_profile::fat83);
  EXPECT_EQ((*list)[2].name, "qm3");
  EXPECT_EQ((*list)[2].profile, fs_profile::case_insensitive);
  EXPECT_TRUE(parse("").ok());
  EXPECT_TRUE(parse("")->empty());
}

TEST_F(mqs_ini_test, MalformedFilesNameTheLine) {
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=QM1\njunk\n", 4, "junk");
  expect_error_at("\n   Name=QM1\n", 2, "before any stanza");
  expect_error_at(
      "QueueManager:\n   Name=QM1\n   Directory=QM1\n\nQueueManager:\n   Name=QM2\n   Directory=QM1\n", 5,
      "share");
  expect_error_at("QueueManager:\n   Directory=QM1\n", 1, "without Name");
  expect_error_at("X:\n   a=b\nQueueManager:\n   Name=QM1\n", 3, "without Directory");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=../etc\n", 3, "one folder name");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=..\n", 3, "'..'");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=QM1\n   FileSystem=ntfs\n", 4, "ntfs");
  expect_error_at("QueueManager:\n   Name=QM1\n   Name=QM2\n", 3, "twice");
  expect_error_at("QueueManager:\n   =QM1\n", 2, "key is missing");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=A\nQueueManager:\n   Name=QM1\n   Directory=B\n",
                  4, "recorded twice");
  // The error reaches open() and create() too, and create() changes nothing.
  spit(prefix_ / "mqs.ini", "junk\n");
  EXPECT_EQ(queue_manager_store::open(prefix_, "QM1").error().field,
            (prefix_ / "mqs.ini").string() + " line 1");
  EXPECT_FALSE(queue_manager_store::create(prefix_, make_catalog("QM1", fs_profile::posix)).ok());
  EXPECT_EQ(entries_of(prefix_), std::vector<std::string>{"mqs.ini"});
}

TEST_F(mqs_ini_test, OffsetIsTheStartOfTheLine) {
  auto list = parse("QueueManager:\n   Name=QM1\nbad line\n");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().offset, std::string("QueueManager:\n   Name=QM1\n").size());
}

}  // namespace
}  // namespace imsb::qmgr::test
