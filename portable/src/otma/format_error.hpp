#pragma once
// Private to the OTMA codec: every decode (and encode) refusal carries the [D] sense X'0003'
// "prefix format error" (docs/design/otma.md) — the NAK an OTMA server answers such a buffer with.

#include <cstddef>
#include <string>
#include <utility>

#include "imsb/core/result.hpp"
#include "imsb/otma/sense.hpp"

namespace imsb::otma::detail {

inline decode_error format_error(std::string field, std::size_t offset, std::string detail) {
  return decode_error{make_sense(sense::prefix_format_error), std::move(field), offset, std::move(detail)};
}

inline std::string num(std::size_t n) { return std::to_string(n); }

}  // namespace imsb::otma::detail
