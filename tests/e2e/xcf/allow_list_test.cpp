// The group allow-list (the stand-in for RACF's IMSXCF profiles [D], docs/design/xcf-emulation.md)
// and `xcfhub status` (transport/README.md "Status" [D]).

#include <gtest/gtest.h>

#include <cctype>

#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The status line of `member`: the line that starts (after blanks) with its name.
std::string line_of(const std::string& listing, const std::string& member) {
  std::size_t start = 0;
  while (start < listing.size()) {
    const std::size_t end = listing.find('\n', start);
    const std::string line =
        listing.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, member.size() + 1, member + " ") == 0) return line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

TEST(XcfAllowList, UnlistedMemberRefusedAndStatusListsStates) {
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", "1000", "--allow", "IMSBGRP=MEMA,MEMB"});
  transport::tcp_service service(client_options(hub.endpoint()));
  recorder events_a;
  recorder events_b;
  recorder events_c;
  recorder events_x;
  auto a = service.join(join_as("IMSBGRP", "MEMA", true), events_a);
  ASSERT_EQ(a.code, xcf::codes::first_active);  // [C: XCF-JOIN] 4/4
  auto b = service.join(join_as("IMSBGRP", "MEMB", true), events_b);
  ASSERT_EQ(b.code, xcf::codes::ok);
  auto c = service.join(join_as("IMSBGRP", "MEMC", true), events_c);
  EXPECT_EQ(c.code, xcf::codes::not_authorized);  // 8/18
  EXPECT_EQ(c.joined, nullptr);
  // A group without an entry admits anyone.
  auto x = service.join(join_as("OTHERGRP", "MEMC"), events_x);
  EXPECT_TRUE(x.code.ok()) << xcf::describe(x.code);

  // MEMB ends without leaving: lasting, so it stays as failed.
  b.joined.reset();
  ASSERT_TRUE(events_a.wait_event(xcf::event_kind::failed, "MEMB", milliseconds(5000)));

  child_process status(IMSB_XCFHUB, {"status", "--connect", hub.endpoint()}, output_to::capture());
  const std::string listing = status.read_all(milliseconds(15000));
  const auto exit_status = status.wait_exit(milliseconds(5000));
  ASSERT_TRUE(exit_status);
  EXPECT_TRUE(WIFEXITED(*exit_status) && WEXITSTATUS(*exit_status) == 0) << listing;
  std::cout << listing;
  EXPECT_NE(listing.find("IMSBGRP"), std::string::npos) << listing;
  EXPECT_NE(listing.find("OTHERGRP"), std::string::npos) << listing;
  EXPECT_NE(upper(line_of(listing, "MEMA")).find("ACTIVE"), std::string::npos) << listing;
  EXPECT_NE(upper(line_of(listing, "MEMB")).find("FAILED"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("IMSBGRP") < listing.find("OTHERGRP"), true) << listing;

  // The same through the client backend: QUERY without joining, and IXCQUERY of the group.
  std::vector<xcf::member_info> all;
  ASSERT_EQ(service.query(all), xcf::codes::ok);
  EXPECT_EQ(all.size(), 3u);
  std::vector<xcf::member_info> group;
  ASSERT_EQ(a.joined->query(group), xcf::codes::ok);
  ASSERT_EQ(group.size(), 2u);
  EXPECT_EQ(group[0].name, "MEMA");
  EXPECT_EQ(group[0].state, xcf::member_state::active);
  EXPECT_EQ(group[1].name, "MEMB");
  EXPECT_EQ(group[1].state, xcf::member_state::failed);

  // IXCDELET of the failed member; it is then gone from the listing.
  EXPECT_EQ(a.joined->remove("MEMB"), xcf::codes::ok);
  ASSERT_EQ(a.joined->query(group), xcf::codes::ok);
  EXPECT_EQ(group.size(), 1u);
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(x.joined->leave(), xcf::codes::ok);
}

}  // namespace
}  // namespace imsb::test
