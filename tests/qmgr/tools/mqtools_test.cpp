// mqput and mqget (daemon.hpp) against a mock connection: option parsing into the MQMD and the MQI
// options, the output (MsgId, mqdump listing, JSON) and the exit codes and error lines.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/qmgr/daemon.hpp"

namespace imsb::qmgr {
namespace {

using ::testing::_;
using ::testing::HasSubstr;
using ::testing::Return;

class mock_connection : public mqi::connection {
 public:
  MOCK_METHOD(const std::string&, qmgr_name, (), (const, override));
  MOCK_METHOD(mqi::result<mqi::open_result>, open, (const mqi::object_descriptor&, std::int32_t), (override));
  MOCK_METHOD(mqi::result<mqi::done>, close, (mqi::hobj), (override));
  MOCK_METHOD(mqi::result<mqi::put_result>, put, (mqi::hobj, const mq::mqmd&, bytes_view, std::int32_t),
              (override));
  MOCK_METHOD(mqi::result<mqi::put_result>, put1,
              (const mqi::object_descriptor&, const mq::mqmd&, bytes_view, std::int32_t), (override));
  MOCK_METHOD(mqi::result<mqi::message>, get, (mqi::hobj, const mqi::get_request&), (override));
  MOCK_METHOD(mqi::result<mqi::inquiry>, inquire, (mqi::hobj, const std::vector<std::int32_t>&), (override));
  MOCK_METHOD(mqi::result<std::vector<mqi::object_attributes>>, inquire_objects,
              (const std::string&, const std::string&), (override));
  MOCK_METHOD(mqi::result<mqi::mqsc_reply>, mqsc, (const std::string&), (override));
  MOCK_METHOD(mqi::result<mqi::done>, commit, (), (override));
  MOCK_METHOD(mqi::result<mqi::done>, backout, (), (override));
  MOCK_METHOD(mqi::result<mqi::done>, disconnect, (), (override));
  MOCK_METHOD(mqi::result<mqi::done>, set,
              (mqi::hobj, const std::vector<std::int32_t>&, const std::vector<std::int32_t>&,
               const std::vector<std::string>&),
              (override));
  MOCK_METHOD(mqi::result<mqi::done>, begin, (), (override));
  MOCK_METHOD(mqi::result<mqi::status_report>, stat, (std::int32_t), (override));
  MOCK_METHOD(mqi::result<mqi::done>, callback,
              (std::int32_t, const mqi::callback_descriptor&, mqi::hobj, const mqi::get_request&),
              (override));
  MOCK_METHOD(mqi::result<mqi::done>, control, (std::int32_t), (override));
  MOCK_METHOD(void, stop, (), (noexcept, override));
};

decode_error mqrc_error(std::int32_t rc, std::string detail) {
  decode_error e;
  e.code = mq::make_mqrc(rc);
  e.field = "MQ";
  e.detail = std::move(detail);
  return e;
}

// One test's mock and the connector that hands it out (once), recording the connect options.
struct harness {
  mock_connection* conn = nullptr;
  std::unique_ptr<mock_connection> owned = std::make_unique<mock_connection>();
  std::optional<connect_options> seen;
  int connects = 0;
  std::optional<decode_error> refuse;
  std::ostringstream out, err;

  harness() {
    conn = owned.get();
    ON_CALL(*conn, disconnect()).WillByDefault(Return(result<mqi::done>(mqi::done{})));
    ON_CALL(*conn, close(_)).WillByDefault(Return(result<mqi::done>(mqi::done{})));
    ON_CALL(*conn, commit()).WillByDefault(Return(result<mqi::done>(mqi::done{})));
    EXPECT_CALL(*conn, disconnect()).Times(::testing::AtMost(1));
    EXPECT_CALL(*conn, close(_)).Times(::testing::AtMost(1));
  }
  detail::connector connector() {
    return [this](const connect_options& o) -> result<std::unique_ptr<mqi::connection>> {
      ++connects;
      seen = o;
      if (refuse) return *refuse;
      return std::unique_ptr<mqi::connection>(std::move(owned));
    };
  }
  int put(const std::vector<std::string>& args, const std::string& input = {}) {
    std::istringstream in(input);
    return detail::mqput(args, in, out, err, connector());
  }
  int get(const std::vector<std::string>& args) { return detail::mqget(args, out, err, connector()); }
};

mqi::put_result put_answer(const mq::mqmd& md) {
  mqi::put_result r;
  r.md = md;
  for (std::size_t i = 0; i < r.md.msg_id.size(); ++i) r.md.msg_id[i] = static_cast<std::uint8_t>(0xA0 + i);
  return r;
}

mqi::message text_message(const std::string& text, std::uint8_t id) {
  mqi::message m;
  m.md.version = mq::MQMD_VERSION_2;
  m.md.format = "MQSTR   ";
  m.md.coded_char_set_id = 819;
  m.md.msg_id[0] = id;
  m.md.correl_id[23] = 0x7F;
  m.md.persistence = mq::MQPER_PERSISTENT;
  m.md.reply_to_q = "REPLY.Q" + std::string(41, ' ');
  m.md.user_identifier = "alice       ";
  m.data.assign(text.begin(), text.end());
  m.data_length = m.data.size();
  m.token[15] = id;
  return m;
}

// ---------------------------------------------------------------------------------------------------- mqput

TEST(mqput, text_message_prints_the_msgid_in_hex) {
  harness h;
  mq::mqmd got;
  std::string data;
  mqi::object_descriptor od;
  std::int32_t options = 0;
  EXPECT_CALL(*h.conn, put1(_, _, _, _))
      .WillOnce([&](const mqi::object_descriptor& o, const mq::mqmd& md, bytes_view d, std::int32_t opts) {
        od = o;
        got = md;
        data.assign(d.begin(), d.end());
        options = opts;
        return result<mqi::put_result>(put_answer(md));
      });
  EXPECT_EQ(h.put({"-m", "QM1", "APP.IN", "hello world"}), 0) << h.err.str();
  EXPECT_EQ(h.out.str(), "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7\n");
  EXPECT_EQ(h.seen->target, "QM1");
  EXPECT_EQ(h.seen->appl_name, "mqput");
  EXPECT_EQ(od.object_name, "APP.IN");
  EXPECT_EQ(od.object_qmgr_name, "");
  EXPECT_EQ(data, "hello world");
  EXPECT_EQ(got.format, "MQSTR   ");
  EXPECT_EQ(got.persistence, mq::MQPER_PERSISTENCE_AS_Q_DEF);
  EXPECT_EQ(got.msg_id, (std::array<std::uint8_t, 24>{}));
  EXPECT_EQ(options, mq::MQPMO_NO_SYNCPOINT);
}

TEST(mqput, every_mqmd_option_reaches_the_put) {
  harness h;
  mq::mqmd got;
  bytes data;
  mqi::object_descriptor od;
  std::int32_t options = 0;
  EXPECT_CALL(*h.conn, put1(_, _, _, _))
      .WillOnce([&](const mqi::object_descriptor& o, const mq::mqmd& md, bytes_view d, std::int32_t opts) {
        od = o;
        got = md;
        data.assign(d.begin(), d.end());
        options = opts;
        return result<mqi::put_result>(put_answer(md));
      });
  EXPECT_EQ(h.put({"--hex",
                   "01 02 ff",
                   "--format",
                   "MQIMS",
                   "--persistent",
                   "--priority",
                   "7",
                   "--expiry",
                   "100",
                   "--reply-to",
                   "RQ",
                   "--reply-to-qmgr",
                   "RQM",
                   "--report",
                   "coa,cod,exception,expiration,pass-msg-id,"
                   "pass-correl-id,discard",
                   "--msg-id",
                   "0102",
                   "--correl-id",
                   "X'AABB'",
                   "--msgtype",
                   "request",
                   "--feedback",
                   "5",
                   "--encoding",
                   "785",
                   "--ccsid",
                   "500",
                   "--userid",
                   "bob",
                   "--qmgr-target",
                   "QM2",
                   "Q"}),
            0)
      << h.err.str();
  EXPECT_EQ(data, (bytes{0x01, 0x02, 0xFF}));
  EXPECT_EQ(od.object_qmgr_name, "QM2");
  EXPECT_EQ(got.format, "MQIMS   ");
  EXPECT_EQ(got.persistence, mq::MQPER_PERSISTENT);
  EXPECT_EQ(got.priority, 7);
  EXPECT_EQ(got.expiry, 100);
  EXPECT_EQ(got.reply_to_q, "RQ" + std::string(46, ' '));
  EXPECT_EQ(got.reply_to_q_mgr, "RQM" + std::string(45, ' '));
  EXPECT_EQ(got.report, mq::MQRO_COA | mq::MQRO_COD | mq::MQRO_EXCEPTION | mq::MQRO_EXPIRATION |
                            mq::MQRO_PASS_MSG_ID | mq::MQRO_PASS_CORREL_ID | mq::MQRO_DISCARD_MSG);
  EXPECT_EQ(got.msg_id[0], 0x01);
  EXPECT_EQ(got.msg_id[1], 0x02);
  EXPECT_EQ(got.msg_id[2], 0x00);
  EXPECT_EQ(got.correl_id[0], 0xAA);
  EXPECT_EQ(got.correl_id[1], 0xBB);
  EXPECT_EQ(got.msg_type, mq::MQMT_REQUEST);
  EXPECT_EQ(got.feedback, 5);
  EXPECT_EQ(got.encoding, 785);
  EXPECT_EQ(got.coded_char_set_id, 500);
  EXPECT_EQ(got.user_identifier, "bob         ");
  EXPECT_NE(options & mq::MQPMO_SET_IDENTITY_CONTEXT, 0);
}

TEST(mqput, data_from_a_file_and_from_standard_input) {
  const std::string path = "/tmp/imsb-mqput-test-" + std::to_string(::getpid());
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string("\x00\x01 file", 7);
  }
  {
    harness h;
    bytes data;
    mq::mqmd got;
    EXPECT_CALL(*h.conn, put1(_, _, _, _))
        .WillOnce([&](auto&, const mq::mqmd& md, bytes_view d, std::int32_t) {
          data.assign(d.begin(), d.end());
          got = md;
          return result<mqi::put_result>(put_answer(md));
        });
    EXPECT_EQ(h.put({"--file", path, "Q"}), 0) << h.err.str();
    EXPECT_EQ(data, (bytes{0x00, 0x01, ' ', 'f', 'i', 'l', 'e'}));
    EXPECT_EQ(got.format, "        ");  // binary data: no format unless given
  }
  std::remove(path.c_str());
  {
    harness h;
    std::string data;
    EXPECT_CALL(*h.conn, put1(_, _, _, _))
        .WillOnce([&](auto&, const mq::mqmd& md, bytes_view d, std::int32_t) {
          data.assign(d.begin(), d.end());
          return result<mqi::put_result>(put_answer(md));
        });
    EXPECT_EQ(h.put({"--user", "app", "--password-stdin", "Q"}, "s3cret\nline one\nline two\n"), 0)
        << h.err.str();
    EXPECT_EQ(h.seen->user, "app");
    EXPECT_EQ(h.seen->password, "s3cret");
    EXPECT_EQ(data, "line one\nline two\n");
  }
  {
    harness h;
    EXPECT_EQ(h.put({"--file", "/nonexistent/imsb/file", "Q"}), 20);
    EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1238E));
    EXPECT_EQ(h.connects, 0);
  }
}

TEST(mqput, usage_errors_connect_to_nothing) {
  const std::vector<std::vector<std::string>> bad = {
      {},                                       // no queue
      {"Q", "text", "--hex", "00"},             // two data sources
      {"--hex", "0", "Q"},                      // odd hex
      {"--hex", "zz", "Q"},                     // not hex
      {"--msg-id", std::string(50, 'A'), "Q"},  // 25 bytes
      {"--report", "coa,bogus", "Q"},           // report word
      {"--priority", "high", "Q"},              // not a number
      {"--persistent", "--non-persistent", "Q"},
      {"--reply-to", std::string(49, 'R'), "Q"},
      {"--no-such-option", "Q"},
  };
  for (const auto& args : bad) {
    harness h;
    EXPECT_EQ(h.put(args), 20) << ::testing::PrintToString(args);
    EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1237E)) << ::testing::PrintToString(args);
    EXPECT_EQ(h.connects, 0);
  }
}

TEST(mqput, an_mqi_error_prints_the_mqrc_name_and_number) {
  {
    harness h;
    EXPECT_CALL(*h.conn, put1(_, _, _, _))
        .WillOnce(Return(result<mqi::put_result>(mqrc_error(2053, "queue Q is full"))));
    EXPECT_EQ(h.put({"Q", "x"}), 20);
    EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1233E));
    EXPECT_THAT(h.err.str(), HasSubstr("MQRC_Q_FULL (2053)"));
    EXPECT_EQ(h.out.str(), "");
  }
  {
    harness h;
    h.refuse = mqrc_error(2059, "nothing answers on /tmp/x.sock");
    EXPECT_EQ(h.put({"-m", "QMX", "Q", "x"}), 20);
    EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1236E));
    EXPECT_THAT(h.err.str(), HasSubstr("MQRC_Q_MGR_NOT_AVAILABLE (2059)"));
    EXPECT_THAT(h.err.str(), HasSubstr("QMX"));
  }
}

TEST(mqput, help_exits_zero) {
  harness h;
  EXPECT_EQ(h.put({"--help"}), 0);
  EXPECT_THAT(h.out.str(), HasSubstr("--correl-id"));
  EXPECT_THAT(h.out.str(), HasSubstr("Exit codes"));
  EXPECT_EQ(h.connects, 0);
}

// ---------------------------------------------------------------------------------------------------- mqget

TEST(mqget, no_message_exits_2) {
  harness h;
  std::int32_t oo = 0;
  EXPECT_CALL(*h.conn, open(_, _)).WillOnce([&](const mqi::object_descriptor& od, std::int32_t o) {
    EXPECT_EQ(od.object_name, "Q");
    oo = o;
    return result<mqi::open_result>(mqi::open_result{5, "Q", "QM"});
  });
  EXPECT_CALL(*h.conn, get(5, _)).WillOnce(Return(result<mqi::message>(mqrc_error(2033, "no message"))));
  EXPECT_EQ(h.get({"Q"}), 2);
  EXPECT_NE(oo & mq::MQOO_INPUT_AS_Q_DEF, 0);
  EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1235W));
  EXPECT_THAT(h.err.str(), HasSubstr("MQRC_NO_MSG_AVAILABLE (2033)"));
  EXPECT_EQ(h.out.str(), "");
}

TEST(mqget, prints_the_message_as_mqdump_does) {
  harness h;
  EXPECT_CALL(*h.conn, open(_, _)).WillOnce(Return(result<mqi::open_result>(mqi::open_result{1, "Q", "QM"})));
  EXPECT_CALL(*h.conn, get(1, _)).WillOnce(Return(result<mqi::message>(text_message("hello there", 1))));
  EXPECT_EQ(h.get({"Q"}), 0) << h.err.str();
  EXPECT_THAT(h.out.str(), HasSubstr("MQMD"));
  EXPECT_THAT(h.out.str(), HasSubstr("'MQSTR   '"));
  EXPECT_THAT(h.out.str(), HasSubstr("hello there"));
}

TEST(mqget, wait_correl_id_and_count_reach_the_get) {
  harness h;
  std::vector<mqi::get_request> reqs;
  EXPECT_CALL(*h.conn, open(_, _)).WillOnce(Return(result<mqi::open_result>(mqi::open_result{1, "Q", "QM"})));
  EXPECT_CALL(*h.conn, get(1, _))
      .WillOnce([&](mqi::hobj, const mqi::get_request& r) {
        reqs.push_back(r);
        return result<mqi::message>(text_message("one", 1));
      })
      .WillOnce([&](mqi::hobj, const mqi::get_request& r) {
        reqs.push_back(r);
        return result<mqi::message>(text_message("two", 2));
      });
  EXPECT_EQ(h.get({"--wait", "500", "--correl-id", "C0C1", "--count", "2", "--json", "Q"}), 0) << h.err.str();
  ASSERT_EQ(reqs.size(), 2u);
  for (const auto& r : reqs) {
    EXPECT_NE(r.options & mq::MQGMO_WAIT, 0);
    EXPECT_EQ(r.wait_interval_ms, 500);
    EXPECT_EQ(r.match_options, mq::MQMO_MATCH_CORREL_ID);
    EXPECT_EQ(r.correl_id[0], 0xC0);
    EXPECT_EQ(r.correl_id[1], 0xC1);
    EXPECT_EQ(r.options & mq::MQGMO_BROWSE_FIRST, 0);
  }
  const std::string out = h.out.str();
  ASSERT_EQ(std::count(out.begin(), out.end(), '\n'), 2);
  EXPECT_THAT(out, HasSubstr("\"data_text\":\"one\""));
  EXPECT_THAT(out, HasSubstr("\"data_text\":\"two\""));
}

TEST(mqget, browse_first_then_next_and_all_waits_for_the_first_only) {
  harness h;
  std::vector<mqi::get_request> reqs;
  std::int32_t oo = 0;
  EXPECT_CALL(*h.conn, open(_, _)).WillOnce([&](auto&, std::int32_t o) {
    oo = o;
    return result<mqi::open_result>(mqi::open_result{3, "Q", "QM"});
  });
  int n = 0;
  EXPECT_CALL(*h.conn, get(3, _)).Times(4).WillRepeatedly([&](mqi::hobj, const mqi::get_request& r) {
    reqs.push_back(r);
    if (++n == 4) return result<mqi::message>(mqrc_error(2033, "none"));
    return result<mqi::message>(text_message("m" + std::to_string(n), static_cast<std::uint8_t>(n)));
  });
  EXPECT_EQ(h.get({"--browse", "--all", "--wait", "100", "Q"}), 0) << h.err.str();
  EXPECT_NE(oo & mq::MQOO_BROWSE, 0);
  EXPECT_EQ(oo & mq::MQOO_INPUT_AS_Q_DEF, 0);
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_NE(reqs[0].options & mq::MQGMO_BROWSE_FIRST, 0);
  EXPECT_NE(reqs[0].options & mq::MQGMO_WAIT, 0);
  for (std::size_t i = 1; i < reqs.size(); ++i) {
    EXPECT_NE(reqs[i].options & mq::MQGMO_BROWSE_NEXT, 0);
    EXPECT_EQ(reqs[i].options & mq::MQGMO_WAIT, 0);
  }
  EXPECT_EQ(reqs[0].match_options, mq::MQMO_NONE);
  EXPECT_THAT(h.err.str(), ::testing::Not(HasSubstr(imsb::msg::IMB1235W)));
}

TEST(mqget, errors_print_the_mqrc) {
  {
    harness h;
    EXPECT_CALL(*h.conn, open(_, _))
        .WillOnce(Return(result<mqi::open_result>(mqrc_error(2085, "no queue NOPE"))));
    EXPECT_EQ(h.get({"NOPE"}), 20);
    EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1234E));
    EXPECT_THAT(h.err.str(), HasSubstr("MQRC_UNKNOWN_OBJECT_NAME (2085)"));
  }
  {
    harness h;
    EXPECT_CALL(*h.conn, open(_, _))
        .WillOnce(Return(result<mqi::open_result>(mqi::open_result{1, "Q", "QM"})));
    EXPECT_CALL(*h.conn, get(1, _)).WillOnce(Return(result<mqi::message>(mqrc_error(2016, "GET(DISABLED)"))));
    EXPECT_EQ(h.get({"Q"}), 20);
    EXPECT_THAT(h.err.str(), HasSubstr("MQRC_GET_INHIBITED (2016)"));
  }
  for (const auto& args : std::vector<std::vector<std::string>>{{},
                                                                {"--count", "0", "Q"},
                                                                {"--count", "2", "--all", "Q"},
                                                                {"--wait", "-5", "Q"},
                                                                {"--browse", "--syncpoint", "Q"}}) {
    harness h;
    EXPECT_EQ(h.get(args), 20) << ::testing::PrintToString(args);
    EXPECT_THAT(h.err.str(), HasSubstr(imsb::msg::IMB1237E));
    EXPECT_EQ(h.connects, 0);
  }
}

// ---------------------------------------------------------------------------------------------------- JSON

TEST(mqget_json, holds_the_issue_fields_and_escapes_text) {
  auto m = text_message("say \"hi\"\\ now", 9);
  m.md.msg_type = mq::MQMT_REPLY;
  m.md.feedback = 5;
  m.md.reply_to_q_mgr = "RQM" + std::string(45, ' ');
  const std::string j = detail::message_json(m);
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_EQ(j.find('\n'), std::string::npos);
  EXPECT_THAT(j, HasSubstr("\"msgid\":\"09" + std::string(46, '0') + "\""));
  EXPECT_THAT(j, HasSubstr("\"correlid\":\"" + std::string(46, '0') + "7F\""));
  EXPECT_THAT(j, HasSubstr("\"msgtype\":2"));
  EXPECT_THAT(j, HasSubstr("\"format\":\"MQSTR\""));
  EXPECT_THAT(j, HasSubstr("\"feedback\":5"));
  EXPECT_THAT(j, HasSubstr("\"persistence\":1"));
  EXPECT_THAT(j, HasSubstr("\"reply_to_q\":\"REPLY.Q\""));
  EXPECT_THAT(j, HasSubstr("\"reply_to_qmgr\":\"RQM\""));
  EXPECT_THAT(j, HasSubstr("\"userid\":\"alice\""));
  EXPECT_THAT(j, HasSubstr("\"data_hex\":\"7361792022686922"));
  EXPECT_THAT(j, HasSubstr("\"data_text\":\"say \\\"hi\\\"\\\\ now\""));
  EXPECT_EQ(j.find("\"dlh\""), std::string::npos);
}

TEST(mqget_json, decodes_a_dead_letter_header) {
  mqi::message m;
  m.md.version = mq::MQMD_VERSION_2;
  m.md.format = std::string(mq::MQFMT_DEAD_LETTER_HEADER);
  m.md.encoding = 546;
  m.md.coded_char_set_id = 819;
  mq::mqdlh dlh;
  dlh.reason = 2053;
  dlh.dest_q_name = "APP.FULL" + std::string(40, ' ');
  dlh.dest_q_mgr_name = "QM1" + std::string(45, ' ');
  dlh.format = "MQSTR   ";
  dlh.encoding = 546;
  dlh.coded_char_set_id = 819;
  mq::encode_mqdlh(dlh, 546, 819, m.data);
  const std::string body = "payload";
  m.data.insert(m.data.end(), body.begin(), body.end());
  m.data_length = m.data.size();
  const std::string j = detail::message_json(m);
  EXPECT_THAT(j, HasSubstr("\"dlh\":{"));
  EXPECT_THAT(j, HasSubstr("\"Reason\":2053"));
  EXPECT_THAT(j, HasSubstr("\"DestQName\":\"APP.FULL\""));
  EXPECT_THAT(j, HasSubstr("\"DestQMgrName\":\"QM1\""));
  EXPECT_THAT(j, HasSubstr("payload\""));
}

}  // namespace
}  // namespace imsb::qmgr
