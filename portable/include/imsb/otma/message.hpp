#pragma once
// One OTMA message: the MCI, the optional state, security and user data sections, and the application
// data [C: IMS-MSGS-CLI, ICON-HDR]. Pure functions over bytes, no I/O [D] (docs/design/layers.md).
//
// decode_message() then encode_message() gives back the same bytes, for every buffer decode accepts
// (the fuzz target checks it): unknown state-data variants, extension bytes, ZZ values and trailing
// bytes are all kept.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/application_data.hpp"
#include "imsb/otma/layout.hpp"
#include "imsb/otma/mci.hpp"
#include "imsb/otma/security_data.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/otma/state_data.hpp"
#include "imsb/otma/user_data.hpp"

namespace imsb::otma {

struct otma_message {
  ::imsb::otma::mci mci;
  // Present exactly when the matching prefix flag is set ([C: ICON-HDR]; the bits [I], mci.hpp);
  // encode_message sets the flags.
  std::optional<state_data> state;
  std::optional<security_data> security;
  std::optional<user_data> user;
  std::optional<application_data> application;
  // Bytes after the last section of a message without application data. IBM's SRVresynch sample ends with
  // zero padding after its state data [C-hex: IMS-SAMPLE-RS]; it is kept so the buffer re-encodes exactly.
  // Must be empty when there is application data (segments run to the end of the buffer).
  bytes trailer;

  // Segments of the application data (empty if none), for convenience.
  const std::vector<segment>& segments() const noexcept;
};

// Equal when they encode to the same bytes: the section bits of mci.prefix_flags are compared as
// encode_message writes them (from the sections present), not as they were set.
bool operator==(const otma_message& a, const otma_message& b);
inline bool operator!=(const otma_message& a, const otma_message& b) { return !(a == b); }

// Decodes one OTMA buffer. Errors carry make_sense(sense::prefix_format_error) and name the section
// and field ("OTMA.security_data.subfield[0].length") with its offset in `buffer`.
result<otma_message> decode_message(bytes_view buffer);

// The byte-exact inverse of decode_message. Fails (same error shape, offsets in the output) on
// anything the decoder would refuse, so that a message it encodes decodes back equal (the fuzz target
// checks both directions): a state-data variant other than the one the MCI calls for
// (state_data_kind_for), raw state data the decoder would refuse, a security subfield too long for
// its type, security subfields over 255 bytes with byte 3 left to encode, user data over 1024 bytes,
// application data without segments or with a segment over 32767, a section over 65535, a trailer
// with application data.
result<bytes> encode_message(const otma_message& message);

// The prefix flags encode_message writes: the low four bits of message.mci.prefix_flags, plus one
// bit per section present.
std::uint8_t prefix_flags_for(const otma_message& message) noexcept;

// --- multi-buffer messages (chaining) [C: IMS-MSGS-CLI] ---------------------------------------------
// A logical message is sent as one or more buffers: the first with the full prefix, the later ones
// MCI + application data only [C]. Chain flags: first X'80', middle X'40', last X'20', one buffer
// X'A0' [R]. Every buffer carries the message's send-sequence number [I] (it numbers messages, not
// buffers [C: IMS-MCI-X]); the segment sequence number at MCI+28 counts the buffers from the first's
// value [I], so decode_chain does not insist on it.
//
// SRVresynch is the one message whose state data goes on in later buffers: "If the names do not fit
// in one buffer, chained multi-segment buffers are used" [C: IMS-SD-SRV]. Each later buffer
// then carries MCI + state data with the next tpipe names.
//
// Splits `message` after every `max_segments_per_buffer` segments and, for a SRVresynch, after every
// `max_tpipe_names_per_buffer` tpipe names (0 = no limit); the message takes as many buffers as the
// larger split needs. A message that fits in one buffer comes back as exactly encode_message(message)
// with chain flags X'A0'.
result<std::vector<bytes>> encode_chain(const otma_message& message, std::size_t max_segments_per_buffer,
                                        std::size_t max_tpipe_names_per_buffer = 0);

// Reassembles a chain: checks chain order (first, middles, last; no discard), that every buffer has
// the first one's send-sequence number and tpipe, and that later buffers carry no prefix sections
// (a SRVresynch's may carry state data: more tpipe names). The result is the first buffer's prefix
// with every buffer's segments (and tpipe names) in order, and chain flags X'A0' (the low four bits
// kept), so that encode_chain(decode_chain(b), n, k) == b for the n and k that built b.
result<otma_message> decode_chain(const std::vector<bytes_view>& buffers);

// One printed_field per field of every section, with absolute offsets (for mqdump and tests).
std::vector<printed_field> describe(const otma_message& message);

}  // namespace imsb::otma
