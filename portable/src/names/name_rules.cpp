#include "imsb/names/name_rules.hpp"

#include <algorithm>
#include <iterator>

#include "show_char.hpp"

namespace imsb::names {

namespace {

bool is_upper(char c) noexcept { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_upper_alnum(char c) noexcept { return is_upper(c) || is_digit(c); }
// XCF: A–Z 0–9 and the national characters $ # @ [C: XCF-NAMES2].
bool is_xcf_char(char c) noexcept { return is_upper_alnum(c) || c == '$' || c == '#' || c == '@'; }
// OTMA character type A: A–Z 0–9 @ $; '#' is not listed [C: IMS-NAMES].
bool is_otma_char(char c) noexcept { return is_upper_alnum(c) || c == '$' || c == '@'; }

using detail::show_char;

// The name as it can be shown in a reason: non-printable bytes as '?', long names cut.
std::string show_name(std::string_view name) {
  constexpr std::size_t shown = 64;
  std::string s;
  for (std::size_t i = 0; i < name.size() && i < shown; ++i) {
    const auto u = static_cast<unsigned char>(name[i]);
    s.push_back(u >= 0x20 && u < 0x7F ? name[i] : '?');
  }
  if (name.size() > shown) s += "...";
  return s;
}

struct charset_rule {
  std::string_view what;   // "queue name"
  std::size_t max_length;  // of the name's field
  bool (*allowed)(char) noexcept;
  std::string_view charset_text;   // for the reason: "A-Z a-z 0-9 . / _ %"
  std::string_view source;         // "IBM MQ naming rules [C: NAMING-V6]"
  bool upper_case_only;            // report a lowercase letter as name_fault::lowercase
  std::string_view lowercase_why;  // the sentence that explains it
};

name_problem make_problem(const charset_rule& rule, std::string_view name, name_fault fault,
                          std::size_t position, const std::string& detail) {
  return name_problem{fault, position,
                      std::string(rule.what) + " '" + show_name(name) + "': " + detail + " (" +
                          std::string(rule.source) + ")"};
}

// Length, blanks and character set: the part every name rule here shares.
name_check check_charset(std::string_view name, const charset_rule& rule) {
  if (name.empty()) {
    return make_problem(rule, name, name_fault::empty, 0,
                        "empty; 1 to " + std::to_string(rule.max_length) + " characters are required");
  }
  if (name.size() > rule.max_length) {
    return make_problem(rule, name, name_fault::too_long, rule.max_length,
                        std::to_string(name.size()) + " characters; at most " +
                            std::to_string(rule.max_length) + " are allowed");
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == ' ') {
      return make_problem(rule, name, name_fault::blank, i,
                          std::string(i == 0 ? "begins with a blank" : "embedded blank at position ") +
                              (i == 0 ? std::string() : std::to_string(i)) +
                              "; names have no leading or embedded blanks");
    }
    if (rule.upper_case_only && is_lower(c)) {
      return make_problem(rule, name, name_fault::lowercase, i,
                          "lowercase " + show_char(c) + " at position " + std::to_string(i) + "; " +
                              std::string(rule.lowercase_why));
    }
    if (!rule.allowed(c)) {
      return make_problem(rule, name, name_fault::bad_character, i,
                          show_char(c) + " at position " + std::to_string(i) + " is not one of " +
                              std::string(rule.charset_text));
    }
  }
  return std::nullopt;
}

name_check check_first_upper(std::string_view name, const charset_rule& rule) {
  if (!is_upper(name[0])) {
    return make_problem(rule, name, name_fault::first_character, 0,
                        "first character " + show_char(name[0]) + " must be A-Z");
  }
  return std::nullopt;
}

name_check check_prefix(std::string_view name, const charset_rule& rule, std::string_view prefix,
                        std::string_view why) {
  if (name.substr(0, prefix.size()) == prefix) {
    return make_problem(rule, name, name_fault::reserved_prefix, 0,
                        "begins with " + std::string(prefix) + "; " + std::string(why));
  }
  return std::nullopt;
}

name_check check_reserved_word(std::string_view name, const charset_rule& rule) {
  if (is_ims_reserved_word(name)) {
    return make_problem(rule, name, name_fault::reserved_word, 0,
                        "is an IMS reserved word or command keyword");
  }
  return std::nullopt;
}

constexpr std::string_view upper_alnum_text = "A-Z 0-9";
constexpr std::string_view xcf_text = "A-Z 0-9 $ # @";
constexpr std::string_view otma_text = "A-Z 0-9 @ $ (OTMA character type A; # is not allowed)";
constexpr std::string_view xcf_lowercase_why = "XCF names are upper case";
constexpr std::string_view otma_lowercase_why = "IMS does no uppercase translation and NAKs lowercase names";

// The OTMA-intersection rules shared by XCF names under xcf_rules::bridge and by Tpipe names.
name_check check_otma_prefixes(std::string_view name, const charset_rule& rule) {
  if (auto p = check_prefix(name, rule, "DFS", "OTMA names must not begin with DFS")) return p;
  return check_prefix(name, rule, "DBCDM", "OTMA names must not begin with DBCDM");
}

name_check check_xcf_name(std::string_view name, xcf_rules rules, bool group) {
  const std::size_t max_length = group ? 8 : 16;  // [C: XCF-NAMES2]
  const std::string_view what = group ? "XCF group name" : "XCF member name";
  if (rules == xcf_rules::xcf) {
    const charset_rule rule{what, max_length,       is_xcf_char, xcf_text, "XCF naming rules [C: XCF-NAMES2]",
                            true, xcf_lowercase_why};
    return check_charset(name, rule);
  }
  const charset_rule rule{what,
                          max_length,
                          is_otma_char,
                          otma_text,
                          "XCF and OTMA rules together [D]; OTMA's [C: IMS-NAMES]",
                          true,
                          otma_lowercase_why};
  if (auto p = check_charset(name, rule)) return p;
  if (is_digit(name[0])) {
    return make_problem(rule, name, name_fault::first_character, 0,
                        "first character " + show_char(name[0]) + " must not be a digit");
  }
  if (auto p = check_otma_prefixes(name, rule)) return p;
  if (group) {
    return check_prefix(name, rule, "SYS", "XCF group names starting with SYS are IBM's");
  }
  return check_reserved_word(name, rule);  // the member is an OTMA client name [C: IMS-NAMES]
}

}  // namespace

std::string_view to_string(name_fault fault) noexcept {
  switch (fault) {
    case name_fault::empty:
      return "empty";
    case name_fault::too_long:
      return "too_long";
    case name_fault::blank:
      return "blank";
    case name_fault::lowercase:
      return "lowercase";
    case name_fault::bad_character:
      return "bad_character";
    case name_fault::first_character:
      return "first_character";
    case name_fault::reserved_prefix:
      return "reserved_prefix";
    case name_fault::reserved_word:
      return "reserved_word";
  }
  return "unknown";
}

std::string_view to_string(mq_object_type type) noexcept {
  switch (type) {
    case mq_object_type::queue:
      return "queue";
    case mq_object_type::process:
      return "process";
    case mq_object_type::namelist:
      return "namelist";
    case mq_object_type::queue_manager:
      return "queue manager";
    case mq_object_type::cluster:
      return "cluster";
    case mq_object_type::listener:
      return "listener";
    case mq_object_type::service:
      return "service";
    case mq_object_type::authinfo:
      return "authinfo";
    case mq_object_type::topic:
      return "topic";
    case mq_object_type::channel:
      return "channel";
    case mq_object_type::storage_class:
      return "storage class";
    case mq_object_type::cf_structure:
      return "CF structure";
  }
  return "object";
}

std::size_t max_name_length(mq_object_type type) noexcept {
  switch (type) {
    case mq_object_type::channel:
      return 20;
    case mq_object_type::storage_class:
      return 8;
    case mq_object_type::cf_structure:
      return 12;
    default:
      return 48;
  }
}

bool is_mq_name_char(char c) noexcept {
  return is_upper(c) || is_lower(c) || is_digit(c) || c == '.' || c == '/' || c == '_' || c == '%';
}

name_check check_mq_name(std::string_view name, std::size_t max_length, std::string_view what) {
  const charset_rule rule{
      what,  max_length, is_mq_name_char, "A-Z a-z 0-9 . / _ %", "IBM MQ naming rules [C: NAMING-V6]",
      false, {}};
  return check_charset(name, rule);
}

name_check check_mq_object_name(std::string_view name, mq_object_type type) {
  const std::string what = std::string(to_string(type)) + " name";
  switch (type) {
    case mq_object_type::queue_manager:
      return check_queue_manager_name(name, qmgr_platform::distributed);
    case mq_object_type::storage_class: {
      const charset_rule rule{what,  8, is_upper_alnum, upper_alnum_text, "DEFINE STGCLASS [C: STGCLASS]",
                              false, {}};
      if (auto p = check_charset(name, rule)) return p;
      return check_first_upper(name, rule);
    }
    case mq_object_type::cf_structure: {
      const charset_rule rule{what,
                              12,
                              is_upper_alnum,
                              upper_alnum_text,
                              "IBM MQ naming rules [C: NAMING-V6] length; DEFINE CFSTRUCT characters [I]",
                              false,
                              {}};
      if (auto p = check_charset(name, rule)) return p;
      return check_first_upper(name, rule);
    }
    default:
      return check_mq_name(name, max_name_length(type), what);
  }
}

name_check check_queue_manager_name(std::string_view name, qmgr_platform platform) {
  if (platform == qmgr_platform::distributed) return check_mq_name(name, 48, "queue-manager name");
  const charset_rule rule{"z/OS queue-manager name",
                          4,
                          is_upper_alnum,
                          upper_alnum_text,
                          "IBM MQ naming rules [C: NAMING-V6] length; subsystem-name characters [I]",
                          false,
                          {}};
  if (auto p = check_charset(name, rule)) return p;
  return check_first_upper(name, rule);
}

name_check check_no_system_prefix(std::string_view name) {
  const charset_rule rule{"object name", 48, is_mq_name_char, {}, "IBM MQ naming rules [C: NAMING-OTHER]",
                          false,         {}};
  return check_prefix(name, rule, "SYSTEM.", "SYSTEM.* names are reserved for queue-manager objects");
}

name_check check_xcf_group_name(std::string_view name, xcf_rules rules) {
  return check_xcf_name(name, rules, true);
}

name_check check_xcf_member_name(std::string_view name, xcf_rules rules) {
  return check_xcf_name(name, rules, false);
}

name_check check_tpipe_name(std::string_view name) {
  const charset_rule rule{
      "Tpipe name", 8, is_otma_char, otma_text, "OTMA naming rules [C: IMS-NAMES]", true, otma_lowercase_why};
  if (auto p = check_charset(name, rule)) return p;
  if (auto p = check_otma_prefixes(name, rule)) return p;
  if (auto p = check_reserved_word(name, rule)) return p;
  if (name == "WTOR") {
    return make_problem(rule, name, name_fault::reserved_word, 0,
                        "is the z/OS system console's name; a Tpipe must not be named after it");
  }
  return std::nullopt;
}

bool is_ims_reserved_word(std::string_view name) noexcept {
  return std::binary_search(std::begin(ims_reserved_words), std::end(ims_reserved_words), name);
}

}  // namespace imsb::names
