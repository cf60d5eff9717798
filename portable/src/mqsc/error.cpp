#include "imsb/mqsc/error.hpp"

namespace imsb::mqsc {
namespace {

class mqsc_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mqsc"; }
  std::string message(int value) const override {
    switch (static_cast<error_kind>(value)) {
      case error_kind::unknown_verb:
        return "unknown MQSC verb";
      case error_kind::missing_object_type:
        return "object type missing after the verb";
      case error_kind::unknown_object_type:
        return "unknown MQSC object type";
      case error_kind::invalid_object_type:
        return "verb does not apply to this object type";
      case error_kind::missing_name:
        return "object name missing";
      case error_kind::unexpected_name:
        return "object type takes no name";
      case error_kind::missing_parenthesis:
        return "closing parenthesis missing";
      case error_kind::unterminated_quote:
        return "quoted string not terminated";
      case error_kind::repeated_keyword:
        return "keyword repeated";
      case error_kind::unexpected_token:
        return "unexpected token";
      case error_kind::empty_value:
        return "empty value in parentheses";
      case error_kind::invalid_where:
        return "WHERE filter not of the form WHERE(attribute operator value)";
    }
    return "unknown MQSC error";
  }
};

}  // namespace

const std::error_category& mqsc_category() noexcept {
  static const mqsc_error_category category;
  return category;
}

std::error_code make_error_code(error_kind kind) noexcept {
  return {static_cast<int>(kind), mqsc_category()};
}

const char* error_kind_name(error_kind kind) noexcept {
  switch (kind) {
    case error_kind::unknown_verb:
      return "unknown_verb";
    case error_kind::missing_object_type:
      return "missing_object_type";
    case error_kind::unknown_object_type:
      return "unknown_object_type";
    case error_kind::invalid_object_type:
      return "invalid_object_type";
    case error_kind::missing_name:
      return "missing_name";
    case error_kind::unexpected_name:
      return "unexpected_name";
    case error_kind::missing_parenthesis:
      return "missing_parenthesis";
    case error_kind::unterminated_quote:
      return "unterminated_quote";
    case error_kind::repeated_keyword:
      return "repeated_keyword";
    case error_kind::unexpected_token:
      return "unexpected_token";
    case error_kind::empty_value:
      return "empty_value";
    case error_kind::invalid_where:
      return "invalid_where";
  }
  return "unknown";
}

std::string parse_error::message() const {
  std::string m = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
  if (!verb.empty()) {
    m += verb;
    if (!object_type.empty()) m += " " + object_type;
    m += ": ";
  }
  if (!keyword.empty()) m += "keyword " + keyword + ": ";
  m += "expected " + expected + " but found " + found;
  return m;
}

}  // namespace imsb::mqsc
