// The queue manager's crash test, with real processes: the queue-manager daemon (`strmqm -f`, a child of this
// test) serves 4 producers and 4 consumers (threads here, each with its own client connection over the
// bindings socket) of persistent messages, all under syncpoint; the daemon is killed with SIGKILL at random
// moments, restarted, and the clients reconnect and go on. At the end the queue is drained and
//   consumed-and-committed + still queued == put-and-committed: none lost, none twice.
// A commit whose answer never came (the daemon died under it) is in doubt: its messages may count or
// not, but never twice. IMSB_QMGR_CRASH_KILLS sets the number of kills (default 3, as CI runs it; the full
// run is 20, once by hand: IMSB_QMGR_CRASH_KILLS=20 build/.../test_e2e_qmrt --gtest_filter='crash*').

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "imsb/mq/constants.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/qmgr/connect.hpp"
#include "process.hpp"

namespace {

using namespace std::chrono_literals;
using imsb::test::child_process;
using imsb::test::output_to;
using imsb::test::run_program;
using imsb::test::temp_dir;

constexpr int producers = 4;
constexpr int consumers = 4;
const std::string qm = "CRASHQM";
const std::string queue = "CRASH.Q";

struct ledger {
  std::mutex m;
  std::set<std::string> put_certain, put_in_doubt;
  std::multiset<std::string> got_certain;
  std::set<std::string> got_in_doubt;
};

class crash_rig {
 public:
  crash_rig() {
    setenv("IMSBRIDGE_RUNTIME_DIR", tmp_.file("run").c_str(), 1);
    prefix_ = tmp_.file("prefix");
    EXPECT_EQ(run_program(IMSB_CRTMQM, {"--prefix", prefix_, qm}), 0);
    start();
    auto c = connect(10s);
    if (!c) return;
    auto r = (*c)->mqsc("DEFINE QLOCAL(" + queue + ") MAXDEPTH(1000000) DEFPSIST(YES)\n");
    EXPECT_TRUE(r.ok() && r->exit_code == 0);
  }

  void start() {
    daemon_ =
        child_process(IMSB_STRMQM, {"-f", "--prefix", prefix_, qm}, output_to::file(tmp_.file("daemon.log")));
  }
  void kill9() {
    daemon_.signal(SIGKILL);
    daemon_.wait_exit(10000ms);
  }

  // A connection, retried until the daemon answers (it is restarting) or `patience` runs out.
  imsb::result<std::unique_ptr<imsb::mqi::connection>> connect(std::chrono::milliseconds patience) {
    imsb::qmgr::connect_options o;
    o.target = qm;
    o.prefix = prefix_;
    o.appl_name = "crash_test";
    const auto until = std::chrono::steady_clock::now() + patience;
    for (;;) {
      auto c = imsb::qmgr::connect(o);
      if (c || std::chrono::steady_clock::now() >= until) return c;
      std::this_thread::sleep_for(20ms);
    }
  }

 private:
  temp_dir tmp_;
  std::string prefix_;
  child_process daemon_;
};

void producer(crash_rig& rig, int id, ledger& book, const std::atomic<bool>& stop) {
  int n = 0;
  while (!stop) {
    auto c = rig.connect(30s);
    if (!c) continue;
    auto h = (*c)->open({queue, ""}, imsb::mq::MQOO_OUTPUT);
    if (!h) continue;
    while (!stop) {
      const std::string body = "P" + std::to_string(id) + "-" + std::to_string(n);
      imsb::mq::mqmd md;
      md.persistence = imsb::mq::MQPER_PERSISTENT;
      md.format = std::string(imsb::mq::MQFMT_STRING);
      auto p = (*c)->put(h->handle, md, imsb::bytes(body.begin(), body.end()), imsb::mq::MQPMO_SYNCPOINT);
      if (!p) break;  // nothing committed: the unit of work dies with the connection
      ++n;
      auto cm = (*c)->commit();
      std::lock_guard<std::mutex> lock(book.m);
      if (cm) {
        book.put_certain.insert(body);
      } else {
        book.put_in_doubt.insert(body);
        break;
      }
    }
  }
}

void consumer(crash_rig& rig, ledger& book, const std::atomic<bool>& stop) {
  while (!stop) {
    auto c = rig.connect(30s);
    if (!c) continue;
    auto h = (*c)->open({queue, ""}, imsb::mq::MQOO_INPUT_SHARED);
    if (!h) continue;
    imsb::mqi::get_request req;
    req.options = imsb::mq::MQGMO_WAIT | imsb::mq::MQGMO_SYNCPOINT;
    req.wait_interval_ms = 100;
    req.match_options = imsb::mq::MQMO_NONE;
    while (!stop) {
      auto g = (*c)->get(h->handle, req);
      if (!g) {
        if (g.error().code.value() == imsb::mq::MQRC_NO_MSG_AVAILABLE) continue;
        break;
      }
      const std::string body(g->data.begin(), g->data.end());
      auto cm = (*c)->commit();
      std::lock_guard<std::mutex> lock(book.m);
      if (cm) {
        book.got_certain.insert(body);
      } else {
        book.got_in_doubt.insert(body);
        break;
      }
    }
  }
}

TEST(crash, kill9_of_the_daemon_under_4_producers_and_4_consumers_loses_and_doubles_nothing) {
  const char* env = std::getenv("IMSB_QMGR_CRASH_KILLS");
  const int kills = env != nullptr ? std::atoi(env) : 3;
  crash_rig rig;
  ledger book;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < producers; ++i) threads.emplace_back([&, i] { producer(rig, i, book, stop); });
  for (int i = 0; i < consumers; ++i) threads.emplace_back([&] { consumer(rig, book, stop); });

  std::mt19937 rng(std::random_device{}());
  for (int k = 0; k < kills; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 700));
    rig.kill9();
    rig.start();
  }
  std::this_thread::sleep_for(500ms);
  stop = true;
  for (auto& t : threads) t.join();

  // Drain what is left.
  auto c = rig.connect(30s);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto h = (*c)->open({queue, ""}, imsb::mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  std::multiset<std::string> remaining;
  imsb::mqi::get_request req;
  req.match_options = imsb::mq::MQMO_NONE;
  for (;;) {
    auto g = (*c)->get(h->handle, req);
    if (!g) {
      ASSERT_EQ(g.error().code.value(), imsb::mq::MQRC_NO_MSG_AVAILABLE) << g.error().to_string();
      break;
    }
    remaining.insert(std::string(g->data.begin(), g->data.end()));
  }

  std::multiset<std::string> seen = book.got_certain;
  seen.insert(remaining.begin(), remaining.end());
  std::size_t lost = 0, doubled = 0, from_nowhere = 0;
  for (const auto& m : book.put_certain) {
    const auto n = seen.count(m);
    if (n > 1) ++doubled;
    if (n == 0 && book.got_in_doubt.count(m) == 0) ++lost;
  }
  for (auto it = seen.begin(); it != seen.end(); it = seen.upper_bound(*it)) {
    if (seen.count(*it) > 1 && book.put_certain.count(*it) == 0) ++doubled;
    if (book.put_certain.count(*it) == 0 && book.put_in_doubt.count(*it) == 0) ++from_nowhere;
  }
  std::printf(
      "crash test: %d kills, %zu puts committed (%zu in doubt), %zu gets committed (%zu in doubt), "
      "%zu left on the queue\n",
      kills, book.put_certain.size(), book.put_in_doubt.size(), book.got_certain.size(),
      book.got_in_doubt.size(), remaining.size());
  EXPECT_GT(book.put_certain.size(), static_cast<std::size_t>(kills * 10))
      << "too little work to prove anything";
  EXPECT_GT(book.got_certain.size(), 0U);
  EXPECT_EQ(lost, 0U);
  EXPECT_EQ(doubled, 0U);
  EXPECT_EQ(from_nowhere, 0U);
}

}  // namespace
