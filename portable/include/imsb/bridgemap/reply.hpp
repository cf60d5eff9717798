#pragma once
// OTMA output → MQ reply, and the bridge's own messages (dead letters, exception reports): IBM's MQMD and
// MQIIH of messages from the bridge [C: REPLY-MD, REPLY-IIH], its error handling [C: CANNOT-PUT], the
// reports [I: ACTIVITY-MD] and the dead-letter rules [C: DLH-DOC].
// Pure: the engine opens, puts and commits.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "imsb/bridgemap/request.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/otma/message.hpp"

namespace imsb::bridgemap {

struct reply_context {
  std::string qmgr_name;           // PutApplName when there was an error
  std::int32_t qmgr_ccsid = 1208;  // replies are converted to this CCSID (conversion `text`) [D]
  std::int32_t qmgr_encoding = 546;
  std::string xcf_group;   // PutApplName = group (8, blank padded) + member (16) when no error [C]
  std::string xcf_member;  // the IMS partner
  partner_data partner;
  std::int64_t now_ms = 0;  // PutDate/PutTime are the queue manager's; kept for reports' own use
  // The request was an architected /DIS TRAN (MQIIH.TranState 'A' [C: IMS-CMDS]): each segment is
  // the binary attributes segment — only its 8-byte transaction code (and an error text after the three
  // flag bytes) is character data, so only those are converted.
  bool architected = false;
  // The output is IMS's error message that followed a NAK of the request (DFS1288E ...): IBM's reply MQMD
  // [C: REPLY-MD] has "MQAT_XCF if no error, otherwise MQAT_BRIDGE; PutApplName group+member if no error,
  // otherwise the queue manager's name": then PutApplType MQAT_IMS_BRIDGE (19, [I]) and PutApplName
  // qmgr_name.
  bool error_reply = false;
};

// A message the bridge puts, and where.
struct outgoing {
  mq::mqmd md;  // version 1 (replies), context fields set: put with MQPMO_SET_ALL_CONTEXT
  bytes data;
  std::string queue;  // ReplyToQ of the request (blank-trimmed)
  std::string qmgr;   // ReplyToQMgr of the request (blank-trimmed; empty: local)
};

// The reply for one IMS output (IOPCB reply, ALTPCB output with our user data, DFS message text,
// command output):
// - MQMD per IBM's table [C: REPLY-MD]: MsgType REPLY, Report NONE, Feedback NONE (MQFB_EXPIRATION 258 when
//   the output is IMS's expiry notice [C: PI42711] and the request asked for it — not produced yet),
//   Encoding/CCSID the queue manager's (`text`) or the partner's (`none`), Format MQFMT_IMS when the request
//   had an MQIIH else the output's MOD name (state data modname; blank → MQFMT_NONE), Priority the request's,
//   Persistence: CM1 the request's, CM0 persistent iff the output is recoverable (MCI recoverable_seq ≠ 0),
//   MsgId new (zeros: the queue manager makes one) unless MQRO_PASS_MSG_ID, CorrelId the request's MsgId
//   unless MQRO_PASS_CORREL_ID (then its CorrelId), identity context from the request (UserIdentifier,
//   AccountingToken, ApplIdentityData), PutApplType MQAT_XCF, PutApplName group+member, Expiry: the request's
//   remaining expiry with MQIIH_PASS_EXPIRATION (and its MQRO_EXPIRATION* options kept in Report), else
//   unlimited.
// - MQIIH per IBM's table [C: REPLY-IIH] when the request had one: Format = request ReplyToFormat if not
//   blank, else the MOD name; MQFMT_NONE with MQIIH_REPLY_FORMAT_NONE; LTermOverride = the output's LTERM
//   (state data lterm_override, else the tpipe); MFSMapName = MOD name; TranInstanceId = the output's server
//   token when in conversation; TranState 'C' in conversation else ' ' (the server-state bit X'80' of the
//   state data says so); CommitMode from the state data; Authenticator blanks.
// - data: [MQIIH] then the output's segments with LL/ZZ in the reply's encoding and text converted
//   back (`text`), or untouched (`none`).
// Errors: the output carries no user data of ours (unsolicited output from IMS without a DRU exit's
// user data): make_mqfb(MQFB_IMS_ERROR) naming "OTMA.user_data"; a character that cannot be converted:
// make_mqrc(MQRC_NOT_CONVERTED). The engine dead-letters such output (reason = the error's code).
result<outgoing> build_reply(const otma::otma_message& output, const reply_context& ctx);

// The request's MQMD as kept in an output's user data (for dead letters of undeliverable replies, for
// exception reports after a NAK, and for the console).
result<mq::mqmd> request_md_of(const otma::otma_message& output, const reply_context& ctx);

// A dead letter the bridge puts [C: DLH-DOC]: MQDLH (Reason, DestQName/DestQMgrName = where the
// message was going, the original's Encoding/CCSID/Format, PutApplType MQAT_IMS_BRIDGE 19 [I],
// PutApplName the queue manager's name, PutDate/PutTime from now_ms UTC) then the original data; MQMD
// the original's with Format MQFMT_DEAD_LETTER_HEADER, Encoding/CCSID the queue manager's. `queue` is the
// queue manager's DLQ name (the caller fills it), `qmgr` empty.
outgoing make_dead_letter(const mq::mqmd& original, bytes_view data, std::int32_t reason,
                          const std::string& dest_q, const std::string& dest_qmgr, const reply_context& ctx);

// IMS output as the original of a dead letter, when it cannot become a reply (no user data of ours, text
// that does not convert ...): its segments as IMS sent them — LL and ZZ big-endian, the text in the
// partner's CCSID — under an MQMD that says so: Format MQFMT_IMS_VAR_STRING, Encoding z/OS native (785),
// CCSID the partner's [D], so that make_dead_letter's MQDLH describes the data after it. The rest of the
// MQMD is the request's when the user data gives it back (MsgId, CorrelId, ReplyToQ ...), else a fresh one
// with `persistence`.
struct output_original {
  mq::mqmd md;
  bytes data;
};
output_original output_as_original(const otma::otma_message& output, std::int32_t persistence,
                                   const reply_context& ctx);

// An exception report for a request the bridge refused [I: ACTIVITY-MD, CANNOT-PUT]: when the request's
// Report has MQRO_EXCEPTION / _WITH_DATA / _WITH_FULL_DATA; nullopt otherwise. MsgType REPORT, Feedback =
// `feedback`, MsgId/CorrelId per MQRO_PASS_MSG_ID / MQRO_PASS_CORREL_ID (default: new MsgId, CorrelId =
// request MsgId), data none / first 100 bytes / all, Report MQRO_NONE (MQRO_DISCARD_MSG and the remaining
// expiry with MQRO_PASS_DISCARD_AND_EXPIRY), to (ReplyToQ, ReplyToQMgr); PutApplType MQAT_IMS_BRIDGE.
std::optional<outgoing> make_exception_report(const mq::mqmd& request, bytes_view data, std::int32_t feedback,
                                              const reply_context& ctx);

}  // namespace imsb::bridgemap
