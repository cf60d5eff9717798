#pragma once
// The IMS emulator's definitions, in IMS's own vocabulary (docs/design/rules.md, configuration
// vocabulary): one text file read at start. Pure parser: text in, definitions or errors out.
//
// Accepted statements, one per line (a statement continues on the next line when it ends with ',' or when
// a non-blank character stands in column 72, as IMS macros do; '*' in column 1 is a comment; blank lines
// are skipped; keywords are case-insensitive, names are upper case):
//
//   IMS GRNAME=XCFGRP1,OTMANM=IMSA,IMSID=IMSA,MAXTP=500,INPUT=5000,HEARTBEAT=60
//                                        the XCF group and member [C: IMS-GRNAME]; MAXTP per
//                                        member; INPUT = the member TIB limit (default 5000, range
//                                        200–9999, 0 = off [C: IMS-FLOOD]); HEARTBEAT seconds of X'3C' [D]
//   APPLCTN PSB=IVTNO,PGMTYPE=TP[,FPATH=YES][,PGM=builtin:IVTNO|external:/path]
//                                        a program (stage-1 [C]); PGM= is ours [D]: what runs it. Without
//                                        PGM=, a PSB named like a built-in (IVTNO IVTCV ECHO SHOWOTMA ALTOUT)
//                                        runs that built-in.
//   TRANSACT CODE=IVTNO,MSGTYPE=(SNGLSEG,RESPONSE,1)[,SPA=(80,)][,INQUIRY=(YES,NORECOV)][,FPATH=YES]
//            [,PROCLIM=(count,seconds)]
//                                        a transaction of the APPLCTN above it (stage-1 [C]): RESPONSE =
//                                        response mode; SPA = conversational with that SPA size;
//                                        INQUIRY=(YES,NORECOV) = not recoverable; FPATH=YES (or the
//                                        APPLCTN's) = Fast Path; PROCLIM's seconds = how long a run of an
//                                        external program may take (the count is accepted, not used)
//   NAME IVTNOLT                         an LTERM (stage-1 [C])
//   CREATE PGM NAME(P) SET(FP(N),RUN(builtin:ECHO))
//   CREATE TRAN NAME(T) SET(PGM(P),RECOVER(Y),RESP(Y),SPASZ(0),FP(N),STATUS(STOPPED),PLCTTIME(3000))
//                                        the dynamic-definition forms (type-2 CREATE [C]); RUN() is ours
//   D ALTDEST TMEMBER=MQXCF1 TPIPE=CSQ1N SYNTP=N
//                                        an OTMA destination descriptor (DFSYDTx 'D' entry [C]): unsolicited
//                                        output to that destination goes to (TMEMBER, TPIPE); SYNTP=Y makes
//                                        the Tpipe synchronized [I]. A trailing '*' in the name is a mask.
//   USER ID=U1,GROUPS=(G1),TRANS=(IVTNO),CMDS=(DIS)     [D] a RACF stand-in: what a user may run
//   GROUP NAME=G1,TRANS=(IVTNO,IVTCV),CMDS=(DIS,STA)    [D]
//   /SECURE OTMA NONE|CHECK|FULL|PROFILE                the IMS command, as a statement [C: IMS-SEC-CHECK]
//   CLIENT MEMBER=(MQ1,CSQ*),USERS=(U1)  [D] the client allow-list (docs/design/otma.md): with any CLIENT
//                                        statement, only matching members (and, with USERS=, only bids
//                                        naming one of those users) may bid; others get NAK X'0005'.
//   STOP TRAN=T                          [D] starts with transaction T stopped (as /STO TRAN after start)
//
// Every name is checked with names::check_tpipe_name-like IMS rules (1–8 of A–Z 0–9 @ $ #, first not a
// digit [C: IMS-NAMES]); duplicates, a TRANSACT before any APPLCTN, a TRAN naming an unknown PGM, a
// transaction and an LTERM of the same name, and unknown keywords are errors naming the line and keyword.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/result.hpp"

namespace imsb::ims {

enum class otma_security : std::uint8_t { none, check, full, profile };
std::string_view to_string(otma_security level) noexcept;

struct program_def {
  std::string name;      // PSB / PGM name
  std::string builtin;   // IVTNO, IVTCV, ECHO, SHOWOTMA, ALTOUT; empty for an external program
  std::string external;  // path of an executable (external programs); empty for a built-in
  bool fast_path = false;
};

struct transaction_def {
  std::string code;
  std::string program;
  bool recoverable = true;
  bool fast_path = false;
  bool conversational = false;
  std::uint32_t spa_size = 0;  // conversational only
  bool response_mode = false;
  bool stopped = false;
  std::uint8_t message_class = 1;
  // PROCLIM=(count,seconds) / PLCTTIME (hundredths, rounded up): how long one run may take, enforced for
  // external programs; 0 = the emulator's default [D].
  std::uint32_t time_limit_seconds = 0;
  std::size_t line = 0;  // where it was defined, for messages
};

struct destination_descriptor {
  std::string name;  // destination name or mask ending in '*'
  std::string tmember;
  std::string tpipe;
  bool synchronized = false;
};

struct user_def {
  std::string id;
  std::vector<std::string> groups;
  std::vector<std::string> transactions;
  std::vector<std::string> commands;  // command verbs: DIS, STA, STO, DEQ, EXIT ...
};

struct group_def {
  std::string name;
  std::vector<std::string> transactions;
  std::vector<std::string> commands;
};

// CLIENT MEMBER=(MQ1,MQ*)[,USERS=(U1)] [D]: the emulator's client allow-list (docs/design/otma.md),
// standing in for RACF's FACILITY profiles IMSXCF.group.member [C: IMS-OTMASE].
struct client_def {
  std::string member;              // an XCF member name, or a mask ending in '*'
  std::vector<std::string> users;  // empty: any user (or none) may bid as this member
};

struct definitions {
  std::string grname;  // XCF group
  std::string otmanm;  // IMS's XCF member name
  std::string imsid = "IMSA";
  std::uint32_t maxtp = 0;         // 0 = no limit
  std::uint32_t tib_limit = 5000;  // INPUT=; 0 = flood control off
  std::uint32_t heartbeat_seconds = 60;
  otma_security security = otma_security::none;
  std::map<std::string, program_def, std::less<>> programs;
  std::map<std::string, transaction_def, std::less<>> transactions;
  std::map<std::string, std::size_t, std::less<>> lterms;  // name → line
  std::vector<destination_descriptor> descriptors;
  std::map<std::string, user_def, std::less<>> users;
  std::map<std::string, group_def, std::less<>> groups;
  std::vector<client_def> clients;  // empty: every member may bid

  const transaction_def* transaction(std::string_view code) const;
  const program_def* program(std::string_view name) const;
  bool is_lterm(std::string_view name) const;
  // The first descriptor whose name (or mask) matches `destination`, or nullptr.
  const destination_descriptor* descriptor_for(std::string_view destination) const;
  // Whether `user` may run transaction `code` / command verb `verb` (through the user or any of its
  // groups). Unknown users may run nothing.
  bool may_run_transaction(std::string_view user, std::string_view code) const;
  bool may_run_command(std::string_view user, std::string_view verb) const;
  // Whether `member` may bid (naming `user`, empty for none): always when no CLIENT statement exists;
  // otherwise the first CLIENT whose member or mask matches decides, and no match refuses.
  bool may_bid(std::string_view member, std::string_view user) const;
};

// Errors: std::errc::invalid_argument, field "definitions.line N", detail naming the statement and keyword
// ("TRANSACT: keyword SPA: '(x,)' is not a size"), offset = byte offset of the line.
result<definitions> parse_definitions(std::string_view text);

// The definitions the emulator runs with when it is given none [D]: IVTNO, IVTCV (SPA 80), ECHO, SHOWOTMA,
// ALTOUT (all CM0-capable, recoverable except as IBM's IVT defines), LTERM IVTNOLT, /SECURE OTMA NONE, and
// the given group and member.
definitions default_definitions(std::string_view grname, std::string_view otmanm);

}  // namespace imsb::ims
