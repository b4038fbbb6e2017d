// Directed sampling's targets and report (docs/SAMPLER.md): where the
// Grewe feature vectors to steer toward come from (a CSV, the kernels a
// training config holds out, or the corpus kernels farthest from what was
// sampled), and the CSV of each target's nearest kernel after a run.
#pragma once

#include <string>
#include <vector>

#include "sampler/pipeline.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

// At most one source is set; none = undirected sampling.
struct TargetSource {
  std::string target_features;  // a CSV of Grewe feature vectors (read_targets_csv)
  bool held_out = false;        // the kernels the model config's training holds out
  bool explore = false;         // the corpus kernels farthest from the newest accepted samples
  size_t explore_count = 50;    // targets the exploration picks
  bool any() const { return !target_features.empty() || held_out || explore; }
};

// What chooses the targets, as samples.steering stores it: "features",
// "held-out" or "explore"; empty when no source is set.
std::string steering_name(const TargetSource& source);

// The targets `source` chooses; empty when none is set. held_out needs
// `config` (its training config decides the held-out repositories). Fails
// on an unreadable or bad CSV, a config without held-out kernels, or when
// no target results.
Expected<std::vector<Target>> choose_targets(const TargetSource& source, Database& db, const std::string& config);

// One CSV row per target and side: label, target values, side, distance,
// nearest kernel's values and sha256 (its file under the output directory),
// and every exact match's sha256. `sum` is a directed run's.
Status write_target_report(const SampleSummary& sum, const std::string& path);

}  // namespace clgen::sampler
