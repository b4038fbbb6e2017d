// ClangWorkers (budget.h): the preprocessor's requests in clgen-clang-worker
// processes, their limits, and limit breaches as verdicts.
#include "corpus/preprocess/budget.h"

#include <algorithm>

#include <fmt/format.h>

#include "corpus/preprocess/clang_protocol.h"
#include "support/child_process.h"
#include "support/worker_answer.h"

namespace clgen::preprocess {

namespace {

constexpr const char* kWorkerName = "clang worker";

template <typename Result>
Result rejected(const std::string& category, const std::string& reason) {
  Result r;
  r.status = RewriteStatus::kRejected;
  r.category = category;
  r.reason = reason;
  return r;
}

}  // namespace

std::string default_clang_worker_binary() {
#ifdef CLGEN_CLANG_WORKER_BUILT
  return helper_executable("clgen-clang-worker", "CLGEN_CLANG_WORKER", CLGEN_CLANG_WORKER_BUILT);
#else
  return helper_executable("clgen-clang-worker", "CLGEN_CLANG_WORKER", "");
#endif
}

ClangWorkers::ClangWorkers(ClangBudget budget, unsigned workers) : budget_(std::move(budget)) {
  if (budget_.worker_binary.empty()) budget_.worker_binary = default_clang_worker_binary();
  ChildLimits limits;
  limits.data_mb = budget_.memory_limit_mb;
  limits.max_file_bytes = 16u << 20;  // Clang's output stays in memory: the worker writes no files
  limits.max_files = 256;
  for (unsigned i = 0; i < std::max(1u, workers); ++i)
    workers_.push_back(
        std::make_unique<ChildProcess>(std::vector<std::string>{budget_.worker_binary}, limits, kWorkerName));
  busy_.assign(workers_.size(), false);
}

ClangWorkers::~ClangWorkers() {
  for (auto& w : workers_) w->stop(encode_request("exit", {}, ""));
}

int ClangWorkers::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& w : workers_) n += w->started();
  return n;
}

size_t ClangWorkers::acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    for (size_t i = 0; i < busy_.size(); ++i) {
      if (!busy_[i]) {
        busy_[i] = true;
        return i;
      }
    }
    free_.wait(lock);
  }
}

void ClangWorkers::release(size_t slot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_[slot] = false;
  }
  free_.notify_one();
}

Status ClangWorkers::call(const std::string& op, std::string_view text, const CompileOptions& options,
                          const nlohmann::json& params, nlohmann::json& reply, Verdict& verdict) {
  size_t slot = acquire();
  ChildProcess& worker = *workers_[slot];
  Status st = [&]() -> Status {
    worker.reap_if_dead();
    if (!worker.running()) {
      // A fresh worker compiles a probe kernel first: one that cannot work
      // under its limits is a set-up error, not the input's verdict.
      std::string pong;
      Status ping = worker.call(encode_request("ping", options, ""), pong, std::max(budget_.time_limit_s, 60.0));
      if (ping.ok()) ping = worker_result<std::string>(parse_worker_answer(pong), "Clang worker").status();
      if (!ping.ok()) {
        worker.kill();
        return unavailable("starting the Clang worker '" + worker.binary() + "': " + ping.message() +
                           worker.start_failure_hint());
      }
    }
    std::string answer;
    Status sent = worker.call(encode_request(op, options, text, params), answer, budget_.time_limit_s);
    if (sent.ok()) {
      reply = parse_worker_answer(answer);
      // After a crash Clang recovered from, the worker exits: reaped here, so
      // the next request cannot meet a worker on its way out.
      if (reply.is_object() && reply.value("exiting", false)) worker.stop("");
      return ok_status();
    }
    if (sent.code() == ErrorCode::kTimeout) {
      verdict = {category::kTimeLimit,
                 fmt::format("Clang did not finish within the {:g} s time limit (its worker was killed)",
                             budget_.time_limit_s)};
      return ok_status();
    }
    if (sent.code() == ErrorCode::kIo && !worker.running()) {
      if (worker.ran_out_of_memory()) {
        verdict = {category::kMemoryLimit,
                   fmt::format("Clang exceeded the {} MiB memory limit (its worker ran out of memory)",
                               budget_.memory_limit_mb)};
      } else {
        verdict = {category::kClangCrash, "Clang's worker died: " + sent.message()};
      }
      return ok_status();
    }
    return sent;
  }();
  release(slot);
  return st;
}

template <typename Result>
Expected<Result> ClangWorkers::request(const char* op, std::string_view text, const CompileOptions& options,
                                       Result (*in_process)(std::string_view, const CompileOptions&)) {
  if (!budget_.isolated) return in_process(text, options);
  nlohmann::json reply;
  Verdict verdict;
  RETURN_IF_ERROR(call(op, text, options, nullptr, reply, verdict));
  if (!verdict.category.empty()) return rejected<Result>(verdict.category, verdict.reason);
  return worker_result<Result>(reply, "Clang worker");
}

Expected<FileRewriteResult> ClangWorkers::rewrite_kernels(std::string_view text, const CompileOptions& options) {
  return request("rewrite_kernels", text, options, &preprocess::rewrite_kernels);
}

Expected<RewriteResult> ClangWorkers::rewrite(std::string_view text, const CompileOptions& options) {
  return request("rewrite", text, options, &preprocess::rewrite);
}

}  // namespace clgen::preprocess
