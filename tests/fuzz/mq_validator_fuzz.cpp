// Fuzzes the bridge message validator (docs/design/errors.md, validation order) with every input read in both
// byte orders, in ASCII and EBCDIC, with and without an MQIIH. It must never crash or read past the input,
// and a message it accepts must satisfy the rule it enforces: sum(LL) + MQIIH length == message length, with
// effective values the bridge can act on. A CCSID it cannot read — MQCCSI_Q_MGR (0) left unresolved, or an
// unsupported one — must be MQRC_NOT_CONVERTED, whatever the bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace {

void check(imsb::bytes_view data, std::string_view format, std::int32_t encoding, std::int32_t ccsid) {
  imsb::result<imsb::mq::bridge_request> r = imsb::mq::validate_bridge_message(data, format, encoding, ccsid);
  if (!r) {
    if (r.error().detail.empty()) __builtin_trap();
    return;
  }
  const imsb::mq::bridge_request& q = *r;
  if (q.segments.empty() || q.iih.has_value() != (q.iih_length == 84)) __builtin_trap();
  std::size_t offset = q.iih_length;
  for (const imsb::mq::llzz_segment& s : q.segments) {
    if (s.offset != offset || s.ll < 4 || s.ll > imsb::mq::llzz_max_segment_length) __builtin_trap();
    if (s.text.size() != s.ll - 4u || s.text.data() != data.data() + offset + 4) __builtin_trap();
    offset += s.ll;
  }
  if (offset != data.size()) __builtin_trap();
  if (q.trancode.size() != 8 || q.mfs_map_name.size() != 8 || q.lterm_override.size() != 8) __builtin_trap();
  if (q.security_scope != 'C' && q.security_scope != 'F') __builtin_trap();
  if (q.commit_mode != '0' && q.commit_mode != '1') __builtin_trap();
  if (q.tran_state != ' ' && q.tran_state != 'C' && q.tran_state != 'A') __builtin_trap();
  if (q.is_command != (q.trancode[0] == '/')) __builtin_trap();
  for (const std::string* name : {&q.mfs_map_name, &q.lterm_override}) {
    if ((*name)[0] == '\0' || name->find('\0') != std::string::npos) __builtin_trap();
  }
}

void check_unreadable_ccsid(imsb::bytes_view data, std::string_view format, std::int32_t encoding,
                            std::int32_t ccsid) {
  imsb::result<imsb::mq::bridge_request> r = imsb::mq::validate_bridge_message(data, format, encoding, ccsid);
  if (r.ok() || r.error().code != imsb::mq::make_mqrc(imsb::mq::MQRC_NOT_CONVERTED) ||
      r.error().field != "MQMD.CodedCharSetId") {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const imsb::bytes_view in(data, size);
  for (std::string_view format : {std::string_view("MQIMS   "), std::string_view("MQIMSVS ")}) {
    for (std::int32_t encoding : {785, 546}) {  // big-endian (z/OS), little-endian (x86)
      for (std::int32_t ccsid : {819, 500}) {   // ASCII, EBCDIC
        check(in, format, encoding, ccsid);
      }
      for (std::int32_t ccsid : {0, 1252}) {  // MQCCSI_Q_MGR unresolved, unsupported
        check_unreadable_ccsid(in, format, encoding, ccsid);
      }
    }
  }
  return 0;
}
