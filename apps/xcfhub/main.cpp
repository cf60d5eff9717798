// xcfhub: the TCP emulator of XCF signalling (transport/README.md). All logic is in imsb_transport_hub
// (imsb/transport/hub.hpp); this file parses options, writes the port file, handles signals and exits.

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/program_options.hpp>

#include "imsb/core/messages.hpp"
#include "imsb/transport/hub.hpp"

namespace po = boost::program_options;
namespace msg = imsb::msg;
using imsb::transport::hub_options;

namespace {

constexpr int exit_ok = 0;
constexpr int exit_usage = 2;
constexpr int exit_failed = 8;  // cannot start (listen, TLS files, port file) / status cannot reach the hub
constexpr int exit_internal = 12;

const char* const usage_text = R"(Usage:
  xcfhub [options]                 run the hub (until SIGINT or SIGTERM)
  xcfhub status --connect HOST:PORT [options]
                                   list the groups and members of a running hub

xcfhub emulates XCF signalling over TCP (transport/README.md): members of XCF groups (IMS OTMA, the
MQ-IMS bridge, imsemu) connect, join groups, exchange messages and see each other's state changes.
Console lines go to standard error, each with a message ID (IMB3001I listening on HOST:PORT, ...;
docs/messages.md explains them).
)";

const char* const exit_text = R"(
Exit codes:
  0   the hub stopped on SIGINT/SIGTERM; status printed the listing
  2   usage error: unknown option, missing or bad value (IMB3016E), a bad --allow value (IMB3019E)
  8   the hub could not start (IMB3017E listen, IMB3018E TLS files, IMB3019E allow-list file, IMB3020E
      port file); status could not reach the hub (IMB3021E) or use its answer (IMB3022E)
  12  internal error (IMB3024S)
)";

struct usage_error {
  std::string text;
};

[[noreturn]] void usage(const std::string& text) { throw usage_error{text}; }

std::uint64_t in_range(const po::variables_map& vm, const char* name, std::int64_t lo, std::int64_t hi) {
  const auto v = vm[name].as<std::int64_t>();
  if (v < lo || v > hi) {
    usage("--" + std::string(name) + " " + std::to_string(v) + ": must be " + std::to_string(lo) + " to " +
          std::to_string(hi));
  }
  return static_cast<std::uint64_t>(v);
}

imsb::transport::endpoint_spec endpoint(const std::string& option, const std::string& text) {
  imsb::transport::endpoint_spec spec;
  std::string error;
  if (!imsb::transport::parse_endpoint(text, spec, error)) usage("--" + option + ": " + error);
  return spec;
}

// One write per line, the newline included (std::cerr is unbuffered: no std::endl flush on top), so
// lines of the hub never interleave with each other.
void log_line(imsb::transport::log_level, std::string_view line) {
  std::string text;
  text.reserve(line.size() + 1);
  text.append(line);
  text += '\n';
  std::cerr.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// Writes FILE.tmp, then renames it: a reader never sees a partial port number.
bool write_port_file(const std::string& path, std::uint16_t port, std::string& error) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << '\n';
    out.flush();
    if (!out) {
      error = "cannot write '" + tmp + "'";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path + "'";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

po::options_description common_tls_options(bool server) {
  po::options_description tls(server ? "TLS (all connections TLS when --tls-cert and --tls-key are given)"
                                     : "TLS (used when any of these is given)");
  if (server) {
    tls.add_options()                                                                 //
        ("tls-cert", po::value<std::string>(), "PEM certificate (chain) of the hub")  //
        ("tls-key", po::value<std::string>(), "PEM private key of --tls-cert")        //
        ("tls-ca", po::value<std::string>(),
         "PEM CA file: clients must present a certificate signed by it (mutual TLS)");
  } else {
    tls.add_options()                                                                                    //
        ("tls-ca", po::value<std::string>(), "PEM CA file the hub's certificate is verified against")    //
        ("tls-cert", po::value<std::string>(), "PEM client certificate to present (hub with --tls-ca)")  //
        ("tls-key", po::value<std::string>(), "PEM private key of --tls-cert");
  }
  return tls;
}

imsb::transport::tls_files tls_from(const po::variables_map& vm) {
  imsb::transport::tls_files t;
  if (vm.count("tls-cert")) t.cert_file = vm["tls-cert"].as<std::string>();
  if (vm.count("tls-key")) t.key_file = vm["tls-key"].as<std::string>();
  if (vm.count("tls-ca")) t.ca_file = vm["tls-ca"].as<std::string>();
  return t;
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc) {
  po::variables_map vm;
  const po::positional_options_description none;  // "xcfhub extra" is an error, not ignored
  po::store(po::command_line_parser(args).options(desc).positional(none).run(), vm);
  po::notify(vm);
  return vm;
}

int run_status(const std::vector<std::string>& args) {
  po::options_description general("xcfhub status options");
  general.add_options()                                                                      //
      ("help,h", "print this help and exit")                                                 //
      ("connect", po::value<std::string>(), "HOST:PORT of the hub (IPv6: [::1]:5099)")       //
      ("json", "print JSON: {\"groups\":[{\"group\":..,\"members\":[{\"name\":..,...}]}]}")  //
      ("timeout-ms", po::value<std::int64_t>()->default_value(5000), "give up after this long (ms)");
  po::options_description all;
  all.add(general).add(common_tls_options(false));
  const auto vm = parse(args, all);
  if (vm.count("help")) {
    std::cout << usage_text << '\n' << all << exit_text;
    return exit_ok;
  }
  if (!vm.count("connect")) usage("status needs --connect HOST:PORT");
  imsb::transport::status_request request;
  request.connect = endpoint("connect", vm["connect"].as<std::string>());
  request.tls = tls_from(vm);
  request.timeout = std::chrono::milliseconds(in_range(vm, "timeout-ms", 1, 3600 * 1000));
  const auto result = imsb::transport::query_status(request);
  if (!result.ok) {
    std::cerr << result.error_id << ' ' << result.error << std::endl;
    return exit_failed;
  }
  std::cout << (vm.count("json") ? imsb::transport::format_status_json(result.members)
                                 : imsb::transport::format_status(result.members))
            << std::flush;
  return exit_ok;
}

int run_hub(const std::vector<std::string>& args) {
  po::options_description general("xcfhub options");
  general.add_options()                       //
      ("help,h", "print this help and exit")  //
      ("listen", po::value<std::string>()->default_value("127.0.0.1:5099"),
       "HOST:PORT to listen on; port 0 lets the system choose (see --port-file); IPv6: [::1]:0")  //
      ("port-file", po::value<std::string>(),
       "once listening, write the bound port to this file (via FILE.tmp)")  //
      ("system", po::value<std::string>()->default_value("XCFHUB"),
       "system name members are shown on (1-8 characters A-Z 0-9 $ # @)")  //
      ("max-message", po::value<std::int64_t>()->default_value(imsb::xcf::frame::default_max_payload),
       "largest frame payload accepted, bytes (4096 to 134217728); larger frames: ERROR and close")  //
      ("target-buffer", po::value<std::int64_t>(),
       "bytes queued to one member and not yet written before SENDs to it are refused with 12/0 "
       "(default 8388608, at least --max-message + 16); a connection that leaves twice this unread is "
       "closed as a slow consumer (IMB3025W)")  //
      ("heartbeat-ms", po::value<std::int64_t>()->default_value(1000),
       "PING interval (10 to 3600000); a connection that sends no whole frame for 3 intervals is closed "
       "(a joined member fails); a TLS handshake gets 3 intervals, at least 5 s")  //
      ("max-connections", po::value<std::int64_t>()->default_value(1024),
       "connections open at once, joined or not (1 to 1000000); more are accepted and closed (IMB3026W)")  //
      ("max-members", po::value<std::int64_t>()->default_value(4096),
       "member records in all groups, failed and quiesced ones included (1 to 65536); a JOIN that needs "
       "one more is answered 12/0")  //
      ("allow", po::value<std::vector<std::string>>()->composing(),
       "GROUP=M1,M2: the group admits only these members (others: JOIN 8/18); repeatable")  //
      ("allow-file", po::value<std::vector<std::string>>()->composing(),
       "file of GROUP=M1,M2 lines (# starts a comment); repeatable")  //
      ("log-level", po::value<std::string>()->default_value("info"), "error, warning, info or debug");
  po::options_description all;
  all.add(general).add(common_tls_options(true));
  const auto vm = parse(args, all);
  if (vm.count("help")) {
    std::cout << usage_text << '\n' << all << exit_text;
    return exit_ok;
  }

  hub_options options;
  options.listen = endpoint("listen", vm["listen"].as<std::string>());
  options.system_name = vm["system"].as<std::string>();
  options.max_message =
      static_cast<std::uint32_t>(in_range(vm, "max-message", 4096, imsb::xcf::frame::hard_max_payload));
  if (vm.count("target-buffer")) {
    options.target_buffer =
        static_cast<std::size_t>(in_range(vm, "target-buffer", 1, std::numeric_limits<std::int64_t>::max()));
  }
  options.heartbeat = std::chrono::milliseconds(in_range(vm, "heartbeat-ms", 10, 3600 * 1000));
  options.max_connections = static_cast<std::size_t>(
      in_range(vm, "max-connections", 1, static_cast<std::int64_t>(imsb::transport::max_max_connections)));
  options.max_members = static_cast<std::size_t>(
      in_range(vm, "max-members", 1, static_cast<std::int64_t>(imsb::transport::max_max_members)));
  if (!imsb::transport::parse_log_level(vm["log-level"].as<std::string>(), options.level)) {
    usage("--log-level '" + vm["log-level"].as<std::string>() + "': must be error, warning, info or debug");
  }
  options.tls = tls_from(vm);
  options.log = log_line;
  std::string error;
  if (vm.count("allow")) {
    for (const auto& entry : vm["allow"].as<std::vector<std::string>>()) {
      if (!imsb::transport::add_allow_entry(entry, options.allow, error)) {
        std::cerr << msg::IMB3019E << " --allow " << error << " (xcfhub --help)" << std::endl;
        return exit_usage;  // a bad option value, like IMB3016E (exit codes in --help)
      }
    }
  }
  if (vm.count("allow-file")) {
    for (const auto& file : vm["allow-file"].as<std::vector<std::string>>()) {
      if (!imsb::transport::load_allow_file(file, options.allow, error)) {
        std::cerr << msg::IMB3019E << ' ' << error << std::endl;
        return exit_failed;
      }
    }
  }

  // A port file left by an earlier run must not be taken for this one's: gone before we listen, so a
  // script that waits for it sees only ours.
  const std::string port_file = vm.count("port-file") ? vm["port-file"].as<std::string>() : std::string();
  if (!port_file.empty() && std::remove(port_file.c_str()) != 0 && errno != ENOENT) {
    std::cerr << msg::IMB3020E << " cannot remove the old port file '" << port_file
              << "': " << std::strerror(errno) << std::endl;
    return exit_failed;
  }

  boost::asio::io_context io;
  imsb::transport::hub hub(io, options);
  // Armed before the hub listens: a SIGTERM that comes as soon as the port file is there (or even
  // earlier) is handled by the io_context and stops the hub with exit 0, never kills it.
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    std::cerr << msg::IMB3023I << " signal " << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ": stopping"
              << std::endl;
    hub.stop();
  });
  try {
    hub.start();
  } catch (const imsb::transport::hub_start_error& e) {
    std::cerr << e.id() << ' ' << e.what() << std::endl;
    return e.id() == msg::IMB3016E ? exit_usage : exit_failed;
  }
  if (!port_file.empty() && !write_port_file(port_file, hub.port(), error)) {
    std::cerr << msg::IMB3020E << ' ' << error << std::endl;
    hub.stop();
    return exit_failed;
  }
  io.run();
  // A clean stop leaves no port file that names a port nobody listens on.
  if (!port_file.empty()) std::remove(port_file.c_str());
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && args.front() == "status") {
      args.erase(args.begin());
      return run_status(args);
    }
    return run_hub(args);
  } catch (const usage_error& e) {
    std::cerr << msg::IMB3016E << ' ' << e.text << " (xcfhub --help)" << std::endl;
    return exit_usage;
  } catch (const po::error& e) {
    std::cerr << msg::IMB3016E << ' ' << e.what() << " (xcfhub --help)" << std::endl;
    return exit_usage;
  } catch (const std::exception& e) {
    std::cerr << msg::IMB3024S << ' ' << e.what() << std::endl;
    return exit_internal;
  }
}
