#include "imsb/xcf/frame.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

#include "imsb/codepage/codepage.hpp"
#include "imsb/names/name_rules.hpp"

// The xcfhub frame codec: transport/README.md "The xcfhub protocol" [D]; the design is
// docs/design/xcf-emulation.md.
//
// Error codes (std::generic_category, so callers compare with std::errc):
//   std::errc::message_size    a header length over the maximum payload;
//   std::errc::invalid_argument a group, member or system name that breaks its rule [C: XCF-NAMES2] —
//                               the hub answers a JOIN with such a name 8/14 rather than ERROR;
//   std::errc::protocol_error  everything else: framing, lengths, counts, unknown values.

namespace imsb::xcf::frame {

namespace {

constexpr byte_order be = byte_order::big;                   // all integers big-endian, like z/OS [D]
constexpr std::uint8_t magic[4] = {0x58, 0x43, 0x46, 0x45};  // 'XCFE' in ASCII [D]
constexpr std::int32_t name_ccsid = codepage::ccsid_037;     // names are EBCDIC 037 [D]
constexpr std::size_t system_name_length = 8;

// --- Wire layouts (offsets within the payload) ----------------------------------------------
namespace member_info_at {  // group[8] name[16] token[8] state(1) ustate[32] memdata[8] system[8]
constexpr std::size_t group = 0, name = 8, token = 24, state = 32, ustate = 33, memdata = 65, system = 73;
constexpr std::size_t size = 81;
}  // namespace member_info_at
namespace join_at {  // group[8] member[16] memassoc(1) lasting(1) ustate_len(2) ustate[32] memdata[8]
constexpr std::size_t group = 0, member = 8, memassoc = 24, lasting = 25, ustate_len = 26, ustate = 28,
                      memdata = 60, size = 68;
}  // namespace join_at
namespace join_rsp_at {  // rc rsn token[8] max_payload heartbeat_ms count, then member_info × count
constexpr std::size_t code = 0 /* rc, rsn */, token = 8, max_payload = 16, heartbeat_ms = 20, count = 24,
                      size = 28;
}  // namespace join_rsp_at
namespace rc_at {
constexpr std::size_t code = 0 /* rc, rsn */, size = 8;
}  // namespace rc_at
namespace message_at {  // SEND and DELIVER: token[8] name[16] stream(2) msgcntl[32] data
constexpr std::size_t token = 0, name = 8, stream = 24, control = 26, data = 58;
}  // namespace message_at
namespace event_at {
constexpr std::size_t kind = 0, member = 1, size = 1 + member_info_at::size;
}  // namespace event_at
namespace query_at {
constexpr std::size_t group = 0, member = 8, size = 24;
}  // namespace query_at
namespace query_rsp_at {
constexpr std::size_t code = 0 /* rc, rsn */, count = 8, size = 12;
}  // namespace query_rsp_at
namespace error_at {
constexpr std::size_t code = 0 /* rc, rsn */, text_len = 8, text = 10;
}  // namespace error_at
constexpr std::size_t ustate_size = std::tuple_size<user_state>::value;  // USLEN 32 [C]
constexpr std::size_t remove_size = member_name_length;
constexpr std::size_t ping_size = 8;

std::error_code protocol() { return std::make_error_code(std::errc::protocol_error); }
std::error_code bad_name() { return std::make_error_code(std::errc::invalid_argument); }
std::error_code too_long() { return std::make_error_code(std::errc::message_size); }

// 64 bits, whatever size_t is: error texts compute sizes (count × 81) that overflow a 32-bit size_t.
std::string num(std::uint64_t n) { return std::to_string(n); }

decode_error fail(std::error_code code, std::string field, std::size_t offset, std::string detail) {
  return decode_error{code, std::move(field), offset, std::move(detail)};
}

// The payload alternative that goes with each frame type (transport/README.md table).
template <class T>
constexpr std::size_t index_of() {
  constexpr bool found[] = {std::is_same_v<T, empty_payload>,     std::is_same_v<T, join_payload>,
                            std::is_same_v<T, join_rsp_payload>,  std::is_same_v<T, rc_payload>,
                            std::is_same_v<T, send_payload>,      std::is_same_v<T, deliver_payload>,
                            std::is_same_v<T, event_payload>,     std::is_same_v<T, query_payload>,
                            std::is_same_v<T, query_rsp_payload>, std::is_same_v<T, set_user_state_payload>,
                            std::is_same_v<T, remove_payload>,    std::is_same_v<T, ping_payload>,
                            std::is_same_v<T, error_payload>};
  for (std::size_t i = 0; i < std::size(found); ++i) {
    if (found[i]) return i;
  }
  return std::variant_npos;
}

std::size_t payload_index(frame_type type) noexcept {
  switch (type) {
    case frame_type::join:
      return index_of<join_payload>();
    case frame_type::join_rsp:
      return index_of<join_rsp_payload>();
    case frame_type::leave:
    case frame_type::quiesce:
      return index_of<empty_payload>();
    case frame_type::leave_rsp:
    case frame_type::quiesce_rsp:
    case frame_type::send_rsp:
    case frame_type::set_user_state_rsp:
    case frame_type::remove_rsp:
      return index_of<rc_payload>();
    case frame_type::send:
      return index_of<send_payload>();
    case frame_type::deliver:
      return index_of<deliver_payload>();
    case frame_type::event:
      return index_of<event_payload>();
    case frame_type::query:
      return index_of<query_payload>();
    case frame_type::query_rsp:
      return index_of<query_rsp_payload>();
    case frame_type::set_user_state:
      return index_of<set_user_state_payload>();
    case frame_type::remove:
      return index_of<remove_payload>();
    case frame_type::ping:
    case frame_type::pong:
      return index_of<ping_payload>();
    case frame_type::error:
      return index_of<error_payload>();
  }
  return std::variant_npos;
}

enum class name_kind : std::uint8_t { group, member, system };

constexpr std::size_t name_length(name_kind kind) noexcept {
  return kind == name_kind::group    ? group_name_length
         : kind == name_kind::member ? member_name_length
                                     : system_name_length;
}

// System names are not XCF names: any printable ASCII character, but they must convert and come back.
bool printable(char c) noexcept { return c >= 0x20 && c <= 0x7E; }

// Whether `value` (unpadded) can go on the wire as a name of this kind; an empty value only where a
// blank field is allowed. A value must be what decoding gives back: trailing blanks are padding on the
// wire ("AB " would come back as "AB", " " as ""), so a value with them is refused.
bool encodable_name(std::string_view value, name_kind kind, bool blank_ok) {
  if (value != codepage::field_value(value)) return false;
  if (value.empty()) return blank_ok || kind == name_kind::system;
  switch (kind) {
    case name_kind::group:
      return !names::check_xcf_group_name(value, names::xcf_rules::xcf);
    case name_kind::member:
      return !names::check_xcf_member_name(value, names::xcf_rules::xcf);
    case name_kind::system:
      return value.size() <= system_name_length && std::all_of(value.begin(), value.end(), printable);
  }
  return false;
}

// --- Decoding ---------------------------------------------------------------------------------

// Reads the payload of one frame; offsets reported count from the start of the frame.
class payload_in {
 public:
  payload_in(frame_type type, bytes_view p) : type_(type), p_(p) {}

  std::size_t size() const noexcept { return p_.size(); }
  std::size_t at(std::size_t off) const noexcept { return header_size + off; }
  std::string field(std::string_view name) const {
    std::string s = "XCFE.";
    s += to_string(type_);
    s += '.';
    s += name;
    return s;
  }
  std::uint8_t u8(std::size_t off) const noexcept { return p_[off]; }
  std::uint16_t u16(std::size_t off) const noexcept { return load_u16(p_.data() + off, be); }
  std::uint32_t u32(std::size_t off) const noexcept { return load_u32(p_.data() + off, be); }
  return_code code(std::size_t off) const noexcept { return {u32(off), u32(off + 4)}; }
  template <std::size_t N>
  void copy(std::size_t off, std::array<std::uint8_t, N>& out) const noexcept {
    std::copy_n(p_.data() + off, N, out.begin());
  }
  bytes_view sub(std::size_t off, std::size_t len) const noexcept { return p_.sub(off, len); }

  // A payload that must be exactly `expected` bytes.
  std::optional<decode_error> exact(std::size_t expected) const {
    if (p_.size() == expected) return std::nullopt;
    return fail(protocol(), field("length"), 12,
                "found a payload of " + num(p_.size()) + " bytes, expected " + num(expected));
  }
  std::optional<decode_error> at_least(std::size_t expected) const {
    if (p_.size() >= expected) return std::nullopt;
    return fail(protocol(), field("length"), 12,
                "found a payload of " + num(p_.size()) + " bytes, expected at least " + num(expected));
  }

  // A blank-padded EBCDIC name: converted to 819, unpadded, checked against its rule.
  std::optional<decode_error> name(std::size_t off, name_kind kind, bool blank_ok, const std::string& fname,
                                   std::string& out) const {
    const std::size_t n = name_length(kind);
    const std::string raw = codepage::get_field(p_.sub(off, n), name_ccsid);
    const std::string_view value = codepage::field_value(raw);
    // A NUL (or anything after one) would not come back from encode: a name is its value and blanks.
    if (raw != codepage::pad_field(value, n)) {
      return fail(bad_name(), fname, at(off),
                  "found X'" + to_hex(p_.sub(off, n)) + "', expected a name padded with blanks (X'40')");
    }
    if (value.empty() && (blank_ok || kind == name_kind::system)) {
      out.clear();
      return std::nullopt;
    }
    names::name_check problem;
    if (kind == name_kind::group) {
      problem = names::check_xcf_group_name(value, names::xcf_rules::xcf);  // [C: XCF-NAMES2]
    } else if (kind == name_kind::member) {
      problem = names::check_xcf_member_name(value, names::xcf_rules::xcf);  // [C: XCF-NAMES2]
    } else {
      const auto bad = std::find_if_not(value.begin(), value.end(), printable);
      if (bad != value.end()) {
        const auto pos = static_cast<std::size_t>(bad - value.begin());
        return fail(
            bad_name(), fname, at(off + pos),
            "found X'" + to_hex(p_.sub(off + pos, 1)) + "' in a system name, expected printable text");
      }
    }
    if (problem) {
      return fail(bad_name(), fname, at(off + problem->position),
                  "found X'" + to_hex(p_.sub(off, n)) + "', expected a valid name: " + problem->reason);
    }
    out.assign(value.data(), value.size());
    return std::nullopt;
  }

  std::optional<decode_error> member(std::size_t off, const std::string& prefix, member_info& out) const {
    namespace m = member_info_at;
    if (auto e = name(off + m::group, name_kind::group, false, prefix + ".group", out.group)) return e;
    if (auto e = name(off + m::name, name_kind::member, false, prefix + ".name", out.name)) return e;
    copy(off + m::token, out.token);
    const std::uint8_t state = u8(off + m::state);
    if (state > static_cast<std::uint8_t>(member_state::failed)) {
      return fail(protocol(), prefix + ".state", at(off + m::state),
                  "found " + num(state) + ", expected a member state 0..4");
    }
    out.state = static_cast<member_state>(state);
    copy(off + m::ustate, out.ustate);
    copy(off + m::memdata, out.memdata);
    return name(off + m::system, name_kind::system, true, prefix + ".system", out.system);
  }

  // count(4) at `count_off`, then exactly count member_infos to the end of the payload.
  std::optional<decode_error> members(std::size_t count_off, std::vector<member_info>& out) const {
    const std::uint32_t count = u32(count_off);
    const std::size_t room = p_.size() - (count_off + 4);
    // Checked against the bytes present before anything is allocated: a small frame never asks for
    // a huge vector.
    if (count > room / member_info_at::size || room != std::size_t{count} * member_info_at::size) {
      return fail(protocol(), field("count"), at(count_off),
                  "found count " + num(count) + " (" + num(std::uint64_t{count} * member_info_at::size) +
                      " bytes of member_info), expected " +
                      (room % member_info_at::size == 0 ? "count " + num(room / member_info_at::size)
                                                        : std::string("whole 81-byte member_infos")) +
                      " for the " + num(room) + " bytes that follow");
    }
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (auto e = member(count_off + 4 + i * member_info_at::size, field("member[" + num(i) + "]"), out[i]))
        return e;
    }
    return std::nullopt;
  }

 private:
  frame_type type_;
  bytes_view p_;
};

using maybe_error = std::optional<decode_error>;

template <class Message>
maybe_error decode_message(const payload_in& in, const char* name_field, Message& m, std::string& name,
                           member_token& token) {
  namespace at = message_at;
  if (auto e = in.at_least(at::data)) return e;
  in.copy(at::token, token);
  // SEND: blank target name = by token [D]; a DELIVER always names its source.
  const bool blank_ok = std::is_same_v<Message, send_payload>;
  if (auto e = in.name(at::name, name_kind::member, blank_ok, in.field(name_field), name)) return e;
  m.stream = in.u16(at::stream);
  in.copy(at::control, m.control);
  const bytes_view data = in.sub(at::data, in.size() - at::data);
  m.data.assign(data.begin(), data.end());
  return std::nullopt;
}

result<payload> decode_body(frame_type type, bytes_view p) {
  const payload_in in(type, p);
  maybe_error e;
  switch (type) {
    case frame_type::join: {
      namespace at = join_at;
      join_payload j;
      if ((e = in.exact(at::size))) break;
      if ((e = in.name(at::group, name_kind::group, false, in.field("group"), j.group))) break;
      if ((e = in.name(at::member, name_kind::member, false, in.field("member"), j.member))) break;
      j.memassoc = in.u8(at::memassoc);
      const std::uint8_t lasting = in.u8(at::lasting);
      if (lasting > 1) {
        e = fail(protocol(), in.field("lasting"), in.at(at::lasting),
                 "found " + num(lasting) + ", expected 0 or 1");
        break;
      }
      j.lasting = lasting == 1;
      if (in.u16(at::ustate_len) != ustate_size) {  // USLEN is 32 here, always [D]
        e = fail(protocol(), in.field("ustate_len"), in.at(at::ustate_len),
                 "found " + num(in.u16(at::ustate_len)) + ", expected " + num(ustate_size));
        break;
      }
      in.copy(at::ustate, j.ustate);
      in.copy(at::memdata, j.memdata);
      return payload{std::move(j)};
    }
    case frame_type::join_rsp: {
      namespace at = join_rsp_at;
      join_rsp_payload r;
      if ((e = in.at_least(at::size))) break;
      r.code = in.code(at::code);
      in.copy(at::token, r.token);
      r.max_payload = in.u32(at::max_payload);
      r.heartbeat_ms = in.u32(at::heartbeat_ms);
      if ((e = in.members(at::count, r.members))) break;
      return payload{std::move(r)};
    }
    case frame_type::leave:
    case frame_type::quiesce:
      if ((e = in.exact(0))) break;
      return payload{empty_payload{}};
    case frame_type::leave_rsp:
    case frame_type::quiesce_rsp:
    case frame_type::send_rsp:
    case frame_type::set_user_state_rsp:
    case frame_type::remove_rsp:
      if ((e = in.exact(rc_at::size))) break;
      return payload{rc_payload{in.code(rc_at::code)}};
    case frame_type::send: {
      send_payload s;
      if ((e = decode_message(in, "target_name", s, s.target_name, s.target_token))) break;
      return payload{std::move(s)};
    }
    case frame_type::deliver: {
      deliver_payload d;
      if ((e = decode_message(in, "source_name", d, d.source_name, d.source_token))) break;
      return payload{std::move(d)};
    }
    case frame_type::event: {
      namespace at = event_at;
      event_payload ev;
      if ((e = in.exact(at::size))) break;
      const std::uint8_t kind = in.u8(at::kind);
      if (kind < static_cast<std::uint8_t>(event_kind::active) ||
          kind > static_cast<std::uint8_t>(event_kind::removed)) {
        e = fail(protocol(), in.field("kind"), in.at(at::kind),
                 "found " + num(kind) + ", expected an event 1..7");
        break;
      }
      ev.kind = static_cast<event_kind>(kind);
      if ((e = in.member(at::member, in.field("member"), ev.member))) break;
      return payload{std::move(ev)};
    }
    case frame_type::query: {
      namespace at = query_at;
      query_payload q;
      if ((e = in.exact(at::size))) break;
      // Blank group = every group (the status query); blank member = all members [D].
      if ((e = in.name(at::group, name_kind::group, true, in.field("group"), q.group))) break;
      if ((e = in.name(at::member, name_kind::member, true, in.field("member"), q.member))) break;
      return payload{std::move(q)};
    }
    case frame_type::query_rsp: {
      namespace at = query_rsp_at;
      query_rsp_payload r;
      if ((e = in.at_least(at::size))) break;
      r.code = in.code(at::code);
      if ((e = in.members(at::count, r.members))) break;
      return payload{std::move(r)};
    }
    case frame_type::set_user_state: {
      set_user_state_payload s;
      if ((e = in.exact(ustate_size))) break;
      in.copy(0, s.ustate);
      return payload{s};
    }
    case frame_type::remove: {
      remove_payload r;
      if ((e = in.exact(remove_size))) break;
      if ((e = in.name(0, name_kind::member, false, in.field("member"), r.member))) break;
      return payload{std::move(r)};
    }
    case frame_type::ping:
    case frame_type::pong: {
      if ((e = in.exact(ping_size))) break;
      return payload{ping_payload{std::uint64_t{in.u32(0)} << 32 | in.u32(4)}};
    }
    case frame_type::error: {
      namespace at = error_at;
      error_payload r;
      if ((e = in.at_least(at::text))) break;
      r.code = in.code(at::code);
      const std::size_t text_len = in.u16(at::text_len);
      if (text_len != in.size() - at::text) {
        e = fail(
            protocol(), in.field("text_len"), in.at(at::text_len),
            "found " + num(text_len) + ", expected the " + num(in.size() - at::text) + " bytes that follow");
        break;
      }
      // ASCII by convention and only for people: not checked, so whoever prints it escapes it.
      const bytes_view text = in.sub(at::text, text_len);
      r.text.assign(text.begin(), text.end());
      return payload{std::move(r)};
    }
  }
  if (e) return std::move(*e);
  const std::uint8_t raw_type = static_cast<std::uint8_t>(type);
  return fail(protocol(), "XCFE.header.type", 5,
              "found X'" + to_hex(bytes_view(&raw_type, 1)) + "', expected a frame type");
}

std::optional<decode_error> check_magic(bytes_view in) {
  const std::size_t n = std::min<std::size_t>(in.size(), sizeof magic);
  if (std::equal(in.begin(), in.begin() + n, magic)) return std::nullopt;
  return fail(protocol(), "XCFE.header.magic", 0,
              "found X'" + to_hex(in.sub(0, sizeof magic)) + "', expected X'58434645' ('XCFE')");
}

// --- Encoding ---------------------------------------------------------------------------------

void put_u8(bytes& out, std::uint8_t v) { out.push_back(v); }
void put_u16(bytes& out, std::uint16_t v) {
  std::uint8_t b[2];
  store_u16(b, v, be);
  out.insert(out.end(), b, b + 2);
}
void put_u32(bytes& out, std::uint32_t v) {
  std::uint8_t b[4];
  store_u32(b, v, be);
  out.insert(out.end(), b, b + 4);
}
void put_code(bytes& out, return_code c) {
  put_u32(out, c.rc);
  put_u32(out, c.rsn);
}
template <std::size_t N>
void put_array(bytes& out, const std::array<std::uint8_t, N>& a) {
  out.insert(out.end(), a.begin(), a.end());
}
bool put_name(bytes& out, std::string_view value, name_kind kind, bool blank_ok) {
  if (!encodable_name(value, kind, blank_ok)) return false;
  const std::size_t n = name_length(kind);
  const std::size_t at = out.size();
  out.resize(at + n);
  codepage::put_field(out.data() + at, n, value, name_ccsid);
  return true;
}
bool put_member(bytes& out, const member_info& m) {
  if (static_cast<std::uint8_t>(m.state) > static_cast<std::uint8_t>(member_state::failed)) return false;
  if (!put_name(out, m.group, name_kind::group, false)) return false;
  if (!put_name(out, m.name, name_kind::member, false)) return false;
  put_array(out, m.token);
  put_u8(out, static_cast<std::uint8_t>(m.state));
  put_array(out, m.ustate);
  put_array(out, m.memdata);
  return put_name(out, m.system, name_kind::system, true);
}
bool put_members(bytes& out, const std::vector<member_info>& members) {
  if (members.size() > hard_max_payload / member_info_at::size) return false;
  put_u32(out, static_cast<std::uint32_t>(members.size()));
  return std::all_of(members.begin(), members.end(),
                     [&](const member_info& m) { return put_member(out, m); });
}

struct body_writer {
  bytes& out;

  bool operator()(const empty_payload&) const { return true; }
  bool operator()(const join_payload& j) const {
    if (!put_name(out, j.group, name_kind::group, false)) return false;
    if (!put_name(out, j.member, name_kind::member, false)) return false;
    put_u8(out, j.memassoc);
    put_u8(out, j.lasting ? 1 : 0);
    put_u16(out, static_cast<std::uint16_t>(ustate_size));
    put_array(out, j.ustate);
    put_array(out, j.memdata);
    return true;
  }
  bool operator()(const join_rsp_payload& r) const {
    put_code(out, r.code);
    put_array(out, r.token);
    put_u32(out, r.max_payload);
    put_u32(out, r.heartbeat_ms);
    return put_members(out, r.members);
  }
  bool operator()(const rc_payload& r) const {
    put_code(out, r.code);
    return true;
  }
  bool operator()(const send_payload& s) const {
    put_array(out, s.target_token);
    if (!put_name(out, s.target_name, name_kind::member, true)) return false;  // blank: by token [D]
    return message_tail(s.stream, s.control, s.data);
  }
  bool operator()(const deliver_payload& d) const {
    put_array(out, d.source_token);
    if (!put_name(out, d.source_name, name_kind::member, false)) return false;
    return message_tail(d.stream, d.control, d.data);
  }
  bool operator()(const event_payload& e) const {
    const auto kind = static_cast<std::uint8_t>(e.kind);
    if (kind < static_cast<std::uint8_t>(event_kind::active) ||
        kind > static_cast<std::uint8_t>(event_kind::removed))
      return false;
    put_u8(out, kind);
    return put_member(out, e.member);
  }
  bool operator()(const query_payload& q) const {
    return put_name(out, q.group, name_kind::group, true) && put_name(out, q.member, name_kind::member, true);
  }
  bool operator()(const query_rsp_payload& r) const {
    put_code(out, r.code);
    return put_members(out, r.members);
  }
  bool operator()(const set_user_state_payload& s) const {
    put_array(out, s.ustate);
    return true;
  }
  bool operator()(const remove_payload& r) const { return put_name(out, r.member, name_kind::member, false); }
  bool operator()(const ping_payload& p) const {
    put_u32(out, static_cast<std::uint32_t>(p.nonce >> 32));
    put_u32(out, static_cast<std::uint32_t>(p.nonce));
    return true;
  }
  bool operator()(const error_payload& e) const {
    if (e.text.size() > 0xFFFF) return false;  // text_len is 16 bits
    put_code(out, e.code);
    put_u16(out, static_cast<std::uint16_t>(e.text.size()));
    out.insert(out.end(), e.text.begin(), e.text.end());
    return true;
  }

  bool message_tail(std::uint16_t stream, const control_area& control, const bytes& data) const {
    if (data.size() > hard_max_payload - message_at::data) return false;
    put_u16(out, stream);
    put_array(out, control);
    out.insert(out.end(), data.begin(), data.end());
    return true;
  }
};

}  // namespace

bool known_type(std::uint8_t type) noexcept {
  return payload_index(static_cast<frame_type>(type)) != std::variant_npos;
}

std::string_view to_string(frame_type type) noexcept {
  switch (type) {  // the names of transport/README.md
    case frame_type::join:
      return "JOIN";
    case frame_type::leave:
      return "LEAVE";
    case frame_type::quiesce:
      return "QUIESCE";
    case frame_type::send:
      return "SEND";
    case frame_type::deliver:
      return "DELIVER";
    case frame_type::event:
      return "EVENT";
    case frame_type::query:
      return "QUERY";
    case frame_type::set_user_state:
      return "SETUSTATE";
    case frame_type::remove:
      return "REMOVE";
    case frame_type::ping:
      return "PING";
    case frame_type::join_rsp:
      return "JOIN_RSP";
    case frame_type::leave_rsp:
      return "LEAVE_RSP";
    case frame_type::quiesce_rsp:
      return "QUIESCE_RSP";
    case frame_type::send_rsp:
      return "SEND_RSP";
    case frame_type::query_rsp:
      return "QUERY_RSP";
    case frame_type::set_user_state_rsp:
      return "SETUSTATE_RSP";
    case frame_type::remove_rsp:
      return "REMOVE_RSP";
    case frame_type::pong:
      return "PONG";
    case frame_type::error:
      return "ERROR";
  }
  return "UNKNOWN";
}

result<header> decode_header(bytes_view in, std::uint32_t max_payload) {
  if (auto e = check_magic(in)) return std::move(*e);
  if (in.size() < header_size) {
    return fail(protocol(), "XCFE.header", in.size(),
                "found " + num(in.size()) + " bytes, expected a header of " + num(header_size));
  }
  if (in[4] != version) {
    return fail(protocol(), "XCFE.header.version", 4, "found " + num(in[4]) + ", expected " + num(version));
  }
  if (!known_type(in[5])) {
    return fail(protocol(), "XCFE.header.type", 5,
                "found X'" + to_hex(in.sub(5, 1)) + "', expected a frame type");
  }
  header h;
  h.type = static_cast<frame_type>(in[5]);
  h.flags = load_u16(in.data() + 6, be);
  if ((h.flags & ~flags::all) != 0) {
    return fail(protocol(), "XCFE.header.flags", 6,
                "found X'" + to_hex(in.sub(6, 2)) + "', expected only bits 0-2 (ack, ordered, resume)");
  }
  h.corr = load_u32(in.data() + 8, be);
  h.length = load_u32(in.data() + 12, be);
  // Never above XCF's own limit, whatever the caller asks for ([C: XCF-MSGO]: 128 MB).
  const std::uint32_t limit = std::min(max_payload, hard_max_payload);
  if (h.length > limit) {
    return fail(too_long(), "XCFE.header.length", 12,
                "found " + num(h.length) + ", expected at most " + num(limit));
  }
  return h;
}

void encode_header(const header& h, bytes& out) {
  const std::size_t at = out.size();
  out.resize(at + header_size);
  std::uint8_t* p = out.data() + at;
  std::copy(std::begin(magic), std::end(magic), p);
  p[4] = version;
  p[5] = static_cast<std::uint8_t>(h.type);
  store_u16(p + 6, h.flags, be);
  store_u32(p + 8, h.corr, be);
  store_u32(p + 12, h.length, be);
}

result<payload> decode_payload(const header& h, bytes_view payload_bytes) {
  if (payload_bytes.size() != h.length) {
    return fail(
        protocol(), "XCFE.header.length", 12,
        "found " + num(h.length) + ", expected the " + num(payload_bytes.size()) + " bytes of the payload");
  }
  return decode_body(h.type, payload_bytes);
}

result<decoded> decode(bytes_view frame_bytes, std::uint32_t max_payload) {
  auto h = decode_header(frame_bytes, max_payload);
  if (!h) return h.error();
  const std::size_t available = frame_bytes.size() - header_size;
  if (available < h->length) {
    return fail(protocol(), "XCFE.payload", frame_bytes.size(),
                "found " + num(available) + " payload bytes, expected " + num(h->length));
  }
  if (available > h->length) {
    return fail(protocol(), "XCFE.payload", header_size + h->length,
                "found " + num(available - h->length) + " bytes after the frame, expected none");
  }
  auto body = decode_body(h->type, frame_bytes.sub(header_size));
  if (!body) return body.error();
  return decoded{*h, std::move(*body)};
}

// Refusals are programming errors (the caller builds the payload): a payload alternative that does not
// go with the type, a name that breaks the XCF rules [C: XCF-NAMES2] or is too long, a system name over
// 8 characters or not printable ASCII, a member_info state or event kind out of range, reserved flag
// bits, an ERROR text over 65535 bytes, or a payload over hard_max_payload. Callers that take names
// from outside check them first (imsb/names). Nothing is appended then.
bool encode(frame_type type, std::uint16_t frame_flags, std::uint32_t corr, const payload& body, bytes& out) {
  if (payload_index(type) != body.index() || (frame_flags & ~flags::all) != 0) return false;
  const std::size_t start = out.size();
  encode_header(header{type, frame_flags, corr, 0}, out);
  const bool ok = std::visit(body_writer{out}, body);
  const std::size_t length = out.size() - start - header_size;
  if (!ok || length > hard_max_payload) {
    out.resize(start);
    return false;
  }
  store_u32(out.data() + start + 12, static_cast<std::uint32_t>(length), be);
  return true;
}

void reader::feed(bytes_view in) {
  if (failed_) return;  // framing is lost: nothing more is read
  // Compact only when the consumed part is at least half the buffer, so each byte moves O(1) times.
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ >= 4096 && pos_ * 2 >= buf_.size()) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ = 0;
  }
  buf_.insert(buf_.end(), in.begin(), in.end());
}

reader::status reader::next(decoded& out, decode_error& err) {
  header h;
  bytes_view p;
  const status st = next_raw(h, p, err);
  if (st != status::frame) return st;
  auto body = decode_body(h.type, p);
  if (!body) return lose_framing(body.error(), err);
  out.head = h;
  out.body = std::move(*body);
  return status::frame;
}

reader::status reader::next_raw(header& head, bytes_view& payload_bytes, decode_error& err) {
  if (failed_) {
    err = *failed_;
    return status::error;
  }
  const bytes_view pending = bytes_view(buf_).sub(pos_);
  if (pending.size() < header_size) {
    // A peer that is not speaking XCFE at all is refused from its first bytes.
    auto e = check_magic(pending);
    if (!e) return status::need_more;
    return lose_framing(std::move(*e), err);
  }
  // The header is judged as soon as it is whole: a huge length is refused before its payload comes.
  auto h = decode_header(pending, max_payload_);
  if (!h) return lose_framing(h.error(), err);
  if (pending.size() - header_size < h->length) return status::need_more;
  head = *h;
  payload_bytes = pending.sub(header_size, h->length);
  pos_ += header_size + h->length;
  return status::frame;
}

reader::status reader::lose_framing(decode_error e, decode_error& err) {
  failed_ = std::move(e);
  err = *failed_;
  buf_.clear();
  buf_.shrink_to_fit();
  pos_ = 0;
  return status::error;
}

}  // namespace imsb::xcf::frame
