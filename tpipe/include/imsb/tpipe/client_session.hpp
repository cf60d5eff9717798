#pragma once
// The client role of an OTMA session (the bridge, and the scripted test client of imsemu's tests): one
// client member talking to one server member. Sans-I/O: bytes in through receive(), bytes out through
// client_observer::send(), time in through the `now` arguments (docs/design/layers.md: tpipe/ is pure
// logic with an injected clock). Not thread-safe: the owner serialises calls (xcf_link does).
//
// What it does (IBM's OTMA flows [C: IMS-FLOWS]): client-bid or CBresynch at start and when the server
// (re)joins; ignores server-available after a successful bid [C: IMS-SA-FLOW]; the resync exchange as the
// client — ACK of SRVresynch, one REPresynch per REQresynch from decide_resync() over the owner's records,
// a TBresynch on request; per-Tpipe MCI send-sequence numbers for input, and matching of ACK/NAK to the
// input they answer; output handed to the owner, who answers with ack_output()/nak_output() once it has
// committed (docs/design/commit-modes.md, CM0 step 6: commit, then ACK); commit confirmations; X'3C'
// server state; suspend.
//
// Never resends on a timer (docs/design/commit-modes.md, CM0 step 7): an input without ACK/NAK after
// ack_timeout, a protocol error, or the server member failing or leaving ends the session (on_session_lost);
// the owner reconnects and bids with resync.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/resync.hpp"

namespace imsb::tpipe {

using millis = std::uint64_t;  // injected clock, milliseconds from any origin

struct client_config {
  bid_params bid;                // member name, token, DRU exit, aging ... (bid.member = our member)
  std::string server_member;     // the IMS member (XCFMNAME)
  bool resync = true;            // CBresynch instead of client-bid (MQ always resyncs synchronized Tpipes)
  millis ack_timeout = 120'000;  // an input unanswered this long ends the session (never a resend)
  millis bid_timeout = 30'000;   // the bid unanswered this long ends the session
};

enum class client_state : std::uint8_t {
  idle,       // not started, or lost
  bidding,    // client-bid / CBresynch sent
  resyncing,  // bid ACKed; SRVresynch / REQresynch exchange running
  active,     // input may be sent
  lost,       // ended; start() again to bid again
};
std::string_view to_string(client_state state) noexcept;

// The answer to one input: ACK, or NAK with sense, reason and "error message follows".
struct input_response {
  std::string tpipe;
  std::uint32_t send_seq = 0;         // the input's MCI send-sequence number
  std::uint32_t recoverable_seq = 0;  // the input's recoverable number (0 = not recoverable)
  bool ack = false;
  std::uint16_t sense = 0;
  std::uint16_t reason = 0;
  bool error_message_follows = false;
};

class client_observer {
 public:
  virtual ~client_observer() = default;
  // One OTMA buffer for the server member.
  virtual void send(bytes buffer) = 0;
  // The bid was ACKed and every REQresynch answered (or there were none): input may be sent.
  virtual void on_session_ready() = 0;
  virtual void on_bid_rejected(std::uint16_t sense, std::uint16_t reason) = 0;
  // The session ended: why, in words for the console. Nothing more is sent or ACKed.
  virtual void on_session_lost(const std::string& reason) = 0;
  // Resync: the owner's persisted record of a synchronized Tpipe, nullopt when it has none.
  virtual std::optional<client_tpipe_record> tpipe_record(std::string_view tpipe) = 0;
  // Resync: the decision sent for a Tpipe, for the owner to act on (finish step 5, resend, stop).
  virtual void on_resync_decision(std::string_view tpipe, const resync_decision& decision) = 0;
  // Resync: synchronized Tpipes of ours (names the owner reports with our_synchronized_tpipes()) that IMS
  // did not list in SRVresynch: IMS cold-started them.
  virtual void on_tpipe_unknown_to_server(std::string_view tpipe) = 0;
  virtual void on_input_response(const input_response& response) = 0;
  // Output from IMS (MCI type X'80'). If message.mci.response_requested(), the owner must answer with
  // ack_output() or nak_output() for (tpipe, message.mci.send_seq).
  virtual void on_output(const otma::otma_message& message) = 0;
  virtual void on_commit_confirmation(std::string_view tpipe, std::uint32_t send_seq, bool committed) = 0;
  virtual void on_server_state(std::uint16_t status) = 0;  // otma::server_status::
  virtual void on_suspend() = 0;
  // The names of our synchronized Tpipes (to find those IMS did not list). Default: none.
  virtual std::vector<std::string> our_synchronized_tpipes() { return {}; }
};

class client_session {
 public:
  client_session(client_config config, client_observer& observer);

  // Sends client-bid (or CBresynch). Also after a loss: a fresh bid.
  void start(millis now);
  // A buffer from the server member. Bad buffers end the session (protocol error, named in the reason).
  void receive(bytes_view buffer, millis now);
  // The server member joined again (bid again) or failed / left (session lost).
  void server_joined(millis now);
  void server_gone(const std::string& why);
  // Timeouts (ack_timeout, bid_timeout).
  void tick(millis now);

  // Sends transaction or command input on message.mci tpipe: sets the MCI send-sequence number (the
  // Tpipe's next), leaves recoverable_seq as the owner set it, asks for a response. Returns the send
  // sequence number. Errors: not active (std::errc::operation_not_permitted), encoding errors.
  result<std::uint32_t> send_input(otma::otma_message message, millis now);
  // The owner's answer to an output that asked for one.
  void ack_output(const otma::otma_message& output);
  void nak_output(const otma::otma_message& output, std::uint16_t sense);
  // Deallocate (end a conversation) and TBresynch, when the owner decides.
  void send_deallocate(std::string_view tpipe, const otma::raw_bytes<16>& server_token);
  void send_tbresynch(std::string_view tpipe);

  client_state state() const noexcept { return state_; }
  const otma::raw_bytes<8>& server_token() const noexcept { return server_token_; }
  // Inputs sent and not yet answered.
  std::size_t inputs_outstanding() const noexcept { return pending_.size(); }
  // ACKs/NAKs that answered nothing outstanding (and bid ACKs/NAKs outside bidding): ignored, as IMS
  // ignores a stray ACK [C: IMS-MSG-DFS1284E], and counted here.
  std::uint64_t stray_responses() const noexcept { return stray_responses_; }

 private:
  struct pending_input {
    std::string tpipe;
    std::uint32_t send_seq = 0;
    std::uint32_t recoverable_seq = 0;
    millis sent_at = 0;
  };
  void lose(const std::string& reason);
  void send_message(const otma::otma_message& message);
  void send_bid(millis now);
  void handle(const otma::otma_message& message, millis now);
  void handle_bid_answer(const otma::otma_message& message, bool ack, millis now);
  void handle_srvresynch(const otma::otma_message& message, millis now);
  void handle_reqresynch(const otma::otma_message& message, millis now);
  void handle_input_answer(const otma::otma_message& message, bool ack);

  client_config config_;
  client_observer& observer_;
  client_state state_ = client_state::idle;
  millis bid_sent_at_ = 0;
  otma::raw_bytes<8> server_token_{};
  std::map<std::string, std::uint32_t, std::less<>> next_send_seq_;  // per Tpipe
  std::vector<pending_input> pending_;
  std::vector<std::string> srv_tpipes_;  // listed by SRVresynch
  std::size_t reqresynch_expected_ = 0;  // REQresynch still to come
  std::uint64_t stray_responses_ = 0;
  std::vector<bytes> chain_;  // buffers of a chained message received so far [C: IMS-MSGS-CLI]
};

}  // namespace imsb::tpipe
