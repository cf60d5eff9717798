#include "imsb/names/file_name.hpp"

#include "show_char.hpp"

namespace imsb::names {

namespace {

using detail::show_char;

constexpr std::size_t long_name_max = 255;  // POSIX NAME_MAX on Linux file systems; NTFS's limit
constexpr std::size_t fat_base_max = 8;
constexpr std::size_t fat_extension_max = 3;

char to_upper(char c) noexcept { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string at(std::size_t i) { return " at position " + std::to_string(i); }

// Windows device names stay devices whatever extension follows them ("NUL.TXT" is NUL).
bool is_device_name(std::string_view file_name) {
  const std::string_view base = file_name.substr(0, file_name.find('.'));
  std::string upper;
  for (char c : base) upper.push_back(to_upper(c));
  if (upper == "CON" || upper == "PRN" || upper == "AUX" || upper == "NUL") return true;
  return upper.size() == 4 && (upper.compare(0, 3, "COM") == 0 || upper.compare(0, 3, "LPT") == 0) &&
         upper[3] >= '1' && upper[3] <= '9';
}

bool is_fat_char(char c) noexcept {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  constexpr std::string_view specials = "!#$&'()-@^_`{}~";
  return specials.find(c) != std::string_view::npos;
}

std::optional<std::string> posix_problem(std::string_view name) {
  if (name.size() > long_name_max) {
    return std::to_string(name.size()) + " bytes; a posix file name has at most 255";
  }
  if (name == "." || name == "..") return "'" + std::string(name) + "' names a directory itself";
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '/' || name[i] == '\0')
      return show_char(name[i]) + at(i) + " is not allowed in a file name";
  }
  return std::nullopt;
}

std::optional<std::string> case_insensitive_problem(std::string_view name) {
  if (name.size() > long_name_max)
    return std::to_string(name.size()) + " characters; at most 255 are allowed";
  constexpr std::string_view refused = "<>:\"/\\|?*";
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (static_cast<unsigned char>(c) < 0x20 || refused.find(c) != std::string_view::npos) {
      return show_char(c) + at(i) + " is not allowed in a file name";
    }
    if (c == '%')
      return "'%'" + at(i) + " is not used in file names on this profile (docs/design/queue-manager.md [D])";
  }
  if (name.back() == '.' || name.back() == ' ')
    return "a file name must not end with " + show_char(name.back());
  if (is_device_name(name)) return "'" + std::string(name) + "' is a device name";
  return std::nullopt;
}

std::optional<std::string> fat83_problem(std::string_view name) {
  const std::size_t dot = name.find('.');
  const std::string_view base = name.substr(0, dot);
  if (base.empty()) return std::string("an 8.3 name needs a base of 1 to 8 characters before any '.'");
  if (base.size() > fat_base_max) {
    return "base of " + std::to_string(base.size()) + " characters; an 8.3 name has at most 8";
  }
  if (dot != std::string_view::npos) {
    const std::string_view extension = name.substr(dot + 1);
    if (extension.empty() || extension.size() > fat_extension_max) {
      return "extension of " + std::to_string(extension.size()) + " characters; an 8.3 name has 1 to 3";
    }
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i == dot) continue;
    if (!is_fat_char(name[i])) return show_char(name[i]) + at(i) + " is not allowed in an 8.3 name";
  }
  if (is_device_name(name)) return "'" + std::string(name) + "' is a device name";
  return std::nullopt;
}

}  // namespace

std::string_view to_string(fs_profile profile) noexcept {
  switch (profile) {
    case fs_profile::posix:
      return "posix";
    case fs_profile::case_insensitive:
      return "case_insensitive";
    case fs_profile::fat83:
      return "fat83";
  }
  return "unknown";
}

bool is_case_insensitive(fs_profile profile) noexcept { return profile != fs_profile::posix; }

std::string transform_chars(std::string_view real_name) {
  std::string out(real_name);
  for (char& c : out) {
    if (c == '.') {
      c = '!';
    } else if (c == '/') {
      c = '&';
    }
  }
  return out;
}

std::string untransform_chars(std::string_view file_name) {
  std::string out(file_name);
  for (char& c : out) {
    if (c == '!') {
      c = '.';
    } else if (c == '&') {
      c = '/';
    }
  }
  return out;
}

std::optional<std::string> file_name_problem(std::string_view file_name, fs_profile profile) {
  if (file_name.empty()) return std::string("a file name has at least one character");
  switch (profile) {
    case fs_profile::posix:
      return posix_problem(file_name);
    case fs_profile::case_insensitive:
      return case_insensitive_problem(file_name);
    case fs_profile::fat83:
      return fat83_problem(file_name);
  }
  return std::string("unknown file-system profile");
}

bool is_valid_file_name(std::string_view file_name, fs_profile profile) {
  return !file_name_problem(file_name, profile).has_value();
}

std::string file_name_key(std::string_view file_name, fs_profile profile) {
  std::string key(file_name);
  if (is_case_insensitive(profile)) {
    for (char& c : key) c = to_upper(c);
  }
  return key;
}

bool same_file(std::string_view a, std::string_view b, fs_profile profile) {
  return file_name_key(a, profile) == file_name_key(b, profile);
}

}  // namespace imsb::names
