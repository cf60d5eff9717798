// imsreq: one IMS transaction or command through the bridge; the logic is imsb::bridge::run_imsreq
// (bridge/include/imsb/bridge/imsreq.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "imsb/bridge/imsreq.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::bridge::run_imsreq(args, std::cout, std::cerr);
}
