#pragma once
// The bridge's security (IBM's access levels [C: APP-ACCESS] for NONE and READ, [I] for UPDATE and
// CONTROL). Per partner, the access level decides: NONE → authenticate every message
// (MQMD.UserIdentifier + MQIIH.Authenticator: a password or a PassTicket), no cache; READ → authenticate
// a user the first time and cache the result for the OTMACON age; UPDATE → check only that the user
// exists; CONTROL → no check and no UTOKEN.
// IMS never sees the Authenticator: it gets the user, the group and a UTOKEN signed with the key shared
// with imsemu (transport/utoken.hpp). A refusal is MQFB_NOT_AUTHORIZED_FOR_IMS (298).
//
// PassTickets [D] (our algorithm, not RACF's): 8 characters from A–Z0–9, made from
// HMAC-SHA256(key(appl), user '\0' appl '\0' minute-of-issue as 8 bytes big-endian), the minute-of-issue
// recoverable by trying the 20 minutes back from now (and 1 ahead for clock skew); valid 20 minutes;
// single use: a ticket seen once is refused until it expires. Keys: a file of "APPLNAME hexkey" lines
// (≥ 32 bytes each), mode 0600.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "imsb/bridge/config.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/sync/mutex.hpp"

namespace imsb::bridge {

class passticket_keys {
 public:
  // Errors name the file and line (IMB2100E ...).
  static result<passticket_keys> load(const std::string& path);
  static passticket_keys from_map(std::map<std::string, bytes> keys);
  bool has(const std::string& appl) const { return keys_.count(appl) != 0; }
  // `unix_seconds` = now. Errors: no key for appl.
  result<std::string> generate(const std::string& user, const std::string& appl,
                               std::int64_t unix_seconds) const;
  // The minute the ticket was issued, if it is valid for (user, appl) within 20 minutes of now.
  std::optional<std::int64_t> issued_minute(const std::string& ticket, const std::string& user,
                                            const std::string& appl, std::int64_t unix_seconds) const;
  // load(): the file's mode gives group or others access; it still loads and the program warns
  // (IMB2061W). false for from_map.
  bool readable_by_others() const noexcept { return open_to_others_; }

 private:
  std::map<std::string, bytes> keys_;
  bool open_to_others_ = false;
};

struct security_inputs {
  std::string user;           // MQMD.UserIdentifier, trimmed
  std::string authenticator;  // MQIIH.Authenticator, trimmed ("" without an MQIIH or blank)
  std::string
      passticket_appl;  // the storage class's PASSTKTA (blank: "MVS" + the queue manager's name's first 4)
};

struct security_verdict {
  bool allowed = false;
  std::string reason;           // for the console (IMB2101W) when refused; never the authenticator
  std::string group;            // the user's group for the security data ("" when unknown)
  std::optional<bytes> utoken;  // the signed UTOKEN to send (nullopt at CONTROL)
};

// Hooks the program wires: the queue manager's credential store (password check) and the user
// directory (does the user exist, its group). Both may be empty (then: no such user).
struct security_hooks {
  std::function<bool(const std::string& user, const std::string& password)> check_password;
  std::function<std::optional<std::string>(const std::string& user)> user_group;  // nullopt: unknown user
  std::function<std::int64_t()> now_seconds;  // unix time; injected for the PassTicket tests
};

class security_checker {
 public:
  security_checker(security_hooks hooks, std::optional<passticket_keys> tickets,
                   std::optional<bytes> utoken_key, std::uint32_t utoken_validity_s,
                   std::uint32_t cache_age_s);
  // Thread-safe. One decision per message.
  security_verdict check(access_level level, const security_inputs& in);

 private:
  security_hooks hooks_;
  std::optional<passticket_keys> tickets_;
  std::optional<bytes> utoken_key_;
  std::uint32_t validity_;
  std::uint32_t cache_age_;
  // hooks_, tickets_, utoken_key_, validity_ and cache_age_ are set at construction and only read.
  sync::mutex mu_;
  std::map<std::string, std::int64_t> cache_ IMSB_GUARDED_BY(mu_);  // user → authenticated at (READ)
  // READ and UPDATE: user → its group and when it was looked up, trusted for the age as the signed-on
  // user is (OTMA keeps the user's security environment, the ACEE, for its aging value [I]); a user not
  // found is not kept, so that one added is known at once.
  struct known_user {
    std::string group;
    std::int64_t at = 0;
  };
  std::map<std::string, known_user> groups_ IMSB_GUARDED_BY(mu_);
  // ticket+user+appl → expires at (single use)
  std::map<std::string, std::int64_t> used_ IMSB_GUARDED_BY(mu_);
};

}  // namespace imsb::bridge
