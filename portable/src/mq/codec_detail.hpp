#pragma once
// Private to the mq codecs: the one generic reader and writer that pair the field visitors of the
// typed structures (visit_*_fields) with the rows of the layout tables (layout.hpp), so that no
// offset is written twice (docs/design/style.md, "Redpanda").

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/layout.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::mq::detail {

// The character family a StrucId is written in. IBM's queue managers put StrucIds in the CCSID of
// the structure, so on the wire they appear in ASCII or EBCDIC [C: WIRESHARK].
enum class family { unknown, ascii, ebcdic };

// `id` (4 bytes) spells `expected` (capital letters and blanks) in ASCII or in EBCDIC. The EBCDIC
// code points of capital letters and blank are the same in 037, 500, 1047 and 1140.
family struc_id_family(bytes_view id, std::string_view expected) noexcept;
// The family of any StrucId made of capital letters and blanks (for decode_fields).
family family_of_struc_id(bytes_view id) noexcept;
// The CCSID to read character fields with: `ccsid` if it is supported and of the family the StrucId
// is in, else that family's usual CCSID (037 or 819) [D]; 819 when the family is unknown and `ccsid`
// is not supported.
std::int32_t chars_ccsid(family f, std::int32_t ccsid) noexcept;
// The CCSID to write character fields with: `ccsid` if supported, else 819 [D].
std::int32_t write_ccsid(std::int32_t ccsid) noexcept;

// Errors that name the field: "<MQIIH>.<StrucLength>" at the field's offset (+ base for embedded
// structures, with `prefix` such as "MQXQH.MsgDesc").
decode_error field_error(const layout& l, std::string_view field, std::string detail, std::int32_t rc,
                         std::string_view prefix = {}, std::size_t base = 0);
// The buffer ends inside the structure: names the first field that does not fit.
decode_error short_buffer(const layout& l, std::size_t size, std::int32_t rc, std::string_view prefix = {},
                          std::size_t base = 0);

// StrucId and Version, the start every MQ header shares: checks that the buffer holds them and that
// the StrucId is `expected` in ASCII or EBCDIC.
struct header_start {
  family fam = family::unknown;
  std::int32_t version = 0;
};
result<header_start> read_header_start(const layout& l, bytes_view in, std::string_view expected,
                                       byte_order order, std::int32_t rc, std::string_view prefix = {},
                                       std::size_t base = 0);

// Reads the fields of a structure, one visitor call per layout row, in order. The buffer must
// already be known to hold l.length bytes. A visitor with more fields than the layout (MQMD version
// 2 fields on a version-1 layout) leaves the extra members untouched.
class field_reader {
 public:
  field_reader(const std::uint8_t* base, const layout& l, byte_order order, std::int32_t ccsid) noexcept
      : base_(base), it_(l.begin()), end_(l.end()), order_(order), ccsid_(ccsid) {}

  template <class T>
  void operator()(std::string_view name, T& member) {
    if (it_ == end_) return;
    const field_desc& d = *it_++;
    assert(d.name == name && "visitor and layout table disagree");
    (void)name;
    read(d, member);
  }

 private:
  void read(const field_desc& d, std::int32_t& v) const { v = load_i32(base_ + d.offset, order_); }
  void read(const field_desc& d, std::string& v) const {
    v = codepage::get_field(bytes_view(base_ + d.offset, d.length), ccsid_);
  }
  void read(const field_desc& d, char& v) const {
    const std::string s = codepage::get_field(bytes_view(base_ + d.offset, 1), ccsid_);
    v = s.empty() ? ' ' : s[0];
  }
  template <std::size_t N>
  void read(const field_desc& d, std::array<std::uint8_t, N>& v) const {
    for (std::size_t i = 0; i < N && i < d.length; ++i) v[i] = base_[d.offset + i];
  }
  // An embedded MQMD (MQXQH.MsgDesc) is always the 324-byte version-1 layout, whatever its Version
  // says [C: XQH-DOC]; the version-2 members are left as they are.
  void read(const field_desc& d, mqmd& v) const {
    visit_mqmd_fields(field_reader(base_ + d.offset, mqmd_layout(MQMD_VERSION_1), order_, ccsid_), v);
    v.chars_ccsid = ccsid_;
  }

  const std::uint8_t* base_;
  const field_desc* it_;
  const field_desc* end_;
  byte_order order_;
  std::int32_t ccsid_;
};

// Writes the fields of a structure into l.length bytes at `base` (already zeroed).
class field_writer {
 public:
  field_writer(std::uint8_t* base, const layout& l, byte_order order, std::int32_t ccsid) noexcept
      : base_(base), it_(l.begin()), end_(l.end()), order_(order), ccsid_(ccsid) {}

  template <class T>
  void operator()(std::string_view name, const T& member) {
    if (it_ == end_) return;
    const field_desc& d = *it_++;
    assert(d.name == name && "visitor and layout table disagree");
    (void)name;
    write(d, member);
  }

 private:
  void write(const field_desc& d, std::int32_t v) const { store_i32(base_ + d.offset, v, order_); }
  void write(const field_desc& d, const std::string& v) const {
    codepage::put_field(base_ + d.offset, d.length, v, ccsid_);
  }
  void write(const field_desc& d, char v) const {
    codepage::put_field(base_ + d.offset, 1, std::string_view(&v, 1), ccsid_);
  }
  template <std::size_t N>
  void write(const field_desc& d, const std::array<std::uint8_t, N>& v) const {
    for (std::size_t i = 0; i < N && i < d.length; ++i) base_[d.offset + i] = v[i];
  }
  // As read: 324 bytes, the Version written as it is, version-2 members not written.
  void write(const field_desc& d, const mqmd& v) const {
    visit_mqmd_fields(field_writer(base_ + d.offset, mqmd_layout(MQMD_VERSION_1), order_, ccsid_), v);
  }

  std::uint8_t* base_;
  const field_desc* it_;
  const field_desc* end_;
  byte_order order_;
  std::int32_t ccsid_;
};

// Appends l.length bytes to `out` and writes the structure there through its visitor.
template <class S, class Visit>
void encode_struct(const layout& l, const S& s, Visit visit, std::int32_t encoding, std::int32_t ccsid,
                   bytes& out) {
  const std::size_t at = out.size();
  out.resize(at + l.length, 0);
  visit(field_writer(out.data() + at, l, integer_order(encoding), write_ccsid(ccsid)), s);
}

// Field-by-field equality through a visitor.
class fields_equal {
 public:
  explicit fields_equal(bool& eq) noexcept : eq_(eq) {}
  template <class T>
  void operator()(std::string_view, const T& a, const T& b) const {
    if (!(a == b)) eq_ = false;
  }

 private:
  bool& eq_;
};

}  // namespace imsb::mq::detail
