// to_mqsc and the round-trip property parse(to_mqsc(c)) == c, checked on hand-picked commands and on
// random ones (seeded, so a failure can be replayed), also after re-rendering them with synonyms, mixed
// case, commas, blanks, comments and both kinds of continuation.

#include "imsb/mqsc/printer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "imsb/mqsc/parser.hpp"
#include "imsb/mqsc/vocabulary.hpp"

namespace imsb::mqsc {
namespace {

command one(std::string_view text) {
  const command_result r = parse_command(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.error ? r.error->message() : "");
  return r.cmd.value_or(command{});
}

TEST(MqscPrinter, CanonicalForm) {
  EXPECT_EQ(to_mqsc(one("def ql(ims.bridge.q1) stgclass(imsa) descr('It''s') noshare")),
            "DEFINE QLOCAL(IMS.BRIDGE.Q1) STGCLASS(IMSA) DESCR('It''s') NOSHARE");
  EXPECT_EQ(to_mqsc(one("DEFINE QREMOTE (QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2)")),
            "DEFINE QREMOTE(QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2)");
  EXPECT_EQ(to_mqsc(one("DIS Q(*) WHERE(curdepth,gt,0)")), "DISPLAY QUEUE(*) WHERE(CURDEPTH GT 0)");
  EXPECT_EQ(to_mqsc(one("DEFINE NAMELIST(N) NAMES(A B, 'c')")), "DEFINE NAMELIST(N) NAMES(A,B,'c')");
  EXPECT_EQ(to_mqsc(one("DEFINE CHANNEL(C) CONNAME(host( 1414 ))")), "DEFINE CHANNEL(C) CONNAME(HOST(1414))");
  EXPECT_EQ(to_mqsc(one("END")), "END");
  EXPECT_EQ(to_mqsc(one("alter qmgr deadq('') ;")), "ALTER QMGR DEADQ('')");
}

TEST(MqscPrinter, QuoteDoublesQuotes) {
  EXPECT_EQ(quote(""), "''");
  EXPECT_EQ(quote("it's"), "'it''s'");
  EXPECT_EQ(quote("''"), "''''''");
}

TEST(MqscPrinter, PlainValues) {
  for (const char* v : {"A", "IMS.BRIDGE.Q1", "*", "SYSTEM.*", "01:03", "HOST(1414)", "9.1.2.3(1000,1100)",
                        "A-", "%/_", "+", "A\rB"})
    EXPECT_TRUE(is_plain_value(v)) << v;
  for (const char* v :
       {"", "a", "A B", "A,B", "A'B", "A;B", "(A)", "A)", "A(", "A()", "HOST( 1)", "A\nB", "A\tB", "A(B)C"})
    EXPECT_FALSE(is_plain_value(v)) << v;
}

TEST(MqscPrinter, PlainValueAgreesWithTheParser) {
  // The definition: plain text reads back, as an object name, as the very same unquoted value.
  const auto reads_back = [](const std::string& text) {
    const command_result r = parse_command("DISPLAY QUEUE(" + text + ")");
    return r.ok() && r.cmd->parameters.empty() && r.cmd->name && !r.cmd->name->quoted &&
           r.cmd->name->text == text;
  };
  std::mt19937 engine(99);
  const std::string chars = "AB1(),,  ;'*a-+\n\t.";
  int plain = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const std::size_t n = engine() % 9;
    for (std::size_t k = 0; k < n; ++k) text += chars[engine() % chars.size()];
    ASSERT_EQ(is_plain_value(text), reads_back(text)) << "[" << text << "]";
    plain += is_plain_value(text);
  }
  EXPECT_GT(plain, 500);
}

TEST(MqscPrinter, ValuesThatCannotStayUnquotedAreQuoted) {
  // A program may build an unquoted value that MQSC could not read back unquoted.
  command c;
  c.verb = "ALTER";
  c.object_type = "QMGR";
  c.parameters.push_back({"DESCR", {{"lower case, here", false}}, true, 0, 0});
  EXPECT_EQ(to_mqsc(c), "ALTER QMGR DESCR('lower case, here')");
}

TEST(MqscPrinter, EqualityIgnoresWhereACommandWasWritten) {
  const parse_result a = parse("\n\nDEFINE QLOCAL(A) +\n   MAXDEPTH(5)");
  const command b = one("DEFINE QLOCAL(A) MAXDEPTH(5)");
  ASSERT_EQ(a.commands.size(), 1u);
  EXPECT_EQ(a.commands[0], b);
  EXPECT_NE(a.commands[0].line, b.line);
  EXPECT_NE(one("DEFINE QLOCAL(A)"), one("DEFINE QLOCAL('A')"));
  EXPECT_NE(one("DEFINE QLOCAL(A) REPLACE"), one("DEFINE QLOCAL(A)"));
  EXPECT_NE(one("DEFINE QLOCAL(A) X(1)"), one("DEFINE QLOCAL(A) X(1,2)"));
}

// --- random commands -------------------------------------------------------------------------------

class random_source {
 public:
  explicit random_source(std::uint32_t seed) : engine_(seed) {}
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(engine_() % n); }
  bool chance(std::uint32_t percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(static_cast<std::uint32_t>(v.size()))];
  }

 private:
  std::mt19937 engine_;  // fully specified by the standard: the same sequence on every platform
};

struct verb_object {
  std::string verb;
  std::string object_type;
};

const std::vector<verb_object>& all_commands() {
  static const std::vector<verb_object> all = [] {
    std::vector<verb_object> v;
    std::set<std::string_view> objects;
    for (const auto& w : object_type_words()) objects.insert(w.second);
    for (std::string_view verb : verbs())
      for (std::string_view object : objects)
        if (verb_applies(verb, object)) v.push_back({std::string(verb), std::string(object)});
    v.push_back({"END", ""});
    return v;
  }();
  return all;
}

std::string random_plain(random_source& r) {
  static const std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/%*:-+=@#$&!?<>";
  std::string s;
  const std::uint32_t n = 1 + r.below(12);
  for (std::uint32_t i = 0; i < n; ++i) s += chars[r.below(static_cast<std::uint32_t>(chars.size()))];
  if (r.chance(10)) s += "(" + std::to_string(r.below(65536)) + (r.chance(30) ? ",99)" : ")");
  return s;
}

std::string random_quoted_text(random_source& r) {
  static const std::string chars = "abcXYZ 019.,;()'*+-_/%\t\"#\xE9\xC4";
  std::string s;
  const std::uint32_t n = r.below(20);
  for (std::uint32_t i = 0; i < n; ++i) s += chars[r.below(static_cast<std::uint32_t>(chars.size()))];
  return s;
}

mqsc_value random_value(random_source& r) {
  if (r.chance(40)) return {random_quoted_text(r), true};
  return {random_plain(r), false};
}

std::string random_keyword(random_source& r) {
  static const std::string first = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static const std::string rest = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string k(1, first[r.below(26)]);
  if (r.chance(15)) k = "NO";
  const std::uint32_t n = r.below(8);
  for (std::uint32_t i = 0; i < n; ++i) k += rest[r.below(36)];
  return k;
}

command random_command(random_source& r) {
  const verb_object& vo = r.pick(all_commands());
  command c;
  c.verb = vo.verb;
  c.object_type = vo.object_type;
  const supported_command* s = find_supported(c.verb, c.object_type);
  c.supported = s != nullptr;
  if (!c.supported) c.unsupported_reason = unsupported_reason(c.verb, c.object_type);
  if (c.verb == "END") return c;
  const name_rule rule = s != nullptr ? s->name : name_rule::optional;
  if (rule == name_rule::required || (rule == name_rule::optional && r.chance(60))) c.name = random_value(r);
  std::set<std::string> seen;
  const std::uint32_t n = r.below(9);
  for (std::uint32_t i = 0; i < n; ++i) {
    parameter p;
    if (r.chance(10)) {
      p.keyword = "WHERE";
      static const std::vector<std::string> ops = {"LT", "GT", "EQ", "NE", "LE",  "GE",
                                                   "LK", "NL", "CT", "EX", "CTG", "EXG"};
      p.values = {{random_keyword(r), false}, {r.pick(ops), false}, random_value(r)};
      p.has_parens = true;
    } else {
      p.keyword = random_keyword(r);
      if (p.keyword == "WHERE" || p.keyword == "NO") continue;
      p.has_parens = r.chance(70);
      if (p.has_parens) {
        const std::uint32_t values = 1 + (r.chance(20) ? r.below(4) : 0);
        for (std::uint32_t v = 0; v < values; ++v) p.values.push_back(random_value(r));
      }
    }
    const std::string& k = p.keyword;
    if (seen.count(k) || seen.count("NO" + k) ||
        (k.size() > 2 && k.compare(0, 2, "NO") == 0 && seen.count(k.substr(2))))
      continue;
    seen.insert(k);
    c.parameters.push_back(std::move(p));
  }
  return c;
}

TEST(MqscRoundTrip, RandomCommandsPrintAndParseBack) {
  random_source r(20240611);
  for (int i = 0; i < 3000; ++i) {
    const command c = random_command(r);
    const std::string text = to_mqsc(c);
    const command_result back = parse_command(text);
    ASSERT_TRUE(back.ok()) << "#" << i << " " << text << ": " << back.error->message();
    ASSERT_EQ(*back.cmd, c) << "#" << i << " " << text << " -> " << to_mqsc(*back.cmd);
    EXPECT_EQ(to_mqsc(*back.cmd), text);
  }
}

// --- the same commands, written the way people write them --------------------------------------------

std::string mixed_case(random_source& r, std::string word) {
  for (char& ch : word)
    if (ch >= 'A' && ch <= 'Z' && r.chance(40)) ch = static_cast<char>(ch - 'A' + 'a');
  return word;
}

std::string separator(random_source& r) {
  static const std::vector<std::string> seps = {" ", "  ", ",", " , ", "\t", " ,, "};
  return r.pick(seps);
}

std::string synonym_of(random_source& r, std::string_view canonical, bool verb) {
  std::vector<std::string> words{std::string(canonical)};
  if (verb) {
    for (std::string_view w : {"DEF", "ALT", "DIS", "STA", "REF"})
      if (canonical_verb(w) == canonical) words.emplace_back(w);
  } else {
    for (const auto& [w, c] : object_type_words())
      if (c == canonical) words.emplace_back(w);
  }
  return mixed_case(r, r.pick(words));
}

std::string render_value(random_source& r, const mqsc_value& v) {
  return v.quoted ? quote(v.text) : mixed_case(r, v.text);
}

std::string render_list(random_source& r, const std::vector<mqsc_value>& values) {
  std::string s = r.chance(20) ? " (" : "(";
  if (r.chance(20)) s += " ";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) s += separator(r);
    s += render_value(r, values[i]);
  }
  if (r.chance(20)) s += " ";
  return s + ")";
}

std::string render(random_source& r, const command& c) {
  std::string s = r.chance(20) ? "  " : "";
  s += synonym_of(r, c.verb, true);
  if (!c.object_type.empty()) s += " " + synonym_of(r, c.object_type, false);
  if (c.name) s += render_list(r, {*c.name});
  for (const parameter& p : c.parameters) {
    s += separator(r) + mixed_case(r, p.keyword);
    if (p.has_parens) s += render_list(r, p.values);
  }
  if (r.chance(10)) s += " ;";
  return s;
}

// Cuts one line into continued lines with '+' or '-', comment and blank lines in between.
std::string split_lines(random_source& r, const std::string& line) {
  std::string out;
  std::size_t start = 0;
  while (start < line.size()) {
    std::size_t cut = start + 1 + r.below(12);
    if (cut >= line.size() || r.chance(10)) {
      out += line.substr(start);
      break;
    }
    const std::string rest = line.substr(cut);
    if (rest.find_first_not_of(" \t") == std::string::npos) {
      out += line.substr(start);
      break;
    }
    // '+' eats the next line's leading blanks, '-' keeps them; a '*' must not land in column 1.
    char cont = r.chance(50) ? '+' : '-';
    if (rest[0] == ' ' || rest[0] == '\t') cont = '-';
    if (rest[0] == '*') cont = '+';
    out += line.substr(start, cut - start) + cont + (r.chance(20) ? "   " : "") + "\n";
    if (r.chance(15)) out += "* a comment inside the command\n";
    if (r.chance(10)) out += "\n";
    if (cont == '+') out += std::string((rest[0] == '*' ? 1 : 0) + r.below(6), ' ');
    start = cut;
  }
  return out;
}

TEST(MqscRoundTrip, RandomLayoutsParseToTheSameCommand) {
  random_source r(7);
  int plus = 0, minus = 0, comments = 0, quoted = 0;
  for (int i = 0; i < 3000; ++i) {
    const command c = random_command(r);
    const std::string script = split_lines(r, render(r, c));
    plus += script.find("+\n") != std::string::npos;
    minus += script.find("-\n") != std::string::npos;
    comments += script.find("\n* a comment") != std::string::npos;
    quoted += script.find('\'') != std::string::npos;
    const parse_result back = parse("* generated\n" + script + "\n");
    ASSERT_TRUE(back.ok()) << "#" << i << "\n" << script << "\n" << back.errors[0].message();
    ASSERT_EQ(back.commands.size(), 1u) << script;
    ASSERT_EQ(back.commands[0], c) << "#" << i << "\n" << script << "\n-> " << to_mqsc(back.commands[0]);
    EXPECT_EQ(back.commands[0].line, 2u);
  }
  // The layouts did exercise what they are meant to.
  EXPECT_GT(plus, 1000);
  EXPECT_GT(minus, 1000);
  EXPECT_GT(comments, 300);
  EXPECT_GT(quoted, 1000);
}

}  // namespace
}  // namespace imsb::mqsc
