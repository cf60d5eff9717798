#include "imsb/dump/mq_fields.hpp"

#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::dump {
namespace {

using namespace imsb::mq;

std::string join(const std::vector<std::string>& parts, std::string_view sep = " + ") {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// A group of report options where the "with data" variants include the plain bit [C: CMQC-PY].
void report_group(std::uint32_t& bits, std::uint32_t full, std::uint32_t with_data, std::uint32_t plain,
                  std::string_view name, std::vector<std::string>& out) {
  std::uint32_t v = bits & full;
  if (v == full)
    out.push_back(std::string(name) + "_WITH_FULL_DATA");
  else if (v == with_data)
    out.push_back(std::string(name) + "_WITH_DATA");
  else if (v == plain)
    out.push_back(std::string(name));
  else
    return;  // no bit, or a combination that is no option: left for the unknown-bits part
  bits &= ~full;
}

void flag_bits(std::uint32_t& bits, std::uint32_t bit, std::string_view name, std::vector<std::string>& out) {
  if ((bits & bit) == bit && bit != 0) {
    out.emplace_back(name);
    bits &= ~bit;
  }
}

bool all_zero(bytes_view b) {
  for (auto c : b)
    if (c != 0) return false;
  return true;
}

bool blank_or_empty(std::string_view text_819) { return codepage::field_value(text_819).empty(); }

// The CCSID the character fields of a header are really in: its StrucId's family wins, as in the
// typed decoders [C: WIRESHARK].
std::int32_t chars_ccsid(bytes_view struc_id, std::int32_t ccsid) {
  bool ebcdic_id = !struc_id.empty() && struc_id[0] >= 0xC0;
  bool ebcdic_ccsid = codepage::is_ebcdic(ccsid);
  if (ebcdic_id == ebcdic_ccsid && codepage::supported(ccsid)) return ccsid;
  return ebcdic_id ? codepage::ccsid_037 : codepage::ccsid_819;
}

// "as text: 'AMQ QM1 ...'" for binary fields that hold printable characters (MsgId of a
// distributed queue manager), so people can read them as amqsbcg shows them.
std::string bytes_as_text(bytes_view b, std::int32_t ccsid) {
  std::string text = display_text(b, ccsid);
  std::size_t dots = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (display_char(b[i], ccsid) == ".") ++dots;
  }
  if (dots * 4 > b.size()) return {};  // mostly binary: the hex says it better
  return "as text: '" + text + "'";
}

std::string put_date_meaning(std::string_view v) {
  if (v.size() != 8 || v.find_first_not_of("0123456789") != std::string_view::npos) return {};
  return std::string(v.substr(0, 4)) + "-" + std::string(v.substr(4, 2)) + "-" + std::string(v.substr(6, 2)) +
         " (GMT)";
}

std::string put_time_meaning(std::string_view v) {
  if (v.size() != 8 || v.find_first_not_of("0123456789") != std::string_view::npos) return {};
  return std::string(v.substr(0, 2)) + ":" + std::string(v.substr(2, 2)) + ":" + std::string(v.substr(4, 2)) +
         "." + std::string(v.substr(6, 2)) + " GMT";
}

bool is_flag_field(std::string_view struc, std::string_view name) {
  return name == "Report" || name == "MsgFlags" || (struc == "MQIIH" && name == "Flags");
}

std::string number_value(std::string_view struc, std::string_view name, std::int32_t n) {
  auto u = static_cast<std::uint32_t>(n);
  if (is_flag_field(struc, name)) return hex32(u);
  // Encodings are bit fields; feedback and reason codes are often quoted in hex (X'126').
  if (name == "Encoding" || name == "Feedback" || name == "Reason")
    return std::to_string(n) + " (" + hex32(u) + ")";
  return std::to_string(n);
}

}  // namespace

std::string describe_report(std::int32_t report) {
  if (report == MQRO_NONE)
    return "MQRO_NONE: no reports; a reply or report gets a new MsgId and the request's MsgId as its "
           "CorrelId; an undeliverable message goes to the dead-letter queue";
  auto bits = static_cast<std::uint32_t>(report);
  std::vector<std::string> parts;
  report_group(bits, 0x07000000u, 0x03000000u, 0x01000000u, "MQRO_EXCEPTION", parts);
  report_group(bits, 0x00E00000u, 0x00600000u, 0x00200000u, "MQRO_EXPIRATION", parts);
  report_group(bits, 0x00000700u, 0x00000300u, 0x00000100u, "MQRO_COA", parts);
  report_group(bits, 0x00003800u, 0x00001800u, 0x00000800u, "MQRO_COD", parts);
  flag_bits(bits, MQRO_PAN, "MQRO_PAN", parts);
  flag_bits(bits, MQRO_NAN, "MQRO_NAN", parts);
  flag_bits(bits, MQRO_ACTIVITY, "MQRO_ACTIVITY", parts);
  flag_bits(bits, MQRO_PASS_MSG_ID, "MQRO_PASS_MSG_ID", parts);
  flag_bits(bits, MQRO_PASS_CORREL_ID, "MQRO_PASS_CORREL_ID", parts);
  flag_bits(bits, MQRO_PASS_DISCARD_AND_EXPIRY, "MQRO_PASS_DISCARD_AND_EXPIRY", parts);
  flag_bits(bits, MQRO_DISCARD_MSG, "MQRO_DISCARD_MSG", parts);
  if (bits != 0) parts.push_back("unknown options " + hex32(bits));
  return join(parts);
}

std::string describe_msg_type(std::int32_t t) {
  switch (t) {
    case MQMT_REQUEST:
      return "MQMT_REQUEST: a reply is expected on ReplyToQ";
    case MQMT_REPLY:
      return "MQMT_REPLY";
    case MQMT_REPORT:
      return "MQMT_REPORT: Feedback says what it reports";
    case MQMT_DATAGRAM:
      return "MQMT_DATAGRAM: no reply expected";
    default:
      break;
  }
  if (t >= MQMT_APPL_FIRST && t <= MQMT_APPL_LAST) return "application-defined message type";
  if (t >= MQMT_SYSTEM_FIRST && t <= MQMT_SYSTEM_LAST) return "unknown system message type";
  return "not a valid message type";
}

std::string describe_expiry(std::int32_t e) {
  if (e == MQEI_UNLIMITED) return "MQEI_UNLIMITED: never expires";
  if (e < 0) return "not valid (negative)";
  return std::to_string(e / 10) + "." + std::to_string(e % 10) + " seconds left (tenths of a second)";
}

std::string describe_persistence(std::int32_t p) {
  switch (p) {
    case MQPER_NOT_PERSISTENT:
      return "MQPER_NOT_PERSISTENT";
    case MQPER_PERSISTENT:
      return "MQPER_PERSISTENT: survives a queue-manager restart";
    case MQPER_PERSISTENCE_AS_Q_DEF:
      return "MQPER_PERSISTENCE_AS_Q_DEF: the queue's DEFPSIST";
    default:
      return "not a valid persistence";
  }
}

std::string describe_priority(std::int32_t p) {
  if (p == MQPRI_PRIORITY_AS_Q_DEF) return "MQPRI_PRIORITY_AS_Q_DEF: the queue's DEFPRTY";
  if (p >= 0 && p <= 9) return {};
  return "not a valid priority (0..9)";
}

std::string describe_encoding(std::int32_t e) {
  std::vector<std::string> parts;
  switch (e & MQENC_INTEGER_MASK) {
    case MQENC_INTEGER_NORMAL:
      parts.emplace_back("integers big-endian (MQENC_INTEGER_NORMAL)");
      break;
    case MQENC_INTEGER_REVERSED:
      parts.emplace_back("integers little-endian (MQENC_INTEGER_REVERSED)");
      break;
    case MQENC_INTEGER_UNDEFINED:
      parts.emplace_back("integer byte order undefined");
      break;
    default:
      parts.emplace_back("integer byte order not valid");
      break;
  }
  switch (e & MQENC_DECIMAL_MASK) {
    case MQENC_DECIMAL_NORMAL:
      parts.emplace_back("decimal normal");
      break;
    case MQENC_DECIMAL_REVERSED:
      parts.emplace_back("decimal reversed");
      break;
    case MQENC_DECIMAL_UNDEFINED:
      break;
    default:
      parts.emplace_back("decimal not valid");
      break;
  }
  switch (e & MQENC_FLOAT_MASK) {
    case MQENC_FLOAT_IEEE_NORMAL:
      parts.emplace_back("float IEEE normal");
      break;
    case MQENC_FLOAT_IEEE_REVERSED:
      parts.emplace_back("float IEEE reversed");
      break;
    case MQENC_FLOAT_S390:
      parts.emplace_back("float S/390");
      break;
    case MQENC_FLOAT_TNS:
      parts.emplace_back("float TNS");
      break;
    case MQENC_FLOAT_UNDEFINED:
      break;
    default:
      parts.emplace_back("float not valid");
      break;
  }
  std::string out = join(parts, ", ");
  if (e == MQENC_NATIVE_ZOS)
    out += " (native on z/OS)";
  else if (e == MQENC_NATIVE_LINUX_X86)
    out += " (native on Linux x86-64 and Windows)";
  else if (e == MQENC_S390_LINUX)
    out += " (native on Linux on s390x, AIX, IBM i)";
  auto other = static_cast<std::uint32_t>(e) & ~0x00000FFFu;
  if (other != 0) out += "; unknown bits " + hex32(other);
  return out;
}

std::string describe_ccsid(std::int32_t c) {
  switch (c) {
    case MQCCSI_Q_MGR:
      return "MQCCSI_Q_MGR: the queue manager's CCSID";
    case MQCCSI_EMBEDDED:
      return "MQCCSI_EMBEDDED";
    case MQCCSI_INHERIT:
      return "MQCCSI_INHERIT: the CCSID of the header before";
    case MQCCSI_APPL:
      return "MQCCSI_APPL";
    case 37:
      return "EBCDIC US/Canada (IBM-037)";
    case 500:
      return "EBCDIC International (IBM-500)";
    case 1047:
      return "EBCDIC Latin-1 open systems (IBM-1047)";
    case 1140:
      return "EBCDIC US/Canada with euro (IBM-1140)";
    case 819:
      return "ISO 8859-1 (ASCII)";
    case 1208:
      return "UTF-8";
    case 437:
      return "PC US (IBM-437)";
    case 850:
      return "PC Latin-1 (IBM-850)";
    case 1252:
      return "Windows Latin-1";
    case 1200:
      return "UTF-16";
    default:
      if (display_ccsid(c) != c) return "EBCDIC, not converted by mqdump: text is shown as CCSID 037";
      return "a CCSID mqdump cannot show: text is shown as ISO 8859-1";
  }
}

std::string describe_format(std::string_view format_819, format_field where) {
  std::string_view v = codepage::field_value(format_819);
  struct known {
    std::string_view value;
    std::string_view constant;
    std::string_view data;  // what the format says the data is
  };
  static constexpr known formats[] = {
      {"MQIMS", "MQFMT_IMS", "an MQIIH follows"},
      {"MQIMSVS", "MQFMT_IMS_VAR_STRING", "LLZZ segments of character data follow"},
      {"MQSTR", "MQFMT_STRING", "character data follows"},
      {"MQDEAD", "MQFMT_DEAD_LETTER_HEADER", "an MQDLH follows"},
      {"MQXMIT", "MQFMT_XMIT_Q_HEADER", "an MQXQH follows"},
      {"MQHMDE", "MQFMT_MD_EXTENSION", "an MQMDE follows"},
      {"MQCICS", "MQFMT_CICS", "an MQCIH follows (CICS bridge)"},
      {"MQADMIN", "MQFMT_ADMIN", "a PCF command"},
      {"MQPCF", "MQFMT_PCF", "PCF data"},
      {"MQEVENT", "MQFMT_EVENT", "an event message"},
      {"MQHRF2", "MQFMT_RF_HEADER_2", "an MQRFH2 follows"},
  };
  const bool reply = where == format_field::iih_reply_to_format;
  // "the reply's MQIIH ... Format: input MQIIH.ReplyToFormat if not blank, otherwise IOPCB.MODNAME"
  // [C: REPLY-IIH].
  if (v.empty())
    return reply ? "MQFMT_NONE: the reply's MQIIH carries the MOD name of the IMS output as its Format"
                 : "MQFMT_NONE: no format name";
  for (const auto& k : formats) {
    if (k.value != v) continue;
    if (reply)
      return std::string(k.constant) + ": the Format the reply's MQIIH will carry (" + std::string(k.data) +
             ")";
    return std::string(k.constant) + ": " + std::string(k.data);
  }
  switch (where) {
    case format_field::iih_format:
      // [C: IIH-FORMAT]: "the MQ format name of the data that follows the MQIIH".
      return "a user format name: the format of the data after the MQIIH (the MFS map name is "
             "MQIIH.MFSMapName)";
    case format_field::iih_reply_to_format:
      return "a user format name: the Format the reply's MQIIH will carry";
    case format_field::message:
      break;
  }
  // [C: BRIDGE-MSGS]: without an MQIIH, MQMD.Format is the MFSMapName on input.
  return "a user format name (on a bridge queue without MQIIH: LLZZ segments, and the name is the MFS map "
         "name)";
}

std::string describe_put_appl_type(std::int32_t t) {
  switch (t) {
    case MQAT_NO_CONTEXT:
      return "MQAT_NO_CONTEXT";
    case MQAT_CICS:
      return "MQAT_CICS";
    case MQAT_ZOS:
      return "MQAT_ZOS (MQAT_MVS)";
    case MQAT_IMS:
      return "MQAT_IMS";
    case MQAT_UNIX:
      return "MQAT_UNIX (the default on Linux)";
    case MQAT_QMGR:
      return "MQAT_QMGR: put by the queue manager";
    case MQAT_WINDOWS_NT:
      return "MQAT_WINDOWS_NT";
    case MQAT_IMS_BRIDGE:
      return "MQAT_IMS_BRIDGE: put by the MQ-IMS bridge";
    case MQAT_XCF:
      return "MQAT_XCF";
    case MQAT_CICS_BRIDGE:
      return "MQAT_CICS_BRIDGE";
    default:
      break;
  }
  if (t >= MQAT_USER_FIRST) return "user-defined application type";
  return "application type " + std::to_string(t);
}

std::string describe_msg_flags(std::int32_t f) {
  if (f == MQMF_NONE) return "MQMF_NONE";
  auto bits = static_cast<std::uint32_t>(f);
  std::vector<std::string> parts;
  flag_bits(bits, MQMF_SEGMENTATION_ALLOWED, "MQMF_SEGMENTATION_ALLOWED", parts);
  flag_bits(bits, MQMF_SEGMENT, "MQMF_SEGMENT", parts);
  flag_bits(bits, MQMF_LAST_SEGMENT, "MQMF_LAST_SEGMENT", parts);
  flag_bits(bits, MQMF_MSG_IN_GROUP, "MQMF_MSG_IN_GROUP", parts);
  flag_bits(bits, MQMF_LAST_MSG_IN_GROUP, "MQMF_LAST_MSG_IN_GROUP", parts);
  if (bits != 0) parts.push_back("unknown flags " + hex32(bits));
  return join(parts);
}

std::string describe_iih_flags(std::int32_t f) {
  if (f == MQIIH_NONE) return "MQIIH_NONE: reply expiry unlimited";
  auto bits = static_cast<std::uint32_t>(f);
  std::vector<std::string> parts;
  flag_bits(bits, MQIIH_PASS_EXPIRATION, "MQIIH_PASS_EXPIRATION", parts);
  flag_bits(bits, MQIIH_REPLY_FORMAT_NONE, "MQIIH_REPLY_FORMAT_NONE", parts);
  flag_bits(bits, MQIIH_IGNORE_PURG, "MQIIH_IGNORE_PURG", parts);
  flag_bits(bits, MQIIH_CM0_REQUEST_RESPONSE, "MQIIH_CM0_REQUEST_RESPONSE", parts);
  // Undefined bits are ignored by the bridge [D]; IBM defines only the flags above [C: IIH-FLAGS].
  if (bits != 0) parts.push_back("undefined flags " + hex32(bits) + " (ignored)");
  return join(parts);
}

std::string describe_tran_state(char c) {
  switch (c) {
    case MQITS_IN_CONVERSATION:
      return "MQITS_IN_CONVERSATION";
    case MQITS_NOT_IN_CONVERSATION:
      return "MQITS_NOT_IN_CONVERSATION";
    case MQITS_ARCHITECTED:
      return "MQITS_ARCHITECTED: /DISPLAY TRAN output in architected form";
    default:
      return "not a valid TranState";
  }
}

std::string describe_commit_mode(char c) {
  switch (c) {
    case MQICM_COMMIT_THEN_SEND:
      return "MQICM_COMMIT_THEN_SEND: commit mode 0 (CM0)";
    case MQICM_SEND_THEN_COMMIT:
      return "MQICM_SEND_THEN_COMMIT: commit mode 1 (CM1)";
    default:
      return "not a valid CommitMode";
  }
}

std::string describe_security_scope(char c) {
  switch (c) {
    case MQISS_CHECK:
      return "MQISS_CHECK";
    case MQISS_FULL:
      return "MQISS_FULL";
    // [C: IIH-SECSCOPE]: "If neither ... is specified ..., MQISS_CHECK is assumed".
    default:
      return "neither C nor F: MQISS_CHECK is assumed";
  }
}

std::string field_meaning(std::string_view struc, const field_value& f, std::int32_t ccsid) {
  std::string_view name = f.desc->name;
  const std::int32_t n = f.number;
  const std::string& t = f.text;
  if (name == "StrucId") {
    bool ebcdic = !f.raw.empty() && f.raw[0] >= 0xC0;
    return ebcdic ? "EBCDIC" : "ASCII";
  }
  if (name == "Version") {
    if (struc == "MQMD") {
      if (n == 1) return "MQMD_VERSION_1 (324 bytes)";
      if (n == 2) return "MQMD_VERSION_2 (364 bytes)";
      return "not a valid MQMD version";
    }
    return n == 1 ? std::string(struc) + "_VERSION_1" : "not a valid version: must be 1";
  }
  if (name == "StrucLength") return n == 84 ? "MQIIH_LENGTH_1" : "not valid: must be 84 (MQIIH_LENGTH_1)";
  if (name == "Report") return describe_report(n);
  if (name == "MsgType") return describe_msg_type(n);
  if (name == "Expiry") return describe_expiry(n);
  if (name == "Feedback") return n == MQFB_NONE ? "MQFB_NONE" : mq::describe_feedback(n);
  if (name == "Reason") return n == MQRC_NONE ? "MQRC_NONE" : mq::describe_feedback(n);
  if (name == "Encoding") {
    if (struc == "MQIIH") return n == 0 ? "reserved (0)" : "reserved; the data's encoding is MQMD.Encoding";
    return describe_encoding(n);
  }
  if (name == "CodedCharSetId") {
    if (struc == "MQIIH")
      return n == 0 ? "reserved (0)" : "reserved; the data's CCSID is MQMD.CodedCharSetId";
    return describe_ccsid(n);
  }
  if (name == "Format")
    return describe_format(t, struc == "MQIIH" ? format_field::iih_format : format_field::message);
  if (name == "ReplyToFormat") return describe_format(t, format_field::iih_reply_to_format);
  if (name == "Priority") return describe_priority(n);
  if (name == "Persistence") return describe_persistence(n);
  if (name == "MsgId" || name == "CorrelId" || name == "GroupId" || name == "AccountingToken" ||
      name == "TranInstanceId") {
    if (all_zero(f.raw)) {
      if (name == "MsgId") return "MQMI_NONE";
      if (name == "CorrelId") return "MQCI_NONE";
      if (name == "GroupId") return "MQGI_NONE";
      if (name == "AccountingToken") return "MQACT_NONE";
      return "MQITII_NONE: not in a conversation";
    }
    return bytes_as_text(f.raw, ccsid);
  }
  if (name == "PutApplType") return describe_put_appl_type(n);
  if (name == "PutDate") return put_date_meaning(t);
  if (name == "PutTime") return put_time_meaning(t);
  if (name == "MsgFlags") return describe_msg_flags(n);
  if (name == "OriginalLength") return n == MQOL_UNDEFINED ? "MQOL_UNDEFINED" : std::string();
  if (name == "Flags") return describe_iih_flags(n);
  if (name == "LTermOverride") return blank_or_empty(t) ? "none: the Tpipe name is used" : std::string();
  if (name == "MFSMapName") return blank_or_empty(t) ? "none" : "the MID on input, the MOD on output";
  if (name == "Authenticator")
    return blank_or_empty(t) ? "MQIAUT_NONE: the user ID is used without verification"
                             : "password or PassTicket, checked with MQMD.UserIdentifier";
  if (name == "TranState") return describe_tran_state(t.empty() ? '\0' : t[0]);
  if (name == "CommitMode") return describe_commit_mode(t.empty() ? '\0' : t[0]);
  if (name == "SecurityScope") return describe_security_scope(t.empty() ? '\0' : t[0]);
  if (name == "ReplyToQMgr" && blank_or_empty(t)) return "blank: the local queue manager";
  return {};
}

node mq_header_node(const mq::layout& l, bytes_view msg, std::size_t offset, std::int32_t encoding,
                    std::int32_t ccsid) {
  bytes_view here = msg.sub(offset, l.length);
  node s = structure_node(std::string(l.struc_name), offset, here.size());
  std::int32_t chars = chars_ccsid(here.sub(0, 4), ccsid);
  for (const auto& f : decode_fields(l, here, encoding, ccsid)) {
    std::size_t at = offset + f.desc->offset;
    std::string name(f.desc->name);
    switch (f.desc->kind) {
      case field_kind::mqlong:
        s.add(number_node(name, at, f.desc->length, f.number, number_value(l.struc_name, name, f.number),
                          field_meaning(l.struc_name, f, chars)));
        break;
      case field_kind::mqchar:
        s.add(field_node(name, at, f.desc->length, quote_819(f.text), field_meaning(l.struc_name, f, chars)));
        break;
      case field_kind::mqbyte:
        s.add(field_node(name, at, f.desc->length, hex_value(f.raw), field_meaning(l.struc_name, f, chars)));
        break;
      case field_kind::mqmd1: {
        node md = mq_header_node(mqmd_layout(1), msg, at, encoding, ccsid);
        md.name = name;
        md.value = "the MQMD of the original put (version-1 layout)";
        s.add(std::move(md));
        break;
      }
    }
  }
  return s;
}

}  // namespace imsb::dump
