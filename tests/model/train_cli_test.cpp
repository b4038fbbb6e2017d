// End to end: `clgen train` on a workspace whose preprocessed table holds the
// hand-written kernels; resuming after a SIGKILL mid-epoch; and its errors.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "model/network.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/model/test_corpus.h"

namespace clgen {
namespace {

using clgen::testing::model_test_kernels;
using clgen::testing::run_clgen;
using clgen::testing::TempDir;

void fill_preprocessed(const std::string& db_path) {
  auto db = Database::open(db_path);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec(
      "CREATE TABLE IF NOT EXISTS preprocessed(content_sha256 TEXT NOT NULL, "
      "preprocessor_version TEXT NOT NULL, status TEXT NOT NULL, category TEXT, reason TEXT, "
      "normalized_text TEXT, normalized_sha256 TEXT, instruction_count INTEGER, "
      "PRIMARY KEY(content_sha256, preprocessor_version))").ok());
  auto ins = db->prepare(
      "INSERT INTO preprocessed VALUES(?, '1', 'ok', NULL, NULL, ?, ?, 10)");
  ASSERT_TRUE(ins.ok());
  int i = 0;
  for (const auto& t : model_test_kernels()) {
    ins->reset();
    ASSERT_TRUE(ins->bind(1, "content" + std::to_string(i)).ok());
    ASSERT_TRUE(ins->bind(2, t).ok());
    ASSERT_TRUE(ins->bind(3, "normalized" + std::to_string(i++)).ok());
    ASSERT_TRUE(ins->run().ok());
  }
}

// A workspace `NAME` under `dir` whose preprocessed table holds the test kernels.
std::string workspace_with_kernels(const TempDir& dir, const std::string& name = "ws") {
  std::string ws = dir.path() + "/" + name;
  std::filesystem::create_directories(ws);
  fill_preprocessed(ws + "/clgen.db");
  return ws;
}

TEST(TrainCommand, TrainsPrintsSamplesRecordsMetricsAndResumes) {
  TempDir dir;
  std::string ws = workspace_with_kernels(dir);
  std::string config = dir.path() + "/small.toml";
  std::ofstream(config) << "[model]\nembedding_size = 16\nhidden_size = 32\nlayers = 1\n"
                           "[training]\nepochs = 2\nbatch_size = 4\nsequence_length = 32\n"
                           "validation_fraction = 0.2\n[preview]\nsamples = 2\nmax_tokens = 40\n";
  auto r = run_clgen({"--workspace", ws, "train", "--config", config, "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("validation loss"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("---- sample 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("__kernel void A("), std::string::npos) << r.out;

  auto db = Database::open(ws + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto q = db->prepare("SELECT COUNT(*), MAX(epoch) FROM training_metrics WHERE valid_loss > 0");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 2);
  auto runs = db->prepare("SELECT status FROM training_runs");
  ASSERT_TRUE(runs.ok());
  ASSERT_TRUE(*runs->step());
  EXPECT_EQ(runs->column_text(0), "completed");

  // The same command again finds the finished checkpoint; --epochs extends it.
  auto again = run_clgen({"--workspace", ws, "-q", "train", "--config", config, "--device", "cpu"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already trained for 2 epochs"), std::string::npos) << again.out;
  auto more = run_clgen(
      {"--workspace", ws, "-q", "train", "--config", config, "--device", "cpu", "--epochs", "3"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(more.out.find("3 epochs"), std::string::npos) << more.out;
}

std::vector<std::string> column_rows(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> out;
  auto db = Database::open(db_path);
  EXPECT_TRUE(db.ok());
  if (!db.ok()) return out;
  auto q = db->prepare(sql);
  EXPECT_TRUE(q.ok()) << sql;
  if (!q.ok()) return out;
  while (*q->step()) out.push_back(q->column_text(0));
  return out;
}

// Every tensor of a checkpoint: weights, then each parameter's Adam state
// (by parameter, since the archive orders the optimizer state by address).
// The optimizer's state map is keyed by the parameter's TensorImpl: as its
// printed address in older LibTorch (Debian's), as the pointer itself in newer.
template <typename Map>
typename Map::key_type state_key(const Map&, c10::TensorImpl* impl) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>) {
    std::ostringstream key;
    key << impl;
    return key.str();
  } else {
    return impl;
  }
}

std::vector<torch::Tensor> checkpoint_tensors(const std::string& path, int vocab_size,
                                              const model::NetworkConfig& network) {
  model::LstmNetwork net(vocab_size, network);
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(0.1));
  auto pos = model::load_checkpoint(path, net, &adam, torch::kCPU);
  EXPECT_TRUE(pos.ok()) << pos.status().message();
  std::vector<torch::Tensor> out;
  for (const auto& p : net->parameters()) {
    out.push_back(p.detach());
    auto it = adam.state().find(state_key(adam.state(), p.unsafeGetTensorImpl()));
    EXPECT_TRUE(it != adam.state().end()) << "no optimizer state for a parameter of " << path;
    if (it == adam.state().end()) continue;
    auto& s = static_cast<torch::optim::AdamParamState&>(*it->second);
    out.push_back(s.exp_avg());
    out.push_back(s.exp_avg_sq());
    out.push_back(torch::tensor({static_cast<int64_t>(s.step())}));
  }
  return out;
}

TEST(TrainKill, ResumedRunAfterSigkillMidEpochEqualsAnUninterruptedRun) {
  TempDir dir;
  std::string config = dir.path() + "/small.toml";
  // About 120 batches an epoch (some 1950 training tokens in 2 streams of
  // 8-token steps); a checkpoint after every 40th.
  std::ofstream(config) << "[model]\nembedding_size = 16\nhidden_size = 32\nlayers = 2\n"
                           "[training]\nepochs = 2\nbatch_size = 2\nsequence_length = 8\n"
                           "validation_fraction = 0.2\ncheckpoint_every_batches = 40\n"
                           "[preview]\nsamples = 0\n";
  auto train = [&](const std::string& ws, const std::string& kill_after) {
    std::vector<std::string> argv = {"/usr/bin/env", "OMP_NUM_THREADS=1"};
    if (!kill_after.empty()) argv.push_back("CLGEN_TEST_SIGKILL_AFTER_BATCHES=" + kill_after);
    for (const char* a :
         {CLGEN_BINARY, "--workspace", ws.c_str(), "train", "--config", config.c_str(), "--device", "cpu"})
      argv.push_back(a);
    return clgen::testing::run_command(argv);
  };
  const std::string straight = workspace_with_kernels(dir, "straight"), killed = workspace_with_kernels(dir, "killed");
  auto r = train(straight, "");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // Killed after batch 100 of the first epoch (0-based 99): the checkpoint of batch 80 is the last.
  auto k = train(killed, "100");
  ASSERT_EQ(k.exit_code, 128 + SIGKILL) << k.err;
  EXPECT_EQ(
      column_rows(killed + "/clgen.db", "SELECT epoch || '/' || batch || '/' || reason FROM checkpoints ORDER BY id"),
      (std::vector<std::string>{"0/40/periodic", "0/80/periodic"}));
  EXPECT_EQ(column_rows(killed + "/clgen.db", "SELECT status FROM training_runs"), std::vector<std::string>{"running"});
  auto resumed = train(killed, "");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("at epoch 1, batch 80"), std::string::npos) << resumed.err;
  // The killed run's row is closed by the resumed run: interrupted with no
  // epoch done (its last checkpoint was mid-epoch 1) and no known end time.
  EXPECT_EQ(column_rows(killed + "/clgen.db",
                        "SELECT status || '/' || start_epoch || '/' || end_epoch || '/' || (finished_at IS NULL) "
                        "FROM training_runs ORDER BY id"),
            (std::vector<std::string>{"interrupted/0/0/1", "completed/0/2/0"}));

  const std::string metrics =
      "SELECT epoch || '|' || printf('%!.17g', train_loss) || '|' || "
      "printf('%!.17g', valid_loss) || '|' || tokens FROM training_metrics ORDER BY epoch";
  auto expected = column_rows(straight + "/clgen.db", metrics);
  ASSERT_EQ(expected.size(), 2u);
  EXPECT_EQ(column_rows(killed + "/clgen.db", metrics), expected);
  const std::string checkpoints =
      "SELECT DISTINCT epoch || '/' || batch || '/' || reason FROM checkpoints ORDER BY epoch, batch";
  EXPECT_EQ(column_rows(killed + "/clgen.db", checkpoints), column_rows(straight + "/clgen.db", checkpoints));
  auto model = column_rows(straight + "/clgen.db", "SELECT model_id || '|' || vocab_size FROM training_runs");
  ASSERT_EQ(model.size(), 1u);
  std::string id = model[0].substr(0, model[0].find('|'));
  int vocab_size = std::stoi(model[0].substr(model[0].find('|') + 1));
  model::NetworkConfig network;
  network.embedding_size = 16;
  network.hidden_size = 32;
  network.layers = 2;
  auto a = checkpoint_tensors(straight + "/models/" + id + "/checkpoint.pt", vocab_size, network);
  auto b = checkpoint_tensors(killed + "/models/" + id + "/checkpoint.pt", vocab_size, network);
  ASSERT_EQ(a.size(), 11u * 4);  // embedding, 2 x 4 LSTM and 2 output tensors, each with its Adam state
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "checkpoint tensor " << i;
}

TEST(TrainCommand, AnInterruptedRunSavesTheConstraintTablesItsCheckpointIsSampledWith) {
  TempDir dir;
  std::string ws = workspace_with_kernels(dir);
  std::string config = dir.path() + "/long.toml";
  std::ofstream(config) << "[model]\nembedding_size = 16\nhidden_size = 32\nlayers = 1\n"
                           "[training]\nepochs = 100000\nbatch_size = 4\nsequence_length = 32\n"
                           "validation_fraction = 0.2\n[preview]\nsamples = 0\n";
  // SIGINT after 8 s, as the GPU scripts' time limits stop training.
  // --foreground: signal clgen once; otherwise timeout also signals its
  // process group, and a second SIGINT ends clgen at once (support/interrupt.h).
  auto r = clgen::testing::run_command({"/usr/bin/timeout", "--foreground", "--signal=INT", "8", CLGEN_BINARY,
                                        "--workspace", ws, "train", "--config", config, "--device", "cpu"});
  if (r.exit_code == 0) GTEST_SKIP() << "training finished before SIGINT";
  ASSERT_EQ(r.exit_code, 124) << r.out << r.err;  // timeout's status for a command it signalled
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  auto ids = column_rows(ws + "/clgen.db", "SELECT DISTINCT model_id FROM training_runs");
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(ws + "/models/" + ids[0] + "/constraint_tables.json"));
}

TEST(TrainCommand, TrainsATransformerThatSamplesThroughEveryModeOfTheSampler) {
  TempDir dir;
  std::string ws = workspace_with_kernels(dir);
  std::string config = dir.path() + "/transformer.toml";
  std::ofstream(config) << "[model]\ntype = \"transformer\"\nlayers = 2\nwidth = 32\nheads = 4\ncontext = 64\n"
                           "dropout = 0.1\n[training]\nepochs = 3\nbatch_size = 8\noptimizer = \"adamw\"\n"
                           "weight_decay = 0.1\nlearning_rate = 0.003\nlr_schedule = \"cosine\"\n"
                           "warmup_steps = 5\nvalidation_fraction = 0.2\npatience = 2\n"
                           "[preview]\nsamples = 2\nmax_tokens = 40\n";
  auto r = run_clgen({"--workspace", ws, "train", "--config", config, "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("(transformer)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("best: epoch "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("---- sample 2"), std::string::npos) << r.out;
  auto ids = column_rows(ws + "/clgen.db", "SELECT DISTINCT model_id FROM training_runs");
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(ws + "/models/" + ids[0] + "/best.pt"));

  // The sampler's whole chain (constraint, filter, backtracks) over the KV-cached batch.
  std::string out = dir.path() + "/out";
  auto s = run_clgen({"--workspace",   ws,    "-q",       "sample", "--config", config, "--args",       "float*,int",
                      "--max-samples", "6",   "-n",       "0",      "--seed",   "3",    "--batch-size", "4",
                      "--max-length",  "300", "--device", "cpu",    "--out",    out,    "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;
  auto samples_of = [](const std::string& json) {
    const size_t key = json.find("\"samples\":");
    return key == std::string::npos ? -1 : std::stoi(json.substr(json.find_first_not_of(' ', key + 10)));
  };
  EXPECT_EQ(samples_of(s.out), 6) << s.out;

  // Directed sampling (toward given features, and exploration of the corpus),
  // a shard of a sharded run, and the dynamic checker, each over the same
  // KV-cached batch: every mode runs its 6 samples through to the store.
  std::string targets = dir.path() + "/targets.csv";
  std::ofstream(targets) << "comp,rational,mem,localmem,coalesced,atomic\n2,0,3,0,3,0\n1,1,2,0,2,0\n";
  std::vector<std::vector<std::string>> modes = {{"--target-features", targets}, {"--explore"}, {"--shard", "1/2"}};
  auto devices = run_clgen({"devices"});
  const bool cpu_device = devices.exit_code == 0 && devices.out.find("[CPU]") != std::string::npos;
  if (cpu_device) modes.push_back({"--check", "cpu", "--check-jobs", "1"});
  else std::printf("[ SKIPPED part ] --check cpu: no OpenCL CPU device\n");
  int n = 0;
  for (const auto& mode : modes) {
    std::vector<std::string> args = {
        "--workspace",   ws,    "-q",       "sample", "--config",     config,
        "--max-samples", "6",   "-n",       "0",      "--batch-size", "4",
        "--max-length",  "300", "--device", "cpu",    "--out",        out + std::to_string(++n),
        "--json"};
    args.insert(args.end(), mode.begin(), mode.end());
    auto m = run_clgen(args);
    ASSERT_EQ(m.exit_code, 0) << mode[0] << ": " << m.out << m.err;
    EXPECT_EQ(samples_of(m.out), 6) << mode[0] << ": " << m.out;
  }
  // (Streams restart from the plain seed until a kernel is accepted, which a
  // 3-epoch model rarely reaches: samples.steering is checked where a trained
  // model steers, SampleEndToEnd.DirectedSampling...RecordsTheTarget.)
}

TEST(TrainCommand, WithoutAPreprocessedCorpusSaysWhatToRun) {
  TempDir dir;
  auto r = run_clgen({"--workspace", dir.path(), "train", "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("clgen corpus preprocess"), std::string::npos) << r.err;
}

TEST(TrainCommand, RejectsBadFlagsAndConfigs) {
  TempDir dir;
  auto r = run_clgen({"--workspace", dir.path(), "train", "--device", "tpu"});
  EXPECT_EQ(r.exit_code, 2);
  std::string config = dir.path() + "/bad.toml";
  std::ofstream(config) << "[model]\nlayers = -1\n";
  auto bad = run_clgen({"--workspace", dir.path(), "train", "--config", config});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("model.layers"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace clgen
