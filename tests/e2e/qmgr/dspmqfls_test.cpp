// dspmqfls and the MQ file names [C: FILENAMES-V6, DSPMQFLS]: transformed names for '.', '/', mixed case
// and 48 characters; under the FAT and case-insensitive profiles, generated names for names that are not
// valid file names or that collide by case; real ↔ transformed both ways after a restart.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/names/file_name.hpp"
#include "qmgr_e2e.hpp"

namespace imsb::test {
namespace {

namespace fs = std::filesystem;

struct shown {
  std::string type;
  std::string name;
  std::string path;
};

// dspmqfls's output: the banner, then pairs of lines "<TYPE padded to 10><name>" and path, with no blank
// line between [C: DSPMQFLS, QIITA-DSPMQFLS].
std::vector<shown> entries_of(const std::string& out) {
  auto lines = lines_of(out);
  std::vector<shown> result;
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return result;
  EXPECT_EQ(lines[0], std::string(imsb::msg::IMB1164I) + ": imsbridge Display MQ Files");
  std::size_t i = 1;
  for (; i + 1 < lines.size(); i += 2) {
    const std::string& head = lines[i];
    EXPECT_GE(head.size(), 11u) << head;
    if (head.size() < 11) break;
    std::string type = head.substr(0, 10);
    type.erase(type.find_last_not_of(' ') + 1);
    result.push_back({type, head.substr(10), lines[i + 1]});
  }
  EXPECT_EQ(i, lines.size()) << "odd line count:\n" << out;
  return result;
}

std::string leaf(const std::string& path) { return fs::path(path).filename().string(); }

class FileNamesE2e : public qmgr_e2e {
 protected:
  // The single entry dspmqfls shows for an exact name (fails the test otherwise).
  shown one(const std::string& qm, const std::string& type, const std::string& name) {
    const ran r = dspmqfls({"-m", qm, "-t", type, name});
    EXPECT_EQ(r.code, 0) << r.both();
    const auto e = entries_of(r.out);
    EXPECT_EQ(e.size(), 1u) << r.out;
    return e.empty() ? shown{} : e.front();
  }
  // The entries dspmqfls shows for a file name (--file, the reverse direction).
  std::vector<shown> by_file(const std::string& qm, const std::string& file_name) {
    const ran r = dspmqfls({"-m", qm, "--file", file_name});
    EXPECT_EQ(r.code, 0) << r.both();
    return entries_of(r.out);
  }
};

TEST_F(FileNamesE2e, PosixNamesWithDotsSlashesMixedCaseAnd48Characters) {
  create("QMLL", {"--fs", "posix"});
  const std::string n48 = "A2345678.B2345678.C2345678.D2345678.E2345678.F23";
  ASSERT_EQ(n48.size(), 48u);
  mqsc("QMLL",
       "DEFINE QLOCAL(QL.A)\n"
       "DEFINE QLOCAL('app/orders.in')\n"
       "DEFINE QLOCAL('Mixed.Case')\n"
       "DEFINE QLOCAL(MIXED.CASE)\n"
       "DEFINE QALIAS(" +
           n48 +
           ") TARGET(QL.A)\n"
           "DEFINE NAMELIST('names/all.v1') NAMES(QL.A)\n"
           "DEFINE PROCESS(PROC.ONE) APPLICID('/bin/true')\n"
           "DEFINE CHANNEL(QMLL.TO.QMB) CHLTYPE(SDR) CONNAME('qmb(1414)') XMITQ(QL.A)\n");
  const std::string dir = prefix() + "/qmgrs/QMLL";
  // IBM's own example [C: QIITA-DSPMQFLS]: QLOCAL QL.A in folder queues/QL!A.
  const ran r = dspmqfls({"-m", "QMLL", "-t", "queue", "QL.A"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(r.out, std::string(imsb::msg::IMB1164I) + ": imsbridge Display MQ Files\nQLOCAL    QL.A\n" + dir +
                       "/queues/QL!A\n");
  EXPECT_TRUE(fs::is_regular_file(dir + "/queues/QL!A/q"));

  const struct {
    const char* type;
    std::string name;
    std::string shown_type;
    std::string path;
  } expected[] = {
      {"ql", "app/orders.in", "QLOCAL", dir + "/queues/app&orders!in"},
      {"qlocal", "Mixed.Case", "QLOCAL", dir + "/queues/Mixed!Case"},
      {"q", "MIXED.CASE", "QLOCAL", dir + "/queues/MIXED!CASE"},
      {"qa", n48, "QALIAS", dir + "/queues/A2345678!B2345678!C2345678!D2345678!E2345678!F23"},
      {"nl", "names/all.v1", "NAMELIST", dir + "/namelist/names&all!v1"},
      {"prcs", "PROC.ONE", "PROCESS", dir + "/procdef/PROC!ONE"},
      // Channels are not files [C: FILENAMES-V6]: their path is the catalog's.
      {"chl", "QMLL.TO.QMB", "CHANNEL", dir + "/qmanager/QMQMOBJCAT"},
  };
  for (const auto& e : expected) {
    const shown s = one("QMLL", e.type, e.name);
    EXPECT_EQ(s.type, e.shown_type) << e.name;
    EXPECT_EQ(s.name, e.name);
    EXPECT_EQ(s.path, e.path);
    EXPECT_TRUE(fs::exists(s.path)) << s.path;
    // And back: the file name gives the real name.
    if (e.shown_type != "CHANNEL") {
      const auto back = by_file("QMLL", leaf(s.path));
      ASSERT_EQ(back.size(), 1u) << e.name;
      EXPECT_EQ(back[0].name, e.name);
    }
  }
  // Mixed case is exact: 'mixed.case' names nothing.
  const ran none = dspmqfls({"-m", "QMLL", "mixed.case"});
  EXPECT_EQ(none.code, 10) << none.both();
  EXPECT_TRUE(contains(none.err, imsb::msg::IMB1165W)) << none.err;
  // Generic names, the catalog and the queue manager itself.
  const ran generic = dspmqfls({"-m", "QMLL", "-t", "q", "MIXED*"});
  ASSERT_EQ(generic.code, 0);
  const auto g = entries_of(generic.out);
  ASSERT_EQ(g.size(), 1u) << generic.out;
  const auto ctlg = entries_of(dspmqfls({"-m", "QMLL", "-t", "ctlg", "*"}).out);
  ASSERT_EQ(ctlg.size(), 1u);
  EXPECT_EQ(ctlg[0].type, "CATALOG");
  EXPECT_EQ(ctlg[0].path, dir + "/qmanager/QMQMOBJCAT");
  const auto all = entries_of(dspmqfls({"-m", "QMLL", "*"}).out);
  std::set<std::string> names;
  for (const auto& e : all) names.insert(e.name);
  for (const char* n :
       {"QMLL", "QL.A", "Mixed.Case", "PROC.ONE", "QMLL.TO.QMB", "SYSTEM.DEFAULT.LOCAL.QUEUE"})
    EXPECT_EQ(names.count(n), 1u) << n;
  // -m may be left out: the prefix has one queue manager.
  EXPECT_EQ(dspmqfls({"QL.A"}).code, 0);
  // IBM's types for objects imsbridge does not have match nothing.
  EXPECT_EQ(dspmqfls({"-m", "QMLL", "-t", "topic", "*"}).code, 10);
  EXPECT_EQ(dspmqfls({"-m", "QMLL", "-t", "bogus", "*"}).code, 20);
}

// Is `name` a generated name ([D], docs/design/queue-manager.md): not rule 1's result, valid on the profile.
void expect_generated(const std::string& file_name, const std::string& real, names::fs_profile profile) {
  EXPECT_NE(file_name, names::transform_chars(real)) << real;
  EXPECT_TRUE(names::is_valid_file_name(file_name, profile)) << file_name;
}

TEST_F(FileNamesE2e, FatProfileTruncatesAndSurvivesRestart) {
  create("QMFAT", {"--fs", "fat"});
  EXPECT_EQ(load("QMFAT").profile(), names::fs_profile::fat83);
  mqsc("QMFAT",
       "DEFINE QLOCAL(SHORT)\n"
       "DEFINE QLOCAL(LONG.QUEUE.NAME.ONE)\n"
       "DEFINE QLOCAL(LONG.QUEUE.NAME.TWO)\n"
       "DEFINE QLOCAL('short')\n"
       "DEFINE PROCESS(A.VERY.LONG.PROCESS.NAME)\n");
  const std::string dir = prefix() + "/qmgrs/QMFAT";
  // A valid 8.3 name stays as rule 1 makes it.
  EXPECT_EQ(one("QMFAT", "q", "SHORT").path, dir + "/queues/SHORT");
  std::vector<std::pair<std::string, std::string>> generated;  // real, file
  for (const char* real : {"LONG.QUEUE.NAME.ONE", "LONG.QUEUE.NAME.TWO", "short"}) {
    const shown s = one("QMFAT", "q", real);
    EXPECT_TRUE(fs::is_regular_file(s.path + "/q")) << s.path;
    expect_generated(leaf(s.path), real, names::fs_profile::fat83);
    generated.emplace_back(real, leaf(s.path));
  }
  const shown p = one("QMFAT", "prcs", "A.VERY.LONG.PROCESS.NAME");
  expect_generated(leaf(p.path), p.name, names::fs_profile::fat83);
  generated.emplace_back(p.name, leaf(p.path));
  // No two files the same on FAT (case-insensitive).
  std::set<std::string> keys;
  for (const auto& g : generated) keys.insert(names::file_name_key(g.second, names::fs_profile::fat83));
  keys.insert("SHORT");
  ASSERT_EQ(generated.size(), 4u);
  EXPECT_EQ(keys.size(), generated.size() + 1);

  // "Restart": new objects in a new runmqsc, then new dspmqfls processes: old names keep their files,
  // and every file name maps back to its real name (also through the store, as a queue manager reads it).
  mqsc("QMFAT", "DEFINE QLOCAL(LONG.QUEUE.NAME.THREE)\n");
  // DELETE QLOCAL needs the queue manager running (IMB1049E on a stopped one: only a running one knows
  // whether the queue holds messages): started for it, then ended again.
  EXPECT_TRUE(contains(mqsc("QMFAT", "DELETE QLOCAL(LONG.QUEUE.NAME.ONE)\n", 10).out, imsb::msg::IMB1049E));
  ASSERT_EQ(::mkdir(file("run").c_str(), 0700), 0);
  const std::string env = "IMSBRIDGE_RUNTIME_DIR=" + sh_quote(file("run"));
  ran r = run(IMSB_STRMQM, with_prefix({"QMFAT"}), {}, env);
  ASSERT_EQ(r.code, 0) << r.both();
  r = run(IMSB_RUNMQSC, with_prefix({"QMFAT"}), "DELETE QLOCAL(LONG.QUEUE.NAME.ONE)\n", env);
  EXPECT_EQ(r.code, 0) << r.both();
  r = run(IMSB_ENDMQM, with_prefix({"-w", "QMFAT"}), {}, env);
  ASSERT_EQ(r.code, 0) << r.both();
  const auto cat = load("QMFAT");
  for (std::size_t i = 1; i < generated.size(); ++i) {
    const auto& [real, file_name] = generated[i];
    const bool queue = real != p.name;
    EXPECT_EQ(leaf(one("QMFAT", queue ? "q" : "prcs", real).path), file_name) << real;
    const auto back = by_file("QMFAT", file_name);
    ASSERT_EQ(back.size(), 1u) << file_name;
    EXPECT_EQ(back[0].name, real);
    const auto family = queue ? objects::object_family::queue : objects::object_family::process;
    EXPECT_EQ(cat.real_name_of(family, file_name), real);
    // FAT compares without case: the upper-case spelling of the file name finds the same object.
    EXPECT_EQ(cat.real_name_of(family, names::file_name_key(file_name, names::fs_profile::fat83)), real);
  }
  EXPECT_FALSE(fs::exists(dir + "/queues/" + generated[0].second));
  EXPECT_EQ(dspmqfls({"-m", "QMFAT", "--file", generated[0].second}).code, 10);
}

TEST_F(FileNamesE2e, CaseInsensitiveProfileSeparatesNamesCollidingByCase) {
  create("QMCI", {"--fs", "case-insensitive"});
  mqsc("QMCI", "DEFINE QLOCAL('orders.in')\nDEFINE QLOCAL('Orders.In')\n");
  const std::string dir = prefix() + "/qmgrs/QMCI";
  const shown first = one("QMCI", "q", "orders.in");
  EXPECT_EQ(first.path, dir + "/queues/orders!in");  // the first keeps rule 1's name
  const shown second = one("QMCI", "q", "Orders.In");
  expect_generated(leaf(second.path), "Orders.In", names::fs_profile::case_insensitive);
  EXPECT_FALSE(names::same_file(leaf(first.path), leaf(second.path), names::fs_profile::case_insensitive));
  EXPECT_TRUE(fs::is_regular_file(second.path + "/q"));

  // A third spelling after a restart collides with both and gets its own generated name; the first
  // two keep theirs.
  mqsc("QMCI", "DEFINE QLOCAL('ORDERS.IN')\n");
  const shown third = one("QMCI", "q", "ORDERS.IN");
  expect_generated(leaf(third.path), "ORDERS.IN", names::fs_profile::case_insensitive);
  EXPECT_EQ(one("QMCI", "q", "orders.in").path, first.path);
  EXPECT_EQ(one("QMCI", "q", "Orders.In").path, second.path);
  std::set<std::string> keys;
  for (const auto* s : {&first, &second, &third})
    keys.insert(names::file_name_key(leaf(s->path), names::fs_profile::case_insensitive));
  EXPECT_EQ(keys.size(), 3u);
  for (const auto* s : {&first, &second, &third}) {
    const auto back = by_file("QMCI", leaf(s->path));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].name, s->name);
  }
  // Looked up without case, as the file system would: ORDERS!IN is the file of 'orders.in'.
  const auto upper = by_file("QMCI", "ORDERS!IN");
  ASSERT_EQ(upper.size(), 1u);
  EXPECT_EQ(upper[0].name, "orders.in");
}

TEST_F(FileNamesE2e, QueueManagerFoldersTruncatedWithSuffixAndCaseCollisions) {
  // IBM's example [C: FILENAMES-V6]: on FAT queue.manager becomes queue!ma; a second name with the same first
  // eight characters gets the three-digit suffix (rule 2).
  create("queue.manager", {"--fs", "fat"});
  create("queue.manager.two", {"--fs", "fat"});
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/queue!ma"));
  const auto second = entries_of(dspmqfls({"-m", "queue.manager.two", "-t", "qmgr", "*"}).out);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(leaf(second[0].path), "queue!ma.000");
  EXPECT_TRUE(fs::is_directory(second[0].path));
  // Case-insensitive: QMCASE after qmcase is another folder.
  create("qmcase", {"--fs", "case-insensitive"});
  create("QMCASE", {"--fs", "case-insensitive"});
  const auto lower = entries_of(dspmqfls({"-m", "qmcase", "-t", "qmgr", "*"}).out);
  const auto upper = entries_of(dspmqfls({"-m", "QMCASE", "-t", "qmgr", "*"}).out);
  ASSERT_EQ(lower.size(), 1u);
  ASSERT_EQ(upper.size(), 1u);
  EXPECT_EQ(leaf(lower[0].path), "qmcase");
  EXPECT_FALSE(
      names::same_file(leaf(lower[0].path), leaf(upper[0].path), names::fs_profile::case_insensitive));
  // Both work after the fact: each opens its own catalog.
  EXPECT_EQ(load("qmcase").qmgr_name(), "qmcase");
  EXPECT_EQ(load("QMCASE").qmgr_name(), "QMCASE");
}

}  // namespace
}  // namespace imsb::test
