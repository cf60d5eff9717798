#include "imsb/mq/mqdlh.hpp"

#include "codec_detail.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::mq {

bool operator==(const mqdlh& a, const mqdlh& b) {
  bool eq = true;
  visit_mqdlh_fields(detail::fields_equal(eq), a, b);
  return eq;
}

result<mqdlh> decode_mqdlh(bytes_view in, std::int32_t encoding, std::int32_t ccsid) {
  const byte_order order = integer_order(encoding);
  const layout& l = mqdlh_layout();
  auto start = detail::read_header_start(l, in, MQDLH_STRUC_ID, order, MQRC_DLH_ERROR);
  if (!start) return start.error();
  if (start->version != MQDLH_VERSION_1) {
    return detail::field_error(l, "Version", "is " + std::to_string(start->version) + ", must be 1",
                               MQRC_DLH_ERROR);
  }
  if (in.size() < l.length) return detail::short_buffer(l, in.size(), MQRC_DLH_ERROR);

  mqdlh dlh;
  dlh.chars_ccsid = detail::chars_ccsid(start->fam, ccsid);
  visit_mqdlh_fields(detail::field_reader(in.data(), l, order, dlh.chars_ccsid), dlh);
  return dlh;
}

void encode_mqdlh(const mqdlh& dlh, std::int32_t encoding, std::int32_t ccsid, bytes& out) {
  detail::encode_struct(
      mqdlh_layout(), dlh, [](auto&& f, const mqdlh& s) { visit_mqdlh_fields(f, s); }, encoding, ccsid, out);
}

}  // namespace imsb::mq
