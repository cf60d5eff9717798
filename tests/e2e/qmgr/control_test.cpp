// crtmqm, dltmqm and runmqsc as programs: creating, refusing, locking and deleting queue managers
// each test in its own temporary prefix.

#include <gtest/gtest.h>

#include <filesystem>

#include "imsb/core/messages.hpp"
#include "qmgr_e2e.hpp"

namespace imsb::test {
namespace {

namespace fs = std::filesystem;

using CrtmqmE2e = qmgr_e2e;
using DltmqmE2e = qmgr_e2e;
using RunmqscE2e = qmgr_e2e;

TEST_F(CrtmqmE2e, CreatesFolderCatalogAndDefaultObjects) {
  const ran r = crtmqm("QMCR");
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, std::string(imsb::msg::IMB1150I) + ": Queue manager QMCR created.")) << r.out;
  EXPECT_TRUE(contains(r.out, std::string(imsb::msg::IMB1151I) + ": Default objects created")) << r.out;
  EXPECT_TRUE(
      contains(r.out, std::string(imsb::msg::IMB1152I) + ": Directory '" + prefix() + "/qmgrs/QMCR' created"))
      << r.out;
  // The prefix is a folder on Linux's /tmp: detected as posix.
  EXPECT_TRUE(contains(
      r.out, std::string(imsb::msg::IMB1153I) + ": File-system profile posix (detected on " + prefix()))
      << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(fs::is_regular_file(prefix() + "/mqs.ini"));
  EXPECT_TRUE(fs::is_regular_file(prefix() + "/qmgrs/QMCR/queues/SYSTEM!DEFAULT!LOCAL!QUEUE/q"));

  const auto cat = load("QMCR");
  EXPECT_EQ(cat.qmgr_name(), "QMCR");
  EXPECT_EQ(cat.profile(), names::fs_profile::posix);
  for (const char* q : {"SYSTEM.DEFAULT.LOCAL.QUEUE", "SYSTEM.DEFAULT.ALIAS.QUEUE",
                        "SYSTEM.DEFAULT.REMOTE.QUEUE", "SYSTEM.DEFAULT.MODEL.QUEUE"}) {
    EXPECT_NE(cat.find(objects::object_family::queue, q), nullptr) << q;
  }
  EXPECT_EQ(cat.qmgr().text("DEADQ"), "");
  EXPECT_EQ(cat.qmgr().text("DEFXMITQ"), "");
}

TEST_F(CrtmqmE2e, ExistingQueueManagerRefusedWithExitCode8) {
  create("QMEX");
  const std::string before = catalog_bytes("QMEX");
  const ran again = crtmqm("QMEX", {"-u", "OTHER.DLQ"});
  EXPECT_EQ(again.code, 8) << again.both();  // IBM's AMQ8110 code
  EXPECT_TRUE(contains(again.err, imsb::msg::IMB1154E)) << again.err;
  EXPECT_TRUE(again.out.empty()) << again.out;
  EXPECT_EQ(catalog_bytes("QMEX"), before);
}

TEST_F(CrtmqmE2e, DeadLetterAndDefaultTransmissionQueues) {
  const ran r = crtmqm("QMDL", {"-u", "SYSTEM.DEAD.LETTER.QUEUE", "-d", "DEFAULT.XMITQ"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "dead-letter queue SYSTEM.DEAD.LETTER.QUEUE")) << r.out;
  const auto cat = load("QMDL");
  EXPECT_EQ(cat.qmgr().text("DEADQ"), "SYSTEM.DEAD.LETTER.QUEUE");
  EXPECT_EQ(cat.qmgr().text("DEFXMITQ"), "DEFAULT.XMITQ");
  const auto* dlq = cat.find(objects::object_family::queue, "SYSTEM.DEAD.LETTER.QUEUE");
  ASSERT_NE(dlq, nullptr);
  EXPECT_EQ(dlq->type, objects::object_type::qlocal);
  EXPECT_EQ(dlq->text("USAGE"), "NORMAL");
  const auto* xq = cat.find(objects::object_family::queue, "DEFAULT.XMITQ");
  ASSERT_NE(xq, nullptr);
  EXPECT_EQ(xq->text("USAGE"), "XMITQ");
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMDL/queues/SYSTEM!DEAD!LETTER!QUEUE"));
  // The options may also be glued to their values, as IBM's crtmqm allows.
  const ran glued = crtmqm("QMDL2", {"-uMY.DLQ"});
  ASSERT_EQ(glued.code, 0) << glued.both();
  EXPECT_EQ(load("QMDL2").qmgr().text("DEADQ"), "MY.DLQ");
}

TEST_F(CrtmqmE2e, BadNamesAndUsageErrorsCreateNothing) {
  const ran bad = crtmqm("BAD NAME");
  EXPECT_EQ(bad.code, 20) << bad.both();
  EXPECT_TRUE(contains(bad.err, imsb::msg::IMB1156E)) << bad.err;
  const ran long_name = crtmqm(std::string(49, 'Q'));
  EXPECT_EQ(long_name.code, 20) << long_name.both();
  EXPECT_TRUE(contains(long_name.err, imsb::msg::IMB1156E)) << long_name.err;
  const ran bad_dlq = crtmqm("QMOK", {"-u", "NO GOOD"});
  EXPECT_EQ(bad_dlq.code, 20) << bad_dlq.both();
  EXPECT_TRUE(contains(bad_dlq.err, "dead-letter")) << bad_dlq.err;
  const ran no_name = crtmqm("", {});
  EXPECT_EQ(no_name.code, 20) << no_name.both();
  const ran missing = run(IMSB_CRTMQM, with_prefix({}));
  EXPECT_EQ(missing.code, 20);
  EXPECT_TRUE(contains(missing.err, imsb::msg::IMB1155E)) << missing.err;
  const ran bad_fs = crtmqm("QMOK", {"--fs", "ntfs"});
  EXPECT_EQ(bad_fs.code, 20);
  EXPECT_TRUE(contains(bad_fs.err, imsb::msg::IMB1155E)) << bad_fs.err;
  const ran unknown = crtmqm("QMOK", {"-z"});
  EXPECT_EQ(unknown.code, 20);
  EXPECT_TRUE(contains(unknown.err, imsb::msg::IMB1155E)) << unknown.err;
  // Not even the prefix folder: every name is checked before anything is made.
  EXPECT_FALSE(fs::exists(prefix())) << "crtmqm with a bad name made " << prefix();
  const ran bad_xmitq = crtmqm("QMOK", {"-d", std::string(49, 'X')});
  EXPECT_EQ(bad_xmitq.code, 20) << bad_xmitq.both();
  EXPECT_TRUE(contains(bad_xmitq.err, "default transmission queue")) << bad_xmitq.err;
  EXPECT_TRUE(contains(bad_xmitq.err, "Nothing was created.")) << bad_xmitq.err;
  EXPECT_FALSE(fs::exists(prefix()));
  // A prefix that exists keeps no trace either.
  create("QMFIRST");
  const ran bad_in_existing = crtmqm("BAD NAME");
  EXPECT_EQ(bad_in_existing.code, 20) << bad_in_existing.both();
  EXPECT_FALSE(fs::exists(prefix() + "/qmgrs/QMOK"));
  auto listed = qmgr::list_queue_managers(prefix());
  ASSERT_TRUE(listed) << listed.error().to_string();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().name, "QMFIRST");
  std::size_t folders = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(prefix() + "/qmgrs")) ++folders;
  EXPECT_EQ(folders, 1u);
}

TEST_F(CrtmqmE2e, WarnsWhenALeftoverFolderIsSkipped) {
  // A folder with the name QMLEFT's folder would get, but no mqs.ini record: what a crtmqm killed
  // midway leaves. It is not reused, and the operator is told.
  fs::create_directories(prefix() + "/qmgrs/QMLEFT/queues");
  const ran r = crtmqm("QMLEFT");
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB1171W)) << r.both();
  EXPECT_TRUE(contains(r.err, prefix() + "/qmgrs/QMLEFT")) << r.err;
  const std::string dir = store("QMLEFT").directory().string();
  EXPECT_NE(dir, prefix() + "/qmgrs/QMLEFT");
  EXPECT_TRUE(contains(r.out, dir)) << r.out;
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMLEFT/queues"));  // the leftover is left alone
  // No leftover, no warning.
  const ran clean = crtmqm("QMNEW");
  ASSERT_EQ(clean.code, 0) << clean.both();
  EXPECT_TRUE(clean.err.empty()) << clean.err;
}

TEST_F(CrtmqmE2e, HelpGivesExitCodesForAllFour) {
  for (const char* program : {IMSB_CRTMQM, IMSB_DLTMQM, IMSB_RUNMQSC, IMSB_DSPMQFLS}) {
    const ran r = run(program, {"--help"});
    EXPECT_EQ(r.code, 0) << program << r.both();
    EXPECT_TRUE(contains(r.out, "Exit codes")) << program;
    EXPECT_TRUE(contains(r.out, "--prefix")) << program;
    const ran h = run(program, {"-h"});
    EXPECT_EQ(h.out, r.out) << program;
  }
}

TEST_F(CrtmqmE2e, PrefixFromEnvironmentVariable) {
  const std::string env_prefix = file("from-env");
  const ran r = run(IMSB_CRTMQM, {"QMENV"}, {}, "IMSBRIDGE_PREFIX=" + sh_quote(env_prefix));
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "IMSBRIDGE_PREFIX")) << r.out;
  EXPECT_TRUE(fs::is_directory(env_prefix + "/qmgrs/QMENV"));
  // --prefix wins over the variable.
  const ran p =
      run(IMSB_CRTMQM, {"--prefix", prefix(), "QMENV"}, {}, "IMSBRIDGE_PREFIX=" + sh_quote(env_prefix));
  EXPECT_EQ(p.code, 0) << p.both();
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMENV"));
  const ran d = run(IMSB_DLTMQM, {"QMENV"}, {}, "IMSBRIDGE_PREFIX=" + sh_quote(env_prefix));
  EXPECT_EQ(d.code, 0) << d.both();
  EXPECT_FALSE(fs::exists(env_prefix + "/qmgrs/QMENV"));
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMENV"));
}

TEST_F(CrtmqmE2e, QueueManagerNameTransformedIntoFolderName) {
  const ran r = crtmqm("queue.manager");  // IBM's own example [C: FILENAMES-V6]
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/queue!manager"));
  EXPECT_TRUE(contains(r.out, "/qmgrs/queue!manager'")) << r.out;
  const ran slash = crtmqm("A/B.C");
  ASSERT_EQ(slash.code, 0) << slash.both();
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/A&B!C"));
  const ran d = dspmqfls({"-m", "queue.manager", "-t", "qmgr", "*"});
  EXPECT_EQ(d.code, 0) << d.both();
  EXPECT_TRUE(contains(d.out, "QMGR      queue.manager\n" + prefix() + "/qmgrs/queue!manager\n")) << d.out;
}

TEST_F(DltmqmE2e, RefusedWhileLockedThenDeletes) {
  create("QMDEL");
  child_process holder(IMSB_QMGR_LOCK_TOOL, {prefix(), "QMDEL"}, output_to::capture());
  ASSERT_TRUE(holder.wait_for_line("locked", milliseconds(10000)));

  const ran refused = dltmqm("QMDEL");
  EXPECT_EQ(refused.code, 5) << refused.both();  // IBM's AMQ8027 code
  EXPECT_TRUE(contains(refused.err, imsb::msg::IMB1159E)) << refused.err;
  EXPECT_TRUE(fs::is_directory(prefix() + "/qmgrs/QMDEL"));

  holder.stop();  // the lock dies with its holder
  const ran ok = dltmqm("QMDEL");
  EXPECT_EQ(ok.code, 0) << ok.both();
  EXPECT_TRUE(contains(ok.out, std::string(imsb::msg::IMB1161I) + ": Queue manager QMDEL deleted."))
      << ok.out;
  EXPECT_FALSE(fs::exists(prefix() + "/qmgrs/QMDEL"));

  const ran gone = dltmqm("QMDEL");
  EXPECT_EQ(gone.code, 16) << gone.both();  // IBM's AMQ8118 code
  EXPECT_TRUE(contains(gone.err, imsb::msg::IMB1158E)) << gone.err;
  const ran dsp = dspmqfls({"-m", "QMDEL", "*"});
  EXPECT_EQ(dsp.code, 20) << dsp.both();
  // The name is free again.
  create("QMDEL");
}

TEST_F(RunmqscE2e, RefusedWhileLockedByAnotherProcess) {
  create("QMLK");
  const std::string before = catalog_bytes("QMLK");
  {
    child_process holder(IMSB_QMGR_LOCK_TOOL, {prefix(), "QMLK"}, output_to::capture());
    ASSERT_TRUE(holder.wait_for_line("locked", milliseconds(10000)));
    const ran refused = runmqsc("QMLK", "DEFINE QLOCAL(LOCKED.OUT)\n");
    EXPECT_EQ(refused.code, 20) << refused.both();
    EXPECT_TRUE(contains(refused.err, imsb::msg::IMB1159E)) << refused.err;
    EXPECT_TRUE(contains(refused.err, "running")) << refused.err;
    EXPECT_EQ(catalog_bytes("QMLK"), before);
  }
  const ran ok = runmqsc("QMLK", "DEFINE QLOCAL(LOCKED.OUT)\n");
  EXPECT_EQ(ok.code, 0) << ok.both();
  EXPECT_NE(load("QMLK").find(objects::object_family::queue, "LOCKED.OUT"), nullptr);
}

TEST_F(RunmqscE2e, BannerEchoSummaryAndNoEchoOption) {
  create("QMBN");
  const ran r = runmqsc("QMBN", "DEFINE QLOCAL(BANNER.Q)\nDISPLAY QLOCAL(BANNER.Q) MAXDEPTH\n");
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(lines_of(r.out).front(),
            std::string(imsb::msg::IMB1162I) + ": Starting MQSC for queue manager QMBN.");
  const auto blocks = mqsc_blocks(r.out);
  ASSERT_EQ(blocks.size(), 2u) << r.out;
  EXPECT_TRUE(contains(blocks[0].echo, "DEFINE QLOCAL(BANNER.Q)")) << r.out;
  EXPECT_TRUE(contains(r.out, "2 MQSC commands read.")) << r.out;

  const ran quiet = runmqsc("QMBN", "DEFINE QLOCAL(BANNER.Q2)\n", {"-e"});
  ASSERT_EQ(quiet.code, 0) << quiet.both();
  EXPECT_FALSE(contains(quiet.out, "DEFINE QLOCAL(BANNER.Q2)")) << quiet.out;
  EXPECT_TRUE(contains(quiet.out, "One MQSC command read.")) << quiet.out;
  EXPECT_TRUE(contains(quiet.out, imsb::msg::IMB1001I)) << quiet.out;
  EXPECT_NE(load("QMBN").find(objects::object_family::queue, "BANNER.Q2"), nullptr);
}

TEST_F(RunmqscE2e, VerifyOnlySavesNothing) {
  create("QMVF");
  const std::string before = catalog_bytes("QMVF");
  const ran r = runmqsc("QMVF", "DEFINE QLOCAL(VERIFY.ONLY)\n", {"-v"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "verify only")) << r.out;
  EXPECT_EQ(catalog_bytes("QMVF"), before);
  EXPECT_FALSE(fs::exists(prefix() + "/qmgrs/QMVF/queues/VERIFY!ONLY"));
}

TEST_F(RunmqscE2e, FileInputAndChoosingTheQueueManager) {
  create("QMF1");
  const std::string script_path = file("script.mqsc");
  {
    std::ofstream f(script_path);
    f << "DEFINE QLOCAL(FROM.FILE)\n";
  }
  // Only one queue manager in the prefix: its name may be left out.
  const ran only = run(IMSB_RUNMQSC, with_prefix({"-f", script_path}));
  EXPECT_EQ(only.code, 0) << only.both();
  EXPECT_NE(load("QMF1").find(objects::object_family::queue, "FROM.FILE"), nullptr);

  create("QMF2");
  const ran two = run(IMSB_RUNMQSC, with_prefix({"-f", script_path}));
  EXPECT_EQ(two.code, 20) << two.both();
  EXPECT_TRUE(contains(two.err, imsb::msg::IMB1166E)) << two.err;
  const ran named = run(IMSB_RUNMQSC, with_prefix({"-f", script_path, "QMF2"}));
  EXPECT_EQ(named.code, 0) << named.both();
  EXPECT_NE(load("QMF2").find(objects::object_family::queue, "FROM.FILE"), nullptr);

  const ran no_file = run(IMSB_RUNMQSC, with_prefix({"-f", file("missing.mqsc"), "QMF2"}));
  EXPECT_EQ(no_file.code, 20) << no_file.both();
  EXPECT_TRUE(contains(no_file.err, imsb::msg::IMB1163E)) << no_file.err;
  const ran no_qm = runmqsc("NOSUCHQM", "DEFINE QLOCAL(X)\n");
  EXPECT_EQ(no_qm.code, 20) << no_qm.both();
  EXPECT_TRUE(contains(no_qm.err, imsb::msg::IMB1158E)) << no_qm.err;
}

TEST_F(RunmqscE2e, RuntimeCommandsFailOnAStoppedQueueManager) {
  create("QMRT");
  const ran r = runmqsc("QMRT",
                        "DEFINE CHANNEL(QMRT.TO.X) CHLTYPE(SDR) CONNAME('x(1414)') XMITQ(X)\n"
                        "START CHANNEL(QMRT.TO.X)\n");
  EXPECT_EQ(r.code, 10) << r.both();
  const auto blocks = mqsc_blocks(r.out);
  ASSERT_EQ(blocks.size(), 2u) << r.out;
  std::string start_result;
  for (const auto& l : blocks[1].results) start_result += l + "\n";
  EXPECT_TRUE(contains(start_result, "not running")) << r.out;
  EXPECT_TRUE(contains(r.out, "One valid MQSC command could not be processed.")) << r.out;
  EXPECT_NE(load("QMRT").find(objects::object_family::channel, "QMRT.TO.X"), nullptr);
}

}  // namespace
}  // namespace imsb::test
