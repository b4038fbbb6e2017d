// Sharding, bucketed gradient all-reduce and state gathering over Collectives.
#include "model/data_parallel.h"

#include <fmt/format.h>

namespace clgen::model {

Shard shard_streams(int64_t total, int rank, int world) {
  Shard s;
  s.total = total;
  int64_t base = total / world, extra = total % world;
  s.count = base + (rank < extra ? 1 : 0);
  s.first = rank * base + std::min<int64_t>(rank, extra);
  return s;
}

Status all_reduce_gradients(Collectives& group, const std::vector<torch::Tensor>& parameters,
                            torch::Tensor& extras, int64_t bucket_bytes) {
  torch::NoGradGuard no_grad;
  std::vector<std::vector<torch::Tensor>> buckets(1);
  int64_t bytes = 0;
  for (const auto& p : parameters) {
    torch::Tensor g = p.grad();
    if (!g.defined()) {
      // A parameter the step did not reach: zeros, so every rank's buffers match.
      p.mutable_grad() = torch::zeros_like(p);
      g = p.grad();
    }
    if (bytes > 0 && bytes + int64_t(g.nbytes()) > bucket_bytes) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(g);
    bytes += int64_t(g.nbytes());
  }
  std::vector<torch::Tensor> flat;
  flat.reserve(buckets.size());
  for (size_t b = 0; b < buckets.size(); ++b) {
    std::vector<torch::Tensor> views;
    for (const auto& g : buckets[b]) views.push_back(g.reshape({-1}));
    if (b + 1 == buckets.size()) views.push_back(extras.reshape({-1}));
    flat.push_back(torch::cat(views));
  }
  RETURN_IF_ERROR(group.all_reduce_sum(flat));
  for (size_t b = 0; b < buckets.size(); ++b) {
    int64_t offset = 0;
    for (auto& g : buckets[b]) {
      g.copy_(flat[b].narrow(0, offset, g.numel()).view_as(g));
      offset += g.numel();
    }
    if (b + 1 == buckets.size()) extras.copy_(flat[b].narrow(0, offset, extras.numel()).view_as(extras));
  }
  return ok_status();
}

Expected<std::vector<double>> all_reduce_doubles(Collectives& group, std::vector<double> values,
                                                 torch::Device device) {
  std::vector<torch::Tensor> t = {
      torch::tensor(values, torch::TensorOptions().dtype(torch::kFloat64)).to(device)};
  RETURN_IF_ERROR(group.all_reduce_sum(t));
  torch::Tensor host = t[0].to(torch::kCPU).contiguous();
  const double* p = host.data_ptr<double>();
  return std::vector<double>(p, p + values.size());
}

Status barrier(Collectives& group, torch::Device device) {
  return all_reduce_doubles(group, {1.0}, device).status();
}

Status broadcast_parameters(Collectives& group, const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> data;
  for (const auto& p : parameters) data.push_back(p.detach());
  return group.broadcast(data, 0);
}

Expected<LstmState> gather_state(Collectives& group, const LstmState& local, const Shard& shard) {
  torch::NoGradGuard no_grad;
  const auto& h = std::get<0>(local);
  // h and c side by side; each rank fills its streams and zeros elsewhere,
  // so the sum is every stream's state (x + 0 is exact).
  auto full = torch::zeros({2, h.size(0), shard.total, h.size(2)}, h.options());
  full.narrow(2, shard.first, shard.count).copy_(torch::stack({h, std::get<1>(local)}));
  std::vector<torch::Tensor> t = {full};
  RETURN_IF_ERROR(group.all_reduce_sum(t));
  return LstmState{t[0][0].clone(), t[0][1].clone()};
}

Expected<torch::Device> rank_device(const std::string& name, int local_rank) {
  ASSIGN_OR_RETURN(torch::Device device, resolve_device(name));
  if (!device.is_cuda()) return device;
  auto devices = int(torch::cuda::device_count());
  return torch::Device(torch::kCUDA, c10::DeviceIndex(local_rank % devices));
}

}  // namespace clgen::model
