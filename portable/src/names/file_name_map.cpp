#include "imsb/names/file_name_map.hpp"

#include <system_error>

#include "imsb/names/name_rules.hpp"

namespace imsb::names {

namespace {

constexpr std::size_t qmgr_stem_length = 8;   // "truncate it to eight characters" [C: FILENAMES]
constexpr std::size_t object_hash_chars = 7;  // '#' + 7 = an 8-character stem, as for queue managers

// 64-bit FNV-1a over the name's bytes: byte-order independent, so a catalog written on s390x names
// the same files as one written on x86-64.
std::uint64_t fnv1a64(std::string_view s) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

std::string suffixed(const std::string& stem, std::size_t n) {
  std::string s = stem;
  s.push_back('.');
  s.push_back(static_cast<char>('0' + n / 100));
  s.push_back(static_cast<char>('0' + n / 10 % 10));
  s.push_back(static_cast<char>('0' + n % 10));
  return s;
}

decode_error error(std::errc code, std::string field, std::size_t offset, std::string detail) {
  return decode_error{std::make_error_code(code), std::move(field), offset, std::move(detail)};
}

// Queue-manager names and object names are both 1–48 MQ characters [C: NAMING-V6]; the
// reason text says which name space refused the name.
name_check check_real_name(std::string_view real_name, name_space space) {
  return space == name_space::queue_manager ? check_queue_manager_name(real_name, qmgr_platform::distributed)
                                            : check_mq_name(real_name, 48, "object name");
}

}  // namespace

std::string_view to_string(name_space space) noexcept {
  return space == name_space::queue_manager ? "queue_manager" : "object";
}

file_name_map::file_name_map(fs_profile profile, name_space space) : profile_(profile), space_(space) {}

std::string file_name_map::stem_of(std::string_view real_name) const {
  std::string stem;
  if (space_ == name_space::object) {
    // "no simple relationship with the original object name" [C: FILENAMES-V6]; hash [D].
    constexpr std::string_view base32 = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
    std::uint64_t h = fnv1a64(real_name);
    stem.push_back('#');
    for (std::size_t i = 0; i < object_hash_chars; ++i) {
      stem.push_back(base32[h & 0x1F]);
      h >>= 5;
    }
    return stem;
  }
  stem = transform_chars(real_name.substr(0, qmgr_stem_length));
  if (profile_ != fs_profile::posix) {
    for (char& c : stem) {
      if (c == '%') c = '#';  // [D] (docs/design/queue-manager.md); '#' is in no MQ name
    }
  }
  // A stem such as CON or LPT1 would make every suffixed name a device too ("CON.000" is CON).
  if (!is_valid_file_name(stem, profile_) && is_valid_file_name(stem + "#", profile_)) stem.push_back('#');
  return stem;
}

result<std::string> file_name_map::transform(std::string_view real_name) {
  if (auto problem = check_real_name(real_name, space_)) {
    return error(std::errc::invalid_argument, "real_name", problem->position, problem->reason);
  }
  if (auto it = by_real_.find(real_name); it != by_real_.end()) return by_sequence_.at(it->second).second;

  // Rule 1 [C: FILENAMES].
  std::string candidate = transform_chars(real_name);
  if (is_valid_file_name(candidate, profile_) && is_free(candidate))
    return record(real_name, std::move(candidate));

  // Rule 2, remedies in turn (file_name_map.hpp): the plain stem, then the first free suffix.
  const std::string stem = stem_of(real_name);
  if (is_valid_file_name(stem, profile_) && is_free(stem)) return record(real_name, stem);
  for (std::size_t n = 0; n < max_suffixes; ++n) {
    std::string name = suffixed(stem, n);
    if (is_valid_file_name(name, profile_) && is_free(name)) return record(real_name, std::move(name));
  }
  return error(std::errc::no_space_on_device, "real_name", 0,
               "all " + std::to_string(max_suffixes) + " file names " + stem + ".000 to " + stem +
                   ".999 are in use on the " + std::string(to_string(profile_)) +
                   " profile; no file name is left for '" + std::string(real_name) + "'");
}

result<std::string> file_name_map::add(std::string_view real_name, std::string_view file_name) {
  if (auto problem = check_real_name(real_name, space_)) {
    return error(std::errc::invalid_argument, "real_name", problem->position, problem->reason);
  }
  if (auto problem = file_name_problem(file_name, profile_)) {
    return error(std::errc::invalid_argument, "file_name", 0,
                 "'" + std::string(file_name) + "' on the " + std::string(to_string(profile_)) +
                     " profile: " + *problem);
  }
  if (auto it = by_real_.find(real_name); it != by_real_.end()) {
    const std::string& recorded = by_sequence_.at(it->second).second;
    if (same_file(recorded, file_name, profile_)) return recorded;
    return error(std::errc::file_exists, "real_name", 0,
                 "'" + std::string(real_name) + "' is already the name of file '" + recorded + "', not of '" +
                     std::string(file_name) + "'");
  }
  if (auto it = by_file_key_.find(file_name_key(file_name, profile_)); it != by_file_key_.end()) {
    return error(std::errc::file_exists, "file_name", 0,
                 "file '" + std::string(file_name) + "' already belongs to '" +
                     by_sequence_.at(it->second).first + "'");
  }
  return record(real_name, std::string(file_name));
}

bool file_name_map::erase(std::string_view real_name) {
  auto it = by_real_.find(real_name);
  if (it == by_real_.end()) return false;
  auto entry = by_sequence_.find(it->second);
  by_file_key_.erase(file_name_key(entry->second.second, profile_));
  by_sequence_.erase(entry);
  by_real_.erase(it);
  pairs_stale_ = true;
  return true;
}

const std::vector<std::pair<std::string, std::string>>& file_name_map::pairs() const {
  if (pairs_stale_) {
    pairs_.clear();
    pairs_.reserve(by_sequence_.size());
    for (const auto& entry : by_sequence_) pairs_.push_back(entry.second);
    pairs_stale_ = false;
  }
  return pairs_;
}

std::optional<std::string> file_name_map::file_name_of(std::string_view real_name) const {
  auto it = by_real_.find(real_name);
  if (it == by_real_.end()) return std::nullopt;
  return by_sequence_.at(it->second).second;
}

std::optional<std::string> file_name_map::real_name_of(std::string_view file_name) const {
  auto it = by_file_key_.find(file_name_key(file_name, profile_));
  if (it == by_file_key_.end()) return std::nullopt;
  return by_sequence_.at(it->second).first;
}

bool file_name_map::is_free(std::string_view file_name) const {
  return by_file_key_.find(file_name_key(file_name, profile_)) == by_file_key_.end();
}

std::string file_name_map::record(std::string_view real_name, std::string file_name) {
  const sequence seq = next_sequence_++;
  by_real_.emplace(std::string(real_name), seq);
  by_file_key_.emplace(file_name_key(file_name, profile_), seq);
  by_sequence_.emplace_hint(by_sequence_.end(), seq, std::make_pair(std::string(real_name), file_name));
  // While no erase is pending the cache is in step and appending keeps it so; otherwise the next
  // pairs() rebuilds it from by_sequence_, which already holds this pair.
  if (!pairs_stale_) pairs_.emplace_back(std::string(real_name), file_name);
  return file_name;
}

}  // namespace imsb::names
