#include "imsb/mq/codes.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"
#include "vectors.hpp"

namespace imsb::mq {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

TEST(MqCodes, LookupBothWays) {
  const code_info* by_value = find_mqrc(2148);
  ASSERT_NE(by_value, nullptr);
  EXPECT_EQ(by_value->name, "MQRC_IIH_ERROR");
  const code_info* by_name = find_mqrc("MQRC_IIH_ERROR");
  ASSERT_NE(by_name, nullptr);
  EXPECT_EQ(by_name->value, 2148);
  EXPECT_EQ(by_name, by_value);

  ASSERT_NE(find_mqfb(296), nullptr);
  EXPECT_EQ(find_mqfb(296)->name, "MQFB_IIH_ERROR");
  ASSERT_NE(find_mqfb("MQFB_DATA_LENGTH_ZERO"), nullptr);
  EXPECT_EQ(find_mqfb("MQFB_DATA_LENGTH_ZERO")->value, 291);

  EXPECT_EQ(find_mqrc(2015), nullptr);  // a gap in IBM's numbering
  EXPECT_EQ(find_mqrc(-1), nullptr);
  EXPECT_EQ(find_mqrc("MQRC_NO_SUCH_THING"), nullptr);
  EXPECT_EQ(find_mqrc("MQFB_IIH_ERROR"), nullptr);  // the tables are separate
  EXPECT_EQ(find_mqfb(297), nullptr);
  EXPECT_EQ(find_mqfb(""), nullptr);
}

void expect_table_consistent(const std::vector<code_info>& table, std::string_view prefix,
                             const code_info* (*by_value)(std::int32_t),
                             const code_info* (*by_name)(std::string_view)) {
  ASSERT_FALSE(table.empty());
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const code_info& c = table[i];
    SCOPED_TRACE(std::string(c.name));
    EXPECT_EQ(c.name.substr(0, prefix.size()), prefix);
    EXPECT_FALSE(c.meaning.empty());
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate name";
    if (i > 0) {
      EXPECT_LT(table[i - 1].value, c.value) << "not in value order";
    }
    ASSERT_NE(by_value(c.value), nullptr);
    EXPECT_EQ(by_value(c.value)->name, c.name);
    ASSERT_NE(by_name(c.name), nullptr);
    EXPECT_EQ(by_name(c.name)->value, c.value);
  }
}

TEST(MqCodes, TablesAreConsistent) {
  expect_table_consistent(all_mqrc(), "MQRC_", find_mqrc, find_mqrc);
  expect_table_consistent(all_mqfb(), "MQFB_", find_mqfb, find_mqfb);
}

// Every MQRC_/MQFB_ constant in constants.hpp has a table entry with the same value: read from the
// header's text, so a constant added without a table entry fails here. (Not the other way round: most
// table entries carry their value without a constant.)
TEST(MqCodes, EveryConstantInConstantsHppIsInTheTables) {
  const std::string header =
      test::read_text(test::vectors_dir() + "/../../portable/include/imsb/mq/constants.hpp");
  const std::regex def(R"(inline constexpr std::int32_t (MQ(RC|FB)_[A-Z0-9_]+) = (-?(0x)?[0-9A-Fa-f]+);)");
  int rc_count = 0;
  int fb_count = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), def); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[1];
    const auto value = static_cast<std::int32_t>(std::strtol((*it)[3].str().c_str(), nullptr, 0));
    SCOPED_TRACE(name);
    const bool is_rc = (*it)[2] == "RC";
    (is_rc ? rc_count : fb_count)++;
    const code_info* by_name = is_rc ? find_mqrc(name) : find_mqfb(name);
    ASSERT_NE(by_name, nullptr) << "no table entry";
    EXPECT_EQ(by_name->value, value);
    const code_info* by_value = is_rc ? find_mqrc(value) : find_mqfb(value);
    ASSERT_NE(by_value, nullptr);
    EXPECT_EQ(by_value->value, value);
  }
  EXPECT_LE(rc_count, static_cast<int>(all_mqrc().size()));
  EXPECT_LE(fb_count, static_cast<int>(all_mqfb().size()));
  EXPECT_GE(rc_count, 48);
  EXPECT_GE(fb_count, 31);
}

TEST(MqCodes, CompiledConstantsMatchTheirEntries) {
  const std::pair<std::int32_t, const char*> rcs[] = {
      {MQRC_IIH_ERROR, "MQRC_IIH_ERROR"},
      {MQRC_MD_ERROR, "MQRC_MD_ERROR"},
      {MQRC_DLH_ERROR, "MQRC_DLH_ERROR"},
      {MQRC_XQH_ERROR, "MQRC_XQH_ERROR"},
      {MQRC_FORMAT_ERROR, "MQRC_FORMAT_ERROR"},
      {MQRC_UNKNOWN_REMOTE_Q_MGR, "MQRC_UNKNOWN_REMOTE_Q_MGR"},
      {MQRC_Q_FULL, "MQRC_Q_FULL"},
      {MQRC_BRIDGE_STOPPED, "MQRC_BRIDGE_STOPPED"},
  };
  for (const auto& [value, name] : rcs) EXPECT_EQ(find_mqrc(value)->name, name);
  const std::pair<std::int32_t, const char*> fbs[] = {
      {MQFB_IIH_ERROR, "MQFB_IIH_ERROR"},   {MQFB_NOT_AUTHORIZED_FOR_IMS, "MQFB_NOT_AUTHORIZED_FOR_IMS"},
      {MQFB_IMS_ERROR, "MQFB_IMS_ERROR"},   {MQFB_IMS_NACK_1A_REASON_LAST, "MQFB_IMS_NACK_1A_REASON_LAST"},
      {MQFB_EXPIRATION, "MQFB_EXPIRATION"},
  };
  for (const auto& [value, name] : fbs) EXPECT_EQ(find_mqfb(value)->name, name);
  EXPECT_EQ(MQRC_IIH_ERROR, 0x864);
  EXPECT_EQ(MQRC_BRIDGE_STARTED, 0x84D);
  EXPECT_EQ(MQFB_IMS_LAST, 0x18F);
  EXPECT_EQ(MQFB_IMS_NACK_1A_REASON_LAST, 0x357);
}

// Names and values copied by hand from IBM's published constants (the sources named on each group below,
// not constants.hpp), so that a wrong constant or table entry cannot agree with itself. `constant` is the
// compiled constant of that name; `spec` values are written as the sources write them (hex bit patterns as
// unsigned).
struct spec_value {
  const char* name;
  std::uint32_t spec;      // from the source
  std::uint32_t constant;  // from constants.hpp
};

template <class T>
constexpr std::uint32_t bits(T v) {
  return static_cast<std::uint32_t>(v);
}

const spec_value spec_values[] = {
    // [C: MQENC-TABLE]: the integer part of an Encoding.
    {"MQENC_INTEGER_MASK", 0x0F, bits(MQENC_INTEGER_MASK)},
    {"MQENC_INTEGER_NORMAL", 1, bits(MQENC_INTEGER_NORMAL)},
    {"MQENC_INTEGER_REVERSED", 2, bits(MQENC_INTEGER_REVERSED)},
    // MQIIH constants [C: CMQC-PY, MQGO-CONST].
    {"MQIIH_VERSION_1", 1, bits(MQIIH_VERSION_1)},
    {"MQIIH_CURRENT_VERSION", 1, bits(MQIIH_CURRENT_VERSION)},
    {"MQIIH_LENGTH_1", 84, bits(MQIIH_LENGTH_1)},
    {"MQIIH_CURRENT_LENGTH", 84, bits(MQIIH_CURRENT_LENGTH)},
    {"MQIIH_NONE", 0x00000000, bits(MQIIH_NONE)},
    {"MQIIH_PASS_EXPIRATION", 0x00000001, bits(MQIIH_PASS_EXPIRATION)},
    {"MQIIH_UNLIMITED_EXPIRATION", 0x00000000, bits(MQIIH_UNLIMITED_EXPIRATION)},
    {"MQIIH_REPLY_FORMAT_NONE", 0x00000008, bits(MQIIH_REPLY_FORMAT_NONE)},
    {"MQIIH_IGNORE_PURG", 0x00000010, bits(MQIIH_IGNORE_PURG)},
    {"MQIIH_CM0_REQUEST_RESPONSE", 0x00000020, bits(MQIIH_CM0_REQUEST_RESPONSE)},
    // MsgType [C: CMQC-PY].
    {"MQMT_REQUEST", 1, bits(MQMT_REQUEST)},
    {"MQMT_REPLY", 2, bits(MQMT_REPLY)},
    {"MQMT_REPORT", 4, bits(MQMT_REPORT)},
    {"MQMT_DATAGRAM", 8, bits(MQMT_DATAGRAM)},
    {"MQMT_SYSTEM_FIRST", 1, bits(MQMT_SYSTEM_FIRST)},
    {"MQMT_SYSTEM_LAST", 65535, bits(MQMT_SYSTEM_LAST)},
    {"MQMT_APPL_FIRST", 65536, bits(MQMT_APPL_FIRST)},
    {"MQMT_APPL_LAST", 999999999, bits(MQMT_APPL_LAST)},
    {"MQRC_MISSING_REPLY_TO_Q", 2027, bits(MQRC_MISSING_REPLY_TO_Q)},
    // Report options [C: CMQC-PY].
    {"MQRO_NONE", 0x00000000, bits(MQRO_NONE)},
    {"MQRO_EXCEPTION", 0x01000000, bits(MQRO_EXCEPTION)},
    {"MQRO_EXCEPTION_WITH_DATA", 0x03000000, bits(MQRO_EXCEPTION_WITH_DATA)},
    {"MQRO_EXCEPTION_WITH_FULL_DATA", 0x07000000, bits(MQRO_EXCEPTION_WITH_FULL_DATA)},
    {"MQRO_EXPIRATION", 0x00200000, bits(MQRO_EXPIRATION)},
    {"MQRO_EXPIRATION_WITH_DATA", 0x00600000, bits(MQRO_EXPIRATION_WITH_DATA)},
    {"MQRO_EXPIRATION_WITH_FULL_DATA", 0x00E00000, bits(MQRO_EXPIRATION_WITH_FULL_DATA)},
    {"MQRO_COA", 0x00000100, bits(MQRO_COA)},
    {"MQRO_COA_WITH_DATA", 0x00000300, bits(MQRO_COA_WITH_DATA)},
    {"MQRO_COA_WITH_FULL_DATA", 0x00000700, bits(MQRO_COA_WITH_FULL_DATA)},
    {"MQRO_COD", 0x00000800, bits(MQRO_COD)},
    {"MQRO_COD_WITH_DATA", 0x00001800, bits(MQRO_COD_WITH_DATA)},
    {"MQRO_COD_WITH_FULL_DATA", 0x00003800, bits(MQRO_COD_WITH_FULL_DATA)},
    {"MQRO_PAN", 0x00000001, bits(MQRO_PAN)},
    {"MQRO_NAN", 0x00000002, bits(MQRO_NAN)},
    {"MQRO_ACTIVITY", 0x00000004, bits(MQRO_ACTIVITY)},
    {"MQRO_NEW_MSG_ID", 0x00000000, bits(MQRO_NEW_MSG_ID)},
    {"MQRO_PASS_MSG_ID", 0x00000080, bits(MQRO_PASS_MSG_ID)},
    {"MQRO_COPY_MSG_ID_TO_CORREL_ID", 0x00000000, bits(MQRO_COPY_MSG_ID_TO_CORREL_ID)},
    {"MQRO_PASS_CORREL_ID", 0x00000040, bits(MQRO_PASS_CORREL_ID)},
    {"MQRO_DEAD_LETTER_Q", 0x00000000, bits(MQRO_DEAD_LETTER_Q)},
    {"MQRO_DISCARD_MSG", 0x08000000, bits(MQRO_DISCARD_MSG)},
    {"MQRO_PASS_DISCARD_AND_EXPIRY", 0x00004000, bits(MQRO_PASS_DISCARD_AND_EXPIRY)},
    {"MQRO_REJECT_UNSUP_MASK", 0x101C0000, bits(MQRO_REJECT_UNSUP_MASK)},
    {"MQRO_ACCEPT_UNSUP_MASK", 0xEFE000FF, bits(MQRO_ACCEPT_UNSUP_MASK)},
    {"MQRO_ACCEPT_UNSUP_IF_XMIT_MASK", 0x0003FF00, bits(MQRO_ACCEPT_UNSUP_IF_XMIT_MASK)},
    {"MQRC_REPORT_OPTIONS_ERROR", 2061, bits(MQRC_REPORT_OPTIONS_ERROR)},
    // Feedback [C: CMQC-PY, FB-TABLE-ZH].
    {"MQFB_NONE", 0, bits(MQFB_NONE)},
    {"MQFB_SYSTEM_FIRST", 1, bits(MQFB_SYSTEM_FIRST)},
    {"MQFB_SYSTEM_LAST", 65535, bits(MQFB_SYSTEM_LAST)},
    {"MQFB_QUIT", 256, bits(MQFB_QUIT)},
    {"MQFB_EXPIRATION", 258, bits(MQFB_EXPIRATION)},
    {"MQFB_COA", 259, bits(MQFB_COA)},
    {"MQFB_COD", 260, bits(MQFB_COD)},
    {"MQFB_CHANNEL_COMPLETED", 262, bits(MQFB_CHANNEL_COMPLETED)},
    {"MQFB_CHANNEL_FAIL_RETRY", 263, bits(MQFB_CHANNEL_FAIL_RETRY)},
    {"MQFB_CHANNEL_FAIL", 264, bits(MQFB_CHANNEL_FAIL)},
    {"MQFB_APPL_CANNOT_BE_STARTED", 265, bits(MQFB_APPL_CANNOT_BE_STARTED)},
    {"MQFB_TM_ERROR", 266, bits(MQFB_TM_ERROR)},
    {"MQFB_APPL_TYPE_ERROR", 267, bits(MQFB_APPL_TYPE_ERROR)},
    {"MQFB_STOPPED_BY_MSG_EXIT", 268, bits(MQFB_STOPPED_BY_MSG_EXIT)},
    {"MQFB_XMIT_Q_MSG_ERROR", 271, bits(MQFB_XMIT_Q_MSG_ERROR)},
    {"MQFB_PAN", 275, bits(MQFB_PAN)},
    {"MQFB_NAN", 276, bits(MQFB_NAN)},
    {"MQFB_APPL_FIRST", 65536, bits(MQFB_APPL_FIRST)},
    {"MQFB_APPL_LAST", 999999999, bits(MQFB_APPL_LAST)},
    {"MQRC_FEEDBACK_ERROR", 2014, bits(MQRC_FEEDBACK_ERROR)},
    // Other MQMD constants [C: CMQC-PY, MQGO-CONST].
    {"MQRC_EXPIRY_ERROR", 2013, bits(MQRC_EXPIRY_ERROR)},
    {"MQPER_NOT_PERSISTENT", 0, bits(MQPER_NOT_PERSISTENT)},
    {"MQPER_PERSISTENT", 1, bits(MQPER_PERSISTENT)},
    {"MQPER_PERSISTENCE_AS_Q_DEF", 2, bits(MQPER_PERSISTENCE_AS_Q_DEF)},
    {"MQPMO_DEFAULT_CONTEXT", 0x20, bits(MQPMO_DEFAULT_CONTEXT)},
    {"MQPMO_NEW_MSG_ID", 0x40, bits(MQPMO_NEW_MSG_ID)},
    {"MQPMO_NEW_CORREL_ID", 0x80, bits(MQPMO_NEW_CORREL_ID)},
    {"MQPMO_PASS_IDENTITY_CONTEXT", 0x100, bits(MQPMO_PASS_IDENTITY_CONTEXT)},
    {"MQPMO_PASS_ALL_CONTEXT", 0x200, bits(MQPMO_PASS_ALL_CONTEXT)},
    {"MQPMO_SET_IDENTITY_CONTEXT", 0x400, bits(MQPMO_SET_IDENTITY_CONTEXT)},
    {"MQPMO_SET_ALL_CONTEXT", 0x800, bits(MQPMO_SET_ALL_CONTEXT)},
    {"MQPMO_NO_CONTEXT", 0x4000, bits(MQPMO_NO_CONTEXT)},
    {"MQPMO_SYNCPOINT", 0x02, bits(MQPMO_SYNCPOINT)},
    {"MQPMO_NO_SYNCPOINT", 0x04, bits(MQPMO_NO_SYNCPOINT)},
    {"MQOO_INPUT_AS_Q_DEF", 0x01, bits(MQOO_INPUT_AS_Q_DEF)},
    {"MQOO_INPUT_SHARED", 0x02, bits(MQOO_INPUT_SHARED)},
    {"MQOO_INPUT_EXCLUSIVE", 0x04, bits(MQOO_INPUT_EXCLUSIVE)},
    {"MQOO_BROWSE", 0x08, bits(MQOO_BROWSE)},
    {"MQOO_OUTPUT", 0x10, bits(MQOO_OUTPUT)},
    {"MQOO_INQUIRE", 0x20, bits(MQOO_INQUIRE)},
    {"MQOO_SET", 0x40, bits(MQOO_SET)},
    {"MQOO_FAIL_IF_QUIESCING", 0x2000, bits(MQOO_FAIL_IF_QUIESCING)},
    {"MQOO_RESOLVE_LOCAL_Q", 0x40000, bits(MQOO_RESOLVE_LOCAL_Q)},
    {"MQGMO_WAIT", 0x01, bits(MQGMO_WAIT)},
    {"MQGMO_SYNCPOINT", 0x02, bits(MQGMO_SYNCPOINT)},
    {"MQGMO_CONVERT", 0x4000, bits(MQGMO_CONVERT)},
    {"MQMO_MATCH_MSG_ID", 1, bits(MQMO_MATCH_MSG_ID)},
    {"MQMO_MATCH_CORREL_ID", 2, bits(MQMO_MATCH_CORREL_ID)},
    // MQRC_NONE (MQDLH_DEFAULT's Reason [C: MQGO-DLH]) was copied without a value: not in this table.
    // IMS-bridge feedback codes [C: CMQC-PY] (values).
    {"MQFB_DATA_LENGTH_ZERO", 291, bits(MQFB_DATA_LENGTH_ZERO)},
    {"MQFB_DATA_LENGTH_NEGATIVE", 292, bits(MQFB_DATA_LENGTH_NEGATIVE)},
    {"MQFB_DATA_LENGTH_TOO_BIG", 293, bits(MQFB_DATA_LENGTH_TOO_BIG)},
    {"MQFB_BUFFER_OVERFLOW", 294, bits(MQFB_BUFFER_OVERFLOW)},
    {"MQFB_LENGTH_OFF_BY_ONE", 295, bits(MQFB_LENGTH_OFF_BY_ONE)},
    {"MQFB_IIH_ERROR", 296, bits(MQFB_IIH_ERROR)},
    {"MQFB_NOT_AUTHORIZED_FOR_IMS", 298, bits(MQFB_NOT_AUTHORIZED_FOR_IMS)},
    {"MQFB_IMS_ERROR", 300, bits(MQFB_IMS_ERROR)},
    {"MQFB_IMS_FIRST", 301, bits(MQFB_IMS_FIRST)},
    {"MQFB_IMS_LAST", 399, bits(MQFB_IMS_LAST)},
    {"MQFB_IMS_NACK_1A_REASON_FIRST", 600, bits(MQFB_IMS_NACK_1A_REASON_FIRST)},
    {"MQFB_IMS_NACK_1A_REASON_LAST", 855, bits(MQFB_IMS_NACK_1A_REASON_LAST)},
    // Related MQRC values [C: CMQC-PY].
    {"MQRC_IIH_ERROR", 2148, bits(MQRC_IIH_ERROR)},
    {"MQRC_FORMAT_ERROR", 2110, bits(MQRC_FORMAT_ERROR)},
    {"MQRC_HEADER_ERROR", 2142, bits(MQRC_HEADER_ERROR)},
    {"MQRC_DLH_ERROR", 2141, bits(MQRC_DLH_ERROR)},
    {"MQRC_XQH_ERROR", 2260, bits(MQRC_XQH_ERROR)},
    {"MQRC_BRIDGE_STARTED", 2125, bits(MQRC_BRIDGE_STARTED)},
    {"MQRC_BRIDGE_STOPPED", 2126, bits(MQRC_BRIDGE_STOPPED)},
    {"MQRC_NOT_AUTHORIZED", 2035, bits(MQRC_NOT_AUTHORIZED)},
    {"MQRC_Q_FULL", 2053, bits(MQRC_Q_FULL)},
    {"MQRC_PUT_INHIBITED", 2051, bits(MQRC_PUT_INHIBITED)},
    {"MQRC_GET_INHIBITED", 2016, bits(MQRC_GET_INHIBITED)},
    {"MQRC_UNKNOWN_OBJECT_NAME", 2085, bits(MQRC_UNKNOWN_OBJECT_NAME)},
    {"MQRC_UNKNOWN_OBJECT_Q_MGR", 2086, bits(MQRC_UNKNOWN_OBJECT_Q_MGR)},
    {"MQRC_UNKNOWN_REMOTE_Q_MGR", 2087, bits(MQRC_UNKNOWN_REMOTE_Q_MGR)},
    {"MQRC_REMOTE_Q_NAME_ERROR", 2184, bits(MQRC_REMOTE_Q_NAME_ERROR)},
    {"MQRC_XMIT_Q_TYPE_ERROR", 2091, bits(MQRC_XMIT_Q_TYPE_ERROR)},
    {"MQRC_XMIT_Q_USAGE_ERROR", 2092, bits(MQRC_XMIT_Q_USAGE_ERROR)},
    {"MQRC_UNKNOWN_XMIT_Q", 2196, bits(MQRC_UNKNOWN_XMIT_Q)},
    {"MQRC_UNKNOWN_DEF_XMIT_Q", 2197, bits(MQRC_UNKNOWN_DEF_XMIT_Q)},
    {"MQRC_DEF_XMIT_Q_TYPE_ERROR", 2198, bits(MQRC_DEF_XMIT_Q_TYPE_ERROR)},
    {"MQRC_DEF_XMIT_Q_USAGE_ERROR", 2199, bits(MQRC_DEF_XMIT_Q_USAGE_ERROR)},
    {"MQRC_ALIAS_BASE_Q_TYPE_ERROR", 2001, bits(MQRC_ALIAS_BASE_Q_TYPE_ERROR)},
    {"MQRC_UNKNOWN_ALIAS_BASE_Q", 2082, bits(MQRC_UNKNOWN_ALIAS_BASE_Q)},
    {"MQRC_Q_TYPE_ERROR", 2057, bits(MQRC_Q_TYPE_ERROR)},
    {"MQRC_MSG_TOO_BIG_FOR_Q", 2030, bits(MQRC_MSG_TOO_BIG_FOR_Q)},
    {"MQRC_MSG_TOO_BIG_FOR_Q_MGR", 2031, bits(MQRC_MSG_TOO_BIG_FOR_Q_MGR)},
    {"MQRC_PERSISTENT_NOT_ALLOWED", 2048, bits(MQRC_PERSISTENT_NOT_ALLOWED)},
    {"MQRC_EXPIRY_ERROR", 2013, bits(MQRC_EXPIRY_ERROR)},
    {"MQRC_FEEDBACK_ERROR", 2014, bits(MQRC_FEEDBACK_ERROR)},
    {"MQRC_MD_ERROR", 2026, bits(MQRC_MD_ERROR)},
    {"MQRC_MISSING_REPLY_TO_Q", 2027, bits(MQRC_MISSING_REPLY_TO_Q)},
    {"MQRC_MSG_TYPE_ERROR", 2029, bits(MQRC_MSG_TYPE_ERROR)},
    {"MQRC_PERSISTENCE_ERROR", 2047, bits(MQRC_PERSISTENCE_ERROR)},
    {"MQRC_PRIORITY_ERROR", 2050, bits(MQRC_PRIORITY_ERROR)},
    {"MQRC_REPORT_OPTIONS_ERROR", 2061, bits(MQRC_REPORT_OPTIONS_ERROR)},
    {"MQRC_OBJECT_IN_USE", 2042, bits(MQRC_OBJECT_IN_USE)},
    {"MQRC_NO_MSG_AVAILABLE", 2033, bits(MQRC_NO_MSG_AVAILABLE)},
    {"MQRC_TRUNCATED_MSG_FAILED", 2080, bits(MQRC_TRUNCATED_MSG_FAILED)},
    {"MQRC_NOT_CONVERTED", 2119, bits(MQRC_NOT_CONVERTED)},
    {"MQRC_CONVERTED_MSG_TOO_BIG", 2120, bits(MQRC_CONVERTED_MSG_TOO_BIG)},
    {"MQRC_STORAGE_CLASS_ERROR", 2105, bits(MQRC_STORAGE_CLASS_ERROR)},
    {"MQRC_OBJECT_DAMAGED", 2101, bits(MQRC_OBJECT_DAMAGED)},
    {"MQRC_Q_MGR_QUIESCING", 2161, bits(MQRC_Q_MGR_QUIESCING)},
    {"MQRC_PAGESET_FULL", 2192, bits(MQRC_PAGESET_FULL)},
    {"MQRC_BACKOUT_THRESHOLD_REACHED", 2362, bits(MQRC_BACKOUT_THRESHOLD_REACHED)},
};

// The code tables (find_mqrc / find_mqfb) against the values above: each MQRC_/MQFB_ name given a value
// there has an entry with that value, looked up by name and by value; and every constant has that value.
// The tables hold many more codes than the list above names (all of cmqc.h): those are
// checked against IBM's header below (HeaderPairsByHand).
TEST(MqCodes, ConstantsAndTablesMatchTheSpecByHand) {
  std::set<std::string> rc_names;
  std::set<std::string> fb_names;
  for (const spec_value& v : spec_values) {
    SCOPED_TRACE(v.name);
    EXPECT_EQ(v.constant, v.spec) << "constants.hpp differs from the copied value";
    const std::string name = v.name;
    const bool rc = starts_with(name, "MQRC_");
    const bool fb = starts_with(name, "MQFB_");
    if (!rc && !fb) continue;
    (rc ? rc_names : fb_names).insert(name);
    const auto value = static_cast<std::int32_t>(v.spec);
    const code_info* by_name = rc ? find_mqrc(name) : find_mqfb(name);
    ASSERT_NE(by_name, nullptr) << "no table entry";
    EXPECT_EQ(by_name->value, value);
    const code_info* by_value = rc ? find_mqrc(value) : find_mqfb(value);
    ASSERT_NE(by_value, nullptr) << "no table entry for the value";
    EXPECT_EQ(by_value->name, name);
  }
  EXPECT_EQ(std::string(MQIIH_STRUC_ID), "IIH ");  // [C: CMQC-PY]
  EXPECT_GE(rc_names.size(), 45u);
  EXPECT_GE(fb_names.size(), 31u);
}

TEST(MqCodes, DescribeFeedbackImsRanges) {
  // IBM's technote "Dead letter reason code 326 (X'146')" [C: TECHNOTE-326] = 300 + sense X'1A'.
  EXPECT_EQ(describe_feedback(326), "MQFB_IMS_ERROR+26 (326): IMS-OTMA NAK sense X'001A'");
  EXPECT_EQ(describe_feedback(301), "MQFB_IMS_ERROR+1 (301): IMS-OTMA NAK sense X'0001'");
  EXPECT_EQ(describe_feedback(399), "MQFB_IMS_ERROR+99 (399): IMS-OTMA NAK sense X'0063'");
  EXPECT_EQ(describe_feedback(335), "MQFB_IMS_ERROR+35 (335): IMS-OTMA NAK sense X'0023'");
  EXPECT_EQ(describe_feedback(600),
            "MQFB_IMS_NACK_1A_REASON_FIRST+0 (600): OTMA NAK sense X'001A', reason X'00'");
  EXPECT_EQ(describe_feedback(605),
            "MQFB_IMS_NACK_1A_REASON_FIRST+5 (605): OTMA NAK sense X'001A', reason X'05'");
  EXPECT_EQ(describe_feedback(855),
            "MQFB_IMS_NACK_1A_REASON_FIRST+255 (855): OTMA NAK sense X'001A', reason X'FF'");
}

TEST(MqCodes, DescribeFeedbackNamedAndOtherValues) {
  EXPECT_TRUE(starts_with(describe_feedback(296), "MQFB_IIH_ERROR (296): ")) << describe_feedback(296);
  EXPECT_TRUE(starts_with(describe_feedback(300), "MQFB_IMS_ERROR (300): "));
  EXPECT_TRUE(starts_with(describe_feedback(0), "MQFB_NONE (0): "));
  EXPECT_TRUE(starts_with(describe_feedback(258), "MQFB_EXPIRATION (258): "));
  EXPECT_TRUE(starts_with(describe_feedback(2053), "MQRC_Q_FULL (2053): ")) << describe_feedback(2053);
  EXPECT_EQ(describe_feedback(70000), "MQFB 70000: application feedback");
  EXPECT_EQ(describe_feedback(400), "MQFB 400: unknown system feedback");
  EXPECT_EQ(describe_feedback(-5), "MQFB -5: not a valid feedback value");
  EXPECT_EQ(describe_feedback(1000000000), "MQFB 1000000000: not a valid feedback value");
}

TEST(MqCodes, DescribeReason) {
  EXPECT_TRUE(starts_with(describe_reason(2148), "MQRC_IIH_ERROR (2148): "));
  EXPECT_EQ(describe_reason(9999), "MQRC 9999: unknown reason code");
  EXPECT_EQ(describe_reason(2015), "MQRC 2015: not in the table");
  EXPECT_EQ(describe_reason(6999), "MQRC 6999: not in the table");
  EXPECT_EQ(describe_reason(7000), "MQRC 7000: unknown reason code");
  EXPECT_EQ(describe_reason(1999), "MQRC 1999: unknown reason code");
  EXPECT_EQ(describe_reason(-1), "MQRC -1: unknown reason code");
  EXPECT_EQ(describe_reason(950), "MQRC 950: application-defined reason code");
  EXPECT_TRUE(starts_with(describe_reason(900), "MQRC_APPL_FIRST (900): ")) << describe_reason(900);
  EXPECT_TRUE(starts_with(describe_reason(999), "MQRC_APPL_LAST (999): ")) << describe_reason(999);
  EXPECT_TRUE(starts_with(describe_reason(0), "MQRC_NONE (0): "));
}

// Names and values copied by hand from IBM's cmqc.h (MQ 9.1.1, the public copy in the elastic/beats
// repository, x-pack/metricbeat/module/ibmmq/ibmqlib/inc/cmqc.h), not from codes.cpp: the codes a
// review of mqdump found missing, and a spread over the whole numbering.
struct header_pair {
  const char* name;
  std::int32_t value;
};

const header_pair header_mqrc[] = {
    {"MQRC_NONE", 0},
    {"MQRC_APPL_FIRST", 900},
    {"MQRC_APPL_LAST", 999},
    {"MQRC_ALREADY_CONNECTED", 2002},
    {"MQRC_CONNECTION_BROKEN", 2009},
    {"MQRC_HCONN_ERROR", 2018},
    {"MQRC_HOBJ_ERROR", 2019},
    {"MQRC_SYNCPOINT_LIMIT_REACHED", 2024},
    {"MQRC_NOT_OPEN_FOR_INPUT", 2037},
    {"MQRC_OPTIONS_ERROR", 2046},
    {"MQRC_Q_DELETED", 2052},
    {"MQRC_Q_SPACE_NOT_AVAILABLE", 2056},
    {"MQRC_Q_MGR_NAME_ERROR", 2058},
    {"MQRC_Q_MGR_NOT_AVAILABLE", 2059},
    {"MQRC_SECURITY_ERROR", 2063},
    {"MQRC_STORAGE_NOT_AVAILABLE", 2071},
    {"MQRC_TRUNCATED_MSG_ACCEPTED", 2079},
    {"MQRC_OBJECT_ALREADY_EXISTS", 2100},
    {"MQRC_RESOURCE_PROBLEM", 2102},
    {"MQRC_SOURCE_CCSID_ERROR", 2111},
    {"MQRC_PCF_ERROR", 2149},
    {"MQRC_Q_MGR_STOPPING", 2162},
    {"MQRC_CLUSTER_RESOLUTION_ERROR", 2189},
    {"MQRC_UNEXPECTED_ERROR", 2195},
    {"MQRC_CONNECTION_NOT_AUTHORIZED", 2217},
    {"MQRC_MSG_TOO_BIG_FOR_CHANNEL", 2218},
    {"MQRC_Q_DEPTH_HIGH", 2224},
    {"MQRC_INCOMPLETE_MSG", 2242},
    {"MQRC_MDE_ERROR", 2248},
    {"MQRC_NO_DESTINATIONS_AVAILABLE", 2270},
    {"MQRC_CHANNEL_STOPPED_BY_USER", 2279},
    {"MQRC_CMD_SERVER_NOT_AVAILABLE", 2322},
    {"MQRC_RFH_ERROR", 2334},
    {"MQRC_CF_STRUC_FAILED", 2373},
    {"MQRC_SSL_INITIALIZATION_ERROR", 2393},
    {"MQRC_SSL_PEER_NAME_MISMATCH", 2398},
    {"MQRC_PUBLICATION_FAILURE", 2502},
    {"MQRC_HOST_NOT_AVAILABLE", 2538},
    {"MQRC_RECONNECT_FAILED", 2548},
    {"MQRC_CHANNEL_BLOCKED", 2577},
    {"MQRC_CCDT_URL_ERROR", 2600},
    {"MQRC_REOPEN_EXCL_INPUT_ERROR", 6100},
    {"MQRC_XR_NOT_AVAILABLE", 6130},
    {"MQRC_SUB_JOIN_NOT_ALTERABLE", 29440},
};

const header_pair header_mqfb[] = {
    {"MQFB_ACTIVITY", 269},
    {"MQFB_XMIT_Q_MSG_ERROR", 271},
    {"MQFB_PAN", 275},
    {"MQFB_STOPPED_BY_CHAD_EXIT", 277},
    {"MQFB_STOPPED_BY_PUBSUB_EXIT", 279},
    {"MQFB_NOT_A_REPOSITORY_MSG", 280},
    {"MQFB_BIND_OPEN_CLUSRCVR_DEL", 281},
    {"MQFB_MAX_ACTIVITIES", 282},
    {"MQFB_NOT_FORWARDED", 283},
    {"MQFB_NOT_DELIVERED", 284},
    {"MQFB_UNSUPPORTED_FORWARDING", 285},
    {"MQFB_UNSUPPORTED_DELIVERY", 286},
    {"MQFB_CICS_INTERNAL_ERROR", 401},
    {"MQFB_CICS_CIH_ERROR", 407},
    {"MQFB_CICS_UOW_BACKED_OUT", 413},  // the last CICS bridge feedback in cmqc.h
    {"MQFB_PUBLICATIONS_ON_REQUEST", 501},
    {"MQFB_SUBSCRIBER_IS_PUBLISHER", 502},
    {"MQFB_NOT_A_GROUPUR_MSG", 505},
};

TEST(MqCodes, HeaderPairsByHand) {
  std::size_t checked = 0;
  for (const bool rc : {true, false}) {
    const auto& list = rc ? std::vector<header_pair>(std::begin(header_mqrc), std::end(header_mqrc))
                          : std::vector<header_pair>(std::begin(header_mqfb), std::end(header_mqfb));
    for (const header_pair& p : list) {
      SCOPED_TRACE(p.name);
      const code_info* by_name = rc ? find_mqrc(p.name) : find_mqfb(p.name);
      ASSERT_NE(by_name, nullptr) << "no table entry";
      EXPECT_EQ(by_name->value, p.value);
      const code_info* by_value = rc ? find_mqrc(p.value) : find_mqfb(p.value);
      ASSERT_NE(by_value, nullptr) << "no table entry for the value";
      EXPECT_EQ(by_value->name, p.name);
      EXPECT_FALSE(by_value->meaning.empty());
      const std::string label = std::string(p.name) + " (" + std::to_string(p.value) + "): ";
      const std::string described = rc ? describe_reason(p.value) : describe_feedback(p.value);
      EXPECT_TRUE(starts_with(described, label)) << described;
      // An MQRC in MQDLH.Reason or MQMD.Feedback: mqdump described 2056 as an unknown system feedback.
      if (rc && p.value > MQRC_APPL_LAST) {
        EXPECT_TRUE(starts_with(describe_feedback(p.value), label)) << describe_feedback(p.value);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 40u);
  // 277 is not MQFB_EXPIRATION (that is 258); 420 is past the CICS bridge codes.
  EXPECT_EQ(find_mqfb(277)->name, "MQFB_STOPPED_BY_CHAD_EXIT");
  EXPECT_EQ(find_mqfb(258)->name, "MQFB_EXPIRATION");
  EXPECT_EQ(find_mqfb(420), nullptr);
  EXPECT_EQ(describe_feedback(420), "MQFB 420: unknown system feedback");
}

// cmqc.h defines 565 MQRC_* names (two of them second names of a value: see Aliases) and 59 MQFB_*
// names; the tables hold each value once.
TEST(MqCodes, TablesHoldAllOfCmqc) {
  EXPECT_EQ(all_mqrc().size(), 563u);
  EXPECT_EQ(all_mqfb().size(), 59u);
  for (const auto& table : {all_mqrc(), all_mqfb()}) {
    std::set<std::string_view> names;
    std::set<std::int32_t> values;
    for (const code_info& c : table) {
      SCOPED_TRACE(std::string(c.name));
      EXPECT_TRUE(names.insert(c.name).second) << "duplicate name";
      EXPECT_TRUE(values.insert(c.value).second) << "duplicate value";
      ASSERT_FALSE(c.meaning.empty());
      EXPECT_EQ(c.meaning.find('\n'), std::string_view::npos);
      EXPECT_NE(c.meaning.front(), ' ');
      EXPECT_NE(c.meaning.back(), ' ');
    }
  }
}

TEST(MqCodes, Aliases) {
  // cmqc.h gives 2120 and 2192 two names each; the table keeps the one the list above uses and mentions
  // the other in the meaning.
  ASSERT_NE(find_mqrc(2120), nullptr);
  EXPECT_EQ(find_mqrc(2120)->name, "MQRC_CONVERTED_MSG_TOO_BIG");
  EXPECT_NE(find_mqrc(2120)->meaning.find("MQRC_TRUNCATED"), std::string_view::npos);
  ASSERT_NE(find_mqrc(2192), nullptr);
  EXPECT_EQ(find_mqrc(2192)->name, "MQRC_PAGESET_FULL");
  EXPECT_NE(find_mqrc(2192)->meaning.find("MQRC_STORAGE_MEDIUM_FULL"), std::string_view::npos);
}

// 2000..6999 holds reason codes only: a value there is an MQRC, named or "not in the table", from
// describe_reason and describe_feedback alike, never an MQFB. Any other value up to 65535 that no
// table has is an unknown system feedback.
TEST(MqCodes, ReasonBandIsNeverFeedback) {
  int named = 0;
  int unnamed = 0;
  for (std::int32_t v = 2000; v <= 6999; ++v) {
    const std::string fb = describe_feedback(v);
    const std::string rc = describe_reason(v);
    if (const code_info* c = find_mqrc(v)) {
      const std::string label = std::string(c->name) + " (" + std::to_string(v) + "): ";
      EXPECT_TRUE(starts_with(fb, label)) << fb;
      EXPECT_TRUE(starts_with(rc, label)) << rc;
      ++named;
    } else {
      const std::string want = "MQRC " + std::to_string(v) + ": not in the table";
      EXPECT_EQ(fb, want);
      EXPECT_EQ(rc, want);
      ++unnamed;
    }
    EXPECT_EQ(find_mqfb(v), nullptr) << v;
  }
  EXPECT_GE(named, 550);
  EXPECT_GT(unnamed, 0);

  int unknown = 0;
  for (std::int32_t v = 1; v <= 65535; ++v) {
    if (v >= 2000 && v <= 6999) continue;
    if (find_mqfb(v) || (v >= MQFB_IMS_FIRST && v <= MQFB_IMS_LAST) ||
        (v >= MQFB_IMS_NACK_1A_REASON_FIRST && v <= MQFB_IMS_NACK_1A_REASON_LAST))
      continue;
    const std::string fb = describe_feedback(v);
    if (v > MQRC_APPL_LAST && find_mqrc(v)) {
      EXPECT_TRUE(starts_with(fb, "MQRC_")) << fb;
      continue;
    }
    EXPECT_EQ(fb, "MQFB " + std::to_string(v) + ": unknown system feedback");
    ++unknown;
  }
  EXPECT_GT(unknown, 60000);
  // The bounds of the application reason codes are not feedback names.
  EXPECT_EQ(describe_feedback(900), "MQFB 900: unknown system feedback");
  EXPECT_EQ(describe_feedback(999), "MQFB 999: unknown system feedback");
  EXPECT_EQ(describe_feedback(7000), "MQFB 7000: unknown system feedback");
  EXPECT_EQ(describe_feedback(2015), "MQRC 2015: not in the table");
  EXPECT_TRUE(starts_with(describe_feedback(29440), "MQRC_SUB_JOIN_NOT_ALTERABLE (29440): "));
}

TEST(MqCodes, ErrorCategories) {
  const std::error_code rc = make_mqrc(MQRC_IIH_ERROR);
  EXPECT_EQ(rc.value(), 2148);
  EXPECT_EQ(&rc.category(), &mqrc_category());
  EXPECT_STREQ(rc.category().name(), "mqrc");
  EXPECT_TRUE(starts_with(rc.message(), "MQRC_IIH_ERROR (2148): ")) << rc.message();
  EXPECT_TRUE(static_cast<bool>(rc));
  EXPECT_FALSE(static_cast<bool>(make_mqrc(MQRC_NONE)));

  const std::error_code fb = make_mqfb(MQFB_DATA_LENGTH_ZERO);
  EXPECT_EQ(&fb.category(), &mqfb_category());
  EXPECT_STREQ(fb.category().name(), "mqfb");
  EXPECT_TRUE(starts_with(fb.message(), "MQFB_DATA_LENGTH_ZERO (291): ")) << fb.message();
  EXPECT_EQ(make_mqfb(326).message(), describe_feedback(326));
  EXPECT_NE(make_mqfb(2148), make_mqrc(2148));  // same number, different categories

  decode_error e{make_mqrc(MQRC_IIH_ERROR), "MQIIH.StrucLength", 8, "is 80, must be 84"};
  EXPECT_NE(e.to_string().find("MQRC_IIH_ERROR (2148)"), std::string::npos) << e.to_string();
}

}  // namespace
}  // namespace imsb::mq
