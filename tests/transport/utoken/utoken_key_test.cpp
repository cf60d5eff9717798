// The signing key of our emulated UTOKEN (spec/otma-xcf.md §1.6, §3.2 [D]; transport/utoken.hpp): sign and
// verify, every verdict, tampering, and the key file's formats and refusals.
#include "imsb/transport/utoken.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "imsb/otma/utoken.hpp"

namespace imsb::transport {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t t0 = 1700000000;

bytes key_bytes(std::uint8_t seed, std::size_t n = 32) {
  bytes k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = static_cast<std::uint8_t>(seed + i * 7);
  return k;
}

utoken_key make_key(std::uint8_t seed) {
  auto k = utoken_key::from_bytes(key_bytes(seed));
  EXPECT_TRUE(k.ok());
  return *k;
}

class key_file : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("utoken_key_test_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  fs::path dir_;
};

TEST(UtokenKey, SignedTokenVerifies) {
  const utoken_key key = make_key(1);
  const bytes token = key.sign("USER1", "GROUP1", t0, 300, 42);
  ASSERT_EQ(token.size(), 80u);
  EXPECT_EQ(key.verify(token, "USER1", "GROUP1", t0), token_verdict::verified);
  EXPECT_EQ(key.verify(token, "USER1", "GROUP1", t0 + 299), token_verdict::verified);
  // The message's names come trimmed or padded: both match.
  EXPECT_EQ(key.verify(token, "USER1   ", "GROUP1  ", t0 + 1), token_verdict::verified);
}

TEST(UtokenKey, TokenCarriesTheFieldsItWasSignedFor) {
  const bytes token = make_key(1).sign("USER1", "", t0, 60, 0x1122334455667788u);
  auto d = otma::decode_utoken(token);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->fields.user_id, "USER1   ");
  EXPECT_EQ(d->fields.group, "        ");
  EXPECT_EQ(d->fields.issued_at, t0);
  EXPECT_EQ(d->fields.valid_for, 60u);
  EXPECT_EQ(d->fields.nonce, 0x1122334455667788u);
}

TEST(UtokenKey, TagIsHmacSha256OfTheSignedPart) {
  // Known answer, computed apart from OpenSSL (Python's hmac over the layout of otma/utoken.hpp): the
  // bridge and the emulator agree on the MAC only if both compute exactly this.
  const bytes token = make_key(3).sign("U", "G", t0, 1, 7);
  EXPECT_EQ(to_hex(bytes_view(token.data(), 38)),
            "50C9E440404040404040C740404040404040000000006553F100000000010000000000000007");
  EXPECT_EQ(to_hex(bytes_view(token.data() + 38, 32)),
            "299005349C54D7119A9896B544F827F8125DB5C2CF65FC9D41511CBEBB84AABA");
  EXPECT_NE(make_key(3).sign("U", "G", t0, 1, 8), token);  // another nonce, another tag
}

TEST(UtokenKey, MalformedToken) {
  const utoken_key key = make_key(1);
  bytes token = key.sign("USER1", "", t0, 300, 1);
  EXPECT_EQ(key.verify(bytes_view(token.data(), 79), "USER1", "", t0), token_verdict::malformed);
  EXPECT_EQ(key.verify(bytes{}, "USER1", "", t0), token_verdict::malformed);
  token[1] = 0x01;  // a RACF token's version byte
  EXPECT_EQ(key.verify(token, "USER1", "", t0), token_verdict::malformed);
}

TEST(UtokenKey, OtherKeyIsBadSignature) {
  const bytes token = make_key(1).sign("USER1", "GROUP1", t0, 300, 1);
  EXPECT_EQ(make_key(2).verify(token, "USER1", "GROUP1", t0), token_verdict::bad_signature);
  EXPECT_NE(token, make_key(2).sign("USER1", "GROUP1", t0, 300, 1));
}

TEST(UtokenKey, KeysDifferingInOneByteDiffer) {
  bytes k = key_bytes(9, 40);
  auto a = utoken_key::from_bytes(k);
  k[39] ^= 0x01;
  auto b = utoken_key::from_bytes(k);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(b->verify(a->sign("U", "", t0, 10, 0), "U", "", t0), token_verdict::bad_signature);
}

TEST(UtokenKey, AnyOneBitFlipFails) {
  const utoken_key key = make_key(5);
  const bytes token = key.sign("USER1", "GROUP1", t0, 300, 99);
  for (std::size_t i = 0; i < token.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      bytes t = token;
      t[i] = static_cast<std::uint8_t>(t[i] ^ (1u << bit));
      const token_verdict v = key.verify(t, "USER1", "GROUP1", t0);
      EXPECT_NE(v, token_verdict::verified) << "byte " << i << " bit " << bit;
      // Bytes 0-1 and the padding make it malformed (or a NUL name); the rest fail the MAC.
      if (i >= 2 && i < 70 && t[i] != 0) {
        EXPECT_EQ(v, token_verdict::bad_signature) << "byte " << i << " bit " << bit;
      }
    }
  }
}

TEST(UtokenKey, WrongUserOrGroup) {
  const utoken_key key = make_key(1);
  const bytes token = key.sign("USER1", "GROUP1", t0, 300, 1);
  EXPECT_EQ(key.verify(token, "USER2", "GROUP1", t0), token_verdict::wrong_user);
  EXPECT_EQ(key.verify(token, "USER1", "GROUP2", t0), token_verdict::wrong_user);
  EXPECT_EQ(key.verify(token, "USER1", "", t0), token_verdict::wrong_user);
  EXPECT_EQ(key.verify(token, "user1", "GROUP1", t0), token_verdict::wrong_user);  // as sent, no folding
  const bytes no_group = key.sign("USER1", "", t0, 300, 1);
  EXPECT_EQ(key.verify(no_group, "USER1", "GROUP1", t0), token_verdict::wrong_user);
  EXPECT_EQ(key.verify(no_group, "USER1", "", t0), token_verdict::verified);
}

TEST(UtokenKey, Expired) {
  const utoken_key key = make_key(1);
  const bytes token = key.sign("USER1", "", t0, 300, 1);
  EXPECT_EQ(key.verify(token, "USER1", "", t0 + 300), token_verdict::expired);
  EXPECT_EQ(key.verify(token, "USER1", "", t0 + 100000), token_verdict::expired);
  // From the future beyond the allowed clock skew.
  EXPECT_EQ(key.verify(token, "USER1", "", t0 - utoken_key::max_clock_skew), token_verdict::verified);
  EXPECT_EQ(key.verify(token, "USER1", "", t0 - utoken_key::max_clock_skew - 1), token_verdict::expired);
  // Zero validity is never valid; the largest issued-at and validity do not overflow.
  EXPECT_EQ(key.verify(key.sign("USER1", "", t0, 0, 1), "USER1", "", t0), token_verdict::expired);
  const bytes far = key.sign("USER1", "", ~std::uint64_t{0}, ~std::uint32_t{0}, 1);
  EXPECT_EQ(key.verify(far, "USER1", "", ~std::uint64_t{0}), token_verdict::verified);
  EXPECT_EQ(key.verify(far, "USER1", "", t0), token_verdict::expired);
}

TEST(UtokenKey, VerdictNames) {
  EXPECT_EQ(to_string(token_verdict::verified), "verified");
  EXPECT_EQ(to_string(token_verdict::malformed), "malformed");
  EXPECT_EQ(to_string(token_verdict::bad_signature), "bad_signature");
  EXPECT_EQ(to_string(token_verdict::expired), "expired");
  EXPECT_EQ(to_string(token_verdict::wrong_user), "wrong_user");
}

TEST(UtokenKey, ShortKeyRefused) {
  auto k = utoken_key::from_bytes(bytes(31, 1));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().detail.find("at least 32"), std::string::npos) << k.error().detail;
}

TEST_F(key_file, HexKeyOnOneLine) {
  const std::string hex64 = "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";
  const fs::path p = write("hex.key", hex64 + "\n");
  auto from_file = utoken_key::load(p);
  ASSERT_TRUE(from_file.ok()) << from_file.error().to_string();
  bytes raw;
  ASSERT_TRUE(from_hex(hex64, raw));
  auto direct = utoken_key::from_bytes(raw);
  ASSERT_TRUE(direct.ok());
  const bytes token = direct->sign("U", "", t0, 10, 0);
  EXPECT_EQ(from_file->verify(token, "U", "", t0), token_verdict::verified);
  auto crlf = utoken_key::load(write("crlf.key", hex64 + "\r\n"));
  ASSERT_TRUE(crlf.ok()) << crlf.error().to_string();
  EXPECT_EQ(crlf->verify(token, "U", "", t0), token_verdict::verified);
}

TEST_F(key_file, RawKeyBytes) {
  std::string raw(40, '\0');
  for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(0x80 + i);
  auto k = utoken_key::load(write("raw.key", raw));
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  auto direct = utoken_key::from_bytes(bytes(raw.begin(), raw.end()));
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(k->verify(direct->sign("U", "", t0, 10, 0), "U", "", t0), token_verdict::verified);
}

TEST_F(key_file, Errors) {
  auto missing = utoken_key::load(dir_ / "nope.key");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().field, (dir_ / "nope.key").string());
  EXPECT_NE(missing.error().detail.find("cannot open"), std::string::npos);

  auto empty = utoken_key::load(write("empty.key", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().detail.find("empty"), std::string::npos);

  auto short_hex = utoken_key::load(write("short_hex.key", std::string(62, 'a') + "\n"));
  ASSERT_FALSE(short_hex.ok());
  EXPECT_NE(short_hex.error().detail.find("hex key of 62 digits"), std::string::npos)
      << short_hex.error().detail;

  auto odd_hex = utoken_key::load(write("odd_hex.key", std::string(65, 'b')));
  ASSERT_FALSE(odd_hex.ok());
  EXPECT_NE(odd_hex.error().detail.find("odd number"), std::string::npos) << odd_hex.error().detail;
  EXPECT_EQ(odd_hex.error().offset, 64u);

  auto short_raw = utoken_key::load(write("short_raw.key", "not a long enough secret"));
  ASSERT_FALSE(short_raw.ok());
  EXPECT_NE(short_raw.error().detail.find("raw key of 24 bytes"), std::string::npos)
      << short_raw.error().detail;

  // Hex on two lines is not "one line": read as raw text, which is long enough.
  auto two_lines =
      utoken_key::load(write("two.key", std::string(32, 'c') + "\n" + std::string(32, 'd') + "\n"));
  EXPECT_TRUE(two_lines.ok());
}

}  // namespace
}  // namespace imsb::transport
