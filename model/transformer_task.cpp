// The Transformer's training task: every batch is B windows of `context`+1
// contiguous tokens of the encoded training corpus at pseudo-random offsets,
// drawn from (seed, epoch, batch, window), so a resumed run reads the
// batches an uninterrupted one would. An epoch is as many batches as make
// one pass of the corpus's tokens (at least one). In a distributed run each
// rank takes a contiguous block of the B windows. Validation reads the
// validation file once, as consecutive windows of `context` tokens.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "model/data_parallel.h"
#include "model/multi_tensor_adamw.h"
#include "model/training_task.h"
#include "model/transformer.h"

namespace clgen::model {

namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class TransformerTask : public TrainingTask {
 public:
  TransformerTask(const ModelConfig& config, int vocab_size, const TokenFile& train, const TokenFile& valid,
                  torch::Device device, int rank, int world, int64_t usable, int64_t window)
      : config_(config),
        train_(train),
        valid_(valid),
        device_(device),
        rank_(rank),
        world_(world),
        usable_(usable),
        window_(window),
        net_(vocab_size, config.network) {
    const int64_t b = config.training.batch_size;
    shard_ = shard_streams(b, rank, world);
    batches_ = std::max<int64_t>(1, usable_ / (b * window_));
    net_->to(device);
    net_->set_compute_dtype(device.is_cuda() ? torch::kBFloat16 : torch::kFloat32);
  }

  torch::nn::Module& network() override { return *net_; }
  int vocab_size() const override { return net_->vocab_size; }
  int64_t batches() const override { return batches_; }
  double share() const override { return double(shard_.count) / double(shard_.total); }
  std::string describe_shard() const override {
    return fmt::format("windows {}..{} of {} per batch", shard_.first, shard_.first + shard_.count - 1, shard_.total);
  }
  // AdamW as model::make_optimizer makes it (betas 0.9/0.95, decay on the
  // matrices only), stepped by multi-tensor kernels: fused on CUDA with
  // LibTorch 2, as PyTorch's AdamW(fused=True).
  std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainingConfig& t) override {
    if (t.optimizer != "adamw") return model::make_optimizer(t, net_->parameters(), {});
    auto [decay, rest] = net_->decay_groups();
    auto options = [&](double wd) {
      return std::make_unique<torch::optim::AdamWOptions>(
          torch::optim::AdamWOptions(t.learning_rate).betas({0.9, 0.95}).weight_decay(wd));
    };
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay, options(t.weight_decay));
    if (!rest.empty()) groups.emplace_back(rest, options(0));
    const AdamWKernel kernel = best_adamw_kernel(device_);
    spdlog::info("AdamW: {} kernels", adamw_kernel_name(kernel));
    return std::make_unique<MultiTensorAdamW>(
        std::move(groups), torch::optim::AdamWOptions(t.learning_rate).weight_decay(t.weight_decay), kernel);
  }
  Status check_position(const TrainingPosition& pos, const std::string& path) const override {
    if (pos.h.defined())
      return parse_error(fmt::format("checkpoint {} carries an LSTM state: not a Transformer's", path));
    return ok_status();
  }
  void begin_epoch(const TrainingPosition&) override {}

  Step forward(int64_t epoch, int64_t batch) override {
    // Window w of the batch starts at a position drawn from (seed, epoch, batch, w).
    const uint64_t base = mix(config_.training.seed ^ mix(uint64_t(epoch) * 1000003ULL + uint64_t(batch)));
    const int64_t span = usable_ - window_;  // starts 0..span-1: window_+1 tokens each
    std::vector<int64_t> starts;
    for (int64_t w = shard_.first; w < shard_.first + shard_.count; ++w)
      starts.push_back(int64_t(mix(base ^ mix(uint64_t(w) + 1)) % uint64_t(span)));
    auto [x, y] = windows(train_, starts, window_);
    auto logits = net_->forward(x);
    Step s;
    s.loss = torch::nn::functional::cross_entropy(logits.reshape({-1, net_->vocab_size}), y.reshape({-1}));
    s.local_tokens = y.numel();
    s.global_tokens = window_ * shard_.total;
    return s;
  }
  Status fill_position(TrainingPosition&, Collectives*) override { return ok_status(); }

  // The global norm from the gradients' norms on the device: no wait for it.
  void clip_gradients(double max_norm) override { clip_gradient_norm(net_->parameters(), max_norm); }

  std::pair<double, int64_t> evaluate() override {
    int64_t n = int64_t(valid_.size());
    if (config_.training.max_tokens > 0) n = std::min(n, config_.training.max_tokens);
    if (n < 2) return {0.0, 0};
    // Windows start at 0, T, 2T, ...; the last may be shorter.
    const int64_t t = std::min<int64_t>(window_, n - 1);
    const int64_t count = (n - 1 + t - 1) / t;
    const Shard mine = shard_streams(count, rank_, world_);
    torch::NoGradGuard no_grad;
    net_->eval();
    torch::Tensor sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device_));
    int64_t tokens = 0;
    const int64_t chunk = std::max<int64_t>(1, config_.training.batch_size);
    for (int64_t first = mine.first; first < mine.first + mine.count;) {
      // Full windows in chunks of the batch size; a short last window alone.
      const int64_t len = std::min(t, n - 1 - first * t);
      std::vector<int64_t> starts;
      for (int64_t w = first; w < mine.first + mine.count && int64_t(starts.size()) < chunk; ++w) {
        if (std::min(t, n - 1 - w * t) != len) break;
        starts.push_back(w * t);
      }
      auto [x, y] = windows(valid_, starts, len);
      auto logits = net_->forward(x);
      sum +=
          torch::nn::functional::cross_entropy(logits.reshape({-1, net_->vocab_size}), y.reshape({-1}),
                                               torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
              .to(torch::kFloat64);
      tokens += y.numel();
      first += int64_t(starts.size());
    }
    net_->train();
    return {sum.item<double>(), tokens};
  }

 private:
  // Inputs and targets [windows, len] of the windows at `starts` of `file`.
  std::pair<torch::Tensor, torch::Tensor> windows(const TokenFile& file, const std::vector<int64_t>& starts,
                                                  int64_t len) const {
    auto opts = torch::TensorOptions().dtype(torch::kInt64).pinned_memory(device_.is_cuda());
    auto host = torch::empty({int64_t(starts.size()), len + 1}, opts);
    int64_t* out = host.data_ptr<int64_t>();
    const Token* data = file.data();
    for (size_t w = 0; w < starts.size(); ++w)
      for (int64_t i = 0; i <= len; ++i) out[int64_t(w) * (len + 1) + i] = data[starts[w] + i];
    auto x = host.to(device_, /*non_blocking=*/device_.is_cuda());
    return {x.narrow(1, 0, len), x.narrow(1, 1, len)};
  }

  ModelConfig config_;
  const TokenFile& train_;
  const TokenFile& valid_;
  torch::Device device_;
  int rank_, world_;
  int64_t usable_, window_;
  Shard shard_;
  int64_t batches_ = 0;
  TransformerNetwork net_;
};

}  // namespace

Expected<std::unique_ptr<TrainingTask>> make_transformer_task(const ModelConfig& config, int vocab_size,
                                                              const TokenFile& train, const TokenFile& valid,
                                                              torch::Device device, int rank, int world) {
  const TrainingConfig& tc = config.training;
  int64_t usable = int64_t(train.size());
  if (tc.max_tokens > 0) usable = std::min(usable, tc.max_tokens);
  // A corpus shorter than the context trains on windows of its own length.
  const int64_t window = std::min<int64_t>(config.network.context, usable - 2);
  if (window < 1) return invalid_argument(fmt::format("the training corpus has only {} tokens", train.size()));
  if (tc.batch_size < world)
    return invalid_argument(
        fmt::format("training.batch_size {} makes fewer windows per batch than the {} ranks: each rank needs one",
                    tc.batch_size, world));
  return std::unique_ptr<TrainingTask>(
      new TransformerTask(config, vocab_size, train, valid, device, rank, world, usable, window));
}

}  // namespace clgen::model
