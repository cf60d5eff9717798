#include "imsb/mq/mqmd.hpp"

#include "codec_detail.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::mq {

bool operator==(const mqmd& a, const mqmd& b) {
  bool eq = true;
  visit_mqmd_fields(detail::fields_equal(eq), a, b);
  return eq;
}

result<mqmd> decode_mqmd(bytes_view in, std::int32_t encoding, std::int32_t ccsid) {
  const byte_order order = integer_order(encoding);
  const layout& v1 = mqmd_layout(MQMD_VERSION_1);
  auto start = detail::read_header_start(v1, in, MQMD_STRUC_ID, order, MQRC_MD_ERROR);
  if (!start) return start.error();
  if (start->version != MQMD_VERSION_1 && start->version != MQMD_VERSION_2) {
    return detail::field_error(v1, "Version", "is " + std::to_string(start->version) + ", must be 1 or 2",
                               MQRC_MD_ERROR);
  }
  const layout& l = mqmd_layout(start->version);
  if (in.size() < l.length) return detail::short_buffer(l, in.size(), MQRC_MD_ERROR);

  mqmd md;
  md.chars_ccsid = detail::chars_ccsid(start->fam, ccsid);
  visit_mqmd_fields(detail::field_reader(in.data(), l, order, md.chars_ccsid), md);
  return md;
}

void encode_mqmd(const mqmd& md, std::int32_t encoding, std::int32_t ccsid, bytes& out) {
  detail::encode_struct(
      mqmd_layout(md.version), md, [](auto&& f, const mqmd& s) { visit_mqmd_fields(f, s); }, encoding, ccsid,
      out);
}

}  // namespace imsb::mq
