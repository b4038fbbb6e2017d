// The sample filter's Clang part, as one verdict per complete sample: the
// strict rewrite, the --args prototype check, the static usefulness check
// and, for directed sampling, the first kernel's Grewe features. It runs in
// this process or, under the Clang budget, in a clgen-clang-worker, which
// serves it as the op "filter_sample" through this library: one round trip
// per sample.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/preprocess.h"
#include "sampler/targets.h"
#include "support/status.h"

namespace clgen::sampler {

struct ClangFilterOptions {
  // "" = any signature; else the kernel must be the text's only one and its
  // prototype must be this line (seed_text() of --args) up to names.
  std::string prototype;
  bool usefulness_check = true;  // reject kernels the usefulness check proves useless
  bool features = false;         // extract an accepted kernel's Grewe features
};

struct ClangFilterVerdict {
  // sample_status::kAccepted (until deduplicated), kRejected, kRewriteBug or
  // kWrongPrototype.
  std::string status;
  std::string category, reason;  // category and reason empty when accepted
  std::string normalized_text;   // once it compiled and was rewritten (a wrong prototype's too)
  int64_t instruction_count = 0;
  // With options.features, an accepted kernel's first kernel's features;
  // nullopt when their extraction failed.
  std::optional<GreweVector> features;
  // Clang crashed on the way and recovered (the worker then exits, as after
  // a crashed rewrite); not sent to the parent.
  bool recovered_crash = false;
};

// What a prototype line says apart from its names: the kernel's name and
// each parameter's last word dropped (`__kernel void ( __global float * ,
// const int ) {`), so a kernel renamed after helpers compares equal.
std::string prototype_shape(std::string_view prototype);

// `clgen sample`'s Clang budget: ClangBudget's memory limit, and 10 s per
// sample instead of 60 per file. A sample is one kernel of at most
// --max-length tokens (3,000 by default: a few KB); the slowest of the 242 kernel
// files of bench/sample_filter.sh, up to 300 KB each, took 0.6 s alone and
// 2.4 s with two filter threads on a loaded 2-core machine. 10 s ends a
// macro bomb quickly and no real sample.
preprocess::ClangBudget default_filter_budget();

// What the filter compiles with: the sample as written (no inferred
// definitions for names it lacks) and OpenCL C 1.2 only (the corpus's second
// chances would accept kernels that no device compiles as sampled).
preprocess::CompileOptions strict_sample_options();

// The verdict in this process, without limits.
ClangFilterVerdict filter_with_clang(std::string_view text, const ClangFilterOptions& options);

// The verdict in a worker of `workers` (in this process when its budget is
// not isolated). A sample that exceeds the budget is kRejected with category
// time_limit or memory_limit, one whose worker dies otherwise clang_crash.
// Errors: ClangWorkers::call's (a worker that cannot start is kUnavailable),
// never a sample's verdict.
Expected<ClangFilterVerdict> filter_with_clang(preprocess::ClangWorkers& workers, std::string_view text,
                                               const ClangFilterOptions& options);

// The worker's side: the op's name, and the encoded answer to a request of
// it (`exit_after` when Clang crashed and recovered on the way).
inline constexpr const char* kFilterOp = "filter_sample";
std::string answer_filter_request(std::string_view text, const nlohmann::json& params, bool& exit_after);

}  // namespace clgen::sampler
