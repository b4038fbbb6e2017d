// Not a test: the sample filter's throughput (kernels filtered per second)
// in this process or under the Clang budget, over the given kernel files,
// each thread with its own worker as `clgen sample`'s filter threads
// (bench/sample_filter.sh, docs/BENCHMARKS.md).
//   sample_filter_bench in-process|isolated THREADS FILE...
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sampler/clang_filter.h"
#include "support/files.h"

namespace {

// CPU seconds of this process and its reaped children (the workers, stopped
// with their threads).
double cpu_seconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    ::getrusage(who, &u);
    total += u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace clgen;
  using Clock = std::chrono::steady_clock;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s in-process|isolated THREADS FILE...\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const unsigned threads = std::max(1, std::atoi(argv[2]));
  std::vector<std::string> texts;
  for (int i = 3; i < argc; ++i) {
    auto text = read_file(argv[i]);
    if (!text.ok()) {
      std::fprintf(stderr, "%s\n", text.status().message().c_str());
      return 1;
    }
    texts.push_back(std::move(*text));
  }
  preprocess::ClangBudget budget = sampler::default_filter_budget();
  budget.isolated = mode == "isolated";
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::map<std::string, int> statuses;
  double slowest = 0;
  double first_calls = 0;  // each thread's first kernel: a worker's start, or the in-process PCH build
  Status failure;
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      preprocess::ClangWorkers workers(budget, 1);  // started, and ended, by this thread
      bool first = true;
      for (size_t i; (i = next++) < texts.size();) {
        const auto t0 = Clock::now();
        auto v = sampler::filter_with_clang(workers, texts[i], {});
        const double took = std::chrono::duration<double>(Clock::now() - t0).count();
        std::lock_guard<std::mutex> lock(mu);
        if (!v.ok()) {
          failure = v.status();
          continue;
        }
        ++statuses[v->status + (v->category.empty() ? "" : "/" + v->category)];
        if (first) first_calls += took;
        else slowest = std::max(slowest, took);
        first = false;
      }
    });
  }
  for (auto& t : pool) t.join();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_start;
  if (!failure.ok()) {
    std::fprintf(stderr, "%s\n", failure.message().c_str());
    return 1;
  }
  std::printf(
      "%s threads=%u kernels=%zu seconds=%.3f kernels_per_second=%.2f slowest_kernel_seconds=%.3f "
      "cpu_seconds=%.3f first_calls_seconds=%.3f\n",
      mode.c_str(), threads, texts.size(), secs, texts.size() / secs, slowest, cpu, first_calls);
  for (const auto& [s, n] : statuses) std::printf("  %s %d\n", s.c_str(), n);
  return 0;
}
