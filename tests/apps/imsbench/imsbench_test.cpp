// imsbench: option parsing, the request it puts, the statistics, the report, and whole runs against an
// in-process queue manager where a responder thread plays the bridge (replies, reports, dead letters).
#include "imsb/imsbench/imsbench.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "fake_bridge.hpp"
#include "hooked_connection.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"
#include "temp_qmgr.hpp"

namespace imsb::imsbench {
namespace {

std::vector<std::string> base_args() { return {"-m", "QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY"}; }

options parsed(std::vector<std::string> extra) {
  std::vector<std::string> a = base_args();
  a.insert(a.end(), extra.begin(), extra.end());
  auto o = parse_options(a);
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().to_string());
  return o.ok() ? *o : options{};
}

TEST(imsbench_options, defaults) {
  const options o = parsed({});
  EXPECT_EQ(o.qmgr, "QM1");
  EXPECT_EQ(o.queues, std::vector<std::string>{"IMS.BRIDGE.Q"});
  EXPECT_EQ(o.reply_queue, "APP.REPLY");
  EXPECT_EQ(o.requesters, 1);
  EXPECT_EQ(o.commit_mode, '0');
  EXPECT_FALSE(o.persistent);
  EXPECT_EQ(o.tran, transaction::ivtno);
  EXPECT_EQ(o.replies, reply_queues::shared);
  EXPECT_DOUBLE_EQ(o.duration_s, 10);
  EXPECT_FALSE(o.count.has_value());
  EXPECT_TRUE(o.iih);
  EXPECT_FALSE(o.json);
}

TEST(imsbench_options, every_option) {
  const options o = parsed({"-q",
                            "Q2,Q3",
                            "-n",
                            "8",
                            "--commit-mode",
                            "1",
                            "--persistent",
                            "--size",
                            "1000",
                            "--count",
                            "500",
                            "--tran",
                            "echo",
                            "--reply-queues",
                            "per-requester",
                            "--reply-wait",
                            "250",
                            "--dlq",
                            "DLQ",
                            "--json",
                            "--prefix",
                            "/tmp/p",
                            "--mqserver",
                            "C/TCP/h(1)",
                            "--user",
                            "u",
                            "--password",
                            "pw"});
  EXPECT_EQ(o.queues, (std::vector<std::string>{"IMS.BRIDGE.Q", "Q2", "Q3"}));
  EXPECT_EQ(o.requesters, 8);
  EXPECT_EQ(o.commit_mode, '1');
  EXPECT_TRUE(o.persistent);
  EXPECT_EQ(o.size, 1000u);
  ASSERT_TRUE(o.count.has_value());
  EXPECT_EQ(*o.count, 500u);
  EXPECT_EQ(o.tran, transaction::echo);
  EXPECT_EQ(o.replies, reply_queues::per_requester);
  EXPECT_EQ(o.reply_wait_ms, 250);
  EXPECT_EQ(o.dlq, "DLQ");
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.prefix, std::optional<std::string>("/tmp/p"));
  EXPECT_EQ(o.mqserver, std::optional<std::string>("C/TCP/h(1)"));
  EXPECT_EQ(o.user, "u");
  EXPECT_EQ(o.password, "pw");
  EXPECT_EQ(queue_for(o, 0), "IMS.BRIDGE.Q");
  EXPECT_EQ(queue_for(o, 4), "Q2");
  EXPECT_EQ(reply_queue_for(o, 0), "APP.REPLY.1");
  EXPECT_EQ(reply_queue_for(o, 7), "APP.REPLY.8");
  EXPECT_DOUBLE_EQ(parsed({"-d", "2.5"}).duration_s, 2.5);
  EXPECT_FALSE(parsed({"--no-iih"}).iih);
  EXPECT_EQ(reply_queue_for(parsed({}), 5), "APP.REPLY");
}

TEST(imsbench_options, help) {
  auto o = parse_options({"--help"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->help);
  const std::string u = usage();
  for (const char* word :
       {"--requesters", "--commit-mode", "--duration", "--count", "--json", "Exit codes"}) {
    EXPECT_NE(u.find(word), std::string::npos) << word;
  }
}

TEST(imsbench_options, errors) {
  struct bad {
    std::vector<std::string> args;
    const char* field;
  };
  const std::vector<bad> cases = {
      {{"-r", "R"}, "--queue"},
      {{"-q", "Q"}, "--reply-queue"},
      {{"-q", "A,,B", "-r", "R"}, "--queue"},
      {{"-q", std::string(49, 'Q'), "-r", "R"}, "--queue"},
      {{"-q", "Q", "-r", "R", "-n", "0"}, "--requesters"},
      {{"-q", "Q", "-r", "R", "-n", "1025"}, "--requesters"},
      {{"-q", "Q", "-r", "R", "-n", "x"}, "command line"},
      {{"-q", "Q", "-r", "R", "--commit-mode", "2"}, "--commit-mode"},
      {{"-q", "Q", "-r", "R", "--tran", "IVTCV"}, "--tran"},
      {{"-q", "Q", "-r", "R", "--reply-queues", "some"}, "--reply-queues"},
      {{"-q", "Q", "-r", std::string(44, 'R'), "--reply-queues", "per-requester"}, "--reply-queues"},
      {{"-q", "Q", "-r", "R", "--count", "0"}, "--count"},
      {{"-q", "Q", "-r", "R", "--count", "5", "-d", "5"}, "--count"},
      {{"-q", "Q", "-r", "R", "-d", "0"}, "--duration"},
      {{"-q", "Q", "-r", "R", "-d", "-1"}, "--duration"},
      {{"-q", "Q", "-r", "R", "--reply-wait", "0"}, "--reply-wait"},
      {{"-q", "Q", "-r", "R", "--size", "9999999"}, "--size"},
      {{"-q", "Q", "-r", "R", "--no-iih", "--commit-mode", "1"}, "--no-iih"},
      {{"-q", "Q", "-r", "R", "--bogus"}, "command line"},
      {{"-q", "Q", "-r", "R", "--size"}, "command line"},
  };
  for (const bad& b : cases) {
    auto o = parse_options(b.args);
    ASSERT_FALSE(o.ok()) << b.field;
    EXPECT_EQ(o.error().field, b.field) << o.error().to_string();
    EXPECT_FALSE(o.error().detail.empty());
  }
}

TEST(imsbench_request, ivtno_with_iih) {
  const options o = parsed({"--commit-mode", "1", "--persistent"});
  const request r = build_request(o, 546, 819);
  EXPECT_EQ(r.md.format, "MQIMS   ");
  EXPECT_EQ(r.md.msg_type, mq::MQMT_REQUEST);
  EXPECT_EQ(r.md.report, mq::MQRO_EXCEPTION_WITH_DATA);
  EXPECT_EQ(r.md.persistence, mq::MQPER_PERSISTENT);
  auto iih = mq::decode_mqiih(r.data, 546, 819);
  ASSERT_TRUE(iih.ok());
  EXPECT_EQ(iih->commit_mode, '1');
  EXPECT_EQ(iih->format, "MQIMSVS ");
  const std::string seg = "IVTNO   DISPLAY LAST1";
  ASSERT_EQ(r.data.size(), 84 + 4 + seg.size());
  EXPECT_EQ(r.data[84], 4 + seg.size());  // LL little-endian
  EXPECT_EQ(r.data[85], 0);
  EXPECT_EQ(std::string(r.data.begin() + 88, r.data.end()), seg);
}

TEST(imsbench_request, echo_padded_to_size_and_split) {
  for (std::size_t size : {0u, 12u, 100u, 32000u, 32001u, 70000u}) {
    options o = parsed({"--tran", "ECHO", "--size", std::to_string(size), "--no-iih"});
    const std::vector<std::string> segs = request_segments(o);
    ASSERT_FALSE(segs.empty());
    EXPECT_EQ(segs[0].substr(0, 8), "ECHO    ");
    std::size_t total = 0;
    for (const auto& s : segs) {
      EXPECT_LE(s.size() + 4, 32000u);
      total += s.size() + 4;
    }
    if (size >= 12) {
      EXPECT_GE(total + 4, size) << size;  // within a segment header of the size
      EXPECT_LE(total, size) << size;
    }
    const request r = build_request(o, 785, 37);
    EXPECT_EQ(r.md.format, "        ");
    EXPECT_EQ(r.data.size(), total);
    EXPECT_EQ(r.data[0] * 256 + r.data[1], static_cast<int>(segs[0].size() + 4));  // big-endian LL
    EXPECT_EQ(r.data[4], 0xC5);                                                    // 'E' in CCSID 037
  }
  // IVTNO ignores --size.
  EXPECT_EQ(request_segments(parsed({"--size", "5000"})).size(), 1u);
}

TEST(imsbench_stats, percentiles_by_nearest_rank) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 500);
  EXPECT_DOUBLE_EQ(percentile(v, 0.99), 990);
  EXPECT_DOUBLE_EQ(percentile(v, 0.999), 999);
  EXPECT_DOUBLE_EQ(percentile(v, 1.0), 1000);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(percentile({7}, 0.999), 7);
  EXPECT_DOUBLE_EQ(percentile({1, 2}, 0.5), 1);
  EXPECT_DOUBLE_EQ(percentile({1, 2}, 0.51), 2);
}

TEST(imsbench_stats, summarize_merges_requesters) {
  requester_stats a, b;
  a.latencies_ms = {3, 1};
  a.requests = 3;
  a.errors_by_code[mqfb_key(296)] = 1;
  b.latencies_ms = {2, 4};
  b.requests = 4;
  b.errors_by_code[mqfb_key(296)] = 1;
  b.errors_by_code[mqrc_key(2053)] = 1;
  b.errors_by_code[mqrc_key(2033)] = 0;
  const summary s = summarize({a, b}, 2.0);
  EXPECT_EQ(s.requests, 7u);
  EXPECT_EQ(s.replies, 4u);
  EXPECT_EQ(s.errors, 3u);
  EXPECT_DOUBLE_EQ(s.tps, 2.0);
  EXPECT_DOUBLE_EQ(s.p50_ms, 2);
  EXPECT_DOUBLE_EQ(s.max_ms, 4);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_EQ(s.errors_by_code.at("MQFB_IIH_ERROR (296)"), 2u);
  EXPECT_EQ(s.errors_by_code.at("MQRC_Q_FULL (2053)"), 1u);
  const summary none = summarize({}, 0);
  EXPECT_EQ(none.replies, 0u);
  EXPECT_DOUBLE_EQ(none.tps, 0);
}

TEST(imsbench_stats, keys_and_render) {
  EXPECT_EQ(mqrc_key(2033), "MQRC_NO_MSG_AVAILABLE (2033)");
  EXPECT_EQ(mqrc_key(2700), "MQRC 2700");
  EXPECT_EQ(mqfb_key(296), "MQFB_IIH_ERROR (296)");
  EXPECT_EQ(mqfb_key(326).rfind("MQFB_IMS_ERROR+26", 0), 0u) << mqfb_key(326);

  requester_stats a;
  a.latencies_ms = {1.5};
  a.requests = 2;
  a.errors_by_code["MQFB_IIH_ERROR (296)"] = 1;
  const summary s = summarize({a}, 1.0);
  options o = parsed({"-n", "1"});
  const std::string text = render(s, o);
  EXPECT_EQ(text.rfind(std::string(msg::IMB4943I), 0), 0u);
  EXPECT_NE(text.find("2 requests, 1 replies, 1 errors"), std::string::npos) << text;
  EXPECT_NE(text.find("p50 1.500"), std::string::npos) << text;
  EXPECT_NE(text.find("error MQFB_IIH_ERROR (296): 1"), std::string::npos) << text;
  o.json = true;
  const std::string json = render(s, o);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");
  EXPECT_NE(json.find("\"requests\":2,\"replies\":1,\"errors\":1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"errors_by_code\":{\"MQFB_IIH_ERROR (296)\":1}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"p99_9\":1.500"), std::string::npos) << json;
}

// --- Whole runs: an in-process queue manager and a responder thread that plays the bridge ------------

class imsbench_run : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string failed = qm_.create("QM1");
    ASSERT_EQ(failed, "") << failed;
    admin_ = connect();
    auto r = admin_->mqsc(
        "DEFINE QLOCAL(IMS.BRIDGE.Q)\nDEFINE QLOCAL(APP.REPLY)\nDEFINE QLOCAL(APP.REPLY.1)\n"
        "DEFINE QLOCAL(APP.REPLY.2)\nDEFINE QLOCAL(DLQ)\n");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_EQ(r->exit_code, 0);
  }
  void TearDown() override {
    bridge_.reset();
    admin_.reset();
  }

  std::unique_ptr<mqi::connection> connect() {
    auto c = qm_.connect("QM1");
    if (!c.ok()) throw std::runtime_error("connect local:QM1: " + c.error().to_string());
    return std::move(c).value();
  }
  connector connector_for_test() {
    return [this](const options&, int) -> result<std::unique_ptr<mqi::connection>> { return connect(); };
  }

  // Answers every request on IMS.BRIDGE.Q: every `report_every`th with an exception report (MQFB 296),
  // every `dead_letter_every`th to the DLQ with an MQDLH (MQFB 294), the others with a reply.
  // With `dfs_every`, every such request gets the reply the bridge builds from IMS's DFS text after a NAK
  // (PutApplType MQAT_IMS_BRIDGE, put with all context as the bridge does).
  void start_responder(int report_every, int dead_letter_every, int dfs_every = 0) {
    bridge_.emplace(
        [this] { return connect(); }, "IMS.BRIDGE.Q",
        [report_every, dead_letter_every, dfs_every](mqi::connection& c, const mqi::message& m, int n) {
          if (dead_letter_every > 0 && n % dead_letter_every == 0) {
            mq::mqdlh dlh;
            dlh.reason = mq::MQFB_BUFFER_OVERFLOW;
            dlh.format = m.md.format;
            dlh.encoding = m.md.encoding;
            dlh.coded_char_set_id = m.md.coded_char_set_id;
            bytes data;
            mq::encode_mqdlh(dlh, m.md.encoding, m.md.coded_char_set_id, data);
            data.insert(data.end(), m.data.begin(), m.data.end());
            mq::mqmd md = m.md;
            md.format = std::string(mq::MQFMT_DEAD_LETTER_HEADER);
            (void)c.put1({"DLQ", ""}, md, data, mq::MQPMO_NO_SYNCPOINT);
          } else if (dfs_every > 0 && n % dfs_every == 0) {
            mq::mqmd md;
            md.correl_id = m.md.msg_id;
            md.msg_type = mq::MQMT_REPLY;
            md.put_appl_type = mq::MQAT_IMS_BRIDGE;
            md.put_appl_name = std::string(28, ' ');
            const std::string text = (n / dfs_every) % 2 == 1 ? "DFS1288E  TRANSACTION/LTERM NAME IS AN LTERM"
                                                              : "SOME IMS ERROR TEXT WITHOUT AN ID";
            (void)c.put1({m.md.reply_to_q, ""}, md, bytes(text.begin(), text.end()),
                         mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_SET_ALL_CONTEXT);
          } else if (report_every > 0 && n % report_every == 0) {
            test_support::fake_bridge::answer(c, m, mq::MQMT_REPORT, mq::MQFB_IIH_ERROR);
          } else {
            test_support::fake_bridge::answer(c, m);
          }
        });
  }

  test::temp_qmgr qm_;  // before the connections: they close first
  std::unique_ptr<mqi::connection> admin_;
  std::optional<test_support::fake_bridge> bridge_;
};

TEST_F(imsbench_run, count_with_replies_and_reports) {
  start_responder(5, 0);
  std::ostringstream out, err;
  const int rc = run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "-n", "3", "--count", "30",
                      "--json", "--reply-wait", "10000"},
                     out, err, connector_for_test());
  EXPECT_EQ(rc, 1) << err.str();
  const std::string j = out.str();
  EXPECT_NE(j.find("\"requests\":30,\"replies\":24,\"errors\":6"), std::string::npos) << j << err.str();
  EXPECT_NE(j.find("\"MQFB_IIH_ERROR (296)\":6"), std::string::npos) << j;
  EXPECT_EQ(err.str(), "");
}

TEST_F(imsbench_run, a_reply_built_from_dfs_text_is_an_error) {
  start_responder(0, 0, 3);
  std::ostringstream out, err;
  const int rc = run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--count", "12", "--json",
                      "--reply-wait", "10000"},
                     out, err, connector_for_test());
  EXPECT_EQ(rc, 1) << err.str();
  const std::string j = out.str();
  EXPECT_NE(j.find("\"requests\":12,\"replies\":8,\"errors\":4"), std::string::npos) << j << err.str();
  EXPECT_NE(j.find("\"DFS1288E\":2"), std::string::npos) << j;
  EXPECT_NE(j.find("\"DFS reply\":2"), std::string::npos) << j;
}

TEST_F(imsbench_run, a_failed_start_disconnects_the_requesters_already_connected) {
  test_support::hooked_connection::hooks h;  // counts MQDISC
  const connector third_fails = [&](const options&, int i) -> result<std::unique_ptr<mqi::connection>> {
    if (i == 2) return decode_error{mq::make_mqrc(2059), "MQCONN", 0, "nothing answers"};
    return std::unique_ptr<mqi::connection>(std::make_unique<test_support::hooked_connection>(connect(), h));
  };
  std::ostringstream out, err;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "-n", "3", "--count", "1"}, out,
                err, third_fails),
            1);
  EXPECT_EQ(h.discs.load(), 2) << err.str();
  // Opening the bridge queue fails for the first requester: its connection is disconnected too.
  h.discs = 0;
  const connector all = [&](const options&, int) -> result<std::unique_ptr<mqi::connection>> {
    return std::unique_ptr<mqi::connection>(std::make_unique<test_support::hooked_connection>(connect(), h));
  };
  std::ostringstream out2, err2;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "NO.SUCH.Q", "-r", "APP.REPLY", "-n", "2", "--count", "1"}, out2,
                err2, all),
            1);
  EXPECT_EQ(h.discs.load(), 1) << err2.str();
}

TEST_F(imsbench_run, per_requester_reply_queues_all_replies) {
  start_responder(0, 0);
  std::ostringstream out, err;
  const int rc = run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--reply-queues",
                      "per-requester", "-n", "2", "--count", "10", "--tran", "ECHO", "--size", "200"},
                     out, err, connector_for_test());
  EXPECT_EQ(rc, 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("10 requests, 10 replies, 0 errors"), std::string::npos) << out.str();
}

TEST_F(imsbench_run, duration_ends_the_run) {
  start_responder(0, 0);
  std::ostringstream out, err;
  const int rc = run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "-d", "0.3"}, out, err,
                     connector_for_test());
  EXPECT_EQ(rc, 0) << out.str() << err.str();
  EXPECT_NE(out.str().find(" 0 errors"), std::string::npos) << out.str();
}

TEST_F(imsbench_run, unanswered_requests_are_found_on_the_dlq_or_time_out) {
  start_responder(0, 2);  // every second request dead-lettered
  std::ostringstream out, err;
  const int rc = run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--count", "4",
                      "--reply-wait", "300", "--dlq", "DLQ", "--json"},
                     out, err, connector_for_test());
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.str().find("\"MQFB_BUFFER_OVERFLOW (294) dead-lettered\":2"), std::string::npos) << out.str();
  EXPECT_NE(err.str().find(std::string(msg::IMB4942W)), std::string::npos) << err.str();

  // No responder at all and no --dlq: timeouts.
  bridge_.reset();
  std::ostringstream out2, err2;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--count", "2", "--reply-wait",
                 "50", "--json"},
                out2, err2, connector_for_test()),
            1);
  EXPECT_NE(out2.str().find("\"MQRC_NO_MSG_AVAILABLE (2033) timeout\":2"), std::string::npos) << out2.str();
}

TEST_F(imsbench_run, usage_and_connection_errors) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"--tran", "X"}, out, err, connector_for_test()), 2);
  EXPECT_EQ(err.str().rfind(std::string(msg::IMB4940E), 0), 0u) << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(run({"--help"}, out2, err2, connector_for_test()), 0);
  EXPECT_NE(out2.str().find("Usage: imsbench"), std::string::npos);
  std::ostringstream out3, err3;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "NO.SUCH.Q", "-r", "APP.REPLY", "--count", "1"}, out3, err3,
                connector_for_test()),
            1);
  EXPECT_NE(err3.str().find(std::string(msg::IMB4941E)), std::string::npos) << err3.str();
  EXPECT_NE(err3.str().find("NO.SUCH.Q"), std::string::npos) << err3.str();
  std::ostringstream out4, err4;
  const connector refuse = [](const options&, int) -> result<std::unique_ptr<mqi::connection>> {
    return decode_error{mq::make_mqrc(2059), "MQCONN", 0, "nothing answers"};
  };
  EXPECT_EQ(run({"-m", "QMX", "-q", "Q", "-r", "R"}, out4, err4, refuse), 1);
  EXPECT_NE(err4.str().find("MQRC_Q_MGR_NOT_AVAILABLE"), std::string::npos) << err4.str();
}

}  // namespace
}  // namespace imsb::imsbench
