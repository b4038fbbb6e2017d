// Device-mapping models on the published reference data (PACT'17 folds):
// the Grewe tree reproduces the published accuracy, our best model beats
// DeepTune's, and models survive a save/load round trip.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "predict/mapping.h"

namespace clgen::predict {
namespace {

const std::string kData = std::string(CLGEN_TEST_DATA) + "/devmap/";

std::vector<MappingRow> load(const std::string& platform) {
  auto rows = load_mapping_csv(kData + platform + ".csv");
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  Status st = assign_folds(*rows, kData + "folds-" + platform + ".csv");
  EXPECT_TRUE(st.ok()) << st.message();
  return *rows;
}

// The scikit-learn entropy tree needs python3-sklearn; skip with the reason otherwise.
bool sklearn_missing(const Expected<MappingEvaluation>& ev) {
  return !ev.ok() && ev.status().code() == ErrorCode::kUnavailable;
}

TEST(BenchmarkGroup, IsSuiteVersionAndProgram) {
  EXPECT_EQ(benchmark_group("amd-app-sdk-3.0-BinomialOption-binomial_options"),
            "amd-app-sdk-3.0-BinomialOption");
  EXPECT_EQ(benchmark_group("polybench-gpu-1.0-2mm-mm2_kernel1"), "polybench-gpu-1.0-2mm");
  EXPECT_EQ(benchmark_group("shoc-1.1.5-S3D-ratt_kernel"), "shoc-1.1.5-S3D");
  EXPECT_EQ(benchmark_group("noversion"), "noversion");
}

TEST(MappingData, LoadsAllRowsFoldsAndSeventyOnePrograms) {
  auto rows = load("amd");
  ASSERT_EQ(rows.size(), 680u);
  std::set<std::string> groups;
  for (const auto& r : rows) {
    EXPECT_GE(r.fold, 0);
    EXPECT_LE(r.fold, 9);
    groups.insert(r.group);
  }
  EXPECT_EQ(groups.size(), 71u);
}

TEST(MappingData, GreweFeaturesFollowTheirDefinitions) {
  MappingRow r;
  r.comp = 30;
  r.mem = 10;
  r.coalesced = 4;
  r.localmem = 5;
  r.transfer = 800;
  r.wgsize = 64;
  auto f = mapping_features(r, FeatureSet::kGrewe);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_FLOAT_EQ(f[0], 20.0f);   // transfer / (comp + mem)
  EXPECT_FLOAT_EQ(f[1], 0.4f);    // coalesced / mem
  EXPECT_FLOAT_EQ(f[2], 32.0f);   // localmem / mem * wgsize
  EXPECT_FLOAT_EQ(f[3], 3.0f);    // comp / mem
  EXPECT_EQ(mapping_features(r, FeatureSet::kExtended).size(), feature_names(FeatureSet::kExtended).size());
}

TEST(MappingData, FoldFileMissingARowIsAnError) {
  auto rows = load_mapping_csv(kData + "amd.csv");
  ASSERT_TRUE(rows.ok());
  rows->push_back(rows->front());
  rows->back().dataset = "no-such-dataset";
  Status st = assign_folds(*rows, kData + "folds-amd.csv");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("no-such-dataset"), std::string::npos) << st.message();
}

TEST(MappingEval, StaticMappingAndOracleMatchThePublishedFigures) {
  // Properties of the data alone: published 58.82% / 3.642 (AMD), 56.91% / 1.526 (NVIDIA).
  auto spec = *find_mapping_model("grewe-gini");
  auto amd = evaluate_mapping(spec, load("amd"), Protocol::kFolds);
  ASSERT_TRUE(amd.ok()) << amd.status().message();
  EXPECT_EQ(amd->static_device, Device::kCpu);
  EXPECT_NEAR(amd->static_accuracy, 0.5882, 0.0001);
  EXPECT_NEAR(amd->oracle_speedup, 3.642, 0.001);
  auto nv = evaluate_mapping(spec, load("nvidia"), Protocol::kFolds);
  ASSERT_TRUE(nv.ok()) << nv.status().message();
  EXPECT_EQ(nv->static_device, Device::kGpu);
  EXPECT_NEAR(nv->static_accuracy, 0.5691, 0.0001);
  EXPECT_NEAR(nv->oracle_speedup, 1.526, 0.001);
}

TEST(MappingEval, GreweTreeReproducesPublishedAccuracyWithinOnePoint) {
  // Published (PACT'17, these folds): 73.38% / 2.906 (AMD), 72.94% / 1.265 (NVIDIA).
  // The entropy tree is seeded (random_state 204) and measured 73.38% and 72.94%
  // exactly with scikit-learn 1.2.1; the one-point band is the reproduction target.
  auto spec = *find_mapping_model("grewe");
  auto amd = evaluate_mapping(spec, load("amd"), Protocol::kFolds);
  if (sklearn_missing(amd)) GTEST_SKIP() << amd.status().message();
  ASSERT_TRUE(amd.ok()) << amd.status().message();
  EXPECT_NEAR(amd->accuracy, 0.7338, 0.01);
  EXPECT_NEAR(amd->speedup, 2.906, 0.1);
  auto nv = evaluate_mapping(spec, load("nvidia"), Protocol::kFolds);
  ASSERT_TRUE(nv.ok()) << nv.status().message();
  EXPECT_NEAR(nv->accuracy, 0.7294, 0.01);
  EXPECT_NEAR(nv->speedup, 1.265, 0.05);
}

TEST(MappingEval, BestModelBeatsDeepTuneOnBothPlatforms) {
  // DeepTune: 83.68% (AMD), 80.29% (NVIDIA). Our best (OpenCV gentle boost,
  // deterministic) measured 93.24% / 89.56%; the lower bounds are DeepTune's figures.
  auto spec = *find_mapping_model("best");
  auto amd = evaluate_mapping(spec, load("amd"), Protocol::kFolds);
  ASSERT_TRUE(amd.ok()) << amd.status().message();
  EXPECT_GT(amd->accuracy, 0.8368);
  EXPECT_LT(amd->accuracy, 0.97);
  EXPECT_GT(amd->speedup, 3.336);
  auto nv = evaluate_mapping(spec, load("nvidia"), Protocol::kFolds);
  ASSERT_TRUE(nv.ok()) << nv.status().message();
  EXPECT_GT(nv->accuracy, 0.8029);
  EXPECT_GT(nv->speedup, 1.412);
}

TEST(MappingEval, LeaveOneBenchmarkOutIsHarderThanRandomFolds) {
  // With random folds, kernels of a program (and a kernel at other dataset
  // sizes) sit in both training and test folds; held out by program, none
  // does, so the same model should score lower.
  auto spec = *find_mapping_model("grewe-gini");
  auto rows = load("nvidia");
  auto folds = evaluate_mapping(spec, rows, Protocol::kFolds);
  auto lobo = evaluate_mapping(spec, rows, Protocol::kLeaveOneBenchmarkOut);
  ASSERT_TRUE(folds.ok() && lobo.ok());
  EXPECT_EQ(lobo->folds, 71u);  // one fold per program: 71 programs (data/README)
  EXPECT_LT(lobo->accuracy, folds->accuracy);
  // The folds figure is a working tree, not a broken one: above the static
  // mapping's published 56.91% on NVIDIA.
  EXPECT_GT(folds->accuracy, 0.5691);
}

TEST(MappingData, StratifiedFoldsNeverPutOneProgramInBothTrainingAndTest) {
  auto rows = load_mapping_csv(kData + "amd.csv");
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(assign_stratified_folds(*rows, 10, 204).ok());
  std::map<std::string, std::set<int>> folds_of_program;
  std::set<int> folds;
  for (const auto& r : *rows) {
    folds_of_program[r.group].insert(r.fold);
    folds.insert(r.fold);
  }
  ASSERT_EQ(folds_of_program.size(), 71u);  // the 71 programs of the published data
  for (const auto& [program, f] : folds_of_program) EXPECT_EQ(f.size(), 1u) << program;
  EXPECT_EQ(folds.size(), 10u);
  auto again = *load_mapping_csv(kData + "amd.csv");
  ASSERT_TRUE(assign_stratified_folds(again, 10, 204).ok());
  for (size_t i = 0; i < rows->size(); ++i) ASSERT_EQ((*rows)[i].fold, again[i].fold);
  EXPECT_FALSE(assign_stratified_folds(again, 1, 204).ok());
  EXPECT_FALSE(assign_stratified_folds(again, 72, 204).ok());  // 71 programs
}

TEST(MappingData, StratifiedGroupedFoldsBalanceTheOracleDevices) {
  // Four CPU-only and four GPU-only programs of two rows each, two folds:
  // each group goes where its device is scarcer, so every fold gets two
  // programs of each device: 4 CPU rows and 4 GPU rows.
  std::vector<MappingRow> rows;
  for (int g = 0; g < 8; ++g)
    for (int k = 0; k < 2; ++k) {
      MappingRow r;
      r.group = "p" + std::to_string(g);
      r.oracle = g < 4 ? Device::kCpu : Device::kGpu;
      rows.push_back(r);
    }
  for (uint64_t seed : {1, 2, 3}) {
    ASSERT_TRUE(assign_stratified_folds(rows, 2, seed).ok());
    int n[2][2] = {{0, 0}, {0, 0}};
    for (const auto& r : rows) ++n[r.fold][static_cast<int>(r.oracle)];
    for (int f = 0; f < 2; ++f) {
      EXPECT_EQ(n[f][0], 4) << "seed " << seed << " fold " << f;
      EXPECT_EQ(n[f][1], 4) << "seed " << seed << " fold " << f;
    }
  }
}

TEST(MappingScore, BalancedAccuracyAndOracleShareFollowTheirDefinitions) {
  // Three GPU-best rows and one CPU-best row; always predicting GPU is 75%
  // accurate but recalls CPU 0 and GPU 1: balanced accuracy 0.5. Its oracle
  // share is (1 + 1 + 1 + 1/4) / 4 on the CPU row's runtimes 1 (CPU) vs 4 (GPU).
  std::vector<MappingRow> rows(4);
  for (int i = 0; i < 3; ++i) {
    rows[i].oracle = Device::kGpu;
    rows[i].runtime_cpu = 2;
    rows[i].runtime_gpu = 1;
  }
  rows[3].oracle = Device::kCpu;
  rows[3].runtime_cpu = 1;
  rows[3].runtime_gpu = 4;
  std::vector<Device> gpu(4, Device::kGpu);
  EXPECT_DOUBLE_EQ(balanced_accuracy(rows, gpu), 0.5);
  EXPECT_DOUBLE_EQ(oracle_share(rows, gpu), (3 + 0.25) / 4);
  std::vector<Device> perfect = {Device::kGpu, Device::kGpu, Device::kGpu, Device::kCpu};
  EXPECT_DOUBLE_EQ(balanced_accuracy(rows, perfect), 1.0);
  EXPECT_DOUBLE_EQ(oracle_share(rows, perfect), 1.0);
}

TEST(MappingData, AGroupColumnNamesTheProgram) {
  auto dir = std::filesystem::temp_directory_path() / "clgen-mapping-group";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "g.csv") << "benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,"
                                  "transfer,wgsize,oracle,runtime_cpu,runtime_gpu,group\n"
                                  "x-1.0-p-k,d,1,0,1,0,1,0,8,64,CPU,1,2,alice/repo\n"
                                  "x-1.0-p-k,e,1,0,1,0,1,0,8,64,GPU,2,1,\n";
  auto rows = load_mapping_csv((dir / "g.csv").string());
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ((*rows)[0].group, "alice/repo");
  EXPECT_EQ((*rows)[1].group, "x-1.0-p");  // empty: from the benchmark name
  std::filesystem::remove_all(dir);
}

TEST(MappingEval, FoldProtocolWithoutFoldsIsAnError) {
  auto rows = load_mapping_csv(kData + "amd.csv");
  ASSERT_TRUE(rows.ok());
  auto ev = evaluate_mapping(*find_mapping_model("grewe-gini"), *rows, Protocol::kFolds);
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(ev.status().message().find("fold"), std::string::npos);
}

TEST(MappingModel, UnknownNameListsTheKnownModels) {
  auto m = find_mapping_model("deeptune");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("grewe"), std::string::npos) << m.status().message();
}

TEST(MappingModel, ReadbackSeparatesRowsThatGreweFeaturesCannot) {
  // Every row has the same counts and transfer (1000 bytes); the CPU wins
  // when 900 of them are read back, the GPU when 100 are. Without the split
  // of transfer, the features of opposite rows are identical, so no model
  // on them can be right on more than half; with it, one split suffices.
  std::vector<MappingRow> rows;
  for (int i = 0; i < 40; ++i) {
    MappingRow r;
    r.benchmark = "k" + std::to_string(i);
    r.comp = 4;
    r.mem = 2;
    r.coalesced = 2;
    r.transfer = 1000;
    r.wgsize = 64;
    r.readback = i % 2 ? 900 : 100;
    r.oracle = i % 2 ? Device::kCpu : Device::kGpu;
    rows.push_back(r);
  }
  auto with = MappingModel::train(*find_mapping_model("readback"), rows);
  auto without = MappingModel::train(*find_mapping_model("boost"), rows);
  ASSERT_TRUE(with.ok()) << with.status().message();
  ASSERT_TRUE(without.ok()) << without.status().message();
  double acc_with = 0, acc_without = 0, unused = 0;
  score_mapping(rows, *with->predict(rows), Device::kGpu, &acc_with, &unused);
  score_mapping(rows, *without->predict(rows), Device::kGpu, &acc_without, &unused);
  EXPECT_DOUBLE_EQ(acc_with, 1.0);
  EXPECT_LE(acc_without, 0.5);
  rows[3].readback = -1;  // a row from data without the column
  auto missing = MappingModel::train(*find_mapping_model("readback"), rows);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("readback_bytes"), std::string::npos) << missing.status().message();
}

class MappingModelRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(MappingModelRoundTrip, SavedModelPredictsTheSame) {
  auto rows = load("amd");
  auto trained = MappingModel::train(*find_mapping_model(GetParam()), rows);
  if (!trained.ok() && trained.status().code() == ErrorCode::kUnavailable)
    GTEST_SKIP() << trained.status().message();
  ASSERT_TRUE(trained.ok()) << trained.status().message();
  std::string path = (std::filesystem::temp_directory_path() /
                      ("clgen-mapping-" + std::string(GetParam()) + ".model")).string();
  ASSERT_TRUE(trained->save(path).ok());
  auto loaded = MappingModel::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->spec().name, GetParam());
  EXPECT_EQ(*trained->predict(rows), *loaded->predict(rows));
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Models, MappingModelRoundTrip,
                         ::testing::Values("grewe", "grewe-gini", "best", "svm", "knn", "mlp"));

}  // namespace
}  // namespace clgen::predict
