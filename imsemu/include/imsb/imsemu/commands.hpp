#pragma once
// IMS type-1 commands and the emulator's FAULT commands, as one pure function: the engine
// gathers what the commands read into a command_state, calls run_command, sends the lines (to the console
// or, from a client, as output on the Tpipe) and applies the effects. No I/O here.
//
// Commands, verbs as IMS abbreviates them [C: IMS-CMDS, IMS-DISTRAN]:
//   /DIS|/DISPLAY TMEMBER m TPIPE t|ALL      Tpipes of a member, with ENQCT/DEQCT/QCT and status
//   /DIS TMEMBER m|ALL                       members (clients) and their state
//   /DIS TRAN|TRANSACTION x|ALL              transactions: class, queue count, status
//   /DIS OTMA                                group, IMS member, clients, security level
//   /STO|/STOP, /STA|/START TRAN x           stop / start input queuing of a transaction
//   /STO|/STA TMEMBER m TPIPE t              stop / start a Tpipe
//   /DEQ|/DEQUEUE TMEMBER m TPIPE t PURGE|PURGE1   discard the Tpipe's queued output (PURGE: all;
//                                            PURGE1: the first) [C: MQ "Controlling the IMS bridge"]
//   /EXI|/EXIT [CONV|CONVERSATION nnnn] [TMEMBER m TPIPE t]   end a Tpipe's conversation [C: IMS /EXIT
//                                            syntax]; bare /EXIT from a client: the Tpipe it came on [D]
// Emulator commands, operator console only (origin empty) [D]:
//   FAULT STOP|RESUME, FAULT WITHHOLD ACK n, FAULT IGNORE ACK n, FAULT DUPLICATE OUTPUT n,
//   FAULT NAK xxxx (hex sense), FAULT DELAY OUTPUT ms, FAULT CRASH AFTER LOG|AFTER RUN,
//   FAULT HOLD RUNS|RELEASE RUNS, FAULT RESTART WARM|COLD (a request the program carries out: field
//   restart_requested, 1 warm, 2 cold), FAULT CLEAR, FAULT SHOW
// Keywords are case-insensitive; names are upper-cased as IMS does for commands.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/ims/definitions.hpp"
#include "imsb/imsemu/engine.hpp"
#include "imsb/imsemu/journal.hpp"

namespace imsb::imsemu {

// What the engine knows of one Tpipe beyond the journal (which holds synchronized Tpipes' numbers,
// stopped flags and queued output). Counters are in memory since the emulator started.
struct tpipe_status {
  bool synchronized = false;
  bool stopped = false;
  std::uint32_t recv_rsn = 0;
  std::uint32_t send_rsn = 0;
  std::uint64_t enqct = 0;  // CM0 outputs enqueued — kept for CM0 only [C: MQ-BRIDGE]
  std::uint64_t deqct = 0;  // CM0 outputs dequeued (ACKed or purged)
  std::uint64_t qct = 0;    // CM0 outputs queued now; the display shows max(this, the journal's queue)
  bool conversation_active = false;
  std::uint32_t conversation_id = 0;
};

struct client_status {
  bool ready = false;           // bid accepted, server-available sent
  std::uint32_t tib_count = 0;  // active inputs (flood control [C: IMS-FLOOD])
  std::uint32_t tib_limit = 0;  // the member's effective limit (0 = off)
  std::map<std::string, tpipe_status, std::less<>> tpipes;
};

struct command_state {
  command_state(const ims::definitions& d, const journal_state& j) : defs(d), journal(j) {}

  const ims::definitions& defs;
  const journal_state& journal;
  std::string member;  // IMS's XCF member name (OTMANM); defs.otmanm when empty
  // Client members the engine knows (connected or not). Tpipes found only in the journal (synchronized
  // Tpipes of a client that has not come back since a restart) are shown too.
  std::map<std::string, client_status, std::less<>> clients;
  std::set<std::string, std::less<>> stopped_transactions;  // defs' STATUS(STOPPED) plus /STO TRAN
  std::map<std::string, std::uint64_t, std::less<>> transaction_queue_counts;  // inputs queued per code
  std::uint32_t tib_count = 0;                                                 // all members
  std::uint32_t tib_limit = 0;                                                 // global (0 = off)
  std::string server_state = "NORMAL";  // NORMAL | DEGRADED | UNAVAILABLE (X'3C' [C: IMS-SD-SS])
  faults fault_settings{};              // FAULT SHOW
  // Where the command came from: empty = the operator console; else (client, tpipe). FAULT commands are
  // refused from clients; /EXIT without TMEMBER ends the origin's conversation.
  std::optional<tpipe_key> origin;
};

// One fault field set by a FAULT command; `field` is the name of the member of struct faults
// (engine.hpp), `value` its new value (bools 0/1).
struct fault_change {
  std::string field;
  std::uint32_t value = 0;
  bool operator==(const fault_change& o) const { return field == o.field && value == o.value; }
};

struct command_effects {
  std::vector<std::string> stop_transactions;
  std::vector<std::string> start_transactions;
  std::vector<tpipe_key> stop_tpipes;
  std::vector<tpipe_key> start_tpipes;
  std::vector<std::uint64_t> purge_outputs;  // journal output ids, in queue order
  std::vector<tpipe_key> end_conversations;
  std::vector<fault_change> fault_changes;  // apply in order (FAULT CLEAR = every field to 0)

  bool empty() const noexcept {
    return stop_transactions.empty() && start_transactions.empty() && stop_tpipes.empty() &&
           start_tpipes.empty() && purge_outputs.empty() && end_conversations.empty() &&
           fault_changes.empty();
  }
};

struct command_result {
  std::vector<std::string> lines;  // console / output lines, DFS IDs where IMS has one, else IMB506x
  command_effects effects;
  bool recognized = false;  // false: not a command this function knows (lines hold the error)
};

// Runs one command. Never throws on any input text.
command_result run_command(const command_state& state, std::string_view text);

// Applies fault changes to the engine's settings (unknown field names are ignored).
void apply_fault_changes(faults& target, const std::vector<fault_change>& changes);

// Architected /DIS TRAN [C: IMS-DISTRAN]: `/DIS TRAN x` with MCI+2 X'10' (extended response requested)
// is answered with one Transaction Attributes Segment per transaction: LL ZZ, code (8, blank padded, in
// `ccsid`), type flag 1, type flag 2, status — 15 bytes, big-endian LL. `text` is the command as received.
// Unknown transaction: type flag 1 X'FF'; bad syntax: X'FE' followed by the error text (in `ccsid`).
// Returns the segments (each a complete LLZZ segment) in order.
std::vector<bytes> architected_display_tran(const command_state& state, std::string_view text,
                                            std::int32_t ccsid = 37);

}  // namespace imsb::imsemu
