// The preprocessor under a time and memory budget: rewrite() and
// rewrite_kernels() run in a pool of long-lived clgen-clang-worker processes,
// each under a memory limit, with a wall-clock limit per input enforced by the
// parent. An input that exceeds a limit (a macro bomb) costs its worker, which
// is killed and replaced, and is rejected as time_limit or memory_limit.
// Other modules' Clang work on untrusted text goes through call() (the
// sampler's filter: sampler/clang_filter.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen {
class ChildProcess;
}

namespace clgen::preprocess {

struct ClangBudget {
  // false: Clang runs in this process without limits (trusted input).
  bool isolated = true;
  // Wall-clock seconds per input (a file and all its kernels); 0 = none.
  // The slowest file of the 7,620-file GitHub snapshot takes a few seconds.
  double time_limit_s = 60;
  // RLIMIT_DATA of each worker, in MiB; 0 = none. Clang needs about 100 MiB
  // for a typical file; 2 MiB of input (the largest accepted) stays far below.
  uint64_t memory_limit_mb = 2048;
  std::string worker_binary;  // empty: default_clang_worker_binary()
};

// $CLGEN_CLANG_WORKER when set, else clgen-clang-worker beside the running
// executable, else the one of this build tree (for test binaries).
std::string default_clang_worker_binary();

// A fixed number of workers shared by the threads that call it; every call
// takes a free worker (waiting for one) and starts it when it is not running.
// Safe to call from many threads at once. A worker started by a thread is
// killed when that thread ends (PR_SET_PDEATHSIG), and replaced at the next
// call: share a pool only between threads that outlive it.
class ClangWorkers {
 public:
  ClangWorkers(ClangBudget budget, unsigned workers);
  ~ClangWorkers();
  ClangWorkers(const ClangWorkers&) = delete;
  ClangWorkers& operator=(const ClangWorkers&) = delete;

  // preprocess::rewrite_kernels / rewrite in a worker. An input that exceeds
  // the budget is kRejected with category time_limit or memory_limit (the
  // reason names the limit); a worker that dies otherwise, clang_crash.
  // Errors: a worker that cannot be started or answers nonsense (kUnavailable,
  // kInternal): a set-up problem, never the input's verdict.
  Expected<FileRewriteResult> rewrite_kernels(std::string_view text, const CompileOptions& options);
  Expected<RewriteResult> rewrite(std::string_view text, const CompileOptions& options);

  // How a request ended when not with an answer: the input's verdict, a
  // category (time_limit, memory_limit, clang_crash) and a reason.
  struct Verdict {
    std::string category, reason;
  };
  // Sends one request of `op` (clang_protocol.h) with the op's `params` to a
  // free worker; `reply` is its parsed answer (support/worker_answer.h). An
  // input that exceeds the budget or kills its worker leaves `reply` alone
  // and sets `verdict`. Errors as rewrite()'s. For ops of other modules (the
  // sampler's "filter_sample"); ignores budget().isolated.
  Status call(const std::string& op, std::string_view text, const CompileOptions& options, const nlohmann::json& params,
              nlohmann::json& reply, Verdict& verdict);

  int started() const;  // worker processes started so far (one per slot, plus one per replacement)
  const ClangBudget& budget() const { return budget_; }

 private:
  // One request of kind `op`, or `in_process` here when not isolated.
  template <typename Result>
  Expected<Result> request(const char* op, std::string_view text, const CompileOptions& options,
                           Result (*in_process)(std::string_view, const CompileOptions&));
  size_t acquire();
  void release(size_t slot);

  ClangBudget budget_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
  std::vector<bool> busy_;
  mutable std::mutex mu_;
  std::condition_variable free_;
};

}  // namespace clgen::preprocess
