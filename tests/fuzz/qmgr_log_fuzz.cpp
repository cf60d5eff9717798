// libFuzzer target: the recovery log's pure decoders (qmgr/src/recovery_log.cpp, log_codec): an extent's
// records (decode_extent) and a queue file (decode_queue_file). The first byte picks which; the rest is
// the file.
//
// Checked besides "no crash, no sanitizer report": decode_extent's good_bytes lies inside the input and
// the batches it found re-encode to exactly those good_bytes (so recovery and a later run read the same
// thing); a queue file that decodes re-encodes byte for byte, and one that does not is
// MQRC_OBJECT_DAMAGED.
// The seed corpus (corpus/qmgr_log/) holds real extents and queue files written by test_qmgr_log.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/qmgr/recovery_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace imsb;
  using namespace imsb::qmgr;
  if (size == 0) return 0;
  const bytes_view in(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    const auto contents = log_codec::decode_extent(in);
    if (contents.good_bytes > in.size()) std::abort();
    bytes again;
    for (const auto& batch : contents.batches) log_codec::encode_batch(batch, again);
    if (again.size() != contents.good_bytes) std::abort();
    for (std::size_t i = 0; i < again.size(); ++i)
      if (again[i] != in[i]) std::abort();
    const auto prefix = log_codec::decode_extent(in.sub(0, contents.good_bytes));
    if (prefix.batches.size() != contents.batches.size() || prefix.good_bytes != contents.good_bytes)
      std::abort();
  } else {
    const auto decoded = log_codec::decode_queue_file(in);
    if (!decoded.ok()) {
      if (decoded.error().code != mq::make_mqrc(mq::MQRC_OBJECT_DAMAGED)) std::abort();
      return 0;
    }
    if (in.empty()) {
      if (decoded->first != 0 || !decoded->second.empty()) std::abort();
      return 0;
    }
    bytes again;
    log_codec::encode_queue_file(decoded->first, decoded->second, again);
    if (again.size() != in.size()) std::abort();
    for (std::size_t i = 0; i < again.size(); ++i)
      if (again[i] != in[i]) std::abort();
  }
  return 0;
}
