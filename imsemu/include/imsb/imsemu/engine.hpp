#pragma once
// The IMS emulator's engine: what IMS TM and OTMA do with client messages (IBM's OTMA flows [C: IMS-FLOWS];
// our choices in docs/design/otma.md), as the owner of tpipe/'s server role. It decides bids, checks and
// queues input, runs programs, sends and re-sends output, answers resync from its journal, and runs IMS
// commands. No sockets and no threads: the program (apps/imsemu) binds it to XCF through tpipe::server_link;
// tests drive it directly.
//
// Durability ([C: IMS-RS-CS]; docs/design/commit-modes.md, CM0 step 5): recoverable input is logged
// (journal::log_input, fsynced) before its ACK; a run — database changes, input removed, outputs queued — is
// one journal::commit_run; a synchronized Tpipe's send number is logged when the client ACKs the output.
//
// Input rules, in order (first failure wins) [D] unless marked:
//  1. the client has not bid → the session NAKs it (tpipe/).
//  2. destination (first 8 bytes of the first segment, or the first word of a '/' command):
//     an LTERM → NAK 0x0002 with "error message follows", then DFS1288E as output
//     [C: MQ-BRIDGE, IMS-MSG-DFS1288E];
//     a command ('/' first) → run_command (commands.hpp), CM0 or CM1 (a CM0 command's output cannot be
//     tied back to it [C: IMS-CMDS]); on a synchronized Tpipe a command with recoverable number 0 is
//     run, a nonzero number → NAK X'23' and CM1 → NAK X'1C' [C];
//     CM1 on a synchronized Tpipe → NAK X'1C' before the destination checks [C: IMS-RS-SUMMARY];
//     unknown → DFS064 as output data ([D], docs/design/otma.md); stopped → DFS065 as output data.
//  3. commit mode and Tpipe [C: IMS-RS-SUMMARY]: sync level SYNCPT → NAK X'11' (no RRS here
//     [C: IMS-MSG-ICO0002E]); CM1 on a synchronized Tpipe → NAK X'1C'; Fast Path or conversational with CM0 →
//     NAK 0x0007 + DFS1291E; recoverable number ≠ 0 on an unrecoverable transaction → NAK X'23'; a
//     recoverable number that is not receive + 1 → NAK X'1F'.
//  4. security (/SECURE OTMA CHECK|FULL|PROFILE): the user may not run it → NAK 0x0005 + DFS1292E.
//     The same when the message carries a UTOKEN that the utoken_verifier finds invalid ([D]: our signed
//     token, docs/design/otma.md; bad signature, expired, other user or group, malformed; IMB5041W gives why,
//     then IMB5040W), and, with --utoken-required [D], when it names a user but carries no UTOKEN (IMB5056W).
//     Without --utoken-required a message without a token runs as the user it names, as real IMS trusts the
//     user ID when MQ sends no UTOKEN ([C: MQ-SEC]: CONTROL access). Without a verifier
//     (no --utoken-key) a token is carried but not checked. Under NONE, and under PROFILE for a message
//     flagged N, the token is not checked either and nothing is logged for it (a RACF token there is
//     normal); SHOWOTMA reports it (TOKEN=VERIFIED|NOTVERIFIED|INVALID) whatever the level. The token is
//     verified once, at acceptance: the verdict is kept in memory with the logged input and SHOWOTMA shows
//     it at the run, however long the run is held. A warm restart loses that verdict: the queued inputs
//     run while engine::open replays the journal, before any verifier is set, so they show NOTVERIFIED;
//     an input run later without a kept verdict is verified again, silently, against the clock at the run
//     (a token that expired in between shows INVALID; the input was accepted and runs all the same).
//  5. flood control: active inputs at the member's TIB limit → NAK X'30' (DFS1989E); DFS1988W at 80% and
//     each further 5%; relief (DFS0767I) at ≤ 50% [C: IMS-FLOOD]; X'3C' degraded at 80% [D].
//  6. MAXTP: a new Tpipe beyond the member's limit → NAK 0x0002 (DFS4383E) [D].
// A Tpipe is synchronized when the input says so or when CM0 input carries a nonzero recoverable number
// ([C: IMS-RS-SUMMARY]: the number is what IMS goes by); output for input with number 0 carries none.
// A client-bid's user is its user-ID subfield, or, when it has none (IBM's sample bid carries only the UTOKEN
// [C-hex: IMS-SAMPLE]), the one its token names (and the token's group, when the bid has no group subfield);
// the CLIENT allow-list, the "user must be defined" check and the token check all use that one user. A
// client-bid whose UTOKEN the verifier finds invalid is NAKed 0x0005 under /SECURE OTMA other than NONE
// ([C: IMS-GRNAME]: "the client's UTOKEN must be valid"), and so, with --utoken-required [D], is one that
// names a user without a UTOKEN. A token is a bearer credential: it is not tied to the member or Tpipe that
// sends it, and it can be replayed until it expires.
// Client-supplied names (user, group, Tpipe, destination) are made printable before they go into a
// console line, so a name cannot forge or split a log line.
// A bid that replaces a live session backs out the old session's CM1 runs and output in flight.
// Then: CM0 → log, ACK, run, commit, send output (response requested); the Tpipe's outputs go one at a
// time in order, the next after the ACK of the one before; NAK of output → kept and re-sent after resync
// or /DEQUEUE decides. CM1 → ACK, run, send output (response requested with CONFIRM), commit on the ACK
// with a commit confirmation "committed", back out on NAK ("aborted", DFS554 [C]); a CM1 run without an
// IOPCB reply → DFS2082 [C]. Conversations: one per Tpipe, server token = conversation id; the ACK of
// a conversation's first input already has state Conversational and that token [C: IMS-CONV].
//
// External programs (external_program.hpp) with a program_runner [D]: the run goes to the runner (the
// program's worker thread), so the XCF I/O thread and the link's lock are free while it runs; the engine
// completes it when the runner calls the job's `complete` (through the session access). Like IMS with one
// message region, while an external run is in flight no other input is run: inputs that arrive meanwhile
// are checked, logged and ACKed (CM0) at once — the ACK never waits for the run — and run after it, in
// input order (CM1 too). An input in flight is still active (flood control, /DIS). Commands (IMS and
// emulator, from a client or the console) do not wait: they are answered at once. A CM1 run whose client
// is lost while it runs is backed out at completion as a lost CM1 client's run is ("BACKED OUT: CLIENT
// LOST"). A run the runner drops (stop, FAULT RESTART) is never completed: nothing was committed, the input
// stays logged and runs again after a warm restart. Without a runner (tests, and engine::open's warm-start
// runs before any client exists) external programs run synchronously.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/ims/programs.hpp"
#include "imsb/imsemu/external_program.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace imsb::imsemu {

// Faults the emulator can be asked for, from the command line and at run time.
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

// What the verifier found of a UTOKEN (our signed token [D], docs/design/otma.md): SHOWOTMA's token
// state. A verifier answers verified or invalid; the engine itself gives none (no token) and not_verified
// (no verifier).
using token_check = ims::input_message::token_state;
// A verifier's answer: the state and, when invalid, why ("expired", "bad_signature", ...: the engine puts
// it in IMB5041W). Converts from a bare token_check (no reason).
struct token_finding {
  token_finding(token_check s = token_check::none, std::string why = {})  // NOLINT: implicit on purpose
      : state(s), reason(std::move(why)) {}
  token_check state;
  std::string reason;
};
// Checks a message's (or bid's) UTOKEN for its user ID and group (CCSID 819, no padding) against the
// shared key, and logs nothing (the engine decides what is worth a console line); apps/imsemu passes one
// that calls transport::utoken_key::verify with the current time, so the engine stays free of OpenSSL.
using utoken_verifier =
    std::function<token_finding(bytes_view token, std::string_view user, std::string_view group)>;

// An external program's run handed to a program_runner (engine.hpp header, "External programs").
// `run` starts the program and waits for it; it touches no engine state (any thread). `complete` then
// finishes the run in the engine, taking the session access itself (the lock every engine entry uses);
// the runner calls it once after `run`, or never when it drops the run (stop, restart). The runner may
// kill the program's process group: it sets options.on_started (external_program.hpp) and
// calls run(options).
struct external_job {
  std::uint64_t input_id = 0;
  external_options options;  // the engine's (time limit, names); the runner adds its hooks
  std::function<external_result(const external_options& options)> run;
  std::function<void(external_result result)> complete;
};
// Takes the job and returns at once; at most one job is in flight (the engine waits for its completion).
using program_runner = std::function<void(external_job job)>;

class engine final : public tpipe::server_observer {
 public:
  // Opens the journal in `state_dir` (warm start, or cold with `cold_start`) and rebuilds the Tpipe table.
  static result<std::unique_ptr<engine>> open(ims::definitions defs, const std::filesystem::path& state_dir,
                                              bool cold_start, console_fn console);
  ~engine() override;

  void attach(session_access access);  // before any message arrives
  void set_sender(sender_fn sender);   // for engine::send(); without one, send() drops the buffer
  // Before any message arrives; an empty one: tokens are not checked (TOKEN=NOTVERIFIED). `required`
  // (--utoken-required [D]): under /SECURE OTMA other than NONE (PROFILE: messages flagged C or F), input
  // and client-bids that name a user without a UTOKEN are refused (rule 4, bids).
  void set_utoken_verifier(utoken_verifier verifier, bool required = false);
  // Before any message arrives; empty: external programs run synchronously (engine.hpp header).
  void set_program_runner(program_runner runner);
  // The runner's way back (external_job::complete calls it under the session access): completes the run
  // of `input_id` if it is still the one in flight, then runs the inputs that waited for it.
  void complete_external_run(std::uint64_t input_id, external_result result);
  // The input whose external run is in flight; 0 when none.
  std::uint64_t external_run_in_flight() const noexcept;
  faults& fault_settings() noexcept { return faults_; }
  const ims::definitions& definitions() const noexcept { return defs_; }
  const journal& log() const noexcept { return *journal_; }
  // Where the engine reads the time, at each use (FAULT DELAY OUTPUT, the session's output timers): the
  // program passes the link's clock (tpipe::steady_now). Without one the engine's time is the last tick's
  // `now` (tests that step time by hand), and an input between ticks would be timed from the last tick.
  void set_clock(std::function<tpipe::millis()> clock);
  // Called by the program's timer: CM0 outputs waiting for a ready client, delayed outputs, flood relief.
  // `now` is the engine's time until the next tick when no clock is set; with one it is not used.
  void tick(tpipe::millis now);
  // Operator console / command socket: an IMS command ("/DIS TMEMBER ALL", "/STO TRAN IVTNO") or an
  // emulator command ("FAULT NAK 0030", "FAULT CRASH AFTER LOG" — commands.hpp lists them).
  std::vector<std::string> operator_command(std::string_view text);
  // Active inputs (TIBs) of a client member: logged and not yet finished (flood control [C: IMS-FLOOD]).
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
