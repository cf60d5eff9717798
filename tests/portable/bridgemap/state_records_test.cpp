// State records (bridgemap/state_records.hpp): bytes ↔ records for every kind, keys, bad bodies, and
// the Tpipe naming scheme (prefix + base-36 number + S/N, 8 characters).

#include "imsb/bridgemap/state_records.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::bridgemap {
namespace {

token16 token(std::uint8_t seed) {
  token16 t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(seed + i);
  return t;
}

std::vector<state_record> samples() {
  std::vector<state_record> v;
  state_record a;
  a.kind = record_kind::assignment;
  a.xcf_group = "GRP1";
  a.xcf_member = "IMS1";
  a.queue = "IMS.BRIDGE.QUEUE_1";
  a.number = 12;
  v.push_back(a);
  for (record_kind k : {record_kind::send, record_kind::receive}) {
    state_record s;
    s.kind = k;
    s.xcf_group = "GRP1";
    s.xcf_member = "IMSMEMBER1234567";
    s.tpipe = "CSQ000CS";
    s.number = 0xFFFFFFFEu;
    v.push_back(s);
  }
  state_record f;
  f.kind = record_kind::in_flight;
  f.xcf_group = "GROUP#$@";
  f.xcf_member = "IMS1";
  f.tpipe = "CSQ0001S";
  f.queue = "Q.with/lower%_chars";
  f.number = 43;
  f.token = token(0x80);
  v.push_back(f);
  state_record m;
  m.kind = record_kind::cm1_marker;
  m.xcf_group = "GRP1";
  m.xcf_member = "IMS1";
  m.tpipe = "CSQ0001N";
  m.queue = "IMS.BRIDGE.Q";
  m.token = token(3);
  v.push_back(m);
  state_record x;
  x.kind = record_kind::stopped;
  x.xcf_group = "GRP1";
  x.xcf_member = "IMS1";
  x.tpipe = "CSQ0001S";
  x.reason =
      std::string(imsb::msg::IMB2020E) + " sequence numbers do not match: ours 4/7, IMS 6/7 (send/receive)";
  v.push_back(x);
  return v;
}

TEST(bridgemap_state, every_kind_round_trips) {
  for (const auto& r : samples()) {
    const bytes b = encode_record(r);
    EXPECT_EQ(std::string(b.begin(), b.begin() + 8), "IMSBST01");
    EXPECT_EQ(b[8], static_cast<std::uint8_t>(r.kind));
    auto back = decode_record(b);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, r) << static_cast<char>(r.kind);
    EXPECT_EQ(encode_record(*back), b);
  }
}

TEST(bridgemap_state, numbers_are_big_endian_names_blank_padded_ascii) {
  state_record s;
  s.kind = record_kind::send;
  s.xcf_group = "G";
  s.xcf_member = "M";
  s.tpipe = "T";
  s.number = 0x01020304;
  const bytes b = encode_record(s);
  ASSERT_EQ(b.size(), 9u + 8 + 16 + 8 + 4);
  EXPECT_EQ(b[9], 'G');
  EXPECT_EQ(b[10], ' ');
  EXPECT_EQ(b[17], 'M');
  EXPECT_EQ(b[33], 'T');
  EXPECT_EQ(bytes(b.end() - 4, b.end()), (bytes{1, 2, 3, 4}));
}

TEST(bridgemap_state, keys) {
  auto str = [](const correl24& k) { return std::string(k.begin(), k.end()); };
  auto pad24 = [](std::string s) { return s.append(24 - s.size(), ' '); };
  const auto v = samples();
  EXPECT_EQ(str(key_of(v[0])), pad24("A00000012"));
  EXPECT_EQ(str(key_of(v[1])), "SGRP1.IMSMEMBER.CSQ000CS");  // member cut, Tpipe whole
  EXPECT_EQ(str(key_of(v[1])).size(), 24u);
  EXPECT_EQ(str(key_of(v[2]))[0], 'R');
  EXPECT_EQ(str(key_of(v[3])), pad24("FGROUP#$@.IMS1.CSQ0001S"));
  EXPECT_EQ(str(key_of(v[5])), pad24("XGRP1.IMS1.CSQ0001S"));
  // M: group's first 3 + 20 hex digits; tokens differing in any byte get different keys.
  const std::string m = str(key_of(v[4]));
  EXPECT_EQ(m.substr(0, 4), "MGRP");
  EXPECT_EQ(m.size(), 24u);
  std::set<std::string> keys;
  state_record r = v[4];
  for (std::size_t i = 0; i < 16; ++i) {
    r.token = token(3);
    r.token[i] ^= 0x01;
    keys.insert(str(key_of(r)));
  }
  EXPECT_EQ(keys.size(), 16u);
  EXPECT_EQ(keys.count(m), 0u);
  // The key ignores what is not part of it (same record, new number).
  state_record s2 = v[1];
  s2.number = 1;
  EXPECT_EQ(key_of(s2), key_of(v[1]));
  // Send and receive records of one Tpipe differ.
  EXPECT_NE(key_of(v[1]), key_of(v[2]));
}

TEST(bridgemap_state, bad_records) {
  const bytes good = encode_record(samples()[3]);
  auto expect_bad = [](const bytes& b, const std::string& field) {
    auto r = decode_record(b);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_FORMAT_ERROR));
    EXPECT_EQ(r.error().field, field) << r.error().to_string();
  };
  expect_bad(bytes{}, "STATE.record");
  bytes b = good;
  b[3] = 'X';
  expect_bad(b, "STATE.record");
  b = good;
  b[8] = 'Q';
  expect_bad(b, "STATE.kind");
  b = good;
  b.pop_back();
  expect_bad(b, "STATE.length");
  b = good;
  b.push_back(0);
  expect_bad(b, "STATE.length");
  b = good;
  b[9 + 2] = 0xC1;  // not ASCII in the group
  expect_bad(b, "STATE.xcf_group");
  b = good;
  b[9 + 8 + 1] = ' ';  // an embedded blank in the member "IMS1"
  expect_bad(b, "STATE.xcf_member");
  b = good;
  b[9 + 8 + 16 + 8 + 3] = '*';  // queue
  expect_bad(b, "STATE.queue");
  const bytes stopped = encode_record(samples()[5]);
  b = stopped;
  b[b.size() - 1] = 0x07;
  expect_bad(b, "STATE.reason");
  auto r = decode_record(bytes_view(good).sub(0, 20));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("short body"), std::string::npos);
}

TEST(bridgemap_state, tpipe_names) {
  EXPECT_EQ(tpipe_name("CSQ", 1, true).value(), "CSQ0001S");
  EXPECT_EQ(tpipe_name("CSQ", 1, false).value(), "CSQ0001N");
  EXPECT_EQ(tpipe_name("CSQ", 35, true).value(), "CSQ000ZS");
  EXPECT_EQ(tpipe_name("CSQ", 36, true).value(), "CSQ0010S");
  EXPECT_EQ(tpipe_name("CSQ", 36 * 36 * 36 * 36 - 1, false).value(), "CSQZZZZN");
  EXPECT_EQ(tpipe_name("A", 1, true).value(), "A000001S");
  EXPECT_EQ(tpipe_name("MQ@1", 100, true).value(), "MQ@102SS");
  for (std::uint32_t n : {1u, 2u, 35u, 36u, 1295u, 1296u, 46655u, 1679615u}) {
    for (bool s : {true, false}) {
      auto name = tpipe_name("CSQ", n, s);
      ASSERT_TRUE(name.ok());
      EXPECT_EQ(name->size(), 8u);
      auto parts = parse_tpipe_name("CSQ", *name);
      ASSERT_TRUE(parts.has_value()) << *name;
      EXPECT_EQ(parts->number, n);
      EXPECT_EQ(parts->synchronized, s);
    }
  }
}

TEST(bridgemap_state, tpipe_name_errors) {
  auto expect_2105 = [](const result<std::string>& r) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_STORAGE_CLASS_ERROR));
  };
  expect_2105(tpipe_name("CSQ", 0, true));
  expect_2105(tpipe_name("CSQ", 36 * 36 * 36 * 36, true));  // 8-character limit
  expect_2105(tpipe_name("ABCD", 36 * 36 * 36, true));
  EXPECT_TRUE(tpipe_name("ABCD", 36 * 36 * 36 - 1, true).ok());
  expect_2105(tpipe_name("", 1, true));
  expect_2105(tpipe_name("ABCDE", 1, true));
  expect_2105(tpipe_name("csq", 1, true));
  expect_2105(tpipe_name("C-Q", 1, true));
  expect_2105(tpipe_name("C#Q", 1, true));  // '#' is XCF's, not OTMA's: IMS would NAK the name X'0008'
  expect_2105(tpipe_name("DFS", 1, true));
}

TEST(bridgemap_state, parse_refuses_what_is_not_ours) {
  EXPECT_FALSE(parse_tpipe_name("CSQ", "CSQ0001X").has_value());
  EXPECT_FALSE(parse_tpipe_name("CSQ", "ABC0001S").has_value());
  EXPECT_FALSE(parse_tpipe_name("CSQ", "CSQ1S").has_value());  // ours are always 8 characters
  EXPECT_FALSE(parse_tpipe_name("CSQ", "CSQ0000S").has_value());
  EXPECT_FALSE(parse_tpipe_name("CSQ", "CSQ00a1S").has_value());
  EXPECT_FALSE(parse_tpipe_name("CSQ", "CSQ0001SX").has_value());
  EXPECT_FALSE(parse_tpipe_name("CSQ", "CSR0001S").has_value());  // another prefix
  EXPECT_FALSE(parse_tpipe_name("", "CSQ0001S").has_value());
  EXPECT_TRUE(parse_tpipe_name("CSQ", "CSQ0001S").has_value());
  EXPECT_TRUE(parse_tpipe_name("CSQ", "CSQ0001N  ").has_value());  // blank padded as OTMA names are
}

}  // namespace
}  // namespace imsb::bridgemap
