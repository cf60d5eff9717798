// A property test: 1,000 accepted sends among members that join, leave, quiesce, fail, lose their link and
// hang, with delays, reorders, drops and duplicates injected, acks asked for, and answers sent from inside
// the message exits, all driven by a seeded PRNG. Whatever happens, the sysplex must keep its promises
// (member.hpp, memory_xcf.hpp, README "Send", "Events"):
//  - no message reaches a member that is not active (and only the join it was sent to);
//  - ordered streams are FIFO per (source, target, stream);
//  - events reach only the receiver's current active join (or, after its link dropped, the link-loss
//    events), never after its own leave or quiesce; once the events due are delivered, what a member was
//    told of the group's active members agrees with plex.members();
//  - a send has at most one reported outcome (its ack or its 12/0), exactly one when it asked for an
//    ack or was refused and its sender is still on the same join; every copy of an accepted message is
//    delivered, dropped by a fault, or discarded because its target's join ended.

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

constexpr std::size_t member_count = 4;
constexpr std::size_t send_target = 1000;  // accepted sends
const std::string group = "PROPGRP";

struct sent_message {
  std::string source;
  std::string target;
  xcf::member_token source_token{};
  xcf::member_token target_token{};
  std::uint16_t stream = 0;
  bool ordered = true;
  bool ack = false;
  bool answer = false;           // sent from inside a message exit
  std::uint64_t stream_seq = 0;  // per (source, target, stream) name triple, never reset
  int delivered = 0;
  int acked = 0;          // on_send_done ok
  int refused_later = 0;  // on_send_done 12/0
};

class scenario;

class checking_handler : public xcf::member_handler {
 public:
  checking_handler(scenario& s, std::size_t index) : scenario_(s), index_(index) {}
  void on_message(xcf::message msg) override;
  void on_event(const xcf::member_event& event) override;
  void on_send_done(std::uint64_t send_id, xcf::return_code code) override;

 private:
  scenario& scenario_;
  std::size_t index_;
};

class scenario {
 public:
  explicit scenario(std::uint64_t seed) : plex_(options()), rng_(seed) {
    for (std::size_t i = 0; i < member_count; ++i) {
      handlers_.push_back(std::make_unique<checking_handler>(*this, i));
      objects_.emplace_back();
      lasting_.push_back(i % 2 == 0);
    }
    views_.resize(member_count);
    ended_.resize(member_count, false);
    hung_.resize(member_count, false);
  }

  void play() {
    for (std::size_t i = 0; i < member_count; ++i) join_member(i);
    for (std::size_t actions = 0; accepted_ < send_target; ++actions) {
      ASSERT_LT(actions, 100 * send_target) << "the scenario stopped accepting messages";
      const std::uint64_t dice = pick(100);
      if (dice < 60) {
        send_one();
      } else if (dice < 70) {
        plex_.run_one();
      } else if (dice < 76) {
        run_and_check();
      } else if (dice < 81) {
        plex_.advance(milliseconds(pick(60)));
      } else if (dice < 85) {
        plex_.faults().delay(random_pair(), milliseconds(pick(120)), 1 + pick(3));
      } else if (dice < 87) {
        plex_.faults().reorder(random_pair(), pick(2) == 0 ? reorder_mode::reverse : reorder_mode::shuffle,
                               rng_(), 1 + pick(2));
      } else if (dice < 88) {
        plex_.faults().drop(random_pair());
      } else if (dice < 91) {
        plex_.faults().duplicate(random_pair(), 1 + pick(2));
      } else {
        membership_change();
      }
    }
    // Everything still on the way becomes due; hung members fail.
    for (int i = 0; i < 20 && plex_.pending() > 0; ++i) {
      plex_.advance(milliseconds(1000));
      run_and_check();
    }
    ASSERT_EQ(plex_.pending(), 0u);
  }

  void check_outcomes() const {
    struct fate {
      int accepted = 0, refused = 0, dropped = 0, duplicated = 0, delivered = 0, discarded = 0;
    };
    std::map<std::uint64_t, fate> fates;
    for (const auto& w : plex_.traffic()) {
      fate& f = fates[w.send_id];
      switch (w.kind) {
        case wire_record::what::accepted:
          ++f.accepted;
          break;
        case wire_record::what::refused:
          ++f.refused;
          EXPECT_EQ(sent_.count(w.send_id) != 0, w.code == codes::resource_shortage) << describe(w.code);
          break;
        case wire_record::what::dropped:
          ++f.dropped;
          break;
        case wire_record::what::duplicated:
          ++f.duplicated;
          break;
        case wire_record::what::delivered:
          ++f.delivered;
          break;
        case wire_record::what::discarded:
          ++f.discarded;
          break;
      }
    }
    std::size_t delivered = 0, acked = 0;
    for (const auto& [id, m] : sent_) {
      const fate& f = fates[id];
      delivered += static_cast<std::size_t>(m.delivered);
      acked += static_cast<std::size_t>(m.acked);
      EXPECT_EQ(f.accepted + f.refused, 1) << "send " << id;
      EXPECT_LE(m.acked + m.refused_later, 1) << "send " << id;
      // A sender still on the same join was there to be told.
      const bool sender_there = active_token(m.source) == m.source_token;
      if (f.refused == 1) {
        EXPECT_EQ(m.delivered, 0) << "send " << id;
        EXPECT_EQ(m.acked, 0) << "send " << id;
        if (sender_there) {
          EXPECT_EQ(m.refused_later, 1) << "send " << id;
        }
        continue;
      }
      EXPECT_EQ(m.refused_later, 0) << "send " << id;
      if (m.ack && sender_there) {
        EXPECT_EQ(m.acked, 1) << "send " << id;
      }
      // Every copy has exactly one fate.
      EXPECT_EQ(f.delivered + f.dropped + f.discarded, 1 + f.duplicated) << "send " << id;
      EXPECT_EQ(m.delivered, f.delivered) << "send " << id;
      if (f.discarded > 0) {
        EXPECT_NE(active_token(m.target), m.target_token)
            << "discarded, yet its target is still there: " << id;
      }
    }
    EXPECT_EQ(sent_.size(), accepted_);
    // The scenario really exercised the paths it claims to (these depend only on the seed).
    EXPECT_GT(delivered, accepted_ / 2);
    EXPECT_GT(acked, 0u);
    EXPECT_GT(shortages_, 0u);
    EXPECT_GT(refused_now_, 0u);
    EXPECT_GT(answers_, 10u);
    EXPECT_GT(membership_changes_, 10u);
    EXPECT_GT(link_loss_events_, 0u);
    EXPECT_GT(views_checked_, 100u);
    std::size_t dropped = 0, duplicated = 0;
    for (const auto& [id, f] : fates) {
      dropped += static_cast<std::size_t>(f.dropped);
      duplicated += static_cast<std::size_t>(f.duplicated);
    }
    EXPECT_GT(dropped, 0u);
    EXPECT_GT(duplicated, 0u);
  }

  // --- called by the handlers -------------------------------------------------------------------
  void delivered(std::size_t to, const xcf::message& msg) {
    const std::uint64_t n = std::stoull(std::string(msg.data.begin(), msg.data.end()));
    auto it = by_number_.find(n);
    ASSERT_NE(it, by_number_.end()) << "a message nobody sent: " << n;
    sent_message& m = sent_.at(it->second);
    ++m.delivered;
    EXPECT_LE(m.delivered, 2) << "message " << n;
    EXPECT_EQ(m.target, name(to));
    EXPECT_EQ(msg.source_name, m.source);
    EXPECT_EQ(msg.source_token, m.source_token);
    EXPECT_EQ(msg.stream, m.stream);
    EXPECT_EQ(msg.ordered, m.ordered);
    // Only an active member, and only the join the message was sent to.
    EXPECT_EQ(active_token(name(to)), m.target_token) << "message " << n << " to " << name(to);
    EXPECT_FALSE(ended_[to]) << "message " << n << " after its target's own leave or quiesce";
    if (m.ordered) {
      auto& last = last_seq_[{m.source_token, m.target_token, m.stream}];
      if (m.delivered == 1) {
        EXPECT_GT(m.stream_seq, last)
            << "FIFO broken on " << m.source << "->" << m.target << " stream " << m.stream;
      } else {
        EXPECT_EQ(m.stream_seq, last) << "a duplicate not right behind its original: " << n;
      }
      last = m.stream_seq;
    }
    // OTMA answers from inside its message exit (an ACK): now and then, so do we.
    if (!m.answer && pick(4) == 0) {
      std::size_t back = member_count;
      for (std::size_t i = 0; i < member_count; ++i)
        if (name(i) == m.source) back = i;
      if (send_from(to, back, true)) ++answers_;
    }
  }

  void event(std::size_t to, const xcf::member_event& e) {
    ASSERT_TRUE(objects_[to]) << "an event for " << name(to) << " after its object ended";
    EXPECT_FALSE(ended_[to]) << "an event for " << name(to) << " after its own leave or quiesce";
    if (is_link_down(to)) {
      EXPECT_EQ(e.kind, xcf::event_kind::failed) << "only link-loss events while the link is down";
      ++link_loss_events_;
    } else {
      EXPECT_EQ(active_token(name(to)), objects_[to]->token())
          << "an event for " << name(to) << " that is not its current active join";
    }
    views_[to][e.member.name] = e.member;
  }

  void send_done(std::size_t to, std::uint64_t id, xcf::return_code code) {
    auto it = sent_.find(id);
    ASSERT_NE(it, sent_.end()) << "a result for a send that was refused at once: " << id;
    sent_message& m = it->second;
    EXPECT_EQ(m.source, name(to));
    EXPECT_EQ(active_token(name(to)), m.source_token) << "a send result for a join that is over";
    if (code == codes::ok) {
      EXPECT_TRUE(m.ack) << "an ack nobody asked for: " << id;
      ++m.acked;
    } else {
      EXPECT_EQ(code, codes::resource_shortage) << describe(code);
      ++shortages_;
      ++m.refused_later;
    }
    EXPECT_LE(m.acked + m.refused_later, 1) << "two outcomes for send " << id;
  }

 private:
  static memory_sysplex_options options() {
    memory_sysplex_options o;
    o.target_buffer = 8 * (32 + 24);  // small enough for 12/0 now and then
    o.heartbeat = milliseconds(100);
    return o;
  }

  std::uint64_t pick(std::uint64_t n) { return rng_() % n; }  // mt19937_64 output is the same everywhere
  static std::string name(std::size_t i) { return "M" + std::to_string(i); }

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

  void run_and_check() {
    plex_.run();
    check_views();
  }

  // Every event due has been delivered: what each member that can hear was told of the others that are
  // active is what the sysplex holds (README "Events": latest state wins).
  void check_views() {
    const auto members = plex_.members(group);
    for (std::size_t i = 0; i < member_count; ++i) {
      if (!objects_[i] || ended_[i] || hung_[i] || is_link_down(i) ||
          active_token(name(i)) != objects_[i]->token())
        continue;
      std::map<std::string, std::tuple<xcf::member_token, xcf::user_state>> real, told;
      for (const auto& info : members)
        if (info.name != name(i) && info.state == xcf::member_state::active)
          real[info.name] = {info.token, info.ustate};
      for (const auto& [who, info] : views_[i])
        if (who != name(i) && info.state == xcf::member_state::active) told[who] = {info.token, info.ustate};
      EXPECT_EQ(told, real) << name(i) << "'s view of the group";
      ++views_checked_;
    }
  }

  void send_one() {
    const std::size_t from = pick(member_count), to = pick(member_count);
    if (objects_[from]) send_from(from, to, false);
  }

  // True when accepted.
  bool send_from(std::size_t from, std::size_t to, bool answer) {
    xcf::send_options o;
    o.stream = static_cast<std::uint16_t>(pick(3));
    o.ordered = pick(10) < 7;
    o.ack = pick(4) == 0;
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
      return false;
    }
    ++accepted_;
    sent_message m;
    m.source = name(from);
    m.target = name(to);
    m.source_token = source_token;
    m.target_token = target_token;
    m.stream = o.stream;
    m.ordered = o.ordered;
    m.ack = o.ack;
    m.answer = answer;
    m.stream_seq = ++stream_seq_[{m.source, m.target, m.stream}];
    sent_[id] = m;
    by_number_[number] = id;
    return true;
  }

  void join_member(std::size_t i) {
    xcf::join_request r;
    r.group = group;
    r.member = name(i);
    r.lasting = lasting_[i];
    xcf::join_result joined = plex_.join(r, *handlers_[i]);
    EXPECT_TRUE(joined.code.ok()) << describe(joined.code);
    objects_[i] = std::move(joined.joined);
    ended_[i] = false;
    hung_[i] = false;
    views_[i].clear();
    for (const auto& info : joined.members) views_[i][info.name] = info;
  }

  void end_object(std::size_t i) {
    objects_[i].reset();
    ended_[i] = false;
    hung_[i] = false;
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
        // 8/4 when no longer active. Kept now and then after a leave: nothing may reach it any more.
        if (object->leave() == codes::ok && pick(2) == 0) {
          ended_[i] = true;
        } else {
          end_object(i);
        }
        break;
      case 1:
        end_object(i);  // ends without leaving
        break;
      case 2:
        if (object->quiesce() == codes::ok) ended_[i] = true;
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
          hung_[i] = false;
        }
        break;
      case 5:
        if (plex_.faults().stop_heartbeats(group, name(i)) == codes::ok) hung_[i] = true;
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
    // Objects whose join is over (left, quiesced and removed, failed after a hang) are dropped.
    for (std::size_t j = 0; j < member_count; ++j)
      if (objects_[j] && !is_link_down(j) && active_token(name(j)) != objects_[j]->token() && pick(2) == 0) {
        objects_[j]->leave();
        end_object(j);
      }
  }

  memory_sysplex plex_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<checking_handler>> handlers_;  // outlive the member objects below
  std::vector<std::unique_ptr<xcf::member>> objects_;
  std::vector<bool> lasting_;
  std::vector<std::map<std::string, xcf::member_info>> views_;  // what each handler was told, by name
  std::vector<bool> ended_;  // its object left or quiesced: no exit of its may run any more
  std::vector<bool> hung_;   // stop_heartbeats: its exits are held

  std::uint64_t numbers_ = 0;
  std::map<std::uint64_t, sent_message> sent_;        // by send id, accepted sends only
  std::map<std::uint64_t, std::uint64_t> by_number_;  // message number → send id
  std::map<std::tuple<std::string, std::string, std::uint16_t>, std::uint64_t> stream_seq_;
  std::map<std::tuple<xcf::member_token, xcf::member_token, std::uint16_t>, std::uint64_t> last_seq_;
  std::size_t accepted_ = 0, refused_now_ = 0, shortages_ = 0, membership_changes_ = 0, answers_ = 0;
  std::size_t link_loss_events_ = 0, views_checked_ = 0;
};

void checking_handler::on_message(xcf::message msg) { scenario_.delivered(index_, msg); }
void checking_handler::on_event(const xcf::member_event& event) { scenario_.event(index_, event); }
void checking_handler::on_send_done(std::uint64_t send_id, xcf::return_code code) {
  scenario_.send_done(index_, send_id, code);
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
