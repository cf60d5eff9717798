// Verbs, object types, their synonyms, and the table of commands imsbridge implements.

#include "imsb/mqsc/vocabulary.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <set>

#include "imsb/mqsc/parser.hpp"

namespace imsb::mqsc {
namespace {

TEST(MqscVocabulary, VerbSynonyms) {
  const std::pair<const char*, const char*> cases[] = {
      {"DEF", "DEFINE"},      {"DEFINE", "DEFINE"},   {"ALT", "ALTER"},   {"ALTER", "ALTER"},
      {"DIS", "DISPLAY"},     {"DISPLAY", "DISPLAY"}, {"STA", "START"},   {"START", "START"},
      {"REF", "REFRESH"},     {"DELETE", "DELETE"},   {"STOP", "STOP"},   {"RESET", "RESET"},
      {"RESUME", "RESUME"},   {"SUSPEND", "SUSPEND"}, {"CLEAR", "CLEAR"}, {"PING", "PING"},
      {"RESOLVE", "RESOLVE"}, {"SET", "SET"},         {"END", "END"},
  };
  for (const auto& [word, canonical] : cases) {
    const auto v = canonical_verb(word);
    ASSERT_TRUE(v.has_value()) << word;
    EXPECT_EQ(*v, canonical) << word;
  }
}

TEST(MqscVocabulary, SynonymsAreNotMinimumStrings) {
  for (const char* word : {"DEFI", "DEFIN", "D", "DISP", "ALTE", "STAR", "define", ""})
    EXPECT_FALSE(canonical_verb(word).has_value()) << word;
}

TEST(MqscVocabulary, ObjectTypeSynonyms) {
  const std::pair<const char*, const char*> cases[] = {
      {"QL", "QLOCAL"},       {"QR", "QREMOTE"},  {"QA", "QALIAS"},     {"QM", "QMODEL"},
      {"Q", "QUEUE"},         {"QMGR", "QMGR"},   {"CHL", "CHANNEL"},   {"STC", "STGCLASS"},
      {"NL", "NAMELIST"},     {"PRO", "PROCESS"}, {"LSTR", "LISTENER"}, {"SERVICE", "SERVICE"},
      {"AUTHREC", "AUTHREC"}, {"TOPIC", "TOPIC"}, {"SUB", "SUB"},       {"CHLAUTH", "CHLAUTH"},
      {"TPIPE", "TPIPE"},     {"QS", "QSTATUS"},  {"CHS", "CHSTATUS"},  {"CFSTRUCT", "CFSTRUCT"},
  };
  for (const auto& [word, canonical] : cases) {
    const auto o = canonical_object_type(word);
    ASSERT_TRUE(o.has_value()) << word;
    EXPECT_EQ(*o, canonical) << word;
  }
  EXPECT_FALSE(canonical_object_type("QLOC").has_value());
  EXPECT_FALSE(canonical_object_type("QUEUES").has_value());
}

TEST(MqscVocabulary, EveryObjectTypeWordParsesToItsCanonicalForm) {
  // Each (synonym, canonical) pair through the parser with a verb that applies to it.
  std::size_t checked = 0;
  for (const auto& [word, canonical] : object_type_words()) {
    for (std::string_view verb : verbs()) {
      if (!verb_applies(verb, canonical)) continue;
      std::string text = std::string(verb) + " " + std::string(word);
      const supported_command* s = find_supported(verb, canonical);
      if (s == nullptr || s->name != name_rule::none) text += "(X)";
      const command_result r = parse_command(text);
      ASSERT_TRUE(r.ok()) << verb << " " << word << ": " << (r.error ? r.error->message() : "");
      EXPECT_EQ(r.cmd->verb, verb);
      EXPECT_EQ(r.cmd->object_type, canonical);
      ++checked;
      break;
    }
  }
  EXPECT_GE(checked, object_type_words().size());
}

TEST(MqscVocabulary, VerbAppliesOnlyWhereMqscHasTheCommand) {
  EXPECT_TRUE(verb_applies("CLEAR", "QLOCAL"));
  EXPECT_FALSE(verb_applies("CLEAR", "CHANNEL"));
  EXPECT_FALSE(verb_applies("DEFINE", "QUEUE"));  // DISPLAY QUEUE only
  EXPECT_TRUE(verb_applies("DISPLAY", "QUEUE"));
  EXPECT_TRUE(verb_applies("RESET", "TPIPE"));
  EXPECT_FALSE(verb_applies("DEFINE", "TPIPE"));
  EXPECT_TRUE(verb_applies("SUSPEND", "QMGR"));
  EXPECT_FALSE(verb_applies("DEFINE", "QMGR"));
  EXPECT_FALSE(verb_applies("DEF", "QLOCAL"));  // canonical words only
}

TEST(MqscVocabulary, SupportedTableHoldsTheIssueList) {
  for (std::string_view verb : {"DEFINE", "ALTER", "DELETE", "DISPLAY"})
    for (std::string_view object : {"QLOCAL", "QREMOTE", "QALIAS", "QMODEL", "STGCLASS", "NAMELIST",
                                    "PROCESS", "CHANNEL", "LISTENER"}) {
      const supported_command* s = find_supported(verb, object);
      ASSERT_NE(s, nullptr) << verb << " " << object;
      EXPECT_EQ(s->name, name_rule::required);
    }
  const std::pair<const char*, const char*> others[] = {
      {"ALTER", "QMGR"},     {"DISPLAY", "QMGR"},    {"DISPLAY", "QUEUE"},    {"SET", "AUTHREC"},
      {"DELETE", "AUTHREC"}, {"DISPLAY", "AUTHREC"}, {"START", "LISTENER"},   {"STOP", "LISTENER"},
      {"START", "CHANNEL"},  {"STOP", "CHANNEL"},    {"RESET", "TPIPE"},      {"SUSPEND", "QMGR"},
      {"RESUME", "QMGR"},    {"DISPLAY", "QSTATUS"}, {"DISPLAY", "CHSTATUS"}, {"CLEAR", "QLOCAL"},
      {"END", ""},
  };
  for (const auto& [verb, object] : others)
    EXPECT_NE(find_supported(verb, object), nullptr) << verb << " " << object;
  EXPECT_EQ(supported_commands().size(), 36u + std::size(others));
  EXPECT_EQ(find_supported("SET", "CHLAUTH"), nullptr);
  EXPECT_EQ(find_supported("DEFINE", "TOPIC"), nullptr);
  EXPECT_EQ(find_supported("DEFINE", "SUB"), nullptr);
  EXPECT_EQ(find_supported("ALTER", "CFSTRUCT"), nullptr);
}

TEST(MqscVocabulary, SupportedEntriesAreValidMqscAndUnique) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const supported_command& s : supported_commands()) {
    EXPECT_TRUE(seen.insert({s.verb, s.object_type}).second) << s.verb << " " << s.object_type;
    if (s.verb != "END") {
      EXPECT_TRUE(verb_applies(s.verb, s.object_type)) << s.verb << " " << s.object_type;
    }
  }
}

TEST(MqscVocabulary, UnsupportedReasonSaysWhy) {
  EXPECT_EQ(unsupported_reason("DEFINE", "TOPIC"),
            "DEFINE TOPIC is not implemented by imsbridge: publish/subscribe is out of scope");
  EXPECT_EQ(unsupported_reason("SET", "CHLAUTH"), "SET CHLAUTH is not implemented by imsbridge");
  EXPECT_EQ(unsupported_reason("ALTER", "CFSTRUCT"),
            "ALTER CFSTRUCT is not implemented by imsbridge: queue-sharing groups are out of scope");
}

}  // namespace
}  // namespace imsb::mqsc
