#pragma once
// Helpers shared by the xcfhub frame codec tests: field-by-field equality (the codec's structs have no
// operator==, and the transport engineers may want their own) and sample frames of every type.

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/xcf/frame.hpp"

namespace imsb::xcf::frame::test {

inline bool same(const member_info& a, const member_info& b) {
  return a.group == b.group && a.name == b.name && a.token == b.token && a.state == b.state &&
         a.ustate == b.ustate && a.memdata == b.memdata && a.system == b.system;
}
inline bool same(const std::vector<member_info>& a, const std::vector<member_info>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}
inline bool same(const empty_payload&, const empty_payload&) { return true; }
inline bool same(const join_payload& a, const join_payload& b) {
  return a.group == b.group && a.member == b.member && a.memassoc == b.memassoc && a.lasting == b.lasting &&
         a.ustate == b.ustate && a.memdata == b.memdata;
}
inline bool same(const join_rsp_payload& a, const join_rsp_payload& b) {
  return a.code == b.code && a.token == b.token && a.max_payload == b.max_payload &&
         a.heartbeat_ms == b.heartbeat_ms && same(a.members, b.members);
}
inline bool same(const rc_payload& a, const rc_payload& b) { return a.code == b.code; }
inline bool same(const send_payload& a, const send_payload& b) {
  return a.target_name == b.target_name && a.target_token == b.target_token && a.stream == b.stream &&
         a.control == b.control && a.data == b.data;
}
inline bool same(const deliver_payload& a, const deliver_payload& b) {
  return a.source_name == b.source_name && a.source_token == b.source_token && a.stream == b.stream &&
         a.control == b.control && a.data == b.data;
}
inline bool same(const event_payload& a, const event_payload& b) {
  return a.kind == b.kind && same(a.member, b.member);
}
inline bool same(const query_payload& a, const query_payload& b) {
  return a.group == b.group && a.member == b.member;
}
inline bool same(const query_rsp_payload& a, const query_rsp_payload& b) {
  return a.code == b.code && same(a.members, b.members);
}
inline bool same(const set_user_state_payload& a, const set_user_state_payload& b) {
  return a.ustate == b.ustate;
}
inline bool same(const remove_payload& a, const remove_payload& b) { return a.member == b.member; }
inline bool same(const ping_payload& a, const ping_payload& b) { return a.nonce == b.nonce; }
inline bool same(const error_payload& a, const error_payload& b) {
  return a.code == b.code && a.text == b.text;
}
inline bool same(const payload& a, const payload& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return same(x, std::get<T>(b));
      },
      a);
}
inline bool same(const header& a, const header& b) {
  return a.type == b.type && a.flags == b.flags && a.corr == b.corr && a.length == b.length;
}
inline bool same(const decoded& a, const decoded& b) { return same(a.head, b.head) && same(a.body, b.body); }

inline bytes hex(std::string_view text) {
  bytes b;
  EXPECT_TRUE(from_hex(text, b)) << "bad hex in test: " << text;
  return b;
}

// One frame to encode: type, flags, corr and payload.
struct sample {
  std::string label;
  frame_type type;
  std::uint16_t flags;
  std::uint32_t corr;
  payload body;
};
inline std::ostream& operator<<(std::ostream& os, const sample& s) { return os << s.label; }

inline member_info member(std::string group, std::string name, std::uint8_t seed, member_state state,
                          std::string system = "HUB1") {
  member_info m;
  m.group = std::move(group);
  m.name = std::move(name);
  for (std::size_t i = 0; i < m.token.size(); ++i) m.token[i] = static_cast<std::uint8_t>(seed + i);
  m.state = state;
  for (std::size_t i = 0; i < m.ustate.size(); ++i) m.ustate[i] = static_cast<std::uint8_t>(seed * 3 + i);
  for (std::size_t i = 0; i < m.memdata.size(); ++i) m.memdata[i] = static_cast<std::uint8_t>(0xF0 | i);
  m.system = std::move(system);
  return m;
}

inline bytes filled(std::size_t n, std::uint8_t seed) {
  bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

// Every frame type, with edge values: longest names, names of one character with $ # @, all-ones and
// all-zero integers, empty and large data, empty member lists.
inline std::vector<sample> samples() {
  std::vector<sample> s;
  join_payload j;
  j.group = "XCFGRP01";
  j.member = "ABCDEFGHIJKLMNOP";
  j.memassoc = 0xFF;
  j.lasting = true;
  j.ustate.fill(0xFF);
  j.memdata = {1, 2, 3, 4, 5, 6, 7, 8};
  s.push_back({"join_longest_names", frame_type::join, 0, 0xFFFFFFFF, j});
  join_payload j1;
  j1.group = "$";
  j1.member = "#";
  s.push_back({"join_shortest_names", frame_type::join, 0, 0, j1});
  join_payload j2;
  j2.group = "@9";
  j2.member = "M$#@0123456789";
  s.push_back({"join_national", frame_type::join, 0, 1, j2});

  join_rsp_payload r;
  r.code = codes::first_active;
  r.token = {0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0};
  r.max_payload = hard_max_payload;
  r.heartbeat_ms = 0xFFFFFFFF;
  for (std::uint8_t i = 0; i < 5; ++i) {
    r.members.push_back(member("XCFGRP01", "MEMBER" + std::to_string(i), i, static_cast<member_state>(i),
                               i == 0 ? "" : "~ !z{}"));
  }
  s.push_back({"join_rsp_all_states", frame_type::join_rsp, 0, 2, r});
  join_rsp_payload r0;
  r0.code = {0xFFFFFFFF, 0xFFFFFFFF};
  s.push_back({"join_rsp_no_members", frame_type::join_rsp, 0, 3, r0});

  s.push_back({"leave", frame_type::leave, 0, 4, empty_payload{}});
  s.push_back({"quiesce", frame_type::quiesce, 0, 5, empty_payload{}});
  s.push_back({"leave_rsp", frame_type::leave_rsp, 0, 6, rc_payload{codes::not_active}});
  s.push_back({"quiesce_rsp", frame_type::quiesce_rsp, 0, 7, rc_payload{codes::ok}});
  s.push_back({"send_rsp", frame_type::send_rsp, 0, 8, rc_payload{codes::resource_shortage}});
  s.push_back({"set_user_state_rsp", frame_type::set_user_state_rsp, 0, 9, rc_payload{{0xFFFFFFFF, 0}}});
  s.push_back({"remove_rsp", frame_type::remove_rsp, 0, 10, rc_payload{codes::not_found}});

  send_payload sn;
  sn.target_name = "IMS1";
  sn.stream = 0xFFFF;
  sn.control.fill(0x40);
  sn.data = filled(4096, 3);
  s.push_back({"send_by_name", frame_type::send, flags::all, 11, sn});
  send_payload st;
  st.target_token = {1, 2, 3, 4, 5, 6, 7, 8};
  s.push_back({"send_by_token_empty", frame_type::send, flags::resume, 12, st});

  deliver_payload d;
  d.source_name = "CSQ1";
  d.source_token = {9, 9, 9, 9, 9, 9, 9, 9};
  d.stream = 1;
  d.control.fill(0xC1);
  d.data = filled(100, 0);
  s.push_back({"deliver_ordered", frame_type::deliver, flags::ordered, 0, d});
  deliver_payload d0;
  d0.source_name = "Z";
  s.push_back({"deliver_empty", frame_type::deliver, 0, 0, d0});

  for (std::uint8_t k = 1; k <= 7; ++k) {
    event_payload e;
    e.kind = static_cast<event_kind>(k);
    e.member = member("G", "M" + std::to_string(k), k, static_cast<member_state>(k % 5), "SYSTEM_8");
    s.push_back({"event_" + std::to_string(k), frame_type::event, 0, k, e});
  }

  s.push_back({"query_all_groups", frame_type::query, 0, 20, query_payload{"", ""}});
  s.push_back({"query_group", frame_type::query, 0, 21, query_payload{"XCFGRP1", ""}});
  s.push_back({"query_member", frame_type::query, 0, 22, query_payload{"XCFGRP1", "IMS1"}});

  query_rsp_payload q;
  q.code = codes::ok;
  for (std::uint8_t i = 0; i < 16; ++i) {
    q.members.push_back(
        member(i % 2 ? "GROUPA" : "GROUPB", "M" + std::to_string(i), i, member_state::active));
  }
  s.push_back({"query_rsp_16", frame_type::query_rsp, 0, 23, q});
  s.push_back({"query_rsp_empty", frame_type::query_rsp, 0, 24, query_rsp_payload{codes::not_found, {}}});

  set_user_state_payload u;
  u.ustate.fill(0xAB);
  s.push_back({"set_user_state", frame_type::set_user_state, 0, 25, u});
  s.push_back({"remove", frame_type::remove, 0, 26, remove_payload{"FAILEDMEMBER0001"}});
  s.push_back({"ping_max", frame_type::ping, 0, 27, ping_payload{0xFFFFFFFFFFFFFFFFull}});
  s.push_back({"ping_zero", frame_type::ping, 0, 28, ping_payload{0}});
  s.push_back({"pong", frame_type::pong, 0, 27, ping_payload{0x0102030405060708ull}});
  s.push_back(
      {"error", frame_type::error, 0, 29, error_payload{codes::protocol_error, "bad frame\t\x01\xFF"}});
  s.push_back({"error_empty", frame_type::error, 0, 30, error_payload{{}, ""}});
  s.push_back(
      {"error_longest", frame_type::error, 0, 31, error_payload{codes::too_big, std::string(0xFFFF, 'x')}});
  return s;
}

inline bytes encode_ok(const sample& s) {
  bytes out;
  EXPECT_TRUE(encode(s.type, s.flags, s.corr, s.body, out)) << s.label;
  return out;
}

}  // namespace imsb::xcf::frame::test
