// Private to model/c10d_group.cpp and model/c10d_nccl.cpp (c10d headers):
// Collectives over one c10d process group, with c10d's exceptions turned into
// one-line Status errors. A template over the group's class, since LibTorch
// 1.13's groups derive from c10d::ProcessGroup and 2.x's from c10d::Backend;
// both offer the same allreduce/broadcast calls used here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <c10/util/Exception.h>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include "model/collectives.h"
#include "model/torch_error.h"

namespace clgen::model {

// Runs `body`, turning c10d's exceptions into kUnavailable "backend what: ...".
template <class Body>
Status c10d_call(const std::string& backend, const std::string& what, Body&& body) {
  try {
    body();
    return ok_status();
  } catch (const c10::Error& e) {
    return unavailable(backend + " " + what + ": " + first_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return unavailable(backend + " " + what + ": " + first_line(e.what()));
  }
}

template <class Group>
class C10dCollectives final : public Collectives {
 public:
  C10dCollectives(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<Group> group,
                  int rank, int size, std::string backend)
      : store_(std::move(store)), group_(std::move(group)), rank_(rank), size_(size),
        backend_(std::move(backend)) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return backend_; }

  Status all_reduce_sum(std::vector<torch::Tensor>& tensors) override {
    return c10d_call(backend_, "all-reduce", [&] {
      // One tensor per call (what NCCL requires); all started, then awaited.
      std::vector<std::vector<at::Tensor>> args;
      args.reserve(tensors.size());
      std::vector<decltype(group_->allreduce(std::declval<std::vector<at::Tensor>&>()))> works;
      for (auto& t : tensors) {
        args.push_back({t});
        works.push_back(group_->allreduce(args.back()));
      }
      for (auto& w : works) w->wait();
      for (size_t i = 0; i < tensors.size(); ++i)
        if (!args[i][0].is_same(tensors[i])) tensors[i].copy_(args[i][0]);
    });
  }

  Status broadcast(std::vector<torch::Tensor>& tensors, int root) override {
    return c10d_call(backend_, "broadcast", [&] {
      c10d::BroadcastOptions options;
      options.rootRank = root;
      for (auto& t : tensors) {
        std::vector<at::Tensor> one{t};
        group_->broadcast(one, options)->wait();
        if (!one[0].is_same(t)) t.copy_(one[0]);
      }
    });
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<Group> group_;
  int rank_, size_;
  std::string backend_;
};

}  // namespace clgen::model

namespace clgen::model {

// A Collectives over ProcessGroupNCCL on cuda:local_rank (model/c10d_nccl.cpp,
// compiled where LibTorch has CUDA and NCCL's headers are found).
Expected<std::unique_ptr<Collectives>> make_nccl_collectives(c10::intrusive_ptr<c10d::Store> store,
                                                             const DistributedEnv& env,
                                                             std::chrono::milliseconds timeout);

}  // namespace clgen::model
