// The Transformer: shapes, gradients and causality of the network; exact
// resume; the best checkpoint; KV-cached decoding against full recomputation.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/language_model.h"
#include "model/network.h"
#include "model/trainer.h"
#include "model/transformer.h"
#include "support/interrupt.h"
#include "support/workspace.h"
#include "tests/model/test_corpus.h"

namespace clgen::model {
namespace {

using clgen::testing::model_test_kernels;
using clgen::testing::TempDir;

NetworkConfig tiny_transformer() {
  NetworkConfig n;
  n.type = "transformer";
  n.layers = 2;
  n.width = 16;
  n.heads = 2;
  n.context = 16;
  n.dropout = 0.1;
  return n;
}

ModelConfig small_transformer_config() {
  ModelConfig c;
  c.network = tiny_transformer();
  c.training.epochs = 2;
  c.training.batch_size = 4;
  c.training.optimizer = "adamw";
  c.training.weight_decay = 0.1;
  c.training.learning_rate = 0.003;
  c.training.lr_schedule = "cosine";
  c.training.warmup_steps = 3;
  c.training.validation_fraction = 0.25;
  return c;
}

TrainOptions quiet_cpu() {
  TrainOptions o;
  o.device = "cpu";
  o.progress = false;
  return o;
}

TEST(Transformer, ForwardGivesLogitsForEveryPositionAndBackwardReachesEveryWeight) {
  torch::manual_seed(1);
  TransformerNetwork net(20, tiny_transformer());
  auto input = torch::randint(0, 20, {3, 10}, torch::kInt64);
  auto logits = net->forward(input);
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{3, 10, 20}));
  EXPECT_EQ(logits.scalar_type(), torch::kFloat32);
  KeyValues kv;
  net->eval();
  net->forward(input, &kv);
  // [layers, batch, heads, T, head_dim] = [2, 3, 2, 10, 8]
  EXPECT_EQ(kv.k.sizes(), (std::vector<int64_t>{2, 3, 2, 10, 8}));
  net->train();
  auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, 20}), input.reshape({-1}));
  loss.backward();
  // Tied embeddings: no output layer; 2 embeddings + 2 blocks x 12 tensors + final norm's 2.
  EXPECT_EQ(net->parameters().size(), 2u + 2 * 12 + 2);
  for (const auto& p : net->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key() << " got no gradient";
  }
  auto too_long = torch::zeros({1, 17}, torch::kInt64);  // context 16
  EXPECT_THROW(net->forward(too_long), c10::Error);
}

TEST(Transformer, AFutureTokenChangesNoEarlierLogit) {
  torch::manual_seed(2);
  TransformerNetwork net(20, tiny_transformer());
  net->eval();
  torch::NoGradGuard no_grad;
  auto a = torch::randint(0, 20, {2, 12}, torch::kInt64);
  auto b = a.clone();
  b.index_put_({torch::indexing::Slice(), 6}, (a.select(1, 6) + 1) % 20);
  auto la = net->forward(a), lb = net->forward(b);
  auto before = torch::indexing::Slice(0, 6);
  EXPECT_TRUE(torch::allclose(la.index({torch::indexing::Slice(), before}),
                              lb.index({torch::indexing::Slice(), before}), 0, 1e-6));
  // ...and does change its own position's logits and later ones.
  EXPECT_FALSE(torch::allclose(la.select(1, 6), lb.select(1, 6), 0, 1e-3));
  EXPECT_FALSE(torch::allclose(la.select(1, 11), lb.select(1, 11), 0, 1e-3));
}

TEST(Transformer, AGradientFreePassKeepsItsWeightCastsOnlyUntilTheWeightsChange) {
  // bfloat16 compute on the CPU: passes without gradients (decoding,
  // validation) keep each weight's cast; an in-place update must renew it.
  torch::manual_seed(4);
  TransformerNetwork net(20, tiny_transformer());
  net->eval();
  net->set_compute_dtype(torch::kBFloat16);
  auto input = torch::randint(0, 20, {2, 8}, torch::kInt64);
  torch::Tensor before, after, with_graph;
  {
    torch::NoGradGuard no_grad;
    before = net->forward(input);
    for (auto& p : net->parameters()) p.mul_(1.5);
    after = net->forward(input);
  }
  with_graph = net->forward(input).detach();  // casts every weight anew
  EXPECT_FALSE(torch::equal(before, after)) << "the second pass used the casts of the old weights";
  EXPECT_TRUE(torch::equal(after, with_graph));
}

TEST(Transformer, EvaluationAfterTrainingModeUsesTheCurrentWeightsEvenWhenTheirVersionDidNotChange) {
  // An update through .data() leaves the parameter's version as it was, as
  // CUDA's fused AdamW kernel does; the training-mode switch between the
  // optimizer step and validation must still drop the old casts.
  torch::manual_seed(5);
  TransformerNetwork net(20, tiny_transformer());
  net->set_compute_dtype(torch::kBFloat16);
  auto input = torch::randint(0, 20, {2, 8}, torch::kInt64);
  torch::NoGradGuard no_grad;
  net->eval();
  auto before = net->forward(input);
  net->train();
  for (auto& p : net->parameters()) {
    const int64_t version = p._version();
    p.data().mul_(1.5);
    ASSERT_EQ(p._version(), version) << "this update should leave the version alone";
  }
  net->eval();
  auto after = net->forward(input);
  TransformerNetwork fresh(20, tiny_transformer());  // same weights, no kept casts
  fresh->set_compute_dtype(torch::kBFloat16);
  {
    auto dst = fresh->parameters();
    auto src = net->parameters();
    for (size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
  }
  fresh->eval();
  EXPECT_FALSE(torch::equal(before, after)) << "validation read the casts of the old weights";
  EXPECT_TRUE(torch::equal(after, fresh->forward(input)));
}

// The weights of a model directory's checkpoint file.
std::vector<torch::Tensor> weights(const TrainResult& r, const ModelConfig& c, const std::string& file) {
  TransformerNetwork net(r.vocab_size, c.network);
  auto pos = load_checkpoint(r.model_dir + "/" + file, *net, r.vocab_size, nullptr, torch::kCPU);
  EXPECT_TRUE(pos.ok()) << pos.status().message();
  return net->parameters();
}

TEST(TransformerTraining, InterruptedAndResumedRunEqualsUninterruptedRun) {
  TempDir dir_a, dir_b;
  auto ws_a = Workspace::open(dir_a.path());
  auto ws_b = Workspace::open(dir_b.path());
  ASSERT_TRUE(ws_a.ok() && ws_b.ok());
  auto texts = model_test_kernels();
  ModelConfig c = small_transformer_config();
  auto straight = train_model(*ws_a, c, texts, quiet_cpu());
  ASSERT_TRUE(straight.ok()) << straight.status().message();
  ASSERT_TRUE(straight->completed);
  ASSERT_EQ(straight->epochs.size(), 2u);
  EXPECT_LT(straight->epochs[1].train_loss, straight->epochs[0].train_loss);

  TrainOptions stop = quiet_cpu();
  int batches = 0;
  stop.after_batch = [&](int epoch, int batch) {
    batches = std::max(batches, batch + 1);
    if (epoch == 1 && batch == 2) request_interrupt();
  };
  auto first = train_model(*ws_b, c, texts, stop);
  clear_interrupt();
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_FALSE(first->completed);
  ASSERT_GT(batches, 4) << "too few batches an epoch to stop in the middle of one";
  auto second = train_model(*ws_b, c, texts, quiet_cpu());
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->resumed);
  ASSERT_EQ(second->epochs.size(), 1u);
  // Same windows, same dropout masks, same learning rates: the same sums and weights, bit for bit.
  EXPECT_EQ(second->epochs[0].train_loss, straight->epochs[1].train_loss);
  EXPECT_EQ(*second->epochs[0].valid_loss, *straight->epochs[1].valid_loss);
  auto wa = weights(*straight, c, "checkpoint.pt"), wb = weights(*second, c, "checkpoint.pt");
  ASSERT_EQ(wa.size(), wb.size());
  for (size_t i = 0; i < wa.size(); ++i) EXPECT_TRUE(torch::equal(wa[i], wb[i])) << "parameter " << i;
  EXPECT_EQ(second->best_epoch, straight->best_epoch);
}

TEST(TransformerTraining, KeepsTheCheckpointOfTheLowestValidationLossAndStopsWithPatience) {
  TempDir dir;
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok());
  ModelConfig c = small_transformer_config();
  c.training.epochs = 12;
  c.training.learning_rate = 0.02;  // fast enough to overfit 10 kernels
  c.training.lr_schedule = "constant";
  c.training.patience = 2;
  auto r = train_model(*ws, c, model_test_kernels(), quiet_cpu());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->epochs.empty());
  size_t best = 0;
  for (size_t i = 1; i < r->epochs.size(); ++i)
    if (*r->epochs[i].valid_loss < *r->epochs[best].valid_loss) best = i;
  EXPECT_EQ(r->best_epoch, int(best) + 1);
  ASSERT_TRUE(r->best_valid_loss.has_value());
  EXPECT_EQ(*r->best_valid_loss, *r->epochs[best].valid_loss);
  // Stopped early exactly when the last two evaluations did not beat the best.
  const size_t after_best = r->epochs.size() - 1 - best;
  EXPECT_EQ(r->stopped_early, after_best == 2) << "epochs run " << r->epochs.size() << ", best " << best + 1;
  EXPECT_LE(after_best, 2u);
  if (!r->stopped_early) EXPECT_EQ(r->epochs.size(), 12u);
  // best.pt holds the best epoch's weights: it equals the last checkpoint
  // only when the best epoch is the last.
  auto b = weights(*r, c, "best.pt"), l = weights(*r, c, "checkpoint.pt");
  bool same = true;
  for (size_t i = 0; i < b.size(); ++i) same = same && torch::equal(b[i], l[i]);
  EXPECT_EQ(same, after_best == 0);
}

// A workspace with a tiny Transformer trained one epoch on the CPU.
class TransformerSampling : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ws = Workspace::open(dir.path());
    ASSERT_TRUE(ws.ok());
    config = small_transformer_config();
    config.training.epochs = 1;
    auto r = train_model(*ws, config, model_test_kernels(), quiet_cpu());
    ASSERT_TRUE(r.ok()) << r.status().message();
    result = *r;
  }
  TempDir dir;
  ModelConfig config;
  TrainResult result;
};

// Each stream's tokens as the documented rule keeps them: after the
// separator, at most `context` of a fed text; a stream holding `context`
// tokens keeps its last context/2 before the next token is appended.
struct Reference {
  int context;
  std::vector<std::vector<Token>> streams;
  void feed(size_t s, Token separator, std::vector<Token> text) {
    text.insert(text.begin(), separator);
    if (int(text.size()) > context) text.erase(text.begin(), text.end() - context);
    streams[s] = text;
  }
  void advance(size_t s, Token t) {
    auto& h = streams[s];
    if (int(h.size()) >= context) h.erase(h.begin(), h.end() - context / 2);
    h.push_back(t);
  }
};

TEST_F(TransformerSampling, CachedDecodingEqualsFullRecomputationThroughRewindsAndTheContextLimit) {
  auto lm = LanguageModel::load(dir.path(), "", "cpu", 0, "last");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  TransformerNetwork full(result.vocab_size, config.network);
  ASSERT_TRUE(
      load_checkpoint(result.model_dir + "/checkpoint.pt", *full, result.vocab_size, nullptr, torch::kCPU).ok());
  full->eval();
  const Vocabulary& vocab = (*lm)->vocabulary();
  const Token sep = vocab.separator();
  const int v = vocab.size();
  auto batch = (*lm)->new_batch(3, 7);
  ASSERT_TRUE(batch.ok());
  auto& b = **batch;
  Reference ref{config.network.context, std::vector<std::vector<Token>>(3)};

  auto encode = [&](const std::string& text) { return *vocab.encode(text); };
  // 17 tokens with the separator: longer than the context of 16.
  const std::string seed = "__kernel void A(";
  ASSERT_TRUE(b.feed_all(seed).ok());
  for (size_t s = 0; s < 3; ++s) ref.feed(s, sep, encode(seed));
  ASSERT_TRUE(b.feed(1, "x").ok());
  ref.feed(1, sep, encode("x"));

  auto expect_matches = [&](int step) {
    auto logits = b.logits();
    ASSERT_TRUE(logits.ok());
    torch::NoGradGuard no_grad;
    for (size_t s = 0; s < 3; ++s) {
      const auto& h = ref.streams[s];
      auto ids = torch::tensor(std::vector<int64_t>(h.begin(), h.end()), torch::kInt64).reshape({1, -1});
      auto want = full->forward(ids).select(1, int64_t(h.size()) - 1)[0];
      auto got = torch::from_blob(logits->data() + s * size_t(v), {v}, torch::kFloat32);
      ASSERT_TRUE(torch::allclose(got, want, 1e-4, 1e-4))
          << "step " << step << ", stream " << s << " (" << h.size() << " tokens): largest difference "
          << (got - want).abs().max().item<float>();
    }
  };
  expect_matches(-1);
  std::vector<std::vector<Token>> saved_ref;
  for (int step = 0; step < 50; ++step) {
    if (step % 4 == 3) {  // sample() feeds its draws back
      auto drawn = b.sample(1.0);
      ASSERT_TRUE(drawn.ok());
      for (size_t s = 0; s < 3; ++s) ref.advance(s, (*drawn)[s]);
    } else {
      std::vector<Token> chosen;
      for (int s = 0; s < 3; ++s) chosen.push_back(Token((s * 7 + step * 3) % v));
      ASSERT_TRUE(b.advance(chosen).ok());
      for (size_t s = 0; s < 3; ++s) ref.advance(s, chosen[s]);
    }
    if (step == 10) {  // stream 2 has passed the context once (17 + 11 tokens)
      ASSERT_TRUE(b.save({0, 2}).ok());
      saved_ref = ref.streams;
    }
    if (step == 22) {  // rewind across another context shift of streams 0 and 2
      ASSERT_TRUE(b.restore({0, 2}).ok());
      ref.streams[0] = saved_ref[0];
      ref.streams[2] = saved_ref[2];
    }
    if (step == 30) {
      ASSERT_TRUE(b.feed(2, "__global").ok());
      ref.feed(2, sep, encode("__global"));
    }
    expect_matches(step);
  }
  EXPECT_FALSE(b.restore({2}).ok()) << "stream 2 was fed anew: what it saved belongs to another text";
  EXPECT_TRUE(b.restore({0}).ok());
}

// Saving copies no cache rows: a restore either cuts a stream back to its
// saved length (its rows below it untouched since) or, for a stream shifted
// at the context since, encodes its saved tokens again. Streams at different
// lengths take both ways, the same saved state is restored twice, and a
// later save replaces an earlier one; every step's logits must equal a full
// recomputation of the tokens the documented rule keeps.
TEST_F(TransformerSampling, RestoresEqualFullRecomputationWhetherOrNotTheStreamShiftedSinceItsSave) {
  auto lm = LanguageModel::load(dir.path(), "", "cpu", 0, "last");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  TransformerNetwork full(result.vocab_size, config.network);
  ASSERT_TRUE(
      load_checkpoint(result.model_dir + "/checkpoint.pt", *full, result.vocab_size, nullptr, torch::kCPU).ok());
  full->eval();
  const Vocabulary& vocab = (*lm)->vocabulary();
  const int v = vocab.size();
  constexpr size_t kStreams = 4;
  auto batch = (*lm)->new_batch(int(kStreams), 3);
  ASSERT_TRUE(batch.ok());
  auto& b = **batch;
  Reference ref{config.network.context, std::vector<std::vector<Token>>(kStreams)};
  // With the separator: 2, 3, 4 and 9 tokens (context 16).
  const std::vector<std::string> starts = {"x", "ab", "__k", "__global"};
  for (size_t s = 0; s < kStreams; ++s) {
    ASSERT_TRUE(b.feed(int(s), starts[s]).ok());
    ref.feed(s, vocab.separator(), *vocab.encode(starts[s]));
  }
  std::vector<std::vector<Token>> saved(kStreams);
  auto save = [&](const std::vector<int>& list) {
    ASSERT_TRUE(b.save(list).ok());
    for (int s : list) saved[size_t(s)] = ref.streams[size_t(s)];
  };
  auto restore = [&](const std::vector<int>& list) {
    ASSERT_TRUE(b.restore(list).ok());
    for (int s : list) ref.streams[size_t(s)] = saved[size_t(s)];
  };
  for (int step = 0; step < 40; ++step) {
    std::vector<Token> chosen;
    for (size_t s = 0; s < kStreams; ++s) chosen.push_back(Token((s * 5 + size_t(step) * 7 + 1) % size_t(v)));
    ASSERT_TRUE(b.advance(chosen).ok());
    for (size_t s = 0; s < kStreams; ++s) ref.advance(s, chosen[s]);
    // Lengths after step 2: 5, 6, 7, 12.
    if (step == 2) save({0, 1, 2, 3});
    if (step == 5) restore({0, 1});   // neither shifted: cut back to 5 and 6 tokens
    if (step == 8) restore({0});      // the same saved state again
    if (step == 9) save({1});         // replaces stream 1's save at 6 tokens
    if (step == 12) restore({1, 2});  // 1 not shifted; 2 held 16 tokens after step 11, shifted: encoded again
    if (step == 14) restore({0});     // a third time, still unshifted
    if (step == 20) restore({3});     // shifted at steps 7 and 15
    if (step == 30) restore({2});     // shifted again since its last restore
    auto logits = b.logits();
    ASSERT_TRUE(logits.ok());
    torch::NoGradGuard no_grad;
    for (size_t s = 0; s < kStreams; ++s) {
      const auto& h = ref.streams[s];
      auto ids = torch::tensor(std::vector<int64_t>(h.begin(), h.end()), torch::kInt64).reshape({1, -1});
      auto want = full->forward(ids).select(1, int64_t(h.size()) - 1)[0];
      auto got = torch::from_blob(logits->data() + s * size_t(v), {v}, torch::kFloat32);
      ASSERT_TRUE(torch::allclose(got, want, 1e-4, 1e-4))
          << "step " << step << ", stream " << s << " (" << h.size() << " tokens): largest difference "
          << (got - want).abs().max().item<float>();
    }
  }
}

TEST_F(TransformerSampling, LoadsTheBestCheckpointUnlessToldLast) {
  // Replace best.pt with other weights: "best" must read them, "last" not.
  TransformerNetwork other(result.vocab_size, config.network);
  torch::NoGradGuard no_grad;
  for (auto& p : other->parameters()) p.add_(0.5);
  ASSERT_TRUE(save_checkpoint(result.model_dir + "/best.pt", *other, result.vocab_size, nullptr, {}).ok());
  auto first_logits = [&](const std::string& which) {
    auto lm = LanguageModel::load(dir.path(), "", "cpu", 0, which);
    EXPECT_TRUE(lm.ok()) << lm.status().message();
    auto batch = (*lm)->new_batch(1, 1);
    EXPECT_TRUE((*batch)->feed(0, "__kernel").ok());
    return *(*batch)->logits();
  };
  auto best = first_logits("best"), last = first_logits("last");
  other->eval();
  auto lm = LanguageModel::load(dir.path(), "", "cpu", 0, "last");
  std::vector<Token> ids = {(*lm)->vocabulary().separator()};
  auto text = *(*lm)->vocabulary().encode("__kernel");
  ids.insert(ids.end(), text.begin(), text.end());
  auto want = other->forward(torch::tensor(std::vector<int64_t>(ids.begin(), ids.end())).reshape({1, -1}))
                  .select(1, int64_t(ids.size()) - 1)[0];
  EXPECT_TRUE(torch::allclose(torch::from_blob(best.data(), {int64_t(best.size())}), want, 1e-5, 1e-5));
  EXPECT_FALSE(std::equal(best.begin(), best.end(), last.begin()));
  // Without best.pt (a model from before best checkpoints), "best" falls back to the last.
  std::filesystem::remove(result.model_dir + "/best.pt");
  EXPECT_EQ(first_logits("best"), last);
  EXPECT_FALSE(LanguageModel::load(dir.path(), "", "cpu", 0, "first").ok());
}

}  // namespace
}  // namespace clgen::model
