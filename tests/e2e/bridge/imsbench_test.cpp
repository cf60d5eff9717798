// imsbench as a real program against the running bridge: N requesters over M bridge queues, CM0 persistent
// and CM1, each request answered once; the JSON summary counts them, and the depth of the queues afterwards
// shows nothing was left behind or dead-lettered.
// Beyond the first version: the example workload with think time, and the histogram, timeline and plot files
// agree with the report; SIGINT or SIGTERM ends a long run early and the report still comes, marked
// interrupted.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "bridge_e2e.hpp"
#include "imsb/core/messages.hpp"

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
    EXPECT_EQ(rig.depth_when(bridge_q, 0), 0) << s.what;
    EXPECT_EQ(rig.depth_when(bridge_q2, 0), 0) << s.what;
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
  EXPECT_NE(r.err.find(std::string(imsb::msg::IMB4943I) + " imsbench: wrote the plot"), std::string::npos)
      << r.err;
  EXPECT_EQ(rig.depth(dead_q), 0);
}

// A -d 30 run that SIGINT (Ctrl-C) or SIGTERM ends after its first progress line (about 1 s): imsbench
// exits within a few seconds with 0, its JSON report says interrupted, every request sent is answered or
// counted as an error, and the histogram counts every reply.
void interrupted_run(bridge_rig& rig, int sig, const char* name) {
  const std::string out = rig.dir.file(std::string("int-") + name + ".out"),
                    err = rig.dir.file(std::string("int-") + name + ".err"),
                    h = rig.dir.file(std::string("int-") + name + "-h.csv");
  std::string cmd = "exec env -u MQSERVER " + rig.env() + " " + sh_quote(IMSB_IMSBENCH);
  for (const std::string& a :
       {std::string("--prefix"), rig.prefix(), std::string("-m"), std::string(qm_name), std::string("-q"),
        std::string(bridge_q), std::string("-q"), std::string(bridge_q2), std::string("-r"),
        std::string(reply_q), std::string("-n"), std::string("3"), std::string("-d"), std::string("30"),
        std::string("--progress"), std::string("--json"), std::string("--histogram"), h})
    cmd += " " + sh_quote(a);
  cmd += " <" + sh_quote("/dev/null") + " >" + sh_quote(out) + " 2>" + sh_quote(err);
  // exec (sh) and env both exec: the child's pid is imsbench's, so the signal reaches it.
  child_process bench("/bin/sh", {"-c", cmd});
  ASSERT_TRUE(bridge_rig::wait_text([&] { return read_file(err); }, imsb::msg::IMB4944I))
      << read_file(err) << rig.logs();
  ASSERT_TRUE(bench.signal(sig));
  const auto sent = std::chrono::steady_clock::now();
  const auto status = bench.wait_exit(std::chrono::milliseconds(10000));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_TRUE(status.has_value()) << name << ": still running 10 s after the signal\n" << read_file(err);
  ASSERT_TRUE(WIFEXITED(*status)) << name << ": ended by a signal, status " << *status << "\n"
                                  << read_file(err);
  const std::string j = read_file(out), e = read_file(err);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << name << "\n" << j << e << rig.logs();
  EXPECT_LT(took, 5.0) << name << "\n" << e;
  EXPECT_NE(j.find("\"interrupted\":true,\"signal\":\"" + std::string(name) + "\""), std::string::npos) << j;
  const long requests = json_int(j, "requests"), replies = json_int(j, "replies"),
             errors = json_int(j, "errors");
  EXPECT_GT(requests, 0) << j;
  EXPECT_EQ(requests, replies + errors) << j;
  EXPECT_EQ(errors, 0) << j;
  long hist = 0;
  for (const auto& row : csv_rows(read_file(h))) hist += std::stol(row.at(1));
  EXPECT_EQ(hist, replies) << read_file(h);
  EXPECT_NE(
      e.find(std::string(imsb::msg::IMB4944I) + " imsbench: " + std::string(name) + ": ending the run early"),
      std::string::npos)
      << e;
  EXPECT_NE(e.find(std::string(imsb::msg::IMB4943I) + " imsbench: wrote the histogram"), std::string::npos)
      << e;
  // Nothing left behind: every reply was taken, no request waits on a bridge queue.
  EXPECT_EQ(rig.depth(reply_q), 0) << name;
  EXPECT_EQ(rig.depth_when(bridge_q, 0), 0) << name;
  EXPECT_EQ(rig.depth_when(bridge_q2, 0), 0) << name;
}

TEST_P(imsbench_e2e, SigintEndsTheRunEarlyWithItsReport) {
  bridge_rig rig(GetParam());
  const std::string failed = rig.start();
  ASSERT_EQ(failed, "") << failed;
  interrupted_run(rig, SIGINT, "SIGINT");
}

TEST_P(imsbench_e2e, SigtermEndsTheRunEarlyWithItsReport) {
  bridge_rig rig(GetParam());
  const std::string failed = rig.start();
  ASSERT_EQ(failed, "") << failed;
  interrupted_run(rig, SIGTERM, "SIGTERM");
}

INSTANTIATE_TEST_SUITE_P(modes, imsbench_e2e, ::testing::Values(qm_mode::embedded, qm_mode::client),
                         [](const ::testing::TestParamInfo<qm_mode>& p) {
                           return std::string(to_string(p.param));
                         });

}  // namespace
}  // namespace imsb::test
