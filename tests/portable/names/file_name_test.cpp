#include "imsb/names/file_name.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "imsb/names/name_rules.hpp"

namespace imsb::names {
namespace {

using ::testing::HasSubstr;

constexpr fs_profile all_profiles[] = {fs_profile::posix, fs_profile::case_insensitive, fs_profile::fat83};

TEST(TransformChars, SeedExamples) {
  EXPECT_EQ(transform_chars("queue.manager"), "queue!manager");  // [C: FILENAMES-V6]
  EXPECT_EQ(transform_chars("QUEUE.MANAGER.ACCOUNTING.SERVICES"), "QUEUE!MANAGER!ACCOUNTING!SERVICES");
  EXPECT_EQ(transform_chars("SYSTEM.BROKER.TIMEOUT.QUEUE"), "SYSTEM!BROKER!TIMEOUT!QUEUE");  // [C: CHEF-IIB]
  EXPECT_EQ(transform_chars("QL.A"), "QL!A");                    // [C: QIITA-DSPMQFLS]
  EXPECT_EQ(transform_chars("queue/manager"), "queue&manager");  // IBM i IFS example [C: IFS-NAMES]
  EXPECT_EQ(transform_chars("a/b.c_d%e"), "a&b!c_d%e");
  EXPECT_EQ(transform_chars(""), "");
}

TEST(TransformChars, EveryMqCharacterRoundTrips) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (!is_mq_name_char(c)) continue;
    const std::string name = std::string("A") + c + "Z";
    const std::string file = transform_chars(name);
    EXPECT_EQ(file.find('.'), std::string::npos) << "byte " << b;
    EXPECT_EQ(file.find('/'), std::string::npos) << "byte " << b;
    EXPECT_EQ(untransform_chars(file), name) << "byte " << b;
    if (c != '.' && c != '/') {
      EXPECT_EQ(file, name) << "byte " << b;
    }
  }
  EXPECT_EQ(untransform_chars("queue!manager"), "queue.manager");
  EXPECT_EQ(untransform_chars("queue&manager"), "queue/manager");
}

TEST(FileNameProfile, PosixRules) {
  EXPECT_TRUE(is_valid_file_name("queue!manager", fs_profile::posix));
  EXPECT_TRUE(is_valid_file_name("PCT%Q", fs_profile::posix));  // [D]: '%' kept on Linux
  EXPECT_TRUE(is_valid_file_name("CON", fs_profile::posix));
  EXPECT_TRUE(is_valid_file_name("a.b.c", fs_profile::posix));
  EXPECT_TRUE(is_valid_file_name(std::string(255, 'a'), fs_profile::posix));
  EXPECT_THAT(*file_name_problem(std::string(256, 'a'), fs_profile::posix), HasSubstr("at most 255"));
  EXPECT_FALSE(is_valid_file_name("", fs_profile::posix));
  EXPECT_FALSE(is_valid_file_name(".", fs_profile::posix));
  EXPECT_FALSE(is_valid_file_name("..", fs_profile::posix));
  EXPECT_TRUE(is_valid_file_name("...", fs_profile::posix));
  EXPECT_THAT(*file_name_problem("a/b", fs_profile::posix), HasSubstr("'/' at position 1"));
  EXPECT_THAT(*file_name_problem(std::string("a\0b", 3), fs_profile::posix), HasSubstr("X'00'"));
}

TEST(FileNameProfile, CaseInsensitiveRules) {
  const fs_profile p = fs_profile::case_insensitive;
  EXPECT_TRUE(is_valid_file_name("queue!manager", p));
  EXPECT_TRUE(is_valid_file_name("a&b_c!d#e", p));
  EXPECT_TRUE(is_valid_file_name(std::string(255, 'a'), p));
  EXPECT_FALSE(is_valid_file_name(std::string(256, 'a'), p));
  EXPECT_THAT(*file_name_problem("PCT%Q", p), HasSubstr("queue-manager.md [D]"));
  for (char c : std::string("<>:\"/\\|?*")) {
    EXPECT_FALSE(is_valid_file_name(std::string("a") + c + "b", p)) << c;
  }
  EXPECT_FALSE(is_valid_file_name("a\x1f", p));
  EXPECT_TRUE(is_valid_file_name("a\x7f", p));
  EXPECT_THAT(*file_name_problem("abc.", p), HasSubstr("must not end"));
  EXPECT_FALSE(is_valid_file_name("abc ", p));
  for (const char* device :
       {"CON", "con", "Prn", "AUX", "NUL", "COM1", "com9", "LPT1", "LPT9", "NUL.TXT", "con.000"}) {
    EXPECT_THAT(*file_name_problem(device, p), HasSubstr("device")) << device;
  }
  for (const char* not_device : {"COM0", "LPT0", "COM10", "CONS", "NULL", "CON#", "AUX!A", "COMA"}) {
    EXPECT_TRUE(is_valid_file_name(not_device, p)) << not_device;
  }
}

TEST(FileNameProfile, Fat83Rules) {
  const fs_profile p = fs_profile::fat83;
  EXPECT_TRUE(is_valid_file_name("queue!ma", p));  // IBM's FAT example [C: FILENAMES-V6]
  EXPECT_TRUE(is_valid_file_name("QUEUE!MA.000", p));
  EXPECT_TRUE(is_valid_file_name("A.1", p));
  EXPECT_TRUE(is_valid_file_name("A#B.99", p));
  EXPECT_THAT(*file_name_problem("queue!man", p), HasSubstr("base of 9"));
  EXPECT_THAT(*file_name_problem("queue!ma.0000", p), HasSubstr("extension of 4"));
  EXPECT_THAT(*file_name_problem("queue.", p), HasSubstr("extension of 0"));
  EXPECT_FALSE(is_valid_file_name(".000", p));
  EXPECT_FALSE(is_valid_file_name("a.b.c", p));
  EXPECT_FALSE(is_valid_file_name("NUL", p));
  EXPECT_FALSE(is_valid_file_name("lpt1.000", p));
  // The DOS short-name set, boundary by boundary, and what we leave out of it.
  const std::string allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&'()-@^_`{}~";
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (c == '.') continue;
    EXPECT_EQ(is_valid_file_name(std::string("A") + c, p), allowed.find(c) != std::string::npos)
        << "byte " << b;
  }
}

TEST(FileNameKey, CaseRulePerProfile) {
  EXPECT_FALSE(same_file("Queue!A", "QUEUE!A", fs_profile::posix));
  EXPECT_TRUE(same_file("Queue!A", "QUEUE!A", fs_profile::case_insensitive));
  EXPECT_TRUE(same_file("queue!ma.000", "QUEUE!MA.000", fs_profile::fat83));
  EXPECT_FALSE(same_file("QUEUE!A", "QUEUE!B", fs_profile::fat83));
  EXPECT_EQ(file_name_key("a%z{", fs_profile::case_insensitive), "A%Z{");
  EXPECT_EQ(file_name_key("a%z{", fs_profile::posix), "a%z{");
  for (fs_profile p : all_profiles) {
    EXPECT_EQ(is_case_insensitive(p), p != fs_profile::posix);
    EXPECT_FALSE(to_string(p).empty());
  }
}

}  // namespace
}  // namespace imsb::names
