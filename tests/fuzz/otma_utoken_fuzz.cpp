// libFuzzer target for our signed UTOKEN's layout (our own format [D], docs/design/otma.md; utoken.hpp): any
// bytes go to decode_utoken, which must never crash or read past them; whatever it accepts must encode back
// to the very same bytes (the tag is checked over the signed part the decoder returns, so that part and the
// fields must agree), and every refusal names its field.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "imsb/otma/utoken.hpp"

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace o = imsb::otma;
  const imsb::bytes_view input(data, size);
  auto decoded = o::decode_utoken(input);
  if (!decoded.ok()) {
    require(!decoded.error().field.empty());
    require(decoded.error().offset < std::max<std::size_t>(size, 1));
    return 0;
  }
  const imsb::bytes again =
      o::encode_utoken(decoded->fields, imsb::bytes_view(decoded->tag.data(), decoded->tag.size()));
  require(again.size() == size && std::equal(again.begin(), again.end(), data));
  require(o::utoken_signed_part(decoded->fields) == decoded->signed_part);
  require(decoded->signed_part.size() == o::utoken_layout::signed_size &&
          std::equal(decoded->signed_part.begin(), decoded->signed_part.end(), data));
  return 0;
}
