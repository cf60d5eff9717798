// Authorization, MQSC through a connection, inquiries (queue_manager.hpp).

#include "engine_fixture.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::qmgr::test {
namespace {

using admin = engine_test;

TEST_F(admin, ConnectWithoutAuthorityIs2035WithAnErrorLogLine) {
  auto refused = qm_->connect(principal{"alice", {"staff"}, false, ""});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_NOT_AUTHORIZED);
  const std::string log = error_log();
  EXPECT_NE(log.find(imsb::msg::IMB1180E), std::string::npos) << log;
  EXPECT_NE(log.find("alice"), std::string::npos) << log;
}

TEST_F(admin, AuthrecsGrantConnectAndQueueAuthorities) {
  auto& root = connect();
  mqsc(root,
       "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) GROUP('staff') AUTHADD(CONNECT)\n"
       "SET AUTHREC PROFILE('APP.**') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)\n");
  auto c = qm_->connect(principal{"alice", {"staff"}, false, "app"});
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto put_ok = (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT);
  EXPECT_TRUE(put_ok.ok()) << put_ok.error().to_string();
  auto get_refused = (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_FALSE(get_refused.ok());
  EXPECT_EQ(rc_of(get_refused.error()), mq::MQRC_NOT_AUTHORIZED);
  auto other = (*c)->open(mqi::object_descriptor{"REPLY", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(rc_of(other.error()), mq::MQRC_NOT_AUTHORIZED);
  auto no_mqsc = (*c)->mqsc("DISPLAY QMGR\n");
  ASSERT_FALSE(no_mqsc.ok());
  EXPECT_EQ(rc_of(no_mqsc.error()), mq::MQRC_NOT_AUTHORIZED);
  EXPECT_NE(error_log().find("GET on queue APP.IN"), std::string::npos) << error_log();
}

TEST_F(admin, MqscDefineThenPutAndTheDefinitionIsSaved) {
  auto& c = connect();
  const std::string out = mqsc(c, "DEFINE QLOCAL(NEW.Q) MAXDEPTH(1)\n");
  EXPECT_NE(out.find(imsb::msg::IMB1001I), std::string::npos) << out;
  const auto h = open(c, "NEW.Q", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(c, h, "first", md(mq::MQPER_PERSISTENT)).ok());
  EXPECT_EQ(rc_of(put(c, h, "second").error()), mq::MQRC_Q_FULL);
  restart();
  auto& d = connect();
  const auto h2 = open(d, "NEW.Q", mq::MQOO_INPUT_SHARED);
  auto g = d.get(h2, no_wait());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(text_of(g->data), "first");
}

TEST_F(admin, DeleteOfANonEmptyQueueIs2055UnlessPurge) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(c, h, "x", md(mq::MQPER_PERSISTENT)).ok());
  std::string out = mqsc(c, "DELETE QLOCAL(APP.IN)\n", 10);
  EXPECT_NE(out.find(imsb::msg::IMB1184E), std::string::npos) << out;  // open by c
  ASSERT_TRUE(c.close(h).ok());
  out = mqsc(c, "DELETE QLOCAL(APP.IN)\n", 10);
  EXPECT_NE(out.find(imsb::msg::IMB1183E), std::string::npos) << out;
  EXPECT_NE(out.find("2055"), std::string::npos) << out;
  out = mqsc(c, "DISPLAY QSTATUS(APP.IN)\n");
  EXPECT_NE(out.find("CURDEPTH(1)"), std::string::npos) << out;
  out = mqsc(c, "DELETE QLOCAL(APP.IN) PURGE\n");
  auto gone = c.open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(rc_of(gone.error()), mq::MQRC_UNKNOWN_OBJECT_NAME);
  // Defined again, it starts empty, also after a restart.
  mqsc(c, "DEFINE QLOCAL(APP.IN)\n");
  restart();
  auto& d = connect();
  EXPECT_EQ(rc_of(d.get(open(d, "APP.IN", mq::MQOO_INPUT_SHARED), no_wait()).error()),
            mq::MQRC_NO_MSG_AVAILABLE);
}

// A queue whose state the engine has not made yet (defined in the same script, or not used since the
// start) is cleared too; before, CLEAR QLOCAL answered IMB1044E "not found" for it.
TEST_F(admin, ClearQlocalOfAQueueNotUsedYet) {
  auto& c = connect();
  std::string out = mqsc(c, "DEFINE QLOCAL(FRESH.Q)\nCLEAR QLOCAL(FRESH.Q)\n");
  EXPECT_NE(out.find(imsb::msg::IMB1185I), std::string::npos) << out;
  restart();
  auto& d = connect();
  out = mqsc(d, "CLEAR QLOCAL(FRESH.Q)\nDELETE QLOCAL(FRESH.Q)\n");
  EXPECT_NE(out.find(imsb::msg::IMB1185I), std::string::npos) << out;
  EXPECT_NE(out.find(imsb::msg::IMB1003I), std::string::npos) << out;
  out = mqsc(d, "CLEAR QLOCAL(FRESH.Q)\n", 10);
  EXPECT_NE(out.find(imsb::msg::IMB1044E), std::string::npos) << out;
}

TEST_F(admin, ClearQlocalAndInquireObjects) {
  auto& c = connect();
  ASSERT_TRUE(c.put1(mqi::object_descriptor{"REPLY", ""}, md(), bytes_view::of("x"), 0).ok());
  const std::string out = mqsc(c, "CLEAR QLOCAL(REPLY)\n");
  EXPECT_NE(out.find(imsb::msg::IMB1185I), std::string::npos) << out;
  auto list = c.inquire_objects("QLOCAL", "REP*");
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->front().name, "REPLY");
  EXPECT_EQ(list->front().attributes.at("CURDEPTH"), "0");
  auto qmgr = c.inquire_objects("QMGR", "*");
  ASSERT_TRUE(qmgr.ok());
  ASSERT_EQ(qmgr->size(), 1u);
  EXPECT_EQ(qmgr->front().attributes.at("DEADQ"), "DLQ");
}

}  // namespace
}  // namespace imsb::qmgr::test

namespace imsb::qmgr::test {
namespace {

TEST_F(admin, RuntimeCommandsGoToTheServersHandler) {
  auto& c = connect();
  std::string seen;
  qm_->set_runtime_command_handler([&](const std::string& verb, const std::string& type,
                                       const std::string& name) -> std::optional<std::vector<std::string>> {
    seen = verb + " " + type + " " + name;
    EXPECT_EQ(qm_->connection_count(), 1u);  // the handler may call the queue manager
    if (name == "NONE") return std::nullopt;
    return std::vector<std::string>{std::string(imsb::msg::IMB1229I) + ": listener started"};
  });
  std::string out = mqsc(c, "START LISTENER(L1)\n");
  EXPECT_EQ(seen, "START LISTENER L1");
  EXPECT_NE(out.find(imsb::msg::IMB1229I), std::string::npos) << out;
  out = mqsc(c, "STOP LISTENER(NONE)\n", 10);
  EXPECT_NE(out.find(imsb::msg::IMB1050E), std::string::npos) << out;
}

}  // namespace
}  // namespace imsb::qmgr::test
