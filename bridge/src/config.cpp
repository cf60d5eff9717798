// imsbridge's configuration (config.hpp): Boost.Program_options reads the command line and the INI file;
// every value is then checked here, so that a bad one stops start-up with one IMB2050E line naming its
// key as the operator wrote it (section.key), whichever of the two it came from.
//
// Precedence: the command line is stored first, so Program_options keeps its values over the file's
// (store() never replaces a value stored earlier). The [partner.G.M] sections are not declared (their
// names are the installation's); the parsers pass them through as unregistered options and they are
// checked here: a key that is neither declared nor a partner key is an error, not ignored, so a typo
// cannot silently leave a default in force.

#include "imsb/bridge/config.hpp"

#include <sys/un.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <system_error>
#include <type_traits>
#include <utility>

#include <boost/program_options.hpp>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::bridge {

namespace po = boost::program_options;

std::string_view to_string(access_level a) noexcept {
  switch (a) {
    case access_level::none:
      return "NONE";
    case access_level::read:
      return "READ";
    case access_level::update:
      return "UPDATE";
    case access_level::control:
      return "CONTROL";
  }
  return "?";
}

const partner_config& bridge_config::partner(const std::string& group, const std::string& ims_member) const {
  const auto it = partners.find(group + "." + ims_member);
  return it == partners.end() ? partner_defaults : it->second;
}

namespace {

// The one failure shape: IMB2050E naming the key (config.hpp).
decode_error bad(const std::string& key, const std::string& why) {
  return decode_error{std::make_error_code(std::errc::invalid_argument), key, 0,
                      std::string(msg::IMB2050E) + " configuration: " + key + ": " + why};
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// An unsigned decimal number in [lo, hi]; the whole text must be digits.
result<std::uint64_t> number(const std::string& key, const std::string& text, std::uint64_t lo,
                             std::uint64_t hi) {
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    return bad(key, "'" + text + "' is not " + range);
  std::uint64_t v = 0;
  for (char c : text) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
      return bad(key, "'" + text + "' is out of range: " + range);
    v = v * 10 + d;
  }
  if (v < lo || v > hi) return bad(key, "'" + text + "' is out of range: " + range);
  return v;
}

// XCF names [D]: the intersection of XCF's rules [C: XCF-NAMES2] and OTMA's [C: IMS-NAMES]: 1 to `max`
// characters from A-Z 0-9 @ $, not starting with a digit, no DFS / DBCDM prefix.
std::optional<std::string> xcf_name_problem(const std::string& name, std::size_t max) {
  if (name.empty() || name.size() > max) return "must be 1 to " + std::to_string(max) + " characters";
  if (name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@$") != std::string::npos)
    return "'" + name + "' may hold only A-Z, 0-9, @ and $ (XCF's and OTMA's name rules)";
  if (name[0] >= '0' && name[0] <= '9') return "'" + name + "' must not start with a digit";
  if (name.rfind("DFS", 0) == 0 || name.rfind("DBCDM", 0) == 0)
    return "'" + name + "' must not start with DFS or DBCDM (names OTMA keeps for IMS)";
  return std::nullopt;
}

// MQ object-name characters [C: NAMING-OTHER]: A-Z a-z 0-9 . / _ %, at most 48.
bool mq_name_ok(const std::string& name) {
  return !name.empty() && name.size() <= 48 &&
         name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%") ==
             std::string::npos;
}

// A file the program will open: a readable regular file.
std::optional<std::string> unreadable(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return "'" + path + "' does not exist";
  if (!std::filesystem::is_regular_file(st)) return "'" + path + "' is not a regular file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "'" + path + "' cannot be read";
  return std::nullopt;
}

const char* const partner_keys_text =
    "ccsid = 37 (the partner's CCSID)   conversion = text|none   access = NONE|READ|UPDATE|CONTROL";

struct partner_values {
  std::optional<std::string> ccsid, conversion, access;
};

// One partner key onto a partner_config.
result<done> apply_partner_key(partner_config& p, const std::string& full_key, const std::string& key,
                               const std::string& raw) {
  const std::string value = trim(raw);
  if (key == "ccsid") {
    auto n = number(full_key, value, 1, 65535);
    if (!n) return n.error();
    if (!codepage::supported(static_cast<std::int32_t>(*n)))
      return bad(full_key, "CCSID " + value + " is not supported (codepage::supported)");
    p.data.ccsid = static_cast<std::int32_t>(*n);
  } else if (key == "conversion") {
    const std::string v = upper(value);
    if (v == "TEXT")
      p.data.convert = bridgemap::conversion::text;
    else if (v == "NONE")
      p.data.convert = bridgemap::conversion::none;
    else
      return bad(full_key, "'" + value + "' must be text or none");
  } else if (key == "access") {
    const std::string v = upper(value);
    if (v == "NONE")
      p.access = access_level::none;
    else if (v == "READ")
      p.access = access_level::read;
    else if (v == "UPDATE")
      p.access = access_level::update;
    else if (v == "CONTROL")
      p.access = access_level::control;
    else
      return bad(full_key, "'" + value + "' must be NONE, READ, UPDATE or CONTROL (IBM's access levels)");
  } else {
    return bad(full_key, "unknown key; a partner section holds " + std::string(partner_keys_text));
  }
  return std::monostate{};
}

// "partner.G.M.key" → ("G.M" upper case, key); errors name the key as written.
result<std::pair<std::string, std::string>> split_partner_key(const std::string& full) {
  const std::string rest = full.substr(std::string("partner.").size());
  const auto d1 = rest.find('.');
  const auto d2 = d1 == std::string::npos ? std::string::npos : rest.find('.', d1 + 1);
  if (d1 == std::string::npos || d2 == std::string::npos || rest.find('.', d2 + 1) != std::string::npos)
    return bad(full, "unknown key; partner keys are partner.KEY or partner.GROUP.MEMBER.KEY");
  const std::string group = upper(rest.substr(0, d1));
  const std::string member = upper(rest.substr(d1 + 1, d2 - d1 - 1));
  if (auto p = xcf_name_problem(group, 8)) return bad(full, "XCF group " + *p);
  if (auto p = xcf_name_problem(member, 16)) return bad(full, "IMS member " + *p);
  return std::make_pair(group + "." + member, rest.substr(d2 + 1));
}

po::options_description declared_options() {
  po::options_description all("imsbridge configuration (INI file sections, or --section.key=VALUE)");
  auto text = [] { return po::value<std::string>()->value_name("VALUE"); };
  po::options_description general("General");
  general.add_options()                                                                     //
      ("help", "print this help and exit")                                                  //
      ("version", "print the version and exit")                                             //
      ("config", text(), "the INI file; its values are overridden by the command line's");  //
  po::options_description qmgr("[qmgr] the queue-manager connection");
  qmgr.add_options()  //
      ("qmgr.connect", text(),
       "local:QM (the queue manager runs inside imsbridge), QM (bindings to its running daemon), or "
       "empty (client over TCP, MQSERVER)")                                                             //
      ("qmgr.prefix", text(), "the MQ data prefix (default IMSBRIDGE_PREFIX, /var/mqm, ~/.imsbridge)")  //
      ("qmgr.mqserver", text(), "CHANNEL/TCP/host(port): a client connection (instead of MQSERVER)")    //
      ("qmgr.user", text(), "user for a client connection")                                             //
      ("qmgr.password-file", text(), "file whose first line is the user's password (keep it 0600)")     //
      ("qmgr.tls-ca", text(), "PEM CA file: TLS to the queue manager, verified against it")             //
      ("qmgr.tls-cert", text(), "PEM client certificate (with qmgr.tls-key)")                           //
      ("qmgr.tls-key", text(), "PEM private key of qmgr.tls-cert");
  po::options_description xcf("[xcf] the XCF backend");
  xcf.add_options()                                                                    //
      ("xcf.url", text(), "tcp://host:port of xcfhub (default tcp://127.0.0.1:5099)")  //
      ("xcf.tls-ca", text(), "PEM CA file: TLS to xcfhub, verified against it")        //
      ("xcf.tls-cert", text(), "PEM client certificate (with xcf.tls-key)")            //
      ("xcf.tls-key", text(), "PEM private key of xcf.tls-cert");
  po::options_description otmacon("[otmacon] as CSQ6SYSP OTMACON=(group,member,druexit,age,tpipeprefix)");
  otmacon.add_options()  //
      ("otmacon.member", text(),
       "our XCF member name, 1-16 of A-Z 0-9 @ $ (default: the queue manager's name)")                  //
      ("otmacon.druexit", text(), "IMS destination resolution exit name, 1-8 characters (DFSYDRU0)")    //
      ("otmacon.age", text(), "seconds a READ-access sign-on stays cached, 0-2147483647 (2147483647)")  //
      ("otmacon.tpipe-prefix", text(), "Tpipe name prefix, 1-4 of A-Z 0-9 @ $ (CSQ)");
  po::options_description bridge("[bridge] the engine");
  bridge.add_options()                                                                                //
      ("bridge.cm1-window", text(), "CM1 messages in flight per non-synchronized Tpipe, 1-1000 (4)")  //
      ("bridge.ack-timeout-ms", text(),
       "no ACK this long: the session is dropped and resynchronized, 100-86400000 (120000)")                //
      ("bridge.bid-timeout-ms", text(), "client-bid answer wait, 100-86400000 (30000)")                     //
      ("bridge.backoff-initial-ms", text(), "first retry delay after a resource NAK, 1-3600000 (500)")      //
      ("bridge.backoff-max-ms", text(), "the retry delay's cap, 1-3600000, >= backoff-initial-ms (30000)")  //
      ("bridge.resource-retry-limit", text(),
       "resource NAKs in a row before a queue stops, 1-1000000 (50)")                                     //
      ("bridge.rescan-ms", text(), "how often new bridge queues are looked for, 100-3600000 (5000)")      //
      ("bridge.control-socket", text(), "Unix socket for operator commands (mode 0600); empty: none")     //
      ("bridge.console", text(), "yes|no: operator commands from standard input (yes)")                   //
      ("bridge.utoken-key", text(), "key file shared with imsemu --utoken-key; empty: UTOKENs unsigned")  //
      ("bridge.passticket-keys", text(), "file of 'APPLNAME hexkey' lines; empty: PassTickets refused")   //
      ("bridge.utoken-validity", text(), "seconds a UTOKEN is valid, 1-86400 (3600)");
  po::options_description partner(
      "[partner] defaults for every IMS partner; [partner.GROUP.MEMBER] one partner");
  partner.add_options()                                                                                    //
      ("partner.ccsid", text(), "the partner's CCSID (37); IMS is EBCDIC")                                 //
      ("partner.conversion", text(), "text (convert segment text, [D]) or none (bytes untouched) (text)")  //
      ("partner.access", text(), "NONE|READ|UPDATE|CONTROL: the security check (CONTROL)");
  all.add(general).add(qmgr).add(xcf).add(otmacon).add(bridge).add(partner);
  return all;
}

const char* const help_tail = R"(
  [partner.GROUP.MEMBER] (--partner.GROUP.MEMBER.KEY=VALUE): the same three keys for the IMS member
  MEMBER of XCF group GROUP (a storage class's XCFGNAME and XCFMNAME); keys not given take [partner]'s.

Every key is also an option --section.key=VALUE (e.g. --qmgr.connect=local:QMZ,
--partner.GRP1.IMS1.ccsid=1047), which wins over the file. examples/imsbridge/imsbridge.ini is an
annotated sample. A bad value stops start-up with one line: IMB2050E configuration: <key>: <why>.
)";

}  // namespace

result<std::optional<bridge_config>> parse_config(int argc, const char* const* argv, std::ostream& help) {
  const po::options_description desc = declared_options();
  po::variables_map vm;
  // Unregistered options in the order seen: command line first, then the file (precedence below).
  std::vector<std::pair<std::string, std::string>> cli_extra, file_extra;
  try {
    const po::parsed_options cli =
        po::command_line_parser(argc, argv).options(desc).allow_unregistered().run();
    for (const auto& o : cli.options) {
      if (o.position_key >= 0 || o.string_key.empty())
        return bad(o.value.empty() ? "?" : o.value[0],
                   "unexpected argument; options are --section.key=VALUE");
      if (!o.unregistered) continue;
      std::string key = o.string_key;
      if (key.rfind("partner.", 0) != 0) return bad(key, "unknown key (imsbridge --help lists them)");
      if (o.value.size() != 1) return bad(key, "needs a value: --" + key + "=VALUE");
      cli_extra.emplace_back(key, o.value[0]);
    }
    po::store(cli, vm);
    if (vm.count("help")) {
      help << desc << help_tail;
      return std::optional<bridge_config>{};
    }
    if (vm.count("config")) {
      const std::string path = vm["config"].as<std::string>();
      if (auto why = unreadable(path)) return bad("config", *why);
      std::ifstream in(path);
      const po::parsed_options file = po::parse_config_file(in, desc, true);
      for (const auto& o : file.options) {
        if (!o.unregistered) continue;
        if (o.string_key.rfind("partner.", 0) != 0)
          return bad(o.string_key, "unknown key in " + path + " (imsbridge --help lists them)");
        file_extra.emplace_back(o.string_key, o.value.empty() ? std::string() : o.value[0]);
      }
      for (const auto& o : file.options) {
        if (o.unregistered) continue;
        if (o.string_key == "config" || o.string_key == "help" || o.string_key == "version")
          return bad(o.string_key, "is a command-line option only");
      }
      po::store(file, vm);
    }
  } catch (const po::error_with_option_name& e) {
    std::string key = e.get_option_name();
    while (!key.empty() && key[0] == '-') key.erase(0, 1);
    return bad(key.empty() ? "config" : key, e.what());
  } catch (const po::error& e) {
    return bad("config", e.what());
  }

  bridge_config c;
  const auto get = [&](const char* key) -> std::optional<std::string> {
    if (!vm.count(key)) return std::nullopt;
    return trim(vm[key].as<std::string>());
  };

  // [qmgr]
  if (auto v = get("qmgr.connect")) {
    c.qmgr_connect = *v;
    const bool local = v->rfind("local:", 0) == 0;
    const std::string name = local ? v->substr(6) : *v;
    if ((local || !name.empty()) && !mq_name_ok(name))
      return bad("qmgr.connect",
                 "'" + *v +
                     "': a queue-manager name is 1-48 of A-Z a-z 0-9 . / _ % (local:QM, QM, or "
                     "empty for MQSERVER)");
  }
  if (auto v = get("qmgr.prefix")) {
    if (v->empty()) return bad("qmgr.prefix", "is empty");
    c.qmgr_prefix = *v;
  }
  if (auto v = get("qmgr.mqserver")) {
    // CHANNEL/TCP/host(port) [C], as the MQSERVER environment variable.
    const auto s1 = v->find('/');
    const auto s2 = s1 == std::string::npos ? std::string::npos : v->find('/', s1 + 1);
    const std::string conn = s2 == std::string::npos ? std::string() : v->substr(s2 + 1);
    const auto lp = conn.find('(');
    bool ok = s1 != std::string::npos && s1 > 0 && s2 != std::string::npos &&
              upper(v->substr(s1 + 1, s2 - s1 - 1)) == "TCP" && lp != std::string::npos && lp > 0 &&
              conn.size() > lp + 2 && conn.back() == ')';
    if (ok) ok = number("qmgr.mqserver", conn.substr(lp + 1, conn.size() - lp - 2), 1, 65535).ok();
    if (!ok) return bad("qmgr.mqserver", "'" + *v + "' is not CHANNEL/TCP/host(port)");
    c.qmgr_mqserver = *v;
  }
  if (auto v = get("qmgr.user")) c.qmgr_user = *v;
  if (auto v = get("qmgr.password-file")) {
    if (auto why = unreadable(*v)) return bad("qmgr.password-file", *why);
    std::ifstream in(*v, std::ios::binary);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty())
      return bad("qmgr.password-file", "the first line of '" + *v + "' (the password) is empty");
    c.qmgr_password = line;
    if (c.qmgr_user.empty()) return bad("qmgr.password-file", "a password needs qmgr.user");
  }
  // TLS files, for either section.
  const auto tls = [&](const std::string& section, tls_files& t) -> result<done> {
    for (const auto& [k, field] : {std::make_pair(std::string("tls-ca"), &t.ca_file),
                                   std::make_pair(std::string("tls-cert"), &t.cert_file),
                                   std::make_pair(std::string("tls-key"), &t.key_file)}) {
      const std::string key = section + "." + k;
      if (auto v = get(key.c_str())) {
        if (auto why = unreadable(*v)) return bad(key, *why);
        *field = *v;
      }
    }
    if (!t.cert_file.empty() && t.key_file.empty())
      return bad(section + ".tls-key", "tls-cert needs tls-key");
    if (t.cert_file.empty() && !t.key_file.empty())
      return bad(section + ".tls-cert", "tls-key needs tls-cert");
    return std::monostate{};
  };
  if (auto r = tls("qmgr", c.qmgr_tls); !r) return r.error();

  // [xcf]
  c.xcf_url = get("xcf.url").value_or("tcp://127.0.0.1:5099");
  {
    const std::string& u = c.xcf_url;
    const std::string why = "'" + u + "' is not tcp://host:port (host a name, an IPv4 address or [IPv6])";
    if (u.rfind("tcp://", 0) != 0) return bad("xcf.url", why);
    const std::string hp = u.substr(6);
    const auto colon = hp.rfind(':');
    if (colon == std::string::npos || colon == 0 || hp.find('/') != std::string::npos)
      return bad("xcf.url", why);
    const std::string host = hp.substr(0, colon);
    if (host.front() == '[' ? host.back() != ']' || host.size() < 3
                            : host.find_first_of("[]:") != std::string::npos)
      return bad("xcf.url", why);
    if (!number("xcf.url", hp.substr(colon + 1), 1, 65535)) return bad("xcf.url", why + ": port 1-65535");
  }
  if (auto r = tls("xcf", c.xcf_tls); !r) return r.error();

  // [otmacon]
  if (auto v = get("otmacon.member")) {
    const std::string m = upper(*v);
    if (!m.empty()) {
      if (auto p = xcf_name_problem(m, 16)) return bad("otmacon.member", "an XCF member name " + *p);
    }
    c.member = m;
  }
  if (auto v = get("otmacon.druexit")) {
    const std::string d = upper(*v);
    if (d.empty() || d.size() > 8 ||
        d.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$") != std::string::npos ||
        (d[0] >= '0' && d[0] <= '9'))
      return bad("otmacon.druexit",
                 "'" + *v + "' is not a load-module name (1-8 of A-Z 0-9 @ # $, not a digit first)");
    c.dru_exit = d;
  }
  if (auto v = get("otmacon.age")) {
    auto n = number("otmacon.age", *v, 0, 2147483647);
    if (!n) return n.error();
    c.age = static_cast<std::uint32_t>(*n);
  }
  if (auto v = get("otmacon.tpipe-prefix")) {
    const std::string p = upper(*v);
    if (p.empty() || p.size() > 4 ||
        p.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@$") != std::string::npos)
      return bad("otmacon.tpipe-prefix", "'" + *v +
                                             "' must be 1 to 4 of A-Z 0-9 @ $ (Tpipe names are 8: prefix, "
                                             "the queue's number in base 36, S or N)");
    c.tpipe_prefix = p;
  }

  // [bridge]
  const auto num = [&](const char* key, std::uint64_t lo, std::uint64_t hi, auto& field) -> result<done> {
    if (auto v = get(key)) {
      auto n = number(key, *v, lo, hi);
      if (!n) return n.error();
      field = static_cast<std::remove_reference_t<decltype(field)>>(*n);
    }
    return std::monostate{};
  };
  for (auto r : {num("bridge.cm1-window", 1, 1000, c.cm1_window),
                 num("bridge.ack-timeout-ms", 100, 86400000, c.ack_timeout_ms),
                 num("bridge.bid-timeout-ms", 100, 86400000, c.bid_timeout_ms),
                 num("bridge.backoff-initial-ms", 1, 3600000, c.backoff_initial_ms),
                 num("bridge.backoff-max-ms", 1, 3600000, c.backoff_max_ms),
                 num("bridge.resource-retry-limit", 1, 1000000, c.resource_retry_limit),
                 num("bridge.rescan-ms", 100, 3600000, c.rescan_ms),
                 num("bridge.utoken-validity", 1, 86400, c.utoken_validity_s)}) {
    if (!r) return r.error();
  }
  if (c.backoff_max_ms < c.backoff_initial_ms)
    return bad("bridge.backoff-max-ms", std::to_string(c.backoff_max_ms) +
                                            " is below bridge.backoff-initial-ms (" +
                                            std::to_string(c.backoff_initial_ms) + ")");
  if (auto v = get("bridge.control-socket")) {
    if (v->size() >= sizeof(sockaddr_un{}.sun_path))
      return bad("bridge.control-socket", "'" + *v + "' is " + std::to_string(v->size()) +
                                              " bytes; a Unix socket path holds at most " +
                                              std::to_string(sizeof(sockaddr_un{}.sun_path) - 1));
    c.control_socket = *v;
  }
  if (auto v = get("bridge.console")) {
    const std::string b = upper(*v);
    if (b == "YES" || b == "TRUE" || b == "1")
      c.console = true;
    else if (b == "NO" || b == "FALSE" || b == "0")
      c.console = false;
    else
      return bad("bridge.console", "'" + *v + "' must be yes or no");
  }
  if (auto v = get("bridge.utoken-key"); v && !v->empty()) {
    if (auto why = unreadable(*v)) return bad("bridge.utoken-key", *why);
    c.utoken_key_file = *v;
  }
  if (auto v = get("bridge.passticket-keys"); v && !v->empty()) {
    if (auto why = unreadable(*v)) return bad("bridge.passticket-keys", *why);
    c.passticket_keys_file = *v;
  }

  // [partner] defaults, then each [partner.G.M]: the file's keys, then the command line's over them.
  for (const char* k : {"ccsid", "conversion", "access"}) {
    const std::string key = std::string("partner.") + k;
    if (auto v = get(key.c_str())) {
      if (auto r = apply_partner_key(c.partner_defaults, key, k, *v); !r) return r.error();
    }
  }
  std::map<std::string, std::map<std::string, std::pair<std::string, std::string>>>
      per_partner;  // G.M → key → (full, value)
  for (const auto* extra : {&file_extra, &cli_extra}) {
    for (const auto& [full, value] : *extra) {
      auto split = split_partner_key(full);
      if (!split) return split.error();
      per_partner[split->first][split->second] = {full, value};
    }
  }
  for (const auto& [name, keys] : per_partner) {
    partner_config p = c.partner_defaults;
    for (const auto& [key, fv] : keys) {
      if (auto r = apply_partner_key(p, fv.first, key, fv.second); !r) return r.error();
    }
    c.partners[name] = p;
  }
  return std::optional<bridge_config>(std::move(c));
}

}  // namespace imsb::bridge
