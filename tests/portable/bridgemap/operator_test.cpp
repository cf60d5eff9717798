#include "imsb/bridgemap/operator.hpp"

#include <gtest/gtest.h>

#include <string>
#include <system_error>
#include <vector>

namespace imsb::bridgemap {
namespace {

operator_command ok(std::string_view line) {
  auto r = parse_operator_command(line);
  EXPECT_TRUE(r.ok()) << line << ": " << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? *r : operator_command{};
}

TEST(operator_command, display_forms) {
  EXPECT_EQ(ok("DISPLAY PARTNER").verb, operator_verb::display_partner);
  EXPECT_EQ(ok("dis queue").verb, operator_verb::display_queue);
  EXPECT_EQ(ok("  DISP   SYSTEM  ").verb, operator_verb::display_system);
  const operator_command all = ok("DISPLAY TPIPE");
  EXPECT_EQ(all.verb, operator_verb::display_tpipe);
  EXPECT_EQ(all.tpipe, "*");
  EXPECT_EQ(ok("DIS TPIPE(*)").tpipe, "*");
  EXPECT_EQ(ok("DIS TPIPE(csq1s)").tpipe, "CSQ1S");         // unquoted: upper-cased as MQSC
  EXPECT_EQ(ok("DIS TPIPE('csq1s')").tpipe, "csq1s");       // quoted: case kept
  EXPECT_EQ(ok("display tpipe ( CSQ2N )").tpipe, "CSQ2N");  // blanks around the value
}

TEST(operator_command, suspend_resume_stop) {
  EXPECT_EQ(ok("SUSPEND QMGR FACILITY(IMSBRIDGE)").verb, operator_verb::suspend);
  EXPECT_EQ(ok("resume qmgr facility(imsbridge)").verb, operator_verb::resume);
  EXPECT_EQ(ok("STOP").verb, operator_verb::stop);
  EXPECT_EQ(ok("stop\n").verb, operator_verb::stop);
}

TEST(operator_command, reset_tpipe_all_keywords) {
  const operator_command c =
      ok("RESET TPIPE(CSQ1S) XCFMNAME(IMS1) XCFGNAME(GRP1) SENDSEQ(4294967295) RCVSEQ(0) ACTION(COMMIT)");
  EXPECT_EQ(c.verb, operator_verb::reset_tpipe);
  EXPECT_EQ(c.tpipe, "CSQ1S");
  EXPECT_EQ(c.xcf_member, "IMS1");
  EXPECT_EQ(c.xcf_group, "GRP1");
  ASSERT_TRUE(c.send_seq.has_value());
  EXPECT_EQ(*c.send_seq, 4294967295u);
  ASSERT_TRUE(c.receive_seq.has_value());
  EXPECT_EQ(*c.receive_seq, 0u);
  EXPECT_EQ(c.reset_action, operator_command::action::commit);
}

TEST(operator_command, reset_tpipe_minimal_and_any_order) {
  const operator_command c = ok("reset tpipe(csq1s) action(backout) xcfmname('ims1')");
  EXPECT_EQ(c.tpipe, "CSQ1S");
  EXPECT_EQ(c.xcf_member, "ims1");
  EXPECT_EQ(c.xcf_group, "");
  EXPECT_FALSE(c.send_seq.has_value());
  EXPECT_FALSE(c.receive_seq.has_value());
  EXPECT_EQ(c.reset_action, operator_command::action::backout);
  EXPECT_EQ(ok("RESET TPIPE(A) XCFMNAME(M)").reset_action, operator_command::action::none);
  EXPECT_EQ(ok("RESET TPIPE(A) XCFMNAME('it''s')").xcf_member, "it's");
  EXPECT_EQ(ok("RESET TPIPE(A) XCFMNAME(MEMBERNAME012345)").xcf_member, "MEMBERNAME012345");
}

struct bad {
  const char* line;
  const char* field;
  const char* detail_part;
};

TEST(operator_command, every_error) {
  const std::vector<bad> cases = {
      {"", "", "empty command"},
      {"   ", "", "empty command"},
      {"FOO", "FOO", "unknown command FOO"},
      {"(X)", "(", "unexpected '('"},
      {"DISPLAY", "DISPLAY", "DISPLAY needs PARTNER, QUEUE, TPIPE or SYSTEM"},
      {"DISPLAY(X) QUEUE", "DISPLAY", "DISPLAY takes no value"},
      {"DISPLAY CHANNEL", "CHANNEL", "DISPLAY CHANNEL is not known"},
      {"DISPLAY QUEUE(X)", "QUEUE", "QUEUE takes no value"},
      {"DISPLAY QUEUE EXTRA", "EXTRA", "takes nothing more"},
      {"DISPLAY TPIPE(TOOLONGNAME)", "TPIPE", "longer than 8"},
      {"DISPLAY TPIPE()", "TPIPE", "TPIPE needs a name"},
      {"DISPLAY TPIPE(A", "TPIPE", "'(' without ')'"},
      {"DISPLAY TPIPE('A)", "TPIPE", "no closing quote"},
      {"DISPLAY TPIPE('A' B)", "TPIPE", "')' expected"},
      {"DISPLAY TPIPE('A B')", "TPIPE", "contains a blank"},
      {"SUSPEND", "SUSPEND", "SUSPEND needs QMGR FACILITY(IMSBRIDGE)"},
      {"SUSPEND QUEUE", "QUEUE", "SUSPEND needs QMGR"},
      {"SUSPEND QMGR", "FACILITY", "needs FACILITY(IMSBRIDGE)"},
      {"RESUME QMGR FACILITY(CICS)", "FACILITY", "FACILITY(CICS) is not supported"},
      {"RESUME QMGR FACILITY", "FACILITY", "is not supported"},
      {"RESUME QMGR(X) FACILITY(IMSBRIDGE)", "QMGR", "QMGR takes no value"},
      {"RESUME QMGR FACILITY(IMSBRIDGE) NOW", "NOW", "takes nothing more"},
      {"STOP NOW", "NOW", "STOP takes nothing more"},
      {"STOP(X)", "STOP", "STOP takes no value"},
      {"RESET", "RESET", "RESET needs TPIPE(name)"},
      {"RESET QUEUE(X)", "QUEUE", "RESET needs TPIPE(name)"},
      {"RESET TPIPE XCFMNAME(M)", "TPIPE", "needs a Tpipe name"},
      {"RESET TPIPE(A)", "XCFMNAME", "RESET TPIPE needs XCFMNAME"},
      {"RESET TPIPE(A) XCFGNAME(G)", "XCFMNAME", "RESET TPIPE needs XCFMNAME"},
      {"RESET TPIPE(A) XCFMNAME", "XCFMNAME", "needs a value"},
      {"RESET TPIPE(A) XCFMNAME(MEMBERNAME0123456)", "XCFMNAME", "longer than 16"},
      {"RESET TPIPE(A) XCFMNAME(M) XCFGNAME(GROUPNAME)", "XCFGNAME", "longer than 8"},
      {"RESET TPIPE(A) XCFMNAME(M) XCFMNAME(N)", "XCFMNAME", "given twice"},
      {"RESET TPIPE(A) XCFMNAME(M) TPIPE(B)", "TPIPE", "given twice"},
      {"RESET TPIPE(A) XCFMNAME(M) SENDSEQ(1) SENDSEQ(2)", "SENDSEQ", "given twice"},
      {"RESET TPIPE(A) XCFMNAME(M) SENDSEQ(4294967296)", "SENDSEQ", "SENDSEQ must be 0..4294967295"},
      {"RESET TPIPE(A) XCFMNAME(M) SENDSEQ(-1)", "SENDSEQ", "SENDSEQ must be 0..4294967295"},
      {"RESET TPIPE(A) XCFMNAME(M) SENDSEQ(12345678901)", "SENDSEQ", "SENDSEQ must be 0..4294967295"},
      {"RESET TPIPE(A) XCFMNAME(M) RCVSEQ()", "RCVSEQ", "RCVSEQ must be 0..4294967295"},
      {"RESET TPIPE(A) XCFMNAME(M) RCVSEQ(1X)", "RCVSEQ", "RCVSEQ must be 0..4294967295"},
      {"RESET TPIPE(A) XCFMNAME(M) RCVSEQ(1) RCVSEQ(1)", "RCVSEQ", "given twice"},
      {"RESET TPIPE(A) XCFMNAME(M) ACTION(REDO)", "ACTION", "ACTION(REDO) must be"},
      {"RESET TPIPE(A) XCFMNAME(M) ACTION(COMMIT) ACTION(BACKOUT)", "ACTION", "given twice"},
      {"RESET TPIPE(A) XCFMNAME(M) XCFGNAME(G) XCFGNAME(H)", "XCFGNAME", "given twice"},
      {"RESET TPIPE(A) XCFMNAME(M) FORCE", "FORCE", "does not take FORCE"},
      {"RESET TPIPE(A) XCFMNAME(M) )", ")", "unexpected ')'"},
  };
  for (const bad& b : cases) {
    auto r = parse_operator_command(b.line);
    ASSERT_FALSE(r.ok()) << "'" << b.line << "' parsed";
    EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument)) << b.line;
    EXPECT_EQ(r.error().field, b.field) << b.line << ": " << r.error().to_string();
    EXPECT_NE(r.error().detail.find(b.detail_part), std::string::npos) << b.line << ": " << r.error().detail;
    EXPECT_LE(r.error().offset, std::string_view(b.line).size()) << b.line;
  }
}

TEST(operator_command, error_offsets_point_at_the_word) {
  auto r = parse_operator_command("RESET TPIPE(A) XCFMNAME(M) SENDSEQ(x)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, 35u);
  auto u = parse_operator_command("  BOGUS");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().offset, 2u);
}

}  // namespace
}  // namespace imsb::bridgemap
