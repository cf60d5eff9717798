#include "imsb/names/file_name_map.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace imsb::names {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr fs_profile all_profiles[] = {fs_profile::posix, fs_profile::case_insensitive, fs_profile::fat83};
constexpr name_space all_spaces[] = {name_space::queue_manager, name_space::object};

std::string xform(file_name_map& map, std::string_view real) {
  auto r = map.transform(real);
  EXPECT_TRUE(r.ok()) << real << ": " << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : std::string();
}

std::string number(std::size_t n, std::size_t width) {
  std::string s = std::to_string(n);
  return std::string(width - s.size(), '0') + s;
}

// The invariants every map must keep, whatever it was fed.
void expect_consistent(const file_name_map& map) {
  std::set<std::string> keys;
  std::set<std::string> reals;
  for (const auto& [real, file] : map.pairs()) {
    EXPECT_TRUE(is_valid_file_name(file, map.profile())) << file;
    EXPECT_TRUE(keys.insert(file_name_key(file, map.profile())).second) << "file used twice: " << file;
    EXPECT_TRUE(reals.insert(real).second) << "real name twice: " << real;
    EXPECT_EQ(map.real_name_of(file), real) << file;
    EXPECT_EQ(map.file_name_of(real), file) << real;
  }
}

// --- IBM's examples [C: FILENAMES-V6] -----------------------------------------------------------

TEST(FileNameMapSeed, QueueManagerExampleOnEveryProfile) {
  file_name_map posix(fs_profile::posix, name_space::queue_manager);
  file_name_map ntfs(fs_profile::case_insensitive, name_space::queue_manager);
  file_name_map fat(fs_profile::fat83, name_space::queue_manager);
  EXPECT_EQ(xform(posix, "queue.manager"), "queue!manager");  // /var/mqm/qmgrs/queue!manager
  EXPECT_EQ(xform(ntfs, "queue.manager"), "queue!manager");   // NTFS or FAT32
  EXPECT_EQ(xform(fat, "queue.manager"), "queue!ma");         // FAT: ...\qmgrs\queue!ma
  EXPECT_EQ(posix.real_name_of("queue!manager"), "queue.manager");
  EXPECT_EQ(ntfs.real_name_of("QUEUE!MANAGER"), "queue.manager");
  EXPECT_EQ(fat.real_name_of("queue!ma"), "queue.manager");
  EXPECT_EQ(fat.real_name_of("QUEUE!MA"), "queue.manager");  // FAT stores short names upper case
  EXPECT_EQ(posix.real_name_of("QUEUE!MANAGER"), std::nullopt);
}

TEST(FileNameMapSeed, LongQueueManagerName) {
  const std::string real = "QUEUE.MANAGER.ACCOUNTING.SERVICES";
  file_name_map posix(fs_profile::posix, name_space::queue_manager);
  file_name_map ntfs(fs_profile::case_insensitive, name_space::queue_manager);
  file_name_map fat(fs_profile::fat83, name_space::queue_manager);
  EXPECT_EQ(xform(posix, real), "QUEUE!MANAGER!ACCOUNTING!SERVICES");
  EXPECT_EQ(xform(ntfs, real), "QUEUE!MANAGER!ACCOUNTING!SERVICES");
  EXPECT_EQ(xform(fat, real), "QUEUE!MA");
  // The next name with the same first 8 characters takes the suffix (rule 2).
  EXPECT_EQ(xform(fat, "QUEUE.MANAGER.PAYROLL"), "QUEUE!MA.000");
  EXPECT_EQ(xform(fat, "QUEUE.MAIN"), "QUEUE!MA.001");
  EXPECT_EQ(fat.real_name_of("queue!ma.001"), "QUEUE.MAIN");
  expect_consistent(fat);
}

TEST(FileNameMapSeed, ObjectNamesObservedOnLinux) {
  file_name_map queues(fs_profile::posix, name_space::object);
  EXPECT_EQ(xform(queues, "QL.A"), "QL!A");  // [C: QIITA-DSPMQFLS]
  EXPECT_EQ(xform(queues, "SYSTEM.BROKER.TIMEOUT.QUEUE"), "SYSTEM!BROKER!TIMEOUT!QUEUE");  // [C: CHEF-IIB]
  EXPECT_EQ(queues.real_name_of("QL!A"), "QL.A");
}

// --- characters --------------------------------------------------------------------------------

TEST(FileNameMap, SlashesAndMixedCaseOnPosix) {
  file_name_map map(fs_profile::posix, name_space::queue_manager);
  EXPECT_EQ(xform(map, "a/b"), "a&b");
  EXPECT_EQ(xform(map, "Queue.A"), "Queue!A");
  EXPECT_EQ(xform(map, "QUEUE.A"), "QUEUE!A");  // case sensitive: no collision
  EXPECT_EQ(xform(map, "queue.a"), "queue!a");
  EXPECT_EQ(map.real_name_of("a&b"), "a/b");
  expect_consistent(map);
}

TEST(FileNameMap, PercentKeptOnPosixAndReplacedElsewhere) {
  file_name_map posix(fs_profile::posix, name_space::queue_manager);
  file_name_map ntfs(fs_profile::case_insensitive, name_space::queue_manager);
  file_name_map fat(fs_profile::fat83, name_space::queue_manager);
  EXPECT_EQ(xform(posix, "PCT%Q.A"), "PCT%Q!A");
  EXPECT_EQ(xform(ntfs, "PCT%Q.A"), "PCT#Q!A");
  EXPECT_EQ(xform(fat, "PCT%Q.A"), "PCT#Q!A");
  EXPECT_EQ(xform(ntfs, "PCT%Q.ABCDEF"), "PCT#Q!AB");  // rule 2: truncated stem
  EXPECT_EQ(xform(ntfs, "PCT%Q.ABCXYZ"), "PCT#Q!AB.000");
  EXPECT_EQ(ntfs.real_name_of("pct#q!ab"), "PCT%Q.ABCDEF");
  EXPECT_EQ(xform(fat, "%%%%%%%%%%"), "########");
  EXPECT_EQ(xform(fat, "%"), "#");
  expect_consistent(ntfs);
  expect_consistent(fat);
}

TEST(FileNameMap, FortyEightCharacters) {
  const std::string real = "ABCDEFGHIJ.abcdefghij/0123456789_KLMNOPQRST%uvwx";
  ASSERT_EQ(real.size(), 48u);
  file_name_map posix(fs_profile::posix, name_space::queue_manager);
  file_name_map fat(fs_profile::fat83, name_space::queue_manager);
  file_name_map fat_objects(fs_profile::fat83, name_space::object);
  EXPECT_EQ(xform(posix, real), "ABCDEFGHIJ!abcdefghij&0123456789_KLMNOPQRST%uvwx");
  EXPECT_EQ(xform(fat, real), "ABCDEFGH");
  // Expected value computed independently (Python FNV-1a 64, base-32 of the low 35 bits).
  EXPECT_EQ(xform(fat_objects, real), "#6OJ0EIN");
  EXPECT_EQ(posix.real_name_of("ABCDEFGHIJ!abcdefghij&0123456789_KLMNOPQRST%uvwx"), real);
  EXPECT_EQ(fat_objects.real_name_of("#6OJ0EIN"), real);
}

// --- case collisions ---------------------------------------------------------------------------

TEST(FileNameMapCase, NamesDifferingOnlyInCaseOnCaseInsensitive) {
  file_name_map map(fs_profile::case_insensitive, name_space::queue_manager);
  EXPECT_EQ(xform(map, "Queue.A"), "Queue!A");
  EXPECT_EQ(xform(map, "QUEUE.A"), "QUEUE!A.000");
  EXPECT_EQ(xform(map, "queue.a"), "queue!a.001");
  EXPECT_EQ(map.real_name_of("Queue!A"), "Queue.A");
  EXPECT_EQ(map.real_name_of("QUEUE!A"), "Queue.A");  // the same file on this file system
  EXPECT_EQ(map.real_name_of("QUEUE!A.000"), "QUEUE.A");
  EXPECT_EQ(map.real_name_of("Queue!a.001"), "queue.a");
  // A long colliding name gets its plain stem when that is free.
  EXPECT_EQ(xform(map, "Queue.Manager.X"), "Queue!Manager!X");
  EXPECT_EQ(xform(map, "QUEUE.MANAGER.X"), "QUEUE!MA");
  expect_consistent(map);
}

TEST(FileNameMapCase, NamesDifferingOnlyInCaseOnFat) {
  file_name_map map(fs_profile::fat83, name_space::queue_manager);
  EXPECT_EQ(xform(map, "Queue.A"), "Queue!A");
  EXPECT_EQ(xform(map, "QUEUE.A"), "QUEUE!A.000");
  EXPECT_EQ(map.real_name_of("QUEUE!A.000"), "QUEUE.A");
  EXPECT_EQ(map.real_name_of("queue!a"), "Queue.A");
  expect_consistent(map);
}

TEST(FileNameMapCase, ObjectNamesDifferingOnlyInCase) {
  file_name_map map(fs_profile::case_insensitive, name_space::object);
  EXPECT_EQ(xform(map, "Queue.A"), "Queue!A");
  // "no simple relationship with the original object name" [C: FILENAMES-V6]: the hash stem.
  // Expected value computed independently (Python FNV-1a 64, base-32 of the low 35 bits).
  EXPECT_EQ(xform(map, "QUEUE.A"), "#PPPOHH7");
  EXPECT_EQ(map.real_name_of("#ppppohh7"), std::nullopt);
  EXPECT_EQ(map.real_name_of("#ppPohh7"), "QUEUE.A");
  expect_consistent(map);
}

// --- the object name space ---------------------------------------------------------------------

TEST(FileNameMapObject, HashStemIsPortableAndCaseSensitive) {
  const file_name_map a(fs_profile::fat83, name_space::object);
  const file_name_map b(fs_profile::posix, name_space::object);
  // Independent values (Python FNV-1a): the same on little- and big-endian hosts.
  EXPECT_EQ(a.stem_of("APP.ORDERS.0001"), "#OKGGFD7");
  EXPECT_EQ(a.stem_of("queue.manager"), "#P4AE7OC");
  EXPECT_EQ(a.stem_of("Queue.A"), "#PRIK86G");
  EXPECT_EQ(b.stem_of("Queue.A"), a.stem_of("Queue.A"));
  const std::string alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
  for (const char* real : {"A", "Z.Z", "x/y"}) {
    const std::string stem = a.stem_of(real);
    ASSERT_EQ(stem.size(), 8u);
    EXPECT_EQ(stem[0], '#');
    EXPECT_EQ(stem.find_first_not_of(alphabet, 1), std::string::npos) << stem;
  }
}

TEST(FileNameMapObject, ManyObjectsSharingEightCharactersOnFat) {
  file_name_map map(fs_profile::fat83, name_space::object);
  constexpr std::size_t count = 3000;  // more than one stem's 1000 suffixes
  std::set<std::string> keys;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string real = "APP.ORDERS." + number(i, 4);
    const std::string file = xform(map, real);
    EXPECT_TRUE(is_valid_file_name(file, fs_profile::fat83)) << file;
    EXPECT_TRUE(keys.insert(file_name_key(file, fs_profile::fat83)).second) << file;
    EXPECT_EQ(map.real_name_of(file), real);
  }
  EXPECT_EQ(map.size(), count);
  // Short names keep rule 1 on FAT too.
  EXPECT_EQ(xform(map, "QL.A"), "QL!A");
}

TEST(FileNameMapObject, HashStemTakenGetsASuffix) {
  file_name_map first(fs_profile::posix, name_space::object);
  const std::string stem = first.stem_of("Queue.A");
  file_name_map map(fs_profile::case_insensitive, name_space::object);
  ASSERT_TRUE(map.add("OTHER", stem).ok());
  EXPECT_EQ(xform(map, "QUEUE.A"), "QUEUE!A");
  EXPECT_EQ(xform(map, "Queue.A"), stem + ".000");
  expect_consistent(map);
}

// --- suffix exhaustion ---------------------------------------------------------------------------

TEST(FileNameMapSuffix, ThousandSuffixesThenAClearError) {
  file_name_map map(fs_profile::fat83, name_space::queue_manager);
  EXPECT_EQ(xform(map, "QUEUE.MANAGER"), "QUEUE!MA");
  for (std::size_t n = 0; n < max_suffixes; ++n) {
    EXPECT_EQ(xform(map, "QUEUE.MANAGER." + number(n, 4)), "QUEUE!MA." + number(n, 3));
  }
  ASSERT_EQ(map.size(), max_suffixes + 1);
  auto full = map.transform("QUEUE.MANAGER.LAST");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, std::make_error_code(std::errc::no_space_on_device));
  EXPECT_EQ(full.error().field, "real_name");
  EXPECT_THAT(full.error().detail, HasSubstr("QUEUE!MA.000 to QUEUE!MA.999"));
  EXPECT_THAT(full.error().detail, HasSubstr("QUEUE.MANAGER.LAST"));
  EXPECT_EQ(map.size(), max_suffixes + 1);  // nothing recorded
  EXPECT_EQ(map.file_name_of("QUEUE.MANAGER.LAST"), std::nullopt);
  // Another stem is unaffected; deleting one name frees exactly its file name.
  EXPECT_EQ(xform(map, "QUEUE.OTHER"), "QUEUE!OT");
  ASSERT_TRUE(map.erase("QUEUE.MANAGER.0500"));
  EXPECT_FALSE(map.erase("QUEUE.MANAGER.0500"));
  EXPECT_EQ(xform(map, "QUEUE.MANAGER.LAST"), "QUEUE!MA.500");
  expect_consistent(map);
}

TEST(FileNameMapSuffix, PosixSuffixesOnlyWhenACatalogAlreadyHoldsTheName) {
  file_name_map map(fs_profile::posix, name_space::queue_manager);
  ASSERT_TRUE(map.add("X1", "QUEUE!A").ok());
  ASSERT_TRUE(map.add("X2", "QUEUE!A.000").ok());
  EXPECT_EQ(xform(map, "QUEUE.A"), "QUEUE!A.001");
  EXPECT_EQ(map.real_name_of("QUEUE!A.001"), "QUEUE.A");
  expect_consistent(map);
}

TEST(FileNameMapSuffix, DeviceNamesOnWindowsProfiles) {
  file_name_map ntfs(fs_profile::case_insensitive, name_space::queue_manager);
  file_name_map posix(fs_profile::posix, name_space::queue_manager);
  EXPECT_EQ(xform(ntfs, "CON"), "CON#");
  EXPECT_EQ(xform(ntfs, "con"), "con#.000");
  EXPECT_EQ(xform(ntfs, "LPT1"), "LPT1#");
  EXPECT_EQ(xform(ntfs, "NUL.Q"), "NUL!Q");  // not a device: '.' became '!'
  EXPECT_EQ(xform(posix, "CON"), "CON");
  file_name_map fat_objects(fs_profile::fat83, name_space::object);
  EXPECT_EQ(xform(fat_objects, "AUX"), "#P8169G6");  // independent value (Python FNV-1a), as above
  expect_consistent(ntfs);
}

// --- errors ----------------------------------------------------------------------------------------

TEST(FileNameMapErrors, InvalidRealNamesAreRefusedWithTheRule) {
  for (name_space space : all_spaces) {
    file_name_map map(fs_profile::posix, space);
    const struct {
      std::string real;
      std::size_t offset;
      const char* says;
    } cases[] = {
        {"", 0, "empty"},
        {"A B", 1, "embedded blank"},
        {std::string(49, 'Q'), 48, "at most 48"},
        {"APP#Q", 3, "'#'"},
        {"a!b", 1, "'!'"},
    };
    for (const auto& c : cases) {
      auto r = map.transform(c.real);
      ASSERT_FALSE(r.ok()) << c.real;
      EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument));
      EXPECT_EQ(r.error().field, "real_name");
      EXPECT_EQ(r.error().offset, c.offset) << c.real;
      EXPECT_THAT(r.error().detail, HasSubstr(c.says));
      EXPECT_THAT(r.error().detail,
                  StartsWith(space == name_space::queue_manager ? "queue-manager name" : "object name"));
    }
    EXPECT_EQ(map.size(), 0u);
  }
}

TEST(FileNameMapErrors, AddChecksTheCatalog) {
  file_name_map map(fs_profile::fat83, name_space::queue_manager);
  ASSERT_TRUE(map.add("queue.manager", "queue!ma").ok());
  EXPECT_EQ(map.add("queue.manager", "QUEUE!MA").value(), "queue!ma");  // reloading is a no-op
  auto remap = map.add("queue.manager", "OTHER");
  ASSERT_FALSE(remap.ok());
  EXPECT_EQ(remap.error().code, std::make_error_code(std::errc::file_exists));
  EXPECT_THAT(remap.error().detail, HasSubstr("already the name of file 'queue!ma'"));
  auto taken = map.add("Queue.Manager", "QUEUE!MA");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, std::make_error_code(std::errc::file_exists));
  EXPECT_EQ(taken.error().field, "file_name");
  EXPECT_THAT(taken.error().detail, HasSubstr("belongs to 'queue.manager'"));
  auto bad_file = map.add("Q2", "queue!manager");
  ASSERT_FALSE(bad_file.ok());
  EXPECT_EQ(bad_file.error().code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_EQ(bad_file.error().field, "file_name");
  EXPECT_THAT(bad_file.error().detail, HasSubstr("fat83"));
  auto bad_real = map.add("Q 2", "Q2");
  ASSERT_FALSE(bad_real.ok());
  EXPECT_EQ(bad_real.error().field, "real_name");
  EXPECT_EQ(map.size(), 1u);
}

// --- determinism, reload, reverse mapping --------------------------------------------------------

std::vector<std::string> mixed_names() {
  std::vector<std::string> names = {"queue.manager",
                                    "QUEUE.MANAGER",
                                    "Queue.Manager",
                                    "QUEUE.MANAGER.ACCOUNTING",
                                    "a/b",
                                    "A/B",
                                    "PCT%Q",
                                    "pct%q",
                                    "CON",
                                    "con",
                                    "SYSTEM.DEFAULT.LOCAL.QUEUE",
                                    "SYSTEM.DEFAULT.MODEL.QUEUE",
                                    "Q",
                                    "q",
                                    std::string(48, 'z')};
  for (std::size_t i = 0; i < 40; ++i) names.push_back("LONGPREFIX." + number(i, 2));
  return names;
}

TEST(FileNameMapDeterminism, SameSequenceSameNamesAndEveryNameMapsBack) {
  for (fs_profile profile : all_profiles) {
    for (name_space space : all_spaces) {
      file_name_map a(profile, space);
      file_name_map b(profile, space);
      for (const std::string& real : mixed_names()) {
        const std::string fa = xform(a, real);
        EXPECT_EQ(xform(b, real), fa);
        EXPECT_EQ(xform(a, real), fa) << "transform is idempotent";
        if (fa.find('.') == std::string::npos && fa == transform_chars(real)) {
          EXPECT_EQ(untransform_chars(fa), real);
        }
      }
      EXPECT_EQ(a.pairs(), b.pairs());
      EXPECT_EQ(a.size(), mixed_names().size());
      expect_consistent(a);
    }
  }
}

TEST(FileNameMapDeterminism, ReloadedCatalogContinuesTheSameWay) {
  for (fs_profile profile : all_profiles) {
    for (name_space space : all_spaces) {
      const std::vector<std::string> names = mixed_names();
      const std::size_t half = names.size() / 2;
      file_name_map original(profile, space);
      for (std::size_t i = 0; i < half; ++i) xform(original, names[i]);
      file_name_map reloaded(profile, space);
      for (const auto& [real, file] : original.pairs()) ASSERT_TRUE(reloaded.add(real, file).ok()) << real;
      for (std::size_t i = half; i < names.size(); ++i) {
        EXPECT_EQ(xform(reloaded, names[i]), xform(original, names[i])) << names[i];
      }
      EXPECT_EQ(reloaded.pairs(), original.pairs());
      expect_consistent(reloaded);
    }
  }
}

TEST(FileNameMap, NameSpacesAreSeparate) {
  file_name_map qmgrs(fs_profile::fat83, name_space::queue_manager);
  file_name_map queues(fs_profile::fat83, name_space::object);
  EXPECT_EQ(xform(qmgrs, "queue.manager"), "queue!ma");
  EXPECT_EQ(xform(queues, "queue.manager"), "#P4AE7OC");
  EXPECT_EQ(qmgrs.space(), name_space::queue_manager);
  EXPECT_EQ(queues.space(), name_space::object);
  EXPECT_NE(to_string(name_space::queue_manager), to_string(name_space::object));
}

// --- erase ---------------------------------------------------------------------------------------

// A queue manager's life: thousands of DEFINEs and DELETEs in any order. Every erased name is gone
// both ways and its file is free; every kept name still maps both ways; pairs() stays in the order the
// survivors were added, and a name defined again after its DELETE goes to the end.
TEST(FileNameMapErase, ManyNamesErasedInMixedOrderKeepBothLookups) {
  constexpr std::size_t n = 3000;
  for (fs_profile profile : all_profiles) {
    file_name_map map(profile, name_space::object);
    std::vector<std::string> reals;
    std::vector<std::string> files;
    for (std::size_t i = 0; i < n; ++i) {
      reals.push_back("APP.ORDERS." + number(i, 5));
      files.push_back(xform(map, reals.back()));
    }
    // Erase every third name from the front and every third+1 from the back, interleaved with lookups.
    std::vector<bool> erased(n, false);
    for (std::size_t i = 0; i < n; i += 3) {
      ASSERT_TRUE(map.erase(reals[i])) << reals[i];
      erased[i] = true;
      const std::size_t j = n - 1 - i;
      if (j % 3 == 1) {
        ASSERT_TRUE(map.erase(reals[j])) << reals[j];
        erased[j] = true;
      }
      EXPECT_FALSE(map.erase(reals[i])) << "erased twice: " << reals[i];
    }
    std::vector<std::pair<std::string, std::string>> expected;
    for (std::size_t i = 0; i < n; ++i) {
      if (erased[i]) {
        EXPECT_EQ(map.file_name_of(reals[i]), std::nullopt) << reals[i];
        EXPECT_EQ(map.real_name_of(files[i]), std::nullopt) << files[i];
      } else {
        EXPECT_EQ(map.file_name_of(reals[i]), files[i]) << reals[i];
        EXPECT_EQ(map.real_name_of(files[i]), reals[i]) << files[i];
        expected.emplace_back(reals[i], files[i]);
      }
    }
    EXPECT_EQ(map.size(), expected.size());
    EXPECT_EQ(map.pairs(), expected);
    expect_consistent(map);

    // Defined again: the freed file name comes back (the hash stem is free again) and the pair is
    // last in pairs(); names added after an erase but before pairs() is read are not lost.
    ASSERT_TRUE(erased[0]);
    EXPECT_EQ(xform(map, reals[0]), files[0]);
    expected.emplace_back(reals[0], files[0]);
    EXPECT_EQ(xform(map, "APP.NEW"), xform(map, "APP.NEW"));
    expected.emplace_back("APP.NEW", *map.file_name_of("APP.NEW"));
    ASSERT_TRUE(map.erase(reals[1]));
    expected.erase(std::find(expected.begin(), expected.end(), std::make_pair(reals[1], files[1])));
    EXPECT_EQ(map.pairs(), expected);
    EXPECT_EQ(map.real_name_of(files[0]), reals[0]);

    // Everything erased: the map is empty and reusable.
    for (const auto& [real, file] : std::vector<std::pair<std::string, std::string>>(map.pairs())) {
      ASSERT_TRUE(map.erase(real)) << real;
      EXPECT_EQ(map.real_name_of(file), std::nullopt) << file;
    }
    EXPECT_EQ(map.size(), 0U);
    EXPECT_TRUE(map.pairs().empty());
    EXPECT_EQ(xform(map, reals[5]), files[5]);
    EXPECT_EQ(map.pairs().size(), 1U);
  }
}

// Erasing a name whose file had a suffix frees exactly that suffix, on a case-insensitive profile
// looked up in the other case too, and the catalog written after the erase reloads to the same map.
TEST(FileNameMapErase, FreedSuffixIsReusedAndCatalogReloads) {
  file_name_map map(fs_profile::case_insensitive, name_space::queue_manager);
  EXPECT_EQ(xform(map, "QUEUE.MANAGER"), "QUEUE!MANAGER");
  EXPECT_EQ(xform(map, "queue.manager"), "queue!ma");
  EXPECT_EQ(xform(map, "Queue.Manager"), "Queue!Ma.000");
  EXPECT_EQ(xform(map, "QUEUE.manager"), "QUEUE!ma.001");
  EXPECT_EQ(map.real_name_of("queue!MA.000"), "Queue.Manager");
  ASSERT_TRUE(map.erase("Queue.Manager"));
  EXPECT_EQ(map.real_name_of("queue!MA.000"), std::nullopt);
  EXPECT_EQ(map.real_name_of("QUEUE!MA.001"), "QUEUE.manager");
  EXPECT_EQ(xform(map, "queue.Manager"), "queue!Ma.000");
  file_name_map reloaded(fs_profile::case_insensitive, name_space::queue_manager);
  for (const auto& [real, file] : map.pairs()) ASSERT_TRUE(reloaded.add(real, file).ok()) << real;
  EXPECT_EQ(reloaded.pairs(), map.pairs());
  const std::vector<std::string> order = {"QUEUE.MANAGER", "queue.manager", "QUEUE.manager", "queue.Manager"};
  ASSERT_EQ(map.pairs().size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(map.pairs()[i].first, order[i]);
  expect_consistent(reloaded);
}

}  // namespace
}  // namespace imsb::names
