#pragma once
// Shared by the in-memory XCF backend's tests: readable gtest output for XCF codes, a join request, and a
// joined member together with the handler that records what it saw.

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "imsb/transport/memory_xcf.hpp"

namespace imsb::xcf {
inline void PrintTo(return_code c, std::ostream* os) { *os << describe(c); }
inline void PrintTo(member_state s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(event_kind k, std::ostream* os) { *os << to_string(k); }
}  // namespace imsb::xcf

namespace imsb::transport::test {

inline xcf::join_request request(std::string group, std::string member, bool lasting = false) {
  xcf::join_request r;
  r.group = std::move(group);
  r.member = std::move(member);
  r.lasting = lasting;
  return r;
}

// A joined member with the handler that records what it saw (declared first: it outlives the member).
struct node {
  recording_handler handler;
  xcf::join_result result;
  xcf::member& member() { return *result.joined; }
};

inline std::string text(const xcf::message& m) { return std::string(m.data.begin(), m.data.end()); }

// Joins and expects the join to work (join_test.cpp, which tests refusals, has its own).
inline std::unique_ptr<node> join(memory_sysplex& plex, const xcf::join_request& r) {
  auto n = std::make_unique<node>();
  n->result = plex.join(r, n->handler);
  EXPECT_TRUE(n->result.code.ok()) << describe(n->result.code);
  return n;
}

inline std::vector<std::string> texts(const std::vector<xcf::message>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(text(m));
  return out;
}

}  // namespace imsb::transport::test
