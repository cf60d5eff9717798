// runmqsc as operators and scripts really drive it: answered command by command while
// its input stays open, saved when the input pauses, piped into a reader that stops early, killed with
// -9 in the middle of a long script, and its object files repaired when they no longer match the
// catalog. Also the errors an operator meets: a second runmqsc, a missing folder, a damaged catalog.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "qmgr_e2e.hpp"

namespace imsb::test {
namespace {

namespace fs = std::filesystem;
using objects::object_family;

using RunmqscLiveE2e = qmgr_e2e;

std::size_t count_of(const std::string& text, std::string_view part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::vector<std::string> defines(const std::string& stem, std::size_t from, std::size_t to) {
  std::vector<std::string> lines;
  for (std::size_t i = from; i < to; ++i)
    lines.push_back("DEFINE QLOCAL(" + stem + std::to_string(i) + ")\n");
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l;
  return s;
}

TEST_F(RunmqscLiveE2e, AnswersEachCommandAndSavesWhenTheInputPauses) {
  create("QMLIVE");
  live_runmqsc live(file("live.fifo"), file("live.err"), with_prefix({"QMLIVE"}));
  ASSERT_TRUE(live.child().wait_for_line(imsb::msg::IMB1162I, milliseconds(10000)));

  // The answer comes while standard input is still open: runmqsc does not wait for the end of input.
  live.write("DEFINE QLOCAL(LIVE.X)\n");
  ASSERT_TRUE(live.child().wait_for_line(imsb::msg::IMB1001I, milliseconds(10000)))
      << read_file(file("live.err"));
  // And it is on disk already: nothing more was waiting, so runmqsc saved before it answered.
  EXPECT_TRUE(live.child().running());
  EXPECT_TRUE(contains(catalog_bytes("QMLIVE"), "LIVE.X"));
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMLIVE/queues/LIVE!X"));

  // A continued command is answered when its last line comes.
  live.write("DEFINE QLOCAL(LIVE.Y) +\n");
  EXPECT_FALSE(live.child().wait_for_line(imsb::msg::IMB1001I, milliseconds(200)));
  live.write("  DESCR('typed in two lines')\n");
  ASSERT_TRUE(live.child().wait_for_line(imsb::msg::IMB1001I, milliseconds(10000)));
  EXPECT_TRUE(contains(catalog_bytes("QMLIVE"), "typed in two lines"));

  live.close_input();
  const std::string rest = live.child().read_all(milliseconds(10000));
  EXPECT_EQ(live.exit_code(milliseconds(10000)), 0) << rest << read_file(file("live.err"));
  EXPECT_TRUE(contains(rest, "2 MQSC commands read.")) << rest;
  EXPECT_NE(load("QMLIVE").find(object_family::queue, "LIVE.Y"), nullptr);
}

TEST_F(RunmqscLiveE2e, SecondRunmqscAndDltmqmAreToldWhatToDo) {
  create("QMBUSY");
  live_runmqsc live(file("busy.fifo"), file("busy.err"), with_prefix({"QMBUSY"}));
  ASSERT_TRUE(live.child().wait_for_line(imsb::msg::IMB1162I, milliseconds(10000)));
  live.write("DEFINE QLOCAL(FIRST.EDITOR)\n");
  ASSERT_TRUE(live.child().wait_for_line(imsb::msg::IMB1001I, milliseconds(10000)));
  const std::string before = catalog_bytes("QMBUSY");

  const ran second = runmqsc("QMBUSY", "DEFINE QLOCAL(SECOND.EDITOR)\n");
  EXPECT_EQ(second.code, 20) << second.both();
  EXPECT_TRUE(contains(second.err, imsb::msg::IMB1159E)) << second.err;
  EXPECT_TRUE(contains(second.err, "another runmqsc is editing")) << second.err;
  EXPECT_TRUE(contains(second.err, "Stop the queue manager")) << second.err;
  EXPECT_TRUE(contains(second.err, "retry")) << second.err;
  EXPECT_EQ(lines_of(second.err).size(), 1u) << second.err;

  const ran del = dltmqm("QMBUSY");
  EXPECT_EQ(del.code, 5) << del.both();
  EXPECT_TRUE(contains(del.err, imsb::msg::IMB1159E)) << del.err;
  EXPECT_TRUE(contains(del.err, "not deleted")) << del.err;
  EXPECT_TRUE(contains(del.err, "retry")) << del.err;
  EXPECT_EQ(catalog_bytes("QMBUSY"), before);

  live.write("END\n");
  EXPECT_EQ(live.exit_code(milliseconds(10000)), 0) << read_file(file("busy.err"));
  const ran again = runmqsc("QMBUSY", "DEFINE QLOCAL(SECOND.EDITOR)\n");
  EXPECT_EQ(again.code, 0) << again.both();
}

TEST_F(RunmqscLiveE2e, OutputPipeClosedEarlyStillAppliesAndSaves) {
  create("QMPIPE");
  const std::string script = file("pipe.mqsc");
  {
    std::ofstream f(script);
    f << joined(defines("PIPE.Q.", 0, 1100));  // ~66 KB of results: more than a pipe holds
  }
  // `| head -2`: head ends after two lines and the pipe closes under runmqsc.
  const std::string cmd = "{ " + sh_quote(IMSB_RUNMQSC) + " --prefix " + sh_quote(prefix()) + " QMPIPE <" +
                          sh_quote(script) + " 2>" + sh_quote(file("pipe.err")) + "; echo $? >" +
                          sh_quote(file("pipe.rc")) + "; } | head -2 >" + sh_quote(file("pipe.out"));
  ASSERT_EQ(run_program("/bin/sh", {"-c", cmd}, milliseconds(30000)), 0);
  const std::string err = read_file(file("pipe.err"));
  EXPECT_EQ(read_file(file("pipe.rc")), "0\n") << err;  // not 141 (killed by SIGPIPE)
  EXPECT_EQ(lines_of(read_file(file("pipe.out"))).size(), 2u);
  EXPECT_TRUE(contains(err, imsb::msg::IMB1170W)) << err;
  const auto cat = load("QMPIPE");
  EXPECT_NE(cat.find(object_family::queue, "PIPE.Q.0"), nullptr);
  EXPECT_NE(cat.find(object_family::queue, "PIPE.Q.1099"), nullptr);
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMPIPE/queues/PIPE!Q!1099"));
}

TEST_F(RunmqscLiveE2e, KillMinusNineMidScriptLeavesALoadableQueueManager) {
  create("QMKILL");
  live_runmqsc live(file("kill.fifo"), file("kill.err"), with_prefix({"QMKILL"}));
  ASSERT_TRUE(live.child().wait_for_line(imsb::msg::IMB1162I, milliseconds(10000)));
  // 3000 DEFINEs in blocks of 100. The first ten are each waited for, so runmqsc saves after each;
  // the next ones come with short pauses that let it save between them, and the kill falls in that
  // stretch, most often in a save (saves of a catalog this size take longer than 100 DEFINEs).
  constexpr std::size_t block = 100;
  for (std::size_t b = 0; b < 10; ++b) {
    live.write(joined(defines("KILL.Q.", b * block, (b + 1) * block)));
    // The echo of the block's last command: printed with its answer, after the save.
    const std::string last = "QLOCAL(KILL.Q." + std::to_string((b + 1) * block - 1) + ")";
    ASSERT_TRUE(live.child().wait_for_line(last, milliseconds(10000)));
  }
  for (std::size_t b = 10; b < 20; ++b) {
    live.write(joined(defines("KILL.Q.", b * block, (b + 1) * block)));
    (void)live.child().wait_for_line("never printed", milliseconds(2 + b % 4));  // drains the output
  }
  live.child().stop();  // SIGKILL
  live.close_input();

  // As the kill left it: the catalog loads and every queue in it has its folder and queue file.
  const auto raw = load("QMKILL");
  const auto st = store("QMKILL");
  std::size_t queues = 0;
  for (const auto* q : raw.list(object_family::queue)) {
    const auto path = st.object_path(raw, object_family::queue, q->name);
    ASSERT_TRUE(path.has_value()) << q->name;
    EXPECT_TRUE(fs::is_regular_file(*path / "q")) << q->name;
    ++queues;
  }
  EXPECT_GE(queues, 10 * block);  // the waited-for blocks were saved

  // The queue manager is usable: runmqsc works (and repairs any folder the kill left without an
  // object), dspmqfls gives an existing folder for every queue.
  const ran r = runmqsc("QMKILL", "DISPLAY QLOCAL(KILL.Q.0)\n");
  EXPECT_EQ(r.code, 0) << r.both();
  const ran d = dspmqfls({"-m", "QMKILL", "-t", "ql", "KILL.Q.*"});
  ASSERT_EQ(d.code, 0) << d.err;
  std::size_t shown = 0;
  for (const auto& l : lines_of(d.out)) {
    if (l.rfind(prefix(), 0) != 0) continue;
    EXPECT_TRUE(fs::is_directory(l)) << l;
    ++shown;
  }
  const auto after = load("QMKILL");
  std::size_t kill_queues = 0;
  for (const auto* q : after.list(object_family::queue)) kill_queues += q->name.rfind("KILL.Q.", 0) == 0;
  EXPECT_EQ(shown, kill_queues);
  // No folder is left that no queue owns.
  std::size_t folders = 0;
  for (const auto& e : fs::directory_iterator(prefix() + "/qmgrs/QMKILL/queues")) folders += e.is_directory();
  EXPECT_EQ(folders, after.list(object_family::queue).size());
}

TEST_F(RunmqscLiveE2e, ObjectFilesRepairedToMatchTheCatalog) {
  create("QMFIX");
  mqsc("QMFIX", "DEFINE QLOCAL(REPAIR.ME)\nDEFINE NAMELIST(NL.FIX) NAMES(A)\n");
  const std::string dir = prefix() + "/qmgrs/QMFIX";
  fs::remove_all(dir + "/queues/REPAIR!ME");
  fs::remove(dir + "/namelist/NL!FIX");
  fs::create_directory(dir + "/queues/GHOST!Q");
  std::ofstream(dir + "/queues/GHOST!Q/q") << "";
  const std::string before = catalog_bytes("QMFIX");

  const ran r = runmqsc("QMFIX", "DISPLAY QLOCAL(REPAIR.ME)\n");
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(count_of(r.err, imsb::msg::IMB1169W), 3u) << r.err;
  EXPECT_TRUE(contains(r.err, "queues/REPAIR!ME")) << r.err;
  EXPECT_TRUE(contains(r.err, "namelist/NL!FIX")) << r.err;
  EXPECT_TRUE(contains(r.err, "GHOST!Q")) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir + "/queues/REPAIR!ME/q"));
  EXPECT_TRUE(fs::is_regular_file(dir + "/namelist/NL!FIX"));
  EXPECT_FALSE(fs::exists(dir + "/queues/GHOST!Q"));
  EXPECT_EQ(catalog_bytes("QMFIX"), before);  // only the files follow the catalog

  const ran clean = runmqsc("QMFIX", "DISPLAY QLOCAL(REPAIR.ME)\n");
  EXPECT_EQ(clean.code, 0) << clean.both();
  EXPECT_FALSE(contains(clean.err, imsb::msg::IMB1169W)) << clean.err;
}

TEST_F(RunmqscLiveE2e, MissingFolderSaysToRunDltmqm) {
  create("QMGONE");
  fs::remove_all(prefix() + "/qmgrs/QMGONE");
  for (const ran& r : {runmqsc("QMGONE", "DISPLAY QMGR\n"), dspmqfls({"-m", "QMGONE", "*"})}) {
    EXPECT_EQ(r.code, 20) << r.both();
    EXPECT_TRUE(contains(r.err, imsb::msg::IMB1168E)) << r.err;
    EXPECT_TRUE(contains(r.err, "Run dltmqm QMGONE to remove its record")) << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  }
  const ran d = dltmqm("QMGONE");
  EXPECT_EQ(d.code, 0) << d.both();
  create("QMGONE");
}

TEST_F(RunmqscLiveE2e, UnreadableCatalogIsOneCleanSentence) {
  create("QMCAT");
  const std::string cat = store("QMCAT").catalog_path().string();
  fs::remove(cat);
  const ran missing = runmqsc("QMCAT", "DISPLAY QMGR\n");
  EXPECT_EQ(missing.code, 20) << missing.both();
  EXPECT_EQ(lines_of(missing.err).size(), 1u) << missing.err;
  EXPECT_TRUE(contains(missing.err, imsb::msg::IMB1160E)) << missing.err;
  EXPECT_EQ(count_of(missing.err, cat), 1u) << missing.err;
  EXPECT_EQ(count_of(missing.err, "No such file or directory"), 1u) << missing.err;
  EXPECT_FALSE(contains(missing.err, "offset")) << missing.err;
  EXPECT_TRUE(contains(missing.err, "dltmqm QMCAT")) << missing.err;

  std::ofstream(cat) << "this is not a catalog\n";
  const ran damaged = dspmqfls({"-m", "QMCAT", "*"});
  EXPECT_EQ(damaged.code, 20) << damaged.both();
  EXPECT_EQ(lines_of(damaged.err).size(), 1u) << damaged.err;
  EXPECT_EQ(count_of(damaged.err, cat), 1u) << damaged.err;
  EXPECT_FALSE(contains(damaged.err, "offset")) << damaged.err;
}

TEST_F(RunmqscLiveE2e, FailedSaveSaysNoChangeWasKeptOnlyWhenTrue) {
  create("QMSAVE");
  const std::string cat = store("QMSAVE").catalog_path().string();
  const std::string before = catalog_bytes("QMSAVE");
  fs::create_directory(cat + ".tmp");  // the catalog's temporary file cannot be written: no rename
  const ran r = runmqsc("QMSAVE", "DEFINE QLOCAL(NOT.SAVED)\n");
  EXPECT_EQ(r.code, 20) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB1160E)) << r.err;
  EXPECT_TRUE(contains(r.err, "no change was kept")) << r.err;
  EXPECT_TRUE(contains(r.err, "run them again")) << r.err;
  EXPECT_FALSE(contains(r.err, "offset")) << r.err;
  EXPECT_EQ(catalog_bytes("QMSAVE"), before);
  EXPECT_FALSE(fs::exists(prefix() + "/qmgrs/QMSAVE/queues/NOT!SAVED"));
  fs::remove(cat + ".tmp");
  const ran ok = runmqsc("QMSAVE", "DEFINE QLOCAL(NOT.SAVED)\n");
  EXPECT_EQ(ok.code, 0) << ok.both();
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMSAVE/queues/NOT!SAVED"));
}

TEST_F(RunmqscLiveE2e, FolderGivenAsScriptFile) {
  create("QMDIR");
  const ran r = run(IMSB_RUNMQSC, with_prefix({"-f", file(""), "QMDIR"}));
  EXPECT_EQ(r.code, 20) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB1163E)) << r.err;
  EXPECT_TRUE(contains(r.err, "it is a folder")) << r.err;
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace imsb::test
