// object_catalog: name spaces per family, file names of the file families, the snapshot resolution reads.
#include "imsb/objects/object.hpp"

#include <gtest/gtest.h>

#include "imsb/objects/resolution.hpp"

namespace imsb::objects {
namespace {

object_record make(object_type type, std::string name,
                   std::map<std::string, std::string, std::less<>> attrs = {}) {
  object_record r;
  r.type = type;
  r.name = std::move(name);
  r.attrs = std::move(attrs);
  return r;
}

TEST(ObjectTypes, MqscWordsRoundTrip) {
  for (auto t : {object_type::qlocal, object_type::qalias, object_type::qremote, object_type::qmodel,
                 object_type::stgclass, object_type::namelist, object_type::process, object_type::channel,
                 object_type::listener, object_type::qmgr}) {
    auto back = object_type_from_mqsc(to_mqsc_word(t));
    ASSERT_TRUE(back.has_value()) << to_mqsc_word(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_FALSE(object_type_from_mqsc("QUEUE").has_value());
  EXPECT_FALSE(object_type_from_mqsc("qlocal").has_value());
}

TEST(ObjectTypes, FourQueueTypesShareOneFamily) {
  // [C: NAMING-V6]: a local queue and a model queue may not share a name.
  for (auto t : {object_type::qlocal, object_type::qalias, object_type::qremote, object_type::qmodel})
    EXPECT_EQ(family_of(t), object_family::queue);
  EXPECT_EQ(family_of(object_type::channel), object_family::channel);
}

TEST(ObjectTypes, OnlyQueuesNamelistsAndProcessesAreFiles) {
  // IBM [C: FILENAMES-V6]: "Process definitions, queues, and namelists are represented in the file system;
  // channels are not".
  EXPECT_EQ(files_folder(object_family::queue), "queues");
  EXPECT_EQ(files_folder(object_family::namelist), "namelist");
  EXPECT_EQ(files_folder(object_family::process), "procdef");
  EXPECT_TRUE(files_folder(object_family::channel).empty());
  EXPECT_TRUE(files_folder(object_family::stgclass).empty());
  EXPECT_TRUE(files_folder(object_family::listener).empty());
}

TEST(ObjectRecord, TextAndInteger) {
  auto r =
      make(object_type::qlocal, "A", {{"MAXDEPTH", "5000"}, {"DESCR", "x y"}, {"BAD", "12a"}, {"NEG", "-3"}});
  EXPECT_EQ(r.text("DESCR"), "x y");
  EXPECT_EQ(r.text("NONE"), "");
  EXPECT_EQ(r.integer("MAXDEPTH"), 5000);
  EXPECT_EQ(r.integer("NEG"), -3);
  EXPECT_FALSE(r.integer("BAD").has_value());
  EXPECT_FALSE(r.integer("DESCR").has_value());
  EXPECT_FALSE(r.integer("NONE").has_value());
}

TEST(ObjectCatalog, QueueManagerRecordFromTheStart) {
  object_catalog c("QM1", names::fs_profile::posix);
  EXPECT_EQ(c.qmgr_name(), "QM1");
  EXPECT_EQ(c.qmgr().type, object_type::qmgr);
  EXPECT_NE(c.find(object_family::qmgr, "QM1"), nullptr);
  EXPECT_EQ(c.find(object_family::qmgr, "QM2"), nullptr);
  EXPECT_EQ(c.list(object_family::qmgr).size(), 1u);
}

TEST(ObjectCatalog, PutGivesQueuesTheirFileNames) {
  object_catalog c("QM1", names::fs_profile::posix);
  auto f = c.put(make(object_type::qlocal, "QL.A"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value(), "QL!A");  // [C: QIITA-DSPMQFLS]
  EXPECT_EQ(c.file_name_of(object_family::queue, "QL.A"), "QL!A");
  EXPECT_EQ(c.real_name_of(object_family::queue, "QL!A"), "QL.A");
  auto ch = c.put(make(object_type::channel, "TO.QM2"));
  ASSERT_TRUE(ch.ok());
  EXPECT_EQ(ch.value(), "");
  EXPECT_FALSE(c.file_name_of(object_family::channel, "TO.QM2").has_value());
}

TEST(ObjectCatalog, FamiliesAreSeparateNameSpaces) {
  object_catalog c("QM1", names::fs_profile::posix);
  ASSERT_TRUE(c.put(make(object_type::qlocal, "SAME")).ok());
  ASSERT_TRUE(c.put(make(object_type::process, "SAME")).ok());
  ASSERT_TRUE(c.put(make(object_type::namelist, "SAME")).ok());
  ASSERT_TRUE(c.put(make(object_type::channel, "SAME")).ok());
  EXPECT_EQ(c.find(object_family::queue, "SAME")->type, object_type::qlocal);
  EXPECT_EQ(c.find(object_family::process, "SAME")->type, object_type::process);
  EXPECT_EQ(c.file_name_of(object_family::process, "SAME"), "SAME");
  EXPECT_TRUE(c.erase(object_family::process, "SAME"));
  EXPECT_EQ(c.find(object_family::process, "SAME"), nullptr);
  EXPECT_NE(c.find(object_family::queue, "SAME"), nullptr);
  EXPECT_FALSE(c.erase(object_family::process, "SAME"));
}

TEST(ObjectCatalog, ReplaceKeepsTheFileName) {
  object_catalog c("QM1", names::fs_profile::fat83);
  auto first = c.put(make(object_type::qlocal, "APP.ORDERS.INPUT"));
  ASSERT_TRUE(first.ok());
  auto again = c.put(make(object_type::qlocal, "APP.ORDERS.INPUT", {{"MAXDEPTH", "1"}}));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first.value(), again.value());
  EXPECT_EQ(c.find(object_family::queue, "APP.ORDERS.INPUT")->text("MAXDEPTH"), "1");
  EXPECT_EQ(c.file_names(object_family::queue).size(), 1u);
}

TEST(ObjectCatalog, CaseCollisionsGetDistinctFilesOnCaseInsensitiveProfiles) {
  object_catalog c("QM1", names::fs_profile::case_insensitive);
  auto a = c.put(make(object_type::qlocal, "abc"));
  auto b = c.put(make(object_type::qlocal, "ABC"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(names::same_file(a.value(), b.value(), names::fs_profile::case_insensitive));
  EXPECT_EQ(c.real_name_of(object_family::queue, b.value()), "ABC");
  EXPECT_EQ(c.real_name_of(object_family::queue, a.value()), "abc");
}

TEST(ObjectCatalog, ErasingFreesTheFileName) {
  object_catalog c("QM1", names::fs_profile::posix);
  ASSERT_TRUE(c.put(make(object_type::qlocal, "Q.1")).ok());
  ASSERT_TRUE(c.erase(object_family::queue, "Q.1"));
  EXPECT_FALSE(c.file_name_of(object_family::queue, "Q.1").has_value());
  EXPECT_FALSE(c.real_name_of(object_family::queue, "Q!1").has_value());
  EXPECT_EQ(c.file_names(object_family::queue).size(), 0u);
}

TEST(ObjectCatalog, ErasedRemembersDeletedFileObjectsUntilCleared) {
  object_catalog c("QM1", names::fs_profile::posix);
  ASSERT_TRUE(c.put(make(object_type::qlocal, "Q")).ok());
  ASSERT_TRUE(c.put(make(object_type::channel, "CH")).ok());
  EXPECT_TRUE(c.erased().empty());
  ASSERT_TRUE(c.put(make(object_type::qlocal, "Q", {{"MAXDEPTH", "1"}})).ok());  // REPLACE: not erased
  EXPECT_TRUE(c.erased().empty());
  ASSERT_TRUE(c.erase(object_family::queue, "Q"));
  ASSERT_TRUE(c.erase(object_family::channel, "CH"));  // not a file: nothing to remember
  ASSERT_TRUE(c.put(make(object_type::qlocal, "Q")).ok());
  EXPECT_EQ(c.erased().size(), 1u);
  EXPECT_EQ(c.erased().count({object_family::queue, "Q"}), 1u);
  c.clear_erased();
  EXPECT_TRUE(c.erased().empty());
}

TEST(ObjectCatalog, InvalidNameIsRefusedAndNothingChanges) {
  object_catalog c("QM1", names::fs_profile::posix);
  auto r = c.put(make(object_type::qlocal, "BAD NAME"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_EQ(c.find(object_family::queue, "BAD NAME"), nullptr);
  EXPECT_TRUE(c.list(object_family::queue).empty());
}

TEST(ObjectCatalog, ListIsInNameOrder) {
  object_catalog c("QM1", names::fs_profile::posix);
  for (const char* n : {"B", "A", "C.1", "a"}) ASSERT_TRUE(c.put(make(object_type::qlocal, n)).ok());
  std::vector<std::string> got;
  for (const auto* r : c.list(object_family::queue)) got.push_back(r->name);
  EXPECT_EQ(got, (std::vector<std::string>{"A", "B", "C.1", "a"}));
}

TEST(ObjectCatalog, SnapshotFeedsResolution) {
  // [C: QMALIAS]: on QM1, QREMOTE(QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2) sends Q@QM3 to xmitq QM2.
  object_catalog c("QM1", names::fs_profile::posix);
  c.qmgr().attrs["DEADQ"] = "DLQ";
  c.qmgr().attrs["DEFXMITQ"] = "";
  ASSERT_TRUE(c.put(make(object_type::qlocal, "QM2", {{"USAGE", "XMITQ"}})).ok());
  ASSERT_TRUE(
      c.put(make(object_type::qremote, "QM3", {{"RNAME", ""}, {"RQMNAME", "QM3"}, {"XMITQ", "QM2"}})).ok());
  ASSERT_TRUE(c.put(make(object_type::qalias, "AL", {{"TARGET", "QM2"}})).ok());
  ASSERT_TRUE(c.put(make(object_type::qmodel, "MODEL")).ok());
  auto snap = c.snapshot();
  EXPECT_EQ(snap.qmgr.name, "QM1");
  EXPECT_EQ(snap.qmgr.deadq, "DLQ");
  ASSERT_NE(snap.find("QM2"), nullptr);
  EXPECT_EQ(snap.find("QM2")->usage, queue_usage::xmitq);
  EXPECT_EQ(snap.find("AL")->type, queue_type::alias);
  EXPECT_EQ(snap.find("AL")->target, "QM2");
  EXPECT_EQ(snap.find("MODEL")->type, queue_type::model);
  auto r = resolve_for_output(snap, "Q", "QM3");
  EXPECT_EQ(r.mqrc, 0);
  EXPECT_EQ(r.local_queue, "QM2");
  EXPECT_EQ(r.resolved_qmgr, "QM3");
  EXPECT_TRUE(r.needs_xmit_header);
}

TEST(MatchesGeneric, StarAndPrefix) {
  EXPECT_TRUE(matches_generic("*", "ANYTHING"));
  EXPECT_TRUE(matches_generic("*", ""));
  EXPECT_TRUE(matches_generic("SYSTEM.*", "SYSTEM.DEFAULT.LOCAL.QUEUE"));
  EXPECT_TRUE(matches_generic("SYSTEM.*", "SYSTEM."));
  EXPECT_FALSE(matches_generic("SYSTEM.*", "SYSTEM"));
  EXPECT_FALSE(matches_generic("system.*", "SYSTEM.X"));  // names are case sensitive
  EXPECT_TRUE(matches_generic("A", "A"));
  EXPECT_FALSE(matches_generic("A", "AB"));
}

}  // namespace
}  // namespace imsb::objects
