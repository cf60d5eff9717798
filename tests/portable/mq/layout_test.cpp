// The layout tables against IBM's layouts of MQIIH, MQMD, MQDLH and MQXQH (cmqc.h's [C: CMQC-H]), copied
// here row by row, and the typed structures' visitors against the layout tables.

#include "imsb/mq/layout.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mq/mqxqh.hpp"
#include "mq_test_util.hpp"

namespace imsb::mq {
namespace {

using K = field_kind;

struct spec_row {
  const char* name;
  int offset;
  int length;
  K kind;
};

// MQMD [C: CMQC-H, CMQC-PY]
const std::vector<spec_row> spec_mqmd = {
    {"StrucId", 0, 4, K::mqchar},
    {"Version", 4, 4, K::mqlong},
    {"Report", 8, 4, K::mqlong},
    {"MsgType", 12, 4, K::mqlong},
    {"Expiry", 16, 4, K::mqlong},
    {"Feedback", 20, 4, K::mqlong},
    {"Encoding", 24, 4, K::mqlong},
    {"CodedCharSetId", 28, 4, K::mqlong},
    {"Format", 32, 8, K::mqchar},
    {"Priority", 40, 4, K::mqlong},
    {"Persistence", 44, 4, K::mqlong},
    {"MsgId", 48, 24, K::mqbyte},
    {"CorrelId", 72, 24, K::mqbyte},
    {"BackoutCount", 96, 4, K::mqlong},
    {"ReplyToQ", 100, 48, K::mqchar},
    {"ReplyToQMgr", 148, 48, K::mqchar},
    {"UserIdentifier", 196, 12, K::mqchar},
    {"AccountingToken", 208, 32, K::mqbyte},
    {"ApplIdentityData", 240, 32, K::mqchar},
    {"PutApplType", 272, 4, K::mqlong},
    {"PutApplName", 276, 28, K::mqchar},
    {"PutDate", 304, 8, K::mqchar},
    {"PutTime", 312, 8, K::mqchar},
    {"ApplOriginData", 320, 4, K::mqchar},
    {"GroupId", 324, 24, K::mqbyte},
    {"MsgSeqNumber", 348, 4, K::mqlong},
    {"Offset", 352, 4, K::mqlong},
    {"MsgFlags", 356, 4, K::mqlong},
    {"OriginalLength", 360, 4, K::mqlong},
};

// MQIIH [C: CMQC-H, IIH-DOC]
const std::vector<spec_row> spec_mqiih = {
    {"StrucId", 0, 4, K::mqchar},         {"Version", 4, 4, K::mqlong},
    {"StrucLength", 8, 4, K::mqlong},     {"Encoding", 12, 4, K::mqlong},
    {"CodedCharSetId", 16, 4, K::mqlong}, {"Format", 20, 8, K::mqchar},
    {"Flags", 28, 4, K::mqlong},          {"LTermOverride", 32, 8, K::mqchar},
    {"MFSMapName", 40, 8, K::mqchar},     {"ReplyToFormat", 48, 8, K::mqchar},
    {"Authenticator", 56, 8, K::mqchar},  {"TranInstanceId", 64, 16, K::mqbyte},
    {"TranState", 80, 1, K::mqchar},      {"CommitMode", 81, 1, K::mqchar},
    {"SecurityScope", 82, 1, K::mqchar},  {"Reserved", 83, 1, K::mqchar},
};

// MQDLH [C: CMQC-H, MQGO-DLH]
const std::vector<spec_row> spec_mqdlh = {
    {"StrucId", 0, 4, K::mqchar},          {"Version", 4, 4, K::mqlong},
    {"Reason", 8, 4, K::mqlong},           {"DestQName", 12, 48, K::mqchar},
    {"DestQMgrName", 60, 48, K::mqchar},   {"Encoding", 108, 4, K::mqlong},
    {"CodedCharSetId", 112, 4, K::mqlong}, {"Format", 116, 8, K::mqchar},
    {"PutApplType", 124, 4, K::mqlong},    {"PutApplName", 128, 28, K::mqchar},
    {"PutDate", 156, 8, K::mqchar},        {"PutTime", 164, 8, K::mqchar},
};

// MQXQH [C: CMQC-H, XQH-DOC]
const std::vector<spec_row> spec_mqxqh = {
    {"StrucId", 0, 4, K::mqchar},          {"Version", 4, 4, K::mqlong},    {"RemoteQName", 8, 48, K::mqchar},
    {"RemoteQMgrName", 56, 48, K::mqchar}, {"MsgDesc", 104, 324, K::mqmd1},
};

void expect_matches_spec(const layout& l, const std::vector<spec_row>& spec, std::size_t rows,
                         std::size_t length) {
  ASSERT_EQ(l.count, rows) << l.struc_name;
  EXPECT_EQ(l.length, length) << l.struc_name;
  for (std::size_t i = 0; i < rows; ++i) {
    SCOPED_TRACE(std::string(l.struc_name) + "." + spec[i].name);
    EXPECT_EQ(l.fields[i].name, spec[i].name);
    EXPECT_EQ(l.fields[i].offset, spec[i].offset);
    EXPECT_EQ(l.fields[i].length, spec[i].length);
    EXPECT_EQ(l.fields[i].kind, spec[i].kind);
  }
}

// Fields follow each other with no gap or overlap, MQLONGs are 4 bytes on 4-byte boundaries, and the
// last field ends at the structure's length (no padding [C: CMQC-H]).
void expect_tiles(const layout& l) {
  std::size_t next = 0;
  for (const field_desc& f : l) {
    SCOPED_TRACE(std::string(l.struc_name) + "." + std::string(f.name));
    EXPECT_EQ(f.offset, next);
    EXPECT_GT(f.length, 0);
    if (f.kind == K::mqlong) {
      EXPECT_EQ(f.length, 4);
      EXPECT_EQ(f.offset % 4, 0);
    }
    next = f.offset + f.length;
  }
  EXPECT_EQ(next, l.length) << l.struc_name;
}

TEST(MqLayout, MqmdVersion1MatchesSpec) { expect_matches_spec(mqmd_layout(1), spec_mqmd, 24, 324); }
TEST(MqLayout, MqmdVersion2MatchesSpec) { expect_matches_spec(mqmd_layout(2), spec_mqmd, 29, 364); }
TEST(MqLayout, MqiihMatchesSpec) { expect_matches_spec(mqiih_layout(), spec_mqiih, 16, 84); }
TEST(MqLayout, MqdlhMatchesSpec) { expect_matches_spec(mqdlh_layout(), spec_mqdlh, 12, 172); }
TEST(MqLayout, MqxqhMatchesSpec) { expect_matches_spec(mqxqh_layout(), spec_mqxqh, 5, 428); }

TEST(MqLayout, EveryLayoutTilesItsStructure) {
  for (const layout* l :
       {&mqmd_layout(1), &mqmd_layout(2), &mqiih_layout(), &mqdlh_layout(), &mqxqh_layout()}) {
    expect_tiles(*l);
  }
}

TEST(MqLayout, LengthsAgreeWithConstants) {
  EXPECT_EQ(mqmd_layout(1).length, MQMD_LENGTH_1);
  EXPECT_EQ(mqmd_layout(2).length, MQMD_LENGTH_2);
  EXPECT_EQ(mqiih_layout().length, MQIIH_LENGTH_1);
  EXPECT_EQ(mqdlh_layout().length, MQDLH_LENGTH_1);
  EXPECT_EQ(mqxqh_layout().length, MQXQH_LENGTH_1);
  EXPECT_EQ(find_field(mqxqh_layout(), "MsgDesc")->length, MQMD_LENGTH_1);
  EXPECT_EQ(mqxqh_layout().struc_name, "MQXQH");
}

TEST(MqLayout, VersionSelectsMqmdLayout) {
  EXPECT_EQ(&mqmd_layout(0), &mqmd_layout(1));
  EXPECT_EQ(&mqmd_layout(3), &mqmd_layout(2));
  EXPECT_NE(&mqmd_layout(1), &mqmd_layout(2));
}

TEST(MqLayout, FindField) {
  const field_desc* f = find_field(mqiih_layout(), "StrucLength");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 8);
  EXPECT_EQ(find_field(mqiih_layout(), "strucLength"), nullptr);
  EXPECT_EQ(find_field(mqmd_layout(1), "GroupId"), nullptr);
  EXPECT_NE(find_field(mqmd_layout(2), "GroupId"), nullptr);
}

// The typed structures' visitors walk their members in the order, and with the kinds and sizes, of
// the layout rows; the default strings already have their field's length.
class binding_check {
 public:
  explicit binding_check(const layout& l) : l_(l) {}
  ~binding_check() { EXPECT_EQ(i_, l_.count) << l_.struc_name << ": visitor and layout differ in length"; }
  binding_check(const binding_check&) = delete;
  binding_check& operator=(const binding_check&) = delete;

  template <class T>
  void operator()(std::string_view name, const T& member) {
    ASSERT_LT(i_, l_.count) << l_.struc_name << ": visitor has more fields than the layout";
    const field_desc& f = l_.fields[i_++];
    EXPECT_EQ(f.name, name) << l_.struc_name;
    check(f, member);
  }

 private:
  void check(const field_desc& f, std::int32_t) { EXPECT_EQ(f.kind, K::mqlong) << f.name; }
  void check(const field_desc& f, const std::string& s) {
    EXPECT_EQ(f.kind, K::mqchar) << f.name;
    EXPECT_EQ(s.size(), f.length) << f.name << " default value";
  }
  void check(const field_desc& f, char) {
    EXPECT_EQ(f.kind, K::mqchar) << f.name;
    EXPECT_EQ(f.length, 1) << f.name;
  }
  template <std::size_t N>
  void check(const field_desc& f, const std::array<std::uint8_t, N>&) {
    EXPECT_EQ(f.kind, K::mqbyte) << f.name;
    EXPECT_EQ(f.length, N) << f.name;
  }
  void check(const field_desc& f, const mqmd& md) {
    EXPECT_EQ(f.kind, K::mqmd1) << f.name;
    EXPECT_EQ(f.length, MQMD_LENGTH_1) << f.name;
    visit_mqmd_fields(binding_check(mqmd_layout(2)), md);
  }

  const layout& l_;
  std::size_t i_ = 0;
};

TEST(MqLayout, VisitorsAgreeWithLayouts) {
  const mqmd md;
  const mqiih iih;
  const mqdlh dlh;
  const mqxqh xqh;
  visit_mqmd_fields(binding_check(mqmd_layout(2)), md);
  visit_mqiih_fields(binding_check(mqiih_layout()), iih);
  visit_mqdlh_fields(binding_check(mqdlh_layout()), dlh);
  visit_mqxqh_fields(binding_check(mqxqh_layout()), xqh);
}

TEST(MqLayout, DecodeFieldsGivesEveryField) {
  for (const test::wire& w : test::wires) {
    SCOPED_TRACE(w.name);
    mqiih iih;
    iih.format = std::string(MQFMT_IMS_VAR_STRING);
    iih.flags = MQIIH_PASS_EXPIRATION;
    iih.tran_instance_id = test::byte_pattern<16>(0x10);
    iih.commit_mode = MQICM_SEND_THEN_COMMIT;
    bytes b;
    encode_mqiih(iih, w.encoding, w.ccsid, b);
    // The CCSID asked for is of the other family: the StrucId wins.
    const std::vector<field_value> v = decode_fields(mqiih_layout(), b, w.encoding, w.ebcdic ? 819 : 37);
    ASSERT_EQ(v.size(), 16u);
    EXPECT_EQ(v[0].desc->name, "StrucId");
    EXPECT_EQ(v[0].text, "IIH ");
    EXPECT_EQ(v[1].number, 1);
    EXPECT_EQ(v[2].number, 84);
    EXPECT_EQ(v[5].text, "MQIMSVS ");
    EXPECT_EQ(v[6].number, MQIIH_PASS_EXPIRATION);
    EXPECT_EQ(v[11].raw, bytes(iih.tran_instance_id.begin(), iih.tran_instance_id.end()));
    EXPECT_EQ(v[13].text, "1");
    for (const field_value& f : v) EXPECT_EQ(f.raw.size(), f.desc->length) << f.desc->name;
    EXPECT_EQ(v[6].raw, test::long_bytes(MQIIH_PASS_EXPIRATION, w));
  }
}

TEST(MqLayout, DecodeFieldsStopsAtTheEndOfTheBuffer) {
  mqmd md;
  md.version = 2;
  bytes b;
  encode_mqmd(md, 546, 819, b);
  EXPECT_EQ(decode_fields(mqmd_layout(2), bytes_view(b).sub(0, 100), 546, 819).size(),
            14u);  // up to BackoutCount
  EXPECT_EQ(decode_fields(mqmd_layout(2), bytes_view(b).sub(0, 3), 546, 819).size(), 0u);
  EXPECT_EQ(decode_fields(mqmd_layout(2), b, 546, 819).size(), 29u);
  const auto xqh_fields = decode_fields(mqxqh_layout(), bytes(428, 0x40), 785, 37);
  ASSERT_EQ(xqh_fields.size(), 5u);
  EXPECT_EQ(xqh_fields[4].raw.size(), 324u);
  EXPECT_EQ(xqh_fields[2].text, std::string(48, ' '));
}

}  // namespace
}  // namespace imsb::mq
