// dltmqm: a queue-manager control command; the logic is imsb::qmgr::dltmqm
// (qmgr/include/imsb/qmgr/control.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "imsb/qmgr/control.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::qmgr::dltmqm(args, std::cout, std::cerr);
}
