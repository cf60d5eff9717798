#pragma once
// The credential file of a queue manager: who may connect over TCP with a password [D].
// <qmgr dir>/qmanager/credentials, mode 0600, one line per user:
//   <user>:pbkdf2-sha256:<iterations>:<salt hex>:<hash hex>
// Salted and hashed (PBKDF2-HMAC-SHA256, OpenSSL; 16-byte random salt); the password is never stored.
// Kept by `mqpasswd` (daemon.hpp). A missing file means no one may connect with a password.

#include <filesystem>
#include <string>
#include <vector>

#include "imsb/core/result.hpp"

namespace imsb::qmgr::credentials {

// Adds or replaces the user's line (atomically: temporary file, fsync, rename; under an flock on
// <file>.lock, so that concurrent calls lose no update).
result<done> set_password(const std::filesystem::path& file, const std::string& user,
                          const std::string& password);
result<done> remove_user(const std::filesystem::path& file, const std::string& user);
// True only when the user has a line and the password matches (constant-time comparison). A missing or
// unreadable file, an unknown user and a wrong password all answer false.
bool check_password(const std::filesystem::path& file, const std::string& user, const std::string& password);
result<std::vector<std::string>> users(const std::filesystem::path& file);

}  // namespace imsb::qmgr::credentials
