// ThreadPool runs every task, returns results and propagates exceptions.
#include "support/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace clgen {
namespace {

TEST(ThreadPool, RunsAllTasksAndReturnsResults) {
  ThreadPool pool(3);
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 100; ++i) futures.push_back(pool.submit([i] { return i * i; }));
  int sum = 0;
  for (auto& f : futures) sum += f.get();
  EXPECT_EQ(sum, 328350);
}

TEST(ThreadPool, WaitIdleWaitsForQueuedWork) {
  ThreadPool pool(2);
  std::atomic<int> n{0};
  for (int i = 0; i < 50; ++i) (void)pool.submit([&n] { n++; });
  pool.wait_idle();
  EXPECT_EQ(n.load(), 50);
}

TEST(ThreadPool, ExceptionsReachTheFuture) {
  ThreadPool pool(1);
  auto f = pool.submit([]() -> int { throw std::runtime_error("boom"); });
  EXPECT_THROW(f.get(), std::runtime_error);
  EXPECT_EQ(pool.submit([] { return 7; }).get(), 7);  // the worker survives
}

TEST(ThreadPool, ZeroMeansHardwareConcurrency) {
  ThreadPool pool(0);
  EXPECT_GE(pool.size(), 1u);
}

}  // namespace
}  // namespace clgen
