#include "imsb/mqsc/command.hpp"

namespace imsb::mqsc {

const parameter* command::find(std::string_view keyword) const noexcept {
  for (const parameter& p : parameters)
    if (p.keyword == keyword) return &p;
  return nullptr;
}

bool operator==(const mqsc_value& a, const mqsc_value& b) noexcept {
  return a.quoted == b.quoted && a.text == b.text;
}
bool operator!=(const mqsc_value& a, const mqsc_value& b) noexcept { return !(a == b); }

bool operator==(const parameter& a, const parameter& b) noexcept {
  return a.keyword == b.keyword && a.has_parens == b.has_parens && a.values == b.values;
}
bool operator!=(const parameter& a, const parameter& b) noexcept { return !(a == b); }

bool operator==(const command& a, const command& b) noexcept {
  return a.verb == b.verb && a.object_type == b.object_type && a.name == b.name &&
         a.parameters == b.parameters && a.supported == b.supported &&
         a.unsupported_reason == b.unsupported_reason;
}
bool operator!=(const command& a, const command& b) noexcept { return !(a == b); }

}  // namespace imsb::mqsc
