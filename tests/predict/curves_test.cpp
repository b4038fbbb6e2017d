// Learning curves and domain holdouts (predict/curves.h): the group draws,
// the bootstrap averaged over draws, which items train and test, and hand-made
// mapping data where synthetic rows do or do not carry what the real rows lack.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "predict/curves.h"
#include "support/files.h"

namespace clgen::predict {
namespace {

std::vector<std::string> ten_groups() {
  std::vector<std::string> g;
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k <= i % 3; ++k) g.push_back("g" + std::to_string(i));  // 1-3 items per group
  return g;
}

TEST(GroupDraws, NeverPutAGroupInBothTrainAndTest) {
  // C(10, 3) = 120 subsets > 20 draws: seeded shuffles. Each draw holds
  // exactly 3 training groups, and the 7 others are its test groups.
  auto draws = draw_groups(ten_groups(), 3, 20, 7);
  ASSERT_TRUE(draws.ok()) << draws.status().message();
  ASSERT_EQ(draws->size(), 20u);
  for (const auto& d : *draws) {
    EXPECT_EQ(d.train.size(), 3u);
    EXPECT_EQ(d.test.size(), 7u);
    std::set<std::string> all(d.train.begin(), d.train.end());
    for (const auto& t : d.test) EXPECT_TRUE(all.insert(t).second) << t << " is in train and test";
    EXPECT_EQ(all.size(), 10u);
  }
  // No test group left, or no training group: refused.
  EXPECT_FALSE(draw_groups(ten_groups(), 10, 5, 7).ok());
  EXPECT_FALSE(draw_groups(ten_groups(), 0, 5, 7).ok());
}

TEST(GroupDraws, AreReproducibleForASeedAndDifferAcrossDraws) {
  auto a = *draw_groups(ten_groups(), 3, 20, 7);
  auto b = *draw_groups(ten_groups(), 3, 20, 7);
  auto c = *draw_groups(ten_groups(), 3, 20, 8);
  std::set<std::vector<std::string>> distinct;
  bool same_as_other_seed = true;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].train, b[i].train);
    distinct.insert(a[i].train);
    same_as_other_seed = same_as_other_seed && a[i].train == c[i].train;
  }
  // 20 draws from 120 subsets: all 20 the same would mean the draw index is
  // ignored; expect most to differ (a repeat is a 1-in-120 event per pair).
  EXPECT_GE(distinct.size(), 15u);
  EXPECT_FALSE(same_as_other_seed);
  // C(10, 9) = 10 subsets <= 20 draws: each subset exactly once, so every
  // group is the test group of exactly one draw.
  auto loo = *draw_groups(ten_groups(), 9, 20, 7);
  ASSERT_EQ(loo.size(), 10u);
  std::set<std::string> tested;
  for (const auto& d : loo) {
    ASSERT_EQ(d.test.size(), 1u);
    tested.insert(d.test[0]);
  }
  EXPECT_EQ(tested.size(), 10u);
}

TEST(DrawBootstrap, OfAConstantIsAPoint) {
  std::vector<std::vector<std::string>> tg = {{"a", "a", "b"}, {"c", "d"}};
  Interval ci = bootstrap_draws(
      tg, [](size_t, const std::vector<size_t>&) { return 0.75; }, 500, 3);
  EXPECT_DOUBLE_EQ(ci.estimate, 0.75);
  EXPECT_DOUBLE_EQ(ci.low, 0.75);
  EXPECT_DOUBLE_EQ(ci.high, 0.75);
  // The same for the group bootstrap of the k-fold experiment.
  Interval g = bootstrap_groups(
      {"a", "b", "b"}, [](const std::vector<size_t>&) { return 2.0; }, 500, 3);
  EXPECT_DOUBLE_EQ(g.low, 2.0);
  EXPECT_DOUBLE_EQ(g.high, 2.0);
}

TEST(DrawBootstrap, ResamplesDrawsAndWholeTestGroupsWithinThem) {
  // Draw 0's statistic is always 0, draw 1's the mean of its items' values;
  // draw 1 has groups x (values 0, 0) and y (1, 1). Estimate: (0 + 0.5) / 2 =
  // 0.25. A resample picks two draws with replacement, and resamples a drawn
  // draw 1 as xx, xy, yx or yy (means 0, 0.5, 0.5, 1). One pick is worth 0
  // with probability 1/2 + 1/8 = 5/8, 0.5 with 1/4 and 1 with 1/8. The
  // average of two picks is 0 with probability 25/64 (so the 2.5% point is
  // 0), 1 with 1/64 = 1.6% and 0.75 with 2 * 1/4 * 1/8 = 1/16: the 97.5%
  // point is 0.75 (about 31 of 2000 resamples reach 1, fewer than the 50
  // above it). The interval is [0, 0.75], wider than the [0, 0.5] that
  // resampling only the test groups of fixed draws would give.
  std::vector<std::vector<std::string>> tg = {{"p", "q"}, {"x", "x", "y", "y"}};
  const std::vector<double> v = {0, 0, 1, 1};
  auto stat = [&](size_t d, const std::vector<size_t>& it) {
    if (d == 0) return 0.0;
    double s = 0;
    for (size_t i : it) s += v[i];
    return s / it.size();
  };
  Interval ci = bootstrap_draws(tg, stat, 2000, 11);
  EXPECT_DOUBLE_EQ(ci.estimate, 0.25);
  EXPECT_DOUBLE_EQ(ci.low, 0.0);
  EXPECT_DOUBLE_EQ(ci.high, 0.75);
}

TEST(DomainHoldout, TrainsOnNoItemOfTheHeldOutDomain) {
  // Items 0..5 in groups of two; domains A A B B C C by group, item 6 of
  // unknown domain (it trains in every holdout). fit_score records what it
  // was given and scores 1 everywhere.
  CurveData d;
  d.groups = {"g0", "g0", "g1", "g1", "g2", "g2", "g3"};
  d.domains = {"A", "A", "B", "B", "C", "C", ""};
  d.static_share.assign(7, 0.5);
  d.fixed_ok.assign(7, 1);
  std::mutex mu;
  std::vector<std::pair<std::vector<size_t>, std::vector<size_t>>> calls;
  d.fit_score = [&](const std::vector<size_t>& train, int, const std::vector<size_t>& test,
                    uint64_t) -> Expected<std::vector<ItemScore>> {
    std::lock_guard<std::mutex> lock(mu);
    calls.push_back({train, test});
    return std::vector<ItemScore>(test.size(), ItemScore{1.0, 0.0});
  };
  CurveOptions o;
  o.resamples = 50;
  o.threads = 2;
  auto points = domain_holdout(d, {}, o);
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 3u);  // A, B, C; "" is not a domain to hold out
  ASSERT_EQ(calls.size(), 3u);    // one draw, no synthetic arm
  for (const auto& [train, test] : calls) {
    ASSERT_FALSE(test.empty());
    const std::string held = d.domains[test[0]];
    for (size_t i : test) EXPECT_EQ(d.domains[i], held);
    for (size_t i : train) EXPECT_NE(d.domains[i], held) << "item " << i << " of the held-out domain trained";
    EXPECT_EQ(train.size() + test.size(), 7u);
  }
  EXPECT_DOUBLE_EQ((*points)[0].arms[0].oracle_share.estimate, 1.0);
  EXPECT_DOUBLE_EQ((*points)[0].static_share.estimate, 0.5);
  EXPECT_FALSE(domain_holdout(d, {"Z"}, o).ok());  // no item of that domain
  d.domains.clear();
  EXPECT_FALSE(domain_holdout(d, {}, o).ok());  // no domains known
}

// Mapping rows with one varying feature: transfer (F1 = transfer / 20, the
// other Grewe features constant). A row is CPU-best when `cpu` (runtimes 1
// vs 2), else GPU-best (2 vs 1): choosing wrong costs half the oracle either way.
MappingRow mapping_row(const std::string& group, const std::string& origin, double transfer, bool cpu,
                       double comp = 10) {
  static int n = 0;
  MappingRow r;
  r.benchmark = fmt::format("{}-k{}", group, n++);
  r.dataset = "1024";
  r.group = group;
  r.origin = origin;
  r.comp = comp;
  r.mem = 10;
  r.coalesced = 5;
  r.transfer = transfer;
  r.wgsize = 64;
  r.runtime_cpu = cpu ? 1 : 2;
  r.runtime_gpu = cpu ? 2 : 1;
  r.oracle = cpu ? Device::kCpu : Device::kGpu;
  return r;
}

CurveOptions few_draws(std::vector<int> ks) {
  CurveOptions o;
  o.train_groups = std::move(ks);
  o.draws = 20;
  o.resamples = 400;
  o.threads = 2;
  return o;
}

TEST(MappingCurve, SyntheticRowsThatRevealTheThresholdGainWhenRealGroupsAreOneSided) {
  // 8 real programs, each one-sided: programs 0-3 have only GPU-best rows
  // (transfer 100-400), programs 4-7 only CPU-best rows (transfer 1e5-4e5).
  // With k = 1 training program the real rows hold one class, so the model
  // predicts that device everywhere: right on the 3 test programs of its
  // class, half the oracle on the 4 of the other: share (3 + 4 * 0.5) / 7 =
  // 5/7, in every one of the C(8, 1) = 8 draws. The synthetic rows cover both
  // sides of the threshold (transfer 50-500 GPU, 5e4-5e5 CPU), so a tree
  // trained with them splits between 500 and 5e4 and is right on every real
  // row: share 1. Gain 1 - 5/7 = 2/7. With every program but one (k = 7) the
  // real rows hold both classes and the tree is already perfect: gain 0.
  MappingCurveInput in;
  for (int g = 0; g < 8; ++g)
    for (double t : {100.0, 200.0, 300.0, 400.0})
      in.real.push_back(mapping_row("repo" + std::to_string(g), "corpus", g < 4 ? t : t * 1000, g >= 4));
  std::vector<MappingRow> syn;
  for (int s = 0; s < 10; ++s) {
    syn.push_back(mapping_row("synthetic-" + std::to_string(s), "synthetic", 50.0 + 50 * s, false));
    syn.push_back(mapping_row("synthetic-" + std::to_string(s), "synthetic", 5e4 + 5e4 * s, true));
  }
  // A second synthetic set of the same size, noise: 20 rows with identical
  // features (F4 = 100, where every real row has F4 = 1) and alternating
  // labels. A split on F4 keeps them apart from the real rows, which stay one
  // class at k = 1: the model answers the training program's device, 5/7 as
  // on real rows alone, so against the first set it is 5/7 - 1 = -2/7.
  std::vector<MappingRow> noise;
  for (int s = 0; s < 20; ++s)
    noise.push_back(mapping_row("synthetic-n" + std::to_string(s), "synthetic", 200, s % 2 == 0, 1000));
  in.synthetic = {syn, noise};
  in.arm_names = {"real+synthetic", "real+noise"};
  auto data = mapping_curve_data(*find_mapping_model("grewe-gini"), in, false, {});
  ASSERT_TRUE(data.ok()) << data.status().message();
  auto points = learning_curve(*data, few_draws({1, kAllGroups}));
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 2u);
  EXPECT_NEAR((*points)[0].arms[2].oracle_share.estimate, 5.0 / 7, 1e-9);
  EXPECT_NEAR((*points)[0].versus_first[1].estimate, -2.0 / 7, 1e-9);
  EXPECT_LT((*points)[0].versus_first[1].high, 0.0);
  EXPECT_DOUBLE_EQ((*points)[0].versus_first[0].estimate, 0.0);  // the first set against itself
  const CurvePoint& one = (*points)[0];
  EXPECT_EQ(one.k, 1);
  EXPECT_EQ(one.draws, 8u);
  EXPECT_NEAR(one.arms[0].oracle_share.estimate, 5.0 / 7, 1e-9);
  EXPECT_NEAR(one.arms[1].oracle_share.estimate, 1.0, 1e-9);
  EXPECT_NEAR(one.gain[0].estimate, 2.0 / 7, 1e-9);
  // Each draw's gain is half the share of its resampled test programs of the
  // other class (mean 4/7); averaged over 8 draws its spread is ~0.03, so
  // the 95% interval stays well above 0.
  EXPECT_GT(one.gain[0].low, 0.15);
  EXPECT_DOUBLE_EQ(one.draws_gaining[0], 1.0);
  const CurvePoint& all = (*points)[1];
  EXPECT_EQ(all.k, 7);
  EXPECT_EQ(all.draws, 8u);  // C(8, 7): each program held out once
  EXPECT_NEAR(all.arms[0].oracle_share.estimate, 1.0, 1e-9);
  // Speedup over the static device: the 16 GPU-best and 16 CPU-best real rows
  // tie, so the static device is the GPU (ties: GPU); a perfect choice is 2x
  // faster on a CPU program's rows and equal on a GPU program's. Averaged over
  // the 8 draws as logs: (4 log 2 + 4 * 0) / 8, so sqrt(2).
  EXPECT_NEAR(all.arms[0].speedup_fixed.estimate, std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(all.gain[0].estimate, 0.0, 1e-9);
  EXPECT_DOUBLE_EQ(all.draws_gaining[0], 0.0);
}

TEST(MappingCurve, NoiseSyntheticRowsGainNothingWhereRealGroupsAlreadyShowTheThreshold) {
  // 6 real programs, each with both classes (GPU-best at transfer 100-600,
  // CPU-best at 1e5-6e5): one program already teaches the threshold, so the
  // tree trained on real rows alone is right everywhere (share 1 at k = 1 and
  // k = 5). The synthetic rows are noise: 20 rows with identical features
  // (transfer 200, comp 1000 so F4 = 100 where real rows have F4 = 1) and
  // alternating labels. No split separates their labels, and a split on F4
  // (or F1) keeps them apart from the real rows, whose leaves stay pure: the
  // real+synthetic tree is also right on every real row, and the gain is 0.
  MappingCurveInput in;
  for (int g = 0; g < 6; ++g)
    for (int i = 1; i <= 6; ++i) {
      in.real.push_back(mapping_row("repo" + std::to_string(g), "corpus", 100.0 * i, false));
      in.real.push_back(mapping_row("repo" + std::to_string(g), "corpus", 1e5 * i, true));
    }
  std::vector<MappingRow> noise;
  for (int s = 0; s < 20; ++s)
    noise.push_back(mapping_row("synthetic-" + std::to_string(s), "synthetic", 200, s % 2 == 0, 1000));
  in.synthetic = {noise};
  in.arm_names = {"real+synthetic"};
  auto data = mapping_curve_data(*find_mapping_model("grewe-gini"), in, false, {});
  ASSERT_TRUE(data.ok()) << data.status().message();
  auto points = learning_curve(*data, few_draws({1, kAllGroups}));
  ASSERT_TRUE(points.ok()) << points.status().message();
  for (const auto& p : *points) {
    EXPECT_NEAR(p.arms[0].oracle_share.estimate, 1.0, 1e-9) << "k " << p.k;
    EXPECT_NEAR(p.arms[1].oracle_share.estimate, 1.0, 1e-9) << "k " << p.k;
    EXPECT_NEAR(p.gain[0].estimate, 0.0, 1e-9) << "k " << p.k;
    EXPECT_NEAR(p.gain[0].low, 0.0, 1e-9) << "k " << p.k;
    EXPECT_NEAR(p.gain[0].high, 0.0, 1e-9) << "k " << p.k;
    // Half the real rows are CPU-best at half the GPU's runtime: perfect
    // choices are 2x faster there and equal elsewhere, so the speedup over
    // static GPU is sqrt(2) (a geometric mean over rows).
    EXPECT_NEAR(p.arms[0].speedup_fixed.estimate, std::sqrt(2.0), 1e-9) << "k " << p.k;
    EXPECT_NEAR(p.static_share.estimate, 0.75, 1e-9) << "k " << p.k;
  }
}

TEST(SyntheticSets, SplitByGroupAndEqualizeKeepWholeGroupsOfEqualCount) {
  std::vector<MappingRow> rows;
  for (int s = 0; s < 7; ++s)
    for (int k = 0; k < 2; ++k) rows.push_back(mapping_row("synthetic-" + std::to_string(s), "synthetic", 100, k));
  auto [a, b] = split_by_group(rows, 5);
  // 7 groups of 2 rows: 4 groups in the first half, 3 in the second.
  EXPECT_EQ(a.size(), 8u);
  EXPECT_EQ(b.size(), 6u);
  std::set<std::string> ga, gb;
  for (const auto& r : a) ga.insert(r.group);
  for (const auto& r : b) gb.insert(r.group);
  for (const auto& g : ga) EXPECT_EQ(gb.count(g), 0u) << g << " is in both halves";
  std::vector<std::vector<MappingRow>> sets = {a, b};
  equalize_synthetic(sets, 5);
  EXPECT_EQ(sets[0].size(), 6u);  // cut to 3 groups, the smaller set's count
  EXPECT_EQ(sets[1].size(), 6u);
}

TEST(SyntheticSets, SplitBySteeringPutsUndirectedFirstAndNamesEachArm) {
  std::vector<MappingRow> rows;
  const char* steering[] = {"explore", "", "features", "undirected", "explore"};
  for (int s = 0; s < 5; ++s) {
    rows.push_back(mapping_row("synthetic-" + std::to_string(s), "synthetic", 100, 0));
    rows.back().steering = steering[s];
  }
  auto [sets, names] = split_by_steering(rows);
  // An empty steering (an export from before the column) is undirected.
  ASSERT_EQ(names, (std::vector<std::string>{"real+undirected", "real+explore", "real+features"}));
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].size(), 2u);
  EXPECT_EQ(sets[1].size(), 2u);
  EXPECT_EQ(sets[2].size(), 1u);
  for (const auto& r : sets[1]) EXPECT_EQ(r.steering, "explore");
}

TEST(MappingSizes, OracleOverStaticPerSizeFindsTheTwoSidedSizes) {
  // Size 256: 2 real GPU-best rows (the static device is always right: 1.0).
  // Size 4096: 2 real rows, one CPU-best with runtimes 1 vs 2: static (ties:
  // GPU) loses 2x on one row of two, geometric mean sqrt(2) = 1.414 >= 1.2.
  std::vector<MappingRow> rows = {mapping_row("a", "corpus", 1, false), mapping_row("b", "corpus", 1, false),
                                  mapping_row("a", "corpus", 1, true), mapping_row("b", "corpus", 1, false),
                                  mapping_row("s", "synthetic", 1, true)};
  rows[0].dataset = rows[1].dataset = "256";
  rows[2].dataset = rows[3].dataset = rows[4].dataset = "4096";
  auto sizes = mapping_sizes(rows);
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[0].size, "256");  // numeric order, not "256" < "4096" by luck: see the third size below
  EXPECT_DOUBLE_EQ(sizes[0].real_oracle_over_static, 1.0);
  EXPECT_EQ(sizes[1].real_rows, 2u);
  EXPECT_EQ(sizes[1].real_cpu, 1u);
  EXPECT_EQ(sizes[1].synthetic_cpu, 1u);
  EXPECT_NEAR(sizes[1].real_oracle_over_static, std::sqrt(2.0), 1e-12);
  // All three rows at 4096: 2 CPU-best of 3, static CPU, wrong on one row by 2x: 2^(1/3).
  EXPECT_NEAR(sizes[1].all_oracle_over_static, std::cbrt(2.0), 1e-12);
  EXPECT_EQ(two_sided_sizes(sizes, 1.2), std::vector<std::string>{"4096"});
  rows.push_back(mapping_row("c", "corpus", 1, false));
  rows.back().dataset = "65536";
  auto three = mapping_sizes(rows);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[2].size, "65536");  // as text "65536" < "4096"; numerically last
}

TEST(DomainMap, ReadsManifestColumnsAndLaterFilesWin) {
  auto dir = std::filesystem::temp_directory_path() / ("clgen-domains-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string a = (dir / "MANIFEST.tsv").string(), b = (dir / "extra.tsv").string();
  ASSERT_TRUE(write_file_atomic(a, "repository\tcommit\tdomain\no/x\tabc\tlinear algebra\no/y\tdef\timages\n").ok());
  ASSERT_TRUE(write_file_atomic(b, "group\tdomain\no/y\tvideo\npackage:p\tphysics\n").ok());
  auto m = read_domain_map({a, b});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->at("o/x"), "linear algebra");
  EXPECT_EQ(m->at("o/y"), "video");
  EXPECT_EQ(m->at("package:p"), "physics");
  ASSERT_TRUE(write_file_atomic(b, "name\tarea\nx\ty\n").ok());
  auto bad = read_domain_map({b});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(b), std::string::npos) << bad.status().message();
  std::filesystem::remove_all(dir);
}

TEST(WgsizeCurve, AOneSizeTableIsAtTheOracleForEveryK) {
  // 2x1 is the fastest size in every scenario (runtimes 3, 1, 2 for 1x1, 2x1,
  // 4x1): any model that picks it is at 100% of oracle; the best fixed size
  // is 2x1 too, so the fixed choice's share is 1 and every speedup over it 1.
  std::string t =
      "host,dev_name,dev_count,kern_checksum,north,south,east,west,data_width,data_height,max_wg_size,"
      "origin,group,comp,rational,mem,localmem,coalesced,atomic,1x1,2x1,4x1\n";
  auto add = [&](const std::string& kernel, const std::string& origin, const std::string& group, int comp) {
    for (int w : {1024, 4096})
      t += fmt::format("p,dev,1,{},0,0,0,0,{},1,4,{},{},{},0,1,0,1,0,3,1,2\n", kernel, w, origin, group, comp);
  };
  for (int k = 0; k < 8; ++k) add("r" + std::to_string(k), "corpus", "repo" + std::to_string(k / 2), k);
  for (int k = 0; k < 3; ++k) add("s" + std::to_string(k), "synthetic", "synthetic-" + std::to_string(k), k);
  auto path = std::filesystem::temp_directory_path() / ("clgen-wg-curve-" + std::to_string(::getpid()) + ".csv");
  ASSERT_TRUE(write_file_atomic(path.string(), t).ok());
  auto d = load_wgsize_csv(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  auto data = wgsize_curve_data(*find_wgsize_model("tree-nn"), *d, "dev", false, {});
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->groups.size(), 16u);  // 8 real kernels x 2 sizes, in 4 repositories
  ASSERT_EQ(data->arm_items, std::vector<size_t>{6});
  auto points = learning_curve(*data, few_draws({1, 2, kAllGroups}));
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].draws, 4u);  // C(4, 1)
  EXPECT_EQ((*points)[1].draws, 6u);  // C(4, 2)
  EXPECT_EQ((*points)[2].k, 3);
  for (const auto& p : *points) {
    EXPECT_DOUBLE_EQ(p.static_share.estimate, 1.0);
    for (const auto& a : p.arms) {
      EXPECT_NEAR(a.oracle_share.estimate, 1.0, 1e-12) << a.name << " k " << p.k;
      EXPECT_NEAR(a.speedup_fixed.estimate, 1.0, 1e-12) << a.name << " k " << p.k;
    }
    EXPECT_NEAR(p.gain[0].estimate, 0.0, 1e-12);
  }
}

TEST(WgsizeCurve, BySteeringMakesOneArmPerSteeringWithTheSameNumberOfKernels) {
  std::string t =
      "host,dev_name,dev_count,kern_checksum,north,south,east,west,data_width,data_height,max_wg_size,"
      "origin,steering,group,comp,rational,mem,localmem,coalesced,atomic,1x1,2x1,4x1\n";
  auto add = [&](const std::string& kernel, const std::string& origin, const std::string& steering,
                 const std::string& group) {
    for (int w : {1024, 4096})
      t += fmt::format("p,dev,1,{},0,0,0,0,{},1,4,{},{},{},1,0,1,0,1,0,3,1,2\n", kernel, w, origin, steering, group);
  };
  for (int k = 0; k < 4; ++k) add("r" + std::to_string(k), "corpus", "", "repo" + std::to_string(k / 2));
  // 3 undirected kernels, 2 steered at features, 4 steered at explore targets.
  const std::vector<std::pair<std::string, int>> arms = {{"undirected", 3}, {"features", 2}, {"explore", 4}};
  int n = 0;
  for (const auto& [steering, count] : arms)
    for (int k = 0; k < count; ++k, ++n)
      add("s" + std::to_string(n), "synthetic", steering, "synthetic-" + std::to_string(n));
  auto path = std::filesystem::temp_directory_path() / ("clgen-wg-steer-" + std::to_string(::getpid()) + ".csv");
  ASSERT_TRUE(write_file_atomic(path.string(), t).ok());
  auto d = load_wgsize_csv(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const auto& spec = *find_wgsize_model("tree-nn");

  auto pooled = wgsize_curve_data(spec, *d, "dev", false, {});
  ASSERT_TRUE(pooled.ok()) << pooled.status().message();
  EXPECT_EQ(pooled->arms, std::vector<std::string>{"real+synthetic"});
  EXPECT_EQ(pooled->arm_items, std::vector<size_t>{18});  // 9 kernels x 2 sizes

  auto split = wgsize_curve_data(spec, *d, "dev", false, {}, /*by_steering=*/true, 7);
  ASSERT_TRUE(split.ok()) << split.status().message();
  EXPECT_EQ(split->arms, (std::vector<std::string>{"real+undirected", "real+explore", "real+features"}));
  // Each cut to the smallest arm's 2 kernels, whole (both sizes of a kernel stay).
  EXPECT_EQ(split->arm_items, (std::vector<size_t>{4, 4, 4}));
  auto points = learning_curve(*split, few_draws({1}));
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ((*points)[0].arms.size(), 4u);  // real only, then the three synthetic arms
  EXPECT_EQ((*points)[0].versus_first.size(), 3u);
}

}  // namespace
}  // namespace clgen::predict
