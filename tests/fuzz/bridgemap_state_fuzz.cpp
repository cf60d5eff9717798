// libFuzzer target for the bridge's state records (bridgemap/state_records.hpp): any bytes go to
// decode_record, which must never crash or read past them; whatever it accepts must encode back to the
// very same bytes and decode again to the same record (a record read at restart and written back must
// not change), and every refusal names a STATE field inside the input. The Tpipe-name pair is driven
// from the same bytes: every name tpipe_name makes parses back to its number.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "imsb/bridgemap/state_records.hpp"

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace b = imsb::bridgemap;
  const imsb::bytes_view input(data, size);
  auto decoded = b::decode_record(input);
  if (!decoded.ok()) {
    require(decoded.error().field.rfind("STATE.", 0) == 0);
    require(decoded.error().offset < std::max<std::size_t>(size, 1));
  } else {
    const imsb::bytes again = b::encode_record(*decoded);
    require(again.size() == size && std::equal(again.begin(), again.end(), data));
    auto twice = b::decode_record(again);
    require(twice.ok() && *twice == *decoded);
    const b::correl24 key = b::key_of(*decoded);
    require(key[0] == static_cast<std::uint8_t>(decoded->kind));
  }
  // Tpipe names: prefix = the first bytes up to 4, number = the next four bytes.
  if (size >= 5) {
    const std::size_t plen = 1 + data[0] % 4;
    if (size >= 1 + plen + 4) {
      const std::string prefix(reinterpret_cast<const char*>(data + 1), plen);
      const std::uint32_t n = imsb::load_u32(data + 1 + plen, imsb::byte_order::big);
      const bool sync = (n & 1) != 0;
      auto name = b::tpipe_name(prefix, n, sync);
      if (name.ok()) {
        require(name->size() == 8);
        auto parts = b::parse_tpipe_name(prefix, *name);
        require(parts.has_value() && parts->number == n && parts->synchronized == sync);
      }
      (void)b::parse_tpipe_name(prefix, std::string(reinterpret_cast<const char*>(data), size));
    }
  }
  return 0;
}
