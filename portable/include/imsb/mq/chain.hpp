#pragma once
// Walking the chain of MQ headers at the front of a message: each header's Format (and for MQDLH and
// MQXQH its Encoding and CodedCharSetId) says what follows it, starting from the MQMD's.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/layout.hpp"
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

// The outcome of a walk that keeps what it decoded before a header that does not decode (a printer
// shows those headers, then the error).
struct chain_walk {
  // Without an error, the whole chain. With one, the headers before the one that did not decode, and
  // data_offset, data_encoding, data_ccsid and data_format describe that header instead of data:
  // where it starts and the Encoding, CodedCharSetId and Format that describe it.
  header_chain chain;
  std::optional<decode_error> error;  // its MQRC, field and offset within the walked buffer
};

// Decodes the headers at the start of `msg`, the first one described by (format, encoding, ccsid)
// (the MQMD's Format, Encoding and CodedCharSetId):
//   MQFMT_DEAD_LETTER_HEADER → MQDLH; what follows is described by its Encoding, CodedCharSetId, Format;
//   MQFMT_XMIT_Q_HEADER      → MQXQH; what follows is described by its embedded MQMD's fields;
//   MQFMT_IMS                → MQIIH; what follows has its Format and the same encoding and CCSID
//                              ([C: IIH-DOC]: "the same CCSID/encoding as the MQIIH");
// and stops at any other format. An Encoding with no integer byte order (0) or a CodedCharSetId of
// 0 / MQCCSI_INHERIT / other negative values inherits the describing values of the header itself [D].
// A header that does not decode ends the walk with an error (its MQRC, field and offset within `msg`).
// Formats compare as MQCHAR8 values: "MQIMS" equals "MQIMS   ".
chain_walk walk_chain_partial(bytes_view msg, std::string_view format, std::int32_t encoding,
                              std::int32_t ccsid);
// The same walk, all or nothing: the whole chain, or the error alone.
result<header_chain> walk_chain(bytes_view msg, std::string_view format, std::int32_t encoding,
                                std::int32_t ccsid);

// For bytes that start with an MQMD (a message as stored or dumped): detect_header_encoding gives the
// encoding and CCSID the MQMD is decoded with. headers[0] is the MQMD; the rest is walk_chain_partial
// from its Format, Encoding and CodedCharSetId (0 inherits the MQMD's own, as above), offsets counted
// from the start of `msg`. An MQMD that does not decode leaves no headers, data_offset 0, the
// detected encoding and CCSID (546 and 819 for a StrucId that is not "MD  ") and a blank format.
chain_walk walk_message_with_mqmd_partial(bytes_view msg);
// The same walk, all or nothing.
result<header_chain> walk_message_with_mqmd(bytes_view msg);

// How a header's own bytes say it is encoded [D]: its StrucId, `struc_id` ("MD  ", "DLH ", "XQH ",
// "IIH ") in ASCII or in EBCDIC, gives the character family (CCSID 819 or 037), and a Version of 1 or
// 2 read big-endian or little-endian gives the integer order: 785 for EBCDIC big-endian, 273 for
// ASCII big-endian, 546 for little-endian; a Version that is neither (or missing) leaves the family's
// usual platform, 785 for EBCDIC and 546 for ASCII. nullopt when the StrucId is not `struc_id`.
struct header_encoding {
  std::int32_t encoding = 0;
  std::int32_t ccsid = 0;
};
std::optional<header_encoding> detect_header_encoding(bytes_view header, std::string_view struc_id);

// The layout of the header that `format` names next in a chain (MQDLH for MQFMT_DEAD_LETTER_HEADER,
// MQXQH for MQFMT_XMIT_Q_HEADER, MQIIH for MQFMT_IMS), or nullptr when the format ends the chain.
const layout* chain_header_layout(std::string_view format) noexcept;

// MQCHAR8 format comparison: values equal up to the first NUL, trailing blanks ignored.
bool same_format(std::string_view a, std::string_view b) noexcept;

}  // namespace imsb::mq
