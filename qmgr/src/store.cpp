// The on-disk store of one queue manager (store.hpp): its folder under <prefix>/qmgrs/, its object
// catalog and the files of its queues, namelists and processes (seeds/000, spec/mq.md §8, §9.7).

#include "imsb/qmgr/store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

// The queue manager's own folders [C] spec/mq.md §8.2, §9.7 (IBM's UNIX layout); qmanager holds the
// catalog [D].
constexpr const char* qmgr_folders[] = {"qmanager", "queues", "namelist", "procdef"};

fs::path qmgrs_of(const fs::path& prefix) { return prefix / "qmgrs"; }

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// Makes the object files match the catalog (see save()). Only ever touches the entries of the three
// object folders of `dir`.
result<done> sync_object_files(const fs::path& dir, const objects::object_catalog& catalog) {
  for (const auto family : file_families) {
    const fs::path folder = dir / std::string(objects::files_folder(family));
    std::error_code ec;
    fs::create_directory(folder, ec);
    if (ec) return io::error_from_code(folder, "create folder", ec);
    for (const auto* rec : catalog.list(family)) {
      const auto file = catalog.file_name_of(family, rec->name);
      if (!file)
        return io::error_of(std::errc::invalid_argument, catalog.qmgr_name(),
                            "the catalog has no file name for " + rec->name);
      const fs::path path = folder / *file;
      if (family == objects::object_family::queue) {
        // A folder per queue holding its queue file `q` [C] spec/mq.md §8.2 (QIITA-DSPMQFLS).
        fs::create_directory(path, ec);
        if (ec) return io::error_from_code(path, "create queue folder", ec);
        if (auto made = io::ensure_file(path / "q"); !made) return made.error();
      } else {
        if (fs::is_directory(fs::symlink_status(path, ec)))
          return io::error_of(std::errc::is_a_directory, path.string(),
                              "a folder stands where the file of " + rec->name + " belongs");
        if (auto made = io::ensure_file(path); !made) return made.error();
      }
    }
    // Entries no object names: what a deleted object left. A name the catalog's map knows (as the
    // profile compares names) is kept, so a case-folding file system never costs an object its file.
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!catalog.real_name_of(family, name)) stale.push_back(it->path());
    }
    if (ec) return io::error_from_code(folder, "list folder", ec);
    for (const auto& p : stale) {
      fs::remove_all(p, ec);  // never follows a symbolic link out of the folder
      if (ec) return io::error_from_code(p, "remove", ec);
    }
  }
  return done{};
}

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

// The folder name of a new queue manager: the 8.1 transformation under `profile`, made distinct from
// every folder under qmgrs/ — those mqs.ini records and any other (a leftover is never reused). The
// recorded pairs go into the map first, so that it picks the suffix the way IBM's rule 2 says
// (seeds/000, spec/mq.md §8.1 [C]); a pair the profile refuses (a name made under another profile) is
// left out of the map but its folder still counts as taken.
result<std::string> choose_directory(const fs::path& qmgrs, const std::vector<qmgr_entry>& entries,
                                     const std::string& name, names::fs_profile profile) {
  names::file_name_map map(profile, names::name_space::queue_manager);
  std::vector<std::string> taken;
  for (const auto& e : entries) {
    (void)map.add(e.name, e.directory);
    taken.push_back(e.directory);
  }
  std::error_code ec;
  if (fs::is_directory(qmgrs, ec)) {
    for (fs::directory_iterator it(qmgrs, ec), end; !ec && it != end; it.increment(ec))
      taken.push_back(it->path().filename().string());
    if (ec) return io::error_from_code(qmgrs, "list folder", ec);
  }
  const auto is_taken = [&](const std::string& dir) {
    for (const auto& t : taken) {
      // Taken on the profile's terms, and on the real file system's (this one is case sensitive).
      if (t == dir || names::same_file(t, dir, profile)) return true;
    }
    return false;
  };
  auto dir = map.transform(name);
  // Each round reserves the taken folder name under a placeholder real name ('%' names are valid MQ
  // names, but no queue manager of ours is called %TAKEN%n) and asks again; the map's suffixes run out
  // before this bound.
  for (std::size_t round = 0; dir && is_taken(*dir); ++round) {
    if (round > names::max_suffixes + 16)
      return io::error_of(std::errc::no_space_on_device, qmgrs.string(), "no free folder name for " + name);
    map.erase(name);
    const std::string placeholder = "%TAKEN%" + std::to_string(round);
    if (auto reserved = map.add(placeholder, *dir); !reserved) return reserved.error();
    dir = map.transform(name);
  }
  return dir;
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
  std::vector<qmgr_entry> entries;
  for (const auto& st : ini->qmgrs) {
    if (st.entry.name == name)
      return io::error_of(std::errc::file_exists, name, "queue manager " + name + " already exists");
    entries.push_back(st.entry);
  }
  const fs::path qmgrs = qmgrs_of(prefix);
  auto directory = choose_directory(qmgrs, entries, name, profile);
  if (!directory) return directory.error();

  std::error_code ec;
  if (!exists_no_follow(qmgrs)) {
    if (!fs::create_directory(qmgrs, ec) && ec) return io::error_from_code(qmgrs, "create folder", ec);
    undo.made(qmgrs, false);
  }
  queue_manager_store store(prefix, qmgr_entry{name, *directory, profile});
  // Not create_directory(p, ec): it succeeds on an existing folder, and this one must be new.
  if (::mkdir(store.dir_.c_str(), 0755) != 0) return io::error_from_errno(store.dir_, "create folder", errno);
  undo.made(store.dir_, true);
  for (const char* sub : qmgr_folders) {
    const fs::path p = store.dir_ / sub;
    if (!fs::create_directory(p, ec) && ec) return io::error_from_code(p, "create folder", ec);
  }
  if (auto lock_file = io::ensure_file(store.dir_ / "qmgr.lock"); !lock_file) return lock_file.error();
  if (auto saved = store.save(initial); !saved) return saved.error();

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
  auto entries = list_queue_managers(prefix);
  if (!entries) return entries.error();
  for (auto& e : *entries) {
    if (e.name == qmgr_name) return queue_manager_store(prefix, std::move(e));
  }
  return io::error_of(
      std::errc::no_such_file_or_directory, std::string(qmgr_name),
      "no queue manager " + std::string(qmgr_name) + " in " + io::mqs_ini_path(prefix).string());
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
  const auto st = std::find_if(ini->qmgrs.begin(), ini->qmgrs.end(),
                               [&](const io::mqs_ini::stanza& s) { return s.entry.name == qmgr_name; });
  if (st == ini->qmgrs.end())
    return io::error_of(
        std::errc::no_such_file_or_directory, std::string(qmgr_name),
        "no queue manager " + std::string(qmgr_name) + " in " + io::mqs_ini_path(prefix).string());
  const queue_manager_store store(prefix, st->entry);
  std::error_code ec;
  qmgr_lock lock;
  if (fs::is_directory(store.dir_, ec)) {
    auto taken = store.try_lock();
    if (!taken) return taken.error();
    lock = std::move(*taken);
    // The folder goes first: a failure here leaves the stanza, so dltmqm can be run again [D].
    fs::remove_all(store.dir_, ec);
    if (ec) return io::error_from_code(store.dir_, "remove", ec);
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < ini->lines.size(); ++i) {
    if (i < st->first_line || i >= st->end_line) lines.push_back(ini->lines[i]);
  }
  return io::write_mqs_ini(prefix, lines);
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
    return io::error_of(std::errc::invalid_argument, catalog_path().string(),
                        "refusing to save the catalog of " + catalog.qmgr_name() + " (" +
                            std::string(names::to_string(catalog.profile())) + ") as that of " + entry_.name +
                            " (" + std::string(names::to_string(entry_.profile)) + ")");
  if (auto written = io::write_file_atomically(catalog_path(), objects::encode_catalog(catalog)); !written)
    return written.error();
  return sync_object_files(dir_, catalog);
}

result<qmgr_lock> queue_manager_store::try_lock() const {
  const fs::path path = dir_ / "qmgr.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return io::error_from_errno(path, "open lock", errno);
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
