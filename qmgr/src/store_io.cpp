#include "store_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace imsb::qmgr::io {

namespace {

class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }
  // Closes now, reporting close's own error (a late write error on some file systems).
  int close_now() noexcept {
    const int rc = ::close(std::exchange(fd_, -1));
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

}  // namespace

result<done> fsync_folder(const std::filesystem::path& folder) {
  fd_guard fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return error_from_errno(folder, "open folder", errno);
  if (::fsync(fd.get()) != 0) return error_from_errno(folder, "fsync folder", errno);
  return done{};
}

decode_error error_from_errno(const std::filesystem::path& path, std::string_view what, int err) {
  return decode_error{std::error_code(err, std::generic_category()), path.string(), 0,
                      std::string(what) + ": " + std::strerror(err)};
}

decode_error error_from_code(const std::filesystem::path& path, std::string_view what, std::error_code ec) {
  // std::filesystem reports errno values in the system category; the generic one compares with std::errc
  // the same way and prints the same text.
  return error_from_errno(path, what, ec.value());
}

decode_error error_of(std::errc code, std::string field, std::string detail) {
  return decode_error{std::make_error_code(code), std::move(field), 0, std::move(detail)};
}

result<std::string> read_file(const std::filesystem::path& path) {
  fd_guard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return error_from_errno(path, "open", errno);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return error_from_errno(path, "read", errno);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

result<done> write_file_atomically(const std::filesystem::path& path, std::string_view text, bool* renamed) {
  if (renamed != nullptr) *renamed = false;
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  fd_guard fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return error_from_errno(tmp, "create", errno);
  const auto fail = [&tmp](std::string_view what, int err) {
    ::unlink(tmp.c_str());
    return error_from_errno(tmp, what, err);
  };
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write", errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return fail("fsync", errno);
  if (const int err = fd.close_now(); err != 0) return fail("close", err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename to " + path.string(), errno);
  if (renamed != nullptr) *renamed = true;
  return fsync_folder(path.parent_path());
}

result<done> ensure_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return error_from_errno(path, "create", errno);
  ::close(fd);
  return done{};
}

result<qmgr_lock> lock_prefix(const std::filesystem::path& prefix) {
  const int fd = ::open(prefix.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return error_from_errno(prefix, "open prefix", errno);
  qmgr_lock lock(fd);
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return error_from_errno(prefix, "flock prefix", errno);
  return lock;
}

}  // namespace imsb::qmgr::io
