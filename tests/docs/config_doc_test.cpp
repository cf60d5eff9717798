// docs/configuration.md against the code: every imsbridge INI key, every MQSC command imsbridge implements
// and every attribute of every MQSC object type, and every statement and keyword of imsemu's definitions
// file must be in the reference. The lists come from the code itself, never from a copy here:
//  - INI keys: imsbridge's own --help text (bridge::parse_config), every --section.key it declares;
//  - MQSC: mqsc::supported_commands() and objects::schema_of() of each object type (keywords, synonyms and
//    the negative word of flags such as NOSHARE);
//  - definitions: ims::parse_definitions() itself, which names the statements it knows and, for a keyword
//    it does not know, the keywords it knows for that statement ("known here: ...").
// An entry is documented when it heads a row of its table (its own ### section for MQSC object types and
// imsemu statements). Each test fails naming every entry the document lacks.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/bridge/config.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/mqsc/vocabulary.hpp"
#include "imsb/objects/object.hpp"
#include "imsb/objects/schema.hpp"

namespace {

std::string read_doc() {
  const std::string path = std::string(IMSB_DOCS_DIR) + "/configuration.md";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ticked(std::string_view word) { return "`" + std::string(word) + "`"; }

// The text of the section whose heading line ("## " or "### ") holds `marker`, up to the next heading of
// the same or a higher level; "" when there is none.
std::string section(const std::string& doc, const std::string& marker) {
  std::istringstream in(doc);
  std::string line, out;
  int level = 0;
  while (std::getline(in, line)) {
    int l = 0;
    while (l < static_cast<int>(line.size()) && line[static_cast<std::size_t>(l)] == '#') ++l;
    const bool heading =
        l > 0 && l < static_cast<int>(line.size()) && line[static_cast<std::size_t>(l)] == ' ';
    if (level > 0) {
      if (heading && l <= level) break;
      out += line + "\n";
    } else if (heading && line.find(marker) != std::string::npos) {
      level = l;
      out = line + "\n";
    }
  }
  return out;
}

// The first cells of the table rows of a text ("| `KEY` | ..." gives "`KEY`"), one a line: an entry is
// documented when it heads a row of its table, not merely mentioned in passing.
std::string first_cells(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.size() < 2 || line[0] != '|') continue;
    const auto end = line.find('|', 1);
    out += line.substr(1, end == std::string::npos ? std::string::npos : end - 1) + "\n";
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& w : v) s += (s.empty() ? "" : ", ") + w;
  return s;
}

// Words listed after `marker` up to `end` in an error text, split at ", " and " or ".
std::vector<std::string> listed_after(const std::string& text, const std::string& marker, char end) {
  std::vector<std::string> out;
  const auto b = text.find(marker);
  if (b == std::string::npos) return out;
  const auto e = text.find(end, b + marker.size());
  std::string list =
      text.substr(b + marker.size(), e == std::string::npos ? std::string::npos : e - b - marker.size());
  for (std::size_t p; (p = list.find(" or ")) != std::string::npos;) list.replace(p, 4, ", ");
  std::size_t i = 0;
  while (i <= list.size()) {
    auto j = list.find(", ", i);
    if (j == std::string::npos) j = list.size();
    std::string w = list.substr(i, j - i);
    while (!w.empty() && w.back() == ' ') w.pop_back();
    while (!w.empty() && w.front() == ' ') w.erase(0, 1);
    if (!w.empty()) out.push_back(w);
    i = j + 2;
  }
  return out;
}

// The error text parse_definitions gives for `text` (which must be wrong).
std::string definitions_error(const std::string& text) {
  auto r = imsb::ims::parse_definitions(text);
  EXPECT_FALSE(r.ok()) << "expected an error for: " << text;
  return r.ok() ? std::string() : r.error().to_string();
}

TEST(ConfigurationDoc, EveryImsbridgeIniKey) {
  const std::string doc = read_doc();
  std::ostringstream help;
  const char* argv[] = {"imsbridge", "--help"};
  auto parsed = imsb::bridge::parse_config(2, argv, help);
  ASSERT_TRUE(parsed.ok());
  std::set<std::string> keys;
  const std::string text = help.str();
  // The option lines of the help: "  --qmgr.connect VALUE   local:QM (...".
  const std::regex key_re("^  --([a-z]+)\\.([a-z][a-z0-9-]*) ");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, key_re)) keys.insert(m[1].str() + "." + m[2].str());
  }
  ASSERT_GE(keys.size(), 30u) << "too few keys found in imsbridge --help:\n" << text;
  const std::string rows = first_cells(doc);
  std::vector<std::string> missing;
  std::set<std::string> sections;
  for (const auto& k : keys) {
    if (rows.find(ticked(k)) == std::string::npos) missing.push_back(k);
    sections.insert(k.substr(0, k.find('.')));
  }
  for (const auto& s : sections)
    if (doc.find("[" + s + "]") == std::string::npos) missing.push_back("[" + s + "]");
  if (doc.find("[partner.GROUP.MEMBER]") == std::string::npos) missing.push_back("[partner.GROUP.MEMBER]");
  EXPECT_TRUE(missing.empty())
      << "docs/configuration.md lacks these imsbridge keys (as `section.key` heading a table row): "
      << joined(missing);
}

TEST(ConfigurationDoc, EveryMqscCommandImsbridgeImplements) {
  const std::string doc = read_doc();
  const std::string commands = section(doc, "MQSC commands");
  ASSERT_FALSE(commands.empty()) << "docs/configuration.md has no section headed 'MQSC commands'";
  std::vector<std::string> missing;
  for (const auto& c : imsb::mqsc::supported_commands()) {
    if (c.object_type.empty()) {  // END
      if (commands.find(ticked(c.verb)) == std::string::npos) missing.push_back(std::string(c.verb));
      continue;
    }
    // A line of the commands section that names the object type (`QLOCAL`) and the verb.
    bool found = false;
    std::istringstream in(commands);
    for (std::string line; std::getline(in, line) && !found;) {
      if (line.find(ticked(c.object_type)) == std::string::npos) continue;
      const std::regex verb("(^|[^A-Z])" + std::string(c.verb) + "([^A-Z]|$)");
      found = std::regex_search(line, verb);
    }
    if (!found) missing.push_back(std::string(c.verb) + " " + std::string(c.object_type));
  }
  EXPECT_TRUE(missing.empty()) << "the MQSC commands section of docs/configuration.md lacks: "
                               << joined(missing);
}

TEST(ConfigurationDoc, EveryMqscAttributeOfEveryObjectType) {
  using imsb::objects::object_type;
  const std::string doc = read_doc();
  std::vector<std::string> missing;
  for (int i = 0; i <= static_cast<int>(object_type::qmgr); ++i) {
    const auto type = static_cast<object_type>(i);
    const std::string word(imsb::objects::to_mqsc_word(type));
    std::string text = section(doc, "### " + ticked(word));
    if (text.empty()) {
      missing.push_back("a section headed ### `" + word + "`");
      continue;
    }
    // QMODEL's schema is QLOCAL's plus DEFTYPE (schema.cpp add_local): its section may refer to QLOCAL's.
    if (type == object_type::qmodel) text += section(doc, "### " + ticked("QLOCAL"));
    for (const auto& a : imsb::objects::schema_of(type)) {
      for (std::string_view w : {a.keyword, a.synonym, a.off_word}) {
        if (w.empty()) continue;
        if (first_cells(text).find(ticked(w)) == std::string::npos)
          missing.push_back(word + " " + std::string(w));
      }
    }
  }
  EXPECT_TRUE(missing.empty()) << "docs/configuration.md lacks these MQSC attributes (as `KEYWORD` heading a "
                                  "table row in the object type's ### section): "
                               << joined(missing);
}

TEST(ConfigurationDoc, EveryImsemuStatementAndKeyword) {
  const std::string doc = read_doc();
  const std::string part = section(doc, "imsemu definitions");
  ASSERT_FALSE(part.empty()) << "docs/configuration.md has no section headed 'imsemu definitions'";

  // The statements the parser knows, from its own error for an unknown one.
  const std::vector<std::string> statements =
      listed_after(definitions_error("NOSUCHSTATEMENT X\n"), "(known: ", ')');
  ASSERT_GE(statements.size(), 10u) << definitions_error("NOSUCHSTATEMENT X\n");

  // For each statement: where its keywords are documented (its ### heading) and a line that makes the
  // parser list them ("known here: ..."). NAME and /SECURE take no keywords; /SECURE's levels are listed
  // by its error for an unknown level.
  struct probe {
    std::string heading;  // the ### heading holds this
    std::string text;     // a statement with an unknown keyword ZZZ; "" when it has no keywords
  };
  const std::vector<std::pair<std::string, std::vector<probe>>> probes = {
      {"IMS", {{"`IMS`", "IMS ZZZ=1\n"}}},
      {"APPLCTN", {{"`APPLCTN`", "APPLCTN ZZZ=1\n"}}},
      {"TRANSACT", {{"`TRANSACT`", "TRANSACT ZZZ=1\n"}}},
      {"NAME", {{"`NAME`", ""}}},
      {"CREATE",
       {{"`CREATE PGM`", "CREATE PGM ZZZ(1)\n"},
        {"`CREATE PGM`", "CREATE PGM NAME(ECHO) SET(ZZZ(1))\n"},
        {"`CREATE TRAN`", "CREATE TRAN ZZZ(1)\n"},
        {"`CREATE TRAN`", "CREATE TRAN NAME(X) SET(ZZZ(1))\n"}}},
      {"D", {{"`D`", "D X ZZZ=1\n"}}},
      {"USER", {{"`USER`", "USER ZZZ=1\n"}}},
      {"GROUP", {{"`GROUP`", "GROUP ZZZ=1\n"}}},
      {"/SECURE", {{"`/SECURE OTMA`", ""}}},
      {"/SEC", {{"`/SECURE OTMA`", ""}}},
      {"STOP", {{"`STOP`", "STOP ZZZ=1\n"}}},
      {"CLIENT", {{"`CLIENT`", "CLIENT ZZZ=1\n"}}},
  };
  std::vector<std::string> missing;
  for (const std::string& s : statements) {
    const auto p = std::find_if(probes.begin(), probes.end(), [&](const auto& e) { return e.first == s; });
    if (p == probes.end()) {
      missing.push_back("statement " + s + " (new in the parser: document it and add it to this test)");
      continue;
    }
    if (part.find("`" + s) == std::string::npos) missing.push_back("statement `" + s + "`");
    for (const probe& pr : p->second) {
      const std::string text = section(part, "### " + pr.heading);
      if (text.empty()) {
        missing.push_back("a section headed ### " + pr.heading);
        continue;
      }
      if (pr.text.empty()) continue;
      const std::string error = definitions_error(pr.text);
      const auto keywords = listed_after(error, "known here: ", ')');
      if (keywords.empty()) missing.push_back("(no keyword list in: " + error + ")");
      for (const auto& k : keywords)
        if (first_cells(text).find(ticked(k)) == std::string::npos) missing.push_back(s + " " + k);
    }
  }
  // /SECURE OTMA's levels, from its error for an unknown one ("'ZZZ' is not NONE, CHECK, FULL or PROFILE").
  const std::string secure = section(part, "### `/SECURE OTMA`");
  const auto levels = listed_after(definitions_error("/SECURE OTMA ZZZ\n"), "is not ", '(');
  if (levels.size() < 2)
    missing.push_back("(no level list in: " + definitions_error("/SECURE OTMA ZZZ\n") + ")");
  for (const auto& w : levels)
    if (first_cells(secure).find(ticked(w)) == std::string::npos) missing.push_back("/SECURE OTMA " + w);
  EXPECT_TRUE(missing.empty())
      << "docs/configuration.md lacks these imsemu definitions (as `KEYWORD` heading a "
         "table row in the statement's ### section): "
      << joined(missing);
}

}  // namespace
