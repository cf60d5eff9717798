#include "imsb/mq/chain.hpp"

#include <utility>

#include "codec_detail.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::mq {
namespace {

// Values that say nothing about the data that follows fall back to the header's own [D]: an
// MQDLH_DEFAULT has Encoding 0 and CodedCharSetId MQCCSI_UNDEFINED (spec/mq.md §3.1 [C]).
std::int32_t next_encoding(std::int32_t field, std::int32_t current) noexcept {
  return encoding_integer_known(field) ? field : current;
}
std::int32_t next_ccsid(std::int32_t field, std::int32_t current) noexcept {
  return field > 0 ? field : current;
}

decode_error shifted(decode_error e, std::size_t base) {
  e.offset += base;
  return e;
}

}  // namespace

bool same_format(std::string_view a, std::string_view b) noexcept {
  return codepage::field_value(a) == codepage::field_value(b);
}

result<header_chain> walk_chain(bytes_view msg, std::string_view format, std::int32_t encoding,
                                std::int32_t ccsid) {
  header_chain chain;
  std::string fmt = codepage::pad_field(format, MQ_FORMAT_LENGTH);
  std::int32_t enc = encoding;
  std::int32_t cc = ccsid;
  std::size_t off = 0;
  // Every header is at least 84 bytes long and a short buffer is an error, so this ends.
  for (;;) {
    const bytes_view rest = msg.sub(off);
    if (same_format(fmt, MQFMT_DEAD_LETTER_HEADER)) {
      auto r = decode_mqdlh(rest, enc, cc);
      if (!r) return shifted(r.error(), off);
      chain.headers.push_back({"MQDLH", off, MQDLH_LENGTH_1, enc, cc, std::move(r.value())});
      const auto& dlh = std::get<mqdlh>(chain.headers.back().value);
      off += MQDLH_LENGTH_1;
      enc = next_encoding(dlh.encoding, enc);
      cc = next_ccsid(dlh.coded_char_set_id, cc);
      fmt = dlh.format;
    } else if (same_format(fmt, MQFMT_XMIT_Q_HEADER)) {
      auto r = decode_mqxqh(rest, enc, cc);
      if (!r) return shifted(r.error(), off);
      chain.headers.push_back({"MQXQH", off, MQXQH_LENGTH_1, enc, cc, std::move(r.value())});
      const auto& md = std::get<mqxqh>(chain.headers.back().value).msg_desc;
      off += MQXQH_LENGTH_1;
      enc = next_encoding(md.encoding, enc);
      cc = next_ccsid(md.coded_char_set_id, cc);
      fmt = md.format;
    } else if (same_format(fmt, MQFMT_IMS)) {
      auto r = decode_mqiih(rest, enc, cc);
      if (!r) return shifted(r.error(), off);
      chain.headers.push_back({"MQIIH", off, MQIIH_LENGTH_1, enc, cc, std::move(r.value())});
      off += MQIIH_LENGTH_1;
      // The data after the MQIIH is in the MQIIH's CCSID and encoding; its own Encoding and
      // CodedCharSetId fields are "Reserved" (spec/mq.md §1.3, §1.4 [C]).
      fmt = std::get<mqiih>(chain.headers.back().value).format;
    } else {
      break;
    }
  }
  chain.data_offset = off;
  chain.data_encoding = enc;
  chain.data_ccsid = cc;
  chain.data_format = std::move(fmt);
  return chain;
}

result<header_chain> walk_message_with_mqmd(bytes_view msg) {
  // Bytes alone do not say how the MQMD is encoded: the StrucId gives the character family, and a
  // Version of 1 or 2 in one byte order or the other gives the integer order [D].
  const detail::family fam = detail::struc_id_family(msg.sub(0, 4), MQMD_STRUC_ID);
  const bool ebcdic = fam == detail::family::ebcdic;
  std::int32_t enc = ebcdic ? MQENC_NATIVE_ZOS : MQENC_NATIVE_LINUX_X86;
  if (fam != detail::family::unknown && msg.size() >= 8) {
    const std::int32_t big = load_i32(msg.data() + 4, byte_order::big);
    const std::int32_t little = load_i32(msg.data() + 4, byte_order::little);
    if (big == MQMD_VERSION_1 || big == MQMD_VERSION_2) {
      enc = ebcdic ? MQENC_NATIVE_ZOS : MQENC_S390_LINUX;
    } else if (little == MQMD_VERSION_1 || little == MQMD_VERSION_2) {
      enc = MQENC_NATIVE_LINUX_X86;
    }
  }
  const std::int32_t cc = ebcdic ? codepage::ccsid_037 : codepage::ccsid_819;
  auto md = decode_mqmd(msg, enc, cc);  // reports a bad StrucId, Version or length
  if (!md) return md.error();
  const std::size_t md_length = mqmd_layout(md->version).length;

  auto rest = walk_chain(msg.sub(md_length), md->format, next_encoding(md->encoding, enc),
                         next_ccsid(md->coded_char_set_id, cc));
  if (!rest) return shifted(rest.error(), md_length);

  header_chain chain;
  chain.headers.reserve(rest->headers.size() + 1);
  chain.headers.push_back({"MQMD", 0, md_length, enc, cc, std::move(md.value())});
  for (chain_header& h : rest->headers) {
    h.offset += md_length;
    chain.headers.push_back(std::move(h));
  }
  chain.data_offset = rest->data_offset + md_length;
  chain.data_encoding = rest->data_encoding;
  chain.data_ccsid = rest->data_ccsid;
  chain.data_format = std::move(rest->data_format);
  return chain;
}

}  // namespace imsb::mq
