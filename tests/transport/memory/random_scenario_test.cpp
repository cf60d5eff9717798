// A property test: 1,000 accepted sends among members that join, leave, quiesce, fail, lose their link and
// hang, with delays and reorders injected, all driven by a seeded PRNG. Whatever happens, the sysplex must
// keep its promises (member.hpp, README "Send"):
//  - no message reaches a member that is not active (and only the join it was sent to);
//  - ordered streams are FIFO per (source, target, stream);
//  - without loss or duplication faults, every accepted message has exactly one outcome: delivered, or
//    refused later through on_send_done — whenever its sender is still there to be told.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "imsb/transport/memory_xcf.hpp"

namespace imsb::xcf {
inline void PrintTo(return_code c, std::ostream* os) { *os << describe(c); }
}  // namespace imsb::xcf

namespace imsb::transport {
namespace {

namespace codes = xcf::codes;
using std::chrono::milliseconds;

constexpr int member_count = 4;
constexpr std::size_t send_target = 1000;  // accepted sends
const std::string group = "PROPGRP";

struct sent_message {
  std::string source;
  std::string target;
  xcf::member_token source_token{};
  xcf::member_token target_token{};
  std::uint16_t stream = 0;
  bool ordered = true;
  std::uint64_t stream_seq = 0;  // per (source, target, stream) name triple, never reset
  std::uint64_t send_id = 0;
  int delivered = 0;
  int refused_later = 0;  // on_send_done with a refusal
};

class scenario;

class checking_handler : public xcf::member_handler {
 public:
  checking_handler(scenario& s, std::string name) : scenario_(s), name_(std::move(name)) {}
  void on_message(xcf::message msg) override;
  void on_event(const xcf::member_event&) override { ++events; }
  void on_send_done(std::uint64_t send_id, xcf::return_code code) override;
  int events = 0;

 private:
  scenario& scenario_;
  std::string name_;
};

class scenario {
 public:
  explicit scenario(std::uint64_t seed) : plex_(options()), rng_(seed) {
    for (int i = 0; i < member_count; ++i) {
      const std::string name = "M" + std::to_string(i);
      handlers_.push_back(std::make_unique<checking_handler>(*this, name));
      objects_.emplace_back();
      lasting_.push_back(i % 2 == 0);
    }
  }

  void play() {
    for (std::size_t i = 0; i < member_count; ++i) join_member(i);
    for (int actions = 0; accepted_ < send_target; ++actions) {
      ASSERT_LT(actions, 100 * send_target) << "the scenario stopped accepting messages";
      const std::uint64_t dice = pick(100);
      if (dice < 70) {
        send_one();
      } else if (dice < 80) {
        plex_.run_one();
      } else if (dice < 85) {
        plex_.run();
      } else if (dice < 90) {
        plex_.advance(milliseconds(pick(60)));
      } else if (dice < 94) {
        plex_.faults().delay(random_pair(), milliseconds(pick(120)), 1 + pick(3));
      } else if (dice < 96) {
        plex_.faults().reorder(random_pair(), pick(2) == 0 ? reorder_mode::reverse : reorder_mode::shuffle,
                               rng_(), 1 + pick(2));
      } else {
        membership_change();
      }
    }
    // Everything still on the way becomes due; hung members fail.
    for (int i = 0; i < 20 && plex_.pending() > 0; ++i) {
      plex_.advance(milliseconds(1000));
      plex_.run();
    }
    ASSERT_EQ(plex_.pending(), 0u);
  }

  void check_outcomes() const {
    std::size_t accepted = 0, delivered = 0;
    for (const auto& [id, m] : sent_) {
      ++accepted;
      delivered += static_cast<std::size_t>(m.delivered);
      EXPECT_LE(m.delivered + m.refused_later, 1) << "send " << id;
      // A sender still on the same join was there to be told: then exactly one outcome.
      if (active_token(m.source) == m.source_token) {
        EXPECT_EQ(m.delivered + m.refused_later, 1) << "send " << id;
      }
    }
    EXPECT_EQ(accepted, accepted_);
    // The scenario really exercised the paths it claims to (these depend only on the seed).
    EXPECT_GT(delivered, accepted / 2);
    EXPECT_GT(shortages_, 0u);
    EXPECT_GT(refused_now_, 0u);
    EXPECT_GT(membership_changes_, 10u);
  }

  // --- called by the handlers -------------------------------------------------------------------
  void delivered(const std::string& to, const xcf::message& msg) {
    const std::uint64_t n = std::stoull(std::string(msg.data.begin(), msg.data.end()));
    auto it = by_number_.find(n);
    ASSERT_NE(it, by_number_.end()) << "a message nobody sent: " << n;
    sent_message& m = sent_.at(it->second);
    ++m.delivered;
    EXPECT_EQ(m.target, to);
    EXPECT_EQ(msg.source_name, m.source);
    EXPECT_EQ(msg.source_token, m.source_token);
    EXPECT_EQ(msg.stream, m.stream);
    EXPECT_EQ(msg.ordered, m.ordered);
    // Only an active member, and only the join the message was sent to.
    EXPECT_EQ(active_token(to), m.target_token) << "message " << n << " to " << to;
    if (m.ordered) {
      auto& last = last_seq_[{m.source_token, m.target_token, m.stream}];
      EXPECT_GT(m.stream_seq, last) << "FIFO broken on " << m.source << "->" << to << " stream " << m.stream;
      last = m.stream_seq;
    }
  }
  void send_done(std::uint64_t id, xcf::return_code code) {
    auto it = sent_.find(id);
    ASSERT_NE(it, sent_.end()) << "a result for a send that was refused at once: " << id;
    EXPECT_TRUE(code == codes::resource_shortage || code == codes::not_active) << describe(code);
    if (code == codes::resource_shortage) ++shortages_;
    ++it->second.refused_later;
  }

 private:
  static memory_sysplex_options options() {
    memory_sysplex_options o;
    o.target_buffer = 8 * (32 + 24);  // small enough for 12/0 now and then
    o.heartbeat = milliseconds(100);
    return o;
  }

  std::uint64_t pick(std::uint64_t n) { return rng_() % n; }  // mt19937_64 output is the same everywhere
  std::string name(std::size_t i) const { return "M" + std::to_string(i); }

  xcf::member_token active_token(const std::string& member) const {
    for (const auto& info : plex_.members(group))
      if (info.name == member && info.state == xcf::member_state::active) return info.token;
    return {};
  }

  // Lost by disconnect(), or by a hang that ended in failure: the object's services answer 12/4.
  bool is_link_down(std::size_t i) {
    std::vector<xcf::member_info> ignored;
    return objects_[i] && objects_[i]->query(ignored) == codes::link_down;
  }

  message_filter random_pair() {
    return message_filter::between(name(pick(member_count)), name(pick(member_count)));
  }

  void send_one() {
    const std::size_t from = pick(member_count), to = pick(member_count);
    if (!objects_[from]) return;
    xcf::send_options o;
    o.stream = static_cast<std::uint16_t>(pick(3));
    o.ordered = pick(10) < 7;
    const std::uint64_t number = ++numbers_;
    std::string data = std::to_string(number);
    data.resize(8 + pick(16), ' ');
    const xcf::member_token source_token = active_token(name(from));
    const xcf::member_token target_token = active_token(name(to));
    const bool link_down = is_link_down(from);
    std::uint64_t id = 0;
    const xcf::return_code rc =
        objects_[from]->send(xcf::target::by_name(name(to)), {}, bytes_view::of(data), o, &id);
    if (link_down) {
      EXPECT_EQ(rc, codes::link_down);
    } else if (source_token == xcf::member_token{} || target_token == xcf::member_token{} ||
               objects_[from]->token() != source_token) {
      EXPECT_EQ(rc, codes::not_active);
    } else {
      EXPECT_EQ(rc, codes::ok);
    }
    if (rc != codes::ok) {
      ++refused_now_;
      return;
    }
    ++accepted_;
    sent_message m;
    m.source = name(from);
    m.target = name(to);
    m.source_token = source_token;
    m.target_token = target_token;
    m.stream = o.stream;
    m.ordered = o.ordered;
    m.stream_seq = ++stream_seq_[{m.source, m.target, m.stream}];
    m.send_id = id;
    sent_[id] = m;
    by_number_[number] = id;
  }

  void join_member(std::size_t i) {
    xcf::join_request r;
    r.group = group;
    r.member = name(i);
    r.lasting = lasting_[i];
    xcf::join_result joined = plex_.join(r, *handlers_[i]);
    EXPECT_TRUE(joined.code.ok()) << describe(joined.code);
    objects_[i] = std::move(joined.joined);
  }

  void membership_change() {
    ++membership_changes_;
    const std::size_t i = pick(member_count);
    auto& object = objects_[i];
    const std::uint64_t what = pick(7);
    if (!object) {
      join_member(i);
      return;
    }
    switch (what) {
      case 0:
        object->leave();  // 8/4 when no longer active: the object is dropped either way
        object.reset();
        break;
      case 1:
        object.reset();  // ends without leaving
        break;
      case 2:
        object->quiesce();
        break;
      case 3:
        if (plex_.faults().disconnect(group, name(i)) == codes::ok) {
          EXPECT_TRUE(is_link_down(i));
        }
        break;
      case 4:
        // Only this object uses the name, so its re-join cannot be refused.
        if (is_link_down(i)) {
          EXPECT_TRUE(plex_.faults().reconnect(group, name(i)).ok());
        }
        break;
      case 5:
        plex_.faults().stop_heartbeats(group, name(i));
        break;
      default: {
        xcf::user_state us{};
        us[0] = static_cast<std::uint8_t>(pick(256));
        object->set_user_state(us);
        break;
      }
    }
    // A quiesced or failed name is cleaned away by someone active, so that it can join again afresh.
    for (std::size_t j = 0; j < member_count; ++j)
      if (objects_[j] && !is_link_down(j) && active_token(name(j)) == objects_[j]->token()) {
        for (std::size_t k = 0; k < member_count; ++k)
          if (k != j && pick(3) == 0) objects_[j]->remove(name(k));
        break;
      }
    // Objects whose join is over (quiesced and removed, failed after a hang) are dropped.
    for (std::size_t j = 0; j < member_count; ++j)
      if (objects_[j] && !is_link_down(j) && active_token(name(j)) != objects_[j]->token() && pick(2) == 0) {
        objects_[j]->leave();
        objects_[j].reset();
      }
  }

  memory_sysplex plex_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<checking_handler>> handlers_;  // outlive the member objects below
  std::vector<std::unique_ptr<xcf::member>> objects_;
  std::vector<bool> lasting_;

  std::uint64_t numbers_ = 0;
  std::map<std::uint64_t, sent_message> sent_;        // by send id, accepted sends only
  std::map<std::uint64_t, std::uint64_t> by_number_;  // message number → send id
  std::map<std::tuple<std::string, std::string, std::uint16_t>, std::uint64_t> stream_seq_;
  std::map<std::tuple<xcf::member_token, xcf::member_token, std::uint16_t>, std::uint64_t> last_seq_;
  std::size_t accepted_ = 0, refused_now_ = 0, shortages_ = 0, membership_changes_ = 0;
};

void checking_handler::on_message(xcf::message msg) { scenario_.delivered(name_, msg); }
void checking_handler::on_send_done(std::uint64_t send_id, xcf::return_code code) {
  scenario_.send_done(send_id, code);
}

class random_scenario : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(random_scenario, InvariantsHold) {
  scenario s(GetParam());
  s.play();
  s.check_outcomes();
}

INSTANTIATE_TEST_SUITE_P(MemoryXcf, random_scenario, ::testing::Values(1u, 2u, 3u, 20240601u));

}  // namespace
}  // namespace imsb::transport
