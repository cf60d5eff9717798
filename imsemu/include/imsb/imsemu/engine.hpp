#pragma once
// The IMS emulator's engine: what IMS TM and OTMA do with client messages (issue 6, spec/otma-xcf.md §2),
// as the owner of tpipe/'s server role. It decides bids, checks and queues input, runs programs, sends and
// re-sends output, answers resync from its journal, and runs IMS commands. No sockets and no threads:
// the program (apps/imsemu) binds it to XCF through tpipe::server_link; tests drive it directly.
//
// Durability (ARCHITECTURE.md, spec §1.10 [C: IMS-RS-CS]): recoverable input is logged (journal::log_input,
// fsynced) before its ACK; a run — database changes, input removed, outputs queued — is one
// journal::commit_run; a synchronized Tpipe's send number is logged when the client ACKs the output.
//
// Input rules, in order (first failure wins) [D] unless marked:
//  1. the client has not bid → the session NAKs it (tpipe/).
//  2. destination (first 8 bytes of the first segment, or the first word of a '/' command):
//     an LTERM → NAK 0x0002 with "error message follows", then DFS1288E as output (spec §2.8 [C]);
//     a command ('/' first) → ims_command (engine_commands.cpp), CM0 or CM1 (a CM0 command's output cannot
//     be tied back to it, spec §2.9 [C]); on a synchronized Tpipe a command with recoverable number 0 is
//     run, a nonzero number → NAK X'23' and CM1 → NAK X'1C' [C];
//     CM1 on a synchronized Tpipe → NAK X'1C' before the destination checks (spec §1.10 table [C]);
//     unknown → DFS064 as output data (spec §2.8 [D]); stopped → DFS065 as output data.
//  3. commit mode and Tpipe (spec §1.10 table [C]): CM1 on a synchronized Tpipe → NAK X'1C'; Fast Path or
//     conversational with CM0 → NAK 0x0007 + DFS1291E; recoverable number ≠ 0 on an unrecoverable
//     transaction → NAK X'23'; a recoverable number that is not receive + 1 → NAK X'1F'.
//  4. security (/SECURE OTMA CHECK|FULL|PROFILE): the user may not run it → NAK 0x0005 + DFS1292E.
//     The same when the message carries a UTOKEN that the utoken_verifier finds invalid (spec §1.6, §3.2
//     [D]: our signed token; bad signature, expired, other user or group, malformed); without a verifier
//     (no --utoken-key) a token is carried but not checked. Under NONE, and under PROFILE for a message
//     flagged N, the token is not checked either; SHOWOTMA reports it (TOKEN=VERIFIED|NOTVERIFIED|INVALID)
//     whatever the level.
//  5. flood control: active inputs at the member's TIB limit → NAK X'30' (DFS1989E); DFS1988W at 80% and
//     each further 5%; relief (DFS0767I) at ≤ 50%; X'3C' degraded at 80% (spec §2.10).
//  6. MAXTP: a new Tpipe beyond the member's limit → NAK 0x0002 (DFS4383E) [D].
// A Tpipe is synchronized when the input says so or when CM0 input carries a nonzero recoverable number
// (spec §1.10 [C]: the number is what IMS goes by); output for input with number 0 carries none.
// A client-bid whose UTOKEN the verifier finds invalid is NAKed 0x0005 under /SECURE OTMA other than NONE
// (spec §3.1 [C]: "the client's UTOKEN must be valid"); the bid's user is its user-ID subfield, or, when it
// has none (IBM's sample bid carries only the UTOKEN, §1.12), the one the token names.
// A bid that replaces a live session backs out the old session's CM1 runs and output in flight.
// Then: CM0 → log, ACK, run, commit, send output (response requested); the Tpipe's outputs go one at a
// time in order, the next after the ACK of the one before; NAK of output → kept and re-sent after resync
// or /DEQUEUE decides. CM1 → ACK, run, send output (response requested with CONFIRM), commit on the ACK
// with a commit confirmation "committed", back out on NAK ("aborted", DFS554 [C]); a CM1 run without an
// IOPCB reply → DFS2082 [C]. Conversations: one per Tpipe, server token = conversation id (spec §2.6); the
// ACK of a conversation's first input already has state Conversational and that token (§2.6 [C]).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/ims/programs.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace imsb::imsemu {

// Faults the emulator can be asked for, from the command line and at run time (issue 6).
struct faults {
  bool stop_answering = false;                // ignore every message from clients
  std::uint32_t withhold_next_acks = 0;       // the next N input ACKs it owes are not sent
  std::uint32_t ignore_next_client_acks = 0;  // the next N ACKs of output from clients are dropped
  std::uint32_t duplicate_next_outputs = 0;   // the next N outputs are sent twice
  std::uint16_t nak_next_sense = 0;           // NAK the next input with this sense (0 = off)
  std::uint32_t delay_output_ms = 0;          // hold each output this long before sending
  bool crash_after_log = false;               // abort() after logging an input, before running it
  bool crash_after_run = false;               // abort() after committing a run, before sending its output
  // [D] inputs are logged and ACKed but not run until this is cleared (tick() then runs them): keeps
  // inputs active, for flood-control tests.
  bool hold_runs = false;
  // [D] FAULT RESTART WARM|COLD: a request to the program (program.cpp), which restarts the engine on its
  // timer thread and clears this; the engine itself does nothing with it. 0 none, 1 warm, 2 cold.
  std::uint8_t restart_requested = 0;
};

// One console line: a DFS message ID where IMS has one, IMB5xxx otherwise.
using console_fn = std::function<void(const std::string& line)>;

// How the engine reaches the server session it owns: the program passes server_link::with_session, tests
// a direct call. Called from inside observer callbacks too (the link's mutex is recursive).
using session_access = std::function<void(const std::function<void(tpipe::server_session&)>&)>;

// Where engine::send() (the server_observer's send) delivers buffers when the session's observer is the
// engine itself (tests). Behind server_link the link sends and this is not called.
using sender_fn = std::function<void(std::string_view client, bytes buffer)>;

// What the verifier found of a UTOKEN (spec/otma-xcf.md §1.6, §3.2 [D]): SHOWOTMA's token state. A verifier
// answers verified or invalid; the engine itself gives none (no token) and not_verified (no verifier).
using token_check = ims::input_message::token_state;
// Checks a message's (or bid's) UTOKEN for its user ID and group (CCSID 819, no padding) against the
// shared key; apps/imsemu passes one that calls transport::utoken_key::verify with the current time, so the
// engine stays free of OpenSSL.
using utoken_verifier =
    std::function<token_check(bytes_view token, std::string_view user, std::string_view group)>;

class engine final : public tpipe::server_observer {
 public:
  // Opens the journal in `state_dir` (warm start, or cold with `cold_start`) and rebuilds the Tpipe table.
  static result<std::unique_ptr<engine>> open(ims::definitions defs, const std::filesystem::path& state_dir,
                                              bool cold_start, console_fn console);
  ~engine() override;

  void attach(session_access access);  // before any message arrives
  void set_sender(sender_fn sender);   // for engine::send(); without one, send() drops the buffer
  // Before any message arrives; an empty one: tokens are not checked (TOKEN=NOTVERIFIED).
  void set_utoken_verifier(utoken_verifier verifier);
  faults& fault_settings() noexcept { return faults_; }
  const ims::definitions& definitions() const noexcept { return defs_; }
  const journal& log() const noexcept { return *journal_; }
  // Called by the program's timer: CM0 outputs waiting for a ready client, delayed outputs, flood relief.
  void tick(tpipe::millis now);
  // Operator console / command socket: an IMS command ("/DIS TMEMBER ALL", "/STO TRAN IVTNO") or an
  // emulator command ("FAULT NAK 0030", "FAULT CRASH AFTER LOG" — engine_commands.cpp lists them).
  std::vector<std::string> operator_command(std::string_view text);
  // Active inputs (TIBs) of a client member: logged and not yet finished (flood control, spec §2.10).
  std::uint32_t active_inputs(std::string_view client) const;

  // tpipe::server_observer
  void send(std::string_view client, bytes buffer) override;
  tpipe::bid_verdict on_bid(std::string_view client, const otma::otma_message& bid) override;
  void on_client_ready(std::string_view client) override;
  void on_client_lost(std::string_view client, const std::string& reason) override;
  std::vector<tpipe::synchronized_tpipe> synchronized_tpipes(std::string_view client) override;
  void on_represynch(std::string_view client, std::string_view tpipe, std::uint8_t action,
                     std::uint32_t client_send, std::uint32_t client_receive) override;
  void on_srvresynch_rejected(std::string_view client) override;
  void on_input(std::string_view client, const otma::otma_message& input) override;
  void on_output_response(const tpipe::output_response& response) override;
  void on_output_timeout(std::string_view client, std::string_view tpipe, std::uint32_t send_seq) override;
  void on_deallocate(std::string_view client, const otma::otma_message& message) override;
  void on_protocol_error(std::string_view client, const std::string& what) override;

 private:
  engine(ims::definitions defs, journal j, console_fn console);
  struct impl;
  std::unique_ptr<impl> impl_;
  ims::definitions defs_;
  std::unique_ptr<journal> journal_;
  console_fn console_;
  session_access session_;
  faults faults_;
};

}  // namespace imsb::imsemu
