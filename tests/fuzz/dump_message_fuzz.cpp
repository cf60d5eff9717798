// libFuzzer target for mqdump's decoder and renderers.
//
// The input is decoded four ways — as found (MQMD, MQ header, OTMA or bytes), as OTMA, and with
// --format MQIMS / MQIMSVS in an encoding and CCSID picked from its first byte — and each document
// is rendered as a listing and as JSON. The JSON must be pure ASCII with balanced brackets, every
// offset in the document must lie inside the input, and a document that did not decode must end
// with an IMB4 error. The input is also given to --explain as text.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "imsb/dump/decode.hpp"
#include "imsb/dump/explain.hpp"
#include "imsb/dump/render.hpp"

namespace {

using namespace imsb;
using namespace imsb::dump;

void require(bool ok) {
  if (!ok) std::abort();
}

void inside(const node& n, std::size_t size) {
  if (n.offset) {
    require(*n.offset <= size);
    if (n.kind == node_kind::field || n.kind == node_kind::data || n.kind == node_kind::segment)
      require(*n.offset + n.length <= size);
  }
  for (const auto& c : n.children) inside(c, size);
}

void check_json(const std::string& j) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : j) {
    auto c = static_cast<unsigned char>(ch);
    require(c < 0x80);
    if (in_string) {
      require(c >= 0x20);
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']')
      require(--depth >= 0);
  }
  require(depth == 0 && !in_string);
}

void one(bytes_view in, const options& o) {
  dump_result r = dump_message(in, o);
  inside(r.document, in.size());
  require(!render_text(r.document).empty());
  check_json(render_json(r.document));
  if (!r.ok()) require(r.error()->id.compare(0, 4, "IMB4") == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bytes_view in(data, size);
  one(in, {});
  options otma;
  otma.otma = true;
  one(in, otma);
  if (size > 0) {
    static constexpr std::int32_t encodings[] = {546, 273, 785, 0};
    static constexpr std::int32_t ccsids[] = {819, 37, 500, 1208};
    options f;
    f.format = (data[0] & 0x10) ? "MQIMSVS" : "MQIMS";
    f.encoding = encodings[data[0] & 3];
    f.ccsid = ccsids[(data[0] >> 2) & 3];
    one(in.sub(1), f);
  }
  if (size < 64) {
    explanation ex = explain_code(std::string_view(reinterpret_cast<const char*>(data), size));
    check_json(render_json(ex.document));
    require(ex.known || ex.document.children.back().kind == node_kind::error);
  }
  return 0;
}
