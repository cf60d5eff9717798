// The recovery log's pure codecs: batches, torn tails, queue files, CRC-32C.

#include <gtest/gtest.h>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "log_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

std::vector<log_op> sample_batch(std::uint64_t base) {
  std::vector<log_op> batch;
  batch.push_back(put_op("APP.IN", make_message(base, 40)));
  batch.push_back(get_op("APP.OUT", make_token(3, base + 1)));
  log_op backout;
  backout.what = log_op::kind::backout_count;
  backout.queue = "APP.IN";
  backout.message.token = make_token(3, base + 2);
  backout.message.backout_count = 7;
  batch.push_back(backout);
  return batch;
}

void expect_same(const std::vector<log_op>& a, const std::vector<log_op>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].what, b[i].what);
    EXPECT_EQ(a[i].queue, b[i].queue);
    EXPECT_EQ(a[i].message.token, b[i].message.token);
    EXPECT_EQ(a[i].message.backout_count, b[i].message.backout_count);
    if (a[i].what == log_op::kind::put) {
      EXPECT_EQ(a[i].message.put_time_ms, b[i].message.put_time_ms);
      EXPECT_EQ(a[i].message.md, b[i].message.md);
      EXPECT_EQ(a[i].message.data, b[i].message.data);
    }
  }
}

TEST(LogCodec, Crc32cKnownValue) {
  // The CRC-32C check value of "123456789" (RFC 3720 B.4) [C].
  EXPECT_EQ(log_codec::crc32c(bytes_view::of("123456789")), 0xE3069283u);
  EXPECT_EQ(log_codec::crc32c(bytes_view{}), 0u);
}

TEST(LogCodec, BatchesRoundTrip) {
  bytes extent;
  log_codec::encode_batch(sample_batch(10), extent);
  log_codec::encode_batch({}, extent);  // an empty batch is legal
  log_codec::encode_batch(sample_batch(20), extent);
  const auto decoded = log_codec::decode_extent(extent);
  ASSERT_EQ(decoded.batches.size(), 3u);
  EXPECT_EQ(decoded.good_bytes, extent.size());
  expect_same(decoded.batches[0], sample_batch(10));
  EXPECT_TRUE(decoded.batches[1].empty());
  expect_same(decoded.batches[2], sample_batch(20));
}

TEST(LogCodec, TornTailAtEveryByteKeepsOnlyWholeBatches) {
  bytes first;
  log_codec::encode_batch(sample_batch(1), first);
  bytes extent = first;
  log_codec::encode_batch(sample_batch(2), extent);
  for (std::size_t cut = first.size(); cut < extent.size(); ++cut) {
    const auto decoded = log_codec::decode_extent(bytes_view(extent.data(), cut));
    ASSERT_EQ(decoded.batches.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(decoded.good_bytes, first.size()) << "cut at " << cut;
  }
  // Cut inside the first batch: nothing at all.
  for (std::size_t cut = 0; cut < first.size(); ++cut) {
    const auto decoded = log_codec::decode_extent(bytes_view(extent.data(), cut));
    EXPECT_TRUE(decoded.batches.empty()) << "cut at " << cut;
    EXPECT_EQ(decoded.good_bytes, 0u);
  }
}

TEST(LogCodec, CorruptByteInLastBatchDropsItAndWhatFollows) {
  bytes first;
  log_codec::encode_batch(sample_batch(1), first);
  bytes extent = first;
  log_codec::encode_batch(sample_batch(2), extent);
  for (std::size_t at = first.size(); at < extent.size(); ++at) {
    bytes damaged = extent;
    damaged[at] ^= 0x40;
    const auto decoded = log_codec::decode_extent(damaged);
    ASSERT_EQ(decoded.batches.size(), 1u) << "flip at " << at;
    EXPECT_EQ(decoded.good_bytes, first.size());
  }
}

TEST(LogCodec, OpsWithoutCommitMarkAreIgnored) {
  bytes full;
  log_codec::encode_batch(sample_batch(1), full);
  // Drop the commit record (the last 13 bytes: 8 head, 1 type, 4 count).
  bytes no_commit(full.begin(), full.end() - 13);
  EXPECT_TRUE(log_codec::decode_extent(no_commit).batches.empty());
  EXPECT_EQ(log_codec::decode_extent(no_commit).good_bytes, 0u);
}

TEST(LogCodec, QueueFileRoundTrip) {
  std::vector<stored_message> messages{make_message(1), make_message(2, 1000), make_message(3, 0)};
  messages[1].backout_count = 4;
  bytes file;
  log_codec::encode_queue_file(42, messages, file);
  auto decoded = log_codec::decode_queue_file(file);
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  EXPECT_EQ(decoded->first, 42u);
  ASSERT_EQ(decoded->second.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(decoded->second[i].token, messages[i].token);
    EXPECT_EQ(decoded->second[i].put_time_ms, messages[i].put_time_ms);
    EXPECT_EQ(decoded->second[i].backout_count, messages[i].backout_count);
    EXPECT_EQ(decoded->second[i].md, messages[i].md);
    EXPECT_EQ(decoded->second[i].data, messages[i].data);
  }
}

TEST(LogCodec, EmptyQueueFileIsCheckpointZero) {
  auto decoded = log_codec::decode_queue_file(bytes_view{});
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->first, 0u);
  EXPECT_TRUE(decoded->second.empty());
}

TEST(LogCodec, DamagedQueueFileIsObjectDamaged) {
  bytes file;
  log_codec::encode_queue_file(5, {make_message(1)}, file);
  for (std::size_t cut = 1; cut < file.size(); ++cut) {
    auto decoded = log_codec::decode_queue_file(bytes_view(file.data(), cut));
    ASSERT_FALSE(decoded.ok()) << "cut at " << cut;
    EXPECT_EQ(decoded.error().code, mq::make_mqrc(mq::MQRC_OBJECT_DAMAGED));
  }
  for (std::size_t at = 0; at < file.size(); ++at) {
    bytes damaged = file;
    damaged[at] ^= 0x01;
    EXPECT_FALSE(log_codec::decode_queue_file(damaged).ok()) << "flip at " << at;
  }
}

}  // namespace
}  // namespace imsb::qmgr::test
