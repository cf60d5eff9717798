#include "imsb/mq/pcf.hpp"

#include <limits>
#include <utility>

#include "imsb/codepage/codepage.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::mq {
namespace {

// MQCFH field offsets [C] IBM's cmqcfc.h: nine MQLONGs.
constexpr std::size_t cfh_field_offset(std::string_view name) {
  return name == "Type"           ? 0
         : name == "StrucLength"  ? 4
         : name == "Version"      ? 8
         : name == "Command"      ? 12
         : name == "MsgSeqNumber" ? 16
         : name == "Control"      ? 20
         : name == "CompCode"     ? 24
         : name == "Reason"       ? 28
                                  : 32;  // ParameterCount
}

decode_error pcf_error(std::int32_t rc, std::string field, std::size_t offset, std::string detail) {
  return decode_error{make_mqrc(rc), std::move(field), offset, std::move(detail)};
}

std::string num(std::int64_t v) { return std::to_string(v); }

// The CCSID string bytes are read or written in: the parameter's own, else the message's [C] MQCFST
// "MQCCSI_DEFAULT: the string is in the character set of the queue manager / message"; one the
// codepage library does not convert is read as ISO 8859-1 [D].
std::int32_t string_ccsid(std::int32_t own, std::int32_t message) {
  const std::int32_t c = own > 0 ? own : message;
  return codepage::supported(c) ? c : codepage::ccsid_819;
}

// Which reason code a bad parameter of this type gets.
std::int32_t type_rc(std::int32_t type) {
  switch (type) {
    case MQCFT_INTEGER:
      return MQRC_CFIN_ERROR;
    case MQCFT_STRING:
      return MQRC_CFST_ERROR;
    case MQCFT_INTEGER_LIST:
      return MQRC_CFIL_ERROR;
    case MQCFT_STRING_LIST:
      return MQRC_CFSL_ERROR;
    case MQCFT_BYTE_STRING:
      return MQRC_CFBS_ERROR;
    case MQCFT_GROUP:
      return MQRC_CFGR_ERROR;
    default:
      return MQRC_CFH_ERROR;
  }
}

bool is_parameter_type(std::int32_t t) {
  switch (t) {
    case MQCFT_INTEGER:
    case MQCFT_STRING:
    case MQCFT_INTEGER_LIST:
    case MQCFT_STRING_LIST:
    case MQCFT_BYTE_STRING:
    case MQCFT_INTEGER_FILTER:
    case MQCFT_STRING_FILTER:
    case MQCFT_BYTE_STRING_FILTER:
    case MQCFT_GROUP:
    case MQCFT_INTEGER64:
    case MQCFT_INTEGER64_LIST:
      return true;
    default:
      return false;
  }
}

bool is_header_type(std::int32_t t) {
  switch (t) {
    case MQCFT_COMMAND:
    case MQCFT_RESPONSE:
    case MQCFT_EVENT:
    case MQCFT_USER:
    case MQCFT_TRACE_ROUTE:
    case MQCFT_REPORT:
    case MQCFT_COMMAND_XR:
    case MQCFT_XR_MSG:
    case MQCFT_XR_ITEM:
    case MQCFT_XR_SUMMARY:
    case MQCFT_STATISTICS:
    case MQCFT_ACCOUNTING:
      return true;
    default:
      return false;
  }
}

std::string structure_of(std::int32_t type) {
  switch (type) {
    case MQCFT_INTEGER:
      return "MQCFIN";
    case MQCFT_STRING:
      return "MQCFST";
    case MQCFT_INTEGER_LIST:
      return "MQCFIL";
    case MQCFT_STRING_LIST:
      return "MQCFSL";
    case MQCFT_BYTE_STRING:
      return "MQCFBS";
    case MQCFT_INTEGER_FILTER:
      return "MQCFIF";
    case MQCFT_STRING_FILTER:
      return "MQCFSF";
    case MQCFT_BYTE_STRING_FILTER:
      return "MQCFBF";
    case MQCFT_GROUP:
      return "MQCFGR";
    case MQCFT_INTEGER64:
      return "MQCFIN64";
    case MQCFT_INTEGER64_LIST:
      return "MQCFIL64";
    default:
      return "PCF";
  }
}

// The smallest StrucLength of each parameter structure [C] IBM's cmqcfc.h: fixed parts.
std::int32_t min_length(std::int32_t type) {
  switch (type) {
    case MQCFT_INTEGER:
      return MQCFIN_STRUC_LENGTH;
    case MQCFT_STRING:
      return MQCFST_STRUC_LENGTH_FIXED;
    case MQCFT_INTEGER_LIST:
      return 16;
    case MQCFT_STRING_LIST:
      return 24;
    case MQCFT_BYTE_STRING:
      return 16;
    case MQCFT_INTEGER_FILTER:
      return 20;
    case MQCFT_STRING_FILTER:
      return 24;
    case MQCFT_BYTE_STRING_FILTER:
      return 20;
    case MQCFT_GROUP:
      return MQCFGR_STRUC_LENGTH;
    case MQCFT_INTEGER64:
      return 24;
    case MQCFT_INTEGER64_LIST:
      return 16;
    default:
      return 8;
  }
}

void put_i32(bytes& out, std::int32_t v, byte_order o) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  store_u32(out.data() + at, static_cast<std::uint32_t>(v), o);
}

}  // namespace

bool operator==(const mqcfh& a, const mqcfh& b) {
  return a.type == b.type && a.struc_length == b.struc_length && a.version == b.version &&
         a.command == b.command && a.msg_seq_number == b.msg_seq_number && a.control == b.control &&
         a.comp_code == b.comp_code && a.reason == b.reason && a.parameter_count == b.parameter_count;
}

result<pcf_message> decode_pcf(bytes_view in, std::int32_t encoding, std::int32_t ccsid) {
  const byte_order o = integer_order(encoding);
  const auto at = [&](std::size_t off) { return load_i32(in.data() + off, o); };
  pcf_message m;
  if (in.size() < static_cast<std::size_t>(MQCFH_STRUC_LENGTH)) {
    const std::size_t field = in.size() / 4 * 4;
    static constexpr std::string_view names[] = {"Type",     "StrucLength",  "Version",
                                                 "Command",  "MsgSeqNumber", "Control",
                                                 "CompCode", "Reason",       "ParameterCount"};
    return pcf_error(
        MQRC_CFH_ERROR, "MQCFH." + std::string(names[field / 4]), field,
        "the data ends after " + num(static_cast<std::int64_t>(in.size())) + " bytes; an MQCFH is 36 bytes");
  }
  mqcfh& h = m.header;
  h.type = at(0);
  h.struc_length = at(4);
  h.version = at(8);
  h.command = at(12);
  h.msg_seq_number = at(16);
  h.control = at(20);
  h.comp_code = at(24);
  h.reason = at(28);
  h.parameter_count = at(32);
  if (!is_header_type(h.type)) {
    return pcf_error(MQRC_CFH_ERROR, "MQCFH.Type", cfh_field_offset("Type"),
                     "is " + num(h.type) + ", not a PCF header type (MQCFT_EVENT 7, MQCFT_COMMAND 1, ...)");
  }
  if (h.struc_length != MQCFH_STRUC_LENGTH) {
    return pcf_error(MQRC_CFH_ERROR, "MQCFH.StrucLength", cfh_field_offset("StrucLength"),
                     "is " + num(h.struc_length) + ", must be 36");
  }
  if (h.version < MQCFH_VERSION_1 || h.version > MQCFH_VERSION_3) {
    return pcf_error(MQRC_CFH_ERROR, "MQCFH.Version", cfh_field_offset("Version"),
                     "is " + num(h.version) + ", must be 1, 2 or 3");
  }
  if (h.parameter_count < 0) {
    return pcf_error(MQRC_CFH_ERROR, "MQCFH.ParameterCount", cfh_field_offset("ParameterCount"),
                     "is " + num(h.parameter_count) + ", must not be negative");
  }

  std::size_t pos = MQCFH_STRUC_LENGTH;
  // Parameters still to read at each depth: a group pushes its count (IBM: MQCFGR.ParameterCount
  // structures follow it and belong to it).
  std::vector<std::int64_t> remaining{h.parameter_count};
  while (!remaining.empty()) {
    if (remaining.back() == 0) {
      remaining.pop_back();
      continue;
    }
    const std::size_t depth = remaining.size() - 1;
    if (in.size() - pos < 8) {
      return pcf_error(depth == 0 ? MQRC_CFH_ERROR : MQRC_CFGR_ERROR,
                       depth == 0 ? "MQCFH.ParameterCount" : "MQCFGR.ParameterCount",
                       depth == 0 ? cfh_field_offset("ParameterCount") : pos,
                       "the data ends at offset " + num(static_cast<std::int64_t>(pos)) + " with " +
                           num(remaining.back()) + " parameter(s) still to come");
    }
    --remaining.back();
    pcf_parameter p;
    p.type = at(pos);
    p.offset = pos;
    p.depth = depth;
    const std::string sname = structure_of(p.type);
    if (!is_parameter_type(p.type)) {
      return pcf_error(
          MQRC_CFH_ERROR, "PCF.Type", pos,
          "is " + num(p.type) + ", not a parameter structure type (MQCFT_INTEGER 3, MQCFT_STRING 4, ...)");
    }
    const std::int32_t len = at(pos + 4);
    const std::int32_t rc = type_rc(p.type);
    if (len < min_length(p.type) || len % 4 != 0) {
      return pcf_error(
          rc, sname + ".StrucLength", pos + 4,
          "is " + num(len) + ", must be a multiple of 4 and at least " + num(min_length(p.type)));
    }
    if (static_cast<std::size_t>(len) > in.size() - pos) {
      return pcf_error(rc, sname + ".StrucLength", pos + 4,
                       "is " + num(len) + " but only " + num(static_cast<std::int64_t>(in.size() - pos)) +
                           " bytes remain");
    }
    if (p.type == MQCFT_INTEGER && len != MQCFIN_STRUC_LENGTH) {
      return pcf_error(rc, "MQCFIN.StrucLength", pos + 4, "is " + num(len) + ", must be 16");
    }
    if (p.type == MQCFT_GROUP && len != MQCFGR_STRUC_LENGTH) {
      return pcf_error(rc, "MQCFGR.StrucLength", pos + 4, "is " + num(len) + ", must be 16");
    }
    p.parameter = at(pos + 8);
    p.length = static_cast<std::size_t>(len);
    switch (p.type) {
      case MQCFT_INTEGER:
        p.value = at(pos + 12);
        break;
      case MQCFT_GROUP:
        p.value = at(pos + 12);
        if (p.value < 0) {
          return pcf_error(rc, "MQCFGR.ParameterCount", pos + 12,
                           "is " + num(p.value) + ", must not be negative");
        }
        break;
      case MQCFT_STRING: {
        p.ccsid = at(pos + 12);
        const std::int32_t slen = at(pos + 16);
        if (slen < 0 || slen > len - MQCFST_STRUC_LENGTH_FIXED) {
          return pcf_error(rc, "MQCFST.StringLength", pos + 16,
                           "is " + num(slen) + ", must be 0.." + num(len - MQCFST_STRUC_LENGTH_FIXED) +
                               " for StrucLength " + num(len));
        }
        // The string as it is, StringLength bytes converted: not padded back to StringLength as a
        // fixed-width MQMD field would be (a UTF-8 "é" is two bytes and one character).
        const codepage::conversion conv =
            codepage::convert(in.sub(pos + 20, static_cast<std::size_t>(slen)), string_ccsid(p.ccsid, ccsid),
                              codepage::ccsid_819);
        p.text.assign(conv.out.begin(), conv.out.end());
        break;
      }
      default:
        p.raw = in.sub(pos, p.length).to_bytes();
        break;
    }
    pos += p.length;
    const bool group = p.type == MQCFT_GROUP;
    const std::int32_t count = p.value;
    m.parameters.push_back(std::move(p));
    if (group) remaining.push_back(count);
  }
  m.length = pos;
  return m;
}

void encode_pcf(const pcf_message& m, std::int32_t encoding, std::int32_t ccsid, bytes& out) {
  const byte_order o = integer_order(encoding);
  const mqcfh& h = m.header;
  for (std::int32_t v : {h.type, h.struc_length, h.version, h.command, h.msg_seq_number, h.control,
                         h.comp_code, h.reason, h.parameter_count}) {
    put_i32(out, v, o);
  }
  for (const pcf_parameter& p : m.parameters) {
    switch (p.type) {
      case MQCFT_INTEGER:
      case MQCFT_GROUP:
        put_i32(out, p.type, o);
        put_i32(out, p.type == MQCFT_INTEGER ? MQCFIN_STRUC_LENGTH : MQCFGR_STRUC_LENGTH, o);
        put_i32(out, p.parameter, o);
        put_i32(out, p.value, o);
        break;
      case MQCFT_STRING: {
        // The string is padded to a multiple of 4 [C] MQCFST StrucLength; the padding is not
        // significant, we write NULs.
        // StringLength counts bytes in the string's CCSID (more than characters in UTF-8).
        const codepage::conversion conv =
            codepage::convert(bytes_view::of(p.text), codepage::ccsid_819, string_ccsid(p.ccsid, ccsid));
        const std::size_t slen = conv.out.size();
        const std::size_t padded = (slen + 3) / 4 * 4;
        put_i32(out, p.type, o);
        put_i32(out, static_cast<std::int32_t>(MQCFST_STRUC_LENGTH_FIXED + padded), o);
        put_i32(out, p.parameter, o);
        put_i32(out, p.ccsid, o);
        put_i32(out, static_cast<std::int32_t>(slen), o);
        out.insert(out.end(), conv.out.begin(), conv.out.end());
        out.resize(out.size() + (padded - slen), 0);
        break;
      }
      default:
        out.insert(out.end(), p.raw.begin(), p.raw.end());
        break;
    }
  }
}

event_message bridge_event(bool started, std::string_view group, std::string_view member,
                           std::int32_t reason_qualifier, std::int32_t error_identifier,
                           std::string_view qmgr_name, std::int32_t encoding, std::int32_t ccsid) {
  pcf_message m;
  m.header.type = MQCFT_EVENT;
  m.header.version = MQCFH_VERSION_1;
  m.header.command = MQCMD_CHANNEL_EVENT;
  m.header.msg_seq_number = 1;
  m.header.control = MQCFC_LAST;
  m.header.comp_code = MQCC_WARNING;  // [C] every event's MQCFH.CompCode
  m.header.reason = started ? MQRC_BRIDGE_STARTED : MQRC_BRIDGE_STOPPED;
  // Strings name their CCSID explicitly, as IBM's queue managers write event strings, so that a
  // reader need not know the MQMD [I].
  m.parameters.push_back(
      pcf_string(MQCA_Q_MGR_NAME, codepage::pad_field(qmgr_name, MQ_Q_MGR_NAME_LENGTH), ccsid));
  if (!started) m.parameters.push_back(pcf_integer(MQIACF_REASON_QUALIFIER, reason_qualifier));
  m.parameters.push_back(pcf_integer(MQIACF_BRIDGE_TYPE, MQBT_OTMA));
  // XCF group name (8) then the IMS member name (16) [C: BRIDGE-EVENT, MQGO-CONST].
  m.parameters.push_back(
      pcf_string(MQCACF_BRIDGE_NAME, codepage::pad_field(group, 8) + codepage::pad_field(member, 16), ccsid));
  if (!started) m.parameters.push_back(pcf_integer(MQIACF_ERROR_IDENTIFIER, error_identifier));
  m.header.parameter_count = static_cast<std::int32_t>(m.parameters.size());

  event_message e;
  e.md.format = std::string(MQFMT_EVENT);
  e.md.msg_type = MQMT_DATAGRAM;
  e.md.encoding = encoding;
  e.md.coded_char_set_id = ccsid;
  // The queue manager is the putting application of its events [C] "Event message MQMD".
  e.md.put_appl_type = MQAT_QMGR;
  e.md.put_appl_name = codepage::pad_field(qmgr_name, MQ_PUT_APPL_NAME_LENGTH);
  // Persistence stays MQPER_PERSISTENCE_AS_Q_DEF, as IBM's event messages have it [I].
  encode_pcf(m, encoding, ccsid, e.data);
  return e;
}

std::string_view pcf_type_name(std::int32_t type) noexcept {
  switch (type) {
    case MQCFT_NONE:
      return "MQCFT_NONE";
    case MQCFT_COMMAND:
      return "MQCFT_COMMAND";
    case MQCFT_RESPONSE:
      return "MQCFT_RESPONSE";
    case MQCFT_INTEGER:
      return "MQCFT_INTEGER";
    case MQCFT_STRING:
      return "MQCFT_STRING";
    case MQCFT_INTEGER_LIST:
      return "MQCFT_INTEGER_LIST";
    case MQCFT_STRING_LIST:
      return "MQCFT_STRING_LIST";
    case MQCFT_EVENT:
      return "MQCFT_EVENT";
    case MQCFT_USER:
      return "MQCFT_USER";
    case MQCFT_BYTE_STRING:
      return "MQCFT_BYTE_STRING";
    case MQCFT_TRACE_ROUTE:
      return "MQCFT_TRACE_ROUTE";
    case MQCFT_REPORT:
      return "MQCFT_REPORT";
    case MQCFT_INTEGER_FILTER:
      return "MQCFT_INTEGER_FILTER";
    case MQCFT_STRING_FILTER:
      return "MQCFT_STRING_FILTER";
    case MQCFT_BYTE_STRING_FILTER:
      return "MQCFT_BYTE_STRING_FILTER";
    case MQCFT_COMMAND_XR:
      return "MQCFT_COMMAND_XR";
    case MQCFT_XR_MSG:
      return "MQCFT_XR_MSG";
    case MQCFT_XR_ITEM:
      return "MQCFT_XR_ITEM";
    case MQCFT_XR_SUMMARY:
      return "MQCFT_XR_SUMMARY";
    case MQCFT_GROUP:
      return "MQCFT_GROUP";
    case MQCFT_STATISTICS:
      return "MQCFT_STATISTICS";
    case MQCFT_ACCOUNTING:
      return "MQCFT_ACCOUNTING";
    case MQCFT_INTEGER64:
      return "MQCFT_INTEGER64";
    case MQCFT_INTEGER64_LIST:
      return "MQCFT_INTEGER64_LIST";
    default:
      return {};
  }
}

std::string_view pcf_command_name(std::int32_t command) noexcept {
  switch (command) {
    case MQCMD_CONFIG_EVENT:
      return "MQCMD_CONFIG_EVENT";
    case MQCMD_Q_MGR_EVENT:
      return "MQCMD_Q_MGR_EVENT";
    case MQCMD_PERFM_EVENT:
      return "MQCMD_PERFM_EVENT";
    case MQCMD_CHANNEL_EVENT:
      return "MQCMD_CHANNEL_EVENT";
    case MQCMD_LOGGER_EVENT:
      return "MQCMD_LOGGER_EVENT";
    case MQCMD_COMMAND_EVENT:
      return "MQCMD_COMMAND_EVENT";
    default:
      return {};
  }
}

namespace {
struct parameter_names {
  std::int32_t id;
  std::string_view constant;
  std::string_view field;
};
// The parameters of the events the bridge and the queue manager emit; more can be added as they
// are needed. [C] IBM's cmqc.h / cmqcfc.h values, field names from IBM's event descriptions.
constexpr parameter_names parameter_table[] = {
    {MQIACF_ERROR_IDENTIFIER, "MQIACF_ERROR_IDENTIFIER", "ErrorIdentifier"},
    {MQIACF_REASON_QUALIFIER, "MQIACF_REASON_QUALIFIER", "ReasonQualifier"},
    {1021, "MQIACF_COMMAND", "Command"},
    {1022, "MQIACF_OPEN_OPTIONS", "Options"},
    {MQIACF_BRIDGE_TYPE, "MQIACF_BRIDGE_TYPE", "BridgeType"},
    {2016, "MQCA_Q_NAME", "QName"},
    {2002, "MQCA_BASE_Q_NAME", "BaseObjectName"},
    {MQCA_Q_MGR_NAME, "MQCA_Q_MGR_NAME", "QMgrName"},
    {2024, "MQCA_XMIT_Q_NAME", "XmitQName"},
    {3024, "MQCACF_APPL_NAME", "ApplName"},
    {3025, "MQCACF_USER_IDENTIFIER", "UserIdentifier"},
    {MQCACF_BRIDGE_NAME, "MQCACF_BRIDGE_NAME", "BridgeName"},
    {3501, "MQCACH_CHANNEL_NAME", "ChannelName"},
};
}  // namespace

std::string_view pcf_parameter_id_name(std::int32_t id) noexcept {
  for (const auto& p : parameter_table)
    if (p.id == id) return p.constant;
  return {};
}

std::string_view pcf_parameter_field_name(std::int32_t id) noexcept {
  for (const auto& p : parameter_table)
    if (p.id == id) return p.field;
  return {};
}

std::string pcf_value_meaning(std::int32_t parameter, std::int32_t value) {
  switch (parameter) {
    case MQIACF_BRIDGE_TYPE:
      return value == MQBT_OTMA ? "MQBT_OTMA" : std::string();
    case MQIACF_REASON_QUALIFIER:
      if (value == MQRQ_BRIDGE_STOPPED_OK) return "MQRQ_BRIDGE_STOPPED_OK";
      if (value == MQRQ_BRIDGE_STOPPED_ERROR) return "MQRQ_BRIDGE_STOPPED_ERROR";
      return {};
    case MQIACF_ERROR_IDENTIFIER:
      if (value == 0) return "no error";
      if (const code_info* c = find_mqrc(value)) return std::string(c->name);
      return {};
    default:
      return {};
  }
}

}  // namespace imsb::mq
