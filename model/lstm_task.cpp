// The LSTM's training task: the token file is cut into B parallel streams
// and batch k holds positions [k*T, k*T+T] of every stream, so the hidden
// state carries across batches (truncated BPTT). In a distributed run each
// rank steps its own block of the B streams (model/data_parallel.h).
#include <algorithm>

#include <fmt/format.h>

#include "model/data_parallel.h"
#include "model/training_task.h"

namespace clgen::model {

namespace {

// The batchified view of one token file, and the streams this rank reads.
struct Streams {
  const TokenFile* file = nullptr;
  int64_t count = 0;    // B
  int64_t length = 0;   // tokens per stream
  int64_t steps = 0;    // T
  int64_t batches = 0;  // per pass
  Shard shard;          // this rank's streams; all B in a single process

  // `max_tokens` > 0 uses only the file's first max_tokens tokens.
  static Streams make(const TokenFile& f, int64_t batch, int64_t seq, int64_t max_tokens, int rank = 0, int world = 1) {
    Streams s;
    s.file = &f;
    int64_t n = int64_t(f.size());
    if (max_tokens > 0) n = std::min(n, max_tokens);
    // Short files (e.g. validation) use fewer streams so each has 2+ tokens.
    s.count = std::max<int64_t>(1, std::min<int64_t>(batch, n / 2));
    s.length = n / s.count;
    s.steps = std::max<int64_t>(1, std::min<int64_t>(seq, s.length - 1));
    s.batches = s.length >= 2 ? (s.length - 1 + s.steps - 1) / s.steps : 0;
    s.shard = shard_streams(s.count, rank, world);
    return s;
  }

  // Input and target [len, shard.count] of batch `k` (this rank's streams), on `device`.
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t k, torch::Device device) const {
    int64_t start = k * steps;
    int64_t len = std::min(steps, length - 1 - start);
    auto x = torch::empty({len + 1, shard.count}, torch::kInt64);
    auto acc = x.accessor<int64_t, 2>();
    const Token* data = file->data();
    for (int64_t b = 0; b < shard.count; ++b) {
      const Token* row = data + (shard.first + b) * length + start;
      for (int64_t t = 0; t <= len; ++t) acc[t][b] = row[t];
    }
    x = x.to(device);
    return {x.narrow(0, 0, len), x.narrow(0, 1, len)};
  }
};

class LstmTask : public TrainingTask {
 public:
  LstmTask(const ModelConfig& config, int vocab_size, const TokenFile& train, const TokenFile& valid,
           torch::Device device, int rank, int world, Streams streams)
      : training_(config.training),
        valid_(valid),
        device_(device),
        rank_(rank),
        world_(world),
        streams_(streams),
        net_(vocab_size, config.network) {
    (void)train;
    net_->to(device);
  }

  torch::nn::Module& network() override { return *net_; }
  int vocab_size() const override { return net_->vocab_size; }
  int64_t batches() const override { return streams_.batches; }
  double share() const override { return double(streams_.shard.count) / double(streams_.count); }
  std::string describe_shard() const override {
    return fmt::format("batch streams {}..{} of {}", streams_.shard.first,
                       streams_.shard.first + streams_.shard.count - 1, streams_.count);
  }
  std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainingConfig& t) override {
    std::vector<torch::Tensor> decay, rest;
    for (auto& p : net_->parameters()) (p.dim() == 2 ? decay : rest).push_back(p);
    if (t.optimizer != "adamw") return model::make_optimizer(t, net_->parameters(), {});
    return model::make_optimizer(t, decay, rest);
  }
  Status check_position(const TrainingPosition& pos, const std::string& path) const override {
    if (pos.h.defined() && pos.h.size(1) != streams_.count)
      return parse_error(fmt::format("checkpoint {}: its hidden state has {} streams, the batch {}", path,
                                     pos.h.size(1), streams_.count));
    return ok_status();
  }
  void begin_epoch(const TrainingPosition& pos) override {
    const Shard& shard = streams_.shard;
    state_ = pos.h.defined() ? LstmState{pos.h.narrow(1, shard.first, shard.count).contiguous(),
                                         pos.c.narrow(1, shard.first, shard.count).contiguous()}
                             : net_->zero_state(shard.count, device_);
  }
  Step forward(int64_t, int64_t batch) override {
    auto [x, y] = streams_.batch(batch, device_);
    // Truncated BPTT: the state carries over, its gradient history does not.
    state_ = {std::get<0>(state_).detach(), std::get<1>(state_).detach()};
    auto [logits, next] = net_->forward(x, state_);
    state_ = next;
    Step s;
    s.loss = torch::nn::functional::cross_entropy(logits.reshape({-1, net_->vocab_size}), y.reshape({-1}));
    s.local_tokens = y.numel();
    s.global_tokens = y.size(0) * streams_.count;
    return s;
  }
  Status fill_position(TrainingPosition& at, Collectives* group) override {
    LstmState full = {std::get<0>(state_).detach(), std::get<1>(state_).detach()};
    if (group) {
      ASSIGN_OR_RETURN(full, gather_state(*group, full, streams_.shard));
    }
    at.h = std::get<0>(full);
    at.c = std::get<1>(full);
    return ok_status();
  }
  std::pair<double, int64_t> evaluate() override {
    Streams s =
        Streams::make(valid_, training_.batch_size, training_.sequence_length, training_.max_tokens, rank_, world_);
    if (s.batches == 0 || s.shard.count == 0) return {0.0, 0};
    torch::NoGradGuard no_grad;
    net_->eval();
    LstmState state = net_->zero_state(s.shard.count, device_);
    double sum = 0;
    int64_t n = 0;
    for (int64_t k = 0; k < s.batches; ++k) {
      auto [x, y] = s.batch(k, device_);
      auto [logits, next] = net_->forward(x, state);
      state = next;
      auto loss =
          torch::nn::functional::cross_entropy(logits.reshape({-1, net_->vocab_size}), y.reshape({-1}),
                                               torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
      sum += loss.item<double>();
      n += y.numel();
    }
    net_->train();
    return {sum, n};
  }

 private:
  TrainingConfig training_;
  const TokenFile& valid_;
  torch::Device device_;
  int rank_, world_;
  Streams streams_;
  LstmNetwork net_;
  LstmState state_;
};

}  // namespace

Expected<std::unique_ptr<TrainingTask>> make_lstm_task(const ModelConfig& config, int vocab_size,
                                                       const TokenFile& train, const TokenFile& valid,
                                                       torch::Device device, int rank, int world) {
  const TrainingConfig& tc = config.training;
  Streams streams = Streams::make(train, tc.batch_size, tc.sequence_length, tc.max_tokens, rank, world);
  if (streams.batches == 0)
    return invalid_argument(fmt::format("the training corpus has only {} tokens", train.size()));
  if (streams.count < world)
    return invalid_argument(
        fmt::format("the training corpus makes {} batch streams (training.batch_size {}), fewer than the {} "
                    "ranks: each rank needs one",
                    streams.count, tc.batch_size, world));
  return std::unique_ptr<TrainingTask>(new LstmTask(config, vocab_size, train, valid, device, rank, world, streams));
}

Expected<std::unique_ptr<TrainingTask>> make_training_task(const ModelConfig& config, int vocab_size,
                                                           const TokenFile& train, const TokenFile& valid,
                                                           torch::Device device, int rank, int world) {
  if (config.network.type == "transformer")
    return make_transformer_task(config, vocab_size, train, valid, device, rank, world);
  return make_lstm_task(config, vocab_size, train, valid, device, rank, world);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainingConfig& t,
                                                        const std::vector<torch::Tensor>& decay,
                                                        const std::vector<torch::Tensor>& no_decay) {
  if (t.optimizer == "sgd")
    return std::make_unique<torch::optim::SGD>(decay, torch::optim::SGDOptions(t.learning_rate).momentum(t.momentum));
  if (t.optimizer == "adamw") {
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(
        decay, std::make_unique<torch::optim::AdamWOptions>(
                   torch::optim::AdamWOptions(t.learning_rate).betas({0.9, 0.95}).weight_decay(t.weight_decay)));
    if (!no_decay.empty())
      groups.emplace_back(no_decay,
                          std::make_unique<torch::optim::AdamWOptions>(
                              torch::optim::AdamWOptions(t.learning_rate).betas({0.9, 0.95}).weight_decay(0)));
    return std::make_unique<torch::optim::AdamW>(
        std::move(groups), torch::optim::AdamWOptions(t.learning_rate).weight_decay(t.weight_decay));
  }
  return std::make_unique<torch::optim::Adam>(decay, torch::optim::AdamOptions(t.learning_rate));
}

}  // namespace clgen::model
