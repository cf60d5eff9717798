// The MQI contract's checklist (connection.hpp), one typed test each, run on every backend: in-process,
// bindings socket, TCP client. A test names the MQI rule it checks; reasons are IBM's (cmqc.h [C]).
// Exception reports are not here: no MQI call of the queue manager makes one (the bridge and, later, the
// channels' MCAs do, each tested where it is).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "conformance_env.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mqi/admin.hpp"

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
  const auto before = this->env_.statistics().get_waits;
  EXPECT_EQ(this->rc(this->c().get(h, g)), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(this->env_.statistics().get_waits.timeout, before.timeout + 1);
  EXPECT_EQ(this->env_.statistics().get_waits.message, before.message);
}

TYPED_TEST(mqi_conformance, a_waiting_get_is_woken_by_a_put_from_another_connection) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto& putter = this->another();
  std::thread later([&] {
    std::this_thread::sleep_for(100ms);
    this->put("Q1", "wake up", mq::MQPMO_NO_SYNCPOINT, {}, &putter);
  });
  const auto before = this->env_.statistics().get_waits;
  mqi::get_request g = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
  g.wait_interval_ms = 60000;  // far beyond the test's time: only the message can end this wait
  auto m = this->c().get(h, g);
  later.join();
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "wake up");
  // The queue manager's hook says why the get stopped waiting: the message, not its wait interval.
  const auto after = this->env_.statistics().get_waits;
  EXPECT_EQ(after.message, before.message + 1);
  EXPECT_EQ(after.timeout, before.timeout);
  EXPECT_EQ(after.stopped, before.stopped);
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

// ---- MQGMO_SET_SIGNAL (connection.hpp get_request::signal) -----------------------------------------

// A get that sets a signal rather than waits: IBM MQ for z/OS's way to wait for a queue and something
// else at once [C] IBM MQ, "Signaling". The socket backends refuse it, as IBM MQ does outside z/OS.
TYPED_TEST(mqi_conformance, set_signal_is_posted_once_by_a_message_on_its_own_queue) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  std::atomic<int> posted{0};
  std::atomic<std::int32_t> code{0};
  auto g = this->no_wait(mq::MQGMO_BROWSE_FIRST | mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_SET_SIGNAL);
  g.wait_interval_ms = mq::MQWI_UNLIMITED;
  g.signal = [&](std::int32_t c) {
    code = c;
    ++posted;
  };
  auto set = this->c().get(h, g);
  if constexpr (!std::is_same_v<TypeParam, in_process>) {
    EXPECT_EQ(this->rc(set), mq::MQRC_OPTIONS_ERROR);
    return;
  }
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  EXPECT_EQ(set.completion_code(), mq::MQCC_WARNING);
  EXPECT_EQ(set.reason(), mq::MQRC_SIGNAL_REQUEST_ACCEPTED);
  EXPECT_EQ(set->data_length, 0U);
  // One signal per handle, and no wait beside it.
  EXPECT_EQ(this->rc(this->c().get(h, g)), mq::MQRC_SIGNAL_OUTSTANDING);
  auto wait = this->no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
  wait.wait_interval_ms = 10;
  EXPECT_EQ(this->rc(this->c().get(h, wait)), mq::MQRC_SIGNAL_OUTSTANDING);
  // A message on another queue does not post it; one on its own queue does, once.
  this->put("Q2", "other");
  EXPECT_EQ(posted.load(), 0);
  this->put("Q1", "first", mq::MQPMO_NO_SYNCPOINT, {}, &this->another());
  EXPECT_EQ(posted.load(), 1);
  EXPECT_EQ(code.load(), mq::MQEC_MSG_ARRIVED);
  this->put("Q1", "second");
  EXPECT_EQ(posted.load(), 1);
  // The message is not reserved: another MQGET gets it; with a message there, SET_SIGNAL returns it.
  auto got = this->c().get(h, g);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(got.reason(), mq::MQRC_NONE);
  EXPECT_EQ(text_of(got->data), "first");
  EXPECT_EQ(posted.load(), 1);
}

TYPED_TEST(mqi_conformance, set_signal_refuses_what_it_cannot_do_and_mqclose_withdraws_it) {
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  std::atomic<int> posted{0};
  auto g = this->no_wait(mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_SET_SIGNAL);
  g.wait_interval_ms = mq::MQWI_UNLIMITED;
  g.signal = [&](std::int32_t) { ++posted; };
  if constexpr (!std::is_same_v<TypeParam, in_process>) {
    EXPECT_EQ(this->rc(this->c().get(h, g)), mq::MQRC_OPTIONS_ERROR);  // before any other check
    return;
  }
  auto with_wait = g;
  with_wait.options |= mq::MQGMO_WAIT;
  EXPECT_EQ(this->rc(this->c().get(h, with_wait)), mq::MQRC_OPTIONS_ERROR);
  auto without = g;
  without.signal = nullptr;
  EXPECT_EQ(this->rc(this->c().get(h, without)), mq::MQRC_SIGNAL1_ERROR);
  auto finite = g;
  finite.wait_interval_ms = 1000;
  EXPECT_EQ(this->rc(this->c().get(h, finite)), mq::MQRC_WAIT_INTERVAL_ERROR);
  ASSERT_EQ(this->rc(this->c().get(h, g)), mq::MQRC_SIGNAL_REQUEST_ACCEPTED);
  ASSERT_TRUE(this->c().close(h).ok());
  this->put("Q1", "after the close");
  EXPECT_EQ(posted.load(), 0) << "a closed handle's signal was posted";
  // A stopped connection cancels the signal of each of its handles.
  const mqi::hobj h2 = this->open("Q1", mq::MQOO_BROWSE);
  std::atomic<std::int32_t> code{0};
  auto b = this->no_wait(mq::MQGMO_BROWSE_NEXT | mq::MQGMO_SET_SIGNAL);
  b.wait_interval_ms = mq::MQWI_UNLIMITED;
  b.signal = [&](std::int32_t c) { code = c; };
  auto cursor_end = this->c().get(h2, b);  // the message put above, then nothing: a signal
  ASSERT_TRUE(cursor_end.ok());
  ASSERT_EQ(this->rc(this->c().get(h2, b)), mq::MQRC_SIGNAL_REQUEST_ACCEPTED);
  this->c().stop();
  EXPECT_EQ(code.load(), mq::MQEC_WAIT_CANCELED);
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

// ---- asynchronous consume: MQCB and MQCTL ------------------------------------------------------------

// What the callbacks saw, for a test thread to wait on.
struct recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<mqi::callback_context> calls;
  std::vector<std::string> texts;
  std::vector<std::thread::id> threads;
  std::function<void(mqi::connection&, const mqi::message*, const mqi::callback_context&)> also;

  mqi::callback_descriptor consumer(std::int32_t options = mq::MQCBDO_NONE) {
    mqi::callback_descriptor d;
    d.options = options;
    d.function = [this](mqi::connection& conn, const mqi::message* m, const mqi::callback_context& ctx) {
      if (also) also(conn, m, ctx);
      const std::lock_guard<std::mutex> lock(mu);
      calls.push_back(ctx);
      threads.push_back(std::this_thread::get_id());
      if (m != nullptr) texts.push_back(text_of(m->data));
      cv.notify_all();
    };
    return d;
  }
  mqi::callback_descriptor event_handler() {
    mqi::callback_descriptor d = consumer();
    d.callback_type = mq::MQCBT_EVENT_HANDLER;
    return d;
  }
  // Waits (10 s at most) until `done` holds; false if it never did.
  bool wait_until(const std::function<bool()>& done) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, 10s, done);
  }
  std::size_t count(std::int32_t call_type) {
    const std::lock_guard<std::mutex> lock(mu);
    std::size_t n = 0;
    for (const auto& c : calls) n += c.call_type == call_type ? 1 : 0;
    return n;
  }
  std::size_t messages() {
    const std::lock_guard<std::mutex> lock(mu);
    return texts.size();
  }
};

TYPED_TEST(mqi_conformance, mqcb_consumer_gets_every_message_in_order_once_started) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto& putter = this->another();
  for (const char* t : {"one", "two", "three"}) this->put("Q1", t, mq::MQPMO_NO_SYNCPOINT, {}, &putter);
  ASSERT_TRUE(this->c().callback(mq::MQOP_REGISTER, r.consumer(), h, this->no_wait()).ok());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(r.messages(), 0u) << "nothing is delivered before MQCTL START";
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  ASSERT_TRUE(r.wait_until([&] { return r.texts.size() == 3; }));
  // Messages put while the dispatcher waits wake it (no timer: the wait has none).
  for (const char* t : {"four", "five"}) this->put("Q1", t, mq::MQPMO_NO_SYNCPOINT, {}, &putter);
  ASSERT_TRUE(r.wait_until([&] { return r.texts.size() == 5; }));
  ASSERT_TRUE(this->c().control(mq::MQOP_STOP).ok());
  EXPECT_EQ(r.texts, (std::vector<std::string>{"one", "two", "three", "four", "five"}));
  for (const auto& c : r.calls) {
    EXPECT_EQ(c.call_type, mq::MQCBCT_MSG_REMOVED);
    EXPECT_EQ(c.handle, h);
    EXPECT_EQ(c.comp_code, mq::MQCC_OK);
  }
  EXPECT_NE(r.threads.at(0), std::this_thread::get_id())
      << "MQOP_START runs callbacks on a thread of its own";
  EXPECT_EQ(this->depth("Q1"), 0);
}

TYPED_TEST(mqi_conformance, mqctl_stop_from_outside_returns_once_the_running_callback_returned) {
  recorder r;
  std::atomic<bool> in_callback{false}, callback_done{false};
  r.also = [&](mqi::connection&, const mqi::message* m, const mqi::callback_context&) {
    if (m == nullptr) return;
    in_callback = true;
    std::this_thread::sleep_for(300ms);
    callback_done = true;
  };
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(this->c()
                  .callback(mq::MQOP_REGISTER, r.consumer(mq::MQCBDO_START_CALL | mq::MQCBDO_STOP_CALL), h,
                            this->no_wait())
                  .ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  this->put("Q1", "slow", mq::MQPMO_NO_SYNCPOINT, {}, &this->another());
  for (int i = 0; i < 1000 && !in_callback; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(in_callback);
  ASSERT_TRUE(this->c().control(mq::MQOP_STOP).ok());
  EXPECT_TRUE(callback_done) << "MQCTL STOP returned while a callback was still running";
  EXPECT_EQ(r.count(mq::MQCBCT_START_CALL), 1u);
  EXPECT_EQ(r.count(mq::MQCBCT_STOP_CALL), 1u);
  // Stopped: the connection is the application's again, and a message put now stays.
  this->put("Q1", "after the stop");
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(r.messages(), 1u);
  EXPECT_EQ(this->depth("Q1"), 1);
}

TYPED_TEST(mqi_conformance, mqctl_suspend_holds_messages_and_resume_delivers_them) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(this->c().callback(mq::MQOP_REGISTER, r.consumer(), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_SUSPEND).ok());
  auto& putter = this->another();
  this->put("Q1", "held", mq::MQPMO_NO_SYNCPOINT, {}, &putter);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(r.messages(), 0u);
  // Suspended, the connection may be used from this thread again.
  EXPECT_EQ(this->depth("Q1"), 1);
  ASSERT_TRUE(this->c().control(mq::MQOP_RESUME).ok());
  ASSERT_TRUE(r.wait_until([&] { return r.texts.size() == 1; }));
  // One consumer suspended by MQCB (from outside the callbacks: with the connection suspended): the
  // connection runs, that consumer gets nothing.
  ASSERT_TRUE(this->c().control(mq::MQOP_SUSPEND).ok());
  ASSERT_TRUE(this->c().callback(mq::MQOP_SUSPEND, r.consumer(), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_RESUME).ok());
  this->put("Q1", "for later", mq::MQPMO_NO_SYNCPOINT, {}, &putter);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(r.messages(), 1u);
  ASSERT_TRUE(this->c().control(mq::MQOP_SUSPEND).ok());
  ASSERT_TRUE(this->c().callback(mq::MQOP_RESUME, r.consumer(), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_RESUME).ok());
  ASSERT_TRUE(r.wait_until([&] { return r.texts.size() == 2; }));
  ASSERT_TRUE(this->c().control(mq::MQOP_STOP).ok());
  EXPECT_EQ(r.texts, (std::vector<std::string>{"held", "for later"}));
}

TYPED_TEST(mqi_conformance, while_started_other_threads_calls_are_2500_but_mqctl) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(this->c().callback(mq::MQOP_REGISTER, r.consumer(), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  mq::mqmd md;
  auto refused = this->c().put1({"Q2", ""}, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT);
  EXPECT_EQ(refused.reason(), mq::MQRC_HCONN_ASYNC_ACTIVE) << refused.detail();
  EXPECT_EQ(refused.completion_code(), mq::MQCC_FAILED);
  EXPECT_EQ(this->rc(this->c().commit()), mq::MQRC_HCONN_ASYNC_ACTIVE);
  EXPECT_EQ(this->rc(this->c().callback(mq::MQOP_DEREGISTER, r.consumer(), h, this->no_wait())),
            mq::MQRC_HCONN_ASYNC_ACTIVE);
  ASSERT_TRUE(this->c().control(mq::MQOP_SUSPEND).ok());
  EXPECT_TRUE(this->c().put1({"Q2", ""}, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_RESUME).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_STOP).ok());
  EXPECT_TRUE(this->c().put1({"Q2", ""}, md, bytes_view::of("y"), mq::MQPMO_NO_SYNCPOINT).ok());
  EXPECT_EQ(this->depth("Q2"), 2);
}

TYPED_TEST(mqi_conformance, a_callback_uses_its_connection_and_stops_start_wait) {
  // A request/reply server: each request got under syncpoint, its reply put, both committed, from
  // inside the callback; the third request stops the consumption, and MQCTL START_WAIT returns.
  recorder r;
  std::atomic<int> replies{0};
  std::atomic<std::int32_t> failed{0};
  r.also = [&](mqi::connection& conn, const mqi::message* m, const mqi::callback_context&) {
    if (m == nullptr) return;
    mq::mqmd md;
    auto put = conn.put1({"REPLY", ""}, md, bytes_view::of("re: " + text_of(m->data)), mq::MQPMO_SYNCPOINT);
    auto cmit = conn.commit();
    if (!put.ok() || !cmit.ok()) failed = put.ok() ? cmit.reason() : put.reason();
    if (++replies == 3) (void)conn.control(mq::MQOP_STOP);
  };
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  for (const char* t : {"a", "b", "c", "d"}) this->put("Q1", t);
  ASSERT_TRUE(
      this->c().callback(mq::MQOP_REGISTER, r.consumer(), h, this->no_wait(mq::MQGMO_SYNCPOINT)).ok());
  auto waited = this->c().control(mq::MQOP_START_WAIT);
  ASSERT_TRUE(waited.ok()) << waited.error().to_string();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(replies.load(), 3);
  EXPECT_EQ(r.threads.at(0), std::this_thread::get_id()) << "MQOP_START_WAIT runs callbacks on its caller";
  EXPECT_EQ(this->depth("REPLY"), 3);
  EXPECT_EQ(this->depth("Q1"), 1);
}

TYPED_TEST(mqi_conformance, mqctl_reasons_of_the_consumption_state) {
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_START_WAIT)), mq::MQRC_NO_CALLBACKS_ACTIVE);
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_RESUME)), mq::MQRC_OPERATION_NOT_ALLOWED);
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_SUSPEND)), mq::MQRC_OPERATION_NOT_ALLOWED);
  EXPECT_EQ(this->rc(this->c().control(0x40)), mq::MQRC_OPERATION_ERROR);
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(
      this->c().callback(mq::MQOP_REGISTER | mq::MQOP_SUSPEND, r.consumer(), h, this->no_wait()).ok());
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_START_WAIT)), mq::MQRC_NO_CALLBACKS_ACTIVE)
      << "a registered consumer that is suspended is not active";
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_START_WAIT)), mq::MQRC_OPERATION_NOT_ALLOWED);
  ASSERT_TRUE(this->c().control(mq::MQOP_SUSPEND).ok());
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_START)), mq::MQRC_OPERATION_NOT_ALLOWED);
  ASSERT_TRUE(this->c().control(mq::MQOP_STOP).ok());
  EXPECT_TRUE(this->c().control(mq::MQOP_STOP).ok()) << "a second STOP changes nothing";
}

TYPED_TEST(mqi_conformance, mqcb_reasons) {
  recorder r;
  const mqi::hobj in = this->open("Q1", mq::MQOO_INPUT_SHARED);
  const mqi::hobj out = this->open("Q2", mq::MQOO_OUTPUT);
  auto& c = this->c();
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_DEREGISTER, r.consumer(), in, this->no_wait())),
            mq::MQRC_CALLBACK_NOT_REGISTERED);
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_RESUME, r.consumer(), in, this->no_wait())),
            mq::MQRC_CALLBACK_NOT_REGISTERED);
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_START, r.consumer(), in, this->no_wait())),
            mq::MQRC_OPERATION_ERROR);
  auto bad_type = r.consumer();
  bad_type.callback_type = 3;
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_REGISTER, bad_type, in, this->no_wait())),
            mq::MQRC_CALLBACK_TYPE_ERROR);
  auto bad_options = r.consumer(0x00000002);
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_REGISTER, bad_options, in, this->no_wait())),
            mq::MQRC_CBD_OPTIONS_ERROR);
  mqi::callback_descriptor no_function;
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_REGISTER, no_function, in, this->no_wait())),
            mq::MQRC_CALLBACK_ROUTINE_ERROR);
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_REGISTER, r.consumer(), out, this->no_wait())),
            mq::MQRC_NOT_OPEN_FOR_INPUT);
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_REGISTER, r.consumer(), in, this->no_wait(mq::MQGMO_BROWSE_FIRST))),
            mq::MQRC_NOT_OPEN_FOR_BROWSE);
  EXPECT_EQ(this->rc(c.callback(mq::MQOP_REGISTER, r.consumer(), 9999, this->no_wait())),
            mq::MQRC_HOBJ_ERROR);
  EXPECT_TRUE(r.calls.empty());
}

TYPED_TEST(mqi_conformance, register_and_deregister_calls_and_mqclose_deregisters) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  const auto options = mq::MQCBDO_REGISTER_CALL | mq::MQCBDO_DEREGISTER_CALL;
  ASSERT_TRUE(this->c().callback(mq::MQOP_REGISTER, r.consumer(options), h, this->no_wait()).ok());
  ASSERT_EQ(r.count(mq::MQCBCT_REGISTER_CALL), 1u);
  EXPECT_EQ(r.calls.at(0).handle, h);
  ASSERT_TRUE(this->c().close(h).ok());
  ASSERT_EQ(r.count(mq::MQCBCT_DEREGISTER_CALL), 1u);
  EXPECT_EQ(r.calls.at(1).handle, mq::MQHO_UNUSABLE_HOBJ);
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_START_WAIT)), mq::MQRC_NO_CALLBACKS_ACTIVE);
}

TYPED_TEST(mqi_conformance, a_stop_of_the_connection_ends_consumption_with_an_event) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(
      this->c().callback(mq::MQOP_REGISTER, r.consumer(mq::MQCBDO_STOP_CALL), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().callback(mq::MQOP_REGISTER, r.event_handler(), 0, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  std::this_thread::sleep_for(50ms);  // the dispatcher waits, with no timer
  this->c().stop();
  ASSERT_TRUE(r.wait_until([&] {
    for (const auto& c : r.calls)
      if (c.call_type == mq::MQCBCT_EVENT_CALL && c.handle == mq::MQHO_NONE) return true;
    return false;
  }));
  ASSERT_TRUE(r.wait_until([&] {
    for (const auto& c : r.calls)
      if (c.call_type == mq::MQCBCT_STOP_CALL) return true;
    return false;
  }));
  for (const auto& c : r.calls) {
    if (c.call_type != mq::MQCBCT_EVENT_CALL) continue;
    EXPECT_EQ(c.reason, mq::MQRC_CONNECTION_STOPPING);
    EXPECT_EQ(c.comp_code, mq::MQCC_FAILED);
  }
  EXPECT_EQ(this->rc(this->c().control(mq::MQOP_STOP)), mq::MQRC_CONNECTION_STOPPING);
  EXPECT_TRUE(this->c().disconnect().ok());
}

TYPED_TEST(mqi_conformance, mqdisc_from_another_thread_stops_consumption_and_deregisters) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(
      this->c().callback(mq::MQOP_REGISTER, r.consumer(mq::MQCBDO_DEREGISTER_CALL), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  this->put("Q1", "before", mq::MQPMO_NO_SYNCPOINT, {}, &this->another());
  ASSERT_TRUE(r.wait_until([&] { return r.texts.size() == 1; }));
  auto disc = this->c().disconnect();
  ASSERT_TRUE(disc.ok()) << disc.error().to_string();
  EXPECT_EQ(r.count(mq::MQCBCT_DEREGISTER_CALL), 1u);
  const std::size_t calls = r.calls.size();
  this->put("Q1", "after", mq::MQPMO_NO_SYNCPOINT, {}, &this->another());
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(r.calls.size(), calls) << "no callback after MQDISC returned";
  auto& other = this->another();
  const mqi::hobj q1 = this->open("Q1", mq::MQOO_INQUIRE, &other);
  auto left = other.inquire(q1, {mq::MQIA_CURRENT_Q_DEPTH});
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->int_attrs.at(0), 1);
}

TYPED_TEST(mqi_conformance, a_consumer_told_of_its_own_error_is_suspended_until_resumed) {
  recorder r;
  const mqi::hobj h = this->open("Q1", mq::MQOO_INPUT_SHARED);
  auto& admin = this->another();
  const mqi::hobj set = this->open("Q1", mq::MQOO_SET, &admin);
  ASSERT_TRUE(this->c().callback(mq::MQOP_REGISTER, r.consumer(), h, this->no_wait()).ok());
  ASSERT_TRUE(admin.set(set, {mq::MQIA_INHIBIT_GET}, {mq::MQQA_GET_INHIBITED}, {}).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_START).ok());
  ASSERT_TRUE(r.wait_until([&] { return !r.calls.empty(); }));
  EXPECT_EQ(r.calls.at(0).call_type, mq::MQCBCT_EVENT_CALL);
  EXPECT_EQ(r.calls.at(0).reason, mq::MQRC_GET_INHIBITED);
  EXPECT_EQ(r.calls.at(0).state, mq::MQCS_SUSPENDED_USER_ACTION);
  ASSERT_TRUE(admin.set(set, {mq::MQIA_INHIBIT_GET}, {mq::MQQA_GET_ALLOWED}, {}).ok());
  this->put("Q1", "allowed again", mq::MQPMO_NO_SYNCPOINT, {}, &admin);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(r.messages(), 0u) << "suspended until the application resumes it";
  ASSERT_TRUE(this->c().control(mq::MQOP_SUSPEND).ok());
  ASSERT_TRUE(this->c().callback(mq::MQOP_RESUME, r.consumer(), h, this->no_wait()).ok());
  ASSERT_TRUE(this->c().control(mq::MQOP_RESUME).ok());
  ASSERT_TRUE(r.wait_until([&] { return r.texts.size() == 1; }));
  ASSERT_TRUE(this->c().control(mq::MQOP_STOP).ok());
}

// ---- MQBEGIN ----------------------------------------------------------------------------------------

TYPED_TEST(mqi_conformance, mqbegin_without_other_participants) {
  auto b = this->c().begin();
  if (std::is_same_v<TypeParam, tcp_client>) {
    // An MQ client cannot coordinate a unit of work with other resource managers.
    EXPECT_EQ(b.reason(), mq::MQRC_ENVIRONMENT_ERROR);
    EXPECT_EQ(b.completion_code(), mq::MQCC_FAILED);
    return;
  }
  EXPECT_EQ(b.completion_code(), mq::MQCC_WARNING);
  EXPECT_EQ(b.reason(), mq::MQRC_NO_EXTERNAL_PARTICIPANTS);
  this->put("Q1", "in the unit of work", mq::MQPMO_SYNCPOINT);
  EXPECT_EQ(this->rc(this->c().begin()), mq::MQRC_UOW_IN_PROGRESS);
  ASSERT_TRUE(this->c().backout().ok());
  EXPECT_EQ(this->depth("Q1"), 0);
}

TYPED_TEST(mqi_conformance, mqstat_reports_no_asynchronous_put_and_reconnection_for_clients_only) {
  auto async = this->c().stat(mq::MQSTAT_TYPE_ASYNC_ERROR);
  ASSERT_TRUE(async.ok()) << async.error().to_string();
  EXPECT_EQ(async.completion_code(), mq::MQCC_OK);
  EXPECT_EQ(async->reason, mq::MQRC_NONE);
  EXPECT_EQ(async->put_success_count + async->put_warning_count + async->put_failure_count, 0);
  auto reconnection = this->c().stat(mq::MQSTAT_TYPE_RECONNECTION);
  if (std::is_same_v<TypeParam, tcp_client>) {
    ASSERT_TRUE(reconnection.ok()) << reconnection.error().to_string();
    EXPECT_EQ(reconnection->comp_code, mq::MQCC_OK);  // connected, not reconnecting
    EXPECT_EQ(reconnection->reason, mq::MQRC_NONE);
  } else {
    EXPECT_EQ(reconnection.reason(), mq::MQRC_ENVIRONMENT_ERROR);
  }
  EXPECT_EQ(this->c().stat(7).reason(), mq::MQRC_STAT_TYPE_ERROR);
}

// ---- administration apart (admin.hpp) -----------------------------------------------------------------

TYPED_TEST(mqi_conformance, administration_inquires_storage_classes_and_queues_by_pcf_parameter) {
  auto owner = this->env_.in_process();
  ASSERT_TRUE(owner.ok()) << owner.error().to_string();
  auto defined = mqi::administration_over(**owner)->mqsc(
      "DEFINE STGCLASS(IMSSC) XCFGNAME(XCFGRP1) XCFMNAME(IMSA) PASSTKTA(APPL1)\n"
      "DEFINE QLOCAL(BRIDGE.Q) STGCLASS(IMSSC) GET(DISABLED)\n");
  ASSERT_TRUE(defined.ok()) << defined.error().to_string();
  ASSERT_EQ(defined->exit_code, 0) << [&] {
    std::string all;
    for (const auto& l : defined->lines) all += l + "\n";
    return all;
  }();
  (void)(*owner)->disconnect();

  auto admin = mqi::administration_over(this->c());
  auto bridge_queues = admin->inquire_queues("BRIDGE.*", mq::MQQT_LOCAL);
  ASSERT_TRUE(bridge_queues.ok()) << bridge_queues.error().to_string();
  ASSERT_EQ(bridge_queues->size(), 1u);
  EXPECT_EQ(bridge_queues->at(0).name, "BRIDGE.Q");
  EXPECT_EQ(bridge_queues->at(0).type, mq::MQQT_LOCAL);
  EXPECT_EQ(bridge_queues->at(0).storage_class, "IMSSC");
  EXPECT_EQ(bridge_queues->at(0).inhibit_get, mq::MQQA_GET_INHIBITED);
  EXPECT_EQ(bridge_queues->at(0).inhibit_put, mq::MQQA_PUT_ALLOWED);
  auto all = admin->inquire_queues("*", mq::MQQT_ALL);
  ASSERT_TRUE(all.ok()) << all.error().to_string();
  std::map<std::string, std::int32_t> types;
  for (const auto& q : *all) types[q.name] = q.type;
  EXPECT_EQ(types["ALIAS.Q1"], mq::MQQT_ALIAS);
  EXPECT_EQ(types["REMOTE.Q"], mq::MQQT_REMOTE);
  EXPECT_EQ(types["MODEL.Q"], mq::MQQT_MODEL);
  EXPECT_EQ(types["Q1"], mq::MQQT_LOCAL);
  auto bad = admin->inquire_queues("*", 99);
  EXPECT_EQ(bad.reason(), mq::MQRC_Q_TYPE_ERROR);
  auto classes = admin->inquire_storage_classes("IMS*");
  ASSERT_TRUE(classes.ok()) << classes.error().to_string();
  if (std::is_same_v<TypeParam, tcp_client>) {
    // An object is listed with INQ authority on it, and AUTHREC grants none on a storage class (a z/OS
    // object, which IBM's distributed AUTHREC does not know): the TCP user, who administers nothing,
    // sees none.
    EXPECT_TRUE(classes->empty());
    return;
  }
  ASSERT_EQ(classes->size(), 1u);
  EXPECT_EQ(classes->at(0).name, "IMSSC");
  EXPECT_EQ(classes->at(0).xcf_group_name, "XCFGRP1");
  EXPECT_EQ(classes->at(0).xcf_member_name, "IMSA");
  EXPECT_EQ(classes->at(0).pass_ticket_appl, "APPL1");
}

}  // namespace
}  // namespace imsb::conformance
