// Learners for the predictive models: classifiers and regressors from
// OpenCV's ml module behind one small interface, with training, prediction,
// and saving/loading to a file. OpenCV types stay out of this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/status.h"

namespace clgen::predict {

// A dense row-major matrix of features, one row per sample.
struct Matrix {
  size_t cols = 0;
  std::vector<float> values;

  size_t rows() const { return cols == 0 ? 0 : values.size() / cols; }
  const float* row(size_t r) const { return values.data() + r * cols; }
  // Appends a row; the first row fixes the number of columns.
  void add_row(const std::vector<float>& r);
};

enum class Task { kClassification, kRegression };

// Which learner and its hyper-parameters. Fields that do not apply to the
// algorithm are ignored.
struct ModelParams {
  // dtree | rtrees | boost | svm | logreg | knn | mlp | nbayes (OpenCV), or sktree:
  // scikit-learn's entropy tree (predict/sklearn_tree.h)
  std::string algorithm = "dtree";
  Task task = Task::kClassification;
  int max_depth = 5;       // dtree, rtrees, boost; 0 = the learner's default
  int min_samples = 5;     // dtree, rtrees: a node with fewer samples is not split;
                           // sktree: the minimum number of samples in a leaf
  int trees = 100;         // rtrees: forest size; boost: number of weak trees
  int active_vars = 0;     // rtrees: features tried at each split; 0 = sqrt(features), -1 = all
  int k = 5;               // knn: neighbours
  int hidden = 16;         // mlp: units in the one hidden layer
  double svm_c = 0;        // svm: 0 = choose C and gamma by internal cross-validation
  double svm_gamma = 0;
  uint64_t seed = 204;     // OpenCV's RNG is seeded with this before training
  std::string tag;         // free text saved with the model, e.g. "mapping:grewe"
};

// Names accepted in ModelParams::algorithm.
const std::vector<std::string>& algorithm_names();

// A trained (or loaded) model. Features are standardized with the training
// set's mean and deviation for the learners that depend on scale.
class Model {
 public:
  virtual ~Model() = default;

  // Fails on an unknown algorithm, a task the algorithm cannot do (boost
  // regression, nbayes regression, logreg regression), or bad params.
  static Expected<std::unique_ptr<Model>> create(const ModelParams& params);
  // Loads a model written by save(); fails naming the path.
  static Expected<std::unique_ptr<Model>> load(const std::string& path);

  // Classification targets are class ids >= 0; regression targets are values.
  // Fails on empty data, mismatched sizes, or a learner's error.
  virtual Status train(const Matrix& x, const std::vector<double>& y) = 0;
  // One prediction per row: a class id or a value.
  virtual Expected<std::vector<double>> predict(const Matrix& x) const = 0;
  // Writes the model (OpenCV's YAML, or JSON for sktree) atomically.
  virtual Status save(const std::string& path) const = 0;
  // Like save(), with `tag` in place of params().tag.
  virtual Status save_with_tag(const std::string& path, const std::string& tag) const = 0;

  virtual const ModelParams& params() const = 0;
  virtual size_t feature_count() const = 0;
};

}  // namespace clgen::predict
