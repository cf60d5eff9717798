// The TCP client backend of the XCF member interface (transport/README.md "Client backend behaviour" [D]).
//
// One member_link per joined member: its connection to the hub, the outbound bytes, the requests that
// wait for answers and the re-join loop. Everything that touches the socket runs on the service's one
// I/O thread; send() and the blocking services run on the caller's thread and meet the I/O thread under
// member_link::mu_. Handlers are called on the I/O thread with no lock held, so they may call send().

#include "imsb/transport/tcp_xcf.hpp"

#include <algorithm>
#include <deque>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "imsb/core/messages.hpp"
#include "imsb/names/name_rules.hpp"
#include "imsb/sync/mutex.hpp"
#include "imsb/xcf/frame.hpp"

namespace imsb::transport {

namespace asio = boost::asio;
namespace frame = xcf::frame;
using tcp = asio::ip::tcp;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;
using error_code = boost::system::error_code;

namespace {

// SEND and DELIVER: token[8] name[16] stream(2) msgcntl[32] before the data (transport/README.md).
constexpr std::size_t message_prefix_size = 58;
// Above this many remembered send runs a PING fences them (see member_link::runs_).
constexpr std::size_t fence_threshold = 256;
// The largest answer a hub sends: a JOIN_RSP (28 bytes + member_info × n) listing 65536 members, the
// most xcfhub holds (--max-members, imsb/transport/hub.hpp max_max_members) [D]. Listings are the only
// frames allowed over the hub's maximum payload, so this bounds the reader before and after the join.
constexpr std::uint32_t largest_listing = 28 + 81 * 65536;
// A reader that holds more than this once all its bytes are used is replaced by an empty one: one large
// message must not pin its storage for the connection's life.
constexpr std::size_t reader_keep_capacity = 256 * 1024;
// README "Client backend behaviour" [D]: the back-off starts again from its initial delay only after a
// re-joined link stayed up this long, so that a hub that takes the JOIN and drops us is not hammered.
constexpr milliseconds backoff_reset_after{2000};
// Stream states are swept (README "Send") when their number doubles, at least at this many.
constexpr std::size_t min_stream_sweep = 64;

std::string ms_text(milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

bool valid_group(std::string_view name) { return !names::check_xcf_group_name(name, names::xcf_rules::xcf); }
bool valid_member(std::string_view name) {
  return !names::check_xcf_member_name(name, names::xcf_rules::xcf);
}

}  // namespace

// ---- The I/O thread and the configuration ---------------------------------------------------------

namespace detail {

struct client_config {
  tcp_service_options options;
  endpoint_spec endpoint;
  std::shared_ptr<asio::ssl::context> tls;  // nullptr: plain TCP

  void log(const std::string& line) const {
    if (options.log) options.log(line);
  }
};

// The io_context and the thread that runs it. Shared by the service and its members, so that a member
// that outlives its service still works; whoever lets go last stops the thread. The thread holds the
// io_context itself, so that even a last release from inside a handler (on the thread) is safe.
class client_core {
 public:
  explicit client_core(std::shared_ptr<const client_config> config)
      : cfg(std::move(config)),
        io_(std::make_shared<asio::io_context>()),
        guard_(asio::make_work_guard(*io_)),
        thread_([io = io_] { io->run(); }),
        thread_id_(thread_.get_id()) {}
  ~client_core() {
    guard_.reset();
    if (std::this_thread::get_id() == thread_id_) {
      thread_.detach();  // run() returns once the last handler is done
    } else {
      thread_.join();
    }
  }
  client_core(const client_core&) = delete;
  client_core& operator=(const client_core&) = delete;

  asio::io_context& io() noexcept { return *io_; }
  std::thread::id thread_id() const noexcept { return thread_id_; }
  bool on_io_thread() const noexcept { return std::this_thread::get_id() == thread_id_; }

  const std::shared_ptr<const client_config> cfg;

 private:
  std::shared_ptr<asio::io_context> io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread thread_;
  std::thread::id thread_id_;
};

}  // namespace detail

namespace {

using detail::client_config;
using detail::client_core;

// ---- One connection to the hub --------------------------------------------------------------------

// A connection attempt and what it alone owns. Completion handlers hold it, so its buffers live as long
// as an operation may use them; a link compares it with its current one to ignore stale completions.
struct connection {
  explicit connection(asio::io_context& io) : socket(io), resolver(io) {}

  tcp::socket socket;  // until the stream takes it over
  tcp::resolver resolver;
  std::unique_ptr<stream> s;
  bytes writing;  // the bytes of the write in flight
  std::vector<std::uint8_t> read_buffer = std::vector<std::uint8_t>(64 * 1024);
  // Before JOIN_RSP only a listing may come; after it the hub's maximum (or a listing) is the limit.
  // A new limit takes effect when the reader is next idle (it cannot change under buffered bytes).
  std::uint32_t reader_limit = largest_listing;
  std::uint32_t reader_applied_limit = largest_listing;
  frame::reader reader{largest_listing};
  std::uint32_t max_payload = largest_listing;  // a DELIVER: the hub's maximum, once joined
  bool joined = false;                          // JOIN_RSP ok on this connection

  void close() noexcept {
    error_code ec;
    resolver.cancel();
    if (s) {
      s->close();
    } else {
      socket.close(ec);
    }
  }
};

using open_handler = std::function<void(const std::string& error)>;  // empty: ready for frames

// Resolves, connects and (for TLS) shakes hands; `done` gets an empty string when the stream is ready.
void async_open(const std::shared_ptr<const client_config>& cfg, const std::shared_ptr<connection>& conn,
                open_handler done) {
  auto connect = [cfg, conn, done](const std::vector<tcp::endpoint>& endpoints) {
    asio::async_connect(
        conn->socket, endpoints, [cfg, conn, done](const error_code& ec, const tcp::endpoint&) {
          if (ec) {
            done("cannot connect to " + cfg->endpoint.to_string() + ": " + ec.message());
            return;
          }
          error_code ignored;
          conn->socket.set_option(tcp::no_delay(true), ignored);  // we batch frames ourselves
          if (cfg->tls) {
            conn->s = std::make_unique<stream>(std::move(conn->socket), *cfg->tls);
            conn->s->set_verify_host(cfg->endpoint.host);
            // OpenSSL checks the name too, so that a refusal says why ("Hostname mismatch", "IP
            // address mismatch") rather than an unspecified verification error.
            X509_VERIFY_PARAM* param = SSL_get0_param(conn->s->tls()->native_handle());
            error_code aec;
            asio::ip::make_address(cfg->endpoint.host, aec);
            if (!aec) {
              X509_VERIFY_PARAM_set1_ip_asc(param, cfg->endpoint.host.c_str());
            } else {
              X509_VERIFY_PARAM_set1_host(param, cfg->endpoint.host.c_str(), cfg->endpoint.host.size());
            }
          } else {
            conn->s = std::make_unique<stream>(std::move(conn->socket));
          }
          conn->s->async_handshake(stream::role::client, [cfg, conn, done](const error_code& hec) {
            if (hec) {
              done("TLS handshake with " + cfg->endpoint.to_string() +
                   " failed: " + conn->s->describe_error(hec));
              return;
            }
            done({});
          });
        });
  };
  error_code ec;
  const auto address = asio::ip::make_address(cfg->endpoint.host, ec);
  if (!ec) {
    connect({tcp::endpoint(address, cfg->endpoint.port)});
    return;
  }
  conn->resolver.async_resolve(
      cfg->endpoint.host, std::to_string(cfg->endpoint.port), tcp::resolver::numeric_service,
      [cfg, conn, done, connect](const error_code& rec, const tcp::resolver::results_type& results) {
        if (rec || results.empty()) {
          done("cannot resolve " + cfg->endpoint.host + ": " + (rec ? rec.message() : "no address"));
          return;
        }
        std::vector<tcp::endpoint> endpoints;
        for (const auto& entry : results) endpoints.push_back(entry.endpoint());
        connect(endpoints);
      });
}

// ---- One member ---------------------------------------------------------------------------------------

// What a request that waits for the hub gets back.
struct reply {
  xcf::return_code code = xcf::codes::link_down;
  std::vector<xcf::member_info> members;  // JOIN_RSP, QUERY_RSP
};
using reply_promise = std::promise<reply>;

class member_link : public std::enable_shared_from_this<member_link> {
 public:
  member_link(std::shared_ptr<const client_config> cfg, asio::io_context& io, std::thread::id io_thread,
              xcf::join_request request, xcf::member_handler& handler)
      : cfg_(std::move(cfg)),
        io_(io),
        io_thread_(io_thread),
        handler_(handler),
        who_(request.group + "/" + request.member),
        connect_timer_(io),
        heartbeat_timer_(io),
        rejoin_timer_(io),
        backoff_(cfg_->options.reconnect_initial),
        jitter_(std::random_device{}()),
        request_(std::move(request)) {}

  // The first join: connects and sends JOIN; the future gets the JOIN_RSP (or link_down).
  std::future<reply> start() {
    auto promise = std::make_shared<reply_promise>();
    auto answer = promise->get_future();
    {
      sync::lock_guard lock(mu_);
      join_promise_ = std::move(promise);
    }
    asio::post(io_, [self = shared_from_this()] { self->start_attempt(); });
    return answer;
  }

  // Abnormal end: closes the connection (the hub makes it a failure). No handler call starts after it
  // returns; from inside a handler it takes effect when that handler returns.
  void close() {
    if (on_io_thread()) {
      do_close();
      return;
    }
    // Shared with the posted call: the caller's frame may be gone by the time set_value returns, and
    // a call that never runs (the io_context destroyed) breaks the promise instead of hanging us.
    auto done = std::make_shared<std::promise<void>>();
    auto closed = done->get_future();
    asio::post(io_, [self = shared_from_this(), done] {
      self->do_close();
      done->set_value();
    });
    closed.wait();
  }

  // The same without waiting for the I/O thread (join() gave up on it, README): no handler call starts
  // after this returns; the connection is closed when the thread gets to it.
  void close_soon() {
    {
      sync::lock_guard lock(mu_);
      phase_ = phase::closed;
    }
    asio::post(io_, [self = shared_from_this()] { self->do_close(); });
  }

  xcf::member_token token() const {
    sync::lock_guard lock(mu_);
    return token_;
  }

  std::optional<tcp_member_stats> stats() {
    if (on_io_thread()) return std::nullopt;
    auto promise = std::make_shared<std::promise<tcp_member_stats>>();
    auto answer = promise->get_future();
    asio::post(io_, [self = shared_from_this(), promise] {
      tcp_member_stats st;
      if (self->conn_) {
        st.reader_capacity = self->conn_->reader.capacity();
        st.reader_limit = self->conn_->reader_applied_limit;
      }
      sync::lock_guard lock(self->mu_);
      st.linked = self->phase_ == phase::up;
      st.stream_states = self->streams_.size();
      st.send_runs = self->runs_.size();
      promise->set_value(st);
    });
    if (answer.wait_for(std::chrono::seconds(1)) != std::future_status::ready) return std::nullopt;
    return answer.get();
  }

  xcf::return_code send(const xcf::target& to, const xcf::control_area& control, bytes_view data,
                        const xcf::send_options& options, std::uint64_t* send_id) {
    if (!to.name.empty() && !valid_member(to.name)) return xcf::codes::bad_name;
    const std::size_t payload_size = message_prefix_size + data.size();
    // Copied before taking the lock: the I/O thread waits for mu_ only as long as the append takes.
    const frame::send_payload body{to.name, to.name.empty() ? to.token : xcf::member_token{}, options.stream,
                                   control, data.to_bytes()};
    sync::lock_guard lock(mu_);
    if (auto refused = unusable_locked()) return *refused;
    if (payload_size > max_payload_) return xcf::codes::too_big;  // README: the hub's maximum, 8/10
    const std::size_t queued = pending_.size() + writing_bytes_;
    if (queued != 0 && queued + frame::header_size + payload_size > cfg_->options.outbound_limit) {
      return xcf::codes::resource_shortage;
    }
    const stream_iter st = stream_locked(to, options.stream);
    // README "Send": resume on the first send of the stream after a 12/0 refusal was reported. While
    // on_send_done runs, a send from another thread cannot tell whether its sender has heard of the
    // refusal yet (its message may come after the refused one, or be the re-send): it is refused 12/0
    // here, as the hub would refuse it, and retried. The handler itself, on this thread, may re-send.
    if (st->second.armed && st->second.reporting && !on_io_thread()) return xcf::codes::resource_shortage;
    const bool resume = st->second.armed;
    const std::uint64_t id = ++send_counter_;
    std::uint16_t flags = 0;
    if (options.ack) flags |= frame::flags::ack;
    if (options.ordered) flags |= frame::flags::ordered;
    if (resume) flags |= frame::flags::resume;
    // SEND corr = the low 32 bits of the send id, so that SEND_RSP names the send (README [D]).
    if (!frame::encode(frame::frame_type::send, flags, static_cast<std::uint32_t>(id), body, pending_)) {
      --send_counter_;
      drop_if_unused_locked(st);
      return xcf::codes::too_big;
    }
    if (resume) {
      st->second.armed = false;
      st->second.last_resume = id;
    }
    if (runs_.empty() || runs_.back().second != st) {
      runs_.emplace_back(id, st);
      ++st->second.runs;
    }
    if (runs_.size() > fence_threshold && !fence_outstanding_) {
      fence_outstanding_ = true;
      frame::encode(frame::frame_type::ping, 0, next_corr_++, frame::ping_payload{id}, pending_);
    }
    kick_write_locked();
    if (send_id != nullptr) *send_id = id;
    return xcf::codes::ok;
  }

  xcf::return_code query(std::vector<xcf::member_info>& out, std::string_view member_name) {
    if (on_io_thread()) return tcp_codes::called_from_handler;
    if (!member_name.empty() && !valid_member(member_name)) return xcf::codes::bad_name;
    std::future<reply> answer;
    {
      sync::lock_guard lock(mu_);
      if (auto refused = unusable_locked()) return *refused;
      answer = submit_locked(frame::frame_type::query,
                             frame::query_payload{request_.group, std::string(member_name)});
    }
    reply r = answer.get();
    out = std::move(r.members);
    return r.code;
  }

  xcf::return_code set_user_state(const xcf::user_state& state) {
    if (on_io_thread()) return tcp_codes::called_from_handler;
    std::future<reply> answer;
    {
      sync::lock_guard lock(mu_);
      if (auto refused = unusable_locked()) return *refused;
      answer = submit_locked(frame::frame_type::set_user_state, frame::set_user_state_payload{state});
    }
    const reply r = answer.get();
    if (r.code.ok()) {
      // A re-join after a link loss announces the state we have now, not the one we joined with.
      sync::lock_guard lock(mu_);
      request_.ustate = state;
    }
    return r.code;
  }

  xcf::return_code remove(std::string_view member_name) {
    if (on_io_thread()) return tcp_codes::called_from_handler;
    if (!valid_member(member_name)) return xcf::codes::bad_name;
    std::future<reply> answer;
    {
      sync::lock_guard lock(mu_);
      if (auto refused = unusable_locked()) return *refused;
      answer = submit_locked(frame::frame_type::remove, frame::remove_payload{std::string(member_name)});
    }
    return answer.get().code;
  }

  // tcp_xcf.hpp "Decisions": a link that drops before the answer ends the member (link_down, no
  // re-join), as the hub cannot tell us whether it was quiesced.
  xcf::return_code quiesce() {
    if (on_io_thread()) return tcp_codes::called_from_handler;
    std::future<reply> answer;
    {
      sync::lock_guard lock(mu_);
      if (auto refused = unusable_locked()) return *refused;
      // The group routine is not scheduled after the member's own IXCQUIES [C: XCF-STATES].
      phase_ = phase::quiescing;
      answer = submit_locked(frame::frame_type::quiesce, frame::empty_payload{});
    }
    return answer.get().code;
  }

  // tcp_xcf.hpp "Decisions": while the link is down (or the hub refused the re-join for good) leave
  // ends the member here and says link_down; the hub already made it fail.
  xcf::return_code leave() {
    if (on_io_thread()) return tcp_codes::called_from_handler;
    std::future<reply> answer;
    {
      sync::lock_guard lock(mu_);
      switch (phase_) {
        case phase::up:
        case phase::quiesced:
          // No exit runs after the member's own IXCLEAVE [C: XCF-STATES]; inbound messages are
          // discarded [C: XCF-LEAVE].
          phase_ = phase::leaving;
          answer = submit_locked(frame::frame_type::leave, frame::empty_payload{});
          break;
        case phase::down:
        case phase::rejoining:
        case phase::abandoned:
          phase_ = phase::closed;  // stop re-joining
          break;
        default:
          return xcf::codes::not_active;  // XCF's IXCLEAVE 8/4 [C]
      }
    }
    if (!answer.valid()) {
      close();
      return xcf::codes::link_down;
    }
    return answer.get().code;
  }

 private:
  enum class phase {
    joining,    // the first JOIN: join() waits for it
    up,         // joined, link up
    down,       // link lost: waiting for the back-off timer
    rejoining,  // link lost: connecting and re-joining
    abandoned,  // the hub refused the re-join for good (8/14, 8/18): failed, only leave is left
    quiescing,  // QUIESCE sent
    quiesced,   // may only leave or be closed (README "Quiesce")
    leaving,    // LEAVE sent
    closed,     // left, refused or destroyed: nothing happens any more
  };

  // Resume bookkeeping for one (target as addressed, stream) (README "Send").
  struct stream_state {
    bool armed = false;             // a 12/0 refusal was reported: the next send resumes
    bool reporting = false;         // on_send_done for that refusal is running
    bool gone = false;              // the target left, failed or was removed: drop when unused
    std::uint64_t last_resume = 0;  // send id of the last send with the resume flag
    std::size_t runs = 0;           // entries of runs_ that name it
  };
  // Target name (empty: by token), token (zero when by name), stream.
  using stream_key = std::tuple<std::string, xcf::member_token, std::uint16_t>;
  using stream_map = std::map<stream_key, stream_state>;
  using stream_iter = stream_map::iterator;

  bool on_io_thread() const noexcept { return std::this_thread::get_id() == io_thread_; }

  // Why a request cannot go now, or nothing when it can.
  std::optional<xcf::return_code> unusable_locked() const IMSB_REQUIRES(mu_) {
    switch (phase_) {
      case phase::up:
        return std::nullopt;
      case phase::joining:
      case phase::down:
      case phase::rejoining:
      case phase::abandoned:
        return xcf::codes::link_down;
      default:
        return xcf::codes::not_active;
    }
  }

  // Handlers run while the member is joined or while its link is down; never after its own leave or
  // quiesce, nor after close or a final refusal of the re-join [C: XCF-STATES].
  bool handler_allowed() const IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    return phase_ == phase::up || phase_ == phase::down || phase_ == phase::rejoining;
  }

  // ---- Stream states ----------------------------------------------------------------------------
  //
  // A state may go when it says nothing a fresh one would not: not armed, no report running, and no
  // run names it — then no SEND_RSP can name one of its sends any more (answers come in request
  // order, README "Send"), so its last_resume no longer matters.

  static bool unused(const stream_state& st) noexcept { return !st.armed && !st.reporting && st.runs == 0; }

  stream_iter stream_locked(const xcf::target& to, std::uint16_t stream) IMSB_REQUIRES(mu_) {
    stream_key key{to.name, to.name.empty() ? to.token : xcf::member_token{}, stream};
    const auto found = streams_.find(key);
    if (found != streams_.end()) return found;
    if (streams_.size() >= sweep_at_) {
      // Targets that vanished without an event we saw (a token already dead when sent to): a sweep
      // each time the map doubles keeps it in proportion to the states in use, at O(1) a send.
      sweep_locked();
      sweep_at_ = std::max(min_stream_sweep, 2 * streams_.size());
    }
    return streams_.emplace(std::move(key), stream_state{}).first;
  }

  void drop_if_unused_locked(stream_iter it) IMSB_REQUIRES(mu_) {
    if (unused(it->second)) streams_.erase(it);
  }

  void sweep_locked() IMSB_REQUIRES(mu_) {
    for (auto it = streams_.begin(); it != streams_.end();) {
      it = unused(it->second) ? streams_.erase(it) : std::next(it);
    }
  }

  void pop_run_locked() IMSB_REQUIRES(mu_) {
    const stream_iter st = runs_.front().second;
    runs_.pop_front();
    --st->second.runs;
    if (st->second.gone) drop_if_unused_locked(st);
  }

  void clear_runs_locked() IMSB_REQUIRES(mu_) {
    for (auto& run : runs_) --run.second->second.runs;
    runs_.clear();
    fence_outstanding_ = false;
  }

  // The member left, failed or was removed: its states (by name and by its token) go once unused.
  void target_gone_locked(const xcf::member_info& m) IMSB_REQUIRES(mu_) {
    for (auto it = streams_.begin(); it != streams_.end();) {
      const auto& [name, token, stream] = it->first;
      static_cast<void>(stream);
      if (name.empty() ? token == m.token : name == m.name) {
        it->second.gone = true;
        if (unused(it->second)) {
          it = streams_.erase(it);
          continue;
        }
      }
      ++it;
    }
  }

  std::future<reply> submit_locked(frame::frame_type type, const frame::payload& body) IMSB_REQUIRES(mu_) {
    auto promise = std::make_shared<reply_promise>();
    auto answer = promise->get_future();
    const std::uint32_t corr = next_corr_++;
    if (!frame::encode(type, 0, corr, body, pending_)) {
      promise->set_value(reply{xcf::codes::bad_name, {}});
      return answer;
    }
    requests_.emplace(corr, std::move(promise));
    kick_write_locked();
    return answer;
  }

  void queue_locked(frame::frame_type type, std::uint32_t corr, const frame::payload& body)
      IMSB_REQUIRES(mu_) {
    frame::encode(type, 0, corr, body, pending_);
    kick_write_locked();
  }

  void kick_write_locked() IMSB_REQUIRES(mu_) {
    if (write_in_flight_ || !writable_ || pending_.empty()) return;
    write_in_flight_ = true;
    asio::post(io_, [self = shared_from_this(), generation = generation_] { self->write_next(generation); });
  }

  // ---- I/O thread from here on ----------------------------------------------------------------------

  // One write chain per connection: `generation` tells a chain of an earlier connection to stop.
  void write_next(std::uint64_t generation) {
    const std::shared_ptr<connection> conn = conn_;
    {
      sync::lock_guard lock(mu_);
      if (generation != generation_) return;
      if (!conn || !writable_ || pending_.empty()) {
        write_in_flight_ = false;
        writing_bytes_ = 0;
        return;
      }
      conn->writing.clear();
      std::swap(conn->writing, pending_);  // the frames queued so far go as one write
      writing_bytes_ = conn->writing.size();
    }
    conn->s->async_write(asio::buffer(conn->writing),
                         [self = shared_from_this(), conn, generation](const error_code& ec, std::size_t) {
                           if (conn != self->conn_) return;
                           if (ec) {
                             self->lose_link("cannot write to the hub: " + conn->s->describe_error(ec));
                             return;
                           }
                           self->write_next(generation);
                         });
  }

  void start_attempt() {
    {
      sync::lock_guard lock(mu_);
      // join() gave up (close_soon) before this thread got here: nothing may reach the hub.
      if (phase_ == phase::closed) return;
    }
    auto conn = std::make_shared<connection>(io_);
    conn_ = conn;
    {
      sync::lock_guard lock(mu_);
      clear_output_locked();
      join_corr_ = next_corr_++;
      const frame::join_payload join{request_.group,   request_.member, 0,
                                     request_.lasting, request_.ustate, request_.memdata};
      frame::encode(frame::frame_type::join, 0, join_corr_, join, pending_);  // names checked in join()
    }
    const milliseconds limit = cfg_->options.connect_timeout;
    connect_timer_.expires_after(limit);
    connect_timer_.async_wait([self = shared_from_this(), conn, limit](const error_code& ec) {
      if (ec || conn != self->conn_ || conn->joined) return;
      self->lose_link("no answer to JOIN from " + self->cfg_->endpoint.to_string() + " within " +
                      ms_text(limit));
    });
    async_open(cfg_, conn, [self = shared_from_this(), conn](const std::string& error) {
      if (conn != self->conn_) return;
      if (!error.empty()) {
        self->lose_link(error);
        return;
      }
      self->last_heard_ = steady::now();
      {
        sync::lock_guard lock(self->mu_);
        self->writable_ = true;
        self->kick_write_locked();
      }
      self->read_next(conn);
    });
  }

  void read_next(const std::shared_ptr<connection>& conn) {
    conn->s->async_read_some(asio::buffer(conn->read_buffer), [self = shared_from_this(), conn](
                                                                  const error_code& ec, std::size_t n) {
      if (conn != self->conn_) return;
      if (ec) {
        self->lose_link(ec == asio::error::eof ? std::string("the hub closed the connection")
                                               : "cannot read from the hub: " + conn->s->describe_error(ec));
        return;
      }
      self->last_heard_ = steady::now();
      conn->reader.feed(bytes_view(conn->read_buffer.data(), n));
      if (self->drain(conn)) self->read_next(conn);
    });
  }

  // Handles every whole frame read so far. false when the connection is gone.
  bool drain(const std::shared_ptr<connection>& conn) {
    for (;;) {
      frame::decoded f;
      decode_error error;
      const auto status = conn->reader.next(f, error);
      if (status == frame::reader::status::need_more) break;
      if (status == frame::reader::status::error) {
        lose_link("a frame from the hub does not decode: " + error.to_string());
        return false;
      }
      // A DELIVER carries what a SEND carried, which the hub bounds by the maximum it announced (README
      // "Details"); the other frames have fixed or codec-bounded sizes, listings excepted.
      if (conn->joined && f.head.type == frame::frame_type::deliver && f.head.length > conn->max_payload) {
        lose_link("a DELIVER frame of " + std::to_string(f.head.length) +
                  " bytes from the hub is over its maximum of " + std::to_string(conn->max_payload));
        return false;
      }
      dispatch(conn, f);
      if (conn != conn_) return false;
    }
    // Idle: the reader may take its new limit, and gives back the storage of a large frame.
    if (conn->reader.buffered() == 0 && (conn->reader.capacity() > reader_keep_capacity ||
                                         conn->reader_applied_limit != conn->reader_limit)) {
      conn->reader = frame::reader(conn->reader_limit);
      conn->reader_applied_limit = conn->reader_limit;
    }
    return true;
  }

  void dispatch(const std::shared_ptr<connection>& conn, frame::decoded& f) {
    using type = frame::frame_type;
    switch (f.head.type) {
      case type::ping: {  // README "Heartbeat": answered at once, from the I/O thread
        sync::lock_guard lock(mu_);
        queue_locked(type::pong, f.head.corr, std::get<frame::ping_payload>(f.body));
        return;
      }
      case type::pong:
        on_fence(std::get<frame::ping_payload>(f.body).nonce);
        return;
      case type::join_rsp:
        on_join_rsp(conn, f);
        return;
      case type::deliver:
        on_deliver(f);
        return;
      case type::event:
        on_event(std::get<frame::event_payload>(f.body));
        return;
      case type::send_rsp:
        on_send_rsp(f.head.corr, std::get<frame::rc_payload>(f.body).code);
        return;
      case type::leave_rsp:
      case type::quiesce_rsp:
      case type::set_user_state_rsp:
      case type::remove_rsp:
        on_answer(f.head.type, f.head.corr, reply{std::get<frame::rc_payload>(f.body).code, {}});
        return;
      case type::query_rsp: {
        auto& q = std::get<frame::query_rsp_payload>(f.body);
        on_answer(f.head.type, f.head.corr, reply{q.code, std::move(q.members)});
        return;
      }
      case type::error: {
        const auto& e = std::get<frame::error_payload>(f.body);
        lose_link("the hub refused the connection (" + xcf::describe(e.code) + "): " + e.text);
        return;
      }
      default:
        lose_link("unexpected " + std::string(frame::to_string(f.head.type)) + " frame from the hub");
        return;
    }
  }

  // Refusals of a re-join that another attempt cannot change (tcp_xcf.hpp "Decisions").
  static bool final_refusal(xcf::return_code code) noexcept {
    return code == xcf::codes::bad_name || code == xcf::codes::not_authorized;
  }

  void on_join_rsp(const std::shared_ptr<connection>& conn, frame::decoded& f) {
    auto& rsp = std::get<frame::join_rsp_payload>(f.body);
    phase was;
    bool expected = false;
    xcf::join_request request;
    {
      sync::lock_guard lock(mu_);
      was = phase_;
      request = request_;
      expected =
          f.head.corr == join_corr_ && !conn->joined && (was == phase::joining || was == phase::rejoining);
      if (expected && rsp.code.ok()) {
        token_ = rsp.token;
        max_payload_ = std::min(rsp.max_payload, frame::hard_max_payload);
        phase_ = phase::up;
        // The hub's refusal state is per connection: every stream starts afresh.
        clear_runs_locked();
        streams_.clear();
        sweep_at_ = min_stream_sweep;
      }
    }
    if (!expected) {
      lose_link("unexpected JOIN_RSP from the hub");
      return;
    }
    connect_timer_.cancel();
    if (!rsp.code.ok()) {
      drop_connection();
      if (was == phase::joining) {
        std::shared_ptr<reply_promise> promise;
        {
          sync::lock_guard lock(mu_);
          phase_ = phase::closed;
          promise = std::move(join_promise_);
        }
        if (promise) promise->set_value(reply{rsp.code, {}});
        return;
      }
      if (final_refusal(rsp.code)) {
        {
          sync::lock_guard lock(mu_);
          if (phase_ != phase::rejoining) return;
          phase_ = phase::abandoned;
        }
        cfg_->log(std::string(imsb::msg::IMB3054E) + " XCF member " + who_ +
                  ": the hub refused the re-join for good (" + xcf::describe(rsp.code) +
                  "); no more attempts, the member stays failed");
        return;
      }
      const milliseconds delay = next_delay();
      cfg_->log(std::string(imsb::msg::IMB3053W) + " XCF member " + who_ + ": the hub refused the re-join (" +
                xcf::describe(rsp.code) + "); next attempt in " + ms_text(delay));
      {
        sync::lock_guard lock(mu_);
        if (phase_ != phase::rejoining) return;
        phase_ = phase::down;
      }
      schedule_rejoin(delay);
      return;
    }
    conn->joined = true;
    conn->max_payload = std::min(rsp.max_payload, frame::hard_max_payload);
    conn->reader_limit = std::max(conn->max_payload, largest_listing);
    heartbeat_ms_ = rsp.heartbeat_ms;
    start_heartbeat(conn);
    up_since_ = steady::now();
    known_.clear();
    self_info_ = xcf::member_info{request.group,  request.member,  rsp.token, xcf::member_state::active,
                                  request.ustate, request.memdata, {}};
    for (const auto& m : rsp.members) {
      if (m.name == request.member) {
        self_info_ = m;
      } else {
        known_[m.name] = m;
      }
    }
    if (was == phase::joining) {
      std::shared_ptr<reply_promise> promise;
      {
        sync::lock_guard lock(mu_);
        promise = std::move(join_promise_);
      }
      if (promise) promise->set_value(reply{rsp.code, std::move(rsp.members)});
      return;
    }
    cfg_->log(std::string(imsb::msg::IMB3052I) + " XCF member " + who_ + " re-joined through " +
              cfg_->endpoint.to_string() + " (" + xcf::describe(rsp.code) + ")");
    // README: after the re-join, `active` for ourselves and for each active member — what a member sees
    // after a real XCF restart.
    self_info_.state = xcf::member_state::active;
    if (!deliver_event(xcf::member_event{xcf::event_kind::active, self_info_})) return;
    std::vector<xcf::member_info> active;
    for (const auto& [name, m] : known_) {
      if (m.state == xcf::member_state::active) active.push_back(m);
    }
    for (const auto& m : active) {
      if (!deliver_event(xcf::member_event{xcf::event_kind::active, m})) return;
    }
  }

  void on_deliver(frame::decoded& f) {
    {
      sync::lock_guard lock(mu_);
      if (phase_ != phase::up) return;  // after our own leave or quiesce inbound messages are dropped
    }
    auto& d = std::get<frame::deliver_payload>(f.body);
    xcf::message msg;
    msg.source_name = std::move(d.source_name);
    msg.source_token = d.source_token;
    msg.stream = d.stream;
    msg.ordered = (f.head.flags & frame::flags::ordered) != 0;
    msg.control = d.control;
    msg.data = std::move(d.data);
    handler_.on_message(std::move(msg));
  }

  void on_event(frame::event_payload& e) {
    {
      sync::lock_guard lock(mu_);
      if (phase_ != phase::up) return;
      if (e.kind == xcf::event_kind::left || e.kind == xcf::event_kind::failed ||
          e.kind == xcf::event_kind::removed) {
        target_gone_locked(e.member);
      }
    }
    known_[e.member.name] = e.member;  // latest state wins [C: XCF-STATES]
    handler_.on_event(xcf::member_event{e.kind, std::move(e.member)});
  }

  void on_send_rsp(std::uint32_t corr, xcf::return_code code) {
    std::uint64_t id = 0;
    std::optional<stream_key> key;
    bool report = false;
    {
      sync::lock_guard lock(mu_);
      // The newest send with these low 32 bits: SEND_RSPs come in the order of the sends.
      id = (send_counter_ & ~std::uint64_t{0xFFFFFFFF}) | corr;
      if (id > send_counter_) id -= std::uint64_t{1} << 32;
      auto run = std::upper_bound(runs_.begin(), runs_.end(), id,
                                  [](std::uint64_t v, const auto& r) { return v < r.first; });
      if (run != runs_.begin()) {
        stream_state& st = std::prev(run)->second->second;
        key = std::prev(run)->second->first;
        // A refusal of a send older than the stream's last resume belongs to the run the sender is
        // already re-sending: it must not resume the stream a second time. Armed before the runs
        // below go, so that the state stays.
        if (code == xcf::codes::resource_shortage && id >= st.last_resume) {
          st.armed = true;
          st.reporting = true;
        }
      }
      while (runs_.size() > 1 && runs_[1].first <= id) pop_run_locked();  // answered or accepted
      report = phase_ == phase::up;
    }
    if (report) handler_.on_send_done(id, code);
    if (key) {
      // Looked up again: the handler may have sent, closed or swept meanwhile.
      sync::lock_guard lock(mu_);
      const auto found = streams_.find(*key);
      if (found != streams_.end()) {
        found->second.reporting = false;
        if (found->second.gone) drop_if_unused_locked(found);
      }
    }
  }

  // The hub answered our PING: it has handled every SEND up to `nonce`, so their runs can go (answers
  // come in request order, README "Send"), and so can the states nothing names any more.
  void on_fence(std::uint64_t nonce) {
    sync::lock_guard lock(mu_);
    while (runs_.size() > 1 && runs_[1].first <= nonce + 1) pop_run_locked();
    fence_outstanding_ = false;
    sweep_locked();
  }

  void on_answer(frame::frame_type type, std::uint32_t corr, reply answer) {
    std::shared_ptr<reply_promise> promise;
    bool close_now = false;
    {
      sync::lock_guard lock(mu_);
      const auto found = requests_.find(corr);
      if (found == requests_.end()) return;  // an answer nobody waits for any more
      promise = std::move(found->second);
      requests_.erase(found);
      if (type == frame::frame_type::quiesce_rsp && phase_ == phase::quiescing) {
        phase_ = answer.code.ok() ? phase::quiesced : phase::up;
      }
      if (type == frame::frame_type::leave_rsp && phase_ == phase::leaving) close_now = true;
    }
    if (close_now) do_close();  // the hub answered after handling all we sent before LEAVE
    promise->set_value(std::move(answer));
  }

  bool deliver_event(const xcf::member_event& event) {
    if (!handler_allowed()) return false;
    handler_.on_event(event);
    return true;
  }

  // README "Heartbeat": the hub is lost after three silent intervals. Checked every quarter interval,
  // so that the loss is declared at most 3¼ intervals after the last frame.
  void start_heartbeat(const std::shared_ptr<connection>& conn) {
    if (heartbeat_ms_ == 0) return;
    const milliseconds interval(heartbeat_ms_);
    const milliseconds tick = std::max(milliseconds(1), interval / 4);
    heartbeat_timer_.expires_after(tick);
    heartbeat_timer_.async_wait([self = shared_from_this(), conn, interval](const error_code& ec) {
      if (ec || conn != self->conn_) return;
      if (steady::now() - self->last_heard_ > 3 * interval) {
        // Bytes waiting in the socket are not silence: a long handler kept us from reading them.
        error_code aec;
        if (conn->s->socket().available(aec) > 0 && !aec) {
          self->last_heard_ = steady::now();
        } else {
          self->lose_link("nothing heard from the hub for " + ms_text(3 * interval) + " (three heartbeats)");
          return;
        }
      }
      self->start_heartbeat(conn);
    });
  }

  void drop_connection() {
    if (conn_) {
      conn_->close();
      conn_.reset();
    }
    connect_timer_.cancel();
    heartbeat_timer_.cancel();
  }

  // Takes every waiting request out, to be answered link_down once no lock is held.
  std::vector<std::shared_ptr<reply_promise>> take_waiters_locked() IMSB_REQUIRES(mu_) {
    std::vector<std::shared_ptr<reply_promise>> waiters;
    for (auto& entry : requests_) waiters.push_back(std::move(entry.second));
    requests_.clear();
    if (join_promise_) waiters.push_back(std::move(join_promise_));
    return waiters;
  }

  void clear_output_locked() IMSB_REQUIRES(mu_) {
    ++generation_;
    writable_ = false;
    write_in_flight_ = false;
    writing_bytes_ = 0;
    pending_.clear();
    clear_runs_locked();
  }

  static void answer_link_down(std::vector<std::shared_ptr<reply_promise>>& waiters) {
    for (auto& w : waiters) w->set_value(reply{xcf::codes::link_down, {}});
  }

  void do_close() {
    std::vector<std::shared_ptr<reply_promise>> waiters;
    {
      sync::lock_guard lock(mu_);
      phase_ = phase::closed;
      clear_output_locked();
      waiters = take_waiters_locked();
    }
    drop_connection();
    rejoin_timer_.cancel();
    answer_link_down(waiters);
  }

  // README "Client backend behaviour": the link is gone (end of stream, error, ERROR frame, silence).
  void lose_link(const std::string& reason) {
    if (!conn_) return;
    drop_connection();
    std::vector<std::shared_ptr<reply_promise>> waiters;
    phase was;
    {
      sync::lock_guard lock(mu_);
      was = phase_;
      clear_output_locked();
      waiters = take_waiters_locked();
      switch (was) {
        case phase::up:
        case phase::rejoining:
          phase_ = phase::down;
          break;
        default:
          // The first join failed, or we were leaving or quiescing (tcp_xcf.hpp "Decisions").
          phase_ = phase::closed;
          break;
      }
    }
    answer_link_down(waiters);
    if (was == phase::joining) {
      cfg_->log(std::string(imsb::msg::IMB3050E) + " XCF member " + who_ + " cannot join through " +
                cfg_->endpoint.to_string() + ": " + reason);
      return;
    }
    if (was == phase::rejoining) {
      const milliseconds delay = next_delay();
      cfg_->log(std::string(imsb::msg::IMB3053W) + " XCF member " + who_ +
                ": re-join attempt failed: " + reason + "; next attempt in " + ms_text(delay));
      schedule_rejoin(delay);
      return;
    }
    if (was != phase::up) return;
    if (steady::now() - up_since_ >= backoff_reset_after) backoff_ = cfg_->options.reconnect_initial;
    cfg_->log(std::string(imsb::msg::IMB3051W) + " XCF member " + who_ + ": link to the hub lost: " + reason +
              "; re-joining");
    // `failed` for every member we knew active, then for ourselves.
    std::vector<xcf::member_info> lost;
    for (auto& [name, m] : known_) {
      if (m.state == xcf::member_state::active) {
        m.state = xcf::member_state::failed;
        lost.push_back(m);
      }
    }
    self_info_.state = xcf::member_state::failed;
    lost.push_back(self_info_);
    for (const auto& m : lost) {
      if (!deliver_event(xcf::member_event{xcf::event_kind::failed, m})) return;
    }
    schedule_rejoin(next_delay());
  }

  // The next back-off delay, ±20 % at random (README "Client backend behaviour" [D]): members that lost
  // the hub together do not all come back in the same instant.
  milliseconds next_delay() {
    const milliseconds nominal = backoff_;
    backoff_ = std::min(backoff_ * 2, cfg_->options.reconnect_max);
    std::uniform_real_distribution<double> spread(0.8, 1.2);
    const auto jittered =
        std::chrono::duration<double, std::milli>(static_cast<double>(nominal.count()) * spread(jitter_));
    return std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(jittered));
  }

  void schedule_rejoin(milliseconds delay) {
    rejoin_timer_.expires_after(delay);
    rejoin_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (ec) return;
      {
        sync::lock_guard lock(self->mu_);
        if (self->phase_ != phase::down) return;
        self->phase_ = phase::rejoining;
      }
      self->start_attempt();
    });
  }

  const std::shared_ptr<const client_config> cfg_;
  asio::io_context& io_;
  const std::thread::id io_thread_;
  xcf::member_handler& handler_;
  const std::string who_;  // "GROUP/MEMBER", for the log

  // I/O thread only.
  std::shared_ptr<connection> conn_;
  asio::steady_timer connect_timer_;
  asio::steady_timer heartbeat_timer_;
  asio::steady_timer rejoin_timer_;
  steady::time_point last_heard_{};
  steady::time_point up_since_{};  // when the current link was joined
  std::uint32_t heartbeat_ms_ = 0;
  milliseconds backoff_;  // the next delay before jitter
  std::minstd_rand jitter_;
  std::map<std::string, xcf::member_info> known_;  // the other members, latest state
  xcf::member_info self_info_;

  // Shared with the callers' threads: everything below is guarded by mu_.
  mutable sync::mutex mu_;
  phase phase_ IMSB_GUARDED_BY(mu_) = phase::joining;
  xcf::join_request request_ IMSB_GUARDED_BY(mu_);  // what a re-join sends (ustate as last set)
  xcf::member_token token_ IMSB_GUARDED_BY(mu_){};
  std::uint32_t max_payload_ IMSB_GUARDED_BY(mu_) = frame::default_max_payload;
  bytes pending_ IMSB_GUARDED_BY(mu_);                  // frames not yet handed to the socket
  std::size_t writing_bytes_ IMSB_GUARDED_BY(mu_) = 0;  // bytes of the write in flight
  bool writable_ IMSB_GUARDED_BY(mu_) = false;          // the connection's stream is ready
  bool write_in_flight_ IMSB_GUARDED_BY(mu_) = false;
  std::uint64_t generation_ IMSB_GUARDED_BY(mu_) = 0;  // of the connection that writes may use
  std::uint64_t send_counter_ IMSB_GUARDED_BY(mu_) = 0;
  std::uint32_t next_corr_ IMSB_GUARDED_BY(mu_) = 1;  // corr of requests other than SEND
  std::uint32_t join_corr_ IMSB_GUARDED_BY(mu_) = 0;
  std::map<std::uint32_t, std::shared_ptr<reply_promise>> requests_ IMSB_GUARDED_BY(mu_);
  std::shared_ptr<reply_promise> join_promise_ IMSB_GUARDED_BY(mu_);
  stream_map streams_ IMSB_GUARDED_BY(mu_);
  // streams_ is swept when a new state would pass this.
  std::size_t sweep_at_ IMSB_GUARDED_BY(mu_) = min_stream_sweep;
  // Which stream each send went to, as runs (first send id, stream): a SEND_RSP names only the send,
  // and a 12/0 refusal must arm its own stream. Runs end at a SEND_RSP or at the answer to a fencing
  // PING (the hub answers a connection's requests in order; only its own PINGs may jump the queue).
  std::deque<std::pair<std::uint64_t, stream_iter>> runs_ IMSB_GUARDED_BY(mu_);
  bool fence_outstanding_ IMSB_GUARDED_BY(mu_) = false;
};

// ---- The member object the caller holds ------------------------------------------------------------

class tcp_member final : public xcf::member {
 public:
  tcp_member(std::shared_ptr<client_core> core, std::shared_ptr<member_link> link, std::string group,
             std::string name)
      : core_(std::move(core)), link_(std::move(link)), group_(std::move(group)), name_(std::move(name)) {}
  ~tcp_member() override {
    link_->close();  // without leave: the hub makes it a failure (README "Failure")
    link_.reset();
    core_.reset();  // last: the I/O thread may stop only after the link is quiet
  }
  tcp_member(const tcp_member&) = delete;
  tcp_member& operator=(const tcp_member&) = delete;

  const std::string& group() const noexcept override { return group_; }
  const std::string& name() const noexcept override { return name_; }
  xcf::member_token token() const override { return link_->token(); }
  xcf::return_code send(const xcf::target& to, const xcf::control_area& control, bytes_view data,
                        const xcf::send_options& options, std::uint64_t* send_id) override {
    return link_->send(to, control, data, options, send_id);
  }
  xcf::return_code query(std::vector<xcf::member_info>& out, std::string_view member_name) override {
    return link_->query(out, member_name);
  }
  xcf::return_code set_user_state(const xcf::user_state& state) override {
    return link_->set_user_state(state);
  }
  xcf::return_code quiesce() override { return link_->quiesce(); }
  xcf::return_code remove(std::string_view member_name) override { return link_->remove(member_name); }
  xcf::return_code leave() override { return link_->leave(); }
  std::optional<tcp_member_stats> stats() const { return link_->stats(); }

 private:
  std::shared_ptr<client_core> core_;
  std::shared_ptr<member_link> link_;
  std::string group_;
  std::string name_;
};

// ---- A status query on a connection of its own ------------------------------------------------------

struct query_call {
  std::shared_ptr<connection> conn;
  std::promise<reply> answer;
  bool done = false;  // I/O thread only

  void finish(reply r) {
    if (done) return;
    done = true;
    conn->close();
    answer.set_value(std::move(r));
  }
};

void query_read(const std::shared_ptr<const client_config>& cfg, const std::shared_ptr<query_call>& call) {
  auto& conn = *call->conn;
  conn.s->async_read_some(asio::buffer(conn.read_buffer), [cfg, call](const error_code& ec, std::size_t n) {
    if (call->done) return;
    if (ec) {
      cfg->log(std::string(imsb::msg::IMB3050E) + " XCF status query to " + cfg->endpoint.to_string() +
               " failed: " + call->conn->s->describe_error(ec));
      call->finish(reply{xcf::codes::link_down, {}});
      return;
    }
    call->conn->reader.feed(bytes_view(call->conn->read_buffer.data(), n));
    for (;;) {
      frame::decoded f;
      decode_error error;
      const auto status = call->conn->reader.next(f, error);
      if (status == frame::reader::status::need_more) break;
      if (status == frame::reader::status::error) {
        cfg->log(std::string(imsb::msg::IMB3050E) + " XCF status query to " + cfg->endpoint.to_string() +
                 ": a frame from the hub does not decode: " + error.to_string());
        call->finish(reply{xcf::codes::protocol_error, {}});
        return;
      }
      if (f.head.type == frame::frame_type::query_rsp) {
        auto& q = std::get<frame::query_rsp_payload>(f.body);
        call->finish(reply{q.code, std::move(q.members)});
        return;
      }
      if (f.head.type == frame::frame_type::error) {
        const auto& e = std::get<frame::error_payload>(f.body);
        cfg->log(std::string(imsb::msg::IMB3050E) + " XCF status query to " + cfg->endpoint.to_string() +
                 " refused (" + xcf::describe(e.code) + "): " + e.text);
        call->finish(reply{e.code, {}});
        return;
      }
      // A PING before the answer needs none: the connection lives for one question.
    }
    query_read(cfg, call);
  });
}

}  // namespace

// ---- tcp_service ---------------------------------------------------------------------------------------

namespace {
std::shared_ptr<const client_config> make_config(tcp_service_options options) {
  auto cfg = std::make_shared<client_config>();
  std::string error;
  if (!parse_endpoint(options.endpoint, cfg->endpoint, error)) {
    throw std::invalid_argument("XCF hub endpoint: " + error);
  }
  if (options.tls.any()) {
    cfg->tls = make_client_tls_context(options.tls, error);
    if (!cfg->tls) throw std::invalid_argument("XCF hub TLS: " + error);
  }
  if (options.reconnect_initial.count() <= 0) options.reconnect_initial = milliseconds(1);
  if (options.reconnect_max < options.reconnect_initial) options.reconnect_max = options.reconnect_initial;
  cfg->options = std::move(options);
  return cfg;
}
}  // namespace

tcp_service::tcp_service(tcp_service_options options)
    : core_(std::make_shared<detail::client_core>(make_config(std::move(options)))) {}

tcp_service::~tcp_service() = default;

xcf::join_result tcp_service::join(const xcf::join_request& request, xcf::member_handler& handler) {
  xcf::join_result result;
  if (core_->on_io_thread()) {
    result.code = tcp_codes::called_from_handler;
    return result;
  }
  if (!valid_group(request.group) || !valid_member(request.member)) {
    result.code = xcf::codes::bad_name;  // [C: XCF-NAMES2]: nothing goes to the hub
    return result;
  }
  auto link = std::make_shared<member_link>(core_->cfg, core_->io(), core_->thread_id(), request, handler);
  auto answer = link->start();
  // The link bounds connect + handshake + JOIN_RSP itself; this only guards against a stuck I/O thread.
  const auto limit = core_->cfg->options.connect_timeout + std::chrono::seconds(2);
  if (answer.wait_for(limit) != std::future_status::ready) {
    link->close_soon();  // waiting for the stuck thread would make join() stuck too
    result.code = xcf::codes::link_down;
    return result;
  }
  reply r = answer.get();
  result.code = r.code;
  if (!r.code.ok()) {
    link->close();
    return result;
  }
  result.members = std::move(r.members);
  result.joined = std::make_unique<tcp_member>(core_, std::move(link), request.group, request.member);
  return result;
}

xcf::return_code tcp_service::query(std::vector<xcf::member_info>& out, std::string_view group,
                                    std::string_view member_name) {
  if (core_->on_io_thread()) return tcp_codes::called_from_handler;
  if ((!group.empty() && !valid_group(group)) || (!member_name.empty() && !valid_member(member_name))) {
    return xcf::codes::bad_name;
  }
  auto call = std::make_shared<query_call>();
  call->conn = std::make_shared<connection>(core_->io());
  auto answer = call->answer.get_future();
  bytes request;
  frame::encode(frame::frame_type::query, 0, 1,
                frame::query_payload{std::string(group), std::string(member_name)}, request);
  auto cfg = core_->cfg;
  asio::post(core_->io(), [cfg, call, request = std::move(request)]() mutable {
    async_open(cfg, call->conn, [cfg, call, request = std::move(request)](const std::string& error) mutable {
      if (call->done) return;
      if (!error.empty()) {
        cfg->log(std::string(imsb::msg::IMB3050E) + " XCF status query: " + error);
        call->finish(reply{xcf::codes::link_down, {}});
        return;
      }
      call->conn->writing = std::move(request);
      call->conn->s->async_write(asio::buffer(call->conn->writing),
                                 [cfg, call](const error_code& ec, std::size_t) {
                                   if (call->done) return;
                                   if (ec) {
                                     call->finish(reply{xcf::codes::link_down, {}});
                                     return;
                                   }
                                   query_read(cfg, call);
                                 });
    });
  });
  if (answer.wait_for(cfg->options.connect_timeout) != std::future_status::ready) {
    asio::post(core_->io(), [call] { call->finish(reply{xcf::codes::link_down, {}}); });
  }
  reply r = answer.get();
  out = std::move(r.members);
  return r.code;
}

std::optional<tcp_member_stats> tcp_stats(const xcf::member& m) {
  const auto* member = dynamic_cast<const tcp_member*>(&m);
  if (member == nullptr) return std::nullopt;
  return member->stats();
}

}  // namespace imsb::transport
