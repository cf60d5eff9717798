#pragma once
// Binds an OTMA session to an XCF member (imsb/xcf/member.hpp), whatever the backend: in-memory, xcfhub,
// or real XCF. The link is the thread boundary: backends call member_handler from their own thread, the
// owner calls the session from its own, and the link serialises both with one recursive mutex, so the
// sessions stay single-threaded pure logic and an observer callback (which runs under the lock) may call
// with_session again, e.g. to ack_output() from on_output(). Sessions must therefore allow calls back into
// them from their observer callbacks.
//
// On the wire [D] (docs/design/xcf-emulation.md): each OTMA buffer is one XCF message on stream 0,
// ordered; the message data is the whole buffer (MCI included) and the 32-byte control area carries a copy
// of the MCI, as IMS is thought to use MSGCNTL [I: XCF-MUR]. A receiver reads the data only.
//
// Events: the link turns the server member's (client side) or client members' (server side) XCF events
// into server_joined/server_gone and client_joined/client_gone. A send that XCF refuses (not active,
// resource shortage) ends the client's session (never a resend: docs/design/commit-modes.md, CM0 step 7) /
// is reported to the server's owner as the client lost.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
// [C: XCF-MUR]. Kept in order and handled once join() has the member.
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

// What both links share: the lock, the member and its phase, and the handler calls — handled at once when
// joined, kept in order while joining and handled once join() has the member, ignored otherwise. `Link`
// provides handle_message, handle_event and handle_send_done, called under the lock.
template <class Link, class Session>
class link_base : public xcf::member_handler {
 public:
  // The session, under the link's lock: call only through with_session.
  template <class F>
  auto with_session(F&& f) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return f(*session_);
  }
  void tick() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    session_->tick(clock_());
  }

  // xcf::member_handler
  void on_message(xcf::message msg) override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (phase_ == link_phase::joined) {
      self().handle_message(std::move(msg));
    } else if (phase_ == link_phase::joining) {
      early_call call;
      call.what = early_call::kind::message;
      call.message = std::move(msg);
      early_.push_back(std::move(call));
    }
  }
  void on_event(const xcf::member_event& event) override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (phase_ == link_phase::joined) {
      self().handle_event(event);
    } else if (phase_ == link_phase::joining) {
      early_call call;
      call.what = early_call::kind::event;
      call.event = event;
      early_.push_back(std::move(call));
    }
  }
  void on_send_done(std::uint64_t send_id, xcf::return_code code) override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    if (phase_ == link_phase::joined) {
      self().handle_send_done(send_id, code);
    } else if (phase_ == link_phase::joining) {
      early_call call;
      call.what = early_call::kind::send_done;
      call.send_id = send_id;
      call.code = code;
      early_.push_back(std::move(call));
    }
  }

 protected:
  explicit link_base(clock_fn clock) : clock_(std::move(clock)) {}

  // For the derived destructor, before its own members go: an end without leave() (member.hpp). The
  // member is destroyed without the lock, as its destructor waits for a handler that may be waiting for
  // it; such a late call finds the link closing and does nothing.
  void close() {
    std::unique_ptr<xcf::member> member;
    {
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      phase_ = link_phase::closing;
      early_.clear();
      member = std::move(member_);
    }
    member.reset();
  }
  // join()'s first step: the phase becomes joining (false if the link is joining or joined already), and
  // a member left before is destroyed outside the lock.
  bool begin_join() {
    std::unique_ptr<xcf::member> old;
    {
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      if (phase_ == link_phase::joining || phase_ == link_phase::joined) return false;
      phase_ = link_phase::joining;
      early_.clear();
      old = std::move(member_);
    }
    old.reset();
    return true;
  }
  // join() when IXCJOIN did not give a member: back to idle, the calls kept so far dropped.
  xcf::return_code join_failed(const xcf::return_code& code) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    phase_ = link_phase::idle;
    early_.clear();
    return code.ok() ? xcf::codes::not_active : code;
  }
  // leave()'s first step, under the lock: the member to leave, or nullptr when not joined. Handler calls
  // made while it leaves are still handled (phase joined, member valid).
  xcf::member* member_to_leave() {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    return phase_ == link_phase::joined ? member_.get() : nullptr;
  }
  // The calls the exits got before IXCJOIN returned [C: XCF-MUR], one at a time from the
  // front: a call may lead (through the owner) to leave() on another thread, which changes the phase.
  void handle_early_calls() {
    while (!early_.empty() && phase_ == link_phase::joined) {
      early_call call = std::move(early_.front());
      early_.erase(early_.begin());
      switch (call.what) {
        case early_call::kind::message:
          self().handle_message(std::move(call.message));
          break;
        case early_call::kind::event:
          self().handle_event(call.event);
          break;
        case early_call::kind::send_done:
          self().handle_send_done(call.send_id, call.code);
          break;
      }
    }
  }

  std::recursive_mutex mutex_;
  clock_fn clock_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<xcf::member> member_;
  link_phase phase_ = link_phase::idle;
  std::vector<early_call> early_;

 private:
  Link& self() { return static_cast<Link&>(*this); }
};
}  // namespace detail

// Client side: joins `group` as config.bid.member, bids to config.server_member.
class client_link : public detail::link_base<client_link, client_session> {
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

 private:
  friend class detail::link_base<client_link, client_session>;
  class forwarder;
  // Added for the implementation (xcf_link.cpp), all under mutex_.
  void send_buffer(bytes buffer);  // forwarder::send
  void handle_message(xcf::message msg);
  void handle_event(const xcf::member_event& event);
  void handle_send_done(std::uint64_t send_id, xcf::return_code code);

  client_config config_;
  std::unique_ptr<forwarder> forwarder_;
  // The server member's incarnation the session was started for (its token): an `active` event for the
  // same one (the query at join and an event both saw it) is not a re-join.
  std::optional<xcf::member_token> server_token_;
  // Send id of the latest bid: a refusal reported later for an older send belongs to a session already
  // over and does not end the current one (send ids grow per member).
  std::uint64_t bid_send_id_ = 0;
};

// Server side: joins `group` as config.member and serves every other member that bids.
class server_link : public detail::link_base<server_link, server_session> {
 public:
  server_link(server_config config, server_observer& owner, clock_fn clock = steady_now);
  ~server_link() override;
  server_link(const server_link&) = delete;
  server_link& operator=(const server_link&) = delete;

  // Joins (lasting) and sends server-available to every active member already in the group.
  xcf::return_code join(xcf::service& xcf, const std::string& group);
  void leave();

 private:
  friend class detail::link_base<server_link, server_session>;
  class forwarder;
  // Added for the implementation (xcf_link.cpp), all under mutex_.
  void send_buffer(std::string_view client, bytes buffer);  // forwarder::send
  void handle_message(xcf::message msg);
  void handle_event(const xcf::member_event& event);
  void handle_send_done(std::uint64_t send_id, xcf::return_code code);
  void add_client(const std::string& name, const xcf::member_token& token);

  server_config config_;
  std::unique_ptr<forwarder> forwarder_;
  // Active client members by name, with the incarnation (token) client_joined was given for.
  std::map<std::string, xcf::member_token, std::less<>> clients_;
  // The target of recent sends, for a refusal that on_send_done reports later (bounded: the oldest
  // are forgotten, and a refusal for one of them is only dropped; output_ack_timeout still reports it).
  std::map<std::uint64_t, std::string> sent_to_;
};

}  // namespace imsb::tpipe
