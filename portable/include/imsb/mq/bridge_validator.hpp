#pragma once
// Validation of a message taken from a bridge queue, before it is converted and sent to IMS:
// the optional MQIIH, then the LLZZ segments, in the message's own encoding and CCSID
// (docs/design/commit-modes.md, CM0 step 2; the checks and their order: docs/design/errors.md; IBM's
// rules [C: BRIDGE-MSGS, IMS-FB-CODES]).
//
// A failure carries the MQFB_* feedback code the bridge puts in MQDLH.Reason and in an exception
// report [C: CANNOT-PUT]; the decode_error names the segment, its offset and the LL found.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/mqiih.hpp"

namespace imsb::mq {

// The LL and ZZ halfwords that start every segment; LL counts them [C: IMS-SEGFMT].
inline constexpr std::size_t llzz_prefix_length = 4;

// Largest legal LL. IBM disagrees with itself: the MQ 9.2 text says segments up to 32767 bytes
// "defined by IMS/OTMA" [C: SEGMENTATION], while the v6 text and an IBM technote give 32764, "the
// maximum message length that can be sent to IMS OTMA" [C: SEGMENTATION-V6, LL-TECHNOTE]. We use 32764
// [D], so a message that passes here is never refused by OTMA for its segment length.
inline constexpr std::uint16_t llzz_max_segment_length = 32764;

// One LLZZ segment of the message data.
struct llzz_segment {
  std::size_t offset = 0;  // of LL in the message data (the bytes after the MQMD, MQIIH included)
  std::uint16_t ll = 0;    // segment length including LL and ZZ
  std::uint16_t zz = 0;    // reserved/flags; passed to IMS as found, not checked [I: IMS-SEGFMT]
  bytes_view text;         // the LL - 4 bytes after LLZZ, in the message's CCSID (views the input)
};

// A valid bridge message. `segments[i].text` views the data given to validate_bridge_message, which
// must outlive this value.
struct bridge_request {
  std::optional<mqiih> iih;            // present when MQMD.Format is MQFMT_IMS
  std::vector<llzz_segment> segments;  // at least one
  std::size_t iih_length = 0;          // 0 or MQIIH_LENGTH_1 (84)

  // Effective values: from the MQIIH, or without one IBM's defaults [C: BRIDGE-MSGS].
  // `iih` keeps the fields as found; these are what the bridge acts on.
  std::string trancode;       // 8 chars, CCSID 819, blank padded: see validate_bridge_message
  bool is_command = false;    // the first segment text starts with '/' (an IMS command [C: BRIDGE-MSGS])
  char commit_mode = '0';     // '0' or '1': MQIIH.CommitMode (checked), or '0' (CM0) without MQIIH
  char tran_state = ' ';      // ' ', 'C' or 'A': MQIIH.TranState (checked; X'00' gives ' '), or ' '
  char security_scope = 'C';  // 'C' or 'F'; anything else is 'C' as IBM does [C: IIH-SECSCOPE]
  // 8 chars, blank padded, a NUL ending the value; 8 blanks (no name) when the MQIIH field's first
  // byte is blank or NUL ([C: IIH-MFS, IIH-LTERM]: "ignored if the first byte is blank or null").
  std::string mfs_map_name;    // MQIIH.MFSMapName, or MQMD.Format without an MQIIH
  std::string lterm_override;  // MQIIH.LTermOverride, or 8 blanks (the Tpipe name is used)
};

// Walks the LLZZ segments of data[start..]: the segment lengths must add up to exactly
// data.size() - start. Offsets in segments and errors are offsets in `data`. `encoding` gives the
// byte order of LL and ZZ (MQMD.Encoding, or the MQIIH's which is the same [C: IIH-DOC]).
// Errors: make_mqfb(291..295) as documented in bridge_validator.cpp, or make_mqrc(MQRC_FORMAT_ERROR)
// when the integer encoding is neither normal nor reversed.
result<std::vector<llzz_segment>> walk_llzz_segments(bytes_view data, std::size_t start,
                                                     std::int32_t encoding);

// Validates the message data after the MQMD. `mqmd_format` is MQMD.Format (CCSID 819; a NUL ends it),
// `encoding` and `ccsid` are MQMD.Encoding and MQMD.CodedCharSetId.
//
// `ccsid` must be a real, supported CCSID (codepage::supported): the caller resolves MQCCSI_Q_MGR (0)
// to the queue manager's CCSID first, as MQ does at MQPUT. Any other value — 0, a negative special,
// 1252, 437, 1141 ... — is make_mqrc(MQRC_NOT_CONVERTED) (2119) naming "MQMD.CodedCharSetId" [D]:
// the bridge cannot read the trancode without it [C: DATACONV].
//
// With Format MQFMT_IMS the data must start with an MQIIH in that CCSID's character family (ASCII or
// EBCDIC [C: IIH-DOC]) with TranState ' ', 'C' or 'A' and CommitMode '0' or '1' [D], else
// MQFB_IIH_ERROR (296); then the LLZZ walk above. The order of all checks is in bridge_validator.cpp.
//
// trancode: the first 8 characters of the first segment text (bytes 5-12 of the user data,
// [C: BRIDGE-MSGS]), ended early by a blank or NUL (IMS ends a transaction code or command verb
// at the first blank [I]) or by the end of the first segment, then blank padded to 8. So an empty
// first segment (LL = 4) gives 8 blanks and "/DIS TRAN ALL" gives "/DIS    ".
result<bridge_request> validate_bridge_message(bytes_view data, std::string_view mqmd_format,
                                               std::int32_t encoding, std::int32_t ccsid);

}  // namespace imsb::mq
