// The state store (bridge/src/state_store.cpp) against a real queue manager running inside the test
// (qmgr::connect "local:QM1" on a temporary prefix): the queue defined on first open, records as
// persistent messages keyed by CorrelId, changes only in the caller's unit of work, two connections'
// records side by side, and messages that are not records skipped and counted.

#include "imsb/bridge/state_store.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"
#include "temp_qmgr.hpp"

namespace imsb::bridgemap {
// Readable failures: the kind and key instead of the object's bytes.
void PrintTo(const state_record& r, std::ostream* os) {
  const auto k = key_of(r);
  *os << "{" << static_cast<char>(r.kind) << " key \"" << std::string(k.begin(), k.end()) << "\" number "
      << r.number << "}";
}
}  // namespace imsb::bridgemap

namespace imsb::bridge {
namespace {

using bridgemap::record_kind;
using bridgemap::state_record;

std::int32_t rc_of(const decode_error& e) { return static_cast<std::int32_t>(e.code.value()); }

state_record send_record(std::string tpipe, std::uint32_t number) {
  state_record r;
  r.kind = record_kind::send;
  r.xcf_group = "GRP1";
  r.xcf_member = "IMS1";
  r.tpipe = std::move(tpipe);
  r.number = number;
  return r;
}

// One record of each kind (fields only where the kind carries them).
std::vector<state_record> one_of_each() {
  std::vector<state_record> v;
  state_record a;
  a.kind = record_kind::assignment;
  a.xcf_group = "GRP1";
  a.xcf_member = "IMS1";
  a.queue = "IMS.BRIDGE.Q1";
  a.number = 1;
  v.push_back(a);
  v.push_back(send_record("CSQ1S", 5));
  state_record r = send_record("CSQ1S", 7);
  r.kind = record_kind::receive;
  v.push_back(r);
  state_record f;
  f.kind = record_kind::in_flight;
  f.xcf_group = "GRP1";
  f.xcf_member = "IMS1";
  f.tpipe = "CSQ1S";
  f.queue = "IMS.BRIDGE.Q1";
  f.number = 6;
  for (std::size_t i = 0; i < f.token.size(); ++i) f.token[i] = static_cast<std::uint8_t>(i + 1);
  v.push_back(f);
  state_record m;
  m.kind = record_kind::cm1_marker;
  m.xcf_group = "GRP1";
  m.xcf_member = "IMS1";
  m.tpipe = "CSQ2N";
  m.queue = "IMS.BRIDGE.Q2";
  m.token[15] = 0x42;
  v.push_back(m);
  state_record x;
  x.kind = record_kind::stopped;
  x.xcf_group = "GRP1";
  x.xcf_member = "IMS1";
  x.tpipe = "CSQ3S";
  x.reason = "NAK X'1C' sense, until RESET TPIPE";
  v.push_back(x);
  return v;
}

// Records in key order, so two loads compare whatever the queue's order.
std::vector<state_record> sorted(std::vector<state_record> v) {
  std::sort(v.begin(), v.end(), [](const state_record& a, const state_record& b) {
    return bridgemap::key_of(a) < bridgemap::key_of(b);
  });
  return v;
}

class state_store_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string failed = qm_.create("QM1");
    ASSERT_EQ(failed, "") << failed;
  }
  void TearDown() override {
    stores_.clear();
    conns_.clear();  // the last connection ends the queue manager
  }

  mqi::connection& connect() {
    auto c = qm_.connect("QM1");
    // gtest reports an exception as the test's failure and goes on with the next test.
    if (!c.ok()) throw std::runtime_error("connect local:QM1: " + c.error().to_string());
    conns_.push_back(std::move(c).value());
    return *conns_.back();
  }
  state_store& store(mqi::connection& c) {
    stores_.push_back(std::make_unique<state_store>(c));
    auto& s = *stores_.back();
    s.set_console([this](const std::string& line) { console_.push_back(line); });
    return s;
  }
  state_store& opened(mqi::connection& c) {
    auto& s = store(c);
    auto r = s.open(true);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return s;
  }
  static std::vector<state_record> load(state_store& s) {
    auto r = s.load_all();
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return r.ok() ? sorted(*r) : std::vector<state_record>{};
  }
  static void commit(mqi::connection& c) {
    auto r = c.commit();
    ASSERT_TRUE(r.ok()) << r.error().to_string();
  }

  test::temp_qmgr qm_;  // before the connections: they close first
  std::vector<std::unique_ptr<mqi::connection>> conns_;
  std::vector<std::unique_ptr<state_store>> stores_;  // before conns_ in TearDown: they close handles
  std::vector<std::string> console_;
};

TEST_F(state_store_test, open_defines_the_queue_when_asked) {
  auto& c = connect();
  auto& s = store(c);
  auto missing = s.open(false);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(rc_of(missing.error()), mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_NE(missing.error().detail.find("SYSTEM.IMS.BRIDGE.STATE"), std::string::npos)
      << missing.error().detail;

  auto r = s.open(true);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(s.open(true).ok());  // again: nothing to do
  auto q = c.inquire_objects("QLOCAL", "SYSTEM.IMS.BRIDGE.STATE");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  ASSERT_EQ(q->size(), 1u);
  EXPECT_EQ(q->front().attributes.at("DEFPSIST"), "YES");
  EXPECT_EQ(q->front().attributes.at("MAXDEPTH"), "999999999");
  // Another connection finds it defined, with or without define_if_missing.
  auto& c2 = connect();
  EXPECT_TRUE(store(c2).open(false).ok());
  EXPECT_TRUE(store(c2).open(true).ok());
  EXPECT_TRUE(load(s).empty());
}

TEST_F(state_store_test, put_replace_remove_and_load_all) {
  auto& c = connect();
  auto& s = opened(c);
  const auto all = one_of_each();
  for (const auto& r : all) ASSERT_TRUE(s.put(r).ok());
  commit(c);
  EXPECT_EQ(load(s), sorted(all));
  EXPECT_EQ(s.bad_records(), 0u);

  // Each record is one persistent message of Format IMSBST whose CorrelId is its key.
  auto h = c.open({std::string(bridgemap::state_queue_name), ""}, mq::MQOO_BROWSE);
  ASSERT_TRUE(h.ok());
  mqi::get_request browse;
  browse.options = mq::MQGMO_BROWSE_FIRST | mq::MQGMO_NO_WAIT;
  browse.match_options = mq::MQMO_MATCH_CORREL_ID;
  browse.correl_id = bridgemap::key_of(all[1]);
  auto m = c.get(h->handle, browse);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->md.persistence, mq::MQPER_PERSISTENT);
  EXPECT_EQ(m->md.format, "IMSBST  ");
  EXPECT_EQ(m->data, bridgemap::encode_record(all[1]));
  ASSERT_TRUE(c.close(h->handle).ok());

  // put replaces the record with the same key: still six, the new number.
  ASSERT_TRUE(s.put(send_record("CSQ1S", 6)).ok());
  commit(c);
  auto after = load(s);
  ASSERT_EQ(after.size(), all.size());
  auto it = std::find_if(after.begin(), after.end(),
                         [](const state_record& r) { return r.kind == record_kind::send; });
  ASSERT_NE(it, after.end());
  EXPECT_EQ(it->number, 6u);
  auto st = c.open({std::string(bridgemap::state_queue_name), ""}, mq::MQOO_INQUIRE);
  ASSERT_TRUE(st.ok());
  auto depth = mqi::inquire_queue(c, st->handle);
  ASSERT_TRUE(depth.ok());
  EXPECT_EQ(depth->current_depth, static_cast<std::int32_t>(all.size()));

  // remove takes it away; removing what is not there is no error.
  ASSERT_TRUE(s.remove(bridgemap::key_of(all[3])).ok());
  ASSERT_TRUE(s.remove(bridgemap::key_of(all[3])).ok());
  ASSERT_TRUE(s.remove(bridgemap::key_of(send_record("CSQZZS", 1))).ok());
  commit(c);
  auto fewer = load(s);
  EXPECT_EQ(fewer.size(), all.size() - 1);
  EXPECT_EQ(std::count(fewer.begin(), fewer.end(), all[3]), 0);
}

TEST_F(state_store_test, changes_not_committed_are_gone_after_backout) {
  auto& c = connect();
  auto& s = opened(c);
  const auto all = one_of_each();
  ASSERT_TRUE(s.put(all[0]).ok());
  ASSERT_TRUE(s.put(all[1]).ok());
  ASSERT_TRUE(c.backout().ok());
  EXPECT_TRUE(load(s).empty());

  ASSERT_TRUE(s.put(all[1]).ok());
  commit(c);
  // A replacement and a removal backed out leave the committed record as it was.
  ASSERT_TRUE(s.put(send_record("CSQ1S", 99)).ok());
  ASSERT_TRUE(c.backout().ok());
  EXPECT_EQ(load(s), std::vector<state_record>{all[1]});
  ASSERT_TRUE(s.remove(bridgemap::key_of(all[1])).ok());
  ASSERT_TRUE(c.backout().ok());
  EXPECT_EQ(load(s), std::vector<state_record>{all[1]});
}

TEST_F(state_store_test, two_connections_keep_their_own_records_in_their_own_units_of_work) {
  auto& c1 = connect();
  auto& c2 = connect();
  auto& s1 = opened(c1);
  auto& s2 = opened(c2);
  const auto a = send_record("CSQ1S", 1);
  auto b = send_record("CSQ1S", 2);
  b.kind = record_kind::receive;

  ASSERT_TRUE(s1.put(a).ok());
  EXPECT_TRUE(load(s2).empty());  // not committed: not seen by the other connection
  ASSERT_TRUE(s2.put(b).ok());
  commit(c1);
  EXPECT_EQ(load(s2), std::vector<state_record>{a});
  commit(c2);
  EXPECT_EQ(load(s1), sorted({a, b}));
  EXPECT_EQ(load(s2), sorted({a, b}));

  // One side's backout does not touch the other's committed work.
  ASSERT_TRUE(s2.remove(bridgemap::key_of(b)).ok());
  ASSERT_TRUE(s1.put(send_record("CSQ1S", 3)).ok());
  commit(c1);
  ASSERT_TRUE(c2.backout().ok());
  auto both = load(s1);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0], b);  // "R..." sorts before "S..."
  EXPECT_EQ(both[1].number, 3u);
}

TEST_F(state_store_test, messages_that_are_not_records_are_skipped_counted_and_left) {
  auto& c = connect();
  auto& s = opened(c);
  const auto good = send_record("CSQ1S", 4);
  ASSERT_TRUE(s.put(good).ok());
  commit(c);

  const mqi::object_descriptor q{std::string(bridgemap::state_queue_name), ""};
  mq::mqmd not_a_record;
  not_a_record.format = std::string(mq::MQFMT_STRING);
  ASSERT_TRUE(c.put1(q, not_a_record, bytes_view::of("hello"), mq::MQPMO_NO_SYNCPOINT).ok());
  mq::mqmd garbled;
  garbled.format = "IMSBST  ";
  ASSERT_TRUE(c.put1(q, garbled, bytes_view::of("IMSBST01Zgarbage"), mq::MQPMO_NO_SYNCPOINT).ok());
  mq::mqmd wrong_key;  // a good body under another record's key
  wrong_key.format = "IMSBST  ";
  wrong_key.correl_id = bridgemap::key_of(send_record("CSQ9S", 1));
  const bytes body = bridgemap::encode_record(send_record("CSQ8S", 1));
  ASSERT_TRUE(c.put1(q, wrong_key, bytes_view(body), mq::MQPMO_NO_SYNCPOINT).ok());

  EXPECT_EQ(load(s), std::vector<state_record>{good});
  EXPECT_EQ(s.bad_records(), 3u);
  ASSERT_EQ(console_.size(), 3u);
  for (const auto& line : console_) {
    EXPECT_EQ(line.rfind(std::string(imsb::msg::IMB2121W) + " ", 0), 0u) << line;
    EXPECT_NE(line.find("skipped"), std::string::npos) << line;
  }
  // Still there (not ours to delete), and counted afresh by the next load.
  EXPECT_EQ(load(s), std::vector<state_record>{good});
  EXPECT_EQ(s.bad_records(), 3u);
  auto h = c.open(q, mq::MQOO_INQUIRE);
  ASSERT_TRUE(h.ok());
  auto st = mqi::inquire_queue(c, h->handle);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->current_depth, 4);
}

TEST_F(state_store_test, calls_before_open_fail_cleanly) {
  auto& c = connect();
  auto& s = store(c);
  auto l = s.load_all();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(rc_of(l.error()), mq::MQRC_HOBJ_ERROR);
  auto p = s.put(send_record("CSQ1S", 1));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(rc_of(p.error()), mq::MQRC_HOBJ_ERROR);
}

}  // namespace
}  // namespace imsb::bridge
