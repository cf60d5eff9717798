#include "imsb/mq/pcf.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "mq_test_util.hpp"

namespace imsb::mq {
namespace {

using test::wire;

// Expected bytes built by hand (mq_test_util.hpp), not with the codec under test.
void append(bytes& b, const bytes& more) { b.insert(b.end(), more.begin(), more.end()); }
void append_long(bytes& b, std::int32_t v, const wire& w) {
  append(b, test::long_bytes(static_cast<std::uint32_t>(v), w));
}

bytes cfh_bytes(const wire& w, std::int32_t type, std::int32_t len, std::int32_t version,
                std::int32_t command, std::int32_t reason, std::int32_t count) {
  bytes b;
  for (std::int32_t v : {type, len, version, command, 1, 1, 1, reason, count}) append_long(b, v, w);
  return b;
}

bytes cfin_bytes(const wire& w, std::int32_t id, std::int32_t value) {
  bytes b;
  for (std::int32_t v : {3, 16, id, value}) append_long(b, v, w);
  return b;
}

bytes cfst_bytes(const wire& w, std::int32_t id, std::string_view text, std::int32_t ccsid) {
  bytes b;
  const std::size_t padded = (text.size() + 3) / 4 * 4;
  for (std::int32_t v :
       {4, static_cast<std::int32_t>(20 + padded), id, ccsid, static_cast<std::int32_t>(text.size())})
    append_long(b, v, w);
  append(b, test::chars(text, text.size(), w));
  b.resize(b.size() + (padded - text.size()), 0);
  return b;
}

class pcf_wire : public ::testing::TestWithParam<wire> {};

TEST_P(pcf_wire, bridge_started_event_is_ibm_layout) {
  const wire& w = GetParam();
  const event_message e = bridge_event(true, "GRP1", "IMS1", 0, 0, "QMZ", w.encoding, w.ccsid);
  EXPECT_EQ(e.md.format, "MQEVENT ");
  EXPECT_EQ(e.md.msg_type, MQMT_DATAGRAM);
  EXPECT_EQ(e.md.encoding, w.encoding);
  EXPECT_EQ(e.md.coded_char_set_id, w.ccsid);

  bytes want = cfh_bytes(w, MQCFT_EVENT, 36, 1, MQCMD_CHANNEL_EVENT, 2125, 3);
  append(want, cfst_bytes(w, 2015, std::string("QMZ") + std::string(45, ' '), w.ccsid));
  append(want, cfin_bytes(w, 1073, 1));
  append(want, cfst_bytes(w, 3029, "GRP1    IMS1            ", w.ccsid));
  EXPECT_EQ(test::hex_at(e.data, 0, e.data.size()), test::hex_at(want, 0, want.size()));
}

TEST_P(pcf_wire, bridge_stopped_event_has_qualifier_and_error) {
  const wire& w = GetParam();
  const event_message e = bridge_event(false, "GROUPNAM", "MEMBERNAME012345", MQRQ_BRIDGE_STOPPED_ERROR, 2009,
                                       "QM1", w.encoding, w.ccsid);
  bytes want = cfh_bytes(w, MQCFT_EVENT, 36, 1, 46, 2126, 5);
  append(want, cfst_bytes(w, 2015, std::string("QM1") + std::string(45, ' '), w.ccsid));
  append(want, cfin_bytes(w, 1020, 12));
  append(want, cfin_bytes(w, 1073, 1));
  append(want, cfst_bytes(w, 3029, "GROUPNAMMEMBERNAME012345", w.ccsid));
  append(want, cfin_bytes(w, 1013, 2009));
  EXPECT_EQ(test::hex_at(e.data, 0, e.data.size()), test::hex_at(want, 0, want.size()));

  auto d = decode_pcf(e.data, w.encoding, w.ccsid);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->header.reason, MQRC_BRIDGE_STOPPED);
  EXPECT_EQ(d->header.comp_code, MQCC_WARNING);
  ASSERT_EQ(d->parameters.size(), 5u);
  EXPECT_EQ(d->parameters[1].value, MQRQ_BRIDGE_STOPPED_ERROR);
  EXPECT_EQ(d->parameters[3].text, "GROUPNAMMEMBERNAME012345");
  EXPECT_EQ(d->parameters[4].value, 2009);
  EXPECT_EQ(d->length, e.data.size());
}

TEST_P(pcf_wire, round_trip_of_every_kind) {
  const wire& w = GetParam();
  pcf_message m;
  m.header.type = MQCFT_RESPONSE;
  m.header.version = 3;
  m.header.command = 13;
  m.parameters.push_back(pcf_integer(MQIACF_BRIDGE_TYPE, -7));
  m.parameters.push_back(pcf_string(MQCA_Q_MGR_NAME, "", 0));
  m.parameters.push_back(pcf_string(MQCACF_BRIDGE_NAME, "ABCDE", 500));
  pcf_parameter g;
  g.type = MQCFT_GROUP;
  g.parameter = 8001;
  g.value = 2;
  m.parameters.push_back(g);
  m.parameters.push_back(pcf_integer(1, 2));
  pcf_parameter list;  // an MQCFIL kept raw
  list.type = MQCFT_INTEGER_LIST;
  for (std::int32_t v : {5, 20, 1001, 1, 42}) append_long(list.raw, v, w);
  m.parameters.push_back(list);
  m.parameters.push_back(pcf_integer(3, 4));  // after the group
  m.header.parameter_count = 5;               // the group's two do not count at top level

  bytes b;
  encode_pcf(m, w.encoding, w.ccsid, b);
  auto d = decode_pcf(b, w.encoding, w.ccsid);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->header, m.header);
  ASSERT_EQ(d->parameters.size(), m.parameters.size());
  EXPECT_EQ(d->parameters[0].value, -7);
  EXPECT_EQ(d->parameters[1].text, "");
  EXPECT_EQ(d->parameters[1].length, 20u);
  EXPECT_EQ(d->parameters[2].text, "ABCDE");
  EXPECT_EQ(d->parameters[2].ccsid, 500);
  EXPECT_EQ(d->parameters[2].length, 28u);
  EXPECT_EQ(d->parameters[3].value, 2);
  EXPECT_EQ(d->parameters[4].depth, 1u);
  EXPECT_EQ(d->parameters[5].depth, 1u);
  EXPECT_EQ(d->parameters[5].raw, list.raw);
  EXPECT_EQ(d->parameters[6].depth, 0u);
  EXPECT_EQ(d->length, b.size());
  bytes again;
  encode_pcf(*d, w.encoding, w.ccsid, again);
  EXPECT_EQ(again, b);
}

INSTANTIATE_TEST_SUITE_P(wires, pcf_wire, ::testing::ValuesIn(test::wires),
                         [](const auto& p) { return std::string(p.param.ebcdic ? "zos" : "linux"); });

TEST(pcf, string_in_its_own_ccsid) {
  // A string in CCSID 037 inside a little-endian ASCII message.
  bytes fixed = cfh_bytes(test::linux_819, MQCFT_EVENT, 36, 1, 44, 2125, 1);
  for (std::int32_t v : {4, 24, 2015, 37, 2}) append_long(fixed, v, test::linux_819);
  append(fixed, test::chars("QM", 2, test::zos_037));
  fixed.resize(fixed.size() + 2, 0);
  auto d = decode_pcf(fixed, 546, 819);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->parameters[0].text, "QM");
}

TEST(pcf, utf8_string_is_its_characters_not_its_byte_count) {
  // "Zürich" in CCSID 1208 is 7 bytes and 6 characters: the text is the 6 characters, with no blank
  // added to make up the byte count, so it re-encodes to the same 7 bytes (found by mq_pcf_fuzz:
  // one parameter grew by 4 bytes in the round trip while another shrank).
  bytes b = cfh_bytes(test::linux_819, MQCFT_EVENT, 36, 1, 44, 2125, 1);
  for (std::int32_t v : {4, 28, 2015, 1208, 7}) append_long(b, v, test::linux_819);
  for (std::uint8_t c : {0x5A, 0xC3, 0xBC, 0x72, 0x69, 0x63, 0x68, 0x00}) b.push_back(c);
  auto d = decode_pcf(b, 546, 819);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->parameters[0].text, "Z\xFCrich");
  bytes again;
  encode_pcf(*d, 546, 819, again);
  EXPECT_EQ(again, b);
}

struct bad_case {
  const char* name;
  std::function<void(bytes&)> spoil;
  std::int32_t rc;
  const char* field;
  std::size_t offset;
};

bytes good_event() { return bridge_event(false, "G", "M", MQRQ_BRIDGE_STOPPED_OK, 0, "QM", 546, 819).data; }
void set_long(bytes& b, std::size_t off, std::int32_t v) {
  store_u32(b.data() + off, static_cast<std::uint32_t>(v), byte_order::little);
}

TEST(pcf, every_error_names_field_and_offset) {
  // Layout of good_event(): MQCFH 0..35, MQCFST QMgrName 36..103 (20 + 48), MQCFIN ReasonQualifier
  // 104..119, MQCFIN BridgeType 120..135, MQCFST BridgeName 136..179, MQCFIN ErrorIdentifier 180..195.
  const std::vector<bad_case> cases = {
      {"short header", [](bytes& b) { b.resize(10); }, MQRC_CFH_ERROR, "MQCFH.Version", 8},
      {"empty", [](bytes& b) { b.clear(); }, MQRC_CFH_ERROR, "MQCFH.Type", 0},
      {"header type", [](bytes& b) { set_long(b, 0, MQCFT_INTEGER); }, MQRC_CFH_ERROR, "MQCFH.Type", 0},
      {"header length", [](bytes& b) { set_long(b, 4, 40); }, MQRC_CFH_ERROR, "MQCFH.StrucLength", 4},
      {"header version", [](bytes& b) { set_long(b, 8, 4); }, MQRC_CFH_ERROR, "MQCFH.Version", 8},
      {"negative count", [](bytes& b) { set_long(b, 32, -1); }, MQRC_CFH_ERROR, "MQCFH.ParameterCount", 32},
      {"count too large", [](bytes& b) { set_long(b, 32, 6); }, MQRC_CFH_ERROR, "MQCFH.ParameterCount", 32},
      {"parameter type", [](bytes& b) { set_long(b, 36, 99); }, MQRC_CFH_ERROR, "PCF.Type", 36},
      {"cfst length odd", [](bytes& b) { set_long(b, 40, 66); }, MQRC_CFST_ERROR, "MQCFST.StrucLength", 40},
      {"cfst length past end", [](bytes& b) { set_long(b, 40, 4000); }, MQRC_CFST_ERROR, "MQCFST.StrucLength",
       40},
      {"cfst string length", [](bytes& b) { set_long(b, 52, 49); }, MQRC_CFST_ERROR, "MQCFST.StringLength",
       52},
      {"cfst negative string", [](bytes& b) { set_long(b, 52, -1); }, MQRC_CFST_ERROR, "MQCFST.StringLength",
       52},
      {"cfin length", [](bytes& b) { set_long(b, 108, 20); }, MQRC_CFIN_ERROR, "MQCFIN.StrucLength", 108},
      {"cfin too short", [](bytes& b) { set_long(b, 108, 12); }, MQRC_CFIN_ERROR, "MQCFIN.StrucLength", 108},
      {"truncated parameter", [](bytes& b) { b.resize(190); }, MQRC_CFIN_ERROR, "MQCFIN.StrucLength", 184},
      {"group length",
       [](bytes& b) {
         set_long(b, 104, MQCFT_GROUP);
         set_long(b, 108, 20);
       },
       MQRC_CFGR_ERROR, "MQCFGR.StrucLength", 108},
      {"group count",
       [](bytes& b) {
         set_long(b, 104, MQCFT_GROUP);
         set_long(b, 116, -3);
       },
       MQRC_CFGR_ERROR, "MQCFGR.ParameterCount", 116},
      {"group runs out",
       [](bytes& b) {
         set_long(b, 180, MQCFT_GROUP);
         set_long(b, 192, 1);
       },
       MQRC_CFGR_ERROR, "MQCFGR.ParameterCount", 196},
      {"list length",
       [](bytes& b) {
         set_long(b, 104, MQCFT_INTEGER_LIST);
         set_long(b, 108, 12);
       },
       MQRC_CFIL_ERROR, "MQCFIL.StrucLength", 108},
  };
  for (const auto& c : cases) {
    bytes b = good_event();
    ASSERT_EQ(b.size(), 196u);
    c.spoil(b);
    auto d = decode_pcf(b, 546, 819);
    ASSERT_FALSE(d.ok()) << c.name;
    EXPECT_EQ(d.error().code, make_mqrc(c.rc)) << c.name << ": " << d.error().to_string();
    EXPECT_EQ(d.error().field, c.field) << c.name << ": " << d.error().to_string();
    EXPECT_EQ(d.error().offset, c.offset) << c.name << ": " << d.error().to_string();
    EXPECT_FALSE(d.error().detail.empty()) << c.name;
  }
}

TEST(pcf, trailing_bytes_are_left_to_the_caller) {
  bytes b = good_event();
  b.push_back(0xAB);
  auto d = decode_pcf(b, 546, 819);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->length, b.size() - 1);
}

TEST(pcf, names_and_meanings) {
  EXPECT_EQ(pcf_type_name(MQCFT_EVENT), "MQCFT_EVENT");
  EXPECT_EQ(pcf_type_name(11), "");
  EXPECT_EQ(pcf_command_name(46), "MQCMD_CHANNEL_EVENT");
  EXPECT_EQ(pcf_parameter_id_name(3029), "MQCACF_BRIDGE_NAME");
  EXPECT_EQ(pcf_parameter_field_name(1073), "BridgeType");
  EXPECT_EQ(pcf_parameter_field_name(1), "");
  EXPECT_EQ(pcf_value_meaning(MQIACF_BRIDGE_TYPE, 1), "MQBT_OTMA");
  EXPECT_EQ(pcf_value_meaning(MQIACF_BRIDGE_TYPE, 2), "");
  EXPECT_EQ(pcf_value_meaning(MQIACF_REASON_QUALIFIER, 11), "MQRQ_BRIDGE_STOPPED_OK");
  EXPECT_EQ(pcf_value_meaning(MQIACF_REASON_QUALIFIER, 12), "MQRQ_BRIDGE_STOPPED_ERROR");
  EXPECT_EQ(pcf_value_meaning(MQIACF_ERROR_IDENTIFIER, 2009), "MQRC_CONNECTION_BROKEN");
  EXPECT_EQ(pcf_value_meaning(MQIACF_ERROR_IDENTIFIER, 0), "no error");
  // The event reason codes are in the MQRC table mqdump explains.
  ASSERT_NE(find_mqrc(MQRC_BRIDGE_STARTED), nullptr);
  EXPECT_EQ(find_mqrc(MQRC_BRIDGE_STARTED)->name, "MQRC_BRIDGE_STARTED");
}

}  // namespace
}  // namespace imsb::mq
