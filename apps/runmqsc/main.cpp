// runmqsc: a queue-manager control command; the logic is imsb::qmgr::runmqsc
// (qmgr/include/imsb/qmgr/control.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "imsb/qmgr/control.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::qmgr::runmqsc(args, std::cin, std::cout, std::cerr);
}
