// The MQIIH flags that reach IMS [C: IIH-FLAGS], and the architected /DISPLAY TRANSACTION (TranState 'A'
// [C: IMS-CMDS]), end to end. The flags that shape the reply (PASS_EXPIRATION, REPLY_FORMAT_NONE) are in
// operations_test.cpp.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bridge_e2e.hpp"

namespace imsb::test {
namespace {

constexpr const char* dfs2082 = "DFS2082 RESPONSE MODE TRANSACTION TERMINATED WITHOUT REPLY";

class flags : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(qm_mode::embedded);
    const std::string e = rig_->start();
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }

  // A request with this MQIIH (native encoding, CCSID 819) and segments.
  std::array<std::uint8_t, 24> put_iih(const mq::mqiih& iih, const std::vector<std::string>& segments,
                                       std::int32_t persistence = mq::MQPER_PERSISTENT) {
    mq::mqmd md;
    md.version = mq::MQMD_VERSION_2;
    md.msg_type = mq::MQMT_REQUEST;
    md.report = mq::MQRO_EXCEPTION_WITH_DATA;
    md.format = std::string(mq::MQFMT_IMS);
    md.coded_char_set_id = 819;
    md.persistence = persistence;
    md.reply_to_q = pad(reply_q, 48);
    bytes data;
    mq::encode_mqiih(iih, mq::MQENC_NATIVE_LINUX_X86, 819, data);
    const bytes segs = bridge::encode_llzz_segments(segments, mq::MQENC_NATIVE_LINUX_X86, 819);
    data.insert(data.end(), segs.begin(), segs.end());
    return rig_->put(bridge_q, md, data);
  }
  std::optional<bridge::imsreq_reply> reply_to(const std::array<std::uint8_t, 24>& id,
                                               std::chrono::milliseconds wait = rig_wait) {
    auto m = rig_->get(reply_q, id, wait);
    if (!m) return std::nullopt;
    return bridge::decode_imsreq_reply(*m);
  }

  std::unique_ptr<bridge_rig> rig_;
};

// MQIIH_CM0_REQUEST_RESPONSE: for CM0, IMS answers DFS2082 when the program does not reply to the IOPCB
// (TMAMHRSP, OTMA server state X'40'). ALTOUT with REPLY=NO inserts only to an ALTPCB destination that
// has no descriptor (the output is dropped in IMS): with the flag the DFS2082 text is the reply; without
// it nothing comes back at all.
TEST_F(flags, Cm0RequestResponseGivesDfs2082) {
  mq::mqiih iih;
  iih.commit_mode = '0';
  iih.flags = mq::MQIIH_CM0_REQUEST_RESPONSE;
  auto r = reply_to(put_iih(iih, {"ALTOUT DEST=NODESC REPLY=NO", "ALT SEGMENT"}));
  ASSERT_TRUE(r) << "no DFS2082 reply";
  ASSERT_FALSE(r->segments.empty());
  EXPECT_TRUE(contains(r->segments.front(), dfs2082)) << r->segments.front();
  ASSERT_TRUE(r->iih);
  EXPECT_EQ(r->iih->commit_mode, '0');

  // Without the flag: no reply. CM0 runs one at a time on the synchronized Tpipe, so once a later
  // request's reply is there, an earlier one would have been too.
  iih.flags = mq::MQIIH_NONE;
  const auto silent = put_iih(iih, {"ALTOUT DEST=NODESC REPLY=NO", "ALT SEGMENT"});
  const auto after = put_iih(iih, {"ECHO AFTER SILENT"});
  r = reply_to(after);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->segments, std::vector<std::string>{"ECHO AFTER SILENT"});
  EXPECT_FALSE(rig_->get(reply_q, silent, milliseconds(300))) << "a reply without CM0_REQUEST_RESPONSE";
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);

  // On CM1 the flag means nothing more: IMS sends DFS2082 for response mode anyway [C: IMS-STC-FLOW].
  iih.commit_mode = '1';
  iih.flags = mq::MQIIH_NONE;
  r = reply_to(put_iih(iih, {"ALTOUT DEST=NODESC REPLY=NO", "ALT SEGMENT"}));
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->segments.empty());
  EXPECT_TRUE(contains(r->segments.front(), dfs2082)) << r->segments.front();
}

// MQIIH_IGNORE_PURG (TMAMIPRG): OTMA ignores PURG calls on the TP PCB for CM0. The emulator's programs
// issue no PURG, so IMS's answer is the same; what is checked is that the flag travels without changing
// anything else IMS receives (SHOWOTMA), in both commit modes.
TEST_F(flags, IgnorePurgTravelsWithCm0AndCm1) {
  for (const char cm : {'0', '1'}) {
    mq::mqiih iih;
    iih.commit_mode = cm;
    iih.flags = mq::MQIIH_IGNORE_PURG;
    auto r = reply_to(put_iih(iih, {"SHOWOTMA"}));
    ASSERT_TRUE(r) << cm;
    const auto f = showotma_fields(r->segments);
    EXPECT_EQ(f.count("TRAN") ? f.at("TRAN") : "", "SHOWOTMA") << joined(r->segments);
    EXPECT_EQ(f.count("COMMITMODE") ? f.at("COMMITMODE") : "", std::string(1, cm)) << joined(r->segments);
    EXPECT_EQ(f.count("SYNCHRONIZED") ? f.at("SYNCHRONIZED") : "", cm == '0' ? "Y" : "N")
        << joined(r->segments);
    ASSERT_TRUE(r->iih);
    EXPECT_EQ(r->iih->commit_mode, cm);
  }
  EXPECT_EQ(rig_->depth(dead_q), 0);
}

// Architected /DIS TRAN: TranState 'A' asks IMS for the binary attributes segment, one per transaction:
// LL ZZ, the 8-character code, flag 1 (X'00' valid, X'FF' not found), flag 2 (X'80' response mode, X'20'
// update, X'10' not recoverable), status [C: IMS-CMDS, IMS-DISTRAN].
TEST_F(flags, ArchitectedDisplayTransaction) {
  mq::mqiih iih;
  iih.commit_mode = '1';  // a command: CM1 (not persistent with CM0 [C: MAPPING-V6])
  iih.tran_state = mq::MQITS_ARCHITECTED;
  const auto id = put_iih(iih, {"/DIS TRAN ECHO ECHONR NOSUCH"}, mq::MQPER_NOT_PERSISTENT);
  auto m = rig_->get(reply_q, id);
  ASSERT_TRUE(m) << "no reply to the architected /DIS TRAN";
  const auto r = bridge::decode_imsreq_reply(*m);
  ASSERT_TRUE(r.iih) << r.raw_text;
  // The segments, raw: MQIIH (84 bytes) then LLZZ in the reply's encoding.
  const bytes& d = m->data;
  ASSERT_GE(d.size(), 84u);
  const bool big = (m->md.encoding & mq::MQENC_INTEGER_MASK) == mq::MQENC_INTEGER_NORMAL;
  struct attr {
    std::string code;
    std::uint8_t flag1 = 0, flag2 = 0, status = 0;
  };
  std::vector<attr> attrs;
  std::size_t at = 84;
  while (at + 4 <= d.size()) {
    const std::size_t ll =
        big ? (std::size_t{d[at]} << 8 | d[at + 1]) : (std::size_t{d[at + 1]} << 8 | d[at]);
    ASSERT_GE(ll, 4u);
    ASSERT_LE(at + ll, d.size());
    bytes_view body(d.data() + at + 4, ll - 4);
    if (body.size() >= 11) {
      attr a;
      a.code = rtrim(std::string(reinterpret_cast<const char*>(body.data()), 8));
      a.flag1 = body[8];
      a.flag2 = body[9];
      a.status = body[10];
      attrs.push_back(a);
    }
    at += ll;
  }
  EXPECT_EQ(at, d.size());
  ASSERT_EQ(attrs.size(), 3u) << r.raw_text;
  // The code is character data, in the reply's CCSID; the flags are binary and stay as IMS set them.
  EXPECT_EQ(attrs[0].code, "ECHO");
  EXPECT_EQ(attrs[0].flag1, 0x00);
  EXPECT_EQ(attrs[0].flag2, 0x80 | 0x20);  // response mode, recoverable (update)
  EXPECT_EQ(attrs[1].code, "ECHONR");
  EXPECT_EQ(attrs[1].flag2, 0x80 | 0x10);  // response mode, not recoverable
  EXPECT_EQ(attrs[2].code, "NOSUCH");
  EXPECT_EQ(attrs[2].flag1, 0xFF);  // not found
}

}  // namespace
}  // namespace imsb::test
