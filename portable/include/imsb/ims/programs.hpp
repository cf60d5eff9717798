#pragma once
// The emulator's built-in IMS programs, as pure functions: an input message and a database in, output
// messages out. What IMS would do around them — scheduling, the message queue, sync point, making the run and
// its database changes one durable step — is imsemu/'s job (journal, engine).
//
// Character data: IMS text is EBCDIC. Segments hold the bytes as the client sent them (the bridge sends
// EBCDIC, docs/design/character-data.md); programs read and write text in `ccsid` (default 037) through
// imsb/codepage, so an ASCII client can be served too when the engine says so.
//
// Programs:
//  IVTNO    the IMS installation-verification phone book [D: our reading of IBM's IVP descriptions].
//           First segment: transaction code (8, blank padded), then process code (8: ADD, DELETE, UPDATE,
//           DISPLAY, TADD), last name (10), first name (10), extension (10), zip code (7) — fixed columns;
//           shorter input is padded with blanks. One output segment: a message line (40) then the four
//           fields as given or as stored. Messages [D]: "ENTRY WAS ADDED", "ENTRY WAS DELETED",
//           "ENTRY WAS DISPLAYED", "ENTRY WAS UPDATED", "ADDITION OF ENTRY HAS FAILED" (exists),
//           "SPECIFIED PERSON WAS NOT FOUND", "PROCESS CODE IS NOT VALID", "DATA IS NOT ENOUGH" (ADD/TADD
//           without first name and extension), "LAST NAME WAS NOT SPECIFIED", "NO DATA WAS ENTERED" (UPDATE
//           without fields) [C: IBM IVP samples]. TADD adds like ADD and also reports the entry (its "test
//           add" [D]).
//  IVTCV    IVTNO as a conversation using the SPA [D]: step 1 (no state in the SPA) takes the process code
//           and last name and asks for the rest ("ENTER FIRST NAME, EXTENSION AND ZIP" for ADD/UPDATE) or
//           answers at once (DISPLAY, DELETE); step 2 takes the remaining fields and answers; "END" as
//           process code, or a completed ADD/UPDATE/DELETE, ends the conversation (blank trancode in the
//           SPA); a DISPLAY keeps it going. The SPA layout: trancode (8), step (1 byte '0'..'9'), process
//           code (8), last name (10), then blanks to spa_size.
//  ECHO     returns every input segment unchanged, in order, as the IOPCB reply.
//  SHOWOTMA answers with what the emulator received, one "KEY=value" line (a segment) each: TRAN,
//           COMMITMODE (0|1), SYNCLEVEL (NONE|CONFIRM|SYNCPT), TPIPE, SYNCHRONIZED (Y|N), LTERM (override or
//           blank), MODNAME, USERID, GROUP, SECFLAG (N|C|F|P), TOKEN (VERIFIED|NOTVERIFIED|INVALID|NONE),
//           SEGMENTS (count), LENGTHS (comma-separated LL values). If the first segment's text after the
//           trancode contains "MOD=name", the reply's output MOD name is that name.
//  ALTOUT   inserts its input segments to the alternate destination named after "DEST=" in the first
//           segment (default "ALTDEST") — unsolicited output through a destination descriptor — and replies
//           "ALTOUT SENT n SEGMENTS TO dest" on the IOPCB — unless the text after the trancode contains
//           "REPLY=NO" [D]: then it inserts nothing on the IOPCB (a CM1 input ends with DFS2082).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"

namespace imsb::ims {

// What a program, and SHOWOTMA in particular, sees of one input message.
struct input_message {
  std::string transaction;      // trancode, without padding
  std::vector<bytes> segments;  // application-data segments without their LLZZ, trancode included
  std::vector<std::uint16_t> segment_lengths;  // the LL of each segment as received (LLZZ included)
  std::uint16_t ccsid = 37;                    // the text's character set
  // OTMA context (SHOWOTMA):
  std::uint8_t commit_mode = 0;  // 0 = commit-then-send, 1 = send-then-commit
  std::uint8_t sync_level = 1;   // 0 NONE, 1 CONFIRM, 2 SYNCPT
  std::string tpipe;
  bool synchronized_tpipe = false;
  std::string lterm_override;
  std::string mod_name;
  std::string user_id;
  std::string group;
  char security_flag = 'N';  // N C F P
  // The UTOKEN (our signed token [D], docs/design/otma.md): none carried; carried but no key to check it
  // with; verified by the key; or not (bad signature, expired, another user's, malformed).
  enum class token_state : std::uint8_t { none, verified, not_verified, invalid } token = token_state::none;
  // Conversational transactions: the SPA as it stands (spa_size bytes: the trancode in its first 8 on
  // the first input, then whatever the program left).
  bytes spa;
};

struct output_message {
  std::string destination;  // empty: the IOPCB reply; else an ALTPCB destination (LTERM or descriptor)
  std::vector<bytes> segments;
  std::string mod_name;  // output MOD name (MFS map) for the reply, blank if none
};

struct run_result {
  std::vector<output_message> outputs;
  bytes spa;                      // conversational: the SPA to keep for the next input
  bool end_conversation = false;  // the program blanked the trancode in the SPA
  // The run failed (IMS would abend the program, e.g. "U0777"): nothing it did counts, the caller backs
  // out its database changes.
  std::optional<std::string> abend;
};

struct phone_entry {
  std::string last_name;   // 10, held without trailing blanks, CCSID 819
  std::string first_name;  // 10
  std::string extension;   // 10
  std::string zip_code;    // 7
};

// IVTNO's and IVTCV's database. The engine gives a program a view whose changes it applies (or backs out)
// together with the rest of the run, as one durable step.
class phonebook {
 public:
  virtual ~phonebook() = default;
  virtual std::optional<phone_entry> find(std::string_view last_name) const = 0;
  virtual void put(const phone_entry& entry) = 0;
  virtual bool erase(std::string_view last_name) = 0;
};

// A phonebook in memory (tests, and the engine's base for its own).
class memory_phonebook : public phonebook {
 public:
  std::optional<phone_entry> find(std::string_view last_name) const override;
  void put(const phone_entry& entry) override;
  bool erase(std::string_view last_name) override;
  const std::map<std::string, phone_entry, std::less<>>& entries() const noexcept { return entries_; }

 private:
  std::map<std::string, phone_entry, std::less<>> entries_;
};

// The names of the built-ins, for definitions and --help.
const std::vector<std::string_view>& builtin_programs();
bool is_builtin(std::string_view name) noexcept;

// Runs a built-in. An unknown name is an abend ("U0456" [D], with the name).
run_result run_builtin(std::string_view program, const input_message& input, phonebook& db);

}  // namespace imsb::ims
