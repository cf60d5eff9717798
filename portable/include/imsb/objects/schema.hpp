#pragma once
// The attribute tables of the MQSC object types: for each keyword its canonical name and synonym, the kind of
// value it takes, its range or words, and its default ([C: STGCLASS, DISPLAY-QUEUE, MQSC-RULES]; IBM's MQSC
// command reference for the rest [I]). mqsc_exec.cpp validates commands against these tables,
// new_queue_manager takes the default objects' values from them, and DISPLAY lists them.
//
// Values are held in object_record::attrs in canonical text (object.hpp): integers in decimal, keyword
// values upper case, strings and names as given with trailing blanks dropped (blank = ""). A flag pair
// (SHARE/NOSHARE) is held under its positive keyword with the word in force as value ("SHARE" or
// "NOSHARE"), which is also how DISPLAY shows it [D]. Name lists are held in object_record::lists.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/mqsc/command.hpp"
#include "imsb/names/name_rules.hpp"
#include "imsb/objects/object.hpp"

namespace imsb::objects {

enum class attr_kind : std::uint8_t {
  integer,     // decimal in [min, max]
  keyword,     // one of `words`
  string,      // at most `max` characters, any characters
  name,        // an MQ object name of `name_type`, or blank
  name_list,   // up to `max` MQ names (NAMES)
  flag,        // bare keyword pair: `keyword` / `off_word` (SHARE / NOSHARE)
  xcf_group,   // XCF group name ([C: STGCLASS], names::xcf_rules::xcf), or blank
  xcf_member,  // XCF member name ([C: STGCLASS], names::xcf_rules::xcf), or blank
};

// CHLTYPE bits: which channel types an attribute applies to (0 in a non-channel table).
enum chltype_bit : std::uint8_t { chl_sdr = 1, chl_rcvr = 2, chl_svrconn = 4, chl_all = 7 };

struct attr_spec {
  std::string_view keyword;  // canonical: TARGET
  std::string_view synonym;  // another spelling IBM accepts (TARGQ), or ""
  attr_kind kind = attr_kind::string;
  std::int64_t min = 0;    // integer: lowest value
  std::int64_t max = 0;    // integer: highest value; string: length; name_list: element count
  std::string_view words;  // keyword: the allowed words, blank separated
  std::string_view default_value;
  names::mq_object_type name_type = names::mq_object_type::queue;  // kind name / name_list
  std::string_view off_word;                                       // flag: the negative spelling (NOSHARE)
  bool read_only = false;          // shown by DISPLAY, never set by DEFINE/ALTER (CRDATE, CMDLEVEL ...)
  std::uint8_t channel_types = 0;  // CHANNEL only: chltype_bit mask
  // Values IBM has but imsbridge does not implement: blank-separated words ("*" = any non-blank value),
  // and why. A command that uses one is reported as not supported, never as wrong.
  std::string_view out_of_scope_words;
  std::string_view out_of_scope_reason;
};

// The keyword attributes of an object type, in alphabetical order of keyword. QMGR included.
const std::vector<attr_spec>& schema_of(object_type type);

// The attribute of a type for a keyword or its synonym (canonical upper case), or nullptr.
const attr_spec* find_attr(object_type type, std::string_view keyword);

// Whether an attribute exists for a channel of this CHLTYPE ("SDR", "RCVR", "SVRCONN").
bool applies_to_chltype(const attr_spec& spec, std::string_view chltype) noexcept;
// chltype_bit of a CHLTYPE word, 0 for any other word.
std::uint8_t chltype_bit_of(std::string_view chltype) noexcept;

// The keyword DISPLAY shows an object's name under: QUEUE for the four queue types, STGCLASS, NAMELIST,
// PROCESS, CHANNEL, LISTENER, QMNAME.
std::string_view name_keyword(object_type type) noexcept;

// The MQ name rule an object type's own name follows (queue, storage class, channel ...).
names::mq_object_type name_rule_of(object_type type) noexcept;

// The default object DEFINE copies from when no LIKE is given (IBM's SYSTEM.DEFAULT.LOCAL.QUEUE ...):
// for CHANNEL it depends on CHLTYPE (SYSTEM.DEF.SENDER ...). "" when the type has none.
std::string_view default_object_name(object_type type, std::string_view chltype = {}) noexcept;

// A record of that type and name holding every attribute's schema default (for CHANNEL, those of the
// given CHLTYPE). Read-only dates are left blank.
object_record schema_defaults(object_type type, std::string_view name, std::string_view chltype = {});

// Why a value is wrong for an attribute ("is not an integer from 0 to 999999999"), phrased to follow
// "value 'X' ".
struct value_problem {
  bool out_of_scope = false;  // the value is IBM's but not implemented: report as not supported
  std::string reason;
};

// A scalar value checked against its attribute and put in canonical text. Not for name_list or flag.
struct checked_value {
  std::optional<std::string> text;  // set when valid
  value_problem problem;            // set otherwise
};
checked_value check_value(const attr_spec& spec, const mqsc::mqsc_value& value);

// The elements of a name list checked: each an MQ name of the attribute's type, at most spec.max.
struct checked_list {
  std::optional<std::vector<std::string>> names;
  value_problem problem;
};
checked_list check_list(const attr_spec& spec, const std::vector<mqsc::mqsc_value>& values);

// Authorities SET AUTHREC accepts in AUTHADD / AUTHRMV (IBM's setmqaut words [I]).
bool is_authority_word(std::string_view word) noexcept;
// An AUTHADD/AUTHRMV word for an OBJTYPE: `applies` false when the authority does not apply to that type
// (BROWSE on QMGR) or the OBJTYPE is unknown; `words` the individual authorities it stands for (ALL,
// ALLADM and ALLMQI expanded to those of the type, sorted; NONE gives none).
struct authority_expansion {
  bool applies = false;
  std::vector<std::string> words;
};
authority_expansion expand_authority(std::string_view objtype, std::string_view word);

// Whether an OAM generic profile covers a name [I] IBM "Using OAM generic profiles": '?' any one
// character, '*' any characters within one qualifier (between dots), a '**' qualifier any number of
// qualifiers (none included); otherwise characters compare exactly. A profile equal to the name matches.
bool generic_profile_matches(std::string_view profile, std::string_view name);

// OBJTYPE values of SET/DELETE/DISPLAY AUTHREC [I].
bool is_authrec_objtype(std::string_view word) noexcept;

// Value text without its trailing blanks (MQ names and strings are blank padded [C: NAMING-V6]).
std::string trim_trailing_blanks(std::string_view text);

}  // namespace imsb::objects
