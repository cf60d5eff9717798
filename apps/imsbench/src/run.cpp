// imsbench's run: one thread and one queue-manager connection per requester (mqi::connection is one
// thread's, as an MQI hconn), no sharing while the run goes; statistics merged at the end.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <ostream>
#include <random>
#include <thread>

#include "imsb/core/messages.hpp"
#include "imsb/imsbench/imsbench.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/transport/stop_signals.hpp"

namespace imsb::imsbench {
namespace {

using clock = std::chrono::steady_clock;

struct requester {
  std::unique_ptr<mqi::connection> conn;
  mqi::hobj bridge_q = 0;
  mqi::hobj reply_q = 0;
  std::optional<mqi::hobj> dlq;
  std::string reply_name;
  requester_stats stats;
  std::vector<std::array<std::uint8_t, 24>> unanswered;  // MsgIds of requests without an answer
  std::vector<std::array<std::uint8_t, 24>> cut_short;   // ... whose wait a second signal stopped
};

using transport::stop_signals;  // SIGINT/SIGTERM read through a signalfd (transport/stop_signals.hpp)

const char* signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

// What the progress line reads while the run goes: totals, and the latencies of the current second.
struct live_figures {
  std::atomic<std::uint64_t> sent{0}, replies{0}, errors{0};
  std::mutex m;
  std::vector<double> window;  // latencies since the last progress line
  bool keep_window = false;    // set before the requesters start: only with a progress line
  void reply(double ms) {
    ++replies;
    if (!keep_window) return;  // else the window would grow all run long, behind a lock every reply
    const std::lock_guard<std::mutex> lock(m);
    window.push_back(ms);
  }
};

// What every requester shares: the requests (one per workload item, or the one --tran request), the
// workload (null without one), the clock, the live figures.
struct shared_run {
  const options& o;
  const std::vector<request>& requests;
  const workload* w;
  clock::time_point start;
  clock::time_point deadline;
  std::atomic<std::uint64_t> issued{0};
  live_figures live;
  bool keep_events = false;  // --timeline or --plot: when each request was sent and answered
  // A first SIGINT/SIGTERM: no new requests (a think time ends at once). A second: no more waiting.
  std::atomic<bool> stopping{false};
  std::atomic<bool> stop_waiting{false};
  std::mutex stop_m{};
  std::condition_variable stop_cv{};
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(stop_m);
      stopping = true;
    }
    stop_cv.notify_all();
  }
  void event(requester_stats& r, double latency_ms, bool error) const {
    if (keep_events)
      r.events.push_back({std::chrono::duration<double>(clock::now() - start).count(), latency_ms, error});
  }
};

// The key for a reply the bridge built from IMS's error text after a NAK (PutApplType MQAT_IMS_BRIDGE,
// bridgemap/reply.hpp reply_context::error_reply): the DFS message ID in its text ("DFS1288E"), else
// "DFS reply". The text is in the queue manager's CCSID (819 here: the bridge converts it).
std::string dfs_reply_key(const bytes& data) {
  const auto digit = [](std::uint8_t c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i + 4 <= data.size(); ++i) {
    if (data[i] != 'D' || data[i + 1] != 'F' || data[i + 2] != 'S' || !digit(data[i + 3])) continue;
    std::size_t end = i + 3;
    while (end < data.size() && end - i < 7 && digit(data[end])) ++end;
    if (end < data.size() && data[end] >= 'A' && data[end] <= 'Z') ++end;  // the severity letter
    return std::string(data.begin() + static_cast<std::ptrdiff_t>(i),
                       data.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return "DFS reply";
}

void run_requester(requester& r, int index, shared_run& sh) {
  const options& o = sh.o;
  // One generator per requester, seeded by --seed and the requester's number: the same draws every run.
  std::mt19937_64 gen = requester_generator(o.seed, index);
  std::vector<mq::mqmd> mds;
  for (const request& q : sh.requests) {
    mds.push_back(q.md);
    mds.back().reply_to_q = r.reply_name;
    mds.back().reply_to_q.resize(mq::MQ_Q_NAME_LENGTH, ' ');
  }
  if (sh.w) r.stats.lines.resize(sh.w->items.size());
  bool first = true;
  while (true) {
    // With --count a request is claimed before the think time (no waiting for a request never sent);
    // with --duration the think time ends at the deadline, which is looked at after it. A signal ends
    // the think time at once.
    if (sh.stopping) break;
    if (o.count && sh.issued.fetch_add(1) >= *o.count) break;
    if (!first && o.think_ms > 0) {
      const double ms = think_time_ms(o, gen);
      clock::time_point until = clock::now() + std::chrono::duration_cast<clock::duration>(
                                                   std::chrono::duration<double, std::milli>(ms));
      if (!o.count && until > sh.deadline) until = sh.deadline;
      std::unique_lock<std::mutex> lock(sh.stop_m);  // think time is what it measures: a wait, not a poll
      sh.stop_cv.wait_until(lock, until, [&sh] { return sh.stopping.load(); });
    }
    first = false;
    if (sh.stopping) break;
    if (!o.count && clock::now() >= sh.deadline) break;
    const std::size_t item = sh.w ? pick(*sh.w, gen() % sh.w->total_weight) : 0;
    line_stats* line = sh.w ? &r.stats.lines[item] : nullptr;
    const auto fail = [&](const std::string& key, double ms) {
      ++r.stats.errors_by_code[key];
      sh.event(r.stats, ms, true);
      if (line) ++line->errors;
      ++sh.live.errors;
    };
    ++r.stats.requests;
    if (line) ++line->requests;
    const clock::time_point t0 = clock::now();
    if (sh.keep_events) r.stats.sent_s.push_back(std::chrono::duration<double>(t0 - sh.start).count());
    ++sh.live.sent;
    auto put = r.conn->put(r.bridge_q, mds[item], sh.requests[item].data,
                           mq::MQPMO_NEW_MSG_ID | mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING);
    if (!put) {
      const std::int32_t rc = mqi::reason_of(put.error());
      fail(mqrc_key(rc), 0);
      if (mqi::is_connection_gone(rc)) break;  // the requester stops
      continue;
    }
    mqi::get_request g;
    g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_FAIL_IF_QUIESCING;
    g.match_options = mq::MQMO_MATCH_CORREL_ID;
    g.correl_id = put->md.msg_id;
    // One wait of --reply-wait: the answer ends it, or the end of the wait, or a second signal, which
    // stops the connection (connection::stop: the get fails with MQRC_CONNECTION_STOPPING).
    g.wait_interval_ms = o.reply_wait_ms;
    auto reply = r.conn->get(r.reply_q, g);
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (!reply) {
      const std::int32_t rc = mqi::reason_of(reply.error());
      const bool cut_short = rc == mq::MQRC_CONNECTION_STOPPING && sh.stop_waiting;
      if (rc == mq::MQRC_NO_MSG_AVAILABLE || cut_short) {
        // Counted now in the timeline and the workload line; its key is decided at the end (--dlq).
        (cut_short ? r.cut_short : r.unanswered).push_back(put->md.msg_id);
        sh.event(r.stats, ms, true);
        if (line) ++line->errors;
        ++sh.live.errors;
        continue;
      }
      fail(mqrc_key(rc), ms);
      if (mqi::is_connection_gone(rc)) break;  // the requester stops
      continue;
    }
    if (reply->md.msg_type == mq::MQMT_REPORT || reply->md.feedback != mq::MQFB_NONE) {
      fail(mqfb_key(reply->md.feedback), ms);
    } else if (reply->md.put_appl_type == mq::MQAT_IMS_BRIDGE) {
      // IMS refused the request and said why (DFS text after a NAK): an error, not a reply.
      fail(dfs_reply_key(reply->data), ms);
    } else {
      r.stats.latencies_ms.push_back(ms);
      sh.event(r.stats, ms, false);
      if (line) line->latencies_ms.push_back(ms);
      sh.live.reply(ms);
    }
  }
}

// The progress line once a second until `done`: rewritten in place on a terminal, else one line each.
class progress_reporter {
 public:
  progress_reporter(std::ostream& err, bool in_place, live_figures& live, clock::time_point start)
      : err_(err), in_place_(in_place), live_(live), start_(start), thread_([this] { loop(); }) {}
  ~progress_reporter() { stop(); }
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      if (done_) return;
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (open_) err_ << "\n" << std::flush;  // the report starts on a line of its own
    open_ = false;
  }
  // A message line between two progress lines: after the line shown in place, on a line of its own.
  void say(const std::string& line) {
    const std::lock_guard<std::mutex> lock(m_);
    if (open_) err_ << "\n";
    err_ << line << "\n" << std::flush;
    open_ = false;
    width_ = 0;
  }

 private:
  void loop() {
    clock::time_point last = start_;
    std::unique_lock<std::mutex> lock(m_);
    for (clock::time_point next = start_ + std::chrono::seconds(1);; next += std::chrono::seconds(1)) {
      if (cv_.wait_until(lock, next, [this] { return done_; })) return;
      std::vector<double> window;
      {
        const std::lock_guard<std::mutex> w(live_.m);
        window.swap(live_.window);
      }
      const clock::time_point now = clock::now();
      const double interval = std::chrono::duration<double>(now - last).count();
      last = now;
      std::sort(window.begin(), window.end());
      const std::string line = progress_line(std::chrono::duration<double>(now - start_).count(),
                                             live_.sent.load(), live_.replies.load(), live_.errors.load(),
                                             interval > 0 ? static_cast<double>(window.size()) / interval : 0,
                                             percentile(window, 0.5), percentile(window, 0.99));
      if (in_place_) {
        err_ << "\r" << line << std::string(line.size() < width_ ? width_ - line.size() : 0, ' ')
             << std::flush;
        width_ = std::max(width_, line.size());
        open_ = true;
      } else {
        err_ << line << "\n" << std::flush;
      }
    }
  }

  std::ostream& err_;
  bool in_place_;
  live_figures& live_;
  clock::time_point start_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  bool open_ = false;  // a line shown in place, without its newline yet
  std::size_t width_ = 0;
  std::thread thread_;  // last: starts when the rest is ready
};

// A request without an answer: on the dead-letter queue (its MQDLH.Reason), or a timeout (or a wait a
// second signal cut short).
void classify_unanswered(requester& r) {
  for (std::size_t i = 0; i < r.unanswered.size() + r.cut_short.size(); ++i) {
    const bool cut = i >= r.unanswered.size();
    const auto& id = cut ? r.cut_short[i - r.unanswered.size()] : r.unanswered[i];
    std::string key = mqrc_key(mq::MQRC_NO_MSG_AVAILABLE) + (cut ? " wait cut short" : " timeout");
    if (r.dlq) {
      mqi::get_request g;
      g.options = mq::MQGMO_BROWSE_FIRST | mq::MQGMO_NO_WAIT;
      g.match_options = mq::MQMO_MATCH_MSG_ID;
      g.msg_id = id;
      auto m = r.conn->get(*r.dlq, g);
      if (m) {
        auto dlh = mq::decode_mqdlh(m->data, m->md.encoding, m->md.coded_char_set_id);
        key = dlh ? mqfb_key(dlh->reason) + " dead-lettered"
                  : std::string("dead-lettered, MQDLH does not decode");
      }
    }
    ++r.stats.errors_by_code[key];
  }
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const connector& connect) {
  auto parsed = parse_options(args);
  if (!parsed) {
    err << msg::IMB4940E << " imsbench: " << parsed.error().field << ": " << parsed.error().detail
        << " (imsbench --help)\n";
    return 2;
  }
  const options& o = *parsed;
  if (o.help) {
    out << usage();
    return 0;
  }
  std::optional<workload> w;
  if (!o.workload.empty()) {
    auto loaded = load_workload(o.workload);
    if (!loaded) {
      err << msg::IMB4945E << " imsbench: workload " << loaded.error().field << ": " << loaded.error().detail
          << "\n";
      return 2;
    }
    w = std::move(loaded.value());
    // A captured MQIIH is sent as it is: not what --no-iih asks for.
    for (const workload_item& item : w->items) {
      if (o.iih || !item.has_iih) continue;
      err << msg::IMB4945E << " imsbench: workload " << o.workload << ":" << item.line << ": " << item.label
          << " starts with an MQIIH, which --no-iih does not send: drop --no-iih, or capture the LLZZ "
             "segments only\n";
      return 2;
    }
  }
  // The output files are created before anything is sent, so that a wrong name costs no run.
  struct output_file {
    const char* what;
    std::string path;
    std::ofstream f;
  };
  std::vector<output_file> files;
  for (const auto& [what, path] : {std::pair<const char*, std::string>{"histogram", o.histogram},
                                   {"timeline", o.timeline},
                                   {"plot", o.plot}}) {
    if (path.empty()) continue;
    files.push_back({what, path, std::ofstream(path, std::ios::binary | std::ios::trunc)});
    if (!files.back().f) {
      err << msg::IMB4946E << " imsbench: cannot create the " << what << " file " << path << "\n";
      return 2;
    }
  }

  // Before the first connection starts a thread (the embedded queue manager's, a client's): from here
  // SIGINT and SIGTERM are read by this thread alone (the wait loop below), until run returns.
  const stop_signals signals;
  // Connect and open everything before the clock starts.
  std::vector<requester> rs(static_cast<std::size_t>(o.requesters));
  // When one requester cannot start, those already connected disconnect (MQDISC, not only a dropped
  // handle) before the run gives up, so the queue manager does not keep their connections.
  struct disconnect_on_failure {
    std::vector<requester>& rs;
    bool armed = true;
    ~disconnect_on_failure() {
      if (!armed) return;
      for (requester& r : rs)
        if (r.conn) {
          (void)r.conn->disconnect();
          r.conn.reset();
        }
    }
  } started_guard{rs};
  // A signal while the requesters connect: nothing was sent, there is nothing to report.
  const auto stopped_before_the_run = [&] {
    const int sig = signals.take();
    if (sig == 0) return false;
    err << msg::IMB4944I << " imsbench: " << signal_name(sig)
        << " while the requesters connected: stopped before the run, nothing was sent\n";
    return true;
  };
  for (int i = 0; i < o.requesters; ++i) {
    if (stopped_before_the_run()) return 1;
    requester& r = rs[static_cast<std::size_t>(i)];
    auto c = connect(o, i);
    if (!c) {
      err << msg::IMB4941E << " imsbench: requester " << i + 1 << ": cannot connect to '" << o.qmgr
          << "': " << c.error().to_string() << "\n";
      return 1;
    }
    r.conn = std::move(c.value());
    r.reply_name = reply_queue_for(o, i);
    auto q = r.conn->open({queue_for(o, i), ""}, mq::MQOO_OUTPUT | mq::MQOO_FAIL_IF_QUIESCING);
    if (!q) {
      err << msg::IMB4941E << " imsbench: cannot open bridge queue " << queue_for(o, i) << ": "
          << q.error().to_string() << "\n";
      return 1;
    }
    r.bridge_q = q->handle;
    auto rq = r.conn->open({r.reply_name, ""}, mq::MQOO_INPUT_SHARED | mq::MQOO_FAIL_IF_QUIESCING);
    if (!rq) {
      err << msg::IMB4941E << " imsbench: cannot open reply queue " << r.reply_name << ": "
          << rq.error().to_string() << "\n";
      return 1;
    }
    r.reply_q = rq->handle;
    if (!o.dlq.empty()) {
      auto d = r.conn->open({o.dlq, ""}, mq::MQOO_BROWSE | mq::MQOO_FAIL_IF_QUIESCING);
      if (!d) {
        err << msg::IMB4941E << " imsbench: cannot open dead-letter queue " << o.dlq
            << " to browse: " << d.error().to_string() << "\n";
        return 1;
      }
      r.dlq = d->handle;
    }
  }

  if (stopped_before_the_run()) return 1;
  started_guard.armed = false;  // from here on the run disconnects them itself

  // Requests in the queue manager's native encoding and CCSID [D] (docs/design/character-data.md:
  // the bridge converts them for IMS); captured workload messages as they are.
  std::vector<request> requests;
  if (w) {
    for (const workload_item& item : w->items) requests.push_back(build_request(o, item));
  } else {
    requests.push_back(build_request(o, mq::MQENC_NATIVE_LINUX_X86, 819));
  }
  const clock::time_point start = clock::now();
  shared_run sh{
      o,
      requests,
      w ? &*w : nullptr,
      start,
      start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(o.duration_s)),
      {},
      {}};
  const bool progress = o.progress == progress_mode::on ||
                        (o.progress == progress_mode::automatic && &err == &std::cerr && ::isatty(2) == 1);
  const bool in_place = &err == &std::cerr && ::isatty(2) == 1;
  std::optional<progress_reporter> reporter;
  sh.live.keep_window = progress;
  sh.keep_events = !o.timeline.empty() || !o.plot.empty();
  if (progress) reporter.emplace(err, in_place, sh.live, start);
  // Each requester writes a byte here when it has finished: this thread waits for them and for signals.
  int done_pipe[2] = {-1, -1};
  if (::pipe2(done_pipe, O_CLOEXEC) != 0) done_pipe[0] = done_pipe[1] = -1;
  std::vector<std::thread> threads;
  threads.reserve(rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    threads.emplace_back([&rs, i, &sh, fd = done_pipe[1]] {
      run_requester(rs[i], static_cast<int>(i), sh);
      const char one = 1;
      if (fd >= 0) {
        [[maybe_unused]] const auto ignored = ::write(fd, &one, 1);  // 1 byte, signals blocked: no EINTR
      }
    });
  }
  const auto say = [&](const std::string& line) {
    if (reporter) {
      reporter->say(line);
    } else {
      err << line << "\n" << std::flush;
    }
  };
  summary marks;  // what the signals did (interrupted, signal, interrupted_at_s, wait_cut_short)
  int signals_seen = 0;
  const auto on_signal = [&](int sig) {
    const std::uint64_t sent = sh.live.sent, answered = sh.live.replies + sh.live.errors;
    const std::uint64_t out_now = sent > answered ? sent - answered : 0;
    if (++signals_seen == 1) {
      marks.interrupted = true;
      marks.signal = signal_name(sig);
      marks.interrupted_at_s = std::chrono::duration<double>(clock::now() - start).count();
      sh.stop();
      say(std::string(msg::IMB4944I) + " imsbench: " + marks.signal +
          ": ending the run early: no new requests; " +
          (out_now == 0 ? std::string("no reply is still out")
                        : "waiting at most " + std::to_string(o.reply_wait_ms) + " ms for the " +
                              std::to_string(out_now) + " repl" + (out_now == 1 ? "y" : "ies") +
                              " still out (SIGINT or SIGTERM again stops waiting)"));
    } else if (signals_seen == 2) {
      marks.wait_cut_short = true;
      sh.stop_waiting = true;
      // Every requester's wait ends now, woken by the stop (a requester's connection is its thread's
      // until the joins below; stop() is the one call another thread may make).
      for (requester& r : rs) r.conn->stop();
      say(std::string(msg::IMB4944I) + " imsbench: " + signal_name(sig) + " again: no more waiting for the " +
          std::to_string(out_now) + " repl" + (out_now == 1 ? "y" : "ies") + " still out");
    }
  };
  if (done_pipe[0] >= 0) {
    bool watch_signals = signals.fd() >= 0;
    for (std::size_t finished = 0; finished < threads.size();) {
      pollfd fds[2] = {{done_pipe[0], POLLIN, 0}, {signals.fd(), POLLIN, 0}};
      const int n = ::poll(fds, watch_signals ? 2 : 1, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;  // cannot wait here any more: the joins below wait for the requesters
      }
      if ((fds[0].revents & POLLIN) != 0) {
        char buf[256];
        const ssize_t k = ::read(done_pipe[0], buf, sizeof buf);
        if (k > 0) finished += static_cast<std::size_t>(k);
      } else if ((fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        break;
      }
      if (watch_signals && (fds[1].revents & POLLIN) != 0) {
        for (int sig = signals.take(); sig != 0; sig = signals.take()) on_signal(sig);
      } else if (watch_signals && (fds[1].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        watch_signals = false;
      }
    }
  }
  for (std::thread& t : threads) t.join();
  for (int fd : done_pipe)
    if (fd >= 0) ::close(fd);
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  if (reporter) reporter->stop();

  std::size_t unanswered = 0, cut_short = 0;
  std::vector<requester_stats> stats;
  for (requester& r : rs) {
    unanswered += r.unanswered.size();
    cut_short += r.cut_short.size();
    classify_unanswered(r);
    stats.push_back(std::move(r.stats));
    (void)r.conn->disconnect();
  }
  summary s = summarize(stats, elapsed);
  s.interrupted = marks.interrupted;
  s.signal = marks.signal;
  s.interrupted_at_s = marks.interrupted_at_s;
  s.wait_cut_short = marks.wait_cut_short;
  const std::vector<line_summary> lines =
      w ? summarize_lines(stats, w->items.size()) : std::vector<line_summary>{};
  out << render(s, o, w ? &*w : nullptr, lines);
  if (unanswered > 0) {
    err << msg::IMB4942W << " imsbench: " << unanswered << " request(s) had no reply or report within "
        << o.reply_wait_ms << " ms" << (o.dlq.empty() ? "" : " (the dead-letter queue was searched)") << "\n";
  }
  if (cut_short > 0) {
    err << msg::IMB4942W << " imsbench: " << cut_short
        << " request(s) had no reply or report when a second signal stopped the wait"
        << (o.dlq.empty() ? "" : " (the dead-letter queue was searched)") << "\n";
  }
  bool written = true;
  if (!files.empty()) {
    std::vector<double> all;
    for (const requester_stats& r : stats)
      all.insert(all.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    std::sort(all.begin(), all.end());
    const std::vector<timeline_row> rows = make_timeline(stats, elapsed);
    for (output_file& f : files) {
      const std::string what = f.what;
      f.f << (what == "histogram"  ? histogram_csv(all)
              : what == "timeline" ? timeline_csv(rows)
                                   : plot_svg(rows, describe_run(o)));
      f.f.close();
      if (!f.f) {
        err << msg::IMB4946E << " imsbench: cannot write the " << what << " file " << f.path << "\n";
        written = false;
      } else {
        err << msg::IMB4943I << " imsbench: wrote the " << what << " to " << f.path << "\n";
      }
    }
  }
  return s.errors == 0 && written ? 0 : 1;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run(args, out, err, [](const options& o, int) {
    qmgr::connect_options c;
    c.target = o.qmgr;
    c.prefix = o.prefix;
    c.mqserver = o.mqserver;
    c.user = o.user;
    c.password = o.password;
    c.appl_name = "imsbench";
    return qmgr::connect(c);
  });
}

}  // namespace imsb::imsbench
