// When do synthetic kernels help? Learning curves over the number of real
// program groups trained on (k groups drawn at random, repeated draws, tested
// on the held-out real groups) and domain holdouts (train on the other
// domains, test on one), each arm (real only; real + a synthetic set)
// scored on the same held-out real items, with 95% bootstrap intervals over
// the test groups averaged over the draws, and paired gains.
//
// The engine works on a CurveData: real items with groups (and domains), and
// a function that trains on some real items (plus a synthetic set) and scores
// other real items. mapping_curve_data() and wgsize_curve_data() build it for
// the two tasks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "predict/folds.h"
#include "predict/mapping.h"
#include "predict/wgsize.h"
#include "support/status.h"

namespace clgen::predict {

// One scored real item: its share of the oracle (oracle runtime / chosen
// runtime) and log(runtime of the fixed choice / runtime of the chosen one).
struct ItemScore {
  double share = 0, log_speedup = 0;
};

struct CurveData {
  std::vector<std::string> groups;   // per real item: its program group
  std::vector<std::string> domains;  // per real item: its domain ("" = unknown); empty = none known
  std::vector<double> static_share;  // per real item: the share of oracle of the fixed choice
  std::vector<char> fixed_ok;        // per real item: log_speedup is defined (the fixed choice ran)
  std::vector<std::string> arms;     // names of the synthetic sets (arm 0, real only, is implicit)
  std::vector<size_t> arm_items;     // per synthetic set: its item count (for the report)
  // Trains on the real items `train` plus synthetic set `arm` (-1: none) and
  // scores the real items `test`, one ItemScore each.
  std::function<Expected<std::vector<ItemScore>>(const std::vector<size_t>& train, int arm,
                                                 const std::vector<size_t>& test, uint64_t seed)>
      fit_score;
};

struct CurveOptions {
  std::vector<int> train_groups;  // k values of learning_curve(); kAllGroups = every real group but one
  int draws = 20;                 // draws of k groups per point (every subset once when there are fewer)
  int resamples = 1000;           // bootstrap resamples over each draw's test groups
  uint64_t seed = 204;
  unsigned threads = 0;  // 0 = the cores, at most 16
};
inline constexpr int kAllGroups = -1;

// One draw of k training groups; the other groups are its test groups.
struct GroupDraw {
  std::vector<std::string> train, test;  // sorted
};

// Up to `draws` draws of `k` of the distinct `groups` for training (the rest
// for test). When there are at most `draws` subsets of size k, each is drawn
// once (in lexicographic order); else `draws` seeded shuffles (seed, k and the
// draw's index), so draws are reproducible and differ from one another.
// Fails when k < 1 or k >= the number of distinct groups (no test group left).
Expected<std::vector<GroupDraw>> draw_groups(const std::vector<std::string>& groups, int k, int draws, uint64_t seed);

// A 95% percentile bootstrap of a statistic averaged over draws, in two
// stages: `test_groups[d]` is the group of each test item of draw d; a
// resample draws as many draws as there are, with replacement, and within
// each drawn draw as many of its test groups as it has, with replacement
// (whole groups), and averages statistic(d, resampled items of d). So the
// interval holds both which test programs were measured and which k training
// programs were drawn (with one test group per draw, as at k = all, the first
// stage is what varies). `estimate` is the average on the draws' full test sets.
Interval bootstrap_draws(const std::vector<std::vector<std::string>>& test_groups,
                         const std::function<double(size_t draw, const std::vector<size_t>& items)>& statistic,
                         int resamples, uint64_t seed);

struct CurveArm {
  std::string name;        // "real", then CurveData::arms
  Interval oracle_share;   // mean over test items of oracle / chosen runtime
  Interval speedup_fixed;  // geometric mean of runtime(fixed) / runtime(chosen) where the fixed choice ran
};

struct CurvePoint {
  int k = 0;           // training groups (learning curves); 0 for a domain holdout
  std::string domain;  // the held-out domain (domain holdout); "" for learning curves
  size_t draws = 0;
  double train_groups = 0, test_groups = 0, train_items = 0, test_items = 0;  // means over the draws
  Interval static_share;                // the fixed choice's share of oracle on the test items
  std::vector<CurveArm> arms;           // [0] real only, then one per synthetic set
  std::vector<Interval> gain;           // per synthetic set: its share of oracle - real only's (paired)
  std::vector<Interval> speedup_ratio;  // per synthetic set: its speedup / real only's (paired)
  std::vector<double> draws_gaining;    // per synthetic set: share of draws whose gain is > 0
  // Per synthetic set: its share of oracle - the first synthetic set's (paired;
  // 0 for the first): how two synthetic sets of the same size compare.
  std::vector<Interval> versus_first;
};

// The learning curve: one point per k of options.train_groups.
Expected<std::vector<CurvePoint>> learning_curve(const CurveData& data, const CurveOptions& options);

// One point per held-out domain (`domains`; every known domain of the real
// items when empty): train on the real items of the other domains (items of
// unknown domain included), test on the domain's. Fails when the data has
// no domains, a named domain has no real item, or a domain is all there is.
Expected<std::vector<CurvePoint>> domain_holdout(const CurveData& data, const std::vector<std::string>& domains,
                                                 const CurveOptions& options);

// Device mapping: scores real rows; each synthetic set is one arm. The model
// predicts the one device its training rows know when they all have the same
// oracle (a learner cannot be trained on one class, and any would answer
// it). The fixed choice is the best static device over all real rows.
// Groups are the rows' programs, or their kernels (benchmark) when
// `group_by_kernel`. `domain_of` maps a group (program) to its domain.
struct MappingCurveInput {
  std::vector<MappingRow> real;
  std::vector<std::vector<MappingRow>> synthetic;  // one set per arm
  std::vector<std::string> arm_names;
};
Expected<CurveData> mapping_curve_data(const MappingModelSpec& spec, MappingCurveInput input, bool group_by_kernel,
                                       const std::map<std::string, std::string>& domain_of);

// Workgroup size, on one device's scenarios (every device when empty): the
// real scenarios are scored; the synthetic ones are the one synthetic arm,
// or with `by_steering` one arm per steering ("real+undirected" first, then
// "real+explore", "real+features", ...), each cut to the same number of kernel groups
// (a shuffle seeded by `seed`). The fixed choice is the best fixed size over
// the real scenarios.
Expected<CurveData> wgsize_curve_data(const WgModelSpec& spec, const WgDataset& d, const std::string& device,
                                      bool group_by_kernel, const std::map<std::string, std::string>& domain_of,
                                      bool by_steering = false, uint64_t seed = 204);

// Group -> domain from TSV files with a header naming `repository` (or
// `group`) and `domain` columns, such as a snapshot's MANIFEST.tsv; a later
// file's entry for a group wins. Fails naming the file on a missing column.
Expected<std::map<std::string, std::string>> read_domain_map(const std::vector<std::string>& paths);

// Synthetic sets of the same size: each keeps the same number of its groups
// (the smallest set's), chosen by a seeded shuffle of the group names.
void equalize_synthetic(std::vector<std::vector<MappingRow>>& sets, uint64_t seed);

// The synthetic rows by steering (MappingRow::steering; "undirected" when
// empty): undirected first, the others in name order, with the arm name
// "real+<steering>" of each.
std::pair<std::vector<std::vector<MappingRow>>, std::vector<std::string>> split_by_steering(
    std::vector<MappingRow> rows);

// The rows split into two halves by group (a seeded shuffle of the group
// names, the first half of the groups in the first set): two synthetic sets
// of the same origin, for testing a comparison of two sets.
std::pair<std::vector<MappingRow>, std::vector<MappingRow>> split_by_group(const std::vector<MappingRow>& rows,
                                                                           uint64_t seed);

// Per global size (the rows' dataset column), whether mapping is one-sided.
struct SizeSummary {
  std::string size;
  size_t real_rows = 0, real_cpu = 0, synthetic_rows = 0, synthetic_cpu = 0;  // rows, and those CPU-best
  Device real_static = Device::kGpu;   // the best static device on the real rows of this size
  double real_oracle_over_static = 1;  // geometric mean of runtime(static) / runtime(oracle), real rows
  double all_oracle_over_static = 1;   // the same on every row of the size (its own static device)
};
// Sorted by size (numerically when every size is a number).
std::vector<SizeSummary> mapping_sizes(const std::vector<MappingRow>& rows);

// The sizes whose real rows' oracle beats their static device by at least `ratio`.
std::vector<std::string> two_sided_sizes(const std::vector<SizeSummary>& sizes, double ratio);

}  // namespace clgen::predict
