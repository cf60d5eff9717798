#pragma once
// The server role of OTMA (imsemu; IBM's OTMA flows [C: IMS-FLOWS]): one IMS member serving any number of
// client members. Sans-I/O like client_session: bytes in through receive(), out through
// server_observer::send(), time through `now`. Not thread-safe: the owner serialises calls.
//
// What it does: answers client-bid and CBresynch (the owner's verdict: ACK, or NAK with a sense code), sends
// server-available when a client joins [C: IMS-SA-FLOW], one X'3C' "normal" after the ACK and a X'3C'
// heartbeat every heartbeat_interval [D]; for CBresynch runs the resync exchange as the server — SRVresynch
// with the owner's synchronized Tpipes, then one REQresynch each, applying each REPresynch through the owner;
// answers TBresynch with a REQresynch; hands transaction input to the owner, who answers with
// ack_input()/nak_input() once it has logged it (CM0: ACK only after logging [C: IMS-RS-ASSUME]); numbers
// output per Tpipe (MCI send-sequence) and matches the client's ACK/NAK of output to it; commit
// confirmations; suspend at shutdown.
//
// Input from a client that has not bid successfully gets a NAK (sense 0x0001 [D]) and is not handed on.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/client_session.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/resync.hpp"

namespace imsb::tpipe {

struct server_config {
  std::string member;                   // the IMS member name (OTMANM)
  otma::raw_bytes<8> token{};           // IMS's token ([D] {u32 member index, u32 generation})
  millis heartbeat_interval = 60'000;   // X'3C' every 60 s [C: IMS-MON]; 0 = none
  millis output_ack_timeout = 120'000;  // an output unanswered this long: on_output_timeout (DFS3494E)
};

// The owner's verdict on a bid.
struct bid_verdict {
  bool accept = true;
  std::uint16_t sense = 0;  // when !accept
  std::uint16_t reason = 0;
};

struct synchronized_tpipe {
  std::string name;
  server_tpipe_numbers numbers;
};

// The client's answer to one output.
struct output_response {
  std::string client;
  std::string tpipe;
  std::uint32_t send_seq = 0;
  bool ack = false;
  std::uint16_t sense = 0;
  otma::otma_message message;  // the ACK/NAK as received (reroute/purge flags in its state data)
};

class server_observer {
 public:
  virtual ~server_observer() = default;
  virtual void send(std::string_view client, bytes buffer) = 0;
  virtual bid_verdict on_bid(std::string_view client, const otma::otma_message& bid) = 0;
  // After an ACKed bid (and, for CBresynch, once every REQresynch has its REPresynch).
  virtual void on_client_ready(std::string_view client) = 0;
  virtual void on_client_lost(std::string_view client, const std::string& reason) = 0;
  // Resync: the synchronized Tpipes of this client with IMS's numbers.
  virtual std::vector<synchronized_tpipe> synchronized_tpipes(std::string_view client) = 0;
  // Resync: a REPresynch for a Tpipe; the owner applies apply_represynch() and persists (dequeue, reset,
  // stop). `client_send`/`client_receive` are the client's numbers.
  virtual void on_represynch(std::string_view client, std::string_view tpipe, std::uint8_t action,
                             std::uint32_t client_send, std::uint32_t client_receive) = 0;
  // The client NAKed SRVresynch: resync stops for it (DFS2393I).
  virtual void on_srvresynch_rejected(std::string_view client) = 0;
  // Transaction / command / conversation input. The owner answers with ack_input or nak_input.
  virtual void on_input(std::string_view client, const otma::otma_message& input) = 0;
  virtual void on_output_response(const output_response& response) = 0;
  virtual void on_output_timeout(std::string_view client, std::string_view tpipe, std::uint32_t send_seq) = 0;
  virtual void on_deallocate(std::string_view client, const otma::otma_message& message) = 0;
  // A buffer that does not decode or is not allowed now: the owner logs it (the session already NAKed it
  // or ignored it as IMS does, DFS1281E/DFS1283E/DFS1284E for stray ACKs).
  virtual void on_protocol_error(std::string_view client, const std::string& what) = 0;
};

class server_session {
 public:
  server_session(server_config config, server_observer& observer);

  // XCF group events for client members.
  void client_joined(std::string_view client, millis now);  // sends server-available
  void client_gone(std::string_view client, const std::string& why);
  void receive(std::string_view client, bytes_view buffer, millis now);
  void tick(millis now);  // heartbeats, output ACK timeouts

  void ack_input(std::string_view client, const otma::otma_message& input);
  void nak_input(std::string_view client, const otma::otma_message& input, std::uint16_t sense,
                 std::uint16_t reason = 0, bool error_message_follows = false);
  // Sends output on its tpipe to the client: sets MCI type Data and the Tpipe's next send-sequence number;
  // asks for a response when `response_requested` (CM0 always; CM1 with sync level CONFIRM). Returns the
  // send-sequence number. Errors: the client is not ready (std::errc::operation_not_permitted).
  result<std::uint32_t> send_output(std::string_view client, otma::otma_message output,
                                    bool response_requested, millis now);
  void send_commit_confirmation(std::string_view client, std::string_view tpipe, std::uint32_t send_seq,
                                bool committed);
  // Starts the resync of one Tpipe (after a TBresynch or when the owner wants it): a REQresynch.
  void send_reqresynch(std::string_view client, const synchronized_tpipe& tpipe);
  // X'3C' to every ready client, now and as the heartbeat from then on.
  void set_server_state(std::uint16_t status);
  // Suspend (X'14') to every ready client (planned shutdown).
  void suspend_all();

  bool client_ready(std::string_view client) const;
  std::vector<std::string> ready_clients() const;
  std::uint16_t server_state() const noexcept { return status_; }

 private:
  struct client_info {
    bool ready = false;
    bool resyncing = false;
    std::size_t represynch_expected = 0;
    std::vector<synchronized_tpipe> resync_tpipes;
    std::map<std::string, std::uint32_t, std::less<>> next_send_seq;  // per Tpipe
    struct pending_output {
      std::string tpipe;
      std::uint32_t send_seq = 0;
      millis sent_at = 0;
      bool timeout_reported = false;  // on_output_timeout is called once per output
    };
    std::vector<pending_output> pending;
    bool awaiting_srvresynch_ack = false;  // SRVresynch sent, its ACK/NAK not yet here
    // Tpipes with a REQresynch sent and no REPresynch yet; true for those of the initial exchange (they
    // count in represynch_expected), false for those after a TBresynch or send_reqresynch().
    std::map<std::string, bool, std::less<>> reqresynch_outstanding;
  };
  void send_message(std::string_view client, const otma::otma_message& message);
  // Every lookup goes by name: an observer callback may add or drop clients, so no reference or iterator
  // into clients_ is kept across one.
  client_info* find(std::string_view client);
  const client_info* find(std::string_view client) const;
  void note_time(millis now);
  void make_ready(std::string_view client);
  void reject_undecodable(std::string_view client, bytes_view buffer, const decode_error& error);
  void reject_unexpected(std::string_view client, const otma::otma_message& message, message_kind kind);
  void on_bid(std::string_view client, const otma::otma_message& bid, bool resync);
  void on_srvresynch_response(std::string_view client, const otma::otma_message& message, bool ack);
  void on_represynch_message(std::string_view client, const otma::otma_message& message);
  void on_tbresynch(std::string_view client, const otma::otma_message& message);
  void on_output_answer(std::string_view client, const otma::otma_message& message, bool ack);

  server_config config_;
  server_observer& observer_;
  std::map<std::string, client_info, std::less<>> clients_;
  std::uint16_t status_ = 0x03;
  millis last_heartbeat_ = 0;
  bool clock_started_ = false;  // last_heartbeat_ starts at the first `now` the session is given
};

}  // namespace imsb::tpipe
