// Every frame type encodes and decodes back to the same values, and encode refuses what decode would
// refuse (imsb/xcf/frame.hpp; transport/README.md "The xcfhub protocol" [D]).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>

#include "imsb/xcf/frame.hpp"
#include "xcf_test_support.hpp"

namespace imsb::xcf::frame {
namespace {

using test::same;
using test::sample;

class FrameRoundTrip : public ::testing::TestWithParam<sample> {};

TEST_P(FrameRoundTrip, DecodesToTheSameValuesAndBytes) {
  const sample& s = GetParam();
  const bytes wire = test::encode_ok(s);
  ASSERT_GE(wire.size(), header_size);
  EXPECT_EQ(load_u32(wire.data() + 12, byte_order::big), wire.size() - header_size);

  auto d = decode(wire, hard_max_payload);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->head.type, s.type);
  EXPECT_EQ(d->head.flags, s.flags);
  EXPECT_EQ(d->head.corr, s.corr);
  EXPECT_EQ(d->head.length, wire.size() - header_size);
  EXPECT_TRUE(same(d->body, s.body));

  bytes again;
  ASSERT_TRUE(encode(d->head.type, d->head.flags, d->head.corr, d->body, again));
  EXPECT_EQ(again, wire);

  // decode_header + decode_payload, as the hub does, give the same.
  auto h = decode_header(wire, hard_max_payload);
  ASSERT_TRUE(h.ok());
  auto p = decode_payload(*h, bytes_view(wire).sub(header_size));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_TRUE(same(*p, s.body));
}

INSTANTIATE_TEST_SUITE_P(EveryType, FrameRoundTrip, ::testing::ValuesIn(test::samples()),
                         [](const auto& param_info) { return param_info.param.label; });

TEST(FrameRoundTrip, SamplesCoverEveryType) {
  std::set<frame_type> covered;
  for (const auto& s : test::samples()) covered.insert(s.type);
  int known = 0;
  for (int t = 0; t < 256; ++t) known += known_type(static_cast<std::uint8_t>(t)) ? 1 : 0;
  EXPECT_EQ(known, 19);
  EXPECT_EQ(covered.size(), 19u);
}

TEST(FrameRoundTrip, PayloadSizesAreTheReadmeOnes) {
  const auto size_of = [](frame_type t, const payload& body) {
    bytes out;
    EXPECT_TRUE(encode(t, 0, 0, body, out));
    return out.size() - header_size;
  };
  EXPECT_EQ(size_of(frame_type::join, join_payload{"G", "M", 0, false, {}, {}}), 68u);
  join_rsp_payload r;
  r.members.resize(2, test::member("G", "M", 0, member_state::active));
  EXPECT_EQ(size_of(frame_type::join_rsp, r), 28u + 2 * 81);
  EXPECT_EQ(size_of(frame_type::leave, empty_payload{}), 0u);
  EXPECT_EQ(size_of(frame_type::leave_rsp, rc_payload{}), 8u);
  send_payload s;
  s.data.resize(3);
  EXPECT_EQ(size_of(frame_type::send, s), 58u + 3);
  EXPECT_EQ(size_of(frame_type::event,
                    event_payload{event_kind::left, test::member("G", "M", 0, member_state::not_defined)}),
            82u);
  EXPECT_EQ(size_of(frame_type::query, query_payload{}), 24u);
  EXPECT_EQ(size_of(frame_type::query_rsp, query_rsp_payload{}), 12u);
  EXPECT_EQ(size_of(frame_type::set_user_state, set_user_state_payload{}), 32u);
  EXPECT_EQ(size_of(frame_type::remove, remove_payload{"M"}), 16u);
  EXPECT_EQ(size_of(frame_type::pong, ping_payload{}), 8u);
  EXPECT_EQ(size_of(frame_type::error, error_payload{{}, "abc"}), 13u);
}

TEST(FrameTypes, NamesAndKnownValues) {
  EXPECT_EQ(to_string(frame_type::join), "JOIN");
  EXPECT_EQ(to_string(frame_type::query_rsp), "QUERY_RSP");
  EXPECT_EQ(to_string(frame_type::set_user_state), "SETUSTATE");
  EXPECT_EQ(to_string(frame_type::error), "ERROR");
  EXPECT_EQ(to_string(static_cast<frame_type>(0x42)), "UNKNOWN");
  EXPECT_TRUE(known_type(0x8A));
  EXPECT_FALSE(known_type(0x00));
  EXPECT_FALSE(known_type(0x0B));
  EXPECT_FALSE(known_type(0x85));  // no response to DELIVER
  EXPECT_FALSE(known_type(0x86));
  EXPECT_FALSE(known_type(0xFE));
}

TEST(FrameHeader, EncodesBigEndianFields) {
  bytes out{0xEE};
  encode_header(header{frame_type::send_rsp, 0x0005, 0xA1B2C3D4, 0x00010203}, out);
  EXPECT_EQ(out, test::hex("EE 58434645 01 84 0005 A1B2C3D4 00010203"));
  auto h = decode_header(bytes_view(out).sub(1), hard_max_payload);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->type, frame_type::send_rsp);
  EXPECT_EQ(h->flags, flags::ack | flags::resume);
  EXPECT_EQ(h->corr, 0xA1B2C3D4u);
  EXPECT_EQ(h->length, 0x00010203u);
}

// --- encode refusals ------------------------------------------------------------------------------

// Encodes; expects a refusal that leaves `out` exactly as it was.
void expect_refused(frame_type type, std::uint16_t f, const payload& body, const std::string& why) {
  bytes out{1, 2, 3};
  EXPECT_FALSE(encode(type, f, 0, body, out)) << why;
  EXPECT_EQ(out, (bytes{1, 2, 3})) << why;
}

TEST(FrameEncode, RefusesAPayloadThatDoesNotGoWithTheType) {
  const auto all = test::samples();
  for (const auto& s : all) {
    for (const auto& other : all) {
      const bool fits = other.body.index() == s.body.index();
      bytes out;
      EXPECT_EQ(encode(s.type, s.flags, 0, other.body, out), fits) << s.label << " with " << other.label;
      if (!fits) {
        EXPECT_TRUE(out.empty());
      }
    }
  }
  expect_refused(static_cast<frame_type>(0x42), 0, empty_payload{}, "unknown type");
}

TEST(FrameEncode, RefusesReservedFlagBits) {
  for (int bit = 3; bit < 16; ++bit)
    expect_refused(frame_type::leave, static_cast<std::uint16_t>(1u << bit), empty_payload{},
                   std::to_string(bit));
}

TEST(FrameEncode, RefusesNamesThatBreakTheXcfRules) {
  const std::string bad_groups[] = {"",    "GROUP1234",           "grp",  "G-1", " G",
                                    "G 1", std::string("G\0", 2), "G\xC4"};
  for (const auto& g : bad_groups) {
    expect_refused(frame_type::join, 0, join_payload{g, "M", 0, false, {}, {}}, "group '" + g + "'");
    join_rsp_payload r;
    r.members.push_back(test::member(g, "M", 0, member_state::active));
    expect_refused(frame_type::join_rsp, 0, r, "member_info group '" + g + "'");
    if (!g.empty()) expect_refused(frame_type::query, 0, query_payload{g, ""}, "query group '" + g + "'");
  }
  const std::string bad_members[] = {"", "M1234567890123456", "m", "M.1", "M 1", "M\t"};
  for (const auto& m : bad_members) {
    expect_refused(frame_type::join, 0, join_payload{"G", m, 0, false, {}, {}}, "member '" + m + "'");
    expect_refused(frame_type::remove, 0, remove_payload{m}, "remove '" + m + "'");
    deliver_payload d;
    d.source_name = m;
    expect_refused(frame_type::deliver, 0, d, "deliver source '" + m + "'");
    query_rsp_payload q;
    q.members.push_back(test::member("G", m, 0, member_state::active));
    expect_refused(frame_type::query_rsp, 0, q, "member_info name '" + m + "'");
    event_payload e;
    e.member = test::member("G", m, 0, member_state::active);
    expect_refused(frame_type::event, 0, e, "event name '" + m + "'");
    if (!m.empty()) {
      send_payload s;
      s.target_name = m;
      expect_refused(frame_type::send, 0, s, "send target '" + m + "'");
      expect_refused(frame_type::query, 0, query_payload{"G", m}, "query member '" + m + "'");
    }
  }
}

TEST(FrameEncode, RefusesSystemNamesThatCannotComeBack) {
  // Trailing blanks are padding on the wire: "AB " would decode as "AB", " " as "".
  const std::string bad[] = {
      "SYSTEM123", std::string("A\0B", 3), "A\x7F", "\xE9t\xE9", "A\nB", "AB ", " ", "        ", "SYS1   "};
  for (const auto& sys : bad) {
    query_rsp_payload q;
    q.members.push_back(test::member("G", "M", 0, member_state::active, sys));
    expect_refused(frame_type::query_rsp, 0, q, "system");
  }
  // Leading and inner blanks are part of the value and come back.
  for (const std::string good : {"a b~ 1", " AB", "A B", "", "SYS1"}) {
    query_rsp_payload q;
    q.members.push_back(test::member("G", "M", 0, member_state::active, good));
    bytes out;
    ASSERT_TRUE(encode(frame_type::query_rsp, 0, 0, q, out)) << "'" << good << "'";
    auto back = decode(out);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(std::get<query_rsp_payload>(back->body).members.at(0).system, good);
  }
}

TEST(FrameEncode, RefusesUnknownStatesAndEventKinds) {
  query_rsp_payload q;
  q.members.push_back(test::member("G", "M", 0, static_cast<member_state>(5)));
  expect_refused(frame_type::query_rsp, 0, q, "state 5");
  event_payload e;
  e.member = test::member("G", "M", 0, member_state::active);
  e.kind = static_cast<event_kind>(0);
  expect_refused(frame_type::event, 0, e, "kind 0");
  e.kind = static_cast<event_kind>(8);
  expect_refused(frame_type::event, 0, e, "kind 8");
}

TEST(FrameEncode, RefusesAnErrorTextOverSixteenBits) {
  expect_refused(frame_type::error, 0, error_payload{codes::protocol_error, std::string(0x10000, 'x')},
                 "text");
}

TEST(FrameEncode, AppendsAfterWhatIsThere) {
  bytes out{0xAA};
  ASSERT_TRUE(encode(frame_type::ping, 0, 1, ping_payload{2}, out));
  ASSERT_TRUE(encode(frame_type::pong, 0, 1, ping_payload{2}, out));
  EXPECT_EQ(out, test::hex("AA 58434645 01 0A 0000 00000001 00000008 0000000000000002"
                           "   58434645 01 8A 0000 00000001 00000008 0000000000000002"));
}

}  // namespace
}  // namespace imsb::xcf::frame
