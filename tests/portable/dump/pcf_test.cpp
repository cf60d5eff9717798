#include "imsb/dump/pcf.hpp"

#include <gtest/gtest.h>

#include <string>

#include "imsb/core/messages.hpp"
#include "imsb/dump/decode.hpp"
#include "imsb/dump/render.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mq/pcf.hpp"

namespace imsb::dump {
namespace {

using namespace imsb::mq;

bytes event_with_mqmd(bool started, std::int32_t encoding, std::int32_t ccsid) {
  const event_message e = bridge_event(started, "GRP1", "IMS1", started ? 0 : MQRQ_BRIDGE_STOPPED_ERROR,
                                       started ? 0 : 2009, "QMZ", encoding, ccsid);
  bytes b;
  mqmd md = e.md;
  md.version = MQMD_VERSION_2;
  encode_mqmd(md, encoding, ccsid, b);
  b.insert(b.end(), e.data.begin(), e.data.end());
  return b;
}

const node* data_of(const dump_result& r) {
  for (const auto& c : r.document.children)
    if (c.name == "data") return &c;
  return nullptr;
}

TEST(dump_pcf, bridge_started_after_mqmd) {
  for (auto [enc, ccsid] : {std::pair{546, 819}, std::pair{785, 37}}) {
    const bytes msg = event_with_mqmd(true, enc, ccsid);
    const dump_result r = dump_message(msg);
    ASSERT_TRUE(r.ok()) << render_text(r.document);
    const node* d = data_of(r);
    ASSERT_NE(d, nullptr);
    const node* cfh = d->find("MQCFH");
    ASSERT_NE(cfh, nullptr);
    EXPECT_EQ(cfh->offset, 364u);
    const node* reason = cfh->find("Reason");
    ASSERT_NE(reason, nullptr);
    EXPECT_EQ(reason->number, 2125);
    EXPECT_NE(reason->meaning.find("MQRC_BRIDGE_STARTED"), std::string::npos) << reason->meaning;
    EXPECT_EQ(cfh->find("Type")->meaning, "MQCFT_EVENT");
    EXPECT_EQ(cfh->find("Command")->meaning, "MQCMD_CHANNEL_EVENT");
    EXPECT_EQ(cfh->find("CompCode")->meaning, "MQCC_WARNING");
    EXPECT_EQ(cfh->value, "MQCFT_EVENT, MQRC_BRIDGE_STARTED");

    const node* type = d->find("BridgeType");
    ASSERT_NE(type, nullptr);
    EXPECT_EQ(type->value, "1");
    EXPECT_EQ(type->meaning, "MQBT_OTMA");
    EXPECT_EQ(type->find("Parameter")->meaning, "MQIACF_BRIDGE_TYPE");
    EXPECT_EQ(type->find("Value")->meaning, "MQBT_OTMA");

    const node* name = d->find("BridgeName");
    ASSERT_NE(name, nullptr);
    EXPECT_EQ(name->value, "'GRP1    IMS1            '");
    EXPECT_EQ(name->meaning, "XCF group 'GRP1    ', IMS member 'IMS1            '");
    const node* qm = d->find("QMgrName");
    ASSERT_NE(qm, nullptr);
    EXPECT_EQ(qm->find("Parameter")->meaning, "MQCA_Q_MGR_NAME");
    EXPECT_EQ(r.document.value, "MQMD > data 'MQEVENT '");

    const std::string text = render_text(r.document);
    EXPECT_NE(text.find("MQBT_OTMA"), std::string::npos);
    EXPECT_NE(render_json(r.document).find("MQRC_BRIDGE_STARTED"), std::string::npos);
  }
}

TEST(dump_pcf, bridge_stopped_shows_qualifier_and_error) {
  const dump_result r = dump_message(event_with_mqmd(false, 546, 819));
  ASSERT_TRUE(r.ok());
  const node* d = data_of(r);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->find("Reason")->meaning.find("MQRC_BRIDGE_STOPPED"), std::string::npos);
  EXPECT_EQ(d->find("ReasonQualifier")->meaning, "MQRQ_BRIDGE_STOPPED_ERROR");
  EXPECT_EQ(d->find("ErrorIdentifier")->meaning, "MQRC_CONNECTION_BROKEN");
}

TEST(dump_pcf, after_a_dead_letter_header) {
  const event_message e = bridge_event(true, "G", "M", 0, 0, "QM", 546, 819);
  mqmd md;
  md.format = std::string(MQFMT_DEAD_LETTER_HEADER);
  md.encoding = 546;
  md.coded_char_set_id = 819;
  bytes b;
  encode_mqmd(md, 546, 819, b);
  mqdlh dlh;
  dlh.reason = MQRC_Q_FULL;
  dlh.format = std::string(MQFMT_EVENT);
  dlh.encoding = 546;
  dlh.coded_char_set_id = 819;
  encode_mqdlh(dlh, 546, 819, b);
  const std::size_t at = b.size();
  b.insert(b.end(), e.data.begin(), e.data.end());
  const dump_result r = dump_message(b);
  ASSERT_TRUE(r.ok()) << render_text(r.document);
  const node* cfh = r.document.find("MQCFH");
  ASSERT_NE(cfh, nullptr);
  EXPECT_EQ(cfh->offset, at);
  EXPECT_EQ(r.document.find("BridgeType")->meaning, "MQBT_OTMA");
}

TEST(dump_pcf, admin_and_pcf_formats_and_options_format) {
  EXPECT_TRUE(is_pcf_format("MQADMIN "));
  EXPECT_TRUE(is_pcf_format("MQPCF"));
  EXPECT_TRUE(is_pcf_format("MQEVENT "));
  EXPECT_FALSE(is_pcf_format("MQIMS   "));
  // PCF data without an MQMD, the format given as mqdump --format gives it.
  const event_message e = bridge_event(true, "G", "M", 0, 0, "QM", 546, 819);
  options o;
  o.format = "MQADMIN";
  const dump_result r = dump_message(e.data, o);
  ASSERT_TRUE(r.ok()) << render_text(r.document);
  EXPECT_EQ(r.document.find("MQCFH")->offset, 0u);
}

TEST(dump_pcf, a_bad_parameter_is_an_error_with_its_offset) {
  bytes msg = event_with_mqmd(true, 546, 819);
  // BridgeType's MQCFIN StrucLength (the parameter after the 68-byte QMgrName string) → 20.
  const std::size_t cfin = 364 + 36 + 68;
  store_u32(msg.data() + cfin + 4, 20, byte_order::little);
  const dump_result r = dump_message(msg);
  ASSERT_FALSE(r.ok());
  const node* e = r.error();
  EXPECT_EQ(e->id, msg::IMB4930E);
  EXPECT_EQ(e->name, "MQCFIN.StrucLength");
  EXPECT_EQ(e->offset, cfin + 4);
  EXPECT_NE(e->meaning.find("MQRC_CFIN_ERROR"), std::string::npos) << e->meaning;
  // The header still shows.
  EXPECT_NE(r.document.find("MQCFH"), nullptr);
}

TEST(dump_pcf, short_pcf_and_trailing_bytes) {
  bytes msg = event_with_mqmd(true, 546, 819);
  bytes cut(msg.begin(), msg.begin() + 364 + 20);
  const dump_result r = dump_message(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error()->name, "MQCFH.Control");
  EXPECT_EQ(r.document.find("MQCFH")->children.size(), 5u);  // the fields that fit

  msg.push_back(0x41);
  const dump_result t = dump_message(msg);
  ASSERT_TRUE(t.ok());
  const node* rest = t.document.find("rest");
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(rest->offset, msg.size() - 1);
}

}  // namespace
}  // namespace imsb::dump
