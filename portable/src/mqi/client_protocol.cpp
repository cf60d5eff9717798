#include "imsb/mqi/client_protocol.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"

// The client protocol's frame codec [D] (client_protocol.hpp is its specification). One list of fields
// per structure (record_fields below) drives both the writer and the reader, so that the two cannot
// disagree on the order (docs/design/style.md, "Redpanda").
//
// Every decode error is std::errc::bad_message: the peer sent something this end cannot have sent, and
// the connection is dropped whatever the field was [D]. The field names the frame field
// ("frame.length", "put.md", "get_response.msg.data") and the offset is from the start of the frame.

namespace imsb::mqi::wire {

namespace {

constexpr byte_order be = byte_order::big;
constexpr std::uint8_t magic[4] = {0x49, 0x4D, 0x51, 0x46};  // "IMQF" in ASCII [D]
// The one canonical MQMD form on the wire: integers big-endian (MQENC_INTEGER_NORMAL etc.), ISO 8859-1.
constexpr std::int32_t md_encoding = 0x00000111;
constexpr std::int32_t md_ccsid = 819;
constexpr std::size_t md_v1_length = 324;  // [C: CMQC-H, CMQC-PY]
constexpr std::size_t md_v2_length = 364;
constexpr std::uint8_t md_struc_id[4] = {0x4D, 0x44, 0x20, 0x20};  // "MD  " in ASCII
constexpr std::uint16_t first_request = 1;
constexpr std::uint16_t last_request = 16;
constexpr std::uint16_t response_bit = static_cast<std::uint16_t>(frame_type::response_bit);

// The decoder's allocation budget [D]: what the values it decodes may take in memory, at most
// alloc_budget_factor times the body's length plus alloc_budget_slack. Charged when a length or count is
// read, before anything is allocated for it: each list entry its sizeof, each map entry its pair and a
// red-black tree node (4 pointers' worth). The contents of strings and byte strings are not charged:
// they are copies of body bytes, at most the body's length again. Without the budget a count of empty
// entries costs 4 wire bytes and 32 bytes of memory each (a std::string): 8 times the body, 12 for map
// entries. Legitimate frames stay below: a map of short attributes ("CURDEPTH" = "0") is about 5.6
// times its bytes, MQSC lines of 40 characters under 1; the slack covers small frames whatever they hold.
// A vector reserves at most max_reserve entries up front, so its growth can add up to its size again.
constexpr std::uint64_t alloc_budget_factor = 6;
constexpr std::uint64_t alloc_budget_slack = 65536;
constexpr std::size_t map_entry_cost = sizeof(std::pair<const std::string, std::string>) + 4 * sizeof(void*);
// A vector is reserved for at most this many entries up front and grows as they decode [D].
constexpr std::size_t max_reserve = 1024;

decode_error bad(std::string field, std::size_t offset, std::string detail) {
  return decode_error{std::make_error_code(std::errc::bad_message), std::move(field), offset,
                      std::move(detail)};
}

std::string num(std::uint64_t n) { return std::to_string(n); }

bool is_request_type(std::uint16_t t) noexcept { return t >= first_request && t <= last_request; }

// ---- the field lists ----------------------------------------------------------------------------
// record_fields<T>::visit(f, x) calls f(name, member) for each member of T in wire order; x may be const.
template <class T>
struct record_fields;

#define IMSB_WIRE_RECORD(T, BODY)   \
  template <>                       \
  struct record_fields<T> {         \
    template <class F, class X>     \
    static void visit(F& f, X& x) { \
      BODY;                         \
    }                               \
  }

template <class T, class = void>
struct is_record : std::false_type {};
template <class T>
struct is_record<T, std::void_t<decltype(sizeof(record_fields<T>))>> : std::true_type {};

IMSB_WIRE_RECORD(object_descriptor,
                 (f("object_name", x.object_name), f("object_qmgr_name", x.object_qmgr_name),
                  f("object_type", x.object_type)));
IMSB_WIRE_RECORD(get_request,
                 (f("options", x.options), f("wait_interval_ms", x.wait_interval_ms),
                  f("match_options", x.match_options), f("msg_id", x.msg_id), f("correl_id", x.correl_id),
                  f("msg_token", x.msg_token), f("max_length", x.max_length)));
IMSB_WIRE_RECORD(open_result,
                 (f("handle", x.handle), f("resolved_q", x.resolved_q), f("resolved_qmgr", x.resolved_qmgr)));
IMSB_WIRE_RECORD(put_result,
                 (f("md", x.md), f("resolved_q", x.resolved_q), f("resolved_qmgr", x.resolved_qmgr)));
IMSB_WIRE_RECORD(message,
                 (f("md", x.md), f("data", x.data), f("data_length", x.data_length), f("token", x.token)));
IMSB_WIRE_RECORD(inquiry, (f("int_attrs", x.int_attrs), f("char_attrs", x.char_attrs)));
IMSB_WIRE_RECORD(object_attributes, (f("type", x.type), f("name", x.name), f("attributes", x.attributes)));
IMSB_WIRE_RECORD(mqsc_reply, (f("lines", x.lines), f("exit_code", x.exit_code)));
IMSB_WIRE_RECORD(status,
                 (f("completion_code", x.completion_code), f("reason", x.reason), f("detail", x.detail)));

IMSB_WIRE_RECORD(connect_request, (f("qmgr_name", x.qmgr_name), f("user", x.user), f("password", x.password),
                                   f("appl_name", x.appl_name)));
IMSB_WIRE_RECORD(open_request, (f("od", x.od), f("options", x.options)));
IMSB_WIRE_RECORD(close_request, (f("handle", x.handle)));
IMSB_WIRE_RECORD(put_request,
                 (f("handle", x.handle), f("md", x.md), f("data", x.data), f("options", x.options)));
IMSB_WIRE_RECORD(put1_request, (f("od", x.od), f("md", x.md), f("data", x.data), f("options", x.options)));
IMSB_WIRE_RECORD(get_request_frame, (f("handle", x.handle), f("request", x.request)));
IMSB_WIRE_RECORD(inquire_request, (f("handle", x.handle), f("selectors", x.selectors)));
IMSB_WIRE_RECORD(inquire_objects_request, (f("type", x.type), f("generic", x.generic)));
IMSB_WIRE_RECORD(mqsc_request, (f("script", x.script)));
IMSB_WIRE_RECORD(set_request, (f("handle", x.handle), f("selectors", x.selectors),
                               f("int_attrs", x.int_attrs), f("char_attrs", x.char_attrs)));
IMSB_WIRE_RECORD(wait_for_change_request, (f("mark", x.mark), f("wait", x.wait)));
IMSB_WIRE_RECORD(wake_request, ((void)f, (void)x));
IMSB_WIRE_RECORD(begin_request, ((void)f, (void)x));
IMSB_WIRE_RECORD(commit_request, ((void)f, (void)x));
IMSB_WIRE_RECORD(backout_request, ((void)f, (void)x));
IMSB_WIRE_RECORD(disconnect_request, ((void)f, (void)x));

IMSB_WIRE_RECORD(connect_response, (f("st", x.st), f("qmgr_name", x.qmgr_name), f("user", x.user)));
IMSB_WIRE_RECORD(open_response, (f("st", x.st), f("result", x.result)));
IMSB_WIRE_RECORD(put_response, (f("st", x.st), f("result", x.result)));
IMSB_WIRE_RECORD(get_response, (f("st", x.st), f("msg", x.msg)));
IMSB_WIRE_RECORD(inquire_response, (f("st", x.st), f("result", x.result)));
IMSB_WIRE_RECORD(inquire_objects_response, (f("st", x.st), f("objects", x.objects)));
IMSB_WIRE_RECORD(mqsc_response, (f("st", x.st), f("reply", x.reply)));
IMSB_WIRE_RECORD(plain_response, (f("st", x.st)));
IMSB_WIRE_RECORD(wait_for_change_response, (f("st", x.st), f("mark", x.mark)));

#undef IMSB_WIRE_RECORD

// ---- writer -------------------------------------------------------------------------------------
class writer {
 public:
  explicit writer(bytes& out) noexcept : out_(out) {}

  template <class T>
  void operator()(const char*, const T& v) {
    put(v);
  }

 private:
  void u32(std::uint32_t v) {
    std::uint8_t b[4];
    store_u32(b, v, be);
    out_.insert(out_.end(), b, b + 4);
  }
  // Lengths and counts: a body is at most max_body_length, far below 2^32, so a size that does not fit
  // makes a frame the other end refuses anyway.
  void length(std::size_t n) {
    assert(n <= std::numeric_limits<std::uint32_t>::max() && "a length beyond u32: check_request first");
    u32(static_cast<std::uint32_t>(n));
  }

  void put(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  // message::data_length, as u32.
  void put(std::size_t v) { length(v); }
  void put(const std::string& s) {
    length(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void put(const bytes& b) {
    length(b.size());
    out_.insert(out_.end(), b.begin(), b.end());
  }
  template <std::size_t N>
  void put(const std::array<std::uint8_t, N>& a) {
    out_.insert(out_.end(), a.begin(), a.end());
  }
  // get_request::max_length as i32, -1 for "any length". A buffer longer than an i32 can say is longer
  // than any message (100 MB at most [C]), so it is sent as the i32 maximum [D].
  void put(const std::optional<std::size_t>& v) {
    if (!v) {
      put(std::int32_t{-1});
    } else {
      const std::size_t max = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
      put(static_cast<std::int32_t>(*v > max ? max : *v));
    }
  }
  void put(const mq::mqmd& md) {
    const std::size_t at = out_.size();
    u32(0);
    mq::encode_mqmd(md, md_encoding, md_ccsid, out_);
    store_u32(out_.data() + at, static_cast<std::uint32_t>(out_.size() - at - 4), be);
  }
  void put(const std::map<std::string, std::string>& m) {
    length(m.size());
    for (const auto& [key, value] : m) {
      put(key);
      put(value);
    }
  }
  void put(const std::vector<std::string>& v) {
    length(v.size());
    for (const std::string& s : v) put(s);
  }
  void put(const std::vector<std::int32_t>& v) {
    length(v.size());
    for (const std::int32_t x : v) put(x);
  }
  void put(const std::vector<object_attributes>& v) {
    length(v.size());
    for (const object_attributes& o : v) put(o);
  }
  template <class T, std::enable_if_t<is_record<T>::value, int> = 0>
  void put(const T& record) {
    record_fields<T>::visit(*this, record);
  }

  bytes& out_;
};

// ---- measurer -----------------------------------------------------------------------------------
// The length the writer gives a body, without writing it (check_request). Sums in u64, so that no size a
// program can hold in memory wraps around.
class measurer {
 public:
  template <class T>
  void operator()(const char*, const T& v) {
    add(v);
  }
  std::uint64_t total() const noexcept { return total_; }

 private:
  void add(std::int32_t) { total_ += 4; }
  void add(std::size_t) { total_ += 4; }
  void add(const std::optional<std::size_t>&) { total_ += 4; }
  void add(const std::string& s) { total_ += 4 + std::uint64_t{s.size()}; }
  void add(const bytes& b) { total_ += 4 + std::uint64_t{b.size()}; }
  template <std::size_t N>
  void add(const std::array<std::uint8_t, N>&) {
    total_ += N;
  }
  void add(const mq::mqmd& md) {
    total_ += 4 + (md.version == mq::MQMD_VERSION_1 ? md_v1_length : md_v2_length);
  }
  void add(const std::map<std::string, std::string>& m) {
    total_ += 4;
    for (const auto& [key, value] : m) {
      add(key);
      add(value);
    }
  }
  void add(const std::vector<std::string>& v) {
    total_ += 4;
    for (const std::string& x : v) add(x);
  }
  void add(const std::vector<std::int32_t>& v) { total_ += 4 + 4 * std::uint64_t{v.size()}; }
  void add(const std::vector<object_attributes>& v) {
    total_ += 4;
    for (const object_attributes& o : v) add(o);
  }
  template <class T, std::enable_if_t<is_record<T>::value, int> = 0>
  void add(const T& record) {
    record_fields<T>::visit(*this, record);
  }

  std::uint64_t total_ = 0;
};

// ---- reader -------------------------------------------------------------------------------------
// Reads a body field by field. After the first error every call does nothing; the caller checks failed()
// at the end. `at_` counts from the start of the body; errors add the header's 12 bytes.
class reader {
 public:
  reader(bytes_view body, const char* prefix) : body_(body) {
    budget_ = alloc_budget_factor * body.size() + alloc_budget_slack;
    path_.push_back(prefix);
  }

  template <class T>
  void operator()(const char* name, T& v) {
    if (error_) return;
    path_.push_back(name);
    get(v);
    path_.pop_back();
  }

  bool failed() const noexcept { return error_.has_value(); }
  decode_error take_error() { return std::move(*error_); }

  // Nothing may follow the last field.
  void finish() {
    if (error_ || at_ == body_.size()) return;
    fail(at_, num(body_.size() - at_) + " bytes left over after the last field; expected none", "body");
  }

 private:
  std::size_t left() const noexcept { return body_.size() - at_; }

  std::string field_name(const char* last = nullptr) const {
    std::string s;
    for (const char* p : path_) {
      if (!s.empty()) s += '.';
      s += p;
    }
    if (last) {
      s += '.';
      s += last;
    }
    return s;
  }
  void fail(std::size_t at, std::string detail, const char* last = nullptr) {
    if (!error_) error_ = bad(field_name(last), header_length + at, std::move(detail));
  }
  // `n` more bytes must be there.
  bool need(std::size_t n, const char* what) {
    if (left() >= n) return true;
    fail(at_, std::string("the body ends ") + num(left()) + " bytes into " + what + " of " + num(n) +
                  " bytes; expected all of them");
    return false;
  }
  bool u32(std::uint32_t& v) {
    if (!need(4, "a 4-byte field")) return false;
    v = load_u32(body_.data() + at_, be);
    at_ += 4;
    return true;
  }
  // A length or count whose entries take at least `min_entry` bytes each and `entry_cost` bytes of memory
  // once decoded: refused when the rest of the body cannot hold that many, or when they would take the
  // decoder past its allocation budget — either way before anything is allocated for them.
  bool length(std::size_t& n, std::size_t min_entry, std::size_t entry_cost, const char* what) {
    const std::size_t at = at_;
    std::uint32_t v = 0;
    if (!u32(v)) return false;
    if (static_cast<std::uint64_t>(v) * min_entry > left()) {
      fail(at, std::string(what) + " is " + num(v) + ", found only " + num(left()) +
                   " bytes left in the body; expected at most " + num(left() / min_entry));
      return false;
    }
    const std::uint64_t cost = static_cast<std::uint64_t>(v) * entry_cost;
    if (cost > budget_) {
      fail(at, std::string(what) + " is " + num(v) + ", " + num(cost) +
                   " bytes of memory once decoded, beyond the decoder's budget of " + num(budget_) +
                   " bytes left (" + num(alloc_budget_factor) + " times the body's " + num(body_.size()) +
                   " bytes, plus " + num(alloc_budget_slack) +
                   "); expected a frame this end could have sent");
      return false;
    }
    budget_ -= cost;
    n = v;
    return true;
  }

  void get(std::int32_t& v) {
    std::uint32_t u = 0;
    if (u32(u)) v = static_cast<std::int32_t>(u);
  }
  void get(std::size_t& v) {
    std::uint32_t u = 0;
    if (u32(u)) v = u;
  }
  void get(std::string& s) {
    std::size_t n = 0;
    if (!length(n, 1, 0, "the length")) return;
    s.assign(reinterpret_cast<const char*>(body_.data() + at_), n);
    at_ += n;
  }
  void get(bytes& b) {
    std::size_t n = 0;
    if (!length(n, 1, 0, "the length")) return;
    b.assign(body_.data() + at_, body_.data() + at_ + n);
    at_ += n;
  }
  template <std::size_t N>
  void get(std::array<std::uint8_t, N>& a) {
    if (!need(N, "a fixed-length field")) return;
    for (std::size_t i = 0; i < N; ++i) a[i] = body_[at_ + i];
    at_ += N;
  }
  void get(std::optional<std::size_t>& v) {
    const std::size_t at = at_;
    std::int32_t i = 0;
    get(i);
    if (failed()) return;
    if (i == -1) {
      v.reset();
    } else if (i < 0) {
      fail(at, "is " + std::to_string(i) + "; expected -1 (any length) or 0 and more");
    } else {
      v = static_cast<std::size_t>(i);
    }
  }
  // The MQMD as a byte string in the canonical form: exactly 324 (version 1) or 364 (version 2) bytes,
  // StrucId "MD  " in ASCII. decode_mqmd alone would also take an EBCDIC StrucId or a longer buffer.
  void get(mq::mqmd& md) {
    const std::size_t at = at_;
    std::size_t n = 0;
    if (!length(n, 1, 0, "the length")) return;
    const bytes_view raw = body_.sub(at_, n);
    if (n != md_v1_length && n != md_v2_length) {
      fail(at, "is " + num(n) + " bytes; expected 324 (version 1) or 364 (version 2)");
      return;
    }
    if (!(raw[0] == md_struc_id[0] && raw[1] == md_struc_id[1] && raw[2] == md_struc_id[2] &&
          raw[3] == md_struc_id[3])) {
      fail(at_, "StrucId is X'" + to_hex(raw.sub(0, 4)) + "'; expected X'4D442020' (\"MD  \" in ASCII)");
      return;
    }
    const std::int32_t version = load_i32(raw.data() + 4, be);
    if (version != mq::MQMD_VERSION_1 && version != mq::MQMD_VERSION_2) {
      fail(at_ + 4, "Version is " + std::to_string(version) + "; expected 1 or 2");
      return;
    }
    const std::size_t want = version == mq::MQMD_VERSION_1 ? md_v1_length : md_v2_length;
    if (n != want) {
      fail(at, "is " + num(n) + " bytes for a version " + std::to_string(version) + " MQMD; expected " +
                   num(want));
      return;
    }
    auto d = mq::decode_mqmd(raw, md_encoding, md_ccsid);
    if (!d) {  // not expected once the checks above hold; reported all the same
      fail(at_ + d.error().offset, d.error().to_string());
      return;
    }
    md = std::move(*d);
    at_ += n;
  }
  // Keys in ascending order, each once: the order std::map encodes in, so a map has one wire form.
  void get(std::map<std::string, std::string>& m) {
    std::size_t count = 0;
    if (!length(count, 8, map_entry_cost, "the count")) return;
    m.clear();
    for (std::size_t i = 0; i < count && !failed(); ++i) {
      const std::size_t at = at_;
      std::string key;
      std::string value;
      get(key);
      get(value);
      if (failed()) return;
      if (!m.empty() && !(m.rbegin()->first < key)) {
        fail(at, "key \"" + key + "\" (entry " + num(i) + ") follows \"" + m.rbegin()->first +
                     "\"; expected keys in ascending order, each once");
        return;
      }
      m.emplace_hint(m.end(), std::move(key), std::move(value));
    }
  }
  void get(std::vector<std::string>& v) {
    std::size_t count = 0;
    if (!length(count, 4, sizeof(std::string), "the count")) return;
    v.clear();
    v.reserve(std::min(count, max_reserve));
    for (std::size_t i = 0; i < count && !failed(); ++i) {
      v.emplace_back();
      get(v.back());
    }
  }
  void get(std::vector<std::int32_t>& v) {
    std::size_t count = 0;
    if (!length(count, 4, sizeof(std::int32_t), "the count")) return;
    v.clear();
    v.reserve(std::min(count, max_reserve));
    for (std::size_t i = 0; i < count && !failed(); ++i) {
      v.emplace_back();
      get(v.back());
    }
  }
  void get(std::vector<object_attributes>& v) {
    std::size_t count = 0;
    if (!length(count, 12, sizeof(object_attributes), "the count")) return;
    v.clear();
    v.reserve(std::min(count, max_reserve));
    for (std::size_t i = 0; i < count && !failed(); ++i) {
      v.emplace_back();
      get(v.back());
    }
  }
  // MQGET's DataLength is the whole message's length: never less than the data returned.
  void get(message& m) {
    record_fields<message>::visit(*this, m);
    if (!failed() && m.data_length < m.data.size()) {
      fail(at_ - 16 - 4,
           "is " + num(m.data_length) + ", less than the " + num(m.data.size()) +
               " bytes of data; expected the whole message's length",
           "data_length");
    }
  }
  // One wire form per completion: MQCC_OK with MQRC_NONE; MQCC_WARNING or MQCC_FAILED with a reason.
  void get(status& st) {
    const std::size_t at = at_;
    record_fields<status>::visit(*this, st);
    if (failed()) return;
    const bool known = st.completion_code == mq::MQCC_OK || st.completion_code == mq::MQCC_WARNING ||
                       st.completion_code == mq::MQCC_FAILED;
    if (!known) {
      fail(at,
           "is " + std::to_string(st.completion_code) +
               "; expected 0 (MQCC_OK), 1 (MQCC_WARNING) or 2 (MQCC_FAILED)",
           "completion_code");
    } else if ((st.completion_code == mq::MQCC_OK) != (st.reason == mq::MQRC_NONE)) {
      fail(at + 4,
           "is " + std::to_string(st.reason) + " with completion code " + std::to_string(st.completion_code) +
               "; expected MQRC_NONE with MQCC_OK only, and a reason with MQCC_WARNING or MQCC_FAILED",
           "reason");
    }
  }
  template <class T, std::enable_if_t<is_record<T>::value, int> = 0>
  void get(T& record) {
    record_fields<T>::visit(*this, record);
  }

  bytes_view body_;
  std::size_t at_ = 0;
  std::vector<const char*> path_;
  std::optional<decode_error> error_;
  std::uint64_t budget_ = 0;  // bytes of memory the entries still to come may take
};

// ---- frames -------------------------------------------------------------------------------------
// Appends the header with a zero length; end_frame writes the length once the body is there.
std::size_t begin_frame(std::uint16_t type, bytes& out) {
  const std::size_t at = out.size();
  out.resize(at + header_length, 0);
  std::uint8_t* h = out.data() + at;
  for (std::size_t i = 0; i < 4; ++i) h[i] = magic[i];
  store_u16(h + 8, type, be);
  store_u16(h + 10, protocol_version, be);
  return at;
}
void end_frame(std::size_t at, bytes& out) {
  // A body the other end would refuse (check_request says so before a request is encoded).
  assert(out.size() - at - header_length <= max_body_length && "frame body beyond max_body_length");
  store_u32(out.data() + at + 4, static_cast<std::uint32_t>(out.size() - at - header_length), be);
}

struct header {
  std::uint16_t type = 0;
  std::size_t body_length = 0;
};

// The header at the start of `in`: nullopt with fewer than 12 bytes; checked as soon as they are there.
std::optional<result<header>> decode_header(bytes_view in) {
  if (in.size() < header_length) return std::nullopt;
  if (!(in[0] == magic[0] && in[1] == magic[1] && in[2] == magic[2] && in[3] == magic[3])) {
    return result<header>(bad(
        "frame.magic", 0, "is X'" + to_hex(in.sub(0, 4)) + "'; expected X'494D5146' (\"IMQF\" in ASCII)"));
  }
  const std::uint32_t length = load_u32(in.data() + 4, be);
  if (length > max_body_length) {
    return result<header>(
        bad("frame.length", 4, "is " + num(length) + " bytes; expected at most " + num(max_body_length)));
  }
  const std::uint16_t version = load_u16(in.data() + 10, be);
  if (version != protocol_version) {
    return result<header>(
        bad("frame.version", 10, "is " + num(version) + "; expected " + num(protocol_version)));
  }
  return result<header>(header{load_u16(in.data() + 8, be), length});
}

// Decodes the body as a T (an alternative of V).
template <class T, class V>
result<decoded<V>> decode_body(bytes_view body, const char* prefix, std::size_t consumed) {
  T value;
  reader r(body, prefix);
  record_fields<T>::visit(r, value);
  r.finish();
  if (r.failed()) return r.take_error();
  return decoded<V>{V(std::move(value)), consumed};
}

result<decoded<request>> decode_request_body(std::uint16_t type, bytes_view body, std::size_t consumed) {
  const char* p = name_of(static_cast<frame_type>(type));
  switch (static_cast<frame_type>(type)) {
    case frame_type::connect:
      return decode_body<connect_request, request>(body, p, consumed);
    case frame_type::open:
      return decode_body<open_request, request>(body, p, consumed);
    case frame_type::close:
      return decode_body<close_request, request>(body, p, consumed);
    case frame_type::put:
      return decode_body<put_request, request>(body, p, consumed);
    case frame_type::put1:
      return decode_body<put1_request, request>(body, p, consumed);
    case frame_type::get:
      return decode_body<get_request_frame, request>(body, p, consumed);
    case frame_type::inquire:
      return decode_body<inquire_request, request>(body, p, consumed);
    case frame_type::inquire_objects:
      return decode_body<inquire_objects_request, request>(body, p, consumed);
    case frame_type::mqsc:
      return decode_body<mqsc_request, request>(body, p, consumed);
    case frame_type::commit:
      return decode_body<commit_request, request>(body, p, consumed);
    case frame_type::backout:
      return decode_body<backout_request, request>(body, p, consumed);
    case frame_type::disconnect:
      return decode_body<disconnect_request, request>(body, p, consumed);
    case frame_type::set:
      return decode_body<set_request, request>(body, p, consumed);
    case frame_type::wait_for_change:
      return decode_body<wait_for_change_request, request>(body, p, consumed);
    case frame_type::wake:
      return decode_body<wake_request, request>(body, p, consumed);
    case frame_type::begin:
      return decode_body<begin_request, request>(body, p, consumed);
    case frame_type::response_bit:
      break;
  }
  return bad("frame.type", 8, "is " + num(type) + "; expected a request type, 1 to 16");
}

result<decoded<response>> decode_response_body(frame_type answers, bytes_view body, std::size_t consumed) {
  const char* p = name_of(static_cast<frame_type>(static_cast<std::uint16_t>(answers) | response_bit));
  switch (answers) {
    case frame_type::connect:
      return decode_body<connect_response, response>(body, p, consumed);
    case frame_type::open:
      return decode_body<open_response, response>(body, p, consumed);
    case frame_type::put:
    case frame_type::put1:
      return decode_body<put_response, response>(body, p, consumed);
    case frame_type::get:
      return decode_body<get_response, response>(body, p, consumed);
    case frame_type::inquire:
      return decode_body<inquire_response, response>(body, p, consumed);
    case frame_type::inquire_objects:
      return decode_body<inquire_objects_response, response>(body, p, consumed);
    case frame_type::mqsc:
      return decode_body<mqsc_response, response>(body, p, consumed);
    case frame_type::close:
    case frame_type::commit:
    case frame_type::backout:
    case frame_type::disconnect:
    case frame_type::set:
    case frame_type::wake:
    case frame_type::begin:
      return decode_body<plain_response, response>(body, p, consumed);
    case frame_type::wait_for_change:
      return decode_body<wait_for_change_response, response>(body, p, consumed);
    case frame_type::response_bit:
      break;
  }
  return bad("frame.type", 8,
             "expected type " + num(static_cast<std::uint16_t>(answers)) + " is not a request type");
}

// The response alternative that answers each request type (client_protocol.hpp).
std::size_t response_index(frame_type answers) noexcept {
  switch (answers) {
    case frame_type::connect:
      return 0;
    case frame_type::open:
      return 1;
    case frame_type::put:
    case frame_type::put1:
      return 2;
    case frame_type::get:
      return 3;
    case frame_type::inquire:
      return 4;
    case frame_type::inquire_objects:
      return 5;
    case frame_type::mqsc:
      return 6;
    case frame_type::wait_for_change:
      return 8;
    default:
      return 7;
  }
}

}  // namespace

void encode_request(const request& req, bytes& out) {
  const std::size_t at = begin_frame(static_cast<std::uint16_t>(type_of(req)), out);
  writer w(out);
  std::visit([&w](const auto& r) { w("", r); }, req);
  end_frame(at, out);
}

void encode_response(frame_type answers, const response& resp, bytes& out) {
  // A response of the wrong kind for its request is a bug in the caller: the other end would refuse it.
  assert(resp.index() == response_index(answers) && "response does not answer this request type");
  (void)response_index;
  const std::size_t at =
      begin_frame(static_cast<std::uint16_t>(static_cast<std::uint16_t>(answers) | response_bit), out);
  writer w(out);
  std::visit([&w](const auto& r) { w("", r); }, resp);
  end_frame(at, out);
}

std::optional<result<decoded<request>>> decode_request(bytes_view in) {
  auto h = decode_header(in);
  if (!h) return std::nullopt;
  if (!*h) return result<decoded<request>>(h->error());
  const std::uint16_t type = (*h)->type;
  if (!is_request_type(type)) {
    return result<decoded<request>>(
        bad("frame.type", 8, "is " + num(type) + "; expected a request type, 1 to 16"));
  }
  const std::size_t whole = header_length + (*h)->body_length;
  if (in.size() < whole) return std::nullopt;
  return decode_request_body(type, in.sub(header_length, (*h)->body_length), whole);
}

std::optional<result<decoded<response>>> decode_response(bytes_view in, frame_type expected) {
  auto h = decode_header(in);
  if (!h) return std::nullopt;
  if (!*h) return result<decoded<response>>(h->error());
  const std::uint16_t want = static_cast<std::uint16_t>(static_cast<std::uint16_t>(expected) | response_bit);
  const std::uint16_t type = (*h)->type;
  if (!is_request_type(static_cast<std::uint16_t>(expected))) {
    return result<decoded<response>>(bad("frame.type", 8,
                                         "is " + num(type) + "; the expected request type " +
                                             num(static_cast<std::uint16_t>(expected)) +
                                             " is not a request type"));
  }
  if (type != want) {
    return result<decoded<response>>(bad(
        "frame.type", 8,
        "is " + num(type) + "; expected " + num(want) + " (" + name_of(static_cast<frame_type>(want)) + ")"));
  }
  const std::size_t whole = header_length + (*h)->body_length;
  if (in.size() < whole) return std::nullopt;
  return decode_response_body(expected, in.sub(header_length, (*h)->body_length), whole);
}

result<done> check_request(const request& req) {
  const mq::mqmd* md = nullptr;
  if (const auto* p = std::get_if<put_request>(&req)) md = &p->md;
  if (const auto* p = std::get_if<put1_request>(&req)) md = &p->md;
  if (md != nullptr && md->version != mq::MQMD_VERSION_1 && md->version != mq::MQMD_VERSION_2) {
    decode_error e{mq::make_mqrc(mq::MQRC_MD_ERROR), "MQMD.Version", 4,
                   "is " + std::to_string(md->version) + "; the client protocol carries version 1 or 2"};
    return e;
  }
  measurer m;
  std::visit([&m](const auto& r) { m("", r); }, req);
  if (m.total() > max_body_length) {
    decode_error e{
        mq::make_mqrc(mq::MQRC_MSG_TOO_BIG_FOR_Q_MGR), name_of(type_of(req)), 0,
        "the request is " + num(m.total()) + " bytes; a frame's body holds at most " + num(max_body_length)};
    return e;
  }
  return std::monostate{};
}

frame_type type_of(const request& req) noexcept {
  // The alternatives are in frame-type order, connect = 1.
  static_assert(std::variant_size_v<request> == last_request);
  static_assert(std::is_same_v<std::variant_alternative_t<0, request>, connect_request>);
  static_assert(std::is_same_v<std::variant_alternative_t<11, request>, disconnect_request>);
  static_assert(std::is_same_v<std::variant_alternative_t<12, request>, set_request>);
  static_assert(std::is_same_v<std::variant_alternative_t<15, request>, begin_request>);
  return static_cast<frame_type>(req.index() + 1);
}

const char* name_of(frame_type type) noexcept {
  static constexpr const char* requests[] = {"connect", "open",
                                             "close",   "put",
                                             "put1",    "get",
                                             "inquire", "inquire_objects",
                                             "mqsc",    "commit",
                                             "backout", "disconnect",
                                             "set",     "wait_for_change",
                                             "wake",    "begin"};
  static constexpr const char* responses[] = {"connect_response", "open_response",
                                              "close_response",   "put_response",
                                              "put1_response",    "get_response",
                                              "inquire_response", "inquire_objects_response",
                                              "mqsc_response",    "commit_response",
                                              "backout_response", "disconnect_response",
                                              "set_response",     "wait_for_change_response",
                                              "wake_response",    "begin_response"};
  const auto t = static_cast<std::uint16_t>(type);
  if (is_request_type(t)) return requests[t - first_request];
  if ((t & response_bit) != 0 && is_request_type(static_cast<std::uint16_t>(t & ~response_bit))) {
    return responses[(t & ~response_bit) - first_request];
  }
  return "unknown";
}

bool is_ibm_mq_segment(bytes_view first) noexcept {
  if (first.size() < 4) return false;
  const std::uint8_t* p = first.data();
  // "TSH" and then ' ', 'C' or 'M': ASCII 54 53 48 20|43|4D, EBCDIC E3 E2 C8 40|C3|D4.
  if (p[0] == 0x54 && p[1] == 0x53 && p[2] == 0x48) return p[3] == 0x20 || p[3] == 0x43 || p[3] == 0x4D;
  if (p[0] == 0xE3 && p[1] == 0xE2 && p[2] == 0xC8) return p[3] == 0x40 || p[3] == 0xC3 || p[3] == 0xD4;
  return false;
}

}  // namespace imsb::mqi::wire
