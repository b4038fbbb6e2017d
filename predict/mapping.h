// CPU/GPU device mapping: the dataset (static + dynamic features, runtimes on
// both devices), Grewe et al.'s features, named models, and evaluation by
// k-fold (a fold file, e.g. PACT'17's) or leave-one-benchmark-out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "predict/model.h"
#include "support/status.h"

namespace clgen::predict {

enum class Device { kCpu = 0, kGpu = 1 };
const char* device_name(Device d);  // "CPU" | "GPU"

struct MappingRow {
  std::string benchmark;  // <suite>-<version>-<program>-<kernel>
  std::string dataset;
  double comp = 0, rational = 0, mem = 0, localmem = 0, coalesced = 0, atomic = 0;
  double transfer = 0, wgsize = 0;
  Device oracle = Device::kCpu;
  double runtime_cpu = 0, runtime_gpu = 0;
  std::string group;  // the program the kernel belongs to: "<suite>-<version>-<program>"
  std::string origin;    // clgen's exports: "synthetic", "corpus" or "file"; empty when absent
  double readback = -1;  // clgen's exports: bytes read back after the kernel; -1 when absent
  std::string steering;  // clgen's exports: how a synthetic kernel was sampled (undirected, features, explore)
  int fold = -1;      // from a fold file; -1 = none
};

// The program of a benchmark name: the suite, its version (the first token
// shaped like 1.2 or 1.2.3) and the token after it; the whole name if there
// is no version token.
std::string benchmark_group(const std::string& benchmark);

// Loads a mapping CSV with columns benchmark, dataset, comp, rational, mem,
// localmem, coalesced, atomic, transfer, wgsize, oracle (CPU|GPU),
// runtime_cpu, runtime_gpu (extra columns are ignored; an optional `group`
// column names each row's program, else benchmark_group(benchmark) does; optional
// `origin`, `steering` and `readback_bytes` columns fill those fields). Fails naming the file,
// line and column on a missing column or bad value, and on a file with no rows.
Expected<std::vector<MappingRow>> load_mapping_csv(const std::string& path);

// Sets each row's fold from a CSV with columns benchmark, dataset, fold
// (1-based or 0-based; stored as given). Fails if a row has no fold or the
// fold file names a row that is not in the data.
Status assign_folds(std::vector<MappingRow>& rows, const std::string& folds_path);

// Without a fold file: stratified k-fold grouped by program (MappingRow::group,
// which holds every kernel of the program): grouped_stratified_folds() over
// the rows' groups and oracle devices, so no kernel is in both training and
// test. Fails when k < 2 or there are fewer groups than folds.
Status assign_stratified_folds(std::vector<MappingRow>& rows, int k, uint64_t seed);

// Feature sets over a row.
enum class FeatureSet {
  kGrewe,        // F1..F4
  kExtended,     // F1..F4 + the raw counts comp rational mem localmem coalesced atomic transfer wgsize
  kExtendedLog,  // kExtended with log1p() on the raw counts (for scale-sensitive learners)
  // kExtended + readback (bytes read back after the kernel) and transfer -
  // readback (bytes copied in): clgen's exports only (readback_bytes column)
  kReadback,
};
std::vector<std::string> feature_names(FeatureSet set);
std::vector<float> mapping_features(const MappingRow& row, FeatureSet set);

// A named mapping model: a learner and the features it sees.
struct MappingModelSpec {
  std::string name;
  std::string description;
  FeatureSet features = FeatureSet::kGrewe;
  ModelParams params;
};

// The named models: grewe, extended, best, and one per learner
// (rtrees, boost, svm, knn, mlp, logreg, nbayes) on the extended-log features,
// and readback (boost on kReadback; needs a readback_bytes column).
const std::vector<MappingModelSpec>& mapping_models();
Expected<MappingModelSpec> find_mapping_model(const std::string& name);

// A model trained on mapping rows, predicting the faster device.
class MappingModel {
 public:
  static Expected<MappingModel> train(const MappingModelSpec& spec,
                                      const std::vector<MappingRow>& rows);
  // Loads a file written by save(); the spec's name is stored beside the learner.
  static Expected<MappingModel> load(const std::string& path);
  Expected<std::vector<Device>> predict(const std::vector<MappingRow>& rows) const;
  Status save(const std::string& path) const;
  const MappingModelSpec& spec() const { return spec_; }

 private:
  MappingModelSpec spec_;
  std::shared_ptr<Model> model_;
};

enum class Protocol {
  kFolds,                  // the rows' fold column (e.g. PACT'17's stratified 10 folds)
  kLeaveOneBenchmarkOut,   // one fold per program (MappingRow::group)
};

struct MappingEvaluation {
  std::string model;
  Protocol protocol = Protocol::kFolds;
  size_t rows = 0;
  size_t folds = 0;
  Device static_device = Device::kCpu;  // the device that is fastest on most rows
  double accuracy = 0;                  // fraction of rows where prediction == oracle
  double balanced_accuracy = 0;         // mean of the per-device recalls (0.5 for a constant guess)
  double static_accuracy = 0;
  // Mean over rows of runtime(oracle) / runtime(chosen): the share of the
  // oracle's performance, for the model and for the static device.
  double oracle_share = 0;
  double static_oracle_share = 0;
  // Mean over rows of runtime(static device) / runtime(predicted device).
  double speedup = 0;
  double oracle_speedup = 0;            // the same with the oracle's choice
  std::vector<Device> predictions;      // one per row, in input order
};

// Cross-validates `spec` on `rows` under `protocol`. kFolds needs every row's
// fold set. Fails on empty data or a learner error.
Expected<MappingEvaluation> evaluate_mapping(const MappingModelSpec& spec,
                                             const std::vector<MappingRow>& rows,
                                             Protocol protocol);

// Accuracy and mean speedup over `static_device` of given predictions.
void score_mapping(const std::vector<MappingRow>& rows, const std::vector<Device>& predictions,
                   Device static_device, double* accuracy, double* speedup);
// Mean of the recall of each oracle device present in `rows` (0 on no rows).
double balanced_accuracy(const std::vector<MappingRow>& rows, const std::vector<Device>& predictions);
// Mean over rows of runtime(oracle) / runtime(predicted) (0 on no rows).
double oracle_share(const std::vector<MappingRow>& rows, const std::vector<Device>& predictions);
// The device that is the oracle on most rows (ties: GPU).
Device best_static_device(const std::vector<MappingRow>& rows);

}  // namespace clgen::predict
