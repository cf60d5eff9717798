#pragma once
// The MQ name transformation with its memory: real object names ↔ file names in one directory (IBM's
// "Understanding WebSphere MQ file names" [C: FILENAMES-V6]; docs/design/queue-manager.md). portable/ does no
// I/O, so the map works over a snapshot of the names already in use; the queue manager loads it from its
// persisted catalog with add(), records each new pair that transform() returns, and dspmqfls turns file names
// back into real names with real_name_of().
//
// The algorithm, for a name not yet in the map:
//  1. Rule 1: transform_chars ('.' → '!', '/' → '&') [C: FILENAMES-V6]. If the result is a valid
//     file name on the profile and no name in the map is the same file, that is the file name.
//  2. Otherwise "the name is still not valid" [C]. "Valid" includes "not already the file of another
//     name": that is how names that differ only in case are told apart on file systems that are not
//     case sensitive, which IBM states without saying how ([C: FILENAMES] statement, [D] method).
//     Rule 2 says: truncate to eight characters; append a three-character numeric suffix [C]. We
//     apply the two remedies in turn, re-checking after each [D]:
//       a. the stem — the first 8 characters (queue-manager names), see below for objects — is the
//          file name if it is valid and free. This is IBM's own FAT example: `queue.manager` becomes
//          `queue!ma`, with no suffix [C: FILENAMES-V6], and a literal "truncate and always append"
//          cannot produce it. So the first name to claim a stem gets it plain;
//       b. else stem + ".NNN" with the smallest NNN in 000..999 that is free. The suffix takes the
//          8.3 extension's place on FAT, which is why it is written after a '.', on every profile:
//          rule 1 removes every '.', so a '.' in a file name marks a generated name and a generated
//          name can never collide with a name rule 1 produces later or on another profile [D];
//       c. when all 1000 are taken, transform() fails with std::errc::no_space_on_device.
//  Stems are made valid for the profile: a character the profile refuses ('%' on the non-posix
//  profiles [D]) becomes '#', which no MQ name contains; a stem that is a device name (CON, LPT1, ...)
//  gets a '#' appended [D].
//
// Name spaces. Queue-manager names and object names (queues, processes, namelists) are transformed
// separately: each directory has its own map. They differ in the stem (IBM [C: FILENAMES-V6]: "there are
// only a few queue manager names on each machine, [but] there can be a large number of other objects"):
//  - queue_manager: the first 8 characters of the rule-1 result [C: FILENAMES-V6];
//  - object: "When a new name is generated ... there is no simple relationship with the original
//    object name" [C: FILENAMES-V6]. The stem is '#' and 7 base-32 characters (0-9 A-V) of a
//    64-bit FNV-1a hash of the real name [D]: queues such as APP.ORDERS.0001 ... APP.ORDERS.5000 share
//    their first 8 characters, and 1000 suffixes per stem would run out where a hash does not.
//    The hash is over the name's bytes, so it is the same on every platform and byte order.
//
// Deterministic: the same sequence of add() and transform() calls gives the same file names.
// The map never holds two real names whose files are the same under the profile's case rule.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/names/file_name.hpp"

namespace imsb::names {

enum class name_space : std::uint8_t { queue_manager, object };
std::string_view to_string(name_space space) noexcept;

// Suffixes per stem: 000..999 (rule 2's "three-character numeric suffix" [C]).
inline constexpr std::size_t max_suffixes = 1000;

class file_name_map {
 public:
  file_name_map(fs_profile profile, name_space space);

  // The file name of `real_name`: the one already recorded, or a new one, recorded before it is
  // returned. Errors (decode_error.field "real_name"):
  //  - std::errc::invalid_argument: not a valid MQ name of this name space (1–48 characters of the
  //    MQ set [C: NAMING-OTHER]; `offset` is the offending character, `detail` the rule's reason);
  //  - std::errc::no_space_on_device: every suffix of the stem is taken (`detail` names the stem).
  result<std::string> transform(std::string_view real_name);

  // Loads one pair of a persisted catalog. Errors: std::errc::invalid_argument when either name is
  // not valid (the real name for this name space, the file name for the profile; field "real_name"
  // or "file_name"); std::errc::file_exists when the real name is already mapped to another file or
  // the file is already another name's (on this profile's case rule). Adding a pair that is already
  // there is a no-op that succeeds, so a catalog can be loaded twice. Returns the file name.
  result<std::string> add(std::string_view real_name, std::string_view file_name);

  // Forgets a name (its object was deleted), which frees its file name. False if it was not mapped.
  // O(log n): a queue manager with 20000 queues deletes them one DELETE at a time.
  bool erase(std::string_view real_name);

  // Lookups; no name is created. real_name_of compares file names as the profile does, so on a
  // case-insensitive profile "QUEUE!MA" finds the name recorded as `queue!ma`.
  std::optional<std::string> file_name_of(std::string_view real_name) const;
  std::optional<std::string> real_name_of(std::string_view file_name) const;

  // (real name, file name) in the order they were added, for persisting the catalog. The vector is
  // a cache, rebuilt (O(n)) on the first call after an erase, so a script of many DELETEs pays once;
  // the reference is valid until the map next changes. Not safe to call from two threads at once.
  const std::vector<std::pair<std::string, std::string>>& pairs() const;
  std::size_t size() const noexcept { return by_real_.size(); }
  fs_profile profile() const noexcept { return profile_; }
  name_space space() const noexcept { return space_; }

  // The stem rule 2 starts from (see above); exposed for tests and for dspmqfls to explain a name.
  std::string stem_of(std::string_view real_name) const;

 private:
  using sequence = std::uint64_t;  // insertion order; never reused, so erasing renumbers nothing

  bool is_free(std::string_view file_name) const;
  std::string record(std::string_view real_name, std::string file_name);

  fs_profile profile_;
  name_space space_;
  sequence next_sequence_ = 0;
  std::map<sequence, std::pair<std::string, std::string>> by_sequence_;  // the pairs, in order added
  std::map<std::string, sequence, std::less<>> by_real_;                 // real name → its pair
  std::map<std::string, sequence, std::less<>> by_file_key_;             // file_name_key → its pair
  mutable std::vector<std::pair<std::string, std::string>> pairs_;       // by_sequence_'s values
  mutable bool pairs_stale_ = false;  // an erase happened since pairs_ was last in step
};

}  // namespace imsb::names
