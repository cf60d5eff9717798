// The bridge's crash tests, with real processes: requester threads (each with its own queue-manager
// connection) put persistent requests, each put committed, on both bridge queues; a collector gets the
// replies and the dead letters; meanwhile one process is killed with SIGKILL at random moments and
// restarted as the rig started it — imsbridge (embedded mode: the queue manager dies with it), imsemu
// (warm start on the same state folder), xcfhub (on the same port, so members reconnect) or, in client
// mode, the queue-manager daemon (strmqm). At the end:
//   CM0: every request committed gets exactly one reply or one dead letter, a put whose commit answer
//        never came ("in doubt") at most one; imsemu's journal shows each request run exactly once.
//   CM1: none lost either; the runs beyond one per request are at most the possible duplicates the
//        bridge reported (IMB2010W "sent again", counted over every imsbridge run).
// The transaction is IVTNO ADD with the request's ID as the last name: the run's database change puts the
// ID in the phone book the journal keeps, a second run of the same request finds it there ("ADDITION OF
// ENTRY HAS FAILED", no change), so "each ID ran once" is: the phone book holds exactly the IDs that were
// answered, and the journal's committed IVTNO runs number exactly as many (docs/design/commit-modes.md,
// CM0 step 7: nothing is lost and nothing runs twice).
// IMSB_BRIDGE_CRASH_KILLS sets the kills per test (default 3, as CI runs them; the full run is 20, by hand:
// IMSB_BRIDGE_CRASH_KILLS=20 build/<dir>/tests/e2e/test_e2e_bridge --gtest_filter='crash*').

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>
#include <regex>
#include <set>

#include "bridge_e2e.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/mq/codes.hpp"

namespace imsb::test {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

enum class victim { bridge, ims, hub, daemon };
const char* to_string(victim v) {
  switch (v) {
    case victim::bridge:
      return "imsbridge";
    case victim::ims:
      return "imsemu";
    case victim::hub:
      return "xcfhub";
    case victim::daemon:
      return "qmgr daemon";
  }
  return "?";
}

constexpr int requesters = 4;
constexpr std::size_t window = 8;  // requests committed and not yet answered, over all requesters

int kills_per_test() {
  const char* env = std::getenv("IMSB_BRIDGE_CRASH_KILLS");
  const int n = env != nullptr ? std::atoi(env) : 3;
  return n > 0 ? n : 3;
}

// A loopback port free now, for an xcfhub that must come back on the same one.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// The request IDs: R<requester>N<6 digits>, 9 characters (IVTNO's last name holds 10).
const std::regex id_pattern("R[0-9]N[0-9]{6}");

std::string find_id(const std::string& text) {
  std::smatch m;
  return std::regex_search(text, m, id_pattern) ? m.str() : std::string();
}

// A dead letter's data (MQDLH, then the request as the bridge got it, or converted): the ID in ASCII or
// in EBCDIC (CCSID 037).
std::string find_id(const bytes& data) {
  std::string ascii(data.begin(), data.end());
  if (auto id = find_id(ascii); !id.empty()) return id;
  std::string ebcdic;
  for (std::uint8_t b : data) {
    const std::int32_t u = codepage::to_unicode(b, 37);
    ebcdic += u > 0 && u < 128 ? static_cast<char>(u) : '.';
  }
  return find_id(ebcdic);
}

std::string hex(const std::array<std::uint8_t, 24>& id) {
  static const char* digits = "0123456789ABCDEF";
  std::string s;
  for (auto b : id) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

struct ledger {
  std::mutex m;
  std::condition_variable cv;
  std::set<std::string> put_certain, put_in_doubt;
  // ID → the distinct MsgIds of the replies (dead letters) got for it: a reply got again after a commit
  // whose answer never came has the same MsgId; a second reply has another.
  std::map<std::string, std::set<std::string>> replies, dead;
  std::map<std::string, std::string> reply_text;  // the first reply's message (IVTNO's first 40 columns)
  std::vector<std::string> strange;               // messages without an ID
  std::size_t answered_certain = 0;

  bool answered(const std::string& id) const { return replies.count(id) != 0 || dead.count(id) != 0; }
  std::size_t outstanding() const { return put_certain.size() - answered_certain; }
};

class crash : public ::testing::Test {
 protected:
  void TearDown() override {
    // IMSB_BRIDGE_CRASH_LOGS=1: the logs of a passing test too (where the time went).
    if (rig_ && (HasFailure() || std::getenv("IMSB_BRIDGE_CRASH_LOGS") != nullptr)) std::cerr << rig_->logs();
    rig_.reset();
  }

  // The rig with a fixed hub port, everything started.
  void start(qm_mode mode) {
    rig_ = std::make_unique<bridge_rig>(mode);
    rig_->hub_listen_port = free_port();
    ASSERT_NE(rig_->hub_listen_port, 0);
    const std::string e = rig_->start({}, bridge_args_);
    ASSERT_TRUE(e.empty()) << e;
    rig_->drop_connection();  // each thread here has its own; the rig's is made again when needed
  }

  // A connection, retried while the queue manager restarts, until `stop` is set.
  result<std::unique_ptr<mqi::connection>> connect_retrying(const std::atomic<bool>& stop) {
    for (;;) {
      auto c = rig_->try_connect();
      if (c || stop) return c;
      std::this_thread::sleep_for(50ms);
    }
  }

  void requester(int k, char commit_mode) {
    int n = 0;
    const std::string queue = k % 2 == 0 ? bridge_q : bridge_q2;
    while (!stop_putting_) {
      auto c = connect_retrying(stop_putting_);
      if (!c) return;
      auto h = (*c)->open({queue, ""}, mq::MQOO_OUTPUT);
      if (!h) {
        std::this_thread::sleep_for(50ms);
        continue;
      }
      while (!stop_putting_) {
        {
          std::unique_lock<std::mutex> lock(book_.m);
          if (!book_.cv.wait_for(lock, 100ms, [&] { return book_.outstanding() < window; })) continue;
        }
        char id[16];
        std::snprintf(id, sizeof id, "R%dN%06d", k, n++);
        // IVTNO's columns: trancode 8, process code 8, last name 10, first name 10, extension 10.
        auto o = request({pad("IVTNO", 8) + pad("ADD", 8) + pad(id, 10) + pad("CRASH", 10) + pad("4711", 10)},
                         commit_mode);
        o.bridge_queue = queue;
        const auto msg = bridge::build_imsreq_message(o, mq::MQENC_NATIVE_LINUX_X86, codepage::ccsid_819);
        auto p =
            (*c)->put(h->handle, msg.md, bytes_view(msg.data), mq::MQPMO_SYNCPOINT | mq::MQPMO_NEW_MSG_ID);
        if (!p) break;  // nothing committed: the unit of work goes with the connection
        auto cm = (*c)->commit();
        std::lock_guard<std::mutex> lock(book_.m);
        if (cm) {
          book_.put_certain.insert(id);
          if (book_.answered(id)) ++book_.answered_certain;
        } else {
          book_.put_in_doubt.insert(id);
          break;
        }
      }
    }
  }

  // One message got (under syncpoint) from the reply queue or the dead-letter queue.
  void record(const mqi::message& m, bool dead_letter) {
    std::string id;
    std::string text;
    if (dead_letter) {
      id = find_id(m.data);
    } else {
      const auto r = bridge::decode_imsreq_reply(m);
      if (!r.segments.empty()) {
        text = rtrim(r.segments.front().substr(0, 40));
        id = find_id(r.segments.front());
      } else {
        id = find_id(m.data);
      }
    }
    std::lock_guard<std::mutex> lock(book_.m);
    if (id.empty()) {
      book_.strange.push_back(std::string(dead_letter ? "dead letter " : "reply ") + hex(m.md.msg_id) + ": " +
                              std::string(m.data.begin(), m.data.end()));
      return;
    }
    const bool was = book_.answered(id);
    (dead_letter ? book_.dead : book_.replies)[id].insert(hex(m.md.msg_id));
    if (!dead_letter && book_.reply_text.count(id) == 0) book_.reply_text[id] = text;
    if (!was && book_.put_certain.count(id) != 0) ++book_.answered_certain;
    book_.cv.notify_all();
  }

  void collector() {
    while (!stop_all_) {
      auto c = connect_retrying(stop_all_);
      if (!c) return;
      auto hr = (*c)->open({reply_q, ""}, mq::MQOO_INPUT_SHARED);
      auto hd = (*c)->open({dead_q, ""}, mq::MQOO_INPUT_SHARED);
      if (!hr || !hd) {
        std::this_thread::sleep_for(50ms);
        continue;
      }
      bool broken = false;
      while (!stop_all_ && !broken) {
        for (const bool dl : {false, true}) {
          mqi::get_request g;
          g.options = mq::MQGMO_SYNCPOINT | (dl ? mq::MQGMO_NO_WAIT : mq::MQGMO_WAIT);
          g.wait_interval_ms = 100;
          g.match_options = mq::MQMO_NONE;
          auto m = (*c)->get(dl ? hd->handle : hr->handle, g);
          if (!m) {
            if (m.error().code.category() == mq::mqrc_category() &&
                m.error().code.value() == mq::MQRC_NO_MSG_AVAILABLE)
              continue;
            broken = true;
            break;
          }
          record(*m, dl);
          // A commit without an answer may have happened or not: the message comes again (same MsgId)
          // or not; either way it was seen once.
          if (!(*c)->commit()) {
            broken = true;
            break;
          }
        }
      }
    }
  }

  // Kills the victim (SIGKILL) and starts it again as the rig did; "" or what went wrong.
  std::string kill_and_restart(victim v) {
    switch (v) {
      case victim::bridge:
        rig_->bridge.signal(SIGKILL);
        rig_->bridge.wait_exit(10000ms);
        rig_->drop_connection();
        return rig_->start_bridge(bridge_args_);
      case victim::ims:
        rig_->ims.signal(SIGKILL);
        rig_->ims.wait_exit(10000ms);
        return rig_->start_ims();
      case victim::hub:
        rig_->hub.signal(SIGKILL);
        rig_->hub.wait_exit(10000ms);
        return rig_->start_hub();
      case victim::daemon: {
        std::ifstream f(rig_->qmgr_dir() + "/qmgr.pid");
        long pid = 0;
        if (!(f >> pid) || pid <= 0) return "no qmgr.pid";
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        // Not our child (strmqm's): gone once kill(pid, 0) fails.
        const auto until = clock_type::now() + 10s;
        while (::kill(static_cast<pid_t>(pid), 0) == 0 && clock_type::now() < until)
          std::this_thread::sleep_for(5ms);
        rig_->drop_connection();
        ran r;
        for (int i = 0; i < 50; ++i) {  // the lock of the dead daemon may take a moment to go
          r = rig_->run(IMSB_STRMQM, {qm_name});
          if (r.code == 0) return {};
          std::this_thread::sleep_for(100ms);
        }
        return "strmqm: " + r.both();
      }
    }
    return "?";
  }

  // The whole test: load, kills, drain, checks.
  void run(qm_mode mode, victim v, char commit_mode) {
    const auto t0 = clock_type::now();
    start(mode);
    if (HasFatalFailure()) return;
    const int kills = kills_per_test();
    std::vector<std::thread> threads;
    for (int k = 0; k < requesters; ++k)
      threads.emplace_back([this, k, commit_mode] { requester(k, commit_mode); });
    threads.emplace_back([this] { collector(); });

    std::mt19937 rng(std::random_device{}());
    std::string trouble;
    for (int i = 0; i < kills && trouble.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 1700));
      trouble = kill_and_restart(v);
    }
    std::this_thread::sleep_for(500ms);
    stop_putting_ = true;
    for (int k = 0; k < requesters; ++k) threads[static_cast<std::size_t>(k)].join();

    // Every committed request answered (60 s at most), then the in-doubt ones that were committed after
    // all: answered once the bridge queues are empty and no answer came for a while.
    const auto until = clock_type::now() + 60s;
    auto all_answered = [&] {
      std::lock_guard<std::mutex> lock(book_.m);
      return book_.outstanding() == 0;
    };
    while (trouble.empty() && !all_answered() && clock_type::now() < until) std::this_thread::sleep_for(50ms);
    std::size_t last = 0;
    auto quiet_since = clock_type::now();
    while (trouble.empty() && clock_type::now() < until) {
      std::size_t now;
      {
        std::lock_guard<std::mutex> lock(book_.m);
        now = book_.replies.size() + book_.dead.size();
      }
      if (now != last) {
        last = now;
        quiet_since = clock_type::now();
      }
      auto c = rig_->try_connect();
      const bool empty = c && depth_of(**c, bridge_q) == 0 && depth_of(**c, bridge_q2) == 0;
      if (empty && clock_type::now() - quiet_since > 1500ms) break;
      std::this_thread::sleep_for(100ms);
    }
    stop_all_ = true;
    threads.back().join();
    ASSERT_TRUE(trouble.empty()) << "restart after a kill of " << to_string(v) << ": " << trouble;
    std::string state = rig_->state();
    if (!rig_->bridge.running()) {
      const auto st = rig_->bridge.wait_exit(0ms);
      state +=
          "--- imsbridge is not running: wait status " + (st ? std::to_string(*st) : std::string("?")) + "\n";
    }

    // The bridge's possible duplicates (IMB2010W ... sent again), over all its runs (the log is appended).
    std::size_t reported_duplicates = 0;
    {
      const std::string log = rig_->bridge_log();
      for (auto p = log.find("sent again: its outcome was unknown"); p != std::string::npos;
           p = log.find("sent again: its outcome was unknown", p + 1))
        ++reported_duplicates;
    }
    // imsemu stopped cleanly, then its journal read (it holds the journal's lock while it runs).
    rig_->stop_bridge();
    ASSERT_TRUE(rig_->ims.signal(SIGTERM));
    rig_->ims.wait_exit(20000ms);
    auto j = imsemu::journal::open(rig_->dir.file("ims-state"), false);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    const auto& js = j->state();
    std::size_t runs = 0, other_runs = 0;
    for (const auto& r : js.runs) {
      if (r.transaction == "IVTNO" && r.outcome == "OK")
        ++runs;
      else
        ++other_runs;
    }
    std::set<std::string> in_book;
    for (const auto& [name, entry] : js.phonebook.entries()) in_book.insert(name);

    std::lock_guard<std::mutex> lock(book_.m);
    std::size_t lost = 0, twice = 0, from_nowhere = 0, in_doubt_answered = 0, failed_adds = 0;
    std::set<std::string> answered_ids;
    std::string detail;
    auto note = [&](const std::string& line) {
      if (detail.size() < 4000) detail += line + "\n";
    };
    for (const auto& id : book_.put_certain) {
      const std::size_t n = (book_.replies.count(id) ? book_.replies[id].size() : 0) +
                            (book_.dead.count(id) ? book_.dead[id].size() : 0);
      if (n == 0) ++lost, note("lost: " + id);
      if (n > 1) ++twice, note("answered " + std::to_string(n) + " times: " + id);
    }
    for (const auto& id : book_.put_in_doubt) {
      const std::size_t n = (book_.replies.count(id) ? book_.replies[id].size() : 0) +
                            (book_.dead.count(id) ? book_.dead[id].size() : 0);
      if (n > 1) ++twice, note("in doubt, answered " + std::to_string(n) + " times: " + id);
      if (n != 0) ++in_doubt_answered;
    }
    std::size_t reply_count = 0, dead_count = 0;
    for (const auto& [id, ids] : book_.replies) {
      reply_count += ids.size();
      answered_ids.insert(id);
      if (!book_.put_certain.count(id) && !book_.put_in_doubt.count(id))
        ++from_nowhere, note("from nowhere: " + id);
      if (book_.reply_text[id] != "ENTRY WAS ADDED")
        ++failed_adds, note(id + " replied: " + book_.reply_text[id]);
    }
    for (const auto& [id, ids] : book_.dead) {
      dead_count += ids.size();
      note("dead letter: " + id);
      if (!book_.put_certain.count(id) && !book_.put_in_doubt.count(id))
        ++from_nowhere, note("from nowhere: " + id);
    }
    // The journal against the answers: a request that ran has its ID in the phone book.
    std::size_t ran_unanswered = 0, answered_not_run = 0;
    for (const auto& id : in_book)
      if (!book_.replies.count(id)) ++ran_unanswered, note("ran without a reply: " + id);
    for (const auto& id : answered_ids)
      if (!in_book.count(id)) ++answered_not_run, note("replied but not in the journal's phone book: " + id);
    const std::size_t extra_runs = runs >= in_book.size() ? runs - in_book.size() : 0;
    const double secs = std::chrono::duration<double>(clock_type::now() - t0).count();
    std::printf(
        "crash %s %s CM%c: %d kills, %zu requests committed (%zu in doubt, %zu of them answered), %zu "
        "replies, "
        "%zu dead letters, %zu answered twice, %zu lost; journal: %zu IVTNO runs for %zu IDs (%zu beyond "
        "one, "
        "%zu other runs); bridge reported %zu possible duplicates; %.1f s\n",
        imsb::test::to_string(mode), to_string(v), commit_mode, kills, book_.put_certain.size(),
        book_.put_in_doubt.size(), in_doubt_answered, reply_count, dead_count, twice, lost, runs,
        in_book.size(), extra_runs, other_runs, reported_duplicates, secs);
    const std::string why = detail + state;
    EXPECT_GT(book_.put_certain.size(), static_cast<std::size_t>(kills * 5))
        << "too little work to prove anything";
    EXPECT_TRUE(book_.strange.empty()) << joined(book_.strange);
    EXPECT_EQ(lost, 0U) << why;
    EXPECT_EQ(twice, 0U) << why;
    EXPECT_EQ(from_nowhere, 0U) << why;
    EXPECT_EQ(dead_count, 0U) << why;  // persistent requests for a defined transaction: none is bad
    EXPECT_EQ(ran_unanswered, 0U) << why;
    EXPECT_EQ(answered_not_run, 0U) << why;
    EXPECT_TRUE(js.inputs.empty()) << js.inputs.size() << " inputs still queued in IMS";
    if (commit_mode == '0') {
      EXPECT_EQ(extra_runs, 0U) << "CM0 requests ran twice\n" << why;
      EXPECT_EQ(failed_adds, 0U) << why;
      EXPECT_EQ(reported_duplicates, 0U);
    } else {
      EXPECT_LE(extra_runs, reported_duplicates) << "runs beyond one per request the bridge did not report\n"
                                                 << why;
      EXPECT_LE(failed_adds, extra_runs) << why;
    }
  }

  static std::int32_t depth_of(mqi::connection& c, const std::string& queue) {
    auto h = c.open({queue, ""}, mq::MQOO_INQUIRE);
    if (!h) return -1;
    auto st = mqi::inquire_queue(c, h->handle);
    (void)c.close(h->handle);
    return st ? st->current_depth : -1;
  }

  // A back-off capped at 2 s instead of 30: the bridge comes back within a kill's interval, so that the
  // next kill finds work under way (the default's longer waits change when, not whether, it recovers).
  const std::vector<std::string> bridge_args_{"--bridge.backoff-max-ms=2000"};
  std::unique_ptr<bridge_rig> rig_;
  ledger book_;
  std::atomic<bool> stop_putting_{false}, stop_all_{false};
};

// ---- CM0, persistent: exactly once ------------------------------------------------------------------------

TEST_F(crash, embedded_cm0_kill9_of_imsbridge) { run(qm_mode::embedded, victim::bridge, '0'); }
TEST_F(crash, embedded_cm0_kill9_of_imsemu) { run(qm_mode::embedded, victim::ims, '0'); }
TEST_F(crash, embedded_cm0_kill9_of_xcfhub) { run(qm_mode::embedded, victim::hub, '0'); }
TEST_F(crash, client_cm0_kill9_of_imsbridge) { run(qm_mode::client, victim::bridge, '0'); }
TEST_F(crash, client_cm0_kill9_of_imsemu) { run(qm_mode::client, victim::ims, '0'); }
TEST_F(crash, client_cm0_kill9_of_xcfhub) { run(qm_mode::client, victim::hub, '0'); }
TEST_F(crash, client_cm0_kill9_of_the_qmgr_daemon) { run(qm_mode::client, victim::daemon, '0'); }

// ---- CM1: none lost, duplicates counted
// ----------------------------------------------------------------------

TEST_F(crash, embedded_cm1_kill9_of_imsbridge) { run(qm_mode::embedded, victim::bridge, '1'); }
TEST_F(crash, embedded_cm1_kill9_of_imsemu) { run(qm_mode::embedded, victim::ims, '1'); }
TEST_F(crash, embedded_cm1_kill9_of_xcfhub) { run(qm_mode::embedded, victim::hub, '1'); }
TEST_F(crash, client_cm1_kill9_of_imsbridge) { run(qm_mode::client, victim::bridge, '1'); }
TEST_F(crash, client_cm1_kill9_of_imsemu) { run(qm_mode::client, victim::ims, '1'); }
TEST_F(crash, client_cm1_kill9_of_xcfhub) { run(qm_mode::client, victim::hub, '1'); }
TEST_F(crash, client_cm1_kill9_of_the_qmgr_daemon) { run(qm_mode::client, victim::daemon, '1'); }

}  // namespace
}  // namespace imsb::test
