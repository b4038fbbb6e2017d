// Directed sampling: steers the sampler's streams toward target Grewe
// feature vectors by search over the kernels it accepts (docs/SAMPLER.md,
// "Directed sampling"). For every target the nearest accepted kernels are
// kept; a restarting stream continues a prefix of one of them, cut at a
// statement boundary inside its body (late in a kernel near its target),
// for an unmatched target: the next in round-robin order, or one drawn by
// how near its nearest kernel is (DirectorOptions::near_share). The
// model, the constraint and the filter are the undirected sampler's; only
// where streams start changes (and, for a feature-conditioned model, the
// header each stream starts after: start_headers.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sampler/batch_sampler.h"
#include "sampler/targets.h"

namespace clgen::sampler {

// An accepted kernel with its features.
struct FeaturedKernel {
  std::string text;
  GreweVector features{};
};

// For each target, the `beam` nearest distinct kernels added so far.
class NearestKernels {
 public:
  struct Entry {
    double distance = 0;
    std::shared_ptr<const FeaturedKernel> kernel;
  };

  NearestKernels(const std::vector<Target>* targets, size_t beam);

  // Offers a kernel to every target; returns how many targets' nearest
  // distance it lowered.
  size_t add(const std::shared_ptr<const FeaturedKernel>& kernel);

  // Target `t`'s nearest kernels, nearest first (empty before the first add).
  const std::vector<Entry>& nearest(size_t t) const { return nearest_[t]; }
  // A kernel with all six features equal to the target's.
  bool matched(size_t t) const { return !nearest_[t].empty() && nearest_[t][0].distance == 0; }
  // Target `t`'s kept kernels with all six features equal to its own, in
  // the order they came (at most `beam`: a full beam of exact kernels takes
  // no more), so a matched target has several candidates for the checker.
  std::vector<std::shared_ptr<const FeaturedKernel>> exact(size_t t) const;
  size_t matched_count() const;
  // The mean over targets of the nearest kernel's distance; nullopt before
  // the first kernel.
  std::optional<double> mean_distance() const;
  uint64_t kernels() const { return kernels_; }
  // Kernels added that match some target exactly.
  uint64_t exact_kernels() const { return exact_kernels_; }

 private:
  const std::vector<Target>* targets_;
  size_t beam_;
  std::vector<std::vector<Entry>> nearest_;
  uint64_t kernels_ = 0, exact_kernels_ = 0;
};

// The statement boundaries of a kernel at or after `from`: the offsets just
// after a ';', '{' or '}' inside a block (for a signature-seeded kernel, the
// first top-level block; for a whole text, any of its functions), so the
// text up to one is a prefix that a stream can continue.
std::vector<size_t> statement_boundaries(std::string_view kernel, size_t from, bool whole_text = false);

struct DirectorOptions {
  size_t beam = 4;  // nearest kernels kept per target; a prefix comes from one of them, uniformly
  // Share of directed restarts from the plain seed: new starting points
  // that continuation alone would not reach. Most training copies come from
  // these restarts: on the H200 with the GitHub model, 0.02 against 0.1 gave
  // 0.9% against 1.9% copies among filter passes and 235 against 240 targets
  // matched in a minute (2026-11-28).
  double plain_share = 0.02;
  // --near-share: the share of continuations whose target is drawn by how
  // near its nearest kernel already is (weight exp(-d / near_scale) over
  // the unmatched targets) instead of the round-robin. Exact matches count,
  // and a near miss (one feature off by one) is finished by a small edit
  // far more often than a distant target is reached. 0.5 with near_cuts:
  // 249 targets matched against 201 for the round-robin alone, in one minute
  // on the H200 (docs/BENCHMARKS.md, "Directed sampling").
  double near_share = 0.5;
  double near_scale = 0.05;
  // --near-cuts: a continuation of a kernel at distance d from its target
  // is cut among the last max(1/4, d / 0.1) of its statement boundaries
  // (all of them from d = 0.1), so a near kernel keeps most of its body and
  // the model rewrites only its end; otherwise the cut is uniform.
  bool near_cuts = true;
  // > 0: --baseline; streams alternately start undirected (from the plain
  // seed, their kernels kept apart) for slices of this many seconds.
  double baseline_slice_seconds = 0;
  // --baseline-split streams: with --baseline, the odd streams of the batch
  // are undirected for the whole run instead, so each side has half the
  // batch all the time. Time slices give the side whose streams run longer
  // more than its share: a stream keeps its side until it ends, and a
  // directed stream first replays its prefix (docs/SAMPLER.md).
  bool baseline_by_stream = false;
  // --baseline-only: every stream is a baseline stream (the undirected
  // side in a run of its own; a conditioned model's plain restarts would
  // otherwise still be steered).
  bool baseline_only = false;
  uint64_t seed = 0;  // the prefix choices' generator
  // A feature-conditioned model (StreamModel::feature_header): restarts from
  // the seed are steered too, each to the next unmatched target in its own
  // round-robin, and its header then asks the model for that target's
  // features (without it they are undirected, tagged kPlain).
  bool conditioned = false;
  // --graded-steering (with --check): a kernel joins the search, and counts
  // toward the targets, only once the dynamic checker passed it
  // (Director::graded); kernels it failed, or never checked, are not
  // continued. Without it, the search continues any accepted kernel, and
  // on the H200 only 16% of directed kernels passed against 50% of
  // undirected ones (2026-11-27, before the uninitialized_read and
  // endless_loop checks).
  bool graded = false;
  // Seconds since the run started (tests replace the steady clock).
  std::function<double()> clock;
};

// One side's result (directed, or the undirected baseline).
struct SteeringReport {
  size_t targets = 0;
  size_t matched = 0;                   // targets some kernel matches exactly
  std::optional<double> mean_distance;  // over targets; nullopt: no kernel
  uint64_t kernels = 0;                 // kernels that passed the filter (new or sampled before), with features
  uint64_t exact_kernels = 0;           // ... that match some target exactly
};

class Director {
 public:
  // Stream tags (StreamStart::tag) other than a target's index.
  static constexpr int64_t kPlain = -1;     // directed run, plain seed, no target
  static constexpr int64_t kBaseline = -2;  // a baseline stream (a slice's, or an odd stream's)

  Director(std::vector<Target> targets, std::string seed_text, DirectorOptions options);

  // Where restarting stream `stream` (its index in the batch; -1 when not
  // known) starts. The sampling thread calls it.
  StreamStart next(int stream = -1);
  // An accepted kernel of a stream started with `tag` (the store thread).
  // With DirectorOptions::graded it waits for its verdict, unless it has
  // one already (a repeat).
  void observe(int64_t tag, std::string text, const GreweVector& features);
  // The dynamic checker's verdict on a kernel (any thread): a passing
  // kernel that observe() saw joins its side's search now. Only with
  // DirectorOptions::graded.
  void graded(const std::string& text, bool passed);
  // Observed kernels still waiting for a verdict.
  size_t awaiting_verdict() const;
  // The target a tag steered to; nullptr for kPlain and kBaseline.
  const Target* target_of(int64_t tag) const;

  const std::vector<Target>& targets() const { return targets_; }
  // Call once the run is over (not thread-safe against next()/observe()).
  const NearestKernels& directed() const { return directed_; }
  const NearestKernels& baseline() const { return baseline_; }
  SteeringReport report(bool baseline) const;
  bool has_baseline() const { return opts_.baseline_slice_seconds > 0; }
  // How the baseline shares the run: "streams" or "time" (DirectorOptions::baseline_by_stream).
  const char* baseline_split() const { return opts_.baseline_by_stream ? "streams" : "time"; }
  bool graded() const { return opts_.graded; }
  const DirectorOptions& options() const { return opts_; }
  uint64_t prefixes_offered() const { return offered_; }

 private:
  // True when a stream restarting now is a baseline stream.
  bool baseline_slice(int stream) const;
  // Adds a kernel to the search of the side `tag` names (mu_ held).
  void join(int64_t tag, std::string text, const GreweVector& features);
  // A start from the seed: for the next unmatched target when conditioned.
  StreamStart seed_start();
  // The unmatched target a continuation steers to (mu_ held); nullopt when
  // every target is matched.
  std::optional<size_t> pick_target();
  // Where to cut `cuts` (ascending) for a kernel at `distance` (mu_ held).
  size_t pick_cut(const std::vector<size_t>& cuts, double distance);

  std::vector<Target> targets_;
  std::string seed_text_;
  DirectorOptions opts_;
  NearestKernels directed_, baseline_;
  std::chrono::steady_clock::time_point start_;
  std::mt19937_64 rng_;
  size_t cursor_ = 0;  // the round-robin's next target
  size_t seed_cursor_ = 0;  // ... of conditioned restarts from the seed
  uint64_t offered_ = 0;
  // DirectorOptions::graded: observed kernels by text, with the tag and
  // features they were observed with, until their verdict; and verdicts.
  struct Awaiting {
    int64_t tag;
    GreweVector features;
  };
  std::unordered_map<std::string, Awaiting> awaiting_;
  std::unordered_map<std::string, bool> verdicts_;
  mutable std::mutex mu_;
};

// --explore's acquisition rule: of the distinct feature vectors of
// `corpus`, the `count` whose nearest vector in `sampled` is farthest
// (feature_distance), farthest first. An empty `sampled` counts as the
// empty kernel (all zeros), near which undirected samples lie.
std::vector<Target> explore_targets(const std::vector<Target>& corpus, const std::vector<GreweVector>& sampled,
                                    size_t count);

}  // namespace clgen::sampler
