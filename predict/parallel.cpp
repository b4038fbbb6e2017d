// The experiments' task runner.
#include "predict/parallel.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "support/interrupt.h"

namespace clgen::predict {

unsigned experiment_threads(unsigned requested, size_t tasks) {
  unsigned n = requested ? requested : std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(n, tasks)));
}

Status run_parallel(size_t n, unsigned threads, const std::function<Status(size_t)>& task) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status failure;
  auto work = [&] {
    while (true) {
      size_t i = next++;
      if (i >= n) return;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure.ok()) return;
      }
      if (interrupted()) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure.ok()) failure = cancelled("experiment interrupted");
        return;
      }
      Status st = task(i);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure.ok()) failure = st;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return failure;
}

}  // namespace clgen::predict
