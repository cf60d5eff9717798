#pragma once
// The words of MQSC: verbs, object types and their synonyms, which verb applies to which object type,
// and the one table of the (verb, object type) pairs that imsbridge implements.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace imsb::mqsc {

// Canonical verb for a word already folded to upper case: DEF → DEFINE, DIS → DISPLAY ...; nullopt for
// anything else. Synonyms are fixed words, not minimum strings: DEFI is no verb [C] MQSC rules.
std::optional<std::string_view> canonical_verb(std::string_view word) noexcept;

// Canonical object type: QL → QLOCAL, CHL → CHANNEL, Q → QUEUE ...; nullopt for an unknown word.
std::optional<std::string_view> canonical_object_type(std::string_view word) noexcept;

// Whether MQSC has the command `verb object_type` at all (both canonical). CLEAR CHANNEL has not.
bool verb_applies(std::string_view verb, std::string_view object_type) noexcept;

// All canonical verbs, in alphabetical order (for messages and tests).
const std::vector<std::string_view>& verbs();
// All canonical object types and their synonyms as (synonym, canonical) pairs, canonical words included.
const std::vector<std::pair<std::string_view, std::string_view>>& object_type_words();

enum class name_rule {
  required,  // DEFINE QLOCAL(name)
  none,      // ALTER QMGR, SET AUTHREC: no name in parentheses
  optional,  // START/STOP LISTENER (z/OS names none), and every command we do not implement, whose
             // syntax is checked only in general
};

struct supported_command {
  std::string_view verb;         // canonical
  std::string_view object_type;  // canonical; empty for END
  name_rule name;
};

// The commands imsbridge implements [D]; every other MQSC command parses and is reported as not
// supported, never as a syntax error.
const std::vector<supported_command>& supported_commands();

// The entry for (verb, object_type), or nullptr when imsbridge does not implement it.
const supported_command* find_supported(std::string_view verb, std::string_view object_type) noexcept;

// Why a command is not supported, e.g. "DEFINE TOPIC is not implemented by imsbridge:
// publish/subscribe is out of scope".
std::string unsupported_reason(std::string_view verb, std::string_view object_type);

}  // namespace imsb::mqsc
