#pragma once
// The queue manager's rules for one message, as pure functions (no clock, no I/O: the caller passes the
// time and the names), so each rule has its unit test: the MQMD a put leaves (defaults, MsgId, context),
// the MQIIH check of MQPUT, report messages, the dead-letter header, the transmission-queue header,
// expiry, and SET AUTHREC's authority check. queue_manager.cpp applies them.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/objects/object.hpp"

namespace imsb::qmgr::rules {

struct put_context {
  std::string qmgr_name;
  std::string user;       // the connected user: UserIdentifier unless the put may set identity context
  std::string appl_name;  // PutApplName
  // MQPMO_SET_IDENTITY_CONTEXT / MQPMO_SET_ALL_CONTEXT need these (AUTHREC PASSID / SETALL, or admin).
  bool may_set_identity = false;
  bool may_set_all = false;
  std::int32_t queue_default_persistence = 0;  // the queue's DEFPSIST (MQPER_*)
  std::int32_t queue_default_priority = 0;     // DEFPRTY
  std::chrono::system_clock::time_point now;
  std::uint64_t msg_id_counter = 0;  // makes the generated MsgId unique (the caller's counter)
  std::uint64_t incarnation = 0;
};

// The MQMD of a put, as MQPUT leaves it (version 2): validates MsgType (MQRC_MSG_TYPE_ERROR 2029),
// Persistence (2047), Priority (2050), Expiry (2013), Report (2061: bits in MQRO_REJECT_UNSUP_MASK),
// Feedback (2014: a report without one), a request without ReplyToQ (2027), the options' context
// combination (MQRC_OPTIONS_ERROR 2046) and context authority (MQRC_NOT_AUTHORIZED 2035). Fills:
// MsgId when MQMI_NONE or MQPMO_NEW_MSG_ID ("AMQ " + the queue manager's name, 12 characters padded, then
// 8 bytes of incarnation and counter, as IBM's shape [I]; message_rules.cpp documents the fields);
// CorrelId with MQPMO_NEW_CORREL_ID (different from the MsgId when both are new);
// priority and persistence "as queue definition"; the context (default: UserIdentifier = the user,
// PutApplType MQAT_UNIX, PutApplName, PutDate YYYYMMDD and PutTime HHMMSSTH in UTC, AccountingToken and
// ApplIdentityData blank; MQPMO_NO_CONTEXT: all blank; SET_IDENTITY: the identity fields as given;
// SET_ALL: all as given; PASS_IDENTITY / PASS_ALL as SET_IDENTITY / SET_ALL, the caller having copied the
// saved context into `given` and checked PASSID / PASSALL at MQOPEN [D]); BackoutCount 0; a Priority above
// 9 is put at 9 (IBM's warning 2049 is not carried) [I].
result<mq::mqmd> prepare_put(const mq::mqmd& given, std::int32_t pmo_options, const put_context& ctx);

// MQPUT's check of an MQIIH in a message of Format MQIMS: data shorter than 84 bytes, or a StrucId,
// Version or StrucLength that is wrong in the MQMD's encoding and CCSID → MQRC_IIH_ERROR (2148)
// [C: RC2148]. Other formats: nothing checked.
result<done> check_put_headers(const mq::mqmd& md, bytes_view data);

// Expiry: MQMD.Expiry counts tenths of a second from the put. remaining() is what a get returns in
// MQMD.Expiry (at least 1 while not expired, 0 once expired; MQEI_UNLIMITED stays).
bool expired(std::int32_t expiry, std::int64_t put_time_ms, std::int64_t now_ms) noexcept;
std::int32_t remaining(std::int32_t expiry, std::int64_t put_time_ms, std::int64_t now_ms) noexcept;

enum class report_kind { coa, cod, expiration, exception };

struct outgoing {
  mq::mqmd md;
  bytes data;
  std::string queue;  // where it goes: the original's ReplyToQ ...
  std::string qmgr;   // ... and ReplyToQMgr (blank: local)
};

// The report a message asks for with MQRO_COA / COD / EXPIRATION / EXCEPTION (and their WITH_DATA: the
// MQ headers at the front whole (MQDLH, MQXQH, MQIIH, walked as imsb/mq/chain.hpp does), then the first
// 100 bytes of the application data [I]; WITH_FULL_DATA: all), or nullopt when it asks for none of that kind
// or has no ReplyToQ. MsgType MQMT_REPORT, Feedback MQFB_COA / COD / EXPIRATION or `feedback` for an
// exception; MsgId new (generated from ctx) unless MQRO_PASS_MSG_ID; CorrelId the original's MsgId unless
// MQRO_PASS_CORREL_ID (then its CorrelId); persistence, priority and Format of the original; Expiry
// unlimited unless MQRO_PASS_DISCARD_AND_EXPIRY (then what is left, and MQRO_DISCARD_MSG is passed)
// [C: MSGID-DOC, ACTIVITY-MD].
std::optional<outgoing> make_report(report_kind kind, const mq::mqmd& original, bytes_view data,
                                    std::int32_t feedback, std::int64_t put_time_ms, const put_context& ctx);

// The dead-letter message for a message that cannot be delivered: MQDLH (Reason, DestQName,
// DestQMgrName, the original's Encoding, CodedCharSetId and Format, PutApplType MQAT_QMGR, PutApplName
// the queue manager's name, PutDate/PutTime now), then the original data; its MQMD is the original's
// with Format MQFMT_DEAD_LETTER_HEADER and Encoding/CCSID those of the MQDLH [C: DLH-DOC, DLH-FIELDS].
outgoing make_dead_letter(const mq::mqmd& original, bytes_view data, std::int32_t reason,
                          std::string_view dest_q, std::string_view dest_qmgr, std::string_view deadq,
                          const put_context& ctx);

// A message for a transmission queue: MQXQH (RemoteQName, RemoteQMgrName, the original MQMD inside),
// then the data; the MQMD on the transmission queue is the original's with Format MQFMT_XMIT_Q_HEADER
// ([C: XQH-DOC]/[I]).
outgoing make_xmit(const mq::mqmd& original, bytes_view data, std::string_view xmitq,
                   std::string_view remote_q, std::string_view remote_qmgr);
// The same, as the queue manager `ctx` puts it: the separate MQMD's PutApplType is MQAT_QMGR and its
// PutApplName the queue manager's name [I: XQH-DOC]; the embedded MQMD keeps the original's.
// Prefer this one: the overload above leaves the original's origin context in the separate MQMD.
outgoing make_xmit(const mq::mqmd& original, bytes_view data, std::string_view xmitq,
                   std::string_view remote_q, std::string_view remote_qmgr, const put_context& ctx);

// SET AUTHREC: whether `user` (or one of `groups`) has `authority` ("PUT", "GET", "BROWSE", "INQ", "SET",
// "SETALL", "PASSID", "CTRL", "CONNECT" ...) on the object `name` of `objtype` ("QUEUE", "QMGR" ...).
// Profiles match generically as IBM's OAM does [I]: '?' one character, '*' within a qualifier (between
// dots), '**' any number of qualifiers; ALLADM/ALLMQI/ALL expand to their members. A queue's objtype
// matches QUEUE records whatever the queue type.
bool authorized(const std::vector<objects::authority_record>& records, std::string_view user,
                const std::vector<std::string>& groups, std::string_view objtype, std::string_view name,
                std::string_view authority);
bool profile_matches(std::string_view profile, std::string_view name) noexcept;

}  // namespace imsb::qmgr::rules
