// connect() and bindings_socket_path() (connect.hpp): in-process, bindings socket, MQSERVER.

#include "imsb/qmgr/connect.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "client_connection.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/server.hpp"
#include "imsb/qmgr/store.hpp"
#include "imsb/sync/mutex.hpp"
#include "store_io.hpp"

namespace imsb::qmgr {
namespace {

namespace wire = mqi::wire;

decode_error mqrc_error(std::int32_t rc, std::string field, std::string detail) {
  return decode_error{mq::make_mqrc(rc), std::move(field), 0, std::move(detail)};
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// FNV-1a 64: a stable, portable hash; collisions only matter between queue managers of one user's
// runtime folder, and the name check at connect (2058) catches even those [D].
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// The folder that holds a bindings socket, chosen by the DAEMON (clients read the path it records in
// <qmgr dir>/qmanager/bindings, so their own environment does not matter) [D]:
//   IMSBRIDGE_RUNTIME_DIR when set (made 0755 when missing), else $XDG_RUNTIME_DIR/imsbridge when
//   $XDG_RUNTIME_DIR lets other users through (it is usually 0700: a socket in it would be out of their
//   reach), else /tmp/imsbridge-<uid>.
// Every user must reach the socket (authorization is SO_PEERCRED and AUTHREC, not the folder), so the
// folder is 0755; no one but the daemon's user may put a file in it, or another user could serve a
// socket of theirs where clients look (clients also check the server's uid, connect_bindings).
result<std::filesystem::path> runtime_dir() {
  namespace fs = std::filesystem;
  fs::path dir;
  bool chosen = false;
  if (const char* d = std::getenv("IMSBRIDGE_RUNTIME_DIR"); d != nullptr && *d != '\0') {
    dir = d;
    chosen = true;
  } else if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x != nullptr && *x != '\0') {
    struct stat xs {};
    if (::stat(x, &xs) == 0 && (xs.st_mode & S_IXOTH) != 0) dir = fs::path(x) / "imsbridge";
  }
  if (dir.empty()) dir = fs::path("/tmp") / ("imsbridge-" + std::to_string(::geteuid()));
  const char* what = chosen ? "the runtime folder (IMSBRIDGE_RUNTIME_DIR)" : "the runtime folder";
  if (::mkdir(dir.c_str(), 0755) == 0) {
    (void)::chmod(dir.c_str(), 0755);  // whatever the umask: others must traverse it
  } else if (errno != EEXIST) {
    return io::error_from_errno(dir, std::string("cannot make ") + what, errno);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return io::error_from_errno(dir, std::string("cannot inspect ") + what, errno);
  const bool writable_by_others = (st.st_mode & 0022) != 0 && (st.st_mode & S_ISVTX) == 0;
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || writable_by_others)
    return io::error_of(std::errc::permission_denied, dir.string(),
                        std::string(what) +
                            " must be a folder of this user that no other user can write (or with the "
                            "sticky bit)");
  // A folder an earlier version made 0700: ours, so opened to the other users' traversal.
  if (!chosen && (st.st_mode & 0055) != 0055) (void)::chmod(dir.c_str(), (st.st_mode & 07777) | 0055);
  return dir;
}

result<std::string> default_qmgr(const std::filesystem::path& prefix) {
  auto list = list_queue_managers(prefix);
  if (!list) return list.error();
  if (list->size() == 1) return list->front().name;
  // mqs.ini's DefaultQueueManager stanza, IBM's [C]: "DefaultQueueManager:" then "Name=QM".
  if (auto text = io::read_file(prefix / "mqs.ini")) {
    std::istringstream in(*text);
    std::string line;
    bool in_stanza = false;
    while (std::getline(in, line)) {
      auto t = trim(line);
      if (!t.empty() && t.back() == ':') {
        in_stanza = t == "DefaultQueueManager:";
      } else if (in_stanza && t.rfind("Name=", 0) == 0) {
        return trim(t.substr(5));
      }
    }
  }
  return mqrc_error(mq::MQRC_Q_MGR_NAME_ERROR, "MQCONN",
                    list->empty() ? "no queue manager in " + prefix.string()
                                  : "name the queue manager: " + prefix.string() +
                                        " holds several and mqs.ini names no DefaultQueueManager");
}

// One name for one folder, however the prefix was spelled (relative, with .., a trailing /, a symlink).
std::filesystem::path normal_prefix(const std::filesystem::path& prefix) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(prefix, ec);
  if (ec) abs = prefix;
  if (auto canon = std::filesystem::weakly_canonical(abs, ec); !ec) abs = canon;
  abs = abs.lexically_normal();
  if (abs.filename().empty() && abs.has_relative_path()) abs = abs.parent_path();  // "/var/mqm/"
  return abs;
}

wire::connect_request hello_of(const connect_options& o, const std::string& qmgr_name, bool tcp) {
  wire::connect_request r;
  r.qmgr_name = qmgr_name;
  r.user = o.user;
  // The password only goes over TCP: a bindings peer is its OS user (SO_PEERCRED), and a password sent
  // to a socket could reach whoever serves it [D].
  if (tcp) r.password = o.password;
  r.appl_name = o.appl_name.substr(0, 28);
  return r;
}

// ---- in-process ---------------------------------------------------------------------------------

// A queue manager running inside this program, with its server; shared by its connections and ended
// by the last one [D] (connect.hpp).
struct local_qmgr {
  std::unique_ptr<queue_manager> qm;
  std::unique_ptr<server> srv;
  ~local_qmgr() {
    srv.reset();  // first: its threads use qm
    qm.reset();
  }
};

sync::mutex local_mutex;
std::map<std::string, std::weak_ptr<local_qmgr>> local_registry IMSB_GUARDED_BY(local_mutex);

class local_connection final : public mqi::connection {
 public:
  local_connection(std::shared_ptr<local_qmgr> owner, std::unique_ptr<mqi::connection> inner)
      : owner_(std::move(owner)), inner_(std::move(inner)) {}
  ~local_connection() override {
    inner_.reset();  // before the queue manager it belongs to
    sync::lock_guard lock(local_mutex);
    owner_.reset();  // under the registry's lock, so that connect() never finds a half-ended one
  }
  const std::string& qmgr_name() const override { return inner_->qmgr_name(); }
  mqi::result<mqi::open_result> open(const mqi::object_descriptor& od, std::int32_t options) override {
    return inner_->open(od, options);
  }
  mqi::result<mqi::done> close(mqi::hobj h) override { return inner_->close(h); }
  mqi::result<mqi::put_result> put(mqi::hobj h, const mq::mqmd& md, bytes_view data,
                                   std::int32_t o) override {
    return inner_->put(h, md, data, o);
  }
  mqi::result<mqi::put_result> put1(const mqi::object_descriptor& od, const mq::mqmd& md, bytes_view data,
                                    std::int32_t o) override {
    return inner_->put1(od, md, data, o);
  }
  mqi::result<mqi::message> get(mqi::hobj h, const mqi::get_request& r) override { return inner_->get(h, r); }
  mqi::result<mqi::inquiry> inquire(mqi::hobj h, const std::vector<std::int32_t>& s) override {
    return inner_->inquire(h, s);
  }
  mqi::result<std::vector<mqi::object_attributes>> inquire_objects(const std::string& type,
                                                                   const std::string& generic) override {
    return inner_->inquire_objects(type, generic);
  }
  mqi::result<mqi::mqsc_reply> mqsc(const std::string& script) override { return inner_->mqsc(script); }
  mqi::result<mqi::done> commit() override { return inner_->commit(); }
  mqi::result<mqi::done> backout() override { return inner_->backout(); }
  mqi::result<mqi::done> set(mqi::hobj h, const std::vector<std::int32_t>& s,
                             const std::vector<std::int32_t>& i, const std::vector<std::string>& c) override {
    return inner_->set(h, s, i, c);
  }
  mqi::result<mqi::done> begin() override { return inner_->begin(); }
  mqi::result<mqi::status_report> stat(std::int32_t type) override { return inner_->stat(type); }
  mqi::result<mqi::done> callback(std::int32_t op, const mqi::callback_descriptor& cbd, mqi::hobj h,
                                  const mqi::get_request& r) override {
    return inner_->callback(op, cbd, h, r);
  }
  mqi::result<mqi::done> control(std::int32_t op) override { return inner_->control(op); }
  void stop() noexcept override { inner_->stop(); }
  mqi::result<mqi::done> disconnect() override { return inner_->disconnect(); }

 private:
  std::shared_ptr<local_qmgr> owner_;
  std::unique_ptr<mqi::connection> inner_;
};

result<std::unique_ptr<mqi::connection>> connect_local(const connect_options& o,
                                                       const std::filesystem::path& prefix,
                                                       const std::string& name) {
  std::string key = normal_prefix(prefix).string() + '\0' + name;
  std::shared_ptr<local_qmgr> owner;
  {
    sync::lock_guard lock(local_mutex);
    auto it = local_registry.find(key);
    if (it != local_registry.end()) owner = it->second.lock();
    if (!owner) {
      auto store = queue_manager_store::open(prefix, name);
      if (!store) {
        auto e = store.error();
        e.code = mq::make_mqrc(mq::MQRC_Q_MGR_NAME_ERROR);
        return e;
      }
      auto qlock = store->try_lock();
      if (!qlock)
        return mqrc_error(mq::MQRC_Q_MGR_NOT_AVAILABLE, "MQCONN",
                          "queue manager " + name +
                              " is in use by another process (running as a daemon: "
                              "connect with \"" +
                              name + "\" instead of \"local:" + name + "\"): " + qlock.error().to_string());
      auto qm = queue_manager::start(std::move(*store), std::move(*qlock), runtime_options{});
      if (!qm) return qm.error();
      auto made = std::make_shared<local_qmgr>();
      made->qm = std::move(*qm);
      server_options so;
      auto sock = bindings_socket_path(prefix, name);
      if (!sock) return sock.error();
      so.bindings_socket = *sock;
      so.credential_file = made->qm->store().directory() / "qmanager" / "credentials";
      auto srv = server::start(*made->qm, so);
      if (!srv) return srv.error();
      made->srv = std::move(*srv);
      if (auto r = record_bindings_socket(made->qm->store().directory(), *sock); !r) return r.error();
      owner = made;
      local_registry[key] = owner;
    }
  }
  auto who = detail::os_principal(::geteuid(), ::getegid());
  who.administrator = true;  // this program is the queue manager: its owner [D]
  who.appl_name = o.appl_name.substr(0, 28);
  auto inner = owner->qm->connect(who);
  if (!inner) {
    sync::lock_guard lock(local_mutex);
    owner.reset();
    return inner.error();
  }
  return std::unique_ptr<mqi::connection>(std::make_unique<local_connection>(owner, std::move(*inner)));
}

// ---- bindings -----------------------------------------------------------------------------------

sync::mutex owner_hook_mutex;
std::optional<unsigned> owner_override
    IMSB_GUARDED_BY(owner_hook_mutex);  // detail::override_qmgr_owner_for_tests

// Where the daemon of `name` serves, and which uid must serve it: the path recorded in
// <qmgr dir>/qmanager/bindings and the owner of the queue manager's folder; for a queue manager without
// that file (a daemon of an earlier version, a test's server) the path bindings_socket_path computes in
// this user's runtime folder, served by this user [D].
struct bindings_target {
  std::filesystem::path socket;
  uid_t owner = 0;
};

result<bindings_target> find_bindings(const std::filesystem::path& prefix, const std::string& name) {
  bindings_target t;
  t.owner = ::geteuid();
  bool recorded = false;
  if (auto store = queue_manager_store::open(prefix, name)) {
    struct stat st {};
    if (::stat(store->directory().c_str(), &st) == 0) t.owner = st.st_uid;
    if (auto text = io::read_file(store->directory() / "qmanager" / "bindings")) {
      auto path = trim(*text);
      if (!path.empty() && path.front() == '/') {
        t.socket = path;
        recorded = true;
      }
    }
  }
  if (!recorded) {
    auto path = bindings_socket_path(prefix, name);
    if (!path) return path.error();
    t.socket = *path;
  }
  {
    sync::lock_guard lock(owner_hook_mutex);
    if (owner_override) t.owner = static_cast<uid_t>(*owner_override);
  }
  return t;
}

result<std::unique_ptr<mqi::connection>> connect_bindings(const connect_options& o,
                                                          const std::filesystem::path& prefix,
                                                          const std::string& name) {
  auto target = find_bindings(prefix, name);
  if (!target) return target.error();
  const auto& path = target->socket;
  if (path.string().size() >= sizeof(sockaddr_un{}.sun_path))
    return mqrc_error(mq::MQRC_Q_MGR_NOT_AVAILABLE, "MQCONN",
                      "the bindings socket path " + path.string() + " is too long for a Unix socket");
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return mqrc_error(mq::MQRC_Q_MGR_NOT_AVAILABLE, "MQCONN", std::string("socket: ") + std::strerror(errno));
  auto s = std::make_unique<detail::stream>(fd);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return mqrc_error(mq::MQRC_Q_MGR_NOT_AVAILABLE, "MQCONN",
                      "queue manager " + name + " is not running (nothing answers on " + path.string() +
                          ": " + std::strerror(errno) + ")");
  // Only the queue manager's owner may serve it: a socket someone else put in the path (a runtime
  // folder they could write, a recorded path they could change) must not get our connection [D].
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return mqrc_error(mq::MQRC_Q_MGR_NOT_AVAILABLE, "MQCONN",
                      std::string("SO_PEERCRED on ") + path.string() + ": " + std::strerror(errno));
  if (cred.uid != target->owner)
    return mqrc_error(mq::MQRC_Q_MGR_NOT_AVAILABLE, "MQCONN",
                      "socket not served by the queue manager's owner: " + path.string() +
                          " is served by uid " + std::to_string(cred.uid) + ", queue manager " + name +
                          " belongs to uid " + std::to_string(target->owner));
  return detail::make_client_connection(std::move(s), hello_of(o, name, false), path.string());
}

// ---- client (MQSERVER) --------------------------------------------------------------------------

struct server_address {
  std::string host;
  std::string port = "1414";  // IBM's default port [C]
};

result<server_address> parse_mqserver(const std::string& text) {
  // CHANNEL/TCP/host(port) [C]; a list of addresses (a,b) takes the first [I].
  auto bad = [&](const std::string& why) {
    return mqrc_error(mq::MQRC_HOST_NOT_AVAILABLE, "MQSERVER",
                      "\"" + text + "\" " + why + " (expected CHANNEL/TCP/host(port))");
  };
  auto s1 = text.find('/');
  auto s2 = s1 == std::string::npos ? s1 : text.find('/', s1 + 1);
  if (s2 == std::string::npos) return bad("has not three parts");
  auto transport = text.substr(s1 + 1, s2 - s1 - 1);
  for (auto& c : transport) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (transport != "TCP") return bad("names a transport other than TCP");
  auto conn = trim(text.substr(s2 + 1));
  if (auto comma = conn.find(','); comma != std::string::npos) conn = conn.substr(0, comma);
  server_address a;
  if (auto open = conn.rfind('('); open != std::string::npos) {
    if (conn.back() != ')') return bad("has a port without its closing parenthesis");
    a.port = trim(conn.substr(open + 1, conn.size() - open - 2));
    conn = conn.substr(0, open);
  }
  a.host = trim(conn);
  if (a.host.empty()) return bad("names no host");
  if (a.port.empty() || a.port.find_first_not_of("0123456789") != std::string::npos)
    return bad("has a bad port");
  return a;
}

result<std::unique_ptr<mqi::connection>> connect_client(const connect_options& o, const std::string& mqserver,
                                                        const std::string& qmgr_name) {
  auto a = parse_mqserver(mqserver);
  if (!a) return a.error();
  std::string where = a->host + "(" + a->port + ")";
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (int rc = ::getaddrinfo(a->host.c_str(), a->port.c_str(), &hints, &list); rc != 0)
    return mqrc_error(mq::MQRC_HOST_NOT_AVAILABLE, "MQCONN",
                      "cannot resolve " + where + ": " + ::gai_strerror(rc));
  int fd = -1;
  int last_errno = 0;
  for (auto* ai = list; ai != nullptr; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    last_errno = errno;
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(list);
  if (fd < 0)
    return mqrc_error(last_errno == ECONNREFUSED ? mq::MQRC_Q_MGR_NOT_AVAILABLE : mq::MQRC_HOST_NOT_AVAILABLE,
                      "MQCONN", "nothing answers at " + where + ": " + std::strerror(last_errno));
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // one small request, one response
  std::unique_ptr<detail::stream> s;
  if (o.tls.enabled) {
    auto ctx = detail::make_tls_context(o.tls, false);
    if (!ctx) {
      ::close(fd);
      return ctx.error();
    }
    SSL* ssl = SSL_new(ctx->get());
    if (ssl == nullptr) {
      ::close(fd);
      return mqrc_error(mq::MQRC_HOST_NOT_AVAILABLE, "TLS", detail::openssl_errors());
    }
    s = std::make_unique<detail::stream>(fd, ssl);
    SSL_set_fd(ssl, fd);
    // SNI; SSL_set_tlsext_host_name is a macro with a C cast that -Wold-style-cast refuses.
    SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(a->host.c_str()));
    // The server's certificate must name the host we asked for: its DNS name, or an IP address in its
    // subjectAltName when we asked for an address.
    in6_addr any{};
    if (::inet_pton(AF_INET, a->host.c_str(), &any) == 1 ||
        ::inet_pton(AF_INET6, a->host.c_str(), &any) == 1) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), a->host.c_str());
    } else {
      SSL_set1_host(ssl, a->host.c_str());
    }
    detail::sigpipe_guard guard;
    if (SSL_connect(ssl) != 1)
      return mqrc_error(mq::MQRC_HOST_NOT_AVAILABLE, "TLS",
                        "TLS handshake with " + where + " failed: " + detail::openssl_errors());
  } else {
    s = std::make_unique<detail::stream>(fd);
  }
  return detail::make_client_connection(std::move(s), hello_of(o, qmgr_name, true), where);
}

}  // namespace

result<std::filesystem::path> bindings_socket_path(const std::filesystem::path& prefix,
                                                   const std::string& qmgr_name) {
  auto dir = runtime_dir();
  if (!dir) return dir.error();
  auto abs = normal_prefix(prefix);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a(abs.string() + std::string(1, '\0') + qmgr_name)));
  auto path = *dir / (std::string(hex) + ".sock");
  if (path.string().size() >= sizeof(sockaddr_un{}.sun_path))
    return io::error_of(std::errc::filename_too_long, path.string(),
                        "the socket path is longer than a Unix socket allows (107 bytes): set "
                        "IMSBRIDGE_RUNTIME_DIR to a shorter folder");
  return path;
}

result<done> record_bindings_socket(const std::filesystem::path& qmgr_dir,
                                    const std::filesystem::path& socket) {
  // Every user connects through it: 0777 (authorization is SO_PEERCRED and AUTHREC) [D].
  if (::chmod(socket.c_str(), 0777) != 0)
    return io::error_from_errno(socket, "cannot open the bindings socket to every user", errno);
  auto abs = std::filesystem::absolute(socket);
  auto w = io::write_file_atomically(qmgr_dir / "qmanager" / "bindings", abs.string() + "\n");
  if (!w) return w.error();
  return std::monostate{};
}

namespace detail {
void override_qmgr_owner_for_tests(std::optional<unsigned> uid) {
  sync::lock_guard lock(owner_hook_mutex);
  owner_override = uid;
}
}  // namespace detail

result<std::unique_ptr<mqi::connection>> connect(const connect_options& options) {
  const std::string local = "local:";
  bool in_process = options.target.rfind(local, 0) == 0;
  std::string name = trim(in_process ? options.target.substr(local.size()) : options.target);
  if (!in_process) {
    std::optional<std::string> mqserver = options.mqserver;
    if (!mqserver) {
      if (const char* env = std::getenv("MQSERVER"); env != nullptr && *env != '\0') mqserver = env;
    }
    if (mqserver) return connect_client(options, *mqserver, name);
  }
  auto prefix = resolve_prefix(options.prefix);
  if (!prefix) {
    auto e = prefix.error();
    e.code = mq::make_mqrc(mq::MQRC_Q_MGR_NOT_AVAILABLE);
    return e;
  }
  if (name.empty()) {
    auto d = default_qmgr(prefix->path);
    if (!d) return d.error();
    name = *d;
  }
  if (in_process) return connect_local(options, prefix->path, name);
  return connect_bindings(options, prefix->path, name);
}

}  // namespace imsb::qmgr
