// AdamW over whole parameter lists (model/multi_tensor_adamw.h).
#include "model/multi_tensor_adamw.h"

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include <torch/version.h>

namespace clgen::model {

namespace {

#if TORCH_VERSION_MAJOR >= 2
constexpr bool kHaveFused = true;
#else
constexpr bool kHaveFused = false;
#endif

// The key torch::optim keeps a parameter's state under: the TensorImpl's
// address as text in LibTorch 1.x, the address itself in later versions.
template <typename Map>
typename Map::key_type state_key(const Map&, const torch::Tensor& p) {
  using Key = typename Map::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << p.unsafeGetTensorImpl();
    return s.str();
  } else {
    return Key(p.unsafeGetTensorImpl());
  }
}

// One update of parameters that share a step count.
struct Bucket {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
};

void foreach_update(Bucket& b, int64_t step, const torch::optim::AdamWOptions& o) {
  const double lr = o.lr(), wd = o.weight_decay(), eps = o.eps();
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  // AdamW::step's operations, in its order, one list at a time.
  if (wd != 0) at::_foreach_mul_(b.params, 1 - lr * wd);
  const double bias_correction1 = 1 - std::pow(beta1, double(step));
  const double bias_correction2 = 1 - std::pow(beta2, double(step));
  at::_foreach_mul_(b.exp_avgs, beta1);
  at::_foreach_add_(b.exp_avgs, b.grads, 1 - beta1);
  at::_foreach_mul_(b.exp_avg_sqs, beta2);
  at::_foreach_addcmul_(b.exp_avg_sqs, b.grads, b.grads, 1 - beta2);
  std::vector<torch::Tensor> denom = at::_foreach_sqrt(b.exp_avg_sqs);
  at::_foreach_div_(denom, std::sqrt(bias_correction2));
  at::_foreach_add_(denom, eps);
  at::_foreach_addcdiv_(b.params, b.exp_avgs, denom, -lr / bias_correction1);
}

void fused_update(Bucket& b, int64_t step, const torch::optim::AdamWOptions& o) {
#if TORCH_VERSION_MAJOR >= 2
  // The kernel reads each parameter's step (float32, on the device) and
  // does not change it: one tensor serves the bucket.
  auto steps = torch::full({}, double(step), b.params[0].options().dtype(torch::kFloat32));
  std::vector<torch::Tensor> state_steps(b.params.size(), steps);
  at::_fused_adamw_(b.params, b.grads, b.exp_avgs, b.exp_avg_sqs, /*max_exp_avg_sqs=*/{}, state_steps, o.lr(),
                    std::get<0>(o.betas()), std::get<1>(o.betas()), o.weight_decay(), o.eps(), /*amsgrad=*/false,
                    /*maximize=*/false);
#else
  (void)step;
  (void)o;
  TORCH_CHECK(false, "fused AdamW needs LibTorch 2 (this is ", TORCH_VERSION, ")");
#endif
}

}  // namespace

AdamWKernel best_adamw_kernel(const torch::Device& device) {
  return kHaveFused && device.is_cuda() ? AdamWKernel::kFused : AdamWKernel::kForeach;
}

const char* adamw_kernel_name(AdamWKernel kernel) {
  switch (kernel) {
    case AdamWKernel::kPerParameter: return "per-parameter";
    case AdamWKernel::kForeach: return "foreach";
    case AdamWKernel::kFused: return "fused";
  }
  return "?";
}

MultiTensorAdamW::MultiTensorAdamW(std::vector<torch::optim::OptimizerParamGroup> groups,
                                   torch::optim::AdamWOptions defaults, AdamWKernel kernel)
    : torch::optim::AdamW(std::move(groups), defaults), kernel_(kernel) {
  TORCH_CHECK(kernel != AdamWKernel::kFused || kHaveFused, "fused AdamW needs LibTorch 2 (this is ", TORCH_VERSION,
              ")");
  for (auto& group : param_groups_)
    if (static_cast<torch::optim::AdamWOptions&>(group.options()).amsgrad()) kernel_ = AdamWKernel::kPerParameter;
}

torch::Tensor MultiTensorAdamW::step(LossClosure closure) {
  if (kernel_ == AdamWKernel::kPerParameter) return torch::optim::AdamW::step(std::move(closure));
  torch::NoGradGuard no_grad;
  torch::Tensor loss = {};
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    std::map<int64_t, Bucket> buckets;  // by step count: one in a run where every parameter has a gradient
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      TORCH_CHECK(!p.grad().is_sparse(), "AdamW does not support sparse gradients");
      auto key = state_key(state_, p);
      auto it = state_.find(key);
      if (it == state_.end()) {
        auto fresh = std::make_unique<torch::optim::AdamWParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        it = state_.insert({key, std::move(fresh)}).first;
      }
      auto& state = static_cast<torch::optim::AdamWParamState&>(*it->second);
      state.step(state.step() + 1);
      Bucket& b = buckets[state.step()];
      b.params.push_back(p);
      b.grads.push_back(p.grad());
      b.exp_avgs.push_back(state.exp_avg());
      b.exp_avg_sqs.push_back(state.exp_avg_sq());
    }
    for (auto& [step, bucket] : buckets) {
      if (kernel_ == AdamWKernel::kFused) fused_update(bucket, step, options);
      else foreach_update(bucket, step, options);
    }
  }
  return loss;
}

void clip_gradient_norm(const std::vector<torch::Tensor>& params, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const auto& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return;
  auto total = torch::stack(at::_foreach_norm(grads, 2)).to(torch::kFloat32).norm(2);
  auto coef = ((total + 1e-6).reciprocal() * max_norm).clamp_max(1.0);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  at::_foreach_mul_(grads, coef);
#else
  for (auto& g : grads) g.mul_(coef);
#endif
}

}  // namespace clgen::model
