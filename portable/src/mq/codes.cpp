#include "imsb/mq/codes.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>

#include "imsb/mq/constants.hpp"

namespace imsb::mq {
namespace {

#define IMSB_CODE(name, meaning) \
  code_info { name, #name, meaning }

// Reason codes named in spec/mq.md §2-§4 and §7 [C] CMQC-PY values; meanings after IBM's reason-code
// pages (RC2148, RC2087 ... in the spec's source index), shortened to one line. Kept in value order.
constexpr code_info mqrc_table[] = {
    IMSB_CODE(MQRC_NONE, "no reason to report"),
    IMSB_CODE(MQRC_ALIAS_BASE_Q_TYPE_ERROR,
              "the base of an alias queue is not a local queue, a local definition of a remote queue or a "
              "cluster queue"),
    IMSB_CODE(MQRC_EXPIRY_ERROR, "MQMD.Expiry is not valid"),
    IMSB_CODE(MQRC_FEEDBACK_ERROR,
              "MQMD.Feedback is not MQFB_NONE and not in the system or application range"),
    IMSB_CODE(MQRC_GET_INHIBITED, "gets are inhibited for the queue"),
    IMSB_CODE(MQRC_MD_ERROR, "the MQMD is not valid (StrucId, Version or buffer length)"),
    IMSB_CODE(MQRC_MISSING_REPLY_TO_Q, "a request message has a blank ReplyToQ"),
    IMSB_CODE(MQRC_MSG_TYPE_ERROR, "MQMD.MsgType is not valid"),
    IMSB_CODE(MQRC_MSG_TOO_BIG_FOR_Q, "the message is longer than the queue's MAXMSGL"),
    IMSB_CODE(MQRC_MSG_TOO_BIG_FOR_Q_MGR, "the message is longer than the queue manager's MAXMSGL"),
    IMSB_CODE(MQRC_NO_MSG_AVAILABLE, "no message matches the get request"),
    IMSB_CODE(MQRC_NOT_AUTHORIZED, "the user is not authorized for the operation"),
    IMSB_CODE(MQRC_OBJECT_IN_USE, "the object is already open with conflicting options"),
    IMSB_CODE(MQRC_PERSISTENCE_ERROR, "MQMD.Persistence is not valid"),
    IMSB_CODE(MQRC_PERSISTENT_NOT_ALLOWED, "the queue does not accept persistent messages"),
    IMSB_CODE(MQRC_PRIORITY_ERROR, "MQMD.Priority is not valid"),
    IMSB_CODE(MQRC_PUT_INHIBITED, "puts are inhibited for the queue"),
    IMSB_CODE(MQRC_Q_FULL, "the queue already holds its maximum number of messages"),
    IMSB_CODE(MQRC_Q_TYPE_ERROR, "the queue type is not valid for the operation"),
    IMSB_CODE(MQRC_REPORT_OPTIONS_ERROR, "MQMD.Report has options that are not valid or not supported"),
    IMSB_CODE(MQRC_TRUNCATED_MSG_FAILED, "the message is longer than the buffer and was not removed"),
    IMSB_CODE(MQRC_UNKNOWN_ALIAS_BASE_Q, "the base queue of an alias queue does not exist"),
    IMSB_CODE(MQRC_UNKNOWN_OBJECT_NAME, "the named object does not exist"),
    IMSB_CODE(MQRC_UNKNOWN_OBJECT_Q_MGR, "the object queue manager name is not known"),
    IMSB_CODE(MQRC_UNKNOWN_REMOTE_Q_MGR,
              "no route to the remote queue manager (no queue manager alias, transmission queue or "
              "DEFXMITQ)"),
    IMSB_CODE(MQRC_XMIT_Q_TYPE_ERROR, "the transmission queue is not a local queue"),
    IMSB_CODE(MQRC_XMIT_Q_USAGE_ERROR, "the transmission queue does not have USAGE(XMITQ)"),
    IMSB_CODE(MQRC_OBJECT_DAMAGED, "the object is damaged"),
    IMSB_CODE(MQRC_STORAGE_CLASS_ERROR, "the storage class of the queue is not valid or not defined"),
    IMSB_CODE(MQRC_FORMAT_ERROR, "the message data is not valid for its format"),
    IMSB_CODE(MQRC_NOT_CONVERTED, "the message data was not converted"),
    IMSB_CODE(MQRC_CONVERTED_MSG_TOO_BIG, "the message became too long for the buffer when converted"),
    IMSB_CODE(MQRC_BRIDGE_STARTED, "the IMS bridge started (event)"),
    IMSB_CODE(MQRC_BRIDGE_STOPPED, "the IMS bridge stopped (event)"),
    IMSB_CODE(MQRC_DLH_ERROR, "the MQDLH is not valid (StrucId, Version or buffer length)"),
    IMSB_CODE(MQRC_HEADER_ERROR, "an MQ header structure in the message is not valid"),
    IMSB_CODE(MQRC_IIH_ERROR, "the MQIIH is not valid (StrucId, Version, StrucLength or buffer length)"),
    IMSB_CODE(MQRC_Q_MGR_QUIESCING, "the queue manager is quiescing"),
    IMSB_CODE(MQRC_REMOTE_Q_NAME_ERROR, "the remote queue name is blank or not valid"),
    IMSB_CODE(MQRC_PAGESET_FULL, "the page set (storage) is full"),
    IMSB_CODE(MQRC_UNKNOWN_XMIT_Q, "the transmission queue named by XMITQ does not exist"),
    IMSB_CODE(MQRC_UNKNOWN_DEF_XMIT_Q, "the default transmission queue does not exist"),
    IMSB_CODE(MQRC_DEF_XMIT_Q_TYPE_ERROR, "the default transmission queue is not a local queue"),
    IMSB_CODE(
        MQRC_DEF_XMIT_Q_USAGE_ERROR,
        "the default transmission queue does not have USAGE(XMITQ) or is the cluster transmission queue"),
    IMSB_CODE(MQRC_XQH_ERROR, "the MQXQH is not valid (StrucId, Version or buffer length)"),
    IMSB_CODE(MQRC_BACKOUT_THRESHOLD_REACHED, "the message's backout count reached the queue's threshold"),
};

// Feedback codes of spec/mq.md §2.4 and §4.1 [C] values; meanings of 292..300 are [I] there.
constexpr code_info mqfb_table[] = {
    IMSB_CODE(MQFB_NONE, "no feedback"),
    IMSB_CODE(MQFB_SYSTEM_FIRST, "lowest system feedback value"),
    IMSB_CODE(MQFB_QUIT, "the application should end"),
    IMSB_CODE(MQFB_EXPIRATION, "the message expired (expiration report)"),
    IMSB_CODE(MQFB_COA, "confirmation of arrival on the destination queue"),
    IMSB_CODE(MQFB_COD, "confirmation of delivery to the receiving application"),
    IMSB_CODE(MQFB_CHANNEL_COMPLETED, "the channel ended normally"),
    IMSB_CODE(MQFB_CHANNEL_FAIL_RETRY, "the channel ended with an error and will be retried"),
    IMSB_CODE(MQFB_CHANNEL_FAIL, "the channel ended with an error and will not be retried"),
    IMSB_CODE(MQFB_APPL_CANNOT_BE_STARTED, "the application named in the trigger could not be started"),
    IMSB_CODE(MQFB_TM_ERROR, "the trigger message (MQTM) is not valid"),
    IMSB_CODE(MQFB_APPL_TYPE_ERROR, "the application type in the trigger message is not valid"),
    IMSB_CODE(MQFB_STOPPED_BY_MSG_EXIT, "a channel message exit stopped the message"),
    IMSB_CODE(MQFB_XMIT_Q_MSG_ERROR, "a message on a transmission queue had no valid MQXQH"),
    IMSB_CODE(MQFB_PAN, "positive action notification"),
    IMSB_CODE(MQFB_NAN, "negative action notification"),
    IMSB_CODE(MQFB_DATA_LENGTH_ZERO, "a segment length (LL) was zero in the application data"),
    IMSB_CODE(MQFB_DATA_LENGTH_NEGATIVE, "a segment length (LL) was negative in the application data"),
    IMSB_CODE(MQFB_DATA_LENGTH_TOO_BIG, "a segment length (LL) was too big"),
    IMSB_CODE(MQFB_BUFFER_OVERFLOW, "a length field would make the data overflow the message buffer"),
    IMSB_CODE(MQFB_LENGTH_OFF_BY_ONE, "a length field was one byte too short"),
    IMSB_CODE(MQFB_IIH_ERROR, "MQMD.Format is MQFMT_IMS but the message does not begin with a valid MQIIH"),
    IMSB_CODE(MQFB_NOT_AUTHORIZED_FOR_IMS, "the user ID or Authenticator failed the bridge's security check"),
    IMSB_CODE(MQFB_IMS_ERROR, "IMS returned an unexpected error"),
    IMSB_CODE(MQFB_IMS_FIRST, "lowest IMS-OTMA NAK feedback: 300 + sense code"),
    IMSB_CODE(MQFB_IMS_LAST, "highest IMS-OTMA NAK feedback: 300 + sense code"),
    IMSB_CODE(MQFB_IMS_NACK_1A_REASON_FIRST, "lowest OTMA NAK sense X'1A' feedback: 600 + reason code"),
    IMSB_CODE(MQFB_IMS_NACK_1A_REASON_LAST, "highest OTMA NAK sense X'1A' feedback: 600 + reason code"),
    IMSB_CODE(MQFB_SYSTEM_LAST, "highest system feedback value"),
    IMSB_CODE(MQFB_APPL_FIRST, "lowest application feedback value"),
    IMSB_CODE(MQFB_APPL_LAST, "highest application feedback value"),
};

#undef IMSB_CODE

// find_value() is a binary search: the tables must stay in value order.
template <std::size_t N>
constexpr bool in_value_order(const code_info (&table)[N]) {
  for (std::size_t i = 1; i < N; ++i) {
    if (!(table[i - 1].value < table[i].value)) return false;
  }
  return true;
}
static_assert(in_value_order(mqrc_table), "mqrc_table must be sorted by value, without duplicates");
static_assert(in_value_order(mqfb_table), "mqfb_table must be sorted by value, without duplicates");

template <std::size_t N>
const code_info* find_value(const code_info (&table)[N], std::int32_t value) {
  auto it = std::lower_bound(std::begin(table), std::end(table), value,
                             [](const code_info& c, std::int32_t v) { return c.value < v; });
  return it != std::end(table) && it->value == value ? &*it : nullptr;
}

template <std::size_t N>
const code_info* find_name(const code_info (&table)[N], std::string_view name) {
  for (const code_info& c : table) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string hex(std::uint32_t v, int min_digits) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0x0F]);
    v >>= 4;
  } while (v != 0);
  while (static_cast<int>(s.size()) < min_digits) s.insert(s.begin(), '0');
  return s;
}

std::string named(const code_info& c) {
  return std::string(c.name) + " (" + std::to_string(c.value) + "): " + std::string(c.meaning);
}

class mqrc_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mqrc"; }
  std::string message(int ev) const override { return describe_reason(ev); }
};

class mqfb_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mqfb"; }
  std::string message(int ev) const override { return describe_feedback(ev); }
};

}  // namespace

const code_info* find_mqrc(std::int32_t value) { return find_value(mqrc_table, value); }
const code_info* find_mqrc(std::string_view name) { return find_name(mqrc_table, name); }
const code_info* find_mqfb(std::int32_t value) { return find_value(mqfb_table, value); }
const code_info* find_mqfb(std::string_view name) { return find_name(mqfb_table, name); }

std::vector<code_info> all_mqrc() { return {std::begin(mqrc_table), std::end(mqrc_table)}; }
std::vector<code_info> all_mqfb() { return {std::begin(mqfb_table), std::end(mqfb_table)}; }

std::string describe_reason(std::int32_t rc) {
  if (const code_info* c = find_mqrc(rc)) return named(*c);
  return "MQRC " + std::to_string(rc) + ": unknown reason code";
}

std::string describe_feedback(std::int32_t fb) {
  // IBM's mapping of OTMA NAKs: "The IMS-OTMA sense code is converted from a hexadecimal number to a
  // decimal number. 300 is added ... sense code 0x001A ... 600 is added" to the reason code
  // spec/mq.md §4.1 [C] IMS-FB-CODES. The bounds themselves are sense codes too, so ranges come first.
  if (fb >= MQFB_IMS_FIRST && fb <= MQFB_IMS_LAST) {
    const auto sense = static_cast<std::uint32_t>(fb - MQFB_IMS_ERROR);
    return "MQFB_IMS_ERROR+" + std::to_string(sense) + " (" + std::to_string(fb) +
           "): IMS-OTMA NAK sense X'" + hex(sense, 4) + "'";
  }
  if (fb >= MQFB_IMS_NACK_1A_REASON_FIRST && fb <= MQFB_IMS_NACK_1A_REASON_LAST) {
    const auto reason = static_cast<std::uint32_t>(fb - MQFB_IMS_NACK_1A_REASON_FIRST);
    return "MQFB_IMS_NACK_1A_REASON_FIRST+" + std::to_string(reason) + " (" + std::to_string(fb) +
           "): OTMA NAK sense X'001A', reason X'" + hex(reason, 2) + "'";
  }
  if (const code_info* c = find_mqfb(fb)) return named(*c);
  // The Feedback field may also hold an MQRC_* value (spec/mq.md §2.4 [C] FEEDBACK-DOC).
  if (const code_info* c = find_mqrc(fb)) return named(*c);
  const std::string num = std::to_string(fb);
  if (fb >= MQFB_APPL_FIRST && fb <= MQFB_APPL_LAST) return "MQFB " + num + ": application feedback";
  if (fb >= MQFB_SYSTEM_FIRST && fb <= MQFB_SYSTEM_LAST) return "MQFB " + num + ": unknown system feedback";
  return "MQFB " + num + ": not a valid feedback value";
}

const std::error_category& mqrc_category() noexcept {
  static const mqrc_category_impl instance;
  return instance;
}

const std::error_category& mqfb_category() noexcept {
  static const mqfb_category_impl instance;
  return instance;
}

std::error_code make_mqrc(std::int32_t rc) noexcept { return {rc, mqrc_category()}; }
std::error_code make_mqfb(std::int32_t fb) noexcept { return {fb, mqfb_category()}; }

}  // namespace imsb::mq
