// Workgroup-size tuning: scenario x workgroup-size runtime tables, the oracle
// and baseline sizes, classifiers with fallback handlers for illegal
// predictions, runtime and relative-performance regressors, and seeded
// k-fold cross-validation (grouped by kernel) reporting % of oracle performance.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "predict/model.h"
#include "support/status.h"

namespace clgen::predict {

struct WgSize {
  int rows = 0, cols = 0;
};

struct WgScenario {
  std::string device;  // dev_name
  std::string kernel;  // kern_checksum
  double dev_count = 0, north = 0, south = 0, east = 0, west = 0;
  double data_width = 0, data_height = 0, max_wg_size = 0;
  std::vector<double> runtimes;  // one per dataset size; 0 = illegal or refused
  // Optional columns of clgen's exports (empty / -1 when absent).
  std::string group;                    // the kernel's program; folds keep a group together
  std::string origin;                   // "synthetic", "corpus" or "file"
  std::string steering;                 // a synthetic kernel's sampling: undirected, features, explore, ...
  std::vector<double> kernel_features;  // static features, in WgDataset::kernel_feature_names order
  int default_size = -1;                // the driver's automatic local size (a size index), -1 = unknown

  // What folds keep together: the program when known, else the kernel.
  const std::string& split_group() const { return group.empty() ? kernel : group; }
};

struct WgDataset {
  std::vector<WgSize> sizes;          // the "RxC" columns
  std::vector<WgScenario> scenarios;  // rows
  std::vector<std::string> devices;   // distinct device names (one-hot order)
  std::vector<std::string> kernels;   // distinct kernels (one-hot order); empty with kernel features
  // Static kernel features (from clgen's exports): when present they replace
  // the kernel one-hot, which says nothing about a kernel never trained on.
  std::vector<std::string> kernel_feature_names;

  bool legal(size_t scenario, size_t size) const { return scenarios[scenario].runtimes[size] > 0; }
  // Index of the fastest legal size; -1 when none is legal.
  int oracle(size_t scenario) const;
  // The features of a scenario: the numeric columns, device one-hot, then
  // kernel one-hot or the static kernel features.
  std::vector<float> features(size_t scenario) const;
  std::vector<std::string> feature_names() const;
};

// Loads a runtime table: columns host, dev_name, dev_count, kern_checksum,
// north, south, east, west, data_width, data_height, max_wg_size, then one
// "RxC" column per workgroup size. Scenarios with no legal size are dropped.
// Optional (clgen's exports): group, origin, steering, default_local_size ("RxC"), and
// static kernel features comp, rational, mem, localmem, coalesced, atomic
// (all six or none; log1p-scaled) with ir_total and every ir_*_density column
// (an empty field is 0).
// Fails on a missing column, a bad value, or no scenario with a legal size.
Expected<WgDataset> load_wgsize_csv(const std::string& path);

// Performance of size `s` in scenario `i`: oracle runtime / runtime (0 if illegal).
double wg_performance(const WgDataset& d, size_t i, size_t s);

// The best fixed size: the highest mean performance over all scenarios,
// counting illegal as 0 (no size is legal in every scenario of the
// published table, so a size legal everywhere may not exist).
size_t wg_baseline(const WgDataset& d, const std::vector<size_t>& scenarios);

enum class Fallback { kBaseline, kRandom, kNearestNeighbour };
const char* fallback_name(Fallback f);

// How a size is chosen.
enum class WgMethod {
  kClassifier,          // predict the oracle size; a Fallback handles illegal predictions
  kRuntimeRegressor,    // predict log runtime of every legal size, take the smallest
  kSpeedupRegressor,    // predict performance relative to the baseline, take the largest
  kOracleRegressor,     // predict performance relative to the oracle (in (0, 1]), take the largest
};

struct WgModelSpec {
  std::string name;
  WgMethod method = WgMethod::kClassifier;
  Fallback fallback = Fallback::kNearestNeighbour;
  ModelParams params;
  bool log_sizes = false;  // regressors: add log2 size features (see wgsize.cpp with_size())
};
// classifier-baseline, classifier-random, classifier-nn (random forest),
// tree-nn (one decision tree), runtime-regressor, speedup-regressor,
// oracle-regressor (random forests), and best: the oracle regressor with
// log2 size features and every feature tried at each split.
const std::vector<WgModelSpec>& wgsize_models();
Expected<WgModelSpec> find_wgsize_model(const std::string& name);

struct WgEvaluation {
  std::string model;
  size_t scenarios = 0, folds = 0;
  std::string baseline;          // "RxC"
  double oracle_fraction = 0;    // mean over scenarios of oracle runtime / chosen runtime
  double baseline_fraction = 0;  // the same for the baseline size (illegal = 0)
  size_t baseline_legal = 0;     // scenarios where the baseline is legal
  double speedup_mean = 0;       // over the baseline, on scenarios where it is legal
  double speedup_median = 0;
  double illegal_predictions = 0;  // classifiers: fraction needing the fallback
  std::vector<int> chosen;         // chosen size per scenario
};

// The features of a scenario under a model's device and kernel vocabularies
// (unknown names get all-zero one-hot columns), then its kernel features.
std::vector<float> scenario_features(const WgScenario& s, const std::vector<std::string>& devices,
                                     const std::vector<std::string>& kernels);

// A trained workgroup-size model: the learner, the vocabularies its features
// use, the size columns, and the baseline (best fixed size of its training data).
class WgsizeModel {
 public:
  static Expected<WgsizeModel> train(const WgModelSpec& spec, const WgDataset& d,
                                     const std::vector<size_t>& scenarios);
  static Expected<WgsizeModel> load(const std::string& path);
  Status save(const std::string& path) const;
  // One legal size index per scenario of `d` (which must have the model's size
  // columns); `illegal` gets the number of classifier predictions that needed
  // the fallback. `seed` drives the random fallback.
  Expected<std::vector<int>> choose(const WgDataset& d, const std::vector<size_t>& scenarios,
                                    uint64_t seed, size_t* illegal) const;
  const WgModelSpec& spec() const { return spec_; }

 private:
  WgModelSpec spec_;
  std::vector<std::string> devices_, kernels_, kernel_features_;
  std::vector<WgSize> sizes_;
  size_t baseline_ = 0;
  std::shared_ptr<Model> model_;
};

// Scores one choice per scenario of `d` (see WgEvaluation).
Expected<WgEvaluation> score_wgsize(const std::string& model, const WgDataset& d,
                                    const std::vector<int>& chosen, size_t illegal);

// How cross-validation splits scenarios.
enum class WgSplit {
  kGrouped,    // grouped_folds() over split_group(): no kernel in both training and test
  kScenarios,  // scenarios shuffled with the seed and dealt to folds: ADAPT'16's protocol on
               // the SkelCL table, where one kernel's other scenarios are in training
};

// k-fold cross-validation with `seed`. Fails on fewer groups (kGrouped) or
// scenarios (kScenarios) than folds, or a learner error.
Expected<WgEvaluation> evaluate_wgsize(const WgModelSpec& spec, const WgDataset& d, int folds, uint64_t seed,
                                       WgSplit split = WgSplit::kGrouped);

// The fold of every scenario of `d` under `split`.
Expected<std::vector<int>> wgsize_folds(const WgDataset& d, int folds, uint64_t seed, WgSplit split);

std::string wg_size_name(const WgSize& s);

}  // namespace clgen::predict
