// Dataset joins on a small real workspace database: mapping rows with
// hand-derived features, origins and groups; wgsize sweep tables; device
// lookup; and the predict module reading both exports.
#include "dataset/export.h"

#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>
#include <map>
#include <set>

#include "predict/csv.h"
#include "predict/mapping.h"
#include "predict/wgsize.h"
#include "support/files.h"
#include "tests/common/temp_dir.h"
#include "tests/dataset/workspace_fixture.h"

namespace clgen::dataset {
namespace {

namespace fs = std::filesystem;
using namespace clgen::dataset::testing;

class DatasetExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    auto db = Database::open((dir_ / "clgen.db").string());
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::make_unique<Database>(std::move(*db));
  }

  // The CSV's rows keyed by the value of column `key`.
  std::map<std::string, std::map<std::string, std::string>> rows_by(const std::string& csv,
                                                                    const std::string& key) {
    auto t = predict::parse_csv(csv, "export");
    EXPECT_TRUE(t.ok()) << t.status().message();
    std::map<std::string, std::map<std::string, std::string>> out;
    int k = t->column(key);
    EXPECT_GE(k, 0);
    for (const auto& row : t->rows) {
      auto& m = out[row[k]];
      for (size_t c = 0; c < t->header.size(); ++c) m[t->header[c]] = row[c];
    }
    return out;
  }

  clgen::testing::TempDir tmp_;
  fs::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(DatasetExportTest, FindsTheDeviceBySubstringAndListsDevicesWhenNoneMatches) {
  build_sources(*db_);
  build_mapping_runs(*db_);
  auto gpu = find_run_device(*db_, "gtx 1080");
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(gpu->device, kGpu);
  EXPECT_EQ(gpu->platform, kGpuPlatform);
  auto cpu = find_run_device(*db_, "I5");
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(cpu->device, kCpu);

  auto none = find_run_device(*db_, "radeon");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.status().message().find("no runs on a device matching 'radeon'"), std::string::npos);
  EXPECT_NE(none.status().message().find(kGpu), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find(kCpu), std::string::npos) << none.status().message();

  auto both = find_run_device(*db_, "e");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(both.status().message().find("matches 2 devices"), std::string::npos);
}

TEST_F(DatasetExportTest, NoRunsTableIsNotFound) {
  auto dev = find_run_device(*db_, "gpu");
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.status().message().find("no runs"), std::string::npos);
  RunDevice a{"p", "a"}, b{"p", "b"};
  EXPECT_EQ(export_mapping(*db_, a, b).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(export_wgsize(*db_, nullptr).status().code(), ErrorCode::kNotFound);
}

TEST_F(DatasetExportTest, MappingJoinsPassingRunsOnBothDevicesWithStaticFeatures) {
  build_sources(*db_);
  build_mapping_runs(*db_);
  build_sweep_runs(*db_);  // single-device sweeps add no mapping rows
  auto r = export_mapping(*db_, {kCpuPlatform, kCpu}, {kGpuPlatform, kGpu});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows, 3u);
  EXPECT_EQ(r->kernels, 3u);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_EQ(r->notes[0], "1 left out: no stored source");  // kernel D

  auto rows = rows_by(r->csv, "kernel");
  ASSERT_EQ(rows.size(), 3u);
  auto& a = rows["A"];
  EXPECT_EQ(a["benchmark"], "alice/stencils-A-" + sha256_hex(kCorpusKernel).substr(0, 8));
  EXPECT_EQ(a["group"], "alice/stencils");
  EXPECT_EQ(a["origin"], "corpus");
  EXPECT_EQ(a["dataset"], "4096");
  EXPECT_EQ(a["kernel_sha256"], sha256_hex(kCorpusKernel));
  EXPECT_EQ(a["comp"], "2");
  EXPECT_EQ(a["rational"], "0");
  EXPECT_EQ(a["mem"], "3");
  EXPECT_EQ(a["localmem"], "0");
  EXPECT_EQ(a["coalesced"], "3");
  EXPECT_EQ(a["atomic"], "0");
  EXPECT_EQ(a["transfer"], "49152");
  EXPECT_EQ(a["wgsize"], "256");  // the GPU's automatic local size
  EXPECT_EQ(std::stod(a["runtime_cpu"]), 0.0025);  // (2000 + 500) ns
  EXPECT_EQ(std::stod(a["runtime_gpu"]), 0.0021);  // (100 + 2000) ns
  EXPECT_EQ(a["oracle"], "GPU");
  // LLVM-IR columns: the loads of a[i] and b[i], the store to a[i].
  EXPECT_EQ(a["ir_load"], "2");
  EXPECT_EQ(a["ir_store"], "1");
  EXPECT_GT(std::stol(a["ir_total"]), 3);

  auto& b1 = rows["B1"];
  EXPECT_EQ(b1["group"], "synthetic-m42-3");
  EXPECT_EQ(b1["origin"], "synthetic");
  EXPECT_EQ(b1["steering"], "undirected");  // a sample with no target
  EXPECT_EQ(a["steering"], "");             // not a sample
  EXPECT_EQ(b1["comp"] + b1["rational"] + b1["mem"] + b1["localmem"] + b1["coalesced"] + b1["atomic"],
            "001000");
  EXPECT_EQ(b1["oracle"], "CPU");
  EXPECT_EQ(b1["wgsize"], "128");

  auto& c = rows["C"];
  EXPECT_EQ(c["group"], "file:" + kFilePath);
  EXPECT_EQ(c["origin"], "file");
  EXPECT_EQ(c["dataset"], "64x64/8x8");
  EXPECT_EQ(c["global_size"], "64,64");
  EXPECT_EQ(c["comp"] + c["rational"] + c["mem"] + c["localmem"] + c["coalesced"] + c["atomic"], "304211");
  EXPECT_EQ(c["wgsize"], "64");  // the requested 8x8
  EXPECT_EQ(c["oracle"], "CPU");

  // Read-back bytes: each written __global buffer comes back whole, global
  // items x element bytes. A writes a (float): 4096 x 4; B1 writes x (int):
  // 4096 x 4; C writes out (float) and n (int, through atomic_inc) at
  // 64 x 64 items: 2 x 4096 x 4.
  EXPECT_EQ(a["readback_bytes"] + "/" + a["written_buffers"], "16384/1");
  EXPECT_EQ(b1["readback_bytes"] + "/" + b1["written_buffers"], "16384/1");
  EXPECT_EQ(c["readback_bytes"] + "/" + c["written_buffers"], "32768/2");

  // The mapping models read the export as it is, grouping by the group column.
  fs::path csv = dir_ / "mapping.csv";
  ASSERT_TRUE(write_file_atomic(csv.string(), r->csv).ok());
  auto loaded = predict::load_mapping_csv(csv.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->size(), 3u);
  std::set<std::string> groups;
  for (const auto& row : *loaded) groups.insert(row.group);
  EXPECT_EQ(groups, (std::set<std::string>{"alice/stencils", "synthetic-m42-3", "file:" + kFilePath}));
}

TEST_F(DatasetExportTest, ASteeredSampleCarriesItsSteeringIntoBothExportsAndThePredictReaders) {
  build_sources(*db_);
  build_mapping_runs(*db_);
  build_sweep_runs(*db_);
  // Sample 3 was steered toward an exploration target.
  ASSERT_TRUE(db_->exec("UPDATE samples SET target = 'corpus:abc:K', steering = 'explore' WHERE id = 3").ok());
  auto m = export_mapping(*db_, {kCpuPlatform, kCpu}, {kGpuPlatform, kGpu});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(rows_by(m->csv, "kernel")["B1"]["steering"], "explore");
  fs::path csv = dir_ / "mapping.csv";
  ASSERT_TRUE(write_file_atomic(csv.string(), m->csv).ok());
  auto loaded = predict::load_mapping_csv(csv.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::map<std::string, std::string> steering;
  for (const auto& r : *loaded) steering[r.origin] = r.steering;
  EXPECT_EQ(steering["synthetic"], "explore");
  EXPECT_EQ(steering["corpus"], "");

  // A steered sample stored before the steering column was filled: "directed".
  ASSERT_TRUE(db_->exec("UPDATE samples SET steering = NULL WHERE id = 3").ok());
  auto again = export_mapping(*db_, {kCpuPlatform, kCpu}, {kGpuPlatform, kGpu});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(rows_by(again->csv, "kernel")["B1"]["steering"], "directed");

  // The wgsize export has the column too (its scenarios here are not samples).
  auto w = export_wgsize(*db_, nullptr);
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto t = predict::parse_csv(w->csv, "wgsize");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_GE(t->column("steering"), 0);
}

TEST_F(DatasetExportTest, MappingWithNoCommonPassingKernelFailsNamingWhy) {
  build_sources(*db_);
  const std::string lost = "__kernel void D(__global int* x) { x[0] = 0; }\n";
  ASSERT_TRUE(add_run(*db_, lost, "D", "/gone/d.cl", kCpuPlatform, kCpu, "4096", "", "pass", {1}, {1}, {64}).ok());
  ASSERT_TRUE(add_run(*db_, lost, "D", "/gone/d.cl", kGpuPlatform, kGpu, "4096", "", "pass", {1}, {1}, {64}).ok());
  ASSERT_TRUE(add_run(*db_, kCorpusKernel, "A", "corpus", kGpuPlatform, kGpu, "4096", "", "pass", {1}, {1}, {64}).ok());
  auto r = export_mapping(*db_, {kCpuPlatform, kCpu}, {kGpuPlatform, kGpu});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("no kernel has passing runs on both"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("1 left out: no stored source"), std::string::npos)
      << r.status().message();
  auto same = export_mapping(*db_, {kGpuPlatform, kGpu}, {kGpuPlatform, kGpu});
  EXPECT_EQ(same.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(DatasetExportTest, WgsizeTurnsSweepsIntoAScenarioBySizeTable) {
  build_sources(*db_);
  build_mapping_runs(*db_);
  build_sweep_runs(*db_);
  auto r = export_wgsize(*db_, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows, 2u);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("1 left out: kernel x device x global size with a single requested"),
            std::string::npos)
      << r->notes[0];
  auto t = predict::parse_csv(r->csv, "wgsize");
  ASSERT_TRUE(t.ok());
  std::vector<std::string> sizes(t->header.end() - 6, t->header.end());
  EXPECT_EQ(sizes, (std::vector<std::string>{"8x8", "16x16", "32x1", "32x32", "64x1", "128x1"}));
  auto rows = rows_by(r->csv, "kernel");
  auto& a = rows["A"];
  EXPECT_EQ(a["dev_name"], kGpu);
  EXPECT_EQ(a["host"], kGpuPlatform);
  EXPECT_EQ(a["origin"], "corpus");
  EXPECT_EQ(a["data_width"] + "/" + a["data_height"] + "/" + a["max_wg_size"], "4096/1/1024");
  EXPECT_EQ(a["32x1"] + " " + a["64x1"] + " " + a["128x1"] + " " + a["8x8"], "0.5 0.25 0 0");
  auto& c = rows["C"];
  EXPECT_EQ(c["dev_name"], kCpu);
  EXPECT_EQ(c["data_width"] + "/" + c["data_height"], "64/64");
  EXPECT_EQ(std::stod(c["8x8"]), 0.0003);
  EXPECT_EQ(std::stod(c["16x16"]), 0.0002);
  EXPECT_EQ(c["32x32"], "0");

  // The workgroup-size models read it; A's oracle is 64x1, C's 16x16.
  fs::path csv = dir_ / "wgsize.csv";
  ASSERT_TRUE(write_file_atomic(csv.string(), r->csv).ok());
  auto d = predict::load_wgsize_csv(csv.string());
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->scenarios.size(), 2u);
  ASSERT_EQ(d->sizes.size(), 6u);
  std::set<std::string> oracles;
  for (size_t i = 0; i < 2; ++i) oracles.insert(predict::wg_size_name(d->sizes[d->oracle(i)]));
  EXPECT_EQ(oracles, (std::set<std::string>{"64x1", "16x16"}));

  // One device only.
  RunDevice cpu{kCpuPlatform, kCpu};
  auto only = export_wgsize(*db_, &cpu);
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->rows, 1u);
}

TEST_F(DatasetExportTest, TheGreweSettingChoosesTheDefinitionsOfTheFeatureColumns) {
  build_sources(*db_);
  // Reference: mem 1 (a), coalesced 1 (p[0]: p's type spells __global);
  // clgen's definitions: coalesced 0 (p is no parameter).
  const std::string alias = "__kernel void E(__global float* a) { __global float* p = a; p[0] = 1.0f; }\n";
  ASSERT_TRUE(driver::store_kernel_source(*db_, sha256_hex(alias), alias, "/data/e.cl").ok());
  for (auto [platform, device] : {std::pair{kCpuPlatform, kCpu}, std::pair{kGpuPlatform, kGpu}})
    ASSERT_TRUE(add_run(*db_, alias, "E", "/data/e.cl", platform, device, "4096", "", "pass", {10}, {10}, {64}).ok());
  auto ref = export_mapping(*db_, {kCpuPlatform, kCpu}, {kGpuPlatform, kGpu});  // the default
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  EXPECT_EQ(rows_by(ref->csv, "kernel")["E"]["coalesced"], "1");
  ExportOptions own;
  own.grewe = features::GreweDefinitions::kClgen;
  auto clgen = export_mapping(*db_, {kCpuPlatform, kCpu}, {kGpuPlatform, kGpu}, own);
  ASSERT_TRUE(clgen.ok()) << clgen.status().message();
  EXPECT_EQ(rows_by(clgen->csv, "kernel")["E"]["coalesced"], "0");
  EXPECT_EQ(rows_by(clgen->csv, "kernel")["E"]["mem"], "1");

  // The setting in a dataset config.
  auto config = [&](const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    EXPECT_TRUE(write_file_atomic(path, text).ok());
    return load_export_options(path);
  };
  auto set = config("clgen.toml", "[features]\ngrewe = \"clgen\"\n");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->grewe, features::GreweDefinitions::kClgen);
  auto empty = config("empty.toml", "");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->grewe, features::GreweDefinitions::kReference);
  auto bad = config("bad.toml", "[features]\ngrewe = \"cgo13\"\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("features.grewe"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("'cgo13'"), std::string::npos) << bad.status().message();
  auto typo = config("typo.toml", "[features]\ngrew = \"clgen\"\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("features.grew"), std::string::npos) << typo.status().message();
}

TEST_F(DatasetExportTest, WgsizeExportRoundTripsFeaturesRefusedSizesAndTheDefault) {
  build_sources(*db_);
  build_mapping_runs(*db_);
  build_sweep_runs(*db_);
  auto r = export_wgsize(*db_, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto rows = rows_by(r->csv, "kernel");
  auto& a = rows["A"];
  // A at 4096 on the GPU: 128 refused, nothing else failed; the driver's
  // automatic size grows by powers of two dividing 4096 up to the kernel's
  // limit 1024: 1024x1 (a size the sweep did not try).
  EXPECT_EQ(a["refused_sizes"], "128x1");
  EXPECT_EQ(a["failed_sizes"], "");
  EXPECT_EQ(a["default_local_size"], "1024x1");
  EXPECT_EQ(a["comp"] + a["rational"] + a["mem"] + a["localmem"] + a["coalesced"] + a["atomic"], "203030");
  EXPECT_EQ(a["group"], "alice/stencils");
  auto& c = rows["C"];
  // C at 64,64 on the CPU, kernel limit 256: 16x16 (round-robin doubling).
  EXPECT_EQ(c["refused_sizes"], "32x32");
  EXPECT_EQ(c["default_local_size"], "16x16");
  EXPECT_EQ(c["origin"], "file");

  fs::path csv = dir_ / "wgsize-rt.csv";
  ASSERT_TRUE(write_file_atomic(csv.string(), r->csv).ok());
  auto d = predict::load_wgsize_csv(csv.string());
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->scenarios.size(), 2u);
  EXPECT_TRUE(d->kernels.empty());  // the static features replace the kernel one-hot
  ASSERT_GE(d->kernel_feature_names.size(), 7u);
  EXPECT_EQ(d->kernel_feature_names[0], "log_comp");
  EXPECT_EQ(d->kernel_feature_names[6], "log_ir_total");
  for (const auto& s : d->scenarios) {
    ASSERT_EQ(s.runtimes.size(), d->sizes.size());
    if (s.kernel == sha256_hex(kCorpusKernel) + ":A") {
      EXPECT_EQ(s.group, "alice/stencils");
      EXPECT_EQ(s.origin, "corpus");
      EXPECT_DOUBLE_EQ(s.kernel_features[0], std::log1p(2.0));  // comp 2
      EXPECT_DOUBLE_EQ(s.kernel_features[2], std::log1p(3.0));  // mem 3
      EXPECT_EQ(s.default_size, -1);                            // 1024x1 is not a column: unknown
      for (size_t k = 0; k < d->sizes.size(); ++k) {
        std::string name = predict::wg_size_name(d->sizes[k]);
        double want = name == "32x1" ? 0.5 : name == "64x1" ? 0.25 : 0;
        EXPECT_DOUBLE_EQ(s.runtimes[k], want) << name;
      }
    } else {
      EXPECT_EQ(s.origin, "file");
      ASSERT_GE(s.default_size, 0);
      EXPECT_EQ(predict::wg_size_name(d->sizes[s.default_size]), "16x16");
    }
  }
}

TEST_F(DatasetExportTest, WgsizeWithoutSweepsFails) {
  build_sources(*db_);
  build_mapping_runs(*db_);
  auto r = export_wgsize(*db_, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("--local-size-sweep"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace clgen::dataset
