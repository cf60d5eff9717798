#pragma once
// The client protocol [D]: how a program talks to a queue-manager daemon over its bindings socket (Unix) or a
// TCP listener (optionally TLS). One request, then its one response, in turn, on one connection — the MQI
// calls of connection.hpp, one frame each (one exception: the wake frame of a consumer's dispatcher, below
// wait_for_change_request). MQCB and MQCTL run in the client, over gets and wait_for_change. A pure codec
// (docs/design/layers.md): it never touches a socket; the server and the client connection in qmgr/ move the
// bytes.
//
// Frame: a 12-byte header, then the body.
//   offset 0  4 bytes  "IMQF" (ASCII) — anything else is a bad frame
//   offset 4  u32 BE   body length; at most max_body_length (bigger: a bad frame, never buffered)
//   offset 8  u16 BE   frame type (frame_type below)
//   offset 10 u16 BE   protocol version, 1
// Body: the fields of the request or response in the order the structs below declare them:
//   i32 as 4 bytes big-endian; strings and byte strings as u32 BE length then the bytes; bool as 1 byte
//   (0/1); an MQMD as a byte string holding encode_mqmd(md, 0x00000111 (integers big-endian), 819), its
//   version deciding 324 or 364 bytes — one canonical wire form, so both ends agree whatever their
//   platform; a message_token as its 16 bytes; a std::array<uint8_t, 24> as its 24 bytes.
// A body with bytes left over after its last field, or too few, is a bad frame. So is, to keep one
// wire form per value: an MQMD byte string that is not exactly 324 bytes of a version-1 or 364 of a
// version-2 MQMD with StrucId "MD  " in ASCII; a completion code other than 0, 1 or 2, or one whose
// reason disagrees with it (MQCC_OK with a reason, MQCC_WARNING or MQCC_FAILED without one); a map whose keys
// are not in ascending order, each once (as std::map encodes them); a max_length below -1; a data_length
// below the data's size. A length or count is refused, before anything is allocated for it, when the rest of
// the body cannot hold that many, or when its entries would take the decoder past its allocation budget: what
// a frame decodes to may take at most 6 times the body's length plus 64 KiB of memory for its lists and maps,
// besides the bytes it copies (client_protocol.cpp says how it counts) [D].
//
// Every response starts with the MQI's completion: i32 completion code (MQCC_*), i32 reason (MQRC_NONE,
// or the MQRC), string detail (the error's or the warning's words, "" on MQCC_OK). A response with
// MQCC_FAILED carries the default value after it; one with MQCC_WARNING, the value the warning is about.
// An object_descriptor is object_name, object_qmgr_name, then object_type as i32 (MQOT_*).
// Protocol version 1 is the pre-release form: it changes with connection.hpp until the first release,
// and both ends come from one build [D].

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::mqi::wire {

inline constexpr std::size_t header_length = 12;
// The largest body: MQ's largest message (100 MB, MAXMSGL's limit [C]) plus room for the headers.
inline constexpr std::size_t max_body_length = 104857600 + 65536;
inline constexpr std::uint16_t protocol_version = 1;

enum class frame_type : std::uint16_t {
  // requests
  connect = 1,
  open = 2,
  close = 3,
  put = 4,
  put1 = 5,
  get = 6,
  inquire = 7,
  inquire_objects = 8,
  mqsc = 9,
  commit = 10,
  backout = 11,
  disconnect = 12,
  set = 13,
  wait_for_change = 14,
  wake = 15,
  begin = 16,
  // responses: request type + 0x8000
  response_bit = 0x8000,
};

// ---- requests ----
struct connect_request {
  std::string qmgr_name;  // blank: whichever queue manager serves the socket
  std::string user;       // TCP: the user to authenticate; bindings: ignored (the OS user counts)
  std::string password;   // TCP: checked against the credential file; "" = none (a client certificate)
  std::string appl_name;  // PutApplName for the connection's puts (28 characters at most)
};
struct open_request {
  object_descriptor od;
  std::int32_t options = 0;
};
struct close_request {
  hobj handle = 0;
};
struct put_request {
  hobj handle = 0;
  mq::mqmd md;
  bytes data;
  std::int32_t options = 0;
};
struct put1_request {
  object_descriptor od;
  mq::mqmd md;
  bytes data;
  std::int32_t options = 0;
};
struct get_request_frame {
  hobj handle = 0;
  get_request request;  // max_length as i32: -1 = nullopt; above the i32 maximum sent as that maximum
};
struct inquire_request {
  hobj handle = 0;
  std::vector<std::int32_t> selectors;  // u32 count, then each as i32
};
struct inquire_objects_request {
  std::string type;
  std::string generic;
};
struct mqsc_request {
  std::string script;
};
struct set_request {
  hobj handle = 0;
  std::vector<std::int32_t> selectors;
  std::vector<std::int32_t> int_attrs;
  std::vector<std::string> char_attrs;
};
// A consumer's dispatcher (MQCB / MQCTL, qmgr/src/async_consume.hpp): the queue manager's change mark now;
// with wait != 0, once it differs from `mark` or a wake frame came. While a waiting wait_for_change is
// outstanding — and only then — the client may send one wake frame before the response: the server then
// answers the wait_for_change, then the wake (a plain response), in that order. The one exception to
// one request, then its response.
struct wait_for_change_request {
  std::int32_t mark = 0;  // the mark's 32 bits
  std::int32_t wait = 0;  // 0: answer at once
};
struct wake_request {};
struct begin_request {};  // MQBEGIN over the bindings socket (a TCP client answers it itself)
struct commit_request {};
struct backout_request {};
struct disconnect_request {};

using request =
    std::variant<connect_request, open_request, close_request, put_request, put1_request, get_request_frame,
                 inquire_request, inquire_objects_request, mqsc_request, commit_request, backout_request,
                 disconnect_request, set_request, wait_for_change_request, wake_request, begin_request>;

// ---- responses ----
struct status {
  std::int32_t completion_code = 0;  // MQCC_OK, MQCC_WARNING (the value follows) or MQCC_FAILED
  std::int32_t reason = 0;           // MQRC_NONE or the MQRC
  std::string detail;
};
struct connect_response {
  status st;
  std::string qmgr_name;
  std::string user;  // the user the queue manager authenticated (what UserIdentifier will hold)
};
struct open_response {
  status st;
  open_result result;
};
struct put_response {  // also put1
  status st;
  put_result result;
};
struct get_response {
  status st;
  message msg;  // md, data, data_length (as u32), token (16 bytes)
};
struct inquire_response {
  status st;
  inquiry result;  // int_attrs as u32 count then i32 each; char_attrs as u32 count then strings
};
struct inquire_objects_response {
  status st;
  std::vector<object_attributes> objects;  // u32 count, then each: type, name, attributes as above
};
struct mqsc_response {
  status st;
  mqsc_reply reply;  // u32 count of lines, the lines, i32 exit code
};
struct plain_response {  // close, commit, backout, disconnect, set, wake, begin
  status st;
};
struct wait_for_change_response {
  status st;
  std::int32_t mark = 0;
};

using response =
    std::variant<connect_response, open_response, put_response, get_response, inquire_response,
                 inquire_objects_response, mqsc_response, plain_response, wait_for_change_response>;

// Whether a request can be sent, so that a client refuses it before encoding anything: an MQMD (put,
// put1) of version 1 or 2, else MQRC_MD_ERROR (2026); a body of at most max_body_length bytes, else
// MQRC_MSG_TOO_BIG_FOR_Q_MGR (2031). The error carries make_mqrc(MQRC_...) and the words [D].
result<done> check_request(const request& req);

// Appends one whole frame. The request must pass check_request (asserted: a longer body).
void encode_request(const request& req, bytes& out);
// `type` is the request's frame type the response answers (put_response serves put and put1,
// plain_response close, commit, backout and disconnect); the response's own type is type | 0x8000.
void encode_response(frame_type answers, const response& resp, bytes& out);

// The frame at the start of `in`: nullopt when more bytes are needed (fewer than 12, or fewer than the
// header's body length); an error (a decode_error whose code is std::errc::bad_message and whose field
// names the frame field, e.g. "frame.magic", "put.md") for a bad magic, version, type, length or body.
// A bad header is reported as soon as the 12 header bytes are there (a length above max_body_length is
// refused before any body is buffered). `consumed` is the frame's whole length.
template <class T>
struct decoded {
  T value;
  std::size_t consumed = 0;
};
std::optional<result<decoded<request>>> decode_request(bytes_view in);
// A response to a request of type `expected` (its type must be expected | 0x8000).
std::optional<result<decoded<response>>> decode_response(bytes_view in, frame_type expected);

// The frame type of a request (for encode_response and logs).
frame_type type_of(const request& req) noexcept;
// "connect", "put", ... for logs.
const char* name_of(frame_type type) noexcept;

// True when `first` (a connection's first bytes, at least 4) starts with IBM MQ's own transmission
// segment header — StructID "TSH ", "TSHC" or "TSHM", in ASCII or EBCDIC [C: WS-C, WS-H] — that is, an IBM
// MQ client or channel speaking its protocol to a listener of ours, which cannot understand it.
bool is_ibm_mq_segment(bytes_view first) noexcept;

}  // namespace imsb::mqi::wire
