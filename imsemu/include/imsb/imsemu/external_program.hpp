#pragma once
// External programs — an executable that receives the input segments and writes output segments in a
// documented format, so users bring their own logic in any language: APPLCTN PGM=external:/path.
// The format is ours [D] and is documented for users in imsemu/README.md ("External programs"):
//
//  - The path is started once per run (fork and exec, no shell, in its own process group), with every
//    descriptor but 0, 1 and 2 closed.
//  - stdin: the input message as IMS segments "LL ZZ data": LL two bytes big-endian counting the 4-byte
//    prefix, ZZ zero, the data exactly as the client sent it (normally EBCDIC, IMS_CCSID). For a
//    conversational transaction the SPA comes first, as one segment of the transaction's SPA size.
//  - stdout: the reply, in the same LLZZ form (ZZ must be zero). Nothing at all = no reply, as a built-in
//    that inserts nothing (CM1 then gets DFS2082). A conversational program must write the SPA back as its
//    first segment, same size; blanks in its first 8 bytes (the trancode) end the conversation.
//  - stderr: each line goes to the emulator's console as IMB5045I, bytes below 0x20 and 0x7F as \xNN.
//  - environment: PATH=/usr/bin:/bin and IMS_TRANCODE, IMS_USERID, IMS_GROUP, IMS_LTERM, IMS_TPIPE,
//    IMS_COMMIT_MODE (0|1), IMS_SYNC_LEVEL (NONE|CONFIRM|SYNCPT), IMS_CCSID, IMS_SPA_SIZE (0 if not
//    conversational), IMS_MEMBER (the client's XCF member), IMS_IMSID; nothing else.
//  - exit status 0 = success. Anything else abends the transaction, and the run is backed out as a
//    built-in's abend is: U0456 the program could not be started or ended with a non-zero status or a
//    signal; U0457 its output is malformed or larger than the limit; U0240 it ran past the time limit
//    (IMS's abend for an exceeded processing limit [I]) and its process group was killed.
//  - The program's process group is killed (SIGKILL) when the run ends, whatever it left running; the
//    program gets SIGKILL too when the emulator dies (PR_SET_PDEATHSIG).
//
// The emulator does not run programs in parallel: one run at a time (one message region, engine.hpp); the
// program (program.hpp) runs it on its worker thread, so the run does not block other clients' traffic.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/ims/programs.hpp"
#include "imsb/otma/application_data.hpp"

namespace imsb::imsemu {

// The abend codes of external programs [D].
inline constexpr const char* abend_program_failed = "U0456";
inline constexpr const char* abend_bad_output = "U0457";
inline constexpr const char* abend_time_limit = "U0240";  // [I] IMS: processing limit exceeded

struct external_options {
  std::string program_name;                       // the PSB, for log lines
  std::string member;                             // the client's XCF member (IMS_MEMBER)
  std::string imsid;                              // IMS_IMSID
  std::chrono::milliseconds timeout{30'000};      // [D] default 30 s
  std::size_t max_output = std::size_t{1} << 20;  // [D] stdout beyond this abends U0457
  std::size_t max_log_lines = 100;                // stderr lines logged; the rest are counted
  // Called in the parent right after the fork with the program's process group id, and with 0 just before
  // the group is killed and reaped at the end of the run: between the two, kill(-pgid, SIGKILL) from
  // another thread reaches only this program (after the 0 the id may be reused). Empty: not called.
  std::function<void(int pgid)> on_started;
};

struct external_result {
  // outputs: at most one, the IOPCB reply; spa / end_conversation for conversations; abend when it failed.
  ims::run_result run;
  // Console lines with their IDs (IMB5045I-IMB5051W), in order: stderr, then why it abended.
  std::vector<std::string> log;
};

// Parses a program's stdout: LLZZ segments back to back. Empty input = no segments. Errors
// (std::errc::bad_message, field "output.segment[n].LL|ZZ", offset of the prefix): LL below 4, LL past
// the end of the output, a prefix cut short, ZZ not zero. Never reads past `out`.
result<std::vector<otma::segment>> parse_program_output(bytes_view out);

// The program's stdin for `segments` (the SPA first when there is one); a segment too long for a
// two-byte LL is cut to 65531 data bytes (OTMA input segments are never that long).
bytes program_input_bytes(const std::vector<bytes>& segments);

// Runs `path` for one input message, as described above. Never throws on the program's behaviour.
external_result run_external_program(const std::string& path, const ims::input_message& input,
                                     const external_options& options);

}  // namespace imsb::imsemu
