// End-to-end tests of `clgen eval realism`: two folders of small real kernels
// give a JSON report, a table and a PNG; usage errors exit 2 with one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/run_command.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("clgen-realism-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Kernel i of `style` 0 (element-wise arithmetic) or 1 (a loop with a branch):
// constants differ per kernel, so the normalized texts (names renamed) differ.
std::string kernel(int style, int i) {
  std::string k = std::to_string(i + 2);
  if (style == 0)
    return "__kernel void scale" + k +
           "(__global float* in, __global float* out) {\n"
           "  int id = get_global_id(0);\n"
           "  out[id] = in[id] * " +
           k + ".0f + 1.0f;\n}\n";
  return "__kernel void sum" + k +
         "(__global int* in, __global int* out, const int n) {\n"
         "  int id = get_global_id(0);\n  int acc = 0;\n"
         "  for (int j = 0; j < n; j++) {\n    if (in[j] > " +
         k +
         ") acc += in[j];\n  }\n"
         "  out[id] = acc;\n}\n";
}

TEST(EvalRealismCli, WritesJsonTableAndPngForTwoFolders) {
  fs::path dir = fresh_dir("e2e");
  fs::create_directories(dir / "samples");
  fs::create_directories(dir / "human" / "sub");
  for (int i = 0; i < 12; ++i) {
    std::ofstream(dir / "samples" / ("s" + std::to_string(i) + ".cl")) << kernel(0, i);
    // Half the human files in a subfolder: folders are walked recursively.
    std::ofstream(dir / "human" / (i % 2 ? "sub" : ".") / ("h" + std::to_string(i) + ".cl")) << kernel(1, i);
  }
  std::ofstream(dir / "human" / "broken.cl") << "__kernel void x(";  // rejected, counted, not fatal
  auto r = run_clgen({"--workspace", (dir / "no-workspace").string(), "eval", "realism", (dir / "samples").string(),
                      "--against", (dir / "human").string(), "--json", (dir / "out.json").string(), "--plot",
                      (dir / "out.png").string(), "--folds", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "no-workspace")) << "--against alone must not create a workspace";
  EXPECT_NE(r.out.find("judge"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("coverage"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 rejected by the preprocessor"), std::string::npos) << r.err;
  std::ifstream in(dir / "out.json");
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["sets"]["samples"]["kernels"], 12);
  EXPECT_EQ(j["sets"]["human"]["kernels"], 12);
  EXPECT_EQ(j["judge"]["per_side"], 12);
  // Two styles no kernel shares: the judge separates them.
  EXPECT_GE(j["judge"]["auc"].get<double>(), 0.9);
  // Style 0 has no loop, style 1 one each: the CDFs never meet (KS 1); medians 0 and 1.
  EXPECT_DOUBLE_EQ(j["distributions"]["loops"]["ks"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["distributions"]["loops"]["median_samples"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["distributions"]["loops"]["median_human"].get<double>(), 1.0);
  // Every style-1 kernel has one comparison (j < n) plus one (in[j] > k): rational 2; style 0 has none.
  EXPECT_DOUBLE_EQ(j["distributions"]["rational"]["median_human"].get<double>(), 2.0);
  EXPECT_EQ(j["coverage"]["matched"], 0);
  EXPECT_TRUE(j["novelty"].is_null());  // no training text without a workspace or config
  std::ifstream png(dir / "out.png", std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(fs::file_size(dir / "out.png"), 1000u);
  fs::remove_all(dir);
}

TEST(EvalRealismCli, RejectsMissingHumanSideAsUsageError) {
  fs::path dir = fresh_dir("usage");
  std::ofstream(dir / "a.cl") << kernel(0, 1);
  auto r = run_clgen({"eval", "realism", dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--against DIR, --held-out or --graded-training"), std::string::npos) << r.err;
  auto h = run_clgen({"eval", "realism", dir.string(), "--held-out"});
  EXPECT_EQ(h.exit_code, 2) << h.err;
  EXPECT_NE(h.err.find("--held-out and --graded-training need --config"), std::string::npos) << h.err;
  auto g = run_clgen({"eval", "realism", dir.string(), "--graded-training", "--held-out"});
  EXPECT_EQ(g.exit_code, 2) << "one human side only: " << g.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace clgen::testing
