// The signing key of our emulated UTOKEN ([D], docs/design/otma.md; imsb/transport/utoken.hpp): sign and
// verify, every verdict, tampering, and the key file's formats and refusals.
#include "imsb/transport/utoken.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

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

  // Hex on two lines is meant as hex: refused, not read as 66 bytes of raw text.
  auto two_lines =
      utoken_key::load(write("two.key", std::string(32, 'c') + "\n" + std::string(32, 'd') + "\n"));
  ASSERT_FALSE(two_lines.ok());
  EXPECT_NE(two_lines.error().detail.find("split by white space"), std::string::npos)
      << two_lines.error().detail;
  EXPECT_EQ(two_lines.error().offset, 32u);
}

// White space around a hex key is trimmed, so it is read as hex (with
// the hex minimum), never as a raw text key that slips under the raw one.
TEST_F(key_file, HexKeyWithStrayWhiteSpaceIsHex) {
  const std::string hex64 = "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";
  bytes raw;
  ASSERT_TRUE(from_hex(hex64, raw));
  auto direct = utoken_key::from_bytes(raw);
  ASSERT_TRUE(direct.ok());
  const bytes token = direct->sign("U", "", t0, 10, 0);
  const std::string wrapped[] = {hex64 + " \n", hex64 + "\n\n\n", " " + hex64 + "\n",
                                 "\r\n\t" + hex64 + "\t\r\n", hex64 + " "};
  int n = 0;
  for (const std::string& content : wrapped) {
    auto k = utoken_key::load(write("ws" + std::to_string(n++) + ".key", content));
    ASSERT_TRUE(k.ok()) << k.error().to_string();
    EXPECT_EQ(k->verify(token, "U", "", t0), token_verdict::verified) << "content #" << n;
  }
  // A short hex key with a trailing blank is a short hex key (refused), not a 33-byte raw key.
  auto short_hex = utoken_key::load(write("short_ws.key", std::string(62, 'a') + " \n"));
  ASSERT_FALSE(short_hex.ok());
  EXPECT_NE(short_hex.error().detail.find("hex key of 62 digits"), std::string::npos)
      << short_hex.error().detail;
  auto odd = utoken_key::load(write("odd_ws.key", "  " + std::string(65, 'b') + "\n"));
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.error().detail.find("odd number"), std::string::npos) << odd.error().detail;
  EXPECT_EQ(odd.error().offset, 66u);  // the last digit, counted from the start of the file
  auto blank = utoken_key::load(write("blank.key", " \n\t\r\n"));
  ASSERT_FALSE(blank.ok());
  EXPECT_NE(blank.error().detail.find("only white space"), std::string::npos) << blank.error().detail;
}

TEST_F(key_file, RawTextKeyIsTheWholeFile) {
  // Not hex: raw bytes, the whole file including its newline (a binary key may end in X'0A').
  const std::string text = "correct horse battery staple, and more!";
  auto k = utoken_key::load(write("text.key", text + "\n"));
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  auto direct = utoken_key::from_bytes(bytes(text.begin(), text.end()));
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(k->verify(direct->sign("U", "", t0, 10, 0), "U", "", t0), token_verdict::bad_signature);
  const std::string with_nl = text + "\n";
  auto direct_nl = utoken_key::from_bytes(bytes(with_nl.begin(), with_nl.end()));
  ASSERT_TRUE(direct_nl.ok());
  EXPECT_EQ(k->verify(direct_nl->sign("U", "", t0, 10, 0), "U", "", t0), token_verdict::verified);
}

// The real errno, a folder refused without throwing, and the mode reported.
TEST_F(key_file, UnreadableFileGivesItsErrno) {
  const fs::path p = write("locked.key", std::string(64, 'a'));
  fs::permissions(p, fs::perms::none);
  auto k = utoken_key::load(p);
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  if (::geteuid() == 0) {
    EXPECT_TRUE(k.ok());  // root reads it anyway; the ENOENT case below still holds
  } else {
    ASSERT_FALSE(k.ok());
    EXPECT_EQ(k.error().code, std::error_code(EACCES, std::generic_category())) << k.error().to_string();
    EXPECT_NE(k.error().detail.find("cannot open"), std::string::npos);
  }
  auto missing = utoken_key::load(dir_ / "nope.key");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, std::error_code(ENOENT, std::generic_category()));
  // An errno that holds for root too: a path through a file.
  auto through_file = utoken_key::load(p / "key");
  ASSERT_FALSE(through_file.ok());
  EXPECT_EQ(through_file.error().code, std::error_code(ENOTDIR, std::generic_category()))
      << through_file.error().to_string();
}

TEST_F(key_file, FolderIsRefusedNotThrown) {
  const fs::path sub = dir_ / "a_folder";
  fs::create_directories(sub);
  result<utoken_key> k = decode_error{};
  EXPECT_NO_THROW(k = utoken_key::load(sub));
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().code, std::make_error_code(std::errc::is_a_directory));
  EXPECT_NE(k.error().detail.find("not a regular file"), std::string::npos) << k.error().detail;
}

TEST_F(key_file, ModeOpenToOthersIsReported) {
  const fs::path p = write("mode.key", std::string(64, 'e'));
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  auto own = utoken_key::load(p);
  ASSERT_TRUE(own.ok()) << own.error().to_string();
  EXPECT_FALSE(own->readable_by_others());
  fs::permissions(p, fs::perms::owner_read | fs::perms::group_read);
  auto group = utoken_key::load(p);
  ASSERT_TRUE(group.ok());
  EXPECT_TRUE(group->readable_by_others());
  fs::permissions(p, fs::perms::owner_read | fs::perms::others_read);
  auto others = utoken_key::load(p);
  ASSERT_TRUE(others.ok());
  EXPECT_TRUE(others->readable_by_others());
  EXPECT_FALSE(make_key(1).readable_by_others());
}

}  // namespace
}  // namespace imsb::transport
