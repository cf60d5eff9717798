// The bridge's security decision per message (security.hpp; IBM's access levels [C: APP-ACCESS]): the
// partner's access level, PassTickets of our design [D], and the signed UTOKEN IMS gets instead of the
// Authenticator.

#include "imsb/bridge/security.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <system_error>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/transport/utoken.hpp"

namespace imsb::bridge {
namespace {

constexpr std::int64_t ticket_life_s = 20 * 60;  // [C] PASSTICKET: valid 20 minutes
constexpr std::size_t ticket_length = 8;         // [C] PASSTICKET: 8 uppercase alphanumerics
constexpr std::size_t max_key_file = 1024 * 1024;
constexpr std::size_t max_appl_length = 8;  // MQ_PASS_TICKET_APPL_LENGTH, PASSTKTA [C: MQGO-CONST]
constexpr std::size_t max_user_length = 8;  // the OTMA security data's user ID [C: IMS-SEC, ICON-SEC]
constexpr char ticket_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

decode_error key_file_error(std::errc code, const std::string& path, std::size_t line,
                            const std::string& why) {
  decode_error e;
  e.code = std::make_error_code(code);
  e.field = path;
  e.offset = line;
  e.detail = std::string(imsb::msg::IMB2100E) + " PassTicket key file " + path +
             (line != 0 ? " line " + std::to_string(line) : "") + ": " + why;
  return e;
}

bool is_appl_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' || c == '#' || c == '$';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// [D] security.hpp: HMAC-SHA256(key, user '\0' appl '\0' minute as 8 bytes big-endian), its first 8
// bytes as a number written in base 36 with 8 digits (36^8 < 2^42: every ticket is reachable; the bias
// of taking 64 bits modulo 36^8 is below 2^-22).
std::string ticket_for(const bytes& key, const std::string& user, const std::string& appl,
                       std::int64_t minute) {
  bytes data;
  data.reserve(user.size() + appl.size() + 10);
  data.insert(data.end(), user.begin(), user.end());
  data.push_back(0);
  data.insert(data.end(), appl.begin(), appl.end());
  data.push_back(0);
  const auto m = static_cast<std::uint64_t>(minute);
  for (int shift = 56; shift >= 0; shift -= 8) data.push_back(static_cast<std::uint8_t>(m >> shift));
  std::array<std::uint8_t, 32> tag{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(), tag.data(),
           &len) == nullptr ||
      len != tag.size()) {
    return {};  // allocation failure: no ticket (an empty string validates nothing)
  }
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n = (n << 8) | tag[i];
  std::string t(ticket_length, 'A');
  for (std::size_t i = ticket_length; i-- > 0;) {
    t[i] = ticket_alphabet[n % 36];
    n /= 36;
  }
  return t;
}

bool looks_like_ticket(const std::string& s) {
  if (s.size() != ticket_length) return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

// UTOKEN nonces [D]: a random start (so two bridge processes, or one restarted, do not repeat a
// (user, second, nonce) triple) plus a counter (so two tokens of one process never do).
std::uint64_t next_nonce() {
  static std::atomic<std::uint64_t> counter{[] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ static_cast<std::uint64_t>(rd());
  }()};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

// ---- PassTicket keys ------------------------------------------------------------------------------

result<passticket_keys> passticket_keys::load(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    return key_file_error(std::errc::no_such_file_or_directory, path, 0, "cannot be found");
  if (!std::filesystem::is_regular_file(st))
    return key_file_error(std::errc::invalid_argument, path, 0, "is not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return key_file_error(std::errc::io_error, path, 0, "cannot be read: " + ec.message());
  if (size > max_key_file)
    return key_file_error(std::errc::file_too_large, path, 0,
                          std::to_string(size) + " bytes; at most " + std::to_string(max_key_file));
  std::ifstream in(path, std::ios::binary);
  if (!in) return key_file_error(std::errc::permission_denied, path, 0, "cannot be opened");

  std::map<std::string, bytes> keys;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream fields(line);
    std::string appl, hex, extra;
    if (!(fields >> appl) || appl[0] == '#') continue;  // blank line or comment
    // A malformed line may hold a key (the fields swapped, or the name left out): errors name the file
    // and line, and the first field only once it is a valid application name, never anything else [D].
    appl = upper(appl);
    const bool appl_valid = appl.size() <= max_appl_length &&
                            std::all_of(appl.begin(), appl.end(), [](char c) { return is_appl_char(c); });
    if (!(fields >> hex))
      return key_file_error(std::errc::invalid_argument, path, number,
                            (appl_valid ? "\"" + appl + "\" has no key" : std::string("one field only")) +
                                " (write: APPLNAME hexkey)");
    if (fields >> extra && extra[0] != '#')
      return key_file_error(std::errc::invalid_argument, path, number,
                            "more than two fields (write: APPLNAME hexkey)");
    if (appl.size() > max_appl_length)
      return key_file_error(std::errc::invalid_argument, path, number,
                            "the application name (first field) is longer than 8 characters");
    if (!appl_valid)
      return key_file_error(std::errc::invalid_argument, path, number,
                            "the application name (first field) holds a character outside A-Z 0-9 @ # $");
    if (hex.size() % 2 != 0)
      return key_file_error(std::errc::invalid_argument, path, number,
                            "the key for " + appl + " has an odd number of hex digits");
    bytes key;
    key.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      const int hi = hex_value(hex[i]);
      const int lo = hex_value(hex[i + 1]);
      if (hi < 0 || lo < 0)
        return key_file_error(std::errc::invalid_argument, path, number,
                              "the key for " + appl + " is not hex (column " +
                                  std::to_string(line.find(hex) + i + (hi < 0 ? 1 : 2)) + ")");
      key.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
    }
    if (key.size() < 32)
      return key_file_error(std::errc::invalid_argument, path, number,
                            "the key for " + appl + " is " + std::to_string(key.size()) +
                                " bytes; at least 32 (64 hex digits) needed");
    if (!keys.emplace(appl, std::move(key)).second)
      return key_file_error(std::errc::invalid_argument, path, number, "a second key for " + appl);
  }
  if (in.bad()) return key_file_error(std::errc::io_error, path, number, "read failed");
  passticket_keys k = from_map(std::move(keys));
  k.open_to_others_ =
      (st.permissions() & (std::filesystem::perms::group_all | std::filesystem::perms::others_all)) !=
      std::filesystem::perms::none;
  return k;
}

passticket_keys passticket_keys::from_map(std::map<std::string, bytes> keys) {
  passticket_keys k;
  k.keys_ = std::move(keys);
  return k;
}

result<std::string> passticket_keys::generate(const std::string& user, const std::string& appl,
                                              std::int64_t unix_seconds) const {
  auto it = keys_.find(appl);
  if (it == keys_.end()) {
    decode_error e;
    e.code = mq::make_mqfb(mq::MQFB_NOT_AUTHORIZED_FOR_IMS);
    e.field = "PassTicket.appl";
    e.detail = "no PassTicket key for application name \"" + appl + "\"";
    return e;
  }
  auto t = ticket_for(it->second, user, appl, floor_div(unix_seconds, 60));
  if (t.empty()) {
    decode_error e;
    e.code = std::make_error_code(std::errc::not_enough_memory);
    e.field = "PassTicket";
    e.detail = "HMAC-SHA256 failed";
    return e;
  }
  return t;
}

std::optional<std::int64_t> passticket_keys::issued_minute(const std::string& ticket, const std::string& user,
                                                           const std::string& appl,
                                                           std::int64_t unix_seconds) const {
  auto it = keys_.find(appl);
  if (it == keys_.end() || !looks_like_ticket(ticket)) return std::nullopt;
  // The life counts from the start of the minute of issue, so a ticket lives between 19 and 20 minutes
  // and never longer than 20 [C]: minutes now-19 .. now, and one ahead for a generator whose clock is
  // a little ahead of ours [D].
  const std::int64_t now_minute = floor_div(unix_seconds, 60);
  for (std::int64_t m = now_minute + 1; m >= now_minute - (ticket_life_s / 60 - 1); --m) {
    if (unix_seconds >= m * 60 + ticket_life_s) break;
    const auto expected = ticket_for(it->second, user, appl, m);
    if (expected.size() == ticket.size() && CRYPTO_memcmp(expected.data(), ticket.data(), ticket.size()) == 0)
      return m;
  }
  return std::nullopt;
}

// ---- the check per message ------------------------------------------------------------------------

security_checker::security_checker(security_hooks hooks, std::optional<passticket_keys> tickets,
                                   std::optional<bytes> utoken_key, std::uint32_t utoken_validity_s,
                                   std::uint32_t cache_age_s)
    : hooks_(std::move(hooks)),
      tickets_(std::move(tickets)),
      utoken_key_(std::move(utoken_key)),
      validity_(utoken_validity_s),
      cache_age_(cache_age_s) {}

security_verdict security_checker::check(access_level level, const security_inputs& in) {
  security_verdict v;
  // [I] CONTROL / ALTER: no security UTOKENs need to be provided, and nothing is checked.
  if (level == access_level::control) {
    v.allowed = true;
    return v;
  }
  const std::int64_t now = hooks_.now_seconds ? hooks_.now_seconds()
                                              : std::chrono::duration_cast<std::chrono::seconds>(
                                                    std::chrono::system_clock::now().time_since_epoch())
                                                    .count();
  auto refuse = [&](std::string why) {
    security_verdict r;
    r.reason = "user \"" + in.user + "\": " + std::move(why);
    return r;
  };
  if (in.user.empty()) return refuse("no user ID (MQMD.UserIdentifier is blank)");
  if (in.user.size() > max_user_length) return refuse("user ID longer than 8 characters");

  // The user directory is a file read per lookup (getpwnam, getgrgid): at READ and UPDATE a group once
  // found is kept for the age (groups_), so that a steady stream of messages does not read it each time.
  const bool keep = level == access_level::read || level == access_level::update;
  std::optional<std::string> group;
  if (keep) {
    sync::lock_guard lock(mu_);
    auto it = groups_.find(in.user);
    if (it != groups_.end() && now - it->second.at < static_cast<std::int64_t>(cache_age_) &&
        now >= it->second.at)
      group = it->second.group;
  }
  if (!group && hooks_.user_group) {
    group = hooks_.user_group(in.user);
    if (group && keep && cache_age_ > 0) {
      sync::lock_guard lock(mu_);
      if (groups_.size() >= 4096) groups_.clear();  // bounded: they are looked up again
      groups_[in.user] = known_user{*group, now};
    }
  }
  bool authenticated = false;
  if (level == access_level::read) {
    // [C] READ: authenticate the first time a user is seen; the result is kept for the OTMACON age [I].
    sync::lock_guard lock(mu_);
    auto it = cache_.find(in.user);
    if (it != cache_.end()) {
      if (now - it->second < static_cast<std::int64_t>(cache_age_) && now >= it->second) {
        authenticated = true;
      } else {
        cache_.erase(it);
      }
    }
  }
  if (level == access_level::update) {
    // [I] UPDATE: the user must be known; no password.
    if (!group) return refuse("not a known user");
    authenticated = true;
  }
  if (!authenticated) {
    // NONE, and READ the first time: MQMD.UserIdentifier + MQIIH.Authenticator [C]. The ticket path when
    // the application name has a key and the Authenticator is one of its tickets, else the password path.
    if (in.authenticator.empty())
      return refuse("no password or PassTicket (MQIIH.Authenticator blank or no MQIIH)");
    std::optional<std::int64_t> minute;
    if (tickets_ && !in.passticket_appl.empty() && tickets_->has(in.passticket_appl))
      minute = tickets_->issued_minute(in.authenticator, in.user, in.passticket_appl, now);
    if (minute) {
      // [C] usable once: remembered until it expires, then forgotten (it no longer validates anyway).
      sync::lock_guard lock(mu_);
      // Expired entries may stay a while (their tickets no longer validate); swept when many.
      if (used_.size() >= 1024)
        for (auto it = used_.begin(); it != used_.end();)
          it = it->second <= now ? used_.erase(it) : std::next(it);
      const std::string key = in.authenticator + '\0' + in.user + '\0' + in.passticket_appl;
      if (!used_.emplace(key, *minute * 60 + ticket_life_s).second)
        return refuse("PassTicket for " + in.passticket_appl + " already used");
    } else if (!hooks_.check_password || !hooks_.check_password(in.user, in.authenticator)) {
      return refuse(tickets_ && tickets_->has(in.passticket_appl)
                        ? "not a valid password, nor a valid unused PassTicket for " + in.passticket_appl
                        : "not a valid password");
    }
    if (level == access_level::read) {
      sync::lock_guard lock(mu_);
      cache_[in.user] = now;
    }
  }

  v.group = group.value_or("");
  if (utoken_key_) {
    auto key = transport::utoken_key::from_bytes(*utoken_key_);
    if (!key) return refuse("the UTOKEN key is not usable: " + key.error().detail);
    v.utoken = key->sign(in.user, v.group, static_cast<std::uint64_t>(now), validity_, next_nonce());
  }
  v.allowed = true;
  return v;
}

}  // namespace imsb::bridge
