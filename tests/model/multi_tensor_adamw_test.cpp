// MultiTensorAdamW against LibTorch's own AdamW, and the gradient clipping
// that reads nothing back to the host.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/version.h>

#include "model/multi_tensor_adamw.h"

namespace clgen::model {
namespace {

// Two groups (decayed matrices, undecayed vectors) of seeded parameters on `device`.
std::vector<torch::Tensor> make_params(const torch::Device& device) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> p = {torch::randn({8, 5}), torch::randn({5}), torch::randn({3, 4}), torch::randn({4})};
  for (auto& t : p) t = t.to(device).set_requires_grad(true);
  return p;
}

std::unique_ptr<torch::optim::Optimizer> make(const std::vector<torch::Tensor>& p, AdamWKernel kernel) {
  auto options = [](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(0.01).betas({0.9, 0.95}).weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{p[0], p[2]}, options(0.1));
  groups.emplace_back(std::vector<torch::Tensor>{p[1], p[3]}, options(0));
  if (kernel == AdamWKernel::kPerParameter)
    return std::make_unique<torch::optim::AdamW>(std::move(groups), torch::optim::AdamWOptions(0.01));
  return std::make_unique<MultiTensorAdamW>(std::move(groups), torch::optim::AdamWOptions(0.01), kernel);
}

// Runs 6 steps with seeded gradients and a learning rate that changes; p[3]
// gets no gradient at step 2, so from then on its step count differs from
// the others' (two buckets of one group).
void run_steps(const std::vector<torch::Tensor>& p, torch::optim::Optimizer& opt) {
  torch::manual_seed(5);
  for (int step = 0; step < 6; ++step) {
    for (size_t i = 0; i < p.size(); ++i) {
      auto g = torch::randn(p[i].sizes()).to(p[i].device());
      p[i].mutable_grad() = (step == 2 && i == 3) ? torch::Tensor() : g;
    }
    for (auto& group : opt.param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(0.01 * (1 + step % 3));
    opt.step();
  }
}

TEST(MultiTensorAdamW, ForeachStepEqualsLibTorchAdamWBitForBitOnTheCpu) {
  auto a = make_params(torch::kCPU), b = make_params(torch::kCPU);
  auto reference = make(a, AdamWKernel::kPerParameter);
  auto foreach = make(b, AdamWKernel::kForeach);
  run_steps(a, *reference);
  run_steps(b, *foreach);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::equal(a[i], b[i]))
        << "parameter " << i << ": largest difference " << (a[i] - b[i]).abs().max().item<double>();
    EXPECT_FALSE(torch::equal(a[i], make_params(torch::kCPU)[i])) << "parameter " << i << " never moved";
  }
}

TEST(MultiTensorAdamW, FirstStepMovesEachWeightByTheLearningRateAfterDecay) {
  // From zero moments, m/(1-beta1) = g and sqrt(v/(1-beta2)) = |g|: the
  // step is lr * g / (|g| + eps) after the decay p *= 1 - lr * wd, so
  // p = 1, g = 0.5, lr = 0.1, wd = 0.1 gives 0.99 - 0.1 = 0.89 (to eps).
  auto p = torch::ones({1}).set_requires_grad(true);
  p.mutable_grad() = torch::full({1}, 0.5);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{p},
                      std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(0.1).weight_decay(0.1)));
  MultiTensorAdamW opt(std::move(groups), torch::optim::AdamWOptions(0.1), AdamWKernel::kForeach);
  opt.step();
  EXPECT_NEAR(p.item<double>(), 0.89, 1e-6);
}

TEST(MultiTensorAdamW, FusedStepEqualsLibTorchAdamWOnCuda) {
#if TORCH_VERSION_MAJOR < 2
  GTEST_SKIP() << "at::_fused_adamw_ needs LibTorch 2; this is " << TORCH_VERSION;
#else
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the fused kernel is CUDA's";
  const torch::Device cuda(torch::kCUDA);
  EXPECT_EQ(best_adamw_kernel(cuda), AdamWKernel::kFused);
  auto a = make_params(cuda), b = make_params(cuda);
  auto reference = make(a, AdamWKernel::kPerParameter);
  auto fused = make(b, AdamWKernel::kFused);
  run_steps(a, *reference);
  run_steps(b, *fused);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-5, 1e-6))
        << "parameter " << i << ": largest difference " << (a[i] - b[i]).abs().max().item<double>();
#endif
}

TEST(ClipGradientNorm, ScalesGradientsToTheMaxNormAndLeavesSmallerOnesAlone) {
  auto x = torch::zeros({1}).set_requires_grad(true), y = torch::zeros({1}).set_requires_grad(true);
  // Global norm sqrt(3^2 + 4^2) = 5: with max 1 they become 0.6 and 0.8.
  x.mutable_grad() = torch::full({1}, 3.0);
  y.mutable_grad() = torch::full({1}, 4.0);
  clip_gradient_norm({x, y}, 1.0);
  EXPECT_NEAR(x.grad().item<double>(), 0.6, 1e-6);
  EXPECT_NEAR(y.grad().item<double>(), 0.8, 1e-6);
  // Norm 1 < 10: unchanged.
  clip_gradient_norm({x, y}, 10.0);
  EXPECT_NEAR(x.grad().item<double>(), 0.6, 1e-6);
  EXPECT_NEAR(y.grad().item<double>(), 0.8, 1e-6);
}

}  // namespace
}  // namespace clgen::model
