#pragma once
// MQXQH, the transmission-queue header (428 bytes, version 1) with its embedded version-1 MQMD:
// [C: CMQC-H, XQH-DOC]. The byte layout is mqxqh_layout() (layout.hpp).

#include <cstdint>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::mq {

struct mqxqh {
  std::string struc_id{MQXQH_STRUC_ID};
  std::int32_t version = MQXQH_VERSION_1;
  std::string remote_q_name = std::string(MQ_Q_NAME_LENGTH, ' ');
  std::string remote_q_mgr_name = std::string(MQ_Q_MGR_NAME_LENGTH, ' ');
  // "A close copy of the message descriptor MQMD that was specified ... when the message was
  // originally put", always in the 324-byte version-1 layout [C: XQH-DOC]. Its version-2
  // fields are not carried (an MQMDE after the MQXQH carries them [I]).
  mqmd msg_desc;

  // Not a field: the CCSID the character fields were decoded from (see mqmd::chars_ccsid).
  std::int32_t chars_ccsid = 0;
};

// Calls f(ibm_field_name, m.field...) for every field in layout order (see visit_mqmd_fields);
// MsgDesc is passed as a whole mqmd.
template <class F, class... M>
void visit_mqxqh_fields(F&& f, M&... m) {
  f("StrucId", m.struc_id...);
  f("Version", m.version...);
  f("RemoteQName", m.remote_q_name...);
  f("RemoteQMgrName", m.remote_q_mgr_name...);
  f("MsgDesc", m.msg_desc...);
}

bool operator==(const mqxqh& a, const mqxqh& b);
inline bool operator!=(const mqxqh& a, const mqxqh& b) { return !(a == b); }

// Decodes the MQXQH at the start of `in`: at least 428 bytes, StrucId "XQH " (ASCII or EBCDIC),
// Version 1, and an embedded MQMD whose StrucId is "MD  " in the same character family and whose
// Version is 1 or 2 [D]. Failures give make_mqrc(MQRC_XQH_ERROR) [C: RC2260] naming
// the field ("MQXQH.MsgDesc.StrucId"). The embedded MQMD is read with the same encoding and CCSID.
//
// MsgDesc is always exactly the 324 bytes of a version-1 MQMD [C: XQH-DOC], whatever its
// Version says: a Version of 2 is kept as found, so that encode_mqxqh gives back the same 428 bytes,
// and msg_desc's version-2 fields stay at their defaults (the original's travel in an MQMDE after
// the MQXQH [I]); the bytes after the MQXQH are never read as MsgDesc.
result<mqxqh> decode_mqxqh(bytes_view in, std::int32_t encoding, std::int32_t ccsid);

// Appends the 428-byte MQXQH to `out`; msg_desc is written in the 324-byte version-1 layout whatever
// its Version field says (which is written as it is), its version-2 fields dropped. Field values
// are written as they are (see encode_mqmd).
void encode_mqxqh(const mqxqh& xqh, std::int32_t encoding, std::int32_t ccsid, bytes& out);

}  // namespace imsb::mq
