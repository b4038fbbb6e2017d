// The LSTM network and its checkpoint files (temp file + rename).
#include "model/network.h"

#include <sstream>

#include <fmt/format.h>

#include "model/torch_error.h"
#include "support/files.h"

namespace clgen::model {

LstmNetworkImpl::LstmNetworkImpl(int vocab, const NetworkConfig& cfg)
    : vocab_size(vocab), config(cfg) {
  embedding = register_module("embedding", torch::nn::Embedding(vocab, cfg.embedding_size));
  dropout = register_module("dropout", torch::nn::Dropout(cfg.dropout));
  lstm = register_module(
      "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(cfg.embedding_size, cfg.hidden_size)
                                  .num_layers(cfg.layers)
                                  .dropout(cfg.layers > 1 ? cfg.dropout : 0.0)));
  output = register_module("output", torch::nn::Linear(cfg.hidden_size, vocab));
}

std::tuple<torch::Tensor, LstmState> LstmNetworkImpl::forward(const torch::Tensor& input,
                                                               const LstmState& state) {
  torch::Tensor x = dropout(embedding(input));
  auto [y, next] = lstm(x, state);
  // at::linear folds the bias into the GEMM (Linear::forward adds it apart on 3-D input).
  return {at::linear(dropout(y), output->weight, output->bias), next};
}

LstmState LstmNetworkImpl::zero_state(int64_t batch, torch::Device device) const {
  auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  return {torch::zeros({config.layers, batch, config.hidden_size}, opts),
          torch::zeros({config.layers, batch, config.hidden_size}, opts)};
}

Status save_checkpoint(const std::string& path, torch::nn::Module& network, int vocab_size,
                       torch::optim::Optimizer* optimizer, const TrainingPosition& pos) {
  try {
    torch::serialize::OutputArchive archive, model, optim;
    network.save(model);
    archive.write("model", model);
    if (optimizer) {
      optimizer->save(optim);
      archive.write("optimizer", optim);
    }
    auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    archive.write("position",
                  torch::tensor({pos.epoch, pos.batch, pos.loss_tokens}, i64));
    archive.write("loss_sum", torch::tensor({pos.loss_sum}, torch::kFloat64));
    archive.write("loss_pending", torch::tensor({pos.loss_pending}, torch::kFloat64));
    archive.write("seconds", torch::tensor({pos.seconds}, torch::kFloat64));
    archive.write("vocab_size", torch::tensor({int64_t(vocab_size)}, i64));
    archive.write("best",
                  torch::tensor({pos.best.loss, double(pos.best.epoch), double(pos.best.since_best)}, torch::kFloat64));
    if (pos.h.defined()) {
      archive.write("h", pos.h.to(torch::kCPU));
      archive.write("c", pos.c.to(torch::kCPU));
    }
    std::ostringstream out;
    archive.save_to(out);
    return write_file_atomic(path, out.str()).with_context("writing checkpoint");
  } catch (const std::exception& e) {
    return io_error(fmt::format("writing checkpoint {}: {}", path, torch_error_text(e)));
  }
}

Expected<TrainingPosition> load_checkpoint(const std::string& path, torch::nn::Module& network, int vocab_size,
                                           torch::optim::Optimizer* optimizer, torch::Device device) {
  ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  try {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive, model, optim;
    archive.load_from(in, device);
    torch::Tensor vocab;
    archive.read("vocab_size", vocab);
    if (vocab.item<int64_t>() != vocab_size)
      return parse_error(fmt::format("checkpoint {}: vocabulary size {} does not match the model's {}", path,
                                     vocab.item<int64_t>(), vocab_size));
    archive.read("model", model);
    network.load(model);
    network.to(device);
    if (optimizer) {
      archive.read("optimizer", optim);
      optimizer->load(optim);
    }
    TrainingPosition pos;
    torch::Tensor p, loss;
    archive.read("position", p);
    archive.read("loss_sum", loss);
    p = p.to(torch::kCPU);
    pos.epoch = p[0].item<int64_t>();
    pos.batch = p[1].item<int64_t>();
    pos.loss_tokens = p[2].item<int64_t>();
    pos.loss_sum = loss.to(torch::kCPU)[0].item<double>();
    // Absent from checkpoints written before mid-epoch checkpoints: zero.
    torch::Tensor pending, seconds;
    if (archive.try_read("loss_pending", pending)) pos.loss_pending = pending.to(torch::kCPU)[0].item<double>();
    if (archive.try_read("seconds", seconds)) pos.seconds = seconds.to(torch::kCPU)[0].item<double>();
    torch::Tensor best;
    if (archive.try_read("best", best)) {
      best = best.to(torch::kCPU);
      pos.best.loss = best[0].item<double>();
      pos.best.epoch = int(best[1].item<double>());
      pos.best.since_best = int(best[2].item<double>());
    }
    torch::Tensor h, c;
    if (archive.try_read("h", h) && archive.try_read("c", c)) {
      pos.h = h.to(device);
      pos.c = c.to(device);
    }
    return pos;
  } catch (const std::exception& e) {
    return parse_error(fmt::format("reading checkpoint {}: {}", path, torch_error_text(e)));
  }
}

Expected<torch::Device> resolve_device(const std::string& name) {
  if (name == "cpu") return torch::Device(torch::kCPU);
  if (name == "cuda") {
    if (!torch::cuda::is_available())
      return unavailable("--device cuda: no CUDA device (or LibTorch was built without CUDA)");
    return torch::Device(torch::kCUDA);
  }
  if (name == "auto" || name.empty())
    return torch::Device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  return invalid_argument("device must be cpu, cuda or auto, not \"" + name + "\"");
}

}  // namespace clgen::model
