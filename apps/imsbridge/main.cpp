// imsbridge: the MQ-IMS bridge. All logic is in imsb_bridge (imsb/bridge/program.hpp) and its
// platform in imsb_imsbridge (qmgr::connect, the credential store).

#include <signal.h>

#include <iostream>

#include "imsb/bridge/program.hpp"

int main(int argc, char** argv) {
  // A peer that goes away (a client of the queue manager's listener, a closed standard output) is an
  // error on that write, not the end of the bridge.
  ::signal(SIGPIPE, SIG_IGN);
  return imsb::bridge::run_imsbridge(argc, argv, std::cin, std::cout, std::cerr);
}
