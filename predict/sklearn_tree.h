// Entropy decision trees learned by scikit-learn (Debian's python3-sklearn)
// in a child process, and evaluated here. OpenCV's DTrees splits by Gini
// impurity only and has no minimum leaf size, so Grewe et al.'s tree
// (entropy, max depth 5, at least 5 samples per leaf) is learned by the
// library that defines those parameters; the learned nodes come back as JSON.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "predict/model.h"
#include "support/status.h"

namespace clgen::predict {

// A learned binary tree: node i tests x[feature] <= threshold (go left) or
// is a leaf (left == -1) predicting `label`.
struct DecisionTree {
  std::vector<int> left, right, feature, label;
  std::vector<double> threshold;
  int predict(const float* x) const;
};

// One training set for fit_sklearn_trees().
struct TreeTrainingSet {
  const Matrix* x = nullptr;
  const std::vector<double>* y = nullptr;  // class ids
};

// Learns one tree per set in a single python3 process (one start-up for a
// whole cross-validation). Uses params.max_depth, params.min_samples as the
// minimum leaf size, and params.seed. Fails with kUnavailable when python3 or
// scikit-learn is missing; the interpreter is $CLGEN_PYTHON, else
// /usr/bin/python3 when present, else python3 on PATH.
Expected<std::vector<DecisionTree>> fit_sklearn_trees(const std::vector<TreeTrainingSet>& sets,
                                                      const ModelParams& params);

// A Model ("sktree") over a tree: trained through fit_sklearn_trees(), or
// wrapping an already learned tree.
std::unique_ptr<Model> make_sklearn_tree_model(const ModelParams& params);
std::unique_ptr<Model> make_sklearn_tree_model(const ModelParams& params, DecisionTree tree,
                                               size_t feature_count);
// Loads a model file written by a "sktree" model's save() (JSON).
Expected<std::unique_ptr<Model>> load_sklearn_tree_model(const std::string& path);

}  // namespace clgen::predict
