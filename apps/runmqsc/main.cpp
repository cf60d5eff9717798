// runmqsc: a queue-manager control command; the logic is imsb::qmgr::runmqsc
// (qmgr/include/imsb/qmgr/control.hpp).
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "imsb/qmgr/control.hpp"

int main(int argc, char** argv) {
  // runmqsc QM < script | head: a closed output pipe must not kill runmqsc before it saves what it
  // applied; the write fails instead and runmqsc goes on without showing results.
  std::signal(SIGPIPE, SIG_IGN);
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::qmgr::runmqsc(args, STDIN_FILENO, std::cout, std::cerr);
}
