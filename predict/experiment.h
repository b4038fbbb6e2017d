// Does adding synthetic kernels to the training data help on real ones? Two
// arms (trained on real kernels only; on real plus every synthetic kernel)
// scored on the same held-out real kernels under repeated grouped k-fold
// splits, with 95% bootstrap intervals over real kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predict/folds.h"
#include "predict/mapping.h"
#include "predict/wgsize.h"
#include "support/status.h"

namespace clgen::predict {

struct ExperimentOptions {
  int folds = 5;         // grouped k-fold over the real kernels' groups
  int repeats = 5;       // each with its own fold seed (seed + repeat)
  int resamples = 1000;  // bootstrap resamples over real groups
  uint64_t seed = 204;
  unsigned threads = 0;  // training threads; 0 = the cores, at most 16
  // Groups that folds and the bootstrap keep whole: the program (the group
  // column; the kernel where there is none), or only the kernel, when there
  // are too few programs for the folds.
  bool group_by_kernel = false;
};

// How a row is told apart: origin "synthetic" (clgen's exports); every other
// origin (corpus, file, or none) is real.
bool is_synthetic(const std::string& origin);

// One training arm of a workgroup-size experiment, scored on the real
// scenarios. Per scenario the values are first averaged over the repeats
// (speedups as logs), then bootstrapped over real groups.
struct WgArm {
  Interval oracle_share;     // mean of oracle runtime / chosen runtime
  Interval speedup_fixed;    // geometric mean of runtime(best fixed size) / runtime(chosen),
                             // on the scenarios where the fixed size is legal
  Interval speedup_default;  // the same over the driver's default local size, where it passed
};

struct WgExperiment {
  std::string device;
  std::string model;
  size_t real_scenarios = 0, real_kernels = 0, real_groups = 0;
  size_t synthetic_scenarios = 0, synthetic_kernels = 0;
  std::string fixed_size;        // the best fixed size on the real scenarios (illegal counts 0)
  double fixed_share = 0;        // its mean performance (illegal = 0)
  size_t fixed_legal = 0;        // scenarios where it is legal
  Interval oracle_over_fixed;    // geometric mean of runtime(fixed) / runtime(oracle), where legal
  double default_share = 0;      // mean performance of the driver's default, where known
  size_t default_known = 0;      // scenarios whose default size passed
  Interval oracle_over_default;  // geometric mean of runtime(default) / runtime(oracle)
  WgArm real, mixed;             // trained on real only; on real + synthetic
  Interval gain;                 // mixed - real oracle share (paired, same resamples)
  // False when there are no synthetic scenarios (then mixed == real is not run).
  bool has_mixed = false;
};

// The experiment on the scenarios of one device (every device when empty).
// Fails when the real scenarios have fewer groups than folds.
Expected<WgExperiment> wgsize_experiment(const WgModelSpec& spec, const WgDataset& d, const std::string& device,
                                         const ExperimentOptions& options);

struct MappingArm {
  Interval accuracy, balanced_accuracy;
  Interval oracle_share;    // mean of runtime(oracle device) / runtime(predicted)
  Interval speedup_static;  // geometric mean of runtime(static device) / runtime(predicted)
};

struct MappingExperiment {
  std::string model;
  size_t real_rows = 0, real_groups = 0, synthetic_rows = 0, synthetic_groups = 0;
  Device static_device = Device::kGpu;  // the best static device on the real rows
  double static_accuracy = 0, static_balanced_accuracy = 0, static_oracle_share = 0;
  double oracle_speedup_static = 0;  // geometric mean of runtime(static) / runtime(oracle)
  MappingArm real, mixed;
  Interval gain;  // mixed - real oracle share
  bool has_mixed = false;
};

Expected<MappingExperiment> mapping_experiment(const MappingModelSpec& spec, const std::vector<MappingRow>& rows,
                                               const ExperimentOptions& options);

}  // namespace clgen::predict
