#include "imsb/mq/bridge_validator.hpp"

#include <string>
#include <utility>

#include "codec_detail.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/layout.hpp"

// Order of the checks (first failure wins): docs/design/errors.md, validation order [D]; IBM's own
// precedence between the checks is not documented anywhere public [I], so each boundary below is our
// decision:
//
//  0. An integer encoding that is neither normal (1) nor reversed (2): nothing can be read
//     → MQRC_FORMAT_ERROR (2110) [D]. No MQFB code describes it; 2110 is what MQ itself reports for
//     data it cannot interpret by its format [C: LL-TECHNOTE].
//  0b. A CodedCharSetId the bridge cannot read characters in (codepage::supported: 037, 500, 1047,
//     1140, 819, 1208) → MQRC_NOT_CONVERTED (2119) naming MQMD.CodedCharSetId [D]. MQCCSI_Q_MGR (0)
//     is one of them: the caller resolves it first. Nothing after the MQMD can be read without a
//     character set, and a message the bridge cannot interpret is an error, never guessed at
//     ([C: DATACONV] "cannot recognize the header format"; docs/design/character-data.md). No MQFB
//     code describes it; 2119 is MQ's "message data not converted".
//  1. Format MQFMT_IMS: data shorter than 84 bytes, or an MQIIH that does not decode (StrucId,
//     Version, StrucLength) → MQFB_IIH_ERROR (296) (the checks MQPUT makes [C: RC2148]). Then, each
//     → MQFB_IIH_ERROR (296) [D], in field order:
//     a. a StrucId in the other character family (ASCII vs EBCDIC) than the MQMD's CCSID: the MQIIH
//        was not converted to the CCSID the MQMD names, which it must be in, and the data after it
//        is in the MQIIH's CCSID [C: IIH-DOC], so neither can be read;
//     b. TranState not ' ', 'C' or 'A' (MQITS_* [C: CMQC-PY, IIH-TRANSTATE]). A NUL TranState — an
//        application that left the byte zero — is ' ': an MQCHAR whose value ends at once is blank
//        (MQCHARn [C: CMQC-H, PUTDATE-DOC]) [D];
//     c. CommitMode not '0' or '1' (MQICM_* [C: CMQC-PY, IIH-COMMIT]).
//     SecurityScope is not checked: anything but 'F' is 'C' [C: IIH-SECSCOPE].
//  2. No data after the MQIIH (or no data at all) → MQFB_DATA_LENGTH_ZERO (291) [D]: IBM's sum rule
//     alone would pass (0 + 84 == 84) but IMS cannot run a message without a transaction code; the
//     application data length is zero, which is what 291 says [C: FEEDBACK-ZH].
//  3. The LLZZ walk, segment by segment, from the first:
//     a. fewer than 4 bytes left (no room for LLZZ): the segments so far add up to the length minus
//        1, 2 or 3. One byte left → MQFB_LENGTH_OFF_BY_ONE (295), the sum is one short;
//        2 or 3 bytes → MQFB_BUFFER_OVERFLOW (294), the sum does not match. The LL value
//        of a 2- or 3-byte tail is not judged [D]: those bytes cannot be a segment whatever they say.
//     b. LL < 0 as a signed halfword → MQFB_DATA_LENGTH_NEGATIVE (292).
//     c. LL == 0 → MQFB_DATA_LENGTH_ZERO (291).
//     d. LL > 32764 → MQFB_DATA_LENGTH_TOO_BIG (293) (the limit is our choice [D] between IBM's 32764
//        and 32767 [C: LL-TECHNOTE, SEGMENTATION]). Checked before the fit in the buffer [D]: an LL
//        that no message may carry is wrong whatever follows it.
//     e. LL 1..3: shorter than its own LLZZ → MQFB_BUFFER_OVERFLOW (294) [D] ("LL < 4").
//     f. LL beyond the end of the data → MQFB_BUFFER_OVERFLOW (294), including a sum one
//        byte long: 295 names a length "one byte too short" [I], never one too long.
//  A walk that ends exactly at the end of the data is valid: sum(LL) + MQIIH length == message
//  length [C: BRIDGE-MSGS].

namespace imsb::mq {
namespace {

// The MQMD.Encoding integer check, shared by both entry points.
std::optional<decode_error> check_encoding(std::int32_t encoding) {
  if (encoding_integer_known(encoding)) return std::nullopt;
  return decode_error{make_mqrc(MQRC_FORMAT_ERROR), "MQMD.Encoding", 0,
                      "integer encoding " + std::to_string(encoding & 0x0F) + " of Encoding " +
                          std::to_string(encoding) + " is neither normal (1) nor reversed (2)"};
}

decode_error segment_error(std::int32_t mqfb, std::size_t number, std::size_t offset, std::string what) {
  return decode_error{
      make_mqfb(mqfb), "LLZZ[" + std::to_string(number) + "].LL", offset,
      "segment " + std::to_string(number) + " at offset " + std::to_string(offset) + ": " + std::move(what)};
}

std::string ll_found(std::int16_t ll) { return "LL " + std::to_string(ll); }

// Step 0b of the order above.
std::optional<decode_error> check_ccsid(std::int32_t ccsid) {
  if (codepage::supported(ccsid)) return std::nullopt;
  return decode_error{make_mqrc(MQRC_NOT_CONVERTED), "MQMD.CodedCharSetId", 0,
                      "CodedCharSetId " + std::to_string(ccsid) +
                          " is not a CCSID the bridge reads (37, 500, 1047, 1140, 819, 1208)" +
                          (ccsid == MQCCSI_Q_MGR ? "; MQCCSI_Q_MGR must be resolved to the queue manager's "
                                                   "CCSID before validation"
                                                 : "")};
}

// An MQFB_IIH_ERROR (step 1) naming an MQIIH field at its layout offset.
decode_error iih_field_error(std::string_view field, std::string detail) {
  const field_desc* f = find_field(mqiih_layout(), field);
  return decode_error{make_mqfb(MQFB_IIH_ERROR), "MQIIH." + std::string(field), f != nullptr ? f->offset : 0u,
                      std::move(detail)};
}

std::string quoted(char c) { return c == '\0' ? "X'00'" : "'" + std::string(1, c) + "'"; }

// Steps 1a-1c, on an MQIIH that decoded. `struc_id` is its first 4 bytes.
std::optional<decode_error> check_iih(const mqiih& iih, bytes_view struc_id, std::int32_t ccsid) {
  const bool ebcdic_id = detail::struc_id_family(struc_id, MQIIH_STRUC_ID) == detail::family::ebcdic;
  if (ebcdic_id != codepage::is_ebcdic(ccsid)) {
    return iih_field_error("StrucId", std::string("is in ") + (ebcdic_id ? "EBCDIC" : "ASCII") +
                                          " but MQMD.CodedCharSetId " + std::to_string(ccsid) + " is " +
                                          (ebcdic_id ? "not EBCDIC" : "EBCDIC") +
                                          ": the MQIIH was not converted to the CCSID the MQMD names");
  }
  if (iih.tran_state != MQITS_NOT_IN_CONVERSATION && iih.tran_state != MQITS_IN_CONVERSATION &&
      iih.tran_state != MQITS_ARCHITECTED && iih.tran_state != '\0') {
    return iih_field_error("TranState", "is " + quoted(iih.tran_state) + ", must be ' ', 'C' or 'A'");
  }
  if (iih.commit_mode != MQICM_COMMIT_THEN_SEND && iih.commit_mode != MQICM_SEND_THEN_COMMIT) {
    return iih_field_error("CommitMode", "is " + quoted(iih.commit_mode) + ", must be '0' or '1'");
  }
  return std::nullopt;
}

// MQIIH.MFSMapName and LTermOverride are "ignored if the first byte is blank or null" [C: IIH-MFS,
// IIH-LTERM]: such a field gives no name, 8 blanks. Otherwise its MQCHAR8 value, which a NUL ends
// [C: CMQC-H, PUTDATE-DOC], blank padded as without an MQIIH.
std::string iih_name(const std::string& field) {
  if (field.empty() || field[0] == ' ' || field[0] == '\0') return std::string(8, ' ');
  return codepage::pad_field(codepage::field_value(field), 8);
}

// See the header: up to 8 characters of the first segment text, cut at a blank or NUL.
std::string effective_trancode(bytes_view first_text, std::int32_t ccsid) {
  std::string chars = codepage::get_field(first_text.sub(0, 8), ccsid);
  std::size_t end = chars.find_first_of(std::string_view(" \0", 2));
  if (end != std::string::npos) chars.resize(end);
  return codepage::pad_field(chars, 8);
}

}  // namespace

result<std::vector<llzz_segment>> walk_llzz_segments(bytes_view data, std::size_t start,
                                                     std::int32_t encoding) {
  if (auto bad = check_encoding(encoding)) return *bad;
  const byte_order order = integer_order(encoding);
  if (start >= data.size()) {
    // Step 2 of the order above.
    return segment_error(MQFB_DATA_LENGTH_ZERO, 1, start,
                         "no LLZZ segment: the message data ends at offset " + std::to_string(data.size()) +
                             " (sum of LL is 0)");
  }

  std::vector<llzz_segment> segments;
  std::size_t offset = start;
  while (offset < data.size()) {
    const std::size_t number = segments.size() + 1;
    const std::size_t left = data.size() - offset;
    auto sums = [&] {
      return "sum of LL " + std::to_string(offset - start) + " + header " + std::to_string(start) +
             " vs message length " + std::to_string(data.size());
    };
    if (left < llzz_prefix_length) {  // step 3a
      std::string what = std::to_string(left) + " byte(s) left, no room for LLZZ";
      if (left >= 2) what += " (they read as " + ll_found(load_i16(data.data() + offset, order)) + ")";
      what += "; " + sums();
      return segment_error(left == 1 ? MQFB_LENGTH_OFF_BY_ONE : MQFB_BUFFER_OVERFLOW, number, offset,
                           std::move(what));
    }
    const std::int16_t ll = load_i16(data.data() + offset, order);
    if (ll < 0) {  // step 3b
      return segment_error(MQFB_DATA_LENGTH_NEGATIVE, number, offset, ll_found(ll) + " is negative");
    }
    if (ll == 0) {  // step 3c
      return segment_error(MQFB_DATA_LENGTH_ZERO, number, offset, ll_found(ll));
    }
    if (ll > llzz_max_segment_length) {  // step 3d
      return segment_error(MQFB_DATA_LENGTH_TOO_BIG, number, offset,
                           ll_found(ll) + " exceeds the maximum " + std::to_string(llzz_max_segment_length));
    }
    const auto length = static_cast<std::size_t>(ll);
    if (length < llzz_prefix_length) {  // step 3e
      return segment_error(MQFB_BUFFER_OVERFLOW, number, offset,
                           ll_found(ll) + " is shorter than its own LLZZ (4 bytes)");
    }
    if (length > left) {  // step 3f
      return segment_error(MQFB_BUFFER_OVERFLOW, number, offset,
                           ll_found(ll) + " runs " + std::to_string(length - left) +
                               " byte(s) past the end of the message (" + std::to_string(left) +
                               " bytes left); " + sums());
    }
    llzz_segment seg;
    seg.offset = offset;
    seg.ll = static_cast<std::uint16_t>(ll);
    seg.zz = load_u16(data.data() + offset + 2, order);
    seg.text = data.sub(offset + llzz_prefix_length, length - llzz_prefix_length);
    segments.push_back(seg);
    offset += length;
  }
  return segments;
}

result<bridge_request> validate_bridge_message(bytes_view data, std::string_view mqmd_format,
                                               std::int32_t encoding, std::int32_t ccsid) {
  if (auto bad = check_encoding(encoding)) return *bad;
  if (auto bad = check_ccsid(ccsid)) return *bad;

  bridge_request req;
  // Compared by value so that a NUL-ended "MQIMS" matches too (MQCHARn semantics [C: CMQC-H]).
  const bool with_iih = codepage::field_value(mqmd_format) == codepage::field_value(MQFMT_IMS);
  if (with_iih) {
    if (data.size() < MQIIH_LENGTH_1) {
      return decode_error{make_mqfb(MQFB_IIH_ERROR), "MQIIH", 0,
                          "MQMD.Format is MQFMT_IMS but the message data has " + std::to_string(data.size()) +
                              " bytes, fewer than an MQIIH (" + std::to_string(MQIIH_LENGTH_1) + ")"};
    }
    result<mqiih> iih = decode_mqiih(data.sub(0, MQIIH_LENGTH_1), encoding, ccsid);
    if (!iih) {
      // Field, offset and detail stay those of the MQIIH decoder; only the code becomes the feedback.
      decode_error err = iih.error();
      err.code = make_mqfb(MQFB_IIH_ERROR);
      return err;
    }
    if (auto bad = check_iih(*iih, data.sub(0, 4), ccsid)) return *bad;
    req.iih = std::move(iih).value();
    req.iih_length = MQIIH_LENGTH_1;
  }

  result<std::vector<llzz_segment>> segments = walk_llzz_segments(data, req.iih_length, encoding);
  if (!segments) return segments.error();
  req.segments = std::move(segments).value();

  // The data after LLZZ is in the MQIIH's CCSID, which is the MQMD's ([C: IIH-DOC]; step 1a made sure
  // of it), so both the trancode and its first character are read in `ccsid`.
  req.trancode = effective_trancode(req.segments.front().text, ccsid);
  // An IMS command starts with '/' [C: BRIDGE-MSGS]; an empty first segment gives a blank.
  req.is_command = req.trancode.front() == '/';

  if (req.iih) {
    req.commit_mode = req.iih->commit_mode;
    // Step 1b: a NUL TranState is blank.
    req.tran_state = req.iih->tran_state == '\0' ? MQITS_NOT_IN_CONVERSATION : req.iih->tran_state;
    // "If neither MQISS_CHECK nor MQISS_FULL is specified for this field, MQISS_CHECK is assumed."
    // [C: IIH-SECSCOPE].
    req.security_scope = req.iih->security_scope == MQISS_FULL ? MQISS_FULL : MQISS_CHECK;
    req.mfs_map_name = iih_name(req.iih->mfs_map_name);
    req.lterm_override = iih_name(req.iih->lterm_override);
  } else {
    // Defaults without an MQIIH [C: BRIDGE-MSGS].
    req.commit_mode = MQICM_COMMIT_THEN_SEND;
    req.tran_state = MQITS_NOT_IN_CONVERSATION;
    req.security_scope = MQISS_CHECK;
    req.mfs_map_name = codepage::pad_field(codepage::field_value(mqmd_format), 8);
    req.lterm_override = std::string(8, ' ');
  }
  return req;
}

}  // namespace imsb::mq
