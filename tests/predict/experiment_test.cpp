// Grouped folds, the group bootstrap, and the real vs real + synthetic
// experiment on hand-made data whose answers follow from their construction.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "predict/experiment.h"
#include "predict/folds.h"
#include "support/files.h"

namespace clgen::predict {
namespace {

TEST(GroupedFolds, EqualGroupsFillEqualFoldsAndNeverSplit) {
  // 12 groups of 3 items into 4 folds: each group goes whole to the emptiest
  // fold, so every fold holds 3 groups = 9 items.
  std::vector<std::string> groups;
  for (int g = 0; g < 12; ++g)
    for (int k = 0; k < 3; ++k) groups.push_back("g" + std::to_string(g));
  auto folds = grouped_folds(groups, 4, 99);
  ASSERT_TRUE(folds.ok()) << folds.status().message();
  std::map<std::string, std::set<int>> where;
  std::map<int, int> size;
  for (size_t i = 0; i < groups.size(); ++i) {
    where[groups[i]].insert((*folds)[i]);
    ++size[(*folds)[i]];
  }
  for (const auto& [g, f] : where) EXPECT_EQ(f.size(), 1u) << g;
  ASSERT_EQ(size.size(), 4u);
  for (const auto& [f, n] : size) EXPECT_EQ(n, 9) << "fold " << f;
  EXPECT_EQ(*grouped_folds(groups, 4, 99), *folds);  // deterministic for a seed
  EXPECT_FALSE(grouped_folds(groups, 13, 1).ok());   // 12 groups
  EXPECT_FALSE(grouped_folds(groups, 1, 1).ok());
}

TEST(GroupBootstrap, ResamplesWholeGroupsAroundTheEstimate) {
  // Group a: values 0, 0; group b: 1, 1. The estimate is the mean 0.5; a
  // resample of two whole groups has mean 0, 0.5 or 1, and with 2000
  // resamples both extremes occur (each with probability 1/4), so the 95%
  // interval is [0, 1]. A statistic that is the same on every resample has a
  // zero-width interval.
  std::vector<std::string> groups = {"a", "a", "b", "b"};
  std::vector<double> v = {0, 0, 1, 1};
  auto mean = [&](const std::vector<size_t>& it) {
    double s = 0;
    for (size_t i : it) s += v[i];
    return s / it.size();
  };
  Interval ci = bootstrap_groups(groups, mean, 2000, 5);
  EXPECT_DOUBLE_EQ(ci.estimate, 0.5);
  EXPECT_DOUBLE_EQ(ci.low, 0.0);
  EXPECT_DOUBLE_EQ(ci.high, 1.0);
  // Whole groups: a resample always has 4 items (two groups of two).
  Interval count = bootstrap_groups(
      groups, [](const std::vector<size_t>& it) { return double(it.size()); }, 500, 5);
  EXPECT_DOUBLE_EQ(count.low, 4.0);
  EXPECT_DOUBLE_EQ(count.high, 4.0);
}

// A wgsize table where 2x1 is the fastest size everywhere (runtimes 3, 1, 2
// ms for 1x1, 2x1, 4x1) and the driver's default is 4x1: every model learns
// "2x1", so it reaches 100% of oracle, ties the best fixed size (2x1), and
// is 2/1 = 2x faster than the default.
std::string uniform_table(int real_kernels, int synthetic_kernels) {
  std::string t =
      "host,dev_name,dev_count,kern_checksum,north,south,east,west,data_width,data_height,max_wg_size,"
      "origin,group,default_local_size,comp,rational,mem,localmem,coalesced,atomic,1x1,2x1,4x1\n";
  auto add = [&](const std::string& kernel, const std::string& origin, const std::string& group, int comp) {
    for (int w : {1024, 4096})
      t += fmt::format("p,dev,1,{},0,0,0,0,{},1,4,{},{},4x1,{},0,1,0,1,0,3,1,2\n", kernel, w, origin, group, comp);
  };
  for (int k = 0; k < real_kernels; ++k) add("r" + std::to_string(k), "corpus", "repo" + std::to_string(k / 2), k);
  for (int k = 0; k < synthetic_kernels; ++k)
    add("s" + std::to_string(k), "synthetic", "synthetic-" + std::to_string(k), k);
  return t;
}

TEST(WgsizeExperiment, ScoresOnlyRealKernelsAgainstOracleFixedAndDefault) {
  auto path = std::filesystem::temp_directory_path() / ("clgen-wg-exp-" + std::to_string(::getpid()) + ".csv");
  ASSERT_TRUE(write_file_atomic(path.string(), uniform_table(8, 3)).ok());
  auto d = load_wgsize_csv(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->kernels.empty());  // static features replace the kernel one-hot
  EXPECT_EQ(d->kernel_feature_names.size(), 6u);
  EXPECT_EQ(wg_size_name(d->sizes[d->scenarios[0].default_size]), "4x1");
  ExperimentOptions o;
  o.folds = 2;
  o.repeats = 2;
  o.resamples = 200;
  o.threads = 2;
  auto ex = wgsize_experiment(*find_wgsize_model("tree-nn"), *d, "dev", o);
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  EXPECT_EQ(ex->real_scenarios, 16u);  // 8 kernels x 2 global sizes
  EXPECT_EQ(ex->real_kernels, 8u);
  EXPECT_EQ(ex->real_groups, 4u);  // two kernels per repository
  EXPECT_EQ(ex->synthetic_scenarios, 6u);
  EXPECT_EQ(ex->synthetic_kernels, 3u);
  EXPECT_EQ(ex->fixed_size, "2x1");
  EXPECT_DOUBLE_EQ(ex->fixed_share, 1.0);
  EXPECT_DOUBLE_EQ(ex->oracle_over_fixed.estimate, 1.0);
  EXPECT_EQ(ex->default_known, 16u);
  EXPECT_DOUBLE_EQ(ex->default_share, 0.5);
  EXPECT_NEAR(ex->oracle_over_default.estimate, 2.0, 1e-12);
  ASSERT_TRUE(ex->has_mixed);
  for (const WgArm* a : {&ex->real, &ex->mixed}) {
    EXPECT_DOUBLE_EQ(a->oracle_share.estimate, 1.0);
    EXPECT_DOUBLE_EQ(a->oracle_share.low, 1.0);
    EXPECT_NEAR(a->speedup_fixed.estimate, 1.0, 1e-12);
    EXPECT_NEAR(a->speedup_default.estimate, 2.0, 1e-12);
  }
  EXPECT_DOUBLE_EQ(ex->gain.estimate, 0.0);
  // Two real groups for three folds would need a kernel in both sets: refused.
  ASSERT_TRUE(write_file_atomic(path.string(), uniform_table(4, 1)).ok());
  auto small = *load_wgsize_csv(path.string());
  std::filesystem::remove(path);
  o.folds = 3;
  EXPECT_FALSE(wgsize_experiment(*find_wgsize_model("tree-nn"), small, "", o).ok());
}

TEST(MappingExperiment, SyntheticRowsTrainButAreNeverScored) {
  // Real rows: the GPU wins exactly when transfer is small (a clean split on
  // F1), so a tree is perfect; the synthetic rows follow the same rule. Four
  // real programs of two kernels, each at four sizes (so a training fold has
  // the 10 rows the Gini tree needs to split).
  std::vector<MappingRow> rows;
  auto add = [&](const std::string& group, const std::string& origin, double transfer) {
    MappingRow r;
    r.benchmark = group + "-" + std::to_string(rows.size());
    r.group = group;
    r.origin = origin;
    r.comp = 10;
    r.mem = 10;
    r.coalesced = 5;
    r.transfer = transfer;
    r.wgsize = 64;
    r.runtime_cpu = transfer > 1000 ? 1 : 3;
    r.runtime_gpu = transfer > 1000 ? 2 : 1;
    r.oracle = r.runtime_cpu <= r.runtime_gpu ? Device::kCpu : Device::kGpu;
    rows.push_back(r);
  };
  for (int g = 0; g < 4; ++g)
    for (int k = 0; k < 2; ++k)
      for (double t : {100.0, 200.0, 100000.0, 200000.0}) add("repo" + std::to_string(g), "corpus", t + g + k);
  for (int s = 0; s < 3; ++s)
    for (double t : {50.0, 50000.0}) add("synthetic-" + std::to_string(s), "synthetic", t);
  ExperimentOptions o;
  o.folds = 2;
  o.repeats = 2;
  o.resamples = 100;
  o.threads = 1;
  auto ex = mapping_experiment(*find_mapping_model("grewe-gini"), rows, o);
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  EXPECT_EQ(ex->real_rows, 32u);
  EXPECT_EQ(ex->real_groups, 4u);
  EXPECT_EQ(ex->synthetic_rows, 6u);
  EXPECT_EQ(ex->synthetic_groups, 3u);
  // Half the real rows are CPU-best: the static device (ties: GPU) is right
  // on half, balanced 0.5, and its share of oracle is (1 + 1/2) / 2 (GPU on
  // a CPU row: 1 / 2).
  EXPECT_EQ(ex->static_device, Device::kGpu);
  EXPECT_DOUBLE_EQ(ex->static_accuracy, 0.5);
  EXPECT_DOUBLE_EQ(ex->static_balanced_accuracy, 0.5);
  EXPECT_DOUBLE_EQ(ex->static_oracle_share, 0.75);
  ASSERT_TRUE(ex->has_mixed);
  for (const MappingArm* a : {&ex->real, &ex->mixed}) {
    EXPECT_DOUBLE_EQ(a->accuracy.estimate, 1.0);
    EXPECT_DOUBLE_EQ(a->balanced_accuracy.estimate, 1.0);
    EXPECT_DOUBLE_EQ(a->oracle_share.estimate, 1.0);
  }
}

}  // namespace
}  // namespace clgen::predict
