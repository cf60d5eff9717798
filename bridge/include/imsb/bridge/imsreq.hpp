#pragma once
// imsreq: send one IMS transaction or command through the bridge and print the reply.
//
//   imsreq -m QM -q BRIDGEQ -r REPLYQ [--no-iih] [--commit-mode 0|1] [--conversation new|ID]
//          [--userid U] [--authenticator A | --passticket APPL [--passticket-keys FILE]] [--lterm L]
//          [--mfs NAME] [--wait MS] [--persistent|--non-persistent] [--prefix P] [--mqserver S]
//          [--tran-state A] 'TRANCODE data' ['segment' ...]
//
// The request: MQMD Format MQIMS with an MQIIH (else Format = --mfs or MQFMT_NONE [C: BRIDGE-MSGS];
// without an MQIIH the Format is the MFS map name), ReplyToQ, Report MQRO_EXCEPTION_WITH_DATA (so that a
// refused request comes back as a report, not only as a dead letter), then one LLZZ segment per text
// argument, all in the queue manager's native encoding and CCSID. --userid sets MQMD.UserIdentifier with
// MQOO/MQPMO_SET_IDENTITY_CONTEXT. --conversation new: TranState ' ' and commit mode 1; ID (the 32 hex
// digits a previous reply printed): TranState 'C' [C: CONV]. --passticket APPL puts a
// PassTicket for (user, APPL) in MQIIH.Authenticator (security.hpp; keys from --passticket-keys or
// $IMSB_PASSTICKET_KEYS).
//
// Output: each reply segment as text, one a line, then "MQIIH TranState=... TranInstanceId=<32 hex>
// CommitMode=... Format=..." (or "MQMD Format=..." without an MQIIH), and for a report its Feedback
// explained (mq/codes.hpp, and the OTMA NAK behind 300+ / 600+). Exit codes: 0 a normal reply; 1 a
// report, a reply with Feedback, one that does not decode, or IMS's refusal (the DFS text the bridge
// returns after a NAK, PutApplType MQAT_IMS_BRIDGE: printed, and IMB4919W gives it as the reason); 2
// usage; 8 connection, put/get failure or no answer within --wait (IMB4910E–IMB4919W name which).

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::bridge {

struct imsreq_options {
  std::string qmgr;  // -m: "QM", "local:QM" or "" (MQSERVER / the default queue manager)
  std::string bridge_queue;
  std::string reply_queue;
  bool iih = true;
  char commit_mode = '0';
  char tran_state = ' ';
  std::array<std::uint8_t, 16> tran_instance_id{};  // with --conversation ID
  std::string userid;                               // empty: the queue manager sets it
  std::string authenticator;                        // 8 chars at most; empty: MQIAUT_NONE
  std::string passticket_appl;                      // --passticket
  std::string passticket_keys;                      // --passticket-keys (else $IMSB_PASSTICKET_KEYS)
  std::string lterm;
  std::string mfs;
  std::int32_t wait_ms = 30000;
  std::int32_t persistence = mq::MQPER_PERSISTENCE_AS_Q_DEF;
  std::optional<std::string> prefix;
  std::optional<std::string> mqserver;
  std::vector<std::string> segments;  // at least one
};

// The options from the command line (without the program name). Errors (usage, exit 2): field = the
// option, detail = why.
result<imsreq_options> parse_imsreq_args(const std::vector<std::string>& args);

// The request as it is put: MQMD (MsgId none: the queue manager makes one) and data (MQIIH, LLZZ
// segments), encoded in (encoding, ccsid) — the queue manager's native encoding and CCSID.
struct imsreq_message {
  mq::mqmd md;
  bytes data;
};
imsreq_message build_imsreq_message(const imsreq_options& o, std::int32_t encoding, std::int32_t ccsid);

// LLZZ segments of `texts` in (encoding, ccsid): for tests that build requests of their own.
bytes encode_llzz_segments(const std::vector<std::string>& texts, std::int32_t encoding, std::int32_t ccsid);

// A reply or report as imsreq reads it: the MQIIH when the Format is MQIMS, the segments' text (CCSID
// 819) when the data walks as LLZZ segments, else `raw_text` (the data as text, for reports).
struct imsreq_reply {
  mq::mqmd md;
  std::optional<mq::mqiih> iih;
  std::vector<std::string> segments;
  std::string raw_text;
  std::optional<decode_error> problem;  // the data did not decode as MQIIH + LLZZ
};
imsreq_reply decode_imsreq_reply(const mqi::message& m);

// One line for a Feedback: describe_feedback, plus the OTMA NAK sense (and reason) it stands for.
std::string explain_feedback(std::int32_t feedback);

using imsreq_connector =
    std::function<result<std::unique_ptr<mqi::connection>>(const imsreq_options& options)>;

// imsreq with the connection made by `connect` (tests pass qmgr::connect or a mock).
int run_imsreq(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               const imsreq_connector& connect);
// imsreq as the program runs it: qmgr::connect (library imsb_imsreq, which links the queue manager's
// client; imsb_bridge itself sees the queue manager only through mqi::connection).
int run_imsreq(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace imsb::bridge
