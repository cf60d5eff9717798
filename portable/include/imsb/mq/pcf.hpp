#pragma once
// PCF (Programmable Command Format) as IBM's event messages use it: an MQCFH header followed by parameter
// structures (MQCFIN integers, MQCFST strings, ...), all MQLONGs in the byte order of the message's Encoding
// and strings in their own (or the message's) CCSID. The bridge emits its Bridge Started / Bridge Stopped
// events with it [C: BRIDGE-EVENT, BRIDGE-STOPPED-EVENT] and mqdump decodes any MQEVENT / MQADMIN / MQPCF
// body with it.
//
// Values are IBM's (cmqcfc.h of MQ 9.1.1, cmqc.h) [C] unless marked [I] (our reading of IBM's
// documentation where it does not give the value outright) or [D] (our design).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::mq {

// --- MQCFH: the PCF header [C] cmqcfc.h, "MQCFH - PCF header" --------------------------------------
inline constexpr std::int32_t MQCFH_STRUC_LENGTH = 36;
inline constexpr std::int32_t MQCFH_VERSION_1 = 1;  // all events but configuration and command events
inline constexpr std::int32_t MQCFH_VERSION_2 = 2;
inline constexpr std::int32_t MQCFH_VERSION_3 = 3;
inline constexpr std::int32_t MQCFC_NOT_LAST = 0;
inline constexpr std::int32_t MQCFC_LAST = 1;

// Structure types (MQCFH.Type and each parameter's Type) [C] cmqcfc.h.
inline constexpr std::int32_t MQCFT_NONE = 0;
inline constexpr std::int32_t MQCFT_COMMAND = 1;
inline constexpr std::int32_t MQCFT_RESPONSE = 2;
inline constexpr std::int32_t MQCFT_INTEGER = 3;
inline constexpr std::int32_t MQCFT_STRING = 4;
inline constexpr std::int32_t MQCFT_INTEGER_LIST = 5;
inline constexpr std::int32_t MQCFT_STRING_LIST = 6;
inline constexpr std::int32_t MQCFT_EVENT = 7;
inline constexpr std::int32_t MQCFT_USER = 8;
inline constexpr std::int32_t MQCFT_BYTE_STRING = 9;
inline constexpr std::int32_t MQCFT_TRACE_ROUTE = 10;
inline constexpr std::int32_t MQCFT_REPORT = 12;
inline constexpr std::int32_t MQCFT_INTEGER_FILTER = 13;
inline constexpr std::int32_t MQCFT_STRING_FILTER = 14;
inline constexpr std::int32_t MQCFT_BYTE_STRING_FILTER = 15;
inline constexpr std::int32_t MQCFT_COMMAND_XR = 16;
inline constexpr std::int32_t MQCFT_XR_MSG = 17;
inline constexpr std::int32_t MQCFT_XR_ITEM = 18;
inline constexpr std::int32_t MQCFT_XR_SUMMARY = 19;
inline constexpr std::int32_t MQCFT_GROUP = 20;
inline constexpr std::int32_t MQCFT_STATISTICS = 21;
inline constexpr std::int32_t MQCFT_ACCOUNTING = 22;
inline constexpr std::int32_t MQCFT_INTEGER64 = 23;
inline constexpr std::int32_t MQCFT_INTEGER64_LIST = 25;

inline constexpr std::int32_t MQCFIN_STRUC_LENGTH = 16;
inline constexpr std::int32_t MQCFST_STRUC_LENGTH_FIXED = 20;
inline constexpr std::int32_t MQCFGR_STRUC_LENGTH = 16;

// Event categories (MQCFH.Command of an event) [C] cmqcfc.h.
inline constexpr std::int32_t MQCMD_CONFIG_EVENT = 43;
inline constexpr std::int32_t MQCMD_Q_MGR_EVENT = 44;
inline constexpr std::int32_t MQCMD_PERFM_EVENT = 45;
inline constexpr std::int32_t MQCMD_CHANNEL_EVENT = 46;
inline constexpr std::int32_t MQCMD_LOGGER_EVENT = 91;
inline constexpr std::int32_t MQCMD_COMMAND_EVENT = 99;

// Parameter identifiers of the bridge events [C] cmqc.h / cmqcfc.h, "Bridge Started", "Bridge Stopped"
// (MQCA_Q_MGR_NAME, the MQINQ selector, is in constants.hpp).
inline constexpr std::int32_t MQCACF_BRIDGE_NAME = 3029;
inline constexpr std::int32_t MQIACF_ERROR_IDENTIFIER = 1013;
inline constexpr std::int32_t MQIACF_REASON_QUALIFIER = 1020;
inline constexpr std::int32_t MQIACF_BRIDGE_TYPE = 1073;
inline constexpr std::int32_t MQBT_OTMA = 1;
inline constexpr std::int32_t MQRQ_BRIDGE_STOPPED_OK = 11;
inline constexpr std::int32_t MQRQ_BRIDGE_STOPPED_ERROR = 12;

// Reason codes for PCF structures that are not valid [C] cmqc.h (codes.cpp has their meanings).
inline constexpr std::int32_t MQRC_CFH_ERROR = 2235;
inline constexpr std::int32_t MQRC_CFIL_ERROR = 2236;
inline constexpr std::int32_t MQRC_CFIN_ERROR = 2237;
inline constexpr std::int32_t MQRC_CFSL_ERROR = 2238;
inline constexpr std::int32_t MQRC_CFST_ERROR = 2239;
inline constexpr std::int32_t MQRC_CFBS_ERROR = 2395;
inline constexpr std::int32_t MQRC_CFGR_ERROR = 2416;

struct mqcfh {
  std::int32_t type = MQCFT_EVENT;
  std::int32_t struc_length = MQCFH_STRUC_LENGTH;
  std::int32_t version = MQCFH_VERSION_1;
  std::int32_t command = 0;
  std::int32_t msg_seq_number = 1;
  std::int32_t control = MQCFC_LAST;
  std::int32_t comp_code = 0;
  std::int32_t reason = 0;
  std::int32_t parameter_count = 0;
};
bool operator==(const mqcfh& a, const mqcfh& b);

// One parameter structure. MQCFIN and MQCFST are decoded into value / text; MQCFGR (a group) gives
// the number of parameters in it as `value`, and those parameters follow it with depth + 1; the other
// types (lists, byte strings, filters, 64-bit integers) keep their bytes in `raw`.
struct pcf_parameter {
  std::int32_t type = MQCFT_INTEGER;
  std::int32_t parameter = 0;
  std::int32_t value = 0;  // MQCFIN.Value; MQCFGR.ParameterCount
  std::int32_t ccsid = 0;  // MQCFST.CodedCharSetId as written (0 = the message's)
  std::string text;        // MQCFST.String as CCSID 819 text, StringLength characters
  bytes raw;               // the whole structure, for types other than MQCFIN / MQCFST / MQCFGR
  std::size_t offset = 0;  // decode: where the structure starts in the decoded buffer
  std::size_t length = 0;  // decode: its StrucLength
  std::size_t depth = 0;   // decode: 0 at top level, 1 inside a group ...
};

struct pcf_message {
  mqcfh header;
  std::vector<pcf_parameter> parameters;
  std::size_t length = 0;  // decode: bytes used by the header and the parameters
};

inline pcf_parameter pcf_integer(std::int32_t parameter, std::int32_t value) {
  pcf_parameter p;
  p.type = MQCFT_INTEGER;
  p.parameter = parameter;
  p.value = value;
  return p;
}
// `text` is CCSID 819; `ccsid` goes in MQCFST.CodedCharSetId (0: the message's CCSID).
inline pcf_parameter pcf_string(std::int32_t parameter, std::string text, std::int32_t ccsid = 0) {
  pcf_parameter p;
  p.type = MQCFT_STRING;
  p.parameter = parameter;
  p.ccsid = ccsid;
  p.text = std::move(text);
  return p;
}

// Decodes an MQCFH and the parameters it counts (groups add theirs) at the start of `in`. `encoding`
// gives the byte order; `ccsid` is the message's CCSID, used for strings whose CodedCharSetId is 0
// (MQCCSI_DEFAULT) or negative. Bytes after the last parameter are left to the caller (`length`).
// Errors name the structure, field and offset: MQRC_CFH_ERROR (header: too short, Type, StrucLength,
// Version, ParameterCount larger than what follows), MQRC_CFIN_ERROR (StrucLength not 16),
// MQRC_CFST_ERROR (StrucLength not a multiple of 4 or too small for StringLength), MQRC_CFGR_ERROR,
// MQRC_CFIL_ERROR, MQRC_CFSL_ERROR, MQRC_CFBS_ERROR, and MQRC_CFH_ERROR for a parameter Type that is
// not a parameter structure.
result<pcf_message> decode_pcf(bytes_view in, std::int32_t encoding, std::int32_t ccsid);

// Appends the header and parameters to `out` as they are (ParameterCount is written as given, so
// that tests can build malformed messages); MQCFIN is 16 bytes, MQCFST 20 + the string padded with
// NULs to a multiple of 4, MQCFGR 16, others their `raw` bytes. Strings are written in their
// CodedCharSetId, or `ccsid` when that is 0.
void encode_pcf(const pcf_message& m, std::int32_t encoding, std::int32_t ccsid, bytes& out);

// --- Bridge events [C: BRIDGE-EVENT, BRIDGE-STOPPED-EVENT] ------------------------------------------
struct event_message {
  mqmd md;     // Format MQFMT_EVENT, MsgType MQMT_DATAGRAM, the given Encoding and CCSID
  bytes data;  // MQCFH and the parameters
};

// Bridge Started (MQRC_BRIDGE_STARTED 2125) or Bridge Stopped (MQRC_BRIDGE_STOPPED 2126), as IBM's
// queue manager puts on SYSTEM.ADMIN.CHANNEL.EVENT: MQCFH Type MQCFT_EVENT, Version 1, Command
// MQCMD_CHANNEL_EVENT ([I]: IBM documents bridge events with the channel events and on their queue),
// CompCode MQCC_WARNING, then QMgrName, [ReasonQualifier,] BridgeType MQBT_OTMA, BridgeName = the XCF
// group (8, blank padded) followed by the IMS member (16, blank padded) [C] MQ_BRIDGE_NAME_LENGTH 24,
// [ErrorIdentifier] — the bracketed ones for Bridge Stopped only, in IBM's documented order.
// `reason_qualifier` is MQRQ_BRIDGE_STOPPED_OK or _ERROR; `error_identifier` the code of the error
// that stopped it (0 with _OK).
event_message bridge_event(bool started, std::string_view group, std::string_view member,
                           std::int32_t reason_qualifier, std::int32_t error_identifier,
                           std::string_view qmgr_name, std::int32_t encoding, std::int32_t ccsid);

// --- Names, for mqdump and messages -----------------------------------------------------------------
// IBM's names, or "" when not in our tables.
std::string_view pcf_type_name(std::int32_t type) noexcept;           // "MQCFT_EVENT"
std::string_view pcf_command_name(std::int32_t command) noexcept;     // "MQCMD_CHANNEL_EVENT"
std::string_view pcf_parameter_id_name(std::int32_t id) noexcept;     // "MQCACF_BRIDGE_NAME"
std::string_view pcf_parameter_field_name(std::int32_t id) noexcept;  // "BridgeName"
// What an integer parameter's value means: "MQBT_OTMA" for BridgeType 1, "MQRQ_BRIDGE_STOPPED_OK" for
// ReasonQualifier 11, the MQRC name for an ErrorIdentifier in the reason-code table; "" otherwise.
std::string pcf_value_meaning(std::int32_t parameter, std::int32_t value);

}  // namespace imsb::mq
