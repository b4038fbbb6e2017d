// Lets a drive pool's runs share the devices, and one run have them alone.
// Runs on one GPU are not isolated in time: a kernel that hangs until its
// worker is killed slows or stalls the others, and a kernel that finishes
// in milliseconds alone can time out beside it (docs/DRIVER.md). The pool
// drives again alone each run that timed out beside others: the exclusive
// holder waits for the shared holders to finish and keeps new ones out
// until it is done. Waiting exclusive holders go first, so a busy pool
// cannot starve them.
#pragma once

#include <condition_variable>
#include <mutex>

namespace clgen::driver {

class RunGate {
 public:
  // What a shared holder saw when it entered: runs already in flight, and
  // the number of entries before its own.
  struct Ticket {
    int others = 0;
    unsigned long long entry = 0;
  };
  Ticket lock_shared() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !exclusive_ && waiting_exclusive_ == 0; });
    return {shared_++, entries_++};
  }
  // Whether another run was in flight at some time between `t`'s entry and
  // now: one was there when it entered, or one entered since.
  bool overlapped(const Ticket& t) const {
    std::lock_guard<std::mutex> lock(mu_);
    return t.others > 0 || entries_ > t.entry + 1;
  }
  void unlock_shared() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--shared_ == 0) cv_.notify_all();
  }
  void lock() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_exclusive_;
    cv_.wait(lock, [&] { return !exclusive_ && shared_ == 0; });
    --waiting_exclusive_;
    exclusive_ = true;
  }
  void unlock() {
    std::lock_guard<std::mutex> lock(mu_);
    exclusive_ = false;
    cv_.notify_all();
  }
  // Shared holders right now.
  int shared() const {
    std::lock_guard<std::mutex> lock(mu_);
    return shared_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int shared_ = 0;
  unsigned long long entries_ = 0;  // shared entries so far
  int waiting_exclusive_ = 0;
  bool exclusive_ = false;
};

}  // namespace clgen::driver
