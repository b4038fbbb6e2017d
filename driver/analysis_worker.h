// The driver's argument analysis (analyze_kernels, Clang 15) under a time and
// memory budget: in a long-lived clgen-analysis-worker process, killed at the
// wall-clock limit and replaced, so a macro bomb in a kernel given to `clgen
// drive` (or sampled) ends as that kernel's outcome, never clgen's hang.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/args.h"
#include "support/child_process.h"
#include "support/status.h"

namespace clgen::driver {

struct AnalysisBudget {
  bool isolated = true;             // false: analyze_kernels in this process, without limits
  double time_limit_s = 60;         // wall-clock seconds per source; 0 = none
  uint64_t memory_limit_mb = 2048;  // RLIMIT_DATA of the worker; 0 = none (preprocess's defaults)
  std::string binary;               // empty: default_analysis_worker_binary()
};

// $CLGEN_ANALYSIS_WORKER when set, else clgen-analysis-worker beside the
// running executable, else the one of this build tree (for test binaries).
std::string default_analysis_worker_binary();

// One worker, for one thread at a time (a drive thread owns one). The worker
// is started by the first analyze() and dies with the thread that started it.
class AnalysisWorker {
 public:
  explicit AnalysisWorker(AnalysisBudget budget = {});
  ~AnalysisWorker();
  AnalysisWorker(const AnalysisWorker&) = delete;
  AnalysisWorker& operator=(const AnalysisWorker&) = delete;

  // analyze_kernels(source) in the worker, with its errors (kParse,
  // kInternal for a recovered front-end crash, kUnavailable without Clang),
  // and: kTimeout when the analysis exceeded the time limit, kInternal naming
  // the memory limit when it ran out of memory or naming the signal when the
  // worker died (each then replaced). A worker that cannot start, or cannot
  // analyse a probe kernel under its limits, is kUnavailable.
  Expected<std::vector<KernelSignature>> analyze(const std::string& source);

  int started() const { return child_.started(); }  // worker processes started so far

 private:
  Status start();

  AnalysisBudget budget_;
  ChildProcess child_;
};

}  // namespace clgen::driver
