#pragma once
// The key that signs and verifies our emulated UTOKEN ([D], docs/design/otma.md): the bridge signs each
// message's token with it, imsemu verifies it with the same key (`--utoken-key FILE`). The token's layout is
// portable/include/imsb/otma/utoken.hpp; the MAC is HMAC-SHA256 (OpenSSL), compared in constant time.
//
// Key file [D]: a regular file (not a folder, FIFO or device) of at most max_file_size bytes. Its content
// with ASCII white space (blank, tab, CR, LF, VT, FF) trimmed from both ends decides: nothing but hex
// digits → a hex key, an even number of at least 64 digits, else refused; hex digits split by white space
// → refused (meant as hex, written wrongly); anything else → the whole file, untrimmed, as raw bytes, at
// least 32 of them. So a raw key must hold a byte that is neither a hex digit nor white space (a random
// 32-byte key does, but for odds far below 2^-64). The key is a secret: a file that group or others may
// read, write or run still loads, with readable_by_others() set for the program to warn (IMB5055W).
//
// Verification [D], first failure wins: the token does not decode → malformed; its tag is not the HMAC of
// its signed part → bad_signature; its user ID or group differs from the message's (blank padding and
// case as sent; no group on both sides is equal) → wrong_user; `now` outside
// [issued_at - max_clock_skew, issued_at + valid_for), or valid_for 0 → expired.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <utility>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"

namespace imsb::transport {

enum class token_verdict : std::uint8_t { verified, malformed, bad_signature, expired, wrong_user };
std::string_view to_string(token_verdict v) noexcept;  // "verified", "bad_signature", ...

class utoken_key {
 public:
  static constexpr std::size_t min_key_size = 32;          // bytes: as long as the SHA-256 output
  static constexpr std::uint64_t max_clock_skew = 60;      // seconds a token may come from the future [D]
  static constexpr std::size_t max_file_size = 64 * 1024;  // a key file larger than this is refused [D]

  // Errors: decode_error{code, field = the path, offset (into the file, where it applies), detail}; the
  // code is the errno of open/read (generic_category: EACCES, ENOENT, ...), is_a_directory for a folder,
  // invalid_argument for content refused. Never throws.
  static result<utoken_key> load(const std::filesystem::path& path);
  // The key itself (tests, and callers that hold it elsewhere); refuses fewer than min_key_size bytes.
  static result<utoken_key> from_bytes(bytes key);

  // The 80-byte token for user and group (CCSID 819 text, at most 8 characters each).
  bytes sign(std::string_view user, std::string_view group, std::uint64_t issued_at, std::uint32_t valid_for,
             std::uint64_t nonce) const;
  // `user` and `group`: those the message carries (its security-data subfields), `now` seconds since the
  // epoch.
  token_verdict verify(bytes_view token, std::string_view user, std::string_view group,
                       std::uint64_t now) const;

  // load(): the file's mode gave group or others any access (the program warns, IMB5055W); false for
  // from_bytes.
  bool readable_by_others() const noexcept { return open_to_others_; }
  // The key's bytes, for a holder that signs elsewhere (imsbridge hands them to its security_checker).
  const bytes& key_bytes() const noexcept { return key_; }

 private:
  explicit utoken_key(bytes key) : key_(std::move(key)) {}
  bytes key_;
  bool open_to_others_ = false;
};

}  // namespace imsb::transport
