// Bridge message validation: a table of hand-made messages, one row per rule and boundary of
// IBM's length rule [C: BRIDGE-MSGS], its feedback codes [C: CMQC-PY] and our validation order
// (docs/design/errors.md), in both byte orders and both character sets. The messages are
// written byte by byte here (not with the MQIIH encoder) so that the test does not share a bug with
// the code it checks; the expected feedback codes are literals for the same reason.

#include "imsb/mq/bridge_validator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "imsb/mq/codes.hpp"

namespace imsb::mq {
namespace {

constexpr std::int32_t enc_be = 785;  // z/OS native: big-endian integers [C: MQENC-TABLE]
constexpr std::int32_t enc_le = 546;  // Linux x86 native: little-endian integers
constexpr std::int32_t ccsid_ascii = 819;
constexpr std::int32_t ccsid_ebcdic = 500;
constexpr std::int32_t ccsid_ebcdic_037 = 37;

// The characters these messages use, in EBCDIC (the same in CCSIDs 037 and 500).
std::uint8_t ebcdic(char c) {
  if (c >= 'A' && c <= 'I') return static_cast<std::uint8_t>(0xC1 + (c - 'A'));
  if (c >= 'J' && c <= 'R') return static_cast<std::uint8_t>(0xD1 + (c - 'J'));
  if (c >= 'S' && c <= 'Z') return static_cast<std::uint8_t>(0xE2 + (c - 'S'));
  if (c >= '0' && c <= '9') return static_cast<std::uint8_t>(0xF0 + (c - '0'));
  if (c == ' ') return 0x40;
  if (c == '/') return 0x61;
  if (c == '\0') return 0x00;
  ADD_FAILURE() << "no EBCDIC code for '" << c << "' in this test";
  return 0x6F;
}

enum class cs { ascii, ebcdic };

bytes chars(const std::string& s, cs set) {
  bytes out;
  for (char c : s) out.push_back(set == cs::ascii ? static_cast<std::uint8_t>(c) : ebcdic(c));
  return out;
}

bytes cat(std::initializer_list<bytes> parts) {
  bytes out;
  for (const bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

bytes u16(std::uint16_t v, byte_order o) {
  bytes b(2);
  store_u16(b.data(), v, o);
  return b;
}

bytes i32(std::int32_t v, byte_order o) {
  bytes b(4);
  store_i32(b.data(), v, o);
  return b;
}

// An LL and ZZ with any value, and nothing after them.
bytes llzz(std::uint16_t ll, byte_order o, std::uint16_t zz = 0) { return cat({u16(ll, o), u16(zz, o)}); }

// A well-formed segment: LL = 4 + text length.
bytes seg(const std::string& text, byte_order o, cs set, std::uint16_t zz = 0) {
  return cat({llzz(static_cast<std::uint16_t>(4 + text.size()), o, zz), chars(text, set)});
}

bytes filler(std::size_t n, std::uint8_t b = 0x5A) { return bytes(n, b); }

// MQIIH version 1, 84 bytes, laid out as IBM's [C: CMQC-H, IIH-DOC].
struct iih_fields {
  std::string struc_id = "IIH ";
  std::int32_t version = 1;
  std::int32_t struc_length = 84;
  std::string format = "MQIMSVS ";
  std::int32_t flags = 0;
  std::string lterm_override = "LTERM1  ";
  std::string mfs_map_name = "MFSMAP1 ";
  std::string reply_to_format = "MQIMSVS ";
  std::string authenticator = "        ";
  char tran_state = 'C';
  char commit_mode = '1';
  char security_scope = 'F';
  char reserved = ' ';
};

bytes iih(byte_order o, cs set, const iih_fields& f = {}) {
  bytes b =
      cat({chars(f.struc_id, set), i32(f.version, o), i32(f.struc_length, o), i32(0, o), i32(0, o),
           chars(f.format, set), i32(f.flags, o), chars(f.lterm_override, set), chars(f.mfs_map_name, set),
           chars(f.reply_to_format, set), chars(f.authenticator, set), bytes(16, 0x00),
           chars(std::string{f.tran_state, f.commit_mode, f.security_scope, f.reserved}, set)});
  EXPECT_EQ(b.size(), 84u) << "test helper wrote a wrong MQIIH";
  return b;
}

iih_fields with_struc_id(std::string id) {
  iih_fields f;
  f.struc_id = std::move(id);
  return f;
}

struct validator_case {
  std::string name;
  bytes data;
  std::string format;
  std::int32_t encoding = enc_le;
  std::int32_t ccsid = ccsid_ascii;

  // Failure: an MQFB (or an MQRC when mqrc is set), the field and offset, text the detail must hold.
  std::int32_t mqfb = 0;
  std::int32_t mqrc = 0;
  std::string field;
  std::size_t offset = 0;
  std::vector<std::string> detail_has;

  // Success.
  std::vector<std::uint16_t> lls;
  std::size_t iih_length = 0;
  std::string trancode;
  bool is_command = false;
  char commit_mode = '0';
  char tran_state = ' ';
  char security_scope = 'C';
  std::string mfs_map_name;
  std::string lterm_override = "        ";
};

void PrintTo(const validator_case& c, std::ostream* os) {
  *os << c.name << " (" << c.data.size() << " bytes)";
}

// A valid message without MQIIH: IBM's defaults apply [C: BRIDGE-MSGS].
validator_case good_plain(std::string name, bytes data, std::string format, std::int32_t enc,
                          std::int32_t ccsid, std::vector<std::uint16_t> lls, std::string trancode) {
  validator_case c;
  c.name = std::move(name);
  c.data = std::move(data);
  c.format = format;
  c.encoding = enc;
  c.ccsid = ccsid;
  c.lls = std::move(lls);
  c.trancode = std::move(trancode);
  c.mfs_map_name = std::move(format);
  return c;
}

// A valid message with the default iih_fields above.
validator_case good_iih(std::string name, bytes data, std::int32_t enc, std::int32_t ccsid,
                        std::vector<std::uint16_t> lls, std::string trancode) {
  validator_case c;
  c.name = std::move(name);
  c.data = std::move(data);
  c.format = "MQIMS   ";
  c.encoding = enc;
  c.ccsid = ccsid;
  c.lls = std::move(lls);
  c.iih_length = 84;
  c.trancode = std::move(trancode);
  c.commit_mode = '1';
  c.tran_state = 'C';
  c.security_scope = 'F';
  c.mfs_map_name = "MFSMAP1 ";
  c.lterm_override = "LTERM1  ";
  return c;
}

// A valid message with the default iih_fields except `f`, and the effective values `f` gives.
validator_case good_iih_with(std::string name, const iih_fields& f, byte_order o, cs set, std::int32_t enc,
                             std::int32_t ccsid) {
  validator_case c = good_iih(std::move(name), cat({iih(o, set, f), seg("IVTNO   DISPLAY LAST1", o, set)}),
                              enc, ccsid, {25}, "IVTNO   ");
  c.commit_mode = f.commit_mode;
  c.tran_state = f.tran_state;
  return c;
}

validator_case bad(std::string name, bytes data, std::string format, std::int32_t enc, std::int32_t ccsid,
                   std::int32_t mqfb, std::string field, std::size_t offset,
                   std::vector<std::string> detail_has = {}) {
  validator_case c;
  c.name = std::move(name);
  c.data = std::move(data);
  c.format = std::move(format);
  c.encoding = enc;
  c.ccsid = ccsid;
  c.mqfb = mqfb;
  c.field = std::move(field);
  c.offset = offset;
  c.detail_has = std::move(detail_has);
  return c;
}

// An MQRC failure that names an MQMD field (offset 0: the MQMD is not in the data).
validator_case bad_rc(std::string name, bytes data, std::string format, std::int32_t enc, std::int32_t ccsid,
                      std::int32_t mqrc, std::string field, std::vector<std::string> detail_has = {}) {
  validator_case c = bad(std::move(name), std::move(data), std::move(format), enc, ccsid, 0, std::move(field),
                         0, std::move(detail_has));
  c.mqrc = mqrc;
  return c;
}

// A one-character field value as a test-name part: "X", "2", "blank", "nul".
std::string char_name(char c) {
  if (c == ' ') return "blank";
  if (c == '\0') return "nul";
  return std::string(1, c);
}

const std::string vs = "MQIMSVS ";
const std::string ims = "MQIMS   ";
constexpr auto be = byte_order::big;
constexpr auto le = byte_order::little;

std::vector<validator_case> cases() {
  std::vector<validator_case> v;
  const std::string ivt = "IVTNO   DISPLAY LAST1";  // IMS's IVP transaction, trancode padded to 8

  // --- valid messages with an MQIIH: the four byte-order x character-set combinations ---------
  v.push_back(good_iih("iih_le_ascii", cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii)}), enc_le,
                       ccsid_ascii, {25}, "IVTNO   "));
  v.push_back(good_iih("iih_be_ebcdic", cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic)}), enc_be,
                       ccsid_ebcdic, {25}, "IVTNO   "));
  v.push_back(good_iih("iih_be_ascii", cat({iih(be, cs::ascii), seg(ivt, be, cs::ascii)}), enc_be,
                       ccsid_ascii, {25}, "IVTNO   "));
  v.push_back(good_iih("iih_le_ebcdic037", cat({iih(le, cs::ebcdic), seg(ivt, le, cs::ebcdic)}), enc_le,
                       ccsid_ebcdic_037, {25}, "IVTNO   "));
  v.push_back(good_iih("iih_three_segments_be",
                       cat({iih(be, cs::ebcdic), seg("PART    AN960C10", be, cs::ebcdic),
                            seg("LINE 2", be, cs::ebcdic), seg("LINE 3 LAST", be, cs::ebcdic)}),
                       enc_be, ccsid_ebcdic, {20, 10, 15}, "PART    "));
  {
    // An MQIIH whose CommitMode, TranState, SecurityScope are the defaults, and blank names.
    iih_fields f;
    f.commit_mode = '0';
    f.tran_state = ' ';
    f.security_scope = 'C';
    f.mfs_map_name = "        ";
    f.lterm_override = "        ";
    validator_case c =
        good_iih("iih_cm0_check_blank_names", cat({iih(le, cs::ascii, f), seg(ivt, le, cs::ascii)}), enc_le,
                 ccsid_ascii, {25}, "IVTNO   ");
    c.commit_mode = '0';
    c.tran_state = ' ';
    c.security_scope = 'C';
    c.mfs_map_name = "        ";
    c.lterm_override = "        ";
    v.push_back(c);
  }
  {
    // [C: IIH-SECSCOPE]: neither 'C' nor 'F' → MQISS_CHECK is assumed.
    iih_fields f;
    f.security_scope = 'X';
    validator_case c =
        good_iih("iih_security_scope_other_is_check", cat({iih(be, cs::ebcdic, f), seg(ivt, be, cs::ebcdic)}),
                 enc_be, ccsid_ebcdic, {25}, "IVTNO   ");
    c.security_scope = 'C';
    v.push_back(c);
  }
  v.push_back(good_iih("iih_zz_nonzero_passed", cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii, 0x0102)}),
                       enc_le, ccsid_ascii, {25}, "IVTNO   "));

  // --- valid messages without MQIIH: IBM's defaults [C: BRIDGE-MSGS] ------------------------------
  v.push_back(
      good_plain("plain_le_ascii_imsvs", seg(ivt, le, cs::ascii), vs, enc_le, ccsid_ascii, {25}, "IVTNO   "));
  v.push_back(good_plain("plain_be_ebcdic_user_format", seg(ivt, be, cs::ebcdic), "MYMID   ", enc_be,
                         ccsid_ebcdic, {25}, "IVTNO   "));
  v.push_back(good_plain("plain_two_segments",
                         cat({seg("PAYROLL1DATA", be, cs::ebcdic), seg("SECOND", be, cs::ebcdic)}), vs,
                         enc_be, ccsid_ebcdic, {16, 10}, "PAYROLL1"));
  v.push_back(good_plain("plain_format_none", seg(ivt, le, cs::ascii), "        ", enc_le, ccsid_ascii, {25},
                         "IVTNO   "));

  // --- LL boundaries that are valid ----------------------------------------------------------------
  v.push_back(
      good_plain("ll_4_only_segment_empty_text", llzz(4, le), vs, enc_le, ccsid_ascii, {4}, "        "));
  v.push_back(
      good_iih("ll_4_empty_segment_between",
               cat({iih(be, cs::ascii), seg(ivt, be, cs::ascii), llzz(4, be), seg("END", be, cs::ascii)}),
               enc_be, ccsid_ascii, {25, 4, 7}, "IVTNO   "));
  v.push_back(good_plain("ll_32764_largest",
                         cat({llzz(32764, be), chars("BIGTRAN ", cs::ascii), filler(32752)}), vs, enc_be,
                         ccsid_ascii, {32764}, "BIGTRAN "));
  v.push_back(good_plain(
      "ll_32764_twice_le",
      cat({llzz(32764, le), chars("BIGTRAN ", cs::ascii), filler(32752), llzz(32764, le), filler(32760)}), vs,
      enc_le, ccsid_ascii, {32764, 32764}, "BIGTRAN "));

  // --- trancode edge cases -------------------------------------------------------------------------
  // Data shorter than 12 bytes: the trancode is what there is, blank padded.
  v.push_back(good_plain("trancode_short_data_11_bytes", seg("ABCDEFG", le, cs::ascii), vs, enc_le,
                         ccsid_ascii, {11}, "ABCDEFG "));
  v.push_back(good_plain("trancode_short_data_7_bytes_ebcdic", seg("ABC", be, cs::ebcdic), vs, enc_be,
                         ccsid_ebcdic, {7}, "ABC     "));
  // A first segment shorter than 8: the next segment's LLZZ is not part of the trancode.
  v.push_back(good_plain("trancode_ends_with_first_segment",
                         cat({seg("AB", le, cs::ascii), seg("CDEFGHIJ", le, cs::ascii)}), vs, enc_le,
                         ccsid_ascii, {6, 12}, "AB      "));
  // IMS ends a transaction code at a blank [I].
  v.push_back(good_plain("trancode_ends_at_blank", seg("TRAN1 DATA", le, cs::ascii), vs, enc_le, ccsid_ascii,
                         {14}, "TRAN1   "));
  v.push_back(good_plain("trancode_exactly_8_then_data", seg("ABCDEFGHIJKL", le, cs::ascii), vs, enc_le,
                         ccsid_ascii, {16}, "ABCDEFGH"));
  {
    validator_case c =
        good_iih("ims_command_ascii", cat({iih(le, cs::ascii), seg("/DIS TRAN ALL", le, cs::ascii)}), enc_le,
                 ccsid_ascii, {17}, "/DIS    ");
    c.is_command = true;
    v.push_back(c);
  }
  {
    validator_case c = good_plain("ims_command_ebcdic_no_iih", seg("/DIS TRAN ALL", be, cs::ebcdic), vs,
                                  enc_be, ccsid_ebcdic, {17}, "/DIS    ");
    c.is_command = true;
    v.push_back(c);
  }

  // --- every supported CCSID: trancode and '/' read in the MQMD's CCSID [C: IIH-DOC] ---------------
  v.push_back(
      good_plain("plain_be_ebcdic_1047", seg(ivt, be, cs::ebcdic), vs, enc_be, 1047, {25}, "IVTNO   "));
  v.push_back(good_iih("iih_be_ebcdic_1140", cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic)}), enc_be,
                       1140, {25}, "IVTNO   "));
  v.push_back(good_iih("iih_le_utf8_1208", cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii)}), enc_le, 1208,
                       {25}, "IVTNO   "));
  {
    validator_case c = good_plain("ims_command_ebcdic_1047", seg("/DIS TRAN ALL", be, cs::ebcdic), vs, enc_be,
                                  1047, {17}, "/DIS    ");
    c.is_command = true;
    v.push_back(c);
  }
  {
    validator_case c = good_plain("ims_command_utf8_1208", seg("/DIS TRAN ALL", le, cs::ascii), vs, enc_le,
                                  1208, {17}, "/DIS    ");
    c.is_command = true;
    v.push_back(c);
  }

  // --- MQIIH names: "ignored if the first byte is blank or null" [C: IIH-LTERM, IIH-MFS, IIH-AUTH]; a NUL
  // ends an MQCHARn value [C: PUTDATE-DOC] ---------------------------------------------------------------
  for (cs set : {cs::ascii, cs::ebcdic}) {
    const std::string suffix = set == cs::ascii ? "_ascii" : "_ebcdic";
    const byte_order o = set == cs::ascii ? le : be;
    const std::int32_t enc = set == cs::ascii ? enc_le : enc_be;
    const std::int32_t ccsid = set == cs::ascii ? ccsid_ascii : ccsid_ebcdic;
    {
      iih_fields f;
      f.mfs_map_name = std::string(1, '\0') + "MFSMAP1";
      f.lterm_override = std::string(1, '\0') + "LTERM1 ";
      validator_case c = good_iih_with("iih_names_nul_first_ignored" + suffix, f, o, set, enc, ccsid);
      c.mfs_map_name = "        ";
      c.lterm_override = "        ";
      v.push_back(c);
    }
    {
      iih_fields f;
      f.mfs_map_name = std::string("MAP1") + '\0' + "XYZ";
      f.lterm_override = std::string("LT") + '\0' + '\0' + "ABCD";
      validator_case c = good_iih_with("iih_names_nul_ends_value" + suffix, f, o, set, enc, ccsid);
      c.mfs_map_name = "MAP1    ";
      c.lterm_override = "LT      ";
      v.push_back(c);
    }
    {
      iih_fields f;
      f.mfs_map_name = " MFSMAP1";
      f.lterm_override = " LTERM1 ";
      validator_case c = good_iih_with("iih_names_blank_first_ignored" + suffix, f, o, set, enc, ccsid);
      c.mfs_map_name = "        ";
      c.lterm_override = "        ";
      v.push_back(c);
    }
  }

  // --- CommitMode and TranState values that are valid ---------------------------------------------------
  {
    iih_fields f;
    f.tran_state = 'A';  // MQITS_ARCHITECTED [C: CMQC-PY]
    f.commit_mode = '0';
    v.push_back(good_iih_with("iih_tran_state_architected_cm0", f, be, cs::ebcdic, enc_be, ccsid_ebcdic));
  }
  {
    iih_fields f;
    f.tran_state = ' ';
    f.commit_mode = '1';
    v.push_back(good_iih_with("iih_tran_state_blank_cm1", f, le, cs::ascii, enc_le, ccsid_ascii));
  }
  for (cs set : {cs::ascii, cs::ebcdic}) {
    // A TranState left X'00' by the application: an MQCHAR whose value ends at once, i.e. blank [D].
    iih_fields f;
    f.tran_state = '\0';
    validator_case c = good_iih_with(
        set == cs::ascii ? "iih_tran_state_nul_is_blank_ascii" : "iih_tran_state_nul_is_blank_ebcdic", f,
        set == cs::ascii ? le : be, set, set == cs::ascii ? enc_le : enc_be,
        set == cs::ascii ? ccsid_ascii : ccsid_ebcdic);
    c.tran_state = ' ';
    v.push_back(c);
  }

  // --- MQFB_IIH_ERROR (296) ------------------------------------------------------------------------
  {
    bytes truncated = iih(le, cs::ascii);
    truncated.pop_back();
    v.push_back(bad("iih_truncated_83", truncated, ims, enc_le, ccsid_ascii, 296, "MQIIH", 0, {"83"}));
  }
  v.push_back(bad("iih_no_data", {}, ims, enc_le, ccsid_ascii, 296, "MQIIH", 0));
  v.push_back(bad("iih_bad_struc_id",
                  cat({iih(le, cs::ascii, with_struc_id("IIX ")), seg(ivt, le, cs::ascii)}), ims, enc_le,
                  ccsid_ascii, 296, "MQIIH.StrucId", 0));
  v.push_back(bad("iih_struc_id_md",
                  cat({iih(be, cs::ebcdic, with_struc_id("MD  ")), seg(ivt, be, cs::ebcdic)}), ims, enc_be,
                  ccsid_ebcdic, 296, "MQIIH.StrucId", 0));
  {
    iih_fields f;
    f.version = 2;
    v.push_back(bad("iih_version_2", cat({iih(be, cs::ebcdic, f), seg(ivt, be, cs::ebcdic)}), ims, enc_be,
                    ccsid_ebcdic, 296, "MQIIH.Version", 4));
  }
  {
    iih_fields f;
    f.struc_length = 88;
    v.push_back(bad("iih_struc_length_88", cat({iih(le, cs::ascii, f), seg(ivt, le, cs::ascii)}), ims, enc_le,
                    ccsid_ascii, 296, "MQIIH.StrucLength", 8));
  }
  // MQIIH integers big-endian while MQMD.Encoding says little-endian: Version reads as 0x01000000.
  v.push_back(bad("iih_byte_order_differs_from_mqmd", cat({iih(be, cs::ascii), seg(ivt, le, cs::ascii)}), ims,
                  enc_le, ccsid_ascii, 296, "MQIIH.Version", 4));
  // Format MQIMS on a message that has no MQIIH.
  v.push_back(bad("iih_missing_format_says_mqims", cat({seg(ivt, le, cs::ascii), filler(80)}), ims, enc_le,
                  ccsid_ascii, 296, "MQIIH.StrucId", 0));

  // An MQIIH in the other character family than the MQMD's CCSID was not converted to the CCSID the
  // MQMD names [C: IIH-DOC]; the bridge cannot interpret it [D].
  v.push_back(bad("iih_ascii_under_ebcdic_ccsid_500", cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii)}), ims,
                  enc_le, ccsid_ebcdic, 296, "MQIIH.StrucId", 0, {"500"}));
  v.push_back(bad("iih_ebcdic_under_ascii_ccsid_819", cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic)}),
                  ims, enc_be, ccsid_ascii, 296, "MQIIH.StrucId", 0, {"819"}));
  v.push_back(bad("iih_ebcdic_under_utf8_ccsid_1208", cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic)}),
                  ims, enc_be, 1208, 296, "MQIIH.StrucId", 0));
  // CommitMode '0' / '1' and TranState ' ' / 'C' / 'A' only ([C: CMQC-PY] values; the error is [D]).
  for (char cm : {'X', '2', ' ', '\0'}) {
    iih_fields f;
    f.commit_mode = cm;
    v.push_back(bad("iih_commit_mode_" + char_name(cm),
                    cat({iih(be, cs::ebcdic, f), seg(ivt, be, cs::ebcdic)}), ims, enc_be, ccsid_ebcdic, 296,
                    "MQIIH.CommitMode", 81));
  }
  for (char ts : {'Q', 'c', '0'}) {
    iih_fields f;
    f.tran_state = ts;
    v.push_back(bad("iih_tran_state_" + char_name(ts), cat({iih(le, cs::ascii, f), seg(ivt, le, cs::ascii)}),
                    ims, enc_le, ccsid_ascii, 296, "MQIIH.TranState", 80));
  }
  {
    // Both wrong: the first field in layout order is named.
    iih_fields f;
    f.tran_state = 'Q';
    f.commit_mode = 'X';
    v.push_back(bad("iih_tran_state_and_commit_mode_bad",
                    cat({iih(le, cs::ascii, f), seg(ivt, le, cs::ascii)}), ims, enc_le, ccsid_ascii, 296,
                    "MQIIH.TranState", 80));
  }

  // --- MQRC_NOT_CONVERTED (2119): a CCSID the bridge cannot read ----------------------------------------
  // MQCCSI_Q_MGR (0) must have been resolved by the caller; 1252, 437, 1141 are not supported.
  v.push_back(bad_rc("ccsid_0_q_mgr_unresolved", seg(ivt, le, cs::ascii), vs, enc_le, 0, 2119,
                     "MQMD.CodedCharSetId", {"0"}));
  v.push_back(bad_rc("ccsid_1252", cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii)}), ims, enc_le, 1252,
                     2119, "MQMD.CodedCharSetId", {"1252"}));
  v.push_back(bad_rc("ccsid_437", seg("/DIS TRAN ALL", le, cs::ascii), vs, enc_le, 437, 2119,
                     "MQMD.CodedCharSetId", {"437"}));
  v.push_back(bad_rc("ccsid_1141", cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic)}), ims, enc_be, 1141,
                     2119, "MQMD.CodedCharSetId", {"1141"}));
  v.push_back(bad_rc("ccsid_inherit_minus_2", seg(ivt, be, cs::ebcdic), vs, enc_be, -2, 2119,
                     "MQMD.CodedCharSetId", {"-2"}));
  // Checked before the MQIIH and the segments: nothing character can be read [D].
  v.push_back(bad_rc("ccsid_0_before_iih_error", bytes{}, ims, enc_be, 0, 2119, "MQMD.CodedCharSetId"));

  // --- MQFB_DATA_LENGTH_ZERO (291) ------------------------------------------------------------------
  v.push_back(bad("iih_only_no_segment", iih(le, cs::ascii), ims, enc_le, ccsid_ascii, 291, "LLZZ[1].LL", 84,
                  {"no LLZZ segment"}));
  v.push_back(
      bad("empty_data_no_iih", {}, vs, enc_le, ccsid_ascii, 291, "LLZZ[1].LL", 0, {"no LLZZ segment"}));
  v.push_back(bad("ll_zero_first", cat({llzz(0, be), chars("IVTNO   ", cs::ebcdic)}), vs, enc_be,
                  ccsid_ebcdic, 291, "LLZZ[1].LL", 0, {"segment 1", "LL 0"}));
  v.push_back(bad("ll_zero_second_after_iih",
                  cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic), llzz(0, be), filler(4)}), ims, enc_be,
                  ccsid_ebcdic, 291, "LLZZ[2].LL", 109, {"segment 2", "LL 0"}));

  // --- MQFB_DATA_LENGTH_NEGATIVE (292) --------------------------------------------------------------
  v.push_back(bad("ll_minus_1", cat({llzz(0xFFFF, le), filler(8)}), vs, enc_le, ccsid_ascii, 292,
                  "LLZZ[1].LL", 0, {"LL -1"}));
  v.push_back(bad("ll_minus_32768", cat({seg(ivt, be, cs::ascii), llzz(0x8000, be), filler(8)}), vs, enc_be,
                  ccsid_ascii, 292, "LLZZ[2].LL", 25, {"segment 2", "LL -32768"}));
  v.push_back(bad("ll_negative_after_iih_le", cat({iih(le, cs::ascii), llzz(0xFFF0, le), filler(8)}), ims,
                  enc_le, ccsid_ascii, 292, "LLZZ[1].LL", 84, {"LL -16"}));

  // --- MQFB_DATA_LENGTH_TOO_BIG (293) ---------------------------------------------------------------
  v.push_back(bad("ll_32765_one_over_max", cat({llzz(32765, be), filler(32761)}), vs, enc_be, ccsid_ascii,
                  293, "LLZZ[1].LL", 0, {"LL 32765", "32764"}));
  v.push_back(bad("ll_32767_and_short_data",
                  cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii), llzz(32767, le)}), ims, enc_le,
                  ccsid_ascii, 293, "LLZZ[2].LL", 109, {"LL 32767"}));

  // --- MQFB_BUFFER_OVERFLOW (294) -------------------------------------------------------------------
  v.push_back(
      bad("ll_1", cat({llzz(1, le), filler(4)}), vs, enc_le, ccsid_ascii, 294, "LLZZ[1].LL", 0, {"LL 1"}));
  v.push_back(
      bad("ll_2", cat({llzz(2, be), filler(4)}), vs, enc_be, ccsid_ascii, 294, "LLZZ[1].LL", 0, {"LL 2"}));
  v.push_back(bad("ll_3_second_segment", cat({seg("TRAN", le, cs::ascii), llzz(3, le), filler(3)}), vs,
                  enc_le, ccsid_ascii, 294, "LLZZ[2].LL", 8, {"LL 3"}));
  v.push_back(bad("sum_one_byte_long", cat({llzz(26, le), chars(ivt, cs::ascii)}), vs, enc_le, ccsid_ascii,
                  294, "LLZZ[1].LL", 0, {"LL 26", "runs 1 byte"}));
  v.push_back(
      bad("sum_one_byte_long_last_of_two_iih",
          cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic), llzz(9, be), chars("ABCD", cs::ebcdic)}), ims,
          enc_be, ccsid_ebcdic, 294, "LLZZ[2].LL", 109, {"LL 9", "runs 1 byte"}));
  v.push_back(bad("sum_two_short", cat({seg(ivt, le, cs::ascii), filler(2)}), vs, enc_le, ccsid_ascii, 294,
                  "LLZZ[2].LL", 25, {"2 byte(s) left"}));
  v.push_back(bad("sum_two_short_tail_reads_as_zero", cat({seg(ivt, be, cs::ascii), filler(2, 0x00)}), vs,
                  enc_be, ccsid_ascii, 294, "LLZZ[2].LL", 25, {"2 byte(s) left", "LL 0"}));
  v.push_back(bad("sum_three_short_iih", cat({iih(le, cs::ascii), seg(ivt, le, cs::ascii), filler(3)}), ims,
                  enc_le, ccsid_ascii, 294, "LLZZ[2].LL", 109, {"3 byte(s) left"}));
  // The LLs written big-endian but MQMD.Encoding says little: X'0019' reads as 6400.
  v.push_back(bad("ll_byte_order_differs_from_mqmd", seg(ivt, be, cs::ascii), vs, enc_le, ccsid_ascii, 294,
                  "LLZZ[1].LL", 0, {"LL 6400"}));

  // --- MQFB_LENGTH_OFF_BY_ONE (295) -----------------------------------------------------------------
  v.push_back(bad("sum_one_byte_short", cat({llzz(24, le), chars(ivt, cs::ascii)}), vs, enc_le, ccsid_ascii,
                  295, "LLZZ[2].LL", 24, {"1 byte(s) left"}));
  v.push_back(bad("sum_one_byte_short_iih_be",
                  cat({iih(be, cs::ebcdic), seg(ivt, be, cs::ebcdic), seg("X", be, cs::ebcdic), filler(1)}),
                  ims, enc_be, ccsid_ebcdic, 295, "LLZZ[3].LL", 114, {"1 byte(s) left"}));

  // --- an encoding whose integers cannot be read -----------------------------------------------------
  {
    validator_case c =
        bad("encoding_integer_undefined", seg(ivt, le, cs::ascii), vs, 0, ccsid_ascii, 0, "MQMD.Encoding", 0);
    c.mqrc = 2110;
    v.push_back(c);
  }
  return v;
}

class bridge_validator_table : public ::testing::TestWithParam<validator_case> {};

TEST_P(bridge_validator_table, validates_as_the_spec_says) {
  const validator_case& c = GetParam();
  result<bridge_request> r = validate_bridge_message(c.data, c.format, c.encoding, c.ccsid);

  if (c.mqfb != 0 || c.mqrc != 0) {
    ASSERT_FALSE(r.ok()) << "expected an error, got " << (r ? r->segments.size() : 0) << " segments";
    const decode_error& e = r.error();
    EXPECT_EQ(e.code, c.mqfb != 0 ? make_mqfb(c.mqfb) : make_mqrc(c.mqrc)) << e.to_string();
    EXPECT_EQ(e.field, c.field) << e.to_string();
    EXPECT_EQ(e.offset, c.offset) << e.to_string();
    EXPECT_FALSE(e.detail.empty());
    for (const std::string& s : c.detail_has) EXPECT_NE(e.detail.find(s), std::string::npos) << e.to_string();
    // Segment errors name the segment number and offset in the detail too.
    if (c.field.rfind("LLZZ[", 0) == 0) {
      const std::string number = c.field.substr(5, c.field.find(']') - 5);
      EXPECT_NE(e.detail.find("segment " + number + " at offset " + std::to_string(c.offset)),
                std::string::npos)
          << e.to_string();
    }
    return;
  }

  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const bridge_request& q = *r;
  EXPECT_EQ(q.iih_length, c.iih_length);
  EXPECT_EQ(q.iih.has_value(), c.iih_length != 0);
  ASSERT_EQ(q.segments.size(), c.lls.size());
  std::size_t offset = c.iih_length;
  for (std::size_t i = 0; i < q.segments.size(); ++i) {
    const llzz_segment& s = q.segments[i];
    EXPECT_EQ(s.ll, c.lls[i]) << "segment " << i + 1;
    EXPECT_EQ(s.offset, offset) << "segment " << i + 1;
    EXPECT_EQ(s.text.size(), std::size_t{s.ll} - 4) << "segment " << i + 1;
    EXPECT_EQ(s.text.data(), c.data.data() + offset + 4) << "segment " << i + 1;
    offset += s.ll;
  }
  EXPECT_EQ(offset, c.data.size()) << "sum of LL + MQIIH length must be the message length";
  EXPECT_EQ(q.trancode, c.trancode);
  EXPECT_EQ(q.is_command, c.is_command);
  EXPECT_EQ(q.commit_mode, c.commit_mode);
  EXPECT_EQ(q.tran_state, c.tran_state);
  EXPECT_EQ(q.security_scope, c.security_scope);
  EXPECT_EQ(q.mfs_map_name, c.mfs_map_name);
  EXPECT_EQ(q.lterm_override, c.lterm_override);
}

INSTANTIATE_TEST_SUITE_P(messages, bridge_validator_table, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<validator_case>& row) { return row.param.name; });

TEST(bridge_validator, table_covers_every_feedback_code) {
  std::vector<int> seen(7, 0);
  std::size_t valid = 0;
  for (const validator_case& c : cases()) {
    if (c.mqfb >= 291 && c.mqfb <= 296) ++seen[static_cast<std::size_t>(c.mqfb - 290)];
    if (c.mqfb == 0 && c.mqrc == 0) ++valid;
  }
  for (int fb = 291; fb <= 296; ++fb) EXPECT_GE(seen[static_cast<std::size_t>(fb - 290)], 2) << "MQFB " << fb;
  EXPECT_GE(valid, 10u);
  EXPECT_GE(cases().size(), 30u);
}

TEST(bridge_validator, iih_fields_are_kept) {
  iih_fields f;
  f.format = "MQIMSVS ";
  f.reply_to_format = "MQSTR   ";
  bytes msg = cat({iih(be, cs::ebcdic, f), seg("IVTNO   X", be, cs::ebcdic)});
  result<bridge_request> r = validate_bridge_message(msg, "MQIMS   ", enc_be, ccsid_ebcdic);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->iih.has_value());
  EXPECT_EQ(r->iih->format, "MQIMSVS ");
  EXPECT_EQ(r->iih->reply_to_format, "MQSTR   ");
  EXPECT_EQ(r->iih->commit_mode, '1');
}

TEST(bridge_validator, nul_ended_format_matches_mqims) {
  bytes msg = cat({iih(le, cs::ascii), seg("IVTNO", le, cs::ascii)});
  result<bridge_request> r =
      validate_bridge_message(msg, std::string_view("MQIMS\0\0\0", 8), enc_le, ccsid_ascii);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->iih_length, 84u);
  // Without MQIIH a NUL-ended Format becomes a blank-padded MFS map name (MQCHAR8 semantics).
  r = validate_bridge_message(seg("IVTNO", le, cs::ascii), std::string_view("MID1\0\0\0\0", 8), enc_le,
                              ccsid_ascii);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->mfs_map_name, "MID1    ");
}

TEST(bridge_validator, error_text_names_segment_offset_and_ll) {
  bytes msg = cat({seg("TRAN", be, cs::ascii), seg("AB", be, cs::ascii), llzz(0xFFFE, be)});
  result<bridge_request> r = validate_bridge_message(msg, "MQIMSVS ", enc_be, ccsid_ascii);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code.value(), 292);
  EXPECT_EQ(r.error().code.category().name(), std::string("mqfb"));
  const std::string text = r.error().to_string();
  EXPECT_NE(text.find("LLZZ[3].LL"), std::string::npos) << text;
  EXPECT_NE(text.find("14"), std::string::npos) << text;
  EXPECT_NE(text.find("LL -2"), std::string::npos) << text;
}

// Random well-formed chains in both byte orders validate, and moving the last LL by one either way
// gives 295 (one short) or 294 (one long), as docs/design/errors.md orders the checks.
TEST(bridge_validator, random_chains_and_last_ll_off_by_one) {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 300; ++round) {
    const byte_order o = round % 2 == 0 ? be : le;
    const std::int32_t enc = o == be ? enc_be : enc_le;
    const bool with_iih = round % 3 == 0;
    bytes msg = with_iih ? iih(o, cs::ascii) : bytes{};
    std::vector<std::uint16_t> lls;
    const int n = 1 + static_cast<int>(rng() % 6);
    std::size_t last = 0;
    for (int i = 0; i < n; ++i) {
      const auto ll = static_cast<std::uint16_t>(4 + rng() % (i == 0 ? 300 : 3000));
      lls.push_back(ll);
      last = msg.size();
      bytes s = cat({llzz(ll, o), filler(ll - 4u, static_cast<std::uint8_t>('A' + i))});
      msg.insert(msg.end(), s.begin(), s.end());
    }
    result<bridge_request> r =
        validate_bridge_message(msg, with_iih ? "MQIMS   " : "MQIMSVS ", enc, ccsid_ascii);
    ASSERT_TRUE(r.ok()) << "round " << round << ": " << r.error().to_string();
    ASSERT_EQ(r->segments.size(), lls.size());
    for (std::size_t i = 0; i < lls.size(); ++i) EXPECT_EQ(r->segments[i].ll, lls[i]);

    bytes shorter = msg;
    store_u16(shorter.data() + last, static_cast<std::uint16_t>(lls.back() - 1), o);
    bytes longer = msg;
    store_u16(longer.data() + last, static_cast<std::uint16_t>(lls.back() + 1), o);
    const char* fmt = with_iih ? "MQIMS   " : "MQIMSVS ";
    result<bridge_request> rs = validate_bridge_message(shorter, fmt, enc, ccsid_ascii);
    result<bridge_request> rl = validate_bridge_message(longer, fmt, enc, ccsid_ascii);
    if (lls.back() == 4) {
      EXPECT_EQ(rs.error().code, make_mqfb(294)) << "LL 3: shorter than its LLZZ";
    } else {
      ASSERT_FALSE(rs.ok());
      EXPECT_EQ(rs.error().code, make_mqfb(295)) << rs.error().to_string();
    }
    ASSERT_FALSE(rl.ok());
    EXPECT_EQ(rl.error().code, make_mqfb(294)) << rl.error().to_string();
    EXPECT_EQ(rl.error().offset, last);
  }
}

TEST(bridge_validator, walk_llzz_segments_from_an_offset) {
  bytes msg = cat({filler(10), seg("AB", le, cs::ascii), llzz(4, le)});
  result<std::vector<llzz_segment>> r = walk_llzz_segments(msg, 10, enc_le);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].offset, 10u);
  EXPECT_EQ((*r)[1].offset, 16u);
  EXPECT_TRUE((*r)[1].text.empty());
  result<std::vector<llzz_segment>> past = walk_llzz_segments(msg, msg.size() + 5, enc_le);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().code, make_mqfb(291));
}

}  // namespace
}  // namespace imsb::mq
