#pragma once
// OTMA NAK sense and reason codes, the `otma_sense` error category, and the mapping between a NAK and
// the MQ Feedback the bridge puts in reports and MQDLH [C: IMS-FB-CODES, MQ-FB]. IBM's full table ("OTMA
// sense codes for NAK messages") is not public: the [C] rows are IBM's (each cites its source), the [D]
// rows are the emulator's own codes for events whose IBM value is unknown (docs/design/otma.md).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace imsb::otma {

namespace sense {
inline constexpr std::uint16_t invalid_message = 0x0001;            // [D] not IBM-verified
inline constexpr std::uint16_t unknown_destination = 0x0002;        // [D] not IBM-verified
inline constexpr std::uint16_t prefix_format_error = 0x0003;        // [D] not IBM-verified
inline constexpr std::uint16_t security_violation = 0x0005;         // [D] not IBM-verified (DFS1292E)
inline constexpr std::uint16_t invalid_commit_mode = 0x0007;        // [D] not IBM-verified (DFS1291E)
inline constexpr std::uint16_t invalid_name = 0x0008;               // [D] not IBM-verified
inline constexpr std::uint16_t rrs_not_enabled = 0x0011;            // [C: IMS-MSG-ICO0002E]
inline constexpr std::uint16_t rejected_see_reason = 0x001A;        // [C: MQ-FB]
inline constexpr std::uint16_t cm1_on_synchronized_tpipe = 0x001C;  // [C: IMS-RS-SUMMARY]
inline constexpr std::uint16_t invalid_recoverable_seq = 0x001F;    // [C: IMS-RS-SUMMARY]
inline constexpr std::uint16_t seq_not_recoverable = 0x0023;        // [C: IMS-RESYNC, IMS-RS-SUMMARY]
inline constexpr std::uint16_t resume_tpipe_error = 0x0028;         // [C: IMS-MSG-DFS7444E]
inline constexpr std::uint16_t syncpt_not_supported = 0x002E;       // [C: ICO messages]
inline constexpr std::uint16_t flood = 0x0030;                      // [C: IMS-FLOOD, IMS-MSG-DFS1989E]
inline constexpr std::uint16_t hold_queue_not_authorized = 0x0033;  // [C]
}  // namespace sense

struct sense_info {
  std::uint16_t code;
  std::string_view name;     // "OTMA_SENSE_FLOOD"
  std::string_view meaning;  // one line, for console messages and mqdump
  std::string_view source;   // evidence label and source key
  bool ibm_confirmed;        // false: [D] emulator code, never to be expected from a real IMS
};

inline constexpr sense_info sense_table[] = {
    {sense::invalid_message, "OTMA_SENSE_INVALID_MESSAGE", "invalid or unknown message",
     "[D] not IBM-verified", false},
    {sense::unknown_destination, "OTMA_SENSE_UNKNOWN_DESTINATION",
     "destination not usable (an LTERM; no new Tpipe: MAXTP)", "[D] not IBM-verified", false},
    {sense::prefix_format_error, "OTMA_SENSE_PREFIX_FORMAT_ERROR", "OTMA message prefix format error",
     "[D] not IBM-verified", false},
    {sense::security_violation, "OTMA_SENSE_SECURITY_VIOLATION", "security violation (DFS1292E)",
     "[D] not IBM-verified", false},
    {sense::invalid_commit_mode, "OTMA_SENSE_INVALID_COMMIT_MODE",
     "invalid commit mode for the transaction (DFS1291E)", "[D] not IBM-verified", false},
    {sense::invalid_name, "OTMA_SENSE_INVALID_NAME", "invalid name (lowercase or reserved)",
     "[D] not IBM-verified", false},
    {sense::rrs_not_enabled, "OTMA_SENSE_RRS_NOT_ENABLED", "IMS is not enabled for RRS (SYNCPT requested)",
     "[C: IMS-MSG-ICO0002E]", true},
    {sense::rejected_see_reason, "OTMA_SENSE_REJECTED_SEE_REASON",
     "request rejected; the cause is in the reason code", "[C: MQ-FB]", true},
    {sense::cm1_on_synchronized_tpipe, "OTMA_SENSE_CM1_ON_SYNC_TPIPE",
     "send-then-commit (CM1) transaction on a synchronized tpipe", "[C: IMS-RS-SUMMARY]", true},
    {sense::invalid_recoverable_seq, "OTMA_SENSE_INVALID_RECOVERABLE_SEQ",
     "recoverable sequence number not valid", "[C: IMS-RS-SUMMARY]", true},
    {sense::seq_not_recoverable, "OTMA_SENSE_SEQ_NOT_RECOVERABLE",
     "nonzero recoverable sequence number on input that cannot be recovered (command or unrecoverable "
     "CM0 transaction on a synchronized tpipe)",
     "[C: IMS-RESYNC, IMS-RS-SUMMARY]", true},
    {sense::resume_tpipe_error, "OTMA_SENSE_RESUME_TPIPE_ERROR", "RESUME TPIPE error; see the reason code",
     "[C: IMS-MSG-DFS7444E]", true},
    {sense::syncpt_not_supported, "OTMA_SENSE_SYNCPT_NOT_SUPPORTED",
     "two-phase commit (SYNCPT) not supported for this request or client", "[C: ICO messages]", true},
    {sense::flood, "OTMA_SENSE_FLOOD", "flood: the member's active input message (TIB) limit was reached",
     "[C: IMS-FLOOD, DFS1989E]", true},
    {sense::hold_queue_not_authorized, "OTMA_SENSE_HOLDQ_NOT_AUTHORIZED",
     "hold-queue (RESUME TPIPE) authorization failure; see the reason code", "[C]", true},
};

struct reason_info {
  std::uint16_t sense;
  std::uint16_t reason;
  std::string_view name;
  std::string_view meaning;
  std::string_view source;
};

inline constexpr reason_info reason_table[] = {
    {sense::rejected_see_reason, 0x001D, "OTMA_REASON_1A_REPLY_TO_Q_ON_XCF_STGCLASS",
     "the reply-to queue is defined with the XCF storage class (CSQ2000I rc 001A reason 001D)",
     "[C-weak: developer Q&A]"},
    {sense::resume_tpipe_error, 0x0007, "OTMA_REASON_28_CONTROL_BLOCK_TIMING",
     "timing error creating control blocks (DFS7444E)", "[C: IMS-MSG-DFS7444E]"},
    {sense::hold_queue_not_authorized, 1, "OTMA_REASON_33_SECURITY_SEGMENT_REQUIRED",
     "security data section required", "[C]"},
    {sense::hold_queue_not_authorized, 2, "OTMA_REASON_33_USER_ID_REQUIRED", "user ID required", "[C]"},
    {sense::hold_queue_not_authorized, 3, "OTMA_REASON_33_GROUP_REQUIRED", "RACF group required", "[C]"},
    {sense::hold_queue_not_authorized, 4, "OTMA_REASON_33_UTOKEN_REQUIRED", "UTOKEN required", "[C]"},
    {sense::hold_queue_not_authorized, 5, "OTMA_REASON_33_TPIPE_REQUIRED", "TPIPE name required", "[C]"},
    {sense::hold_queue_not_authorized, 6, "OTMA_REASON_33_RACF_ERROR", "RACF system error", "[C]"},
    {sense::hold_queue_not_authorized, 7, "OTMA_REASON_33_NO_RACF_PROFILE",
     "RACF profile for the user ID not in the database", "[C]"},
    {sense::hold_queue_not_authorized, 8, "OTMA_REASON_33_AUTHORIZED_USER_REQUIRED",
     "authorized user ID required", "[C]"},
    {sense::hold_queue_not_authorized, 9, "OTMA_REASON_33_VALID_TPIPE_REQUIRED", "valid TPIPE name required",
     "[C]"},
};

std::optional<sense_info> find_sense(std::uint16_t code) noexcept;
// By name, e.g. "OTMA_SENSE_FLOOD" (exact, case-sensitive).
std::optional<sense_info> find_sense(std::string_view name) noexcept;
std::optional<reason_info> find_reason(std::uint16_t sense_code, std::uint16_t reason) noexcept;
std::optional<reason_info> find_reason(std::string_view name) noexcept;

// "X'0030'"
std::string sense_hex(std::uint16_t code);

// The `otma_sense` error category: the error value is the sense code.
const std::error_category& otma_sense_category() noexcept;
std::error_code make_sense(std::uint16_t sense_code) noexcept;

// --- NAK → MQ Feedback [C: IMS-FB-CODES, MQ-FB] ----------------------------------------------------
// Our own constants, so that this codec does not depend on component mq.
namespace feedback {
inline constexpr std::int32_t ims_error = 300;                 // MQFB_IMS_ERROR
inline constexpr std::int32_t ims_first = 301;                 // MQFB_IMS_FIRST
inline constexpr std::int32_t ims_last = 399;                  // MQFB_IMS_LAST
inline constexpr std::int32_t ims_nack_1a_reason_first = 600;  // MQFB_IMS_NACK_1A_REASON_FIRST
inline constexpr std::int32_t ims_nack_1a_reason_last = 855;   // MQFB_IMS_NACK_1A_REASON_LAST
}  // namespace feedback

// 300 + sense, and for sense X'001A' 600 + reason [C: MQ-FB]. A NAK the ranges cannot express — sense
// above X'63' (past MQFB_IMS_LAST 399), reason above 255 with X'1A' (past 855), or sense 0 — gives
// MQFB_IMS_ERROR 300, IBM's "unexpected error returned by IMS": a Feedback outside the IMS ranges would
// be read as some other MQFB code, so the exact sense goes to the console message instead [D].
std::int32_t feedback_for_nak(std::uint16_t sense_code, std::uint16_t reason) noexcept;

// The NAK a Feedback stands for: 301–399 → (Feedback − 300, 0), 600–855 → (X'1A', Feedback − 600).
// Nothing for 300 (it names no sense), for 326 (X'1A' is never reported as 300 + X'1A') and outside
// the IMS ranges.
std::optional<std::pair<std::uint16_t, std::uint16_t>> nak_for_feedback(std::int32_t feedback) noexcept;

}  // namespace imsb::otma
