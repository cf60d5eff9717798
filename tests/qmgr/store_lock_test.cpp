// The queue manager's lock: flock on <QM dir>/qmgr.lock, held in this process and by a forked child.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "imsb/qmgr/store.hpp"
#include "store_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

using names::fs_profile;

TEST_F(store_test, TryLockHoldsTheLockUntilReleased) {
  auto store = create(make_catalog("QM1", fs_profile::posix));
  EXPECT_FALSE(store.locked_by_other());
  {
    auto lock = store.try_lock();
    ASSERT_TRUE(lock.ok()) << lock.error().to_string();
    EXPECT_TRUE(lock->held());
    // flock locks belong to open file descriptions: a second open in this same process conflicts.
    auto second = store.try_lock();
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, std::errc::device_or_resource_busy);
    EXPECT_EQ(second.error().field, (store.directory() / "qmgr.lock").string());
    EXPECT_TRUE(store.locked_by_other());
    // Moving the lock keeps it held.
    qmgr_lock moved = std::move(*lock);
    EXPECT_TRUE(moved.held());
    EXPECT_FALSE(lock->held());
    EXPECT_TRUE(store.locked_by_other());
  }
  EXPECT_FALSE(store.locked_by_other());
  auto again = store.try_lock();
  EXPECT_TRUE(again.ok());
  EXPECT_FALSE(qmgr_lock().held());
}

TEST_F(store_test, LocksOfTwoQueueManagersAreIndependent) {
  auto qm1 = create(make_catalog("QM1", fs_profile::posix));
  auto qm2 = create(make_catalog("QM2", fs_profile::posix));
  auto lock1 = qm1.try_lock();
  ASSERT_TRUE(lock1.ok());
  EXPECT_FALSE(qm2.locked_by_other());
  EXPECT_TRUE(qm2.try_lock().ok());
  // QM2 can be removed while QM1 is locked.
  EXPECT_TRUE(queue_manager_store::remove(prefix_, "QM2").ok());
  EXPECT_TRUE(fs::is_directory(qm1.directory()));
}

TEST_F(store_test, RemoveIsRefusedWhileLocked) {
  auto store = create(make_catalog("QM1", fs_profile::posix, {{"Q1"}}));
  const std::string ini = slurp(prefix_ / "mqs.ini");
  {
    auto lock = store.try_lock();
    ASSERT_TRUE(lock.ok());
    auto removed = queue_manager_store::remove(prefix_, "QM1");
    ASSERT_FALSE(removed.ok());
    EXPECT_EQ(removed.error().code, std::errc::device_or_resource_busy);
    EXPECT_TRUE(fs::is_regular_file(store.catalog_path()));
    EXPECT_TRUE(fs::is_regular_file(store.directory() / "queues" / "Q1" / "q"));
    EXPECT_EQ(slurp(prefix_ / "mqs.ini"), ini);
  }
  EXPECT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
  EXPECT_FALSE(fs::exists(store.directory()));
}

// A child process that takes the queue manager's lock, says so through a pipe and holds it until it is
// killed: a running queue manager as the store sees it.
class lock_holder {
 public:
  explicit lock_holder(const queue_manager_store& store) {
    int ready[2];
    if (::pipe(ready) != 0) throw std::runtime_error("pipe");
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(3);
      ::close(ready[0]);
      auto lock = store.try_lock();
      const char status = lock.ok() ? 'L' : 'F';
      if (::write(ready[1], &status, 1) != 1) ::_exit(2);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    if (::read(ready[0], &status_, 1) != 1) status_ = '?';
    ::close(ready[0]);
  }
  lock_holder(const lock_holder&) = delete;
  lock_holder& operator=(const lock_holder&) = delete;
  ~lock_holder() { kill(); }
  char status() const noexcept { return status_; }
  // SIGKILL: the kernel releases the flock when the process dies (kill -9 never leaves a QM locked).
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  char status_ = '?';
};

TEST_F(store_test, AChildHoldingTheLockIsSeenAndBlocksRemove) {
  auto store = create(make_catalog("QM1", fs_profile::posix));
  lock_holder child(store);
  ASSERT_EQ(child.status(), 'L');
  EXPECT_TRUE(store.locked_by_other());
  auto lock = store.try_lock();
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().code, std::errc::device_or_resource_busy);
  auto removed = queue_manager_store::remove(prefix_, "QM1");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().code, std::errc::device_or_resource_busy);
  EXPECT_TRUE(fs::is_directory(store.directory()));
  child.kill();
  EXPECT_FALSE(store.locked_by_other());
  EXPECT_TRUE(queue_manager_store::remove(prefix_, "QM1").ok());
}

TEST_F(store_test, AChildCannotTakeALockThisProcessHolds) {
  auto store = create(make_catalog("QM1", fs_profile::posix));
  auto lock = store.try_lock();
  ASSERT_TRUE(lock.ok());
  lock_holder child(store);
  EXPECT_EQ(child.status(), 'F');
}

}  // namespace
}  // namespace imsb::qmgr::test
