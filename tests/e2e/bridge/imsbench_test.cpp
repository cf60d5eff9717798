// imsbench as a real program against the running bridge (issue 7 "imsbench, its first version"): N
// requesters over M bridge queues, CM0 persistent and CM1, each request answered once; the JSON summary
// counts them, and the depth of the queues afterwards shows nothing was left behind or dead-lettered.

#include <gtest/gtest.h>

#include <regex>
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

INSTANTIATE_TEST_SUITE_P(modes, imsbench_e2e, ::testing::Values(qm_mode::embedded, qm_mode::client),
                         [](const ::testing::TestParamInfo<qm_mode>& p) {
                           return std::string(to_string(p.param));
                         });

}  // namespace
}  // namespace imsb::test
