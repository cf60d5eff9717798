#pragma once
// MQ request → OTMA input: the pure half of CM0 step 3 (docs/design/commit-modes.md) and of CM1, for the
// bridge engine (bridge/). Input: a message got from a bridge queue, already validated by
// mq::validate_bridge_message in its own encoding and CCSID. Output: the OTMA message to send.
// No I/O, no clock: the caller passes what it knows.
//
// Character data [D] (docs/design/character-data.md): with conversion `text` the MQIIH fields the
// bridge passes on and every segment's text (after LLZZ) are converted from the message's CCSID to the
// partner's, the MQFMT_IMS_VAR_STRING rule whatever MQMD.Format; LL/ZZ go big-endian (OTMA). With
// `none` segment bytes pass untouched (LL/ZZ still big-endian: OTMA's integers are). A character that
// cannot be converted is make_mqrc(MQRC_NOT_CONVERTED) (2119) naming the segment and offset [D]: the
// bridge dead-letters the message with that reason, never a substitute character.

#include <cstdint>
#include <optional>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/otma/message.hpp"

namespace imsb::bridgemap {

enum class conversion : std::uint8_t { text, none };

// Per IMS partner (configuration, [D]).
struct partner_data {
  std::int32_t ccsid = 37;  // the partner's CCSID (IMS is EBCDIC)
  conversion convert = conversion::text;
};

// Everything the bridge adds to what the message says.
struct input_context {
  std::string tpipe;                     // 8 characters: the queue's synchronized or non-synchronized Tpipe
  bool synchronized = false;             // the Tpipe kind (CM0 non-command → true)
  std::uint32_t recoverable_seq = 0;     // CM0 persistent: the in-flight number n+1; otherwise 0
  std::array<std::uint8_t, 16> token{};  // the message's token: kept in the user data (reserved bytes
                                         // +344..+359) to tie CM1 output to its request [D]
  partner_data partner;
  std::int32_t qmgr_encoding = 0;  // the request MQMD kept in the user data is encoded in these [D]
  std::int32_t qmgr_ccsid = 0;
  // Security data (docs/design/otma.md; IBM's model [C: APP-ACCESS]): user ID = MQMD.UserIdentifier
  // (trimmed), group (may be empty), and the signed UTOKEN the bridge made (nullopt: none is sent, CONTROL
  // access).
  std::string user;
  std::string group;
  std::optional<bytes> utoken;
  char security_flag = 'C';  // otma::security_flag:: value derived from MQIIH SecurityScope ('C'/'F')
};

// Builds the OTMA input (MCI type transaction; for a conversation step, conversation data as tpipe/
// classifies it; state data, security data, user data as otma::mq_user_data, application data).
// - MCI: tpipe, recoverable_seq, response requested; send_seq is left 0 (client_session sets it).
// - state data: commit mode from request.commit_mode ('0' commit-then-send, '1' send-then-commit), sync level
//   CONFIRM for both; IMS commands (request.is_command) always send-then-commit [D]
//   (docs/design/commit-modes.md); lterm_override from request.lterm_override (blank: none), modname from
//   request.mfs_map_name, server_token from MQIIH.TranInstanceId when TranState is 'C' (in conversation),
//   expiration from MQMD.Expiry only when MQIIH.Flags has MQIIH_PASS_EXPIRATION [C: IIH-FLAGS] and the expiry
//   is not unlimited; in tenths of a second, as left at get (the state data's unit, not seconds:
//   expiry_seconds below is for the console) [D] (docs/design/otma.md).
// - user data: the request MQMD as version 1 in (qmgr_encoding, qmgr_ccsid), MQIIH ReplyToFormat and
//   Flags (zero/blank without an MQIIH), the token in the reserved bytes.
// - application data: the segments, converted per `partner` (above). The Authenticator never goes to IMS.
// `data` is the message data after the MQMD (what was validated; `request` views it).
result<otma::otma_message> build_input(const mq::mqmd& md, bytes_view data, const mq::bridge_request& request,
                                       const input_context& ctx);

// The token kept in an output's user data by build_input, if the user data is ours.
std::optional<std::array<std::uint8_t, 16>> token_of(const otma::otma_message& output);

// Remaining MQMD.Expiry (tenths of a second) → whole seconds rounded up; nullopt for MQEI_UNLIMITED.
std::optional<std::uint32_t> expiry_seconds(std::int32_t expiry_tenths) noexcept;

}  // namespace imsb::bridgemap
