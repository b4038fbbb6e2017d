// Private to clgen_model (includes LibTorch): the decoder-only Transformer
// language model. Public headers never include this.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include <torch/torch.h>

#include "model/config.h"

namespace clgen::model {

// Keys and values of every layer for a batch of sequences: [layers, B, heads, T, head_dim].
struct KeyValues {
  torch::Tensor k, v;
};

// Pre-LayerNorm decoder blocks: x + attn(ln1(x)), x + mlp(ln2(x)) with a
// 4x-wide GELU MLP; learned positional embeddings; a final LayerNorm; the
// output layer tied to the token embedding unless tied_embeddings is false.
// Weights stay float32; on CUDA the matrix products and attention run in
// bfloat16 (each weight cast per use, as autocast does; layer norms, softmax
// of the decoding path and the loss in float32). Inputs are [B, T] token ids.
struct TransformerNetworkImpl : torch::nn::Module {
  TransformerNetworkImpl(int vocab_size, const NetworkConfig& config);

  // Logits [B, T, vocab] (float32) of `tokens` [B, T] at positions 0..T-1
  // (T <= context), with causal attention. When `kv` is given it receives
  // every layer's keys and values (compute dtype).
  torch::Tensor forward(const torch::Tensor& tokens, KeyValues* kv = nullptr);

  // One decoding step for every stream: `tokens` [B] at `positions` [B]
  // (int64, each < span), whose keys and values are written into `cache`
  // ([layers, B, heads, capacity, head_dim], compute dtype) at that
  // position; each stream attends to its positions 0..position. Only the
  // cache's first `span` positions (span <= capacity: the longest stream's
  // length) are read, so a cache that grew for one long stream costs the
  // others nothing once it has restarted. Returns the next-token logits
  // [B, vocab] (float32).
  torch::Tensor step(const torch::Tensor& tokens, const torch::Tensor& positions, KeyValues& cache, int64_t span);

  // Switching between training and evaluation drops the kept weight casts:
  // an optimizer kernel may update weights in place without bumping their
  // version (CUDA's fused AdamW does), so a version check alone would let
  // validation read the casts of an earlier epoch's weights.
  void train(bool on = true) override {
    casts.clear();
    torch::nn::Module::train(on);
  }

  // bfloat16 on CUDA, float32 on the CPU (call after moving the module).
  void set_compute_dtype(torch::ScalarType dtype) { compute_dtype = dtype; }

  // The parameters weight decay applies to (the Linear matrices), and the rest.
  std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> decay_groups();

  int vocab_size;
  NetworkConfig config;
  int head_dim;
  torch::ScalarType compute_dtype = torch::kFloat32;

  struct Block {
    torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
    torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc{nullptr}, fc_out{nullptr};
  };
  torch::nn::Embedding token_embedding{nullptr}, position_embedding{nullptr};
  std::vector<Block> blocks;
  torch::nn::LayerNorm ln_final{nullptr};
  torch::nn::Linear output{nullptr};  // absent (nullptr) with tied embeddings

 private:
  // `w` in the compute dtype (see cast() in transformer.cpp for when it is kept).
  torch::Tensor cast(const torch::Tensor& w) const;
  struct Cast {
    int64_t version = 0;
    torch::Tensor cast;
  };
  mutable std::unordered_map<const c10::TensorImpl*, Cast> casts;
  torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x) const;
  torch::Tensor norm(const torch::nn::LayerNorm& layer, const torch::Tensor& x) const;
  torch::Tensor dropout(const torch::Tensor& x);
  torch::Tensor mlp(const Block& b, const torch::Tensor& x);
  torch::Tensor logits(const torch::Tensor& x) const;
  // [B, T, width] -> [B, heads, T, head_dim] and back.
  torch::Tensor split_heads(const torch::Tensor& x) const;
  torch::Tensor merge_heads(const torch::Tensor& x) const;
};
TORCH_MODULE(TransformerNetwork);

// Causal self-attention of q, k, v [B, heads, T, head_dim]: PyTorch 2's
// at::scaled_dot_product_attention (flash or memory-efficient kernels on
// CUDA); LibTorch 1.13 (Debian's) has no public one, so there an explicit
// masked softmax, chosen at compile time.
torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, double dropout);

// Floating-point operations of one training step (forward and backward)
// per token: 6 per weight of the matrix products (the blocks' Linear layers
// and the output layer), plus 12 * layers * context * width for the
// attention products (QK^T and AV, counted unmasked as is usual), for the
// share of the GPU's peak.
double transformer_flops_per_token(const NetworkConfig& config, int vocab_size);

}  // namespace clgen::model
