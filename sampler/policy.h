// Sampling policy as small composable pieces over candidate tokens:
// temperature, top-k, top-p, and a seeded draw. Each piece is tested alone on
// synthetic probability vectors; a chain applies them in order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace clgen::sampler {

// Candidate tokens of one stream: ids with their logits (log-probabilities
// up to a constant). Pieces may reorder or drop candidates.
struct Candidates {
  std::vector<int32_t> ids;
  std::vector<float> logits;

  static Candidates from_logits(const float* logits, int n);
  // softmax of the logits, in candidate order.
  std::vector<double> probabilities() const;
};

class SamplingStep {
 public:
  virtual ~SamplingStep() = default;
  virtual void apply(Candidates& c) const = 0;
};

// Divides logits by `t` (> 0). t < 1 sharpens, t > 1 flattens.
class Temperature : public SamplingStep {
 public:
  explicit Temperature(double t) : t_(t) {}
  void apply(Candidates& c) const override;
 private:
  double t_;
};

// Keeps the k most likely candidates (sorted by descending logit; ties by id).
class TopK : public SamplingStep {
 public:
  explicit TopK(int k) : k_(k) {}
  void apply(Candidates& c) const override;
 private:
  int k_;
};

// Keeps the smallest set of most likely candidates whose probability sums
// to at least p (at least one candidate).
class TopP : public SamplingStep {
 public:
  explicit TopP(double p) : p_(p) {}
  void apply(Candidates& c) const override;
 private:
  double p_;
};

// A deterministic generator (SplitMix64-seeded xoshiro256**): the same seed
// gives the same draws on every platform and standard library.
// SplitMix64: a well-mixed 64-bit value from x (one step of the generator
// that seeds Rng).
uint64_t splitmix64(uint64_t x);

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  double uniform();  // in [0, 1)
 private:
  uint64_t s_[4];
};

// Draws one candidate id from softmax(logits) with `rng`.
int32_t draw(const Candidates& c, Rng& rng);
// The most likely candidate (greedy; ties by lowest id).
int32_t argmax(const Candidates& c);

struct SamplingPolicy {
  double temperature = 1.0;  // 0 = greedy (argmax)
  int top_k = 0;             // 0 = disabled
  double top_p = 1.0;        // 1.0 = disabled
};

// The chain for a policy: [TopK] [TopP after temperature] then draw.
class SamplerChain {
 public:
  explicit SamplerChain(const SamplingPolicy& policy);
  // Chooses the next token from one stream's logits.
  int32_t choose(const float* logits, int vocab_size, Rng& rng) const;

 private:
  bool greedy_;
  std::vector<std::unique_ptr<SamplingStep>> steps_;
};

}  // namespace clgen::sampler
