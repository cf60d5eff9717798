// libFuzzer target for the OTMA prefix codec (spec/otma-xcf.md §1): decode_message must never crash
// or read past the buffer, and whatever it accepts must re-encode to the very same bytes — the
// byte-exactness the bridge and the emulator rely on when they echo a prefix back (§1.12: the ACK of
// CBresynch echoes SD and SE unchanged). The same input is also tried as a two-buffer chain.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "imsb/otma/message.hpp"
#include "imsb/otma/transaction_attributes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const imsb::bytes_view input(data, size);
  auto decoded = imsb::otma::decode_message(input);
  if (decoded.ok()) {
    auto encoded = imsb::otma::encode_message(*decoded);
    if (!encoded.ok() || encoded->size() != size) __builtin_trap();
    for (std::size_t i = 0; i < size; ++i) {
      if ((*encoded)[i] != data[i]) __builtin_trap();
    }
    (void)imsb::otma::describe(*decoded);
    for (const auto& segment : decoded->segments()) {  // §1.13: as a /DIS TRAN attributes segment
      auto attributes = imsb::otma::decode_transaction_attributes(segment);
      if (attributes.ok() && imsb::otma::encode_transaction_attributes(*attributes).data != segment.data)
        __builtin_trap();
    }
    if (decoded->user) {  // §1.7 [D]: as the bridge's MQ user data
      auto mq = imsb::otma::decode_mq_user_data(*decoded->user);
      if (mq.ok() && imsb::otma::encode_mq_user_data(*mq).value() != *decoded->user) __builtin_trap();
    }
  } else if (decoded.error().field.empty()) {
    __builtin_trap();  // every error names its field
  }

  // Split at a point chosen by the input: exercises the chain checks on arbitrary buffers.
  if (size > 1) {
    const std::size_t cut = data[0] % size;
    const std::vector<imsb::bytes_view> buffers = {input.sub(0, cut), input.sub(cut)};
    auto chained = imsb::otma::decode_chain(buffers);
    if (chained.ok() && !imsb::otma::encode_chain(*chained, 0).ok()) __builtin_trap();
  }
  return 0;
}
