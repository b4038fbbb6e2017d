// Target Grewe feature vectors for directed sampling: read from a CSV (the
// output of `clgen features` works as is) and compared with a normalized
// distance.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::sampler {

// The six static features of Grewe et al. (features/static_features.h), in
// the order of kGreweColumns.
using GreweVector = std::array<long, 6>;
inline constexpr std::array<const char*, 6> kGreweColumns = {"comp",     "rational",  "mem",
                                                             "localmem", "coalesced", "atomic"};

struct Target {
  // "file:kernel" when the CSV has those columns (as `clgen features`
  // writes), else "<source>:<line>".
  std::string label;
  GreweVector features{};
};

// Parses a targets CSV: a header naming the six Grewe columns (in any order,
// among other columns) and one target per non-blank line, each value a
// non-negative integer. A record must fit on one line. Fails naming the
// source, line and column of the first bad value or row, or the missing
// column; fails when there is no target.
Expected<std::vector<Target>> parse_targets_csv(std::string_view text, const std::string& source);
// parse_targets_csv() of the file at `path`.
Expected<std::vector<Target>> read_targets_csv(const std::string& path);

// The normalized distance of two feature vectors: the mean over the six
// features of |log(1 + a) - log(1 + b)|. The logarithm makes a difference of
// 1 in a count of 2 weigh what a difference of 10 does in a count of 20
// (counts range over orders of magnitude), independent of the target set;
// 0 exactly when every feature is equal.
double feature_distance(const GreweVector& a, const GreweVector& b);

// "comp,rational,mem,localmem,coalesced,atomic" values, comma-separated.
std::string grewe_values(const GreweVector& f);

}  // namespace clgen::sampler
