// Private to clgen_model (LibTorch types): the process group as the trainer
// sees it — its rank and size and the two collectives data-parallel training
// needs. The c10d implementations (Gloo, NCCL) live in model/c10d_group.cpp
// and model/c10d_nccl.cpp, the only files that include c10d's headers.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "model/distributed_env.h"
#include "support/status.h"

namespace clgen::model {

class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "gloo" | "nccl"

  // Sums each tensor elementwise over all ranks, in place; the reductions
  // run concurrently and this returns when all are done. Every rank passes
  // tensors of the same shapes in the same order. Fails (kUnavailable, one
  // line naming the backend) when a peer is gone or the group's timeout passes.
  virtual Status all_reduce_sum(std::vector<torch::Tensor>& tensors) = 0;
  // Overwrites each tensor with rank `root`'s; fails like all_reduce_sum.
  virtual Status broadcast(std::vector<torch::Tensor>& tensors, int root) = 0;
};

// The backends this build has: "gloo" (CPU tensors) and "nccl" (CUDA
// tensors), each present when LibTorch's c10d headers for it compiled here.
bool have_gloo();
bool have_nccl();

// Joins the world `env` describes: a TCP store at master_addr:master_port
// (served by rank 0, or by torchrun's agent) and a process group of
// `backend` over it. `timeout` bounds the rendezvous (every rank must arrive
// within it) and each later collective. Fails with kUnavailable and one line
// (an unreachable master, a rank that never came, a backend this build lacks).
Expected<std::unique_ptr<Collectives>> connect_collectives(const DistributedEnv& env,
                                                           const std::string& backend,
                                                           std::chrono::milliseconds timeout);

}  // namespace clgen::model
