// The credential file (credentials.hpp): PBKDF2-HMAC-SHA256 with a random salt, via OpenSSL [D].

#include "imsb/qmgr/credentials.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "store_io.hpp"

namespace imsb::qmgr::credentials {
namespace {

// OWASP's 2023 figure for PBKDF2-HMAC-SHA256 is 600000; a login is rare (one per connection) but tests
// and the bench connect often, so we take 100000 and record the count per line, so it can grow [D].
constexpr int default_iterations = 100000;
constexpr std::size_t salt_length = 16;
constexpr std::size_t hash_length = 32;
constexpr const char* scheme = "pbkdf2-sha256";

struct entry {
  std::string user;
  int iterations = 0;
  std::vector<std::uint8_t> salt;
  std::vector<std::uint8_t> hash;
};

std::string to_hex(const std::vector<std::uint8_t>& b) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (auto c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

std::optional<std::vector<std::uint8_t>> from_hex(const std::string& s) {
  if (s.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> out;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); i += 2) {
    int hi = nibble(s[i]), lo = nibble(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
  }
  return out;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

std::optional<entry> parse(const std::string& line) {
  auto p = split(line, ':');
  if (p.size() != 5 || p[0].empty() || p[1] != scheme) return std::nullopt;
  entry e;
  e.user = p[0];
  try {
    e.iterations = std::stoi(p[2]);
  } catch (...) {
    return std::nullopt;
  }
  auto salt = from_hex(p[3]);
  auto hash = from_hex(p[4]);
  if (e.iterations <= 0 || !salt || !hash || hash->size() != hash_length) return std::nullopt;
  e.salt = std::move(*salt);
  e.hash = std::move(*hash);
  return e;
}

bool valid_user(const std::string& user) {
  return !user.empty() && user.find_first_of(":\n\r") == std::string::npos;
}

std::optional<std::vector<std::uint8_t>> derive(const std::string& password,
                                                const std::vector<std::uint8_t>& salt, int iterations) {
  std::vector<std::uint8_t> out(hash_length);
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(), static_cast<int>(out.size()),
                        out.data()) != 1)
    return std::nullopt;
  return out;
}

// The file's lines; a missing file is an empty list.
result<std::vector<std::string>> read_lines(const std::filesystem::path& file) {
  auto text = io::read_file(file);
  if (!text) {
    if (text.error().code == std::errc::no_such_file_or_directory) return std::vector<std::string>{};
    return text.error();
  }
  std::vector<std::string> lines;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// Mode 0600 from the first byte: written to <file>.tmp.<pid>.<n> opened with 0600, fsynced, renamed, folder
// fsynced.
result<done> write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  // A name of this process and call: two writers never share a temporary file [D] (they are also
  // serialized by the lock file, file_lock below; a crash can leave one behind, harmless).
  static std::atomic<unsigned> serial{0};
  auto tmp = file;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return io::error_from_errno(tmp, "cannot create the credential file", errno);
  ::fchmod(fd, 0600);
  std::size_t off = 0;
  while (off < text.size()) {
    auto n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return io::error_from_errno(tmp, "cannot write the credential file", err);
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return io::error_from_errno(tmp, "cannot fsync the credential file", err);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return io::error_from_errno(file, "cannot replace the credential file", err);
  }
  auto folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  auto synced = io::fsync_folder(folder);
  if (!synced) return synced.error();
  return std::monostate{};
}

// An exclusive flock on <file>.lock for a read-modify-write of the file: two mqpasswd at once (threads or
// processes) must not lose an update [D]. A separate file, since the credential file itself is replaced
// by rename and a lock on it would lock the old inode.
class file_lock {
 public:
  static result<file_lock> take(const std::filesystem::path& file) {
    auto path = file;
    path += ".lock";
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return io::error_from_errno(path, "cannot open the credential lock file", errno);
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return io::error_from_errno(path, "cannot lock the credential file", err);
    }
    return file_lock(fd);
  }
  file_lock(file_lock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  file_lock& operator=(file_lock&&) = delete;
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
  }

 private:
  explicit file_lock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The salt an unknown user's password is derived against, so that a refusal costs the same PBKDF2
// whether or not the user has a line: the time of an answer must not tell which names exist [D].
const std::vector<std::uint8_t>& dummy_salt() {
  static const std::vector<std::uint8_t> salt{0x69, 0x6d, 0x73, 0x62, 0x2d, 0x6e, 0x6f, 0x2d,
                                              0x73, 0x75, 0x63, 0x68, 0x2d, 0x75, 0x73, 0x72};
  return salt;
}

}  // namespace

result<done> set_password(const std::filesystem::path& file, const std::string& user,
                          const std::string& password) {
  if (!valid_user(user))
    return io::error_of(std::errc::invalid_argument, "user", "a user name must be non-empty without ':'");
  std::vector<std::uint8_t> salt(salt_length);
  if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1)
    return io::error_of(std::errc::io_error, "RAND_bytes", "OpenSSL could not make a random salt");
  auto hash = derive(password, salt, default_iterations);
  if (!hash)
    return io::error_of(std::errc::io_error, "PKCS5_PBKDF2_HMAC", "OpenSSL could not hash the password");
  auto lock = file_lock::take(file);
  if (!lock) return lock.error();
  auto lines = read_lines(file);
  if (!lines) return lines.error();
  std::vector<std::string> out;
  for (const auto& l : *lines) {
    auto e = parse(l);
    if (!e || e->user != user) out.push_back(l);  // lines we cannot read are kept as they are
  }
  out.push_back(user + ":" + scheme + ":" + std::to_string(default_iterations) + ":" + to_hex(salt) + ":" +
                to_hex(*hash));
  return write_lines(file, out);
}

result<done> remove_user(const std::filesystem::path& file, const std::string& user) {
  auto lock = file_lock::take(file);
  if (!lock) return lock.error();
  auto lines = read_lines(file);
  if (!lines) return lines.error();
  std::vector<std::string> out;
  bool found = false;
  for (const auto& l : *lines) {
    auto e = parse(l);
    if (e && e->user == user) {
      found = true;
    } else {
      out.push_back(l);
    }
  }
  if (!found) return io::error_of(std::errc::no_such_file_or_directory, "user", "no such user: " + user);
  return write_lines(file, out);
}

bool check_password(const std::filesystem::path& file, const std::string& user, const std::string& password) {
  auto lines = read_lines(file);
  if (lines) {
    for (const auto& l : *lines) {
      auto e = parse(l);
      if (!e || e->user != user) continue;
      auto hash = derive(password, e->salt, e->iterations);
      return hash && CRYPTO_memcmp(hash->data(), e->hash.data(), hash_length) == 0;
    }
  }
  (void)derive(password, dummy_salt(), default_iterations);  // an unknown user costs as much (above)
  return false;
}

result<std::vector<std::string>> users(const std::filesystem::path& file) {
  auto lines = read_lines(file);
  if (!lines) return lines.error();
  std::vector<std::string> out;
  for (const auto& l : *lines) {
    if (auto e = parse(l)) out.push_back(e->user);
  }
  return out;
}

}  // namespace imsb::qmgr::credentials
