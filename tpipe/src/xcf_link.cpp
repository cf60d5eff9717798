// Binds the OTMA sessions to an XCF member (xcf_link.hpp). The link is the only place in tpipe/ that
// knows of threads: one recursive mutex around every session call, whichever thread makes it.
//
// Lock rule: join(), query() and leave() of the member wait for the backend, whose thread may at that
// moment be inside one of our handlers waiting for the mutex; so they are called without it. send() is
// non-blocking (member.hpp) and is called with it held, from inside session calls.

#include "imsb/tpipe/xcf_link.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace imsb::tpipe {

namespace {

// Refusals reported through on_send_done name their send only by id: the server link remembers this
// many recent targets [D].
constexpr std::size_t remembered_sends = 4096;

// xcf_link.hpp [D] (IMS's use of MSGCNTL is [I: XCF-MUR]): the control area carries a copy of the MCI,
// the first 32 bytes of the buffer (zeros after a shorter one, which the receiver rejects from the data
// anyway).
xcf::control_area control_of(bytes_view buffer) {
  xcf::control_area control{};
  std::copy_n(buffer.begin(), std::min(control.size(), buffer.size()), control.begin());
  return control;
}

// Each OTMA buffer on stream 0, ordered [D]: OTMA's per-Tpipe sequence numbers assume FIFO between
// the two members, which XCF gives only with DELIVERMSG=ORDERED [C: XCF-MSGO].
xcf::send_options wire_options() {
  xcf::send_options options;
  options.stream = 0;
  options.ordered = true;
  return options;
}

// The member leaves the group or stops being able to take messages: the partner's session is over.
bool ends_member(xcf::event_kind kind) {
  return kind == xcf::event_kind::failed || kind == xcf::event_kind::left ||
         kind == xcf::event_kind::removed || kind == xcf::event_kind::quiesced;
}

std::string event_text(const xcf::member_event& event) {
  return "XCF event '" + std::string(xcf::to_string(event.kind)) + "' for member " + event.member.name;
}

}  // namespace

millis steady_now() {
  return static_cast<millis>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

// --- client_link ------------------------------------------------------------------------------------

// Sends go through the link; everything else to the owner, under the link's lock.
class client_link::forwarder final : public client_observer {
 public:
  forwarder(client_link& link, client_observer& owner) : link_(link), owner_(owner) {}

  void send(bytes buffer) override { link_.send_buffer(std::move(buffer)); }
  void on_session_ready() override { owner_.on_session_ready(); }
  void on_bid_rejected(std::uint16_t sense, std::uint16_t reason) override {
    owner_.on_bid_rejected(sense, reason);
  }
  void on_session_lost(const std::string& reason) override { owner_.on_session_lost(reason); }
  std::optional<client_tpipe_record> tpipe_record(std::string_view tpipe) override {
    return owner_.tpipe_record(tpipe);
  }
  void on_resync_decision(std::string_view tpipe, const resync_decision& decision) override {
    owner_.on_resync_decision(tpipe, decision);
  }
  void on_tpipe_unknown_to_server(std::string_view tpipe) override {
    owner_.on_tpipe_unknown_to_server(tpipe);
  }
  void on_input_response(const input_response& response) override { owner_.on_input_response(response); }
  void on_output(const otma::otma_message& message) override { owner_.on_output(message); }
  void on_commit_confirmation(std::string_view tpipe, std::uint32_t send_seq, bool committed) override {
    owner_.on_commit_confirmation(tpipe, send_seq, committed);
  }
  void on_server_state(std::uint16_t status) override { owner_.on_server_state(status); }
  void on_suspend() override { owner_.on_suspend(); }
  std::vector<std::string> our_synchronized_tpipes() override { return owner_.our_synchronized_tpipes(); }

 private:
  client_link& link_;
  client_observer& owner_;
};

client_link::client_link(client_config config, client_observer& owner, clock_fn clock)
    : link_base(std::move(clock)), config_(std::move(config)) {
  forwarder_ = std::make_unique<forwarder>(*this, owner);
  session_ = std::make_unique<client_session>(config_, *forwarder_);
}

client_link::~client_link() {
  // Without leave(): an abnormal end (member.hpp), as when the bridge's address space ends.
  close();
  session_.reset();  // before the forwarder it calls
}

xcf::return_code client_link::join(xcf::service& xcf, const std::string& group) {
  if (!begin_join()) return xcf::codes::already_active;

  xcf::join_request request;
  request.group = group;
  request.member = config_.bid.member;
  request.lasting = true;  // the bridge re-joins after a failure (xcf_link.hpp)
  xcf::join_result joined = xcf.join(request, *this);
  if (!joined.code.ok() || !joined.joined) return join_failed(joined.code);
  // Is the server member there? IXCQUERY for it [C: XCF-LEAVE]; the join's own picture
  // of the group if the query fails.
  std::vector<xcf::member_info> members;
  if (!joined.joined->query(members, config_.server_member).ok()) members = joined.members;

  std::lock_guard<std::recursive_mutex> lock(mutex_);
  member_ = std::move(joined.joined);
  phase_ = detail::link_phase::joined;
  bid_send_id_ = 0;  // a new member numbers its sends afresh
  server_token_.reset();
  for (const xcf::member_info& m : members) {
    if (m.name == config_.server_member && m.state == xcf::member_state::active) {
      // [C: IMS-SA-FLOW]: the client bids as soon as it has joined, without waiting for the server
      // to notice it.
      server_token_ = m.token;
      session_->start(clock_());
      break;
    }
  }
  // Calls the exits got before IXCJOIN returned [C: XCF-MUR]: after the start, as they happened after the
  // join. An `active` for the server incarnation just started is recognised by its token.
  handle_early_calls();
  return joined.code;
}

void client_link::leave() {
  xcf::member* member = member_to_leave();
  if (member == nullptr) return;
  member->leave();
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  phase_ = detail::link_phase::idle;
  early_.clear();
  server_token_.reset();
  session_->server_gone("this member (" + config_.bid.member + ") left the XCF group");
}

void client_link::handle_message(xcf::message msg) {
  // The client talks to its one server member [D]; a receiver reads the data only (xcf_link.hpp).
  if (msg.source_name != config_.server_member) return;
  session_->receive(msg.data, clock_());
}

void client_link::handle_event(const xcf::member_event& event) {
  const xcf::member_info& who = event.member;
  if (who.name == config_.server_member) {
    if (event.kind == xcf::event_kind::active) {
      if (server_token_ && *server_token_ == who.token) return;  // the incarnation already started for
      server_token_ = who.token;
      // [C: IMS-CB-FLOW]: the client notices the server joining and bids.
      session_->server_joined(clock_());
    } else if (ends_member(event.kind)) {
      // IMS left or failed [C: IMS-TERM]: the session is lost, nothing resent (docs/design/commit-modes.md,
      // CM0 step 7). A status_missing is not yet an end: `failed` follows it.
      server_token_.reset();
      session_->server_gone(event_text(event));
    }
    return;
  }
  if (who.name == config_.bid.member && ends_member(event.kind)) {
    // Our own link to XCF dropped: the server is out of reach, and will be seen `active` again when the
    // backend re-joins us.
    server_token_.reset();
    session_->server_gone(event_text(event) + " (this member: link to XCF lost)");
  }
}

void client_link::handle_send_done(std::uint64_t send_id, xcf::return_code code) {
  if (code.rc == 0) return;            // an acceptance (never asked for)
  if (send_id < bid_send_id_) return;  // a refusal of a send of a session already over
  session_->server_gone("XCF refused a message to it: " + xcf::describe(code) + " (nothing is resent)");
}

void client_link::send_buffer(bytes buffer) {
  if (phase_ == detail::link_phase::closing) return;
  // Bids are the only messages a session sends while bidding: the latest opens a new session.
  const bool bid = session_->state() == client_state::bidding;
  xcf::return_code code = xcf::codes::not_active;
  std::uint64_t send_id = 0;
  if (member_) {
    code = member_->send(xcf::target::by_name(config_.server_member), control_of(buffer), buffer,
                         wire_options(), &send_id);
  }
  if (code.rc == 0) {
    if (bid) bid_send_id_ = send_id;
    return;
  }
  // A refused send ends the session: never a resend (docs/design/commit-modes.md, CM0 step 7; xcf_link.hpp).
  session_->server_gone("XCF refused a message to it: " + xcf::describe(code) + " (nothing is resent)");
}

// --- server_link ------------------------------------------------------------------------------------

class server_link::forwarder final : public server_observer {
 public:
  forwarder(server_link& link, server_observer& owner) : link_(link), owner_(owner) {}

  void send(std::string_view client, bytes buffer) override { link_.send_buffer(client, std::move(buffer)); }
  bid_verdict on_bid(std::string_view client, const otma::otma_message& bid) override {
    return owner_.on_bid(client, bid);
  }
  void on_client_ready(std::string_view client) override { owner_.on_client_ready(client); }
  void on_client_lost(std::string_view client, const std::string& reason) override {
    owner_.on_client_lost(client, reason);
  }
  std::vector<synchronized_tpipe> synchronized_tpipes(std::string_view client) override {
    return owner_.synchronized_tpipes(client);
  }
  void on_represynch(std::string_view client, std::string_view tpipe, std::uint8_t action,
                     std::uint32_t client_send, std::uint32_t client_receive) override {
    owner_.on_represynch(client, tpipe, action, client_send, client_receive);
  }
  void on_srvresynch_rejected(std::string_view client) override { owner_.on_srvresynch_rejected(client); }
  void on_input(std::string_view client, const otma::otma_message& input) override {
    owner_.on_input(client, input);
  }
  void on_output_response(const output_response& response) override { owner_.on_output_response(response); }
  void on_output_timeout(std::string_view client, std::string_view tpipe, std::uint32_t send_seq) override {
    owner_.on_output_timeout(client, tpipe, send_seq);
  }
  void on_deallocate(std::string_view client, const otma::otma_message& message) override {
    owner_.on_deallocate(client, message);
  }
  void on_protocol_error(std::string_view client, const std::string& what) override {
    owner_.on_protocol_error(client, what);
  }

 private:
  server_link& link_;
  server_observer& owner_;
};

server_link::server_link(server_config config, server_observer& owner, clock_fn clock)
    : link_base(std::move(clock)), config_(std::move(config)) {
  forwarder_ = std::make_unique<forwarder>(*this, owner);
  session_ = std::make_unique<server_session>(config_, *forwarder_);
}

server_link::~server_link() {
  // Without leave(): IMS ends abnormally; the clients see the member fail.
  close();
  session_.reset();  // before the forwarder it calls
}

xcf::return_code server_link::join(xcf::service& xcf, const std::string& group) {
  if (!begin_join()) return xcf::codes::already_active;

  xcf::join_request request;
  request.group = group;
  request.member = config_.member;
  request.lasting = true;
  xcf::join_result joined = xcf.join(request, *this);
  if (!joined.code.ok() || !joined.joined) return join_failed(joined.code);
  std::vector<xcf::member_info> members;
  if (!joined.joined->query(members).ok()) members = joined.members;

  std::lock_guard<std::recursive_mutex> lock(mutex_);
  member_ = std::move(joined.joined);
  phase_ = detail::link_phase::joined;
  clients_.clear();
  sent_to_.clear();
  // [C: IMS-SA-FLOW]: a server already joined tells a client that joins it is there; a server
  // that joins after its clients tells each of them the same [D].
  for (const xcf::member_info& m : members) {
    if (m.name != config_.member && m.state == xcf::member_state::active) add_client(m.name, m.token);
  }
  handle_early_calls();
  return joined.code;
}

void server_link::leave() {
  xcf::member* member = member_to_leave();
  if (member == nullptr) return;
  member->leave();
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  phase_ = detail::link_phase::idle;
  early_.clear();
  // Every session ends with the membership; copied first, as each client_gone calls the owner.
  std::vector<std::string> names;
  for (const auto& [name, token] : clients_) names.push_back(name);
  clients_.clear();
  for (const std::string& name : names) {
    session_->client_gone(name, "this member (" + config_.member + ") left the XCF group");
  }
}

void server_link::add_client(const std::string& name, const xcf::member_token& token) {
  auto it = clients_.find(name);
  if (it != clients_.end() && it->second == token) return;  // this incarnation was told already
  clients_[name] = token;
  session_->client_joined(name, clock_());
}

void server_link::handle_message(xcf::message msg) { session_->receive(msg.source_name, msg.data, clock_()); }

void server_link::handle_event(const xcf::member_event& event) {
  const xcf::member_info& who = event.member;
  if (who.name == config_.member) {
    if (!ends_member(event.kind)) return;
    // Our own link to XCF dropped: every client is out of reach. The backend re-joins us and then
    // reports the clients active again.
    std::vector<std::string> names;
    for (const auto& [name, token] : clients_) names.push_back(name);
    clients_.clear();
    for (const std::string& name : names) {
      session_->client_gone(name, event_text(event) + " (this member: link to XCF lost)");
    }
    return;
  }
  if (event.kind == xcf::event_kind::active) {
    add_client(who.name, who.token);
  } else if (ends_member(event.kind)) {
    clients_.erase(who.name);
    session_->client_gone(who.name, event_text(event));
  }
}

void server_link::handle_send_done(std::uint64_t send_id, xcf::return_code code) {
  auto it = sent_to_.find(send_id);
  if (it == sent_to_.end()) return;  // forgotten, or never ours
  const std::string client = it->second;
  sent_to_.erase(it);
  if (code.rc == 0) return;
  session_->client_gone(client, "XCF refused a message to it: " + xcf::describe(code));
}

void server_link::send_buffer(std::string_view client, bytes buffer) {
  if (phase_ == detail::link_phase::closing) return;
  // Copied: `client` may view a name the session drops in client_gone below.
  const std::string name(client);
  xcf::return_code code = xcf::codes::not_active;
  std::uint64_t send_id = 0;
  if (member_) {
    code = member_->send(xcf::target::by_name(name), control_of(buffer), buffer, wire_options(), &send_id);
  }
  if (code.rc == 0) {
    sent_to_[send_id] = name;
    while (sent_to_.size() > remembered_sends) sent_to_.erase(sent_to_.begin());
    return;
  }
  // xcf_link.hpp: reported to the owner as the client lost (the session forgets it; it bids again).
  session_->client_gone(name, "XCF refused a message to it: " + xcf::describe(code));
}

}  // namespace imsb::tpipe
