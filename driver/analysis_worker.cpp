// AnalysisWorker (analysis_worker.h): analyze_kernels in clgen-analysis-worker,
// its limits, and limit breaches as errors the drive records as outcomes.
#include "driver/analysis_worker.h"

#include <algorithm>

#include <fmt/format.h>

#include "driver/job.h"
#include "support/worker_answer.h"

namespace clgen::driver {

namespace {

constexpr const char* kProbe = "__kernel void probe(__global int* a) { a[get_global_id(0)] = 1; }\n";

ChildLimits limits_of(const AnalysisBudget& budget) {
  ChildLimits limits;
  limits.data_mb = budget.memory_limit_mb;
  limits.max_file_bytes = 16u << 20;  // the analysis writes no files
  limits.max_files = 256;
  return limits;
}

std::string binary_of(const AnalysisBudget& budget) {
  return budget.binary.empty() ? default_analysis_worker_binary() : budget.binary;
}

Expected<std::vector<KernelSignature>> signatures_of(const std::string& answer) {
  return worker_result<std::vector<KernelSignature>>(parse_worker_answer(answer), "analysis worker");
}

}  // namespace

std::string default_analysis_worker_binary() {
#ifdef CLGEN_ANALYSIS_WORKER_BUILT
  return helper_executable("clgen-analysis-worker", "CLGEN_ANALYSIS_WORKER", CLGEN_ANALYSIS_WORKER_BUILT);
#else
  return helper_executable("clgen-analysis-worker", "CLGEN_ANALYSIS_WORKER", "");
#endif
}

AnalysisWorker::AnalysisWorker(AnalysisBudget budget)
    : budget_(std::move(budget)), child_({binary_of(budget_)}, limits_of(budget_), "analysis worker") {}

AnalysisWorker::~AnalysisWorker() { child_.stop(""); }

Status AnalysisWorker::start() {
  // A fresh worker analyses a probe kernel first: one that cannot work under
  // its limits is a set-up error, not a kernel's outcome.
  std::string answer;
  Status st = child_.call(kProbe, answer, std::max(budget_.time_limit_s, 60.0));
  if (st.ok()) st = signatures_of(answer).status();
  if (st.ok()) return st;
  child_.kill();
  return unavailable("starting the argument analysis worker '" + child_.binary() + "': " + st.message() +
                     child_.start_failure_hint());
}

Expected<std::vector<KernelSignature>> AnalysisWorker::analyze(const std::string& source) {
  if (!budget_.isolated || !have_clang_analysis()) return analyze_kernels(source);
  child_.reap_if_dead();
  if (!child_.running()) RETURN_IF_ERROR(start());
  std::string answer;
  Status st = child_.call(source, answer, budget_.time_limit_s);
  if (st.ok()) {
    Expected<std::vector<KernelSignature>> sigs = signatures_of(answer);
    // After a crash Clang recovered from, the worker exits: reaped here, so
    // the next source cannot meet a worker on its way out.
    if (sigs.status().code() == ErrorCode::kInternal) child_.stop("");
    return sigs;
  }
  if (st.code() == ErrorCode::kTimeout)
    return timeout_error(
        fmt::format("the argument analysis did not finish within the {:g} s time limit (its Clang worker was killed)",
                    budget_.time_limit_s));
  if (st.code() == ErrorCode::kIo && !child_.running()) {
    if (child_.ran_out_of_memory())
      return internal_error(
          fmt::format("the argument analysis exceeded the {} MiB memory limit (its Clang worker ran out of memory)",
                      budget_.memory_limit_mb));
    return internal_error("the argument analysis's Clang worker died: " + st.message());
  }
  return st;
}

}  // namespace clgen::driver
