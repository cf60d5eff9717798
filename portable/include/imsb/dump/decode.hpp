#pragma once
// mqdump's decoder: bytes in, a document tree out (tree.hpp). It finds what the bytes are — a
// message with or without a leading MQMD, a dead-letter or transmission-queue message, an OTMA
// message — and decodes every header, field and segment with the codecs of components mq and otma.
// Pure: no I/O, never throws on any input, never reads past the buffer.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/dump/tree.hpp"

namespace imsb::dump {

// Defaults for data without an MQMD: the Linux queue manager's native encoding and CCSID [D].
inline constexpr std::int32_t default_encoding = 546;
inline constexpr std::int32_t default_ccsid = 819;

struct options {
  // MQ format name of the first byte when there is no leading MQMD ("MQIMS", "MQDEAD", "MQXMIT",
  // "MQIMSVS", an MFS map name, ...).
  std::optional<std::string> format;
  std::optional<std::int32_t> encoding;  // of data without an MQMD; default_encoding if not given
  std::optional<std::int32_t> ccsid;     // of data without an MQMD (and OTMA application data)
  bool otma = false;                     // the bytes are one OTMA buffer
};

struct dump_result {
  node document;
  // The error node when a header did not decode (decoding stopped there), else nullptr. Points into
  // `document`; valid while it is.
  const node* error() const;
  bool ok() const { return error() == nullptr; }
  // The first finding node (IMB4006W: the bridge would refuse the message), else nullptr. Same
  // lifetime as error().
  const node* finding() const;
};

// What the bytes are is decided in this order [D]:
//   1. options.otma: one OTMA buffer;
//   2. a leading MQMD (StrucId "MD  " in ASCII or EBCDIC): the MQMD, then the header chain its
//      Format starts (imsb/mq/chain.hpp rules);
//   3. options.format: the header chain from that format, with options.encoding/ccsid (without a
//      ccsid, CCSID 037 when the format's header is there with an EBCDIC StrucId);
//   4. StrucId "DLH ", "XQH " or "IIH " (ASCII or EBCDIC) at offset 0: that header's chain, with the
//      byte order its Version field shows;
//   5. byte 0 is X'01' (the OTMA architecture level), there are 32 bytes for an MCI, its message
//      type and prefix flags have only bits OTMA defines, and the whole buffer decodes: OTMA;
//   6. otherwise plain data, shown as hex and text (the document says why it is not OTMA).
// Data in Format MQIMS or MQIMSVS (or a user format, the MFS map name of a request without MQIIH)
// is checked as the bridge checks it (imsb/mq/bridge_validator.hpp); a failure is a finding in the
// document, not an error: its offsets are offsets in the input, and a fault in the describing
// header's Encoding or CodedCharSetId points at that header's field.
dump_result dump_message(bytes_view input, const options& opts = {});

}  // namespace imsb::dump
