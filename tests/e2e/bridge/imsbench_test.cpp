// imsbench as a real program against the running bridge (issue 7 "imsbench, its first version"): N
// requesters over M bridge queues, CM0 persistent and CM1, each request answered once; the JSON summary
// counts them, and the depth of the queues afterwards shows nothing was left behind or dead-lettered.
// Issue 8: the example workload with think time, and the histogram, timeline and plot files agree with
// the report.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "bridge_e2e.hpp"

namespace imsb::test {
namespace {

// The integer after "key": in imsbench's one-line JSON; -1 when absent.
long json_int(const std::string& json, const std::string& key) {
  std::smatch m;
  return std::regex_search(json, m, std::regex("\"" + key + "\":([0-9]+)")) ? std::stol(m[1].str()) : -1;
}

class imsbench_e2e : public ::testing::TestWithParam<qm_mode> {};

TEST_P(imsbench_e2e, RequestersOverQueuesAllAnswered) {
  bridge_rig rig(GetParam());
  const std::string failed = rig.start();
  ASSERT_EQ(failed, "") << failed;

  struct scenario {
    const char* what;
    std::vector<std::string> args;
  };
  const scenario scenarios[] = {
      {"CM0 persistent IVTNO", {"--commit-mode", "0", "--persistent", "--tran", "IVTNO"}},
      {"CM1 ECHO 1000 bytes", {"--commit-mode", "1", "--tran", "ECHO", "--size", "1000"}},
  };
  for (const auto& s : scenarios) {
    std::vector<std::string> args = {"--prefix", rig.prefix(), "-m",      qm_name, "-q",
                                     bridge_q,   "-q",         bridge_q2, "-r",    reply_q,
                                     "-n",       "3",          "--count", "30",    "--json"};
    args.insert(args.end(), s.args.begin(), s.args.end());
    ran r = rig.run(IMSB_IMSBENCH, args, {}, false);
    EXPECT_EQ(r.code, 0) << s.what << "\n" << r.both() << rig.logs();
    EXPECT_EQ(json_int(r.out, "requests"), 30) << s.what << "\n" << r.out;
    EXPECT_EQ(json_int(r.out, "replies"), 30) << s.what << "\n" << r.out;
    EXPECT_EQ(json_int(r.out, "errors"), 0) << s.what << "\n" << r.out;
    EXPECT_EQ(json_int(r.out, "requesters"), 3) << r.out;
    EXPECT_EQ(json_int(r.out, "queues"), 2) << r.out;
    // Every reply was taken, no request is left on a bridge queue, nothing was dead-lettered.
    EXPECT_EQ(rig.depth(reply_q), 0) << s.what;
    EXPECT_EQ(rig.depth(bridge_q), 0) << s.what;
    EXPECT_EQ(rig.depth(bridge_q2), 0) << s.what;
    EXPECT_EQ(rig.depth(dead_q), 0) << s.what;
  }
}

// The rows of a CSV file after its header, split at commas.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    rows.emplace_back();
    std::istringstream l(line);
    std::string cell;
    while (std::getline(l, cell, ',')) rows.back().push_back(cell);
  }
  return rows;
}

TEST_P(imsbench_e2e, WorkloadThinkTimeAndFilesAgreeWithTheReport) {
  bridge_rig rig(GetParam());
  const std::string failed = rig.start();
  ASSERT_EQ(failed, "") << failed;
  const std::string h = rig.dir.file("bench-h.csv"), t = rig.dir.file("bench-t.csv"),
                    p = rig.dir.file("bench-p.svg");
  ran r = rig.run(IMSB_IMSBENCH, {"--prefix",     rig.prefix(),
                                  "-m",           qm_name,
                                  "-q",           bridge_q,
                                  "-q",           bridge_q2,
                                  "-r",           reply_q,
                                  "-n",           "2",
                                  "--count",      "60",
                                  "--workload",   examples_dir() + "/imsbench/mix.workload",
                                  "--think-ms",   "2",
                                  "--think-dist", "exp",
                                  "--histogram",  h,
                                  "--timeline",   t,
                                  "--plot",       p,
                                  "--progress",   "--json"},
                  {}, false);
  EXPECT_EQ(r.code, 0) << r.both() << rig.logs();
  EXPECT_EQ(json_int(r.out, "format"), 1) << r.out;
  EXPECT_EQ(json_int(r.out, "requests"), 60) << r.out;
  EXPECT_EQ(json_int(r.out, "replies"), 60) << r.out;
  EXPECT_EQ(json_int(r.out, "errors"), 0) << r.out;
  // Each line of the example was drawn (the draws are seeded: the same every run) and answered.
  long drawn = 0;
  const std::regex line_re(
      R"("line":([0-9]+),"weight":[0-9]+,"message":"[^"]*","requests":([0-9]+),"replies":([0-9]+),"errors":0)");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line_re); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ((*it)[2].str(), (*it)[3].str()) << r.out;
    drawn += std::stol((*it)[2].str());
  }
  EXPECT_EQ(drawn, 60) << r.out;
  // The histogram counts every reply; the timeline adds up to the report; the plot is an SVG with its
  // series.
  long hist = 0, sent = 0, replies = 0, errors = 0;
  const auto hrows = csv_rows(read_file(h));
  EXPECT_EQ(hrows.size(), 62u);
  for (const auto& row : hrows) hist += std::stol(row.at(1));
  EXPECT_EQ(hist, 60);
  for (const auto& row : csv_rows(read_file(t))) {
    sent += std::stol(row.at(1));
    replies += std::stol(row.at(2));
    errors += std::stol(row.at(3));
  }
  EXPECT_EQ(sent, 60);
  EXPECT_EQ(replies, 60);
  EXPECT_EQ(errors, 0);
  const std::string svg = read_file(p);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("<path id=\"p99\" d=\"M"), std::string::npos) << svg.substr(0, 400);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // Standard error: the files written; progress lines only once a second has gone by.
  EXPECT_NE(r.err.find("IMB4943I imsbench: wrote the plot"), std::string::npos) << r.err;
  EXPECT_EQ(rig.depth(dead_q), 0);
}

INSTANTIATE_TEST_SUITE_P(modes, imsbench_e2e, ::testing::Values(qm_mode::embedded, qm_mode::client),
                         [](const ::testing::TestParamInfo<qm_mode>& p) {
                           return std::string(to_string(p.param));
                         });

}  // namespace
}  // namespace imsb::test
