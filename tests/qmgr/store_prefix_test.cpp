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
  // Through detail::resolve_prefix, so that neither this machine's /var/mqm nor its HOME decides.
  imsb::test::temp_dir tmp;
  const fs::path base = tmp.path();
  fs::create_directory(base / "mqm");
  for (const char* env : {"", static_cast<const char*>(nullptr)}) {
    auto system = detail::resolve_prefix(std::nullopt, env, base / "mqm", std::string("/home/u"));
    ASSERT_TRUE(system.ok()) << system.error().to_string();
    EXPECT_EQ(system->path, base / "mqm");
    EXPECT_EQ(system->source, "/var/mqm (default)");
    auto home = detail::resolve_prefix(std::nullopt, env, base / "no" / "mqm", std::string("/home/u"));
    ASSERT_TRUE(home.ok());
    EXPECT_EQ(home->path, fs::path("/home/u/.imsbridge"));
    EXPECT_EQ(home->source, "$HOME/.imsbridge (default)");
  }
  EXPECT_EQ(entries_of(base), std::vector<std::string>{"mqm"});  // nothing was made
  // The environment and the option still come first.
  auto env = detail::resolve_prefix(std::nullopt, "/tmp/imsb-env", base / "mqm", std::string("/home/u"));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->source, "IMSBRIDGE_PREFIX");
  auto option = detail::resolve_prefix(std::string("/tmp/o"), "/tmp/imsb-env", base / "mqm", std::nullopt);
  ASSERT_TRUE(option.ok());
  EXPECT_EQ(option->source, "--prefix");
}

TEST(store_prefix, DefaultIsNotASystemFolderThatIbmMqUses) {
  imsb::test::temp_dir tmp;
  const fs::path mqm = fs::path(tmp.path()) / "mqm";
  fs::create_directory(mqm);
  const auto pick = [&](const std::string& ini) {
    spit(mqm / "mqs.ini", ini);
    auto p = detail::default_prefix(mqm, std::string("/home/u"));
    EXPECT_TRUE(p.ok()) << ini;
    return p.ok() ? p->path : fs::path();
  };
  const fs::path home = "/home/u/.imsbridge";
  EXPECT_EQ(pick("AllQueueManagers:\n   DefaultPrefix=/var/mqm\n"), home);
  EXPECT_EQ(pick("QueueManager:\n   Name=QMIBM\n   Prefix=/var/mqm\n   Directory=QMIBM\n"
                 "   DataPath=/var/mqm/qmgrs/QMIBM\n   InstallationName=Installation1\n"),
            home);
  EXPECT_EQ(pick("something we cannot read\n"), home);
  // Our own mqs.ini (or none) keeps it.
  EXPECT_EQ(pick("QueueManager:\n   Name=QM1\n   Directory=QM1\n   Owner=imsbridge\n   FileSystem=posix\n"),
            mqm);
  EXPECT_EQ(pick(""), mqm);
  fs::remove(mqm / "mqs.ini");
  EXPECT_EQ(detail::default_prefix(mqm, std::string("/home/u"))->path, mqm);
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
      "   Owner=imsbridge\r\n"
      "   Directory=QM1\r\n"  // no FileSystem: posix
      "QueueManager:\n"
      "   Name=QMIBM\n"  // IBM's: not ours, not listed
      "   Directory=QMIBM\n"
      "QueueManager:\n"
      "\tname = queue.manager2 \n"
      "   ; a comment inside\n"
      "   DIRECTORY=queue!ma.000\n"
      "   FileSystem=fat83\n"
      "   owner = IMSBRIDGE\n"
      "   DataPath=/elsewhere\n"  // unknown keys are kept, not interpreted
      "QueueManager:\n"
      "   FileSystem=case_insensitive\n"
      "   Directory=qm3\n"
      "   Owner=imsbridge\n"
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
  // Our stanzas (Owner=imsbridge) are checked; the marker may come anywhere in the stanza.
  const std::string own = "   Owner=imsbridge\n";
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=QM1\n" + own + "junk\n", 5, "junk");
  expect_error_at("\n   Name=QM1\n", 2, "before any stanza");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=QM1\n" + own +
                      "\nQueueManager:\n   Name=QM2\n   Directory=QM1\n" + own,
                  6, "share");
  expect_error_at("QueueManager:\n   Directory=QM1\n" + own, 1, "without Name");
  expect_error_at("X:\n   a=b\nQueueManager:\n   Name=QM1\n" + own, 3, "without Directory");
  expect_error_at("QueueManager:\n" + own + "   Name=QM1\n   Directory=../etc\n", 4, "one folder name");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=..\n" + own, 3, "'..'");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=QM1\n   FileSystem=ntfs\n" + own, 4, "ntfs");
  expect_error_at("QueueManager:\n   Name=QM1\n   Name=QM2\n" + own, 3, "twice");
  expect_error_at("QueueManager:\n   =QM1\n", 2, "key is missing");
  expect_error_at("QueueManager:\n   Name=QM1\n   Directory=A\n" + own +
                      "QueueManager:\n   Name=QM1\n   Directory=B\n" + own,
                  5, "recorded twice");
  // The error reaches open() and create() too, and create() changes nothing.
  spit(prefix_ / "mqs.ini", "junk\n");
  EXPECT_EQ(queue_manager_store::open(prefix_, "QM1").error().field,
            (prefix_ / "mqs.ini").string() + " line 1");
  EXPECT_FALSE(queue_manager_store::create(prefix_, make_catalog("QM1", fs_profile::posix)).ok());
  EXPECT_EQ(entries_of(prefix_), std::vector<std::string>{"mqs.ini"});
}

TEST_F(mqs_ini_test, ForeignStanzasAreKeptButNeitherCheckedNorListed) {
  // What would be errors in our stanzas, in IBM's: not ours to judge.
  auto list = parse(
      "QueueManager:\n   Directory=../etc\n   FileSystem=ntfs\n"
      "QueueManager:\n   Name=QMIBM\n   Name=QMIBM2\n"
      "QueueManager:\n   Name=QMIBM\n   Directory=QMIBM\n   Owner=someone-else\n"
      "QueueManager:\n   Name=QM1\n   Directory=QMIBM\n   Owner=imsbridge\n");
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].name, "QM1");
}

TEST_F(mqs_ini_test, OffsetIsTheStartOfTheLine) {
  auto list = parse("QueueManager:\n   Name=QM1\nbad line\n");  // a line error, ours or not
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().offset, std::string("QueueManager:\n   Name=QM1\n").size());
}

}  // namespace
}  // namespace imsb::qmgr::test
