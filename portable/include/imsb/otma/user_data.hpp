#pragma once
// The user-data section (DSECT TMAMUSR): `+0 length(2, counts itself)` then bytes the client owns; IMS
// returns them unchanged with the output. At most 1024 bytes with the length field [C: IMS-USR]. The content
// is opaque to OTMA; the layout IBM MQ puts there is not public, so mq_user_data is our own [D] layout (it
// works with a real IMS too, which never looks inside).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/layout.hpp"

namespace imsb::otma {

inline constexpr std::size_t max_user_data_size = 1024;  // section, length field included [C: IMS-USR]

struct user_data {
  bytes body;  // after the length field; at most 1022 bytes

  std::size_t encoded_size() const noexcept { return 2 + body.size(); }
  friend bool operator==(const user_data& a, const user_data& b) { return a.body == b.body; }
  friend bool operator!=(const user_data& a, const user_data& b) { return !(a == b); }
};

result<user_data> decode_user_data(bytes_view section, std::size_t offset);
std::optional<decode_error> check_user_data(const user_data& us, std::size_t offset);
void append_user_data(const user_data& us, bytes& out);

// --- [D] the bridge's user data (docs/design/otma.md) ----------------------------------------------
//   +0 length(2)  +2 version(2) = 1  +4 eyecatcher 'MQUD' (EBCDIC)  +8 MQMD version 1 (324 bytes, in
//   the queue manager's encoding and CCSID)  +332 ReplyToFormat(8, the MQMD's CCSID)  +340 MQIIH Flags(4)
//   +344.. reserved up to 1024, kept raw.
// The MQMD stays raw bytes here: component mq decodes it, and this codec must not depend on mq.
// Integers of our own (version, iih_flags) are big-endian like every OTMA integer [D].
inline constexpr std::size_t mqmd_v1_size = 324;
inline constexpr std::size_t mq_user_data_size = 344;
inline constexpr std::uint16_t mq_user_data_version_1 = 1;
inline constexpr raw_bytes<4> mq_user_data_eyecatcher = {0xD4, 0xD8, 0xE4, 0xC4};  // 'MQUD' in EBCDIC

struct mq_user_data {
  std::uint16_t version = mq_user_data_version_1;
  raw_bytes<4> eyecatcher = mq_user_data_eyecatcher;
  raw_bytes<mqmd_v1_size> mqmd{};  // the request's MQMD v1, byte for byte
  raw_bytes<8> reply_to_format{};  // MQIIH ReplyToFormat, in the MQMD's CCSID
  std::uint32_t iih_flags = 0;     // MQIIH Flags
  bytes reserved;                  // +344.. (up to the 1024-byte limit), kept raw
};

inline constexpr auto mq_user_data_layout =
    std::make_tuple(layout::make("version", 2, &mq_user_data::version),
                    layout::make("eyecatcher", 4, &mq_user_data::eyecatcher, layout::kind::raw),
                    layout::make("mqmd", 8, &mq_user_data::mqmd, layout::kind::raw),
                    layout::make("reply_to_format", 332, &mq_user_data::reply_to_format, layout::kind::raw),
                    layout::make("iih_flags", 340, &mq_user_data::iih_flags));
static_assert(layout::tiled_end(mq_user_data_layout, 2) == mq_user_data_size);

inline bool operator==(const mq_user_data& a, const mq_user_data& b) {
  return layout::equal(mq_user_data_layout, a, b) && a.reserved == b.reserved;
}
inline bool operator!=(const mq_user_data& a, const mq_user_data& b) { return !(a == b); }

// Errors name "OTMA.user_data.mq.<field>"; `offset` is where the user-data section starts.
result<mq_user_data> decode_mq_user_data(const user_data& us, std::size_t offset = 0);
// Fails only when `reserved` would take the section past 1024 bytes.
result<user_data> encode_mq_user_data(const mq_user_data& mq);

}  // namespace imsb::otma
