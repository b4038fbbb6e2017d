// End-to-end tests of `clgen dataset export`: CSV out for both tasks, an
// export that `clgen predict eval` cross-validates, and clear errors for
// missing devices, empty data and bad flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/files.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"
#include "tests/dataset/workspace_fixture.h"

namespace clgen::dataset {
namespace {

namespace fs = std::filesystem;
using clgen::testing::run_clgen;
using namespace clgen::dataset::testing;

class DatasetCliTest : public ::testing::Test {
 protected:
  void SetUp() override { ws_ = tmp_.path(); }
  Database db() {
    auto d = Database::open((ws_ / "clgen.db").string());
    EXPECT_TRUE(d.ok()) << d.status().message();
    return std::move(*d);
  }
  std::vector<std::string> args(std::vector<std::string> extra) {
    std::vector<std::string> a = {"--workspace", ws_.string(), "dataset", "export"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  clgen::testing::TempDir tmp_;
  fs::path ws_;
};

TEST_F(DatasetCliTest, ExportsMappingRowsAndWgsizeScenarios) {
  {
    Database d = db();
    build_sources(d);
    build_mapping_runs(d);
    build_sweep_runs(d);
  }
  std::string out = (ws_ / "mapping.csv").string();
  auto r = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "gtx", "--out", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("dataset mapping: 3 rows from 3 kernels"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 left out: no stored source"), std::string::npos) << r.err;
  auto text = read_file(out);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind("benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,transfer,"
                        "wgsize,oracle,runtime_cpu,runtime_gpu,group,origin,",
                        0),
            0u)
      << *text;

  auto w = run_clgen(args({"--task", "wgsize"}));  // to stdout
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(w.out.rfind("host,dev_name,dev_count,kern_checksum,", 0), 0u) << w.out;
  EXPECT_NE(w.err.find("dataset wgsize: 2 scenarios from 2 kernels"), std::string::npos) << w.err;
}

TEST_F(DatasetCliTest, ConfigChoosesTheGreweDefinitionsAndABadOneFailsNamingTheKey) {
  {
    Database d = db();
    build_sources(d);
    build_mapping_runs(d);
  }
  auto plain = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "gtx"}));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("(reference Grewe features)"), std::string::npos) << plain.err;
  std::string config = (ws_ / "dataset.toml").string();
  ASSERT_TRUE(write_file_atomic(config, "[features]\ngrewe = \"clgen\"\n").ok());
  auto own = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "gtx", "--config", config}));
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_NE(own.err.find("(clgen Grewe features)"), std::string::npos) << own.err;
  ASSERT_TRUE(write_file_atomic(config, "[features]\ngrewe = \"paper\"\n").ok());
  auto bad = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "gtx", "--config", config}));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("features.grewe"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");  // nothing exported
  const std::string missing = (ws_ / "missing.toml").string();
  auto absent = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "gtx", "--config", missing}));
  EXPECT_EQ(absent.exit_code, 1);
  EXPECT_NE(absent.err.find(missing), std::string::npos) << absent.err;
}

TEST_F(DatasetCliTest, PredictEvalCrossValidatesAnExport) {
  // 24 samples, each its own program: kernels with more arithmetic run
  // faster on the GPU.
  {
    Database d = db();
    build_sources(d);
    auto ins = d.prepare("INSERT INTO samples(id, text, normalized_text, normalized_sha256, status, "
                         "args, model_id) VALUES (?1, 'raw', ?2, ?3, 'accepted', '{}', 'm1')");
    ASSERT_TRUE(ins.ok());
    for (int i = 0; i < 24; ++i) {
      std::string body = "a[i]";
      for (int k = 0; k < i; ++k) body += fmt::format(" * {}.0f", k + 2);
      std::string src = fmt::format(
          "__kernel void k{}(__global float* a) {{ int i = get_global_id(0); a[i] = {}; }}\n", i, body);
      ins->reset();
      ASSERT_TRUE(ins->bind(1, int64_t{100 + i}).ok() && ins->bind(2, src).ok() &&
                  ins->bind(3, sha256_hex(src)).ok() && ins->run().ok());
      const uint64_t cpu = 1000 + 400 * i, gpu = 5000;
      ASSERT_TRUE(add_run(d, src, fmt::format("k{}", i), "samples", kCpuPlatform, kCpu, "4096", "",
                          "pass", {cpu}, {100}, {64})
                      .ok());
      ASSERT_TRUE(add_run(d, src, fmt::format("k{}", i), "samples", kGpuPlatform, kGpu, "4096", "",
                          "pass", {gpu}, {100}, {256})
                      .ok());
    }
  }
  std::string data = (ws_ / "mapping.csv").string();
  auto r = run_clgen(args({"--task", "mapping", "--cpu", "haswell", "--gpu", "nvidia", "--out", data}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string results = (ws_ / "eval.csv").string();
  auto e = run_clgen({"predict", "eval", "--task", "mapping", "--data", data, "--model", "grewe-gini",
                      "--out", results});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("grewe-gini folds     10"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("grewe-gini lobo      24"), std::string::npos) << e.out;  // one per sample
  auto text = read_file(results);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("grewe-gini,lobo,24,24,"), std::string::npos) << *text;
}

TEST_F(DatasetCliTest, MissingDeviceListsTheDevicesWithRuns) {
  {
    Database d = db();
    build_sources(d);
    build_mapping_runs(d);
  }
  auto r = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "radeon"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no runs on a device matching 'radeon'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(kGpu), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(DatasetCliTest, EmptyDataIsAnErrorThatWritesNothing) {
  {
    Database d = db();
    build_sources(d);
    ASSERT_TRUE(add_run(d, kCorpusKernel, "A", "corpus", kCpuPlatform, kCpu, "4096", "", "pass", {1},
                        {1}, {64})
                    .ok());
    ASSERT_TRUE(add_run(d, kCorpusKernel, "A", "corpus", kGpuPlatform, kGpu, "4096", "", "timeout",
                        {}, {}, {64})
                    .ok());
  }
  std::string out = (ws_ / "none.csv").string();
  auto r = run_clgen(args({"--task", "mapping", "--cpu", "i5", "--gpu", "gtx", "--out", out}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no kernel has passing runs on both"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  auto w = run_clgen(args({"--task", "wgsize"}));
  EXPECT_EQ(w.exit_code, 1);
  EXPECT_NE(w.err.find("no local-size sweep"), std::string::npos) << w.err;

  // A workspace without a database is not created by a read.
  auto none = run_clgen({"--workspace", (ws_ / "empty").string(), "dataset", "export", "--task",
                         "wgsize"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no workspace database"), std::string::npos) << none.err;
  EXPECT_FALSE(fs::exists(ws_ / "empty" / "clgen.db"));
}

TEST_F(DatasetCliTest, BadFlagsExitTwo) {
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--task", "unroll"},
           {"--task", "mapping", "--cpu", "i5"},
           {"--task", "wgsize", "--cpu", "i5"},
           {"--task", "mapping", "--cpu", "a", "--gpu", "b", "--device", "c"},
           {"--cpu", "a", "--gpu", "b"},
       }) {
    auto r = run_clgen(args(extra));
    EXPECT_EQ(r.exit_code, 2) << fmt::format("{}", fmt::join(extra, " ")) << "\n" << r.err;
  }
  auto bare = run_clgen({"--workspace", ws_.string(), "dataset"});
  EXPECT_EQ(bare.exit_code, 2) << bare.err;
}

}  // namespace
}  // namespace clgen::dataset
