// authorized() and profile_matches(): SET AUTHREC records for users and groups, generic profiles,
// ALL/ALLMQI/ALLADM, and no record meaning no authority.

#include <gtest/gtest.h>

#include "imsb/objects/object.hpp"
#include "rules_fixture.hpp"

namespace imsb::qmgr::rules::test {
namespace {

using objects::authority_record;

authority_record user_rec(std::string profile, std::string objtype, std::string user,
                          std::vector<std::string> a) {
  return authority_record{std::move(profile), std::move(objtype), std::move(user), "", std::move(a)};
}
authority_record group_rec(std::string profile, std::string objtype, std::string group,
                           std::vector<std::string> a) {
  return authority_record{std::move(profile), std::move(objtype), "", std::move(group), std::move(a)};
}

const std::vector<std::string> no_groups;

TEST(ProfileMatches, ExactAndGeneric) {
  EXPECT_TRUE(profile_matches("APP.IN", "APP.IN"));
  EXPECT_FALSE(profile_matches("APP.IN", "APP.INX"));
  EXPECT_FALSE(profile_matches("APP.IN", "app.in"));  // names are case sensitive
  // '?': exactly one character.
  EXPECT_TRUE(profile_matches("APP.I?", "APP.IN"));
  EXPECT_FALSE(profile_matches("APP.I?", "APP.I"));
  EXPECT_FALSE(profile_matches("APP.I?", "APP.INN"));
  // '*': any characters within one qualifier.
  EXPECT_TRUE(profile_matches("APP.*", "APP.IN"));
  EXPECT_TRUE(profile_matches("APP.*", "APP."));
  EXPECT_FALSE(profile_matches("APP.*", "APP.IN.X"));
  EXPECT_TRUE(profile_matches("A*P.IN", "APP.IN"));
  EXPECT_TRUE(profile_matches("*", "ANYTHING"));
  EXPECT_FALSE(profile_matches("*", "A.B"));
  // '**': any number of qualifiers, none included.
  EXPECT_TRUE(profile_matches("APP.**", "APP.IN"));
  EXPECT_TRUE(profile_matches("APP.**", "APP.IN.X.Y"));
  EXPECT_TRUE(profile_matches("APP.**", "APP"));
  EXPECT_FALSE(profile_matches("APP.**", "APPX.IN"));
  EXPECT_TRUE(profile_matches("**", "A.B.C"));
  EXPECT_TRUE(profile_matches("**.OUT", "A.B.OUT"));
  EXPECT_TRUE(profile_matches("A.**.Z", "A.Z"));
  EXPECT_TRUE(profile_matches("A.**.Z", "A.B.C.Z"));
  EXPECT_FALSE(profile_matches("A.**.Z", "A.B.C"));
}

TEST(Authorized, NoRecordIsFalse) {
  EXPECT_FALSE(authorized({}, "alice", no_groups, "QUEUE", "APP.IN", "PUT"));
  const std::vector<authority_record> recs{user_rec("APP.IN", "QUEUE", "bob", {"PUT"})};
  EXPECT_FALSE(authorized(recs, "alice", no_groups, "QUEUE", "APP.IN", "PUT"));
  EXPECT_FALSE(authorized(recs, "bob", no_groups, "QUEUE", "OTHER", "PUT"));
  EXPECT_FALSE(authorized(recs, "bob", no_groups, "QUEUE", "APP.IN", "GET"));
  EXPECT_FALSE(authorized(recs, "bob", no_groups, "QMGR", "APP.IN", "PUT"));
  EXPECT_FALSE(authorized(recs, "", {""}, "QUEUE", "APP.IN", "PUT"));
}

TEST(Authorized, UserRecord) {
  const std::vector<authority_record> recs{user_rec("APP.IN", "QUEUE", "alice", {"PUT", "INQ"})};
  EXPECT_TRUE(authorized(recs, "alice", no_groups, "QUEUE", "APP.IN", "PUT"));
  EXPECT_TRUE(authorized(recs, "alice", no_groups, "QUEUE", "APP.IN", "inq"));
  EXPECT_FALSE(authorized(recs, "alice", no_groups, "QUEUE", "APP.IN", "GET"));
}

TEST(Authorized, GroupRecord) {
  const std::vector<authority_record> recs{group_rec("APP.IN", "QUEUE", "mqapps", {"GET"})};
  EXPECT_TRUE(authorized(recs, "alice", {"staff", "mqapps"}, "QUEUE", "APP.IN", "GET"));
  EXPECT_FALSE(authorized(recs, "alice", {"staff"}, "QUEUE", "APP.IN", "GET"));
  EXPECT_FALSE(authorized(recs, "mqapps", no_groups, "QUEUE", "APP.IN", "GET"));  // a group is not a user
}

TEST(Authorized, UserAndGroupsAddUp) {
  const std::vector<authority_record> recs{user_rec("APP.IN", "QUEUE", "alice", {"PUT"}),
                                           group_rec("APP.**", "QUEUE", "mqapps", {"GET"})};
  EXPECT_TRUE(authorized(recs, "alice", {"mqapps"}, "QUEUE", "APP.IN", "PUT"));
  EXPECT_TRUE(authorized(recs, "alice", {"mqapps"}, "QUEUE", "APP.IN", "GET"));
  EXPECT_FALSE(authorized(recs, "alice", no_groups, "QUEUE", "APP.IN", "GET"));
}

TEST(Authorized, GenericProfiles) {
  const std::vector<authority_record> recs{
      user_rec("APP.*", "QUEUE", "u1", {"PUT"}), user_rec("APP.**", "QUEUE", "u2", {"PUT"}),
      user_rec("APP.I?", "QUEUE", "u3", {"PUT"}), user_rec("**", "QUEUE", "u4", {"PUT"})};
  EXPECT_TRUE(authorized(recs, "u1", no_groups, "QUEUE", "APP.IN", "PUT"));
  EXPECT_FALSE(authorized(recs, "u1", no_groups, "QUEUE", "APP.IN.X", "PUT"));
  EXPECT_TRUE(authorized(recs, "u2", no_groups, "QUEUE", "APP.IN.X", "PUT"));
  EXPECT_TRUE(authorized(recs, "u3", no_groups, "QUEUE", "APP.IN", "PUT"));
  EXPECT_FALSE(authorized(recs, "u3", no_groups, "QUEUE", "APP.INN", "PUT"));
  EXPECT_TRUE(authorized(recs, "u4", no_groups, "QUEUE", "SYSTEM.X", "PUT"));
}

TEST(Authorized, MostSpecificProfileOfAnEntityWins) {
  // IBM's OAM: the object's own profile beats a generic one for the same entity [I].
  const std::vector<authority_record> recs{user_rec("APP.**", "QUEUE", "alice", {"PUT", "GET"}),
                                           user_rec("APP.SECRET", "QUEUE", "alice", {"INQ"}),
                                           user_rec("APP.S*", "QUEUE", "alice", {"BROWSE"})};
  EXPECT_FALSE(authorized(recs, "alice", no_groups, "QUEUE", "APP.SECRET", "PUT"));
  EXPECT_TRUE(authorized(recs, "alice", no_groups, "QUEUE", "APP.SECRET", "INQ"));
  EXPECT_TRUE(authorized(recs, "alice", no_groups, "QUEUE", "APP.SOMETHING", "BROWSE"));
  EXPECT_FALSE(authorized(recs, "alice", no_groups, "QUEUE", "APP.SOMETHING", "PUT"));
  EXPECT_TRUE(authorized(recs, "alice", no_groups, "QUEUE", "APP.OTHER", "PUT"));
}

TEST(Authorized, AllAllmqiAlladmExpand) {
  const std::vector<authority_record> recs{
      user_rec("Q.ALL", "QUEUE", "u", {"ALL"}), user_rec("Q.MQI", "QUEUE", "u", {"ALLMQI"}),
      user_rec("Q.ADM", "QUEUE", "u", {"ALLADM"}), user_rec("QM1", "QMGR", "u", {"ALLMQI"})};
  for (const char* a : {"PUT", "GET", "BROWSE", "INQ", "SET", "SETALL", "SETID", "PASSID", "PASSALL"}) {
    EXPECT_TRUE(authorized(recs, "u", no_groups, "QUEUE", "Q.ALL", a)) << a;
    EXPECT_TRUE(authorized(recs, "u", no_groups, "QUEUE", "Q.MQI", a)) << a;
    EXPECT_FALSE(authorized(recs, "u", no_groups, "QUEUE", "Q.ADM", a)) << a;
  }
  for (const char* a : {"CHG", "CLR", "DLT", "DSP"}) {
    EXPECT_TRUE(authorized(recs, "u", no_groups, "QUEUE", "Q.ALL", a)) << a;
    EXPECT_FALSE(authorized(recs, "u", no_groups, "QUEUE", "Q.MQI", a)) << a;
    EXPECT_TRUE(authorized(recs, "u", no_groups, "QUEUE", "Q.ADM", a)) << a;
  }
  EXPECT_TRUE(authorized(recs, "u", no_groups, "QMGR", "QM1", "CONNECT"));
  EXPECT_TRUE(authorized(recs, "u", no_groups, "QMGR", "QM1", "ALTUSR"));
  EXPECT_FALSE(authorized(recs, "u", no_groups, "QMGR", "QM1", "DLT"));
}

TEST(Authorized, AnyQueueTypeMatchesQueueRecords) {
  const std::vector<authority_record> recs{user_rec("APP.*", "QUEUE", "u", {"PUT"})};
  for (const char* t : {"QUEUE", "QLOCAL", "QALIAS", "QREMOTE", "QMODEL", "queue"})
    EXPECT_TRUE(authorized(recs, "u", no_groups, t, "APP.IN", "PUT")) << t;
  EXPECT_FALSE(authorized(recs, "u", no_groups, "PROCESS", "APP.IN", "PUT"));
}

}  // namespace
}  // namespace imsb::qmgr::rules::test
