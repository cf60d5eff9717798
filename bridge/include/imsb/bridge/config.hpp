#pragma once
// imsbridge's configuration: an INI file plus command-line overrides, through
// Boost.Program_options. Bad configuration stops start-up with one line naming the key (IMB2050E ...).
//
// INI layout (examples/imsbridge/imsbridge.ini is the annotated sample):
//   [qmgr]     connect = local:QMZ | QMZ | (empty: MQSERVER)   prefix = PATH   mqserver = CHL/TCP/host(port)
//              user = U   password-file = F   tls-ca = F   tls-cert = F   tls-key = F
//   [xcf]      url = tcp://host:port   tls-ca = F   tls-cert = F   tls-key = F
//   [otmacon]  member = QMZ (default: the queue manager's name)   druexit = DFSYDRU0   age = 2147483647
//              tpipe-prefix = CSQ
//   [bridge]   cm1-window = 4   ack-timeout-ms = 120000   bid-timeout-ms = 30000
//              backoff-initial-ms = 500   backoff-max-ms = 30000   resource-retry-limit = 50
//              rescan-ms = 5000   control-socket = PATH   console = yes|no   utoken-key = F
//              passticket-keys = F   utoken-validity = 3600
//   [partner.GROUP.MEMBER]   ccsid = 37   conversion = text|none   access = NONE|READ|UPDATE|CONTROL
//   (defaults for partners not named: [partner] with the same keys)
// Command line: --config FILE, and every key as --section.key=VALUE (e.g. --qmgr.connect=local:QMZ,
// --partner.GRP1.IMS1.ccsid=1047), which wins over the file.

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "imsb/bridgemap/request.hpp"
#include "imsb/core/result.hpp"

namespace imsb::bridge {

// The access level of the queue manager's user to IMSXCF.group.member [C: APP-ACCESS].
enum class access_level : std::uint8_t { none, read, update, control };
std::string_view to_string(access_level a) noexcept;

struct partner_config {
  bridgemap::partner_data data;                 // ccsid, conversion
  access_level access = access_level::control;  // [D] default: no UTOKENs (CONTROL), as a test system
};

struct tls_files {
  std::string ca_file, cert_file, key_file;
};

struct bridge_config {
  // [qmgr]
  std::string qmgr_connect;  // "local:QM", "QM" or "" (MQSERVER)
  std::optional<std::string> qmgr_prefix;
  std::optional<std::string> qmgr_mqserver;
  std::string qmgr_user;
  std::string qmgr_password;  // read from password-file
  tls_files qmgr_tls;
  // [xcf]
  std::string xcf_url;  // "tcp://host:port"
  tls_files xcf_tls;
  // [otmacon] (CSQ6SYSP OTMACON=(group,member,druexit,age,tpipeprefix) [I: CSQ4ZPRM-SAMPLE, MQ-SYSP])
  std::string member;  // our XCF member name; empty = the queue manager's name
  std::string dru_exit = "DFSYDRU0";
  std::uint32_t age = 2147483647;
  std::string tpipe_prefix = "CSQ";
  // [bridge]
  unsigned cm1_window = 4;  // CM1 messages in flight per non-synchronized Tpipe
  std::uint64_t ack_timeout_ms = 120000;
  std::uint64_t bid_timeout_ms = 30000;
  std::uint64_t backoff_initial_ms = 500;
  std::uint64_t backoff_max_ms = 30000;
  unsigned resource_retry_limit = 50;  // resource NAKs in a row before the queue stops (IMB2003E)
  std::uint64_t rescan_ms = 5000;      // how often new bridge queues / storage classes are looked for
  std::string control_socket;          // empty: none
  bool console = true;                 // operator commands on stdin
  std::string utoken_key_file;         // key shared with imsemu (--utoken-key); empty: tokens unsigned
  std::uint32_t utoken_validity_s = 3600;
  std::string passticket_keys_file;  // "APPL hexkey" lines; empty: PassTickets refused
  // [partner] defaults and [partner.G.M] entries, key "G.M"
  partner_config partner_defaults;
  std::map<std::string, partner_config> partners;

  const partner_config& partner(const std::string& group, const std::string& member) const;
};

// Parses argv (argv[0] is the program) and the --config file. `help` receives the --help text when
// asked (then the result holds std::nullopt). Errors: one line "IMB2050E configuration: <key>: <why>"
// in decode_error::field = the key.
result<std::optional<bridge_config>> parse_config(int argc, const char* const* argv, std::ostream& help);

}  // namespace imsb::bridge
