#pragma once
// The meaning of the coded values in MQ header fields (MQMD, MQIIH, MQDLH, MQXQH), and the nodes that
// show a whole header field by field from its layout table (imsb/mq/layout.hpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/core/bytes.hpp"
#include "imsb/dump/tree.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::dump {

// "MQRO_EXCEPTION_WITH_DATA + MQRO_PASS_MSG_ID", every option spelled out [C: CMQC-PY];
// MQRO_NONE spells out its defaults; bits that are no option are named as hex.
std::string describe_report(std::int32_t report);
std::string describe_msg_type(std::int32_t msg_type);
std::string describe_expiry(std::int32_t expiry);
std::string describe_persistence(std::int32_t persistence);
std::string describe_priority(std::int32_t priority);
// Integer, decimal and float parts, and the platform it is native to [C: MQENC-TABLE].
std::string describe_encoding(std::int32_t encoding);
std::string describe_ccsid(std::int32_t ccsid);
// Which field a format name is in: what a user (non-MQ) name means depends on it.
enum class format_field {
  message,              // MQMD.Format (MQDLH.Format, MQXQH.MsgDesc.Format): without an MQIIH, a user
                        // name on a bridge queue is the MFS map name [C: BRIDGE-MSGS]
  iih_format,           // MQIIH.Format: the format of the data after the MQIIH [C: IIH-FORMAT]
  iih_reply_to_format,  // MQIIH.ReplyToFormat: the Format the reply's MQIIH will carry [C: REPLY-IIH]
};
// The MQFMT_* constant and what follows it, worded for the field the name is in.
std::string describe_format(std::string_view format_819, format_field where = format_field::message);
std::string describe_put_appl_type(std::int32_t type);
std::string describe_msg_flags(std::int32_t flags);
std::string describe_iih_flags(std::int32_t flags);  // [C: IIH-FLAGS]
std::string describe_tran_state(char c);
std::string describe_commit_mode(char c);
std::string describe_security_scope(char c);

// The meaning of one decoded field of the structure named `struc` ("MQMD", "MQIIH", "MQDLH",
// "MQXQH"); empty when there is nothing to say. `ccsid` is the CCSID its characters are in.
std::string field_meaning(std::string_view struc, const mq::field_value& f, std::int32_t ccsid);

// A structure node for the header of layout `l` at `offset` in `msg`, one child per field (offsets
// absolute in `msg`), read with `encoding` and `ccsid`. The embedded MQMD of an MQXQH is a nested
// structure node. Fields that do not fit in `msg` are left out.
node mq_header_node(const mq::layout& l, bytes_view msg, std::size_t offset, std::int32_t encoding,
                    std::int32_t ccsid);

}  // namespace imsb::dump
