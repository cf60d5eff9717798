// imsbench: a load generator for the MQ-IMS bridge; the logic is imsb::imsbench
// (apps/imsbench/include/imsb/imsbench/imsbench.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "imsb/imsbench/imsbench.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return imsb::imsbench::run(args, std::cout, std::cerr);
}
