// RunGate: shared runs overlap; an exclusive run waits for those in flight,
// keeps new ones out until it is done, and is not starved by a busy pool.
#include "driver/run_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace clgen::driver {
namespace {

using namespace std::chrono_literals;

TEST(RunGate, ARunAloneDidNotOverlapAndOneBesideAnotherDid) {
  RunGate gate;
  RunGate::Ticket alone = gate.lock_shared();
  EXPECT_FALSE(gate.overlapped(alone));
  gate.unlock_shared();

  RunGate::Ticket first = gate.lock_shared();
  RunGate::Ticket second = gate.lock_shared();  // entered while `first` ran
  EXPECT_TRUE(gate.overlapped(first));
  EXPECT_TRUE(gate.overlapped(second));
  gate.unlock_shared();
  gate.unlock_shared();
}

TEST(RunGate, ExclusiveWaitsForRunsInFlightAndKeepsNewOnesOut) {
  RunGate gate;
  gate.lock_shared();
  std::atomic<bool> exclusive_in{false}, late_shared_in{false};
  std::thread exclusive([&] {
    std::lock_guard<RunGate> alone(gate);
    exclusive_in = true;
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(late_shared_in.load()) << "a shared run entered during the exclusive one";
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(exclusive_in.load()) << "the exclusive run did not wait for the one in flight";
  // A run arriving while the exclusive one waits must let it go first,
  // although the gate is only shared-held (a reader-preferring lock would
  // let it in and could starve the exclusive run).
  std::thread late([&] {
    gate.lock_shared();
    late_shared_in = true;
    gate.unlock_shared();
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(late_shared_in.load());
  gate.unlock_shared();
  exclusive.join();
  late.join();
  EXPECT_TRUE(exclusive_in.load());
  EXPECT_TRUE(late_shared_in.load());
  EXPECT_EQ(gate.shared(), 0);
}

}  // namespace
}  // namespace clgen::driver
