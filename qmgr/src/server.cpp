// The server (server.hpp): the bindings socket and TCP listeners, a thread per connection.

#include "imsb/qmgr/server.hpp"

#include <arpa/inet.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "client_connection.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/objects/object.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "store_io.hpp"
#include "wait_watcher.hpp"

namespace imsb::qmgr {

namespace wire = mqi::wire;

// ---- OS users (client_connection.hpp) ------------------------------------------------------------

namespace detail {
namespace {

std::vector<std::string> groups_of(const std::string& user, gid_t gid) {
  std::vector<gid_t> ids(64);
  int n = static_cast<int>(ids.size());
  if (::getgrouplist(user.c_str(), gid, ids.data(), &n) < 0) {
    ids.resize(static_cast<std::size_t>(n));
    if (::getgrouplist(user.c_str(), gid, ids.data(), &n) < 0) n = 0;
  }
  ids.resize(static_cast<std::size_t>(std::max(n, 0)));
  std::vector<std::string> names;
  std::vector<char> buf(16384);
  for (gid_t g : ids) {
    group gr{};
    group* found = nullptr;
    if (::getgrgid_r(g, &gr, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
      names.emplace_back(found->gr_name);
    }
  }
  return names;
}

principal principal_of(const std::string& name, uid_t uid, gid_t gid) {
  principal p;
  p.user = name;
  p.groups = groups_of(name, gid);
  p.administrator =
      uid == ::geteuid() || std::find(p.groups.begin(), p.groups.end(), "mqm") != p.groups.end();
  return p;
}

}  // namespace

principal os_principal(unsigned uid, unsigned gid) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    principal p;
    p.user = std::to_string(uid);  // a uid without a name: authorized by AUTHREC on the number [D]
    p.administrator = uid == ::geteuid();
    return p;
  }
  return principal_of(found->pw_name, found->pw_uid, gid);  // the peer's gid, from SO_PEERCRED
}

principal named_principal(const std::string& user) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    principal p;
    p.user = user;
    return p;
  }
  return principal_of(found->pw_name, found->pw_uid, found->pw_gid);
}

}  // namespace detail

// ---- the server ---------------------------------------------------------------------------------

namespace {

std::string line(std::string_view id, const std::string& text) { return std::string(id) + ": " + text; }

// A peer's string as it may go into a log line: at most `max` bytes of it, control characters (a forged
// line break) and non-ASCII bytes as \xNN, "..." when cut [D]. Before login anybody may send anything:
// the error log must not be theirs to fill or forge.
std::string clean(std::string_view text, std::size_t max = 64) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

// The connect frame's body is at most this long: four short strings. The cap applies from the header, before
// any body is read, so that an unauthenticated peer cannot make the server buffer (or log) megabytes [D].
constexpr std::size_t max_connect_body = 4096;

wire::status status_of(const decode_error& e) {
  wire::status st;
  // An error from below that carries no MQRC (a file-system errno) is MQRC_UNEXPECTED_ERROR with its
  // words [D]: the client protocol carries reason codes only.
  st.completion_code = mq::MQCC_FAILED;
  st.reason = mqi::reason_of(e);
  st.detail = e.to_string();
  return st;
}

// The answer to one call: its completion, and its value when there is one (MQCC_OK or MQCC_WARNING).
template <class T>
bool answer_status(const mqi::result<T>& x, wire::status& st) {
  if (!x) {
    st = status_of(x.error());
    return false;
  }
  st.completion_code = x.completion_code();  // MQCC_WARNING too (2079, MQBEGIN's 2121)
  st.reason = x.reason();
  st.detail = x.detail();
  return true;
}
template <class T, class V>
void answer(mqi::result<T>&& x, wire::status& st, V& value) {
  if (answer_status(x, st)) value = std::move(x).value();
}
template <class T>
void answer(mqi::result<T>&& x, wire::status& st) {
  (void)answer_status(x, st);
}

std::string peer_address(const sockaddr_storage& ss) {
  char host[NI_MAXHOST] = "?";
  char port[NI_MAXSERV] = "?";
  ::getnameinfo(reinterpret_cast<const sockaddr*>(&ss), sizeof ss, host, sizeof host, port, sizeof port,
                NI_NUMERICHOST | NI_NUMERICSERV);
  return std::string(host) + "(" + port + ")";
}

}  // namespace

struct server::impl {
  queue_manager* qm = nullptr;
  server_options options;
  std::shared_ptr<SSL_CTX> tls_ctx;  // for TCP listeners when options.tls.enabled

  struct acceptor {
    std::string name;
    std::string address;
    std::uint16_t port = 0;
    int fd = -1;
    bool tcp = false;
    std::atomic<bool> stopping{false};
    std::thread thread;
  };
  struct conn {
    std::unique_ptr<detail::stream> s;  // reset (closed) by its thread when it ends, under mu
    std::thread thread;
    bool done = false;
    bool logged_in = false;            // under mu
    std::atomic<bool> evicted{false};  // shed before login by a newer connection: ends without a log line
  };

  mutable std::mutex mu;
  detail::wait_watcher watcher;  // the sockets of connections waiting in an MQGET
  std::unique_ptr<acceptor> bindings;
  std::map<std::string, std::unique_ptr<acceptor>> listeners;
  std::list<std::shared_ptr<conn>> conns;
  std::size_t active = 0;   // connections with a thread
  std::size_t pending = 0;  // of which not logged in yet
  bool stopped = false;
  // Connections shed at accept (over max_connections, or pending ones evicted) are logged once per burst:
  // the first, then a count at most every 10 s while it lasts [D].
  std::size_t shed_unlogged = 0;
  bool shedding = false;
  std::chrono::steady_clock::time_point shed_logged_at;

  void log(std::string_view id, const std::string& text) { qm->log_error(line(id, text)); }

  void accept_loop(acceptor* a);
  void note_shed(const std::string& why);
  void serve(std::shared_ptr<conn> c, bool tcp, std::string peer);
  void reap_locked(std::vector<std::thread>& finished);
  void stop_acceptor(acceptor& a);
  std::optional<std::vector<std::string>> runtime_command(const std::string& verb, const std::string& type,
                                                          const std::string& name);
  result<std::uint16_t> listen_tcp(const std::string& name, const std::string& address, std::uint16_t port);
};

void server::impl::reap_locked(std::vector<std::thread>& finished) {
  for (auto it = conns.begin(); it != conns.end();) {
    if ((*it)->done) {
      finished.push_back(std::move((*it)->thread));
      it = conns.erase(it);
    } else {
      ++it;
    }
  }
}

void server::impl::accept_loop(acceptor* a) {
  for (;;) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = ::accept4(a->fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
    if (a->stopping.load()) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      log(msg::IMB1207E, "accept on " +
                             (a->tcp ? a->address + "(" + std::to_string(a->port) + ")" : a->address) +
                             " failed: " + std::strerror(errno));
      pollfd p{a->fd, 0, 0};
      ::poll(&p, 1, 100);  // EMFILE and the like: give the other connections time to end
      continue;
    }
    std::string peer;
    if (a->tcp) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      detail::set_keepalive(fd, options.keepalive_idle_s, options.keepalive_interval_s,
                            options.keepalive_count);
      peer = peer_address(ss);
    }
    // The limits are checked here, before a thread exists: a flood of sockets costs a file descriptor
    // each for a moment, never a thread [D].
    auto c = std::make_shared<conn>();
    c->s = std::make_unique<detail::stream>(fd);
    std::vector<std::thread> finished;
    std::string shed;          // why a connection was shed (for the burst's log line)
    std::string thread_error;  // std::thread could not start (EAGAIN)
    bool refused = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      reap_locked(finished);
      if (active >= options.max_connections) {
        refused = true;
        shed = "connection limit " + std::to_string(options.max_connections) + " reached";
      } else {
        if (pending >= std::max<std::size_t>(options.max_login_pending, 1)) {
          // The oldest connection still not logged in makes room: silent sockets cannot lock out a real
          // user, who logs in within a moment of connecting [D].
          for (auto& old : conns) {
            if (!old->logged_in && !old->done && !old->evicted && old->s) {
              old->evicted = true;  // counted out now: its thread is on its way out
              old->s->shutdown();
              --active;
              --pending;
              break;
            }
          }
          shed = std::to_string(options.max_login_pending) +
                 " connections waiting to log in: the oldest closed to make room";
        }
        conns.push_back(c);
        ++active;
        ++pending;
        try {
          c->thread = std::thread([this, c, tcp = a->tcp, peer] { serve(c, tcp, peer); });
        } catch (const std::system_error& e) {
          conns.pop_back();
          --active;
          --pending;
          thread_error = e.what();
        }
      }
      if (shed.empty() && thread_error.empty()) shedding = false;  // the burst is over
    }
    for (auto& t : finished) t.join();
    if (refused) {
      // Answer MQRC_MAX_CONNS_LIMIT_REACHED without reading the connect frame: sent without blocking, what
      // the peer sent drained (so that TCP does not reset the answer away), then closed.
      wire::connect_response no;
      no.st.completion_code = mq::MQCC_FAILED;
      no.st.reason = mq::MQRC_MAX_CONNS_LIMIT_REACHED;
      no.st.detail =
          "the queue manager serves its most connections (" + std::to_string(options.max_connections) + ")";
      bytes out;
      wire::encode_response(wire::frame_type::connect, no, out);
      (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      char drain[4096];
      (void)::recv(fd, drain, sizeof drain, MSG_DONTWAIT);
      ::shutdown(fd, SHUT_WR);
      c.reset();  // closes
    }
    if (!thread_error.empty()) {
      c.reset();
      log(msg::IMB1203E, "connection from " + (a->tcp ? peer : std::string("the bindings socket")) +
                             " closed: no thread for it (" + thread_error + ")");
    }
    if (!shed.empty()) note_shed(shed);
  }
}

void server::impl::note_shed(const std::string& why) {
  auto now = std::chrono::steady_clock::now();
  std::size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    ++shed_unlogged;
    if (shedding && now - shed_logged_at < std::chrono::seconds(10)) return;
    shedding = true;
    shed_logged_at = now;
    n = shed_unlogged;
    shed_unlogged = 0;
  }
  log(msg::IMB1203E, why + (n > 1 ? " (" + std::to_string(n) + " connections shed since the last line)"
                                  : std::string(" (logged once per burst)")));
}

void server::impl::serve(std::shared_ptr<conn> c, bool tcp, std::string peer) {
  detail::stream& s = *c->s;
  std::unique_ptr<mqi::connection> mq;  // the engine's connection, once connect succeeded
  std::string who = tcp ? peer : std::string("a bindings peer");
  bool disconnected = false;

  auto send = [&](wire::frame_type t, const wire::response& r) {
    bytes out;
    wire::encode_response(t, r, out);
    return s.write_all(out.data(), out.size());
  };

  auto finish = [&] {
    if (mq && !disconnected) {
      // A connection that ends without MQDISC backs its unit of work out (connection.hpp) [C] MQ's rule
      // for a broken connection: explicitly, whatever the engine's destructor does.
      (void)mq->backout();
    }
    mq.reset();
    std::lock_guard<std::mutex> lock(mu);
    c->s.reset();  // closes the socket: the peer sees the end now, not when the thread is reaped
    c->done = true;
    if (!c->evicted) {  // an evicted connection was counted out when it was evicted
      if (!c->logged_in) --pending;
      --active;
    }
  };

  do {
    // One deadline for the whole login, TLS handshake and connect frame together, whatever the peer
    // drips: every read and write waits in poll() with what is left of it [D].
    s.set_nonblocking();
    if (options.login_timeout_ms > 0)
      s.set_deadline(detail::stream::clock::now() + std::chrono::milliseconds(options.login_timeout_ms));
    auto ended_before_login = [&](const std::string& what) {
      if (c->evicted) return;  // counted in the shedding's line (accept_loop)
      if (s.timed_out()) {
        log(msg::IMB1202W, "connection from " + who + " did not log in within " +
                               std::to_string(options.login_timeout_ms) + " ms (login timeout); closed");
      } else if (!s.error().empty()) {
        log(msg::IMB1202W, "connection from " + who + " broke " + what + ": " + clean(s.error(), 256));
      }
    };

    // TLS first, on TCP listeners that have it.
    if (tcp && tls_ctx) {
      SSL* ssl = SSL_new(tls_ctx.get());
      if (ssl == nullptr) {
        log(msg::IMB1203E, "TLS from " + peer + ": " + detail::openssl_errors());
        break;
      }
      SSL_set_fd(ssl, s.fd());
      {
        std::lock_guard<std::mutex> lock(mu);
        s.set_ssl(ssl);  // owned by the stream from now on
      }
      if (!s.accept_tls()) {
        if (c->evicted || s.timed_out()) {
          ended_before_login("in its TLS handshake");
        } else {
          log(msg::IMB1203E, "TLS handshake with " + peer + " failed: " + clean(s.error(), 256));
        }
        break;
      }
    }
    detail::stream& io = *c->s;

    auto read = [&](bool first) {
      return io.read_frame([first](bytes_view header) -> std::optional<decode_error> {
        if (first && wire::is_ibm_mq_segment(header))
          return decode_error{std::make_error_code(std::errc::protocol_not_supported), "frame.magic", 0,
                              "IBM MQ client protocol is not supported; use libmqic_r from this project"};
        auto d = wire::decode_request(header);
        if (d && !*d) return d->error();
        if (first && detail::frame_body_length(header.data()) > max_connect_body)
          return decode_error{std::make_error_code(std::errc::bad_message), "frame.length", 4,
                              "a first frame of " + std::to_string(detail::frame_body_length(header.data())) +
                                  " bytes; before login at most " + std::to_string(max_connect_body)};
        return std::nullopt;
      });
    };

    // The first frame: connect.
    auto f = read(true);
    if (f.status == detail::stream::frame_status::closed) {
      ended_before_login("before connect");
      break;
    }
    auto d = f.status == detail::stream::frame_status::ok ? wire::decode_request(f.data) : std::nullopt;
    if (f.status == detail::stream::frame_status::bad || !d || !*d) {
      auto err = f.status == detail::stream::frame_status::bad ? f.error
                 : (d && !*d)                                  ? d->error()
                                                               : decode_error{};
      if (err.code == std::errc::protocol_not_supported) {
        log(msg::IMB1208E, "from " + who + ": " + err.detail + "; connection closed");
        break;
      }
      log(msg::IMB1200E, "from " + who + ": " + clean(err.to_string(), 256) + "; connection closed");
      break;
    }
    auto* hello = std::get_if<wire::connect_request>(&d->value().value);
    if (hello == nullptr) {
      log(msg::IMB1200E, "from " + who + ": the first frame is " +
                             wire::name_of(wire::type_of(d->value().value)) +
                             ", not connect; connection closed");
      break;
    }
    wire::connect_response hello_resp;
    auto refuse = [&](std::int32_t rc, const std::string& why) {
      hello_resp.st.completion_code = mq::MQCC_FAILED;
      hello_resp.st.reason = rc;
      hello_resp.st.detail = why;
      (void)send(wire::frame_type::connect, hello_resp);
    };
    std::string wanted = hello->qmgr_name;
    while (!wanted.empty() && wanted.back() == ' ') wanted.pop_back();
    if (!wanted.empty() && wanted != qm->name()) {
      log(msg::IMB1203E,
          "from " + who + ": asked for queue manager " + clean(wanted) + ", this is " + qm->name());
      refuse(mq::MQRC_Q_MGR_NAME_ERROR, "this is queue manager " + qm->name() + ", not " + clean(wanted));
      break;
    }

    // Who is it?
    principal p;
    if (!tcp) {
      // Bindings: the OS user from SO_PEERCRED, nothing else. A user or password in the connect frame is
      // ignored, never checked nor logged (a password has no business on this socket) [D].
      hello->password.clear();
      ucred cred{};
      socklen_t len = sizeof cred;
      if (::getsockopt(io.fd(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        log(msg::IMB1203E, std::string("SO_PEERCRED failed: ") + std::strerror(errno));
        refuse(mq::MQRC_NOT_AUTHORIZED, "the peer's credentials cannot be read");
        break;
      }
      p = detail::os_principal(cred.uid, cred.gid);
      who = "user " + clean(p.user) + " (pid " + std::to_string(cred.pid) + ", bindings)";
      // The daemon's own user and group mqm administer through this socket only, when the options say so.
      if (!options.os_administrators) p.administrator = false;
    } else {
      std::string cert_user;
      bool cert_bad = false;
      if (io.ssl() != nullptr && SSL_get_verify_result(io.ssl()) == X509_V_OK) {
        if (X509* cert = SSL_get_peer_certificate(io.ssl())) {
          X509_NAME* subject = X509_get_subject_name(cert);
          int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
          if (at >= 0) {
            const ASN1_STRING* cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
            const auto* data = ASN1_STRING_get0_data(cn);
            auto length = static_cast<std::size_t>(std::max(ASN1_STRING_length(cn), 0));
            // A CN with a NUL in it would read as a shorter name ("admin\0.evil.example" as "admin"):
            // refused outright [D].
            if (data != nullptr && std::memchr(data, 0, length) == nullptr) {
              cert_user.assign(reinterpret_cast<const char*>(data), length);
            } else {
              cert_bad = true;
            }
          }
          X509_free(cert);
        }
      }
      bool ok = false;
      std::string user = hello->user;
      if (!hello->password.empty()) {
        ok = !user.empty() && credentials::check_password(options.credential_file, user, hello->password);
      } else if (!cert_bad && !cert_user.empty() && (user.empty() || user == cert_user)) {
        user = cert_user;  // a verified client certificate authenticates its CN [D]
        ok = true;
      }
      if (!ok) {
        // The log line before the answer, so that whoever sees the refusal finds it logged.
        log(msg::IMB1201E, "user '" + clean(user) + "' from " + peer + ": " +
                               (cert_bad                  ? "a client certificate whose CN holds a NUL"
                                : hello->password.empty() ? "no password and no verified client certificate"
                                                          : "wrong password or unknown user") +
                               " (MQRC_NOT_AUTHORIZED 2035)");
        refuse(mq::MQRC_NOT_AUTHORIZED, "login refused");  // no detail for the peer: which part was wrong
        break;
      }
      p = detail::named_principal(user);
      who = "user " + clean(p.user) + " from " + peer;
      // Over TCP nobody administers implicitly: a password or certificate names a user, but whoever knows
      // it is not the daemon's OS user; AUTHREC grants what a TCP user may do [D].
      p.administrator = false;
    }
    p.appl_name = hello->appl_name.substr(0, 28);
    auto made = qm->connect(p);
    if (!made) {
      hello_resp.st = status_of(made.error());
      (void)send(wire::frame_type::connect, hello_resp);
      break;
    }
    mq = std::move(*made);
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!c->evicted) {      // (evicted meanwhile: its socket is shut, the first send fails)
        c->logged_in = true;  // no longer counted in max_login_pending, nor evicted
        --pending;
      }
    }
    io.set_deadline(std::nullopt);  // logged in: a get may wait as long as it likes
    hello_resp.qmgr_name = qm->name();
    hello_resp.user = p.user;
    if (!send(wire::frame_type::connect, hello_resp)) {
      log(msg::IMB1202W, "connection of " + who + " broke: " + io.error());
      break;
    }

    // The calls.
    for (;;) {
      auto fr = read(false);
      if (fr.status == detail::stream::frame_status::closed) {
        log(msg::IMB1202W, "connection of " + who + " ended without MQDISC" +
                               (io.error().empty() ? std::string() : ": " + io.error()) +
                               "; its unit of work is backed out");
        break;
      }
      auto dr = fr.status == detail::stream::frame_status::ok ? wire::decode_request(fr.data) : std::nullopt;
      if (fr.status == detail::stream::frame_status::bad || !dr || !*dr) {
        auto err = fr.status == detail::stream::frame_status::bad ? fr.error
                   : (dr && !*dr)                                 ? dr->error()
                                                                  : decode_error{};
        log(msg::IMB1200E,
            "from " + who + ": " + err.to_string() + "; connection closed, unit of work backed out");
        break;
      }
      const auto& req = dr->value().value;
      auto type = wire::type_of(req);
      if (std::holds_alternative<wire::connect_request>(req)) {
        log(msg::IMB1200E, "from " + who + ": a second connect; connection closed, unit of work backed out");
        break;
      }
      wire::response resp = std::visit(
          [&](const auto& r) -> wire::response {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, wire::open_request>) {
              wire::open_response out;
              answer(mq->open(r.od, r.options), out.st, out.result);
              return out;
            } else if constexpr (std::is_same_v<T, wire::close_request>) {
              wire::plain_response out;
              answer(mq->close(r.handle), out.st);
              return out;
            } else if constexpr (std::is_same_v<T, wire::put_request>) {
              wire::put_response out;
              answer(mq->put(r.handle, r.md, r.data, r.options), out.st, out.result);
              return out;
            } else if constexpr (std::is_same_v<T, wire::put1_request>) {
              wire::put_response out;
              answer(mq->put1(r.od, r.md, r.data, r.options), out.st, out.result);
              return out;
            } else if constexpr (std::is_same_v<T, wire::get_request_frame>) {
              wire::get_response out;
              // A get that waits: its socket is watched, so that a client that goes meanwhile ends the
              // wait at once (wait_watcher.hpp).
              std::optional<detail::wait_watcher::scope> watched;
              if ((r.request.options & mq::MQGMO_WAIT) != 0 && r.request.wait_interval_ms != 0)
                watched.emplace(watcher.watch(c->s->fd(), *mq));
              answer(mq->get(r.handle, r.request), out.st, out.msg);
              return out;
            } else if constexpr (std::is_same_v<T, wire::wait_for_change_request>) {
              // A client's consumer dispatcher (async_consume.hpp): the wait ends at a change of the
              // queue manager, or at the wake frame the client may send meanwhile (read next).
              wire::wait_for_change_response out;
              auto* be = dynamic_cast<detail::consume_backend*>(mq.get());
              if (be == nullptr) {
                out.st = status_of(decode_error{mq::make_mqrc(mq::MQRC_ENVIRONMENT_ERROR), "MQCTL", 0,
                                                "this connection cannot wait for changes"});
                return out;
              }
              std::optional<detail::wait_watcher::scope> watched;
              if (r.wait != 0) watched.emplace(watcher.watch(c->s->fd(), *mq, be));
              out.mark = static_cast<std::int32_t>(
                  be->wait_for_change(static_cast<std::uint32_t>(r.mark), r.wait != 0));
              out.st = wire::status{mq::MQCC_OK, mq::MQRC_NONE, ""};
              return out;
            } else if constexpr (std::is_same_v<T, wire::begin_request>) {
              wire::plain_response out;
              answer(mq->begin(), out.st);
              return out;
            } else if constexpr (std::is_same_v<T, wire::wake_request>) {
              return wire::plain_response{wire::status{mq::MQCC_OK, mq::MQRC_NONE, ""}};  // its wait ended
            } else if constexpr (std::is_same_v<T, wire::inquire_request>) {
              wire::inquire_response out;
              answer(mq->inquire(r.handle, r.selectors), out.st, out.result);
              return out;
            } else if constexpr (std::is_same_v<T, wire::set_request>) {
              wire::plain_response out;
              answer(mq->set(r.handle, r.selectors, r.int_attrs, r.char_attrs), out.st);
              return out;
            } else if constexpr (std::is_same_v<T, wire::inquire_objects_request>) {
              wire::inquire_objects_response out;
              answer(mq->inquire_objects(r.type, r.generic), out.st, out.objects);
              return out;
            } else if constexpr (std::is_same_v<T, wire::mqsc_request>) {
              wire::mqsc_response out;
              answer(mq->mqsc(r.script), out.st, out.reply);
              return out;
            } else if constexpr (std::is_same_v<T, wire::commit_request>) {
              wire::plain_response out;
              answer(mq->commit(), out.st);
              return out;
            } else if constexpr (std::is_same_v<T, wire::backout_request>) {
              wire::plain_response out;
              answer(mq->backout(), out.st);
              return out;
            } else if constexpr (std::is_same_v<T, wire::disconnect_request>) {
              wire::plain_response out;
              answer(mq->disconnect(), out.st);
              disconnected = true;
              return out;
            } else {
              return wire::plain_response{};  // connect: handled above
            }
          },
          req);
      if (!send(type, resp)) {
        // (After an MQDISC whose answer was lost, `disconnected` is set: MQDISC ran, nothing to back out.)
        log(msg::IMB1202W,
            "connection of " + who + " broke: " + io.error() + "; its unit of work is backed out");
        break;
      }
      if (disconnected) break;
    }
  } while (false);
  finish();
}

void server::impl::stop_acceptor(acceptor& a) {
  a.stopping = true;
  ::shutdown(a.fd, SHUT_RDWR);  // wakes accept() (Linux: EINVAL)
  if (a.thread.joinable()) a.thread.join();
  ::close(a.fd);
  a.fd = -1;
}

result<std::uint16_t> server::impl::listen_tcp(const std::string& name, const std::string& address,
                                               std::uint16_t port) {
  auto fail = [&](const std::string& why) {
    return decode_error{std::make_error_code(std::errc::address_not_available), "LISTENER(" + name + ")", 0,
                        why};
  };
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* list = nullptr;
  std::string port_text = std::to_string(port);
  if (int rc = ::getaddrinfo(address.empty() ? nullptr : address.c_str(), port_text.c_str(), &hints, &list);
      rc != 0)
    return fail("cannot resolve '" + address + "': " + ::gai_strerror(rc));
  // Blank IPADDR: every address; prefer IPv6 with dual stack, which takes IPv4 too.
  addrinfo* ai = list;
  for (auto* x = list; x != nullptr; x = x->ai_next) {
    if (address.empty() && x->ai_family == AF_INET6) ai = x;
  }
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0) {
    ::freeaddrinfo(list);
    return fail(std::string("socket: ") + std::strerror(errno));
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ai->ai_family == AF_INET6 && address.empty()) {
    int zero = 0;
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  }
  if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
    int err = errno;
    ::freeaddrinfo(list);
    ::close(fd);
    return fail("cannot listen on " + (address.empty() ? std::string("*") : address) + "(" + port_text +
                "): " + std::strerror(err));
  }
  ::freeaddrinfo(list);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  std::uint16_t bound = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                                 : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  auto a = std::make_unique<acceptor>();
  a->name = name;
  a->address = address;
  a->port = bound;
  a->fd = fd;
  a->tcp = true;
  auto* raw = a.get();
  std::lock_guard<std::mutex> lock(mu);
  if (stopped || listeners.count(name) != 0) {
    ::close(fd);
    return fail(stopped ? "the server is stopping" : "listener " + name + " is already running");
  }
  a->thread = std::thread([this, raw] { accept_loop(raw); });
  listeners[name] = std::move(a);
  return bound;
}

std::optional<std::vector<std::string>> server::impl::runtime_command(const std::string& verb,
                                                                      const std::string& type,
                                                                      const std::string& name) {
  if (type != "LISTENER" || (verb != "START" && verb != "STOP")) return std::nullopt;
  auto error = [&](const std::string& why) {
    return std::vector<std::string>{line(msg::IMB1206E, verb + " LISTENER(" + name + "): " + why)};
  };
  if (verb == "STOP") {
    std::unique_ptr<acceptor> a;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = listeners.find(name);
      if (it == listeners.end()) return error("the listener is not running");
      a = std::move(it->second);
      listeners.erase(it);
    }
    stop_acceptor(*a);
    return std::vector<std::string>{line(msg::IMB1205I, "Request to stop listener " + name + " accepted.")};
  }
  // The object as the catalog holds it: read from the store, not through a connection, since this runs
  // inside the engine's MQSC call [D]. The store saves the catalog after each change.
  auto catalog = qm->store().load();
  if (!catalog) return error("the object catalog cannot be read: " + catalog.error().to_string());
  const auto* rec = catalog->find(objects::object_family::listener, name);
  if (rec == nullptr) return error("no LISTENER object of that name");
  auto port = rec->integer("PORT").value_or(1414);
  if (port < 0 || port > 65535) return error("PORT(" + std::to_string(port) + ") is not a TCP port");
  std::string address(rec->text("IPADDR"));
  auto r = listen_tcp(name, address, static_cast<std::uint16_t>(port));
  if (!r) return error(r.error().detail);
  return std::vector<std::string>{line(msg::IMB1204I, "Request to start listener " + name + " accepted: " +
                                                          (address.empty() ? std::string("*") : address) +
                                                          "(" + std::to_string(*r) + ").")};
}

server::server() : impl_(std::make_unique<impl>()) {}
server::~server() { stop(); }

result<std::unique_ptr<server>> server::start(queue_manager& qm, server_options options) {
  std::unique_ptr<server> srv(new server());
  auto& m = *srv->impl_;
  m.qm = &qm;
  m.options = std::move(options);
  if (m.options.tls.enabled) {
    auto ctx = detail::make_tls_context(m.options.tls, true);
    if (!ctx) return ctx.error();
    m.tls_ctx = *ctx;
  }
  const auto& path = m.options.bindings_socket;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof addr.sun_path)
    return io::error_of(std::errc::filename_too_long, path.string(), "longer than a Unix socket path may be");
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return io::error_from_errno(path, "socket", errno);
  // A socket file left by a daemon that died: nothing answers on it, so it is ours to replace. One that
  // answers belongs to a live process [D].
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    ::close(fd);
    return io::error_of(std::errc::address_in_use, path.string(), "another process serves this socket");
  }
  ::close(fd);
  ::unlink(path.c_str());
  fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return io::error_from_errno(path, "socket", errno);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 128) != 0) {
    int err = errno;
    ::close(fd);
    return io::error_from_errno(path, "cannot listen on the bindings socket", err);
  }
  auto a = std::make_unique<impl::acceptor>();
  a->name = "bindings";
  a->address = path.string();
  a->fd = fd;
  auto* raw = a.get();
  m.bindings = std::move(a);
  m.bindings->thread = std::thread([&m, raw] { m.accept_loop(raw); });
  auto* mp = &m;
  qm.set_runtime_command_handler(
      [mp](const std::string& verb, const std::string& type, const std::string& name) {
        return mp->runtime_command(verb, type, name);
      });
  return srv;
}

result<std::uint16_t> server::start_listener(const std::string& name, const std::string& address,
                                             std::uint16_t port) {
  return impl_->listen_tcp(name, address, port);
}

result<done> server::stop_listener(const std::string& name) {
  std::unique_ptr<impl::acceptor> a;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->listeners.find(name);
    if (it == impl_->listeners.end())
      return io::error_of(std::errc::no_such_process, "LISTENER(" + name + ")",
                          "the listener is not running");
    a = std::move(it->second);
    impl_->listeners.erase(it);
  }
  impl_->stop_acceptor(*a);
  return std::monostate{};
}

std::vector<server::listener_info> server::listeners() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<listener_info> out;
  for (const auto& [name, a] : impl_->listeners) out.push_back({name, a->address, a->port});
  return out;
}

void server::stop() {
  auto& m = *impl_;
  std::unique_ptr<impl::acceptor> bindings;
  std::map<std::string, std::unique_ptr<impl::acceptor>> listeners;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    if (m.stopped) return;
    m.stopped = true;
    bindings = std::move(m.bindings);
    listeners = std::move(m.listeners);
  }
  if (m.qm != nullptr) m.qm->set_runtime_command_handler(nullptr);
  if (bindings) {
    m.stop_acceptor(*bindings);
    ::unlink(m.options.bindings_socket.c_str());
  }
  for (auto& [name, a] : listeners) m.stop_acceptor(*a);
  // Break every connection: a thread blocked reading its socket wakes and backs its unit of work out;
  // one waiting inside a get is stopped (connection::stop) and does the same.
  m.watcher.stop_all();
  std::list<std::shared_ptr<impl::conn>> conns;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    for (auto& c : m.conns) {
      if (c->s) c->s->shutdown();
    }
    conns = std::move(m.conns);
  }
  for (auto& c : conns) {
    if (c->thread.joinable()) c->thread.join();
  }
}

}  // namespace imsb::qmgr
