// End to end: `clgen model export` writes a trained model as a package and
// `clgen model install` puts it into another workspace, refusing a package
// whose files are corrupt or do not match, with one line naming the file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/model/test_corpus.h"

namespace clgen {
namespace {

namespace fs = std::filesystem;
using clgen::testing::model_test_kernels;
using clgen::testing::run_clgen;
using clgen::testing::TempDir;

// A workspace whose preprocessed table holds the test kernels.
std::string workspace_with_kernels(const TempDir& dir, const std::string& name) {
  const std::string ws = dir.path() + "/" + name;
  fs::create_directories(ws);
  auto db = Database::open(ws + "/clgen.db");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->exec("CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
                       "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, normalized_sha256 "
                       "TEXT, instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version))")
                  .ok());
  int i = 0;
  for (const auto& t : model_test_kernels()) {
    auto ins = db->prepare("INSERT INTO preprocessed VALUES(?, '1', 'ok', NULL, NULL, ?, ?, 10)");
    EXPECT_TRUE(ins.ok());
    EXPECT_TRUE(ins->bind(1, "content" + std::to_string(i)).ok());
    EXPECT_TRUE(ins->bind(2, t).ok());
    EXPECT_TRUE(ins->bind(3, "normalized" + std::to_string(i++)).ok());
    EXPECT_TRUE(ins->run().ok());
  }
  return ws;
}

std::string write_config(const TempDir& dir, int seed) {
  const std::string config = dir.path() + "/small" + std::to_string(seed) + ".toml";
  std::ofstream(config) << "[model]\nembedding_size = 8\nhidden_size = 16\nlayers = 1\n"
                           "[training]\nepochs = 1\nbatch_size = 4\nsequence_length = 32\nvalidation_fraction = 0.2\n"
                           "seed = "
                        << seed << "\n[preview]\nsamples = 0\n";
  return config;
}

// Trains the small model in workspace "src" and exports it to <dir>/package.
std::string trained_package(const TempDir& dir) {
  const std::string ws = workspace_with_kernels(dir, "src");
  auto t = run_clgen({"--workspace", ws, "-q", "train", "--config", write_config(dir, 1), "--device", "cpu"});
  EXPECT_EQ(t.exit_code, 0) << t.err;
  const std::string package = dir.path() + "/package";
  auto e = run_clgen({"--workspace", ws, "model", "export", package});
  EXPECT_EQ(e.exit_code, 0) << e.err;
  return package;
}

std::string read(const std::string& path) {
  auto text = read_file(path);
  return text.ok() ? *text : "";
}

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

TEST(ModelPackage, ExportedModelInstallsIntoAnotherWorkspaceAndBecomesTheLatest) {
  TempDir dir;
  const std::string package = trained_package(dir);
  auto meta = nlohmann::json::parse(read(package + "/package.json"));
  const std::string id = meta["model_id"];
  // The provenance is the source workspace's training record: one epoch.
  EXPECT_EQ(meta["provenance"]["epochs"], 1);
  EXPECT_TRUE(meta["provenance"].contains("best_validation_loss"));
  EXPECT_TRUE(meta["files"].contains("vocabulary/vocabulary.json"));

  const std::string ws = dir.path() + "/dest";
  auto r = run_clgen({"--workspace", ws, "model", "install", package});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read(ws + "/models/latest"), id + "\n");
  EXPECT_EQ(read(ws + "/models/" + id + "/best.pt"), read(package + "/best.pt"));
  EXPECT_TRUE(fs::exists(ws + "/" +
                         nlohmann::json::parse(read(package + "/model.json"))["vocabulary"].get<std::string>() +
                         "/vocabulary.json"));
  // Installing again is a no-op that succeeds.
  auto again = run_clgen({"--workspace", ws, "model", "install", package});
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

TEST(ModelPackage, RefusesCorruptWeightsNamingTheFileAndStoresNothing) {
  TempDir dir;
  const std::string package = trained_package(dir);
  // Flip one byte in the middle of the weights: same size, other sha256.
  std::string weights = read(package + "/best.pt");
  ASSERT_GT(weights.size(), 100u);
  weights[weights.size() / 2] ^= 0x5a;
  ASSERT_TRUE(write_file_atomic(package + "/best.pt", weights).ok());
  const std::string ws = dir.path() + "/dest";
  auto r = run_clgen({"--workspace", ws, "model", "install", package});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(package + "/best.pt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("corrupt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ws + "/models"));
}

TEST(ModelPackage, RefusesATruncatedFileAndAModelJsonOfAnotherModel) {
  TempDir dir;
  const std::string package = trained_package(dir);
  const std::string tables = read(package + "/constraint_tables.json");
  ASSERT_FALSE(tables.empty());
  ASSERT_TRUE(write_file_atomic(package + "/constraint_tables.json", tables.substr(0, tables.size() / 2)).ok());
  auto r = run_clgen({"--workspace", dir.path() + "/dest", "model", "install", package});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("constraint_tables.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  ASSERT_TRUE(write_file_atomic(package + "/constraint_tables.json", tables).ok());

  // package.json names another model than model.json describes.
  auto meta = nlohmann::json::parse(read(package + "/package.json"));
  meta["model_id"] = "0123456789abcdef";
  ASSERT_TRUE(write_file_atomic(package + "/package.json", meta.dump()).ok());
  auto m = run_clgen({"--workspace", dir.path() + "/dest", "model", "install", package});
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_EQ(lines(m.err), 1) << m.err;
  EXPECT_NE(m.err.find(package + "/model.json"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("differs"), std::string::npos) << m.err;
}

TEST(ModelPackage, RefusesWeightsThatDoNotFitTheNetworkOfModelJson) {
  TempDir dir;
  const std::string package = trained_package(dir);
  // model.json says 32 hidden units, the weights have 16: package.json lists
  // the edited file's true hash, so only loading the weights can tell.
  auto model = nlohmann::json::parse(read(package + "/model.json"));
  model["hidden_size"] = 32;
  const std::string edited = model.dump(1) + "\n";
  ASSERT_TRUE(write_file_atomic(package + "/model.json", edited).ok());
  auto meta = nlohmann::json::parse(read(package + "/package.json"));
  meta["files"]["model.json"] = {{"bytes", edited.size()}, {"sha256", sha256_hex(edited)}};
  ASSERT_TRUE(write_file_atomic(package + "/package.json", meta.dump()).ok());
  const std::string ws = dir.path() + "/dest";
  auto r = run_clgen({"--workspace", ws, "model", "install", package});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(package + "/best.pt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ws + "/models/" + meta["model_id"].get<std::string>()));
}

TEST(ModelPackage, NeverReplacesAModelOfTheSameIdTrainedInTheWorkspace) {
  TempDir dir;
  const std::string package = trained_package(dir);
  const std::string id = nlohmann::json::parse(read(package + "/package.json"))["model_id"];
  // The same config and corpus in another workspace give the same id; its
  // weights are replaced by other bytes, as a model trained there would differ.
  const std::string ws = workspace_with_kernels(dir, "dest");
  auto t = run_clgen({"--workspace", ws, "-q", "train", "--config", write_config(dir, 1), "--device", "cpu"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  ASSERT_TRUE(fs::exists(ws + "/models/" + id + "/best.pt"));
  ASSERT_TRUE(write_file_atomic(ws + "/models/" + id + "/best.pt", "local weights").ok());
  auto r = run_clgen({"--workspace", ws, "model", "install", package});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not replaced"), std::string::npos) << r.err;
  EXPECT_EQ(read(ws + "/models/" + id + "/best.pt"), "local weights");
}

}  // namespace
}  // namespace clgen
