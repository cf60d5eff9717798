#pragma once
// MQMD, the message descriptor, versions 1 (324 bytes) and 2 (364 bytes) [C: CMQC-H, CMQC-PY].
// The byte layout is mqmd_layout() (layout.hpp); this is the typed view and its codec.

#include <array>
#include <cstdint>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::mq {

// Defaults are IBM's MQMD_DEFAULT [C: CMQC-H]. MQCHARn fields hold exactly n
// characters of CCSID 819 text, padding kept; MQBYTEn fields are raw bytes.
struct mqmd {
  std::string struc_id{MQMD_STRUC_ID};
  std::int32_t version = MQMD_VERSION_1;
  std::int32_t report = MQRO_NONE;
  std::int32_t msg_type = MQMT_DATAGRAM;
  std::int32_t expiry = MQEI_UNLIMITED;
  std::int32_t feedback = MQFB_NONE;
  // IBM's default is MQENC_NATIVE, which depends on the platform; ours is the Linux queue manager's
  // native encoding [D] (docs/design/character-data.md).
  std::int32_t encoding = MQENC_NATIVE_LINUX_X86;
  std::int32_t coded_char_set_id = MQCCSI_Q_MGR;
  std::string format{MQFMT_NONE};
  std::int32_t priority = MQPRI_PRIORITY_AS_Q_DEF;
  std::int32_t persistence = MQPER_PERSISTENCE_AS_Q_DEF;
  std::array<std::uint8_t, 24> msg_id{};     // MQMI_NONE
  std::array<std::uint8_t, 24> correl_id{};  // MQCI_NONE
  std::int32_t backout_count = 0;
  std::string reply_to_q = std::string(MQ_Q_NAME_LENGTH, ' ');
  std::string reply_to_q_mgr = std::string(MQ_Q_MGR_NAME_LENGTH, ' ');
  std::string user_identifier = std::string(MQ_USER_ID_LENGTH, ' ');
  std::array<std::uint8_t, 32> accounting_token{};  // MQACT_NONE
  std::string appl_identity_data = std::string(MQ_APPL_IDENTITY_DATA_LENGTH, ' ');
  std::int32_t put_appl_type = MQAT_NO_CONTEXT;
  std::string put_appl_name = std::string(MQ_PUT_APPL_NAME_LENGTH, ' ');
  std::string put_date = std::string(MQ_PUT_DATE_LENGTH, ' ');
  std::string put_time = std::string(MQ_PUT_TIME_LENGTH, ' ');
  std::string appl_origin_data = std::string(MQ_APPL_ORIGIN_DATA_LENGTH, ' ');
  // Version 2 fields; a version-1 MQMD leaves them at their defaults.
  std::array<std::uint8_t, 24> group_id{};  // MQGI_NONE
  std::int32_t msg_seq_number = 1;
  std::int32_t offset = 0;
  std::int32_t msg_flags = MQMF_NONE;
  std::int32_t original_length = MQOL_UNDEFINED;

  // Not a field: the CCSID the character fields were decoded from (0 if not decoded). It differs
  // from the ccsid asked for when the StrucId was in the other character family (ASCII vs EBCDIC)
  // or that CCSID is not supported. Not compared by ==.
  std::int32_t chars_ccsid = 0;
};

// Calls f(ibm_field_name, m.field...) for every field in layout order, on one or more structures at
// once (f("Report", a.report, b.report) compares two). The codec pairs these calls with the rows of
// mqmd_layout(); a test checks that names, kinds and sizes agree.
template <class F, class... M>
void visit_mqmd_fields(F&& f, M&... m) {
  f("StrucId", m.struc_id...);
  f("Version", m.version...);
  f("Report", m.report...);
  f("MsgType", m.msg_type...);
  f("Expiry", m.expiry...);
  f("Feedback", m.feedback...);
  f("Encoding", m.encoding...);
  f("CodedCharSetId", m.coded_char_set_id...);
  f("Format", m.format...);
  f("Priority", m.priority...);
  f("Persistence", m.persistence...);
  f("MsgId", m.msg_id...);
  f("CorrelId", m.correl_id...);
  f("BackoutCount", m.backout_count...);
  f("ReplyToQ", m.reply_to_q...);
  f("ReplyToQMgr", m.reply_to_q_mgr...);
  f("UserIdentifier", m.user_identifier...);
  f("AccountingToken", m.accounting_token...);
  f("ApplIdentityData", m.appl_identity_data...);
  f("PutApplType", m.put_appl_type...);
  f("PutApplName", m.put_appl_name...);
  f("PutDate", m.put_date...);
  f("PutTime", m.put_time...);
  f("ApplOriginData", m.appl_origin_data...);
  f("GroupId", m.group_id...);
  f("MsgSeqNumber", m.msg_seq_number...);
  f("Offset", m.offset...);
  f("MsgFlags", m.msg_flags...);
  f("OriginalLength", m.original_length...);
}

bool operator==(const mqmd& a, const mqmd& b);
inline bool operator!=(const mqmd& a, const mqmd& b) { return !(a == b); }

// Decodes an MQMD at the start of `in`; its Version (1 or 2) decides 324 or 364 bytes. `encoding`
// gives the byte order of the MQLONG fields, `ccsid` the character set of the MQCHAR fields.
// The StrucId is accepted in ASCII ("MD  " X'4D442020') and EBCDIC (X'D4C44040') whatever `ccsid`
// says [C: WIRESHARK]. Errors (make_mqrc(MQRC_MD_ERROR)): buffer too short, wrong
// StrucId, Version not 1 or 2.
result<mqmd> decode_mqmd(bytes_view in, std::int32_t encoding, std::int32_t ccsid);

// Appends the MQMD (324 or 364 bytes by md.version) to `out`. Field values are written as they are,
// valid or not, so that tools can build malformed messages on purpose. An unsupported `ccsid`
// writes CCSID 819 [D].
void encode_mqmd(const mqmd& md, std::int32_t encoding, std::int32_t ccsid, bytes& out);

}  // namespace imsb::mq
