#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <fstream>
#include <iterator>
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
  std::ifstream in(path, std::ios::binary);
  if (!in) return key_error(std::errc::no_such_file_or_directory, path, 0, "cannot open the key file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return key_error(std::errc::io_error, path, 0, "cannot read the key file");
  if (text.empty()) return key_error(std::errc::invalid_argument, path, 0, "the key file is empty");

  std::string_view line(text);
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  bool all_hex = !line.empty();
  for (char c : line) all_hex = all_hex && is_hex_digit(c);
  if (all_hex) {
    if (line.size() % 2 != 0) {
      return key_error(std::errc::invalid_argument, path, line.size() - 1,
                       "odd number of hex digits (" + std::to_string(line.size()) + ")");
    }
    if (line.size() < 2 * min_key_size) {
      return key_error(std::errc::invalid_argument, path, 0,
                       "hex key of " + std::to_string(line.size()) + " digits; at least " +
                           std::to_string(2 * min_key_size) + " (" + std::to_string(min_key_size) +
                           " bytes) needed");
    }
    bytes key;
    if (!from_hex(line, key)) return key_error(std::errc::invalid_argument, path, 0, "bad hex");
    return utoken_key(std::move(key));
  }
  // Raw bytes: the whole file, newline included, since a binary key may end in X'0A'.
  if (text.size() < min_key_size) {
    return key_error(std::errc::invalid_argument, path, 0,
                     "raw key of " + std::to_string(text.size()) + " bytes; at least " +
                         std::to_string(min_key_size) + " needed (or " + std::to_string(2 * min_key_size) +
                         " hex digits on one line)");
  }
  return utoken_key(bytes(text.begin(), text.end()));
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
