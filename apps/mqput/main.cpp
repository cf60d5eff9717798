// mqput: a queue-manager daemon command; the logic is imsb::qmgr::mqput
// (qmgr/include/imsb/qmgr/daemon.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "imsb/qmgr/daemon.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::qmgr::mqput(args, std::cin, std::cout, std::cerr);
}
