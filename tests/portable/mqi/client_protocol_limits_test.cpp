// The client protocol's limits (imsb/mqi/client_protocol.hpp [D]): check_request refuses what the other
// end would refuse (an MQMD that is not version 1 or 2, a body beyond max_body_length) with the MQRC a
// client returns, and the decoder's allocation budget keeps what a frame decodes to within a small
// multiple of its size. Memory is measured by counting: this program's operator new adds up the bytes it
// is asked for while a counter is armed.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <system_error>
#include <variant>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mqi/client_protocol.hpp"

namespace {
bool counting = false;
std::size_t counted = 0;
}  // namespace

// The replacements pair malloc with free themselves; g++ 12 at -O2 inlines them into callers and then
// sees "free of a pointer from operator new" (-Wmismatched-new-delete), a false alarm here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  if (counting) counted += n;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace imsb::mqi::wire {
namespace {

const std::error_code bad_message = std::make_error_code(std::errc::bad_message);

// Counts the bytes operator new is asked for while it lives.
struct allocation_counter {
  allocation_counter() {
    counted = 0;
    counting = true;
  }
  ~allocation_counter() { counting = false; }
  std::size_t bytes() const { return counted; }
};

// A response frame built by hand: header, then the body the caller appended.
class frame_builder {
 public:
  explicit frame_builder(frame_type answers) {
    const std::uint8_t header[12] = {'I', 'M', 'Q', 'F', 0, 0, 0, 0, 0, 0, 0, 1};
    f_.assign(header, header + 12);
    store_u16(f_.data() + 8, static_cast<std::uint16_t>(static_cast<std::uint16_t>(answers) | 0x8000),
              byte_order::big);
  }
  void u32(std::uint32_t v) {
    std::uint8_t b[4];
    store_u32(b, v, byte_order::big);
    f_.insert(f_.end(), b, b + 4);
  }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    f_.insert(f_.end(), s.begin(), s.end());
  }
  bytes done() {
    store_u32(f_.data() + 4, static_cast<std::uint32_t>(f_.size() - 12), byte_order::big);
    return f_;
  }

 private:
  bytes f_;
};

// ---- check_request -------------------------------------------------------------------------------

TEST(CheckRequest, MqmdVersionOneOrTwo) {
  for (std::int32_t v : {0, 3, -1}) {
    put_request p;
    p.md.version = v;
    auto r = check_request(p);
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_MD_ERROR));
    put1_request p1;
    p1.md.version = v;
    auto r1 = check_request(p1);
    ASSERT_FALSE(r1.ok()) << v;
    EXPECT_EQ(r1.error().code, mq::make_mqrc(mq::MQRC_MD_ERROR));
  }
  for (std::int32_t v : {mq::MQMD_VERSION_1, mq::MQMD_VERSION_2}) {
    put_request p;
    p.md.version = v;
    p.data = bytes(10, 0x41);
    EXPECT_TRUE(check_request(p).ok()) << v;
    // What passes encodes to a frame the other end decodes.
    bytes f;
    encode_request(p, f);
    auto d = decode_request(f);
    ASSERT_TRUE(d && d->ok()) << v;
  }
  EXPECT_TRUE(check_request(commit_request{}).ok());
}

TEST(CheckRequest, BodyAtMostMaxBodyLength) {
  // put: handle 4, MQMD 4 + 364, data 4 + n, options 4.
  const std::size_t fixed = 4 + 4 + 364 + 4 + 4;
  put_request p;
  p.md.version = mq::MQMD_VERSION_2;
  p.data.resize(max_body_length - fixed);
  EXPECT_TRUE(check_request(p).ok());
  p.data.push_back(0);
  auto r = check_request(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_MSG_TOO_BIG_FOR_Q_MGR));
  EXPECT_NE(r.error().detail.find(std::to_string(max_body_length + 1)), std::string::npos)
      << r.error().detail;
  // Not only message data counts: a script as long.
  mqsc_request m;
  m.script.assign(max_body_length, 'x');
  auto rm = check_request(m);
  ASSERT_FALSE(rm.ok());
  EXPECT_EQ(rm.error().code, mq::make_mqrc(mq::MQRC_MSG_TOO_BIG_FOR_Q_MGR));
}

TEST(CheckRequest, MeasuresWhatTheEncoderWrites) {
  put1_request p;
  p.od.object_name = "APP.Q";
  p.md.version = mq::MQMD_VERSION_1;
  p.data = bytes(1000, 1);
  bytes f;
  encode_request(p, f);
  // One byte less of room than the body takes is refused; exactly its length is not.
  const std::size_t body = f.size() - header_length;
  p.data.resize(1000 + max_body_length - body);
  EXPECT_TRUE(check_request(p).ok());
  p.data.push_back(0);
  EXPECT_FALSE(check_request(p).ok());
}

// ---- the decoder's allocation budget -------------------------------------------------------------

// 4 M empty lines: 16 MB on the wire, 128 MB of std::string once decoded (8 times). Refused when the
// count is read, before the lines are allocated.
TEST(AllocationBudget, MillionsOfEmptyLinesAreRefusedBeforeAllocating) {
  frame_builder b(frame_type::mqsc);
  b.u32(0);  // completion code
  b.u32(0);  // reason
  b.str("");
  const std::uint32_t n = 4'000'000;
  b.u32(n);
  for (std::uint32_t i = 0; i < n; ++i) b.u32(0);
  b.u32(0);  // exit code
  const bytes f = b.done();

  std::size_t allocated = 0;
  std::optional<result<decoded<response>>> d;
  {
    allocation_counter c;
    d = decode_response(f, frame_type::mqsc);
    allocated = c.bytes();
  }
  ASSERT_TRUE(d.has_value());
  ASSERT_FALSE(d->ok());
  EXPECT_EQ(d->error().code, bad_message);
  EXPECT_EQ(d->error().field, "mqsc_response.reply.lines");
  EXPECT_EQ(d->error().offset, 12u + 12u);
  EXPECT_LE(allocated, 4 * f.size()) << allocated;
  EXPECT_LE(allocated, std::size_t{65536}) << allocated;  // nothing for the lines at all
}

TEST(AllocationBudget, EmptyObjectsAreRefused) {
  frame_builder b(frame_type::inquire_objects);
  b.u32(0);
  b.u32(0);
  b.str("");
  const std::uint32_t n = 100'000;  // 1.2 MB; 112 bytes of object_attributes each
  b.u32(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    b.u32(0);
    b.u32(0);
    b.u32(0);
  }
  const bytes f = b.done();
  std::size_t allocated = 0;
  std::optional<result<decoded<response>>> d;
  {
    allocation_counter c;
    d = decode_response(f, frame_type::inquire_objects);
    allocated = c.bytes();
  }
  ASSERT_TRUE(d && !d->ok());
  EXPECT_EQ(d->error().code, bad_message);
  EXPECT_EQ(d->error().field, "inquire_objects_response.objects");
  EXPECT_LE(allocated, std::size_t{65536}) << allocated;
}

// Legitimate frames, large ones too, decode, and what they take stays within the budget.
TEST(AllocationBudget, LegitimateFramesDecodeWithinBudget) {
  {
    mqsc_response m;
    for (int i = 0; i < 20000; ++i)
      m.reply.lines.push_back("AMQ8409I: Display Queue details. " + std::to_string(i));
    for (int i = 0; i < 2000; ++i) m.reply.lines.emplace_back();  // some blank lines among them
    bytes f;
    encode_response(frame_type::mqsc, m, f);
    std::size_t allocated = 0;
    std::optional<result<decoded<response>>> d;
    {
      allocation_counter c;
      d = decode_response(f, frame_type::mqsc);
      allocated = c.bytes();
    }
    ASSERT_TRUE(d && d->ok()) << d->error().to_string();
    EXPECT_EQ(std::get<mqsc_response>(d->value().value).reply.lines, m.reply.lines);
    EXPECT_LE(allocated, 7 * f.size() + 65536) << allocated << " for " << f.size();
  }
  {
    // 500 queues of 30 attributes with one-character values: the densest map a queue manager sends.
    inquire_objects_response o;
    for (int q = 0; q < 500; ++q) {
      object_attributes a;
      a.type = "QLOCAL";
      a.name = "APP.Q." + std::to_string(q);
      for (int k = 0; k < 30; ++k) a.attributes["ATTR" + std::to_string(1000 + k)] = "0";
      o.objects.push_back(a);
    }
    bytes f;
    encode_response(frame_type::inquire_objects, o, f);
    std::size_t allocated = 0;
    std::optional<result<decoded<response>>> d;
    {
      allocation_counter c;
      d = decode_response(f, frame_type::inquire_objects);
      allocated = c.bytes();
    }
    ASSERT_TRUE(d && d->ok()) << d->error().to_string();
    EXPECT_EQ(std::get<inquire_objects_response>(d->value().value).objects.size(), 500u);
    EXPECT_LE(allocated, 7 * f.size() + 65536) << allocated << " for " << f.size();
  }
}

}  // namespace
}  // namespace imsb::mqi::wire
