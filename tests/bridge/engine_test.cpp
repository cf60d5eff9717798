// The bridge engine (bridge/src/engine.cpp) end to end inside one test program: a real queue manager
// ("local:QM1" on a temporary prefix), the IMS emulator (imsemu::program) and the bridge, both joined to
// one in-memory XCF (transport::memory_sysplex, pumped by a thread). Each test puts requests on the bridge
// queue as an application would and checks the replies, the dead-letter queue and the state records
// (docs/design/commit-modes.md: one CM0 transaction end to end, CM1, IMS commands; docs/design/errors.md:
// the three outcomes).

#include "imsb/bridge/engine.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "faulting_connection.hpp"
#include "imsb/bridge/state_store.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsemu/program.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/pcf.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/store.hpp"
#include "imsb/transport/memory_xcf.hpp"
#include "process.hpp"

namespace imsb::bridge {
namespace {

using namespace std::chrono_literals;

constexpr std::int32_t native = 546;  // the queue manager's encoding (x86-64)
constexpr std::int32_t ascii = 819;

// One memory_sysplex for the bridge and the emulator; the engine owns its service, so it gets a view.
class plex_view final : public xcf::service {
 public:
  explicit plex_view(transport::memory_sysplex& p) : p_(p) {}
  xcf::join_result join(const xcf::join_request& r, xcf::member_handler& h) override { return p_.join(r, h); }

 private:
  transport::memory_sysplex& p_;
};

// LL ZZ text, integers in the queue manager's (reversed) encoding.
bytes segment(const std::string& text, std::int32_t ll_delta = 0) {
  const auto ll = static_cast<std::uint16_t>(static_cast<std::int32_t>(text.size()) + 4 + ll_delta);
  bytes b{static_cast<std::uint8_t>(ll & 0xFF), static_cast<std::uint8_t>(ll >> 8), 0, 0};
  b.insert(b.end(), text.begin(), text.end());
  return b;
}

std::string text_of(const bytes& b) { return std::string(b.begin(), b.end()); }

struct request {
  std::vector<std::string> segments;
  bool iih = true;
  char commit_mode = '0';
  bool persistent = true;
  std::int32_t ll_delta = 0;  // a wrong LL in the first segment
  std::int32_t report = mq::MQRO_NONE;
  std::string reply_to_q = "APP.REPLY";
  std::string queue = "IMS.BRIDGE.Q";
  char tran_state = ' ';
  std::array<std::uint8_t, 16> tran_instance_id{};
  std::string authenticator{};  // MQIIH.Authenticator (blank when empty)
};

bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds limit = 10s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return cond();
}

class engine_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir(tmp_.file("run").c_str(), 0700);
    if (const char* old = std::getenv("IMSBRIDGE_RUNTIME_DIR")) old_runtime_dir_ = old;
    ::setenv("IMSBRIDGE_RUNTIME_DIR", tmp_.file("run").c_str(), 1);
    objects::exec_context ctx{"2026-11-30", "01.00.00", false};
    auto cat = objects::new_queue_manager("QM1", names::fs_profile::posix, "DLQ", "", ctx);
    ASSERT_TRUE(cat.ok()) << cat.error().to_string();
    auto out = objects::run_script(*cat,
                                   "DEFINE STGCLASS(IMSSC) XCFGNAME(GRP1) XCFMNAME(IMS1)\n"
                                   "DEFINE QLOCAL(IMS.BRIDGE.Q) STGCLASS(IMSSC)\n"
                                   "DEFINE QLOCAL(APP.REPLY)\n",
                                   ctx);
    ASSERT_EQ(out.exit_code(), 0);
    auto st = qmgr::queue_manager_store::create(tmp_.file("prefix"), *cat);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    app_ = connect();
    ASSERT_TRUE(app_);

    pump_ = std::thread([this] {
      while (!stop_pump_) {
        if (!hold_pump_) plex_.run();
        std::this_thread::sleep_for(1ms);
      }
    });
    start_ims();
  }
  void TearDown() override {
    engine_.reset();
    if (ims_) ims_->stop("test over");
    ims_.reset();
    stop_pump_ = true;
    if (pump_.joinable()) pump_.join();
    app_.reset();
    if (old_runtime_dir_) {
      ::setenv("IMSBRIDGE_RUNTIME_DIR", old_runtime_dir_->c_str(), 1);
    } else {
      ::unsetenv("IMSBRIDGE_RUNTIME_DIR");
    }
  }

  std::unique_ptr<mqi::connection> connect() {
    qmgr::connect_options o;
    o.target = "local:QM1";
    o.prefix = tmp_.file("prefix");
    auto c = qmgr::connect(o);
    if (!c.ok()) throw std::runtime_error("connect local:QM1: " + c.error().to_string());
    return std::move(c).value();
  }

  void start_ims() {
    imsemu::program_options o;
    o.group = "GRP1";
    o.member = "IMS1";
    o.state_dir = tmp_.file("ims-state");
    o.tick_ms = 20;
    auto p = imsemu::program::open(o, [this](const std::string& l) { log("IMS: " + l); });
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    ims_ = std::move(p).value();
    ASSERT_TRUE(ims_->start(ims_view_, 5s).ok());  // the program keeps the service for its restarts
  }

  bridge_config config() const {
    bridge_config c;
    c.backoff_initial_ms = 50;
    c.backoff_max_ms = 500;
    c.ack_timeout_ms = 20000;
    c.rescan_ms = 200;
    c.cm1_window = 4;
    return c;
  }

  // `faults`: every connection the bridge makes is a faulting_connection of that plan.
  void start_engine(bridge_config c, security_checker* security = nullptr,
                    test::fault_plan* faults = nullptr) {
    engine_hooks h;
    h.security = security;
    h.connect = [this, faults]() -> result<std::unique_ptr<mqi::connection>> {
      qmgr::connect_options o;
      o.target = "local:QM1";
      o.prefix = tmp_.file("prefix");
      auto made = qmgr::connect(o);
      if (!made || faults == nullptr) return made;
      return std::unique_ptr<mqi::connection>(
          std::make_unique<test::faulting_connection>(std::move(made).value(), *faults));
    };
    h.make_xcf = [this] { return std::make_unique<plex_view>(plex_); };
    h.console = [this](const std::string& l) { log(l); };
    engine_ = std::make_unique<engine>(std::move(c), std::move(h));
    auto s = engine_->start();
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    ASSERT_TRUE(wait_for([&] {
      auto ps = engine_->partners();
      return !ps.empty() && ps.front().state == "ACTIVE";
    })) << console_text();
  }
  void start_engine() { start_engine(config()); }

  void log(const std::string& l) {
    std::lock_guard<std::mutex> lock(mu_);
    console_.push_back(l);
  }
  std::string console_text() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string s;
    for (const auto& l : console_) s += l + "\n";
    return s;
  }
  // Whether a line holds `part` now. The engine writes many lines after the commit a test can see (a
  // dead letter's IMB2008W follows its commit), so a line expected is waited for: wait_for(console_has).
  bool console_has(std::string_view part) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& l : console_)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }

  // Puts a request on the bridge queue; its MsgId.
  std::array<std::uint8_t, 24> put(const request& r) {
    bytes data;
    if (r.iih) {
      mq::mqiih iih;
      iih.commit_mode = r.commit_mode;
      iih.tran_state = r.tran_state;
      iih.tran_instance_id = r.tran_instance_id;
      if (!r.authenticator.empty()) iih.authenticator = r.authenticator;
      iih.format = std::string(mq::MQFMT_NONE);
      mq::encode_mqiih(iih, native, ascii, data);
    }
    for (std::size_t i = 0; i < r.segments.size(); ++i) {
      bytes s = segment(r.segments[i], i == 0 ? r.ll_delta : 0);
      data.insert(data.end(), s.begin(), s.end());
    }
    mq::mqmd md;
    md.msg_type = mq::MQMT_REQUEST;
    md.format = std::string(r.iih ? mq::MQFMT_IMS : mq::MQFMT_NONE);
    md.encoding = native;
    md.coded_char_set_id = ascii;
    md.persistence = r.persistent ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT;
    md.reply_to_q = r.reply_to_q;
    md.report = r.report;
    auto p = app_->put1({r.queue, ""}, md, data, mq::MQPMO_NO_SYNCPOINT);
    EXPECT_TRUE(p.ok()) << (p.ok() ? std::string() : p.error().to_string());
    return p.ok() ? p->md.msg_id : std::array<std::uint8_t, 24>{};
  }

  std::optional<mqi::message> get_from(const std::string& q, const std::array<std::uint8_t, 24>* correl,
                                       std::int32_t wait_ms = 10000) {
    auto o = app_->open({q, ""}, mq::MQOO_INPUT_SHARED);
    EXPECT_TRUE(o.ok());
    if (!o) return std::nullopt;
    mqi::get_request g;
    g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
    g.wait_interval_ms = wait_ms;
    g.match_options = correl ? mq::MQMO_MATCH_CORREL_ID : mq::MQMO_NONE;
    if (correl) g.correl_id = *correl;
    auto m = app_->get(o->handle, g);
    (void)app_->close(o->handle);
    if (!m) return std::nullopt;
    return std::move(m).value();
  }
  std::optional<mqi::message> reply_to(const std::array<std::uint8_t, 24>& msg_id,
                                       std::int32_t wait_ms = 10000) {
    return get_from("APP.REPLY", &msg_id, wait_ms);
  }
  std::int32_t depth(const std::string& q) {
    auto o = app_->open({q, ""}, mq::MQOO_INQUIRE);
    if (!o) return -1;
    auto s = mqi::inquire_queue(*app_, o->handle);
    (void)app_->close(o->handle);
    return s ? s->current_depth : -1;
  }
  std::optional<tpipe_status> tpipe(const std::string& name) {
    for (const auto& t : engine_->tpipes())
      if (t.name == name) return t;
    return std::nullopt;
  }
  std::vector<bridgemap::state_record> records() {
    auto c = connect();
    state_store s(*c);
    EXPECT_TRUE(s.open(false).ok());
    auto all = s.load_all();
    EXPECT_TRUE(all.ok());
    return all.ok() ? *all : std::vector<bridgemap::state_record>{};
  }
  static bool has_record(const std::vector<bridgemap::state_record>& v, bridgemap::record_kind k,
                         std::uint32_t number) {
    for (const auto& r : v)
      if (r.kind == k && r.number == number) return true;
    return false;
  }
  static std::size_t count_kind(const std::vector<bridgemap::state_record>& v, bridgemap::record_kind k) {
    std::size_t n = 0;
    for (const auto& r : v) n += r.kind == k ? 1 : 0;
    return n;
  }
  std::int32_t dlq_reason(const mqi::message& m) {
    auto d = mq::decode_mqdlh(m.data, m.md.encoding, m.md.coded_char_set_id);
    EXPECT_TRUE(d.ok());
    return d.ok() ? d->reason : -1;
  }

  test::temp_dir tmp_;
  std::optional<std::string> old_runtime_dir_;
  transport::memory_sysplex plex_;
  plex_view ims_view_{plex_};
  std::atomic<bool> stop_pump_{false};
  std::atomic<bool> hold_pump_{false};  // XCF traffic waits while set (a slow ACK)
  std::thread pump_;
  std::unique_ptr<imsemu::program> ims_;
  std::unique_ptr<mqi::connection> app_;
  std::unique_ptr<engine> engine_;
  std::mutex mu_;
  std::vector<std::string> console_;
};

TEST_F(engine_test, cm0_ivtno_reply_has_the_request_msgid_as_correlid_and_records_advance) {
  start_engine();
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  auto r = reply_to(id);
  ASSERT_TRUE(r) << console_text();
  EXPECT_EQ(r->md.msg_type, mq::MQMT_REPLY);
  EXPECT_EQ(r->md.correl_id, id);
  EXPECT_NE(r->md.msg_id, id);
  EXPECT_EQ(r->md.format, std::string(mq::MQFMT_IMS));
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }));
  // Step 5 and 6: send = 1 and receive = 1 on the synchronized Tpipe, nothing in flight.
  ASSERT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 1 && t->receive == 1 && !t->in_flight;
  })) << console_text();
  const auto recs = records();
  EXPECT_TRUE(has_record(recs, bridgemap::record_kind::send, 1));
  EXPECT_TRUE(has_record(recs, bridgemap::record_kind::receive, 1));
  EXPECT_EQ(count_kind(recs, bridgemap::record_kind::in_flight), 0u);
  EXPECT_EQ(count_kind(recs, bridgemap::record_kind::assignment), 1u);
  // A second one takes the next numbers.
  const auto id2 = put({{"IVTNO   DISPLAY LAST2"}});
  ASSERT_TRUE(reply_to(id2)) << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 2 && t->receive == 2;
  }));
}

TEST_F(engine_test, request_without_mqiih_gets_a_reply) {
  start_engine();
  request q;
  q.iih = false;
  q.segments = {"IVTNO   DISPLAY LAST1"};
  const auto id = put(q);
  auto r = reply_to(id);
  ASSERT_TRUE(r) << console_text();
  EXPECT_EQ(r->md.correl_id, id);
  EXPECT_NE(r->md.format, std::string(mq::MQFMT_IMS));  // no MQIIH: the MOD name or MQFMT_NONE
}

TEST_F(engine_test, cm1_replies_with_several_in_flight_and_markers_cleared) {
  start_engine();
  std::vector<std::array<std::uint8_t, 24>> ids;
  for (int i = 0; i < 6; ++i) {
    request q;
    q.commit_mode = '1';
    q.segments = {"IVTNO   DISPLAY LAST" + std::to_string(i)};
    ids.push_back(put(q));
  }
  for (const auto& id : ids) ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }));
  EXPECT_TRUE(wait_for([&] { return count_kind(records(), bridgemap::record_kind::cm1_marker) == 0; }));
  // CM1 never touches the synchronized Tpipe's numbers.
  auto t = tpipe("CSQ0001S");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->send, 0u);
}

TEST_F(engine_test, lterm_as_transaction_code_brings_dfs1288e_back) {
  start_engine();
  const auto id = put({{"IVTNOLT HELLO"}});
  auto r = reply_to(id);
  ASSERT_TRUE(r) << console_text();
  EXPECT_NE(text_of(r->data).find("DFS1288E"), std::string::npos) << text_of(r->data);
  // An error reply is put as the bridge (MQAT_IMS_BRIDGE [I: REPLY-MD]) by the queue manager's name.
  EXPECT_EQ(r->md.put_appl_type, mq::MQAT_IMS_BRIDGE);
  EXPECT_EQ(r->md.put_appl_name.substr(0, 4), "QM1 ");
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }));
  EXPECT_EQ(depth("DLQ"), 0);
}

TEST_F(engine_test, ims_command_returns_its_output_and_persistent_cm0_command_is_refused) {
  start_engine();
  request q;
  q.commit_mode = '1';
  q.segments = {"/DIS OTMA"};
  const auto id = put(q);
  auto r = reply_to(id);
  ASSERT_TRUE(r) << console_text();
  EXPECT_FALSE(text_of(r->data).empty());
  // [D] a persistent CM0 command: DLQ with MQFB 335 (NAK X'23').
  request bad;
  bad.segments = {"/DIS OTMA"};
  put(bad);
  auto d = get_from("DLQ", nullptr);
  ASSERT_TRUE(d) << console_text();
  EXPECT_EQ(dlq_reason(*d), 335);
}

TEST_F(engine_test, bad_ll_goes_to_the_dlq_with_its_feedback_and_the_queue_goes_on) {
  start_engine();
  request bad;
  bad.segments = {"IVTNO   DISPLAY LAST1"};
  bad.ll_delta = 7;  // LL beyond the data
  put(bad);
  auto d = get_from("DLQ", nullptr);
  ASSERT_TRUE(d) << console_text();
  const std::int32_t reason = dlq_reason(*d);
  EXPECT_GE(reason, mq::MQFB_DATA_LENGTH_ZERO);
  EXPECT_LE(reason, 295);
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2008W); }));
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  EXPECT_TRUE(reply_to(id)) << console_text();
}

TEST_F(engine_test, nak_application_error_dead_letters_with_300_plus_sense) {
  start_engine();
  ims_->operator_command("FAULT NAK 0001");
  put({{"IVTNO   DISPLAY LAST1"}});
  auto d = get_from("DLQ", nullptr);
  ASSERT_TRUE(d) << console_text();
  EXPECT_EQ(dlq_reason(*d), 301);
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2001I); }));
  // The NAK used no number and cleared the in-flight record.
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && !t->in_flight && t->send == 0;
  }));
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  EXPECT_TRUE(reply_to(id)) << console_text();
}

TEST_F(engine_test, restart_with_an_in_flight_record_is_settled_by_resync_with_exactly_one_reply) {
  start_engine();
  ims_->operator_command("FAULT WITHHOLD ACK 1");
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  // The in-flight record is committed before the send; IMS logs the input but owes its ACK.
  ASSERT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->in_flight && *t->in_flight == 1;
  })) << console_text();
  EXPECT_TRUE(has_record(records(), bridgemap::record_kind::in_flight, 1));
  engine_->quiesce(0);
  engine_.reset();
  EXPECT_EQ(depth("IMS.BRIDGE.Q"), 1);  // browsed, never got: the request is still there
  start_engine();
  // Resync: IMS has it (its receive number = the in-flight number): step 5 finished, no resend.
  ASSERT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; })) << console_text();
  ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_FALSE(reply_to(id, 1000)) << "a second reply";
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 1 && !t->in_flight;
  })) << console_text();
  EXPECT_EQ(count_kind(records(), bridgemap::record_kind::in_flight), 0u);
}

// ---- the worker's error ladder, through a faulting connection (docs/design/commit-modes.md, CM0 step 7) -

bool is_record_of(const std::string& queue, bytes_view data, bridgemap::record_kind k) {
  if (queue != "SYSTEM.IMS.BRIDGE.STATE") return false;
  auto r = bridgemap::decode_record(data);
  return r && r->kind == k;
}
// A commit whose unit of work wrote the in-flight record (step 4).
bool commits_in_flight(const test::call_info& c) {
  if (c.call != test::mqi_call::commit || c.uow_puts == nullptr) return false;
  for (const auto& [q, d] : *c.uow_puts)
    if (is_record_of(q, d, bridgemap::record_kind::in_flight)) return true;
  return false;
}
// A commit whose unit of work put a reply to `queue` (step 6).
bool commits_a_put_to(const test::call_info& c, const std::string& queue) {
  if (c.call != test::mqi_call::commit || c.uow_puts == nullptr) return false;
  for (const auto& [q, d] : *c.uow_puts)
    if (q == queue) return true;
  return false;
}

class engine_fault_test : public engine_test {
 protected:
  // One request through the bridge with `faults` armed: exactly one reply, the request gone, nothing in
  // flight, the numbers at 1/1 — nothing lost, nothing run twice.
  void expect_exactly_one_reply() {
    const auto id = put({{"IVTNO   DISPLAY LAST1"}});
    auto r = reply_to(id, 20000);
    ASSERT_TRUE(r) << console_text();
    EXPECT_EQ(r->md.correl_id, id);
    EXPECT_FALSE(reply_to(id, 500)) << "a second reply\n" << console_text();
    EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; })) << console_text();
    EXPECT_TRUE(wait_for([&] {
      auto t = tpipe("CSQ0001S");
      return t && t->send == 1 && t->receive == 1 && !t->in_flight;
    })) << console_text();
    EXPECT_EQ(count_kind(records(), bridgemap::record_kind::in_flight), 0u);
    EXPECT_EQ(faults_.fired(), 1) << console_text();
  }
  test::fault_plan faults_;
};

TEST_F(engine_fault_test, commit_of_the_in_flight_record_with_its_outcome_unknown_is_resent_once) {
  // The in-flight record is committed, but its answer is lost: the worker cannot know IMS has nothing.
  faults_.arm(test::fault_kind::lose_reply, commits_in_flight);
  start_engine(config(), nullptr, &faults_);
  expect_exactly_one_reply();
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2018W); }))
      << console_text();  // dropped, reconnected, resync
}

TEST_F(engine_fault_test, connection_lost_after_the_in_flight_record_is_settled_by_resync) {
  // The in-flight record is durable, the request went to IMS, then the worker's connection breaks at its
  // next call (the get of step 5, or a browse): the ACK cannot be recorded on it.
  int worker_connection = 0;
  faults_.arm(test::fault_kind::drop, [&worker_connection](const test::call_info& c) {
    if (commits_in_flight(c)) {
      worker_connection = c.connection;
      return false;
    }
    return worker_connection != 0 && c.connection == worker_connection;
  });
  start_engine(config(), nullptr, &faults_);
  expect_exactly_one_reply();
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2018W); })) << console_text();
}

// The worker's one wait (docs/design/concurrency.md, "The bridge"): with a CM1 message out with IMS and
// nothing on its queue, it waits on the signal it set on the queue (MQGMO_SET_SIGNAL) and on its partner's
// events at once, and does not browse the queue again meanwhile. The 2 ms poll of before browsed it about
// 200 times in the 400 ms counted here; the wait's own limit (100 ms, for stop and suspend) allows 4.
TEST_F(engine_fault_test, a_worker_with_cm1_out_waits_for_its_queue_and_partner_without_polling) {
  std::atomic<bool> counting{false};
  std::atomic<int> browses{0};
  faults_.arm(test::fault_kind::fail, [&](const test::call_info& c) {
    if (counting && c.call == test::mqi_call::get && c.queue == "IMS.BRIDGE.Q") ++browses;
    return false;  // only counts
  });
  start_engine(config(), nullptr, &faults_);
  // IMS ACKs the input and holds its run: the message is out, its output not yet there.
  ims_->with_engine([](imsemu::engine& e) { e.fault_settings().hold_runs = true; });
  request q;
  q.commit_mode = '1';
  q.segments = {"IVTNO   DISPLAY LAST1"};
  const auto first = put(q);
  ASSERT_TRUE(wait_for([&] { return console_has("run of input 1 held"); })) << console_text();
  std::this_thread::sleep_for(50ms);  // its ACK on its way to the worker
  counting = true;
  std::this_thread::sleep_for(400ms);
  counting = false;
  EXPECT_LE(browses.load(), 8) << "the worker browsed its queue while it had nothing new\n" << console_text();
  // A request put meanwhile ends the same wait: it is sent while the first is still out.
  q.segments = {"IVTNO   DISPLAY LAST2"};
  const auto second = put(q);
  EXPECT_TRUE(wait_for([&] { return console_has("run of input 2 held"); })) << console_text();
  ims_->with_engine([](imsemu::engine& e) { e.fault_settings().hold_runs = false; });
  EXPECT_TRUE(reply_to(first)) << console_text();
  EXPECT_TRUE(reply_to(second)) << console_text();
}

// CM0 output of several Tpipes that reaches the partner together goes in one unit of work: the replies and
// receive records, one commit, then the ACKs (partner::handle_outputs). The partner's first commit is held
// for 500 ms, so that the other three outputs gather behind it.
class joint_output_test : public engine_fault_test {
 protected:
  static constexpr int queues = 4;
  void SetUp() override {
    engine_fault_test::SetUp();
    for (int i = 2; i <= queues; ++i) {
      auto r = app_->mqsc("DEFINE QLOCAL(IMS.BRIDGE.Q" + std::to_string(i) + ") STGCLASS(IMSSC)\n");
      ASSERT_TRUE(r.ok()) << r.error().to_string();
    }
  }
  static int replies_in(const test::call_info& c) {
    int n = 0;
    if (c.uow_puts != nullptr)
      for (const auto& [q, d] : *c.uow_puts) n += q == "APP.REPLY" ? 1 : 0;
    return n;
  }
  // One persistent CM0 request on each queue, and exactly one reply to each; nothing dead-lettered, every
  // Tpipe at 1/1 with nothing in flight.
  void expect_one_reply_each() {
    for (int i = 1; i <= queues; ++i)
      ASSERT_TRUE(wait_for([&] { return tpipe("CSQ000" + std::to_string(i) + "S").has_value(); }))
          << console_text();
    std::vector<std::array<std::uint8_t, 24>> ids;
    for (int i = 1; i <= queues; ++i) {
      request q;
      q.queue = i == 1 ? "IMS.BRIDGE.Q" : "IMS.BRIDGE.Q" + std::to_string(i);
      q.segments = {"IVTNO   DISPLAY LAST" + std::to_string(i)};
      ids.push_back(put(q));
    }
    for (const auto& id : ids) EXPECT_TRUE(reply_to(id, 20000)) << console_text();
    EXPECT_EQ(depth("APP.REPLY"), 0) << "a reply was put twice";
    EXPECT_EQ(depth("DLQ"), 0);
    for (int i = 1; i <= queues; ++i) {
      const std::string tp = "CSQ000" + std::to_string(i) + "S";
      EXPECT_TRUE(wait_for([&] {
        auto t = tpipe(tp);
        return t && t->send == 1 && t->receive == 1;
      })) << tp
          << "\n"
          << console_text();
    }
    EXPECT_TRUE(wait_for([&] { return count_kind(records(), bridgemap::record_kind::in_flight) == 0; }));
  }
};

TEST_F(joint_output_test, outputs_that_arrive_together_share_one_commit_and_each_reply_comes_once) {
  std::atomic<bool> hold{true};
  std::atomic<int> most{0};
  faults_.arm(test::fault_kind::fail, [&](const test::call_info& c) {
    if (!commits_a_put_to(c, "APP.REPLY")) return false;
    most = std::max(most.load(), replies_in(c));
    if (hold.exchange(false)) std::this_thread::sleep_for(500ms);
    return false;  // only watches
  });
  start_engine(config(), nullptr, &faults_);
  expect_one_reply_each();
  EXPECT_GE(most.load(), 2) << "no commit held the replies of several outputs\n" << console_text();
}

// A reply that cannot be put inside the joint unit of work (MQRC_Q_FULL, once, on the second reply of a
// unit of work: only a joint one has two) backs all of it out; each output is then handled alone, as
// before: every reply once (a first reply left in the unit of work would come twice), nothing
// dead-lettered or NAKed.
TEST_F(joint_output_test, a_failure_inside_the_joint_unit_of_work_backs_it_out_and_each_output_goes_alone) {
  std::atomic<bool> hold{true};
  std::mutex mu;
  std::map<int, int> replies_now;  // by connection: replies put in its unit of work so far
  faults_.arm(
      test::fault_kind::fail,
      [&](const test::call_info& c) {
        const bool ends = c.call == test::mqi_call::commit || c.call == test::mqi_call::backout;
        bool fail = false;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (ends) replies_now[c.connection] = 0;
          // The second reply of one unit of work: only a joint one has two.
          if (c.call == test::mqi_call::put1 && c.queue == "APP.REPLY")
            fail = ++replies_now[c.connection] == 2;
        }
        if (commits_a_put_to(c, "APP.REPLY") && hold.exchange(false)) std::this_thread::sleep_for(500ms);
        return fail;
      },
      1, mq::MQRC_Q_FULL);
  start_engine(config(), nullptr, &faults_);
  expect_one_reply_each();
  EXPECT_EQ(faults_.fired(), 1) << "no joint unit of work met the fault\n" << console_text();
  EXPECT_FALSE(console_has(imsb::msg::IMB2016E)) << console_text();
}

TEST_F(engine_fault_test, commit_of_the_reply_with_its_outcome_unknown_is_not_put_twice) {
  // Step 6: the reply and the receive record are committed, the answer is lost, nothing is ACKed; the
  // resync finds our receive number ahead of IMS's send number and dequeues the output.
  faults_.arm(test::fault_kind::lose_reply,
              [](const test::call_info& c) { return commits_a_put_to(c, "APP.REPLY"); });
  start_engine(config(), nullptr, &faults_);
  expect_exactly_one_reply();
}

TEST_F(engine_fault_test, a_backout_that_fails_after_a_broken_put_leads_to_reconnect_and_one_reply) {
  // The in-flight record's put finds the connection broken; the backout after it fails too (2009): the
  // worker drops the connection, reconnects and sends the request once.
  faults_.arm(test::fault_kind::drop, [](const test::call_info& c) {
    return c.call == test::mqi_call::put && is_record_of(c.queue, c.data, bridgemap::record_kind::in_flight);
  });
  start_engine(config(), nullptr, &faults_);
  expect_exactly_one_reply();
  EXPECT_GE(faults_.refused_after_break(), 1);  // the backout, at least, met the broken connection
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2018W); })) << console_text();
}

TEST_F(engine_fault_test, a_failed_put_of_the_in_flight_record_stops_the_queue_and_loses_nothing) {
  // Not a broken connection: the state queue refuses the record (MQRC_Q_FULL). The request is not sent
  // without its record; the queue stops (IMB2xxx) and the request stays on it.
  faults_.arm(
      test::fault_kind::fail,
      [](const test::call_info& c) {
        return c.call == test::mqi_call::put &&
               is_record_of(c.queue, c.data, bridgemap::record_kind::in_flight);
      },
      1, mq::MQRC_Q_FULL);
  start_engine(config(), nullptr, &faults_);
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  EXPECT_TRUE(wait_for([&] { return console_has("in-flight record not written"); })) << console_text();
  EXPECT_FALSE(reply_to(id, 500));
  EXPECT_EQ(depth("IMS.BRIDGE.Q"), 1);
  EXPECT_EQ(count_kind(records(), bridgemap::record_kind::in_flight), 0u);
  EXPECT_EQ(faults_.fired(), 1);
}

// A commit whose unit of work holds both records: the last request's step 5 (its send record) and the
// next request's step 4 (its in-flight record), committed together (worker::step5_open).
bool commits_step5_with_step4(const test::call_info& c) {
  if (c.call != test::mqi_call::commit || c.uow_puts == nullptr) return false;
  bool send = false, in_flight = false;
  for (const auto& [q, d] : *c.uow_puts) {
    send = send || is_record_of(q, d, bridgemap::record_kind::send);
    in_flight = in_flight || is_record_of(q, d, bridgemap::record_kind::in_flight);
  }
  return send && in_flight;
}

// CM0 steps 4 and 5 (docs/design/commit-modes.md): when the next persistent request is there as IMS ACKs
// one, the ACKed request's step 5 commits with the next one's step 4, one unit of work and one log force
// for both; every request still gets exactly one reply and the numbers count each once.
TEST_F(engine_fault_test, the_next_requests_step_4_commits_with_the_last_ones_step_5) {
  std::atomic<int> joint{0};
  faults_.arm(test::fault_kind::fail, [&](const test::call_info& c) {
    if (commits_step5_with_step4(c)) ++joint;
    return false;  // only counts
  });
  // The requests wait on the queue before the bridge starts: each ACK finds the next one there.
  std::vector<std::array<std::uint8_t, 24>> ids;
  for (int i = 1; i <= 5; ++i) ids.push_back(put({{"IVTNO   DISPLAY LAST" + std::to_string(i)}}));
  start_engine(config(), nullptr, &faults_);
  for (const auto& id : ids) EXPECT_TRUE(reply_to(id, 20000)) << console_text();
  EXPECT_EQ(depth("APP.REPLY"), 0);
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 5 && t->receive == 5;
  })) << console_text();
  EXPECT_EQ(count_kind(records(), bridgemap::record_kind::in_flight), 0u);
  EXPECT_GE(joint.load(), 3) << "step 5 was committed apart from the next step 4";
}

// The next request's in-flight record is refused (MQRC_Q_FULL) in the unit of work that holds the last
// request's step 5: the backout undoes both, so step 5 is done again alone, and then the queue stops as
// it always did. The first request's reply comes once, its request is gone and its number counted; the
// second stays on the queue, with no record in flight.
TEST_F(engine_fault_test, a_failed_step_4_after_a_staged_step_5_does_step_5_again_alone) {
  faults_.arm(
      test::fault_kind::fail,
      [](const test::call_info& c) {
        return c.call == test::mqi_call::put &&
               is_record_of(c.queue, c.data, bridgemap::record_kind::in_flight);
      },
      2, mq::MQRC_Q_FULL);
  const auto first = put({{"IVTNO   DISPLAY LAST1"}});
  put({{"IVTNO   DISPLAY LAST2"}});
  start_engine(config(), nullptr, &faults_);
  EXPECT_TRUE(reply_to(first, 20000)) << console_text();
  EXPECT_TRUE(wait_for([&] { return console_has("in-flight record not written"); })) << console_text();
  EXPECT_EQ(faults_.fired(), 1);
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 1; })) << "the first request was not got\n"
                                                                    << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 1 && t->receive == 1;
  })) << console_text();
  const auto recs = records();
  EXPECT_EQ(count_kind(recs, bridgemap::record_kind::in_flight), 0u);
  EXPECT_TRUE(has_record(recs, bridgemap::record_kind::send, 1));
  EXPECT_EQ(depth("APP.REPLY"), 0);
}

TEST_F(engine_test, reset_tpipe_sets_numbers_and_refuses_unknown_tpipes) {
  start_engine();
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  ASSERT_TRUE(reply_to(id)) << console_text();
  auto bad = engine_->command("RESET TPIPE(NOSUCH) XCFMNAME(IMS1)");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find(imsb::msg::IMB2034E), std::string::npos) << bad[0];
  ASSERT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->receive == 1 && t->outstanding == 0;
  }));
  auto ok = engine_->command("RESET TPIPE(CSQ0001S) XCFMNAME(IMS1) SENDSEQ(1) RCVSEQ(1) ACTION(BACKOUT)");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_NE(ok[0].find(imsb::msg::IMB2013I), std::string::npos) << ok[0];
  auto t = tpipe("CSQ0001S");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->send, 1u);
  EXPECT_EQ(t->receive, 1u);
  auto shown = engine_->command("DISPLAY TPIPE(CSQ0001S)");
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_NE(shown[0].find("SENDSEQ(1) RCVSEQ(1)"), std::string::npos) << shown[0];
}

TEST_F(engine_test, suspend_stops_new_sends_and_resume_starts_them) {
  start_engine();
  auto s = engine_->command("SUSPEND QMGR FACILITY(IMSBRIDGE)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find(imsb::msg::IMB2017I), std::string::npos);
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  EXPECT_FALSE(reply_to(id, 700));
  EXPECT_EQ(depth("IMS.BRIDGE.Q"), 1);
  auto q = engine_->queues();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].state, "SUSPENDED");
  engine_->command("RESUME QMGR FACILITY(IMSBRIDGE)");
  EXPECT_TRUE(reply_to(id)) << console_text();
}

TEST_F(engine_test, display_and_stop) {
  start_engine();
  auto p = engine_->command("DISPLAY PARTNER");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("PARTNER(GRP1.IMS1) STATE(ACTIVE)"), std::string::npos) << p[0];
  auto sys = engine_->command("DISPLAY SYSTEM");
  ASSERT_EQ(sys.size(), 1u);
  EXPECT_NE(sys[0].find("QMGR(QM1)"), std::string::npos) << sys[0];
  EXPECT_FALSE(engine_->stop_requested());
  engine_->command("STOP");
  EXPECT_TRUE(engine_->stop_requested());
}

TEST_F(engine_test, non_persistent_cm0_goes_irrecoverable_without_an_in_flight_record) {
  start_engine();
  request q;
  q.persistent = false;
  q.segments = {"IVTNO   DISPLAY LAST1"};
  const auto id = put(q);
  auto r = reply_to(id);
  ASSERT_TRUE(r) << console_text();
  EXPECT_EQ(r->md.persistence, mq::MQPER_NOT_PERSISTENT);
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }));
  // Step 8: recoverable sequence number 0, so the Tpipe's numbers do not move.
  auto t = tpipe("CSQ0001S");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->send, 0u);
  EXPECT_EQ(t->receive, 0u);
  EXPECT_EQ(count_kind(records(), bridgemap::record_kind::in_flight), 0u);
}

TEST_F(engine_test, duplicate_output_is_acked_and_not_put_twice) {
  start_engine();
  ims_->operator_command("FAULT DUPLICATE OUTPUT 1");
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  ASSERT_TRUE(reply_to(id)) << console_text();
  ASSERT_TRUE(wait_for([&] {
    auto p = engine_->partners();
    return !p.empty() && p.front().duplicates_ignored == 1;
  })) << console_text();
  EXPECT_FALSE(reply_to(id, 500)) << "a second reply";
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2009W); }));
}

TEST_F(engine_test, flood_nak_backs_the_message_out_and_it_is_retried) {
  start_engine();
  ims_->operator_command("FAULT NAK 0030");
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2019W); }));
  auto q = engine_->queues();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].backouts, 1u);
  EXPECT_EQ(depth("DLQ"), 0);
}

TEST_F(engine_test, ims_restart_drops_the_session_and_resync_continues_the_numbers) {
  start_engine();
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  ASSERT_TRUE(reply_to(id)) << console_text();
  ASSERT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->receive == 1;
  }));
  ims_->operator_command("FAULT RESTART WARM");
  ASSERT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2005W); })) << console_text();
  ASSERT_TRUE(wait_for([&] {
    auto p = engine_->partners();
    return !p.empty() && p.front().state == "ACTIVE";
  })) << console_text();
  const auto id2 = put({{"IVTNO   DISPLAY LAST2"}});
  ASSERT_TRUE(reply_to(id2)) << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 2 && t->receive == 2;
  })) << console_text()
      << engine_->command("DISPLAY TPIPE(*)").front();
  EXPECT_FALSE(console_has(imsb::msg::IMB2020E));
}

TEST_F(engine_test, cm1_marker_found_at_restart_is_sent_again_and_counted) {
  start_engine();
  ims_->operator_command("FAULT HOLD RUNS");
  request q;
  q.commit_mode = '1';
  q.segments = {"IVTNO   DISPLAY LAST1"};
  const auto id = put(q);
  ASSERT_TRUE(wait_for([&] { return count_kind(records(), bridgemap::record_kind::cm1_marker) == 1; }));
  engine_->quiesce(0);
  engine_.reset();
  ims_->operator_command("FAULT RELEASE RUNS");
  start_engine();
  ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto p = engine_->partners();
    return !p.empty() && p.front().possible_duplicates == 1;
  })) << console_text();
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2010W); }));
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }));
}

TEST_F(engine_test, bridge_started_and_stopped_events) {
  start_engine();
  engine_->quiesce(1000);
  engine_.reset();
  std::vector<std::int32_t> reasons;
  while (auto m = get_from("SYSTEM.ADMIN.CHANNEL.EVENT", nullptr, 0)) {
    auto pcf = mq::decode_pcf(m->data, m->md.encoding, m->md.coded_char_set_id);
    ASSERT_TRUE(pcf.ok()) << pcf.error().to_string();
    reasons.push_back(pcf->header.reason);
  }
  EXPECT_EQ(reasons, (std::vector<std::int32_t>{mq::MQRC_BRIDGE_STARTED, mq::MQRC_BRIDGE_STOPPED}));
}

TEST_F(engine_test, reply_that_cannot_be_put_goes_to_the_dlq_with_its_mqrc) {
  start_engine();
  request q;
  q.reply_to_q = "NO.SUCH.QUEUE";
  q.segments = {"IVTNO   DISPLAY LAST1"};
  put(q);
  auto d = get_from("DLQ", nullptr);
  ASSERT_TRUE(d) << console_text();
  EXPECT_EQ(dlq_reason(*d), mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2015W); }));
  // The output was consumed all the same: the receive number moved and the Tpipe goes on.
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->receive == 1;
  }));
  const auto id = put({{"IVTNO   DISPLAY LAST2"}});
  EXPECT_TRUE(reply_to(id)) << console_text();
}

TEST_F(engine_test, user_refused_by_security_is_dead_lettered_with_298) {
  security_hooks sh;
  sh.check_password = [](const std::string&, const std::string&) { return false; };
  sh.user_group = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  sh.now_seconds = [] { return std::int64_t{1'800'000'000}; };
  security_checker checker(sh, std::nullopt, std::nullopt, 3600, 3600);
  bridge_config c = config();
  c.partner_defaults.access = access_level::update;  // the user must exist: ours does not
  start_engine(c, &checker);
  put({{"IVTNO   DISPLAY LAST1"}});
  auto d = get_from("DLQ", nullptr);
  ASSERT_TRUE(d) << console_text();
  EXPECT_EQ(dlq_reason(*d), mq::MQFB_NOT_AUTHORIZED_FOR_IMS);
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2101W); }));
}

TEST_F(engine_test, a_bridge_queue_defined_later_is_found_by_the_rescan) {
  start_engine();
  auto r = app_->mqsc("DEFINE QLOCAL(IMS.BRIDGE.Q2) STGCLASS(IMSSC)\n");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(wait_for([&] { return tpipe("CSQ0002S").has_value(); })) << console_text();
  request q;
  q.queue = "IMS.BRIDGE.Q2";
  q.segments = {"IVTNO   DISPLAY LAST1"};
  const auto id = put(q);
  ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0002S");
    return t && t->send == 1 && t->receive == 1;
  }));
  EXPECT_EQ(count_kind(records(), bridgemap::record_kind::assignment), 2u);
}

TEST_F(engine_test, unknown_conversation_id_gets_ims_error_not_a_hang) {
  start_engine();
  request q;
  q.commit_mode = '1';
  q.tran_state = 'C';
  for (std::size_t i = 0; i < q.tran_instance_id.size(); ++i)
    q.tran_instance_id[i] = static_cast<std::uint8_t>(0xA0 + i);
  q.segments = {"IVTCV   DISPLAY LAST1"};
  put(q);
  // IMS refuses it (imsemu: NAK X'0001', no conversation for that token): a DFS reply or a dead letter
  // with 300+sense, within the wait — never a request left hanging.
  ASSERT_TRUE(wait_for([&] { return depth("APP.REPLY") + depth("DLQ") == 1; })) << console_text();
  if (depth("DLQ") == 1) {
    auto d = get_from("DLQ", nullptr);
    ASSERT_TRUE(d);
    EXPECT_EQ(dlq_reason(*d), 301);
  }
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; })) << console_text();
}

// CM0 step 7 (docs/design/commit-modes.md) under load: IMS restarts (warm) while persistent CM0 requests
// flow; every request gets exactly one reply, none is dead-lettered, and the numbers agree after resync.
TEST_F(engine_test, cm0_load_across_an_ims_restart_gives_exactly_one_reply_each) {
  start_engine();
  std::vector<std::array<std::uint8_t, 24>> ids;
  for (int i = 0; i < 150; ++i) ids.push_back(put({{"IVTNO   DISPLAY LAST" + std::to_string(i)}}));
  ASSERT_TRUE(wait_for([&] { return depth("APP.REPLY") >= 3; })) << console_text();
  ims_->operator_command("FAULT RESTART WARM");
  ASSERT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2005W); })) << console_text();
  ASSERT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }, 20s)) << console_text();
  for (const auto& id : ids) ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_EQ(depth("APP.REPLY"), 0) << "a second reply";
  EXPECT_EQ(depth("DLQ"), 0);
  EXPECT_FALSE(console_has(imsb::msg::IMB2020E)) << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 150 && t->receive == 150 && !t->in_flight;
  })) << console_text();
}

// CM1 under the same restart: no request is lost (each gets a reply), and any reply beyond one per request
// is one the bridge counted as a possible duplicate (docs/design/commit-modes.md, CM1).
TEST_F(engine_test, cm1_load_across_an_ims_restart_loses_nothing_and_counts_duplicates) {
  start_engine();
  std::vector<std::array<std::uint8_t, 24>> ids;
  for (int i = 0; i < 60; ++i) {
    request q;
    q.commit_mode = '1';
    q.segments = {"IVTNO   DISPLAY LAST" + std::to_string(i)};
    ids.push_back(put(q));
  }
  ASSERT_TRUE(wait_for([&] { return depth("APP.REPLY") >= 3; })) << console_text();
  ims_->operator_command("FAULT RESTART WARM");
  ASSERT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }, 20s)) << console_text();
  EXPECT_TRUE(wait_for([&] { return count_kind(records(), bridgemap::record_kind::cm1_marker) == 0; }));
  std::size_t replies = 0;
  for (const auto& id : ids) {
    ASSERT_TRUE(reply_to(id)) << console_text();
    ++replies;
    while (reply_to(id, 0)) ++replies;
  }
  auto p = engine_->partners();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_LE(replies, ids.size() + p.front().possible_duplicates) << console_text();
  EXPECT_EQ(depth("DLQ"), 0);
}

// A get refused with 2016 (GET(DISABLED)) is not "gone". IMS has the in-flight request
// (resync says so) while its queue is GET(DISABLED): the record stays, the queue pauses, and once GET is
// enabled the request is got — it runs once and gets one reply.
TEST_F(engine_test, in_flight_request_on_a_get_disabled_queue_is_got_once_get_is_enabled) {
  start_engine();
  ims_->operator_command("FAULT WITHHOLD ACK 1");
  const auto id = put({{"IVTNO   DISPLAY LAST1"}});
  ASSERT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->in_flight && *t->in_flight == 1;
  })) << console_text();
  engine_->quiesce(0);
  engine_.reset();
  ASSERT_TRUE(app_->mqsc("ALTER QLOCAL(IMS.BRIDGE.Q) GET(DISABLED)\n").ok());
  start_engine();
  ASSERT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2150W); })) << console_text();
  ASSERT_TRUE(reply_to(id)) << console_text();  // IMS ran it; the output is put on the receive side
  EXPECT_EQ(depth("IMS.BRIDGE.Q"), 1);
  EXPECT_TRUE(has_record(records(), bridgemap::record_kind::in_flight, 1));
  ASSERT_TRUE(app_->mqsc("ALTER QLOCAL(IMS.BRIDGE.Q) GET(ENABLED)\n").ok());
  ASSERT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; })) << console_text();
  EXPECT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->send == 1 && !t->in_flight;
  })) << console_text();
  EXPECT_FALSE(reply_to(id, 1000)) << "it ran twice\n" << console_text();
  EXPECT_EQ(count_kind(records(), bridgemap::record_kind::in_flight), 0u);
  EXPECT_FALSE(console_has(imsb::msg::IMB2003E)) << console_text();
}

// A non-persistent CM0 request whose ACK is slow is browsed again meanwhile; it must not be sent
// a second time after the ACK.
TEST_F(engine_test, non_persistent_cm0_with_a_slow_ack_runs_once) {
  start_engine();
  request q;
  q.persistent = false;
  q.segments = {"IVTNO   DISPLAY LAST1"};
  hold_pump_ = true;  // the input waits in XCF: no ACK while the worker browses the queue again
  const auto id = put(q);
  ASSERT_TRUE(wait_for([&] {
    auto t = tpipe("CSQ0001S");
    return t && t->outstanding == 1;
  })) << console_text();
  std::this_thread::sleep_for(300ms);  // several browse passes over the queue while the ACK is owed
  hold_pump_ = false;
  ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_TRUE(wait_for([&] { return depth("IMS.BRIDGE.Q") == 0; }));
  EXPECT_FALSE(reply_to(id, 1000)) << "it ran twice\n" << console_text();
  auto qs = engine_->queues();
  ASSERT_EQ(qs.size(), 1u);
  EXPECT_EQ(qs[0].sent, 1u);
}

// A queue stopped because the dead-letter queue could not be used restarts when the operator
// sets it GET(DISABLED) and then GET(ENABLED) (IBM's bridge restarts a stopped queue the same way).
TEST_F(engine_test, a_stopped_queue_restarts_when_get_is_disabled_then_enabled) {
  start_engine();
  ASSERT_TRUE(app_->mqsc("ALTER QLOCAL(DLQ) PUT(DISABLED)\n").ok());
  request bad;
  bad.segments = {"IVTNO   DISPLAY LAST1"};
  bad.ll_delta = 7;
  put(bad);
  auto state = [&] {
    auto q = engine_->queues();
    return q.empty() ? std::string() : q.front().state;
  };
  ASSERT_TRUE(wait_for([&] { return state().rfind("STOPPED", 0) == 0; })) << console_text();
  EXPECT_EQ(depth("IMS.BRIDGE.Q"), 1);
  ASSERT_TRUE(app_->mqsc("ALTER QLOCAL(DLQ) PUT(ENABLED)\n").ok());
  ASSERT_TRUE(app_->mqsc("ALTER QLOCAL(IMS.BRIDGE.Q) GET(DISABLED)\n").ok());
  ASSERT_TRUE(wait_for([&] { return state().find("GET(DISABLED) seen") != std::string::npos; }))
      << state() << "\n"
      << console_text();
  ASSERT_TRUE(app_->mqsc("ALTER QLOCAL(IMS.BRIDGE.Q) GET(ENABLED)\n").ok());
  auto d = get_from("DLQ", nullptr);  // the queue runs again: the bad message is dead-lettered now
  ASSERT_TRUE(d) << state() << "\n" << console_text();
  EXPECT_GE(dlq_reason(*d), mq::MQFB_DATA_LENGTH_ZERO);
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2153I); }));
  const auto id = put({{"IVTNO   DISPLAY LAST2"}});
  EXPECT_TRUE(reply_to(id)) << console_text();
}

// A request sent again after a flood NAK is not a new use of its PassTicket: the verdict of its
// first send stands for its life in the bridge (before: the resend was refused, "already used", DLQ 298).
TEST_F(engine_test, a_passticket_is_not_used_up_by_the_resend_after_a_flood_nak) {
  ASSERT_TRUE(app_->mqsc("ALTER STGCLASS(IMSSC) PASSTKTA(MVSQM1)\n").ok());
  // The user the queue manager puts in MQMD.UserIdentifier for this process.
  mq::mqmd probe;
  ASSERT_TRUE(app_->put1({"APP.REPLY", ""}, probe, bytes{'x'}, mq::MQPMO_NO_SYNCPOINT).ok());
  auto pm = get_from("APP.REPLY", nullptr);
  ASSERT_TRUE(pm);
  std::string user = pm->md.user_identifier;
  while (!user.empty() && (user.back() == ' ' || user.back() == '\0')) user.pop_back();
  ASSERT_FALSE(user.empty());
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  security_hooks sh;
  sh.check_password = [](const std::string&, const std::string&) { return false; };
  sh.user_group = [](const std::string&) -> std::optional<std::string> { return std::string("GRP"); };
  sh.now_seconds = [now] { return static_cast<std::int64_t>(now()); };
  auto keys = passticket_keys::from_map({{"MVSQM1", bytes(32, 0x11)}});
  auto ticket = keys.generate(user, "MVSQM1", now());
  ASSERT_TRUE(ticket.ok()) << ticket.error().to_string();
  security_checker checker(sh, keys, std::nullopt, 3600, 3600);
  bridge_config c = config();
  c.partner_defaults.access = access_level::none;  // every message authenticated
  start_engine(c, &checker);
  ims_->operator_command("FAULT NAK 0030");
  request q;
  q.segments = {"IVTNO   DISPLAY LAST1"};
  q.authenticator = *ticket;
  const auto id = put(q);
  ASSERT_TRUE(reply_to(id)) << console_text();
  EXPECT_TRUE(wait_for([&] { return console_has(imsb::msg::IMB2019W); }));
  EXPECT_FALSE(console_has(imsb::msg::IMB2101W)) << console_text();
  EXPECT_EQ(depth("DLQ"), 0);
}

}  // namespace
}  // namespace imsb::bridge
