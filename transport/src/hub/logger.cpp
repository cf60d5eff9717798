#include "logger.hpp"

#include <iostream>

namespace imsb::transport {

bool parse_log_level(std::string_view text, log_level& out) {
  if (text == "error") {
    out = log_level::error;
  } else if (text == "warning") {
    out = log_level::warning;
  } else if (text == "info") {
    out = log_level::info;
  } else if (text == "debug") {
    out = log_level::debug;
  } else {
    return false;
  }
  return true;
}

namespace hub_detail {

void logger::write(log_level level, std::string_view id, std::string_view text) const {
  if (!enabled(level)) return;
  std::string line;
  line.reserve(id.size() + 1 + text.size());
  line.append(id);
  line += ' ';
  line.append(text);
  if (sink_) {
    sink_(level, line);
  } else {
    std::cerr << line << std::endl;
  }
}

}  // namespace hub_detail
}  // namespace imsb::transport
