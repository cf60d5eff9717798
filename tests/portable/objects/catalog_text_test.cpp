#include "imsb/objects/catalog_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "imsb/names/file_name.hpp"

namespace imsb::objects {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr object_family all_families[] = {object_family::queue,    object_family::stgclass,
                                          object_family::namelist, object_family::process,
                                          object_family::channel,  object_family::listener};
constexpr object_family file_families[] = {object_family::queue, object_family::namelist,
                                           object_family::process};

object_record make(object_type type, std::string name,
                   std::map<std::string, std::string, std::less<>> attrs = {},
                   std::map<std::string, std::vector<std::string>, std::less<>> lists = {}) {
  object_record rec;
  rec.type = type;
  rec.name = std::move(name);
  rec.attrs = std::move(attrs);
  rec.lists = std::move(lists);
  return rec;
}

void put(object_catalog& cat, object_record rec) {
  const std::string name = rec.name;
  auto r = cat.put(std::move(rec));
  ASSERT_TRUE(r.ok()) << name << ": " << r.error().to_string();
}

object_catalog decoded(std::string_view text) {
  auto r = decode_catalog(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << "\n" << text;
  return r.ok() ? std::move(r.value()) : object_catalog("", names::fs_profile::posix);
}

void expect_same_record(const object_record& a, const object_record& b) {
  EXPECT_EQ(a.type, b.type) << a.name;
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.attrs, b.attrs) << a.name;
  EXPECT_EQ(a.lists, b.lists) << a.name;
}

// Everything a catalog holds, compared field by field.
void expect_same(const object_catalog& a, const object_catalog& b) {
  EXPECT_EQ(a.qmgr_name(), b.qmgr_name());
  EXPECT_EQ(a.profile(), b.profile());
  expect_same_record(a.qmgr(), b.qmgr());
  for (object_family f : all_families) {
    const auto la = a.list(f);
    const auto lb = b.list(f);
    ASSERT_EQ(la.size(), lb.size()) << static_cast<int>(f);
    for (std::size_t i = 0; i < la.size(); ++i) expect_same_record(*la[i], *lb[i]);
  }
  for (object_family f : file_families) EXPECT_EQ(a.file_names(f).pairs(), b.file_names(f).pairs());
  ASSERT_EQ(a.authrecs().size(), b.authrecs().size());
  for (std::size_t i = 0; i < a.authrecs().size(); ++i) {
    const auto& x = a.authrecs()[i];
    const auto& y = b.authrecs()[i];
    EXPECT_EQ(x.profile, y.profile);
    EXPECT_EQ(x.objtype, y.objtype);
    EXPECT_EQ(x.principal, y.principal);
    EXPECT_EQ(x.group, y.group);
    EXPECT_EQ(x.authorities, y.authorities);
  }
}

// encode → decode gives the same catalog, and encoding that gives the same text.
void expect_round_trip(const object_catalog& cat) {
  const std::string text = encode_catalog(cat);
  auto back = decode_catalog(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
  expect_same(cat, back.value());
  EXPECT_EQ(encode_catalog(back.value()), text);
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::size_t count_objects(const object_catalog& cat) {
  std::size_t n = 0;
  for (object_family f : all_families) n += cat.list(f).size();
  return n;
}

std::size_t count_pairs(const object_catalog& cat) {
  std::size_t n = 0;
  for (object_family f : file_families) n += cat.file_names(f).size();
  return n;
}

// A catalog with every object type, authority records and the attributes IBM's objects carry.
object_catalog every_type() {
  object_catalog cat("QM1", names::fs_profile::posix);
  cat.qmgr().attrs = {{"DEADQ", "QM1.DLQ"},
                      {"DEFXMITQ", ""},
                      {"CCSID", "819"},
                      {"MAXMSGL", "4194304"},
                      {"DESCR", "Queue manager 'QM1' -- test"}};
  put(cat, make(object_type::qlocal, "QM1.DLQ", {{"USAGE", "NORMAL"}, {"MAXDEPTH", "5000"}}));
  put(cat,
      make(object_type::qlocal, "QM2", {{"USAGE", "XMITQ"}, {"TRIGGER", "YES"}, {"TRIGDATA", "QM2.CHL"}}));
  put(cat, make(object_type::qalias, "APP.ALIAS", {{"TARGET", "QM1.DLQ"}, {"TARGTYPE", "QUEUE"}}));
  put(cat, make(object_type::qremote, "YOURQM", {{"RNAME", ""}, {"RQMNAME", "REALQM"}, {"XMITQ", ""}}));
  put(cat, make(object_type::qremote, "REPLY.ALIAS", {{"RNAME", "R"}, {"RQMNAME", "QM2"}, {"XMITQ", "QM2"}}));
  put(cat, make(object_type::qmodel, "SYSTEM.DEFAULT.MODEL.QUEUE", {{"DEFTYPE", "PREDEFINED"}}));
  put(cat, make(object_type::stgclass, "IMS1", {{"XCFGNAME", "XCFG1"}, {"XCFMNAME", "IMSA"}, {"PSID", "0"}}));
  put(cat,
      make(object_type::namelist, "NL.ALL", {{"DESCR", ""}}, {{"NAMES", {"QM1.DLQ", "QM2", "APP.ALIAS"}}}));
  put(cat, make(object_type::namelist, "NL.EMPTY", {}, {{"NAMES", {}}}));
  put(cat, make(object_type::process, "PROC1", {{"APPLICID", "/opt/app/bin/run x"}, {"APPLTYPE", "UNIX"}}));
  put(cat, make(object_type::channel, "QM1.TO.QM2", {{"CHLTYPE", "SDR"}, {"CONNAME", "host(1414)"}}));
  put(cat, make(object_type::channel, "QM2.TO.QM1", {{"CHLTYPE", "RCVR"}}));
  put(cat, make(object_type::listener, "LSN1", {{"TRPTYPE", "TCP"}, {"PORT", "1414"}}));
  cat.authrecs().push_back({"APP.**", "QUEUE", "app", "", {"BROWSE", "GET", "INQ", "PUT"}});
  cat.authrecs().push_back({"QM1", "QMGR", "", "mqapps", {"CONNECT", "INQ"}});
  cat.authrecs().push_back({"NONE.*", "QUEUE", "", "nobody", {}});
  return cat;
}

// ---- round trips -------------------------------------------------------------------------------

TEST(CatalogText, EveryObjectTypeRoundTrips) {
  const object_catalog cat = every_type();
  expect_round_trip(cat);
  const std::string text = encode_catalog(cat);
  EXPECT_THAT(text, StartsWith("IMSBRIDGE-CATALOG 1\nQMGR NAME('QM1') PROFILE('posix') "));
  // One line per object, authority record and file-name pair, after the version and QMGR lines.
  EXPECT_EQ(count_lines(text), 2 + count_objects(cat) + cat.authrecs().size() + count_pairs(cat));
  EXPECT_EQ(count_pairs(cat), 9U);  // 6 queues, 2 namelists, 1 process; channels are not files
  EXPECT_THAT(text, HasSubstr("\nQREMOTE NAME('YOURQM') RNAME('') RQMNAME('REALQM') XMITQ('')\n"));
  EXPECT_THAT(text, HasSubstr("\nNAMELIST NAME('NL.EMPTY') LIST NAMES()\n"));
  EXPECT_THAT(text, HasSubstr(" LIST NAMES('QM1.DLQ','QM2','APP.ALIAS')\n"));
  EXPECT_THAT(text, HasSubstr("\nAUTHREC PROFILE('QM1') OBJTYPE('QMGR') PRINCIPAL('') GROUP('mqapps') "
                              "LIST AUTHORITIES('CONNECT','INQ')\n"));
  EXPECT_THAT(text, HasSubstr("\nFILE QUEUE REAL('QM1.DLQ') FILE('QM1!DLQ')\n"));
  EXPECT_THAT(text, HasSubstr("\nFILE PROCESS REAL('PROC1') FILE('PROC1')\n"));
  EXPECT_THAT(text, HasSubstr("DESCR('Queue manager ''QM1'' -- test')"));
}

TEST(CatalogText, EmptyCatalogRoundTrips) {
  object_catalog cat("Q", names::fs_profile::case_insensitive);
  expect_round_trip(cat);
  EXPECT_EQ(encode_catalog(cat), "IMSBRIDGE-CATALOG 1\nQMGR NAME('Q') PROFILE('case_insensitive')\n");
}

TEST(CatalogText, AnyValueBytesRoundTripOnOneLine) {
  const std::vector<std::string> values = {"it's",
                                           "''",
                                           "'",
                                           "  leading and trailing  ",
                                           "",
                                           "a\\b\\",
                                           "\\x41",
                                           "line one\nline two",
                                           "\r\n",
                                           std::string("nul\0inside", 10),
                                           "tab\there",
                                           "\x7F\x01\x1F",
                                           "caf\xE9",               // CCSID 819
                                           "caf\xC3\xA9",           // UTF-8
                                           "A('x') B LIST C('y')",  // looks like fields
                                           "\xFF\x80"};
  object_catalog cat("QM1", names::fs_profile::posix);
  std::map<std::string, std::string, std::less<>> attrs;
  std::vector<std::string> list;
  for (std::size_t i = 0; i < values.size(); ++i) {
    attrs.emplace("V" + std::to_string(i), values[i]);
    list.push_back(values[i]);
  }
  put(cat, make(object_type::qlocal, "Q1", attrs, {{"L", list}}));
  cat.qmgr().attrs = attrs;
  cat.authrecs().push_back({values[7], values[0], values[9], values[8], list});
  expect_round_trip(cat);

  const std::string text = encode_catalog(cat);
  EXPECT_EQ(count_lines(text), 5U);  // version, QMGR, QLOCAL, AUTHREC, FILE
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u != 0x7F)) << "raw control byte " << int(u);
  }
  EXPECT_THAT(text, HasSubstr("V7('line one\\x0Aline two')"));
  EXPECT_THAT(text, HasSubstr("V9('nul\\x00inside')"));
  EXPECT_THAT(text, HasSubstr("V5('a\\\\b\\\\')"));
  EXPECT_THAT(text, HasSubstr("V0('it''s')"));
  EXPECT_THAT(text, HasSubstr("V12('caf\xE9')"));
}

TEST(CatalogText, KeywordsThatAreNotBareWordsOrLookLikeFieldsRoundTrip) {
  object_catalog cat("QM1", names::fs_profile::posix);
  // NAME and PROFILE are positional, so attributes of those names are still attributes.
  cat.qmgr().attrs = {{"NAME", "other"}, {"PROFILE", "fat83"}, {"", "empty key"}, {"my key", "v"}};
  cat.qmgr().lists = {{"LIST", {"a"}}, {"", {}}, {"it's", {"x", ""}}};
  put(cat, make(object_type::channel, "C1", {{"LIST", "scalar called LIST"}, {"NAME", "N"}, {"lower_1", "l"}},
                {{"LIST", {"list called LIST"}}, {"NAME", {"n1", "n2"}}}));
  expect_round_trip(cat);
  const std::string text = encode_catalog(cat);
  EXPECT_THAT(text, HasSubstr("''('empty key')"));
  EXPECT_THAT(text, HasSubstr("'my key'('v')"));
  EXPECT_THAT(text, HasSubstr(" LIST('scalar called LIST')"));
  EXPECT_THAT(text, HasSubstr(" LIST LIST('list called LIST')"));
  EXPECT_THAT(text, HasSubstr(" LIST 'it''s'('x','')"));
}

TEST(CatalogText, NamesWithDotSlashPercentMixedCaseAnd48CharactersOnPosix) {
  const std::string long_name(48, 'Q');
  const std::vector<std::pair<std::string, std::string>> expected = {{"APP.ORDERS", "APP!ORDERS"},
                                                                     {"a/b/c", "a&b&c"},
                                                                     {"pct%1", "pct%1"},
                                                                     {"MixedCase.q", "MixedCase!q"},
                                                                     {"mixedcase.Q", "mixedcase!Q"},
                                                                     {long_name, long_name}};
  object_catalog cat("QM.ONE/X", names::fs_profile::posix);
  for (const auto& [real, file] : expected) put(cat, make(object_type::qlocal, real, {{"DESCR", real}}));
  put(cat, make(object_type::process, "P.1/%", {}));
  put(cat, make(object_type::namelist, "nl.Low", {}, {{"NAMES", {"APP.ORDERS"}}}));
  expect_round_trip(cat);
  const object_catalog back = decoded(encode_catalog(cat));
  for (const auto& [real, file] : expected) {
    EXPECT_EQ(back.file_name_of(object_family::queue, real), file);
    EXPECT_EQ(back.real_name_of(object_family::queue, file), real);
  }
  EXPECT_EQ(back.file_name_of(object_family::process, "P.1/%"), "P!1&%");
  EXPECT_EQ(back.real_name_of(object_family::namelist, "nl!Low"), "nl.Low");
  EXPECT_EQ(back.real_name_of(object_family::queue, "APP!ORDERS"), "APP.ORDERS");
  EXPECT_EQ(back.real_name_of(object_family::queue, "app!orders"), std::nullopt);  // posix is case sensitive
}

// Builds a catalog on a case-insensitive profile in an order that the decoder, which sees objects in
// name order, would not reproduce by itself: "abc" before "ABC", APP.ORDERS.0050 down to 0001.
object_catalog colliding(names::fs_profile profile) {
  object_catalog cat("queue.manager", profile);
  put(cat, make(object_type::qlocal, "abc"));
  put(cat, make(object_type::qalias, "ABC", {{"TARGET", "abc"}}));
  put(cat, make(object_type::qlocal, "Abc"));
  for (int i = 50; i >= 1; --i) {
    std::string n = std::to_string(i);
    put(cat, make(object_type::qlocal, "APP.ORDERS." + std::string(4 - n.size(), '0') + n));
  }
  // A name whose stem is taken gets stem.000 (rule 2's suffix, file_name_map.hpp): HOLDER was loaded
  // holding the stem of APP.ORDERS%0099 (no valid file name on either profile: '%'), as a catalog written by
  // an earlier run could have it.
  const std::string stem = cat.file_names(object_family::queue).stem_of("APP.ORDERS%0099");
  EXPECT_TRUE(cat.file_names(object_family::queue).add("HOLDER", stem).ok());
  put(cat, make(object_type::qlocal, "HOLDER"));
  put(cat, make(object_type::qlocal, "APP.ORDERS%0099"));
  EXPECT_EQ(cat.file_name_of(object_family::queue, "APP.ORDERS%0099"), stem + ".000");
  put(cat, make(object_type::qlocal, "pct%queue"));
  put(cat, make(object_type::qlocal, std::string(48, 'L')));
  put(cat, make(object_type::process, "proc.one"));
  put(cat, make(object_type::process, "PROC.ONE"));
  put(cat, make(object_type::namelist, "NL"));
  put(cat, make(object_type::namelist, "nl"));
  return cat;
}

void expect_same_file_names_after_restart(names::fs_profile profile) {
  const object_catalog cat = colliding(profile);
  // The transformation really did truncate, suffix or rename: some file names are not rule 1's.
  std::size_t generated = 0;
  for (object_family f : file_families) {
    for (const auto& [real, file] : cat.file_names(f).pairs()) {
      if (file != names::transform_chars(real)) ++generated;
    }
  }
  EXPECT_GE(generated, 4U);
  EXPECT_EQ(cat.real_name_of(object_family::queue,
                             cat.file_names(object_family::queue).stem_of("APP.ORDERS%0099") + ".000"),
            "APP.ORDERS%0099");
  expect_round_trip(cat);

  const object_catalog back = decoded(encode_catalog(cat));
  for (object_family f : file_families) {
    for (const auto& [real, file] : cat.file_names(f).pairs()) {
      EXPECT_EQ(back.file_name_of(f, real), file) << real;
      EXPECT_EQ(back.real_name_of(f, file), real) << file;
      // The file system compares without case: a listing in any case finds the same object.
      std::string upper = file;
      std::transform(upper.begin(), upper.end(), upper.begin(),
                     [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; });
      EXPECT_EQ(back.real_name_of(f, upper), real) << upper;
    }
  }
}

TEST(CatalogText, Fat83TruncationSuffixAndCaseCollisionsSurviveARestart) {
  expect_same_file_names_after_restart(names::fs_profile::fat83);
  const object_catalog back = decoded(encode_catalog(colliding(names::fs_profile::fat83)));
  EXPECT_EQ(back.file_name_of(object_family::queue, "abc"), "abc");
  ASSERT_TRUE(back.file_name_of(object_family::queue, "ABC").has_value());
  EXPECT_NE(names::file_name_key(*back.file_name_of(object_family::queue, "ABC"), names::fs_profile::fat83),
            "ABC");
  EXPECT_EQ(back.qmgr_name(), "queue.manager");
  EXPECT_EQ(back.profile(), names::fs_profile::fat83);
}

TEST(CatalogText, CaseInsensitiveCollisionsSurviveARestart) {
  expect_same_file_names_after_restart(names::fs_profile::case_insensitive);
  const object_catalog back = decoded(encode_catalog(colliding(names::fs_profile::case_insensitive)));
  EXPECT_EQ(back.file_name_of(object_family::queue, "APP.ORDERS.0001"), "APP!ORDERS!0001");
  EXPECT_EQ(back.real_name_of(object_family::queue, "ABC"), "abc");  // abc came first and kept its name
}

TEST(CatalogText, WithoutTheFilePairsTheNamesWouldChange) {
  // Why the pairs are kept: remade in name order, ABC would take the file abc had.
  const object_catalog cat = colliding(names::fs_profile::fat83);
  std::string text = encode_catalog(cat);
  std::string no_pairs;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start + 1);
    if (line.rfind("FILE ", 0) != 0) no_pairs += line;
    start = end + 1;
  }
  const object_catalog lenient = decoded(no_pairs);
  // Lenient: every object of a file family got a file name again.
  EXPECT_EQ(count_pairs(lenient), count_pairs(cat));
  EXPECT_NE(lenient.real_name_of(object_family::queue, "abc"), "abc");
  EXPECT_EQ(decoded(text).real_name_of(object_family::queue, "abc"), "abc");
}

// ---- what the decoder accepts beyond what the encoder writes, and stability --------------------

TEST(CatalogText, HandEditedTextDecodesAndReencodesStably) {
  const std::string text =
      "IMSBRIDGE-CATALOG 1   \n"
      "  QMGR   NAME( 'QM1' )  PROFILE('fat83') 'DEADQ'('DLQ')   \n"
      "FILE QUEUE REAL('Q.B') FILE('q!b')\n"
      "AUTHREC PROFILE('Q.*') OBJTYPE('QUEUE') PRINCIPAL('u') GROUP('') LIST AUTHORITIES( 'GET' , 'PUT' )\n"
      "QLOCAL NAME('Q.B') DESCR('x\\x0ay\\x7f')\n"
      "NAMELIST NAME('N') LIST NAMES(  )\n"
      "QLOCAL NAME('Q.A')\n"
      "QLOCAL NAME('DLQ')";  // no final newline
  const object_catalog first = decoded(text);
  EXPECT_EQ(first.qmgr().text("DEADQ"), "DLQ");
  EXPECT_EQ(first.file_name_of(object_family::queue, "Q.B"), "q!b");
  EXPECT_EQ(first.file_name_of(object_family::queue, "Q.A"), "Q!A");  // made at load: lenient
  EXPECT_EQ(first.find(object_family::queue, "Q.B")->text("DESCR"), "x\ny\x7F");
  ASSERT_EQ(first.authrecs().size(), 1U);
  EXPECT_EQ(first.authrecs()[0].authorities, (std::vector<std::string>{"GET", "PUT"}));
  const std::string once = encode_catalog(first);
  const object_catalog second = decoded(once);
  expect_same(first, second);
  EXPECT_EQ(encode_catalog(second), once);
  EXPECT_THAT(once, HasSubstr("FILE QUEUE REAL('Q.B') FILE('q!b')\nFILE QUEUE REAL('Q.A') FILE('Q!A')\n"));
}

// ---- rejections --------------------------------------------------------------------------------

constexpr std::string_view header = "IMSBRIDGE-CATALOG 1\nQMGR NAME('QM1') PROFILE('posix')\n";

std::size_t offset_of_line(std::string_view text, std::size_t line) {
  std::size_t offset = 0;
  for (std::size_t n = 1; n < line; ++n) {
    const std::size_t nl = text.find('\n', offset);
    if (nl == std::string_view::npos) return text.size();
    offset = nl + 1;
  }
  return offset;
}

void expect_rejected(const std::string& text, std::errc code, std::size_t line,
                     std::string_view detail_part) {
  auto r = decode_catalog(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().code, std::make_error_code(code)) << r.error().to_string();
  EXPECT_EQ(r.error().field, "catalog.line " + std::to_string(line)) << r.error().to_string();
  EXPECT_EQ(r.error().offset, offset_of_line(text, line)) << r.error().to_string();
  EXPECT_THAT(r.error().detail, HasSubstr(std::string(detail_part)));
}

TEST(CatalogTextRejects, VersionLine) {
  expect_rejected("", std::errc::invalid_argument, 1, "no version line");
  expect_rejected("IMSBRIDGE-CATALOG 2\nQMGR NAME('Q') PROFILE('posix')\n", std::errc::not_supported, 1,
                  "version 2 is not supported");
  expect_rejected("IMSBRIDGE-CATALOG 10\n", std::errc::not_supported, 1, "version 10");
  expect_rejected("IMSBRIDGE-CATALOG one\n", std::errc::invalid_argument, 1, "decimal number");
  expect_rejected("IMSBRIDGE-CATALOG\n", std::errc::invalid_argument, 1, "not an imsbridge object catalog");
  expect_rejected("QMGR NAME('Q') PROFILE('posix')\n", std::errc::invalid_argument, 1, "not an imsbridge");
  expect_rejected("IMSBRIDGE-CATALOG 1\r\nQMGR NAME('Q') PROFILE('posix')\r\n", std::errc::invalid_argument,
                  1, "decimal");
}

TEST(CatalogTextRejects, QmgrLine) {
  expect_rejected("IMSBRIDGE-CATALOG 1\n", std::errc::invalid_argument, 2, "QMGR line");
  expect_rejected("IMSBRIDGE-CATALOG 1\nQLOCAL NAME('A')\n", std::errc::invalid_argument, 2, "QMGR line");
  expect_rejected("IMSBRIDGE-CATALOG 1\nQMGR NAME('Q') PROFILE('ntfs')\n", std::errc::invalid_argument, 2,
                  "PROFILE must be");
  expect_rejected("IMSBRIDGE-CATALOG 1\nQMGR PROFILE('posix') NAME('Q')\n", std::errc::invalid_argument, 2,
                  "must be NAME");
  expect_rejected("IMSBRIDGE-CATALOG 1\nQMGR NAME('Q')\n", std::errc::invalid_argument, 2, "must be PROFILE");
  expect_rejected(std::string(header) + "QLOCAL NAME('A')\nQMGR NAME('Q') PROFILE('posix')\n",
                  std::errc::invalid_argument, 4, "once, on line 2");
}

TEST(CatalogTextRejects, MalformedLinesNameTheirLine) {
  const std::string h(header);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"QLOCAL NAME('A') DESCR('x", "not closed"},
      {"QLOCAL NAME('A) DESCR('x')", "expected ')' or ','"},
      {"QLOCAL NAME('A'", "expected ')'"},
      {"QLOCAL NAME ('A')", "expected '(' right after keyword NAME"},
      {"QLOCAL NAME(A)", "expected a quoted value"},
      {"QLOCAL NAME('A') DESCR('\\q')", "backslash"},
      {"QLOCAL NAME('A') DESCR('\\x4')", "backslash"},
      {"QLOCAL NAME('A') DESCR('a\tb')", "control character X'09'"},
      {"QLOCAL NAME('A')\r", "expected a blank between fields"},
      {"", "empty line"},
      {"   ", "empty line"},
      {"QLOCAL NAME('A') DESCR('x') DESCR('y')", "keyword DESCR appears twice"},
      {"NAMELIST NAME('A') LIST NAMES() LIST NAMES('x')", "column 33: list keyword NAMES appears twice"},
      {"QMODEL NAME('A') NAME('x') 'NAME'('y')", "column 28: keyword NAME appears twice"},
      {"QLOCAL NAME('A') DESCR('x')MAXDEPTH('1')", "expected a blank between fields"},
      {"QLOCAL NAME('A') LIST ", "expected a keyword after LIST"},
      {"QLOCAL NAME('A') LIST NAMES('a' 'b')", "expected ')' or ','"},
      {"QLOCAL NAME('A') LIST NAMES('a',)", "expected a quoted value"},
      {"QLOCAL DESCR('x') NAME('A')", "must be NAME"},
      {"QLOCAL LIST NAME('A')", "must be NAME"},
      {"QLOCAL", "must be NAME"},
      {"QLOCAL(NAME('A'))", "expected a blank after the line's first word"},
      {"'QLOCAL' NAME('A')", "expected a line word"},
      {"QTOPIC NAME('A')", "unknown object type"},
      {"qlocal NAME('A')", "unknown object type"},
      {"AUTHREC PROFILE('A') OBJTYPE('QUEUE') PRINCIPAL('u') LIST AUTHORITIES('GET')", "must be GROUP"},
      {"AUTHREC PROFILE('A') OBJTYPE('QUEUE') PRINCIPAL('u') GROUP('') AUTHORITIES('GET')",
       "LIST AUTHORITIES"},
      {"AUTHREC PROFILE('A') OBJTYPE('QUEUE') PRINCIPAL('u') GROUP('') LIST AUTHORITIES() X('1')",
       "LIST AUTHORITIES"},
      {"FILE CHANNEL REAL('A') FILE('A')", "not a family whose objects are files"},
      {"FILE QUEUE FILE('A') REAL('A')", "must be REAL"},
      {"FILE QUEUE REAL('A') FILE('A') X('1')", "only REAL and FILE"},
      {"FILE REAL('A') FILE('A')", "expected a blank after the line's first word"},
  };
  for (const auto& [line, detail] : cases) {
    SCOPED_TRACE(line);
    // The bad line is line 4, after a good object line.
    expect_rejected(h + "QLOCAL NAME('OK')\n" + line + "\nQLOCAL NAME('AFTER')\n",
                    std::errc::invalid_argument, 4, detail);
  }
}

TEST(CatalogTextRejects, DuplicateObjects) {
  const std::string h(header);
  expect_rejected(h + "QLOCAL NAME('A')\nQLOCAL NAME('B')\nQLOCAL NAME('A')\n", std::errc::file_exists, 5,
                  "QUEUE object named 'A'");
  // The four queue types share one name space [C: NAMING-V6].
  expect_rejected(h + "QLOCAL NAME('A')\nQMODEL NAME('A')\n", std::errc::file_exists, 4, "already");
  expect_rejected(h + "CHANNEL NAME('C')\nLISTENER NAME('C')\nCHANNEL NAME('C')\n", std::errc::file_exists, 5,
                  "CHANNEL object named 'C'");
  // Different families may share a name; case differs, so different objects.
  EXPECT_TRUE(
      decode_catalog(h + "QLOCAL NAME('A')\nPROCESS NAME('A')\nCHANNEL NAME('A')\nQLOCAL NAME('a')\n").ok());
}

TEST(CatalogTextRejects, FilePairs) {
  const std::string h(header);
  // A pair for an object that is not there.
  expect_rejected(h + "QLOCAL NAME('A')\nFILE QUEUE REAL('A') FILE('A')\nFILE QUEUE REAL('B') FILE('B')\n",
                  std::errc::invalid_argument, 5, "not in the catalog");
  expect_rejected(h + "QLOCAL NAME('A')\nFILE PROCESS REAL('A') FILE('A')\n", std::errc::invalid_argument, 4,
                  "PROCESS 'A', which is not in the catalog");
  // The same pair twice.
  expect_rejected(h + "QLOCAL NAME('A')\nFILE QUEUE REAL('A') FILE('A')\nFILE QUEUE REAL('A') FILE('A')\n",
                  std::errc::file_exists, 5, "already in the catalog");
  // add() refuses: one real name, two files; one file, two names.
  expect_rejected(h + "QLOCAL NAME('A')\nFILE QUEUE REAL('A') FILE('A')\nFILE QUEUE REAL('A') FILE('X')\n",
                  std::errc::file_exists, 5, "already the name of file");
  expect_rejected(h + "QLOCAL NAME('A')\nQLOCAL NAME('B')\nFILE QUEUE REAL('A') FILE('F')\n"
                      "FILE QUEUE REAL('B') FILE('F')\n",
                  std::errc::file_exists, 6, "already belongs to 'A'");
  // add() refuses: not a valid real name, not a valid file name on the profile.
  expect_rejected(h + "FILE QUEUE REAL('A B') FILE('A')\n", std::errc::invalid_argument, 3, "real_name");
  expect_rejected(h + "QLOCAL NAME('A')\nFILE QUEUE REAL('A') FILE('a/b')\n", std::errc::invalid_argument, 4,
                  "file_name");
  expect_rejected(
      "IMSBRIDGE-CATALOG 1\nQMGR NAME('Q') PROFILE('fat83')\nQLOCAL NAME('LONGNAME.Q')\n"
      "FILE QUEUE REAL('LONGNAME.Q') FILE('LONGNAME!Q')\n",
      std::errc::invalid_argument, 4, "fat83");
  // A case collision on a case-insensitive profile is the same file.
  expect_rejected(
      "IMSBRIDGE-CATALOG 1\nQMGR NAME('Q') PROFILE('case_insensitive')\nQLOCAL NAME('abc')\n"
      "QLOCAL NAME('ABC')\nFILE QUEUE REAL('abc') FILE('abc')\nFILE QUEUE REAL('ABC') FILE('ABC')\n",
      std::errc::file_exists, 6, "already belongs to 'abc'");
}

TEST(CatalogTextRejects, ObjectNamesPutRefuses) {
  // Objects that are files need a valid MQ name (file_name_map::transform; [C: NAMING-V6]).
  expect_rejected(std::string(header) + "QLOCAL NAME('OK')\nQLOCAL NAME('has blank')\n",
                  std::errc::invalid_argument, 4, "real_name");
  expect_rejected(std::string(header) + "PROCESS NAME('" + std::string(49, 'P') + "')\n",
                  std::errc::invalid_argument, 3, "real_name");
}

TEST(CatalogTextRejects, TextThatIsNotACatalogNeverCrashes) {
  // Truncations of a real catalog at every byte either decode or fail with a line number.
  const std::string text = encode_catalog(colliding(names::fs_profile::fat83));
  std::size_t decoded_count = 0;
  for (std::size_t n = 0; n <= text.size(); n += 7) {
    auto r = decode_catalog(std::string_view(text).substr(0, n));
    if (r.ok()) {
      ++decoded_count;
      EXPECT_EQ(encode_catalog(decoded(encode_catalog(r.value()))), encode_catalog(r.value()));
    } else {
      EXPECT_THAT(r.error().field, StartsWith("catalog.line "));
      EXPECT_LE(r.error().offset, n);
    }
  }
  EXPECT_GT(decoded_count, 0U);
}

}  // namespace
}  // namespace imsb::objects
