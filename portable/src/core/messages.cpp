#include "imsb/core/messages.hpp"

namespace imsb {

const std::vector<message_def>& message_registry() {
  static const std::vector<message_def> registry = {
#define IMB_MESSAGE(id, text, action) {#id, text, action},
#include "imsb/core/messages.def"
#undef IMB_MESSAGE
  };
  return registry;
}

const message_def* find_message(std::string_view id) {
  for (const auto& m : message_registry())
    if (m.id == id) return &m;
  return nullptr;
}

}  // namespace imsb
