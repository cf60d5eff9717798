// Fuzzes the MQ file-name transformation (imsb/names/file_name_map.hpp) and the name rules.
// Input: one mode byte, then names separated by '\n'. A name whose first byte is X'7F' erases the
// rest of it from the map instead. Mode bits: 0 maps every byte into the MQ character set (so most
// names are accepted and collide in interesting ways), 1 puts "QUEUE.MANAGER." in front of every
// name (many names share their first 8 characters), 2 folds letters to upper case half the time
// (names that differ only in case).
// Invariants, on every profile and name space (trap on violation): every file name produced is valid
// for the profile, unique under the profile's case rule, and maps back to its real name; a refused
// name is one the MQ rule refuses or one whose suffixes are all taken, and leaves the map unchanged;
// the same sequence gives the same names; a catalog reloaded with add() is the same map.

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "imsb/names/file_name.hpp"
#include "imsb/names/file_name_map.hpp"
#include "imsb/names/name_rules.hpp"

namespace {

using namespace imsb::names;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

struct step {
  bool erase = false;
  std::string name;
};

std::vector<step> parse(const std::uint8_t* data, std::size_t size) {
  std::vector<step> steps;
  if (size == 0) return steps;
  const std::uint8_t mode = data[0];
  constexpr std::string_view mq_chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%";
  std::string current;
  auto finish = [&] {
    step s;
    std::string_view text = current;
    if (!text.empty() && static_cast<unsigned char>(text[0]) == 0x7F) {
      s.erase = true;
      text.remove_prefix(1);
    }
    if (mode & 2) s.name = "QUEUE.MANAGER.";
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (mode & 1) c = mq_chars[static_cast<unsigned char>(c) % mq_chars.size()];
      if ((mode & 4) && (i % 2 == 0) && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      s.name.push_back(c);
    }
    steps.push_back(std::move(s));
    current.clear();
  };
  for (std::size_t i = 1; i < size; ++i) {
    if (data[i] == '\n') {
      finish();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  finish();
  return steps;
}

void check_free_functions(const std::string& name) {
  // Rule 1 is exact on any text without '!' and '&'.
  if (name.find_first_of("!&") == std::string::npos)
    require(untransform_chars(transform_chars(name)) == name);
  for (fs_profile p : {fs_profile::posix, fs_profile::case_insensitive, fs_profile::fat83}) {
    const auto problem = file_name_problem(name, p);
    require(problem.has_value() != is_valid_file_name(name, p));
    require(!problem.has_value() || !problem->empty());
    require(same_file(name, name, p));
  }
  // The rules never crash and always explain a refusal.
  const name_check checks[] = {
      check_mq_object_name(name, mq_object_type::queue),
      check_mq_object_name(name, mq_object_type::storage_class),
      check_mq_object_name(name, mq_object_type::cf_structure),
      check_queue_manager_name(name, qmgr_platform::zos),
      check_no_system_prefix(name),
      check_xcf_group_name(name, xcf_rules::xcf),
      check_xcf_member_name(name, xcf_rules::bridge),
      check_tpipe_name(name),
  };
  for (const name_check& c : checks) {
    require(!c.has_value() || (!c->reason.empty() && c->position <= name.size()));
  }
}

void run(const std::vector<step>& steps, fs_profile profile, name_space space) {
  file_name_map map(profile, space);
  file_name_map replay(profile, space);
  std::map<std::string, std::string> live;  // real → file, as the map should hold it
  for (const step& s : steps) {
    if (s.erase) {
      const bool had = live.erase(s.name) == 1;
      require(map.erase(s.name) == had);
      require(replay.erase(s.name) == had);
      require(!map.file_name_of(s.name).has_value());
      continue;
    }
    const std::size_t before = map.size();
    auto r = map.transform(s.name);
    auto again = replay.transform(s.name);
    require(r.ok() == again.ok());
    if (!r.ok()) {
      const bool mq_invalid = check_mq_name(s.name, 48, "name").has_value();
      require(mq_invalid == (r.error().code == std::make_error_code(std::errc::invalid_argument)));
      require(mq_invalid || r.error().code == std::make_error_code(std::errc::no_space_on_device));
      require(map.size() == before);
      require(!map.file_name_of(s.name).has_value());
      continue;
    }
    const std::string& file = r.value();
    require(file == again.value());
    require(is_valid_file_name(file, profile));
    require(map.real_name_of(file) == s.name);
    if (is_case_insensitive(profile)) require(map.real_name_of(file_name_key(file, profile)) == s.name);
    require(map.file_name_of(s.name) == file);
    auto it = live.find(s.name);
    if (it != live.end()) {
      require(it->second == file);  // idempotent
    } else {
      live.emplace(s.name, file);
    }
  }
  // Unique under the profile's case rule, every pair maps both ways.
  std::set<std::string> keys;
  require(map.size() == live.size());
  for (const auto& [real, file] : map.pairs()) {
    require(keys.insert(file_name_key(file, profile)).second);
    require(live.at(real) == file);
    require(map.real_name_of(file) == real);
  }
  require(map.pairs() == replay.pairs());
  // A reloaded catalog is the same map.
  file_name_map reloaded(profile, space);
  for (const auto& [real, file] : map.pairs()) {
    auto added = reloaded.add(real, file);
    require(added.ok() && added.value() == file);
  }
  require(reloaded.pairs() == map.pairs());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<step> steps = parse(data, size);
  for (const step& s : steps) check_free_functions(s.name);
  for (fs_profile profile : {fs_profile::posix, fs_profile::case_insensitive, fs_profile::fat83}) {
    for (name_space space : {name_space::queue_manager, name_space::object}) run(steps, profile, space);
  }
  return 0;
}
