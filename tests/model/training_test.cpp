// Training and the sampling API on the hand-written kernels: overfitting,
// checkpoints, exact resume, SentencePiece next to LibTorch, GPU smoke test.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/language_model.h"
#include "model/network.h"
#include "model/trainer.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/workspace.h"
#include "tests/model/test_corpus.h"

namespace clgen::model {
namespace {

using clgen::testing::model_test_kernels;
using clgen::testing::TempDir;

ModelConfig small_config() {
  ModelConfig c;
  c.network.embedding_size = 16;
  c.network.hidden_size = 48;
  c.network.layers = 2;
  c.network.dropout = 0.1;
  c.training.epochs = 2;
  c.training.batch_size = 4;
  c.training.sequence_length = 32;
  c.training.learning_rate = 0.01;
  c.training.validation_fraction = 0.25;
  return c;
}

// A network small enough to build and run in milliseconds.
NetworkConfig tiny_network() {
  NetworkConfig nc;
  nc.embedding_size = 8;
  nc.hidden_size = 16;
  nc.layers = 2;
  return nc;
}

TrainOptions quiet_cpu() {
  TrainOptions o;
  o.device = "cpu";
  o.progress = false;
  return o;
}

TEST(Training, OverfitsATinyCorpus) {
  TempDir dir;
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok());
  auto texts = model_test_kernels();
  texts.resize(2);
  ModelConfig c = small_config();
  c.network.hidden_size = 96;
  c.network.layers = 1;
  c.network.dropout = 0;
  c.training.epochs = 30;
  c.training.batch_size = 2;
  c.training.lr_schedule = "constant";
  c.training.validation_fraction = 0;
  auto r = train_model(*ws, c, texts, quiet_cpu());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->completed);
  ASSERT_EQ(r->epochs.size(), 30u);
  double first = r->epochs.front().train_loss, last = r->epochs.back().train_loss;
  EXPECT_GT(first, 2.0);   // about ln(vocab) before learning
  EXPECT_LT(last, 0.5) << "the model did not memorize two kernels (first epoch " << first << ")";
  EXPECT_FALSE(r->epochs.back().valid_loss.has_value());
}

TEST(Checkpoint, SaveThenLoadGivesIdenticalLogits) {
  TempDir dir;
  NetworkConfig nc = tiny_network();
  torch::manual_seed(1);
  LstmNetwork a(20, nc);
  torch::manual_seed(2);
  LstmNetwork b(20, nc);
  a->eval();
  b->eval();
  auto input = torch::randint(0, 20, {7, 3}, torch::kInt64);
  auto logits_a = std::get<0>(a->forward(input, a->zero_state(3, torch::kCPU)));
  auto logits_b = std::get<0>(b->forward(input, b->zero_state(3, torch::kCPU)));
  ASSERT_FALSE(torch::equal(logits_a, logits_b));  // different initialisation

  std::string path = dir.path() + "/c.pt";
  TrainingPosition pos;
  pos.epoch = 3;
  pos.batch = 5;
  ASSERT_TRUE(save_checkpoint(path, a, nullptr, pos).ok());
  auto loaded = load_checkpoint(path, b, nullptr, torch::kCPU);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->epoch, 3);
  EXPECT_EQ(loaded->batch, 5);
  logits_b = std::get<0>(b->forward(input, b->zero_state(3, torch::kCPU)));
  EXPECT_TRUE(torch::equal(logits_a, logits_b));

  LstmNetwork wrong(21, nc);
  auto mismatch = load_checkpoint(path, wrong, nullptr, torch::kCPU);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("vocabulary size"), std::string::npos);
}

// Loads the weights of a trained model's checkpoint.
std::vector<torch::Tensor> checkpoint_parameters(const TrainResult& r, const ModelConfig& c) {
  LstmNetwork net(r.vocab_size, c.network);
  auto pos = load_checkpoint(r.model_dir + "/checkpoint.pt", net, nullptr, torch::kCPU);
  EXPECT_TRUE(pos.ok()) << pos.status().message();
  return net->parameters();
}

// Both runs' checkpoints hold bit-identical weights.
void expect_same_weights(const TrainResult& a, const TrainResult& b, const ModelConfig& c) {
  auto pa = checkpoint_parameters(a, c);
  auto pb = checkpoint_parameters(b, c);
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << "parameter " << i;
}

// An uninterrupted run of `c` on the test kernels in a fresh workspace at `dir`.
Expected<TrainResult> train_straight(const TempDir& dir, const ModelConfig& c) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(dir.path()));
  return train_model(ws, c, model_test_kernels(), quiet_cpu());
}

TEST(Training, InterruptedAndResumedRunEqualsUninterruptedRun) {
  TempDir dir_a, dir_b;
  auto ws_a = Workspace::open(dir_a.path());
  auto ws_b = Workspace::open(dir_b.path());
  ASSERT_TRUE(ws_a.ok() && ws_b.ok());
  auto texts = model_test_kernels();
  ModelConfig c = small_config();

  auto straight = train_model(*ws_a, c, texts, quiet_cpu());
  ASSERT_TRUE(straight.ok()) << straight.status().message();
  ASSERT_TRUE(straight->completed);
  EXPECT_FALSE(straight->resumed);

  // Interrupt in the middle of the first epoch (as SIGINT would), then resume.
  TrainOptions stop = quiet_cpu();
  stop.after_batch = [](int epoch, int batch) {
    if (epoch == 0 && batch == 2) request_interrupt();
  };
  auto first = train_model(*ws_b, c, texts, stop);
  clear_interrupt();
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->completed);
  EXPECT_EQ(first->model_id, straight->model_id);
  auto second = train_model(*ws_b, c, texts, quiet_cpu());
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->completed);
  EXPECT_TRUE(second->resumed);
  ASSERT_EQ(second->epochs.size(), 2u);
  // The loss accumulator is saved apart from the folded-in sum: the same sums, bit for bit.
  EXPECT_EQ(second->epochs[0].train_loss, straight->epochs[0].train_loss);
  EXPECT_EQ(second->epochs[0].tokens, straight->epochs[0].tokens);
  EXPECT_DOUBLE_EQ(*second->epochs[1].valid_loss, *straight->epochs[1].valid_loss);

  expect_same_weights(*straight, *second, c);

  // Run again: nothing left to train. A changed config trains a new model.
  auto again = train_model(*ws_b, c, texts, quiet_cpu());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->epochs.empty());
  ModelConfig wider = c;
  wider.network.hidden_size = 40;
  wider.training.epochs = 1;
  auto other = train_model(*ws_b, wider, texts, quiet_cpu());
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->model_id, straight->model_id);
  EXPECT_FALSE(other->resumed);
}

TEST(Training, RunThatDiesAfterAPeriodicCheckpointResumesToTheUninterruptedWeights) {
  ModelConfig c = small_config();
  // About 15 batches an epoch (some 1900 training tokens in 4 streams of 32-token steps).
  c.training.checkpoint_every_batches = 4;
  TempDir dir_a, dir_b;
  auto straight = train_straight(dir_a, c);
  ASSERT_TRUE(straight.ok()) << straight.status().message();
  auto ws_b = Workspace::open(dir_b.path());
  ASSERT_TRUE(ws_b.ok());
  auto texts = model_test_kernels();

  // The process "dies" (an exception, no interrupt checkpoint) after batch 10
  // of the second epoch: the checkpoint after batch 8 (0-based 7) is the last.
  TrainOptions dies = quiet_cpu();
  dies.after_batch = [](int epoch, int batch) {
    if (epoch == 1 && batch == 9) throw std::runtime_error("died");
  };
  auto first = train_model(*ws_b, c, texts, dies);
  ASSERT_FALSE(first.ok());
  LstmNetwork probe(straight->vocab_size, c.network);
  auto at = load_checkpoint(model_directory(*ws_b, straight->model_id) + "/checkpoint.pt", probe, nullptr, torch::kCPU);
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(at->epoch, 1);
  EXPECT_EQ(at->batch, 8);
  EXPECT_TRUE(at->h.defined());
  EXPECT_GT(at->loss_tokens, 0);

  auto second = train_model(*ws_b, c, texts, quiet_cpu());
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->resumed);
  ASSERT_EQ(second->epochs.size(), 1u);
  EXPECT_EQ(second->epochs[0].train_loss, straight->epochs[1].train_loss);
  EXPECT_EQ(*second->epochs[0].valid_loss, *straight->epochs[1].valid_loss);
  EXPECT_EQ(second->epochs[0].tokens, straight->epochs[1].tokens);
  expect_same_weights(*straight, *second, c);
}

TEST(Training, CheckpointEverySecondsSavesMidEpochWhenTheTimeHasPassed) {
  ModelConfig c = small_config();
  c.training.epochs = 1;
  c.training.checkpoint_every_seconds = 1e-9;  // due after every batch
  TrainOptions counting = quiet_cpu();
  int batches = 0;
  counting.after_batch = [&](int, int) { ++batches; };
  TempDir dir;
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok());
  auto r = train_model(*ws, c, model_test_kernels(), counting);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_GT(batches, 2);
  auto db = ws->open_database();
  ASSERT_TRUE(db.ok());
  auto q = db->prepare("SELECT COUNT(*), MIN(batch), MAX(batch) FROM checkpoints WHERE reason = 'periodic'");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->step());
  // After every batch but the last, whose checkpoint is the epoch's.
  EXPECT_EQ(q->column_int(0), batches - 1);
  EXPECT_EQ(q->column_int(1), 1);
  EXPECT_EQ(q->column_int(2), batches - 1);
}

// A workspace with a small model trained one epoch on the CPU.
class LanguageModelApi : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ws = Workspace::open(dir.path());
    ASSERT_TRUE(ws.ok());
    ModelConfig c = small_config();
    c.training.epochs = 1;
    auto r = train_model(*ws, c, model_test_kernels(), quiet_cpu());
    ASSERT_TRUE(r.ok()) << r.status().message();
    model_id = r->model_id;
  }
  TempDir dir;
  std::string model_id;
};

TEST_F(LanguageModelApi, FeedsStepsSamplesAndRefillsStreams) {
  auto missing = LanguageModel::load(dir.path(), "0000000000000000", "cpu");
  EXPECT_FALSE(missing.ok());
  auto lm = LanguageModel::load(dir.path(), "", "cpu");  // the latest model
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  EXPECT_EQ((*lm)->id(), model_id);
  auto batch = (*lm)->new_batch(3, 42);
  ASSERT_TRUE(batch.ok());
  auto& b = **batch;
  EXPECT_FALSE(b.logits().ok());  // nothing fed yet
  ASSERT_TRUE(b.feed_all("__kernel void A(").ok());
  auto logits = b.logits();
  ASSERT_TRUE(logits.ok());
  int v = b.vocab_size();
  ASSERT_EQ(logits->size(), size_t(3 * v));
  // All streams saw the same text: same distribution.
  EXPECT_TRUE(std::equal(logits->begin(), logits->begin() + v, logits->begin() + v));

  // Refilling one stream changes only that stream's distribution, and equals
  // what a fresh batch fed the same text gives.
  ASSERT_TRUE(b.feed(1, "__kernel void A(__global float* a").ok());
  auto after = b.logits();
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(std::equal(after->begin(), after->begin() + v, logits->begin()));
  EXPECT_FALSE(std::equal(after->begin() + v, after->begin() + 2 * v, logits->begin() + v));
  auto fresh = (*lm)->new_batch(1, 1);
  ASSERT_TRUE(fresh.ok());
  ASSERT_TRUE((*fresh)->feed(0, "__kernel void A(__global float* a").ok());
  auto fresh_logits = (*fresh)->logits();
  for (int i = 0; i < v; ++i) EXPECT_NEAR((*after)[size_t(v + i)], (*fresh_logits)[size_t(i)], 1e-5);

  // Sampling is reproducible for a seed and stays in the vocabulary.
  auto run = [&](uint64_t seed) {
    auto s = (*lm)->new_batch(4, seed);
    EXPECT_TRUE((*s)->feed_all("__kernel void A(").ok());
    std::vector<Token> all;
    for (int i = 0; i < 20; ++i) {
      auto t = (*s)->sample(0.8);
      EXPECT_TRUE(t.ok());
      all.insert(all.end(), t->begin(), t->end());
    }
    return all;
  };
  auto x = run(5);
  EXPECT_EQ(x, run(5));
  for (Token t : x) EXPECT_TRUE(t >= 0 && t < v);
  EXPECT_FALSE(b.advance({1, 2}).ok());  // wrong number of tokens
  EXPECT_TRUE(b.advance({1, 2, 3}).ok());
  // Refilling a finished stream with the seed restores exactly the seed's
  // distribution (the sampler's refill reuses the seed's state).
  ASSERT_TRUE(b.feed(2, "__kernel void A(").ok());
  auto refilled = b.logits();
  ASSERT_TRUE(refilled.ok());
  EXPECT_TRUE(std::equal(refilled->begin() + 2 * v, refilled->end(), logits->begin() + 2 * v));
  EXPECT_FALSE(b.sample(0).ok());
  EXPECT_FALSE(b.feed(7, "x").ok());
}

// A seeded LSTM's logits: a LibTorch computation whose result must not depend
// on what else the process has loaded.
torch::Tensor seeded_logits() {
  NetworkConfig nc = tiny_network();
  torch::manual_seed(11);
  LstmNetwork net(20, nc);
  net->eval();
  auto input = torch::randint(0, 20, {7, 3}, torch::kInt64);
  return std::get<0>(net->forward(input, net->zero_state(3, torch::kCPU)));
}

// Whether libclgen_sentencepiece is mapped into this process (it is loaded
// on first use, in a link namespace of its own).
bool sentencepiece_mapped() {
  auto maps = read_file("/proc/self/maps", 1 << 24);
  return maps.ok() && maps->find("libclgen_sentencepiece") != std::string::npos;
}

// Backtracking's model side: a restored stream gives again the logits it
// saved, and continues as it did from there; streams not restored keep
// their own state.
TEST_F(LanguageModelApi, RestoredStreamsGoOnFromTheirSavedStateAlone) {
  auto lm = LanguageModel::load(dir.path(), model_id, "cpu");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  auto batch = (*lm)->new_batch(2, 1);
  ASSERT_TRUE(batch.ok());
  auto& b = **batch;
  ASSERT_TRUE(b.feed_all("__kernel void A(").ok());
  EXPECT_FALSE(b.restore({0}).ok());  // nothing saved yet
  EXPECT_FALSE(b.save({2}).ok());     // no such stream
  ASSERT_TRUE(b.save({0}).ok());
  const int v = b.vocab_size();
  auto saved = b.logits();
  ASSERT_TRUE(b.advance({3, 3}).ok());
  auto one = b.logits();
  ASSERT_TRUE(b.advance({5, 5}).ok());
  auto two = b.logits();
  ASSERT_TRUE(b.restore({0}).ok());
  auto back = b.logits();
  ASSERT_TRUE(saved.ok() && one.ok() && two.ok() && back.ok());
  EXPECT_TRUE(std::equal(back->begin(), back->begin() + v, saved->begin()));
  EXPECT_TRUE(std::equal(back->begin() + v, back->end(), two->begin() + v));
  ASSERT_TRUE(b.advance({3, 3}).ok());
  auto again = b.logits();
  ASSERT_TRUE(again.ok());
  for (int i = 0; i < v; ++i) EXPECT_NEAR((*again)[size_t(i)], (*one)[size_t(i)], 1e-5);
  // A refilled stream starts a new sample: what it saved before is not its own.
  ASSERT_TRUE(b.feed(0, "__kernel void A(").ok());
  EXPECT_FALSE(b.restore({0}).ok());
}

TEST(Training, SentencePieceAndLibTorchWorkInOneProcess) {
  if (sentencepiece_library_path().empty()) GTEST_SKIP() << "libclgen_sentencepiece not built";
  TempDir dir;
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok());
  // LibTorch is in use before SentencePiece is loaded (its protobuf first in
  // the process), and must compute exactly the same after.
  if (sentencepiece_mapped()) GTEST_SKIP() << "SentencePiece was loaded by an earlier test in this process";
  torch::Tensor before = seeded_logits();
  ModelConfig c = small_config();
  c.training.epochs = 1;
  c.vocabulary.type = "sentencepiece";
  c.vocabulary.size = 120;
  auto r = train_model(*ws, c, model_test_kernels(), quiet_cpu());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->completed);
  ASSERT_TRUE(sentencepiece_mapped()) << "training a SentencePiece vocabulary did not load the library";
  EXPECT_TRUE(torch::equal(before, seeded_logits())) << "LibTorch computes otherwise once SentencePiece is loaded";
  auto lm = LanguageModel::load(dir.path(), r->model_id, "cpu");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  const Vocabulary& vocab = (*lm)->vocabulary();
  EXPECT_EQ(vocab.type(), "sentencepiece");
  // SentencePiece works beside LibTorch: Decode(Encode(x)) == x for every training text.
  for (const std::string& text : model_test_kernels()) {
    auto ids = vocab.encode(text);
    ASSERT_TRUE(ids.ok()) << ids.status().message();
    auto back = vocab.decode(*ids);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, text);
  }
  auto batch = (*lm)->new_batch(2, 1);
  ASSERT_TRUE((*batch)->feed_all("__kernel void A(").ok());
  std::vector<Token> out;
  for (int i = 0; i < 10; ++i) out.push_back((*(*batch)->sample(1.0))[0]);
  EXPECT_TRUE((*lm)->vocabulary().decode(out).ok());
}

// Training lowered the loss: the last epoch's mean is below the first's, and
// below ln(vocabulary size), the cross-entropy of a uniform guess, which is
// where an untrained network's near-uniform output starts.
void expect_loss_fell(const TrainResult& r) {
  ASSERT_GE(r.epochs.size(), 2u);
  double first = r.epochs.front().train_loss, last = r.epochs.back().train_loss;
  EXPECT_LT(last, first);
  EXPECT_LT(last, std::log(static_cast<double>(r.vocab_size))) << "no better than a uniform guess";
}

TEST(Training, GpuSmokeTest) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: GPU smoke test skipped";
  TempDir dir;
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok());
  ModelConfig c = small_config();
  c.training.epochs = 2;
  TrainOptions o = quiet_cpu();
  o.device = "cuda";
  auto r = train_model(*ws, c, model_test_kernels(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->device.substr(0, 4), "cuda");
  expect_loss_fell(*r);
  auto lm = LanguageModel::load(dir.path(), r->model_id, "cuda");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  auto batch = (*lm)->new_batch(8, 1);
  ASSERT_TRUE((*batch)->feed_all("__kernel void A(").ok());
  EXPECT_TRUE((*batch)->sample(0.8).ok());
}

}  // namespace
}  // namespace clgen::model
