// Grouped cross-validation folds: every member of a group (a kernel, or the
// program it belongs to) lands in the same fold, so no kernel is ever both
// trained on and tested on; plus a percentile bootstrap over groups.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support/status.h"

namespace clgen::predict {

// Fold (0..k-1) of each item, whole groups at a time: the distinct groups,
// shuffled with `seed`, go largest first (ties in shuffled order) to the
// fold with the fewest items so far. Fails when k < 2 or there are fewer
// distinct groups than folds.
Expected<std::vector<int>> grouped_folds(const std::vector<std::string>& groups, int k, uint64_t seed);

// Like grouped_folds(), also balancing a binary label (0/1): each group
// goes to the fold where adding it leaves the per-fold counts of each label
// closest (squared error) to their even share.
Expected<std::vector<int>> grouped_stratified_folds(const std::vector<std::string>& groups,
                                                    const std::vector<int>& labels, int k, uint64_t seed);

struct Interval {
  double estimate = 0, low = 0, high = 0;  // the statistic on the data, and the 95% interval
};

// 95% percentile bootstrap over groups: `statistic` gets the item indices of
// a resample (whole groups drawn with replacement, as many as there are
// distinct groups) and returns a value; `estimate` is the statistic on all
// items. Deterministic for a seed.
Interval bootstrap_groups(const std::vector<std::string>& groups,
                          const std::function<double(const std::vector<size_t>&)>& statistic, int resamples,
                          uint64_t seed);

}  // namespace clgen::predict
