#pragma once
// Name rules of the objects the bridge names or is named by: MQ objects and queue managers
// [C: NAMING-V6, NAMING-OTHER, STGCLASS], XCF groups and members [C: XCF-NAMES2] and OTMA Tpipes
// [C: IMS-NAMES].
//
// Every check takes the name's value, without the blank padding of its fixed-length field (callers
// holding an MQCHARn or an OTMA name field pass codepage::field_value(raw) first), and answers
// std::nullopt when the name is valid, or the first rule it breaks: a fault to branch on, the
// offending character's position and a sentence for the operator that cites the rule's source.
// A blank anywhere in the value is an error: these names have no leading or embedded blanks.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace imsb::names {

enum class name_fault : std::uint8_t {
  empty,            // no characters
  too_long,         // more characters than the name's field holds
  blank,            // a leading or embedded blank
  lowercase,        // a lowercase letter where only upper case is allowed
  bad_character,    // a character outside the name's character set
  first_character,  // the first character breaks a rule of its own (e.g. must be A–Z)
  reserved_prefix,  // starts with a prefix kept for IBM or IMS (SYSTEM., DFS, DBCDM, SYS)
  reserved_word,    // an IMS reserved word or command keyword
};
std::string_view to_string(name_fault fault) noexcept;

struct name_problem {
  name_fault fault = name_fault::empty;
  std::size_t position = 0;  // offending character; for too_long the first one past the limit
  // "queue name 'A B': blank at position 1; ... (IBM MQ naming rules [C: NAMING-V6])"
  std::string reason;
};
using name_check = std::optional<name_problem>;  // std::nullopt: the name is valid

// --- MQ object names [C: NAMING-V6, NAMING-OTHER] ------------------------------------------------

enum class mq_object_type : std::uint8_t {
  queue,
  process,
  namelist,
  queue_manager,
  cluster,
  listener,
  service,
  authinfo,
  topic,
  channel,
  storage_class,
  cf_structure,
};
std::string_view to_string(mq_object_type type) noexcept;  // "queue", "storage class", ...
// 48, or 20 for channels, 8 for storage classes, 12 for CF structures [C: NAMING-V6].
std::size_t max_name_length(mq_object_type type) noexcept;

// A–Z a–z 0–9 . / _ % [C: NAMING-V6].
bool is_mq_name_char(char c) noexcept;

// The general MQ name rule: 1..max_length characters of the MQ set, no blanks, case sensitive.
// `what` names the object in the reason ("queue name").
name_check check_mq_name(std::string_view name, std::size_t max_length, std::string_view what);

// The rule of one object type: check_mq_name with the type's length, except
//  - storage class: 1–8, first A–Z, rest A–Z 0–9 [C: STGCLASS];
//  - CF structure: 1–12, first A–Z, rest A–Z 0–9 (length [C: NAMING-V6]; characters from
//    DEFINE CFSTRUCT [I]);
//  - queue manager: check_queue_manager_name(name, qmgr_platform::distributed).
name_check check_mq_object_name(std::string_view name, mq_object_type type);

enum class qmgr_platform : std::uint8_t { distributed, zos };
// distributed: the MQ rule with 48 characters [C: NAMING-V6].
// zos: 1–4 characters [C: NAMING-V6]; the name is the MVS subsystem name, so first A–Z and
// the rest A–Z 0–9 [I] (subsystem names are upper case; their national characters are not MQ ones).
name_check check_queue_manager_name(std::string_view name, qmgr_platform platform);

// Names that start with "SYSTEM." are reserved for objects the queue manager defines [C: NAMING-OTHER]. Case
// sensitive, as MQ names are: "system.q" is a user name. Kept apart from the syntax checks because the queue
// manager itself defines SYSTEM.* objects.
name_check check_no_system_prefix(std::string_view name);

// --- XCF and OTMA names -----------------------------------------------------------------------

enum class xcf_rules : std::uint8_t {
  // XCF alone [C: XCF-NAMES2]: A–Z 0–9 $ # @, group 1–8, member 1–16.
  xcf,
  // What the bridge and the emulator accept [D] (docs/design/otma.md): the intersection with the OTMA
  // naming rules [C: IMS-NAMES] — A–Z 0–9 @ $ (no #), first character not a digit, no DFS or DBCDM
  // prefix; group names do not start with SYS; member names (OTMA client names) are not IMS
  // reserved words [C: IMS-NAMES].
  bridge,
};
name_check check_xcf_group_name(std::string_view name, xcf_rules rules);
name_check check_xcf_member_name(std::string_view name, xcf_rules rules);

// OTMA Tpipe names [C: IMS-NAMES, OTMA-NAMING]: 1–8 characters of type A (A–Z 0–9 @ $), begins non-blank, no
// embedded blanks, not starting with DFS or DBCDM, not a reserved word or IMS keyword, not WTOR. IMS does no
// uppercase translation, so lowercase is an error of its own (IMS NAKs it). Not checked here, because they
// need IMS's tables: a Tpipe name must not equal a transaction name or the MTO / secondary MTO LTERM names
// [C: IMS-NAMES].
name_check check_tpipe_name(std::string_view name);

// IMS reserved words and command keywords an OTMA name must not be: TO, SECURITY, LINE and NODE are IBM's
// examples [C: IMS-NAMES]; the rest are IMS command keywords recalled from the IMS command reference [R].
// Sorted (std::string_view order): is_ims_reserved_word binary-searches it, and a test holds it to that.
inline constexpr std::string_view ims_reserved_words[] = {
    "ACTIVE",   "ALL",    "AREA",       "AUTOLOGON",   "BACKUP",   "CLASS",    "CONVERSATION", "CPLOG",
    "DATABASE", "DB",     "DESCRIPTOR", "FORCE",       "GLOBAL",   "INPUT",    "LINE",         "LINK",
    "LTERM",    "LU",     "MASTER",     "MODE",        "MSG",      "MSNAME",   "NODE",         "NOSHUT",
    "OLDS",     "OTMA",   "OUTPUT",     "PASSWORD",    "PGM",      "PRIORITY", "PROGRAM",      "PSB",
    "PTERM",    "PURGE",  "QCNT",       "QUEUE",       "REGION",   "RESET",    "SB",           "SECURITY",
    "SHUTDOWN", "STATUS", "SUBSYS",     "SYSID",       "TERMINAL", "TIMEOUT",  "TMEMBER",      "TO",
    "TPIPE",    "TRACE",  "TRAN",       "TRANSACTION", "USER",     "VTAMPOOL", "WADS",
};

// Whether `name` is one of ims_reserved_words. Exact, upper-case comparison (lowercase fails the
// character rule first).
bool is_ims_reserved_word(std::string_view name) noexcept;

}  // namespace imsb::names
