// mqget: a queue-manager daemon command; the logic is imsb::qmgr::mqget
// (qmgr/include/imsb/qmgr/daemon.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "imsb/qmgr/daemon.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::qmgr::mqget(args, std::cout, std::cerr);
}
