// The queue-manager store on a real file system: create/open/load/save, folder and object file names,
// mqs.ini, remove and rollback. Each test has its own temporary prefix.

#include "imsb/qmgr/store.hpp"

#include <gtest/gtest.h>

#include <string>

#include "imsb/objects/catalog_text.hpp"
#include "store_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

using names::fs_profile;
using objects::object_family;

// --- create / open / load / save ------------------------------------------------------------------

TEST_F(store_test, CreateMakesTheFoldersCatalogAndStanza) {
  const auto catalog =
      make_catalog("QM1", fs_profile::posix, {{"APP.IN", "APP/OUT"}, {"NL1"}, {"PROC.A"}, {"TO.QM2"}});
  auto store = create(catalog);
  EXPECT_EQ(store.name(), "QM1");
  EXPECT_EQ(store.profile(), fs_profile::posix);
  EXPECT_EQ(store.directory(), prefix_ / "qmgrs" / "QM1");
  EXPECT_EQ(store.catalog_path(), prefix_ / "qmgrs" / "QM1" / "qmanager" / "QMQMOBJCAT");
  EXPECT_EQ(entries_of(store.directory()),
            (std::vector<std::string>{"namelist", "procdef", "qmanager", "qmgr.lock", "queues"}));
  EXPECT_EQ(slurp(store.catalog_path()), objects::encode_catalog(catalog));
  EXPECT_EQ(entries_of(store.directory() / "qmanager"), std::vector<std::string>{"QMQMOBJCAT"});  // no .tmp
  EXPECT_TRUE(fs::is_regular_file(store.directory() / "queues" / "APP!IN" / "q"));
  EXPECT_TRUE(fs::is_regular_file(store.directory() / "queues" / "APP&OUT" / "q"));
  EXPECT_TRUE(fs::is_regular_file(store.directory() / "namelist" / "NL1"));
  EXPECT_TRUE(fs::is_regular_file(store.directory() / "procdef" / "PROC!A"));
  // IBM's stanza form [I] plus our FileSystem key.
  const std::string ini = slurp(prefix_ / "mqs.ini");
  EXPECT_NE(ini.find("QueueManager:\n   Name=QM1\n   Prefix=" + prefix_.string() +
                     "\n   Directory=QM1\n   Owner=imsbridge\n   FileSystem=posix\n"),
            std::string::npos)
      << ini;
  EXPECT_EQ(entries_of(prefix_), (std::vector<std::string>{"mqs.ini", "qmgrs"}));
}

TEST_F(store_test, OpenAndLoadGiveBackWhatWasCreated) {
  const auto catalog = make_catalog("QM.A", fs_profile::posix, {{"Q1", "Q2"}, {}, {"P1"}, {"CHL1"}});
  create(catalog);
  auto store = queue_manager_store::open(prefix_, "QM.A");
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  EXPECT_EQ(store->directory(), prefix_ / "qmgrs" / "QM!A");
  auto loaded = store->load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  EXPECT_EQ(objects::encode_catalog(*loaded), objects::encode_catalog(catalog));
  ASSERT_NE(loaded->find(object_family::queue, "Q2"), nullptr);
  EXPECT_EQ(loaded->find(object_family::queue, "Q2")->text("MAXDEPTH"), "5000");
}

TEST_F(store_test, SaveThenLoadRoundTripsChanges) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  auto catalog = store.load();
  ASSERT_TRUE(catalog.ok());
  auto rec = record(objects::object_type::qalias, "ALIAS.Q");
  rec.attrs["TARGET"] = "Q1";
  ASSERT_TRUE(catalog->put(rec).ok());
  catalog->qmgr().attrs["DEADQ"] = "Q1";
  ASSERT_TRUE(store.save(*catalog).ok());
  auto reopened = queue_manager_store::open(prefix_, "QM1");
  ASSERT_TRUE(reopened.ok());
  auto again = reopened->load();
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(objects::encode_catalog(*again), objects::encode_catalog(*catalog));
  EXPECT_EQ(again->qmgr().text("DEADQ"), "Q1");
  EXPECT_EQ(entries_of(store.directory() / "qmanager"), std::vector<std::string>{"QMQMOBJCAT"});
}

TEST_F(store_test, CreatingAnExistingQueueManagerIsFileExists) {
  create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  const std::string ini = slurp(prefix_ / "mqs.ini");
  const std::string cat = slurp(prefix_ / "qmgrs" / "QM1" / "qmanager" / "QMQMOBJCAT");
  auto again = queue_manager_store::create(prefix_, make_catalog("QM1", fs_profile::posix));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, std::errc::file_exists);
  EXPECT_EQ(slurp(prefix_ / "mqs.ini"), ini);
  EXPECT_EQ(slurp(prefix_ / "qmgrs" / "QM1" / "qmanager" / "QMQMOBJCAT"), cat);
  EXPECT_EQ(entries_of(prefix_ / "qmgrs"), std::vector<std::string>{"QM1"});
}

TEST_F(store_test, OpenOfAnUnknownQueueManagerIsNoSuchFile) {
  auto none = queue_manager_store::open(prefix_, "QM1");  // no mqs.ini at all
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, std::errc::no_such_file_or_directory);
  create(make_catalog("QM1", fs_profile::posix));
  auto other = queue_manager_store::open(prefix_, "qm1");  // names are case sensitive
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, std::errc::no_such_file_or_directory);
  EXPECT_TRUE(list_queue_managers(prefix_ / "missing").ok());
  EXPECT_TRUE(list_queue_managers(prefix_ / "missing")->empty());
}

TEST_F(store_test, InvalidNameIsRefusedAndNothingIsMade) {
  for (const std::string& bad : std::vector<std::string>{"QM 1", std::string(49, 'Q'), "QM-1", ""}) {
    auto store = queue_manager_store::create(prefix_ / "sub", make_catalog(bad, fs_profile::posix));
    ASSERT_FALSE(store.ok()) << bad;
    EXPECT_EQ(store.error().code, std::errc::invalid_argument) << bad;
  }
  EXPECT_FALSE(fs::exists(prefix_ / "sub"));
  EXPECT_TRUE(entries_of(prefix_).empty());
}

TEST_F(store_test, CreateMakesAMissingPrefix) {
  const fs::path deep = prefix_ / "a" / "b";
  auto store = queue_manager_store::create(deep, make_catalog("QM1", fs_profile::posix));
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  EXPECT_TRUE(fs::is_regular_file(deep / "mqs.ini"));
  EXPECT_TRUE(fs::is_directory(deep / "qmgrs" / "QM1" / "queues"));
}

TEST_F(store_test, LoadChecksTheCatalogBelongsToTheQueueManager) {
  auto qm1 = create(make_catalog("QM1", fs_profile::posix));
  create(make_catalog("QM2", fs_profile::posix));
  // QM2's catalog copied over QM1's.
  spit(qm1.catalog_path(), slurp(prefix_ / "qmgrs" / "QM2" / "qmanager" / "QMQMOBJCAT"));
  auto loaded = qm1.load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, std::errc::invalid_argument);
  EXPECT_NE(loaded.error().detail.find("QM2"), std::string::npos) << loaded.error().to_string();
  // The same name under another profile is not the same queue manager either.
  spit(qm1.catalog_path(), objects::encode_catalog(make_catalog("QM1", fs_profile::fat83)));
  EXPECT_FALSE(qm1.load().ok());
  // A damaged catalog: the error names the file.
  spit(qm1.catalog_path(), "this is not a catalog\n");
  auto damaged = qm1.load();
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().field.find(qm1.catalog_path().string()), std::string::npos)
      << damaged.error().to_string();
  fs::remove(qm1.catalog_path());
  auto missing = qm1.load();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, std::errc::no_such_file_or_directory);
  EXPECT_EQ(missing.error().field, qm1.catalog_path().string());
}

TEST_F(store_test, SaveRefusesAnotherQueueManagersCatalog) {
  auto qm1 = create(make_catalog("QM1", fs_profile::posix));
  const std::string before = slurp(qm1.catalog_path());
  auto saved = qm1.save(make_catalog("QM2", fs_profile::posix, {{"Q"}}));
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error().code, std::errc::invalid_argument);
  EXPECT_FALSE(qm1.save(make_catalog("QM1", fs_profile::case_insensitive)).ok());
  EXPECT_EQ(slurp(qm1.catalog_path()), before);
  EXPECT_TRUE(entries_of(qm1.directory() / "queues").empty());
}

// --- mqs.ini with several queue managers ------------------------------------------------------------

TEST_F(store_test, SeveralQueueManagersShareOneMqsIni) {
  create(make_catalog("QM1", fs_profile::posix));
  create(make_catalog("queue.manager", fs_profile::posix));
  create(make_catalog("QM3", fs_profile::fat83));
  auto list = list_queue_managers(prefix_);
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].name, "QM1");
  EXPECT_EQ((*list)[1].name, "queue.manager");
  EXPECT_EQ((*list)[1].directory, "queue!manager");
  EXPECT_EQ((*list)[2].name, "QM3");
  EXPECT_EQ((*list)[2].profile, fs_profile::fat83);
  for (const auto& e : *list) {
    auto store = queue_manager_store::open(prefix_, e.name);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ(store->directory(), prefix_ / "qmgrs" / e.directory);
    EXPECT_EQ(store->profile(), e.profile);
    ASSERT_TRUE(store->load().ok()) << e.name;
  }
  EXPECT_EQ(entries_of(prefix_ / "qmgrs"), (std::vector<std::string>{"QM1", "QM3", "queue!manager"}));
}

TEST_F(store_test, OtherStanzasAndCommentsSurviveCreateAndRemove) {
  const std::string ibm =
      "#*******************************************************************#\n"
      "#* Module Name: mqs.ini                                            *#\n"
      "#*******************************************************************#\n"
      "LogDefaults:\n"
      "   LogPrimaryFiles=3\n";
  spit(prefix_ / "mqs.ini", ibm);
  create(make_catalog("QM1", fs_profile::posix));
  const std::string with = slurp(prefix_ / "mqs.ini");
  EXPECT_EQ(with.compare(0, ibm.size(), ibm), 0) << with;
  ASSERT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
  const std::string after = slurp(prefix_ / "mqs.ini");
  EXPECT_EQ(after.compare(0, ibm.size(), ibm), 0) << after;
  EXPECT_EQ(after.find("QM1"), std::string::npos) << after;
  EXPECT_TRUE(list_queue_managers(prefix_)->empty());
}

// --- IBM MQ's mqs.ini and queue managers -------------------------------------------------------------

// IBM's own file: an AllQueueManagers stanza and a QueueManager stanza without our marker [I].
const std::string ibm_mqs_ini =
    "AllQueueManagers:\n"
    "   DefaultPrefix=/var/mqm\n"
    "\n"
    "QueueManager:\n"
    "   Name=QMIBM\n"
    "   Prefix=/var/mqm\n"
    "   Directory=QMIBM\n"
    "   DataPath=/var/mqm/qmgrs/QMIBM\n"
    "   InstallationName=Installation1\n";

class ibm_prefix_test : public store_test {
 protected:
  void SetUp() override {
    fs::create_directories(prefix_ / "qmgrs" / "QMIBM" / "qmanager");
    spit(prefix_ / "qmgrs" / "QMIBM" / "qm.ini", "IBM's own");
  }
  // Nothing of IBM's was changed.
  void expect_untouched(const std::string& ini) {
    EXPECT_EQ(slurp(prefix_ / "mqs.ini"), ini);
    EXPECT_EQ(slurp(prefix_ / "qmgrs" / "QMIBM" / "qm.ini"), "IBM's own");
    EXPECT_EQ(entries_of(prefix_ / "qmgrs"), std::vector<std::string>{"QMIBM"});
    EXPECT_EQ(entries_of(prefix_), (std::vector<std::string>{"mqs.ini", "qmgrs"}));
  }
};

TEST_F(ibm_prefix_test, IbmQueueManagersAreNeverListedOpenedOrRemoved) {
  spit(prefix_ / "mqs.ini", ibm_mqs_ini);
  auto list = list_queue_managers(prefix_);
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  EXPECT_TRUE(list->empty());
  auto opened = queue_manager_store::open(prefix_, "QMIBM");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, std::errc::operation_not_permitted);
  EXPECT_NE(opened.error().detail.find("queue manager QMIBM belongs to IBM MQ, not imsbridge"),
            std::string::npos)
      << opened.error().to_string();
  auto removed = queue_manager_store::remove(prefix_, "QMIBM");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().code, std::errc::operation_not_permitted);
  EXPECT_NE(removed.error().detail.find("belongs to IBM MQ"), std::string::npos);
  expect_untouched(ibm_mqs_ini);
}

TEST_F(ibm_prefix_test, CreateIsRefusedInAnIbmPrefix) {
  spit(prefix_ / "mqs.ini", ibm_mqs_ini);
  auto same = queue_manager_store::create(prefix_, make_catalog("QMIBM", fs_profile::posix, {{"Q1"}}));
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().code, std::errc::operation_not_permitted);
  EXPECT_NE(same.error().detail.find("belongs to IBM MQ"), std::string::npos);
  auto other = queue_manager_store::create(prefix_, make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, std::errc::operation_not_permitted);
  EXPECT_NE(other.error().detail.find("--prefix or IMSBRIDGE_PREFIX"), std::string::npos)
      << other.error().to_string();
  expect_untouched(ibm_mqs_ini);
  // A foreign QueueManager stanza alone, or IBM's AllQueueManagers stanza alone, is enough.
  for (const std::string& text : {ibm_mqs_ini.substr(ibm_mqs_ini.find("QueueManager:")),
                                  std::string("AllQueueManagers:\n   DefaultPrefix=/var/mqm\n")}) {
    spit(prefix_ / "mqs.ini", text);
    auto refused = queue_manager_store::create(prefix_, make_catalog("QM1", fs_profile::posix));
    ASSERT_FALSE(refused.ok()) << text;
    EXPECT_EQ(refused.error().code, std::errc::operation_not_permitted) << text;
    expect_untouched(text);
  }
}

TEST_F(store_test, RemoveKeepsAnIbmStanzaNextToOurs) {
  create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  // Someone added IBM's stanza to our file afterwards: ours is still ours, IBM's is kept.
  spit(prefix_ / "mqs.ini",
       slurp(prefix_ / "mqs.ini") + "\n" + ibm_mqs_ini.substr(ibm_mqs_ini.find("QueueManager:")));
  fs::create_directories(prefix_ / "qmgrs" / "QMIBM");
  ASSERT_TRUE(queue_manager_store::open(prefix_, "QM1").ok());
  ASSERT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
  const std::string after = slurp(prefix_ / "mqs.ini");
  EXPECT_EQ(after.find("Name=QM1"), std::string::npos) << after;
  EXPECT_NE(after.find("   Name=QMIBM\n   Prefix=/var/mqm\n   Directory=QMIBM\n"), std::string::npos)
      << after;
  EXPECT_EQ(entries_of(prefix_ / "qmgrs"), std::vector<std::string>{"QMIBM"});
}

TEST_F(store_test, RemoveRefusesAFolderWithoutOurCatalog) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  const std::string ini = slurp(prefix_ / "mqs.ini");
  spit(store.catalog_path(), "#* IBM's object catalogue *#\n");
  auto removed = queue_manager_store::remove(prefix_, "QM1");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().code, std::errc::operation_not_permitted);
  EXPECT_NE(removed.error().detail.find("IMSBRIDGE-CATALOG"), std::string::npos)
      << removed.error().to_string();
  EXPECT_TRUE(fs::is_regular_file(store.directory() / "queues" / "Q1" / "q"));
  EXPECT_EQ(slurp(prefix_ / "mqs.ini"), ini);
  fs::remove(store.catalog_path());
  EXPECT_EQ(queue_manager_store::remove(prefix_, "QM1").error().code, std::errc::operation_not_permitted);
  EXPECT_TRUE(fs::is_directory(store.directory()));
  EXPECT_EQ(slurp(prefix_ / "mqs.ini"), ini);
}

// --- dltmqm against runmqsc ----------------------------------------------------------------------------

TEST_F(store_test, TryLockNeverMakesTheLockFile) {
  auto store = create(make_catalog("QM1", fs_profile::posix));
  const fs::path lock_file = store.directory() / "qmgr.lock";
  fs::remove(lock_file);
  auto lock = store.try_lock();
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().code, std::errc::no_such_file_or_directory);
  EXPECT_NE(lock.error().detail.find("queue manager folder incomplete"), std::string::npos)
      << lock.error().to_string();
  EXPECT_NE(lock.error().detail.find("run dltmqm QM1"), std::string::npos);
  EXPECT_FALSE(fs::exists(lock_file));
  EXPECT_FALSE(store.locked_by_other());
  // dltmqm still removes it.
  ASSERT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
  EXPECT_TRUE(entries_of(prefix_ / "qmgrs").empty());
}

TEST_F(store_test, AStoreOpenedBeforeRemoveCannotLockOrRecreateTheFolder) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  auto stale = queue_manager_store::open(prefix_, "QM1");  // runmqsc, just before dltmqm ran
  ASSERT_TRUE(stale.ok());
  ASSERT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
  EXPECT_TRUE(entries_of(prefix_ / "qmgrs").empty());  // neither the folder nor its .deleting. name
  auto lock = stale->try_lock();
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.error().detail.find("remove its record"), std::string::npos) << lock.error().to_string();
  EXPECT_FALSE(fs::exists(store.directory()));
}

// --- queue-manager folder names [C: FILENAMES-V6, FILENAMES] ---------------------------------------

TEST_F(store_test, FolderNamesUnderPosixFollowRuleOne) {
  const std::string long_name = "QUEUE.MANAGER.ACCOUNTING.SERVICES.0123456789.ABC";
  ASSERT_EQ(long_name.size(), 48u);
  EXPECT_EQ(create(make_catalog("queue.manager", fs_profile::posix)).directory().filename(), "queue!manager");
  EXPECT_EQ(create(make_catalog("A/B.C", fs_profile::posix)).directory().filename(), "A&B!C");
  EXPECT_EQ(create(make_catalog(long_name, fs_profile::posix)).directory().filename(),
            "QUEUE!MANAGER!ACCOUNTING!SERVICES!0123456789!ABC");
  // Names that differ only in case are different folders on a case-sensitive file system.
  EXPECT_EQ(create(make_catalog("QUEUE.MANAGER", fs_profile::posix)).directory().filename(), "QUEUE!MANAGER");
  for (const auto& name : {"queue.manager", "A/B.C", long_name.c_str(), "QUEUE.MANAGER"}) {
    auto store = queue_manager_store::open(prefix_, name);
    ASSERT_TRUE(store.ok()) << name;
    auto loaded = store->load();
    ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
    EXPECT_EQ(loaded->qmgr_name(), name);
  }
  EXPECT_EQ(entries_of(prefix_ / "qmgrs").size(), 4u);
}

TEST_F(store_test, Fat83TruncatesThenSuffixesAndSurvivesAReopen) {
  // IBM's FAT example: queue.manager → queue!ma [C: FILENAMES-V6]; the next claimant of the stem gets a
  // suffix (rule 2).
  EXPECT_EQ(create(make_catalog("queue.manager", fs_profile::fat83)).directory().filename(), "queue!ma");
  EXPECT_EQ(create(make_catalog("queue.manager2", fs_profile::fat83)).directory().filename(), "queue!ma.000");
  EXPECT_EQ(create(make_catalog("QUEUE.MANAGER3", fs_profile::fat83)).directory().filename(), "QUEUE!MA.001");
  EXPECT_EQ(create(make_catalog("QM1", fs_profile::fat83)).directory().filename(), "QM1");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"queue.manager", "queue!ma"}, {"queue.manager2", "queue!ma.000"}, {"QUEUE.MANAGER3", "QUEUE!MA.001"}};
  for (const auto& [name, dir] : expected) {
    auto store = queue_manager_store::open(prefix_, name);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ(store->directory().filename(), dir);
    EXPECT_TRUE(fs::is_directory(store->directory()));
    auto loaded = store->load();
    ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
    EXPECT_EQ(loaded->qmgr_name(), name);
    EXPECT_EQ(loaded->profile(), fs_profile::fat83);
  }
  // Every folder name is a valid, distinct 8.3 name.
  auto list = list_queue_managers(prefix_);
  ASSERT_TRUE(list.ok());
  for (std::size_t i = 0; i < list->size(); ++i) {
    EXPECT_TRUE(names::is_valid_file_name((*list)[i].directory, fs_profile::fat83)) << (*list)[i].directory;
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(names::same_file((*list)[i].directory, (*list)[j].directory, fs_profile::fat83));
  }
}

TEST_F(store_test, CaseInsensitiveCollisionsGetDistinctFolders) {
  auto lower = create(make_catalog("qm1", fs_profile::case_insensitive));
  auto upper = create(make_catalog("QM1", fs_profile::case_insensitive));
  EXPECT_EQ(lower.directory().filename(), "qm1");
  EXPECT_NE(upper.directory(), lower.directory());
  EXPECT_FALSE(names::same_file(lower.directory().filename().string(), upper.directory().filename().string(),
                                fs_profile::case_insensitive));
  EXPECT_TRUE(fs::is_directory(upper.directory()));
  for (const auto& store : {lower, upper}) {
    auto reopened = queue_manager_store::open(prefix_, store.name());
    ASSERT_TRUE(reopened.ok());
    EXPECT_EQ(reopened->directory(), store.directory());
    EXPECT_EQ(reopened->load()->qmgr_name(), store.name());
  }
}

TEST_F(store_test, FoldersOfOtherProfilesCountAsTaken) {
  // A posix queue manager's folder, then a case-insensitive one whose plain name is the same file there.
  create(make_catalog("QM1", fs_profile::posix));
  auto ci = create(make_catalog("qm1", fs_profile::case_insensitive));
  EXPECT_EQ(ci.directory().filename(), "qm1.000");
  // A posix folder name that is not valid 8.3 cannot be loaded into the fat83 map; it is skipped and
  // the fat83 queue manager still gets its folder.
  create(make_catalog("queue.manager", fs_profile::posix));
  auto fat = create(make_catalog("queue.manager.b", fs_profile::fat83));
  EXPECT_EQ(fat.directory().filename(), "queue!ma");
  EXPECT_EQ(entries_of(prefix_ / "qmgrs"),
            (std::vector<std::string>{"QM1", "qm1.000", "queue!ma", "queue!manager"}));
}

TEST_F(store_test, ALeftoverFolderIsNeverReused) {
  fs::create_directories(prefix_ / "qmgrs" / "QMX");
  spit(prefix_ / "qmgrs" / "QMX" / "keep.me", "data");
  auto store = create(make_catalog("QMX", fs_profile::posix));
  EXPECT_NE(store.directory().filename(), "QMX");
  EXPECT_EQ(store.directory().filename(), "QMX.000");
  EXPECT_EQ(store.skipped_leftovers(), std::vector<std::string>{"QMX"});  // so that crtmqm can warn
  EXPECT_EQ(slurp(prefix_ / "qmgrs" / "QMX" / "keep.me"), "data");
  auto reopened = queue_manager_store::open(prefix_, "QMX");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->directory(), store.directory());
  EXPECT_TRUE(reopened->skipped_leftovers().empty());
  // A folder a stanza records is not a leftover; neither is one that does not stand in the way.
  fs::create_directories(prefix_ / "qmgrs" / "OTHER");
  EXPECT_TRUE(create(make_catalog("QMY", fs_profile::posix)).skipped_leftovers().empty());
  fs::create_directories(prefix_ / "qmgrs" / "QMZ.000");
  fs::create_directories(prefix_ / "qmgrs" / "QMZ");
  EXPECT_EQ(create(make_catalog("QMZ", fs_profile::posix)).skipped_leftovers(),
            (std::vector<std::string>{"QMZ", "QMZ.000"}));
}

// --- object files ------------------------------------------------------------------------------------

TEST_F(store_test, ObjectPathsFollowTheCatalogsFileNames) {
  const auto catalog =
      make_catalog("QM1", fs_profile::posix, {{"QL.A", "A/B"}, {"NL.1"}, {"PR.1"}, {"CH.1"}});
  auto store = create(catalog);
  const fs::path dir = store.directory();
  EXPECT_EQ(store.object_path(catalog, object_family::queue, "QL.A"), dir / "queues" / "QL!A");
  EXPECT_EQ(store.object_path(catalog, object_family::queue, "A/B"), dir / "queues" / "A&B");
  EXPECT_EQ(store.object_path(catalog, object_family::namelist, "NL.1"), dir / "namelist" / "NL!1");
  EXPECT_EQ(store.object_path(catalog, object_family::process, "PR.1"), dir / "procdef" / "PR!1");
  // Channels are not files [C: FILENAMES-V6]; unknown names have no path.
  EXPECT_EQ(store.object_path(catalog, object_family::channel, "CH.1"), std::nullopt);
  EXPECT_EQ(store.object_path(catalog, object_family::queue, "NO.SUCH"), std::nullopt);
  EXPECT_EQ(store.object_path(catalog, object_family::process, "QL.A"), std::nullopt);
  for (const auto& [family, name] :
       std::vector<std::pair<object_family, std::string>>{{object_family::queue, "QL.A"},
                                                          {object_family::namelist, "NL.1"},
                                                          {object_family::process, "PR.1"}})
    EXPECT_TRUE(fs::exists(*store.object_path(catalog, family, name))) << name;
}

TEST_F(store_test, ObjectFilesAppearAndDisappearOnSave) {
  auto catalog = make_catalog("QM1", fs_profile::posix, {{"Q1", "Q2"}, {"NL1"}, {"P1"}});
  auto store = create(catalog);
  const fs::path dir = store.directory();
  spit(dir / "queues" / "Q1" / "q", "messages");  // a queue file with content is kept as it is
  spit(dir / "qmanager" / "notes", "mine");       // outside the three object folders: never touched
  fs::create_directories(dir / "queues" / "STRAY" / "sub");
  spit(dir / "namelist" / "STRAY", "x");

  catalog.erase(object_family::queue, "Q2");
  catalog.erase(object_family::namelist, "NL1");
  ASSERT_TRUE(catalog.put(record(objects::object_type::qlocal, "Q3.NEW")).ok());
  ASSERT_TRUE(catalog.put(record(objects::object_type::process, "P2")).ok());
  ASSERT_TRUE(catalog.put(record(objects::object_type::namelist, "NL2")).ok());
  ASSERT_TRUE(store.save(catalog).ok());

  EXPECT_EQ(entries_of(dir / "queues"), (std::vector<std::string>{"Q1", "Q3!NEW"}));
  EXPECT_EQ(entries_of(dir / "namelist"), std::vector<std::string>{"NL2"});
  EXPECT_EQ(entries_of(dir / "procdef"), (std::vector<std::string>{"P1", "P2"}));
  EXPECT_EQ(slurp(dir / "queues" / "Q1" / "q"), "messages");
  EXPECT_TRUE(fs::is_regular_file(dir / "queues" / "Q3!NEW" / "q"));
  EXPECT_EQ(fs::file_size(dir / "queues" / "Q3!NEW" / "q"), 0u);
  EXPECT_EQ(slurp(dir / "qmanager" / "notes"), "mine");

  // Everything deleted: the folders stay, empty.
  for (const auto family : {object_family::queue, object_family::namelist, object_family::process})
    for (const auto* rec : catalog.list(family)) {
      const std::string name = rec->name;
      catalog.erase(family, name);
    }
  ASSERT_TRUE(store.save(catalog).ok());
  EXPECT_TRUE(entries_of(dir / "queues").empty());
  EXPECT_TRUE(entries_of(dir / "namelist").empty());
  EXPECT_TRUE(entries_of(dir / "procdef").empty());
  EXPECT_EQ(entries_of(dir / "qmanager"), (std::vector<std::string>{"QMQMOBJCAT", "notes"}));
}

TEST_F(store_test, SaveRemakesMissingObjectFilesAndReportsAFolderInAFilesPlace) {
  auto catalog = make_catalog("QM1", fs_profile::posix, {{"Q1"}, {}, {"P1"}});
  auto store = create(catalog);
  fs::remove_all(store.directory() / "queues");
  ASSERT_TRUE(store.save(catalog).ok());
  EXPECT_TRUE(fs::is_regular_file(store.directory() / "queues" / "Q1" / "q"));
  fs::remove(store.directory() / "procdef" / "P1");
  fs::create_directory(store.directory() / "procdef" / "P1");
  auto saved = store.save(catalog);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error().field, (store.directory() / "procdef" / "P1").string());
}

TEST_F(store_test, ObjectFileNamesUnderFat83SurviveAReopen) {
  const std::vector<std::string> queues = {"APP.ORDERS.0001", "APP.ORDERS.0002", "Q1", "q1"};
  auto catalog = make_catalog("QM1", fs_profile::fat83, {queues});
  auto store = create(catalog);
  auto loaded = queue_manager_store::open(prefix_, "QM1")->load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  std::vector<std::string> files;
  for (const auto& q : queues) {
    auto path = store.object_path(*loaded, object_family::queue, q);
    ASSERT_TRUE(path.has_value()) << q;
    EXPECT_EQ(path, store.object_path(catalog, object_family::queue, q));
    EXPECT_TRUE(fs::is_regular_file(*path / "q")) << *path;
    const std::string file = path->filename().string();
    EXPECT_TRUE(names::is_valid_file_name(file, fs_profile::fat83)) << file;
    EXPECT_EQ(loaded->real_name_of(object_family::queue, file), q);
    for (const auto& other : files) EXPECT_FALSE(names::same_file(file, other, fs_profile::fat83));
    files.push_back(file);
  }
  // Saving the reloaded catalog keeps every file.
  ASSERT_TRUE(store.save(*loaded).ok());
  EXPECT_EQ(entries_of(store.directory() / "queues").size(), queues.size());
}

// --- remove ---------------------------------------------------------------------------------------------

TEST_F(store_test, RemoveTakesOnlyItsOwnFolderAndStanza) {
  create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  auto qm2 = create(make_catalog("QM2", fs_profile::posix, {{"Q2"}}));
  create(make_catalog("QM3", fs_profile::posix));
  ASSERT_TRUE(queue_manager_store::remove(prefix_, "QM2").ok());
  EXPECT_FALSE(fs::exists(qm2.directory()));
  EXPECT_EQ(entries_of(prefix_ / "qmgrs"), (std::vector<std::string>{"QM1", "QM3"}));
  auto list = list_queue_managers(prefix_);
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "QM1");
  EXPECT_EQ((*list)[1].name, "QM3");
  EXPECT_TRUE(queue_manager_store::open(prefix_, "QM1")->load().ok());
  EXPECT_EQ(queue_manager_store::open(prefix_, "QM2").error().code, std::errc::no_such_file_or_directory);
  auto again = queue_manager_store::remove(prefix_, "QM2");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, std::errc::no_such_file_or_directory);
  // The name is free again.
  EXPECT_EQ(create(make_catalog("QM2", fs_profile::posix)).directory().filename(), "QM2");
}

TEST_F(store_test, RemoveOfAStanzaWhoseFolderIsGoneSucceeds) {
  auto qm1 = create(make_catalog("QM1", fs_profile::posix));
  fs::remove_all(qm1.directory());
  ASSERT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
  EXPECT_TRUE(list_queue_managers(prefix_)->empty());
  EXPECT_EQ(queue_manager_store::remove(prefix_ / "nowhere", "QM1").error().code,
            std::errc::no_such_file_or_directory);
}

// --- rollback ---------------------------------------------------------------------------------------------

TEST_F(store_test, CreateRollsBackWhenQmgrsIsAFile) {
  spit(prefix_ / "qmgrs", "not a folder");
  auto store = queue_manager_store::create(prefix_, make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().field.find("qmgrs"), std::string::npos) << store.error().to_string();
  EXPECT_FALSE(store.error().detail.empty());
  EXPECT_EQ(entries_of(prefix_), std::vector<std::string>{"qmgrs"});
  EXPECT_EQ(slurp(prefix_ / "qmgrs"), "not a folder");
}

TEST_F(store_test, CreateRollsBackWhenMqsIniCannotBeWritten) {
  create(make_catalog("QM1", fs_profile::posix));
  const std::string ini = slurp(prefix_ / "mqs.ini");
  // The atomic write's temporary name is taken by a folder: the last step of create() fails.
  fs::create_directory(prefix_ / "mqs.ini.tmp");
  auto store =
      queue_manager_store::create(prefix_, make_catalog("QM2", fs_profile::posix, {{"Q1"}, {"N"}, {"P"}}));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, std::errc::is_a_directory) << store.error().to_string();
  EXPECT_EQ(entries_of(prefix_ / "qmgrs"), std::vector<std::string>{"QM1"});
  EXPECT_EQ(slurp(prefix_ / "mqs.ini"), ini);
  EXPECT_TRUE(fs::is_directory(prefix_ / "mqs.ini.tmp"));  // not ours to remove
  // On a fresh prefix the qmgrs folder it made goes too.
  const fs::path fresh = prefix_ / "fresh";
  fs::create_directories(fresh / "mqs.ini.tmp");
  ASSERT_FALSE(queue_manager_store::create(fresh, make_catalog("QM3", fs_profile::posix)).ok());
  EXPECT_EQ(entries_of(fresh), std::vector<std::string>{"mqs.ini.tmp"});
}

// --- prefix, profile ---------------------------------------------------------------------------------

TEST(store_profile, DetectProfileSaysPosixHereAndLeavesNothing) {
  imsb::test::temp_dir tmp;
  auto profile = detect_profile(tmp.path());
  ASSERT_TRUE(profile.ok()) << profile.error().to_string();
  EXPECT_EQ(*profile, fs_profile::posix);
  EXPECT_TRUE(entries_of(tmp.path()).empty());
  auto missing = detect_profile(fs::path(tmp.path()) / "missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, std::errc::no_such_file_or_directory);
}

TEST(store_profile, DecideProfileFromTheProbes) {
  EXPECT_EQ(detail::decide_profile(false, true), fs_profile::posix);
  EXPECT_EQ(detail::decide_profile(true, true), fs_profile::case_insensitive);
  EXPECT_EQ(detail::decide_profile(true, false), fs_profile::fat83);
  EXPECT_EQ(detail::decide_profile(false, false), fs_profile::fat83);
}

TEST(store_profile, ProfileWordsRoundTrip) {
  for (const auto p : {fs_profile::posix, fs_profile::case_insensitive, fs_profile::fat83})
    EXPECT_EQ(fs_profile_from_string(names::to_string(p)), p);
  EXPECT_EQ(fs_profile_from_string("POSIX"), std::nullopt);
  EXPECT_EQ(fs_profile_from_string("ntfs"), std::nullopt);
  EXPECT_EQ(fs_profile_from_string(""), std::nullopt);
}

}  // namespace
}  // namespace imsb::qmgr::test
