// libFuzzer target for the xcfhub frame codec (imsb/xcf/frame.hpp; transport/README.md [D]). The hub reads
// these frames from any peer that connects, so on any input:
//  1. decode() never crashes or reads past the buffer; every error names its field and an offset inside
//     the input; whatever it accepts re-encodes, and decode(encode(x)) equals x field by field;
//  2. a reader fed the same bytes in chunks (sizes drawn from the input) gives the frames that decode()
//     gives one at a time on the same bytes, stops at the first error and stays in error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "imsb/xcf/frame.hpp"

namespace {

namespace f = imsb::xcf::frame;
namespace x = imsb::xcf;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

bool same(const x::member_info& a, const x::member_info& b) {
  return a.group == b.group && a.name == b.name && a.token == b.token && a.state == b.state &&
         a.ustate == b.ustate && a.memdata == b.memdata && a.system == b.system;
}
bool same(const std::vector<x::member_info>& a, const std::vector<x::member_info>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}
bool same(const f::empty_payload&, const f::empty_payload&) { return true; }
bool same(const f::join_payload& a, const f::join_payload& b) {
  return a.group == b.group && a.member == b.member && a.memassoc == b.memassoc && a.lasting == b.lasting &&
         a.ustate == b.ustate && a.memdata == b.memdata;
}
bool same(const f::join_rsp_payload& a, const f::join_rsp_payload& b) {
  return a.code == b.code && a.token == b.token && a.max_payload == b.max_payload &&
         a.heartbeat_ms == b.heartbeat_ms && same(a.members, b.members);
}
bool same(const f::rc_payload& a, const f::rc_payload& b) { return a.code == b.code; }
bool same(const f::send_payload& a, const f::send_payload& b) {
  return a.target_name == b.target_name && a.target_token == b.target_token && a.stream == b.stream &&
         a.control == b.control && a.data == b.data;
}
bool same(const f::deliver_payload& a, const f::deliver_payload& b) {
  return a.source_name == b.source_name && a.source_token == b.source_token && a.stream == b.stream &&
         a.control == b.control && a.data == b.data;
}
bool same(const f::event_payload& a, const f::event_payload& b) {
  return a.kind == b.kind && same(a.member, b.member);
}
bool same(const f::query_payload& a, const f::query_payload& b) {
  return a.group == b.group && a.member == b.member;
}
bool same(const f::query_rsp_payload& a, const f::query_rsp_payload& b) {
  return a.code == b.code && same(a.members, b.members);
}
bool same(const f::set_user_state_payload& a, const f::set_user_state_payload& b) {
  return a.ustate == b.ustate;
}
bool same(const f::remove_payload& a, const f::remove_payload& b) { return a.member == b.member; }
bool same(const f::ping_payload& a, const f::ping_payload& b) { return a.nonce == b.nonce; }
bool same(const f::error_payload& a, const f::error_payload& b) {
  return a.code == b.code && a.text == b.text;
}
bool same(const f::decoded& a, const f::decoded& b) {
  if (a.head.type != b.head.type || a.head.flags != b.head.flags || a.head.corr != b.head.corr ||
      a.head.length != b.head.length || a.body.index() != b.body.index())
    return false;
  return std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        return same(v, std::get<T>(b.body));
      },
      a.body);
}

bool same(const imsb::decode_error& a, const imsb::decode_error& b) {
  return a.code == b.code && a.field == b.field && a.offset == b.offset && a.detail == b.detail;
}

// A small maximum now and then, so that the oversize path is reached with small inputs.
std::uint32_t max_payload_from(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || data[size - 1] < 0xF0) return f::hard_max_payload;
  return data[size - 1] & 0x0F ? static_cast<std::uint32_t>(data[size - 1] & 0x0F) * 16 : 0;
}

// 1.
void whole(imsb::bytes_view input, std::uint32_t max_payload) {
  auto d = f::decode(input, max_payload);
  if (!d.ok()) {
    require(!d.error().field.empty() && !d.error().detail.empty() && d.error().offset <= input.size());
    return;
  }
  imsb::bytes again;
  require(f::encode(d->head.type, d->head.flags, d->head.corr, d->body, again));
  auto back = f::decode(again, max_payload);
  require(back.ok() && same(*back, *d));
}

// 2. The reference: frame after frame with decode_header + decode, as a reader must see them.
void stream(imsb::bytes_view input, std::uint32_t max_payload, const std::uint8_t* data, std::size_t size) {
  f::reader r(max_payload);
  std::size_t fed = 0;
  std::size_t consumed = 0;  // where the reference decoder stands
  std::size_t draw = 0;
  bool failed = false;
  imsb::decode_error first_error;
  while (fed < input.size() || !failed) {
    // Chunk sizes from the input itself: 1..64 bytes.
    const std::size_t n = 1 + (size ? data[draw++ % size] % 64 : 0);
    r.feed(input.sub(fed, n));
    fed = std::min(input.size(), fed + n);
    for (;;) {
      f::decoded out;
      imsb::decode_error err;
      const auto st = r.next(out, err);
      if (failed) {
        require(st == f::reader::status::error && same(err, first_error));
        break;
      }
      const imsb::bytes_view rest = input.sub(consumed, fed - consumed);
      if (st == f::reader::status::need_more) {
        // Only if the available bytes could still become a frame.
        auto h = f::decode_header(rest, max_payload);
        require(!h.ok() ? rest.size() < f::header_size : rest.size() - f::header_size < h->length);
        break;
      }
      if (st == f::reader::status::frame) {
        auto h = f::decode_header(rest, max_payload);
        require(h.ok());
        auto ref = f::decode(rest.sub(0, f::header_size + h->length), max_payload);
        require(ref.ok() && same(*ref, out));
        consumed += f::header_size + h->length;
        continue;
      }
      require(!err.field.empty());
      // The same error as the reference decoder's on the bytes the reader had.
      auto h = f::decode_header(rest, max_payload);
      if (!h.ok()) {
        require(same(err, h.error()));
      } else {
        require(rest.size() - f::header_size >= h->length);
        auto ref = f::decode(rest.sub(0, f::header_size + h->length), max_payload);
        require(!ref.ok() && same(ref.error(), err));
      }
      failed = true;
      first_error = err;
      require(r.buffered() == 0);
    }
    if (fed == input.size() && !failed) break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const imsb::bytes_view input(data, size);
  const std::uint32_t max_payload = max_payload_from(data, size);
  whole(input, max_payload);
  stream(input, max_payload, data, size);
  return 0;
}
