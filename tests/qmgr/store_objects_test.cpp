// The object files around save() and reconcile(): an object deleted and defined again starts with an
// empty file, a failed save leaves the old catalog and files, reconcile() repairs what a crash or a hand
// edit left.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "imsb/objects/catalog_text.hpp"
#include "imsb/qmgr/store.hpp"
#include "store_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

using names::fs_profile;
using objects::object_family;
using objects::object_type;

// --- deleted and defined again -------------------------------------------------------------------------

TEST_F(store_test, AQueueDeletedAndDefinedAgainStartsEmpty) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1", "Q2"}, {"NL1"}, {"P1"}}));
  const fs::path dir = store.directory();
  spit(dir / "queues" / "Q1" / "q", "old messages");
  spit(dir / "queues" / "Q2" / "q", "kept messages");
  spit(dir / "namelist" / "NL1", "old namelist");
  spit(dir / "procdef" / "P1", "old process");
  auto catalog = store.load();
  ASSERT_TRUE(catalog.ok());
  for (const auto& [family, type, name] : std::vector<std::tuple<object_family, object_type, std::string>>{
           {object_family::queue, object_type::qlocal, "Q1"},
           {object_family::namelist, object_type::namelist, "NL1"},
           {object_family::process, object_type::process, "P1"}}) {
    ASSERT_TRUE(catalog->erase(family, name));
    ASSERT_TRUE(catalog->put(record(type, name)).ok());
  }
  ASSERT_TRUE(catalog->put(record(object_type::qlocal, "Q2")).ok());  // replaced only: its file is kept
  ASSERT_TRUE(store.save(*catalog).ok());
  EXPECT_EQ(slurp(dir / "queues" / "Q1" / "q"), "");
  EXPECT_EQ(slurp(dir / "namelist" / "NL1"), "");
  EXPECT_EQ(slurp(dir / "procdef" / "P1"), "");
  EXPECT_EQ(slurp(dir / "queues" / "Q2" / "q"), "kept messages");
  EXPECT_EQ(entries_of(dir / "queues" / "Q1"), std::vector<std::string>{"q"});  // no q.new left
  // The non-const save cleared erased(): a later save keeps what the new queue got since.
  EXPECT_TRUE(catalog->erased().empty());
  spit(dir / "queues" / "Q1" / "q", "new messages");
  ASSERT_TRUE(store.save(*catalog).ok());
  EXPECT_EQ(slurp(dir / "queues" / "Q1" / "q"), "new messages");
}

TEST_F(store_test, TheConstSaveLeavesErasedToTheCaller) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  spit(store.directory() / "queues" / "Q1" / "q", "old");
  auto catalog = store.load();
  ASSERT_TRUE(catalog.ok());
  catalog->erase(object_family::queue, "Q1");
  ASSERT_TRUE(catalog->put(record(object_type::qlocal, "Q1")).ok());
  const objects::object_catalog& view = *catalog;
  ASSERT_TRUE(store.save(view).ok());
  EXPECT_EQ(slurp(store.directory() / "queues" / "Q1" / "q"), "");
  EXPECT_EQ(catalog->erased().size(), 1u);
}

TEST_F(store_test, AFileNameTakenOverByAnotherObjectStartsEmpty) {
  // On a case-insensitive file system the folder of a deleted "q1" is also the folder "Q1" of a queue
  // defined next; the catalog on disk says it was q1's, so q1's messages do not pass to Q1. This file
  // system is case sensitive, so the test shows the folder under both names itself.
  auto catalog = make_catalog("QM1", fs_profile::case_insensitive, {{"q1"}});
  auto store = create(catalog);
  catalog.erase(object_family::queue, "q1");
  catalog.clear_erased();  // only the catalog on disk can tell now
  ASSERT_TRUE(catalog.put(record(object_type::qlocal, "Q1")).ok());
  const auto new_path = store.object_path(catalog, object_family::queue, "Q1");
  ASSERT_TRUE(new_path.has_value());
  ASSERT_EQ(new_path->filename(), "Q1");
  fs::create_directory(*new_path);
  spit(*new_path / "q", "messages of q1");
  ASSERT_TRUE(store.save(catalog).ok());
  EXPECT_EQ(slurp(*new_path / "q"), "");
}

// --- a failed save -------------------------------------------------------------------------------------

TEST_F(store_test, AFailedSaveKeepsTheOldCatalogAndSaysSo) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1"}, {"NL1"}}));
  const fs::path dir = store.directory();
  spit(dir / "queues" / "Q1" / "q", "old messages");
  const std::string before = slurp(store.catalog_path());
  auto catalog = store.load();
  ASSERT_TRUE(catalog.ok());
  catalog->erase(object_family::queue, "Q1");
  ASSERT_TRUE(catalog->put(record(object_type::qlocal, "Q1")).ok());  // would start empty
  catalog->erase(object_family::namelist, "NL1");                     // would be removed
  ASSERT_TRUE(catalog->put(record(object_type::qlocal, "NEW.A")).ok());
  ASSERT_TRUE(catalog->put(record(object_type::process, "NEW.P")).ok());
  ASSERT_TRUE(catalog->put(record(object_type::qlocal, "NEW.Z")).ok());
  spit(dir / "queues" / "NEW!Z", "a file where the queue's folder belongs");

  auto saved = store.save(*catalog);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error().field, (dir / "queues" / "NEW!Z").string());
  EXPECT_FALSE(queue_manager_store::save_replaced_catalog(saved.error()));
  EXPECT_NE(saved.error().detail.find("the old catalog is still in place"), std::string::npos)
      << saved.error().to_string();
  // Everything as it was: the catalog, the old files, nothing new made.
  EXPECT_EQ(slurp(store.catalog_path()), before);
  EXPECT_EQ(slurp(dir / "queues" / "Q1" / "q"), "old messages");
  EXPECT_EQ(entries_of(dir / "queues"), (std::vector<std::string>{"NEW!Z", "Q1"}));
  EXPECT_EQ(entries_of(dir / "queues" / "Q1"), std::vector<std::string>{"q"});
  EXPECT_EQ(entries_of(dir / "namelist"), std::vector<std::string>{"NL1"});
  EXPECT_TRUE(entries_of(dir / "procdef").empty());
  EXPECT_FALSE(catalog->erased().empty());  // not cleared by a failed save

  // The catalog's own write failing: the object files it would have needed are undone too.
  fs::remove(dir / "queues" / "NEW!Z");
  fs::create_directory(dir / "qmanager" / "QMQMOBJCAT.tmp");
  auto blocked = store.save(*catalog);
  ASSERT_FALSE(blocked.ok());
  EXPECT_FALSE(queue_manager_store::save_replaced_catalog(blocked.error()));
  EXPECT_EQ(slurp(store.catalog_path()), before);
  EXPECT_EQ(entries_of(dir / "queues"), std::vector<std::string>{"Q1"});
  EXPECT_EQ(slurp(dir / "queues" / "Q1" / "q"), "old messages");

  fs::remove(dir / "qmanager" / "QMQMOBJCAT.tmp");
  ASSERT_TRUE(store.save(*catalog).ok());
  EXPECT_EQ(entries_of(dir / "queues"), (std::vector<std::string>{"NEW!A", "NEW!Z", "Q1"}));
  EXPECT_EQ(slurp(dir / "queues" / "Q1" / "q"), "");
  EXPECT_TRUE(entries_of(dir / "namelist").empty());
}

TEST(store_save_error, SaveReplacedCatalogReadsTheNote) {
  decode_error plain{std::make_error_code(std::errc::io_error), "x", 0, "fsync folder: I/O error"};
  EXPECT_FALSE(queue_manager_store::save_replaced_catalog(plain));
}

// --- reconcile -------------------------------------------------------------------------------------------

TEST_F(store_test, ReconcileRepairsTheObjectFilesAndSaysWhatItDid) {
  const auto catalog = make_catalog("QM1", fs_profile::posix, {{"Q1", "Q2", "Q3"}, {"NL1"}, {"P1"}});
  auto store = create(catalog);
  const fs::path dir = store.directory();
  imsb::test::temp_dir outside;
  const fs::path target = fs::path(outside.path()) / "precious";
  fs::create_directories(target);
  spit(target / "q", "not ours");

  fs::remove_all(dir / "queues" / "Q1");                     // a whole queue folder gone
  fs::remove(dir / "queues" / "Q2" / "q");                   // a queue file gone
  spit(dir / "queues" / "Q3" / "q", "messages");             // kept as it is
  spit(dir / "queues" / "Q3" / "q.new", "");                 // what a killed save left
  fs::remove(dir / "procdef" / "P1");                        // a process file gone
  fs::create_directories(dir / "queues" / "GHOST" / "sub");  // no object names these
  spit(dir / "namelist" / "STRAY", "x");
  fs::create_directory_symlink(target, dir / "queues" / "LINK");
  spit(dir / "qmanager" / "notes", "mine");  // outside the three folders

  auto repairs = store.reconcile(catalog);
  ASSERT_TRUE(repairs.ok()) << repairs.error().to_string();
  auto lines = *repairs;
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"created procdef/P1", "created queues/Q1", "created queues/Q2/q",
                                             "removed namelist/STRAY", "removed queues/GHOST",
                                             "removed queues/LINK", "removed queues/Q3/q.new"}));
  EXPECT_EQ(entries_of(dir / "queues"), (std::vector<std::string>{"Q1", "Q2", "Q3"}));
  EXPECT_TRUE(fs::is_regular_file(dir / "queues" / "Q1" / "q"));
  EXPECT_TRUE(fs::is_regular_file(dir / "queues" / "Q2" / "q"));
  EXPECT_EQ(slurp(dir / "queues" / "Q3" / "q"), "messages");
  EXPECT_EQ(entries_of(dir / "namelist"), std::vector<std::string>{"NL1"});
  EXPECT_TRUE(fs::is_regular_file(dir / "procdef" / "P1"));
  EXPECT_EQ(slurp(dir / "qmanager" / "notes"), "mine");
  EXPECT_EQ(slurp(target / "q"), "not ours");  // the link was removed, never followed

  auto again = store.reconcile(catalog);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

TEST_F(store_test, ReconcileNeverEntersALinkedObjectFolder) {
  const auto catalog = make_catalog("QM1", fs_profile::posix, {{"Q1"}});
  auto store = create(catalog);
  imsb::test::temp_dir outside;
  spit(fs::path(outside.path()) / "STRAY", "not ours");
  fs::remove_all(store.directory() / "queues");
  fs::create_directory_symlink(outside.path(), store.directory() / "queues");
  auto repairs = store.reconcile(catalog);
  ASSERT_FALSE(repairs.ok());
  EXPECT_EQ(repairs.error().field, (store.directory() / "queues").string());
  EXPECT_EQ(entries_of(outside.path()), std::vector<std::string>{"STRAY"});
  // Another queue manager's catalog is refused.
  EXPECT_FALSE(store.reconcile(make_catalog("QM2", fs_profile::posix)).ok());
}

TEST_F(store_test, ReconcileAfterLoadFindsNothingToDoOnAFreshQueueManager) {
  auto store =
      create(make_catalog("QM.A", fs_profile::fat83, {{"APP.ORDERS.0001", "APP.ORDERS.0002"}, {"N"}}));
  auto loaded = queue_manager_store::open(prefix_, "QM.A")->load();
  ASSERT_TRUE(loaded.ok());
  auto repairs = store.reconcile(*loaded);
  ASSERT_TRUE(repairs.ok()) << repairs.error().to_string();
  EXPECT_TRUE(repairs->empty()) << (*repairs)[0];
}

}  // namespace
}  // namespace imsb::qmgr::test
