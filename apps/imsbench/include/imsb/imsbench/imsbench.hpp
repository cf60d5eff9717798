#pragma once
// imsbench (issue 7 "Operating it", first version): a load generator for the MQ-IMS bridge.
//
//   imsbench -m QM -q BRIDGEQ [-q BRIDGEQ2 ...] -r REPLYQ [-n REQUESTERS] [--commit-mode 0|1]
//            [--persistent] [--size BYTES] [--duration S | --count N] [--tran IVTNO|ECHO]
//            [--reply-queues shared|per-requester] [--reply-wait MS] [--dlq NAME] [--no-iih] [--json]
//
// N requester threads, each with its own queue-manager connection (qmgr::connect: "local:QM", bindings,
// or MQSERVER), spread round-robin over the M bridge queues. Each requester puts one request (MQMD
// Format MQIMS, MsgType REQUEST, Report MQRO_EXCEPTION_WITH_DATA so that a refused request comes back
// as a report; MQIIH with the commit mode; LLZZ segments) and waits for the reply or report whose
// CorrelId is the request's MsgId (the bridge's default, spec/mq.md §5.4 [C]), on the shared reply
// queue or on its own (REPLYQ.1 ... REPLYQ.N). Latency is put-to-get on one steady clock.
//
// Errors by code: a failed put or get is its MQRC; a report is its Feedback (MQFB); a request without an
// answer within --reply-wait is MQRC_NO_MSG_AVAILABLE (2033), unless --dlq names the dead-letter queue and
// the request is found there (by MsgId), when it counts as the MQDLH's Reason.
//
// Exit codes: 0 every request had a normal reply; 1 some errors (or the connection failed, IMB4941E);
// 2 usage (IMB4940E).

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::imsbench {

enum class transaction : std::uint8_t { ivtno, echo };
enum class reply_queues : std::uint8_t { shared, per_requester };

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
};

// Per requester; merged at the end (no sharing while the run goes).
struct requester_stats {
  std::vector<double> latencies_ms;  // of normal replies
  std::map<std::string, std::uint64_t> errors_by_code;
  std::uint64_t requests = 0;
};

summary summarize(const std::vector<requester_stats>& per_requester, double elapsed_s);

// Error keys: "MQRC_Q_FULL (2053)" / "MQFB_IIH_ERROR (296)" / "MQFB_IMS_ERROR+26 (326)", a bare
// "MQRC 2700" when the code is not in the table.
std::string mqrc_key(std::int32_t rc);
std::string mqfb_key(std::int32_t fb);

// IMB4943I lines (and one line per error code), or with json one JSON object and a newline.
std::string render(const summary& s, const options& o);

// --- The run -----------------------------------------------------------------------------------------
using connector = std::function<result<std::unique_ptr<mqi::connection>>(const options& o, int index)>;

// With the connections made by `connect` (tests pass a fake or an in-process queue manager).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const connector& connect);
// As the program runs it: qmgr::connect.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace imsb::imsbench
