// Every way a frame can fail to decode: each error names the field and its offset from the start of the
// frame, says what was found, and carries the error code the hub dispatches on (frame.cpp's comment):
// protocol_error for framing, message_size for an over-long frame, invalid_argument for a bad name.
#include <gtest/gtest.h>

#include <string>
#include <system_error>

#include "imsb/xcf/frame.hpp"
#include "vectors.hpp"
#include "xcf_test_support.hpp"

namespace imsb::xcf::frame {
namespace {

const std::error_code protocol = std::make_error_code(std::errc::protocol_error);
const std::error_code too_long = std::make_error_code(std::errc::message_size);
const std::error_code bad_name = std::make_error_code(std::errc::invalid_argument);

bytes golden(const std::string& file) { return imsb::test::read_hex_vector("xcf/" + file); }

// Decodes `wire`, expects the error described.
void expect_error(const bytes& wire, std::error_code code, const std::string& field, std::size_t offset,
                  std::uint32_t max_payload = default_max_payload) {
  auto d = decode(wire, max_payload);
  ASSERT_FALSE(d.ok()) << field;
  EXPECT_EQ(d.error().code, code) << d.error().to_string();
  EXPECT_EQ(d.error().field, field) << d.error().to_string();
  EXPECT_EQ(d.error().offset, offset) << d.error().to_string();
  EXPECT_NE(d.error().detail.find("found"), std::string::npos) << d.error().to_string();
  EXPECT_NE(d.error().detail.find("expected"), std::string::npos) << d.error().to_string();
}

void set_u32(bytes& b, std::size_t off, std::uint32_t v) { store_u32(b.data() + off, v, byte_order::big); }
void set_u16(bytes& b, std::size_t off, std::uint16_t v) { store_u16(b.data() + off, v, byte_order::big); }
// Makes the header's length agree with the bytes after it.
void fix_length(bytes& b) { set_u32(b, 12, static_cast<std::uint32_t>(b.size() - header_size)); }

// --- Framing ------------------------------------------------------------------------------------

TEST(XcfFrameErrors, TruncationAtEveryLengthOfEveryFrame) {
  for (const auto& s : test::samples()) {
    if (s.label == "error_longest") continue;  // 64 KiB: the same paths as "error", 4000x slower
    const bytes wire = test::encode_ok(s);
    for (std::size_t n = 0; n < wire.size(); ++n) {
      SCOPED_TRACE(s.label + " cut at " + std::to_string(n));
      expect_error(bytes(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(n)), protocol,
                   n < header_size ? "XCFE.header" : "XCFE.payload", n, hard_max_payload);
    }
  }
}

TEST(XcfFrameErrors, ShortPayloadWithAMatchingLength) {
  // The header agrees with the shorter payload: the payload's own layout must refuse it, except where
  // the tail is free-form (SEND and DELIVER data).
  for (const auto& s : test::samples()) {
    if (s.label == "error_longest") continue;
    const bytes wire = test::encode_ok(s);
    for (std::size_t n = header_size; n < wire.size(); ++n) {
      SCOPED_TRACE(s.label + " payload cut to " + std::to_string(n - header_size));
      bytes cut(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(n));
      fix_length(cut);
      auto d = decode(cut, hard_max_payload);
      const bool free_tail =
          (s.type == frame_type::send || s.type == frame_type::deliver) && n >= header_size + 58;
      EXPECT_EQ(d.ok(), free_tail);
      if (!d.ok()) {
        EXPECT_EQ(d.error().code, protocol);
        EXPECT_EQ(d.error().field.rfind("XCFE." + std::string(to_string(s.type)) + ".", 0), 0u)
            << d.error().to_string();
      }
    }
  }
}

TEST(XcfFrameErrors, FixedPayloadsRefuseExtraBytes) {
  const frame_type fixed[] = {frame_type::join,   frame_type::leave, frame_type::leave_rsp,
                              frame_type::event,  frame_type::query, frame_type::set_user_state,
                              frame_type::remove, frame_type::ping,  frame_type::pong};
  for (const auto& s : test::samples()) {
    if (std::find(std::begin(fixed), std::end(fixed), s.type) == std::end(fixed)) continue;
    bytes wire = test::encode_ok(s);
    wire.push_back(0x40);
    fix_length(wire);
    SCOPED_TRACE(s.label);
    expect_error(wire, protocol, "XCFE." + std::string(to_string(s.type)) + ".length", 12);
  }
}

TEST(XcfFrameErrors, BytesAfterTheFrame) {
  bytes wire = golden("join.hex");
  wire.push_back(0);
  expect_error(wire, protocol, "XCFE.payload", wire.size() - 1);
}

TEST(XcfFrameErrors, BadMagicAtEachByte) {
  for (std::size_t i = 0; i < 4; ++i) {
    bytes wire = golden("join.hex");
    wire[i] ^= 0x20;  // 'xCFE', 'XcFE'... : ASCII case does not make it XCFE
    expect_error(wire, protocol, "XCFE.header.magic", 0);
    // Refused from the first wrong byte, before a whole header has arrived.
    expect_error(bytes(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(i + 1)), protocol,
                 "XCFE.header.magic", 0);
  }
  expect_error(test::hex("E7C3C6C5 01 01 0000 00000000 00000000"), protocol, "XCFE.header.magic",
               0);  // EBCDIC
}

TEST(XcfFrameErrors, BadVersion) {
  for (std::uint8_t v : {0, 2, 0xF1, 0xFF}) {
    bytes wire = golden("join.hex");
    wire[4] = v;
    expect_error(wire, protocol, "XCFE.header.version", 4);
  }
}

TEST(XcfFrameErrors, EveryUnknownType) {
  int unknown = 0;
  for (int t = 0; t < 256; ++t) {
    if (known_type(static_cast<std::uint8_t>(t))) continue;
    ++unknown;
    bytes wire = golden("join.hex");
    wire[5] = static_cast<std::uint8_t>(t);
    expect_error(wire, protocol, "XCFE.header.type", 5);
  }
  EXPECT_EQ(unknown, 256 - 19);
}

TEST(XcfFrameErrors, ReservedFlagBits) {
  for (int bit = 3; bit < 16; ++bit) {
    bytes wire = golden("send.hex");
    set_u16(wire, 6, static_cast<std::uint16_t>(flags::ack | 1u << bit));
    expect_error(wire, protocol, "XCFE.header.flags", 6);
  }
}

TEST(XcfFrameErrors, OversizeIsRefusedFromTheHeader) {
  bytes wire = golden("send.hex");  // 63-byte payload
  expect_error(wire, too_long, "XCFE.header.length", 12, 62);
  EXPECT_TRUE(decode(wire, 63).ok());
  for (std::uint32_t length : {default_max_payload + 1, hard_max_payload + 1, 0xFFFFFFFFu}) {
    set_u32(wire, 12, length);
    auto h = decode_header(bytes_view(wire).sub(0, header_size));
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().code, too_long);
    EXPECT_EQ(h.error().field, "XCFE.header.length");
    EXPECT_EQ(h.error().offset, 12u);
  }
  // A caller's maximum above XCF's 128 MB is held to 128 MB [C: XCF-MSGO].
  set_u32(wire, 12, hard_max_payload + 1);
  EXPECT_FALSE(decode_header(wire, 0xFFFFFFFF).ok());
  set_u32(wire, 12, hard_max_payload);
  EXPECT_TRUE(decode_header(wire, 0xFFFFFFFF).ok());
}

TEST(XcfFrameErrors, DecodePayloadChecksTheLengthItWasGiven) {
  const bytes wire = golden("send.hex");
  auto h = decode_header(wire);
  ASSERT_TRUE(h.ok());
  auto p = decode_payload(*h, bytes_view(wire).sub(header_size, h->length - 1));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().field, "XCFE.header.length");
  EXPECT_EQ(p.error().code, protocol);
}

// --- Names --------------------------------------------------------------------------------------

TEST(XcfFrameErrors, JoinNamesMustFollowTheXcfRules) {
  const std::size_t group = header_size, member = header_size + 8;
  struct bad {
    std::size_t field_at;
    std::size_t byte;
    std::uint8_t value;
    const char* field;
    std::size_t offset;
  };
  const bad cases[] = {
      {group, 0, 0x40, "XCFE.JOIN.group", group},          // leading blank
      {group, 1, 0x83, "XCFE.JOIN.group", group + 1},      // 'c' lower case
      {group, 3, 0x4B, "XCFE.JOIN.group", group + 3},      // '.'
      {group, 3, 0x40, "XCFE.JOIN.group", group + 3},      // embedded blank ('XCF RP1')
      {member, 0, 0xF1, "XCFE.JOIN.member", member},       // fine for XCF: see below
      {member, 2, 0x60, "XCFE.JOIN.member", member + 2},   // '-'
      {member, 15, 0xC1, "XCFE.JOIN.member", member + 4},  // 'IMS1' + blanks + 'A': embedded blanks
  };
  for (const auto& c : cases) {
    bytes wire = golden("join.hex");
    wire[c.field_at + c.byte] = c.value;
    if (c.field_at == member && c.byte == 0) {
      EXPECT_TRUE(decode(wire).ok());  // '1MS1': XCF allows a leading digit [C: XCF-NAMES2]
      continue;
    }
    SCOPED_TRACE(c.field);
    expect_error(wire, bad_name, c.field, c.offset);
  }
}

TEST(XcfFrameErrors, BlankNamesWhereANameIsRequired) {
  bytes wire = golden("join.hex");
  std::fill(wire.begin() + 16, wire.begin() + 24, 0x40);
  expect_error(wire, bad_name, "XCFE.JOIN.group", 16);
  wire = golden("deliver.hex");
  std::fill(wire.begin() + 24, wire.begin() + 40, 0x40);
  expect_error(wire, bad_name, "XCFE.DELIVER.source_name", 24);
  bytes remove = test::encode_ok({"", frame_type::remove, 0, 0, remove_payload{"M"}});
  remove[16] = 0x40;
  expect_error(remove, bad_name, "XCFE.REMOVE.member", 16);
}

TEST(XcfFrameErrors, NamesPaddedWithAnythingButBlanks) {
  bytes wire = golden("join.hex");
  wire[16 + 7] = 0x00;  // 'XCFGRP1' + NUL
  expect_error(wire, bad_name, "XCFE.JOIN.group", 16);
  wire = golden("send.hex");
  std::fill(wire.begin() + 24, wire.begin() + 40, 0x00);  // all NULs is not a blank target
  expect_error(wire, bad_name, "XCFE.SEND.target_name", 24);
}

TEST(XcfFrameErrors, BlankNamesWhereBlankMeansAll) {
  bytes wire = golden("send.hex");
  std::fill(wire.begin() + 24, wire.begin() + 40, 0x40);
  auto d = decode(wire);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(std::get<send_payload>(d->body).target_name, "");
  wire = golden("query_all.hex");
  wire[16 + 8] = 0x81;  // 'a': blank group with a lower-case member
  expect_error(wire, bad_name, "XCFE.QUERY.member", 24);
}

TEST(XcfFrameErrors, MemberInfoFieldsInLists) {
  const std::size_t member1 = header_size + 28 + 81;
  bytes wire = golden("join_rsp.hex");
  wire[member1 + 1] = 0x40;
  expect_error(wire, bad_name, "XCFE.JOIN_RSP.member[1].group", member1 + 1);
  wire = golden("join_rsp.hex");
  wire[member1 + 8] = 0x5A;  // '!'
  expect_error(wire, bad_name, "XCFE.JOIN_RSP.member[1].name", member1 + 8);
  wire = golden("join_rsp.hex");
  wire[member1 + 32] = 5;
  expect_error(wire, protocol, "XCFE.JOIN_RSP.member[1].state", member1 + 32);
  wire = golden("join_rsp.hex");
  wire[member1 + 73 + 2] = 0x25;  // EBCDIC LF in the system name
  expect_error(wire, bad_name, "XCFE.JOIN_RSP.member[1].system", member1 + 75);
  wire = golden("event.hex");
  wire[16 + 1 + 73] = 0x00;
  expect_error(wire, bad_name, "XCFE.EVENT.member.system", 16 + 1 + 73);
}

TEST(XcfFrameErrors, UnknownStateValues) {
  for (std::uint8_t state : {5, 0x80, 0xFF}) {
    bytes wire = golden("query_rsp.hex");
    wire[16 + 12 + 32] = state;
    expect_error(wire, protocol, "XCFE.QUERY_RSP.member[0].state", 16 + 12 + 32);
  }
}

TEST(XcfFrameErrors, UnknownEventKinds) {
  for (std::uint8_t kind : {0, 8, 0xFF}) {
    bytes wire = golden("event.hex");
    wire[16] = kind;
    expect_error(wire, protocol, "XCFE.EVENT.kind", 16);
  }
}

TEST(XcfFrameErrors, JoinFlagsAndUserStateLength) {
  bytes wire = golden("join.hex");
  wire[16 + 25] = 2;
  expect_error(wire, protocol, "XCFE.JOIN.lasting", 16 + 25);
  for (std::uint16_t len : {0, 31, 33, 0xFFFF}) {
    wire = golden("join.hex");
    set_u16(wire, 16 + 26, len);
    expect_error(wire, protocol, "XCFE.JOIN.ustate_len", 16 + 26);
  }
}

// --- Counts -------------------------------------------------------------------------------------

TEST(XcfFrameErrors, CountsMustMatchTheListExactly) {
  for (std::uint32_t count : {0u, 1u, 3u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
    bytes wire = golden("join_rsp.hex");
    set_u32(wire, 16 + 24, count);
    expect_error(wire, protocol, "XCFE.JOIN_RSP.count", 16 + 24);
  }
  for (std::uint32_t count : {0u, 2u, 0xFFFFFFFFu}) {
    bytes wire = golden("query_rsp.hex");
    set_u32(wire, 16 + 8, count);
    expect_error(wire, protocol, "XCFE.QUERY_RSP.count", 16 + 8);
  }
  bytes wire = golden("query_rsp.hex");  // one member_info and a stray byte
  wire.push_back(0x40);
  fix_length(wire);
  expect_error(wire, protocol, "XCFE.QUERY_RSP.count", 16 + 8);
}

// The error text states the bytes a huge count would need: 4294967295 × 81 = 347892350895, which a
// 32-bit size_t would wrap (to 4294967215); the text is computed in 64 bits on every platform.
TEST(XcfFrameErrors, HugeCountIsStatedWithoutOverflow) {
  bytes wire = golden("query_rsp.hex");
  set_u32(wire, 16 + 8, 0xFFFFFFFFu);
  auto d = decode(wire);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().detail.find("found count 4294967295 (347892350895 bytes of member_info)"),
            std::string::npos)
      << d.error().to_string();
}

TEST(XcfFrameErrors, ErrorTextLength) {
  for (std::uint16_t len : {0, 20, 22, 0xFFFF}) {
    bytes wire = golden("error.hex");  // 21 bytes of text
    set_u16(wire, 16 + 8, len);
    expect_error(wire, protocol, "XCFE.ERROR.text_len", 16 + 8);
  }
}

TEST(XcfFrameErrors, ToStringNamesFieldAndOffset) {
  bytes wire = golden("event.hex");
  wire[16] = 9;
  auto d = decode(wire);
  ASSERT_FALSE(d.ok());
  const std::string text = d.error().to_string();
  EXPECT_NE(text.find("XCFE.EVENT.kind"), std::string::npos) << text;
  EXPECT_NE(text.find("offset 16"), std::string::npos) << text;
  EXPECT_NE(text.find("found 9"), std::string::npos) << text;
}

}  // namespace
}  // namespace imsb::xcf::frame
