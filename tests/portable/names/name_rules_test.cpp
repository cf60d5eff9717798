#include "imsb/names/name_rules.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>

namespace imsb::names {
namespace {

using ::testing::HasSubstr;

// The character sets as IBM lists them, written out independently of the implementation.
const std::string mq_set =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%";  // [C: NAMING-V6]
const std::string xcf_set = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$#@";     // [C: XCF-NAMES2]
const std::string otma_set = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@$";     // [C: IMS-NAMES]
const std::string upper_alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";    // [C: STGCLASS]

bool in(const std::string& set, char c) { return set.find(c) != std::string::npos; }

void expect_fault(const name_check& check, name_fault fault, std::size_t position) {
  ASSERT_TRUE(check.has_value()) << "expected " << to_string(fault);
  EXPECT_EQ(check->fault, fault) << check->reason;
  EXPECT_EQ(check->position, position) << check->reason;
  EXPECT_FALSE(check->reason.empty());
}

// --- every character class at its boundary: all 256 byte values, in the middle of a valid name ---

TEST(NameRulesCharacters, MqNameCharactersAreExactlyTheSpecSet) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    EXPECT_EQ(is_mq_name_char(c), in(mq_set, c)) << "byte " << b;
    const std::string name = std::string("Q") + c + "Q";
    const name_check check = check_mq_object_name(name, mq_object_type::queue);
    if (in(mq_set, c)) {
      EXPECT_FALSE(check.has_value()) << "byte " << b << ": " << check->reason;
    } else {
      ASSERT_TRUE(check.has_value()) << "byte " << b;
      EXPECT_EQ(check->fault, c == ' ' ? name_fault::blank : name_fault::bad_character) << "byte " << b;
      EXPECT_EQ(check->position, 1u);
    }
  }
}

TEST(NameRulesCharacters, XcfCharactersUnderBothRuleSets) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const std::string name = std::string("G") + c;
    const name_check xcf = check_xcf_group_name(name, xcf_rules::xcf);
    const name_check bridge = check_xcf_member_name(name, xcf_rules::bridge);
    EXPECT_EQ(!xcf.has_value(), in(xcf_set, c)) << "byte " << b;
    EXPECT_EQ(!bridge.has_value(), in(otma_set, c)) << "byte " << b;
    if (c >= 'a' && c <= 'z') {
      expect_fault(xcf, name_fault::lowercase, 1);
      expect_fault(bridge, name_fault::lowercase, 1);
    }
  }
}

TEST(NameRulesCharacters, TpipeCharactersAreOtmaTypeA) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const name_check check = check_tpipe_name(std::string("TP") + c);
    EXPECT_EQ(!check.has_value(), in(otma_set, c)) << "byte " << b;
  }
}

TEST(NameRulesCharacters, StorageClassAndCfStructureCharacters) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const std::string name = std::string("S") + c;
    EXPECT_EQ(!check_mq_object_name(name, mq_object_type::storage_class).has_value(), in(upper_alnum, c))
        << "byte " << b;
    EXPECT_EQ(!check_mq_object_name(name, mq_object_type::cf_structure).has_value(), in(upper_alnum, c))
        << "byte " << b;
    EXPECT_EQ(!check_queue_manager_name(name, qmgr_platform::zos).has_value(), in(upper_alnum, c))
        << "byte " << b;
  }
}

// --- MQ object names [C: NAMING-V6, NAMING-OTHER] ---

TEST(MqObjectName, LengthsPerTypeAtTheBoundary) {
  const struct {
    mq_object_type type;
    std::size_t max;
  } cases[] = {
      {mq_object_type::queue, 48},        {mq_object_type::process, 48},
      {mq_object_type::namelist, 48},     {mq_object_type::queue_manager, 48},
      {mq_object_type::cluster, 48},      {mq_object_type::listener, 48},
      {mq_object_type::service, 48},      {mq_object_type::authinfo, 48},
      {mq_object_type::topic, 48},        {mq_object_type::channel, 20},
      {mq_object_type::storage_class, 8}, {mq_object_type::cf_structure, 12},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(max_name_length(c.type), c.max) << to_string(c.type);
    EXPECT_FALSE(check_mq_object_name(std::string(c.max, 'A'), c.type).has_value()) << to_string(c.type);
    const name_check longer = check_mq_object_name(std::string(c.max + 1, 'A'), c.type);
    expect_fault(longer, name_fault::too_long, c.max);
    EXPECT_THAT(longer->reason, HasSubstr("at most " + std::to_string(c.max)));
    const std::string what =
        c.type == mq_object_type::queue_manager ? "queue-manager" : std::string(to_string(c.type));
    EXPECT_THAT(longer->reason, HasSubstr(what + " name '"));
    expect_fault(check_mq_object_name("", c.type), name_fault::empty, 0);
  }
}

TEST(MqObjectName, SpecExamplesAreValidAndCaseSensitive) {
  for (const char* name : {"QUEUE.MANAGER.ACCOUNTING.SERVICES", "IMS.BRIDGE.Q1", "APP.REPLY", "queue.manager",
                           "a/b_c%d", "SYSTEM.DEAD.LETTER.QUEUE", "Queue.A", "QUEUE.A", "%", "_", ".", "/"}) {
    EXPECT_FALSE(check_mq_object_name(name, mq_object_type::queue).has_value()) << name;
  }
  const std::string name48 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv";
  ASSERT_EQ(name48.size(), 48u);
  EXPECT_FALSE(check_mq_object_name(name48, mq_object_type::queue).has_value());
}

TEST(MqObjectName, BlanksAreLeadingEmbeddedOrTrailingPaddingLeftIn) {
  const name_check leading = check_mq_object_name(" Q", mq_object_type::queue);
  expect_fault(leading, name_fault::blank, 0);
  EXPECT_THAT(leading->reason, HasSubstr("begins with a blank"));
  const name_check embedded = check_mq_object_name("A B", mq_object_type::queue);
  expect_fault(embedded, name_fault::blank, 1);
  EXPECT_THAT(embedded->reason, HasSubstr("embedded blank at position 1"));
  EXPECT_THAT(embedded->reason, HasSubstr("[C: NAMING-V6]"));
  expect_fault(check_mq_object_name("QL.A    ", mq_object_type::queue), name_fault::blank, 4);
}

TEST(MqObjectName, BadCharacterReasonNamesTheCharacter) {
  const name_check hash = check_mq_object_name("APP#Q", mq_object_type::queue);
  expect_fault(hash, name_fault::bad_character, 3);
  EXPECT_THAT(hash->reason, HasSubstr("'#' at position 3"));
  EXPECT_THAT(hash->reason, HasSubstr("A-Z a-z 0-9 . / _ %"));
  const name_check control = check_mq_object_name(std::string("A\x01", 2), mq_object_type::channel);
  expect_fault(control, name_fault::bad_character, 1);
  EXPECT_THAT(control->reason, HasSubstr("X'01'"));
  EXPECT_THAT(control->reason, HasSubstr("channel name"));
}

TEST(MqObjectName, StorageClassFirstCharacterRule) {
  EXPECT_FALSE(check_mq_object_name("IMSA", mq_object_type::storage_class).has_value());
  EXPECT_FALSE(check_mq_object_name("A1234567", mq_object_type::storage_class).has_value());
  EXPECT_FALSE(check_mq_object_name("Z", mq_object_type::storage_class).has_value());
  // All-numeric names are reserved for IBM service; the first-character rule rules them out.
  const name_check numeric = check_mq_object_name("12345678", mq_object_type::storage_class);
  expect_fault(numeric, name_fault::first_character, 0);
  EXPECT_THAT(numeric->reason, HasSubstr("must be A-Z"));
  EXPECT_THAT(numeric->reason, HasSubstr("[C: STGCLASS]"));
  expect_fault(check_mq_object_name("0ABC", mq_object_type::storage_class), name_fault::first_character, 0);
  expect_fault(check_mq_object_name("ims", mq_object_type::storage_class), name_fault::bad_character, 0);
  expect_fault(check_mq_object_name("IMS.A", mq_object_type::storage_class), name_fault::bad_character, 3);
  expect_fault(check_mq_object_name("IMS_A", mq_object_type::storage_class), name_fault::bad_character, 3);
}

TEST(MqObjectName, CfStructureRule) {
  EXPECT_FALSE(check_mq_object_name("APPLICATION1", mq_object_type::cf_structure).has_value());
  expect_fault(check_mq_object_name("1APPL", mq_object_type::cf_structure), name_fault::first_character, 0);
  expect_fault(check_mq_object_name("APPL_1", mq_object_type::cf_structure), name_fault::bad_character, 4);
}

TEST(QueueManagerName, DistributedAndZos) {
  EXPECT_FALSE(check_queue_manager_name("QUEUE.MANAGER.ACCOUNTING.SERVICES", qmgr_platform::distributed));
  EXPECT_FALSE(check_queue_manager_name("queue.manager", qmgr_platform::distributed));
  expect_fault(check_queue_manager_name(std::string(49, 'Q'), qmgr_platform::distributed),
               name_fault::too_long, 48);
  EXPECT_FALSE(check_queue_manager_name("CSQ1", qmgr_platform::zos));
  EXPECT_FALSE(check_queue_manager_name("Q", qmgr_platform::zos));
  const name_check five = check_queue_manager_name("CSQ12", qmgr_platform::zos);
  expect_fault(five, name_fault::too_long, 4);
  EXPECT_THAT(five->reason, HasSubstr("z/OS queue-manager name"));
  expect_fault(check_queue_manager_name("1CSQ", qmgr_platform::zos), name_fault::first_character, 0);
  expect_fault(check_queue_manager_name("csq1", qmgr_platform::zos), name_fault::bad_character, 0);
  expect_fault(check_queue_manager_name("Q.1", qmgr_platform::zos), name_fault::bad_character, 1);
  EXPECT_EQ(check_mq_object_name("A B", mq_object_type::queue_manager)->reason,
            check_queue_manager_name("A B", qmgr_platform::distributed)->reason);
}

TEST(SystemPrefix, OnlyTheExactUpperCasePrefixWithItsDot) {
  const name_check dlq = check_no_system_prefix("SYSTEM.DEAD.LETTER.QUEUE");
  expect_fault(dlq, name_fault::reserved_prefix, 0);
  EXPECT_THAT(dlq->reason, HasSubstr("NAMING-OTHER"));
  expect_fault(check_no_system_prefix("SYSTEM."), name_fault::reserved_prefix, 0);
  EXPECT_FALSE(check_no_system_prefix("system.q"));  // names are case sensitive
  EXPECT_FALSE(check_no_system_prefix("SYSTEM"));
  EXPECT_FALSE(check_no_system_prefix("SYSTEMQ.A"));
  EXPECT_FALSE(check_no_system_prefix("APP.SYSTEM.Q"));
  EXPECT_FALSE(check_no_system_prefix(""));
}

// --- XCF names [C: XCF-NAMES2] ---

TEST(XcfName, GroupAndMemberLengths) {
  for (xcf_rules rules : {xcf_rules::xcf, xcf_rules::bridge}) {
    EXPECT_FALSE(check_xcf_group_name("GRP1", rules));
    EXPECT_FALSE(check_xcf_group_name("ABCDEFGH", rules));
    expect_fault(check_xcf_group_name("ABCDEFGHI", rules), name_fault::too_long, 8);
    EXPECT_FALSE(check_xcf_member_name("ABCDEFGHIJKLMNOP", rules));
    expect_fault(check_xcf_member_name("ABCDEFGHIJKLMNOPQ", rules), name_fault::too_long, 16);
    expect_fault(check_xcf_group_name("", rules), name_fault::empty, 0);
    expect_fault(check_xcf_member_name(" IMS1", rules), name_fault::blank, 0);
    expect_fault(check_xcf_member_name("IMS 1", rules), name_fault::blank, 3);
  }
}

TEST(XcfName, XcfRulesAllowWhatTheBridgeRefuses) {
  EXPECT_FALSE(check_xcf_group_name("GRP#1", xcf_rules::xcf));
  const name_check hash = check_xcf_group_name("GRP#1", xcf_rules::bridge);
  expect_fault(hash, name_fault::bad_character, 3);
  EXPECT_THAT(hash->reason, HasSubstr("# is not allowed"));

  EXPECT_FALSE(check_xcf_group_name("1GRP", xcf_rules::xcf));
  const name_check digit = check_xcf_group_name("1GRP", xcf_rules::bridge);
  expect_fault(digit, name_fault::first_character, 0);
  EXPECT_THAT(digit->reason, HasSubstr("together [D]"));

  EXPECT_FALSE(check_xcf_group_name("SYSGRP", xcf_rules::xcf));
  expect_fault(check_xcf_group_name("SYSGRP", xcf_rules::bridge), name_fault::reserved_prefix, 0);
  EXPECT_FALSE(check_xcf_member_name("SYSMEM", xcf_rules::bridge));  // SYS is a group-name rule

  EXPECT_FALSE(check_xcf_member_name("DFSMEM", xcf_rules::xcf));
  expect_fault(check_xcf_member_name("DFSMEM", xcf_rules::bridge), name_fault::reserved_prefix, 0);
  expect_fault(check_xcf_group_name("DFSGRP", xcf_rules::bridge), name_fault::reserved_prefix, 0);
  expect_fault(check_xcf_member_name("DBCDMX", xcf_rules::bridge), name_fault::reserved_prefix, 0);
  EXPECT_FALSE(check_xcf_member_name("DBCDX", xcf_rules::bridge));
  EXPECT_FALSE(check_xcf_member_name("DFX", xcf_rules::bridge));

  EXPECT_FALSE(check_xcf_member_name("MASTER", xcf_rules::xcf));
  expect_fault(check_xcf_member_name("MASTER", xcf_rules::bridge), name_fault::reserved_word, 0);
  EXPECT_FALSE(check_xcf_group_name("MASTER", xcf_rules::bridge));  // groups are not OTMA client names

  EXPECT_FALSE(check_xcf_member_name("$IMS@1", xcf_rules::bridge));
  EXPECT_FALSE(check_xcf_member_name("@", xcf_rules::bridge));
}

TEST(XcfName, LowercaseIsItsOwnFault) {
  const name_check xcf = check_xcf_group_name("grp1", xcf_rules::xcf);
  expect_fault(xcf, name_fault::lowercase, 0);
  EXPECT_THAT(xcf->reason, HasSubstr("upper case"));
  const name_check bridge = check_xcf_member_name("IMSa", xcf_rules::bridge);
  expect_fault(bridge, name_fault::lowercase, 3);
  EXPECT_THAT(bridge->reason, HasSubstr("NAK"));
}

// --- Tpipe names [C: IMS-NAMES, OTMA-NAMING] ---

TEST(TpipeName, ValidNames) {
  for (const char* name : {"CSQ00001", "TPIPE1", "PRINT01", "LOCAL", "1234", "@$", "A", "CSQABCDE"}) {
    EXPECT_FALSE(check_tpipe_name(name)) << name << ": " << check_tpipe_name(name)->reason;
  }
}

TEST(TpipeName, LengthBlanksAndLowercase) {
  expect_fault(check_tpipe_name(""), name_fault::empty, 0);
  expect_fault(check_tpipe_name("CSQ000001"), name_fault::too_long, 8);
  expect_fault(check_tpipe_name(" TP"), name_fault::blank, 0);
  expect_fault(check_tpipe_name("TP 1"), name_fault::blank, 2);
  const name_check lower = check_tpipe_name("tpipe1");
  expect_fault(lower, name_fault::lowercase, 0);
  EXPECT_THAT(lower->reason, HasSubstr("no uppercase translation"));
  EXPECT_THAT(lower->reason, HasSubstr("[C: IMS-NAMES]"));
  expect_fault(check_tpipe_name("CSQ#0001"), name_fault::bad_character, 3);
  expect_fault(check_tpipe_name("CSQ.0001"), name_fault::bad_character, 3);
}

TEST(TpipeName, ReservedPrefixesWordsAndConsole) {
  const name_check dfs = check_tpipe_name("DFSTP1");
  expect_fault(dfs, name_fault::reserved_prefix, 0);
  EXPECT_THAT(dfs->reason, HasSubstr("DFS"));
  expect_fault(check_tpipe_name("DFS"), name_fault::reserved_prefix, 0);
  expect_fault(check_tpipe_name("DBCDM1"), name_fault::reserved_prefix, 0);
  EXPECT_FALSE(check_tpipe_name("DF"));
  EXPECT_FALSE(check_tpipe_name("DBCD"));
  for (const char* word : {"TO", "SECURITY", "LINE", "NODE"}) {  // IBM's examples [C]
    expect_fault(check_tpipe_name(word), name_fault::reserved_word, 0);
    EXPECT_TRUE(is_ims_reserved_word(word)) << word;
  }
  expect_fault(check_tpipe_name("WTOR"), name_fault::reserved_word, 0);
  EXPECT_FALSE(check_tpipe_name("TOO"));
  EXPECT_FALSE(check_tpipe_name("NODES"));
  EXPECT_FALSE(is_ims_reserved_word("to"));
  EXPECT_FALSE(is_ims_reserved_word(""));
  EXPECT_FALSE(is_ims_reserved_word("LOCAL"));  // IMS Connect's local-option Tpipe is named LOCAL
}

// is_ims_reserved_word binary-searches the table: an entry out of order would silently stop being
// found (and its neighbours with it).
TEST(TpipeName, ReservedWordTableIsSortedAndEveryEntryIsFound) {
  EXPECT_TRUE(std::is_sorted(std::begin(ims_reserved_words), std::end(ims_reserved_words)));
  EXPECT_EQ(std::adjacent_find(std::begin(ims_reserved_words), std::end(ims_reserved_words)),
            std::end(ims_reserved_words));  // no duplicates
  for (std::string_view word : ims_reserved_words) {
    EXPECT_TRUE(is_ims_reserved_word(word)) << word;
    if (word.size() <= 8) expect_fault(check_tpipe_name(word), name_fault::reserved_word, 0);  // fits a Tpipe
    EXPECT_FALSE(is_ims_reserved_word(std::string(word) + "X")) << word;
  }
}

TEST(NameRules, FaultNamesAreDistinct) {
  const name_fault all[] = {name_fault::empty,           name_fault::too_long,
                            name_fault::blank,           name_fault::lowercase,
                            name_fault::bad_character,   name_fault::first_character,
                            name_fault::reserved_prefix, name_fault::reserved_word};
  for (name_fault a : all) {
    for (name_fault b : all) {
      if (a != b) {
        EXPECT_NE(to_string(a), to_string(b));
      }
    }
  }
}

TEST(NameRules, LongInvalidNamesAreShownCut) {
  const name_check check = check_mq_object_name(std::string(300, 'x'), mq_object_type::queue);
  ASSERT_TRUE(check.has_value());
  EXPECT_THAT(check->reason, HasSubstr("..."));
  EXPECT_LT(check->reason.size(), 200u);
}

}  // namespace
}  // namespace imsb::names
