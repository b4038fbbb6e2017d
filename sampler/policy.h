// Sampling as a chain of steps over candidate tokens, as llama.cpp builds
// one: temperature, top-k, top-p and a seeded draw are steps with apply /
// accept / reset / clone; a chain is itself a step and owns its members.
// A constraint step gates a chain's draws (SamplerChain::sample).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace clgen::sampler {

// Candidate tokens of one stream: ids with their logits (log-probabilities
// up to a constant). Steps may reorder or drop candidates; a selecting step
// sets `selected`.
struct Candidates {
  std::vector<int32_t> ids;
  std::vector<float> logits;
  int32_t selected = -1;

  static Candidates from_logits(const float* logits, int n);
  // The candidates 0..n-1 with `logits`, reusing this object's storage.
  void assign(const float* logits, int n);
  // softmax of the logits, in candidate order.
  std::vector<double> probabilities() const;
};

// One step of a stream's sampler. A step holds the state of one stream
// (a generator, a constraint); clone() copies it for another stream.
class SamplerStep {
 public:
  virtual ~SamplerStep() = default;
  // Narrows or reweights the candidates, or chooses one (`selected`).
  virtual void apply(Candidates& c) = 0;
  // `token` was chosen and appended to the stream.
  virtual void accept(int32_t token) { (void)token; }
  // The stream starts a new sample.
  virtual void reset() {}
  virtual std::unique_ptr<SamplerStep> clone() const = 0;
};

// Divides logits by `t` (> 0). t < 1 sharpens, t > 1 flattens.
class Temperature : public SamplerStep {
 public:
  explicit Temperature(double t) : t_(t) {}
  void apply(Candidates& c) override;
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<Temperature>(*this); }

 private:
  double t_;
};

// Keeps the k most likely candidates (sorted by descending logit; ties by id).
class TopK : public SamplerStep {
 public:
  explicit TopK(int k) : k_(k) {}
  void apply(Candidates& c) override;
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<TopK>(*this); }

 private:
  int k_;
};

// Keeps the smallest set of most likely candidates whose probability sums
// to at least p (at least one candidate).
class TopP : public SamplerStep {
 public:
  explicit TopP(double p) : p_(p) {}
  void apply(Candidates& c) override;
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<TopP>(*this); }

 private:
  double p_;
};

// SplitMix64: a well-mixed 64-bit value from x (one step of the generator
// that seeds Rng).
uint64_t splitmix64(uint64_t x);

// A deterministic generator (SplitMix64-seeded xoshiro256**): the same seed
// gives the same draws on every platform and standard library.
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

// Selects a candidate drawn from softmax(logits) with its own generator.
// reset() keeps the generator going: a stream's samples are one sequence
// of draws.
class Draw : public SamplerStep {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  void apply(Candidates& c) override { c.selected = draw(c, rng_); }
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<Draw>(*this); }

 private:
  Rng rng_;
};

// Selects the most likely candidate.
class Greedy : public SamplerStep {
 public:
  void apply(Candidates& c) override { c.selected = argmax(c); }
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<Greedy>(*this); }
};

// A step that can refuse a token: allows() judges one token, apply()
// removes every candidate it refuses.
class ConstraintStep : public SamplerStep {
 public:
  virtual bool allows(int32_t token) const = 0;
};

// What SamplerChain::sample chose.
struct Choice {
  int32_t token = -1;      // the token; on abandoned or dead_end the refused draw
  bool refused = false;    // the constraint refused the first draw
  int32_t refused_token = -1;  // ... that draw
  bool abandoned = false;  // ... and this sample has used up its refusals: no token
  bool dead_end = false;   // ... and allows no token: no token
};

// Steps applied in order, optionally gated by a constraint. A chain is a
// step: apply() runs the constraint and then the members.
class SamplerChain : public SamplerStep {
 public:
  void add(std::unique_ptr<SamplerStep> step) { steps_.push_back(std::move(step)); }
  // Gates the chain's choices by `c`; a sample ends once it has refused
  // `max_refusals` draws (0 = never).
  void constrain(std::unique_ptr<ConstraintStep> c, int max_refusals);

  void apply(Candidates& c) override;
  void accept(int32_t token) override;
  void reset() override;
  std::unique_ptr<SamplerStep> clone() const override;

  // Chooses the next token from one stream's logits. With a constraint, as
  // llama.cpp applies a grammar: the members choose from all candidates,
  // and only when the constraint refuses that choice are the candidates
  // narrowed to those it allows and the members run again; the model's
  // distribution is thus renormalized over the allowed tokens, at the cost
  // of checking every token only after a refusal.
  // `work` holds the candidates: the batch sampler passes one per thread,
  // reused for all its streams, so a choice allocates nothing and stays in
  // cache.
  Choice sample(const float* logits, int vocab_size, Candidates& work);
  Choice sample(const float* logits, int vocab_size) {
    Candidates work;
    return sample(logits, vocab_size, work);
  }
  // Draws the constraint refused in this sample (since reset()).
  int refusals() const { return refusals_; }
  // The share of softmax(logits / temperature) that the constraint allows
  // here (1 without a constraint): a redraw renormalizes over it, so the
  // product of these over a sample is the ratio of the model's probability
  // of the text to the constrained sampler's. Tokens below min_probability
  // count as allowed (they change it by less than that each).
  double allowed_mass(const float* logits, int vocab_size, double temperature, double min_probability) const;
  // Backtracking: takes back the last refusal (the sampler undid the text
  // that led to it instead of redrawing), and brings the constraint and the
  // steps back to where `accepted` (every token accepted since reset())
  // leaves them, keeping the refusals and the generator.
  void forgive_refusal() { refusals_ = std::max(0, refusals_ - 1); }
  void rewind(const std::vector<int32_t>& accepted);

 private:
  std::vector<std::unique_ptr<SamplerStep>> steps_;
  std::unique_ptr<ConstraintStep> constraint_;
  int max_refusals_ = 1;
  int refusals_ = 0;
};

struct SamplingPolicy {
  // 1 = the model's own distribution (below 1 sharpens it toward its most
  // frequent patterns); 0 = greedy (argmax).
  double temperature = 1.0;
  int top_k = 0;             // 0 = disabled
  double top_p = 1.0;        // 1.0 = disabled
};

// The chain for a policy: Greedy, or Temperature [TopK] [TopP] Draw(seed).
std::unique_ptr<SamplerChain> policy_chain(const SamplingPolicy& policy, uint64_t seed);

}  // namespace clgen::sampler
