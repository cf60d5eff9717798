// Fuzzes the object catalog's text form (imsb/objects/catalog_text.hpp): decode_catalog on any bytes.
// Invariants (trap on violation): a failure names a line ("catalog.line N") whose offset lies inside
// the input; a catalog that decodes is consistent — every object of a file family has a file name that
// maps back to it, and every file-name pair belongs to an object — and re-encodes to text that decodes
// again and encodes to the same text byte for byte (the fixed point after one round, since decode
// accepts more than encode writes: extra blanks, quoted keywords, lowercase hex, missing FILE lines).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "imsb/objects/catalog_text.hpp"
#include "imsb/objects/object.hpp"

namespace {

using namespace imsb::objects;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

constexpr object_family file_families[] = {object_family::queue, object_family::namelist,
                                           object_family::process};

void require_consistent(const object_catalog& cat) {
  for (object_family f : file_families) {
    for (const object_record* rec : cat.list(f)) {
      const auto file = cat.file_name_of(f, rec->name);
      require(file.has_value());
      require(cat.real_name_of(f, *file) == rec->name);
    }
    for (const auto& [real, file] : cat.file_names(f).pairs()) {
      require(cat.find(f, real) != nullptr);
      require(cat.real_name_of(f, file) == real);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT: bytes as text
  auto first = decode_catalog(text);
  if (!first.ok()) {
    require(first.error().field.rfind("catalog.line ", 0) == 0);
    require(first.error().offset <= size);
    return 0;
  }
  require_consistent(first.value());
  const std::string once = encode_catalog(first.value());
  auto second = decode_catalog(once);
  require(second.ok());
  require_consistent(second.value());
  require(encode_catalog(second.value()) == once);
  return 0;
}
