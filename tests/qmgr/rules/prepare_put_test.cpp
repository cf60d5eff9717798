// prepare_put: each MQRC it returns, the MsgId it generates, each context option with and without
// authority, and priority/persistence "as queue definition" [C: CMQC-PY].

#include <gtest/gtest.h>

#include <set>

#include "imsb/mq/codes.hpp"
#include "rules_fixture.hpp"

namespace imsb::qmgr::rules::test {
namespace {

using mq::mqmd;

std::int32_t rc_of(const mqmd& md, std::int32_t options = mq::MQPMO_NONE,
                   const put_context& ctx = make_ctx()) {
  auto r = prepare_put(md, options, ctx);
  if (r.ok()) return mq::MQRC_NONE;
  EXPECT_EQ(r.error().code.category(), mq::mqrc_category());
  EXPECT_FALSE(r.error().detail.empty());
  return r.error().code.value();
}

mqmd request() {
  mqmd md;
  md.msg_type = mq::MQMT_REQUEST;
  md.reply_to_q = pad("REPLY.Q", 48);
  return md;
}

// --- validation ----------------------------------------------------------------------------------

TEST(PreparePut, DefaultDatagramIsAccepted) { EXPECT_EQ(rc_of(mqmd{}), mq::MQRC_NONE); }

TEST(PreparePut, MsgTypeError) {
  for (std::int32_t t : {0, 3, 5, 7, 9, 65535, -1, 1000000000}) {
    mqmd md;
    md.msg_type = t;
    EXPECT_EQ(rc_of(md), mq::MQRC_MSG_TYPE_ERROR) << t;
  }
  for (std::int32_t t : {mq::MQMT_REPLY, mq::MQMT_DATAGRAM, mq::MQMT_APPL_FIRST, mq::MQMT_APPL_LAST}) {
    mqmd md;
    md.msg_type = t;
    EXPECT_EQ(rc_of(md), mq::MQRC_NONE) << t;
  }
}

TEST(PreparePut, PersistenceError) {
  for (std::int32_t p : {-1, 3, 100}) {
    mqmd md;
    md.persistence = p;
    EXPECT_EQ(rc_of(md), mq::MQRC_PERSISTENCE_ERROR) << p;
  }
}

TEST(PreparePut, PriorityError) {
  mqmd md;
  md.priority = -2;
  EXPECT_EQ(rc_of(md), mq::MQRC_PRIORITY_ERROR);
  md.priority = 0;
  EXPECT_EQ(rc_of(md), mq::MQRC_NONE);
}

TEST(PreparePut, PriorityAboveNineIsPutAtNine) {
  mqmd md;
  md.priority = 12;
  auto r = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->priority, 9);
}

TEST(PreparePut, ExpiryError) {
  for (std::int32_t e : {0, -2, -100}) {
    mqmd md;
    md.expiry = e;
    EXPECT_EQ(rc_of(md), mq::MQRC_EXPIRY_ERROR) << e;
  }
  mqmd md;
  md.expiry = 1;
  EXPECT_EQ(rc_of(md), mq::MQRC_NONE);
}

TEST(PreparePut, ReportOptionsError) {
  for (std::int32_t bit : {0x10000000, 0x00100000, 0x00080000, 0x00040000}) {
    mqmd md;
    md.report = mq::MQRO_COA | bit;
    EXPECT_EQ(rc_of(md), mq::MQRC_REPORT_OPTIONS_ERROR) << std::hex << bit;
  }
  mqmd md;  // bits of the accept masks are accepted
  md.report = mq::MQRO_COA_WITH_FULL_DATA | mq::MQRO_EXCEPTION_WITH_FULL_DATA | mq::MQRO_DISCARD_MSG |
              mq::MQRO_PASS_MSG_ID | mq::MQRO_PASS_CORREL_ID | 0x00000008;
  md.reply_to_q = pad("REPLY.Q", 48);  // reports need somewhere to go (ReportAskedForWithoutReplyToQ)
  EXPECT_EQ(rc_of(md), mq::MQRC_NONE);
}

TEST(PreparePut, FeedbackError) {
  mqmd report;
  report.msg_type = mq::MQMT_REPORT;
  EXPECT_EQ(rc_of(report), mq::MQRC_FEEDBACK_ERROR);  // a report without feedback
  report.feedback = mq::MQFB_COA;
  EXPECT_EQ(rc_of(report), mq::MQRC_NONE);
  report.feedback = mq::MQRC_Q_FULL;  // the Feedback may hold an MQRC
  EXPECT_EQ(rc_of(report), mq::MQRC_NONE);
  for (std::int32_t fb : {-1, 1000000000}) {
    mqmd md;
    md.feedback = fb;
    EXPECT_EQ(rc_of(md), mq::MQRC_FEEDBACK_ERROR) << fb;
  }
  mqmd appl;
  appl.feedback = mq::MQFB_APPL_FIRST;
  EXPECT_EQ(rc_of(appl), mq::MQRC_NONE);
}

TEST(PreparePut, RequestWithoutReplyToQ) {
  mqmd md = request();
  EXPECT_EQ(rc_of(md), mq::MQRC_NONE);
  md.reply_to_q = pad("", 48);
  EXPECT_EQ(rc_of(md), mq::MQRC_MISSING_REPLY_TO_Q);
  md.reply_to_q = std::string(48, '\0');
  EXPECT_EQ(rc_of(md), mq::MQRC_MISSING_REPLY_TO_Q);
  md.msg_type = mq::MQMT_DATAGRAM;  // only a request needs one
  EXPECT_EQ(rc_of(md), mq::MQRC_NONE);
}

TEST(PreparePut, ReportAskedForWithoutReplyToQ) {
  mqmd md;  // a datagram, ReplyToQ blank
  for (std::int32_t report :
       {mq::MQRO_COA, mq::MQRO_COD_WITH_DATA, mq::MQRO_EXCEPTION, mq::MQRO_EXPIRATION}) {
    md.report = report;
    EXPECT_EQ(rc_of(md), mq::MQRC_MISSING_REPLY_TO_Q) << report;
  }
  // Options that ask for no report message need no ReplyToQ.
  for (std::int32_t report :
       {mq::MQRO_PASS_MSG_ID, mq::MQRO_PASS_CORREL_ID, mq::MQRO_DISCARD_MSG, mq::MQRO_PAN}) {
    md.report = report;
    EXPECT_EQ(rc_of(md), mq::MQRC_NONE) << report;
  }
  md.report = mq::MQRO_COA;
  md.reply_to_q = pad("REPLY.Q", 48);
  EXPECT_EQ(rc_of(md), mq::MQRC_NONE);
}

TEST(PreparePut, QueueManagerCcsidReplacesMqccsiQMgr) {
  mqmd md;
  md.coded_char_set_id = mq::MQCCSI_Q_MGR;
  auto r = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->coded_char_set_id, 819);
  md.coded_char_set_id = 1208;  // a CCSID the application names stays
  r = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->coded_char_set_id, 1208);
}

TEST(PreparePut, TwoContextOptionsAreAnOptionsError) {
  put_context ctx = make_ctx();
  ctx.may_set_all = ctx.may_set_identity = true;
  const std::int32_t opts[] = {mq::MQPMO_DEFAULT_CONTEXT,  mq::MQPMO_PASS_IDENTITY_CONTEXT,
                               mq::MQPMO_PASS_ALL_CONTEXT, mq::MQPMO_SET_IDENTITY_CONTEXT,
                               mq::MQPMO_SET_ALL_CONTEXT,  mq::MQPMO_NO_CONTEXT};
  for (std::int32_t a : opts) {
    EXPECT_EQ(rc_of(mqmd{}, a | mq::MQPMO_NEW_MSG_ID | mq::MQPMO_SYNCPOINT, ctx), mq::MQRC_NONE) << a;
    for (std::int32_t b : opts) {
      if (a != b) {
        EXPECT_EQ(rc_of(mqmd{}, a | b, ctx), mq::MQRC_OPTIONS_ERROR) << a << " " << b;
      }
    }
  }
}

TEST(PreparePut, ContextAuthority) {
  put_context none = make_ctx();
  put_context id = make_ctx();
  id.may_set_identity = true;
  put_context all = make_ctx();
  all.may_set_all = true;
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_SET_IDENTITY_CONTEXT, none), mq::MQRC_NOT_AUTHORIZED);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_SET_IDENTITY_CONTEXT, id), mq::MQRC_NONE);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_SET_IDENTITY_CONTEXT, all), mq::MQRC_NONE);  // SETALL covers SETID
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_SET_ALL_CONTEXT, none), mq::MQRC_NOT_AUTHORIZED);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_SET_ALL_CONTEXT, id), mq::MQRC_NOT_AUTHORIZED);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_SET_ALL_CONTEXT, all), mq::MQRC_NONE);
  // PASS_*: the caller checked PASSID/PASSALL at MQOPEN; the rules do not ask again.
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_PASS_IDENTITY_CONTEXT, none), mq::MQRC_NONE);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_PASS_ALL_CONTEXT, none), mq::MQRC_NONE);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_NO_CONTEXT, none), mq::MQRC_NONE);
  EXPECT_EQ(rc_of(mqmd{}, mq::MQPMO_DEFAULT_CONTEXT, none), mq::MQRC_NONE);
}

// --- MsgId / CorrelId ----------------------------------------------------------------------------

TEST(PreparePut, GeneratedMsgIdShape) {
  auto r = prepare_put(mqmd{}, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(r.ok());
  const std::string head(r->msg_id.begin(), r->msg_id.begin() + 16);
  EXPECT_EQ(head, "AMQ QM1         ");
  // 1 bit "second id" (0), 23 bits of the incarnation 0x01020304 (0x020304), 40 bits of the counter (7).
  const std::array<std::uint8_t, 8> tail{0x02, 0x03, 0x04, 0, 0, 0, 0, 7};
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), r->msg_id.begin() + 16));
  EXPECT_EQ(r->correl_id, mq::MQCI_NONE);
}

TEST(PreparePut, LongQmgrNameUsesTwelveCharacters) {
  put_context ctx = make_ctx();
  ctx.qmgr_name = "ABCDEFGHIJKLMNOP";
  auto r = prepare_put(mqmd{}, mq::MQPMO_NONE, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::string(r->msg_id.begin(), r->msg_id.begin() + 16), "AMQ ABCDEFGHIJKL");
}

TEST(PreparePut, MsgIdsAreUniqueAcrossCounterAndIncarnation) {
  std::set<std::array<std::uint8_t, 24>> seen;
  put_context ctx = make_ctx();
  for (std::uint64_t inc : {1u, 2u}) {
    ctx.incarnation = inc;
    for (std::uint64_t c = 0; c < 500; ++c) {
      ctx.msg_id_counter = c;
      auto r = prepare_put(mqmd{}, mq::MQPMO_NONE, ctx);
      ASSERT_TRUE(r.ok());
      EXPECT_TRUE(seen.insert(r->msg_id).second) << inc << "/" << c;
    }
  }
  EXPECT_EQ(seen.size(), 1000u);
}

// A counter past 2^32 used to be added into the incarnation's bits: incarnation 1 with counter 2^32
// gave incarnation 2's first id.
TEST(PreparePut, CounterDoesNotSpillIntoTheIncarnation) {
  put_context a = make_ctx();
  a.incarnation = 1;
  a.msg_id_counter = std::uint64_t{1} << 32;
  put_context b = make_ctx();
  b.incarnation = 2;
  b.msg_id_counter = 0;
  auto ra = prepare_put(mqmd{}, mq::MQPMO_NONE, a);
  auto rb = prepare_put(mqmd{}, mq::MQPMO_NONE, b);
  ASSERT_TRUE(ra.ok());
  ASSERT_TRUE(rb.ok());
  EXPECT_NE(ra->msg_id, rb->msg_id);
  // The largest counter the 40-bit field holds still differs from the next incarnation's first id.
  a.msg_id_counter = (std::uint64_t{1} << 40) - 1;
  auto rc = prepare_put(mqmd{}, mq::MQPMO_NONE, a);
  ASSERT_TRUE(rc.ok());
  EXPECT_NE(rc->msg_id, rb->msg_id);
  const std::array<std::uint8_t, 8> tail{0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), rc->msg_id.begin() + 16));
}

TEST(PreparePut, NewMsgIdAndNewCorrelIdDiffer) {
  const put_context ctx = make_ctx();
  auto r = prepare_put(mqmd{}, mq::MQPMO_NEW_MSG_ID | mq::MQPMO_NEW_CORREL_ID, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->msg_id, r->correl_id);
  EXPECT_EQ(std::string(r->correl_id.begin(), r->correl_id.begin() + 16), "AMQ QM1         ");
  // A blank MsgId is replaced too: the same two ids.
  auto blank = prepare_put(mqmd{}, mq::MQPMO_NEW_CORREL_ID, ctx);
  ASSERT_TRUE(blank.ok());
  EXPECT_NE(blank->msg_id, blank->correl_id);
  // Neither collides with the ids of the next put (counter + 1).
  put_context next = ctx;
  next.msg_id_counter += 1;
  auto n = prepare_put(mqmd{}, mq::MQPMO_NEW_MSG_ID | mq::MQPMO_NEW_CORREL_ID, next);
  ASSERT_TRUE(n.ok());
  const std::set<std::array<std::uint8_t, 24>> ids{r->msg_id, r->correl_id, n->msg_id, n->correl_id};
  EXPECT_EQ(ids.size(), 4u);
}

TEST(PreparePut, GivenMsgIdKeptUnlessNewMsgId) {
  mqmd md;
  md.msg_id.fill(0xAB);
  auto kept = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->msg_id, md.msg_id);
  auto fresh = prepare_put(md, mq::MQPMO_NEW_MSG_ID, make_ctx());
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(fresh->msg_id, md.msg_id);
  EXPECT_EQ(fresh->msg_id[0], 'A');
}

TEST(PreparePut, NewCorrelId) {
  mqmd md;
  md.correl_id.fill(0x11);
  auto kept = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->correl_id, md.correl_id);
  auto fresh = prepare_put(md, mq::MQPMO_NEW_CORREL_ID, make_ctx());
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(fresh->correl_id, md.correl_id);
  EXPECT_EQ(std::string(fresh->correl_id.begin(), fresh->correl_id.begin() + 4), "AMQ ");
}

// --- queue defaults, version, backout ------------------------------------------------------------

TEST(PreparePut, PriorityAndPersistenceAsQueueDefinition) {
  auto r = prepare_put(mqmd{}, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->priority, 4);
  EXPECT_EQ(r->persistence, mq::MQPER_PERSISTENT);
  mqmd md;
  md.priority = 0;
  md.persistence = mq::MQPER_NOT_PERSISTENT;
  auto given = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->priority, 0);
  EXPECT_EQ(given->persistence, mq::MQPER_NOT_PERSISTENT);
}

TEST(PreparePut, VersionTwoAndBackoutZero) {
  mqmd md;
  md.backout_count = 5;
  md.version = mq::MQMD_VERSION_1;
  auto r = prepare_put(md, mq::MQPMO_NONE, make_ctx());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->version, mq::MQMD_VERSION_2);
  EXPECT_EQ(r->backout_count, 0);
}

// --- context -------------------------------------------------------------------------------------

mqmd with_context() {
  mqmd md;
  md.user_identifier = pad("mallory", 12);
  md.accounting_token.fill(0x42);
  md.appl_identity_data = pad("identity", 32);
  md.put_appl_type = mq::MQAT_CICS;
  md.put_appl_name = pad("forged", 28);
  md.put_date = "19991231";
  md.put_time = "23595999";
  md.appl_origin_data = "ORIG";
  return md;
}

void expect_origin_generated(const mqmd& md) {
  EXPECT_EQ(md.put_appl_type, mq::MQAT_UNIX);
  EXPECT_EQ(md.put_appl_name, pad("putter", 28));
  EXPECT_EQ(md.put_date, "20260304");
  EXPECT_EQ(md.put_time, "05060789");
  EXPECT_EQ(md.appl_origin_data, "    ");
}

TEST(PreparePut, DefaultContext) {
  for (std::int32_t o : {mq::MQPMO_NONE, mq::MQPMO_DEFAULT_CONTEXT}) {
    auto r = prepare_put(with_context(), o, make_ctx());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->user_identifier, pad("alice", 12));
    EXPECT_EQ(r->accounting_token, mq::MQACT_NONE);
    EXPECT_EQ(r->appl_identity_data, pad("", 32));
    expect_origin_generated(*r);
  }
}

TEST(PreparePut, DefaultContextCutsALongUserAndApplName) {
  put_context ctx = make_ctx();
  ctx.user = "averyveryverylonguser";
  ctx.appl_name = std::string(40, 'x');
  auto r = prepare_put(mqmd{}, mq::MQPMO_NONE, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->user_identifier, "averyveryver");
  EXPECT_EQ(r->put_appl_name, std::string(28, 'x'));
}

TEST(PreparePut, NoContextIsAllBlank) {
  auto r = prepare_put(with_context(), mq::MQPMO_NO_CONTEXT, make_ctx());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->user_identifier, pad("", 12));
  EXPECT_EQ(r->accounting_token, mq::MQACT_NONE);
  EXPECT_EQ(r->appl_identity_data, pad("", 32));
  EXPECT_EQ(r->put_appl_type, mq::MQAT_NO_CONTEXT);
  EXPECT_EQ(r->put_appl_name, pad("", 28));
  EXPECT_EQ(r->put_date, pad("", 8));
  EXPECT_EQ(r->put_time, pad("", 8));
  EXPECT_EQ(r->appl_origin_data, "    ");
}

TEST(PreparePut, SetIdentityContextKeepsIdentityGeneratesOrigin) {
  put_context ctx = make_ctx();
  ctx.may_set_identity = true;
  const mqmd given = with_context();
  auto r = prepare_put(given, mq::MQPMO_SET_IDENTITY_CONTEXT, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->user_identifier, given.user_identifier);
  EXPECT_EQ(r->accounting_token, given.accounting_token);
  EXPECT_EQ(r->appl_identity_data, given.appl_identity_data);
  expect_origin_generated(*r);
}

TEST(PreparePut, SetAllContextKeepsEverything) {
  put_context ctx = make_ctx();
  ctx.may_set_all = true;
  const mqmd given = with_context();
  auto r = prepare_put(given, mq::MQPMO_SET_ALL_CONTEXT, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->user_identifier, given.user_identifier);
  EXPECT_EQ(r->accounting_token, given.accounting_token);
  EXPECT_EQ(r->appl_identity_data, given.appl_identity_data);
  EXPECT_EQ(r->put_appl_type, mq::MQAT_CICS);
  EXPECT_EQ(r->put_appl_name, given.put_appl_name);
  EXPECT_EQ(r->put_date, "19991231");
  EXPECT_EQ(r->put_time, "23595999");
  EXPECT_EQ(r->appl_origin_data, "ORIG");
}

TEST(PreparePut, PassIdentityAndPassAllKeepTheGivenContext) {
  const mqmd given = with_context();
  auto id = prepare_put(given, mq::MQPMO_PASS_IDENTITY_CONTEXT, make_ctx());
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->user_identifier, given.user_identifier);
  EXPECT_EQ(id->accounting_token, given.accounting_token);
  EXPECT_EQ(id->appl_identity_data, given.appl_identity_data);
  expect_origin_generated(*id);
  auto all = prepare_put(given, mq::MQPMO_PASS_ALL_CONTEXT, make_ctx());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->user_identifier, given.user_identifier);
  EXPECT_EQ(all->put_appl_type, mq::MQAT_CICS);
  EXPECT_EQ(all->put_date, "19991231");
  EXPECT_EQ(all->appl_origin_data, "ORIG");
}

TEST(PreparePut, PutDateAndTimeAreUtcAcrossMidnightAndEpoch) {
  put_context ctx = make_ctx();
  ctx.now = std::chrono::system_clock::time_point(std::chrono::milliseconds(951782399999LL));  // 2000-02-28
  auto r = prepare_put(mqmd{}, mq::MQPMO_NONE, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->put_date, "20000228");
  EXPECT_EQ(r->put_time, "23595999");
  ctx.now += std::chrono::milliseconds(86400000);  // leap day
  r = prepare_put(mqmd{}, mq::MQPMO_NONE, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->put_date, "20000229");
  EXPECT_EQ(r->put_time, "23595999");
  ctx.now = std::chrono::system_clock::time_point{};
  r = prepare_put(mqmd{}, mq::MQPMO_NONE, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->put_date, "19700101");
  EXPECT_EQ(r->put_time, "00000000");
}

}  // namespace
}  // namespace imsb::qmgr::rules::test
