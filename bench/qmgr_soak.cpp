// The soak target: "A 5-minute mixed load on 2 cores: RSS grows by less than 10% after the first minute"
// (bench/RESULTS.md "Queue manager: 5-minute soak"). A queue manager made in a temporary prefix runs inside
// this program with its server (bindings socket), as qmgr_roundtrip's does, and gets a mixed load from
// threads, some with in-process connections and some with client connections over the bindings socket:
//   - persistent puts under syncpoint with COA and COD reports to a reply queue, committed;
//   - gets under syncpoint of those, committed, one in ten backed out (BackoutCount counts);
//   - non-persistent put + get outside syncpoint, and MQPUT1;
//   - browses (first, then next) over the persistent queue;
//   - messages with a short expiry that expire (EXPIRATION reports), found by gets;
//   - a reader of the reply queue (the reports);
//   - connect / open / put1 / disconnect churn, alternately in-process and client;
//   - a client that drops its connection inside a unit of work (puts and gets backed out by the server).
// The producer holds the persistent queue's depth under a bound (MQINQ), so that the data held is steady
// and RSS growth means a leak, not a backlog. VmRSS (/proc/self/status) is sampled every 10 s; the
// program prints the series, RSS at 60 s and at the end and the growth, and exits 1 when it is ≥ 10 %
// (or when a call failed with an MQRC the load does not expect).
//
//   qmgr_soak [--seconds S (300)] [--no-fsync] [--trim]
// --trim (a diagnosis, not the figure): malloc_trim(0) before each sample, so that RSS shows what the
// allocator keeps only when the program still uses it.

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/server.hpp"
#include "imsb/qmgr/store.hpp"

namespace fs = std::filesystem;
using namespace imsb;
using namespace std::chrono_literals;

namespace {

using conn_ptr = std::unique_ptr<mqi::connection>;
using connector = std::function<result<conn_ptr>()>;

constexpr std::int32_t depth_bound = 2000;  // the producer waits above this depth of SOAK.P

long vm_rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

struct counters {
  std::atomic<std::uint64_t> puts{0}, gets{0}, commits{0}, backouts{0}, browses{0}, put1s{0}, expired_seen{0},
      reports{0}, churns{0}, drops{0}, errors{0};
  std::mutex m;
  std::vector<std::string> first_errors;
  void error(const std::string& what, const decode_error& e) {
    ++errors;
    std::lock_guard<std::mutex> lock(m);
    if (first_errors.size() < 10) first_errors.push_back(what + ": " + e.to_string());
  }
};

std::int32_t rc_of(const decode_error& e) { return static_cast<std::int32_t>(e.code.value()); }

mq::mqmd text_md(bool persistent) {
  mq::mqmd md;
  md.version = mq::MQMD_VERSION_2;
  md.persistence = persistent ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT;
  md.format = std::string(mq::MQFMT_STRING);
  return md;
}

mqi::get_request any_message(std::int32_t options, std::int32_t wait_ms = 0) {
  mqi::get_request r;
  r.options = options | (wait_ms > 0 ? mq::MQGMO_WAIT : mq::MQGMO_NO_WAIT);
  r.wait_interval_ms = wait_ms;
  r.match_options = mq::MQMO_NONE;
  return r;
}

// Runs `body(connection)` on fresh connections until `stop`; a failed call reconnects (after counting).
void loop_on(const connector& connect, const std::atomic<bool>& stop, counters& n, const char* name,
             const std::function<bool(mqi::connection&)>& body) {
  while (!stop) {
    auto c = connect();
    if (!c) {
      n.error(std::string(name) + " connect", c.error());
      std::this_thread::sleep_for(100ms);
      continue;
    }
    while (!stop && body(**c)) {
    }
    (void)(*c)->disconnect();
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The allocator as the daemon sets it (qmgr/src/daemon.cpp cap_malloc_arenas: two glibc arenas), so
  // that this measures what strmqm's process does; MALLOC_ARENA_MAX in the environment overrides it.
#ifdef M_ARENA_MAX
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) (void)::mallopt(M_ARENA_MAX, 2);
#endif
  double seconds = 300;
  bool fsync = true;
  bool trim = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--no-fsync") == 0) {
      fsync = false;
    } else if (std::strcmp(argv[i], "--trim") == 0) {
      trim = true;
    } else {
      std::fprintf(stderr, "usage: qmgr_soak [--seconds S] [--no-fsync] [--trim]\n");
      return 2;
    }
  }

  char tmpl[] = "/tmp/imsb-soak-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const fs::path dir = tmpl;
  struct cleanup {
    fs::path p;
    ~cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup_dir{dir};
  setenv("IMSBRIDGE_RUNTIME_DIR", (dir / "run").c_str(), 1);
  auto die = [](const std::string& what, const decode_error& e) {
    std::fprintf(stderr, "qmgr_soak: %s: %s\n", what.c_str(), e.to_string().c_str());
    return 1;
  };
  const std::string qm_name = "SOAKQM";
  objects::exec_context ctx{"2026-11-30", "00.00.00", false};
  auto catalog = objects::new_queue_manager(qm_name, names::fs_profile::posix, "", "", ctx);
  if (!catalog) return die("new_queue_manager", catalog.error());
  auto store = qmgr::queue_manager_store::create(dir / "prefix", *catalog);
  if (!store) return die("create", store.error());
  auto lock = store->try_lock();
  if (!lock) return die("lock", lock.error());
  qmgr::runtime_options opts;
  opts.log.fsync = fsync;
  auto qm = qmgr::queue_manager::start(std::move(*store), std::move(*lock), opts);
  if (!qm) return die("start", qm.error());

  qmgr::principal admin;
  admin.user = "soak";
  admin.administrator = true;
  admin.appl_name = "qmgr_soak";
  {
    auto c = (*qm)->connect(admin);
    if (!c) return die("connect", c.error());
    auto r = (*c)->mqsc(
        "DEFINE QLOCAL(SOAK.P) DEFPSIST(YES) MAXDEPTH(100000)\n"
        "DEFINE QLOCAL(SOAK.N) MAXDEPTH(100000)\n"
        "DEFINE QLOCAL(SOAK.EXP) MAXDEPTH(100000)\n"
        "DEFINE QLOCAL(SOAK.REPLY) MAXDEPTH(100000)\n"
        "DEFINE QLOCAL(SOAK.CHURN) MAXDEPTH(100000)\n");
    if (!r) return die("mqsc", r.error());
    if (r->exit_code != 0) {
      for (const auto& l : r->lines) std::fprintf(stderr, "%s\n", l.c_str());
      return 1;
    }
  }
  qmgr::server_options so;
  auto sock = qmgr::bindings_socket_path(dir / "prefix", qm_name);
  if (!sock) return die("socket path", sock.error());
  so.bindings_socket = *sock;
  so.credential_file = dir / "credentials";
  auto srv = qmgr::server::start(**qm, so);
  if (!srv) return die("server", srv.error());

  const connector in_process = [&]() { return (*qm)->connect(admin); };
  const connector client = [&]() -> result<conn_ptr> {
    qmgr::connect_options co;
    co.target = qm_name;
    co.prefix = (dir / "prefix").string();
    co.mqserver = std::nullopt;
    co.appl_name = "qmgr_soak";
    return qmgr::connect(co);
  };

  counters n;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  const bytes body(1024, 'p');
  const bytes small(64, 's');

  // Producer (client): 8 persistent messages with COA+COD reports per unit of work, then commit.
  threads.emplace_back([&] {
    loop_on(client, stop, n, "producer", [&](mqi::connection& c) {
      auto h = c.open({"SOAK.P", ""}, mq::MQOO_OUTPUT | mq::MQOO_INQUIRE);
      if (!h) return n.error("producer open", h.error()), false;
      auto r = c.open({"SOAK.REPLY", ""}, mq::MQOO_INQUIRE);
      if (!r) return n.error("producer open", r.error()), false;
      for (int round = 0; round < 500 && !stop; ++round) {
        auto st = mqi::inquire_queue(c, h->handle);
        if (!st) return n.error("producer inquire", st.error()), false;
        auto rst = mqi::inquire_queue(c, r->handle);
        if (!rst) return n.error("producer inquire", rst.error()), false;
        if (st->current_depth > depth_bound || rst->current_depth > depth_bound) {
          std::this_thread::sleep_for(20ms);
          continue;
        }
        for (int i = 0; i < 8; ++i) {
          mq::mqmd md = text_md(true);
          md.report = mq::MQRO_COA | mq::MQRO_COD;
          md.reply_to_q = "SOAK.REPLY";
          auto p = c.put(h->handle, md, body, mq::MQPMO_SYNCPOINT | mq::MQPMO_NEW_MSG_ID);
          if (!p) return n.error("producer put", p.error()), false;
          ++n.puts;
        }
        auto cm = c.commit();
        if (!cm) return n.error("producer commit", cm.error()), false;
        ++n.commits;
      }
      (void)c.close(h->handle);
      (void)c.close(r->handle);
      return true;  // a new open on the same connection
    });
  });

  // Consumer (in-process): gets under syncpoint, nine commits in ten and one backout.
  threads.emplace_back([&] {
    loop_on(in_process, stop, n, "consumer", [&](mqi::connection& c) {
      auto h = c.open({"SOAK.P", ""}, mq::MQOO_INPUT_SHARED);
      if (!h) return n.error("consumer open", h.error()), false;
      for (int round = 0; round < 500 && !stop; ++round) {
        for (int i = 0; i < 4; ++i) {
          auto g = c.get(h->handle, any_message(mq::MQGMO_SYNCPOINT, 100));
          if (!g) {
            if (rc_of(g.error()) == mq::MQRC_NO_MSG_AVAILABLE) break;
            return n.error("consumer get", g.error()), false;
          }
          ++n.gets;
        }
        if (round % 10 == 9) {
          auto b = c.backout();
          if (!b) return n.error("consumer backout", b.error()), false;
          ++n.backouts;
        } else {
          auto cm = c.commit();
          if (!cm) return n.error("consumer commit", cm.error()), false;
          ++n.commits;
        }
      }
      (void)c.close(h->handle);
      return true;
    });
  });

  // Non-persistent put + get outside syncpoint, and MQPUT1 (in-process).
  threads.emplace_back([&] {
    loop_on(in_process, stop, n, "nonpersistent", [&](mqi::connection& c) {
      auto h = c.open({"SOAK.N", ""}, mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
      if (!h) return n.error("np open", h.error()), false;
      for (int round = 0; round < 2000 && !stop; ++round) {
        auto p = c.put(h->handle, text_md(false), body, mq::MQPMO_NO_SYNCPOINT);
        if (!p) return n.error("np put", p.error()), false;
        auto p1 = c.put1({"SOAK.N", ""}, text_md(false), small, mq::MQPMO_NO_SYNCPOINT);
        if (!p1) return n.error("np put1", p1.error()), false;
        n.puts += 2;
        ++n.put1s;
        for (int i = 0; i < 2; ++i) {
          auto g = c.get(h->handle, any_message(mq::MQGMO_NO_SYNCPOINT));
          if (!g) return n.error("np get", g.error()), false;
          ++n.gets;
        }
        if (round % 64 == 0) std::this_thread::sleep_for(1ms);  // leave the cores to the others
      }
      (void)c.close(h->handle);
      return true;
    });
  });

  // Browser (client): browse first, then next through the persistent queue (at most 200 a pass).
  threads.emplace_back([&] {
    loop_on(client, stop, n, "browser", [&](mqi::connection& c) {
      auto h = c.open({"SOAK.P", ""}, mq::MQOO_BROWSE);
      if (!h) return n.error("browse open", h.error()), false;
      for (int pass = 0; pass < 50 && !stop; ++pass) {
        std::int32_t opt = mq::MQGMO_BROWSE_FIRST;
        for (int i = 0; i < 200; ++i) {
          auto g = c.get(h->handle, any_message(opt));
          if (!g) {
            if (rc_of(g.error()) == mq::MQRC_NO_MSG_AVAILABLE) break;
            return n.error("browse", g.error()), false;
          }
          ++n.browses;
          opt = mq::MQGMO_BROWSE_NEXT;
        }
        std::this_thread::sleep_for(50ms);
      }
      (void)c.close(h->handle);
      return true;
    });
  });

  // Expiry (client): messages that live 0.1 s with an EXPIRATION report; a get later finds them expired.
  threads.emplace_back([&] {
    loop_on(client, stop, n, "expiry", [&](mqi::connection& c) {
      auto h = c.open({"SOAK.EXP", ""}, mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
      if (!h) return n.error("expiry open", h.error()), false;
      for (int round = 0; round < 100 && !stop; ++round) {
        for (int i = 0; i < 20; ++i) {
          mq::mqmd md = text_md(i % 2 == 0);
          md.expiry = 1;  // tenths of a second
          md.report = mq::MQRO_EXPIRATION;
          md.reply_to_q = "SOAK.REPLY";
          auto p = c.put(h->handle, md, small, mq::MQPMO_NO_SYNCPOINT);
          if (!p) return n.error("expiry put", p.error()), false;
          ++n.puts;
        }
        std::this_thread::sleep_for(200ms);
        auto g = c.get(h->handle, any_message(mq::MQGMO_NO_SYNCPOINT));
        if (g)
          return n.error("expiry get", {mq::make_mqrc(0), "MQGET", 0, "an expired message was got"}), false;
        if (rc_of(g.error()) != mq::MQRC_NO_MSG_AVAILABLE) return n.error("expiry get", g.error()), false;
        n.expired_seen += 20;
      }
      (void)c.close(h->handle);
      return true;
    });
  });

  // The reply queue's reader (in-process): COA, COD and EXPIRATION reports.
  threads.emplace_back([&] {
    loop_on(in_process, stop, n, "replies", [&](mqi::connection& c) {
      auto h = c.open({"SOAK.REPLY", ""}, mq::MQOO_INPUT_SHARED);
      if (!h) return n.error("reply open", h.error()), false;
      // Reports are as persistent as their messages: got under syncpoint, 100 to a commit.
      for (int i = 0; i < 100 && !stop; ++i) {
        for (int k = 0; k < 100; ++k) {
          auto g = c.get(h->handle, any_message(mq::MQGMO_SYNCPOINT, k == 0 ? 100 : 0));
          if (!g) {
            if (rc_of(g.error()) == mq::MQRC_NO_MSG_AVAILABLE) break;
            return n.error("reply get", g.error()), false;
          }
          if (g->md.msg_type != mq::MQMT_REPORT)
            return n.error("reply", {mq::make_mqrc(0), "MQGET", 0, "not a report"}), false;
          ++n.reports;
        }
        auto cm = c.commit();
        if (!cm) return n.error("reply commit", cm.error()), false;
        ++n.commits;
      }
      (void)c.close(h->handle);
      return true;
    });
  });

  // Churn: connect, put1, get, disconnect; alternately in-process and client.
  threads.emplace_back([&] {
    for (std::uint64_t i = 0; !stop; ++i) {
      auto c = (i % 2 == 0 ? in_process : client)();
      if (!c) {
        n.error("churn connect", c.error());
        std::this_thread::sleep_for(100ms);
        continue;
      }
      auto p = (*c)->put1({"SOAK.CHURN", ""}, text_md(false), small, mq::MQPMO_NO_SYNCPOINT);
      if (!p) n.error("churn put1", p.error());
      auto h = (*c)->open({"SOAK.CHURN", ""}, mq::MQOO_INPUT_SHARED);
      if (!h) {
        n.error("churn open", h.error());
      } else {
        auto g = (*c)->get(h->handle, any_message(mq::MQGMO_NO_SYNCPOINT));
        if (!g) n.error("churn get", g.error());
      }
      if (auto d = (*c)->disconnect(); !d) n.error("churn disconnect", d.error());
      ++n.churns;
      ++n.put1s;
      std::this_thread::sleep_for(5ms);
    }
  });

  // A client that drops its connection inside a unit of work: 3 persistent puts and 2 gets under
  // syncpoint, then the connection object goes without MQDISC (its socket closes: the server backs out).
  threads.emplace_back([&] {
    while (!stop) {
      auto c = client();
      if (!c) {
        n.error("dropper connect", c.error());
        std::this_thread::sleep_for(100ms);
        continue;
      }
      auto h = (*c)->open({"SOAK.P", ""}, mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
      if (!h) {
        n.error("dropper open", h.error());
      } else {
        for (int i = 0; i < 3; ++i) {
          if (auto p = (*c)->put(h->handle, text_md(true), body, mq::MQPMO_SYNCPOINT); !p)
            n.error("dropper put", p.error());
        }
        for (int i = 0; i < 2; ++i) {
          auto g = (*c)->get(h->handle, any_message(mq::MQGMO_SYNCPOINT));
          if (!g && rc_of(g.error()) != mq::MQRC_NO_MSG_AVAILABLE) n.error("dropper get", g.error());
        }
      }
      c->reset();  // no MQDISC
      ++n.drops;
      std::this_thread::sleep_for(50ms);
    }
  });

  // The depths of the two queues whose depth the load bounds (an in-process connection of the sampler).
  auto sampler = in_process();
  if (!sampler) return die("sampler connect", sampler.error());
  auto hp = (*sampler)->open({"SOAK.P", ""}, mq::MQOO_INQUIRE);
  auto hr = (*sampler)->open({"SOAK.REPLY", ""}, mq::MQOO_INQUIRE);
  if (!hp || !hr) return die("sampler open", (!hp ? hp.error() : hr.error()));
  auto depth = [&](mqi::hobj h) {
    auto st = mqi::inquire_queue(**sampler, h);
    return st ? st->current_depth : -1;
  };

  // RSS every 10 s, with what malloc holds in use (all arenas: if RSS steps up while this stays level, the
  // growth is the allocator's, not data the program keeps).
  std::vector<std::pair<int, long>> samples;
  const auto t0 = std::chrono::steady_clock::now();
  const auto end = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds));
  std::printf("qmgr_soak: %.0f s, fsync %s%s, %u cores\n", seconds, fsync ? "on" : "off",
              trim ? ", malloc_trim before each sample" : "", std::thread::hardware_concurrency());
  std::printf("%6s %10s %10s %6s %6s %5s %10s %10s %9s %9s %9s %9s %8s %7s %6s\n", "t(s)", "VmRSS(KiB)",
              "heap(KiB)", "depthP", "depthR", "ckpts", "puts", "gets", "commits", "backouts", "browses",
              "reports", "churns", "drops", "errors");
  for (int k = 1;; ++k) {
    const auto at = t0 + std::chrono::seconds(10 * k);
    if (at > end) break;
    std::this_thread::sleep_until(at);
    if (trim) ::malloc_trim(0);
    const long rss = vm_rss_kib();
    samples.emplace_back(10 * k, rss);
    const struct mallinfo2 mi = ::mallinfo2();
    std::printf(
        "%6d %10ld %10zu %6d %6d %5llu %10llu %10llu %9llu %9llu %9llu %9llu %8llu %7llu %6llu\n", 10 * k,
        rss, (mi.uordblks + mi.hblkhd) / 1024, depth(hp->handle), depth(hr->handle),
        static_cast<unsigned long long>((*qm)->statistics().log.checkpoints),
        static_cast<unsigned long long>(n.puts.load()), static_cast<unsigned long long>(n.gets.load()),
        static_cast<unsigned long long>(n.commits.load()), static_cast<unsigned long long>(n.backouts.load()),
        static_cast<unsigned long long>(n.browses.load()), static_cast<unsigned long long>(n.reports.load()),
        static_cast<unsigned long long>(n.churns.load()), static_cast<unsigned long long>(n.drops.load()),
        static_cast<unsigned long long>(n.errors.load()));
    std::fflush(stdout);
  }
  std::this_thread::sleep_until(end);
  stop = true;
  for (auto& t : threads) t.join();
  (void)(*sampler)->disconnect();
  (*qm)->quiesce();
  (*srv)->stop();

  const auto stats = (*qm)->statistics();
  std::printf(
      "engine: %llu puts, %llu gets, %llu commits, %llu backouts, %llu expired, %llu reports, "
      "%llu log fsyncs\n",
      static_cast<unsigned long long>(stats.puts), static_cast<unsigned long long>(stats.gets),
      static_cast<unsigned long long>(stats.commits), static_cast<unsigned long long>(stats.backouts),
      static_cast<unsigned long long>(stats.expired), static_cast<unsigned long long>(stats.reports),
      static_cast<unsigned long long>(stats.log.fsyncs));
  for (const auto& e : n.first_errors) std::printf("error: %s\n", e.c_str());
  int rc = n.errors == 0 ? 0 : 1;
  long base = -1;
  for (const auto& [t, rss] : samples)
    if (t == 60) base = rss;
  if (base > 0 && !samples.empty()) {
    const long last = samples.back().second;
    const double growth = 100.0 * static_cast<double>(last - base) / static_cast<double>(base);
    std::printf("RSS at 60 s: %ld KiB; at %d s: %ld KiB; growth %+.1f %% (limit 10 %%)\n", base,
                samples.back().first, last, growth);
    if (growth >= 10.0) rc = 1;
  } else {
    std::printf("run shorter than 60 s: no growth figure\n");
  }
  return rc;
}
