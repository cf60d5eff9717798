#pragma once
// Frames of the TCP emulation of XCF (xcfhub and its clients) [D]: docs/design/xcf-emulation.md, refined
// in transport/README.md. Pure codec: socket code reads bytes and hands them here (docs/design/layers.md).
// All integers big-endian, like z/OS; names EBCDIC (CCSID 037), blank-padded, 8 and 16 bytes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::xcf::frame {

inline constexpr std::size_t header_size = 16;
inline constexpr std::uint8_t version = 1;
inline constexpr std::uint32_t default_max_payload = 1024 * 1024;     // 1 MiB [D]
inline constexpr std::uint32_t hard_max_payload = 128 * 1024 * 1024;  // XCF's 128 MB [C]

enum class frame_type : std::uint8_t {
  join = 0x01,
  leave = 0x02,
  quiesce = 0x03,
  send = 0x04,
  deliver = 0x05,
  event = 0x06,
  query = 0x07,
  set_user_state = 0x08,
  remove = 0x09,  // IXCDELET
  ping = 0x0A,
  join_rsp = 0x81,
  leave_rsp = 0x82,
  quiesce_rsp = 0x83,
  send_rsp = 0x84,
  query_rsp = 0x87,
  set_user_state_rsp = 0x88,
  remove_rsp = 0x89,
  pong = 0x8A,
  error = 0xFF,  // the hub's last word before it closes a connection that broke the protocol [D]
};
bool known_type(std::uint8_t type) noexcept;
std::string_view to_string(frame_type type) noexcept;

namespace flags {
inline constexpr std::uint16_t ack = 0x0001;      // SEND: answer acceptance too, not only refusal
inline constexpr std::uint16_t ordered = 0x0002;  // SEND / DELIVER: ordered stream
inline constexpr std::uint16_t resume = 0x0004;   // SEND: first send after a refusal on this stream
inline constexpr std::uint16_t all = ack | ordered | resume;
}  // namespace flags

struct header {
  frame_type type = frame_type::ping;
  std::uint16_t flags = 0;
  std::uint32_t corr = 0;    // chosen by the requester, echoed in the response
  std::uint32_t length = 0;  // payload length
};

// Error codes of every decode (std::generic_category): std::errc::message_size for a length over the
// maximum; std::errc::invalid_argument for a group, member or system name that breaks its rule (so the
// hub can answer a JOIN 8/14 rather than ERROR); std::errc::protocol_error for everything else.
//
// Decodes the 16-byte header. Errors (decode_error.field names the field): short input, magic not
// 'XCFE', version not 1, unknown type, reserved flag bits set, length over max_payload.
result<header> decode_header(bytes_view in, std::uint32_t max_payload = default_max_payload);
void encode_header(const header& h, bytes& out);  // appends 16 bytes

// --- Payloads, one struct per frame type --------------------------------------------------------
struct join_payload {  // 0x01
  std::string group;   // without padding
  std::string member;
  std::uint8_t memassoc = 0;  // 0 = address space [D]
  bool lasting = false;
  user_state ustate{};
  member_data memdata{};
};
struct join_rsp_payload {  // 0x81
  return_code code;
  member_token token{};
  std::uint32_t max_payload = default_max_payload;  // what the hub accepts, so clients refuse early
  std::uint32_t heartbeat_ms = 0;                   // the hub's heartbeat interval
  std::vector<member_info> members;                 // the group, ourselves included
};
struct rc_payload {  // 0x82 0x83 0x84 0x88 0x89
  return_code code;
};
struct send_payload {       // 0x04
  std::string target_name;  // empty: by token
  member_token target_token{};
  std::uint16_t stream = 0;
  control_area control{};
  bytes data;
};
struct deliver_payload {  // 0x05
  std::string source_name;
  member_token source_token{};
  std::uint16_t stream = 0;
  control_area control{};
  bytes data;
};
struct event_payload {  // 0x06
  event_kind kind = event_kind::active;
  member_info member;  // the whole 81-byte member_info, as transport/README.md's table says
};
struct query_payload {  // 0x07: blank group = every group (the status query); blank member = all
  std::string group;
  std::string member;
};
struct query_rsp_payload {  // 0x87
  return_code code;
  std::vector<member_info> members;
};
struct set_user_state_payload {  // 0x08
  user_state ustate{};
};
struct remove_payload {  // 0x09
  std::string member;
};
struct ping_payload {  // 0x0A and 0x8A
  std::uint64_t nonce = 0;
};
struct error_payload {  // 0xFF
  return_code code;
  std::string text;  // ASCII, for people
};
struct empty_payload {};  // 0x02 LEAVE, 0x03 QUIESCE

using payload = std::variant<empty_payload, join_payload, join_rsp_payload, rc_payload, send_payload,
                             deliver_payload, event_payload, query_payload, query_rsp_payload,
                             set_user_state_payload, remove_payload, ping_payload, error_payload>;

struct decoded {
  header head;
  payload body;
};

// Decodes the payload of a frame whose header is known. Names are checked against the XCF rules
// [C: XCF-NAMES2]; member_info states and event kinds must be known values. Every error names the
// field and offset (offsets count from the start of the frame, header included).
result<payload> decode_payload(const header& h, bytes_view payload_bytes);

// Header + payload from one buffer that holds exactly one frame.
result<decoded> decode(bytes_view frame_bytes, std::uint32_t max_payload = default_max_payload);

// Appends a whole frame (header + payload). The payload alternative must fit the type (the type's
// response/request form); a mismatch is a programming error and appends nothing, returning false.
// Also refused (false, nothing appended), as programming errors the caller checks for first: a group
// or member name that breaks the XCF rules or is too long (imsb/names check_xcf_*_name, xcf_rules::xcf;
// empty only where blanks mean "all" or "by token"), a system name over 8 characters or not printable
// ASCII, a state or event kind out of range, reserved flag bits, an ERROR text over 65535 bytes, and a
// payload over hard_max_payload.
bool encode(frame_type type, std::uint16_t frame_flags, std::uint32_t corr, const payload& body, bytes& out);

// Incremental reader over a byte stream (Beast-style): feed bytes as they arrive, take whole frames.
class reader {
 public:
  explicit reader(std::uint32_t max_payload = default_max_payload) : max_payload_(max_payload) {}
  void feed(bytes_view in);
  enum class status { need_more, frame, error };
  // Takes the next whole frame out of the buffer. After an error the stream is unusable (framing lost)
  // and next() keeps returning error.
  status next(decoded& out, decode_error& err);
  // Takes the next whole frame out of the buffer without decoding its payload: `head` is the checked
  // header and `payload_bytes` its payload, valid until the next feed(). The caller decodes them
  // (decode_payload), so a payload that does not decode is that frame's problem and the stream stays
  // usable — the hub answers a JOIN with a bad name 8/14 and goes on (transport/README.md "Join" [D]).
  // A header that does not decode (magic, version, type, flags, length) is fatal, as for next().
  status next_raw(header& head, bytes_view& payload_bytes, decode_error& err);
  std::size_t buffered() const noexcept { return buf_.size() - pos_; }
  // Bytes of storage the reader holds, read or not: bounded by compaction on a long stream.
  std::size_t capacity() const noexcept { return buf_.capacity(); }

 private:
  std::uint32_t max_payload_;
  bytes buf_;
  std::size_t pos_ = 0;
  std::optional<decode_error> failed_;

  status lose_framing(decode_error e, decode_error& err);  // keeps the error, drops the bytes
};

}  // namespace imsb::xcf::frame
