#pragma once
// A connection to a running emulator's command socket (program::listen_commands): command lines out, each
// answer's lines back up to the end marker, an empty line. `imsemu --command` and the tests use it.

#include <chrono>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "imsb/core/result.hpp"

namespace imsb::imsemu {

using done = std::monostate;  // as journal.hpp

class command_client {
 public:
  // Errors: std::errc::filename_too_long (the path does not fit a Unix socket address), else the errno of
  // socket() or connect(), field "command socket".
  static result<command_client> connect(const std::string& path);
  command_client(command_client&& other) noexcept;
  command_client& operator=(command_client&& other) noexcept;
  command_client(const command_client&) = delete;
  command_client& operator=(const command_client&) = delete;
  ~command_client();

  // Sends `text` as it is: a command is a line ending in '\n', and several may go at once.
  result<done> send(std::string_view text);
  // The lines of the next answer. Errors: std::errc::timed_out when the end marker did not come within
  // `timeout`; std::errc::connection_reset when the emulator closed the connection first.
  result<std::vector<std::string>> answer(std::chrono::milliseconds timeout);

 private:
  explicit command_client(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::string pending_;  // received, not yet returned
};

}  // namespace imsb::imsemu
