// imsbench: options, the request, statistics and the report (the run itself is run.cpp).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
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

constexpr std::uint64_t max_count = 1000000000000;  // 10^12

// Two output names for one file: "a", "./a", "d/../a", a symbolic link to a folder on the way ...
bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code e1, e2;
  const std::filesystem::path pa = std::filesystem::weakly_canonical(std::filesystem::absolute(a, e1), e1);
  const std::filesystem::path pb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, e2), e2);
  return e1 || e2 ? a == b : pa == pb;
}

// Option values that are checked after parsing (strings to be interpreted).
struct raw_values {
  std::string commit_mode = "0", tran = "IVTNO", replies = "shared", prefix, mqserver, think = "fixed";
  std::vector<std::string> queues;
  double duration = -1;
  std::uint64_t count = 0;
};

po::options_description describe(options& o, raw_values& v) {
  po::options_description d("imsbench options");
  d.add_options()                             //
      ("help,h", "print this help and exit")  //
      ("qmgr,m", po::value(&o.qmgr),
       "queue manager: local:QM (in this process), QM (bindings); "
       "MQSERVER or --mqserver means a client connection")                                       //
      ("prefix", po::value(&v.prefix), "queue-manager data prefix (else IMSBRIDGE_PREFIX ...)")  //
      ("mqserver", po::value(&v.mqserver), "CHANNEL/TCP/host(port): connect over TCP")           //
      ("user", po::value(&o.user), "user for a TCP connection")                                  //
      ("password", po::value(&o.password), "password for a TCP connection")                      //
      ("queue,q", po::value(&v.queues), "bridge queue; repeat (or A,B,C) for M queues")          //
      ("reply-queue,r", po::value(&o.reply_queue), "reply-to queue")                             //
      ("reply-queues", po::value(&v.replies),
       "shared (default: all requesters on REPLYQ, matched by "
       "CorrelId) or per-requester (REPLYQ.1 ... REPLYQ.N)")  //
      ("requesters,n", po::value(&o.requesters),
       "requester threads, each with its own connection "
       "(default 1)")                                                                                      //
      ("commit-mode", po::value(&v.commit_mode), "0 (commit then send, default) or 1 (send then commit)")  //
      ("persistent", po::bool_switch(&o.persistent), "persistent requests (default not persistent)")       //
      ("size", po::value(&o.size), "bytes of LLZZ segments per request (ECHO pads to it)")                 //
      ("duration,d", po::value(&v.duration), "seconds to run (default 10)")                                //
      ("count,c", po::value(&v.count), "requests to send in all (1..10^12), instead of a duration")        //
      ("tran", po::value(&v.tran), "IVTNO (default: a DISPLAY line) or ECHO (padded to --size)")           //
      ("reply-wait", po::value(&o.reply_wait_ms), "milliseconds to wait for each reply (default 30000)")   //
      ("dlq", po::value(&o.dlq), "dead-letter queue to look for unanswered requests in")                   //
      ("no-iih", "send without an MQIIH (Format = blank: commit mode 0 only)")                             //
      ("json", po::bool_switch(&o.json), "print the report as one JSON object (\"format\": 1)")            //
      ("workload", po::value(&o.workload),
       "FILE of messages drawn by weight: lines 'WEIGHT TEXT' or 'WEIGHT @PATH' (instead of --tran and "
       "--size)")                                                                                   //
      ("seed", po::value(&o.seed), "seed for the workload draws and --think-dist exp (default 1)")  //
      ("think-ms", po::value(&o.think_ms),
       "milliseconds each requester waits after an answer (default 0)")  //
      ("think-dist", po::value(&v.think),
       "fixed (default: --think-ms each time) or exp (exponential, mean "
       "--think-ms)")                                                                                  //
      ("progress", "a progress line on standard error every second (default: when it is a terminal)")  //
      ("no-progress", "no progress line")                                                              //
      ("histogram", po::value(&o.histogram), "write the latency histogram to FILE.csv")                //
      ("timeline", po::value(&o.timeline), "write per-second figures to FILE.csv")                     //
      ("plot", po::value(&o.plot), "write latency and throughput over time to FILE.svg");
  return d;
}

}  // namespace

std::string usage() {
  options o;
  raw_values v;
  std::ostringstream s;
  s << "Usage: imsbench -m QM -q BRIDGEQ [-q ...] -r REPLYQ [options]\n"
       "Puts IMS requests through the MQ-IMS bridge from N requester threads and prints throughput,\n"
       "latency percentiles (p50, p99, p99.9) and errors by MQRC or MQFB code.\n\n"
    << describe(o, v)
    << "\nOutput: the report (text v1, or JSON format 1) on standard output; progress and messages on\n"
       "standard error. docs/programs/imsbench.md describes every file format.\n"
       "Ctrl-C (SIGINT) or SIGTERM ends the run early: no new requests, the replies still out are waited\n"
       "for (at most --reply-wait; a second signal stops waiting), then the report and files as usual,\n"
       "marked interrupted. A signal while the requesters connect stops imsbench without a report (exit 1).\n"
       "Exit codes: 0 every request had a normal reply (also when interrupted); 1 errors, or no connection,\n"
       "or an output file could not be written; 2 usage (a bad option, workload file or output file name).\n";
  return s.str();
}

result<options> parse_options(const std::vector<std::string>& args) {
  options o;
  raw_values v;
  po::options_description d = describe(o, v);
  std::string& commit_mode = v.commit_mode;
  std::string& tran = v.tran;
  std::string& replies = v.replies;
  std::vector<std::string>& queues = v.queues;
  double& duration = v.duration;
  std::uint64_t& count = v.count;
  std::string& prefix = v.prefix;
  std::string& mqserver = v.mqserver;
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
    // The upper bound also refuses a negative count, which the parser turns into a huge one.
    if (count == 0 || count > max_count)
      return usage_error("--count", "must be 1.." + std::to_string(max_count));
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
                         "a request without MQIIH is commit mode 0 (IBM's rule); drop --commit-mode 1");
    }
    o.iih = false;
  }
  if (!o.workload.empty() && (vm.count("tran") || vm.count("size"))) {
    return usage_error("--workload", "the workload file gives the messages: drop --tran and --size");
  }
  if (vm.count("workload") && o.workload.empty()) return usage_error("--workload", "give a file name");
  if (!(o.think_ms >= 0) || o.think_ms > 3600 * 1000.0) {
    return usage_error("--think-ms", "must be 0..3600000 milliseconds");
  }
  if (v.think == "exp") {
    o.think = think_dist::exp;
  } else if (v.think != "fixed") {
    return usage_error("--think-dist", "must be fixed or exp, not '" + v.think + "'");
  }
  if (vm.count("progress") && vm.count("no-progress")) {
    return usage_error("--progress", "give --progress or --no-progress, not both");
  }
  if (vm.count("progress")) o.progress = progress_mode::on;
  if (vm.count("no-progress")) o.progress = progress_mode::off;
  for (const auto& [name, file] : {std::pair<const char*, const std::string*>{"--histogram", &o.histogram},
                                   {"--timeline", &o.timeline},
                                   {"--plot", &o.plot}}) {
    if (vm.count(name + 2) && file->empty()) return usage_error(name, "give a file name");
  }
  // Two outputs into one file would overwrite each other.
  if (same_file(o.timeline, o.histogram)) return usage_error("--timeline", "the same file as --histogram");
  if (same_file(o.plot, o.histogram)) return usage_error("--plot", "the same file as --histogram");
  if (same_file(o.plot, o.timeline)) return usage_error("--plot", "the same file as --timeline");
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

namespace {
// The MQMD and MQIIH (unless --no-iih) of a request, then `segments` as LLZZ.
request build_from_segments(const options& o, const std::vector<std::string>& segments, std::int32_t encoding,
                            std::int32_t ccsid) {
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
  for (const std::string& s : segments) {
    const std::size_t at = r.data.size();
    r.data.resize(at + 4 + s.size());
    store_u16(r.data.data() + at, static_cast<std::uint16_t>(4 + s.size()), order);
    store_u16(r.data.data() + at + 2, 0, order);
    codepage::put_field(r.data.data() + at + 4, s.size(), s, ccsid);
  }
  return r;
}
}  // namespace

request build_request(const options& o, std::int32_t encoding, std::int32_t ccsid) {
  return build_from_segments(o, request_segments(o), encoding, ccsid);
}

request build_request(const options& o, const workload_item& w) {
  if (!w.data) return build_from_segments(o, w.segments, mq::MQENC_NATIVE_LINUX_X86, 819);
  request r = build_from_segments(o, {}, w.encoding, w.ccsid);  // the MQMD (and an MQIIH: dropped below)
  if (w.has_iih) {
    r.md.format = std::string(mq::MQFMT_IMS);
    r.data = *w.data;
  } else {
    r.data.insert(r.data.end(), w.data->begin(), w.data->end());  // after the MQIIH unless --no-iih
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

std::string utf8_text(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  const auto at = [&](std::size_t i) -> unsigned {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
  };
  const auto cont = [&](std::size_t i) { return (at(i) & 0xC0) == 0x80; };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned c = at(i);
    // The length of a well-formed UTF-8 sequence starting here (no overlong forms, no surrogates,
    // nothing above U+10FFFF), else 0.
    std::size_t n = 0;
    if (c < 0x80) {
      n = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = cont(i + 1) ? 2 : 0;
    } else if (c >= 0xE0 && c <= 0xEF) {
      const bool ok1 = c == 0xE0 ? at(i + 1) >= 0xA0 : c == 0xED ? at(i + 1) < 0xA0 : true;
      n = cont(i + 1) && ok1 && cont(i + 2) ? 3 : 0;
    } else if (c >= 0xF0 && c <= 0xF4) {
      const bool ok1 = c == 0xF0 ? at(i + 1) >= 0x90 : c == 0xF4 ? at(i + 1) < 0x90 : true;
      n = cont(i + 1) && ok1 && cont(i + 2) && cont(i + 3) ? 4 : 0;
    }
    if (n > 0) {
      r.append(s.substr(i, n));
      i += n;
    } else {  // a byte of ISO 8859-1 (CCSID 819): its character in UTF-8
      r += static_cast<char>(0xC0 | (c >> 6));
      r += static_cast<char>(0x80 | (c & 0x3F));
      ++i;
    }
  }
  return r;
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
std::string json_text(const std::string& text) {
  const std::string s = utf8_text(text);
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

std::vector<line_summary> summarize_lines(const std::vector<requester_stats>& per_requester, std::size_t n) {
  std::vector<line_summary> out(n);
  std::vector<std::vector<double>> all(n);
  for (const requester_stats& r : per_requester) {
    for (std::size_t i = 0; i < n && i < r.lines.size(); ++i) {
      out[i].requests += r.lines[i].requests;
      out[i].errors += r.lines[i].errors;
      all[i].insert(all[i].end(), r.lines[i].latencies_ms.begin(), r.lines[i].latencies_ms.end());
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::sort(all[i].begin(), all[i].end());
    out[i].replies = all[i].size();
    out[i].p50_ms = percentile(all[i], 0.50);
    out[i].p99_ms = percentile(all[i], 0.99);
  }
  return out;
}

std::string describe_run(const options& o) {
  std::ostringstream out;
  out << o.requesters << " requester(s) over " << o.queues.size() << " queue(s), CM" << o.commit_mode
      << (o.persistent ? " persistent" : " non-persistent") << ", ";
  if (!o.workload.empty()) {
    out << "workload " << o.workload;
  } else {
    out << (o.tran == transaction::echo ? "ECHO" : "IVTNO");
  }
  return out.str();
}

namespace {
std::string json_opt(const std::string& s) { return s.empty() ? "null" : json_text(s); }

std::string json_options(const options& o) {
  std::ostringstream out;
  out << "{\"qmgr\":" << json_text(o.qmgr) << ",\"prefix\":" << (o.prefix ? json_text(*o.prefix) : "null")
      << ",\"mqserver\":" << (o.mqserver ? json_text(*o.mqserver) : "null")
      << ",\"user\":" << json_text(o.user) << ",\"queues\":[";
  for (std::size_t i = 0; i < o.queues.size(); ++i) out << (i ? "," : "") << json_text(o.queues[i]);
  out << "],\"reply_queue\":" << json_text(o.reply_queue)
      << ",\"reply_queues\":" << json_text(o.replies == reply_queues::shared ? "shared" : "per-requester")
      << ",\"requesters\":" << o.requesters << ",\"commit_mode\":\"" << o.commit_mode
      << "\",\"persistent\":" << (o.persistent ? "true" : "false") << ",\"size\":" << o.size
      << ",\"duration_s\":" << (o.count ? std::string("null") : fixed(o.duration_s, 3))
      << ",\"count\":" << (o.count ? std::to_string(*o.count) : std::string("null"))
      << ",\"tran\":" << json_text(o.tran == transaction::echo ? "ECHO" : "IVTNO")
      << ",\"reply_wait_ms\":" << o.reply_wait_ms << ",\"dlq\":" << json_opt(o.dlq)
      << ",\"iih\":" << (o.iih ? "true" : "false") << ",\"workload\":" << json_opt(o.workload)
      << ",\"seed\":" << o.seed << ",\"think_ms\":" << fixed(o.think_ms, 3)
      << ",\"think_dist\":" << json_text(o.think == think_dist::exp ? "exp" : "fixed") << ",\"progress\":"
      << json_text(o.progress == progress_mode::on    ? "on"
                   : o.progress == progress_mode::off ? "off"
                                                      : "auto")
      << ",\"histogram\":" << json_opt(o.histogram) << ",\"timeline\":" << json_opt(o.timeline)
      << ",\"plot\":" << json_opt(o.plot) << ",\"json\":" << (o.json ? "true" : "false") << "}";
  return out.str();
}
}  // namespace

std::string render(const summary& s, const options& o, const workload* w,
                   const std::vector<line_summary>& lines) {
  std::ostringstream out;
  const std::size_t n = w ? std::min(w->items.size(), lines.size()) : 0;
  if (o.json) {
    out << "{\"format\":1,\"requesters\":" << o.requesters << ",\"queues\":" << o.queues.size()
        << ",\"commit_mode\":\"" << o.commit_mode << "\",\"persistent\":" << (o.persistent ? "true" : "false")
        << ",\"tran\":"
        << json_text(!o.workload.empty()           ? "workload"
                     : o.tran == transaction::echo ? "ECHO"
                                                   : "IVTNO")
        << ",\"size\":" << o.size
        << ",\"reply_queues\":" << json_text(o.replies == reply_queues::shared ? "shared" : "per-requester")
        << ",\"elapsed_s\":" << fixed(s.elapsed_s, 3) << ",\"requests\":" << s.requests
        << ",\"replies\":" << s.replies << ",\"errors\":" << s.errors << ",\"tps\":" << fixed(s.tps, 1)
        << ",\"latency_ms\":{\"p50\":" << fixed(s.p50_ms, 3) << ",\"p99\":" << fixed(s.p99_ms, 3)
        << ",\"p99_9\":" << fixed(s.p999_ms, 3) << ",\"max\":" << fixed(s.max_ms, 3)
        << ",\"mean\":" << fixed(s.mean_ms, 3) << "},\"errors_by_code\":{";
    bool first = true;
    for (const auto& [code, count] : s.errors_by_code) {
      out << (first ? "" : ",") << json_text(code) << ":" << count;
      first = false;
    }
    out << "},\"interrupted\":" << (s.interrupted ? "true" : "false")
        << ",\"signal\":" << (s.interrupted ? json_text(s.signal) : std::string("null"))
        << ",\"interrupted_at_s\":" << (s.interrupted ? fixed(s.interrupted_at_s, 3) : std::string("null"));
    out << ",\"workload\":[";
    for (std::size_t i = 0; i < n; ++i) {
      const workload_item& it = w->items[i];
      const line_summary& l = lines[i];
      out << (i ? "," : "") << "{\"line\":" << it.line << ",\"weight\":" << it.weight
          << ",\"message\":" << json_text(it.label) << ",\"requests\":" << l.requests
          << ",\"replies\":" << l.replies << ",\"errors\":" << l.errors
          << ",\"latency_ms\":{\"p50\":" << fixed(l.p50_ms, 3) << ",\"p99\":" << fixed(l.p99_ms, 3) << "}}";
    }
    out << "],\"options\":" << json_options(o) << "}\n";
    return out.str();
  }
  out << msg::IMB4943I << " imsbench report v1\n";
  out << msg::IMB4943I << " imsbench: " << describe_run(o) << ": " << s.requests << " requests, " << s.replies
      << " replies, " << s.errors << " errors in " << fixed(s.elapsed_s, 2) << " s = " << fixed(s.tps, 1)
      << " tps; latency ms p50 " << fixed(s.p50_ms, 3) << " p99 " << fixed(s.p99_ms, 3) << " p99.9 "
      << fixed(s.p999_ms, 3) << " max " << fixed(s.max_ms, 3) << " mean " << fixed(s.mean_ms, 3) << "\n";
  for (const auto& [code, count] : s.errors_by_code)
    out << msg::IMB4943I << " imsbench: error " << code << ": " << count << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    const workload_item& it = w->items[i];
    const line_summary& l = lines[i];
    out << msg::IMB4947I << " imsbench: workload line " << it.line << " weight " << it.weight << " "
        << json_text(it.label) << ": " << l.requests << " requests, " << l.replies << " replies, " << l.errors
        << " errors; latency ms p50 " << fixed(l.p50_ms, 3) << " p99 " << fixed(l.p99_ms, 3) << "\n";
  }
  // Last (v1 adds lines only after the existing ones): a run that a signal ended early.
  if (s.interrupted) {
    out << msg::IMB4943I << " imsbench: interrupted by " << s.signal << " at " << fixed(s.interrupted_at_s, 2)
        << " s";
    if (o.count) {
      out << ", " << s.requests << " of --count " << *o.count << " requests sent";
    } else {
      std::ostringstream d;
      d << o.duration_s;
      out << " of --duration " << d.str() << " s";
    }
    out << "; no request was sent after it, "
        << (s.wait_cut_short ? "and a second signal stopped the wait for the replies still out"
                             : "the replies still out were waited for")
        << "\n";
  }
  return out.str();
}

}  // namespace imsb::imsbench
