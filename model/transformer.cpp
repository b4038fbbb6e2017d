// The decoder-only Transformer (model/transformer.h).
#include "model/transformer.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <torch/version.h>

namespace clgen::model {

namespace F = torch::nn::functional;

torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, double dropout) {
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, dropout, /*is_causal=*/true);
#else
  const int64_t t = q.size(-2);
  auto scores = torch::matmul(q, k.transpose(-2, -1)).to(torch::kFloat32) / std::sqrt(double(q.size(-1)));
  auto future = torch::ones({t, t}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
  scores.masked_fill_(future, -std::numeric_limits<float>::infinity());
  auto weights = torch::softmax(scores, -1).to(q.scalar_type());
  if (dropout > 0) weights = F::dropout(weights, F::DropoutFuncOptions().p(dropout).training(true));
  return torch::matmul(weights, v);
#endif
}

TransformerNetworkImpl::TransformerNetworkImpl(int vocab, const NetworkConfig& cfg)
    : vocab_size(vocab), config(cfg), head_dim(cfg.width / cfg.heads) {
  const int w = cfg.width;
  token_embedding = register_module("token_embedding", torch::nn::Embedding(vocab, w));
  position_embedding = register_module("position_embedding", torch::nn::Embedding(cfg.context, w));
  const double std = 0.02, residual_std = 0.02 / std::sqrt(2.0 * cfg.layers);
  torch::NoGradGuard no_grad;
  torch::nn::init::normal_(token_embedding->weight, 0, std);
  torch::nn::init::normal_(position_embedding->weight, 0, std);
  auto make_linear = [&](const std::string& name, int in, int out, double init_std) {
    auto l = register_module(name, torch::nn::Linear(in, out));
    torch::nn::init::normal_(l->weight, 0, init_std);
    torch::nn::init::zeros_(l->bias);
    return l;
  };
  for (int i = 0; i < cfg.layers; ++i) {
    Block b;
    std::string p = fmt::format("block{}_", i);
    b.ln1 = register_module(p + "ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({w})));
    b.qkv = make_linear(p + "qkv", w, 3 * w, std);
    b.proj = make_linear(p + "proj", w, w, residual_std);
    b.ln2 = register_module(p + "ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({w})));
    b.fc = make_linear(p + "fc", w, 4 * w, std);
    b.fc_out = make_linear(p + "fc_out", 4 * w, w, residual_std);
    blocks.push_back(b);
  }
  ln_final = register_module("ln_final", torch::nn::LayerNorm(torch::nn::LayerNormOptions({w})));
  if (!cfg.tied_embeddings) output = make_linear("output", w, vocab, std);
}

torch::Tensor TransformerNetworkImpl::cast(const torch::Tensor& w) const {
  if (w.scalar_type() == compute_dtype) return w;
  // Training: the cast is part of the graph, made per use as autocast does.
  if (torch::GradMode::is_enabled()) return w.to(compute_dtype);
  // Without gradients (decoding, validation): one cast per weight until the
  // weight changes (an optimizer step or a load bumps its version).
  Cast& c = casts[w.unsafeGetTensorImpl()];
  if (!c.cast.defined() || c.version != w._version()) {
    c.cast = w.to(compute_dtype);
    c.version = w._version();
  }
  return c.cast;
}

// at::linear, not torch::nn::functional::linear: the latter computes a 3-D
// input's product and bias apart (a matmul, then a broadcast add), where
// at::linear folds the bias into the GEMM's epilogue (ncu on an H200: the add
// was 11% of the training step's GPU time).
torch::Tensor TransformerNetworkImpl::linear(const torch::nn::Linear& layer, const torch::Tensor& x) const {
  return at::linear(x.to(compute_dtype), cast(layer->weight), cast(layer->bias));
}

torch::Tensor TransformerNetworkImpl::norm(const torch::nn::LayerNorm& layer, const torch::Tensor& x) const {
  return F::layer_norm(x.to(torch::kFloat32),
                       F::LayerNormFuncOptions({config.width}).weight(layer->weight).bias(layer->bias).eps(1e-5));
}

torch::Tensor TransformerNetworkImpl::dropout(const torch::Tensor& x) {
  if (!is_training() || config.dropout <= 0) return x;
  return F::dropout(x, F::DropoutFuncOptions().p(config.dropout).training(true));
}

torch::Tensor TransformerNetworkImpl::mlp(const Block& b, const torch::Tensor& x) {
  return linear(b.fc_out, F::gelu(linear(b.fc, norm(b.ln2, x))));
}

torch::Tensor TransformerNetworkImpl::logits(const torch::Tensor& x) const {
  auto h = norm(ln_final, x).to(compute_dtype);
  if (!output.is_empty()) return at::linear(h, cast(output->weight), cast(output->bias)).to(torch::kFloat32);
  return at::linear(h, cast(token_embedding->weight)).to(torch::kFloat32);
}

torch::Tensor TransformerNetworkImpl::split_heads(const torch::Tensor& x) const {
  return x.view({x.size(0), x.size(1), config.heads, head_dim}).transpose(1, 2);
}

torch::Tensor TransformerNetworkImpl::merge_heads(const torch::Tensor& x) const {
  return x.transpose(1, 2).contiguous().view({x.size(0), x.size(2), config.width});
}

torch::Tensor TransformerNetworkImpl::forward(const torch::Tensor& tokens, KeyValues* kv) {
  const int64_t t = tokens.size(1);
  TORCH_CHECK(t <= config.context, "input of ", t, " tokens exceeds the context of ", config.context);
  auto positions = torch::arange(t, torch::TensorOptions().dtype(torch::kInt64).device(tokens.device()));
  torch::Tensor x = dropout(token_embedding(tokens) + position_embedding(positions).unsqueeze(0));
  std::vector<torch::Tensor> ks, vs;
  const double attention_dropout = is_training() ? config.dropout : 0.0;
  for (const Block& b : blocks) {
    auto qkv = linear(b.qkv, norm(b.ln1, x)).chunk(3, -1);
    auto q = split_heads(qkv[0]), k = split_heads(qkv[1]), v = split_heads(qkv[2]);
    if (kv) {
      ks.push_back(k);
      vs.push_back(v);
    }
    x = x + dropout(linear(b.proj, merge_heads(causal_attention(q, k, v, attention_dropout))));
    x = x + dropout(mlp(b, x));
  }
  if (kv) {
    kv->k = torch::stack(ks);
    kv->v = torch::stack(vs);
  }
  return logits(x);
}

torch::Tensor TransformerNetworkImpl::step(const torch::Tensor& tokens, const torch::Tensor& positions,
                                           KeyValues& cache, int64_t span) {
  const int64_t n = tokens.size(0);
  TORCH_CHECK(span >= 1 && span <= cache.k.size(3), "decoding span ", span, " outside the cache's capacity of ",
              cache.k.size(3));
  torch::Tensor x = (token_embedding(tokens) + position_embedding(positions)).unsqueeze(1);  // [B, 1, W]
  // Stream b sees its positions 0..positions[b]; the rest of the span is stale or empty.
  auto slots = torch::arange(span, positions.options());
  auto hidden = (slots.unsqueeze(0) > positions.unsqueeze(1)).view({n, 1, 1, span});
  auto at = positions.view({n, 1, 1, 1}).expand({n, config.heads, 1, head_dim});
  const double scale = 1.0 / std::sqrt(double(head_dim));
  for (size_t l = 0; l < blocks.size(); ++l) {
    const Block& b = blocks[l];
    auto qkv = linear(b.qkv, norm(b.ln1, x)).chunk(3, -1);
    auto q = split_heads(qkv[0]);
    auto keys = cache.k.select(0, int64_t(l)), values = cache.v.select(0, int64_t(l));
    keys.scatter_(2, at, split_heads(qkv[1]).to(keys.scalar_type()));
    values.scatter_(2, at, split_heads(qkv[2]).to(values.scalar_type()));
    keys = keys.narrow(2, 0, span);
    values = values.narrow(2, 0, span);
    auto scores = torch::matmul(q, keys.transpose(-2, -1)).to(torch::kFloat32) * scale;  // [B, H, 1, span]
    scores.masked_fill_(hidden, -std::numeric_limits<float>::infinity());
    auto attended = torch::matmul(torch::softmax(scores, -1).to(values.scalar_type()), values);
    x = x + linear(b.proj, merge_heads(attended));
    x = x + mlp(b, x);
  }
  return logits(x).squeeze(1);
}

std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> TransformerNetworkImpl::decay_groups() {
  std::vector<torch::Tensor> decay, rest;
  for (const auto& item : named_parameters()) {
    const std::string& name = item.key();
    bool matrix = item.value().dim() == 2 && name.find("embedding") == std::string::npos;
    (matrix ? decay : rest).push_back(item.value());
  }
  return {decay, rest};
}

double transformer_flops_per_token(const NetworkConfig& c, int vocab_size) {
  const double w = c.width;
  const double block_matrices = 12.0 * w * w;  // qkv 3w^2, proj w^2, MLP 8w^2
  const double matrices = c.layers * block_matrices + w * vocab_size;
  return 6.0 * matrices + 12.0 * c.layers * c.context * w;
}

}  // namespace clgen::model
