// libFuzzer target for the client protocol's frame codec (imsb/mqi/client_protocol.hpp [D]). A queue
// manager reads request frames from any program that connects, and a client reads response frames from
// whatever answers its socket, so on any input, decode_request and decode_response for each of the 16
// expected types:
//  1. never crash, never read past the input, never allocate more than the input can justify;
//  2. answer nullopt, or an error with std::errc::bad_message naming a field at an offset inside the input,
//     or a frame whose consumed length is its header's 12 + body length;
//  3. whatever decodes re-encodes to a frame of the same length that decodes to the same value (its
//     encoding again gives the same bytes); a frame without an MQMD re-encodes to exactly its input bytes
//     (an MQMD's character fields may differ: a NUL ends an MQCHAR field and the rest is written as blanks);
//  4. every shorter prefix of a decoded frame answers nullopt (checked on a few prefixes);
//  5. a decoded request passes check_request (what one end accepts, the other may send).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <system_error>
#include <variant>

#include "imsb/mqi/client_protocol.hpp"

namespace {

namespace w = imsb::mqi::wire;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

template <class T>
void check_error(const imsb::result<T>& r, imsb::bytes_view in) {
  if (r.ok()) return;
  require(r.error().code == std::make_error_code(std::errc::bad_message));
  require(!r.error().field.empty());
  require(r.error().offset <= in.size());
  require(!r.error().detail.empty());
}

bool has_mqmd_request(const w::request& r) {
  return std::holds_alternative<w::put_request>(r) || std::holds_alternative<w::put1_request>(r);
}
bool has_mqmd_response(const w::response& r) {
  return std::holds_alternative<w::put_response>(r) || std::holds_alternative<w::get_response>(r);
}

bool same_bytes(imsb::bytes_view a, const imsb::bytes& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The frame of `consumed` bytes decoded: its prefixes need more bytes.
template <class Decode>
void prefixes_need_more(imsb::bytes_view in, std::size_t consumed, Decode decode) {
  for (std::size_t n : {std::size_t{0}, w::header_length - 1, w::header_length, consumed / 2, consumed - 1}) {
    if (n < consumed) require(!decode(in.sub(0, n)).has_value());
  }
}

void requests(imsb::bytes_view in) {
  auto d = w::decode_request(in);
  if (!d) return;
  check_error(*d, in);
  if (!d->ok()) return;
  const std::size_t consumed = d->value().consumed;
  require(consumed >= w::header_length && consumed <= in.size());
  require(consumed == w::header_length + imsb::load_u32(in.data() + 4, imsb::byte_order::big));
  prefixes_need_more(in, consumed, [](imsb::bytes_view p) { return w::decode_request(p); });
  require(w::check_request(d->value().value).ok());

  imsb::bytes again;
  w::encode_request(d->value().value, again);
  require(again.size() == consumed);
  if (!has_mqmd_request(d->value().value)) require(same_bytes(in.sub(0, consumed), again));
  auto d2 = w::decode_request(again);
  require(d2 && d2->ok() && d2->value().consumed == again.size());
  require(d2->value().value.index() == d->value().value.index());
  require(w::type_of(d2->value().value) == w::type_of(d->value().value));
  imsb::bytes third;
  w::encode_request(d2->value().value, third);
  require(third == again);
}

void responses(imsb::bytes_view in, w::frame_type expected) {
  auto d = w::decode_response(in, expected);
  if (!d) return;
  check_error(*d, in);
  if (!d->ok()) return;
  const std::size_t consumed = d->value().consumed;
  require(consumed >= w::header_length && consumed <= in.size());
  require(consumed == w::header_length + imsb::load_u32(in.data() + 4, imsb::byte_order::big));
  prefixes_need_more(in, consumed,
                     [expected](imsb::bytes_view p) { return w::decode_response(p, expected); });

  imsb::bytes again;
  w::encode_response(expected, d->value().value, again);
  require(again.size() == consumed);
  if (!has_mqmd_response(d->value().value)) require(same_bytes(in.sub(0, consumed), again));
  auto d2 = w::decode_response(again, expected);
  require(d2 && d2->ok() && d2->value().consumed == again.size());
  require(d2->value().value.index() == d->value().value.index());
  imsb::bytes third;
  w::encode_response(expected, d2->value().value, third);
  require(third == again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const imsb::bytes_view in(data, size);
  requests(in);
  // A listener's first test of a connection: IBM MQ's segment header, or a frame of ours, never both.
  if (w::is_ibm_mq_segment(in)) {
    auto d = w::decode_request(in);
    if (d && *d) __builtin_trap();
  }
  for (std::uint16_t t = 1; t <= 16; ++t) responses(in, static_cast<w::frame_type>(t));
  return 0;
}
