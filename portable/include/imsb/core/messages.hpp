#pragma once
// Message IDs from the one registry, messages.def (docs/design/rules.md).

#include <string_view>
#include <vector>

namespace imsb {

struct message_def {
  std::string_view id;      // IMBnnnnS
  std::string_view text;    // the short text printed after the ID
  std::string_view action;  // explanation and what to do (docs/messages.md)
};

const std::vector<message_def>& message_registry();
const message_def* find_message(std::string_view id);

namespace msg {
#define IMB_MESSAGE(id, text, action) inline constexpr std::string_view id = #id;
#include "imsb/core/messages.def"
#undef IMB_MESSAGE
}  // namespace msg

}  // namespace imsb
