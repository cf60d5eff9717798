// The NAK outcome table (bridgemap/outcomes.hpp), the back-off, and docs/bridge-errors.md against
// describe_table(): every row's sense and outcome must be in one line of the docs' table.

#include "imsb/bridgemap/outcomes.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "imsb/otma/sense.hpp"

namespace imsb::bridgemap {
namespace {

TEST(bridgemap_outcomes, application_errors) {
  auto d = decide_nak(0x1A, 0x1D, false);
  EXPECT_EQ(d.what, outcome::application_error);
  EXPECT_EQ(d.feedback, 629);  // 600 + X'1D'
  EXPECT_FALSE(d.reply_follows);
  d = decide_nak(0x23, 0, false);
  EXPECT_EQ(d.what, outcome::application_error);
  EXPECT_EQ(d.feedback, 335);
  for (std::uint16_t s : {0x01, 0x02, 0x05, 0x07, 0x08}) {
    d = decide_nak(s, 0, true);
    EXPECT_EQ(d.what, outcome::application_error) << s;
    EXPECT_EQ(d.feedback, 300 + s) << s;
    EXPECT_TRUE(d.reply_follows) << s;  // DFS1288E / DFS1291E / DFS1292E ... follow as the reply
    EXPECT_FALSE(decide_nak(s, 0, false).reply_follows) << s;
  }
  // imsemu NAKs DFS1288E (an LTERM as transaction code) with X'02' and the text follows.
  d = decide_nak(otma::sense::unknown_destination, 0, true);
  EXPECT_TRUE(d.reply_follows);
}

TEST(bridgemap_outcomes, resources_protocol_and_stop) {
  for (std::uint16_t s : {0x30, 0x11, 0x2E}) {
    const auto d = decide_nak(s, 0, false);
    EXPECT_EQ(d.what, outcome::resources) << s;
    EXPECT_FALSE(d.reply_follows);
  }
  EXPECT_EQ(decide_nak(0x1F, 0, false).what, outcome::protocol_reset);
  EXPECT_EQ(decide_nak(0x1C, 0, false).what, outcome::stop_tpipe);
  EXPECT_EQ(decide_nak(0x03, 0, false).what, outcome::stop_tpipe);
  EXPECT_EQ(decide_nak(0x99, 0, true).what, outcome::stop_tpipe);
  EXPECT_EQ(decide_nak(0, 0, false).what, outcome::stop_tpipe);
  EXPECT_FALSE(decide_nak(0x1C, 0, true).reply_follows);
}

TEST(bridgemap_outcomes, names) {
  EXPECT_EQ(to_string(outcome::application_error), "application_error");
  EXPECT_EQ(to_string(outcome::resources), "resources");
  EXPECT_EQ(to_string(outcome::protocol_reset), "protocol_reset");
  EXPECT_EQ(to_string(outcome::stop_tpipe), "stop_tpipe");
}

TEST(bridgemap_outcomes, table_agrees_with_decide_nak) {
  const auto& rows = describe_table();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().sense, 0);  // the "any other" row is last
  for (const auto& row : rows) {
    if (row.sense == 0) continue;
    EXPECT_EQ(decide_nak(row.sense, 0, false).what, row.what) << row.sense_name;
    EXPECT_FALSE(row.console.empty());
    if (row.what == outcome::application_error && row.sense != 0x1A) {
      EXPECT_EQ(row.feedback, std::to_string(300 + row.sense)) << row.sense_name;
    }
  }
}

TEST(bridgemap_outcomes, backoff_doubles_and_caps) {
  EXPECT_EQ(backoff_ms(1, 100, 5000), 100u);
  EXPECT_EQ(backoff_ms(2, 100, 5000), 200u);
  EXPECT_EQ(backoff_ms(3, 100, 5000), 400u);
  EXPECT_EQ(backoff_ms(6, 100, 5000), 3200u);
  EXPECT_EQ(backoff_ms(7, 100, 5000), 5000u);
  EXPECT_EQ(backoff_ms(4000000000u, 100, 5000), 5000u);
  EXPECT_EQ(backoff_ms(0, 100, 5000), 100u);
  EXPECT_EQ(backoff_ms(3, 9000, 5000), 5000u);
  EXPECT_EQ(backoff_ms(64, 1, ~std::uint64_t{0}), std::uint64_t{1} << 63);
}

std::vector<std::string> table_lines() {
  std::ifstream in(std::string(IMSB_DOCS_DIR) + "/bridge-errors.md");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '|') lines.push_back(line);
  }
  return lines;
}

TEST(bridgemap_outcomes, docs_list_every_row) {
  const auto lines = table_lines();
  ASSERT_FALSE(lines.empty()) << "no table in " << IMSB_DOCS_DIR << "/bridge-errors.md";
  for (const auto& row : describe_table()) {
    const std::string sense = row.sense == 0 ? "any other" : otma::sense_hex(row.sense);
    const std::string what(to_string(row.what));
    bool found = false;
    for (const auto& l : lines) {
      if (l.find(sense) != std::string::npos && l.find(what) != std::string::npos &&
          l.find(std::string(row.console)) != std::string::npos) {
        found = true;
        break;
      }
    }
    EXPECT_TRUE(found) << "docs/bridge-errors.md has no table line with " << sense << ", " << what << " and "
                       << row.console;
  }
}

}  // namespace
}  // namespace imsb::bridgemap
