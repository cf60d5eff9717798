#pragma once
// IBM MQ constants the bridge, the queue manager and the tools use, under IBM's own names (cmqc.h), so that
// code reads like the MQ documentation. Values are from IBM's headers and bindings; each group cites its
// source.
//
// MQENC_NATIVE and MQAT_DEFAULT are deliberately absent: they differ by platform [C: MQENC-TABLE,
// MQGO-CONST] and a portable library must say which platform it means.
//
// Structure lengths (*_LENGTH_*) are std::size_t, because they are mostly compared with buffer sizes.
//
// Every MQRC_* and MQFB_* value defined here also has an entry in codes.hpp (a test reads this file
// and checks it).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace imsb::mq {

// --- Completion codes ------------------------------------------------------------------------------
inline constexpr std::int32_t MQCC_OK = 0;
inline constexpr std::int32_t MQCC_WARNING = 1;
inline constexpr std::int32_t MQCC_FAILED = 2;

// --- Format names, MQCHAR8 blank padded [C: CMQC-PY] --------------------------------------------------
inline constexpr std::string_view MQFMT_NONE = "        ";
inline constexpr std::string_view MQFMT_IMS = "MQIMS   ";
inline constexpr std::string_view MQFMT_IMS_VAR_STRING = "MQIMSVS ";
inline constexpr std::string_view MQFMT_STRING = "MQSTR   ";
inline constexpr std::string_view MQFMT_DEAD_LETTER_HEADER = "MQDEAD  ";
inline constexpr std::string_view MQFMT_XMIT_Q_HEADER = "MQXMIT  ";
inline constexpr std::string_view MQFMT_MD_EXTENSION = "MQHMDE  ";
inline constexpr std::string_view MQFMT_CICS = "MQCICS  ";
inline constexpr std::string_view MQFMT_ADMIN = "MQADMIN ";
inline constexpr std::string_view MQFMT_PCF = "MQPCF   ";
inline constexpr std::string_view MQFMT_EVENT = "MQEVENT ";
inline constexpr std::string_view MQFMT_RF_HEADER_2 = "MQHRF2  ";

// --- Encoding [C: MQENC-TABLE] ---------------------------------------------------------------------
inline constexpr std::int32_t MQENC_INTEGER_UNDEFINED = 0x00000000;
inline constexpr std::int32_t MQENC_INTEGER_NORMAL = 0x00000001;    // big-endian
inline constexpr std::int32_t MQENC_INTEGER_REVERSED = 0x00000002;  // little-endian
inline constexpr std::int32_t MQENC_INTEGER_MASK = 0x0000000F;
inline constexpr std::int32_t MQENC_DECIMAL_UNDEFINED = 0x00000000;
inline constexpr std::int32_t MQENC_DECIMAL_NORMAL = 0x00000010;
inline constexpr std::int32_t MQENC_DECIMAL_REVERSED = 0x00000020;
inline constexpr std::int32_t MQENC_DECIMAL_MASK = 0x000000F0;
inline constexpr std::int32_t MQENC_FLOAT_UNDEFINED = 0x00000000;
inline constexpr std::int32_t MQENC_FLOAT_IEEE_NORMAL = 0x00000100;
inline constexpr std::int32_t MQENC_FLOAT_IEEE_REVERSED = 0x00000200;
inline constexpr std::int32_t MQENC_FLOAT_S390 = 0x00000300;
inline constexpr std::int32_t MQENC_FLOAT_TNS = 0x00000400;
inline constexpr std::int32_t MQENC_FLOAT_MASK = 0x00000F00;
// The native encodings of the platforms we meet [C: MQENC-TABLE, MQGO-CONST].
inline constexpr std::int32_t MQENC_NATIVE_ZOS = 785;        // X'311': S390 float, big-endian integers
inline constexpr std::int32_t MQENC_NATIVE_LINUX_X86 = 546;  // X'222': Linux x86-64, Windows
inline constexpr std::int32_t MQENC_S390_LINUX = 273;        // X'111': Linux on s390x, AIX, IBM i

// --- Coded character set identifiers [C: CMQC-PY, MQGO-CONST] ---------------------------------------
inline constexpr std::int32_t MQCCSI_UNDEFINED = 0;
inline constexpr std::int32_t MQCCSI_DEFAULT = 0;
inline constexpr std::int32_t MQCCSI_Q_MGR = 0;
inline constexpr std::int32_t MQCCSI_EMBEDDED = -1;
inline constexpr std::int32_t MQCCSI_INHERIT = -2;
inline constexpr std::int32_t MQCCSI_APPL = -3;

// --- Message types [C: CMQC-PY] ------------------------------------------------------------------------
inline constexpr std::int32_t MQMT_SYSTEM_FIRST = 1;
inline constexpr std::int32_t MQMT_REQUEST = 1;
inline constexpr std::int32_t MQMT_REPLY = 2;
inline constexpr std::int32_t MQMT_REPORT = 4;
inline constexpr std::int32_t MQMT_DATAGRAM = 8;
inline constexpr std::int32_t MQMT_SYSTEM_LAST = 65535;
inline constexpr std::int32_t MQMT_APPL_FIRST = 65536;
inline constexpr std::int32_t MQMT_APPL_LAST = 999999999;

// --- Report options [C: CMQC-PY] ---------------------------------------------------------------------
inline constexpr std::int32_t MQRO_NONE = 0x00000000;
inline constexpr std::int32_t MQRO_EXCEPTION = 0x01000000;
inline constexpr std::int32_t MQRO_EXCEPTION_WITH_DATA = 0x03000000;
inline constexpr std::int32_t MQRO_EXCEPTION_WITH_FULL_DATA = 0x07000000;
inline constexpr std::int32_t MQRO_EXPIRATION = 0x00200000;
inline constexpr std::int32_t MQRO_EXPIRATION_WITH_DATA = 0x00600000;
inline constexpr std::int32_t MQRO_EXPIRATION_WITH_FULL_DATA = 0x00E00000;
inline constexpr std::int32_t MQRO_COA = 0x00000100;
inline constexpr std::int32_t MQRO_COA_WITH_DATA = 0x00000300;
inline constexpr std::int32_t MQRO_COA_WITH_FULL_DATA = 0x00000700;
inline constexpr std::int32_t MQRO_COD = 0x00000800;
inline constexpr std::int32_t MQRO_COD_WITH_DATA = 0x00001800;
inline constexpr std::int32_t MQRO_COD_WITH_FULL_DATA = 0x00003800;
inline constexpr std::int32_t MQRO_PAN = 0x00000001;
inline constexpr std::int32_t MQRO_NAN = 0x00000002;
inline constexpr std::int32_t MQRO_ACTIVITY = 0x00000004;
inline constexpr std::int32_t MQRO_NEW_MSG_ID = 0x00000000;
inline constexpr std::int32_t MQRO_PASS_MSG_ID = 0x00000080;
inline constexpr std::int32_t MQRO_COPY_MSG_ID_TO_CORREL_ID = 0x00000000;
inline constexpr std::int32_t MQRO_PASS_CORREL_ID = 0x00000040;
inline constexpr std::int32_t MQRO_DEAD_LETTER_Q = 0x00000000;
inline constexpr std::int32_t MQRO_DISCARD_MSG = 0x08000000;
inline constexpr std::int32_t MQRO_PASS_DISCARD_AND_EXPIRY = 0x00004000;
inline constexpr std::int32_t MQRO_REJECT_UNSUP_MASK = 0x101C0000;
// 0xEFE000FF does not fit a positive int32: written as the same bit pattern.
inline constexpr std::int32_t MQRO_ACCEPT_UNSUP_MASK = static_cast<std::int32_t>(0xEFE000FFu);
inline constexpr std::int32_t MQRO_ACCEPT_UNSUP_IF_XMIT_MASK = 0x0003FF00;

// --- Persistence, priority, expiry [C: CMQC-PY, MQGO-CONST] ------------------------------------------
inline constexpr std::int32_t MQPER_NOT_PERSISTENT = 0;
inline constexpr std::int32_t MQPER_PERSISTENT = 1;
inline constexpr std::int32_t MQPER_PERSISTENCE_AS_Q_DEF = 2;
inline constexpr std::int32_t MQPRI_PRIORITY_AS_Q_DEF = -1;
inline constexpr std::int32_t MQEI_UNLIMITED = -1;
inline constexpr std::int32_t MQOL_UNDEFINED = -1;

// --- Message flags [C: CMQC-PY, MQGO-CONST] ------------------------------------------------------------
inline constexpr std::int32_t MQMF_NONE = 0x00000000;
inline constexpr std::int32_t MQMF_SEGMENTATION_ALLOWED = 0x00000001;
inline constexpr std::int32_t MQMF_SEGMENT = 0x00000002;
inline constexpr std::int32_t MQMF_LAST_SEGMENT = 0x00000004;
inline constexpr std::int32_t MQMF_MSG_IN_GROUP = 0x00000008;
inline constexpr std::int32_t MQMF_LAST_MSG_IN_GROUP = 0x00000010;
inline constexpr std::int32_t MQMF_REJECT_UNSUP_MASK = 0x00000FFF;
inline constexpr std::int32_t MQMF_ACCEPT_UNSUP_MASK = static_cast<std::int32_t>(0xFFF00000u);
inline constexpr std::int32_t MQMF_ACCEPT_UNSUP_IF_XMIT_MASK = 0x000FF000;

// --- Put application types [C: MQGO-CONST] ----------------------------------------------------------
inline constexpr std::int32_t MQAT_NO_CONTEXT = 0;
inline constexpr std::int32_t MQAT_CICS = 1;
inline constexpr std::int32_t MQAT_ZOS = 2;
inline constexpr std::int32_t MQAT_MVS = 2;
inline constexpr std::int32_t MQAT_IMS = 3;
inline constexpr std::int32_t MQAT_UNIX = 6;
inline constexpr std::int32_t MQAT_QMGR = 7;
inline constexpr std::int32_t MQAT_WINDOWS_NT = 11;
inline constexpr std::int32_t MQAT_IMS_BRIDGE = 19;
inline constexpr std::int32_t MQAT_XCF = 20;
inline constexpr std::int32_t MQAT_CICS_BRIDGE = 21;
inline constexpr std::int32_t MQAT_USER_FIRST = 65536;

// --- Binary "none" values [C: CMQC-PY, MQGO-CONST] -----------------------------------------------------
inline constexpr std::array<std::uint8_t, 24> MQMI_NONE{};
inline constexpr std::array<std::uint8_t, 24> MQCI_NONE{};
inline constexpr std::array<std::uint8_t, 24> MQGI_NONE{};
inline constexpr std::array<std::uint8_t, 32> MQACT_NONE{};
inline constexpr std::array<std::uint8_t, 16> MQITII_NONE{};
inline constexpr std::string_view MQCI_NEW_SESSION = "AMQ!NEW_SESSION_CORRELID";  // CICS bridge only

// --- Field lengths [C: MQGO-CONST]; the others are the MQMD / MQDLH field sizes [C: CMQC-H] -----
inline constexpr std::size_t MQ_FORMAT_LENGTH = 8;
inline constexpr std::size_t MQ_LTERM_OVERRIDE_LENGTH = 8;
inline constexpr std::size_t MQ_MFS_MAP_NAME_LENGTH = 8;
inline constexpr std::size_t MQ_AUTHENTICATOR_LENGTH = 8;
inline constexpr std::size_t MQ_TRAN_INSTANCE_ID_LENGTH = 16;
inline constexpr std::size_t MQ_Q_NAME_LENGTH = 48;
inline constexpr std::size_t MQ_Q_MGR_NAME_LENGTH = 48;
inline constexpr std::size_t MQ_MSG_ID_LENGTH = 24;
inline constexpr std::size_t MQ_CORREL_ID_LENGTH = 24;
inline constexpr std::size_t MQ_GROUP_ID_LENGTH = 24;
inline constexpr std::size_t MQ_USER_ID_LENGTH = 12;
inline constexpr std::size_t MQ_ACCOUNTING_TOKEN_LENGTH = 32;
inline constexpr std::size_t MQ_APPL_IDENTITY_DATA_LENGTH = 32;
inline constexpr std::size_t MQ_PUT_APPL_NAME_LENGTH = 28;
inline constexpr std::size_t MQ_PUT_DATE_LENGTH = 8;
inline constexpr std::size_t MQ_PUT_TIME_LENGTH = 8;
inline constexpr std::size_t MQ_APPL_ORIGIN_DATA_LENGTH = 4;
inline constexpr std::size_t MQ_BRIDGE_NAME_LENGTH = 24;  // [C: BRIDGE-EVENT, MQGO-CONST]

// --- MQMD [C: CMQC-H, CMQC-PY] ---------------------------------------------------------------------
inline constexpr std::string_view MQMD_STRUC_ID = "MD  ";
inline constexpr std::int32_t MQMD_VERSION_1 = 1;
inline constexpr std::int32_t MQMD_VERSION_2 = 2;
inline constexpr std::int32_t MQMD_CURRENT_VERSION = 2;
inline constexpr std::size_t MQMD_LENGTH_1 = 324;
inline constexpr std::size_t MQMD_LENGTH_2 = 364;
inline constexpr std::size_t MQMD_CURRENT_LENGTH = 364;

// --- MQIIH [C: CMQC-PY] --------------------------------------------------------------------------------
inline constexpr std::string_view MQIIH_STRUC_ID = "IIH ";
inline constexpr std::int32_t MQIIH_VERSION_1 = 1;
inline constexpr std::int32_t MQIIH_CURRENT_VERSION = 1;
inline constexpr std::size_t MQIIH_LENGTH_1 = 84;
inline constexpr std::size_t MQIIH_CURRENT_LENGTH = 84;
inline constexpr std::int32_t MQIIH_NONE = 0x00000000;
inline constexpr std::int32_t MQIIH_PASS_EXPIRATION = 0x00000001;
inline constexpr std::int32_t MQIIH_UNLIMITED_EXPIRATION = 0x00000000;
inline constexpr std::int32_t MQIIH_REPLY_FORMAT_NONE = 0x00000008;
inline constexpr std::int32_t MQIIH_IGNORE_PURG = 0x00000010;
inline constexpr std::int32_t MQIIH_CM0_REQUEST_RESPONSE = 0x00000020;
inline constexpr std::string_view MQIAUT_NONE = "        ";
// Character values, compared as characters after conversion to CCSID 819, not as bytes: they are
// characters of the MQIIH's CCSID (EBCDIC on z/OS) [I], so comparing characters is our rule [D].
inline constexpr char MQITS_IN_CONVERSATION = 'C';
inline constexpr char MQITS_NOT_IN_CONVERSATION = ' ';
inline constexpr char MQITS_ARCHITECTED = 'A';
inline constexpr char MQICM_COMMIT_THEN_SEND = '0';
inline constexpr char MQICM_SEND_THEN_COMMIT = '1';
inline constexpr char MQISS_CHECK = 'C';
inline constexpr char MQISS_FULL = 'F';

// --- MQDLH [C: CMQC-H, MQGO-DLH] -------------------------------------------------------------------
inline constexpr std::string_view MQDLH_STRUC_ID = "DLH ";
inline constexpr std::int32_t MQDLH_VERSION_1 = 1;
inline constexpr std::int32_t MQDLH_CURRENT_VERSION = 1;
inline constexpr std::size_t MQDLH_LENGTH_1 = 172;
inline constexpr std::size_t MQDLH_CURRENT_LENGTH = 172;

// --- MQXQH [C: CMQC-H, XQH-DOC] --------------------------------------------------------------------
inline constexpr std::string_view MQXQH_STRUC_ID = "XQH ";
inline constexpr std::int32_t MQXQH_VERSION_1 = 1;
inline constexpr std::int32_t MQXQH_CURRENT_VERSION = 1;
inline constexpr std::size_t MQXQH_LENGTH_1 = 428;
inline constexpr std::size_t MQXQH_CURRENT_LENGTH = 428;
inline constexpr std::int32_t MQUS_NORMAL = 0;
inline constexpr std::int32_t MQUS_TRANSMISSION = 1;

// --- Feedback [C: CMQC-PY, FB-TABLE-ZH] -------------------------------------------------------------
inline constexpr std::int32_t MQFB_NONE = 0;
inline constexpr std::int32_t MQFB_SYSTEM_FIRST = 1;
inline constexpr std::int32_t MQFB_QUIT = 256;
inline constexpr std::int32_t MQFB_EXPIRATION = 258;
inline constexpr std::int32_t MQFB_COA = 259;
inline constexpr std::int32_t MQFB_COD = 260;
inline constexpr std::int32_t MQFB_CHANNEL_COMPLETED = 262;
inline constexpr std::int32_t MQFB_CHANNEL_FAIL_RETRY = 263;
inline constexpr std::int32_t MQFB_CHANNEL_FAIL = 264;
inline constexpr std::int32_t MQFB_APPL_CANNOT_BE_STARTED = 265;
inline constexpr std::int32_t MQFB_TM_ERROR = 266;
inline constexpr std::int32_t MQFB_APPL_TYPE_ERROR = 267;
inline constexpr std::int32_t MQFB_STOPPED_BY_MSG_EXIT = 268;
inline constexpr std::int32_t MQFB_XMIT_Q_MSG_ERROR = 271;
inline constexpr std::int32_t MQFB_PAN = 275;
inline constexpr std::int32_t MQFB_NAN = 276;
inline constexpr std::int32_t MQFB_SYSTEM_LAST = 65535;
inline constexpr std::int32_t MQFB_APPL_FIRST = 65536;
inline constexpr std::int32_t MQFB_APPL_LAST = 999999999;
// IMS bridge feedback values [C: CMQC-PY, IMS-FB-CODES] (meanings of 292..300 are [I]).
inline constexpr std::int32_t MQFB_DATA_LENGTH_ZERO = 291;
inline constexpr std::int32_t MQFB_DATA_LENGTH_NEGATIVE = 292;
inline constexpr std::int32_t MQFB_DATA_LENGTH_TOO_BIG = 293;
inline constexpr std::int32_t MQFB_BUFFER_OVERFLOW = 294;
inline constexpr std::int32_t MQFB_LENGTH_OFF_BY_ONE = 295;
inline constexpr std::int32_t MQFB_IIH_ERROR = 296;
inline constexpr std::int32_t MQFB_NOT_AUTHORIZED_FOR_IMS = 298;
inline constexpr std::int32_t MQFB_IMS_ERROR = 300;
inline constexpr std::int32_t MQFB_IMS_FIRST = 301;  // 300 + IMS-OTMA NAK sense code (not X'1A')
inline constexpr std::int32_t MQFB_IMS_LAST = 399;
inline constexpr std::int32_t MQFB_IMS_NACK_1A_REASON_FIRST = 600;  // 600 + reason of NAK sense X'1A'
inline constexpr std::int32_t MQFB_IMS_NACK_1A_REASON_LAST = 855;

// --- Reason codes [C: CMQC-PY] -------------------------------------------------------------------------
inline constexpr std::int32_t MQRC_NONE = 0;
// Reason codes an application or exit may define for itself: IBM's cmqc.h (MQ 9.1.1) [C: CMQC-H].
// describe_reason() names the values inside the range.
inline constexpr std::int32_t MQRC_APPL_FIRST = 900;
inline constexpr std::int32_t MQRC_APPL_LAST = 999;
inline constexpr std::int32_t MQRC_ALIAS_BASE_Q_TYPE_ERROR = 2001;
inline constexpr std::int32_t MQRC_CONNECTION_BROKEN = 2009;        // client connection lost
inline constexpr std::int32_t MQRC_HCONN_ERROR = 2018;              // call after MQDISC
inline constexpr std::int32_t MQRC_MAX_CONNS_LIMIT_REACHED = 2025;  // server_options.max_connections
inline constexpr std::int32_t MQRC_EXPIRY_ERROR = 2013;
inline constexpr std::int32_t MQRC_FEEDBACK_ERROR = 2014;
inline constexpr std::int32_t MQRC_GET_INHIBITED = 2016;
inline constexpr std::int32_t MQRC_HOBJ_ERROR = 2019;  // the queue-manager engine
inline constexpr std::int32_t MQRC_MD_ERROR = 2026;
inline constexpr std::int32_t MQRC_MISSING_REPLY_TO_Q = 2027;
inline constexpr std::int32_t MQRC_MSG_TYPE_ERROR = 2029;
inline constexpr std::int32_t MQRC_MSG_TOO_BIG_FOR_Q = 2030;
inline constexpr std::int32_t MQRC_MSG_TOO_BIG_FOR_Q_MGR = 2031;
inline constexpr std::int32_t MQRC_NO_MSG_AVAILABLE = 2033;
inline constexpr std::int32_t MQRC_NO_MSG_UNDER_CURSOR = 2034;      // the queue-manager engine
inline constexpr std::int32_t MQRC_SYNCPOINT_LIMIT_REACHED = 2024;  // MAXUMSGS
inline constexpr std::int32_t MQRC_NOT_AUTHORIZED = 2035;
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_BROWSE = 2036;   // the queue-manager engine
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_INPUT = 2037;    // the queue-manager engine
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_INQUIRE = 2038;  // the queue-manager engine
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_OUTPUT = 2039;   // the queue-manager engine
inline constexpr std::int32_t MQRC_OBJECT_IN_USE = 2042;
inline constexpr std::int32_t MQRC_OPTION_NOT_VALID_FOR_TYPE = 2045;
inline constexpr std::int32_t MQRC_OPTIONS_ERROR = 2046;  // the queue-manager engine
inline constexpr std::int32_t MQRC_PERSISTENCE_ERROR = 2047;
inline constexpr std::int32_t MQRC_PERSISTENT_NOT_ALLOWED = 2048;
inline constexpr std::int32_t MQRC_PRIORITY_ERROR = 2050;
inline constexpr std::int32_t MQRC_PUT_INHIBITED = 2051;
inline constexpr std::int32_t MQRC_Q_DELETED = 2052;  // the queue-manager engine
inline constexpr std::int32_t MQRC_Q_FULL = 2053;
inline constexpr std::int32_t MQRC_Q_NOT_EMPTY = 2055;            // the queue-manager engine
inline constexpr std::int32_t MQRC_Q_SPACE_NOT_AVAILABLE = 2056;  // log file system full
inline constexpr std::int32_t MQRC_Q_TYPE_ERROR = 2057;
inline constexpr std::int32_t MQRC_Q_MGR_NAME_ERROR = 2058;     // connect()
inline constexpr std::int32_t MQRC_Q_MGR_NOT_AVAILABLE = 2059;  // connect()
inline constexpr std::int32_t MQRC_REPORT_OPTIONS_ERROR = 2061;
inline constexpr std::int32_t MQRC_TRUNCATED_MSG_FAILED = 2080;
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_PASS_ALL = 2093;    // the queue-manager engine
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_PASS_IDENT = 2094;  // the queue-manager engine
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_SET_ALL = 2095;     // the queue-manager engine
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_SET_IDENT = 2096;   // the queue-manager engine
inline constexpr std::int32_t MQRC_UNKNOWN_ALIAS_BASE_Q = 2082;
inline constexpr std::int32_t MQRC_UNKNOWN_OBJECT_NAME = 2085;
inline constexpr std::int32_t MQRC_UNKNOWN_OBJECT_Q_MGR = 2086;
inline constexpr std::int32_t MQRC_UNKNOWN_REMOTE_Q_MGR = 2087;
inline constexpr std::int32_t MQRC_XMIT_Q_TYPE_ERROR = 2091;
inline constexpr std::int32_t MQRC_XMIT_Q_USAGE_ERROR = 2092;
inline constexpr std::int32_t MQRC_OBJECT_DAMAGED = 2101;
inline constexpr std::int32_t MQRC_RESOURCE_PROBLEM = 2102;  // the log failed
inline constexpr std::int32_t MQRC_STORAGE_CLASS_ERROR = 2105;
inline constexpr std::int32_t MQRC_FORMAT_ERROR = 2110;
inline constexpr std::int32_t MQRC_NOT_CONVERTED = 2119;
inline constexpr std::int32_t MQRC_CONVERTED_MSG_TOO_BIG = 2120;
inline constexpr std::int32_t MQRC_BRIDGE_STARTED = 2125;
inline constexpr std::int32_t MQRC_BRIDGE_STOPPED = 2126;
inline constexpr std::int32_t MQRC_DLH_ERROR = 2141;
inline constexpr std::int32_t MQRC_HEADER_ERROR = 2142;
inline constexpr std::int32_t MQRC_IIH_ERROR = 2148;
inline constexpr std::int32_t MQRC_Q_MGR_QUIESCING = 2161;
inline constexpr std::int32_t MQRC_Q_MGR_STOPPING = 2162;  // a call after the engine ended
inline constexpr std::int32_t MQRC_REMOTE_Q_NAME_ERROR = 2184;
inline constexpr std::int32_t MQRC_PAGESET_FULL = 2192;
inline constexpr std::int32_t MQRC_UNEXPECTED_ERROR = 2195;  // an error without an MQRC
inline constexpr std::int32_t MQRC_UNKNOWN_XMIT_Q = 2196;
inline constexpr std::int32_t MQRC_UNKNOWN_DEF_XMIT_Q = 2197;
inline constexpr std::int32_t MQRC_DEF_XMIT_Q_TYPE_ERROR = 2198;
inline constexpr std::int32_t MQRC_DEF_XMIT_Q_USAGE_ERROR = 2199;
inline constexpr std::int32_t MQRC_XQH_ERROR = 2260;
inline constexpr std::int32_t MQRC_BACKOUT_THRESHOLD_REACHED = 2362;
inline constexpr std::int32_t MQRC_HOST_NOT_AVAILABLE = 2538;  // connect() over TCP
// The MQI contract's reasons (imsb/mqi/connection.hpp): MQINQ, MQOPEN of the queue manager, truncation
// accepted, a connection stopped [C] IBM's cmqc.h values and the MQINQ / MQOPEN / MQGET reason lists.
inline constexpr std::int32_t MQRC_CHAR_ATTR_LENGTH_ERROR = 2006;
inline constexpr std::int32_t MQRC_INT_ATTR_COUNT_ERROR = 2021;
inline constexpr std::int32_t MQRC_OBJECT_TYPE_ERROR = 2043;
inline constexpr std::int32_t MQRC_SELECTOR_COUNT_ERROR = 2065;
inline constexpr std::int32_t MQRC_SELECTOR_LIMIT_EXCEEDED = 2066;
inline constexpr std::int32_t MQRC_SELECTOR_ERROR = 2067;
inline constexpr std::int32_t MQRC_SELECTOR_NOT_FOR_TYPE = 2068;
inline constexpr std::int32_t MQRC_TRUNCATED_MSG_ACCEPTED = 2079;
inline constexpr std::int32_t MQRC_CONNECTION_QUIESCING = 2202;
inline constexpr std::int32_t MQRC_CONNECTION_STOPPING = 2203;
inline constexpr std::int32_t MQRC_INHIBIT_VALUE_ERROR = 2020;
inline constexpr std::int32_t MQRC_NOT_OPEN_FOR_SET = 2040;
inline constexpr std::int32_t MQRC_TRIGGER_CONTROL_ERROR = 2075;
inline constexpr std::int32_t MQRC_TRIGGER_DEPTH_ERROR = 2076;
inline constexpr std::int32_t MQRC_TRIGGER_MSG_PRIORITY_ERR = 2077;
inline constexpr std::int32_t MQRC_TRIGGER_TYPE_ERROR = 2078;
// MQGMO_SET_SIGNAL [C] IBM's cmqc.h values; IBM MQ, "2070 (0816) (RC2070): MQRC_SIGNAL_REQUEST_ACCEPTED"
// (https://www.ibm.com/docs/SSFKSJ_9.3.0/reference/q041380_.html).
inline constexpr std::int32_t MQRC_SIGNAL_OUTSTANDING = 2069;
inline constexpr std::int32_t MQRC_SIGNAL_REQUEST_ACCEPTED = 2070;
inline constexpr std::int32_t MQRC_WAIT_INTERVAL_ERROR = 2090;
inline constexpr std::int32_t MQRC_SIGNAL1_ERROR = 2099;
// MQCB / MQCTL and MQBEGIN [C] IBM's cmqc.h values; when each is given: IBM MQ, "MQCB - Manage callback"
// (https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101720_.html), "MQCTL - Control callbacks"
// (https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101790_.html), "MQBEGIN - Begin unit of
// work".
inline constexpr std::int32_t MQRC_ENVIRONMENT_ERROR = 2012;
inline constexpr std::int32_t MQRC_NO_EXTERNAL_PARTICIPANTS = 2121;
inline constexpr std::int32_t MQRC_UOW_IN_PROGRESS = 2128;
inline constexpr std::int32_t MQRC_CBD_ERROR = 2444;
inline constexpr std::int32_t MQRC_NO_CALLBACKS_ACTIVE = 2446;
inline constexpr std::int32_t MQRC_CALLBACK_NOT_REGISTERED = 2448;
inline constexpr std::int32_t MQRC_CALLBACK_TYPE_ERROR = 2483;
inline constexpr std::int32_t MQRC_CBD_OPTIONS_ERROR = 2484;
inline constexpr std::int32_t MQRC_CALLBACK_ROUTINE_ERROR = 2486;
inline constexpr std::int32_t MQRC_OPERATION_ERROR = 2488;
inline constexpr std::int32_t MQRC_HCONN_ASYNC_ACTIVE = 2500;
inline constexpr std::int32_t MQRC_CONNECTION_SUSPENDED = 2521;
inline constexpr std::int32_t MQRC_CONNECTION_STOPPED = 2528;
inline constexpr std::int32_t MQRC_OPERATION_NOT_ALLOWED = 2534;
inline constexpr std::int32_t MQRC_STAT_TYPE_ERROR = 2430;

// --- MQPUT / MQOPEN / MQGET options [C: CMQC-PY, MQGO-CONST] ---------------------------------------
inline constexpr std::int32_t MQPMO_NONE = 0x00000000;
inline constexpr std::int32_t MQPMO_SYNCPOINT = 0x00000002;
inline constexpr std::int32_t MQPMO_NO_SYNCPOINT = 0x00000004;
inline constexpr std::int32_t MQPMO_DEFAULT_CONTEXT = 0x00000020;
inline constexpr std::int32_t MQPMO_NEW_MSG_ID = 0x00000040;
inline constexpr std::int32_t MQPMO_NEW_CORREL_ID = 0x00000080;
inline constexpr std::int32_t MQPMO_PASS_IDENTITY_CONTEXT = 0x00000100;
inline constexpr std::int32_t MQPMO_PASS_ALL_CONTEXT = 0x00000200;
inline constexpr std::int32_t MQPMO_SET_IDENTITY_CONTEXT = 0x00000400;
inline constexpr std::int32_t MQPMO_SET_ALL_CONTEXT = 0x00000800;
inline constexpr std::int32_t MQPMO_NO_CONTEXT = 0x00004000;
inline constexpr std::int32_t MQPMO_FAIL_IF_QUIESCING = 0x00002000;  // the queue-manager engine

inline constexpr std::int32_t MQOO_INPUT_AS_Q_DEF = 0x00000001;
inline constexpr std::int32_t MQOO_INPUT_SHARED = 0x00000002;
inline constexpr std::int32_t MQOO_INPUT_EXCLUSIVE = 0x00000004;
inline constexpr std::int32_t MQOO_BROWSE = 0x00000008;
inline constexpr std::int32_t MQOO_OUTPUT = 0x00000010;
inline constexpr std::int32_t MQOO_INQUIRE = 0x00000020;
inline constexpr std::int32_t MQOO_SET = 0x00000040;
inline constexpr std::int32_t MQOO_PASS_IDENTITY_CONTEXT = 0x00000080;
inline constexpr std::int32_t MQOO_PASS_ALL_CONTEXT = 0x00000100;
inline constexpr std::int32_t MQOO_SAVE_ALL_CONTEXT = 0x00000200;
inline constexpr std::int32_t MQOO_SET_IDENTITY_CONTEXT = 0x00000400;
inline constexpr std::int32_t MQOO_SET_ALL_CONTEXT = 0x00000800;
inline constexpr std::int32_t MQOO_FAIL_IF_QUIESCING = 0x00002000;
inline constexpr std::int32_t MQOO_RESOLVE_LOCAL_Q = 0x00040000;

inline constexpr std::int32_t MQGMO_NONE = 0x00000000;
inline constexpr std::int32_t MQGMO_WAIT = 0x00000001;
inline constexpr std::int32_t MQGMO_SYNCPOINT = 0x00000002;
inline constexpr std::int32_t MQGMO_NO_WAIT = 0x00000000;
inline constexpr std::int32_t MQGMO_NO_SYNCPOINT = 0x00000004;
inline constexpr std::int32_t MQGMO_SET_SIGNAL = 0x00000008;  // IBM MQ for z/OS; here the in-process backend
inline constexpr std::int32_t MQGMO_BROWSE_FIRST = 0x00000010;
inline constexpr std::int32_t MQGMO_BROWSE_NEXT = 0x00000020;
inline constexpr std::int32_t MQGMO_ACCEPT_TRUNCATED_MSG = 0x00000040;
inline constexpr std::int32_t MQGMO_MSG_UNDER_CURSOR = 0x00000100;
inline constexpr std::int32_t MQGMO_LOCK = 0x00000200;
inline constexpr std::int32_t MQGMO_BROWSE_MSG_UNDER_CURSOR = 0x00000800;  // the queue-manager engine
inline constexpr std::int32_t MQGMO_SYNCPOINT_IF_PERSISTENT = 0x00001000;  // the queue-manager engine
inline constexpr std::int32_t MQGMO_FAIL_IF_QUIESCING = 0x00002000;
inline constexpr std::int32_t MQGMO_CONVERT = 0x00004000;

inline constexpr std::int32_t MQWI_UNLIMITED = -1;

// Signal completion codes (MQGMO_SET_SIGNAL's Signal1) [C] IBM's cmqc.h; IBM MQ, "Signal1 (MQLONG)"
// (https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q096850_.html).
inline constexpr std::int32_t MQEC_MSG_ARRIVED = 2;
inline constexpr std::int32_t MQEC_WAIT_INTERVAL_EXPIRED = 3;
inline constexpr std::int32_t MQEC_WAIT_CANCELED = 4;
inline constexpr std::int32_t MQEC_Q_MGR_QUIESCING = 5;
inline constexpr std::int32_t MQEC_CONNECTION_QUIESCING = 6;

// --- Object types (MQOD.ObjectType), MQINQ selectors and their values [C] IBM's cmqc.h; which object
// type takes which selector: IBM MQ, "MQINQ - Inquire object attributes"
// (https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q101840_.html) -----------------------------------------
inline constexpr std::int32_t MQOT_Q = 1;
inline constexpr std::int32_t MQOT_NAMELIST = 2;
inline constexpr std::int32_t MQOT_PROCESS = 3;
inline constexpr std::int32_t MQOT_STORAGE_CLASS = 4;
inline constexpr std::int32_t MQOT_Q_MGR = 5;

inline constexpr std::int32_t MQIA_FIRST = 1;
inline constexpr std::int32_t MQIA_CODED_CHAR_SET_ID = 2;
inline constexpr std::int32_t MQIA_CURRENT_Q_DEPTH = 3;
inline constexpr std::int32_t MQIA_DEF_INPUT_OPEN_OPTION = 4;
inline constexpr std::int32_t MQIA_DEF_PERSISTENCE = 5;
inline constexpr std::int32_t MQIA_DEF_PRIORITY = 6;
inline constexpr std::int32_t MQIA_INHIBIT_GET = 9;
inline constexpr std::int32_t MQIA_INHIBIT_PUT = 10;
inline constexpr std::int32_t MQIA_USAGE = 12;
inline constexpr std::int32_t MQIA_MAX_MSG_LENGTH = 13;
inline constexpr std::int32_t MQIA_MAX_PRIORITY = 14;
inline constexpr std::int32_t MQIA_MAX_Q_DEPTH = 15;
inline constexpr std::int32_t MQIA_OPEN_INPUT_COUNT = 17;
inline constexpr std::int32_t MQIA_OPEN_OUTPUT_COUNT = 18;
inline constexpr std::int32_t MQIA_Q_TYPE = 20;
inline constexpr std::int32_t MQIA_BACKOUT_THRESHOLD = 22;
inline constexpr std::int32_t MQIA_SHAREABILITY = 23;
inline constexpr std::int32_t MQIA_TRIGGER_CONTROL = 24;
inline constexpr std::int32_t MQIA_TRIGGER_MSG_PRIORITY = 26;
inline constexpr std::int32_t MQIA_TRIGGER_TYPE = 28;
inline constexpr std::int32_t MQIA_TRIGGER_DEPTH = 29;
inline constexpr std::int32_t MQIA_SYNCPOINT = 30;
inline constexpr std::int32_t MQIA_COMMAND_LEVEL = 31;
inline constexpr std::int32_t MQIA_PLATFORM = 32;
inline constexpr std::int32_t MQIA_MAX_UNCOMMITTED_MSGS = 33;
inline constexpr std::int32_t MQIA_LAST = 2000;
inline constexpr std::int32_t MQCA_FIRST = 2001;
inline constexpr std::int32_t MQCA_BASE_Q_NAME = 2002;
inline constexpr std::int32_t MQCA_DEAD_LETTER_Q_NAME = 2006;
inline constexpr std::int32_t MQCA_Q_DESC = 2013;
inline constexpr std::int32_t MQCA_Q_MGR_DESC = 2014;
inline constexpr std::int32_t MQCA_Q_MGR_NAME = 2015;
inline constexpr std::int32_t MQCA_Q_NAME = 2016;
inline constexpr std::int32_t MQCA_REMOTE_Q_MGR_NAME = 2017;
inline constexpr std::int32_t MQCA_REMOTE_Q_NAME = 2018;
inline constexpr std::int32_t MQCA_BACKOUT_REQ_Q_NAME = 2019;
inline constexpr std::int32_t MQCA_STORAGE_CLASS = 2022;
inline constexpr std::int32_t MQCA_TRIGGER_DATA = 2023;
inline constexpr std::int32_t MQCA_XMIT_Q_NAME = 2024;
inline constexpr std::int32_t MQCA_DEF_XMIT_Q_NAME = 2025;
inline constexpr std::int32_t MQCA_LAST = 4000;
inline constexpr std::size_t MQ_Q_DESC_LENGTH = 64;
inline constexpr std::size_t MQ_Q_MGR_DESC_LENGTH = 64;
inline constexpr std::size_t MQ_STORAGE_CLASS_LENGTH = 8;
inline constexpr std::size_t MQ_TRIGGER_DATA_LENGTH = 64;
inline constexpr std::size_t MQINQ_MAX_SELECTORS = 256;  // SelectorCount's maximum [C] the MQINQ topic

inline constexpr std::int32_t MQQT_LOCAL = 1;
inline constexpr std::int32_t MQQT_MODEL = 2;
inline constexpr std::int32_t MQQT_ALIAS = 3;
inline constexpr std::int32_t MQQT_REMOTE = 6;
inline constexpr std::int32_t MQQT_ALL = 1001;  // Inquire Queue: every type
inline constexpr std::int32_t MQQA_GET_ALLOWED = 0;
inline constexpr std::int32_t MQQA_GET_INHIBITED = 1;
inline constexpr std::int32_t MQQA_PUT_ALLOWED = 0;
inline constexpr std::int32_t MQQA_PUT_INHIBITED = 1;
inline constexpr std::int32_t MQQA_NOT_SHAREABLE = 0;
inline constexpr std::int32_t MQQA_SHAREABLE = 1;
inline constexpr std::int32_t MQSP_AVAILABLE = 1;
inline constexpr std::int32_t MQTC_OFF = 0;
inline constexpr std::int32_t MQTC_ON = 1;
inline constexpr std::int32_t MQTT_NONE = 0;
inline constexpr std::int32_t MQTT_FIRST = 1;
inline constexpr std::int32_t MQTT_EVERY = 2;
inline constexpr std::int32_t MQTT_DEPTH = 3;
inline constexpr std::int32_t MQPL_ZOS = 1;
inline constexpr std::int32_t MQPL_UNIX = 3;  // AIX, Linux and the other UNIX systems

// MQCB and MQCTL [C] IBM's cmqc.h (MQOP_*, MQCBT_*, MQCBCT_*, MQCBDO_*, MQCS_*).
inline constexpr std::int32_t MQOP_START = 0x00000001;
inline constexpr std::int32_t MQOP_START_WAIT = 0x00000002;
inline constexpr std::int32_t MQOP_STOP = 0x00000004;
inline constexpr std::int32_t MQOP_REGISTER = 0x00000100;
inline constexpr std::int32_t MQOP_DEREGISTER = 0x00000200;
inline constexpr std::int32_t MQOP_SUSPEND = 0x00010000;
inline constexpr std::int32_t MQOP_RESUME = 0x00020000;
inline constexpr std::int32_t MQCBT_MESSAGE_CONSUMER = 0x00000001;
inline constexpr std::int32_t MQCBT_EVENT_HANDLER = 0x00000002;
inline constexpr std::int32_t MQCBCT_START_CALL = 1;
inline constexpr std::int32_t MQCBCT_STOP_CALL = 2;
inline constexpr std::int32_t MQCBCT_REGISTER_CALL = 3;
inline constexpr std::int32_t MQCBCT_DEREGISTER_CALL = 4;
inline constexpr std::int32_t MQCBCT_EVENT_CALL = 5;
inline constexpr std::int32_t MQCBCT_MSG_REMOVED = 6;
inline constexpr std::int32_t MQCBCT_MSG_NOT_REMOVED = 7;
inline constexpr std::int32_t MQCBDO_NONE = 0x00000000;
inline constexpr std::int32_t MQCBDO_START_CALL = 0x00000001;
inline constexpr std::int32_t MQCBDO_STOP_CALL = 0x00000004;
inline constexpr std::int32_t MQCBDO_REGISTER_CALL = 0x00000100;
inline constexpr std::int32_t MQCBDO_DEREGISTER_CALL = 0x00000200;
inline constexpr std::int32_t MQCBDO_FAIL_IF_QUIESCING = 0x00002000;
inline constexpr std::int32_t MQCBDO_EVENT_CALL = 0x00004000;
inline constexpr std::int32_t MQCS_NONE = 0;
inline constexpr std::int32_t MQCS_SUSPENDED_TEMPORARY = 1;
inline constexpr std::int32_t MQCS_SUSPENDED_USER_ACTION = 2;
inline constexpr std::int32_t MQCS_SUSPENDED = 3;
inline constexpr std::int32_t MQCS_STOPPED = 4;
// MQSTAT [C] IBM's cmqc.h; IBM MQ, "MQSTAT - Retrieve status information"
// (https://www.ibm.com/docs/SSFKSJ_9.4.0/refdev/q101920_.html).
inline constexpr std::int32_t MQSTAT_TYPE_ASYNC_ERROR = 0;
inline constexpr std::int32_t MQSTAT_TYPE_RECONNECTION = 1;
inline constexpr std::int32_t MQSTAT_TYPE_RECONNECTION_ERROR = 2;
inline constexpr std::int32_t MQHO_NONE = 0;
inline constexpr std::int32_t MQHO_UNUSABLE_HOBJ = -1;

inline constexpr std::int32_t MQMO_NONE = 0x00000000;
inline constexpr std::int32_t MQMO_MATCH_MSG_ID = 0x00000001;
inline constexpr std::int32_t MQMO_MATCH_CORREL_ID = 0x00000002;
inline constexpr std::int32_t MQMO_MATCH_MSG_TOKEN = 0x00000020;

}  // namespace imsb::mq
