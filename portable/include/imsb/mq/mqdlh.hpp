#pragma once
// MQDLH, the dead-letter header (172 bytes, version 1) [C: CMQC-H, DLH-DOC].
// The byte layout is mqdlh_layout() (layout.hpp); this is the typed view and its codec.

#include <cstdint>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::mq {

// Defaults are IBM's MQDLH_DEFAULT [C: MQGO-DLH]. Encoding, CodedCharSetId and
// Format describe the data that follows the MQDLH (the original MQMD's values).
struct mqdlh {
  std::string struc_id{MQDLH_STRUC_ID};
  std::int32_t version = MQDLH_VERSION_1;
  std::int32_t reason = MQRC_NONE;  // MQFB_* or MQRC_*
  std::string dest_q_name = std::string(MQ_Q_NAME_LENGTH, ' ');
  std::string dest_q_mgr_name = std::string(MQ_Q_MGR_NAME_LENGTH, ' ');
  std::int32_t encoding = 0;
  std::int32_t coded_char_set_id = MQCCSI_UNDEFINED;
  std::string format{MQFMT_NONE};
  std::int32_t put_appl_type = 0;
  std::string put_appl_name = std::string(MQ_PUT_APPL_NAME_LENGTH, ' ');
  std::string put_date = std::string(MQ_PUT_DATE_LENGTH, ' ');
  std::string put_time = std::string(MQ_PUT_TIME_LENGTH, ' ');

  // Not a field: the CCSID the character fields were decoded from (see mqmd::chars_ccsid).
  std::int32_t chars_ccsid = 0;
};

// Calls f(ibm_field_name, m.field...) for every field in layout order (see visit_mqmd_fields).
template <class F, class... M>
void visit_mqdlh_fields(F&& f, M&... m) {
  f("StrucId", m.struc_id...);
  f("Version", m.version...);
  f("Reason", m.reason...);
  f("DestQName", m.dest_q_name...);
  f("DestQMgrName", m.dest_q_mgr_name...);
  f("Encoding", m.encoding...);
  f("CodedCharSetId", m.coded_char_set_id...);
  f("Format", m.format...);
  f("PutApplType", m.put_appl_type...);
  f("PutApplName", m.put_appl_name...);
  f("PutDate", m.put_date...);
  f("PutTime", m.put_time...);
}

bool operator==(const mqdlh& a, const mqdlh& b);
inline bool operator!=(const mqdlh& a, const mqdlh& b) { return !(a == b); }

// Decodes the MQDLH at the start of `in`: at least 172 bytes, StrucId "DLH " (ASCII X'444C4820' or
// EBCDIC X'C4D3C840'), Version 1; failures give make_mqrc(MQRC_DLH_ERROR) naming the field.
result<mqdlh> decode_mqdlh(bytes_view in, std::int32_t encoding, std::int32_t ccsid);

// Appends the 172-byte MQDLH to `out`, field values as they are (see encode_mqmd).
void encode_mqdlh(const mqdlh& dlh, std::int32_t encoding, std::int32_t ccsid, bytes& out);

}  // namespace imsb::mq
