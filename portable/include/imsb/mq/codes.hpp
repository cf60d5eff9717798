#pragma once
// Names and one-line meanings of the MQ reason codes (MQRC_*) and feedback codes (MQFB_*): every one
// IBM's cmqc.h of MQ 9.1.1 defines (see codes.cpp), looked up by value or by name, and
// std::error_category objects for both, so that an error on the message path can carry the code IBM
// would have used (the mqrc and mqfb categories).

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace imsb::mq {

struct code_info {
  std::int32_t value;
  std::string_view name;     // IBM's constant name, e.g. "MQRC_IIH_ERROR"
  std::string_view meaning;  // one line
};

// nullptr when the code is not in the table. Range bounds (MQFB_IMS_FIRST, MQFB_APPL_LAST ...) are
// in the table under their own names; describe_feedback() explains the values inside the ranges.
const code_info* find_mqrc(std::int32_t value);
const code_info* find_mqrc(std::string_view name);
const code_info* find_mqfb(std::int32_t value);
const code_info* find_mqfb(std::string_view name);

// The whole tables, in value order.
std::vector<code_info> all_mqrc();
std::vector<code_info> all_mqfb();

// One line for a feedback value, as MQMD.Feedback or MQDLH.Reason holds it, e.g.
//   "MQFB_IIH_ERROR (296): ..."
//   "MQFB_IMS_ERROR+26 (326): IMS-OTMA NAK sense X'001A'"
//   "MQFB_IMS_NACK_1A_REASON_FIRST+5 (605): OTMA NAK sense X'001A', reason X'05'"
//   "MQRC_Q_FULL (2053): ..." (the Feedback field may also hold an MQRC [C: FEEDBACK-DOC])
//   "MQRC 2700: not in the table" (2000..6999 is where reason codes live, never feedback)
//   "MQFB 420: unknown system feedback", "MQFB 70000: application feedback"
std::string describe_feedback(std::int32_t fb);
// One line for a reason code: "MQRC_IIH_ERROR (2148): ...", "MQRC 950: application-defined reason
// code", "MQRC 2700: not in the table" (2000..6999) or "MQRC 9999: unknown reason code".
std::string describe_reason(std::int32_t rc);

// Error categories named "mqrc" and "mqfb"; message() is describe_reason / describe_feedback.
const std::error_category& mqrc_category() noexcept;
const std::error_category& mqfb_category() noexcept;
std::error_code make_mqrc(std::int32_t rc) noexcept;
std::error_code make_mqfb(std::int32_t fb) noexcept;

// Checked accessors: never another category's number read as a reason or feedback.
// The MQRC an error code holds: its value when of the mqrc category, else MQRC_UNEXPECTED_ERROR (2195).
std::int32_t reason_of(const std::error_code& ec) noexcept;
// What MQMD.Feedback or MQDLH.Reason gets for an error: the value of an mqfb or mqrc code, else
// MQRC_UNEXPECTED_ERROR. (Feedback "can contain one of the MQFB_* values, or one of the MQRC_* values" [C]
// IBM MQ, "Feedback (MQLONG)" of MQMD,
// https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097510_.html)
std::int32_t feedback_of(const std::error_code& ec) noexcept;

}  // namespace imsb::mq
