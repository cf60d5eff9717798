#pragma once
// MQIIH, the IMS information header (84 bytes, version 1 only) [C: CMQC-H, IIH-DOC].
// The byte layout is mqiih_layout() (layout.hpp); this is the typed view and its codec.

#include <array>
#include <cstdint>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::mq {

// Defaults are IBM's MQIIH_DEFAULT [C: CMQC-H]. Character fields are CCSID 819 text; the
// one-character fields are compared as characters (MQITS_*, MQICM_*, MQISS_*), never as bytes.
struct mqiih {
  std::string struc_id{MQIIH_STRUC_ID};
  std::int32_t version = MQIIH_VERSION_1;
  std::int32_t struc_length = static_cast<std::int32_t>(MQIIH_LENGTH_1);
  std::int32_t encoding = 0;           // "Reserved" on input [C: IIH-DOC]
  std::int32_t coded_char_set_id = 0;  // "Reserved" on input
  std::string format{MQFMT_NONE};
  std::int32_t flags = MQIIH_NONE;
  std::string lterm_override = std::string(MQ_LTERM_OVERRIDE_LENGTH, ' ');
  std::string mfs_map_name = std::string(MQ_MFS_MAP_NAME_LENGTH, ' ');
  std::string reply_to_format{MQFMT_NONE};
  std::string authenticator{MQIAUT_NONE};
  std::array<std::uint8_t, 16> tran_instance_id{};  // MQITII_NONE
  char tran_state = MQITS_NOT_IN_CONVERSATION;
  char commit_mode = MQICM_COMMIT_THEN_SEND;
  char security_scope = MQISS_CHECK;
  char reserved = ' ';

  // Not a field: the CCSID the character fields were decoded from (see mqmd::chars_ccsid).
  std::int32_t chars_ccsid = 0;
};

// Calls f(ibm_field_name, m.field...) for every field in layout order (see visit_mqmd_fields).
template <class F, class... M>
void visit_mqiih_fields(F&& f, M&... m) {
  f("StrucId", m.struc_id...);
  f("Version", m.version...);
  f("StrucLength", m.struc_length...);
  f("Encoding", m.encoding...);
  f("CodedCharSetId", m.coded_char_set_id...);
  f("Format", m.format...);
  f("Flags", m.flags...);
  f("LTermOverride", m.lterm_override...);
  f("MFSMapName", m.mfs_map_name...);
  f("ReplyToFormat", m.reply_to_format...);
  f("Authenticator", m.authenticator...);
  f("TranInstanceId", m.tran_instance_id...);
  f("TranState", m.tran_state...);
  f("CommitMode", m.commit_mode...);
  f("SecurityScope", m.security_scope...);
  f("Reserved", m.reserved...);
}

bool operator==(const mqiih& a, const mqiih& b);
inline bool operator!=(const mqiih& a, const mqiih& b) { return !(a == b); }

// Decodes the MQIIH at the start of `in`, with the checks the queue manager makes at MQPUT
// [C: RC2148]: buffer at least 84 bytes, StrucId "IIH " (ASCII X'49494820' or
// EBCDIC X'C9C9C840', whatever `ccsid` says), Version 1, StrucLength 84. Each failure is a
// decode_error with code make_mqrc(MQRC_IIH_ERROR) naming the field ("MQIIH.StrucLength").
// Flags are not checked: IBM added bits over time [D].
result<mqiih> decode_mqiih(bytes_view in, std::int32_t encoding, std::int32_t ccsid);

// Appends the 84-byte MQIIH to `out`, field values as they are (see encode_mqmd).
void encode_mqiih(const mqiih& iih, std::int32_t encoding, std::int32_t ccsid, bytes& out);

}  // namespace imsb::mq
