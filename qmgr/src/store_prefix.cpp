// Where queue managers live (the prefix) and what kind of file system is there.

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "store_io.hpp"

namespace imsb::qmgr {

namespace detail {

namespace {

// A system folder whose mqs.ini is IBM MQ's (or cannot be read as ours) is IBM's prefix: our queue
// managers would be written into IBM's file, and dltmqm would act next to IBM's own [D].
bool holds_ibm_mqs_ini(const std::filesystem::path& system_dir) {
  const auto path = io::mqs_ini_path(system_dir);
  auto text = io::read_file(path);
  if (!text) return text.error().code != std::errc::no_such_file_or_directory;
  auto ini = io::parse_mqs_ini(*text, path.string());
  return !ini || ini->ibm_owned();
}

}  // namespace

result<prefix_info> default_prefix(const std::filesystem::path& system_dir,
                                   const std::optional<std::string>& home) {
  // IBM's default prefix on UNIX is /var/mqm [C: FILENAMES-V6]; we fall back to the user's home when it
  // cannot be used, so that crtmqm works without root, or when IBM MQ lives there [D].
  struct stat st {};
  if (::stat(system_dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode) && ::access(system_dir.c_str(), W_OK) == 0 && !holds_ibm_mqs_ini(system_dir))
      return prefix_info{system_dir, "/var/mqm (default)"};
  } else if (errno == ENOENT && ::access(system_dir.parent_path().c_str(), W_OK) == 0) {
    return prefix_info{system_dir, "/var/mqm (default)"};
  }
  if (!home || home->empty())
    return io::error_of(std::errc::no_such_file_or_directory, "prefix",
                        system_dir.string() +
                            " is not writable (or is IBM MQ's) and HOME is not set: give --prefix or "
                            "IMSBRIDGE_PREFIX");
  return prefix_info{std::filesystem::path(*home) / ".imsbridge", "$HOME/.imsbridge (default)"};
}

result<prefix_info> resolve_prefix(const std::optional<std::string>& option, const char* env_prefix,
                                   const std::filesystem::path& system_dir,
                                   const std::optional<std::string>& home) {
  const auto absolute = [](const std::string& p) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(p, ec);
    return ec ? std::filesystem::path(p) : abs;
  };
  if (option) {
    if (option->empty()) return io::error_of(std::errc::invalid_argument, "--prefix", "the prefix is empty");
    return prefix_info{absolute(*option), "--prefix"};
  }
  if (env_prefix != nullptr && *env_prefix != '\0')
    return prefix_info{absolute(env_prefix), "IMSBRIDGE_PREFIX"};
  return default_prefix(system_dir, home);
}

names::fs_profile decide_profile(bool upper_case_finds_file, bool long_name_kept) noexcept {
  if (!long_name_kept) return names::fs_profile::fat83;
  return upper_case_finds_file ? names::fs_profile::case_insensitive : names::fs_profile::posix;
}

}  // namespace detail

result<prefix_info> resolve_prefix(const std::optional<std::string>& option) {
  const char* home = std::getenv("HOME");
  return detail::resolve_prefix(option, std::getenv("IMSBRIDGE_PREFIX"), "/var/mqm",
                                home != nullptr ? std::optional<std::string>(home) : std::nullopt);
}

namespace {

// Removes the probe files whatever happens.
struct probe_files {
  std::vector<std::filesystem::path> made;
  ~probe_files() {
    for (const auto& p : made) ::unlink(p.c_str());
  }
};

std::string upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

bool listed(const std::filesystem::path& dir, const std::string& name) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (const dirent* e = ::readdir(d)) {
    if (name == e->d_name) {
      found = true;
      break;
    }
  }
  ::closedir(d);
  return found;
}

}  // namespace

result<names::fs_profile> detect_profile(const std::filesystem::path& dir) {
  probe_files probes;
  // The case probe's name is valid 8.3 so that it can be made on FAT as well.
  const unsigned pid = static_cast<unsigned>(::getpid());
  std::optional<std::string> lower;
  for (unsigned i = 0; i < 64 && !lower; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "imb%05x.tmp", (pid * 64U + i) & 0xFFFFFU);
    const auto path = dir / name;
    struct stat st {};
    if (::stat((dir / upper(name)).c_str(), &st) == 0) continue;  // taken, under some case
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return io::error_from_errno(path, "create probe file", errno);
    }
    ::close(fd);
    probes.made.push_back(path);
    lower = name;
  }
  if (!lower)
    return io::error_of(std::errc::file_exists, dir.string(), "no free name for the file-system probe");
  struct stat lower_st {};
  struct stat upper_st {};
  const bool upper_finds = ::stat((dir / *lower).c_str(), &lower_st) == 0 &&
                           ::stat((dir / upper(*lower)).c_str(), &upper_st) == 0 &&
                           lower_st.st_dev == upper_st.st_dev && lower_st.st_ino == upper_st.st_ino;

  // A 10.3 name: refused on FAT 8.3 (ENAMETOOLONG or EINVAL), or silently shortened (msdos
  // check=relaxed), which the folder listing shows.
  const std::string long_name = lower->substr(0, 8) + "xy.tmp";
  const auto long_path = dir / long_name;
  bool long_kept = true;
  const int fd = ::open(long_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == ENAMETOOLONG || errno == EINVAL) {
      long_kept = false;
    } else if (errno == EEXIST) {
      // Someone's file of that name, or, on a shortening FAT, our own case probe under its short name.
      long_kept = listed(dir, long_name);
    } else {
      return io::error_from_errno(long_path, "create probe file", errno);
    }
  } else {
    ::close(fd);
    probes.made.push_back(long_path);
    long_kept = listed(dir, long_name);
  }
  return detail::decide_profile(upper_finds, long_kept);
}

}  // namespace imsb::qmgr
