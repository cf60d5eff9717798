// Golden frames (tests/vectors/xcf/*.hex, written by hand from transport/README.md with the names in
// EBCDIC 037): each decodes to the values its comments state and those values encode to the very bytes.
#include <gtest/gtest.h>

#include <string>

#include "imsb/xcf/frame.hpp"
#include "vectors.hpp"
#include "xcf_test_support.hpp"

namespace imsb::xcf::frame {
namespace {

using test::same;

const member_token token1{0, 0, 0, 1, 0, 0, 0, 1};
const member_token token2{0, 0, 0, 1, 0, 0, 0, 2};
const control_area mci{0x01, 0x10, 0x20, 0x00, 0x04, 0x00, 0x40, 0x40, 0x40, 0x40, 0x40,
                       0x40, 0x40, 0x40, 0xA0, 0xC0, 0,    0,    0,    0,    0,    0,
                       0,    0,    0,    0,    0,    0,    0,    0,    0x04, 0x00};
const bytes hello_ebcdic{0xC8, 0xC5, 0xD3, 0xD3, 0xD6};

user_state actv() {
  user_state u{};
  u[0] = 0xC1;  // 'ACTV' in EBCDIC
  u[1] = 0xC3;
  u[2] = 0xE3;
  u[3] = 0xE5;
  return u;
}
const member_data memdata{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};

member_info ims1(member_state state) { return {"XCFGRP1", "IMS1", token1, state, actv(), memdata, "HUB1"}; }

void check(const std::string& file, frame_type type, std::uint16_t f, std::uint32_t corr,
           const payload& body) {
  SCOPED_TRACE(file);
  const bytes wire = imsb::test::read_hex_vector("xcf/" + file);
  auto d = decode(wire);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->head.type, type);
  EXPECT_EQ(d->head.flags, f);
  EXPECT_EQ(d->head.corr, corr);
  EXPECT_EQ(d->head.length, wire.size() - header_size);
  EXPECT_TRUE(same(d->body, body));
  bytes out;
  ASSERT_TRUE(encode(type, f, corr, body, out));
  EXPECT_EQ(to_hex(out), to_hex(wire));
}

TEST(XcfGolden, Join) {
  check("join.hex", frame_type::join, 0, 1, join_payload{"XCFGRP1", "IMS1", 0, true, actv(), memdata});
}

TEST(XcfGolden, JoinRspWithTwoMembers) {
  join_rsp_payload r;
  r.code = codes::ok;
  r.token = token2;
  r.max_payload = 1024 * 1024;
  r.heartbeat_ms = 1000;
  r.members = {ims1(member_state::active), {"XCFGRP1", "CSQ1", token2, member_state::active, {}, {}, "HUB1"}};
  check("join_rsp.hex", frame_type::join_rsp, 0, 1, r);
}

TEST(XcfGolden, Send) {
  send_payload s;
  s.target_name = "IMS1";
  s.stream = 1;
  s.control = mci;
  s.data = hello_ebcdic;
  check("send.hex", frame_type::send, flags::ack | flags::ordered, 7, s);
}

TEST(XcfGolden, Deliver) {
  deliver_payload d;
  d.source_name = "CSQ1";
  d.source_token = token2;
  d.stream = 1;
  d.control = mci;
  d.data = hello_ebcdic;
  check("deliver.hex", frame_type::deliver, flags::ordered, 0, d);
}

TEST(XcfGolden, Event) {
  check("event.hex", frame_type::event, 0, 0, event_payload{event_kind::failed, ims1(member_state::failed)});
}

TEST(XcfGolden, QueryRsp) {
  member_data ones;
  ones.fill(0xFF);
  query_rsp_payload q;
  q.members = {{"XCFGRP1", "CSQ1", token2, member_state::quiesced, {}, ones, "SYS A"}};
  check("query_rsp.hex", frame_type::query_rsp, 0, 9, q);
}

TEST(XcfGolden, Error) {
  check("error.hex", frame_type::error, 0, 5, error_payload{codes::protocol_error, "frame does not decode"});
}

TEST(XcfGolden, QueryOfEveryGroup) { check("query_all.hex", frame_type::query, 0, 3, query_payload{"", ""}); }

}  // namespace
}  // namespace imsb::xcf::frame
