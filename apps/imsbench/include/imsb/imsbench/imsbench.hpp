#pragma once
// imsbench: a load generator for the MQ-IMS bridge.
//
//   imsbench -m QM -q BRIDGEQ [-q BRIDGEQ2 ...] -r REPLYQ [-n REQUESTERS] [--commit-mode 0|1]
//            [--persistent] [--size BYTES] [--duration S | --count N] [--tran IVTNO|ECHO]
//            [--reply-queues shared|per-requester] [--reply-wait MS] [--dlq NAME] [--no-iih] [--json]
//            [--workload FILE] [--seed N] [--think-ms MS] [--think-dist fixed|exp]
//            [--progress | --no-progress] [--histogram FILE.csv] [--timeline FILE.csv] [--plot FILE.svg]
//
// docs/programs/imsbench.md is the user's page: the workload file, the report (text v1 and JSON format 1),
// the CSV and SVG files.
//
// N requester threads, each with its own queue-manager connection (qmgr::connect: "local:QM", bindings,
// or MQSERVER), spread round-robin over the M bridge queues. Each requester puts one request (MQMD
// Format MQIMS, MsgType REQUEST, Report MQRO_EXCEPTION_WITH_DATA so that a refused request comes back
// as a report; MQIIH with the commit mode; LLZZ segments) and waits for the reply or report whose
// CorrelId is the request's MsgId (the bridge's default [C: REPLY-MD]), on the shared reply
// queue or on its own (REPLYQ.1 ... REPLYQ.N). Latency is put-to-get on one steady clock.
//
// Errors by code: a failed put or get is its MQRC; a report is its Feedback (MQFB); a request without an
// answer within --reply-wait is MQRC_NO_MSG_AVAILABLE (2033), unless --dlq names the dead-letter queue and
// the request is found there (by MsgId), when it counts as the MQDLH's Reason.
//
// SIGINT or SIGTERM (Ctrl-C) ends the run early: no new request is sent, the replies still out are waited
// for (at most --reply-wait; a second signal stops that wait), then the report and the files are written
// as at a normal end, marked interrupted. One signal before the run starts (while the requesters
// connect) stops imsbench without a report (exit code 1).
//
// Exit codes: 0 every request had a normal reply (also when interrupted); 1 some errors (or the connection
// failed, IMB4941E; or a signal before the run started); 2 usage (IMB4940E).

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::imsbench {

enum class transaction : std::uint8_t { ivtno, echo };
enum class reply_queues : std::uint8_t { shared, per_requester };
enum class think_dist : std::uint8_t { fixed, exp };
enum class progress_mode : std::uint8_t { automatic, on, off };

struct options {
  std::string qmgr;  // -m: "local:QM", "QM" or "" (connect.hpp)
  std::optional<std::string> prefix;
  std::optional<std::string> mqserver;
  std::string user;
  std::string password;
  std::vector<std::string> queues;  // -q, at least one; "A,B" also splits
  std::string reply_queue;          // -r
  reply_queues replies = reply_queues::shared;
  int requesters = 1;  // -n, 1..1024
  char commit_mode = '0';
  bool persistent = false;
  std::size_t size = 0;  // application data bytes (the LLZZ segments); ECHO pads to it
  double duration_s = 10;
  std::optional<std::uint64_t> count;  // total requests: the run ends when they are answered
  transaction tran = transaction::ivtno;
  std::int32_t reply_wait_ms = 30000;
  std::string dlq;  // empty: requests without an answer are timeouts
  bool iih = true;
  bool json = false;
  bool help = false;
  std::string workload;  // --workload FILE: replaces --tran and --size
  std::uint64_t seed = 1;
  double think_ms = 0;  // after each answer (or error), before the next request
  think_dist think = think_dist::fixed;
  progress_mode progress = progress_mode::automatic;  // automatic: on when standard error is a terminal
  std::string histogram;                              // --histogram FILE.csv
  std::string timeline;                               // --timeline FILE.csv
  std::string plot;                                   // --plot FILE.svg
};

// The options from the command line (without the program name). Errors (usage, exit 2): field = the
// option, detail = why.
result<options> parse_options(const std::vector<std::string>& args);
std::string usage();

// What requester `index` (0-based) uses.
const std::string& queue_for(const options& o, int index);
std::string reply_queue_for(const options& o, int index);

// The request's application data: IVTNO "IVTNO   DISPLAY LAST1" (--size is ignored); ECHO "ECHO    "
// then 'X's to --size bytes of LLZZ segments (segments of at most 32,000 bytes; at least the trancode).
std::vector<std::string> request_segments(const options& o);
// The request as it is put (MsgId none: the queue manager makes one), in (encoding, ccsid).
struct request {
  mq::mqmd md;
  bytes data;
};
request build_request(const options& o, std::int32_t encoding, std::int32_t ccsid);

// --- The workload file (--workload) ----------------------------------------------------------------
// One message a line, drawn by weight:
//   WEIGHT TEXT     TEXT is the application data: '|' separates LLZZ segments, "\|" is a '|' and "\\" a
//                   '\' in the data; the request is built as for --tran (MQIIH with --commit-mode, none
//                   with --no-iih).
//   WEIGHT @PATH    PATH (relative to the workload file) holds one message's data as captured: hex text
//                   when it ends in .hex (from_hex: digits, blanks, '|', # comments), else raw bytes;
//                   either MQIIH + LLZZ segments (sent as they are) or LLZZ segments only (an MQIIH is
//                   added as for TEXT). Encoding and CCSID are worked out from the bytes. With
//                   --no-iih, an item with an MQIIH is refused (run: IMB4945E).
// Blank lines and lines starting with '#' are skipped. WEIGHT is 1..1000000.
struct workload_item {
  int line = 0;  // 1-based, in the workload file
  std::uint32_t weight = 1;
  std::string label;                  // TEXT (first segment) or "@PATH"
  std::vector<std::string> segments;  // TEXT lines
  std::optional<bytes> data;          // @PATH: the data as captured
  bool has_iih = false;               // data starts with an MQIIH
  std::int32_t encoding = 546;
  std::int32_t ccsid = 819;
};
struct workload {
  std::string path;
  std::vector<workload_item> items;
  std::uint64_t total_weight = 0;
};
// Errors: field = "FILE:LINE" (or FILE), detail = why (IMB4945E).
result<workload> parse_workload(std::string_view text, const std::string& path,
                                const std::function<result<bytes>(const std::string& file)>& read_file);
result<workload> load_workload(const std::string& path);
// TEXT: its segments (the escapes undone); an error names what is wrong.
result<std::vector<std::string>> split_segments(std::string_view text);
// The request for one workload item (TEXT in the queue manager's native encoding and CCSID 819).
request build_request(const options& o, const workload_item& w);
// Which item a draw in 0..total_weight-1 picks.
std::size_t pick(const workload& w, std::uint64_t draw);

// Each requester's generator: mt19937_64 seeded with seed * 1000003 + index (modulo 2^64). It makes the
// workload draws (gen() % total_weight) and the exponential think times, in the order the run needs them.
std::mt19937_64 requester_generator(std::uint64_t seed, int index);
// One think time in milliseconds: --think-ms (fixed), or exponential with mean --think-ms (one draw).
double think_time_ms(const options& o, std::mt19937_64& gen);

// --- Statistics -----------------------------------------------------------------------------------
// Percentile by nearest rank on sorted values: the smallest value with at least q of them at or below
// it (q in 0..1); 0 for no values.
double percentile(const std::vector<double>& sorted, double q);

struct summary {
  std::uint64_t requests = 0;  // answered or failed
  std::uint64_t replies = 0;   // normal replies
  std::uint64_t errors = 0;
  double elapsed_s = 0;
  double tps = 0;  // normal replies per second
  double p50_ms = 0, p99_ms = 0, p999_ms = 0, max_ms = 0, mean_ms = 0;
  std::map<std::string, std::uint64_t> errors_by_code;  // "MQFB_IIH_ERROR (296)" → count
  // Ended early by SIGINT or SIGTERM (not set by summarize: the run fills these in).
  bool interrupted = false;
  std::string signal;                // "SIGINT" or "SIGTERM"
  double interrupted_at_s = 0;       // when the first signal came, from the start of the run
  std::uint64_t sent_at_signal = 0;  // requests sent by then
  bool wait_cut_short = false;       // a second signal stopped the wait for the replies still out
};

// Per workload line.
struct line_stats {
  std::uint64_t requests = 0;
  std::uint64_t errors = 0;
  std::vector<double> latencies_ms;
};
// One answer (or error) and when it came, in seconds from the start of the run.
struct event {
  double t_s = 0;
  double latency_ms = 0;
  bool error = false;
};

// Per requester; merged at the end (no sharing while the run goes).
struct requester_stats {
  std::vector<double> latencies_ms;  // of normal replies
  std::map<std::string, std::uint64_t> errors_by_code;
  std::uint64_t requests = 0;
  std::vector<line_stats> lines;  // with --workload, by item
  std::vector<event> events;      // every reply and every error (kept only for --timeline or --plot)
  std::vector<double> sent_s;     // when each request was put (the same)
};

struct line_summary {
  std::uint64_t requests = 0, replies = 0, errors = 0;
  double p50_ms = 0, p99_ms = 0;
};

summary summarize(const std::vector<requester_stats>& per_requester, double elapsed_s);
std::vector<line_summary> summarize_lines(const std::vector<requester_stats>& per_requester, std::size_t n);

// --- Files: histogram, timeline, plot; the progress line ------------------------------------------
// The histogram's fixed buckets: upper bounds in microseconds, the R10 series (1, 1.25, 1.6, 2, 2.5,
// 3.15, 4, 5, 6.3, 8 times a power of ten) from 100 us to 100 s; a last bucket "inf" holds the rest.
const std::vector<double>& histogram_bounds_us();
// "upper_us,count,cumulative_fraction" then one row per bucket, every bucket always (so two runs'
// files line up row by row). Latencies of normal replies.
std::string histogram_csv(const std::vector<double>& latencies_ms);

struct timeline_row {
  int second = 0;  // 1-based: the row covers (second-1, second] of the run (the last one up to its end)
  std::uint64_t sent = 0, replies = 0, errors = 0;
  double tps = 0;  // replies / the row's length
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};
std::vector<timeline_row> make_timeline(const std::vector<requester_stats>& per_requester, double elapsed_s);
// "second,sent,replies,errors,tps,p50_ms,p99_ms,max_ms" then one row per second.
std::string timeline_csv(const std::vector<timeline_row>& rows);
// A self-contained SVG: per-second p50, p99 and max latency (ms, log axis) above, throughput below.
std::string plot_svg(const std::vector<timeline_row>& rows, const std::string& title);

// IMB4944I: elapsed, totals, and the last second's throughput and percentiles.
std::string progress_line(double elapsed_s, std::uint64_t sent, std::uint64_t replies, std::uint64_t errors,
                          double tps, double p50_ms, double p99_ms);

// Text for the JSON report and the plot, which are UTF-8: well-formed UTF-8 sequences as they are, any
// other byte read as ISO 8859-1 (CCSID 819, as TEXT lines are sent) and written as its UTF-8.
std::string utf8_text(std::string_view s);

// Error keys: "MQRC_Q_FULL (2053)" / "MQFB_IIH_ERROR (296)" / "MQFB_IMS_ERROR+26 (326)", a bare
// "MQRC 2700" when the code is not in the table.
std::string mqrc_key(std::int32_t rc);
std::string mqfb_key(std::int32_t fb);

// The report, format v1: "IMB4943I imsbench report v1", the summary line, one IMB4943I line per error
// code, one IMB4947I line per workload line, and when interrupted one IMB4943I "interrupted by SIG..." line;
// with json one JSON object ("format":1, "interrupted", "signal" and "interrupted_at_s" after
// "errors_by_code", the options under "options") and a newline.
std::string render(const summary& s, const options& o, const workload* w = nullptr,
                   const std::vector<line_summary>& lines = {});
// A short description of the run (the summary line's start, the plot's title).
std::string describe_run(const options& o);

// --- The run -----------------------------------------------------------------------------------------
using connector = std::function<result<std::unique_ptr<mqi::connection>>(const options& o, int index)>;

// With the connections made by `connect` (tests pass a fake or an in-process queue manager).
// From before the first connection to the end, SIGINT and SIGTERM are blocked in the calling thread (and so
// in every thread the run starts, the embedded queue manager's included) and read through a signalfd; the
// caller's signal mask comes back before run returns, and a signal that came too late to count is
// dropped. An in-process caller with other threads of its own must block them there too, else the
// signal goes to one of those threads.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const connector& connect);
// As the program runs it: qmgr::connect.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace imsb::imsbench
