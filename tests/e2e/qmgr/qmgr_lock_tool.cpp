// Holds a queue manager's lock the way a running queue manager (or a runmqsc editing it) does, so the
// e2e tests can see crtmqm's siblings refused: qmgr_lock_tool PREFIX QM. Prints "locked" once it holds
// the lock, then sleeps until it is killed (the tests stop it; PR_SET_PDEATHSIG covers a crashed test).
// Exit 1 when the queue manager cannot be opened, 2 when the lock is busy.

#include <chrono>
#include <iostream>
#include <thread>

#include "imsb/qmgr/store.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: qmgr_lock_tool PREFIX QM\n";
    return 1;
  }
  auto store = imsb::qmgr::queue_manager_store::open(argv[1], argv[2]);
  if (!store) {
    std::cerr << store.error().to_string() << '\n';
    return 1;
  }
  auto lock = store->try_lock();
  if (!lock) {
    std::cerr << lock.error().to_string() << '\n';
    return 2;
  }
  std::cout << "locked" << std::endl;
  std::this_thread::sleep_for(std::chrono::seconds(120));
  return 0;
}
