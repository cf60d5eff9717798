#include "imsb/mq/mqxqh.hpp"

#include "codec_detail.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::mq {

bool operator==(const mqxqh& a, const mqxqh& b) {
  bool eq = true;
  visit_mqxqh_fields(detail::fields_equal(eq), a, b);
  return eq;
}

result<mqxqh> decode_mqxqh(bytes_view in, std::int32_t encoding, std::int32_t ccsid) {
  // An invalid MQXQH is MQRC_XQH_ERROR: StrucId, Version, buffer length [C: RC2260].
  const byte_order order = integer_order(encoding);
  const layout& l = mqxqh_layout();
  auto start = detail::read_header_start(l, in, MQXQH_STRUC_ID, order, MQRC_XQH_ERROR);
  if (!start) return start.error();
  if (start->version != MQXQH_VERSION_1) {
    return detail::field_error(l, "Version", "is " + std::to_string(start->version) + ", must be 1",
                               MQRC_XQH_ERROR);
  }
  if (in.size() < l.length) return detail::short_buffer(l, in.size(), MQRC_XQH_ERROR);

  // The embedded MQMD is part of the same structure, so it must be in the same character family [D]
  // and say it is an MQMD; IBM documents only that it is "a close copy" of the original MQMD.
  const field_desc& md_field = *find_field(l, "MsgDesc");
  const bytes_view md_bytes = in.sub(md_field.offset, md_field.length);
  const layout& md1 = mqmd_layout(MQMD_VERSION_1);
  auto md_start = detail::read_header_start(md1, md_bytes, MQMD_STRUC_ID, order, MQRC_XQH_ERROR,
                                            "MQXQH.MsgDesc", md_field.offset);
  if (!md_start) return md_start.error();
  if (md_start->fam != start->fam) {
    return detail::field_error(md1, "StrucId",
                               "is in the other character family (ASCII vs EBCDIC) than the MQXQH",
                               MQRC_XQH_ERROR, "MQXQH.MsgDesc", md_field.offset);
  }
  // Version 2 is accepted [D] but changes nothing: MsgDesc is a 324-byte version-1 MQMD [C: XQH-DOC];
  // field_reader and field_writer read and write a kind::mqmd1 field with the version-1 layout only,
  // keeping the Version value, so a round trip is byte-exact.
  if (md_start->version != MQMD_VERSION_1 && md_start->version != MQMD_VERSION_2) {
    return detail::field_error(md1, "Version", "is " + std::to_string(md_start->version) + ", must be 1 or 2",
                               MQRC_XQH_ERROR, "MQXQH.MsgDesc", md_field.offset);
  }

  mqxqh xqh;
  xqh.chars_ccsid = detail::chars_ccsid(start->fam, ccsid);
  visit_mqxqh_fields(detail::field_reader(in.data(), l, order, xqh.chars_ccsid), xqh);
  return xqh;
}

void encode_mqxqh(const mqxqh& xqh, std::int32_t encoding, std::int32_t ccsid, bytes& out) {
  detail::encode_struct(
      mqxqh_layout(), xqh, [](auto&& f, const mqxqh& s) { visit_mqxqh_fields(f, s); }, encoding, ccsid, out);
}

}  // namespace imsb::mq
