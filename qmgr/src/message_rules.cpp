// The queue manager's rules for one message (message_rules.hpp): pure functions of their arguments, so
// that every rule has a unit test (tests/qmgr/rules). queue_manager.cpp applies them.

#include "imsb/qmgr/message_rules.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "imsb/mq/chain.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqxqh.hpp"
#include "imsb/objects/schema.hpp"

namespace imsb::qmgr::rules {
namespace {

// The MQDLH and MQXQH the queue manager writes are in its own encoding and CCSID: the Linux queue
// manager's native encoding and ISO 8859-1 ([C: DLH-DOC, XQH-DOC]: "in the QM's CCSID and
// MQENC_NATIVE"; the values are ours [D]).
constexpr std::int32_t qmgr_encoding = mq::MQENC_NATIVE_LINUX_X86;
constexpr std::int32_t qmgr_ccsid = 819;

// The first 100 bytes of the data go into a report "WITH_DATA" [I: JAVA-MQRO].
constexpr std::size_t report_data_length = 100;

decode_error mqrc_error(std::int32_t rc, std::string field, std::string detail) {
  decode_error e;
  e.code = mq::make_mqrc(rc);
  e.field = std::move(field);
  e.detail = std::move(detail);
  return e;
}

std::string hex32(std::int32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08X", static_cast<unsigned>(v));
  return buf;
}

// An MQCHARn field: `s` cut or blank padded to n characters.
std::string pad(std::string_view s, std::size_t n) {
  std::string out(s.substr(0, std::min(s.size(), n)));
  out.resize(n, ' ');
  return out;
}

// A name field is blank when it holds only blanks (or NULs, which C programs leave in MQCHARn) [I].
bool is_blank(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\0'; });
}

// The name in an MQCHAR48 field, without its padding.
std::string trim_name(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0')) --n;
  return std::string(s.substr(0, n));
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::int64_t to_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// Days since 1970-01-01 → civil date (H. Hinnant's days_from_civil inverse), so that no C time function
// (and no time zone) is involved: PutDate and PutTime are GMT [C: PUTDATE-DOC, PUTTIME-DOC].
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
}

void digits(std::string& out, std::int64_t v, int width) {
  std::string s(static_cast<std::size_t>(width), '0');
  for (int i = width - 1; i >= 0 && v > 0; --i, v /= 10)
    s[static_cast<std::size_t>(i)] = static_cast<char>('0' + v % 10);
  out += s;
}

// PutDate YYYYMMDD and PutTime HHMMSSTH (T tenths, H hundredths), GMT [C: PUTDATE-DOC, PUTTIME-DOC].
void put_date_time(std::chrono::system_clock::time_point now, std::string& date, std::string& time) {
  const std::int64_t ms = to_ms(now);
  std::int64_t days = ms / 86400000;
  std::int64_t in_day = ms % 86400000;
  if (in_day < 0) {
    in_day += 86400000;
    --days;
  }
  std::int64_t y = 0;
  unsigned m = 0, d = 0;
  civil_from_days(days, y, m, d);
  date.clear();
  digits(date, y, 4);
  digits(date, m, 2);
  digits(date, d, 2);
  time.clear();
  digits(time, in_day / 3600000, 2);
  digits(time, in_day / 60000 % 60, 2);
  digits(time, in_day / 1000 % 60, 2);
  digits(time, in_day / 10 % 100, 2);
}

// A new MsgId: "AMQ " + the first 12 characters of the queue manager's name (blank padded), then 8
// bytes, big-endian, in three separate fields so that none can spill into another [D]:
//   1 bit   `second`: set on the second id one put generates (the CorrelId of MQPMO_NEW_MSG_ID |
//           MQPMO_NEW_CORREL_ID), so the two differ although the caller's counter gave both the same value;
//   23 bits the incarnation (its low 23 bits: one per queue-manager start, 8 388 608 starts to wrap);
//   40 bits the counter (its low 40 bits: 2^40 ids per incarnation, 12 days at a million puts a second).
// Unique while, within an incarnation, the counter grows and stays below 2^40, and incarnations do not
// wrap — the distributed queue managers' shape [I] ([C: QMGRNAME-DOC]); the field widths
// are ours [D]. (An earlier (incarnation << 32) + counter let a counter past 2^32 collide with the next
// incarnation's ids.)
constexpr std::uint64_t id_counter_bits = 40;
constexpr std::uint64_t id_incarnation_bits = 23;
std::array<std::uint8_t, 24> generate_id(const put_context& ctx, bool second = false) {
  std::array<std::uint8_t, 24> id{};
  const std::string head = "AMQ " + pad(ctx.qmgr_name, 12);
  for (std::size_t i = 0; i < 16; ++i) id[i] = static_cast<std::uint8_t>(head[i]);
  const std::uint64_t counter = ctx.msg_id_counter & ((std::uint64_t{1} << id_counter_bits) - 1);
  const std::uint64_t incarnation = ctx.incarnation & ((std::uint64_t{1} << id_incarnation_bits) - 1);
  const std::uint64_t tail =
      (std::uint64_t{second ? 1u : 0u} << 63) | (incarnation << id_counter_bits) | counter;
  for (std::size_t i = 0; i < 8; ++i) id[16 + i] = static_cast<std::uint8_t>(tail >> (8 * (7 - i)));
  return id;
}

bool valid_msg_type(std::int32_t t) noexcept {
  return t == mq::MQMT_REQUEST || t == mq::MQMT_REPLY || t == mq::MQMT_REPORT || t == mq::MQMT_DATAGRAM ||
         (t >= mq::MQMT_APPL_FIRST && t <= mq::MQMT_APPL_LAST);
}

// MQFB_NONE, the system range (which holds the MQRC_* values too) or the application range
// [C: FEEDBACK-DOC].
bool valid_feedback(std::int32_t fb) noexcept {
  return fb == mq::MQFB_NONE || (fb >= mq::MQFB_SYSTEM_FIRST && fb <= mq::MQFB_SYSTEM_LAST) ||
         (fb >= mq::MQFB_APPL_FIRST && fb <= mq::MQFB_APPL_LAST);
}

// The origin context the queue manager generates (default context, and the origin half of identity
// context) [C: MQMD-FIELDS]; PutApplType MQAT_UNIX, the Linux MQAT_DEFAULT [C: MQGO-CONST].
void set_origin_context(mq::mqmd& md, const put_context& ctx) {
  md.put_appl_type = mq::MQAT_UNIX;
  md.put_appl_name = pad(ctx.appl_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  put_date_time(ctx.now, md.put_date, md.put_time);
  md.appl_origin_data = std::string(mq::MQ_APPL_ORIGIN_DATA_LENGTH, ' ');
}

}  // namespace

result<mq::mqmd> prepare_put(const mq::mqmd& given, std::int32_t pmo_options, const put_context& ctx) {
  // The context options exclude each other. PASS_* take the context a get saved on an input handle; no
  // handle reaches these rules, so the caller copies that context into `given` and checks PASSID /
  // PASSALL authority when the queue is opened (MQOO_PASS_*): here they keep the fields as given, like
  // SET_*, without asking may_set_* [D].
  const std::int32_t context_options =
      pmo_options &
      (mq::MQPMO_DEFAULT_CONTEXT | mq::MQPMO_PASS_IDENTITY_CONTEXT | mq::MQPMO_PASS_ALL_CONTEXT |
       mq::MQPMO_SET_IDENTITY_CONTEXT | mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_NO_CONTEXT);
  if ((context_options & (context_options - 1)) != 0)
    return mqrc_error(mq::MQRC_OPTIONS_ERROR, "MQPMO.Options",
                      "more than one context option (DEFAULT, PASS_IDENTITY, PASS_ALL, SET_IDENTITY, "
                      "SET_ALL, NO_CONTEXT) given");
  if (!valid_msg_type(given.msg_type))
    return mqrc_error(mq::MQRC_MSG_TYPE_ERROR, "MQMD.MsgType",
                      "MsgType " + std::to_string(given.msg_type) +
                          " is not REQUEST, REPLY, REPORT, DATAGRAM or in the application range");
  if (given.expiry == 0 || given.expiry < mq::MQEI_UNLIMITED)
    return mqrc_error(mq::MQRC_EXPIRY_ERROR, "MQMD.Expiry",
                      "Expiry " + std::to_string(given.expiry) + " is neither positive nor MQEI_UNLIMITED");
  if (!valid_feedback(given.feedback))
    return mqrc_error(
        mq::MQRC_FEEDBACK_ERROR, "MQMD.Feedback",
        "Feedback " + std::to_string(given.feedback) + " is outside the system and application ranges");
  if (given.msg_type == mq::MQMT_REPORT && given.feedback == mq::MQFB_NONE)
    return mqrc_error(mq::MQRC_FEEDBACK_ERROR, "MQMD.Feedback",
                      "a report message needs a Feedback, found MQFB_NONE");
  if ((given.report & mq::MQRO_REJECT_UNSUP_MASK) != 0)
    return mqrc_error(mq::MQRC_REPORT_OPTIONS_ERROR, "MQMD.Report",
                      "Report has bits of MQRO_REJECT_UNSUP_MASK (X'101C0000') set");
  if (given.msg_type == mq::MQMT_REQUEST && is_blank(given.reply_to_q))
    return mqrc_error(mq::MQRC_MISSING_REPLY_TO_Q, "MQMD.ReplyToQ", "a request message needs a ReplyToQ");
  // A report asked for needs somewhere to go, as a reply does: IBM's MQRC_MISSING_REPLY_TO_Q covers "a
  // report message was requested in the Report field" too [I] (IBM's reason-code text). PAN/NAN and
  // ACTIVITY are not report messages of the queue manager; DISCARD and the PASS_* options ask for none.
  constexpr std::int32_t report_kinds = mq::MQRO_EXCEPTION_WITH_FULL_DATA |
                                        mq::MQRO_EXPIRATION_WITH_FULL_DATA | mq::MQRO_COA_WITH_FULL_DATA |
                                        mq::MQRO_COD_WITH_FULL_DATA;
  if ((given.report & report_kinds) != 0 && is_blank(given.reply_to_q))
    return mqrc_error(mq::MQRC_MISSING_REPLY_TO_Q, "MQMD.ReplyToQ",
                      "a report was asked for (Report X'" + hex32(given.report) + "') but ReplyToQ is blank");
  if (given.persistence != mq::MQPER_NOT_PERSISTENT && given.persistence != mq::MQPER_PERSISTENT &&
      given.persistence != mq::MQPER_PERSISTENCE_AS_Q_DEF)
    return mqrc_error(mq::MQRC_PERSISTENCE_ERROR, "MQMD.Persistence",
                      "Persistence " + std::to_string(given.persistence) + " is not 0, 1 or 2");
  if (given.priority < mq::MQPRI_PRIORITY_AS_Q_DEF)
    return mqrc_error(
        mq::MQRC_PRIORITY_ERROR, "MQMD.Priority",
        "Priority " + std::to_string(given.priority) + " is below -1 (MQPRI_PRIORITY_AS_Q_DEF)");
  const bool pass_identity = (context_options & mq::MQPMO_PASS_IDENTITY_CONTEXT) != 0;
  const bool pass_all = (context_options & mq::MQPMO_PASS_ALL_CONTEXT) != 0;
  // Setting all context includes setting identity context, as ALLMQI grants both [I].
  if ((context_options & mq::MQPMO_SET_IDENTITY_CONTEXT) != 0 && !ctx.may_set_identity && !ctx.may_set_all)
    return mqrc_error(mq::MQRC_NOT_AUTHORIZED, "MQPMO.Options",
                      "user '" + ctx.user + "' may not set identity context (SETID)");
  if ((context_options & mq::MQPMO_SET_ALL_CONTEXT) != 0 && !ctx.may_set_all)
    return mqrc_error(mq::MQRC_NOT_AUTHORIZED, "MQPMO.Options",
                      "user '" + ctx.user + "' may not set all context (SETALL)");
  const bool set_identity = pass_identity || (context_options & mq::MQPMO_SET_IDENTITY_CONTEXT) != 0;
  const bool set_all = pass_all || (context_options & mq::MQPMO_SET_ALL_CONTEXT) != 0;

  mq::mqmd md = given;
  md.version = mq::MQMD_VERSION_2;
  md.backout_count = 0;
  // MQCCSI_Q_MGR becomes the queue manager's CCSID on MQPUT, so a getter learns what the data is [C]
  // (IBM's CodedCharSetId field description).
  if (md.coded_char_set_id == mq::MQCCSI_Q_MGR) md.coded_char_set_id = qmgr_ccsid;
  const bool new_msg_id = md.msg_id == mq::MQMI_NONE || (pmo_options & mq::MQPMO_NEW_MSG_ID) != 0;
  if (new_msg_id) md.msg_id = generate_id(ctx);
  // A new CorrelId comes from the same generator: unique among CorrelIds as MsgIds are [I]. With a new
  // MsgId too it is the put's second id, so the two differ (IBM gives two distinct ids [I]).
  if ((pmo_options & mq::MQPMO_NEW_CORREL_ID) != 0) md.correl_id = generate_id(ctx, new_msg_id);
  if (md.priority == mq::MQPRI_PRIORITY_AS_Q_DEF) md.priority = ctx.queue_default_priority;
  // Above MaxPriority (9) IBM puts the message at 9 with the warning MQRC_PRIORITY_EXCEEDS_MAXIMUM [I];
  // this result has no warning to carry, so only the clamping is kept [D].
  if (md.priority > 9) md.priority = 9;
  if (md.persistence == mq::MQPER_PERSISTENCE_AS_Q_DEF) md.persistence = ctx.queue_default_persistence;

  if (set_all) return md;  // all context as given
  if ((context_options & mq::MQPMO_NO_CONTEXT) != 0) {
    const mq::mqmd blank;
    md.user_identifier = blank.user_identifier;
    md.accounting_token = blank.accounting_token;
    md.appl_identity_data = blank.appl_identity_data;
    md.put_appl_type = mq::MQAT_NO_CONTEXT;
    md.put_appl_name = blank.put_appl_name;
    md.put_date = blank.put_date;
    md.put_time = blank.put_time;
    md.appl_origin_data = blank.appl_origin_data;
    return md;
  }
  if (!set_identity) {
    md.user_identifier = pad(ctx.user, mq::MQ_USER_ID_LENGTH);
    md.accounting_token = mq::MQACT_NONE;
    md.appl_identity_data = std::string(mq::MQ_APPL_IDENTITY_DATA_LENGTH, ' ');
  }
  set_origin_context(md, ctx);
  return md;
}

result<done> check_put_headers(const mq::mqmd& md, bytes_view data) {
  if (md.format != mq::MQFMT_IMS) return std::monostate{};
  if (data.size() < mq::MQIIH_LENGTH_1) {
    decode_error e = mqrc_error(mq::MQRC_IIH_ERROR, "MQIIH",
                                "Format is MQIMS but the data has " + std::to_string(data.size()) +
                                    " bytes, fewer than the 84 of an MQIIH");
    return e;
  }
  auto iih = mq::decode_mqiih(data, md.encoding, md.coded_char_set_id);
  if (!iih) return iih.error();
  return std::monostate{};
}

bool expired(std::int32_t expiry, std::int64_t put_time_ms, std::int64_t now_ms) noexcept {
  if (expiry == mq::MQEI_UNLIMITED || expiry < 0) return false;
  const std::int64_t elapsed = std::max<std::int64_t>(0, now_ms - put_time_ms);
  return elapsed >= std::int64_t{expiry} * 100;
}

std::int32_t remaining(std::int32_t expiry, std::int64_t put_time_ms, std::int64_t now_ms) noexcept {
  if (expiry == mq::MQEI_UNLIMITED || expiry < 0) return expiry;
  const std::int64_t elapsed = std::max<std::int64_t>(0, now_ms - put_time_ms);
  const std::int64_t left_ms = std::int64_t{expiry} * 100 - elapsed;
  if (left_ms <= 0) return 0;                              // expired [D]
  return static_cast<std::int32_t>((left_ms + 99) / 100);  // rounded up: at least 1 while not expired
}

std::optional<outgoing> make_report(report_kind kind, const mq::mqmd& original, bytes_view data,
                                    std::int32_t feedback, std::int64_t put_time_ms, const put_context& ctx) {
  // Each kind: the option that asks for it, and those with data and with all data [C: CMQC-PY].
  std::int32_t plain = 0, with_data = 0, full_data = 0, fb = feedback;
  switch (kind) {
    case report_kind::coa:
      plain = mq::MQRO_COA, with_data = mq::MQRO_COA_WITH_DATA, full_data = mq::MQRO_COA_WITH_FULL_DATA;
      fb = mq::MQFB_COA;
      break;
    case report_kind::cod:
      plain = mq::MQRO_COD, with_data = mq::MQRO_COD_WITH_DATA, full_data = mq::MQRO_COD_WITH_FULL_DATA;
      fb = mq::MQFB_COD;
      break;
    case report_kind::expiration:
      plain = mq::MQRO_EXPIRATION, with_data = mq::MQRO_EXPIRATION_WITH_DATA;
      full_data = mq::MQRO_EXPIRATION_WITH_FULL_DATA;
      fb = mq::MQFB_EXPIRATION;
      break;
    case report_kind::exception:
      plain = mq::MQRO_EXCEPTION, with_data = mq::MQRO_EXCEPTION_WITH_DATA;
      full_data = mq::MQRO_EXCEPTION_WITH_FULL_DATA;
      break;
  }
  const std::int32_t r = original.report;
  if ((r & plain) != plain || is_blank(original.reply_to_q)) return std::nullopt;

  outgoing out;
  out.queue = trim_name(original.reply_to_q);
  out.qmgr = trim_name(original.reply_to_q_mgr);
  if ((r & full_data) == full_data) {
    out.data = data.to_bytes();
  } else if ((r & with_data) == with_data) {
    // The MQ headers at the front (MQDLH, MQXQH, MQIIH ...) are kept whole, then the first 100 bytes of
    // the application data: a report's Format is the original's, so a cut header would not decode
    // (IBM's rule for WITH_DATA [I: JAVA-MQRO]). A header that does not decode ends the headers
    // kept: from there on the bytes count as data.
    const mq::chain_walk walk =
        mq::walk_chain_partial(data, original.format, original.encoding, original.coded_char_set_id);
    const std::size_t headers = std::min(walk.chain.data_offset, data.size());
    out.data = data.sub(0, headers + std::min(report_data_length, data.size() - headers)).to_bytes();
  }

  mq::mqmd& md = out.md;
  md.version = mq::MQMD_VERSION_2;
  md.msg_type = mq::MQMT_REPORT;
  md.feedback = fb;
  // The generator rule of all reports [C: MSGID-DOC].
  md.msg_id = (r & mq::MQRO_PASS_MSG_ID) != 0 ? original.msg_id : generate_id(ctx);
  md.correl_id = (r & mq::MQRO_PASS_CORREL_ID) != 0 ? original.correl_id : original.msg_id;
  // Activity-report MD rules, the model of all generated reports ([C: ACTIVITY-MD], [I]).
  const bool pass = (r & mq::MQRO_PASS_DISCARD_AND_EXPIRY) != 0;
  md.report = pass && (r & mq::MQRO_DISCARD_MSG) != 0 ? mq::MQRO_DISCARD_MSG : mq::MQRO_NONE;
  md.expiry = pass ? remaining(original.expiry, put_time_ms, to_ms(ctx.now)) : mq::MQEI_UNLIMITED;
  if (md.expiry == 0) md.expiry = 1;  // already expired: the shortest expiry that can be put [D]
  // The data (if any) is the original's: its description too.
  md.encoding = original.encoding;
  md.coded_char_set_id = original.coded_char_set_id;
  md.format = original.format;
  md.priority = original.priority;
  md.persistence = original.persistence;
  // The report goes back to whoever asked, so it carries the original's identity; the origin is the
  // queue manager (as the MQDLH's [C: DLH-PUTAPPLTYPE]) [I]. A report has no reply.
  md.reply_to_q_mgr = pad(ctx.qmgr_name, mq::MQ_Q_MGR_NAME_LENGTH);
  md.user_identifier = original.user_identifier;
  md.accounting_token = original.accounting_token;
  md.appl_identity_data = original.appl_identity_data;
  md.put_appl_type = mq::MQAT_QMGR;
  md.put_appl_name = pad(ctx.qmgr_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  put_date_time(ctx.now, md.put_date, md.put_time);
  return out;
}

outgoing make_dead_letter(const mq::mqmd& original, bytes_view data, std::int32_t reason,
                          std::string_view dest_q, std::string_view dest_qmgr, std::string_view deadq,
                          const put_context& ctx) {
  mq::mqdlh dlh;
  dlh.reason = reason;
  dlh.dest_q_name = pad(dest_q, mq::MQ_Q_NAME_LENGTH);
  dlh.dest_q_mgr_name = pad(dest_qmgr, mq::MQ_Q_MGR_NAME_LENGTH);
  dlh.encoding = original.encoding;
  dlh.coded_char_set_id = original.coded_char_set_id;
  dlh.format = original.format;
  dlh.put_appl_type = mq::MQAT_QMGR;
  dlh.put_appl_name = pad(ctx.qmgr_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  put_date_time(ctx.now, dlh.put_date, dlh.put_time);

  outgoing out;
  out.queue = std::string(deadq);
  out.md = original;  // the original's context is kept (PASS_ALL_CONTEXT [C: DLH-DOC])
  out.md.format = mq::MQFMT_DEAD_LETTER_HEADER;
  out.md.encoding = qmgr_encoding;
  out.md.coded_char_set_id = qmgr_ccsid;
  out.data.reserve(mq::MQDLH_LENGTH_1 + data.size());
  mq::encode_mqdlh(dlh, qmgr_encoding, qmgr_ccsid, out.data);
  out.data.insert(out.data.end(), data.begin(), data.end());
  return out;
}

outgoing make_xmit(const mq::mqmd& original, bytes_view data, std::string_view xmitq,
                   std::string_view remote_q, std::string_view remote_qmgr) {
  mq::mqxqh xqh;
  xqh.remote_q_name = pad(remote_q, mq::MQ_Q_NAME_LENGTH);
  xqh.remote_q_mgr_name = pad(remote_qmgr, mq::MQ_Q_MGR_NAME_LENGTH);
  // The embedded MQMD is a version-1 copy [C: XQH-DOC]; its version-2 fields would travel in an
  // MQMDE, which we do not write yet [I].
  xqh.msg_desc = original;
  const mq::mqmd defaults;
  xqh.msg_desc.version = mq::MQMD_VERSION_1;
  xqh.msg_desc.group_id = defaults.group_id;
  xqh.msg_desc.msg_seq_number = defaults.msg_seq_number;
  xqh.msg_desc.offset = defaults.offset;
  xqh.msg_desc.msg_flags = defaults.msg_flags;
  xqh.msg_desc.original_length = defaults.original_length;

  outgoing out;
  out.queue = std::string(xmitq);
  // The separate MQMD: the original's, describing the MQXQH ([C: XQH-DOC], [I]).
  out.md = original;
  out.md.format = mq::MQFMT_XMIT_Q_HEADER;
  out.md.encoding = qmgr_encoding;
  out.md.coded_char_set_id = qmgr_ccsid;
  out.data.reserve(mq::MQXQH_LENGTH_1 + data.size());
  mq::encode_mqxqh(xqh, qmgr_encoding, qmgr_ccsid, out.data);
  out.data.insert(out.data.end(), data.begin(), data.end());
  return out;
}

outgoing make_xmit(const mq::mqmd& original, bytes_view data, std::string_view xmitq,
                   std::string_view remote_q, std::string_view remote_qmgr, const put_context& ctx) {
  outgoing out = make_xmit(original, data, xmitq, remote_q, remote_qmgr);
  // The separate MQMD's origin is the queue manager that put the message on the transmission queue
  // [I: XQH-DOC]; the embedded MQMD keeps the application's.
  out.md.put_appl_type = mq::MQAT_QMGR;
  out.md.put_appl_name = pad(ctx.qmgr_name, mq::MQ_PUT_APPL_NAME_LENGTH);
  return out;
}

bool profile_matches(std::string_view profile, std::string_view name) noexcept {
  return objects::generic_profile_matches(profile, name);
}

namespace {

// How specific a generic profile is, IBM's OAM order [I]: compared from the left, at the first place
// they differ a plain character beats '?', which beats '*', which beats a '**' qualifier; a profile with
// no generic character at all (the object's own name) beats every generic one.
int rank_at(std::string_view p, std::size_t i) noexcept {
  if (i >= p.size()) return -1;
  if (p[i] == '*') return i + 1 < p.size() && p[i + 1] == '*' ? 0 : 1;
  return p[i] == '?' ? 2 : 3;
}

bool more_specific(std::string_view a, std::string_view b) noexcept {
  std::size_t i = 0;
  for (;; ++i) {
    const int ra = rank_at(a, i), rb = rank_at(b, i);
    if (ra != rb) return ra > rb;
    if (ra == -1) return false;
    if (ra == 3 && a[i] != b[i]) return false;  // equally specific
  }
}

bool is_queue_type(std::string_view t) noexcept {
  return t == "QUEUE" || t == "QLOCAL" || t == "QALIAS" || t == "QREMOTE" || t == "QMODEL";
}

}  // namespace

bool authorized(const std::vector<objects::authority_record>& records, std::string_view user,
                const std::vector<std::string>& groups, std::string_view objtype, std::string_view name,
                std::string_view authority) {
  const std::string type = [&] {
    std::string t = upper(objtype);
    return is_queue_type(t) ? std::string("QUEUE") : t;
  }();
  const std::string wanted = upper(authority);

  // Each entity (the user, each of its groups) is judged by its most specific matching profile; the
  // user has what any of them grants (IBM's OAM [I]).
  auto grants = [&](bool is_group, std::string_view entity) {
    const objects::authority_record* best = nullptr;
    for (const auto& r : records) {
      if ((is_group ? r.group : r.principal) != entity || entity.empty()) continue;
      if (upper(r.objtype) != type || !profile_matches(r.profile, name)) continue;
      if (best == nullptr || more_specific(r.profile, best->profile)) best = &r;
    }
    if (best == nullptr) return false;
    for (const auto& r : records) {
      if ((is_group ? r.group : r.principal) != entity || upper(r.objtype) != type ||
          r.profile != best->profile)
        continue;
      for (const std::string& w : r.authorities) {
        const std::string word = upper(w);
        if (word == wanted) return true;
        const objects::authority_expansion e = objects::expand_authority(type, word);
        if (std::find(e.words.begin(), e.words.end(), wanted) != e.words.end()) return true;
      }
    }
    return false;
  };
  if (grants(false, user)) return true;
  return std::any_of(groups.begin(), groups.end(), [&](const std::string& g) { return grants(true, g); });
}

}  // namespace imsb::qmgr::rules
