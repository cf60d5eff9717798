// libFuzzer target: what an external program writes on stdout (imsemu/include/imsb/imsemu/
// external_program.hpp, LLZZ segments [D]). The parser must never crash or read past the buffer; besides
// "no crash, no sanitizer report" it checks: an accepted output re-encodes to exactly the same bytes
// (LL counts the prefix, ZZ is zero, nothing is skipped), and an error names an offset inside the output.
// The seed corpus (corpus/imsemu_external_output/) holds segment streams made from the golden vectors.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "imsb/imsemu/external_program.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const imsb::bytes_view out(data, size);
  const auto parsed = imsb::imsemu::parse_program_output(out);
  if (!parsed) {
    if (parsed.error().offset >= size) std::abort();
    if (parsed.error().field.rfind("output.segment[", 0) != 0) std::abort();
    return 0;
  }
  std::vector<imsb::bytes> segments;
  for (const auto& s : *parsed) {
    if (s.zz != 0) std::abort();
    segments.push_back(s.data);
  }
  const imsb::bytes again = imsb::imsemu::program_input_bytes(segments);
  if (again.size() != size) std::abort();
  for (std::size_t i = 0; i < size; ++i) {
    if (again[i] != data[i]) std::abort();
  }
  return 0;
}
