// Private to clgen_model (LibTorch types): AdamW stepping every parameter of
// a group together, for the training loop (model/trainer.cpp).
#pragma once

#include <vector>

#include <torch/torch.h>

namespace clgen::model {

// How MultiTensorAdamW updates a group's parameters:
// - kPerParameter: torch::optim::AdamW's own step, about eight kernels a
//   parameter (the reference);
// - kForeach: the same operations, in the same order, as ATen _foreach_
//   kernels over the list (one launch per operation and list on CUDA; on the
//   CPU each runs per tensor, so it equals kPerParameter bit for bit);
// - kFused: at::_fused_adamw_ (PyTorch >= 2.0, CUDA), one multi-tensor
//   kernel, as PyTorch's AdamW(fused=True); equal to rounding.
enum class AdamWKernel { kPerParameter, kForeach, kFused };

// The fastest kernel this LibTorch build has for parameters on `device`.
AdamWKernel best_adamw_kernel(const torch::Device& device);
const char* adamw_kernel_name(AdamWKernel kernel);

// torch::optim::AdamW (the same options, per-parameter state and
// checkpoints: it is one), whose step runs `kernel`. Parameters without a
// gradient are skipped, as AdamW does. amsgrad runs per parameter.
class MultiTensorAdamW : public torch::optim::AdamW {
 public:
  MultiTensorAdamW(std::vector<torch::optim::OptimizerParamGroup> groups, torch::optim::AdamWOptions defaults,
                   AdamWKernel kernel);
  torch::Tensor step(LossClosure closure = nullptr) override;
  AdamWKernel kernel() const { return kernel_; }

 private:
  AdamWKernel kernel_;
};

// Scales the gradients of `params` so their global L2 norm is at most
// `max_norm`, without reading the norm back to the host (_foreach_ kernels
// where this LibTorch has them).
void clip_gradient_norm(const std::vector<torch::Tensor>& params, double max_norm);

}  // namespace clgen::model
