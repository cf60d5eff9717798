// The server (server.hpp): the bindings socket and TCP listeners on Asio (transport::stream), and the
// runners that serve them.

#include "imsb/qmgr/server.hpp"

#include <arpa/inet.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <optional>
#include <system_error>
#include <thread>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "blocking.hpp"
#include "client_connection.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/objects/object.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "imsb/qmgr/recovery_log.hpp"
#include "imsb/sync/mutex.hpp"
#include "imsb/transport/tcp_common.hpp"
#include "store_io.hpp"
#include "wait_watcher.hpp"

namespace imsb::qmgr {

namespace wire = mqi::wire;
namespace asio = boost::asio;
using local = asio::local::stream_protocol;

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

// ---- the runners --------------------------------------------------------------------------------
//
// The server's threads ("runners") run io_contexts: accepts, TLS handshakes, frame reads and writes are
// Asio operations, so an idle connection holds a socket and a few hundred bytes, not a thread. A call runs
// on the runner whose read completed, with no hand-over to another thread. One runner alone serves each
// io_context: with two in one, Asio wakes the second for every handler the first runs, two wake-ups per
// request where a thread per connection had one (bench/RESULTS.md "The network layer"). There are
// several io_contexts for the sessions (io_context_count) and one for the acceptors; each new session goes
// to the io_context with the fewest, so that busy connections seldom wait for one another's calls.
//
// A call whose last step is a log force leaves it to the log's callback (blocking.hpp force_sink,
// session::on_durable): its runner serves the other sockets meanwhile, and the answer follows the write.
// Any other call that waits — a get's wait, a log force inside a call, MQSC's files, a login's password
// check — says so first (blocking.hpp): if its io_context has no other free runner, one that stands by is
// woken (or started) and takes over the sockets. A runner that finds another free one after its call
// stands by; one that stood by for `runner_idle` ends, down to `min_runners` threads per io_context [D]
// (docs/design/queue-manager.md "Server threads"). So threads follow the calls that wait, not the
// connections.

namespace {

constexpr std::size_t min_runners = 1;  // per io_context: the one serving
constexpr auto runner_idle = std::chrono::seconds(5);
constexpr std::size_t frame_step = std::size_t{1} << 20;  // a body is read in steps of at most 1 MiB
// A plain socket's reads, enough for most requests; a larger frame's rest is read into its own buffer.
constexpr std::size_t read_buffer = 4096 + 12;
// After a frame or answer larger than this, its buffer goes: one large message must not pin its
// storage for the connection's life [D].
constexpr std::size_t keep_buffer = 64 * 1024;

// Four per core, at most 16: an io_context's sessions share its one serving runner, and on the 2-vCPU
// test machine eight connections dealt to two io_contexts made 0.82 of the round trips of a thread each,
// dealt to eight 0.85-0.98 from run to run, 0.99 once answers were written at once (bench/RESULTS.md "The
// network layer"). An io_context at rest costs one thread.
std::size_t io_context_count(std::size_t asked) {
  if (asked > 0) return std::min<std::size_t>(asked, 64);
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(4 * std::size_t{cores}, 4, 16);
}

class runner_pool {
 public:
  explicit runner_pool(std::function<void(const std::string&)> log_no_thread)
      : work_(io_.get_executor()), log_no_thread_(std::move(log_no_thread)) {
    hooks_.enter = &runner_pool::enter_wait;
    hooks_.leave = &runner_pool::leave_wait;
    hooks_.context = this;
  }
  runner_pool(const runner_pool&) = delete;
  runner_pool& operator=(const runner_pool&) = delete;
  ~runner_pool() { stop(); }

  asio::io_context& io() noexcept { return io_; }

  // The first runner, serving.
  bool start(std::string& error) {
    sync::lock_guard lock(mu_);
    serving_ = 1;
    if (start_runner_locked(error)) return true;
    serving_ = 0;
    return false;
  }

  // Ends the runners (what they run has ended) and joins them.
  void stop() {
    std::map<std::thread::id, std::thread> runners;
    std::vector<std::thread> retired;
    {
      sync::lock_guard lock(mu_);
      if (stopping_) return;
      stopping_ = true;
      work_.reset();
      io_.stop();
      cv_.notify_all();
      runners = std::move(runners_);
      retired = std::move(retired_);
    }
    for (auto& [id, t] : runners) t.join();
    for (auto& t : retired) t.join();
  }

  // A new runner serves at once (the caller counted it in serving_).
  bool start_runner_locked(std::string& error) IMSB_REQUIRES(mu_) {
    try {
      std::thread t([this] { run(); });
      auto id = t.get_id();
      runners_.emplace(id, std::move(t));
      return true;
    } catch (const std::system_error& e) {
      error = e.what();
      return false;
    }
  }

  void run() {
    // Named, so that top -H, ps -L and the tests tell runners from the queue manager's other threads.
    ::pthread_setname_np(::pthread_self(), "qm-runner");
    detail::thread_blocking_hooks() = &hooks_;
    sync::unique_lock lock(mu_);
    for (;;) {
      lock.unlock();
      io_.run_one();  // a handler ran, or stop()
      lock.lock();
      if (stopping_) return;
      // This runner is free; if another is too, one of them is enough for the sockets.
      if (serving_ - waiting_ <= 1) continue;
      --serving_;
      ++standing_by_;
      for (;;) {
        const auto idle_until = std::chrono::steady_clock::now() + runner_idle;
        while (wanted_ == 0 && !stopping_)
          if (cv_.wait_until(lock, idle_until) == std::cv_status::timeout) break;
        const bool asked = wanted_ > 0 || stopping_;
        if (stopping_) {
          --standing_by_;
          return;
        }
        if (asked) break;
        if (runners_.size() > min_runners) {  // idle for runner_idle: this thread ends
          --standing_by_;
          auto it = runners_.find(std::this_thread::get_id());
          retired_.push_back(std::move(it->second));
          runners_.erase(it);
          return;
        }
      }
      --standing_by_;
      --wanted_;  // (counted in serving_ by whoever asked)
    }
  }

  // The sessions dealt to this io_context (the acceptors' has none).
  std::size_t load() {
    sync::lock_guard lock(mu_);
    return sessions_;
  }
  void add_session() {
    std::string error;
    bool failed = false;
    {
      sync::lock_guard lock(mu_);
      ++sessions_;
      // Its only runner waits in the call of the one session it had: the new one must not wait for that.
      if (waiting_ > 0) failed = !hand_over_locked(error);
    }
    if (failed) log_no_thread_(error);
  }
  void remove_session() {
    sync::lock_guard lock(mu_);
    --sessions_;
  }

 private:
  // Another runner for the sockets when every serving runner waits and some other session may need one;
  // false (with `error`) when no thread could be started, logged once.
  bool hand_over_locked(std::string& error) IMSB_REQUIRES(mu_) {
    if (serving_ - waiting_ != 0 || sessions_ < 2 || stopping_) return true;
    ++serving_;  // the one asked or started
    if (standing_by_ > wanted_) {
      ++wanted_;
      cv_.notify_one();
      return true;
    }
    if (start_runner_locked(error)) return true;
    --serving_;
    return std::exchange(no_thread_logged_, true);
  }

  static void enter_wait(void* context) noexcept {
    auto& p = *static_cast<runner_pool*>(context);
    std::vector<std::thread> ended;
    std::string error;
    bool failed = false;
    {
      sync::lock_guard lock(p.mu_);
      ++p.waiting_;
      ended.swap(p.retired_);
      // A session alone in its io_context waits without a hand-over: nothing else there needs the
      // sockets (a session that joins meanwhile asks for one, add_session).
      failed = !p.hand_over_locked(error);
    }
    for (auto& t : ended) t.join();  // runners that retired: they are past their last lock
    // The wait goes on all the same; until it ends or another runner is free, its io_context's sockets
    // wait (logged once) [D].
    if (failed) p.log_no_thread_(error);
  }

  static void leave_wait(void* context) noexcept {
    auto& p = *static_cast<runner_pool*>(context);
    sync::lock_guard lock(p.mu_);
    --p.waiting_;
  }

  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::function<void(const std::string&)> log_no_thread_;
  detail::blocking_hooks hooks_;
  // Under mu_ (its own: blocking regions enter it under the engine's mutex).
  sync::mutex mu_;
  sync::condition_variable cv_;  // standing-by runners wait here
  std::map<std::thread::id, std::thread> runners_ IMSB_GUARDED_BY(mu_);
  std::vector<std::thread> retired_ IMSB_GUARDED_BY(mu_);  // ended, to be joined
  std::size_t serving_ IMSB_GUARDED_BY(mu_) = 0;           // runners in the io_context (not standing by)
  std::size_t waiting_ IMSB_GUARDED_BY(mu_) = 0;           // of which inside a blocking region
  std::size_t standing_by_ IMSB_GUARDED_BY(mu_) = 0;
  std::size_t wanted_ IMSB_GUARDED_BY(mu_) = 0;  // standing-by runners asked to serve, not yet serving
  std::size_t sessions_ IMSB_GUARDED_BY(mu_) = 0;
  bool stopping_ IMSB_GUARDED_BY(mu_) = false;
  bool no_thread_logged_ IMSB_GUARDED_BY(mu_) = false;
};

}  // namespace

struct server::impl {
  class session;
  // Declared first, destroyed last: the sockets and timers below belong to their io_contexts.
  // pools[0] runs the acceptors only (nothing there waits); the others the sessions, dealt to the one
  // with the fewest.
  std::vector<std::unique_ptr<runner_pool>> pools;

  queue_manager* qm = nullptr;
  server_options options;
  std::unique_ptr<asio::ssl::context> tls;  // for TCP listeners when options.tls.enabled

  struct acceptor {
    explicit acceptor(asio::io_context& io) : strand(asio::make_strand(io)), retry(strand) {}
    std::string name;
    std::string address;
    std::uint16_t port = 0;
    bool tcp = false;
    asio::strand<asio::io_context::executor_type> strand;
    std::optional<asio::ip::tcp::acceptor> tcp_acceptor;
    std::optional<local::acceptor> local_acceptor;
    asio::steady_timer retry;  // after a failed accept (EMFILE ...)
    bool stopping = false;     // on the strand
  };

  mutable sync::mutex mu;
  sync::condition_variable changed;  // a session ended
  detail::wait_watcher watcher;      // the sockets of connections waiting in an MQGET
  std::shared_ptr<acceptor> bindings IMSB_GUARDED_BY(mu);
  std::map<std::string, std::shared_ptr<acceptor>> listeners IMSB_GUARDED_BY(mu);
  std::list<std::shared_ptr<session>> sessions IMSB_GUARDED_BY(mu);  // in accept order
  std::size_t active IMSB_GUARDED_BY(mu) = 0;   // connections counted against max_connections
  std::size_t pending IMSB_GUARDED_BY(mu) = 0;  // of which not logged in yet
  bool stopped IMSB_GUARDED_BY(mu) = false;
  // Connections shed at accept (over max_connections, or pending ones evicted) are logged once per burst:
  // the first, then a count at most every 10 s while it lasts [D].
  std::size_t shed_unlogged IMSB_GUARDED_BY(mu) = 0;
  bool shedding IMSB_GUARDED_BY(mu) = false;
  std::chrono::steady_clock::time_point shed_logged_at IMSB_GUARDED_BY(mu);

  void log(std::string_view id, const std::string& text) { qm->log_error(line(id, text)); }
  asio::io_context& acceptor_io() { return pools.front()->io(); }
  runner_pool& least_loaded() {
    runner_pool* best = pools[1].get();
    std::size_t fewest = best->load();
    for (std::size_t i = 2; i < pools.size(); ++i) {
      const std::size_t n = pools[i]->load();
      if (n < fewest) {
        fewest = n;
        best = pools[i].get();
      }
    }
    return *best;
  }

  void accept_next(const std::shared_ptr<acceptor>& a);
  template <class Acceptor>
  void accept_with(const std::shared_ptr<acceptor>& a, Acceptor& from);
  std::unique_ptr<transport::stream> stream_of(asio::ip::tcp::socket sock);
  std::unique_ptr<transport::stream> stream_of(local::socket sock);
  void on_accept(const std::shared_ptr<acceptor>& a, const boost::system::error_code& ec,
                 std::unique_ptr<transport::stream> s, int fd, runner_pool& pool);
  void note_shed(const std::string& why);
  void session_ended(session& s);
  void stop_acceptor(const std::shared_ptr<acceptor>& a);
  std::optional<std::vector<std::string>> runtime_command(const std::string& verb, const std::string& type,
                                                          const std::string& name);
  result<std::uint16_t> listen_tcp(const std::string& name, const std::string& address, std::uint16_t port);
};

// ---- a connection -------------------------------------------------------------------------------
//
// Bytes and deadlines come from transport::stream; what the frames mean is this class's: the login,
// then one call per request frame, answered before the next frame is read (the client protocol
// alternates). One operation of its socket is outstanding at a time, so its handlers
// run one after the other (on any runner) without a strand; only the login deadline runs beside them.

class server::impl::session : public std::enable_shared_from_this<session> {
 public:
  session(server::impl& m, runner_pool& pool, std::unique_ptr<transport::stream> s, bool tcp,
          std::string peer)
      : m_(m),
        pool_(pool),
        s_(std::move(s)),
        fd_(s_->native_handle()),
        tcp_(tcp),
        peer_(std::move(peer)),
        who_(tcp ? peer_ : std::string("a bindings peer")),
        login_timer_(s_->get_executor()) {}

  void start() {
    pool_.add_session();
    asio::dispatch(s_->get_executor(), [self = shared_from_this()] { self->begin(); });
  }
  // Any thread: SHUT_RDWR, so that what the session waits for on its socket ends now.
  void shut() noexcept {
    sync::lock_guard lock(fd_mu_);
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  }
  // Any thread: fails the read in progress (it sees the end) while the peer sees nothing yet: the end that
  // follows closes the socket after its count and its line, in end()'s order.
  void shut_reading() noexcept {
    sync::lock_guard lock(fd_mu_);
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RD);
  }
  // Any thread: whether the peer sent anything yet — read already, or waiting in the socket to be read.
  bool spoke() noexcept {
    if (heard_) return true;
    sync::lock_guard lock(fd_mu_);
    int waiting = 0;
    return fd_ >= 0 && ::ioctl(fd_, FIONREAD, &waiting) == 0 && waiting > 0;
  }

  // Under m.mu (not annotated: the analysis cannot name the server's mutex from a session).
  bool logged_in = false;
  bool evicted = false;  // shed before login by a newer connection: ends without a log line

 private:
  using error_code = boost::system::error_code;

  void begin();
  void on_login_deadline(const error_code& ec);
  void on_handshake(const error_code& ec);
  void read_frame();
  void sent(const error_code& ec, bool then_end);  // the answer written, or not
  std::optional<decode_error> check_header(const std::uint8_t* header) const;
  void bad_frame(const decode_error& bad);  // logged (IMB1208E, IMB1200E), then the end
  void read_more();
  void on_read(const error_code& ec, std::size_t n);
  bool take_frame();
  // Bytes of the peer's next frame already read, in rbuf_ or (TLS) decrypted or buffered by OpenSSL.
  bool read_ahead() const;
  void read_body(std::size_t left);
  void on_frame();
  void login(const wire::request& req);
  void call(const wire::request& req);
  void on_durable();  // the log force the call left to this session (blocking.hpp): its rest, its answer
  wire::response dispatch(const wire::request& req, bool& disconnected);
  void send(wire::frame_type t, const wire::response& r, bool then_end);
  void read_failed(const error_code& ec, bool inside_frame);
  void ended_before_login(const std::string& what, const std::string& error);
  std::string io_error(const error_code& ec, bool reading) const;
  bool was_evicted() const {
    sync::lock_guard lock(m_.mu);
    return evicted;
  }
  void close_socket() noexcept {
    sync::lock_guard lock(fd_mu_);
    s_->close();
    fd_ = -1;
  }
  // Ends the session: counted out of the limits, then `line` logged (if any), then its unit of work backed
  // out, then the socket closed.
  void end(const std::function<void()>& line = {});

  server::impl& m_;
  runner_pool& pool_;
  std::unique_ptr<transport::stream> s_;
  sync::mutex fd_mu_;  // fd_ for shut() from other threads, against close_socket()
  int fd_ IMSB_GUARDED_BY(fd_mu_);
  bool tcp_;
  std::string peer_;
  std::string who_;
  asio::steady_timer login_timer_;
  bool first_ = true;  // the next frame is the first (connect)
  // The login deadline's handler may run beside the session's own: these two are all it touches.
  std::atomic<bool> timed_out_{false};
  std::atomic<bool> login_over_{false};  // logged in, or ended
  std::atomic<bool> heard_{false};       // bytes came (spoke())
  bool ended_ = false;
  bool disconnected_ = false;
  std::unique_ptr<mqi::connection> mq_;  // the engine's connection, once connect succeeded
  bytes in_;                             // the frame being read or handled
  bytes out_;                            // the answer being written
  bytes rbuf_;                           // what was read and not yet taken as a frame (rend_ bytes)
  std::size_t rend_ = 0;
  // A call whose log force is outstanding: the rest of it, and the answer it gives when the log succeeds.
  std::function<result<done>()> forced_;
  wire::frame_type forced_type_{};
  wire::response forced_answer_;
};

void server::impl::session::begin() {
  // One deadline for the whole login, TLS handshake and connect frame together, whatever the peer
  // drips [D].
  if (m_.options.login_timeout_ms > 0) {
    login_timer_.expires_after(std::chrono::milliseconds(m_.options.login_timeout_ms));
    login_timer_.async_wait(
        [self = shared_from_this()](const error_code& ec) { self->on_login_deadline(ec); });
  }
  if (s_->is_tls()) {
    s_->async_handshake(transport::stream::role::server,
                        [self = shared_from_this()](const error_code& ec) { self->on_handshake(ec); });
    return;
  }
  read_frame();
}

void server::impl::session::on_login_deadline(const error_code& ec) {
  if (ec || login_over_) return;
  timed_out_ = true;
  // The read in progress (the connect frame, or the TLS handshake's) fails: its handler ends the session.
  // Not shut(): the peer would see the close before the session is counted out and its line logged, and a
  // peer that reconnected then was refused by the connection limit (server_limits_test, 1 run in 40 under
  // ASan with two at once).
  shut_reading();
}

void server::impl::session::on_handshake(const error_code& ec) {
  if (ended_) return;
  heard_ = true;  // a TLS handshake, failed or not, is bytes from the peer
  if (ec) {
    end([&] {
      if (was_evicted() || timed_out_) {
        ended_before_login("in its TLS handshake", s_->describe_error(ec));
      } else {
        m_.log(msg::IMB1203E,
               "TLS handshake with " + peer_ + " failed: " + clean(s_->describe_error(ec), 256));
      }
    });
    return;
  }
  read_frame();
}

void server::impl::session::read_frame() {
  if (ended_) return;
  if (in_.capacity() > keep_buffer) bytes().swap(in_);
  if (out_.capacity() > keep_buffer) bytes().swap(out_);
  if (rbuf_.empty()) rbuf_.resize(read_buffer);
  if (!take_frame()) read_more();
}

std::string server::impl::session::io_error(const error_code& ec, bool reading) const {
  if (timed_out_) return "timed out";
  if (s_->is_tls())
    return std::string(reading ? "TLS read failed: " : "TLS write failed: ") + s_->describe_error(ec);
  return std::string(reading ? "read failed: " : "write failed: ") + ec.message();
}

void server::impl::session::read_failed(const error_code& ec, bool inside_frame) {
  const bool clean_end = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
  std::string error;
  if (clean_end && !timed_out_) {
    error = inside_frame ? "the peer closed the connection inside a frame" : "";
  } else {
    error = io_error(ec, true);
  }
  const bool connected = mq_ != nullptr;
  end([&] {
    if (!connected) {
      ended_before_login("before connect", error);
    } else {
      m_.log(msg::IMB1202W, "connection of " + who_ + " ended without MQDISC" +
                                (error.empty() ? std::string() : ": " + error) +
                                "; its unit of work is backed out");
    }
  });
}

void server::impl::session::ended_before_login(const std::string& what, const std::string& error) {
  if (was_evicted()) return;  // counted in the shedding's line (on_accept)
  if (timed_out_) {
    m_.log(msg::IMB1202W, "connection from " + who_ + " did not log in within " +
                              std::to_string(m_.options.login_timeout_ms) + " ms (login timeout); closed");
  } else if (!error.empty()) {
    m_.log(msg::IMB1202W, "connection from " + who_ + " broke " + what + ": " + clean(error, 256));
  }
}

std::optional<decode_error> server::impl::session::check_header(const std::uint8_t* header) const {
  const bytes_view view(header, wire::header_length);
  if (first_ && wire::is_ibm_mq_segment(view))
    return decode_error{std::make_error_code(std::errc::protocol_not_supported), "frame.magic", 0,
                        "IBM MQ client protocol is not supported; use libmqic_r from this project"};
  if (auto d = wire::decode_request(view); d && !*d) return d->error();
  if (first_ && detail::frame_body_length(header) > max_connect_body)
    return decode_error{std::make_error_code(std::errc::bad_message), "frame.length", 4,
                        "a first frame of " + std::to_string(detail::frame_body_length(header)) +
                            " bytes; before login at most " + std::to_string(max_connect_body)};
  return std::nullopt;
}

void server::impl::session::bad_frame(const decode_error& bad) {
  if (!mq_) {
    if (bad.code == std::errc::protocol_not_supported) {
      m_.log(msg::IMB1208E, "from " + who_ + ": " + bad.detail + "; connection closed");
    } else {
      m_.log(msg::IMB1200E, "from " + who_ + ": " + clean(bad.to_string(), 256) + "; connection closed");
    }
  } else {
    m_.log(msg::IMB1200E,
           "from " + who_ + ": " + bad.to_string() + "; connection closed, unit of work backed out");
  }
  end();
}

// More bytes into rbuf_: before login at most a connect frame's worth, so that an unknown peer fills no more
// than that. A plain socket is waited on until readable, then read — a whole request in one read, where
// async_read_some would first try a read that finds nothing [D]; TLS reads what it decrypts.
void server::impl::session::read_more() {
  const std::size_t room = (first_ ? wire::header_length + max_connect_body : rbuf_.size()) - rend_;
  const auto into = asio::buffer(rbuf_.data() + rend_, room);
  if (s_->is_tls()) {
    s_->async_read_some(
        into, [self = shared_from_this()](const error_code& ec, std::size_t n) { self->on_read(ec, n); });
    return;
  }
  s_->async_wait_readable([self = shared_from_this(), into](const error_code& ec) {
    if (ec) {
      self->on_read(ec, 0);
      return;
    }
    error_code rec;
    const std::size_t n = self->s_->read_available(into, rec);
    if (rec == asio::error::would_block || rec == asio::error::try_again) {
      self->read_more();
      return;
    }
    self->on_read(rec, n);
  });
}

void server::impl::session::on_read(const error_code& ec, std::size_t n) {
  if (ended_) return;
  if (ec) {
    read_failed(ec, rend_ > 0);
    return;
  }
  rend_ += n;
  heard_ = true;
  if (!take_frame()) read_more();
}

// A whole frame at the front of rbuf_ goes to in_ and is handled (true); so does a bad header, and a frame
// too large for rbuf_, whose rest is read into in_ (read_body). false: more bytes are needed.
bool server::impl::session::take_frame() {
  if (rend_ < wire::header_length) return false;
  if (auto bad = check_header(rbuf_.data())) {
    bad_frame(*bad);
    return true;
  }
  const std::size_t whole = wire::header_length + detail::frame_body_length(rbuf_.data());
  const std::size_t have = std::min(rend_, whole);
  if (have < whole && whole <= rbuf_.size()) return false;
  in_.assign(rbuf_.begin(), rbuf_.begin() + static_cast<std::ptrdiff_t>(have));
  // What came after the frame (a wake frame, during a consumer's wait) stays for the next.
  std::memmove(rbuf_.data(), rbuf_.data() + have, rend_ - have);
  rend_ -= have;
  read_body(whole - have);
  return true;
}

bool server::impl::session::read_ahead() const {
  if (rend_ > 0) return true;
  if (!s_->is_tls()) return false;
  SSL* ssl = s_->tls()->native_handle();
  return SSL_pending(ssl) > 0 || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0;
}

void server::impl::session::read_body(std::size_t left) {
  if (left == 0) {
    on_frame();
    return;
  }
  // The body in steps, so that a peer that claims a long body and sends nothing holds no more memory
  // than it sent [D].
  const std::size_t step = std::min(left, frame_step);
  const std::size_t at = in_.size();
  in_.resize(at + step);
  s_->async_read(asio::buffer(in_.data() + at, step),
                 [self = shared_from_this(), left, step](const error_code& ec, std::size_t) {
                   if (self->ended_) return;
                   if (ec) {
                     self->read_failed(ec, true);
                     return;
                   }
                   self->read_body(left - step);
                 });
}

void server::impl::session::on_frame() {
  auto d = wire::decode_request(in_);
  const bool first = std::exchange(first_, false);
  if (!d || !*d) {
    bad_frame((d && !*d) ? d->error() : decode_error{});
    return;
  }
  if (first) {
    login(d->value().value);
  } else {
    call(d->value().value);
  }
}

void server::impl::session::login(const wire::request& req) {
  const auto* hello_in = std::get_if<wire::connect_request>(&req);
  if (hello_in == nullptr) {
    m_.log(msg::IMB1200E, "from " + who_ + ": the first frame is " + wire::name_of(wire::type_of(req)) +
                              ", not connect; connection closed");
    end();
    return;
  }
  wire::connect_request hello = *hello_in;
  wire::connect_response hello_resp;
  auto refuse = [&](std::int32_t rc, const std::string& why) {
    hello_resp.st.completion_code = mq::MQCC_FAILED;
    hello_resp.st.reason = rc;
    hello_resp.st.detail = why;
    send(wire::frame_type::connect, hello_resp, true);
  };
  std::string wanted = hello.qmgr_name;
  while (!wanted.empty() && wanted.back() == ' ') wanted.pop_back();
  if (!wanted.empty() && wanted != m_.qm->name()) {
    m_.log(msg::IMB1203E,
           "from " + who_ + ": asked for queue manager " + clean(wanted) + ", this is " + m_.qm->name());
    refuse(mq::MQRC_Q_MGR_NAME_ERROR, "this is queue manager " + m_.qm->name() + ", not " + clean(wanted));
    return;
  }
  detail::blocking_region busy;  // the credential file's password hash, the engine's connect

  // Who is it?
  principal p;
  if (!tcp_) {
    // Bindings: the OS user from SO_PEERCRED, nothing else. A user or password in the connect frame is
    // ignored, never checked nor logged (a password has no business on this socket) [D].
    hello.password.clear();
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(s_->native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      m_.log(msg::IMB1203E, std::string("SO_PEERCRED failed: ") + std::strerror(errno));
      refuse(mq::MQRC_NOT_AUTHORIZED, "the peer's credentials cannot be read");
      return;
    }
    p = detail::os_principal(cred.uid, cred.gid);
    who_ = "user " + clean(p.user) + " (pid " + std::to_string(cred.pid) + ", bindings)";
    // The daemon's own user and group mqm administer through this socket only, when the options say so.
    if (!m_.options.os_administrators) p.administrator = false;
  } else {
    std::string cert_user;
    bool cert_bad = false;
    SSL* ssl = s_->is_tls() ? s_->tls()->native_handle() : nullptr;
    if (ssl != nullptr && SSL_get_verify_result(ssl) == X509_V_OK) {
      if (X509* cert = SSL_get_peer_certificate(ssl)) {
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
    std::string user = hello.user;
    if (!hello.password.empty()) {
      ok = !user.empty() && credentials::check_password(m_.options.credential_file, user, hello.password);
    } else if (!cert_bad && !cert_user.empty() && (user.empty() || user == cert_user)) {
      user = cert_user;  // a verified client certificate authenticates its CN [D]
      ok = true;
    }
    if (!ok) {
      // The log line before the answer, so that whoever sees the refusal finds it logged.
      m_.log(msg::IMB1201E, "user '" + clean(user) + "' from " + peer_ + ": " +
                                (cert_bad                 ? "a client certificate whose CN holds a NUL"
                                 : hello.password.empty() ? "no password and no verified client certificate"
                                                          : "wrong password or unknown user") +
                                " (MQRC_NOT_AUTHORIZED 2035)");
      refuse(mq::MQRC_NOT_AUTHORIZED, "login refused");  // no detail for the peer: which part was wrong
      return;
    }
    p = detail::named_principal(user);
    who_ = "user " + clean(p.user) + " from " + peer_;
    // Over TCP nobody administers implicitly: a password or certificate names a user, but whoever knows
    // it is not the daemon's OS user; AUTHREC grants what a TCP user may do [D].
    p.administrator = false;
  }
  p.appl_name = hello.appl_name.substr(0, 28);
  auto made = m_.qm->connect(p);
  if (!made) {
    hello_resp.st = status_of(made.error());
    send(wire::frame_type::connect, hello_resp, true);
    return;
  }
  mq_ = std::move(*made);
  login_over_ = true;
  {
    sync::lock_guard lock(m_.mu);
    if (!evicted) {      // (evicted meanwhile: its socket is shut, the send fails)
      logged_in = true;  // no longer counted in max_login_pending, nor evicted
      --m_.pending;
    }
  }
  error_code ignored;
  login_timer_.cancel(ignored);  // logged in: a get may wait as long as it likes
  hello_resp.qmgr_name = m_.qm->name();
  hello_resp.user = p.user;
  send(wire::frame_type::connect, hello_resp, false);
}

void server::impl::session::call(const wire::request& req) {
  if (std::holds_alternative<wire::connect_request>(req)) {
    m_.log(msg::IMB1200E, "from " + who_ + ": a second connect; connection closed, unit of work backed out");
    end();
    return;
  }
  wire::response resp;
  bool disconnected = false;
  // The calls whose log force is their last step wait for it without this runner (blocking.hpp).
  detail::force_sink sink;
  {
    // MQSC and MQOPEN may write files (the catalog, a dynamic queue's folder): they say so here; the
    // engine says so itself for every wait (blocking.hpp).
    std::optional<detail::blocking_region> busy;
    if (std::holds_alternative<wire::mqsc_request>(req) || std::holds_alternative<wire::open_request>(req))
      busy.emplace();
    const bool last_force = std::holds_alternative<wire::put_request>(req) ||
                            std::holds_alternative<wire::get_request_frame>(req) ||
                            std::holds_alternative<wire::commit_request>(req) ||
                            std::holds_alternative<wire::backout_request>(req);
    if (last_force) detail::thread_force_sink() = &sink;
    resp = dispatch(req, disconnected);
    detail::thread_force_sink() = nullptr;
  }
  // (After an MQDISC whose answer is lost, disconnected_ is set: MQDISC ran, nothing to back out.)
  disconnected_ = disconnected;
  if (sink.rest) {
    // Answered once the batch is durable; meanwhile this runner serves the other sockets and nothing is
    // read from this one (the client waits for the answer).
    forced_ = std::move(sink.rest);
    forced_type_ = wire::type_of(req);
    forced_answer_ = std::move(resp);
    sink.log->when_durable(sink.seq, [self = shared_from_this()] {
      asio::post(self->s_->get_executor(), [self] { self->on_durable(); });
    });
    return;
  }
  send(wire::type_of(req), resp, disconnected);
}

void server::impl::session::on_durable() {
  // Run whatever became of the session: the engine settles the batch only here.
  const result<done> logged = std::exchange(forced_, nullptr)();
  if (!logged) {
    // As the call would have answered had it waited: failed, nothing but the status.
    forced_answer_ = std::visit(
        [&](const auto& like) -> wire::response {
          std::decay_t<decltype(like)> failed{};
          failed.st = status_of(logged.error());
          return failed;
        },
        forced_answer_);
  }
  if (ended_) return;
  send(forced_type_, forced_answer_, disconnected_);
}

wire::response server::impl::session::dispatch(const wire::request& req, bool& disconnected) {
  auto& mq = mq_;
  return std::visit(
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
            watched.emplace(m_.watcher.watch(s_->native_handle(), *mq));
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
          if (r.wait != 0) {
            watched.emplace(m_.watcher.watch(s_->native_handle(), *mq, be));
            // The wake frame may have come with the request, read along with it: the watcher, which looks
            // at the socket, would never see it.
            if (read_ahead()) be->wake();
          }
          out.mark =
              static_cast<std::int32_t>(be->wait_for_change(static_cast<std::uint32_t>(r.mark), r.wait != 0));
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
          return wire::plain_response{};  // connect: handled by login
        }
      },
      req);
}

void server::impl::session::send(wire::frame_type t, const wire::response& r, bool then_end) {
  out_.clear();
  wire::encode_response(t, r, out_);
  std::size_t at = 0;
  if (!s_->is_tls()) {
    // Written here when the socket takes it, as it nearly always does: no completion is queued, so the
    // runner goes straight back to waiting on the sockets rather than polling them once more first
    // (bench/RESULTS.md "The network layer") [D].
    error_code ec;
    at = s_->write_available(asio::buffer(out_.data(), out_.size()), ec);
    if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
      sent(ec, then_end);
      return;
    }
    if (at == out_.size()) {
      sent({}, then_end);
      return;
    }
  }
  s_->async_write(
      asio::buffer(out_.data() + at, out_.size() - at),
      [self = shared_from_this(), then_end](const error_code& ec, std::size_t) { self->sent(ec, then_end); });
}

void server::impl::session::sent(const error_code& ec, bool then_end) {
  if (ended_) return;
  if (ec) {
    const bool connected = mq_ != nullptr;
    end([&] {
      if (!connected) {
        ended_before_login("before connect", io_error(ec, false));
      } else if (!disconnected_) {
        m_.log(msg::IMB1202W, "connection of " + who_ + " broke: " + io_error(ec, false) +
                                  "; its unit of work is backed out");
      }
    });
    return;
  }
  if (then_end) {
    end();
  } else if (rend_ > 0) {
    // The next frame is here already (a wake frame): handled from the queue, not inside this call, so
    // that a run of frames read at once does not nest [D].
    asio::post(s_->get_executor(), [self = shared_from_this()] { self->read_frame(); });
  } else {
    read_frame();
  }
}

void server::impl::session::end(const std::function<void()>& line) {
  if (ended_) return;
  ended_ = true;
  login_over_ = true;
  error_code ignored;
  login_timer_.cancel(ignored);
  // In this order, so that whoever sees an effect of the end finds the ones before it [D]: counted out of
  // the limits (a peer that reconnects at once, or reads the log line, finds the room it left), the log
  // line, the backout (whoever gets the message given back finds the line), the socket closed. The server
  // stops only once this runner has returned (its pools are joined after the sessions ended), so what
  // follows session_ended still has its server; session_ended drops the server's reference: ours holds it.
  const auto self = shared_from_this();
  pool_.remove_session();
  m_.session_ended(*this);
  if (line) line();
  if (mq_) {
    // A connection that ends without MQDISC backs its unit of work out (connection.hpp) [C] MQ's rule
    // for a broken connection: explicitly, whatever the engine's destructor does.
    if (!disconnected_) (void)mq_->backout();
    mq_.reset();
  }
  close_socket();  // the peer sees the end now
}

void server::impl::session_ended(session& s) {
  sync::lock_guard lock(mu);
  if (!s.evicted) {  // an evicted connection was counted out when it was evicted
    if (!s.logged_in) --pending;
    --active;
  }
  for (auto it = sessions.begin(); it != sessions.end(); ++it) {
    if (it->get() == &s) {
      sessions.erase(it);
      break;
    }
  }
  changed.notify_all();
}

// ---- accepting ----------------------------------------------------------------------------------

std::unique_ptr<transport::stream> server::impl::stream_of(asio::ip::tcp::socket sock) {
  return tls ? std::make_unique<transport::stream>(std::move(sock), *tls)
             : std::make_unique<transport::stream>(std::move(sock));
}

std::unique_ptr<transport::stream> server::impl::stream_of(local::socket sock) {
  return std::make_unique<transport::stream>(std::move(sock));
}

// The next connection goes to the io_context with the fewest sessions; its handler runs on the
// acceptor's strand.
template <class Acceptor>
void server::impl::accept_with(const std::shared_ptr<acceptor>& a, Acceptor& from) {
  runner_pool* pool = &least_loaded();
  from.async_accept(
      pool->io().get_executor(),
      asio::bind_executor(a->strand, [this, a, pool](const boost::system::error_code& ec,
                                                     typename Acceptor::protocol_type::socket sock) {
        if (a->stopping) return;
        const int fd = ec ? -1 : sock.native_handle();
        on_accept(a, ec, ec ? nullptr : stream_of(std::move(sock)), fd, *pool);
      }));
}

void server::impl::accept_next(const std::shared_ptr<acceptor>& a) {
  if (a->stopping) return;
  if (a->tcp) {
    accept_with(a, *a->tcp_acceptor);
  } else {
    accept_with(a, *a->local_acceptor);
  }
}

void server::impl::on_accept(const std::shared_ptr<acceptor>& a, const boost::system::error_code& ec,
                             std::unique_ptr<transport::stream> s, int fd, runner_pool& pool) {
  if (ec) {
    if (ec == asio::error::operation_aborted) return;
    if (ec == asio::error::connection_aborted || ec == asio::error::interrupted) {
      accept_next(a);
      return;
    }
    log(msg::IMB1207E, "accept on " +
                           (a->tcp ? a->address + "(" + std::to_string(a->port) + ")" : a->address) +
                           " failed: " + ec.message());
    // EMFILE and the like: give the other connections time to end.
    a->retry.expires_after(std::chrono::milliseconds(100));
    a->retry.async_wait([this, a](const boost::system::error_code& e) {
      if (!e) accept_next(a);
    });
    return;
  }
  std::string peer;
  if (a->tcp) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    detail::set_keepalive(fd, options.keepalive_idle_s, options.keepalive_interval_s,
                          options.keepalive_count);
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len);
    peer = peer_address(ss);
  }
  // The limits are checked here, before anything of the peer is read [D].
  std::shared_ptr<session> c;
  std::string shed;  // why a connection was shed (for the burst's log line)
  bool refused = false;
  {
    sync::lock_guard lock(mu);
    if (active >= options.max_connections) {
      refused = true;
      shed = "connection limit " + std::to_string(options.max_connections) + " reached";
    } else {
      if (pending >= std::max<std::size_t>(options.max_login_pending, 1)) {
        // The oldest connection still not logged in that has sent nothing makes room (else the oldest
        // not logged in): silent sockets cannot lock out a real user, whose connect frame is there a
        // moment after it connects, even when the server has not read it yet [D].
        session* out = nullptr;
        session* oldest = nullptr;
        for (auto& old : sessions) {
          if (old->logged_in || old->evicted) continue;
          if (oldest == nullptr) oldest = old.get();
          if (!old->spoke()) {
            out = old.get();
            break;
          }
        }
        if (out == nullptr) out = oldest;
        if (out != nullptr) {
          out->evicted = true;  // counted out now: it is on its way out
          out->shut();
          --active;
          --pending;
        }
        shed = std::to_string(options.max_login_pending) +
               " connections waiting to log in: the oldest closed to make room";
      }
      c = std::make_shared<session>(*this, pool, std::move(s), a->tcp, peer);
      sessions.push_back(c);
      ++active;
      ++pending;
    }
    if (shed.empty()) shedding = false;  // the burst is over
  }
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
    s.reset();  // closes
  }
  if (c) c->start();
  if (!shed.empty()) note_shed(shed);
  accept_next(a);
}

void server::impl::note_shed(const std::string& why) {
  auto now = std::chrono::steady_clock::now();
  std::size_t n = 0;
  {
    sync::lock_guard lock(mu);
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

void server::impl::stop_acceptor(const std::shared_ptr<acceptor>& a) {
  // On its strand, which a runner serves: a caller inside a call (STOP LISTENER) left one free.
  std::promise<void> closed;
  auto closed_now = closed.get_future();
  asio::post(a->strand, [a, &closed] {
    a->stopping = true;
    boost::system::error_code ignored;
    if (a->tcp_acceptor) a->tcp_acceptor->close(ignored);
    if (a->local_acceptor) a->local_acceptor->close(ignored);
    a->retry.cancel(ignored);
    closed.set_value();
  });
  closed_now.wait();
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
  const bool v6 = ai->ai_family == AF_INET6;
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0) {
    ::freeaddrinfo(list);
    return fail(std::string("socket: ") + std::strerror(errno));
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (v6 && address.empty()) {
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
  auto a = std::make_shared<acceptor>(acceptor_io());
  a->name = name;
  a->address = address;
  a->port = bound;
  a->tcp = true;
  boost::system::error_code ec;
  a->tcp_acceptor.emplace(a->strand);
  a->tcp_acceptor->assign(v6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(), fd, ec);
  if (ec) {
    ::close(fd);
    return fail("cannot listen: " + ec.message());
  }
  sync::lock_guard lock(mu);
  if (stopped || listeners.count(name) != 0) {
    a->tcp_acceptor->close(ec);
    return fail(stopped ? "the server is stopping" : "listener " + name + " is already running");
  }
  listeners[name] = a;
  asio::post(a->strand, [this, a] { accept_next(a); });
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
    std::shared_ptr<acceptor> a;
    {
      sync::lock_guard lock(mu);
      auto it = listeners.find(name);
      if (it == listeners.end()) return error("the listener is not running");
      a = std::move(it->second);
      listeners.erase(it);
    }
    stop_acceptor(a);
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
    // Asio's context takes a reference of its own to the OpenSSL one.
    SSL_CTX_up_ref(ctx->get());
    m.tls = std::make_unique<asio::ssl::context>(ctx->get());
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
  {
    std::string error;
    for (std::size_t i = 0; i < 1 + io_context_count(m.options.session_contexts); ++i) {
      m.pools.push_back(std::make_unique<runner_pool>([&m](const std::string& why) {
        m.log(msg::IMB1203E,
              "no thread for one more server runner (" + why + "); connections wait until a runner is free");
      }));
      if (!m.pools.back()->start(error)) {
        return io::error_of(std::errc::resource_unavailable_try_again, "server", "no thread: " + error);
      }
    }
  }
  auto a = std::make_shared<impl::acceptor>(m.acceptor_io());
  a->name = "bindings";
  a->address = path.string();
  boost::system::error_code ec;
  a->local_acceptor.emplace(a->strand);
  a->local_acceptor->assign(local(), fd, ec);
  if (ec) {
    ::close(fd);
    return io::error_from_errno(path, "cannot listen on the bindings socket", ec.value());
  }
  {
    sync::lock_guard lock(m.mu);  // the runners are running already
    m.bindings = a;
  }
  asio::post(a->strand, [&m, a] { m.accept_next(a); });
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
  std::shared_ptr<impl::acceptor> a;
  {
    sync::lock_guard lock(impl_->mu);
    auto it = impl_->listeners.find(name);
    if (it == impl_->listeners.end())
      return io::error_of(std::errc::no_such_process, "LISTENER(" + name + ")",
                          "the listener is not running");
    a = std::move(it->second);
    impl_->listeners.erase(it);
  }
  impl_->stop_acceptor(a);
  return std::monostate{};
}

std::vector<server::listener_info> server::listeners() const {
  sync::lock_guard lock(impl_->mu);
  std::vector<listener_info> out;
  for (const auto& [name, a] : impl_->listeners) out.push_back({name, a->address, a->port});
  return out;
}

void server::stop() {
  auto& m = *impl_;
  std::shared_ptr<impl::acceptor> bindings;
  std::map<std::string, std::shared_ptr<impl::acceptor>> listeners;
  {
    sync::lock_guard lock(m.mu);
    if (m.stopped) return;
    m.stopped = true;
    bindings = std::move(m.bindings);
    listeners = std::move(m.listeners);
  }
  if (m.qm != nullptr) m.qm->set_runtime_command_handler(nullptr);
  if (bindings) {
    m.stop_acceptor(bindings);
    ::unlink(m.options.bindings_socket.c_str());
  }
  for (auto& [name, a] : listeners) m.stop_acceptor(a);
  // Break every connection: a read or write waiting on its socket fails and the session backs its unit of
  // work out; one waiting inside a get is stopped (connection::stop) and does the same.
  m.watcher.stop_all();
  {
    sync::unique_lock lock(m.mu);
    for (auto& c : m.sessions) c->shut();
    while (!m.sessions.empty()) m.changed.wait(lock);
  }
  for (auto& p : m.pools) p->stop();
}

}  // namespace imsb::qmgr
