// imsbench's run: one thread and one queue-manager connection per requester (mqi::connection is one
// thread's, as an MQI hconn), no sharing while the run goes; statistics merged at the end.
#include <atomic>
#include <chrono>
#include <ostream>
#include <thread>

#include "imsb/core/messages.hpp"
#include "imsb/imsbench/imsbench.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/qmgr/connect.hpp"

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
};

// Codes after which a connection is of no more use: the requester stops [C] MQ reason codes.
bool connection_gone(std::int32_t rc) {
  return rc == 2009 /* CONNECTION_BROKEN */ || rc == 2018 /* HCONN_ERROR */ ||
         rc == mq::MQRC_Q_MGR_QUIESCING || rc == mq::MQRC_Q_MGR_STOPPING;
}

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

void run_requester(requester& r, const request& base, const options& o, clock::time_point deadline,
                   std::atomic<std::uint64_t>& issued) {
  mq::mqmd md = base.md;
  md.reply_to_q = r.reply_name;
  md.reply_to_q.resize(mq::MQ_Q_NAME_LENGTH, ' ');
  while (true) {
    if (o.count) {
      if (issued.fetch_add(1) >= *o.count) break;
    } else if (clock::now() >= deadline) {
      break;
    }
    ++r.stats.requests;
    const clock::time_point t0 = clock::now();
    auto put = r.conn->put(r.bridge_q, md, base.data,
                           mq::MQPMO_NEW_MSG_ID | mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING);
    if (!put) {
      const std::int32_t rc = put.error().code.value();
      ++r.stats.errors_by_code[mqrc_key(rc)];
      if (connection_gone(rc)) break;
      continue;
    }
    mqi::get_request g;
    g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_FAIL_IF_QUIESCING;
    g.wait_interval_ms = o.reply_wait_ms;
    g.match_options = mq::MQMO_MATCH_CORREL_ID;
    g.correl_id = put->md.msg_id;
    auto reply = r.conn->get(r.reply_q, g);
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (!reply) {
      const std::int32_t rc = reply.error().code.value();
      if (rc == mq::MQRC_NO_MSG_AVAILABLE) {
        r.unanswered.push_back(put->md.msg_id);  // classified at the end (--dlq)
        continue;
      }
      ++r.stats.errors_by_code[mqrc_key(rc)];
      if (connection_gone(rc)) break;
      continue;
    }
    if (reply->md.msg_type == mq::MQMT_REPORT || reply->md.feedback != mq::MQFB_NONE) {
      ++r.stats.errors_by_code[mqfb_key(reply->md.feedback)];
    } else if (reply->md.put_appl_type == mq::MQAT_IMS_BRIDGE) {
      // IMS refused the request and said why (DFS text after a NAK): an error, not a reply.
      ++r.stats.errors_by_code[dfs_reply_key(reply->data)];
    } else {
      r.stats.latencies_ms.push_back(ms);
    }
  }
}

// A request without an answer: on the dead-letter queue (its MQDLH.Reason), or a timeout.
void classify_unanswered(requester& r) {
  for (const auto& id : r.unanswered) {
    std::string key = mqrc_key(mq::MQRC_NO_MSG_AVAILABLE) + " timeout";
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
  for (int i = 0; i < o.requesters; ++i) {
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

  started_guard.armed = false;  // from here on the run disconnects them itself

  // Requests in the queue manager's native encoding and CCSID [D] (ARCHITECTURE.md "Character data":
  // the bridge converts them for IMS).
  const request base = build_request(o, mq::MQENC_NATIVE_LINUX_X86, 819);
  std::atomic<std::uint64_t> issued{0};
  const clock::time_point start = clock::now();
  const clock::time_point deadline =
      start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(o.duration_s));
  std::vector<std::thread> threads;
  threads.reserve(rs.size());
  for (requester& r : rs) {
    threads.emplace_back([&r, &base, &o, deadline, &issued] { run_requester(r, base, o, deadline, issued); });
  }
  for (std::thread& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();

  std::size_t unanswered = 0;
  std::vector<requester_stats> stats;
  for (requester& r : rs) {
    unanswered += r.unanswered.size();
    classify_unanswered(r);
    stats.push_back(std::move(r.stats));
    (void)r.conn->disconnect();
  }
  const summary s = summarize(stats, elapsed);
  out << render(s, o);
  if (unanswered > 0) {
    err << msg::IMB4942W << " imsbench: " << unanswered << " request(s) had no reply or report within "
        << o.reply_wait_ms << " ms" << (o.dlq.empty() ? "" : " (the dead-letter queue was searched)") << "\n";
  }
  return s.errors == 0 ? 0 : 1;
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
