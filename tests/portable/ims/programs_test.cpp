// The built-in programs (portable/include/imsb/ims/programs.hpp): IVTNO, IVTCV, ECHO, SHOWOTMA, ALTOUT.
#include "imsb/ims/programs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "imsb/codepage/codepage.hpp"

namespace imsb::ims {
namespace {

bytes enc(std::string_view text, std::uint16_t ccsid) {
  return codepage::convert(bytes_view::of(text), codepage::ccsid_819, ccsid).out;
}
std::string dec(const bytes& b, std::uint16_t ccsid) {
  const auto c = codepage::convert(b, ccsid, codepage::ccsid_819);
  return std::string(c.out.begin(), c.out.end());
}

// The fixed IVTNO columns: trancode 8, process code 8, last 10, first 10, extension 10, zip 7.
std::string phone_line(std::string_view tran, std::string_view code, std::string_view last = "",
                       std::string_view first = "", std::string_view ext = "", std::string_view zip = "") {
  return codepage::pad_field(tran, 8) + codepage::pad_field(code, 8) + codepage::pad_field(last, 10) +
         codepage::pad_field(first, 10) + codepage::pad_field(ext, 10) + codepage::pad_field(zip, 7);
}

std::string expected_reply(std::string_view message, std::string_view last, std::string_view first,
                           std::string_view ext, std::string_view zip) {
  return codepage::pad_field(message, 40) + codepage::pad_field(last, 10) + codepage::pad_field(first, 10) +
         codepage::pad_field(ext, 10) + codepage::pad_field(zip, 7);
}

input_message text_input(std::string_view tran, std::string_view line, std::uint16_t ccsid) {
  input_message in;
  in.transaction = std::string(tran);
  in.ccsid = ccsid;
  in.segments.push_back(enc(line, ccsid));
  in.segment_lengths.push_back(static_cast<std::uint16_t>(line.size() + 4));
  return in;
}

class programs_test : public ::testing::TestWithParam<std::uint16_t> {
 protected:
  std::uint16_t ccsid() const { return GetParam(); }

  // Runs IVTNO and returns its single reply, decoded.
  std::string ivtno(const std::string& line) {
    const auto r = run_builtin("IVTNO", text_input("IVTNO", line, ccsid()), db);
    EXPECT_FALSE(r.abend.has_value());
    EXPECT_FALSE(r.end_conversation);
    if (r.outputs.size() != 1 || r.outputs[0].segments.size() != 1) {
      ADD_FAILURE() << "IVTNO must answer with one segment on the IOPCB";
      return {};
    }
    EXPECT_EQ(r.outputs[0].destination, "");
    EXPECT_EQ(r.outputs[0].segments[0].size(), 77u);
    return dec(r.outputs[0].segments[0], ccsid());
  }

  void seed(std::string_view last, std::string_view first, std::string_view ext, std::string_view zip) {
    db.put({std::string(last), std::string(first), std::string(ext), std::string(zip)});
  }

  memory_phonebook db;
};

INSTANTIATE_TEST_SUITE_P(ebcdic_and_ascii, programs_test, ::testing::Values(37, 819),
                         [](const auto& p) { return "ccsid" + std::to_string(p.param); });

// --- phonebook and the name list --------------------------------------------------------------

TEST(memory_phonebook, put_find_erase) {
  memory_phonebook db;
  EXPECT_FALSE(db.find("LAST1"));
  db.put({"LAST1", "FIRST1", "8-111-1111", "D01/R01"});
  ASSERT_TRUE(db.find("LAST1"));
  EXPECT_EQ(db.find("LAST1")->first_name, "FIRST1");
  db.put({"LAST1", "OTHER", "1", "2"});  // replaces
  EXPECT_EQ(db.find("LAST1")->first_name, "OTHER");
  EXPECT_EQ(db.entries().size(), 1u);
  EXPECT_TRUE(db.erase("LAST1"));
  EXPECT_FALSE(db.erase("LAST1"));
  EXPECT_TRUE(db.entries().empty());
}

TEST(builtins, names) {
  const std::vector<std::string_view> want{"IVTNO", "IVTCV", "ECHO", "SHOWOTMA", "ALTOUT"};
  EXPECT_EQ(builtin_programs(), want);
  for (auto n : want) EXPECT_TRUE(is_builtin(n)) << n;
  EXPECT_FALSE(is_builtin("ivtno"));
  EXPECT_FALSE(is_builtin("IVTNV"));
  EXPECT_FALSE(is_builtin(""));
}

TEST(builtins, unknown_program_abends_with_its_name) {
  memory_phonebook db;
  const auto r = run_builtin("PAYROLL", text_input("PAYROLL", "PAYROLL DATA", 37), db);
  ASSERT_TRUE(r.abend.has_value());
  EXPECT_EQ(r.abend->substr(0, 5), "U0456");
  EXPECT_NE(r.abend->find("PAYROLL"), std::string::npos);
  EXPECT_TRUE(r.outputs.empty());
}

TEST(builtins, unsupported_ccsid_abends_text_programs_but_not_echo) {
  memory_phonebook db;
  input_message in;
  in.ccsid = 1200;
  in.segments.push_back({0x01, 0x02});
  EXPECT_TRUE(run_builtin("IVTNO", in, db).abend.has_value());
  EXPECT_TRUE(run_builtin("SHOWOTMA", in, db).abend.has_value());
  const auto r = run_builtin("ECHO", in, db);
  EXPECT_FALSE(r.abend.has_value());
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].segments, in.segments);
}

// --- IVTNO ------------------------------------------------------------------------------------

TEST_P(programs_test, ivtno_add_then_exists) {
  EXPECT_EQ(ivtno(phone_line("IVTNO", "ADD", "LAST1", "FIRST1", "8-111-1111", "D01/R01")),
            expected_reply("ENTRY WAS ADDED", "LAST1", "FIRST1", "8-111-1111", "D01/R01"));
  ASSERT_TRUE(db.find("LAST1"));
  EXPECT_EQ(db.find("LAST1")->extension, "8-111-1111");
  EXPECT_EQ(db.find("LAST1")->zip_code, "D01/R01");
  EXPECT_EQ(ivtno(phone_line("IVTNO", "ADD", "LAST1", "OTHER", "1", "2")),
            expected_reply("ADDITION OF ENTRY HAS FAILED", "LAST1", "OTHER", "1", "2"));
  EXPECT_EQ(db.find("LAST1")->first_name, "FIRST1");  // not replaced
}

TEST_P(programs_test, ivtno_add_not_enough_data) {
  EXPECT_EQ(ivtno(phone_line("IVTNO", "ADD", "LAST2", "FIRST2")),
            expected_reply("DATA IS NOT ENOUGH", "LAST2", "FIRST2", "", ""));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "TADD", "LAST2", "", "8-2")),
            expected_reply("DATA IS NOT ENOUGH", "LAST2", "", "8-2", ""));
  EXPECT_FALSE(db.find("LAST2"));
}

TEST_P(programs_test, ivtno_tadd_adds_and_reports_the_stored_entry) {
  EXPECT_EQ(ivtno(phone_line("IVTNO", "TADD", "LAST3", "FIRST3", "8-333")),
            expected_reply("ENTRY WAS ADDED", "LAST3", "FIRST3", "8-333", ""));
  ASSERT_TRUE(db.find("LAST3"));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "TADD", "LAST3", "FIRST3", "8-333")),
            expected_reply("ADDITION OF ENTRY HAS FAILED", "LAST3", "FIRST3", "8-333", ""));
}

TEST_P(programs_test, ivtno_display) {
  seed("LAST1", "FIRST1", "8-111-1111", "D01/R01");
  EXPECT_EQ(ivtno(phone_line("IVTNO", "DISPLAY", "LAST1")),
            expected_reply("ENTRY WAS DISPLAYED", "LAST1", "FIRST1", "8-111-1111", "D01/R01"));
  // IBM's samples look at three characters of the process code.
  EXPECT_EQ(ivtno(phone_line("IVTNO", "DIS", "LAST1")),
            expected_reply("ENTRY WAS DISPLAYED", "LAST1", "FIRST1", "8-111-1111", "D01/R01"));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "DISPLAY", "NOBODY")),
            expected_reply("SPECIFIED PERSON WAS NOT FOUND", "NOBODY", "", "", ""));
}

TEST_P(programs_test, ivtno_update_replaces_given_fields_only) {
  seed("LAST1", "FIRST1", "8-111-1111", "D01/R01");
  EXPECT_EQ(ivtno(phone_line("IVTNO", "UPDATE", "LAST1", "", "8-999")),
            expected_reply("ENTRY WAS UPDATED", "LAST1", "FIRST1", "8-999", "D01/R01"));
  EXPECT_EQ(db.find("LAST1")->extension, "8-999");
  EXPECT_EQ(db.find("LAST1")->first_name, "FIRST1");
  EXPECT_EQ(ivtno(phone_line("IVTNO", "UPDATE", "NOBODY", "X")),
            expected_reply("SPECIFIED PERSON WAS NOT FOUND", "NOBODY", "X", "", ""));
  EXPECT_FALSE(db.find("NOBODY"));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "UPDATE", "LAST1")),
            expected_reply("NO DATA WAS ENTERED", "LAST1", "", "", ""));
  EXPECT_EQ(db.find("LAST1")->extension, "8-999");
}

TEST_P(programs_test, ivtno_delete) {
  seed("LAST1", "FIRST1", "8-111-1111", "D01/R01");
  EXPECT_EQ(ivtno(phone_line("IVTNO", "DELETE", "LAST1")),
            expected_reply("ENTRY WAS DELETED", "LAST1", "FIRST1", "8-111-1111", "D01/R01"));
  EXPECT_FALSE(db.find("LAST1"));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "DELETE", "LAST1")),
            expected_reply("SPECIFIED PERSON WAS NOT FOUND", "LAST1", "", "", ""));
}

TEST_P(programs_test, ivtno_bad_code_blank_code_and_missing_last_name) {
  EXPECT_EQ(ivtno(phone_line("IVTNO", "FROB", "LAST1", "A", "B")),
            expected_reply("PROCESS CODE IS NOT VALID", "LAST1", "A", "B", ""));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "END", "LAST1")),  // END is conversational only
            expected_reply("PROCESS CODE IS NOT VALID", "LAST1", "", "", ""));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "", "LAST1")),
            expected_reply("PROCESS CODE IS NOT VALID", "LAST1", "", "", ""));
  EXPECT_EQ(ivtno(phone_line("IVTNO", "ADD", "", "A", "B")),
            expected_reply("LAST NAME WAS NOT SPECIFIED", "", "A", "B", ""));
  EXPECT_TRUE(db.entries().empty());
}

TEST_P(programs_test, ivtno_short_input_is_blank_padded) {
  seed("LAST1", "FIRST1", "8-1", "Z");
  // No padding after the last name: the last field is cut short, the rest is blanks.
  EXPECT_EQ(ivtno("IVTNO   DISPLAY LAST1"),
            expected_reply("ENTRY WAS DISPLAYED", "LAST1", "FIRST1", "8-1", "Z"));
  EXPECT_EQ(ivtno("IVTNO   ADD     LAST9     F9        E9"),
            expected_reply("ENTRY WAS ADDED", "LAST9", "F9", "E9", ""));
  EXPECT_EQ(ivtno("IVTNO   DEL"), expected_reply("LAST NAME WAS NOT SPECIFIED", "", "", "", ""));
  EXPECT_EQ(ivtno("IVTNO"), expected_reply("PROCESS CODE IS NOT VALID", "", "", "", ""));
  EXPECT_EQ(ivtno(""), expected_reply("PROCESS CODE IS NOT VALID", "", "", "", ""));
  // No segment at all.
  input_message none;
  none.ccsid = ccsid();
  const auto r = run_builtin("IVTNO", none, db);
  ASSERT_EQ(r.outputs.size(), 1u);
  ASSERT_EQ(r.outputs[0].segments.size(), 1u);
  EXPECT_EQ(dec(r.outputs[0].segments[0], ccsid()),
            expected_reply("PROCESS CODE IS NOT VALID", "", "", "", ""));
}

TEST_P(programs_test, ivtno_leading_blanks_in_fields_are_ignored) {
  seed("LAST1", "FIRST1", "8-1", "Z");
  EXPECT_EQ(ivtno(phone_line("IVTNO", " DISPLAY", "  LAST1")),
            expected_reply("ENTRY WAS DISPLAYED", "LAST1", "FIRST1", "8-1", "Z"));
}

// The reply is in the input's character set, byte for byte.
TEST(ivtno_bytes, reply_is_ebcdic_for_ebcdic_and_ascii_for_ascii) {
  memory_phonebook db;
  const auto line = phone_line("IVTNO", "ADD", "LAST1", "FIRST1", "8-1", "Z");
  const auto e = run_builtin("IVTNO", text_input("IVTNO", line, 37), db);
  ASSERT_EQ(e.outputs.size(), 1u);
  const auto& es = e.outputs[0].segments.at(0);
  ASSERT_EQ(es.size(), 77u);
  EXPECT_EQ(es[0], 0xC5);   // 'E' in 037
  EXPECT_EQ(es[39], 0x40);  // EBCDIC blank padding
  EXPECT_EQ(es[40], 0xD3);  // 'L'
  EXPECT_EQ(es[44], 0xF1);  // '1' (LAST1)

  const auto a = run_builtin("IVTNO", text_input("IVTNO", phone_line("IVTNO", "DIS", "LAST1"), 819), db);
  const auto& as = a.outputs.at(0).segments.at(0);
  ASSERT_EQ(as.size(), 77u);
  EXPECT_EQ(as[0], 'E');
  EXPECT_EQ(as[39], 0x20);
  EXPECT_EQ(as[40], 'L');
}

// --- IVTCV ------------------------------------------------------------------------------------

constexpr std::size_t spa_size = 80;

class ivtcv_test : public programs_test {
 protected:
  // The SPA IMS gives the first input: the trancode, then binary zeros.
  bytes first_spa() const {
    bytes spa(spa_size, 0x00);
    const auto t = enc("IVTCV   ", ccsid());
    std::copy(t.begin(), t.end(), spa.begin());
    return spa;
  }
  run_result step(const std::string& line, const bytes& spa) {
    auto in = text_input("IVTCV", line, ccsid());
    in.spa = spa;
    auto r = run_builtin("IVTCV", in, db);
    EXPECT_FALSE(r.abend.has_value());
    EXPECT_EQ(r.spa.size(), spa_size);
    return r;
  }
  std::string reply(const run_result& r) const {
    if (r.outputs.size() != 1 || r.outputs[0].segments.size() != 1) {
      ADD_FAILURE() << "IVTCV must answer with one segment";
      return {};
    }
    return dec(r.outputs[0].segments[0], ccsid());
  }
  // trancode (8), step (1), process code (8), last name (10), blanks.
  std::string spa_text(std::string_view tran, char stp, std::string_view code, std::string_view last) const {
    return codepage::pad_field(tran, 8) + std::string(1, stp) + codepage::pad_field(code, 8) +
           codepage::pad_field(last, 10) + std::string(spa_size - 27, ' ');
  }
};

INSTANTIATE_TEST_SUITE_P(ebcdic_and_ascii, ivtcv_test, ::testing::Values(37, 819),
                         [](const auto& p) { return "ccsid" + std::to_string(p.param); });

TEST_P(ivtcv_test, add_in_two_steps_ends_the_conversation) {
  const auto r1 = step(phone_line("IVTCV", "ADD", "LAST5"), first_spa());
  EXPECT_EQ(reply(r1), expected_reply("ENTER FIRST NAME, EXTENSION AND ZIP", "LAST5", "", "", ""));
  EXPECT_FALSE(r1.end_conversation);
  EXPECT_EQ(dec(r1.spa, ccsid()), spa_text("IVTCV", '1', "ADD", "LAST5"));
  EXPECT_FALSE(db.find("LAST5"));

  // Step 2: only the remaining fields; code and last name come from the SPA.
  const auto r2 = step(phone_line("IVTCV", "", "", "FIRST5", "8-555", "Z5"), r1.spa);
  EXPECT_EQ(reply(r2), expected_reply("ENTRY WAS ADDED", "LAST5", "FIRST5", "8-555", "Z5"));
  EXPECT_TRUE(r2.end_conversation);
  EXPECT_EQ(dec(r2.spa, ccsid()), spa_text("", '0', "ADD", "LAST5"));  // trancode blanked
  ASSERT_TRUE(db.find("LAST5"));
  EXPECT_EQ(db.find("LAST5")->zip_code, "Z5");
}

TEST_P(ivtcv_test, step_two_without_data_asks_again) {
  const auto r1 = step(phone_line("IVTCV", "ADD", "LAST5"), first_spa());
  const auto r2 = step(phone_line("IVTCV", "", "", "FIRST5"), r1.spa);
  EXPECT_EQ(reply(r2), expected_reply("DATA IS NOT ENOUGH.  PLEASE KEY IN MORE", "LAST5", "FIRST5", "", ""));
  EXPECT_FALSE(r2.end_conversation);
  EXPECT_EQ(dec(r2.spa, ccsid()), spa_text("IVTCV", '1', "ADD", "LAST5"));
  EXPECT_FALSE(db.find("LAST5"));
}

TEST_P(ivtcv_test, update_in_two_steps) {
  seed("LAST6", "FIRST6", "8-6", "Z6");
  const auto r1 = step(phone_line("IVTCV", "UPDATE", "LAST6"), first_spa());
  EXPECT_EQ(reply(r1), expected_reply("ENTER FIRST NAME, EXTENSION AND ZIP", "LAST6", "", "", ""));
  EXPECT_EQ(dec(r1.spa, ccsid()), spa_text("IVTCV", '1', "UPDATE", "LAST6"));
  const auto r2 = step(phone_line("IVTCV", "", "", "", "8-666"), r1.spa);
  EXPECT_EQ(reply(r2), expected_reply("ENTRY WAS UPDATED", "LAST6", "FIRST6", "8-666", "Z6"));
  EXPECT_TRUE(r2.end_conversation);
  EXPECT_EQ(db.find("LAST6")->extension, "8-666");
}

TEST_P(ivtcv_test, display_keeps_it_going_and_end_ends_it) {
  seed("LAST7", "FIRST7", "8-7", "Z7");
  const auto r1 = step(phone_line("IVTCV", "DISPLAY", "LAST7"), first_spa());
  EXPECT_EQ(reply(r1), expected_reply("ENTRY WAS DISPLAYED", "LAST7", "FIRST7", "8-7", "Z7"));
  EXPECT_FALSE(r1.end_conversation);
  EXPECT_EQ(dec(r1.spa, ccsid()), spa_text("IVTCV", '0', "DISPLAY", "LAST7"));

  const auto r2 = step(phone_line("IVTCV", "DISPLAY", "NOBODY"), r1.spa);
  EXPECT_EQ(reply(r2), expected_reply("SPECIFIED PERSON WAS NOT FOUND", "NOBODY", "", "", ""));
  EXPECT_FALSE(r2.end_conversation);

  const auto r3 = step(phone_line("IVTCV", "END"), r2.spa);
  EXPECT_EQ(reply(r3), expected_reply("CONVERSATION HAS ENDED", "", "", "", ""));
  EXPECT_TRUE(r3.end_conversation);
  EXPECT_EQ(dec(r3.spa, ccsid()).substr(0, 8), "        ");
}

TEST_P(ivtcv_test, end_in_the_middle_of_an_add) {
  const auto r1 = step(phone_line("IVTCV", "ADD", "LAST8"), first_spa());
  const auto r2 = step(phone_line("IVTCV", "END"), r1.spa);
  EXPECT_TRUE(r2.end_conversation);
  EXPECT_EQ(reply(r2).substr(0, 22), "CONVERSATION HAS ENDED");
  EXPECT_FALSE(db.find("LAST8"));
}

TEST_P(ivtcv_test, delete_answers_at_once_and_ends) {
  seed("LAST9", "FIRST9", "8-9", "Z9");
  const auto miss = step(phone_line("IVTCV", "DELETE", "NOBODY"), first_spa());
  EXPECT_EQ(reply(miss), expected_reply("SPECIFIED PERSON WAS NOT FOUND", "NOBODY", "", "", ""));
  EXPECT_FALSE(miss.end_conversation);
  const auto hit = step(phone_line("IVTCV", "DELETE", "LAST9"), miss.spa);
  EXPECT_EQ(reply(hit), expected_reply("ENTRY WAS DELETED", "LAST9", "FIRST9", "8-9", "Z9"));
  EXPECT_TRUE(hit.end_conversation);
  EXPECT_FALSE(db.find("LAST9"));
}

TEST_P(ivtcv_test, add_of_an_existing_entry_fails_at_step_one) {
  seed("LAST1", "FIRST1", "8-1", "Z1");
  const auto r = step(phone_line("IVTCV", "ADD", "LAST1"), first_spa());
  EXPECT_EQ(reply(r), expected_reply("ADDITION OF ENTRY HAS FAILED", "LAST1", "", "", ""));
  EXPECT_FALSE(r.end_conversation);
  EXPECT_EQ(dec(r.spa, ccsid())[8], '0');
}

TEST_P(ivtcv_test, bad_code_and_missing_last_name_keep_it_going) {
  const auto r1 = step(phone_line("IVTCV", "FROB", "LAST1"), first_spa());
  EXPECT_EQ(reply(r1).substr(0, 25), "PROCESS CODE IS NOT VALID");
  EXPECT_FALSE(r1.end_conversation);
  const auto r2 = step(phone_line("IVTCV", "DISPLAY"), r1.spa);
  EXPECT_EQ(reply(r2).substr(0, 27), "LAST NAME WAS NOT SPECIFIED");
  EXPECT_FALSE(r2.end_conversation);
}

TEST_P(ivtcv_test, spa_too_short_abends) {
  auto in = text_input("IVTCV", phone_line("IVTCV", "DISPLAY", "LAST1"), ccsid());
  in.spa = bytes(16, 0);
  const auto r = run_builtin("IVTCV", in, db);
  ASSERT_TRUE(r.abend.has_value());
  EXPECT_TRUE(r.outputs.empty());
}

// --- ECHO -------------------------------------------------------------------------------------

TEST(echo, one_segment_unchanged) {
  memory_phonebook db;
  input_message in;
  in.transaction = "ECHO";
  in.segments.push_back(enc("ECHO    HELLO", 37));
  const auto r = run_builtin("ECHO", in, db);
  EXPECT_FALSE(r.abend.has_value());
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].destination, "");
  EXPECT_EQ(r.outputs[0].mod_name, "");
  EXPECT_EQ(r.outputs[0].segments, in.segments);
}

TEST(echo, five_segments_with_binary_bytes_in_order) {
  memory_phonebook db;
  input_message in;
  in.transaction = "ECHO";
  in.segments.push_back(enc("ECHO    ", 37));
  in.segments.push_back({0x00, 0x01, 0xFF, 0x40, 0x3F});
  in.segments.push_back({});
  bytes all(256);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint8_t>(i);
  in.segments.push_back(all);
  in.segments.push_back({0x15, 0x25, 0x0D});
  const auto r = run_builtin("ECHO", in, db);
  ASSERT_EQ(r.outputs.size(), 1u);
  ASSERT_EQ(r.outputs[0].segments.size(), 5u);
  EXPECT_EQ(r.outputs[0].segments, in.segments);
  EXPECT_TRUE(db.entries().empty());
}

// --- SHOWOTMA ---------------------------------------------------------------------------------

input_message full_showotma_input(std::uint16_t ccsid, std::string_view first_line) {
  input_message in;
  in.transaction = "SHOWOTMA";
  in.ccsid = ccsid;
  in.segments = {enc(first_line, ccsid), enc("SECOND", ccsid), bytes{0x01, 0x02}};
  in.segment_lengths = {static_cast<std::uint16_t>(first_line.size() + 4), 10, 6};
  in.commit_mode = 1;
  in.sync_level = 2;
  in.tpipe = "CSQ1N";
  in.synchronized_tpipe = true;
  in.lterm_override = "LTERM1";
  in.mod_name = "MODIN";
  in.user_id = "USER1";
  in.group = "GRP1";
  in.security_flag = 'F';
  in.token = input_message::token_state::verified;
  return in;
}

TEST_P(programs_test, showotma_every_key) {
  const auto in = full_showotma_input(ccsid(), "SHOWOTMA");
  const auto r = run_builtin("SHOWOTMA", in, db);
  EXPECT_FALSE(r.abend.has_value());
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].destination, "");
  EXPECT_EQ(r.outputs[0].mod_name, "");
  std::vector<std::string> lines;
  for (const auto& s : r.outputs[0].segments) lines.push_back(dec(s, ccsid()));
  const std::vector<std::string> want{"TRAN=SHOWOTMA",  "COMMITMODE=1", "SYNCLEVEL=SYNCPT", "TPIPE=CSQ1N",
                                      "SYNCHRONIZED=Y", "LTERM=LTERM1", "MODNAME=MODIN",    "USERID=USER1",
                                      "GROUP=GRP1",     "SECFLAG=F",    "TOKEN=VERIFIED",   "SEGMENTS=3",
                                      "LENGTHS=12,10,6"};
  EXPECT_EQ(lines, want);
}

TEST_P(programs_test, showotma_defaults_and_other_values) {
  input_message in;
  in.transaction = "SHOWOTMA";
  in.ccsid = ccsid();
  in.segments = {enc("SHOWOTMA", ccsid())};
  in.segment_lengths = {12};
  in.sync_level = 0;
  in.token = input_message::token_state::not_verified;
  const auto r = run_builtin("SHOWOTMA", in, db);
  ASSERT_EQ(r.outputs.size(), 1u);
  std::vector<std::string> lines;
  for (const auto& s : r.outputs[0].segments) lines.push_back(dec(s, ccsid()));
  const std::vector<std::string> want{
      "TRAN=SHOWOTMA", "COMMITMODE=0", "SYNCLEVEL=NONE", "TPIPE=",    "SYNCHRONIZED=N",    "LTERM=",
      "MODNAME=",      "USERID=",      "GROUP=",         "SECFLAG=N", "TOKEN=NOTVERIFIED", "SEGMENTS=1",
      "LENGTHS=12"};
  EXPECT_EQ(lines, want);
  in.sync_level = 1;
  in.token = input_message::token_state::none;
  const auto r2 = run_builtin("SHOWOTMA", in, db);
  EXPECT_EQ(dec(r2.outputs.at(0).segments.at(2), ccsid()), "SYNCLEVEL=CONFIRM");
  EXPECT_EQ(dec(r2.outputs.at(0).segments.at(10), ccsid()), "TOKEN=NONE");
}

TEST_P(programs_test, showotma_mod_option_names_the_output_mod) {
  const auto r = run_builtin("SHOWOTMA", full_showotma_input(ccsid(), "SHOWOTMA MOD=DFSMO2 X"), db);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].mod_name, "DFSMO2");
  EXPECT_EQ(dec(r.outputs[0].segments.at(6), ccsid()), "MODNAME=MODIN");  // the input's, unchanged
  // "MOD=" inside the trancode does not count, and a name is at most 8 characters.
  EXPECT_EQ(run_builtin("SHOWOTMA", full_showotma_input(ccsid(), "MOD=XYZ"), db).outputs.at(0).mod_name, "");
  EXPECT_EQ(run_builtin("SHOWOTMA", full_showotma_input(ccsid(), "SHOWOTMA MOD=ABCDEFGHIJ"), db)
                .outputs.at(0)
                .mod_name,
            "ABCDEFGH");
}

// --- ALTOUT -----------------------------------------------------------------------------------

TEST_P(programs_test, altout_to_named_destination) {
  input_message in = text_input("ALTOUT", "ALTOUT   DEST=PRINTER1 HELLO", ccsid());
  in.segments.push_back({0x00, 0xFF});
  const auto r = run_builtin("ALTOUT", in, db);
  EXPECT_FALSE(r.abend.has_value());
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].destination, "PRINTER1");
  EXPECT_EQ(r.outputs[0].segments, in.segments);
  EXPECT_EQ(r.outputs[1].destination, "");
  ASSERT_EQ(r.outputs[1].segments.size(), 1u);
  EXPECT_EQ(dec(r.outputs[1].segments[0], ccsid()), "ALTOUT SENT 2 SEGMENTS TO PRINTER1");
}

TEST_P(programs_test, altout_default_destination) {
  const auto in = text_input("ALTOUT", "ALTOUT   SOME DATA", ccsid());
  const auto r = run_builtin("ALTOUT", in, db);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].destination, "ALTDEST");
  EXPECT_EQ(r.outputs[0].segments, in.segments);
  EXPECT_EQ(dec(r.outputs[1].segments.at(0), ccsid()), "ALTOUT SENT 1 SEGMENTS TO ALTDEST");
}

TEST_P(programs_test, altout_reply_no_inserts_only_to_the_alternate_destination) {
  const auto in = text_input("ALTOUT", "ALTOUT   DEST=PRINTER1 REPLY=NO DATA", ccsid());
  const auto r = run_builtin("ALTOUT", in, db);
  EXPECT_FALSE(r.abend.has_value());
  ASSERT_EQ(r.outputs.size(), 1u);  // no IOPCB reply
  EXPECT_EQ(r.outputs[0].destination, "PRINTER1");
  EXPECT_EQ(r.outputs[0].segments, in.segments);
  // Any other value still replies.
  const auto yes = run_builtin("ALTOUT", text_input("ALTOUT", "ALTOUT   REPLY=YES", ccsid()), db);
  EXPECT_EQ(yes.outputs.size(), 2u);
}

}  // namespace
}  // namespace imsb::ims
