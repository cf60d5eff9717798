#pragma once
// File names on the file systems a queue manager's files can live on, and the character step of the
// MQ name transformation (IBM's "Understanding WebSphere MQ file names" [C: FILENAMES-V6, FILENAMES];
// docs/design/queue-manager.md). The catalog-driven step that makes a name valid and unique is
// file_name_map (file_name_map.hpp).
//
// The file system is a parameter so that every path of the transformation (truncation, suffixes,
// case collisions) runs and is tested on Linux; the queue manager uses fs_profile::posix there.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace imsb::names {

enum class fs_profile : std::uint8_t {
  // Case sensitive; a name is 1–255 bytes, any byte but '/' and NUL, not "." or "..".
  posix,
  // NTFS-like: case insensitive (and case preserving); 1–255 characters; no control characters and
  // none of < > : " / \ | ? *; no trailing '.' or blank; not a device name (CON PRN AUX NUL COM1–9
  // LPT1–9, with or without an extension). '%' is refused too [D] (docs/design/queue-manager.md: names
  // with '%' take the truncate-and-suffix path on case-insensitive and restricted file systems; IBM
  // documents nothing, and '%' is special to Windows command shells).
  case_insensitive,
  // FAT 8.3 [D]: case insensitive; a base of 1–8 characters, then optionally '.' and an extension of
  // 1–3; characters A–Z a–z 0–9 ! # $ & ' ( ) - @ ^ _ ` { } ~ (the DOS short-name set without '%',
  // for the reason above, and without bytes above X'7F', whose meaning depends on the OEM code page).
  // Lowercase is accepted: the file system stores the name upper case and compares without case, and
  // IBM's own FAT example is the lowercase `queue!ma` [C: FILENAMES-V6]. Not a device name, as above.
  fat83,
};
std::string_view to_string(fs_profile profile) noexcept;
bool is_case_insensitive(fs_profile profile) noexcept;

// Rule 1 of the transformation [C: FILENAMES-V6, FILENAMES]: '.' becomes '!', '/' becomes '&';
// every other character is kept. Applied to queue-manager and object names alike, as observed
// paths on Linux show [I: CHEF-IIB, QIITA-DSPMQFLS].
std::string transform_chars(std::string_view real_name);
// The inverse: '!' becomes '.', '&' becomes '/'. Exact for any file name rule 1 alone produced
// (MQ names contain neither '!' nor '&'); for generated names ask file_name_map::real_name_of.
std::string untransform_chars(std::string_view file_name);

// Why `file_name` is not a valid name of one file (no directory part) on `profile`, or std::nullopt.
std::optional<std::string> file_name_problem(std::string_view file_name, fs_profile profile);
bool is_valid_file_name(std::string_view file_name, fs_profile profile);

// The key under which the file system compares names: ASCII upper case on the case-insensitive
// profiles, the name itself on posix. Two names are the same file when their keys are equal.
std::string file_name_key(std::string_view file_name, fs_profile profile);
bool same_file(std::string_view a, std::string_view b, fs_profile profile);

}  // namespace imsb::names
