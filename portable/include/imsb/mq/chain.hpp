#pragma once
// Walking the chain of MQ headers at the front of a message: each header's Format (and for MQDLH and
// MQXQH its Encoding and CodedCharSetId) says what follows it, starting from the MQMD's.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mq/mqxqh.hpp"

namespace imsb::mq {

struct chain_header {
  std::string_view struc_name;  // "MQMD", "MQDLH", "MQXQH", "MQIIH"
  std::size_t offset = 0;       // in the walked buffer
  std::size_t length = 0;
  std::int32_t encoding = 0;  // what the header was decoded with (its describing Encoding)
  std::int32_t ccsid = 0;     // its describing CodedCharSetId (value.chars_ccsid says what was used)
  std::variant<mqmd, mqdlh, mqxqh, mqiih> value;
};

struct header_chain {
  std::vector<chain_header> headers;
  std::size_t data_offset = 0;     // where the data after the last header starts
  std::int32_t data_encoding = 0;  // Encoding, CodedCharSetId and Format that describe that data
  std::int32_t data_ccsid = 0;
  std::string data_format;  // 8 characters, CCSID 819
};

// Decodes the headers at the start of `msg`, the first one described by (format, encoding, ccsid)
// (the MQMD's Format, Encoding and CodedCharSetId):
//   MQFMT_DEAD_LETTER_HEADER → MQDLH; what follows is described by its Encoding, CodedCharSetId, Format;
//   MQFMT_XMIT_Q_HEADER      → MQXQH; what follows is described by its embedded MQMD's fields;
//   MQFMT_IMS                → MQIIH; what follows has its Format and the same encoding and CCSID
//                              (spec/mq.md §1.4 [C]: "the same CCSID/encoding as the MQIIH");
// and stops at any other format. An Encoding with no integer byte order (0) or a CodedCharSetId of
// 0 / MQCCSI_INHERIT / other negative values inherits the describing values of the header itself [D].
// A header that does not decode is an error (its MQRC, field and offset within `msg`).
// Formats compare as MQCHAR8 values: "MQIMS" equals "MQIMS   ".
result<header_chain> walk_chain(bytes_view msg, std::string_view format, std::int32_t encoding,
                                std::int32_t ccsid);

// For bytes that start with an MQMD (a message as stored or dumped): the StrucId "MD  " in ASCII or
// EBCDIC gives the MQMD's character family (819 or 037), and a Version of 1 or 2 read big-endian or
// little-endian gives its byte order (785 for EBCDIC big-endian, 273 for ASCII big-endian, 546 for
// little-endian). headers[0] is the MQMD; the rest is walk_chain from its Format, Encoding and
// CodedCharSetId (0 inherits the MQMD's own, as above).
result<header_chain> walk_message_with_mqmd(bytes_view msg);

// MQCHAR8 format comparison: values equal up to the first NUL, trailing blanks ignored.
bool same_format(std::string_view a, std::string_view b) noexcept;

}  // namespace imsb::mq
