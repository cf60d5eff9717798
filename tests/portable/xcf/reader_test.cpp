// The incremental reader (Beast-style: feed bytes, take frames) and a property test of the decoder on
// random and mutated input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "imsb/xcf/frame.hpp"
#include "vectors.hpp"
#include "xcf_test_support.hpp"

namespace imsb::xcf::frame {
namespace {

using test::same;

struct stream_of_frames {
  bytes wire;
  std::vector<decoded> frames;
};

stream_of_frames all_samples() {
  stream_of_frames s;
  for (const auto& x : test::samples()) {
    const std::size_t start = s.wire.size();
    EXPECT_TRUE(encode(x.type, x.flags, x.corr, x.body, s.wire));
    s.frames.push_back(
        {{x.type, x.flags, x.corr, static_cast<std::uint32_t>(s.wire.size() - start - header_size)}, x.body});
  }
  return s;
}

// Takes every frame the reader has; fails the test on an error.
void drain(reader& r, std::vector<decoded>& out) {
  decoded d;
  decode_error err;
  for (;;) {
    const auto st = r.next(d, err);
    if (st == reader::status::need_more) return;
    ASSERT_EQ(st, reader::status::frame) << err.to_string();
    out.push_back(std::move(d));
  }
}

void expect_same_frames(const std::vector<decoded>& got, const std::vector<decoded>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(got[i], want[i])) << "frame " << i;
}

TEST(XcfReader, WholeStreamAtOnce) {
  const auto s = all_samples();
  reader r(hard_max_payload);
  r.feed(s.wire);
  std::vector<decoded> got;
  drain(r, got);
  expect_same_frames(got, s.frames);
  EXPECT_EQ(r.buffered(), 0u);
}

TEST(XcfReader, OneByteAtATime) {
  const auto s = all_samples();
  reader r(hard_max_payload);
  std::vector<decoded> got;
  for (std::size_t i = 0; i < s.wire.size(); ++i) {
    r.feed(bytes_view(s.wire).sub(i, 1));
    drain(r, got);
  }
  expect_same_frames(got, s.frames);
  EXPECT_EQ(r.buffered(), 0u);
}

TEST(XcfReader, RandomChunks) {
  const auto s = all_samples();
  for (unsigned seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> chunk(0, seed * 200);
    reader r(hard_max_payload);
    std::vector<decoded> got;
    for (std::size_t i = 0; i < s.wire.size();) {
      const std::size_t n = chunk(rng);
      r.feed(bytes_view(s.wire).sub(i, n));
      i += n;
      drain(r, got);
    }
    expect_same_frames(got, s.frames);
    EXPECT_EQ(r.buffered(), 0u);
  }
}

TEST(XcfReader, NeedMoreUntilTheFrameIsWhole) {
  const bytes wire = imsb::test::read_hex_vector("xcf/send.hex");
  reader r;
  decoded d;
  decode_error err;
  r.feed(bytes_view(wire).sub(0, wire.size() - 1));
  EXPECT_EQ(r.next(d, err), reader::status::need_more);
  EXPECT_EQ(r.buffered(), wire.size() - 1);
  r.feed(bytes_view(wire).sub(wire.size() - 1));
  ASSERT_EQ(r.next(d, err), reader::status::frame);
  EXPECT_EQ(d.head.corr, 7u);
  EXPECT_EQ(std::get<send_payload>(d.body).target_name, "IMS1");
  EXPECT_EQ(r.next(d, err), reader::status::need_more);
}

TEST(XcfReader, LongRunKeepsTheBufferSmall) {
  bytes ping;
  ASSERT_TRUE(encode(frame_type::ping, 0, 0, ping_payload{42}, ping));
  reader r;
  decoded d;
  decode_error err;
  std::size_t frames = 0;
  for (int i = 0; i < 20000; ++i) {
    r.feed(ping);
    if (i % 3 == 0) continue;  // leave some unread for a while
    while (r.next(d, err) == reader::status::frame) ++frames;
    EXPECT_LT(r.buffered(), 3 * ping.size());
  }
  while (r.next(d, err) == reader::status::frame) ++frames;
  EXPECT_EQ(frames, 20000u);
  EXPECT_EQ(r.buffered(), 0u);
}

// A stream that never drains: one byte of a frame is always waiting (the first chunk is one byte, the
// others whole frames), so the buffer is never empty and only compaction keeps the reader's storage from
// growing with everything it has read (20,000 frames of 24 bytes: 480,000 bytes).
TEST(XcfReader, CompactionKeepsTheStorageBoundedWhenTheBufferNeverDrains) {
  bytes ping;
  ASSERT_TRUE(encode(frame_type::ping, 0, 0, ping_payload{42}, ping));
  bytes stream;
  constexpr std::size_t frames = 20000;
  for (std::size_t i = 0; i < frames; ++i) stream.insert(stream.end(), ping.begin(), ping.end());
  reader r;
  decoded d;
  decode_error err;
  std::size_t taken = 0, largest = 0;
  std::mt19937 rng(9);
  std::uniform_int_distribution<std::size_t> whole_frames(1, 8);
  for (std::size_t at = 0, chunk = 1; at < stream.size();
       at += chunk, chunk = whole_frames(rng) * ping.size()) {
    chunk = std::min(chunk, stream.size() - at);
    r.feed(bytes_view(stream).sub(at, chunk));
    while (r.next(d, err) == reader::status::frame) ++taken;
    if (at + chunk < stream.size()) {
      EXPECT_EQ(r.buffered(), 1u);
    }
    largest = std::max(largest, r.capacity());
  }
  EXPECT_EQ(taken, frames);
  EXPECT_EQ(r.buffered(), 0u);
  // Compaction starts once 4 KiB are read and at least half the buffer is: the storage stays within a
  // small multiple of that, whatever the stream's length.
  EXPECT_LE(largest, 16u * 1024u);
}

TEST(XcfReader, ErrorIsFinal) {
  bytes wire = imsb::test::read_hex_vector("xcf/join.hex");
  bytes bad = wire;
  bad[4] = 2;  // version 2
  reader r;
  r.feed(wire);
  r.feed(bad);
  r.feed(wire);
  decoded d;
  decode_error err;
  ASSERT_EQ(r.next(d, err), reader::status::frame);
  ASSERT_EQ(r.next(d, err), reader::status::error);
  EXPECT_EQ(err.field, "XCFE.header.version");
  EXPECT_EQ(err.code, std::make_error_code(std::errc::protocol_error));
  r.feed(wire);
  for (int i = 0; i < 3; ++i) {
    decode_error again;
    EXPECT_EQ(r.next(d, again), reader::status::error);
    EXPECT_EQ(again.field, "XCFE.header.version");
  }
  EXPECT_EQ(r.buffered(), 0u);  // nothing more is kept once framing is lost
}

TEST(XcfReader, RefusesAStrangerFromItsFirstBytes) {
  reader r;
  r.feed(bytes_view::of("GET / HTTP/1.1\r\n"));
  decoded d;
  decode_error err;
  EXPECT_EQ(r.next(d, err), reader::status::error);
  EXPECT_EQ(err.field, "XCFE.header.magic");

  reader one;
  one.feed(bytes_view::of("X"));
  EXPECT_EQ(one.next(d, err), reader::status::need_more);
  one.feed(bytes_view::of("Y"));
  EXPECT_EQ(one.next(d, err), reader::status::error);
  EXPECT_EQ(err.field, "XCFE.header.magic");
}

TEST(XcfReader, RefusesAHugeLengthFromTheHeaderAlone) {
  const bytes head = test::hex("58434645 01 04 0000 00000001 FFFFFFFF");
  reader r;
  decoded d;
  decode_error err;
  r.feed(bytes_view(head).sub(0, 15));
  EXPECT_EQ(r.next(d, err), reader::status::need_more);
  r.feed(bytes_view(head).sub(15));
  ASSERT_EQ(r.next(d, err), reader::status::error);
  EXPECT_EQ(err.code, std::make_error_code(std::errc::message_size));
  EXPECT_EQ(err.field, "XCFE.header.length");

  reader small(62);                                         // the reader's own maximum
  small.feed(imsb::test::read_hex_vector("xcf/send.hex"));  // 63-byte payload
  EXPECT_EQ(small.next(d, err), reader::status::error);
  EXPECT_EQ(err.code, std::make_error_code(std::errc::message_size));
}

TEST(XcfReader, ABadPayloadIsAnErrorOnceItIsWhole) {
  bytes wire = imsb::test::read_hex_vector("xcf/event.hex");
  wire[16] = 0;  // event kind 0
  reader r;
  decoded d;
  decode_error err;
  r.feed(bytes_view(wire).sub(0, wire.size() - 1));
  EXPECT_EQ(r.next(d, err), reader::status::need_more);
  r.feed(bytes_view(wire).sub(wire.size() - 1));
  EXPECT_EQ(r.next(d, err), reader::status::error);
  EXPECT_EQ(err.field, "XCFE.EVENT.kind");
  EXPECT_EQ(err.offset, 16u);
}

// next_raw: framing and the header stay the reader's job, the payload is the caller's, so a payload that
// does not decode costs only its own frame (the hub answers JOIN 8/14 and reads on, README "Join" [D]).
TEST(XcfReader, RawFramesLeaveAPayloadErrorToItsFrame) {
  const bytes join = imsb::test::read_hex_vector("xcf/join.hex");
  const bytes send = imsb::test::read_hex_vector("xcf/send.hex");
  bytes bad = join;
  bad[header_size] = 0x81;  // group name starts with EBCDIC 'a': lowercase breaks XCF's rule [C: XCF-NAMES2]
  reader r;
  r.feed(join);
  r.feed(bad);
  r.feed(bytes_view(send).sub(0, send.size() - 1));
  header h;
  bytes_view p;
  decode_error err;
  ASSERT_EQ(r.next_raw(h, p, err), reader::status::frame);
  EXPECT_EQ(h.type, frame_type::join);
  EXPECT_TRUE(decode_payload(h, p).ok());

  ASSERT_EQ(r.next_raw(h, p, err), reader::status::frame);
  EXPECT_EQ(h.type, frame_type::join);
  EXPECT_EQ(h.length, join.size() - header_size);
  ASSERT_EQ(p.size(), h.length);
  EXPECT_TRUE(std::equal(p.begin(), p.end(), bad.begin() + header_size));
  const auto body = decode_payload(h, p);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_EQ(body.error().field, "XCFE.JOIN.group");

  EXPECT_EQ(r.next_raw(h, p, err), reader::status::need_more);  // the SEND is not whole yet
  r.feed(bytes_view(send).sub(send.size() - 1));
  decoded d;
  ASSERT_EQ(r.next(d, err), reader::status::frame);  // next() goes on where next_raw() stopped
  EXPECT_EQ(d.head.type, frame_type::send);
  EXPECT_EQ(std::get<send_payload>(d.body).target_name, "IMS1");
  EXPECT_EQ(r.next_raw(h, p, err), reader::status::need_more);
  EXPECT_EQ(r.buffered(), 0u);
}

TEST(XcfReader, RawFramesStillLoseFramingOnABadHeader) {
  bytes wire = imsb::test::read_hex_vector("xcf/join.hex");
  bytes bad = wire;
  bad[7] = 0x80;  // reserved flag bit
  reader r;
  r.feed(bad);
  r.feed(wire);
  header h;
  bytes_view p;
  decode_error err;
  ASSERT_EQ(r.next_raw(h, p, err), reader::status::error);
  EXPECT_EQ(err.field, "XCFE.header.flags");
  decoded d;
  decode_error again;
  EXPECT_EQ(r.next(d, again), reader::status::error);
  EXPECT_EQ(again.field, "XCFE.header.flags");
  EXPECT_EQ(r.next_raw(h, p, again), reader::status::error);
  EXPECT_EQ(r.buffered(), 0u);

  reader stranger;
  stranger.feed(bytes_view::of("GET"));
  EXPECT_EQ(stranger.next_raw(h, p, err), reader::status::error);
  EXPECT_EQ(err.field, "XCFE.header.magic");
}

// A payload that does not decode is fatal for next() (the client backend trusts the hub), as before.
TEST(XcfReader, NextStillLosesFramingOnABadPayload) {
  bytes bad = imsb::test::read_hex_vector("xcf/join.hex");
  bad[header_size] = 0x81;
  reader r;
  r.feed(bad);
  r.feed(imsb::test::read_hex_vector("xcf/join.hex"));
  decoded d;
  decode_error err;
  ASSERT_EQ(r.next(d, err), reader::status::error);
  EXPECT_EQ(err.code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_EQ(r.next(d, err), reader::status::error);
  EXPECT_EQ(r.buffered(), 0u);
}

// --- Property: random input never crashes, and whatever decodes encodes back ------------------

void check_any(bytes_view input) {
  auto d = decode(input, hard_max_payload);
  if (!d.ok()) {
    EXPECT_FALSE(d.error().field.empty());
    EXPECT_LE(d.error().offset, input.size());
    return;
  }
  bytes again;
  ASSERT_TRUE(encode(d->head.type, d->head.flags, d->head.corr, d->body, again));
  auto back = decode(again, hard_max_payload);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(same(*back, *d));
}

TEST(XcfProperty, RandomBytes) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> byte(0, 255);
  const auto samples = test::samples();
  std::size_t errors = 0;
  for (int i = 0; i < 20000; ++i) {
    bytes b(static_cast<std::size_t>(byte(rng)));
    for (auto& c : b) c = static_cast<std::uint8_t>(byte(rng));
    if (i % 2 == 0 && b.size() >= header_size) {  // a valid header, so the payload decoders are reached
      bytes head;
      encode_header({static_cast<frame_type>(samples[static_cast<std::size_t>(i) % samples.size()].type), 0,
                     0, static_cast<std::uint32_t>(b.size() - header_size)},
                    head);
      std::copy(head.begin(), head.end(), b.begin());
    }
    auto d = decode(b, hard_max_payload);
    errors += d.ok() ? 0 : 1;
    check_any(b);
    reader r(hard_max_payload);
    r.feed(b);
    decoded out;
    decode_error err;
    while (r.next(out, err) == reader::status::frame) {
    }
  }
  EXPECT_GT(errors, 15000u);  // random bytes are mostly refused
}

TEST(XcfProperty, MutatedFrames) {
  std::mt19937 rng(7);
  std::size_t accepted = 0, refused = 0;
  for (const auto& x : test::samples()) {
    if (x.label == "error_longest") continue;
    const bytes wire = test::encode_ok(x);
    std::uniform_int_distribution<std::size_t> where(0, wire.size() - 1);
    std::uniform_int_distribution<int> value(0, 255);
    for (int i = 0; i < 300; ++i) {
      bytes m = wire;
      for (int k = i % 3; k >= 0; --k) m[where(rng)] = static_cast<std::uint8_t>(value(rng));
      auto d = decode(m, hard_max_payload);
      (d.ok() ? accepted : refused) += 1;
      check_any(m);
    }
  }
  EXPECT_GT(accepted, 0u);
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace imsb::xcf::frame
