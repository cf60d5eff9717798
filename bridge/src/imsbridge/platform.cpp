// imsbridge's platform (program.hpp default_platform): the queue manager through qmgr::connect, the
// password check against the queue manager's credential store (qmgr/credentials.hpp, kept by mqpasswd),
// users and their primary groups from the system's user directory. Outside imsb_bridge, which never
// sees qmgr/ (docs/design/layers.md).

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "imsb/bridge/program.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "imsb/qmgr/store.hpp"

namespace imsb::bridge {

namespace {

// <prefix>/qmgrs/<its folder>/qmanager/credentials of a queue manager of this machine's prefix; nullopt
// when the queue manager is not one of the prefix (a client connection to another machine: then no
// password is accepted, as the bridge cannot check one).
std::optional<std::filesystem::path> credential_file(const bridge_config& config,
                                                     const std::string& qmgr_name) {
  auto prefix = qmgr::resolve_prefix(config.qmgr_prefix);
  if (!prefix) return std::nullopt;
  auto managers = qmgr::list_queue_managers(prefix->path);
  if (!managers) return std::nullopt;
  for (const auto& m : *managers) {
    if (m.name == qmgr_name) return prefix->path / "qmgrs" / m.directory / "qmanager" / "credentials";
  }
  return std::nullopt;
}

// The user's primary group's name, "" when it has none we can name; nullopt: no such user.
std::optional<std::string> primary_group(const std::string& user) {
  if (user.empty()) return std::nullopt;
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size > 0 ? static_cast<std::size_t>(size) : 16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return std::nullopt;
  const gid_t gid = pw.pw_gid;
  size = ::sysconf(_SC_GETGR_R_SIZE_MAX);
  std::vector<char> gbuf(size > 0 ? static_cast<std::size_t>(size) : 16384);
  group gr{};
  group* gfound = nullptr;
  if (::getgrgid_r(gid, &gr, gbuf.data(), gbuf.size(), &gfound) != 0 || gfound == nullptr)
    return std::string();
  return std::string(gr.gr_name);
}

}  // namespace

program_platform default_platform() {
  program_platform p;
  p.connect = [](const bridge_config& c) {
    qmgr::connect_options o;
    o.target = c.qmgr_connect;
    o.prefix = c.qmgr_prefix;
    o.mqserver = c.qmgr_mqserver;
    o.user = c.qmgr_user;
    o.password = c.qmgr_password;
    o.appl_name = "imsbridge";
    o.tls.enabled = !c.qmgr_tls.ca_file.empty() || !c.qmgr_tls.cert_file.empty();
    o.tls.ca_file = c.qmgr_tls.ca_file;
    o.tls.cert_file = c.qmgr_tls.cert_file;
    o.tls.key_file = c.qmgr_tls.key_file;
    return qmgr::connect(o);
  };
  p.security = [](const bridge_config& c, const std::string& qmgr_name) {
    security_hooks h;
    if (auto file = credential_file(c, qmgr_name)) {
      // Read at each check: mqpasswd may change a password while the bridge runs.
      h.check_password = [f = *file](const std::string& user, const std::string& password) {
        return qmgr::credentials::check_password(f, user, password);
      };
    } else {
      h.check_password = [](const std::string&, const std::string&) { return false; };
    }
    h.user_group = primary_group;
    h.now_seconds = [] {
      return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count());
    };
    return h;
  };
  return p;
}

int run_imsbridge(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
  return run_imsbridge(argc, argv, in, out, err, default_platform());
}

}  // namespace imsb::bridge
