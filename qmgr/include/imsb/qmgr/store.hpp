#pragma once
// Where a queue manager lives on disk and how its object catalog and object files are kept there
// (IBM's file names [C: FILENAMES, FILENAMES-V6]; our layout [D], docs/design/queue-manager.md):
//
//   <prefix>/mqs.ini                           the queue managers of this prefix: one QueueManager stanza
//                                              each (Name=, Directory=) as IBM's mqs.ini [I], marked as
//                                              ours by Owner=imsbridge and FileSystem= [D]
//   <prefix>/qmgrs/<transformed QM>/           the queue manager's directory (IBM's name rules)
//       qmanager/QMQMOBJCAT                    the object catalog (objects/catalog_text.hpp) [D] name
//       queues/<transformed Q>/q               a folder per queue, holding its queue file [C: QIITA-DSPMQFLS]
//       namelist/<transformed NL>              a file per namelist
//       procdef/<transformed PROCESS>          a file per process
//       qmgr.lock                              held (flock) by whoever has the queue manager: a running
//                                              queue manager, or runmqsc while it edits a stopped one;
//                                              made by create() only (never re-made by a lock attempt)
//   <prefix>/qmgrs/.deleting.<dir>.<pid>       a queue manager dltmqm is removing (renamed under its lock)
//   Channels, listeners and storage classes are not files ([C: FILENAMES-V6]: "channels are not affected").
//
// <prefix> is --prefix, else IMSBRIDGE_PREFIX (our stand-in for mqs.ini's DefaultPrefix), else /var/mqm
// when it is writable (or can be made) and its mqs.ini, if any, is not IBM MQ's, else $HOME/.imsbridge [D].
//
// A QueueManager stanza without Owner=imsbridge is IBM MQ's ("foreign"): it is kept in the file as it is,
// but never listed, opened or removed, and a prefix whose mqs.ini is IBM's (a foreign stanza or IBM's
// AllQueueManagers: stanza) gets no queue manager of ours [D].

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/names/file_name.hpp"
#include "imsb/objects/object.hpp"

namespace imsb::qmgr {

using imsb::done;

struct prefix_info {
  std::filesystem::path path;
  std::string source;  // "--prefix", "IMSBRIDGE_PREFIX", "/var/mqm (default)", "$HOME/.imsbridge (default)"
};
// Picks the prefix as above; `option` is --prefix when given. Creates nothing.
result<prefix_info> resolve_prefix(const std::optional<std::string>& option);

// The file-system profile of the folder `dir` (which exists): case_insensitive when a file created with
// a lower-case name is found under its upper-case name, fat83 when a 9-character name cannot be created,
// else posix. Leaves nothing behind.
result<names::fs_profile> detect_profile(const std::filesystem::path& dir);

// "posix", "case_insensitive", "fat83" (names::to_string's words) → the profile; nullopt otherwise.
std::optional<names::fs_profile> fs_profile_from_string(std::string_view text) noexcept;

struct qmgr_entry {
  std::string name;       // the real queue-manager name
  std::string directory;  // its transformed folder name under qmgrs/
  names::fs_profile profile = names::fs_profile::posix;
};
// The queue managers of ours recorded in <prefix>/mqs.ini (none when the file does not exist); foreign
// stanzas are left out.
result<std::vector<qmgr_entry>> list_queue_managers(const std::filesystem::path& prefix);

// An exclusive flock on a queue manager's qmgr.lock, released by the destructor (or by the process's
// death, so a kill -9 never leaves a queue manager locked).
class qmgr_lock {
 public:
  qmgr_lock() = default;
  explicit qmgr_lock(int fd) noexcept : fd_(fd) {}
  qmgr_lock(qmgr_lock&& other) noexcept;
  qmgr_lock& operator=(qmgr_lock&& other) noexcept;
  qmgr_lock(const qmgr_lock&) = delete;
  qmgr_lock& operator=(const qmgr_lock&) = delete;
  ~qmgr_lock();
  bool held() const noexcept { return fd_ >= 0; }
  // The locked descriptor (-1 when not held): a dup of it keeps the flock held past this object, as
  // strmqm does to remove its pid file under the lock when the start fails (daemon.cpp).
  int native_handle() const noexcept { return fd_; }

 private:
  int fd_ = -1;
};

class queue_manager_store {
 public:
  // crtmqm: records the queue manager in mqs.ini (its folder name transformed by the 8.1 rules under
  // `profile`, distinct from every other queue manager's), makes its folders, writes `initial` as its
  // catalog and makes its object files. Errors: std::errc::file_exists when a queue manager of that name
  // exists; std::errc::invalid_argument for a bad name; std::errc::operation_not_permitted when the name
  // is an IBM MQ queue manager's or the prefix's mqs.ini is IBM's (the detail says to choose another
  // prefix with --prefix or IMSBRIDGE_PREFIX); I/O errors with the path in `field` and the system's text
  // in `detail`. On error nothing is left behind. Folders under qmgrs/ that no stanza records (what a
  // crtmqm killed midway, or a dltmqm, left) are never reused: see skipped_leftovers().
  // The new folder, qmgrs/ and the prefix are fsynced before mqs.ini records the queue manager.
  static result<queue_manager_store> create(const std::filesystem::path& prefix,
                                            const objects::object_catalog& initial);
  // An existing queue manager; std::errc::no_such_file_or_directory when there is none of that name,
  // std::errc::operation_not_permitted ("queue manager X belongs to IBM MQ, not imsbridge") when the
  // name is in a foreign stanza.
  static result<queue_manager_store> open(const std::filesystem::path& prefix, std::string_view qmgr_name);
  // dltmqm: removes the folder and the mqs.ini stanza. std::errc::device_or_resource_busy when the queue
  // manager's lock is held (it is running, or being edited); std::errc::operation_not_permitted for a
  // foreign stanza's name, and when the folder's catalog does not begin "IMSBRIDGE-CATALOG" or the
  // folder is a symbolic link (nothing is deleted then). Under the lock the folder is renamed to
  // qmgrs/.deleting.<dir>.<pid>, so that a runmqsc starting meanwhile finds no qmgr.lock (try_lock
  // fails) instead of editing a folder being deleted; then the stanza goes, then the renamed folder.
  // A missing qmgr.lock does not stop it (no one can hold a lock on a file that does not exist).
  static result<done> remove(const std::filesystem::path& prefix, std::string_view qmgr_name);

  const std::string& name() const noexcept { return entry_.name; }
  names::fs_profile profile() const noexcept { return entry_.profile; }
  const std::filesystem::path& directory() const noexcept { return dir_; }  // <prefix>/qmgrs/<transformed>
  std::filesystem::path catalog_path() const;
  // After create(): the folders under qmgrs/ that no mqs.ini stanza records and that create() skipped
  // because they had the name the queue manager's folder would have had (leftovers of a crtmqm killed
  // midway, or of a failed dltmqm), so that crtmqm can warn about them; empty after open().
  const std::vector<std::string>& skipped_leftovers() const noexcept { return skipped_leftovers_; }
  // The file or folder of an object of a file family (queue: the folder), from the catalog's file name;
  // nullopt for families that are not files or names not in the catalog.
  std::optional<std::filesystem::path> object_path(const objects::object_catalog& catalog,
                                                   objects::object_family family,
                                                   std::string_view real_name) const;

  result<objects::object_catalog> load() const;
  // Makes the object files match the catalog and writes it atomically, in an order that never leaves
  // the catalog naming an object without its file [D]:
  //   1. creates the folder and empty `q` file of each new queue and the file of each new namelist and
  //      process; an object deleted and defined again (in catalog.erased() and in the catalog, or whose
  //      file name belonged to another object in the catalog on disk) gets an empty file: for a queue a
  //      fresh `q.new`, put in place of `q` in step 3; fsyncs each folder it touched;
  //   2. replaces the catalog (temporary file, fsync, rename, fsync of the folder);
  //   3. puts the fresh files in place (namelist and process files are emptied here: their definition
  //      lives in the catalog), removes the files and folders of objects no longer in the catalog, fsyncs
  //      each folder it touched.
  // A failure in 1 or 2 undoes what 1 made and leaves the old catalog and every old file as they were.
  // Whether the catalog was replaced is in the error's detail, and save_replaced_catalog(error) says so.
  // The const overload leaves catalog.erased() alone: the caller clears it (clear_erased()) after a
  // successful save, or a later save of the same catalog empties those files again. The non-const one
  // clears it itself when the save succeeds.
  result<done> save(const objects::object_catalog& catalog) const;
  result<done> save(objects::object_catalog& catalog) const;
  // For an error of save(): true when the new catalog was in place before the failure (the change was
  // kept; only putting files in place, removing stale ones or an fsync failed), false when the old
  // catalog is still there and no change was kept.
  static bool save_replaced_catalog(const decode_error& save_error) noexcept;

  // Repairs the object files after a crash or a hand edit (runmqsc calls it under the lock right after
  // load()): creates each missing folder and file of an object in the catalog, empty, and removes the
  // entries of queues/, namelist/ and procdef/ that no object names (and a `q.new` a crashed save left
  // in a queue's folder). Never touches anything outside those three folders and never follows a
  // symbolic link (a link is removed as an entry, never entered). Returns one line per repair, e.g.
  // "created queues/APP!IN", "removed queues/GHOST"; empty when everything matched.
  result<std::vector<std::string>> reconcile(const objects::object_catalog& catalog) const;

  // Whether another process holds the queue manager's lock (running, or edited by runmqsc). flock locks
  // belong to an open file description, not to a process: a qmgr_lock this same process holds counts as
  // "another" too (the check opens the file anew), so a process never needs to ask about its own lock.
  bool locked_by_other() const;
  // Takes the lock without waiting; std::errc::device_or_resource_busy when another process holds it
  // (or this process, through another qmgr_lock: see locked_by_other);
  // std::errc::no_such_file_or_directory when qmgr.lock or the folder is missing ("queue manager folder
  // incomplete ... run dltmqm X to remove its record"): the lock file is made by create() only, so a
  // lock attempt never re-creates part of a folder that dltmqm is removing.
  result<qmgr_lock> try_lock() const;

 private:
  queue_manager_store(std::filesystem::path prefix, qmgr_entry entry);
  std::filesystem::path prefix_;
  qmgr_entry entry_;
  std::filesystem::path dir_;
  std::vector<std::string> skipped_leftovers_;
};

namespace detail {
// resolve_prefix's default branch with its candidates given, so that tests need not touch /var/mqm or
// $HOME: `system_dir` when it is a writable folder whose mqs.ini (if any) is not IBM MQ's (no
// AllQueueManagers: stanza, no QueueManager stanza without Owner=imsbridge, and readable), or does not
// exist and its parent is writable (access(W_OK)); else <home>/.imsbridge;
// std::errc::no_such_file_or_directory when `home` is nullopt or empty. `source` says which ("/var/mqm
// (default)" or "$HOME/.imsbridge (default)").
result<prefix_info> default_prefix(const std::filesystem::path& system_dir,
                                   const std::optional<std::string>& home);
// resolve_prefix with its environment given: `option` (--prefix), else `env_prefix` (IMSBRIDGE_PREFIX;
// nullptr or "" when unset), else default_prefix(system_dir, home).
result<prefix_info> resolve_prefix(const std::optional<std::string>& option, const char* env_prefix,
                                   const std::filesystem::path& system_dir,
                                   const std::optional<std::string>& home);
// detect_profile's decision from its two probes: a name longer than 8.3 that could not be created (or
// was stored under another name) means fat83, whatever the case test said (FAT is case insensitive too);
// else a lower-case file found under its upper-case name means case_insensitive; else posix.
names::fs_profile decide_profile(bool upper_case_finds_file, bool long_name_kept) noexcept;
}  // namespace detail

}  // namespace imsb::qmgr
