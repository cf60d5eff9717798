// A full file system (a small tmpfs in a private mount namespace): puts fail with a clear MQRC and nothing
// committed is lost. With real processes:
//   - a holder process makes a private mount namespace (unshare --mount), mounts a 2 MiB tmpfs on the
//     prefix, creates the queue manager there (crtmqm) and sleeps, keeping the namespace alive;
//   - the daemon (strmqm -f) runs inside that namespace (nsenter -m); its bindings socket is in
//     IMSBRIDGE_RUNTIME_DIR on the ordinary /tmp, so this test connects to it as any program does;
//   - persistent puts of 16 KiB, outside and inside syncpoint, until the file system is full: the call
//     that does not fit fails with MQRC_Q_SPACE_NOT_AVAILABLE (2056), and so does a commit;
//   - every message whose put or commit returned OK is on the queue exactly once, and nothing that failed
//     is; gets then free space and new puts work again; after kill -9 and a restart in the same namespace
//     every committed message that was not got is there exactly once.
// Needs root (mount namespaces, mount); skipped, with the reason, without it.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/qmgr/connect.hpp"
#include "process.hpp"

namespace {

using namespace std::chrono_literals;
using imsb::test::child_process;
using imsb::test::output_to;
using imsb::test::read_file;
using imsb::test::run_program;
using imsb::test::temp_dir;

const std::string qm = "FULLQM";
const std::string queue = "FULL.Q";
constexpr std::size_t message_size = 16 * 1024;

std::string sh_quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

bool on_path(const std::string& program) {
  const char* env = std::getenv("PATH");
  std::string dirs = env != nullptr ? env : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    if (end > start && ::access((dirs.substr(start, end - start) + "/" + program).c_str(), X_OK) == 0)
      return true;
    start = end + 1;
  }
  return false;
}

// A message body: "M<n>:" then filler to message_size; the key is what comes before ':'.
imsb::bytes body_of(int n) {
  std::string s = "M" + std::to_string(n) + ":";
  s.resize(message_size, static_cast<char>('a' + n % 26));
  return imsb::bytes(s.begin(), s.end());
}
std::string key_of(const imsb::bytes& data) {
  std::string s(data.begin(), data.end());
  return s.substr(0, s.find(':'));
}
std::string key_of(int n) { return "M" + std::to_string(n); }

std::int32_t rc_of(const imsb::decode_error& e) { return static_cast<std::int32_t>(e.code.value()); }

class full_fs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: a mount namespace and a tmpfs mount";
    for (const char* p : {"unshare", "nsenter", "mount", "sh", "sleep"}) {
      if (!on_path(p)) GTEST_SKIP() << p << " is not on PATH";
    }
    if (run_program("unshare", {"--mount", "--propagation", "private", "true"}, 10000ms) != 0)
      GTEST_SKIP() << "unshare --mount fails here (no CAP_SYS_ADMIN in this container?)";
    ASSERT_EQ(::mkdir(tmp_.file("run").c_str(), 0700), 0);
    ASSERT_EQ(::mkdir(prefix().c_str(), 0755), 0);
    ::setenv("IMSBRIDGE_RUNTIME_DIR", tmp_.file("run").c_str(), 1);
    // The holder: the namespace with the tmpfs on the prefix and the queue manager in it.
    const std::string script = "mount -t tmpfs -o size=2m tmpfs " + sh_quote(prefix()) + " && " +
                               sh_quote(IMSB_CRTMQM) + " --prefix " + sh_quote(prefix()) + " " + qm +
                               " >/dev/null && head -c 524288 /dev/zero > " +
                               sh_quote(prefix() + "/.filler") + " && echo ready && exec sleep 100000";
    holder_ = child_process("unshare", {"--mount", "--propagation", "private", "sh", "-c", script},
                            output_to::capture());
    ASSERT_TRUE(holder_.wait_for_line("ready", 20000ms).has_value()) << "the holder did not get ready";
    // Outside the namespace the prefix stays an empty folder: the tmpfs is private to it.
    ASSERT_FALSE(std::filesystem::exists(prefix() + "/qmgrs"));
    start_daemon();
  }
  void TearDown() override {
    daemon_.stop();
    holder_.stop();  // the namespace and its tmpfs end with their last process
  }

  std::string prefix() const { return tmp_.file("prefix"); }

  void start_daemon() {
    daemon_ = child_process(
        "nsenter",
        {"-t", std::to_string(holder_.pid()), "-m", "--", IMSB_STRMQM, "-f", "--prefix", prefix(), qm},
        output_to::capture());
    ASSERT_TRUE(daemon_.wait_for_line(imsb::msg::IMB1220I, 30000ms).has_value())
        << "the daemon did not start";
  }
  void kill9_daemon() {
    ASSERT_TRUE(daemon_.signal(SIGKILL));
    ASSERT_TRUE(daemon_.wait_exit(10000ms).has_value());
  }

  imsb::result<std::unique_ptr<imsb::mqi::connection>> connect() {
    imsb::qmgr::connect_options o;
    o.target = qm;
    o.prefix = prefix();
    o.appl_name = "full_fs_test";
    return imsb::qmgr::connect(o);
  }

  temp_dir tmp_;
  child_process holder_;
  child_process daemon_;
};

imsb::mq::mqmd persistent_md() {
  imsb::mq::mqmd md;
  md.persistence = imsb::mq::MQPER_PERSISTENT;
  md.format = std::string(imsb::mq::MQFMT_STRING);
  return md;
}

// Every message on the queue, by browsing: key → how many times.
std::map<std::string, int> browse_all(imsb::mqi::connection& c) {
  std::map<std::string, int> seen;
  auto h = c.open({queue, ""}, imsb::mq::MQOO_BROWSE);
  EXPECT_TRUE(h.ok()) << h.error().to_string();
  if (!h) return seen;
  imsb::mqi::get_request req;
  req.match_options = imsb::mq::MQMO_NONE;
  req.options = imsb::mq::MQGMO_BROWSE_FIRST;
  for (;;) {
    auto g = c.get(h->handle, req);
    if (!g) {
      EXPECT_EQ(rc_of(g.error()), imsb::mq::MQRC_NO_MSG_AVAILABLE) << g.error().to_string();
      break;
    }
    ++seen[key_of(g->data)];
    req.options = imsb::mq::MQGMO_BROWSE_NEXT;
  }
  (void)c.close(h->handle);
  return seen;
}

// What differs between the queue (browsed) and the messages expected on it once each: "" when nothing.
std::string differences(const std::map<std::string, int>& seen, const std::set<std::string>& expected) {
  std::string extra, missing, twice;
  for (const auto& [k, count] : seen) {
    if (expected.count(k) == 0) extra += " " + k;
    if (count > 1) twice += " " + k;
  }
  for (const auto& k : expected)
    if (seen.count(k) == 0) missing += " " + k;
  if (extra.empty() && missing.empty() && twice.empty()) return "";
  return "on the queue but never committed:" + extra + "; committed but missing:" + missing +
         "; more than once:" + twice;
}

TEST_F(full_fs, puts_fail_with_2056_and_nothing_committed_is_lost) {
  auto c = connect();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto def = (*c)->mqsc("DEFINE QLOCAL(" + queue + ") DEFPSIST(YES) MAXDEPTH(100000)\n");
  ASSERT_TRUE(def.ok()) << def.error().to_string();
  ASSERT_EQ(def->exit_code, 0);
  auto h = (*c)->open({queue, ""}, imsb::mq::MQOO_OUTPUT | imsb::mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok()) << h.error().to_string();

  // Fill: a put outside syncpoint, then a unit of work of three puts and a commit, and again, until a
  // call fails. 2 MiB hold fewer than 128 messages of 16 KiB.
  std::set<std::string> committed;
  int n = 0;
  std::optional<imsb::decode_error> first_failure;
  const char* failed_call = "";
  for (int round = 0; round < 200 && !first_failure; ++round) {
    auto p = (*c)->put(h->handle, persistent_md(), body_of(n), imsb::mq::MQPMO_NO_SYNCPOINT);
    if (!p) {
      first_failure = p.error();
      failed_call = "MQPUT outside syncpoint";
      break;
    }
    committed.insert(key_of(n++));
    std::vector<std::string> uow;
    for (int i = 0; i < 3; ++i) {
      auto q = (*c)->put(h->handle, persistent_md(), body_of(n), imsb::mq::MQPMO_SYNCPOINT);
      ASSERT_TRUE(q.ok()) << "a put under syncpoint writes nothing yet: " << q.error().to_string();
      uow.push_back(key_of(n++));
    }
    auto cm = (*c)->commit();
    if (!cm) {
      first_failure = cm.error();
      failed_call = "MQCMIT";
      break;
    }
    committed.insert(uow.begin(), uow.end());
  }
  ASSERT_TRUE(first_failure.has_value()) << "200 rounds of 64 KiB fitted in a 2 MiB tmpfs";
  EXPECT_EQ(rc_of(*first_failure), imsb::mq::MQRC_Q_SPACE_NOT_AVAILABLE)
      << failed_call << ": " << first_failure->to_string();
  ASSERT_GT(committed.size(), 20U) << "the file system was full too soon to prove anything";

  // Both kinds of call fail the same clear way once the file system is full, and the queue manager
  // goes on (not MQRC_RESOURCE_PROBLEM: the log is not broken). A failed commit of three may leave room
  // for one message: single puts fill that first.
  std::optional<imsb::decode_error> single_failure;
  for (int i = 0; i < 8 && !single_failure; ++i) {
    auto p = (*c)->put(h->handle, persistent_md(), body_of(n), imsb::mq::MQPMO_NO_SYNCPOINT);
    if (p)
      committed.insert(key_of(n));
    else
      single_failure = p.error();
    ++n;
  }
  ASSERT_TRUE(single_failure.has_value()) << "8 more messages fitted after " << failed_call << " failed";
  EXPECT_EQ(rc_of(*single_failure), imsb::mq::MQRC_Q_SPACE_NOT_AVAILABLE) << single_failure->to_string();
  auto in_uow = (*c)->put(h->handle, persistent_md(), body_of(n++), imsb::mq::MQPMO_SYNCPOINT);
  ASSERT_TRUE(in_uow.ok()) << in_uow.error().to_string();
  auto cm = (*c)->commit();
  ASSERT_FALSE(cm.ok());
  EXPECT_EQ(rc_of(cm.error()), imsb::mq::MQRC_Q_SPACE_NOT_AVAILABLE) << cm.error().to_string();

  // Exactly what returned OK is on the queue: nothing lost, nothing twice, nothing that failed.
  EXPECT_EQ(differences(browse_all(**c), committed), "") << "after " << failed_call << " failed";

  // Gets (under syncpoint, committed) of all but 8 still work on the full file system; then the operator
  // frees space (the holder's filler file goes, as an operator would delete other files) and new puts
  // work again without a restart. A failure here is reported and the test goes on to the restart, which
  // must still find every committed message. (Gets alone free no space: the log only shrinks at a
  // checkpoint, which needs room to write the queue files first.)
  std::set<std::string> got;
  imsb::mqi::get_request req;
  req.match_options = imsb::mq::MQMO_NONE;
  req.options = imsb::mq::MQGMO_NO_WAIT | imsb::mq::MQGMO_SYNCPOINT;
  bool gets_ok = true;
  while (gets_ok && got.size() + 8 < committed.size()) {
    std::vector<std::string> batch;
    for (int i = 0; i < 4 && gets_ok; ++i) {
      auto g = (*c)->get(h->handle, req);
      if (g) {
        batch.push_back(key_of(g->data));
      } else {
        ADD_FAILURE() << "a get under syncpoint: " << g.error().to_string();
        gets_ok = false;
      }
    }
    if (!gets_ok) break;
    auto gc = (*c)->commit();
    if (!gc) {
      ADD_FAILURE() << "a commit of gets on a full file system (after " << got.size()
                    << " got): " << gc.error().to_string();
      gets_ok = false;
      break;
    }
    got.insert(batch.begin(), batch.end());
  }
  if (gets_ok) {
    ASSERT_EQ(
        run_program("nsenter", {"-t", std::to_string(holder_.pid()), "-m", "--", "rm", prefix() + "/.filler"},
                    10000ms),
        0);
    for (int i = 0; i < 4; ++i) {
      auto more = (*c)->put(h->handle, persistent_md(), body_of(n), imsb::mq::MQPMO_NO_SYNCPOINT);
      EXPECT_TRUE(more.ok()) << "a put after space was freed: " << more.error().to_string();
      if (more) committed.insert(key_of(n));
      ++n;
    }
  }
  std::set<std::string> left;
  for (const auto& k : committed)
    if (got.count(k) == 0) left.insert(k);
  EXPECT_EQ(differences(browse_all(**c), left), "") << "after the gets";
  c->reset();

  // kill -9 and a restart on the same file system: every committed message not got, exactly once.
  kill9_daemon();
  start_daemon();
  auto again = connect();
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(differences(browse_all(**again), left), "") << "after kill -9 and a restart";
  (void)(*again)->disconnect();
}

}  // namespace
