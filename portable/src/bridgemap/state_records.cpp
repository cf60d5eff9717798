#include "imsb/bridgemap/state_records.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::bridgemap {

namespace {

// Body layout [D] (state_records.hpp): "IMSBST01", the kind letter, then the fields of that kind in a
// fixed order, names ASCII blank padded, numbers big-endian. Every kind names its partner (group and
// member) so that one state queue serves them all.
constexpr std::string_view eyecatcher = "IMSBST01";
constexpr std::size_t header_size = 9;  // eyecatcher + kind

enum class field : std::uint8_t { group, member, tpipe, queue, number, token, reason };

struct field_spec {
  field f;
  const char* name;  // in errors: "STATE.<name>"
  std::size_t size;
};

constexpr field_spec group_f{field::group, "xcf_group", 8};
constexpr field_spec member_f{field::member, "xcf_member", 16};
constexpr field_spec tpipe_f{field::tpipe, "tpipe", 8};
constexpr field_spec queue_f{field::queue, "queue", 48};
constexpr field_spec number_f{field::number, "number", 4};
constexpr field_spec token_f{field::token, "token", 16};
constexpr field_spec reason_f{field::reason, "reason", 120};

struct kind_layout {
  record_kind kind;
  field_spec fields[6];
  std::size_t count;
};

// Which fields each kind carries, in body order.
constexpr kind_layout layouts[] = {
    {record_kind::assignment, {group_f, member_f, queue_f, number_f}, 4},
    {record_kind::send, {group_f, member_f, tpipe_f, number_f}, 4},
    {record_kind::receive, {group_f, member_f, tpipe_f, number_f}, 4},
    {record_kind::in_flight, {group_f, member_f, tpipe_f, queue_f, number_f, token_f}, 6},
    {record_kind::cm1_marker, {group_f, member_f, tpipe_f, queue_f, token_f}, 5},
    {record_kind::stopped, {group_f, member_f, tpipe_f, reason_f}, 4},
};

const kind_layout* layout_of(std::uint8_t kind) noexcept {
  for (const auto& l : layouts) {
    if (static_cast<std::uint8_t>(l.kind) == kind) return &l;
  }
  return nullptr;
}

std::size_t body_size(const kind_layout& l) noexcept {
  std::size_t n = header_size;
  for (std::size_t i = 0; i < l.count; ++i) n += l.fields[i].size;
  return n;
}

// The characters of MQ object names ([C: NAMING-V6]: A-Z a-z 0-9 . / _ %) and of XCF / OTMA names
// (@ # $), so that one check serves queue, group, member and Tpipe fields.
bool is_name_char(std::uint8_t c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '/' ||
         c == '_' || c == '%' || c == '@' || c == '#' || c == '$';
}

std::string* text_of(state_record& r, field f) noexcept {
  switch (f) {
    case field::group:
      return &r.xcf_group;
    case field::member:
      return &r.xcf_member;
    case field::tpipe:
      return &r.tpipe;
    case field::queue:
      return &r.queue;
    case field::reason:
      return &r.reason;
    default:
      return nullptr;
  }
}

void put_text(bytes& out, const std::string& s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(i < s.size() ? static_cast<std::uint8_t>(s[i]) : static_cast<std::uint8_t>(' '));
  }
}

decode_error bad(const field_spec* f, std::size_t offset, std::string detail) {
  decode_error e;
  e.code = mq::make_mqrc(mq::MQRC_FORMAT_ERROR);
  e.field = std::string("STATE.") + (f != nullptr ? f->name : "record");
  e.offset = offset;
  e.detail = std::move(detail);
  return e;
}

std::string hex_of(const std::uint8_t* p, std::size_t n) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(digits[p[i] >> 4]);
    s.push_back(digits[p[i] & 0x0F]);
  }
  return s;
}

constexpr std::uint32_t base36_digits = 36;

char base36_char(std::uint32_t d) noexcept { return static_cast<char>(d < 10 ? '0' + d : 'A' + (d - 10)); }

int base36_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return -1;
}

bool valid_prefix(std::string_view prefix) noexcept {
  if (prefix.empty() || prefix.size() > 4) return false;
  for (char c : prefix) {
    // OTMA's name characters [C: IMS-NAMES]: no '#', which XCF would take but IMS refuses in a Tpipe name.
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' || c == '$';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool operator==(const state_record& a, const state_record& b) {
  return a.kind == b.kind && a.xcf_group == b.xcf_group && a.xcf_member == b.xcf_member &&
         a.tpipe == b.tpipe && a.queue == b.queue && a.number == b.number && a.token == b.token &&
         a.reason == b.reason;
}

correl24 key_of(const state_record& r) {
  std::string key(1, static_cast<char>(r.kind));
  switch (r.kind) {
    case record_kind::assignment: {
      std::string n = std::to_string(r.number);
      if (n.size() < 8) n.insert(0, 8 - n.size(), '0');
      key += n;
      break;
    }
    case record_kind::cm1_marker: {
      // 16 token bytes in 20 hex digits: the last ten bytes with the first six folded in (XOR, nibbles
      // swapped so that the same bit in byte i and byte 6+i does not cancel): tokens that differ in one
      // byte always get different keys. The queue manager's tokens are incarnation + counter, both
      // big-endian (qmgr recovery_log.hpp): their first bytes are zero and the counter is kept whole [D].
      std::uint8_t folded[10];
      for (std::size_t i = 0; i < 10; ++i) folded[i] = r.token[6 + i];
      for (std::size_t i = 0; i < 6; ++i) {
        const auto swapped = static_cast<std::uint8_t>((r.token[i] << 4) | (r.token[i] >> 4));
        folded[i] = static_cast<std::uint8_t>(folded[i] ^ swapped);
      }
      key += r.xcf_group.substr(0, 3);
      key.append(3 - std::min<std::size_t>(3, r.xcf_group.size()), ' ');
      key += hex_of(folded, 10);
      break;
    }
    default: {
      // group '.' member '.' tpipe: the Tpipe is never cut (Tpipe names are unique in a queue manager,
      // one prefix and one number per queue); group and member are cut to leave it room [D].
      const std::string tail = "." + r.tpipe.substr(0, 8);
      std::string head = r.xcf_group + "." + r.xcf_member;
      const std::size_t room = 24 - 1 - tail.size();
      if (head.size() > room) head.resize(room);
      key += head + tail;
      break;
    }
  }
  correl24 out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = i < key.size() ? static_cast<std::uint8_t>(key[i]) : static_cast<std::uint8_t>(' ');
  }
  return out;
}

bytes encode_record(const state_record& r) {
  bytes out;
  const kind_layout* l = layout_of(static_cast<std::uint8_t>(r.kind));
  out.reserve(l != nullptr ? body_size(*l) : header_size);
  for (char c : eyecatcher) out.push_back(static_cast<std::uint8_t>(c));
  out.push_back(static_cast<std::uint8_t>(r.kind));
  if (l == nullptr) return out;  // a kind outside the enum: decode_record refuses it
  state_record copy = r;
  for (std::size_t i = 0; i < l->count; ++i) {
    const field_spec& f = l->fields[i];
    if (f.f == field::number) {
      const std::size_t at = out.size();
      out.resize(at + 4);
      store_u32(out.data() + at, r.number, byte_order::big);
    } else if (f.f == field::token) {
      out.insert(out.end(), r.token.begin(), r.token.end());
    } else {
      put_text(out, *text_of(copy, f.f), f.size);
    }
  }
  return out;
}

result<state_record> decode_record(bytes_view body) {
  if (body.size() < header_size) {
    return bad(nullptr, 0, "body has " + std::to_string(body.size()) + " bytes; a record starts with 9");
  }
  for (std::size_t i = 0; i < eyecatcher.size(); ++i) {
    if (body[i] != static_cast<std::uint8_t>(eyecatcher[i])) {
      return bad(nullptr, 0, "eyecatcher is not \"IMSBST01\" (byte " + std::to_string(i) + ")");
    }
  }
  const kind_layout* l = layout_of(body[8]);
  if (l == nullptr) {
    decode_error e = bad(nullptr, 8, "unknown record kind X'" + hex_of(body.data() + 8, 1) + "'");
    e.field = "STATE.kind";
    return e;
  }
  const std::size_t want = body_size(*l);
  if (body.size() != want) {
    decode_error e = bad(nullptr, 0,
                         std::string(body.size() < want ? "short body: " : "body too long: ") +
                             std::to_string(body.size()) + " bytes, kind '" + static_cast<char>(l->kind) +
                             "' has " + std::to_string(want));
    e.field = "STATE.length";
    return e;
  }
  state_record r;
  r.kind = l->kind;
  std::size_t at = header_size;
  for (std::size_t i = 0; i < l->count; ++i) {
    const field_spec& f = l->fields[i];
    if (f.f == field::number) {
      r.number = load_u32(body.data() + at, byte_order::big);
    } else if (f.f == field::token) {
      for (std::size_t k = 0; k < r.token.size(); ++k) r.token[k] = body[at + k];
    } else {
      // Blank padded: the value ends at the last non-blank. Names must be in the name set with no
      // embedded blank; the reason is printable ASCII.
      std::size_t end = f.size;
      while (end > 0 && body[at + end - 1] == ' ') --end;
      for (std::size_t k = 0; k < end; ++k) {
        const std::uint8_t c = body[at + k];
        const bool ok = f.f == field::reason ? (c >= 0x20 && c <= 0x7E) : is_name_char(c);
        if (!ok) {
          return bad(&f, at + k,
                     "byte X'" + hex_of(body.data() + at + k, 1) + "' at position " + std::to_string(k) +
                         (f.f == field::reason ? " is not printable ASCII" : " is not a name character"));
        }
      }
      text_of(r, f.f)->assign(reinterpret_cast<const char*>(body.data() + at), end);
    }
    at += f.size;
  }
  return r;
}

result<std::string> tpipe_name(std::string_view prefix, std::uint32_t number, bool synchronized) {
  auto refuse = [&](std::string detail) {
    decode_error e;
    e.code = mq::make_mqrc(mq::MQRC_STORAGE_CLASS_ERROR);
    e.field = "TPIPE.prefix";
    e.detail = std::move(detail);
    return e;
  };
  if (!valid_prefix(prefix)) {
    return refuse("Tpipe prefix '" + std::string(prefix) + "' must be 1-4 characters of A-Z, 0-9, @, $");
  }
  // [C: IMS-NAMES]: an OTMA name must not begin with DFS.
  if (prefix.substr(0, 3) == "DFS")
    return refuse("Tpipe prefix '" + std::string(prefix) + "' begins with DFS");
  const std::size_t width = 8 - prefix.size() - 1;  // base-36 digits the name has room for
  std::uint64_t limit = 1;
  for (std::size_t i = 0; i < width; ++i) limit *= base36_digits;
  if (number == 0 || number >= limit) {
    decode_error e = refuse("queue number " + std::to_string(number) + " does not fit Tpipe prefix '" +
                            std::string(prefix) + "' (1.." + std::to_string(limit - 1) + ")");
    e.field = "TPIPE.number";
    return e;
  }
  // Zero padded to 8 characters, so that each number has exactly one name [D].
  std::string digits(width, '0');
  std::uint32_t n = number;
  for (std::size_t i = width; i > 0 && n != 0; --i) {
    digits[i - 1] = base36_char(n % base36_digits);
    n /= base36_digits;
  }
  std::string name = std::string(prefix) + digits + (synchronized ? 'S' : 'N');
  if (name.compare(0, 5, "DBCDM") == 0) return refuse("Tpipe name " + name + " begins with DBCDM");
  return name;
}

std::optional<tpipe_parts> parse_tpipe_name(std::string_view prefix, std::string_view tpipe) {
  // OTMA names arrive blank padded: the value ends at the first blank.
  while (!tpipe.empty() && (tpipe.back() == ' ' || tpipe.back() == '\0')) tpipe.remove_suffix(1);
  if (!valid_prefix(prefix) || tpipe.size() != 8 || tpipe.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  tpipe_parts p;
  const char kind = tpipe.back();
  if (kind != 'S' && kind != 'N') return std::nullopt;
  p.synchronized = kind == 'S';
  std::uint64_t n = 0;
  for (char c : tpipe.substr(prefix.size(), 8 - prefix.size() - 1)) {
    const int d = base36_value(c);
    if (d < 0) return std::nullopt;
    n = n * base36_digits + static_cast<std::uint64_t>(d);
  }
  if (n == 0 || n > 0xFFFFFFFFu) return std::nullopt;
  p.number = static_cast<std::uint32_t>(n);
  return p;
}

}  // namespace imsb::bridgemap
