#pragma once
// A sample MQMD with a different value in every field, and the check of its bytes at the offsets of
// IBM's MQMD [C: CMQC-H] (written out here, not taken from the layout table). Shared by the MQMD and MQXQH
// tests (an MQXQH embeds a version-1 MQMD at offset 104).

#include <cstddef>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/mqmd.hpp"
#include "mq_test_util.hpp"

namespace imsb::mq::test {

inline std::string pad(std::string_view s, std::size_t n) {
  std::string out(s);
  out.resize(n, ' ');
  return out;
}

inline mqmd sample_mqmd(std::int32_t version) {
  mqmd md;
  md.version = version;
  md.report = distinct(3);
  md.msg_type = distinct(4);
  md.expiry = distinct(5);
  md.feedback = distinct(6);
  md.encoding = distinct(7);
  md.coded_char_set_id = distinct(8);
  md.format = "MQIMS   ";
  md.priority = distinct(10);
  md.persistence = distinct(11);
  md.msg_id = byte_pattern<24>(0x01);
  md.correl_id = byte_pattern<24>(0x80);
  md.backout_count = distinct(14);
  md.reply_to_q = pad("APP.REPLY.Q", 48);
  md.reply_to_q_mgr = pad("QM1_relief", 48);
  md.user_identifier = pad("user01", 12);
  md.accounting_token = byte_pattern<32>(0x33);
  md.appl_identity_data = pad("ident-data/1", 32);
  md.put_appl_type = distinct(20);
  md.put_appl_name = pad("imsb/mq_test*put", 28);
  md.put_date = "20240131";
  md.put_time = "12345678";
  md.appl_origin_data = "ORIG";
  if (version >= 2) {
    md.group_id = byte_pattern<24>(0x50);
    md.msg_seq_number = distinct(26);
    md.offset = distinct(27);
    md.msg_flags = distinct(28);
    md.original_length = distinct(29);
  }
  return md;
}

// Checks every field of `md` in `b` at base + the offsets of IBM's MQMD [C: CMQC-H].
inline void expect_mqmd_bytes(const bytes& b, std::size_t base, const mqmd& md, const wire& w, bool v2) {
  expect_chars(b, base + 0, 4, "MD  ", w, "StrucId");
  expect_long(b, base + 4, md.version, w, "Version");
  expect_long(b, base + 8, md.report, w, "Report");
  expect_long(b, base + 12, md.msg_type, w, "MsgType");
  expect_long(b, base + 16, md.expiry, w, "Expiry");
  expect_long(b, base + 20, md.feedback, w, "Feedback");
  expect_long(b, base + 24, md.encoding, w, "Encoding");
  expect_long(b, base + 28, md.coded_char_set_id, w, "CodedCharSetId");
  expect_chars(b, base + 32, 8, md.format, w, "Format");
  expect_long(b, base + 40, md.priority, w, "Priority");
  expect_long(b, base + 44, md.persistence, w, "Persistence");
  expect_raw(b, base + 48, md.msg_id, "MsgId");
  expect_raw(b, base + 72, md.correl_id, "CorrelId");
  expect_long(b, base + 96, md.backout_count, w, "BackoutCount");
  expect_chars(b, base + 100, 48, md.reply_to_q, w, "ReplyToQ");
  expect_chars(b, base + 148, 48, md.reply_to_q_mgr, w, "ReplyToQMgr");
  expect_chars(b, base + 196, 12, md.user_identifier, w, "UserIdentifier");
  expect_raw(b, base + 208, md.accounting_token, "AccountingToken");
  expect_chars(b, base + 240, 32, md.appl_identity_data, w, "ApplIdentityData");
  expect_long(b, base + 272, md.put_appl_type, w, "PutApplType");
  expect_chars(b, base + 276, 28, md.put_appl_name, w, "PutApplName");
  expect_chars(b, base + 304, 8, md.put_date, w, "PutDate");
  expect_chars(b, base + 312, 8, md.put_time, w, "PutTime");
  expect_chars(b, base + 320, 4, md.appl_origin_data, w, "ApplOriginData");
  if (v2) {
    expect_raw(b, base + 324, md.group_id, "GroupId");
    expect_long(b, base + 348, md.msg_seq_number, w, "MsgSeqNumber");
    expect_long(b, base + 352, md.offset, w, "Offset");
    expect_long(b, base + 356, md.msg_flags, w, "MsgFlags");
    expect_long(b, base + 360, md.original_length, w, "OriginalLength");
  }
}

}  // namespace imsb::mq::test
