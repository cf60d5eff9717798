// The MQI contract's checklist (connection.hpp), one typed test each, run on every backend: in-process,
// bindings socket, TCP client. A test names the MQI rule it checks; reasons are IBM's (cmqc.h [C]).
// What the contract does not take yet (MQCB/MQCTL, MQBEGIN, MQSET, MQSTAT, a wait ended by the
// connection's stop) is not here: it comes with those calls.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "conformance_env.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::conformance {
namespace {

using namespace std::chrono_literals;

std::string text_of(const bytes& b) { return std::string(b.begin(), b.end()); }

std::string blank_padded(const std::string& s, std::size_t n) {
  std::string out = s;
  out.resize(n, ' ');
  return out;
}

template <class Backend>
class mqi_conformance : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string failed = env_.start();
    ASSERT_EQ(failed, "");
    auto c = Backend::connect(env_);
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    c_ = std::move(c).value();
  }
  void TearDown() override {
    others_.clear();
    c_.reset();
  }

  mqi::connection& c() { return *c_; }
  mqi::connection& another() {
    auto c = Backend::connect(env_);
    EXPECT_TRUE(c.ok()) << c.error().to_string();
    others_.push_back(std::move(c).value());
    return *others_.back();
  }

  mqi::hobj open(const std::string& q, std::int32_t oo, mqi::connection* on = nullptr) {
    auto h = (on != nullptr ? *on : c()).open({q, ""}, oo);
    EXPECT_TRUE(h.ok()) << q << ": " << h.error().to_string();
    return h.ok() ? h->handle : 0;
  }
  mq::mqmd put(const std::string& q, const std::string& data, std::int32_t pmo = mq::MQPMO_NO_SYNCPOINT,
               mq::mqmd md = {}, mqi::connection* on = nullptr) {
    auto r = (on != nullptr ? *on : c()).put1({q, ""}, md, bytes_view::of(data), pmo);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return r.ok() ? r->md : mq::mqmd{};
  }
  static mqi::get_request no_wait(std::int32_t gmo = mq::MQGMO_NO_SYNCPOINT) {
    mqi::get_request g;
    g.options = gmo;
    return g;
  }
  std::int32_t depth(const std::string& q) {
    auto h = c().open({q, ""}, mq::MQOO_INQUIRE);
    if (!h) return -1;
    auto in = c().inquire(h->handle, {mq::MQIA_CURRENT_Q_DEPTH});
    (void)c().close(h->handle);
    return in ? in->int_attrs.at(0) : -1;
  }
  template <class T>
  static std::int32_t rc(const mqi::result<T>& r) {
    return r.reason();
  }

  environment env_;
  std::unique_ptr<mqi::connection> c_;
  std::vector<std::unique_ptr<mqi::connection>> others_;
};

struct backend_names {
  template <class T>
  static std::string GetName(int) {
    if (std::is_same_v<T, in_process>) return "in_process";
    if (std::is_same_v<T, bindings>) return "bindings";
    return "tcp_client";
  }
};

using backends = ::testing::Types<in_process, bindings, tcp_client>;
TYPED_TEST_SUITE(mqi_conformance, backends, backend_names);

// ---- completion codes ---------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, a_call_that_works_completes_ok_with_no_reason) {
  auto h = this->c().open({"Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.completion_code(), mq::MQCC_OK);
  EXPECT_EQ(h.reason(), mq::MQRC_NONE);
  auto closed = this->c().close(h->handle);
  EXPECT_EQ(closed.completion_code(), mq::MQCC_OK);
}

TYPED_TEST(mqi_conformance, a_call_that_fails_completes_failed_with_its_reason_and_words) {
  auto h = this->c().open({"NO.SUCH.Q", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.completion_code(), mq::MQCC_FAILED);
  EXPECT_EQ(h.reason(), mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_NE(h.detail(), "");
  EXPECT_EQ(mqi::reason_of(h.error()), mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_FALSE(mqi::is_connection_gone(h.error()));
}

// ---- MQOPEN options -----------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, mqopen_refuses_bad_option_words) {
  EXPECT_EQ(this->rc(this->c().open({"Q1", ""}, 0x00000001 << 30)), mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->rc(this->c().open({"Q1", ""}, mq::MQOO_INPUT_SHARED | mq::MQOO_INPUT_EXCLUSIVE)),
            mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->rc(this->c().open({"Q1", ""}, mq::MQOO_FAIL_IF_QUIESCING)), mq::MQRC_OPTIONS_ERROR);
}

TYPED_TEST(mqi_conformance, mqopen_reasons_of_names_and_types) {
  EXPECT_EQ(this->rc(this->c().open({"NO.SUCH.Q", ""}, mq::MQOO_INPUT_SHARED)), mq::MQRC_UNKNOWN_OBJECT_NAME);
  mqi::object_descriptor bad_type{"Q1", "", 99};
  EXPECT_EQ(this->rc(this->c().open(bad_type, mq::MQOO_INQUIRE)), mq::MQRC_OBJECT_TYPE_ERROR);
  mqi::object_descriptor qmgr{"", "", mq::MQOT_Q_MGR};
  EXPECT_EQ(this->rc(this->c().open(qmgr, mq::MQOO_OUTPUT)), mq::MQRC_OPTION_NOT_VALID_FOR_TYPE);
  mqi::object_descriptor other_qmgr{"QM9", "", mq::MQOT_Q_MGR};
  EXPECT_EQ(this->rc(this->c().open(other_qmgr, mq::MQOO_INQUIRE)), mq::MQRC_UNKNOWN_OBJECT_NAME);
}

TYPED_TEST(mqi_conformance, mqopen_resolves_alias_and_remote_names) {
  auto a = this->c().open({"ALIAS.Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->resolved_q, "Q1");
  EXPECT_EQ(a->resolved_qmgr, "QM1");
  auto r = this->c().open({"REMOTE.Q", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->resolved_q, "TARGET.Q");
  EXPECT_EQ(r->resolved_qmgr, "QM2");
}

TYPED_TEST(mqi_conformance, exclusive_input_is_refused_to_a_second_opener) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_EXCLUSIVE);
  ASSERT_NE(h, 0);
  auto& other = this->another();
  EXPECT_EQ(this->rc(other.open({"Q1", ""}, mq::MQOO_INPUT_SHARED)), mq::MQRC_OBJECT_IN_USE);
  // DEFSOPT(EXCL): MQOO_INPUT_AS_Q_DEF opens exclusively.
  ASSERT_NE(this->open("EXCL.Q", mq::MQOO_INPUT_AS_Q_DEF), 0);
  EXPECT_EQ(this->rc(other.open({"EXCL.Q", ""}, mq::MQOO_INPUT_AS_Q_DEF)), mq::MQRC_OBJECT_IN_USE);
  ASSERT_TRUE(this->c().close(h).ok());
  EXPECT_TRUE(other.open({"Q1", ""}, mq::MQOO_INPUT_SHARED).ok());
}

// ---- handles ------------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, a_handle_is_checked_for_what_it_was_opened_for) {
  const mqi::hobj out = this->open("Q1", mq::MQOO_OUTPUT);
  const mqi::hobj in = this->open("Q1", mq::MQOO_INPUT_SHARED);
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put(in, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT)),
            mq::MQRC_NOT_OPEN_FOR_OUTPUT);
  EXPECT_EQ(this->rc(this->c().get(out, this->no_wait())), mq::MQRC_NOT_OPEN_FOR_INPUT);
  EXPECT_EQ(this->rc(this->c().get(in, this->no_wait(mq::MQGMO_BROWSE_FIRST))), mq::MQRC_NOT_OPEN_FOR_BROWSE);
  EXPECT_EQ(this->rc(this->c().inquire(out, {mq::MQIA_CURRENT_Q_DEPTH})), mq::MQRC_NOT_OPEN_FOR_INQUIRE);
}

TYPED_TEST(mqi_conformance, a_handle_not_open_is_hobj_error) {
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put(4711, md, bytes_view::of("x"), 0)), mq::MQRC_HOBJ_ERROR);
  EXPECT_EQ(this->rc(this->c().get(4711, this->no_wait())), mq::MQRC_HOBJ_ERROR);
  EXPECT_EQ(this->rc(this->c().inquire(4711, {mq::MQIA_Q_TYPE})), mq::MQRC_HOBJ_ERROR);
  EXPECT_EQ(this->rc(this->c().close(4711)), mq::MQRC_HOBJ_ERROR);
  const mqi::hobj h = this->open("Q1", mq::MQOO_OUTPUT);
  ASSERT_TRUE(this->c().close(h).ok());
  EXPECT_EQ(this->rc(this->c().close(h)), mq::MQRC_HOBJ_ERROR);
}

// ---- MQPUT options ------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, mqput_refuses_bad_option_words) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_OUTPUT);
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put(h, md, bytes_view::of("x"), 0x00000001 << 30)), mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->rc(this->c().put(h, md, bytes_view::of("x"), mq::MQPMO_SYNCPOINT | mq::MQPMO_NO_SYNCPOINT)),
            mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->depth("Q1"), 0);  // a put that fails puts nothing
}

TYPED_TEST(mqi_conformance, context_options_need_the_open_option_that_allows_them) {
  const mqi::hobj plain = this->open("Q1", mq::MQOO_OUTPUT);
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put(plain, md, bytes_view::of("x"), mq::MQPMO_SET_ALL_CONTEXT)),
            mq::MQRC_NOT_OPEN_FOR_SET_ALL);
  EXPECT_EQ(this->rc(this->c().put(plain, md, bytes_view::of("x"), mq::MQPMO_SET_IDENTITY_CONTEXT)),
            mq::MQRC_NOT_OPEN_FOR_SET_IDENT);
  EXPECT_EQ(this->rc(this->c().put(plain, md, bytes_view::of("x"), mq::MQPMO_PASS_ALL_CONTEXT)),
            mq::MQRC_NOT_OPEN_FOR_PASS_ALL);
  EXPECT_EQ(this->rc(this->c().put(plain, md, bytes_view::of("x"), mq::MQPMO_PASS_IDENTITY_CONTEXT)),
            mq::MQRC_NOT_OPEN_FOR_PASS_IDENT);
  // With MQOO_SET_ALL_CONTEXT the application's identity goes through.
  const mqi::hobj set_all = this->open("Q1", mq::MQOO_OUTPUT | mq::MQOO_SET_ALL_CONTEXT);
  md.user_identifier = blank_padded("someone", mq::MQ_USER_ID_LENGTH);
  md.put_appl_name = blank_padded("MY.APP", mq::MQ_PUT_APPL_NAME_LENGTH);
  auto r =
      this->c().put(set_all, md, bytes_view::of("x"), mq::MQPMO_SET_ALL_CONTEXT | mq::MQPMO_NO_SYNCPOINT);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const mqi::hobj in = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto m = this->c().get(in, this->no_wait());
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->md.user_identifier, blank_padded("someone", mq::MQ_USER_ID_LENGTH));
  EXPECT_EQ(m->md.put_appl_name, blank_padded("MY.APP", mq::MQ_PUT_APPL_NAME_LENGTH));
}

TYPED_TEST(mqi_conformance, a_new_message_id_is_made_unless_one_is_given) {
  const mq::mqmd a = this->put("Q1", "a");
  const mq::mqmd b = this->put("Q1", "b");
  EXPECT_NE(a.msg_id, mq::MQMI_NONE);
  EXPECT_NE(a.msg_id, b.msg_id);
  mq::mqmd mine;
  mine.msg_id.fill(0x41);
  EXPECT_EQ(this->put("Q1", "c", mq::MQPMO_NO_SYNCPOINT, mine).msg_id, mine.msg_id);
  EXPECT_NE(this->put("Q1", "d", mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_NEW_MSG_ID, mine).msg_id, mine.msg_id);
}

TYPED_TEST(mqi_conformance, put_inhibited_and_get_inhibited) {
  auto admin = this->env_.in_process();  // an administrator, whatever the backend's user
  ASSERT_TRUE(admin.ok()) << admin.error().to_string();
  auto r = (*admin)->mqsc("ALTER QLOCAL(Q2) PUT(DISABLED)\n");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->exit_code, 0);
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put1({"Q2", ""}, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT)),
            mq::MQRC_PUT_INHIBITED);
  const mqi::hobj h = this->open("NOGET.Q", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait())), mq::MQRC_GET_INHIBITED);
}

// ---- MQGET options ------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, mqget_refuses_bad_option_words) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  this->put("Q1", "stays");
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait(0x00000001 << 30))), mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_FIRST | mq::MQGMO_BROWSE_NEXT))),
            mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait(mq::MQGMO_SYNCPOINT | mq::MQGMO_NO_SYNCPOINT))),
            mq::MQRC_OPTIONS_ERROR);
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait(mq::MQGMO_MSG_UNDER_CURSOR))),
            mq::MQRC_NO_MSG_UNDER_CURSOR);
  EXPECT_EQ(this->depth("Q1"), 1);  // a get that fails removes nothing
}

TYPED_TEST(mqi_conformance, no_message_is_2033_after_the_wait) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait())), mq::MQRC_NO_MSG_AVAILABLE);
  mqi::get_request g = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
  g.wait_interval_ms = 50;
  EXPECT_EQ(this->rc(this->c().get(h, g)), mq::MQRC_NO_MSG_AVAILABLE);
}

TYPED_TEST(mqi_conformance, a_waiting_get_is_woken_by_a_put_from_another_connection) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto& putter = this->another();
  std::thread later([&] {
    std::this_thread::sleep_for(100ms);
    this->put("Q1", "wake up", mq::MQPMO_NO_SYNCPOINT, {}, &putter);
  });
  mqi::get_request g = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
  g.wait_interval_ms = 60000;  // far beyond the test's time: only the message can end this wait
  auto m = this->c().get(h, g);
  later.join();
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "wake up");
}

TYPED_TEST(mqi_conformance, a_waiting_get_is_ended_by_a_stop_from_another_thread) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    this->c().stop();
  });
  mqi::get_request g = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
  g.wait_interval_ms = mq::MQWI_UNLIMITED;  // only the stop can end this wait
  auto m = this->c().get(h, g);
  stopper.join();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.reason(), mq::MQRC_CONNECTION_STOPPING) << m.error().to_string();
  EXPECT_TRUE(mqi::is_connection_gone(m.error()));
}

TYPED_TEST(mqi_conformance, after_a_stop_calls_fail_2203_and_the_unit_of_work_is_backed_out) {
  auto& other = this->another();
  this->put("Q1", "in the unit of work", mq::MQPMO_SYNCPOINT, {}, &other);
  other.stop();
  mq::mqmd md;
  EXPECT_EQ(this->rc(other.put1({"Q1", ""}, md, bytes_view::of("x"), mq::MQPMO_SYNCPOINT)),
            mq::MQRC_CONNECTION_STOPPING);
  EXPECT_EQ(this->rc(other.commit()), mq::MQRC_CONNECTION_STOPPING);
  EXPECT_TRUE(other.disconnect().ok());
  for (int i = 0; i < 500 && this->depth("Q1") != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(this->depth("Q1"), 0);
}

TYPED_TEST(mqi_conformance, a_stop_during_a_waiting_get_frees_what_the_unit_of_work_holds) {
  this->put("Q1", "held");
  auto& other = this->another();
  const mqi::hobj q1 = this->open("Q1", mq::MQOO_INPUT_SHARED, &other);
  const mqi::hobj q2 = this->open("Q2", mq::MQOO_INPUT_SHARED, &other);
  ASSERT_TRUE(other.get(q1, this->no_wait(mq::MQGMO_SYNCPOINT)).ok());
  std::thread waiter([&] {
    mqi::get_request g = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_SYNCPOINT);
    g.wait_interval_ms = mq::MQWI_UNLIMITED;
    EXPECT_EQ(this->rc(other.get(q2, g)), mq::MQRC_CONNECTION_STOPPING);
  });
  std::this_thread::sleep_for(100ms);
  other.stop();
  waiter.join();
  (void)other.disconnect();
  // The queue manager ends the wait on its side too and backs the unit of work out: the message comes
  // back (over a socket, the server sees the client go while the get waits).
  const mqi::hobj mine = this->open("Q1", mq::MQOO_INPUT_SHARED);
  mqi::get_request g = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
  g.wait_interval_ms = 10000;
  auto back = this->c().get(mine, g);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(text_of(back->data), "held");
  EXPECT_EQ(back->md.backout_count, 1);
}

TYPED_TEST(mqi_conformance, a_message_too_long_for_the_buffer_stays_2080) {
  this->put("Q1", "0123456789");
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  mqi::get_request g = this->no_wait();
  g.max_length = 4;
  auto m = this->c().get(h, g);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.completion_code(), mq::MQCC_FAILED);
  EXPECT_EQ(m.reason(), mq::MQRC_TRUNCATED_MSG_FAILED);
  EXPECT_EQ(this->depth("Q1"), 1);
}

TYPED_TEST(mqi_conformance, a_truncated_message_accepted_is_a_warning_2079_and_is_got) {
  this->put("Q1", "0123456789");
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  mqi::get_request g = this->no_wait(mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_ACCEPT_TRUNCATED_MSG);
  g.max_length = 4;
  auto m = this->c().get(h, g);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m.completion_code(), mq::MQCC_WARNING);
  EXPECT_EQ(m.reason(), mq::MQRC_TRUNCATED_MSG_ACCEPTED);
  EXPECT_NE(m.detail().find("message of 10 bytes, buffer 4"), std::string::npos) << m.detail();
  EXPECT_EQ(text_of(m->data), "0123");
  EXPECT_EQ(m->data_length, 10u);
  EXPECT_EQ(this->depth("Q1"), 0);
  // A buffer long enough: no warning.
  this->put("Q1", "0123");
  auto whole = this->c().get(h, g);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole.completion_code(), mq::MQCC_OK);
}

// ---- matching -----------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, get_matches_by_msg_id_correl_id_and_token) {
  mq::mqmd a, b;
  a.correl_id.fill(0x01);
  b.correl_id.fill(0x02);
  const mq::mqmd pa = this->put("Q1", "a", mq::MQPMO_NO_SYNCPOINT, a);
  const mq::mqmd pb = this->put("Q1", "b", mq::MQPMO_NO_SYNCPOINT, b);
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  mqi::get_request by_correl = this->no_wait();
  by_correl.correl_id = b.correl_id;
  by_correl.match_options = mq::MQMO_MATCH_CORREL_ID;
  auto mb = this->c().get(h, by_correl);
  ASSERT_TRUE(mb.ok()) << mb.error().to_string();
  EXPECT_EQ(text_of(mb->data), "b");
  EXPECT_EQ(mb->md.msg_id, pb.msg_id);
  EXPECT_EQ(this->rc(this->c().get(h, by_correl)), mq::MQRC_NO_MSG_AVAILABLE);

  this->put("Q1", "c");
  mqi::get_request by_id = this->no_wait(mq::MQGMO_BROWSE_FIRST);
  by_id.msg_id = pa.msg_id;
  by_id.match_options = mq::MQMO_MATCH_MSG_ID;
  auto browsed = this->c().get(h, by_id);
  ASSERT_TRUE(browsed.ok()) << browsed.error().to_string();
  EXPECT_EQ(text_of(browsed->data), "a");
  mqi::get_request by_token = this->no_wait();
  by_token.msg_token = browsed->token;
  by_token.match_options = mq::MQMO_MATCH_MSG_TOKEN;
  auto got = this->c().get(h, by_token);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(text_of(got->data), "a");
  EXPECT_EQ(got->token, browsed->token);
  EXPECT_EQ(this->depth("Q1"), 1);  // "c"
}

// ---- browse -------------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, browse_first_next_and_under_the_cursor) {
  for (const char* s : {"a", "b", "c"}) this->put("Q1", s);
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  EXPECT_EQ(text_of(this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_FIRST))->data), "a");
  EXPECT_EQ(text_of(this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_NEXT))->data), "b");
  auto again = this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_MSG_UNDER_CURSOR));
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(text_of(again->data), "b");
  auto taken = this->c().get(h, this->no_wait(mq::MQGMO_MSG_UNDER_CURSOR | mq::MQGMO_NO_SYNCPOINT));
  ASSERT_TRUE(taken.ok()) << taken.error().to_string();
  EXPECT_EQ(text_of(taken->data), "b");
  EXPECT_EQ(text_of(this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_NEXT))->data), "c");
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_NEXT))), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(this->depth("Q1"), 2);
}

TYPED_TEST(mqi_conformance, a_message_under_the_cursor_got_by_another_connection_is_2034) {
  this->put("Q1", "contested");
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  ASSERT_TRUE(this->c().get(h, this->no_wait(mq::MQGMO_BROWSE_FIRST)).ok());
  auto& other = this->another();
  const mqi::hobj oh = this->open("Q1", mq::MQOO_INPUT_SHARED, &other);
  ASSERT_TRUE(other.get(oh, this->no_wait()).ok());
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait(mq::MQGMO_MSG_UNDER_CURSOR))),
            mq::MQRC_NO_MSG_UNDER_CURSOR);
}

// ---- units of work ------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, a_put_in_syncpoint_is_seen_at_commit_and_gone_at_backout) {
  auto& other = this->another();
  const mqi::hobj oh = this->open("Q1", mq::MQOO_INPUT_SHARED, &other);
  this->put("Q1", "kept", mq::MQPMO_SYNCPOINT);
  EXPECT_EQ(this->rc(other.get(oh, this->no_wait())), mq::MQRC_NO_MSG_AVAILABLE);
  ASSERT_TRUE(this->c().commit().ok());
  auto m = other.get(oh, this->no_wait());
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "kept");
  this->put("Q1", "dropped", mq::MQPMO_SYNCPOINT);
  ASSERT_TRUE(this->c().backout().ok());
  EXPECT_EQ(this->rc(other.get(oh, this->no_wait())), mq::MQRC_NO_MSG_AVAILABLE);
}

TYPED_TEST(mqi_conformance, a_get_in_syncpoint_backed_out_comes_back_with_its_backout_count) {
  this->put("Q1", "again");
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto first = this->c().get(h, this->no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->md.backout_count, 0);
  ASSERT_TRUE(this->c().backout().ok());
  auto second = this->c().get(h, this->no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->md.backout_count, 1);
  ASSERT_TRUE(this->c().commit().ok());
  EXPECT_EQ(this->depth("Q1"), 0);
}

TYPED_TEST(mqi_conformance, mqdisc_commits_and_later_calls_are_hconn_error) {
  auto& other = this->another();
  this->put("Q1", "committed by MQDISC", mq::MQPMO_SYNCPOINT, {}, &other);
  auto d = other.disconnect();
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(this->depth("Q1"), 1);
  auto late = other.open({"Q1", ""}, mq::MQOO_OUTPUT);
  EXPECT_EQ(this->rc(late), mq::MQRC_HCONN_ERROR);
  EXPECT_TRUE(mqi::is_connection_gone(late.error()));
}

TYPED_TEST(mqi_conformance, a_connection_that_ends_without_mqdisc_is_backed_out) {
  this->put("Q1", "got in syncpoint");
  {
    auto& other = this->another();
    this->put("Q2", "put in syncpoint", mq::MQPMO_SYNCPOINT, {}, &other);
    const mqi::hobj oh = this->open("Q1", mq::MQOO_INPUT_SHARED, &other);
    ASSERT_TRUE(other.get(oh, this->no_wait(mq::MQGMO_SYNCPOINT)).ok());
    this->others_.clear();  // the connection ends, no MQDISC
  }
  // Over a socket the server backs out once it sees the close: wait for it. (CURDEPTH counts the
  // uncommitted put, as IBM's does, so Q2's depth falls to 0 at the backout.)
  for (int i = 0; i < 500 && this->depth("Q2") != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(this->depth("Q2"), 0);
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto back = this->c().get(h, this->no_wait());
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(text_of(back->data), "got in syncpoint");
  EXPECT_EQ(back->md.backout_count, 1);
}

// ---- expiry and reports -------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, an_expired_message_is_not_got_and_its_report_is_sent) {
  mq::mqmd md;
  md.expiry = 1;  // a tenth of a second
  md.report = mq::MQRO_EXPIRATION;
  md.reply_to_q = blank_padded("REPLY", mq::MQ_Q_NAME_LENGTH);
  this->put("Q1", "short-lived", mq::MQPMO_NO_SYNCPOINT, md);
  std::this_thread::sleep_for(300ms);
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(this->rc(this->c().get(h, this->no_wait())), mq::MQRC_NO_MSG_AVAILABLE);
  const mqi::hobj r = this->open("REPLY", mq::MQOO_INPUT_SHARED);
  auto rep = this->c().get(r, this->no_wait());
  ASSERT_TRUE(rep.ok()) << rep.error().to_string();
  EXPECT_EQ(rep->md.msg_type, mq::MQMT_REPORT);
  EXPECT_EQ(rep->md.feedback, mq::MQFB_EXPIRATION);
}

TYPED_TEST(mqi_conformance, coa_at_the_put_and_cod_at_the_get) {
  mq::mqmd md;
  md.report = mq::MQRO_COA | mq::MQRO_COD;
  md.reply_to_q = blank_padded("REPLY", mq::MQ_Q_NAME_LENGTH);
  const mq::mqmd put = this->put("Q1", "reported", mq::MQPMO_NO_SYNCPOINT, md);
  const mqi::hobj r = this->open("REPLY", mq::MQOO_INPUT_SHARED);
  auto coa = this->c().get(r, this->no_wait());
  ASSERT_TRUE(coa.ok()) << coa.error().to_string();
  EXPECT_EQ(coa->md.feedback, mq::MQFB_COA);
  EXPECT_EQ(coa->md.correl_id, put.msg_id);  // MQRO_COPY_MSG_ID_TO_CORREL_ID, the default
  EXPECT_EQ(this->rc(this->c().get(r, this->no_wait())), mq::MQRC_NO_MSG_AVAILABLE);
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(this->c().get(h, this->no_wait()).ok());
  auto cod = this->c().get(r, this->no_wait());
  ASSERT_TRUE(cod.ok()) << cod.error().to_string();
  EXPECT_EQ(cod->md.feedback, mq::MQFB_COD);
}

// ---- MQINQ --------------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, mqinq_of_the_queue_manager) {
  mqi::object_descriptor od{"", "", mq::MQOT_Q_MGR};
  auto h = this->c().open(od, mq::MQOO_INQUIRE);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  auto in = this->c().inquire(h->handle,
                              {mq::MQCA_Q_MGR_NAME, mq::MQIA_CODED_CHAR_SET_ID, mq::MQCA_DEAD_LETTER_Q_NAME,
                               mq::MQIA_PLATFORM, mq::MQIA_MAX_MSG_LENGTH, mq::MQIA_SYNCPOINT});
  ASSERT_TRUE(in.ok()) << in.error().to_string();
  EXPECT_EQ(in.completion_code(), mq::MQCC_OK);
  ASSERT_EQ(in->char_attrs.size(), 2u);
  EXPECT_EQ(in->char_attrs[0], blank_padded("QM1", mq::MQ_Q_MGR_NAME_LENGTH));
  EXPECT_EQ(in->char_attrs[1], blank_padded("DLQ", mq::MQ_Q_NAME_LENGTH));
  EXPECT_EQ(in->int_attrs, (std::vector<std::int32_t>{1208, mq::MQPL_UNIX, 4194304, mq::MQSP_AVAILABLE}));
  // The helper the bridge uses.
  auto a = mqi::inquire_qmgr(this->c());
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->name, "QM1");
  EXPECT_EQ(a->ccsid, 1208);
  EXPECT_EQ(a->dead_letter_q, "DLQ");
  EXPECT_EQ(a->platform, mq::MQPL_UNIX);
  EXPECT_EQ(a->def_xmit_q, "");
  EXPECT_EQ(a->max_msg_length, 4194304);
}

TYPED_TEST(mqi_conformance, mqinq_of_a_local_queue) {
  this->put("Q2", "one");
  const mqi::hobj in = this->open("Q2", mq::MQOO_INPUT_SHARED);
  const mqi::hobj h = this->open("Q2", mq::MQOO_INQUIRE);
  auto r =
      this->c().inquire(h, {mq::MQIA_Q_TYPE, mq::MQCA_Q_NAME, mq::MQIA_CURRENT_Q_DEPTH, mq::MQIA_MAX_Q_DEPTH,
                            mq::MQCA_Q_DESC, mq::MQIA_OPEN_INPUT_COUNT, mq::MQIA_BACKOUT_THRESHOLD,
                            mq::MQCA_BACKOUT_REQ_Q_NAME, mq::MQIA_INHIBIT_GET, mq::MQIA_USAGE});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->int_attrs,
            (std::vector<std::int32_t>{mq::MQQT_LOCAL, 1, 7, 1, 3, mq::MQQA_GET_ALLOWED, mq::MQUS_NORMAL}));
  ASSERT_EQ(r->char_attrs.size(), 3u);
  EXPECT_EQ(r->char_attrs[0], blank_padded("Q2", 48));
  EXPECT_EQ(r->char_attrs[1], blank_padded("second queue", 64));
  EXPECT_EQ(r->char_attrs[2], blank_padded("Q1", 48));
  (void)in;
  auto st = mqi::inquire_queue(this->c(), h);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(st->name, "Q2");
  EXPECT_EQ(st->current_depth, 1);
  EXPECT_EQ(st->open_input_count, 1);
}

TYPED_TEST(mqi_conformance, mqinq_selector_errors_and_warnings) {
  const mqi::hobj alias = this->open("ALIAS.Q1", mq::MQOO_INQUIRE);
  // A selector of a local queue asked of an alias: a warning, the value "not applicable" [C].
  auto w = this->c().inquire(alias, {mq::MQIA_Q_TYPE, mq::MQIA_CURRENT_Q_DEPTH, mq::MQCA_BASE_Q_NAME});
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  EXPECT_EQ(w.completion_code(), mq::MQCC_WARNING);
  EXPECT_EQ(w.reason(), mq::MQRC_SELECTOR_NOT_FOR_TYPE);
  EXPECT_EQ(w->int_attrs, (std::vector<std::int32_t>{mq::MQQT_ALIAS, mqi::MQIAV_NOT_APPLICABLE}));
  EXPECT_EQ(w->char_attrs, std::vector<std::string>{blank_padded("Q1", 48)});
  // One no object answers, a queue manager's asked of a queue, too many.
  EXPECT_EQ(this->rc(this->c().inquire(alias, {1999})), mq::MQRC_SELECTOR_ERROR);
  EXPECT_EQ(this->rc(this->c().inquire(alias, {mq::MQIA_PLATFORM})), mq::MQRC_SELECTOR_ERROR);
  EXPECT_EQ(this->rc(this->c().inquire(alias, std::vector<std::int32_t>(257, mq::MQIA_Q_TYPE))),
            mq::MQRC_SELECTOR_COUNT_ERROR);
  // None at all is valid.
  auto none = this->c().inquire(alias, {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->int_attrs.empty());
}

TYPED_TEST(mqi_conformance, mqinq_of_a_remote_queue_definition) {
  const mqi::hobj h = this->open("REMOTE.Q", mq::MQOO_INQUIRE);
  auto r = this->c().inquire(
      h, {mq::MQCA_REMOTE_Q_NAME, mq::MQCA_REMOTE_Q_MGR_NAME, mq::MQCA_XMIT_Q_NAME, mq::MQIA_Q_TYPE});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->int_attrs, std::vector<std::int32_t>{mq::MQQT_REMOTE});
  EXPECT_EQ(r->char_attrs, (std::vector<std::string>{blank_padded("TARGET.Q", 48), blank_padded("QM2", 48),
                                                     blank_padded("XMITQ.QM2", 48)}));
}

// ---- MQSET --------------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, mqset_inhibits_get_and_put_and_mqinq_reads_it_back) {
  const mqi::hobj h = this->open("Q2", mq::MQOO_SET | mq::MQOO_INQUIRE);
  auto set = this->c().set(h, {mq::MQIA_INHIBIT_GET, mq::MQIA_INHIBIT_PUT}, {1, 1}, {});
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  EXPECT_EQ(set.completion_code(), mq::MQCC_OK);
  auto in = this->c().inquire(h, {mq::MQIA_INHIBIT_GET, mq::MQIA_INHIBIT_PUT});
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->int_attrs, (std::vector<std::int32_t>{mq::MQQA_GET_INHIBITED, mq::MQQA_PUT_INHIBITED}));
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put1({"Q2", ""}, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT)),
            mq::MQRC_PUT_INHIBITED);
  const mqi::hobj in_h = this->open("Q2", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(this->rc(this->c().get(in_h, this->no_wait())), mq::MQRC_GET_INHIBITED);
  // A selector given twice: the last value counts.
  ASSERT_TRUE(this->c()
                  .set(h, {mq::MQIA_INHIBIT_PUT, mq::MQIA_INHIBIT_PUT, mq::MQIA_INHIBIT_GET}, {1, 0, 0}, {})
                  .ok());
  this->put("Q2", "allowed again");
  EXPECT_TRUE(this->c().get(in_h, this->no_wait()).ok());
}

TYPED_TEST(mqi_conformance, mqset_of_the_trigger_attributes) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_SET | mq::MQOO_INQUIRE);
  auto set = this->c().set(h,
                           {mq::MQIA_TRIGGER_CONTROL, mq::MQIA_TRIGGER_TYPE, mq::MQIA_TRIGGER_DEPTH,
                            mq::MQIA_TRIGGER_MSG_PRIORITY, mq::MQCA_TRIGGER_DATA},
                           {mq::MQTC_ON, mq::MQTT_DEPTH, 5, 3}, {"it's data"});
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  auto in = this->c().inquire(h, {mq::MQIA_TRIGGER_CONTROL, mq::MQIA_TRIGGER_TYPE, mq::MQIA_TRIGGER_DEPTH,
                                  mq::MQIA_TRIGGER_MSG_PRIORITY, mq::MQCA_TRIGGER_DATA});
  ASSERT_TRUE(in.ok()) << in.error().to_string();
  EXPECT_EQ(in->int_attrs, (std::vector<std::int32_t>{mq::MQTC_ON, mq::MQTT_DEPTH, 5, 3}));
  EXPECT_EQ(in->char_attrs, std::vector<std::string>{blank_padded("it's data", 64)});
}

TYPED_TEST(mqi_conformance, mqset_reasons_and_nothing_set_when_it_fails) {
  const mqi::hobj inq = this->open("Q1", mq::MQOO_INQUIRE);
  EXPECT_EQ(this->rc(this->c().set(inq, {mq::MQIA_INHIBIT_GET}, {1}, {})), mq::MQRC_NOT_OPEN_FOR_SET);
  const mqi::hobj h = this->open("Q1", mq::MQOO_SET);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_INHIBIT_PUT, mq::MQIA_INHIBIT_GET}, {1, 7}, {})),
            mq::MQRC_INHIBIT_VALUE_ERROR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_MAX_Q_DEPTH}, {10}, {})), mq::MQRC_SELECTOR_ERROR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_INHIBIT_GET}, {}, {})), mq::MQRC_INT_ATTR_COUNT_ERROR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQCA_TRIGGER_DATA}, {}, {std::string(65, 'x')})),
            mq::MQRC_CHAR_ATTR_LENGTH_ERROR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_TRIGGER_TYPE}, {4}, {})), mq::MQRC_TRIGGER_TYPE_ERROR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_TRIGGER_DEPTH}, {0}, {})), mq::MQRC_TRIGGER_DEPTH_ERROR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_TRIGGER_MSG_PRIORITY}, {10}, {})),
            mq::MQRC_TRIGGER_MSG_PRIORITY_ERR);
  EXPECT_EQ(this->rc(this->c().set(h, {mq::MQIA_TRIGGER_CONTROL}, {2}, {})), mq::MQRC_TRIGGER_CONTROL_ERROR);
  const mqi::hobj alias = this->open("ALIAS.Q1", mq::MQOO_SET);
  EXPECT_EQ(this->rc(this->c().set(alias, {mq::MQIA_TRIGGER_CONTROL}, {1}, {})),
            mq::MQRC_SELECTOR_NOT_FOR_TYPE);
  // The first failure above set nothing: PUT is still allowed.
  this->put("Q1", "still allowed");
  EXPECT_EQ(this->depth("Q1"), 1);
}

TYPED_TEST(mqi_conformance, mqset_on_an_alias_inhibits_the_alias_only) {
  const mqi::hobj alias = this->open("ALIAS.Q1", mq::MQOO_SET);
  ASSERT_TRUE(this->c().set(alias, {mq::MQIA_INHIBIT_PUT}, {1}, {}).ok());
  mq::mqmd md;
  EXPECT_EQ(this->rc(this->c().put1({"ALIAS.Q1", ""}, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT)),
            mq::MQRC_PUT_INHIBITED);
  this->put("Q1", "through the queue itself");
  EXPECT_EQ(this->depth("Q1"), 1);
}

}  // namespace
}  // namespace imsb::conformance
