// imsbench: options, the request, statistics and the report (the run itself is run.cpp).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <system_error>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsbench/imsbench.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"

namespace imsb::imsbench {
namespace po = boost::program_options;

namespace {

decode_error usage_error(std::string field, std::string detail) {
  return decode_error{std::make_error_code(std::errc::invalid_argument), std::move(field), 0,
                      std::move(detail)};
}

po::options_description describe(options& o, std::string& commit_mode, std::string& tran,
                                 std::string& replies, std::vector<std::string>& queues, double& duration,
                                 std::uint64_t& count, std::string& prefix, std::string& mqserver) {
  po::options_description d("imsbench options");
  d.add_options()                             //
      ("help,h", "print this help and exit")  //
      ("qmgr,m", po::value(&o.qmgr),
       "queue manager: local:QM (in this process), QM (bindings); "
       "MQSERVER or --mqserver means a client connection")                                     //
      ("prefix", po::value(&prefix), "queue-manager data prefix (else IMSBRIDGE_PREFIX ...)")  //
      ("mqserver", po::value(&mqserver), "CHANNEL/TCP/host(port): connect over TCP")           //
      ("user", po::value(&o.user), "user for a TCP connection")                                //
      ("password", po::value(&o.password), "password for a TCP connection")                    //
      ("queue,q", po::value(&queues), "bridge queue; repeat (or A,B,C) for M queues")          //
      ("reply-queue,r", po::value(&o.reply_queue), "reply-to queue")                           //
      ("reply-queues", po::value(&replies),
       "shared (default: all requesters on REPLYQ, matched by "
       "CorrelId) or per-requester (REPLYQ.1 ... REPLYQ.N)")  //
      ("requesters,n", po::value(&o.requesters),
       "requester threads, each with its own connection "
       "(default 1)")                                                                                     //
      ("commit-mode", po::value(&commit_mode), "0 (commit then send, default) or 1 (send then commit)")   //
      ("persistent", po::bool_switch(&o.persistent), "persistent requests (default not persistent)")      //
      ("size", po::value(&o.size), "bytes of LLZZ segments per request (ECHO pads to it)")                //
      ("duration,d", po::value(&duration), "seconds to run (default 10)")                                 //
      ("count,c", po::value(&count), "requests to send in all, instead of a duration")                    //
      ("tran", po::value(&tran), "IVTNO (default: a DISPLAY line) or ECHO (padded to --size)")            //
      ("reply-wait", po::value(&o.reply_wait_ms), "milliseconds to wait for each reply (default 30000)")  //
      ("dlq", po::value(&o.dlq), "dead-letter queue to look for unanswered requests in")                  //
      ("no-iih", "send without an MQIIH (Format = blank: commit mode 0 only)")                            //
      ("json", po::bool_switch(&o.json), "print one JSON object");
  return d;
}

}  // namespace

std::string usage() {
  options o;
  std::string a, b, c, e, f;
  std::vector<std::string> q;
  double d = 0;
  std::uint64_t n = 0;
  std::ostringstream s;
  s << "Usage: imsbench -m QM -q BRIDGEQ [-q ...] -r REPLYQ [options]\n"
       "Puts IMS requests through the MQ-IMS bridge from N requester threads and prints throughput,\n"
       "latency percentiles (p50, p99, p99.9) and errors by MQRC or MQFB code.\n\n"
    << describe(o, a, b, c, q, d, n, e, f)
    << "\nExit codes: 0 every request had a normal reply; 1 errors, or no connection; 2 usage.\n";
  return s.str();
}

result<options> parse_options(const std::vector<std::string>& args) {
  options o;
  std::string commit_mode = "0", tran = "IVTNO", replies = "shared", prefix, mqserver;
  std::vector<std::string> queues;
  double duration = -1;
  std::uint64_t count = 0;
  po::options_description d =
      describe(o, commit_mode, tran, replies, queues, duration, count, prefix, mqserver);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(d).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error("command line", e.what());
  }
  if (vm.count("help")) {
    o.help = true;
    return o;
  }
  if (vm.count("prefix")) o.prefix = prefix;
  if (vm.count("mqserver")) o.mqserver = mqserver;
  for (const std::string& q : queues) {
    std::size_t from = 0;
    while (from <= q.size()) {
      const std::size_t comma = q.find(',', from);
      const std::string name = q.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      if (name.empty()) return usage_error("--queue", "an empty queue name in '" + q + "'");
      if (name.size() > mq::MQ_Q_NAME_LENGTH)
        return usage_error("--queue", name + " is longer than 48 characters");
      o.queues.push_back(name);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  if (o.queues.empty()) return usage_error("--queue", "give at least one bridge queue (-q)");
  if (o.reply_queue.empty()) return usage_error("--reply-queue", "give the reply-to queue (-r)");
  if (replies == "per-requester") {
    o.replies = reply_queues::per_requester;
  } else if (replies != "shared") {
    return usage_error("--reply-queues", "must be shared or per-requester, not '" + replies + "'");
  }
  if (o.replies == reply_queues::per_requester && o.reply_queue.size() + 5 > mq::MQ_Q_NAME_LENGTH) {
    return usage_error("--reply-queues",
                       "per-requester names " + o.reply_queue + ".N would be longer than 48");
  }
  if (o.requesters < 1 || o.requesters > 1024) {
    return usage_error("--requesters", "must be 1..1024, not " + std::to_string(o.requesters));
  }
  if (commit_mode != "0" && commit_mode != "1") {
    return usage_error("--commit-mode", "must be 0 or 1, not '" + commit_mode + "'");
  }
  o.commit_mode = commit_mode[0];
  for (char& ch : tran) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (tran == "ECHO") {
    o.tran = transaction::echo;
  } else if (tran != "IVTNO") {
    return usage_error("--tran", "must be IVTNO or ECHO, not '" + tran + "'");
  }
  if (o.size > 4 * 1024 * 1024) return usage_error("--size", "must be at most 4194304 bytes");
  if (vm.count("count") && vm.count("duration")) {
    return usage_error("--count", "give --duration or --count, not both");
  }
  if (vm.count("count")) {
    if (count == 0) return usage_error("--count", "must be at least 1");
    o.count = count;
  }
  if (vm.count("duration")) {
    if (!(duration > 0) || duration > 7 * 24 * 3600) {
      return usage_error("--duration", "must be more than 0 seconds (and at most a week)");
    }
    o.duration_s = duration;
  }
  if (o.reply_wait_ms < 1) return usage_error("--reply-wait", "must be at least 1 millisecond");
  if (vm.count("no-iih")) {
    if (o.commit_mode != '0') {
      return usage_error("--no-iih",
                         "a request without MQIIH is commit mode 0 (spec/mq.md §1.5); drop --commit-mode 1");
    }
    o.iih = false;
  }
  return o;
}

const std::string& queue_for(const options& o, int index) {
  return o.queues[static_cast<std::size_t>(index) % o.queues.size()];
}

std::string reply_queue_for(const options& o, int index) {
  if (o.replies == reply_queues::shared) return o.reply_queue;
  return o.reply_queue + "." + std::to_string(index + 1);
}

std::vector<std::string> request_segments(const options& o) {
  if (o.tran == transaction::ivtno) return {"IVTNO   DISPLAY LAST1"};
  // ECHO: LLZZ bytes total `size`; each segment carries 4 bytes of LLZZ.
  constexpr std::size_t max_segment = 32000;
  std::vector<std::string> segs;
  std::string first = "ECHO    ";
  std::size_t left = o.size > first.size() + 4 ? o.size - first.size() - 4 : 0;
  const std::size_t room = max_segment - 4 - first.size();
  const std::size_t take = std::min(left, room);
  first.append(take, 'X');
  left -= take;
  segs.push_back(first);
  while (left > 4) {
    const std::size_t n = std::min(left - 4, max_segment - 4);
    segs.emplace_back(n, 'X');
    left -= n + 4;
  }
  return segs;
}

request build_request(const options& o, std::int32_t encoding, std::int32_t ccsid) {
  request r;
  r.md.msg_type = mq::MQMT_REQUEST;
  r.md.report = mq::MQRO_EXCEPTION_WITH_DATA;
  r.md.encoding = encoding;
  r.md.coded_char_set_id = ccsid;
  r.md.persistence = o.persistent ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT;
  r.md.reply_to_q = codepage::pad_field("", mq::MQ_Q_NAME_LENGTH);  // set per requester
  r.md.format = o.iih ? std::string(mq::MQFMT_IMS) : std::string(mq::MQFMT_NONE);
  const byte_order order = integer_order(encoding);
  if (o.iih) {
    mq::mqiih iih;
    iih.format = std::string(mq::MQFMT_IMS_VAR_STRING);
    iih.commit_mode = o.commit_mode;
    mq::encode_mqiih(iih, encoding, ccsid, r.data);
  }
  for (const std::string& s : request_segments(o)) {
    const std::size_t at = r.data.size();
    r.data.resize(at + 4 + s.size());
    store_u16(r.data.data() + at, static_cast<std::uint16_t>(4 + s.size()), order);
    store_u16(r.data.data() + at + 2, 0, order);
    codepage::put_field(r.data.data() + at + 4, s.size(), s, ccsid);
  }
  return r;
}

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  if (q <= 0) return sorted.front();
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  std::size_t i = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  if (i >= sorted.size()) i = sorted.size() - 1;
  return sorted[i];
}

summary summarize(const std::vector<requester_stats>& per_requester, double elapsed_s) {
  summary s;
  std::vector<double> all;
  for (const requester_stats& r : per_requester) {
    all.insert(all.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    s.requests += r.requests;
    for (const auto& [code, n] : r.errors_by_code) {
      s.errors_by_code[code] += n;
      s.errors += n;
    }
  }
  std::sort(all.begin(), all.end());
  s.replies = all.size();
  s.elapsed_s = elapsed_s;
  s.tps = elapsed_s > 0 ? static_cast<double>(s.replies) / elapsed_s : 0;
  s.p50_ms = percentile(all, 0.50);
  s.p99_ms = percentile(all, 0.99);
  s.p999_ms = percentile(all, 0.999);
  s.max_ms = all.empty() ? 0 : all.back();
  double sum = 0;
  for (double v : all) sum += v;
  s.mean_ms = all.empty() ? 0 : sum / static_cast<double>(all.size());
  return s;
}

std::string mqrc_key(std::int32_t rc) {
  if (const mq::code_info* c = mq::find_mqrc(rc))
    return std::string(c->name) + " (" + std::to_string(rc) + ")";
  return "MQRC " + std::to_string(rc);
}

std::string mqfb_key(std::int32_t fb) {
  // describe_feedback: "NAME (value): meaning" or "MQFB n: ..."; the key is what comes before ": ".
  const std::string d = mq::describe_feedback(fb);
  const std::size_t colon = d.find(": ");
  return colon == std::string::npos ? d : d.substr(0, colon);
}

namespace {
std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
std::string json_text(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      r += buf;
    } else {
      r += c;
    }
  }
  return r + "\"";
}
}  // namespace

std::string render(const summary& s, const options& o) {
  std::ostringstream out;
  if (o.json) {
    out << "{\"requesters\":" << o.requesters << ",\"queues\":" << o.queues.size() << ",\"commit_mode\":\""
        << o.commit_mode << "\",\"persistent\":" << (o.persistent ? "true" : "false")
        << ",\"tran\":" << json_text(o.tran == transaction::echo ? "ECHO" : "IVTNO") << ",\"size\":" << o.size
        << ",\"reply_queues\":" << json_text(o.replies == reply_queues::shared ? "shared" : "per-requester")
        << ",\"elapsed_s\":" << fixed(s.elapsed_s, 3) << ",\"requests\":" << s.requests
        << ",\"replies\":" << s.replies << ",\"errors\":" << s.errors << ",\"tps\":" << fixed(s.tps, 1)
        << ",\"latency_ms\":{\"p50\":" << fixed(s.p50_ms, 3) << ",\"p99\":" << fixed(s.p99_ms, 3)
        << ",\"p99_9\":" << fixed(s.p999_ms, 3) << ",\"max\":" << fixed(s.max_ms, 3)
        << ",\"mean\":" << fixed(s.mean_ms, 3) << "},\"errors_by_code\":{";
    bool first = true;
    for (const auto& [code, n] : s.errors_by_code) {
      out << (first ? "" : ",") << json_text(code) << ":" << n;
      first = false;
    }
    out << "}}\n";
    return out.str();
  }
  out << msg::IMB4943I << " imsbench: " << o.requesters << " requester(s) over " << o.queues.size()
      << " queue(s), CM" << o.commit_mode << (o.persistent ? " persistent" : " non-persistent") << ", "
      << (o.tran == transaction::echo ? "ECHO" : "IVTNO") << ": " << s.requests << " requests, " << s.replies
      << " replies, " << s.errors << " errors in " << fixed(s.elapsed_s, 2) << " s = " << fixed(s.tps, 1)
      << " tps; latency ms p50 " << fixed(s.p50_ms, 3) << " p99 " << fixed(s.p99_ms, 3) << " p99.9 "
      << fixed(s.p999_ms, 3) << " max " << fixed(s.max_ms, 3) << "\n";
  for (const auto& [code, n] : s.errors_by_code)
    out << msg::IMB4943I << " imsbench: error " << code << ": " << n << "\n";
  return out.str();
}

}  // namespace imsb::imsbench
