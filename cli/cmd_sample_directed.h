// `clgen sample`'s directed modes: where the targets come from
// (--target-features, --held-out-targets, --explore) and how the search's
// outcome is reported (summary, --json, --target-report).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sampler/pipeline.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::cli {

struct DirectedFlags {
  std::string target_features;  // --target-features FILE.csv
  bool held_out = false;        // --held-out-targets: the kernels --config's training holds out
  bool explore = false;         // --explore
  size_t explore_count = 50;    // --explore-targets
  bool baseline = false;        // --baseline
  double slice_seconds = 10;    // --baseline-slice
  std::string split = "time";   // --baseline-split: time | streams
  bool baseline_only = false;   // --baseline-only
  double plain_share = sampler::DirectorOptions{}.plain_share;  // --plain-share
  double near_share = sampler::DirectorOptions{}.near_share;    // --near-share
  bool near_cuts = sampler::DirectorOptions{}.near_cuts;        // --near-cuts
  std::string report;                                           // --target-report FILE.csv
  bool graded = false;  // --graded-steering: only kernels the checker passed join the search
  bool any() const { return !target_features.empty() || held_out || explore; }
};

// The targets the flags choose; empty when none is set. --held-out-targets
// needs `config` (its training config decides the held-out repositories).
// Fails on an unreadable or bad CSV, a config without held-out kernels, or
// when no target results.
Expected<std::vector<sampler::Target>> choose_targets(const DirectedFlags& flags, Database& db,
                                                      const std::string& config);

// The directed summary as JSON ("directed", "baseline" when run, "starts").
nlohmann::json directed_json(const sampler::SampleSummary& sum);
// ... as lines of the text summary.
void print_directed(const sampler::SampleSummary& sum);
// One CSV row per target and side: label, target values, side, distance,
// nearest kernel's values and sha256 (its file under the output directory).
Status write_target_report(const sampler::SampleSummary& sum, const std::string& path);

}  // namespace clgen::cli
