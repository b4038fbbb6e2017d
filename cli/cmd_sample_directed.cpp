// How `clgen sample` prints directed sampling's outcome (--target-features,
// --held-out-targets, --explore, --baseline).
#include "cli/cmd_sample_directed.h"

#include <cstdio>

#include <fmt/format.h>

namespace clgen::cli {

namespace {

nlohmann::json side_json(const sampler::SteeringReport& r) {
  return {{"targets", r.targets},
          {"matched_exactly", r.matched},
          {"mean_normalized_distance", r.mean_distance ? nlohmann::json(*r.mean_distance) : nlohmann::json()},
          {"kernels", r.kernels},
          {"kernels_matching_a_target", r.exact_kernels}};
}

}  // namespace

nlohmann::json directed_json(const sampler::SampleSummary& sum) {
  const sampler::Director& d = *sum.director;
  nlohmann::json j = {{"directed", side_json(d.report(false))},
                      {"starts",
                       {{"prefixes_offered", d.prefixes_offered()},
                        {"replayed", sum.starts_replayed},
                        {"refused", sum.starts_refused},
                        {"forced_tokens", sum.forced_tokens}}},
                      {"kernels_without_features", sum.unfeatured},
                      {"graded", d.graded()},
                      {"near_share", d.options().near_share},
                      {"near_cuts", d.options().near_cuts},
                      {"awaiting_verdict", d.awaiting_verdict()}};
  if (d.has_baseline()) {
    j["baseline"] = side_json(d.report(true));
    j["baseline_split"] = d.baseline_split();
  }
  return j;
}

void print_directed(const sampler::SampleSummary& sum) {
  const sampler::Director& d = *sum.director;
  auto line = [](const char* side, const sampler::SteeringReport& r) {
    std::printf(
        "  %-10s %zu of %zu targets matched exactly; mean normalized distance %s (%llu kernels, %llu matching a "
        "target)\n",
        side, r.matched, r.targets, r.mean_distance ? fmt::format("{:.3f}", *r.mean_distance).c_str() : "-",
        (unsigned long long)r.kernels, (unsigned long long)r.exact_kernels);
  };
  std::printf("directed sampling (distance: mean over the Grewe features of |log(1+a) - log(1+b)|)%s:\n",
              d.graded() ? "; kernels count once the dynamic checker passed them (--graded-steering)" : "");
  line("directed", d.report(false));
  if (d.has_baseline()) {
    line("undirected", d.report(true));
    std::printf("  the undirected side had %s\n", std::string(d.baseline_split()) == "streams"
                                                      ? "the odd streams of the batch for the whole run"
                                                      : "every other time slice");
  }
  std::printf(
      "  streams continued from a kernel's prefix: %llu (%llu refused, started from the seed); %llu tokens "
      "replayed\n",
      (unsigned long long)sum.starts_replayed, (unsigned long long)sum.starts_refused,
      (unsigned long long)sum.forced_tokens);
  if (sum.unfeatured)
    std::printf("  accepted kernels without features (not counted): %llu\n", (unsigned long long)sum.unfeatured);
}

}  // namespace clgen::cli
