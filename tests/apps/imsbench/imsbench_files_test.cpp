// imsbench beyond its first version: the workload file, think time, progress, the histogram and timeline
// CSV files, the SVG plot, the versioned report; and a whole run with all of them against an in-process
// queue manager where a responder thread plays the bridge.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "fake_bridge.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsbench/imsbench.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"
#include "process.hpp"
#include "temp_qmgr.hpp"

namespace imsb::imsbench {
namespace {

result<options> parse(std::vector<std::string> extra) {
  std::vector<std::string> a = {"-m", "QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY"};
  a.insert(a.end(), extra.begin(), extra.end());
  return parse_options(a);
}

TEST(imsbench_new_options, defaults_and_values) {
  auto d = parse({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->workload, "");
  EXPECT_EQ(d->seed, 1u);
  EXPECT_DOUBLE_EQ(d->think_ms, 0);
  EXPECT_EQ(d->think, think_dist::fixed);
  EXPECT_EQ(d->progress, progress_mode::automatic);
  EXPECT_EQ(d->histogram, "");
  auto o = parse({"--workload", "w.txt", "--seed", "42", "--think-ms", "2.5", "--think-dist", "exp",
                  "--progress", "--histogram", "h.csv", "--timeline", "t.csv", "--plot", "p.svg"});
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  EXPECT_EQ(o->workload, "w.txt");
  EXPECT_EQ(o->seed, 42u);
  EXPECT_DOUBLE_EQ(o->think_ms, 2.5);
  EXPECT_EQ(o->think, think_dist::exp);
  EXPECT_EQ(o->progress, progress_mode::on);
  EXPECT_EQ(o->histogram, "h.csv");
  EXPECT_EQ(o->timeline, "t.csv");
  EXPECT_EQ(o->plot, "p.svg");
  EXPECT_EQ(parse({"--no-progress"})->progress, progress_mode::off);
  const std::string u = usage();
  for (const char* word : {"--workload", "--seed", "--think-ms", "--think-dist", "--progress",
                           "--no-progress", "--histogram", "--timeline", "--plot"})
    EXPECT_NE(u.find(word), std::string::npos) << word;
}

TEST(imsbench_new_options, errors_name_the_option) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--think-ms", "-1"}, "--think-ms"},
      {{"--think-ms", "4000000"}, "--think-ms"},
      {{"--think-dist", "normal"}, "--think-dist"},
      {{"--progress", "--no-progress"}, "--progress"},
      {{"--workload", "w", "--tran", "ECHO"}, "--workload"},
      {{"--workload", "w", "--size", "10"}, "--workload"},
      {{"--workload", ""}, "--workload"},
      {{"--histogram", ""}, "--histogram"},
      {{"--timeline", ""}, "--timeline"},
      {{"--plot", ""}, "--plot"},
      {{"--seed", "x"}, "command line"},
  };
  for (const auto& [args, field] : cases) {
    auto o = parse(args);
    ASSERT_FALSE(o.ok()) << field;
    EXPECT_EQ(o.error().field, field) << o.error().to_string();
  }
  std::ostringstream out, err;
  EXPECT_EQ(run({"-q", "Q", "-r", "R", "--think-dist", "x"}, out, err,
                [](const options&, int) -> result<std::unique_ptr<mqi::connection>> {
                  return decode_error{mq::make_mqrc(2059), "MQCONN", 0, "not used"};
                }),
            2);
  EXPECT_EQ(err.str().rfind(std::string(msg::IMB4940E), 0), 0u) << err.str();
}

// Two fixed defects: a negative --count (which the parser wraps round to 2^64-1), two outputs into one file.
TEST(imsbench_new_options, count_range_and_one_file_per_output) {
  for (const char* bad : {"-1", "0", "1000000000001"}) {
    auto o = parse({"--count", bad});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_EQ(o.error().field, "--count") << bad;
  }
  EXPECT_EQ(parse({"--count", "1000000000000"})->count, 1000000000000u);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--histogram", "a", "--timeline", "a"}, "--timeline"},
      {{"--histogram", "a", "--plot", "a"}, "--plot"},
      {{"--timeline", "a", "--plot", "a"}, "--plot"},
      {{"--histogram", "a", "--plot", "./a"}, "--plot"},
      {{"--histogram", "/tmp/x/../a.csv", "--timeline", "/tmp/a.csv"}, "--timeline"},
  };
  for (const auto& [args, field] : cases) {
    auto o = parse(args);
    ASSERT_FALSE(o.ok()) << field;
    EXPECT_EQ(o.error().field, field);
  }
  EXPECT_TRUE(parse({"--histogram", "a", "--timeline", "b", "--plot", "c"}).ok());
}

// --- The workload file ---------------------------------------------------------------------------------

// Files the workload names, in memory.
std::function<result<bytes>(const std::string&)> files(std::map<std::string, bytes> m) {
  return [m](const std::string& f) -> result<bytes> {
    auto it = m.find(f);
    if (it == m.end())
      return decode_error{std::make_error_code(std::errc::no_such_file_or_directory), f, 0, "cannot be read"};
    return it->second;
  };
}

bytes llzz(const std::vector<std::string>& segs, byte_order order, bool ebcdic = false) {
  bytes b;
  for (const std::string& s : segs) {
    const std::size_t at = b.size();
    b.resize(at + 4);
    store_u16(b.data() + at, static_cast<std::uint16_t>(4 + s.size()), order);
    for (char c : s)
      b.push_back(ebcdic ? (c == ' ' ? 0x40 : static_cast<std::uint8_t>(0xC0 + (c - 'A' + 1))) : c);
  }
  return b;
}

TEST(imsbench_workload, good_lines) {
  bytes iih_msg;
  mq::mqiih iih;
  iih.commit_mode = '1';
  mq::encode_mqiih(iih, 785, 500, iih_msg);
  const bytes segs = llzz({"ECHO    ABC", "DEF"}, byte_order::big);
  iih_msg.insert(iih_msg.end(), segs.begin(), segs.end());
  const std::string text =
      "# a comment\n"
      "\n"
      "  5 IVTNO   DISPLAY LAST1\r\n"
      "1\tECHO    A|B\\|C|D\\\\E\n"
      "   # indented comment\n"
      "2 @cap/one.bin\n"
      "3 @/abs/two.bin  \n"
      "1000000 SHOWOTMA";
  auto w = parse_workload(
      text, "dir/w.txt",
      files({{"dir/cap/one.bin", iih_msg}, {"/abs/two.bin", llzz({"ECHO    X"}, byte_order::little)}}));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  ASSERT_EQ(w->items.size(), 5u);
  EXPECT_EQ(w->total_weight, 5u + 1 + 2 + 3 + 1000000);
  EXPECT_EQ(w->items[0].line, 3);
  EXPECT_EQ(w->items[0].weight, 5u);
  EXPECT_EQ(w->items[0].segments, std::vector<std::string>{"IVTNO   DISPLAY LAST1"});
  EXPECT_EQ(w->items[1].segments, (std::vector<std::string>{"ECHO    A", "B|C", "D\\E"}));
  EXPECT_EQ(w->items[1].label, "ECHO    A");
  EXPECT_EQ(w->items[2].label, "@cap/one.bin");
  EXPECT_TRUE(w->items[2].has_iih);
  EXPECT_EQ(w->items[2].encoding, 785);
  EXPECT_EQ(w->items[2].ccsid, 500);
  EXPECT_FALSE(w->items[3].has_iih);
  EXPECT_EQ(w->items[3].encoding, 546);
  EXPECT_EQ(w->items[3].ccsid, 819);
  EXPECT_EQ(w->items[4].line, 8);

  // Drawing: weights as ranges of 0..total-1, in file order.
  EXPECT_EQ(pick(*w, 0), 0u);
  EXPECT_EQ(pick(*w, 4), 0u);
  EXPECT_EQ(pick(*w, 5), 1u);
  EXPECT_EQ(pick(*w, 6), 2u);
  EXPECT_EQ(pick(*w, 8), 3u);
  EXPECT_EQ(pick(*w, 11), 4u);
  EXPECT_EQ(pick(*w, w->total_weight - 1), 4u);

  // The requests: TEXT as --tran builds it; a captured MQIIH message as it is; LLZZ only with our MQIIH.
  options o = *parse({"--commit-mode", "1"});
  const request t = build_request(o, w->items[1]);
  EXPECT_EQ(t.md.format, "MQIMS   ");
  auto t_iih = mq::decode_mqiih(t.data, t.md.encoding, t.md.coded_char_set_id);
  ASSERT_TRUE(t_iih.ok());
  EXPECT_EQ(t_iih->commit_mode, '1');
  EXPECT_EQ(t.data.size(), 84u + 4 + 9 + 4 + 3 + 4 + 3);
  const request c = build_request(o, w->items[2]);
  EXPECT_EQ(c.md.format, "MQIMS   ");
  EXPECT_EQ(c.md.encoding, 785);
  EXPECT_EQ(c.md.coded_char_set_id, 500);
  EXPECT_EQ(c.data, iih_msg);
  const request l = build_request(o, w->items[3]);
  EXPECT_EQ(l.data.size(), 84u + 13);
  o.iih = false;
  o.commit_mode = '0';
  const request n = build_request(o, w->items[3]);
  EXPECT_EQ(n.md.format, "        ");
  EXPECT_EQ(n.data, llzz({"ECHO    X"}, byte_order::little));
}

TEST(imsbench_workload, ebcdic_llzz_only) {
  auto w = parse_workload("1 @e.bin\n", "w", files({{"e.bin", llzz({"ABC DEF"}, byte_order::big, true)}}));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  EXPECT_EQ(w->items[0].encoding, 785);
  EXPECT_EQ(w->items[0].ccsid, 500);
}

TEST(imsbench_workload, bad_lines_name_file_and_line) {
  const bytes bad_ll = {0x00, 0x20, 0x00, 0x00, 'A', 'B'};
  bytes iih_bad;
  mq::encode_mqiih(mq::mqiih{}, 546, 819, iih_bad);
  iih_bad.push_back(0x09);  // an LLZZ cut short
  const auto f = files({{"bad_ll.bin", bad_ll}, {"iih_bad.bin", iih_bad}, {"empty.bin", {}}});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"# only comments\n\n", "w"},
      {"x IVTNO\n", "w:1"},
      {"\n0 IVTNO\n", "w:2"},
      {"12345678 IVTNO\n", "w:1"},
      {"1000001 IVTNO\n", "w:1"},
      {"5\n", "w:1"},
      {"5   \n", "w:1"},
      {"5IVTNO\n", "w:1"},
      {"1 IVTNO\n1 A||B\n", "w:2"},
      {"1 A|\n", "w:1"},
      {"1 A\\x\n", "w:1"},
      {"1 @\n", "w:1"},
      {"1 @missing.bin\n", "w:1"},
      {"1 @bad_ll.bin\n", "w:1"},
      {"1 @iih_bad.bin\n", "w:1"},
      {"1 @empty.bin\n", "w:1"},
      {"1 " + std::string(32764, 'A') + "\n", "w:1"},
  };
  for (const auto& [text, where] : cases) {
    auto w = parse_workload(text, "w", f);
    ASSERT_FALSE(w.ok()) << text.substr(0, 40);
    EXPECT_EQ(w.error().field, where) << text.substr(0, 40) << ": " << w.error().to_string();
    EXPECT_FALSE(w.error().detail.empty());
  }
}

TEST(imsbench_workload, load_reads_hex_and_raw_files_relative_to_it) {
  test::temp_dir d;
  const bytes raw = llzz({"ECHO    RAW"}, byte_order::little);
  {
    std::ofstream(d.file("raw.bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
    std::ofstream(d.file("m.hex")) << "# LL 15 ZZ 0\n0F000000 | 4543484F 20202020 # ECHO\n484558  # HEX\n";
    std::ofstream(d.file("bad.hex")) << "0D00 XYZ\n";
    std::ofstream(d.file("w")) << "2 @raw.bin\n3 @m.hex\n";
    std::ofstream(d.file("w2")) << "1 IVTNO\n1 @bad.hex\n";
  }
  auto w = load_workload(d.file("w"));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  ASSERT_EQ(w->items.size(), 2u);
  EXPECT_EQ(*w->items[0].data, raw);
  EXPECT_EQ(*w->items[1].data, llzz({"ECHO    HEX"}, byte_order::little));
  auto bad = load_workload(d.file("w2"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, d.file("w2") + ":2");
  EXPECT_NE(bad.error().detail.find("line 1 column 6"), std::string::npos) << bad.error().detail;
  auto none = load_workload(d.file("nothing"));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().field, d.file("nothing"));
}

TEST(imsbench_workload, a_captured_mqmd_is_named) {
  const bytes md = {'M', 'D', ' ', ' ', 0x02, 0x00, 0x00, 0x00};
  auto w = parse_workload("1 @md.bin\n", "w", files({{"md.bin", md}}));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().field, "w:1");
  EXPECT_NE(w.error().detail.find("MQMD"), std::string::npos) << w.error().detail;
}

TEST(imsbench_workload, a_folder_is_named_as_one) {
  test::temp_dir d;
  std::filesystem::create_directory(d.file("sub"));
  { std::ofstream(d.file("w")) << "1 IVTNO\n1 @sub\n"; }
  auto folder = load_workload(d.file("sub"));
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().field, d.file("sub"));
  EXPECT_NE(folder.error().detail.find("is a folder"), std::string::npos) << folder.error().detail;
  auto line = load_workload(d.file("w"));
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.error().field, d.file("w") + ":2");
  EXPECT_NE(line.error().detail.find("is a folder"), std::string::npos) << line.error().detail;
}

// --no-iih and a captured message with an MQIIH: refused before connecting, the line named.
TEST(imsbench_workload, no_iih_refuses_a_captured_mqiih) {
  test::temp_dir d;
  bytes msg;
  mq::encode_mqiih(mq::mqiih{}, 546, 819, msg);
  const bytes segs = llzz({"ECHO    X"}, byte_order::little);
  msg.insert(msg.end(), segs.begin(), segs.end());
  {
    std::ofstream(d.file("m.bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(msg.data()), static_cast<std::streamsize>(msg.size()));
    std::ofstream(d.file("w")) << "1 IVTNO   DISPLAY LAST1\n1 @m.bin\n";
  }
  bool connected = false;
  const connector never = [&](const options&, int) -> result<std::unique_ptr<mqi::connection>> {
    connected = true;
    return decode_error{mq::make_mqrc(2059), "MQCONN", 0, "not used"};
  };
  std::ostringstream out, err;
  EXPECT_EQ(run({"-q", "Q", "-r", "R", "--no-iih", "--workload", d.file("w")}, out, err, never), 2);
  EXPECT_FALSE(connected);
  EXPECT_EQ(
      err.str().rfind(std::string(msg::IMB4945E) + " imsbench: workload " + d.file("w") + ":2: @m.bin", 0),
      0u)
      << err.str();
  // Without --no-iih it is used (the connector is reached).
  std::ostringstream out2, err2;
  EXPECT_EQ(run({"-q", "Q", "-r", "R", "--workload", d.file("w")}, out2, err2, never), 1);
  EXPECT_TRUE(connected);
}

// The draws: the same seed, the same sequence; exponential think times with the mean asked for.
TEST(imsbench_workload, seeded_draws_and_think_times) {
  auto w = parse_workload("1 A\n2 B\n7 C\n", "w", files({}));
  ASSERT_TRUE(w.ok());
  std::mt19937_64 g1 = requester_generator(5, 3), g2 = requester_generator(5, 3),
                  g3 = requester_generator(5, 4);
  std::vector<std::size_t> counts(3);
  bool differs = false;
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t a = g1(), b = g2(), c = g3();
    EXPECT_EQ(a, b);
    differs = differs || a != c;
    ++counts[pick(*w, a % w->total_weight)];
  }
  EXPECT_TRUE(differs) << "another requester, another sequence";
  EXPECT_NEAR(counts[0] / 1e5, 0.1, 0.01);
  EXPECT_NEAR(counts[1] / 1e5, 0.2, 0.01);
  EXPECT_NEAR(counts[2] / 1e5, 0.7, 0.01);

  options o = *parse({"--think-ms", "20"});
  std::mt19937_64 g = requester_generator(1, 0);
  EXPECT_DOUBLE_EQ(think_time_ms(o, g), 20);
  o.think = think_dist::exp;
  double sum = 0, below_mean = 0;
  for (int i = 0; i < 100000; ++i) {
    const double t = think_time_ms(o, g);
    ASSERT_TRUE(t >= 0 && std::isfinite(t)) << t;
    sum += t;
    below_mean += t < 20 ? 1 : 0;
  }
  EXPECT_NEAR(sum / 1e5, 20, 0.4);                        // the mean
  EXPECT_NEAR(below_mean / 1e5, 1 - std::exp(-1), 0.01);  // P(T < mean) = 1 - 1/e: exponential
}

TEST(imsbench_workload, the_example_parses) {
  auto w = load_workload(std::string(IMSB_SOURCE_DIR) + "/examples/imsbench/mix.workload");
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  EXPECT_GE(w->items.size(), 4u);
  bool captured = false;
  for (const auto& it : w->items) captured = captured || (it.data && it.has_iih);
  EXPECT_TRUE(captured);
}

// --- Histogram, timeline, plot, progress ---------------------------------------------------------------

std::vector<std::vector<std::string>> csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    rows.emplace_back();
    std::istringstream l(line);
    std::string cell;
    while (std::getline(l, cell, ',')) rows.back().push_back(cell);
  }
  return rows;
}

TEST(imsbench_histogram, fixed_buckets_that_sum_to_the_count) {
  const std::vector<double>& b = histogram_bounds_us();
  ASSERT_EQ(b.size(), 61u);
  EXPECT_DOUBLE_EQ(b.front(), 100);
  EXPECT_DOUBLE_EQ(b[5], 315);
  EXPECT_DOUBLE_EQ(b.back(), 1e8);
  for (std::size_t i = 1; i < b.size(); ++i) EXPECT_LT(b[i - 1], b[i]);

  const std::vector<double> ms = {0.01, 0.1, 0.1001, 1.0, 1.2, 1.25, 3, 250000};
  const auto rows = csv(histogram_csv(ms));
  ASSERT_EQ(rows.size(), 1u + 62);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"upper_us", "count", "cumulative_fraction"}));
  EXPECT_EQ(rows.back()[0], "inf");
  std::uint64_t sum = 0;
  std::map<std::string, std::string> count;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 3u);
    sum += std::stoull(rows[i][1]);
    count[rows[i][0]] = rows[i][1];
  }
  EXPECT_EQ(sum, ms.size());
  EXPECT_EQ(count["100"], "2");   // 10 us and exactly 100 us
  EXPECT_EQ(count["125"], "1");   // 100.1 us
  EXPECT_EQ(count["1000"], "1");  // 1 ms
  EXPECT_EQ(count["1250"], "2");  // 1.2 and 1.25 ms
  EXPECT_EQ(count["3150"], "1");
  EXPECT_EQ(count["inf"], "1");  // 250 s
  EXPECT_EQ(rows.back()[2], "1.000000");
  EXPECT_EQ(rows[1][2], "0.250000");
  // An empty run: the same rows, all zero; two runs' files line up row by row.
  const auto empty = csv(histogram_csv({}));
  ASSERT_EQ(empty.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(empty[i][0], rows[i][0]);
  EXPECT_EQ(empty.back()[2], "0.000000");
}

std::vector<requester_stats> two_requesters() {
  requester_stats a, b;
  a.sent_s = {0.1, 0.5, 1.2, 2.9};
  a.events = {{0.2, 2, false}, {0.6, 4, false}, {1.3, 0, true}, {3.01, 8, false}};
  b.sent_s = {0.0, 1.5};
  b.events = {{0.3, 1, false}, {1.6, 10, false}};
  return {a, b};
}

TEST(imsbench_timeline, rows_per_second) {
  const auto rows = make_timeline(two_requesters(), 3.02);  // 3.02: the sliver joins the third second
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].second, 1);
  EXPECT_EQ(rows[0].sent, 3u);
  EXPECT_EQ(rows[0].replies, 3u);
  EXPECT_EQ(rows[0].errors, 0u);
  EXPECT_DOUBLE_EQ(rows[0].tps, 3);
  EXPECT_DOUBLE_EQ(rows[0].p50_ms, 2);
  EXPECT_DOUBLE_EQ(rows[0].max_ms, 4);
  EXPECT_EQ(rows[1].sent, 2u);
  EXPECT_EQ(rows[1].replies, 1u);
  EXPECT_EQ(rows[1].errors, 1u);
  EXPECT_EQ(rows[2].replies, 1u);
  EXPECT_NEAR(rows[2].tps, 1 / 1.02, 1e-9);
  const auto c = csv(timeline_csv(rows));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], (std::vector<std::string>{"second", "sent", "replies", "errors", "tps", "p50_ms", "p99_ms",
                                            "max_ms"}));
  EXPECT_EQ(c[1], (std::vector<std::string>{"1", "3", "3", "0", "3.0", "2.000", "4.000", "4.000"}));
  // A short --count run: one row.
  EXPECT_EQ(make_timeline({}, 0.2).size(), 1u);
  EXPECT_EQ(make_timeline(two_requesters(), 3.5).size(), 4u);
}

// Well-formed XML, as far as a plot needs: tags balance, attributes are quoted, entities are known.
// Returns "" or what is wrong; `ids` gets each element's id and its "d" attribute.
std::string check_xml(const std::string& x, std::map<std::string, std::string>& ids) {
  std::vector<std::string> stack;
  std::size_t i = 0;
  if (x.rfind("<?xml", 0) == 0) i = x.find("?>") + 2;
  const std::regex attr(R"(([a-zA-Z:-]+)="([^"<]*)\")");
  while ((i = x.find('<', i)) != std::string::npos) {
    const std::size_t end = x.find('>', i);
    if (end == std::string::npos) return "a tag does not end";
    std::string tag = x.substr(i + 1, end - i - 1);
    // Text before the tag: only known entities.
    i = end + 1;
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes nothing";
      stack.pop_back();
      continue;
    }
    const bool self = tag.back() == '/';
    if (self) tag.pop_back();
    const std::string name = tag.substr(0, tag.find(' '));
    std::string rest = tag.substr(name.size());
    std::smatch m;
    std::string id, d;
    while (std::regex_search(rest, m, attr)) {
      if (m[1] == "id") id = m[2];
      if (m[1] == "d") d = m[2];
      rest = m.suffix();
    }
    for (char c : rest)
      if (c != ' ' && c != '\n') return "<" + name + "> has an attribute that is not name=\"value\"";
    if (!id.empty()) ids[id] = d;
    if (!self) stack.push_back(name);
  }
  if (!stack.empty()) return "<" + stack.back() + "> is not closed";
  for (std::size_t a = x.find('&'); a != std::string::npos; a = x.find('&', a + 1)) {
    bool known = false;
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;"})
      known = known || x.compare(a, std::strlen(e), e) == 0;
    if (!known) return "an unknown entity";
  }
  return "";
}

TEST(imsbench_plot, well_formed_svg_with_the_series) {
  auto rows = make_timeline(two_requesters(), 4.0);
  ASSERT_EQ(rows.size(), 4u);  // the fourth second has a reply at 3.01; none in the... third
  const std::string svg = plot_svg(rows, "4 requester(s) <&> \"quoted\"");
  std::map<std::string, std::string> ids;
  EXPECT_EQ(check_xml(svg, ids), "") << svg;
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("4 requester(s) &lt;&amp;&gt; &quot;quoted&quot;"), std::string::npos);
  EXPECT_NE(svg.find("latency ms (log)"), std::string::npos);
  EXPECT_NE(svg.find("replies/s"), std::string::npos);
  for (const char* id : {"p50", "p99", "max", "tps"}) ASSERT_TRUE(ids.count(id)) << id;
  // Latency: a point per second with replies (seconds 1, 2 and 4), a gap (a new M) at second 3;
  // throughput: every second.
  const auto count = [](const std::string& d, char c) { return std::count(d.begin(), d.end(), c); };
  EXPECT_EQ(count(ids["p50"], 'M') + count(ids["p50"], 'L'), 3);
  EXPECT_EQ(count(ids["p50"], 'M'), 2);
  EXPECT_EQ(count(ids["tps"], 'M') + count(ids["tps"], 'L'), 4);
  EXPECT_EQ(count(ids["tps"], 'M'), 1);
  // The max line is at or above p99, which is at or above p50 (y grows downwards).
  const auto first_y = [](const std::string& d) { return std::stod(d.substr(d.find(',') + 1)); };
  EXPECT_LE(first_y(ids["max"]), first_y(ids["p99"]));
  EXPECT_LE(first_y(ids["p99"]), first_y(ids["p50"]));
  // Nothing answered: still a plot, empty latency series.
  std::map<std::string, std::string> none;
  EXPECT_EQ(check_xml(plot_svg({}, "empty"), none), "");
  EXPECT_EQ(none["p50"], "");
}

// A run shorter than two seconds has one point a series, and a second between two without replies is
// alone: each gets a dot (a one-point path draws nothing).
TEST(imsbench_plot, lone_points_get_dots) {
  requester_stats a;
  a.sent_s = {0.1};
  a.events = {{0.2, 2, false}};
  const auto one = make_timeline({a}, 0.3);
  ASSERT_EQ(one.size(), 1u);
  std::map<std::string, std::string> ids;
  const std::string svg = plot_svg(one, "short");
  EXPECT_EQ(check_xml(svg, ids), "") << svg;
  for (const char* id : {"p50-points", "p99-points", "max-points", "tps-points"})
    EXPECT_TRUE(ids.count(id)) << id << svg;
  // Seconds 1, 2 and 4 have replies, 3 none: the fourth is alone in the latency series; the throughput
  // line has no gap.
  const std::string four = plot_svg(make_timeline(two_requesters(), 4.0), "gap");
  EXPECT_NE(four.find("<g id=\"p50-points\" fill=\"#1f77b4\"><circle "), std::string::npos) << four;
  EXPECT_EQ(four.find("id=\"tps-points\""), std::string::npos) << four;
  const auto circles = [](const std::string& x) {
    std::size_t n = 0;
    for (std::size_t i = x.find("<circle"); i != std::string::npos; i = x.find("<circle", i + 1)) ++n;
    return n;
  };
  EXPECT_EQ(circles(four), 3u);  // p50, p99, max at second 4
}

// The JSON report and the plot are UTF-8 even when a TEXT line or a file name is not: other bytes are
// read as ISO 8859-1; a title is never cut inside a character.
TEST(imsbench_plot, utf8_text_and_titles) {
  EXPECT_EQ(utf8_text("ECHO    \xE9t\xE9"), "ECHO    \xC3\xA9t\xC3\xA9");
  EXPECT_EQ(utf8_text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(utf8_text("\xC0\xAF"), "\xC3\x80\xC2\xAF");              // overlong '/': two Latin-1 characters
  EXPECT_EQ(utf8_text("\xED\xA0\x80"), "\xC3\xAD\xC2\xA0\xC2\x80");  // a surrogate
  EXPECT_EQ(utf8_text("\xC3"), "\xC3\x83");                          // cut short
  const auto valid = [](const std::string& s) { return utf8_text(s) == s; };
  std::string long_title;
  for (int i = 0; i < 120; ++i) long_title += "\xC3\xA9";
  for (const std::string& title : {long_title, std::string("workload /home/jos\xE9/mix.workload")}) {
    const std::string svg = plot_svg({}, title);
    EXPECT_TRUE(valid(svg)) << svg.substr(0, 400);
    std::map<std::string, std::string> ids;
    EXPECT_EQ(check_xml(svg, ids), "");
  }
  EXPECT_NE(plot_svg({}, long_title).find("\xC3\xA9...</text>"), std::string::npos);
  // The report: the label of a Latin-1 TEXT line.
  auto w = parse_workload("1 ECHO    \xE9t\xE9\n", "w", files({}));
  ASSERT_TRUE(w.ok());
  options o = *parse({"--workload", "w", "--json"});
  requester_stats r;
  r.lines.resize(1);
  const std::string j = render(summarize({r}, 1), o, &*w, summarize_lines({r}, 1));
  EXPECT_TRUE(valid(j)) << j;
  EXPECT_NE(j.find("\"message\":\"ECHO    \xC3\xA9t\xC3\xA9\""), std::string::npos) << j;
}

TEST(imsbench_progress, the_line) {
  EXPECT_EQ(progress_line(12.4, 1234, 1230, 2, 101.25, 3.1, 8.25),
            std::string(msg::IMB4944I) +
                " imsbench: 12 s: 1234 sent, 1230 replies, 2 errors; last second 101.2 tps, p50 3.100 ms, "
                "p99 8.250 ms");
}

TEST(imsbench_report, v1_text_and_json_format_1) {
  requester_stats a;
  a.latencies_ms = {1, 2, 3};
  a.requests = 4;
  a.errors_by_code["MQFB_IIH_ERROR (296)"] = 1;
  a.lines = {{3, 1, {1, 3}}, {1, 0, {2}}};
  const summary s = summarize({a}, 2.0);
  auto w = parse_workload("3 IVTNO   DISPLAY LAST1\n1 ECHO    \"Q\"\n", "w", files({}));
  ASSERT_TRUE(w.ok());
  options o = *parse({"--workload", "w", "--seed", "9", "--password", "secret"});
  const auto lines = summarize_lines({a}, 2);
  EXPECT_EQ(lines[0].requests, 3u);
  EXPECT_EQ(lines[0].replies, 2u);
  EXPECT_EQ(lines[0].errors, 1u);
  EXPECT_DOUBLE_EQ(lines[0].p99_ms, 3);
  const std::string text = render(s, o, &*w, lines);
  std::istringstream in(text);
  std::string l1, l2, l3, l4, l5;
  std::getline(in, l1), std::getline(in, l2), std::getline(in, l3), std::getline(in, l4),
      std::getline(in, l5);
  EXPECT_EQ(l1, std::string(msg::IMB4943I) + " imsbench report v1");
  EXPECT_NE(l2.find("workload w: 4 requests, 3 replies, 1 errors in 2.00 s = 1.5 tps"), std::string::npos)
      << l2;
  EXPECT_EQ(l3, std::string(msg::IMB4943I) + " imsbench: error MQFB_IIH_ERROR (296): 1");
  EXPECT_EQ(l4, std::string(msg::IMB4947I) +
                    " imsbench: workload line 1 weight 3 \"IVTNO   DISPLAY LAST1\": 3 requests, 2 replies, 1 "
                    "errors; latency ms p50 1.000 p99 3.000");
  EXPECT_NE(l5.find("workload line 2 weight 1 \"ECHO    \\\"Q\\\"\""), std::string::npos) << l5;
  o.json = true;
  const std::string j = render(s, o, &*w, lines);
  EXPECT_EQ(j.rfind("{\"format\":1,", 0), 0u) << j;
  EXPECT_NE(
      j.find("\"workload\":[{\"line\":1,\"weight\":3,\"message\":\"IVTNO   DISPLAY LAST1\",\"requests\":3,"
             "\"replies\":2,\"errors\":1,\"latency_ms\":{\"p50\":1.000,\"p99\":3.000}},"),
      std::string::npos)
      << j;
  EXPECT_NE(j.find("\"options\":{\"qmgr\":\"QM1\","), std::string::npos) << j;
  EXPECT_NE(j.find("\"seed\":9"), std::string::npos) << j;
  EXPECT_NE(j.find("\"workload\":\"w\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"count\":null"), std::string::npos) << j;
  EXPECT_EQ(j.find("secret"), std::string::npos) << "the password is never echoed";
  // The top-level figures come before the workload lines and options (a first match finds them).
  EXPECT_LT(j.find("\"requests\":4"), j.find("\"workload\":["));
}

// --- A whole run with the new options ------------------------------------------------------------------

class imsbench_files_run : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string failed = qm_.create("QM1");
    ASSERT_EQ(failed, "") << failed;
    auto admin = connect();
    auto r = admin->mqsc("DEFINE QLOCAL(IMS.BRIDGE.Q)\nDEFINE QLOCAL(APP.REPLY)\n");
    ASSERT_TRUE(r.ok() && r->exit_code == 0);
    // The bridge: a reply for each request, except a report for those whose data contains "BAD".
    bridge_.emplace([this] { return connect(); }, "IMS.BRIDGE.Q",
                    [](mqi::connection& c, const mqi::message& m, int) {
                      const std::string data(m.data.begin(), m.data.end());
                      if (data.find("BAD") != std::string::npos)
                        test_support::fake_bridge::answer(c, m, mq::MQMT_REPORT, mq::MQFB_IIH_ERROR);
                      else
                        test_support::fake_bridge::answer(c, m);
                    });
  }
  void TearDown() override { bridge_.reset(); }
  std::unique_ptr<mqi::connection> connect() {
    auto c = qm_.connect("QM1");
    if (!c.ok()) throw std::runtime_error("connect local:QM1: " + c.error().to_string());
    return std::move(c).value();
  }
  connector conn() {
    return [this](const options&, int) -> result<std::unique_ptr<mqi::connection>> { return connect(); };
  }
  test::temp_qmgr qm_;
  test::temp_dir files_;
  std::optional<test_support::fake_bridge> bridge_;  // after qm_: stopped before it goes
};

std::uint64_t json_int(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\":([0-9]+)"))) return 999999;
  return std::stoull(m[1].str());
}

TEST_F(imsbench_files_run, workload_think_time_and_files_agree_with_the_report) {
  { std::ofstream(files_.file("w")) << "3 IVTNO   DISPLAY LAST1\n1 ECHO    BAD\n"; }
  std::ostringstream out, err;
  const std::string h = files_.file("h.csv"), t = files_.file("t.csv"), p = files_.file("p.svg");
  const int rc = run({"-m",         "local:QM1", "-q",           "IMS.BRIDGE.Q",
                      "-r",         "APP.REPLY", "-n",           "2",
                      "--count",    "40",        "--workload",   files_.file("w"),
                      "--think-ms", "1",         "--think-dist", "exp",
                      "--seed",     "5",         "--histogram",  h,
                      "--timeline", t,           "--plot",       p,
                      "--json",     "--progress"},
                     out, err, conn());
  const std::string j = out.str();
  EXPECT_EQ(rc, 1) << j << err.str();  // the BAD line's reports are errors
  ASSERT_EQ(json_int(j, "requests"), 40u) << j;
  const std::uint64_t replies = json_int(j, "replies"), errors = json_int(j, "errors");
  EXPECT_EQ(replies + errors, 40u);
  EXPECT_GT(replies, 0u);
  EXPECT_GT(errors, 0u);  // with seed 5 and weight 1 in 4, some of 40 draws are BAD: P(none) < 1e-4
  // Each workload line: the IVTNO line has every reply, the ECHO BAD line every error.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      j, m, std::regex(R"("line":1,"weight":3,[^}]*"requests":([0-9]+),"replies":([0-9]+),"errors":0)")))
      << j;
  EXPECT_EQ(std::stoull(m[2].str()), replies);
  ASSERT_TRUE(std::regex_search(
      j, m, std::regex(R"("line":2,"weight":1,[^}]*"requests":([0-9]+),"replies":0,"errors":([0-9]+))")))
      << j;
  EXPECT_EQ(std::stoull(m[2].str()), errors);
  EXPECT_NE(j.find("\"think_dist\":\"exp\""), std::string::npos);
  // The files: histogram counts = replies; timeline sums = sent, replies, errors; the plot.
  const auto hist = csv(test::read_file(h));
  std::uint64_t sum = 0;
  for (std::size_t i = 1; i < hist.size(); ++i) sum += std::stoull(hist[i][1]);
  EXPECT_EQ(sum, replies);
  std::uint64_t sent = 0, tr = 0, te = 0;
  const auto tl = csv(test::read_file(t));
  ASSERT_GE(tl.size(), 2u);
  for (std::size_t i = 1; i < tl.size(); ++i) {
    sent += std::stoull(tl[i][1]);
    tr += std::stoull(tl[i][2]);
    te += std::stoull(tl[i][3]);
  }
  EXPECT_EQ(sent, 40u);
  EXPECT_EQ(tr, replies);
  EXPECT_EQ(te, errors);
  std::map<std::string, std::string> ids;
  EXPECT_EQ(check_xml(test::read_file(p), ids), "");
  EXPECT_TRUE(ids.count("tps"));
  for (const char* f : {"histogram", "timeline", "plot"})
    EXPECT_NE(err.str().find(std::string(msg::IMB4943I) + " imsbench: wrote the " + f), std::string::npos)
        << err.str();
}

TEST_F(imsbench_files_run, the_same_seed_draws_the_same_mix) {
  { std::ofstream(files_.file("w")) << "1 IVTNO   DISPLAY LAST1\n1 ECHO    BAD\n1 ECHO    OK\n"; }
  std::string first;
  for (int i = 0; i < 2; ++i) {
    std::ostringstream out, err;
    run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--count", "30", "--workload",
         files_.file("w"), "--seed", "77", "--json"},
        out, err, conn());
    const std::string j = out.str();
    const std::string mix =
        j.substr(j.find("\"workload\":["), j.find("\"options\"") - j.find("\"workload\":["));
    const std::string counts = std::regex_replace(mix, std::regex(R"("latency_ms":\{[^}]*\})"), "");
    if (i == 0)
      first = counts;
    else
      EXPECT_EQ(counts, first);
  }
}

TEST_F(imsbench_files_run, progress_lines_when_forced_and_none_when_off) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "-d", "2.2", "--progress"}, out,
                err, conn()),
            0);
  // Not a terminal: newline-ended lines, one a second (2 in 2.2 s, 1 if the machine is very slow);
  // never on standard output.
  EXPECT_TRUE(
      std::regex_search(err.str(), std::regex("^" + std::string(msg::IMB4944I) +
                                              " imsbench: [12] s: [0-9]+ sent, [0-9]+ replies, 0 errors; "
                                              "last second [0-9.]+ tps, p50 [0-9.]+ ms, p99 [0-9.]+ ms\n")))
      << err.str();
  EXPECT_EQ(err.str().find('\r'), std::string::npos);
  EXPECT_EQ(out.str().find(std::string(msg::IMB4944I)), std::string::npos);
  std::ostringstream out2, err2;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "-d", "1.2", "--no-progress"},
                out2, err2, conn()),
            0);
  EXPECT_EQ(err2.str(), "");
  // Default (automatic) with a stream that is not the process's standard error: none either.
  std::ostringstream out3, err3;
  EXPECT_EQ(
      run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "-d", "1.2"}, out3, err3, conn()), 0);
  EXPECT_EQ(err3.str(), "");
}

TEST_F(imsbench_files_run, bad_workload_and_output_files_stop_before_anything_is_sent) {
  { std::ofstream(files_.file("w")) << "1 IVTNO\nbad line\n"; }
  std::ostringstream out, err;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--count", "1", "--workload",
                 files_.file("w")},
                out, err, conn()),
            2);
  EXPECT_EQ(err.str(), std::string(msg::IMB4945E) + " imsbench: workload " + files_.file("w") +
                           ":2: a line starts with its weight, 1..1000000\n");
  std::ostringstream out2, err2;
  EXPECT_EQ(run({"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--count", "1", "--plot",
                 files_.file("no/such/dir/p.svg")},
                out2, err2, conn()),
            2);
  EXPECT_EQ(err2.str().rfind(std::string(msg::IMB4946E), 0), 0u) << err2.str();
  EXPECT_EQ(out2.str(), "");
}

}  // namespace
}  // namespace imsb::imsbench
