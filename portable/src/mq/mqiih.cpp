#include "imsb/mq/mqiih.hpp"

#include "codec_detail.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::mq {

bool operator==(const mqiih& a, const mqiih& b) {
  bool eq = true;
  visit_mqiih_fields(detail::fields_equal(eq), a, b);
  return eq;
}

result<mqiih> decode_mqiih(bytes_view in, std::int32_t encoding, std::int32_t ccsid) {
  // The checks of MQPUT for a message whose data contains an MQIIH [C: RC2148], in
  // the order the fields appear.
  const byte_order order = integer_order(encoding);
  const layout& l = mqiih_layout();
  auto start = detail::read_header_start(l, in, MQIIH_STRUC_ID, order, MQRC_IIH_ERROR);
  if (!start) return start.error();
  if (start->version != MQIIH_VERSION_1) {
    return detail::field_error(l, "Version", "is " + std::to_string(start->version) + ", must be 1",
                               MQRC_IIH_ERROR);
  }
  if (in.size() < 12) return detail::short_buffer(l, in.size(), MQRC_IIH_ERROR);
  const std::int32_t struc_length = load_i32(in.data() + 8, order);
  if (struc_length != static_cast<std::int32_t>(MQIIH_LENGTH_1)) {
    return detail::field_error(l, "StrucLength", "is " + std::to_string(struc_length) + ", must be 84",
                               MQRC_IIH_ERROR);
  }
  if (in.size() < l.length) return detail::short_buffer(l, in.size(), MQRC_IIH_ERROR);

  mqiih iih;
  iih.chars_ccsid = detail::chars_ccsid(start->fam, ccsid);
  visit_mqiih_fields(detail::field_reader(in.data(), l, order, iih.chars_ccsid), iih);
  return iih;
}

void encode_mqiih(const mqiih& iih, std::int32_t encoding, std::int32_t ccsid, bytes& out) {
  detail::encode_struct(
      mqiih_layout(), iih, [](auto&& f, const mqiih& s) { visit_mqiih_fields(f, s); }, encoding, ccsid, out);
}

}  // namespace imsb::mq
