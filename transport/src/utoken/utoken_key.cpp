#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "imsb/codepage/codepage.hpp"
#include "imsb/otma/utoken.hpp"
#include "imsb/transport/utoken.hpp"

namespace imsb::transport {

namespace {

namespace L = otma::utoken_layout;
using tag_bytes = std::array<std::uint8_t, L::tag_size>;

decode_error key_error(std::errc code, const std::filesystem::path& path, std::size_t offset,
                       std::string detail) {
  return decode_error{std::make_error_code(code), path.string(), offset, std::move(detail)};
}

constexpr std::string_view ascii_space = " \t\n\v\f\r";

bool is_ascii_space(char c) noexcept { return ascii_space.find(c) != std::string_view::npos; }

bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The name as the token holds it: 8 characters, cut or blank padded, then without trailing blanks.
std::string name_value(std::string_view text) {
  return std::string(codepage::field_value(codepage::pad_field(text, L::name_size)));
}

}  // namespace

std::string_view to_string(token_verdict v) noexcept {
  switch (v) {
    case token_verdict::verified:
      return "verified";
    case token_verdict::malformed:
      return "malformed";
    case token_verdict::bad_signature:
      return "bad_signature";
    case token_verdict::expired:
      return "expired";
    case token_verdict::wrong_user:
      return "wrong_user";
  }
  return "?";
}

result<utoken_key> utoken_key::from_bytes(bytes key) {
  if (key.size() < min_key_size) {
    return decode_error{std::make_error_code(std::errc::invalid_argument), "utoken_key", 0,
                        "key of " + std::to_string(key.size()) + " bytes; at least " +
                            std::to_string(min_key_size) + " needed"};
  }
  return utoken_key(std::move(key));
}

result<utoken_key> utoken_key::load(const std::filesystem::path& path) {
  // POSIX rather than a stream: the error is the real errno (EACCES is not ENOENT), the file must be a
  // regular one (a folder opens, then fails or throws on read), and its mode comes from the same open file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    return decode_error{std::error_code(err, std::generic_category()), path.string(), 0,
                        "cannot open the key file: " + std::generic_category().message(err)};
  }
  struct fd_closer {
    int fd;
    ~fd_closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    return decode_error{std::error_code(err, std::generic_category()), path.string(), 0,
                        "cannot stat the key file: " + std::generic_category().message(err)};
  }
  if (!S_ISREG(st.st_mode)) {
    return key_error(S_ISDIR(st.st_mode) ? std::errc::is_a_directory : std::errc::invalid_argument, path, 0,
                     "not a regular file");
  }
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      return decode_error{std::error_code(err, std::generic_category()), path.string(), text.size(),
                          "cannot read the key file: " + std::generic_category().message(err)};
    }
    if (n == 0) break;
    if (text.size() > max_file_size) {
      return key_error(std::errc::file_too_large, path, text.size(),
                       "the key file is larger than " + std::to_string(max_file_size) + " bytes");
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  if (text.empty()) return key_error(std::errc::invalid_argument, path, 0, "the key file is empty");

  // Blanks, tabs and line ends around the content are not part of a hex key (a trailing blank or an
  // extra empty line must not turn a hex key into a short raw text key).
  const std::size_t first = text.find_first_not_of(ascii_space);
  if (first == std::string::npos) {
    return key_error(std::errc::invalid_argument, path, 0, "the key file holds only white space");
  }
  const std::size_t last = text.find_last_not_of(ascii_space);
  const std::string_view content = std::string_view(text).substr(first, last - first + 1);
  bool all_hex = true;
  bool hex_and_space = true;
  for (char c : content) {
    all_hex = all_hex && is_hex_digit(c);
    hex_and_space = hex_and_space && (is_hex_digit(c) || is_ascii_space(c));
  }
  if (all_hex) {
    if (content.size() % 2 != 0) {
      return key_error(std::errc::invalid_argument, path, first + content.size() - 1,
                       "odd number of hex digits (" + std::to_string(content.size()) + ")");
    }
    if (content.size() < 2 * min_key_size) {
      return key_error(std::errc::invalid_argument, path, first,
                       "hex key of " + std::to_string(content.size()) + " digits; at least " +
                           std::to_string(2 * min_key_size) + " (" + std::to_string(min_key_size) +
                           " bytes) needed");
    }
    bytes key;
    if (!from_hex(content, key)) return key_error(std::errc::invalid_argument, path, first, "bad hex");
    utoken_key k(std::move(key));
    k.open_to_others_ = (st.st_mode & (S_IRWXG | S_IRWXO)) != 0;
    return k;
  }
  // Hex digits split by white space: meant as hex, and read as raw text it would be a weaker key than
  // intended; refused rather than guessed. (A random raw key is never only hex digits and white space,
  // but for odds far below 2^-64.)
  if (hex_and_space) {
    return key_error(std::errc::invalid_argument, path, first + content.find_first_of(ascii_space),
                     "hex digits split by white space; write the hex key on one line");
  }
  // Raw bytes: the whole file, white space included, since a binary key may begin or end with such bytes.
  if (text.size() < min_key_size) {
    return key_error(std::errc::invalid_argument, path, 0,
                     "raw key of " + std::to_string(text.size()) + " bytes; at least " +
                         std::to_string(min_key_size) + " needed (or " + std::to_string(2 * min_key_size) +
                         " hex digits on one line)");
  }
  utoken_key k(bytes(text.begin(), text.end()));
  k.open_to_others_ = (st.st_mode & (S_IRWXG | S_IRWXO)) != 0;
  return k;
}

namespace {

tag_bytes hmac_sha256(const bytes& key, const bytes& data) {
  tag_bytes tag{};
  unsigned int len = 0;
  // A key of at least 32 bytes fits an int; HMAC() fails only on allocation failure, which leaves a zero
  // tag that verifies nothing (no token's tag is all zeros but for odds of 2^-256).
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(), tag.data(),
           &len) == nullptr ||
      len != tag.size()) {
    tag.fill(0);
  }
  return tag;
}

}  // namespace

bytes utoken_key::sign(std::string_view user, std::string_view group, std::uint64_t issued_at,
                       std::uint32_t valid_for, std::uint64_t nonce) const {
  otma::utoken_fields f;
  f.user_id = std::string(user);
  f.group = std::string(group);
  f.issued_at = issued_at;
  f.valid_for = valid_for;
  f.nonce = nonce;
  const tag_bytes tag = hmac_sha256(key_, otma::utoken_signed_part(f));
  return otma::encode_utoken(f, bytes_view(tag.data(), tag.size()));
}

token_verdict utoken_key::verify(bytes_view token, std::string_view user, std::string_view group,
                                 std::uint64_t now) const {
  auto d = otma::decode_utoken(token);
  if (!d) return token_verdict::malformed;
  const tag_bytes expected = hmac_sha256(key_, d->signed_part);
  // Constant time: the position of the first wrong byte must not leak through timing.
  if (CRYPTO_memcmp(expected.data(), d->tag.data(), expected.size()) != 0)
    return token_verdict::bad_signature;
  if (name_value(d->fields.user_id) != name_value(user) || name_value(d->fields.group) != name_value(group))
    return token_verdict::wrong_user;
  const std::uint64_t issued = d->fields.issued_at;
  const bool too_early = issued > max_clock_skew && now < issued - max_clock_skew;
  // issued + valid_for without overflow: valid while now - issued < valid_for.
  const bool too_late = d->fields.valid_for == 0 || (now >= issued && now - issued >= d->fields.valid_for);
  if (too_early || too_late) return token_verdict::expired;
  return token_verdict::verified;
}

}  // namespace imsb::transport
