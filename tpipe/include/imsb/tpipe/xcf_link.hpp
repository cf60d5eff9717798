#pragma once
// Binds an OTMA session to an XCF member (imsb/xcf/member.hpp), whatever the backend: in-memory, xcfhub,
// or real XCF. The link is the thread boundary: backends call member_handler from their own thread, the
// owner calls the session from its own, and the link serialises both with one recursive mutex, so the
// sessions stay single-threaded pure logic and an observer callback (which runs under the lock) may call
// with_session again, e.g. to ack_output() from on_output(). Sessions must therefore allow calls back into
// them from their observer callbacks.
//
// On the wire [D] (spec/otma-xcf.md §4.5 [I]): each OTMA buffer is one XCF message on stream 0, ordered;
// the message data is the whole buffer (MCI included) and the 32-byte control area carries a copy of the
// MCI, as IMS is thought to use MSGCNTL. A receiver reads the data only.
//
// Events: the link turns the server member's (client side) or client members' (server side) XCF events
// into server_joined/server_gone and client_joined/client_gone. A send that XCF refuses (not active,
// resource shortage) ends the client's session (never a resend, ARCHITECTURE.md step 7) / is reported to
// the server's owner as the client lost.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/tpipe/client_session.hpp"
#include "imsb/tpipe/server_session.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::tpipe {

using clock_fn = std::function<millis()>;
// A steady clock in milliseconds, for programs (tests inject their own).
millis steady_now();

namespace detail {
// A handler call that came before join() had returned: XCF may run the exits before IXCJOIN returns
// (spec/otma-xcf.md §4.5 [C]). Kept in order and handled once join() has the member.
struct early_call {
  enum class kind : std::uint8_t { message, event, send_done };
  kind what = kind::message;
  xcf::message message;
  xcf::member_event event;
  std::uint64_t send_id = 0;
  xcf::return_code code;
};
// Where a link is in its member's life: handler calls are handled only when joined, kept while joining,
// and ignored otherwise (after leave(), while the link is destroyed).
enum class link_phase : std::uint8_t { idle, joining, joined, closing };
}  // namespace detail

// Client side: joins `group` as config.bid.member, bids to config.server_member.
class client_link : public xcf::member_handler {
 public:
  // `owner` receives every client_observer call except send(), which the link does itself.
  client_link(client_config config, client_observer& owner, clock_fn clock = steady_now);
  ~client_link() override;
  client_link(const client_link&) = delete;
  client_link& operator=(const client_link&) = delete;

  // Joins the group (lasting, as the bridge must re-join after a failure) and starts the session if the
  // server member is active; otherwise the session starts when it joins.
  xcf::return_code join(xcf::service& xcf, const std::string& group);
  // Leaves the group; the session is lost.
  void leave();

  // The session, under the link's lock: call only through with_session.
  template <class F>
  auto with_session(F&& f) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return f(*session_);
  }
  void tick();

  // xcf::member_handler
  void on_message(xcf::message msg) override;
  void on_event(const xcf::member_event& event) override;
  void on_send_done(std::uint64_t send_id, xcf::return_code code) override;

 private:
  class forwarder;
  // Added for the implementation (xcf_link.cpp), all under mutex_.
  void send_buffer(bytes buffer);  // forwarder::send
  void handle_message(xcf::message msg);
  void handle_event(const xcf::member_event& event);
  void handle_send_done(std::uint64_t send_id, xcf::return_code code);
  void handle_early_calls();

  std::recursive_mutex mutex_;
  clock_fn clock_;
  client_config config_;
  std::unique_ptr<forwarder> forwarder_;
  std::unique_ptr<client_session> session_;
  std::unique_ptr<xcf::member> member_;
  detail::link_phase phase_ = detail::link_phase::idle;
  std::vector<detail::early_call> early_;
  // The server member's incarnation the session was started for (its token): an `active` event for the
  // same one (the query at join and an event both saw it) is not a re-join.
  std::optional<xcf::member_token> server_token_;
  // Send id of the latest bid: a refusal reported later for an older send belongs to a session already
  // over and does not end the current one (send ids grow per member).
  std::uint64_t bid_send_id_ = 0;
};

// Server side: joins `group` as config.member and serves every other member that bids.
class server_link : public xcf::member_handler {
 public:
  server_link(server_config config, server_observer& owner, clock_fn clock = steady_now);
  ~server_link() override;
  server_link(const server_link&) = delete;
  server_link& operator=(const server_link&) = delete;

  // Joins (lasting) and sends server-available to every active member already in the group.
  xcf::return_code join(xcf::service& xcf, const std::string& group);
  void leave();

  template <class F>
  auto with_session(F&& f) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return f(*session_);
  }
  void tick();

  void on_message(xcf::message msg) override;
  void on_event(const xcf::member_event& event) override;
  void on_send_done(std::uint64_t send_id, xcf::return_code code) override;

 private:
  class forwarder;
  // Added for the implementation (xcf_link.cpp), all under mutex_.
  void send_buffer(std::string_view client, bytes buffer);  // forwarder::send
  void handle_message(xcf::message msg);
  void handle_event(const xcf::member_event& event);
  void handle_send_done(std::uint64_t send_id, xcf::return_code code);
  void handle_early_calls();
  void add_client(const std::string& name, const xcf::member_token& token);

  std::recursive_mutex mutex_;
  clock_fn clock_;
  server_config config_;
  std::unique_ptr<forwarder> forwarder_;
  std::unique_ptr<server_session> session_;
  std::unique_ptr<xcf::member> member_;
  detail::link_phase phase_ = detail::link_phase::idle;
  std::vector<detail::early_call> early_;
  // Active client members by name, with the incarnation (token) client_joined was given for.
  std::map<std::string, xcf::member_token, std::less<>> clients_;
  // The target of recent sends, for a refusal that on_send_done reports later (bounded: the oldest
  // are forgotten, and a refusal for one of them is only dropped; output_ack_timeout still reports it).
  std::map<std::uint64_t, std::string> sent_to_;
};

}  // namespace imsb::tpipe
