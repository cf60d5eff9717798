// The on-disk store of one queue manager (store.hpp): its folder under <prefix>/qmgrs/, its object
// catalog and the files of its queues, namelists and processes (IBM's file names [C: FILENAMES,
// FILENAMES-V6]; our layout [D], docs/design/queue-manager.md).

#include "imsb/qmgr/store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

#include "imsb/objects/catalog_text.hpp"
#include "store_io.hpp"

namespace imsb::qmgr {

namespace fs = std::filesystem;

// --- qmgr_lock ------------------------------------------------------------------------------------

qmgr_lock::qmgr_lock(qmgr_lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

qmgr_lock& qmgr_lock::operator=(qmgr_lock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

// Closing the last descriptor of the open file description releases the flock.
qmgr_lock::~qmgr_lock() {
  if (fd_ >= 0) ::close(fd_);
}

// --- helpers ----------------------------------------------------------------------------------------

namespace {

constexpr objects::object_family file_families[] = {
    objects::object_family::queue, objects::object_family::namelist, objects::object_family::process};

// The queue manager's own folders (IBM's UNIX layout [C: FILENAMES-V6, QIITA-DSPMQFLS]); qmanager holds
// the catalog [D].
constexpr const char* qmgr_folders[] = {"qmanager", "queues", "namelist", "procdef"};

fs::path qmgrs_of(const fs::path& prefix) { return prefix / "qmgrs"; }

// The first word of every catalog objects/catalog_text.cpp writes ("IMSBRIDGE-CATALOG 1") [D].
constexpr std::string_view objects_catalog_magic = "IMSBRIDGE-CATALOG";

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

std::string rel(objects::object_family family, const std::string& file) {
  return std::string(objects::files_folder(family)) + "/" + file;
}

// O_NOFOLLOW and O_EXCL (or O_TRUNC for a staged file): never writes through a symbolic link.
result<done> create_empty(const fs::path& path, bool truncate) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (truncate ? O_TRUNC : O_EXCL), 0644);
  if (fd < 0) return io::error_from_errno(path, "create", errno);
  ::close(fd);
  return done{};
}

// The object files of one queue manager made to match a catalog, in two halves around the catalog's
// rename (save) or back to back (reconcile). Only the three object folders of `dir` and their entries
// are touched, and no symbolic link is followed: a link where an object's file belongs is an error,
// a link no object names is removed as an entry (fs::remove_all does not follow links).
class object_files {
 public:
  // `before`: the catalog on disk, when it could be read (save), to tell a file name that now belongs
  // to another object; `honour_erased`: whether catalog.erased() marks objects as defined again.
  object_files(fs::path dir, const objects::object_catalog& catalog, const objects::object_catalog* before,
               bool honour_erased)
      : dir_(std::move(dir)), catalog_(catalog), before_(before), honour_erased_(honour_erased) {}
  object_files(const object_files&) = delete;
  object_files& operator=(const object_files&) = delete;

  // Creates what is missing, stages fresh files, fsyncs the folders it touched.
  result<done> prepare() {
    for (const auto family : file_families) {
      const fs::path folder = dir_ / std::string(objects::files_folder(family));
      std::error_code ec;
      const auto folder_st = fs::symlink_status(folder, ec);
      if (!fs::exists(folder_st)) {
        if (::mkdir(folder.c_str(), 0755) != 0) return io::error_from_errno(folder, "create folder", errno);
        made(folder, true);
        touched_.insert(dir_);
        report_.push_back("created " + std::string(objects::files_folder(family)));
      } else if (!fs::is_directory(folder_st) || fs::is_symlink(folder_st)) {
        return io::error_of(
            std::errc::not_a_directory, folder.string(),
            "not a folder (a file or a symbolic link stands where the object folder belongs)");
      }
      for (const auto* rec : catalog_.list(family)) {
        if (auto one = prepare_object(family, folder, *rec); !one) return one.error();
      }
    }
    return sync_touched();
  }

  // Puts staged files in place, empties fresh namelist and process files, removes the entries no
  // object names, fsyncs the folders it touched.
  result<done> commit() {
    for (const auto& [from, to] : staged_) {
      if (::rename(from.c_str(), to.c_str()) != 0)
        return io::error_from_errno(from, "rename to " + to.string(), errno);
      touched_.insert(to.parent_path());
    }
    staged_.clear();
    made_.clear();
    for (const auto& path : to_truncate_) {
      if (auto emptied = create_empty(path, true); !emptied) return emptied.error();
    }
    for (const auto family : file_families) {
      if (auto removed = remove_stale(family); !removed) return removed.error();
    }
    return sync_touched();
  }

  // Undoes what prepare() made (after a failure before the catalog's rename).
  void roll_back() noexcept {
    std::error_code ec;
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
      if (it->second) {
        fs::remove_all(it->first, ec);
      } else {
        fs::remove(it->first, ec);
      }
    }
    made_.clear();
    staged_.clear();
  }

  std::vector<std::string>& report() noexcept { return report_; }

 private:
  bool defined_again(objects::object_family family, const objects::object_record& rec,
                     const std::string& file) const {
    if (honour_erased_ && catalog_.erased().count({family, rec.name}) != 0) return true;
    // On a case-insensitive file system the freed name of a deleted "q1" can be the file of a new
    // "Q1": the catalog on disk says whose file it was.
    if (before_ != nullptr) {
      const auto owner = before_->real_name_of(family, file);
      return owner && *owner != rec.name;
    }
    return false;
  }

  result<done> prepare_object(objects::object_family family, const fs::path& folder,
                              const objects::object_record& rec) {
    const auto file = catalog_.file_name_of(family, rec.name);
    if (!file)
      return io::error_of(std::errc::invalid_argument, catalog_.qmgr_name(),
                          "the catalog has no file name for " + rec.name);
    const fs::path path = folder / *file;
    std::error_code ec;
    const auto st = fs::symlink_status(path, ec);
    const bool fresh = defined_again(family, rec, *file);
    if (family == objects::object_family::queue) {
      // A folder per queue holding its queue file `q` [C: QIITA-DSPMQFLS].
      if (!fs::exists(st)) {
        if (::mkdir(path.c_str(), 0755) != 0) return io::error_from_errno(path, "create queue folder", errno);
        made(path, true);
        touched_.insert(folder);
        if (auto q = create_empty(path / "q", false); !q) return q.error();
        touched_.insert(path);
        report_.push_back("created " + rel(family, *file));
        return done{};
      }
      if (!fs::is_directory(st) || fs::is_symlink(st))
        return io::error_of(
            std::errc::not_a_directory, path.string(),
            "a file or symbolic link stands where the folder of queue " + rec.name + " belongs");
      const fs::path q = path / "q";
      const auto q_st = fs::symlink_status(q, ec);
      if (fresh && fs::exists(q_st)) {
        // Deleted and defined again: its messages went with the old queue. Staged, so that a failure
        // before the catalog's rename leaves the old queue's file as it was.
        fs::path staged = q;
        staged += ".new";
        if (auto made_new = create_empty(staged, true); !made_new) return made_new.error();
        made(staged, false);
        staged_.emplace_back(staged, q);
        touched_.insert(path);
        return done{};
      }
      if (!fs::exists(q_st)) {
        if (auto made_q = create_empty(q, false); !made_q) return made_q.error();
        made(q, false);
        touched_.insert(path);
        report_.push_back("created " + rel(family, *file) + "/q");
        return done{};
      }
      if (!fs::is_regular_file(q_st))
        return io::error_of(
            std::errc::is_a_directory, q.string(),
            "a folder or symbolic link stands where the queue file of " + rec.name + " belongs");
      return done{};
    }
    if (!fs::exists(st)) {
      if (auto made_file = create_empty(path, false); !made_file) return made_file.error();
      made(path, false);
      touched_.insert(folder);
      report_.push_back("created " + rel(family, *file));
      return done{};
    }
    if (!fs::is_regular_file(st))
      return io::error_of(std::errc::is_a_directory, path.string(),
                          "a folder or symbolic link stands where the file of " + rec.name + " belongs");
    if (fresh) to_truncate_.push_back(path);
    return done{};
  }

  // Entries no object names: what a deleted object left. A name the catalog's map knows (as the
  // profile compares names) is kept, so a case-folding file system never costs an object its file.
  result<done> remove_stale(objects::object_family family) {
    const std::string folder_name(objects::files_folder(family));
    const fs::path folder = dir_ / folder_name;
    std::vector<fs::path> stale;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!catalog_.real_name_of(family, name)) {
        stale.push_back(it->path());
        continue;
      }
      // What a save killed between its steps left in a queue's folder.
      if (family == objects::object_family::queue && !it->is_symlink(ec) && it->is_directory(ec)) {
        const fs::path leftover = it->path() / "q.new";
        if (fs::exists(fs::symlink_status(leftover, ec))) stale.push_back(leftover);
      }
    }
    if (ec) return io::error_from_code(folder, "list folder", ec);
    for (const auto& p : stale) {
      fs::remove_all(p, ec);  // a symbolic link is removed, never followed
      if (ec) return io::error_from_code(p, "remove", ec);
      touched_.insert(p.parent_path());
      report_.push_back("removed " + folder_name + "/" + p.lexically_relative(folder).generic_string());
    }
    return done{};
  }

  // One fsync per touched folder, not one per file.
  result<done> sync_touched() {
    for (const auto& folder : touched_) {
      if (auto synced = io::fsync_folder(folder); !synced) return synced.error();
    }
    touched_.clear();
    return done{};
  }

  void made(fs::path p, bool recursive) { made_.emplace_back(std::move(p), recursive); }

  fs::path dir_;
  const objects::object_catalog& catalog_;
  const objects::object_catalog* before_;
  bool honour_erased_;
  std::vector<std::pair<fs::path, bool>> made_;        // path, whether a folder (removed recursively)
  std::vector<std::pair<fs::path, fs::path>> staged_;  // fresh file → the file it replaces
  std::vector<fs::path> to_truncate_;
  std::set<fs::path> touched_;
  std::vector<std::string> report_;
};

// Folders and files create() made, removed again in reverse order when it fails.
class undo_list {
 public:
  ~undo_list() {
    if (committed_) return;
    std::error_code ec;
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
      if (it->recursive) {
        fs::remove_all(it->path, ec);
      } else {
        fs::remove(it->path, ec);  // a folder: only when still empty
      }
    }
  }
  void made(fs::path p, bool recursive) { made_.push_back({std::move(p), recursive}); }
  void commit() noexcept { committed_ = true; }

 private:
  struct item {
    fs::path path;
    bool recursive;
  };
  std::vector<item> made_;
  bool committed_ = false;
};

// mkdir -p that records each folder it makes.
result<done> make_folders(const fs::path& path, undo_list& undo) {
  std::vector<fs::path> missing;
  for (fs::path p = path; !p.empty() && !exists_no_follow(p); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    std::error_code ec;
    if (!fs::create_directory(*it, ec) && ec) return io::error_from_code(*it, "create folder", ec);
    undo.made(*it, false);
  }
  return done{};
}

struct chosen_directory {
  std::string directory;
  std::vector<std::string> skipped_leftovers;  // folders no stanza records that had the name first
};

// The folder name of a new queue manager: IBM's name transformation under `profile`, made distinct from
// every folder under qmgrs/ — those mqs.ini records (ours and IBM's) and any other (a leftover is never
// reused, but reported). The recorded pairs go into the map first, so that it picks the suffix the way
// IBM's rule 2 says [C: FILENAMES-V6]; a pair the profile refuses (a name made under
// another profile, or IBM's) is left out of the map but its folder still counts as taken.
result<chosen_directory> choose_directory(const fs::path& qmgrs,
                                          const std::vector<io::mqs_ini::stanza>& stanzas,
                                          const std::string& name, names::fs_profile profile) {
  names::file_name_map map(profile, names::name_space::queue_manager);
  std::vector<std::string> recorded;
  for (const auto& st : stanzas) {
    if (st.entry.directory.empty()) continue;
    if (st.ours) (void)map.add(st.entry.name, st.entry.directory);
    recorded.push_back(st.entry.directory);
  }
  std::vector<std::string> on_disk;
  std::error_code ec;
  if (fs::is_directory(qmgrs, ec)) {
    for (fs::directory_iterator it(qmgrs, ec), end; !ec && it != end; it.increment(ec))
      on_disk.push_back(it->path().filename().string());
    if (ec) return io::error_from_code(qmgrs, "list folder", ec);
  }
  // Taken on the profile's terms, and on the real file system's (this one is case sensitive).
  const auto same = [&](const std::string& a, const std::string& b) {
    return a == b || names::same_file(a, b, profile);
  };
  const auto taken_in = [&](const std::vector<std::string>& list, const std::string& dir) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& t) { return same(t, dir); });
  };
  chosen_directory out;
  auto dir = map.transform(name);
  // Each round reserves the taken folder name under a placeholder real name ('%' names are valid MQ
  // names, but no queue manager of ours is called %TAKEN%n) and asks again; the map's suffixes run out
  // before this bound.
  for (std::size_t round = 0; dir && (taken_in(recorded, *dir) || taken_in(on_disk, *dir)); ++round) {
    if (round > names::max_suffixes + 16)
      return io::error_of(std::errc::no_space_on_device, qmgrs.string(), "no free folder name for " + name);
    for (const auto& d : on_disk) {
      if (same(d, *dir) && !taken_in(recorded, d) &&
          std::find(out.skipped_leftovers.begin(), out.skipped_leftovers.end(), d) ==
              out.skipped_leftovers.end())
        out.skipped_leftovers.push_back(d);
    }
    map.erase(name);
    const std::string placeholder = "%TAKEN%" + std::to_string(round);
    if (auto reserved = map.add(placeholder, *dir); !reserved) return reserved.error();
    dir = map.transform(name);
  }
  if (!dir) return dir.error();
  out.directory = *dir;
  return out;
}

decode_error foreign_qmgr(std::string_view name, const fs::path& prefix) {
  return io::error_of(std::errc::operation_not_permitted, std::string(name),
                      "queue manager " + std::string(name) +
                          " belongs to IBM MQ, not imsbridge (its stanza in " +
                          io::mqs_ini_path(prefix).string() + " has no Owner=imsbridge)");
}

decode_error no_such_qmgr(std::string_view name, const fs::path& prefix) {
  return io::error_of(std::errc::no_such_file_or_directory, std::string(name),
                      "no queue manager " + std::string(name) + " in " + io::mqs_ini_path(prefix).string());
}

// The phrases save() ends its errors with; save_replaced_catalog() looks for the first.
constexpr std::string_view catalog_replaced_note = "; the new catalog was saved (the change was kept)";
constexpr std::string_view catalog_kept_note = "; the old catalog is still in place (no change was kept)";

decode_error with_note(decode_error e, bool replaced) {
  e.detail += replaced ? catalog_replaced_note : catalog_kept_note;
  return e;
}

}  // namespace

// --- queue_manager_store ----------------------------------------------------------------------------

queue_manager_store::queue_manager_store(fs::path prefix, qmgr_entry entry)
    : prefix_(std::move(prefix)), entry_(std::move(entry)), dir_(qmgrs_of(prefix_) / entry_.directory) {}

fs::path queue_manager_store::catalog_path() const { return dir_ / "qmanager" / "QMQMOBJCAT"; }

result<queue_manager_store> queue_manager_store::create(const fs::path& prefix,
                                                        const objects::object_catalog& initial) {
  const std::string& name = initial.qmgr_name();
  const names::fs_profile profile = initial.profile();
  // The name's validity first, before anything is made (file_name_map checks the 8.1 name rule).
  {
    names::file_name_map check(profile, names::name_space::queue_manager);
    if (auto t = check.transform(name); !t) return t.error();
  }
  undo_list undo;
  if (auto made = make_folders(prefix, undo); !made) return made.error();
  auto prefix_lock = io::lock_prefix(prefix);
  if (!prefix_lock) return prefix_lock.error();
  auto ini = io::read_mqs_ini(prefix);
  if (!ini) return ini.error();
  if (const auto* st = ini->find(name)) {
    if (!st->ours) return foreign_qmgr(name, prefix);
    return io::error_of(std::errc::file_exists, name, "queue manager " + name + " already exists");
  }
  if (ini->ibm_owned())
    return io::error_of(
        std::errc::operation_not_permitted, io::mqs_ini_path(prefix).string(),
        "this mqs.ini is IBM MQ's (it has " +
            std::string(ini->has_all_queue_managers ? "an AllQueueManagers: stanza"
                                                    : "queue managers without Owner=imsbridge") +
            "): imsbridge does not add its queue managers to it; choose another prefix with "
            "--prefix or IMSBRIDGE_PREFIX");
  const fs::path qmgrs = qmgrs_of(prefix);
  auto chosen = choose_directory(qmgrs, ini->qmgrs, name, profile);
  if (!chosen) return chosen.error();

  std::error_code ec;
  if (!exists_no_follow(qmgrs)) {
    if (!fs::create_directory(qmgrs, ec) && ec) return io::error_from_code(qmgrs, "create folder", ec);
    undo.made(qmgrs, false);
  }
  queue_manager_store store(prefix, qmgr_entry{name, chosen->directory, profile});
  store.skipped_leftovers_ = std::move(chosen->skipped_leftovers);
  // Not create_directory(p, ec): it succeeds on an existing folder, and this one must be new.
  if (::mkdir(store.dir_.c_str(), 0755) != 0) return io::error_from_errno(store.dir_, "create folder", errno);
  undo.made(store.dir_, true);
  for (const char* sub : qmgr_folders) {
    const fs::path p = store.dir_ / sub;
    if (!fs::create_directory(p, ec) && ec) return io::error_from_code(p, "create folder", ec);
  }
  if (auto lock_file = create_empty(store.dir_ / "qmgr.lock", false); !lock_file) return lock_file.error();
  if (auto saved = store.save(initial); !saved) return saved.error();

  // Durable before mqs.ini names the queue manager: its folder's entries, its entry in qmgrs/, qmgrs/
  // in the prefix (save() synced the object folders and qmanager/).
  for (const fs::path& folder : {store.dir_, qmgrs, prefix}) {
    if (auto synced = io::fsync_folder(folder); !synced) return synced.error();
  }
  if (prefix.has_parent_path()) (void)io::fsync_folder(prefix.parent_path());  // when it made the prefix

  // Recorded last: until then no one can open the queue manager [D].
  std::vector<std::string> lines = ini->lines;
  if (lines.empty()) {
    lines.push_back("#* mqs.ini of imsbridge: one QueueManager stanza per queue manager of this prefix *#");
  }
  if (!lines.back().empty()) lines.emplace_back();
  for (auto& l : io::format_stanza(store.entry_, prefix)) lines.push_back(std::move(l));
  if (auto written = io::write_mqs_ini(prefix, lines); !written) return written.error();
  undo.commit();
  return store;
}

result<queue_manager_store> queue_manager_store::open(const fs::path& prefix, std::string_view qmgr_name) {
  auto ini = io::read_mqs_ini(prefix);
  if (!ini) return ini.error();
  const auto* st = ini->find(qmgr_name);
  if (st == nullptr) return no_such_qmgr(qmgr_name, prefix);
  if (!st->ours) return foreign_qmgr(qmgr_name, prefix);
  return queue_manager_store(prefix, st->entry);
}

result<done> queue_manager_store::remove(const fs::path& prefix, std::string_view qmgr_name) {
  auto prefix_lock = io::lock_prefix(prefix);
  if (!prefix_lock) {
    if (prefix_lock.error().code == std::errc::no_such_file_or_directory)
      return io::error_of(
          std::errc::no_such_file_or_directory, std::string(qmgr_name),
          "no queue manager " + std::string(qmgr_name) + " (no prefix " + prefix.string() + ")");
    return prefix_lock.error();
  }
  auto ini = io::read_mqs_ini(prefix);
  if (!ini) return ini.error();
  const auto* st = ini->find(qmgr_name);
  if (st == nullptr) return no_such_qmgr(qmgr_name, prefix);
  if (!st->ours) return foreign_qmgr(qmgr_name, prefix);
  const queue_manager_store store(prefix, st->entry);
  const fs::path qmgrs = qmgrs_of(prefix);
  std::error_code ec;
  const auto dir_st = fs::symlink_status(store.dir_, ec);
  std::optional<fs::path> trash;
  qmgr_lock lock;
  if (fs::is_symlink(dir_st))
    return io::error_of(std::errc::operation_not_permitted, store.dir_.string(),
                        "the folder of queue manager " + store.name() +
                            " is a symbolic link; not deleted (remove it by hand)");
  if (fs::exists(dir_st)) {
    // Only a folder that holds our catalog is ours to delete [D].
    auto catalog = io::read_file(store.catalog_path());
    if (!catalog || catalog->compare(0, objects_catalog_magic.size(), objects_catalog_magic) != 0)
      return io::error_of(std::errc::operation_not_permitted, store.dir_.string(),
                          "not deleted: " + store.catalog_path().string() +
                              (catalog ? " does not begin " + std::string(objects_catalog_magic)
                                       : " cannot be read (" + catalog.error().detail + ")") +
                              ", so this folder may not be an imsbridge queue manager's");
    auto taken = store.try_lock();
    if (taken) {
      lock = std::move(*taken);
    } else if (taken.error().code != std::errc::no_such_file_or_directory) {
      return taken.error();  // busy, or an I/O error
    }
    // Renamed while the lock is held: whoever tries the lock from now on finds no qmgr.lock.
    fs::path candidate = qmgrs / (".deleting." + store.entry_.directory + "." + std::to_string(::getpid()));
    for (int n = 1; exists_no_follow(candidate); ++n)
      candidate = qmgrs / (".deleting." + store.entry_.directory + "." + std::to_string(::getpid()) + "." +
                           std::to_string(n));
    if (::rename(store.dir_.c_str(), candidate.c_str()) != 0)
      return io::error_from_errno(store.dir_, "rename to " + candidate.string(), errno);
    trash = candidate;
    (void)io::fsync_folder(qmgrs);
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < ini->lines.size(); ++i) {
    if (i < st->first_line || i >= st->end_line) lines.push_back(ini->lines[i]);
  }
  if (auto written = io::write_mqs_ini(prefix, lines); !written) {
    // Put the folder back so that the stanza still describes it and dltmqm can be run again.
    if (trash && ::rename(trash->c_str(), store.dir_.c_str()) != 0) {
      decode_error e = written.error();
      e.detail += "; its folder was left as " + trash->string();
      return e;
    }
    return written.error();
  }
  if (trash) {
    fs::remove_all(*trash, ec);
    if (ec) {
      decode_error e = io::error_from_code(*trash, "remove", ec);
      e.detail += " (queue manager " + store.name() + " is no longer recorded; remove this folder by hand)";
      return e;
    }
    (void)io::fsync_folder(qmgrs);
  }
  return done{};
}

std::optional<fs::path> queue_manager_store::object_path(const objects::object_catalog& catalog,
                                                         objects::object_family family,
                                                         std::string_view real_name) const {
  const std::string_view folder = objects::files_folder(family);
  if (folder.empty()) return std::nullopt;
  const auto file = catalog.file_name_of(family, real_name);
  if (!file) return std::nullopt;
  return dir_ / std::string(folder) / *file;
}

result<objects::object_catalog> queue_manager_store::load() const {
  const fs::path path = catalog_path();
  auto text = io::read_file(path);
  if (!text) return text.error();
  auto catalog = objects::decode_catalog(*text);
  if (!catalog) {
    decode_error err = catalog.error();
    err.field = path.string() + " " + err.field;
    return err;
  }
  if (catalog->qmgr_name() != entry_.name || catalog->profile() != entry_.profile)
    return io::error_of(std::errc::invalid_argument, path.string(),
                        "the catalog is of queue manager " + catalog->qmgr_name() + " (" +
                            std::string(names::to_string(catalog->profile())) + "), mqs.ini says " +
                            entry_.name + " (" + std::string(names::to_string(entry_.profile)) + ")");
  return catalog;
}

result<done> queue_manager_store::save(const objects::object_catalog& catalog) const {
  if (catalog.qmgr_name() != entry_.name || catalog.profile() != entry_.profile)
    return with_note(
        io::error_of(std::errc::invalid_argument, catalog_path().string(),
                     "refusing to save the catalog of " + catalog.qmgr_name() + " (" +
                         std::string(names::to_string(catalog.profile())) + ") as that of " + entry_.name +
                         " (" + std::string(names::to_string(entry_.profile)) + ")"),
        false);
  // The catalog on disk, when there is one, says whose file each file name was.
  auto before = load();
  object_files files(dir_, catalog, before ? &*before : nullptr, true);
  if (auto prepared = files.prepare(); !prepared) {
    files.roll_back();
    return with_note(prepared.error(), false);
  }
  bool replaced = false;
  if (auto written = io::write_file_atomically(catalog_path(), objects::encode_catalog(catalog), &replaced);
      !written) {
    if (!replaced) files.roll_back();
    return with_note(written.error(), replaced);
  }
  if (auto committed = files.commit(); !committed) return with_note(committed.error(), true);
  return done{};
}

result<done> queue_manager_store::save(objects::object_catalog& catalog) const {
  auto saved = save(static_cast<const objects::object_catalog&>(catalog));
  if (saved) catalog.clear_erased();
  return saved;
}

bool queue_manager_store::save_replaced_catalog(const decode_error& save_error) noexcept {
  return save_error.detail.find(catalog_replaced_note) != std::string::npos;
}

result<std::vector<std::string>> queue_manager_store::reconcile(
    const objects::object_catalog& catalog) const {
  if (catalog.qmgr_name() != entry_.name || catalog.profile() != entry_.profile)
    return io::error_of(
        std::errc::invalid_argument, catalog_path().string(),
        "refusing to reconcile the files of " + entry_.name + " with the catalog of " + catalog.qmgr_name());
  object_files files(dir_, catalog, nullptr, false);
  if (auto prepared = files.prepare(); !prepared) return prepared.error();
  if (auto committed = files.commit(); !committed) return committed.error();
  return std::move(files.report());
}

result<qmgr_lock> queue_manager_store::try_lock() const {
  const fs::path path = dir_ / "qmgr.lock";
  // No O_CREAT: only create() makes the lock file (see remove()).
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      const bool folder_there = exists_no_follow(dir_);
      return io::error_of(std::errc::no_such_file_or_directory, path.string(),
                          folder_there
                              ? "queue manager folder incomplete: " + path.string() +
                                    " is missing; run dltmqm " + entry_.name + " to remove it"
                              : "queue manager folder incomplete: " + dir_.string() +
                                    " is missing; run dltmqm " + entry_.name + " to remove its record");
    }
    return io::error_from_errno(path, "open lock", err);
  }
  qmgr_lock lock(fd);
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    if (errno == EWOULDBLOCK)
      return io::error_of(std::errc::device_or_resource_busy, path.string(),
                          "queue manager " + entry_.name + " is in use (running, or being edited)");
    return io::error_from_errno(path, "flock", errno);
  }
  return lock;
}

bool queue_manager_store::locked_by_other() const {
  const auto lock = try_lock();
  return !lock && lock.error().code == std::errc::device_or_resource_busy;
}

}  // namespace imsb::qmgr
