#pragma once
// Console lines of the hub: a message ID, then the text (docs/design/style.md "Small things").

#include <string>
#include <string_view>
#include <utility>

#include "imsb/transport/hub.hpp"

namespace imsb::transport::hub_detail {

class logger {
 public:
  logger(log_level level, log_sink sink) : level_(level), sink_(std::move(sink)) {}
  bool enabled(log_level level) const noexcept { return level <= level_; }
  void write(log_level level, std::string_view id, std::string_view text) const;

 private:
  log_level level_;
  log_sink sink_;
};

}  // namespace imsb::transport::hub_detail
