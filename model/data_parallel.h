// Private to clgen_model (LibTorch types): what data-parallel training adds
// to a training step over a Collectives group — each rank's share of the
// batch streams, the gradients summed over ranks in a few large buffers, and
// the full hidden state assembled from the shards for a checkpoint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "model/collectives.h"
#include "model/network.h"
#include "support/status.h"

namespace clgen::model {

// The batch streams [first, first + count) of `total` that one rank trains on.
struct Shard {
  int64_t first = 0;
  int64_t count = 0;
  int64_t total = 0;
};

// Rank `rank` of `world`'s contiguous block of `total` streams; block sizes
// differ by at most one, lower ranks take the larger. A world of one takes all.
Shard shard_streams(int64_t total, int rank, int world);

// Gradient buckets: DDP's default size. A 2x1024 LSTM (~13 M parameters,
// 52 MB of float32 gradients) makes three all-reduces per step.
constexpr int64_t kGradientBucketBytes = int64_t(25) << 20;

// Sums the gradients of `parameters` over all ranks, in place: consecutive
// gradients are flattened into buffers of about `bucket_bytes`, one
// all-reduce each, all in flight together, and copied back. `extras` (a 1-D
// tensor of the gradients' dtype and device: per-step scalars such as the
// loss) rides in the last buffer and is summed too. A missing gradient counts
// as zeros. Fails as Collectives::all_reduce_sum does.
Status all_reduce_gradients(Collectives& group, const std::vector<torch::Tensor>& parameters,
                            torch::Tensor& extras, int64_t bucket_bytes = kGradientBucketBytes);

// The elementwise sum of `values` over all ranks, computed in float64 on
// `device` (NCCL reduces only CUDA tensors).
Expected<std::vector<double>> all_reduce_doubles(Collectives& group, std::vector<double> values,
                                                 torch::Device device);

// Waits until every rank has called it (or fails at the group's timeout).
Status barrier(Collectives& group, torch::Device device);

// Overwrites every rank's parameters with rank 0's.
Status broadcast_parameters(Collectives& group, const std::vector<torch::Tensor>& parameters);

// The hidden state of all shard.total streams, [layers, total, hidden], on
// every rank, from each rank's state of its own streams [layers, count, hidden].
Expected<LstmState> gather_state(Collectives& group, const LstmState& local, const Shard& shard);

// A rank's device for --device `name`: the CPU, or cuda:(local_rank mod the
// number of CUDA devices) for "cuda" and for "auto" when CUDA is there.
// Fails like resolve_device.
Expected<torch::Device> rank_device(const std::string& name, int local_rank);

}  // namespace clgen::model
