// External programs (imsemu/include/imsb/imsemu/external_program.hpp, the LLZZ format [D]): the output
// parser as a pure function, then real /bin/sh programs written into a temporary folder.

#include "imsb/imsemu/external_program.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "process.hpp"

namespace imsb::imsemu {
namespace {

using std::chrono::milliseconds;

bytes raw(std::string_view s) { return bytes(s.begin(), s.end()); }

bytes ebcdic(const std::string& s) {
  return codepage::convert(bytes_view::of(s), codepage::ccsid_819, codepage::ccsid_037).out;
}

bool log_has(const external_result& x, std::string_view what) {
  for (const auto& l : x.log) {
    if (l.find(what) != std::string::npos) return true;
  }
  return false;
}

std::string log_text(const external_result& x) {
  std::string s;
  for (const auto& l : x.log) s += l + "\n";
  return s;
}

// ---- parse_program_output --------------------------------------------------------------------------

TEST(external_output, empty_output_is_no_segments) {
  auto r = parse_program_output(bytes_view());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST(external_output, segments_back_to_back_with_big_endian_ll) {
  const bytes out =
      raw(std::string("\x00\x07\x00\x00"
                      "ABC"
                      "\x00\x04\x00\x00"
                      "\x00\x05\x00\x00"
                      "Z",
                      16));
  auto r = parse_program_output(bytes_view(out));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].data, raw("ABC"));
  EXPECT_TRUE((*r)[1].data.empty());
  EXPECT_EQ((*r)[2].data, raw("Z"));
}

TEST(external_output, ll_below_four_names_the_segment_and_offset) {
  const bytes out =
      raw(std::string("\x00\x05\x00\x00"
                      "A"
                      "\x00\x03\x00\x00",
                      9));
  auto r = parse_program_output(bytes_view(out));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "output.segment[1].LL");
  EXPECT_EQ(r.error().offset, 5u);
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::bad_message));
}

TEST(external_output, ll_past_the_end_is_truncated_output) {
  const bytes out =
      raw(std::string("\x00\x10\x00\x00"
                      "ABC",
                      7));
  auto r = parse_program_output(bytes_view(out));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "output.segment[0].LL");
  EXPECT_NE(r.error().detail.find("past the end"), std::string::npos) << r.error().detail;
}

TEST(external_output, prefix_cut_short_is_an_error) {
  const bytes out =
      raw(std::string("\x00\x05\x00\x00"
                      "A"
                      "\x00\x05\x00",
                      8));
  auto r = parse_program_output(bytes_view(out));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "output.segment[1].LL");
  EXPECT_EQ(r.error().offset, 5u);
}

TEST(external_output, nonzero_zz_is_an_error) {
  const bytes out =
      raw(std::string("\x00\x05\x01\x00"
                      "A",
                      5));
  auto r = parse_program_output(bytes_view(out));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "output.segment[0].ZZ");
  EXPECT_EQ(r.error().offset, 2u);
}

TEST(external_output, text_without_prefixes_is_rejected) {
  auto r = parse_program_output(bytes_view(raw("hello world\n")));
  EXPECT_FALSE(r.ok());
}

TEST(external_output, input_bytes_parse_back_to_the_same_segments) {
  const std::vector<bytes> segs{ebcdic("ECHO    HELLO"), bytes{}, bytes(300, 0xC1)};
  const bytes in = program_input_bytes(segs);
  ASSERT_EQ(in.size(), 4 * 3 + 13 + 300u);
  EXPECT_EQ(in[0], 0x00);
  EXPECT_EQ(in[1], 17);             // LL big-endian, prefix included
  EXPECT_EQ(in[17 + 4 + 0], 0x01);  // the third segment: LL 304 = X'0130'
  EXPECT_EQ(in[17 + 4 + 1], 0x30);
  auto r = parse_program_output(bytes_view(in));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  for (std::size_t i = 0; i < segs.size(); ++i) EXPECT_EQ((*r)[i].data, segs[i]);
}

// ---- real programs ---------------------------------------------------------------------------------

class external_program_test : public ::testing::Test {
 protected:
  std::string script(const std::string& name, const std::string& body, mode_t mode = 0755) {
    const std::string path = dir_.file(name);
    {
      std::ofstream f(path, std::ios::binary);
      f << "#!/bin/sh\n" << body << "\n";
    }
    ::chmod(path.c_str(), mode);
    return path;
  }
  ims::input_message input(const std::vector<std::string>& texts) {
    ims::input_message in;
    in.transaction = "EXTTRAN";
    in.tpipe = "TPIPE1";
    in.user_id = "CLERK1";
    in.group = "CLERKS";
    in.commit_mode = 1;
    for (const auto& t : texts) in.segments.push_back(ebcdic(t));
    return in;
  }
  external_options options() {
    external_options o;
    o.program_name = "EXTPGM";
    o.member = "MQCLIENT";
    o.imsid = "IMSA";
    return o;
  }

  test::temp_dir dir_;
};

TEST_F(external_program_test, exec_cat_echoes_the_input_segments_as_the_reply) {
  const auto in = input({"EXTTRAN HELLO", "SECOND SEGMENT"});
  const auto x = run_external_program(script("echo.sh", "exec cat"), in, options());
  ASSERT_FALSE(x.run.abend) << *x.run.abend << "\n" << log_text(x);
  ASSERT_EQ(x.run.outputs.size(), 1u);
  EXPECT_TRUE(x.run.outputs[0].destination.empty());
  EXPECT_EQ(x.run.outputs[0].segments, in.segments);
}

TEST_F(external_program_test, printf_llzz_output_becomes_the_reply) {
  // LL = 9: "HELLO" plus the prefix, ZZ 0.
  const auto x = run_external_program(script("hello.sh", R"(cat >/dev/null; printf '\000\011\000\000HELLO')"),
                                      input({"EXTTRAN"}), options());
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  ASSERT_EQ(x.run.outputs.size(), 1u);
  ASSERT_EQ(x.run.outputs[0].segments.size(), 1u);
  EXPECT_EQ(x.run.outputs[0].segments[0], raw("HELLO"));
}

TEST_F(external_program_test, empty_stdout_is_no_reply_and_no_abend) {
  const auto x = run_external_program(script("quiet.sh", "cat >/dev/null"), input({"EXTTRAN"}), options());
  EXPECT_FALSE(x.run.abend);
  EXPECT_TRUE(x.run.outputs.empty());
}

TEST_F(external_program_test, exit_3_abends_u0456_and_drops_the_output) {
  const auto x = run_external_program(script("fail.sh", R"(printf '\000\005\000\000X'; exit 3)"),
                                      input({"EXTTRAN"}), options());
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0456", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(x.run.outputs.empty());
  EXPECT_TRUE(log_has(x, imsb::msg::IMB5047E)) << log_text(x);
  EXPECT_TRUE(log_has(x, "EXIT STATUS 3")) << log_text(x);
}

TEST_F(external_program_test, killed_by_a_signal_abends_u0456) {
  const auto x = run_external_program(script("kill.sh", "kill -9 $$"), input({"EXTTRAN"}), options());
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0456", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(log_has(x, imsb::msg::IMB5048E)) << log_text(x);
  EXPECT_TRUE(log_has(x, "SIGNAL 9")) << log_text(x);
}

TEST_F(external_program_test, sleeping_past_the_time_limit_abends_u0240_and_is_killed) {
  auto o = options();
  o.timeout = milliseconds(300);
  const auto started = std::chrono::steady_clock::now();
  const auto x = run_external_program(script("slow.sh", "sleep 20"), input({"EXTTRAN"}), o);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0240", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(log_has(x, imsb::msg::IMB5049E)) << log_text(x);
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_F(external_program_test, garbage_output_abends_u0457_naming_the_segment) {
  const auto x = run_external_program(script("garbage.sh", "cat >/dev/null; echo hello world"),
                                      input({"EXTTRAN"}), options());
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0457", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(log_has(x, imsb::msg::IMB5050E)) << log_text(x);
  EXPECT_TRUE(log_has(x, "output.segment[0].LL")) << log_text(x);
}

TEST_F(external_program_test, endless_output_is_cut_at_the_limit_and_abends_u0457) {
  auto o = options();
  o.max_output = 100'000;
  const auto started = std::chrono::steady_clock::now();
  const auto x = run_external_program(script("flood.sh", "exec cat /dev/zero"), input({"EXTTRAN"}), o);
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0457", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(log_has(x, "MORE THAN 100000 BYTES")) << log_text(x);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST_F(external_program_test, missing_file_abends_u0456_with_the_errno_text) {
  const auto x = run_external_program(dir_.file("no-such-program"), input({"EXTTRAN"}), options());
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0456", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(log_has(x, imsb::msg::IMB5046E)) << log_text(x);
  EXPECT_TRUE(log_has(x, "No such file or directory")) << log_text(x);
}

TEST_F(external_program_test, file_without_execute_permission_abends_with_permission_denied) {
  const auto x = run_external_program(script("noexec.sh", "exec cat", 0644), input({"EXTTRAN"}), options());
  ASSERT_TRUE(x.run.abend);
  EXPECT_TRUE(log_has(x, "Permission denied")) << log_text(x);
}

TEST_F(external_program_test, writing_200kb_before_reading_a_200kb_input_does_not_deadlock) {
  // Both directions are beyond a pipe's 64 KB: a writer that waited for the reader would hang here.
  std::vector<std::string> big;
  for (int i = 0; i < 7; ++i) big.push_back(std::string(30'000, 'A' + static_cast<char>(i)));
  auto o = options();
  o.timeout = milliseconds(20'000);
  // 205 segments of LL 1000 (X'03E8': octal 003 350), 996 data bytes each, then the input is read.
  const auto x = run_external_program(script("early.sh", R"(seg=$(printf '%0996d' 0)
i=0
while [ $i -lt 205 ]; do printf '\003\350\000\000%s' "$seg"; i=$((i+1)); done
cat >/dev/null)"),
                                      input(big), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend << "\n" << log_text(x);
  ASSERT_EQ(x.run.outputs.size(), 1u);
  ASSERT_EQ(x.run.outputs[0].segments.size(), 205u);
  EXPECT_EQ(x.run.outputs[0].segments[204], bytes(996, '0'));
}

TEST_F(external_program_test, stderr_lines_go_to_the_log_as_imb5045i) {
  const auto x = run_external_program(script("talk.sh", "cat >/dev/null; echo first >&2; echo second >&2"),
                                      input({"EXTTRAN"}), options());
  EXPECT_FALSE(x.run.abend);
  ASSERT_EQ(x.log.size(), 2u) << log_text(x);
  EXPECT_EQ(x.log[0], std::string(imsb::msg::IMB5045I) + " PGM(EXTPGM) TRAN(EXTTRAN) STDERR: first");
  EXPECT_EQ(x.log[1], std::string(imsb::msg::IMB5045I) + " PGM(EXTPGM) TRAN(EXTTRAN) STDERR: second");
}

TEST_F(external_program_test, too_many_stderr_lines_are_counted_not_logged) {
  auto o = options();
  o.max_log_lines = 3;
  const auto x = run_external_program(
      script("chatty.sh", "i=0; while [ $i -lt 10 ]; do echo line$i >&2; i=$((i+1)); done"),
      input({"EXTTRAN"}), o);
  EXPECT_FALSE(x.run.abend);
  ASSERT_EQ(x.log.size(), 4u) << log_text(x);
  EXPECT_TRUE(log_has(x, imsb::msg::IMB5051W)) << log_text(x);
  EXPECT_TRUE(log_has(x, "7 MORE LINES")) << log_text(x);
}

TEST_F(external_program_test, a_megabyte_on_stderr_neither_blocks_the_program_nor_floods_the_log) {
  auto o = options();
  o.timeout = milliseconds(20'000);
  const auto x = run_external_program(
      script("noisy.sh",
             R"(cat >/dev/null; head -c 1000000 /dev/zero | tr '\000' 'x' >&2; printf '\000\006\000\000OK')"),
      input({"EXTTRAN"}), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  ASSERT_EQ(x.run.outputs.size(), 1u);
  EXPECT_EQ(x.run.outputs[0].segments.at(0), raw("OK"));
  ASSERT_EQ(x.log.size(), 1u);  // one long line, cut for the console
  EXPECT_LT(x.log[0].size(), 600u);
}

TEST_F(external_program_test, a_left_behind_endless_writer_does_not_hold_the_run) {
  auto o = options();
  o.timeout = milliseconds(10'000);
  const auto started = std::chrono::steady_clock::now();
  // The program itself writes an LL of 0 before it exits, so the outcome does not depend on whether the
  // leftover writer has written anything yet: U0457 either way (LL below 4, or too much output).
  const auto x = run_external_program(
      script("leftover.sh", R"(cat >/dev/null; printf '\000\000\000\000'; cat /dev/zero & exit 0)"),
      input({"EXTTRAN"}), o);
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0457", 0), 0u) << *x.run.abend;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST_F(external_program_test, environment_carries_the_context_and_nothing_else) {
  ::setenv("IMSB_EXTERNAL_TEST_MARK", "leaked", 1);
  auto in = input({"EXTTRAN"});
  in.lterm_override = "LTERM9";
  const auto x = run_external_program(script("env.sh", "cat >/dev/null; /usr/bin/env >&2"), in, options());
  ::unsetenv("IMSB_EXTERNAL_TEST_MARK");
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  for (const char* want : {"IMS_TRANCODE=EXTTRAN", "IMS_USERID=CLERK1", "IMS_GROUP=CLERKS",
                           "IMS_LTERM=LTERM9", "IMS_TPIPE=TPIPE1", "IMS_COMMIT_MODE=1", "IMS_CCSID=37",
                           "IMS_MEMBER=MQCLIENT", "IMS_IMSID=IMSA", "IMS_SPA_SIZE=0", "PATH=/usr/bin:/bin"}) {
    EXPECT_TRUE(log_has(x, want)) << want << " not in\n" << log_text(x);
  }
  EXPECT_FALSE(log_has(x, "IMSB_EXTERNAL_TEST_MARK")) << log_text(x);
}

TEST_F(external_program_test, descriptors_of_the_emulator_are_closed_in_the_program) {
  const int fd = ::open(dir_.path().c_str(), O_RDONLY);  // no O_CLOEXEC: fork would pass it on
  ASSERT_GE(fd, 3);
  const std::string body = "cat >/dev/null; if [ -e /proc/self/fd/" + std::to_string(fd) +
                           " ]; then echo open >&2; else echo closed >&2; fi";
  const auto x = run_external_program(script("fds.sh", body), input({"EXTTRAN"}), options());
  ::close(fd);
  EXPECT_FALSE(x.run.abend);
  EXPECT_TRUE(log_has(x, "STDERR: closed")) << log_text(x);
}

TEST_F(external_program_test, a_background_child_holding_stdout_does_not_keep_the_run_waiting) {
  auto o = options();
  o.timeout = milliseconds(10'000);
  const auto started = std::chrono::steady_clock::now();
  const auto x = run_external_program(
      script("bg.sh", R"(cat >/dev/null; sleep 30 & printf '\000\006\000\000OK'; exit 0)"),
      input({"EXTTRAN"}), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  ASSERT_EQ(x.run.outputs.size(), 1u);
  EXPECT_EQ(x.run.outputs[0].segments.at(0), raw("OK"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

// Conversations: the SPA is the first segment both ways.
TEST_F(external_program_test, conversational_spa_goes_in_first_and_comes_back_first) {
  auto in = input({"EXTTRAN STEP1"});
  in.spa = ebcdic(codepage::pad_field("EXTTRAN", 8) + std::string(12, ' '));
  const auto x = run_external_program(script("conv.sh", "exec cat"), in, options());
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  EXPECT_EQ(x.run.spa, in.spa);
  EXPECT_FALSE(x.run.end_conversation);
  ASSERT_EQ(x.run.outputs.size(), 1u);
  EXPECT_EQ(x.run.outputs[0].segments, in.segments);
}

TEST_F(external_program_test, conversational_spa_with_blank_trancode_ends_the_conversation) {
  auto in = input({"EXTTRAN END"});
  in.spa = ebcdic(codepage::pad_field("EXTTRAN", 8) + std::string(12, ' '));
  // A 20-byte SPA of EBCDIC blanks (X'40' = octal 100), then a reply "BYE" (X'C2E8C5').
  const auto x = run_external_program(script("end.sh", R"(cat >/dev/null
printf '\000\030\000\000'; i=0; while [ $i -lt 20 ]; do printf '\100'; i=$((i+1)); done
printf '\000\007\000\000\302\350\305')"),
                                      in, options());
  ASSERT_FALSE(x.run.abend) << *x.run.abend << "\n" << log_text(x);
  EXPECT_TRUE(x.run.end_conversation);
  ASSERT_EQ(x.run.outputs.size(), 1u);
  EXPECT_EQ(x.run.outputs[0].segments.at(0), ebcdic("BYE"));
}

TEST_F(external_program_test, conversational_program_that_drops_the_spa_abends_u0457) {
  auto in = input({"EXTTRAN STEP1"});
  in.spa = ebcdic(codepage::pad_field("EXTTRAN", 8) + std::string(12, ' '));
  const auto x = run_external_program(script("nospa.sh", R"(cat >/dev/null; printf '\000\005\000\000X')"), in,
                                      options());
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind("U0457", 0), 0u) << *x.run.abend;
  EXPECT_TRUE(log_has(x, "SPA")) << log_text(x);
}

}  // namespace
}  // namespace imsb::imsemu
