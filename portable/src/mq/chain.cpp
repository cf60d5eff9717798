#include "imsb/mq/chain.hpp"

#include <utility>

#include "codec_detail.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/layout.hpp"

namespace imsb::mq {
namespace {

// Values that say nothing about the data that follows fall back to the header's own [D]: an
// MQDLH_DEFAULT has Encoding 0 and CodedCharSetId MQCCSI_UNDEFINED [C: MQGO-DLH].
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

result<header_chain> whole(chain_walk w) {
  if (w.error) return std::move(*w.error);
  return std::move(w.chain);
}

// One header of the chain, decoded with its describing (enc, cc), and what describes what follows it.
struct link {
  std::variant<mqmd, mqdlh, mqxqh, mqiih> value;
  std::string format;
  std::int32_t encoding = 0;
  std::int32_t ccsid = 0;
};

result<link> decode_link(const layout& l, bytes_view in, std::int32_t enc, std::int32_t cc) {
  if (&l == &mqdlh_layout()) {
    auto r = decode_mqdlh(in, enc, cc);
    if (!r) return r.error();
    link k{{}, r->format, next_encoding(r->encoding, enc), next_ccsid(r->coded_char_set_id, cc)};
    k.value = std::move(r.value());
    return k;
  }
  if (&l == &mqxqh_layout()) {
    auto r = decode_mqxqh(in, enc, cc);
    if (!r) return r.error();
    const mqmd& md = r->msg_desc;
    link k{{}, md.format, next_encoding(md.encoding, enc), next_ccsid(md.coded_char_set_id, cc)};
    k.value = std::move(r.value());
    return k;
  }
  auto r = decode_mqiih(in, enc, cc);
  if (!r) return r.error();
  // The data after the MQIIH is in the MQIIH's CCSID and encoding; its own Encoding and
  // CodedCharSetId fields are "Reserved" [C: IIH-DOC, IIH-DOC-ZH].
  link k{{}, r->format, enc, cc};
  k.value = std::move(r.value());
  return k;
}

}  // namespace

bool same_format(std::string_view a, std::string_view b) noexcept {
  return codepage::field_value(a) == codepage::field_value(b);
}

const layout* chain_header_layout(std::string_view format) noexcept {
  if (same_format(format, MQFMT_DEAD_LETTER_HEADER)) return &mqdlh_layout();
  if (same_format(format, MQFMT_XMIT_Q_HEADER)) return &mqxqh_layout();
  if (same_format(format, MQFMT_IMS)) return &mqiih_layout();
  return nullptr;
}

std::optional<header_encoding> detect_header_encoding(bytes_view header, std::string_view struc_id) {
  // Bytes alone do not say how a header is encoded: the StrucId gives the character family, and a
  // Version of 1 or 2 in one byte order or the other gives the integer order [D].
  const detail::family fam = detail::struc_id_family(header.sub(0, 4), struc_id);
  if (fam == detail::family::unknown) return std::nullopt;
  const bool ebcdic = fam == detail::family::ebcdic;
  header_encoding h;
  h.encoding = ebcdic ? MQENC_NATIVE_ZOS : MQENC_NATIVE_LINUX_X86;
  h.ccsid = ebcdic ? codepage::ccsid_037 : codepage::ccsid_819;
  // 1 and 2 are every Version the MQMD, MQDLH, MQXQH and MQIIH have [C: CMQC-H, CMQC-PY].
  auto known_version = [](std::int32_t v) { return v == MQMD_VERSION_1 || v == MQMD_VERSION_2; };
  if (header.size() >= 8) {
    if (known_version(load_i32(header.data() + 4, byte_order::big))) {
      h.encoding = ebcdic ? MQENC_NATIVE_ZOS : MQENC_S390_LINUX;
    } else if (known_version(load_i32(header.data() + 4, byte_order::little))) {
      h.encoding = MQENC_NATIVE_LINUX_X86;
    }
  }
  return h;
}

chain_walk walk_chain_partial(bytes_view msg, std::string_view format, std::int32_t encoding,
                              std::int32_t ccsid) {
  chain_walk w;
  header_chain& chain = w.chain;
  std::string fmt = codepage::pad_field(format, MQ_FORMAT_LENGTH);
  std::int32_t enc = encoding;
  std::int32_t cc = ccsid;
  std::size_t off = 0;
  // Every header is at least 84 bytes long and a short buffer is an error, so this ends.
  while (const layout* l = chain_header_layout(fmt)) {
    auto k = decode_link(*l, msg.sub(off), enc, cc);
    if (!k) {
      // off, enc, cc and fmt still describe the header that did not decode.
      w.error = shifted(k.error(), off);
      break;
    }
    chain.headers.push_back({l->struc_name, off, l->length, enc, cc, std::move(k->value)});
    off += l->length;
    enc = k->encoding;
    cc = k->ccsid;
    fmt = std::move(k->format);
  }
  chain.data_offset = off;
  chain.data_encoding = enc;
  chain.data_ccsid = cc;
  chain.data_format = std::move(fmt);
  return w;
}

result<header_chain> walk_chain(bytes_view msg, std::string_view format, std::int32_t encoding,
                                std::int32_t ccsid) {
  return whole(walk_chain_partial(msg, format, encoding, ccsid));
}

chain_walk walk_message_with_mqmd_partial(bytes_view msg) {
  // Not an MQMD at all: decode_mqmd names the StrucId whatever it is given.
  const header_encoding detected =
      detect_header_encoding(msg, MQMD_STRUC_ID)
          .value_or(header_encoding{MQENC_NATIVE_LINUX_X86, codepage::ccsid_819});
  const std::int32_t enc = detected.encoding;
  const std::int32_t cc = detected.ccsid;
  chain_walk w;
  auto md = decode_mqmd(msg, enc, cc);  // reports a bad StrucId, Version or length
  if (!md) {
    w.chain.data_encoding = enc;
    w.chain.data_ccsid = cc;
    w.chain.data_format = std::string(MQFMT_NONE);
    w.error = md.error();
    return w;
  }
  const std::size_t md_length = mqmd_layout(md->version).length;
  chain_walk rest = walk_chain_partial(msg.sub(md_length), md->format, next_encoding(md->encoding, enc),
                                       next_ccsid(md->coded_char_set_id, cc));

  header_chain& chain = w.chain;
  chain.headers.reserve(rest.chain.headers.size() + 1);
  chain.headers.push_back({"MQMD", 0, md_length, enc, cc, std::move(md.value())});
  for (chain_header& h : rest.chain.headers) {
    h.offset += md_length;
    chain.headers.push_back(std::move(h));
  }
  chain.data_offset = rest.chain.data_offset + md_length;
  chain.data_encoding = rest.chain.data_encoding;
  chain.data_ccsid = rest.chain.data_ccsid;
  chain.data_format = std::move(rest.chain.data_format);
  if (rest.error) w.error = shifted(std::move(*rest.error), md_length);
  return w;
}

result<header_chain> walk_message_with_mqmd(bytes_view msg) {
  return whole(walk_message_with_mqmd_partial(msg));
}

}  // namespace imsb::mq
