// libFuzzer target for the MQ header codecs and the chain walker.
//
// The whole input is walked as a message that starts with an MQMD; the input after its first two
// bytes is also walked with a format, encoding and CCSID chosen by those two bytes. Every header
// that decodes is encoded again and decoded again, and must mean the same (MQCHARn values compared
// up to the first NUL, trailing blanks ignored, as MQ reads them). The chain must tile the buffer.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/mq/chain.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/layout.hpp"

namespace {

using namespace imsb;
using namespace imsb::mq;

void require(bool ok) {
  if (!ok) std::abort();
}

// Equality in MQ's sense of MQCHARn: a NUL ends the value, trailing blanks do not count.
class same_meaning {
 public:
  explicit same_meaning(bool& eq) : eq_(eq) {}
  template <class T>
  void operator()(std::string_view, const T& a, const T& b) {
    compare(a, b);
  }

 private:
  void compare(const std::string& a, const std::string& b) {
    if (codepage::field_value(a) != codepage::field_value(b)) eq_ = false;
  }
  void compare(char a, char b) { compare(std::string(1, a), std::string(1, b)); }
  void compare(const mqmd& a, const mqmd& b) { visit_mqmd_fields(*this, a, b); }
  template <class T>
  void compare(const T& a, const T& b) {
    if (!(a == b)) eq_ = false;
  }

  bool& eq_;
};

// CCSIDs whose characters map one to one onto CCSID 819, so that decode → encode → decode keeps
// every character (1140 has the euro sign, 1208 multi-byte sequences: those are only re-decoded).
bool one_to_one(std::int32_t ccsid) { return ccsid == 819 || ccsid == 37 || ccsid == 500 || ccsid == 1047; }

void encode_any(const mqmd& v, std::int32_t e, std::int32_t c, bytes& out) { encode_mqmd(v, e, c, out); }
void encode_any(const mqiih& v, std::int32_t e, std::int32_t c, bytes& out) { encode_mqiih(v, e, c, out); }
void encode_any(const mqdlh& v, std::int32_t e, std::int32_t c, bytes& out) { encode_mqdlh(v, e, c, out); }
void encode_any(const mqxqh& v, std::int32_t e, std::int32_t c, bytes& out) { encode_mqxqh(v, e, c, out); }
result<mqmd> decode_as(const mqmd&, bytes_view in, std::int32_t e, std::int32_t c) {
  return decode_mqmd(in, e, c);
}
result<mqiih> decode_as(const mqiih&, bytes_view in, std::int32_t e, std::int32_t c) {
  return decode_mqiih(in, e, c);
}
result<mqdlh> decode_as(const mqdlh&, bytes_view in, std::int32_t e, std::int32_t c) {
  return decode_mqdlh(in, e, c);
}
result<mqxqh> decode_as(const mqxqh&, bytes_view in, std::int32_t e, std::int32_t c) {
  return decode_mqxqh(in, e, c);
}

bool equal_meaning(const mqmd& a, const mqmd& b) {
  bool eq = true;
  visit_mqmd_fields(same_meaning(eq), a, b);
  return eq;
}
bool equal_meaning(const mqiih& a, const mqiih& b) {
  bool eq = true;
  visit_mqiih_fields(same_meaning(eq), a, b);
  return eq;
}
bool equal_meaning(const mqdlh& a, const mqdlh& b) {
  bool eq = true;
  visit_mqdlh_fields(same_meaning(eq), a, b);
  return eq;
}
bool equal_meaning(const mqxqh& a, const mqxqh& b) {
  bool eq = true;
  visit_mqxqh_fields(same_meaning(eq), a, b);
  return eq;
}

void check_chain(const header_chain& chain, bytes_view msg) {
  std::size_t next = 0;
  for (const chain_header& h : chain.headers) {
    require(h.offset == next && h.length > 0 && h.offset + h.length <= msg.size());
    next = h.offset + h.length;
    std::visit(
        [&](const auto& value) {
          bytes again;
          encode_any(value, h.encoding, value.chars_ccsid, again);
          require(again.size() == h.length);
          auto back = decode_as(value, again, h.encoding, value.chars_ccsid);
          require(back.ok());
          require(back->chars_ccsid == value.chars_ccsid);
          if (one_to_one(value.chars_ccsid)) require(equal_meaning(*back, value));
        },
        h.value);
    if (const auto* dlh = std::get_if<mqdlh>(&h.value)) {
      require(!describe_feedback(dlh->reason).empty());
      require(!describe_reason(dlh->reason).empty());
    }
  }
  require(chain.data_offset == next && chain.data_offset <= msg.size());
  require(chain.data_format.size() == MQ_FORMAT_LENGTH);
}

constexpr std::string_view formats[] = {MQFMT_DEAD_LETTER_HEADER, MQFMT_XMIT_Q_HEADER, MQFMT_IMS,
                                        MQFMT_STRING};
constexpr std::int32_t encodings[] = {MQENC_NATIVE_LINUX_X86, MQENC_NATIVE_ZOS, MQENC_S390_LINUX, 0};
constexpr std::int32_t ccsids[] = {819, 37, 500, 1047, 1140, 1208, 0, 1};

}  // namespace

// The partial walk returns the headers decoded before a failure; the all-or-nothing walk is built on
// it, so both must agree: same error (field, offset, code), and the same headers when it succeeds.
void check_partial(const chain_walk& partial, const result<header_chain>& whole, bytes_view msg) {
  require(partial.error.has_value() != whole.ok());
  if (partial.error) {
    require(partial.error->field == whole.error().field && partial.error->offset == whole.error().offset &&
            partial.error->code == whole.error().code);
    check_chain(partial.chain, msg);  // the headers before the failure still tile the buffer
  } else {
    require(partial.chain.headers.size() == whole->headers.size() &&
            partial.chain.data_offset == whole->data_offset);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bytes_view msg(data, size);

  auto whole = walk_message_with_mqmd(msg);
  if (whole.ok()) {
    require(!whole->headers.empty() && whole->headers[0].struc_name == "MQMD");
    check_chain(*whole, msg);
  } else {
    require(!whole.error().field.empty() && whole.error().offset <= size);
  }
  check_partial(walk_message_with_mqmd_partial(msg), whole, msg);

  if (size >= 2) {
    const std::string_view format = formats[data[0] % 4];
    const std::int32_t encoding = encodings[(data[0] >> 2) % 4];
    const std::int32_t ccsid = ccsids[data[1] % 8];
    const bytes_view rest = msg.sub(2);
    auto chain = walk_chain(rest, format, encoding, ccsid);
    if (chain.ok()) {
      check_chain(*chain, rest);
    } else {
      require(!chain.error().field.empty() && chain.error().offset <= rest.size());
      require(chain.error().code.category() == mqrc_category());
    }
    check_partial(walk_chain_partial(rest, format, encoding, ccsid), chain, rest);
    // The printer's path: every field of every layout that fits.
    for (const layout* l : {&mqmd_layout(2), &mqiih_layout(), &mqdlh_layout(), &mqxqh_layout()}) {
      for (const field_value& f : decode_fields(*l, rest, encoding, ccsid)) {
        require(f.raw.size() == f.desc->length);
        require(f.desc->kind != field_kind::mqchar || f.text.size() == f.desc->length);
      }
    }
  }
  return 0;
}
