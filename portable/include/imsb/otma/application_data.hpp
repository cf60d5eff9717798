#pragma once
// The application-data section (DSECT TMAMAPP): IMS segments `LL(2) ZZ(2) text`, LL big-endian and counting
// LLZZ, at most 32767 [C: IMS-APP]. It runs to the end of the buffer: the section has no length of its own.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/layout.hpp"

namespace imsb::otma {

inline constexpr std::size_t llzz_size = 4;
inline constexpr std::size_t max_segment_size = 32767;  // LL, LLZZ included [C: IMS-APP]

struct segment {
  // ZZ is binary zeros on input [C]; we send 0 and ignore it on receive [D], but keep what came so
  // that the buffer re-encodes exactly.
  std::uint16_t zz = 0;
  // The text after LLZZ, in whatever CCSID the IMS application expects (docs/design/character-data.md).
  bytes data;

  std::size_t encoded_size() const noexcept { return llzz_size + data.size(); }
  friend bool operator==(const segment& a, const segment& b) { return a.zz == b.zz && a.data == b.data; }
  friend bool operator!=(const segment& a, const segment& b) { return !(a == b); }
};

struct application_data {
  std::vector<segment> segments;

  std::size_t encoded_size() const noexcept;
  friend bool operator==(const application_data& a, const application_data& b) {
    return a.segments == b.segments;
  }
  friend bool operator!=(const application_data& a, const application_data& b) { return !(a == b); }
};

// `section` runs from the first LL to the end of the buffer; segments must fill it exactly, and
// there must be at least one: application data is "one or more IMS segments" [C: IMS-APP], so both
// decode and check refuse none.
// `first_index` numbers the segments in errors ("OTMA.application_data.segment[3].LL").
result<application_data> decode_application_data(bytes_view section, std::size_t offset,
                                                 std::size_t first_index = 0);
std::optional<decode_error> check_application_data(const application_data& ap, std::size_t offset);
void append_application_data(const application_data& ap, bytes& out);

}  // namespace imsb::otma
