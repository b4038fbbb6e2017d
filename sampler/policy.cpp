// The sampler steps (temperature, top-k, top-p, draws) and their chain.
#include "sampler/policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace clgen::sampler {

namespace {

// Sorts candidates by descending logit, ties by ascending id (deterministic).
void sort_desc(Candidates& c) {
  std::vector<size_t> order(c.ids.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (c.logits[a] != c.logits[b]) return c.logits[a] > c.logits[b];
    return c.ids[a] < c.ids[b];
  });
  Candidates sorted;
  sorted.ids.reserve(order.size());
  sorted.logits.reserve(order.size());
  for (size_t i : order) {
    sorted.ids.push_back(c.ids[i]);
    sorted.logits.push_back(c.logits[i]);
  }
  c = std::move(sorted);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Candidates Candidates::from_logits(const float* logits, int n) {
  Candidates c;
  c.assign(logits, n);
  return c;
}

void Candidates::assign(const float* l, int n) {
  ids.resize(size_t(n));
  std::iota(ids.begin(), ids.end(), 0);
  logits.assign(l, l + n);
  selected = -1;
}

std::vector<double> Candidates::probabilities() const {
  std::vector<double> p(logits.size());
  if (p.empty()) return p;
  double max = -INFINITY;
  for (float l : logits) max = std::max(max, static_cast<double>(l));
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] = std::exp(logits[i] - max);  // -inf logits get 0
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

void Temperature::apply(Candidates& c) {
  for (float& l : c.logits) l = static_cast<float>(l / t_);
}

void TopK::apply(Candidates& c) {
  if (k_ <= 0 || static_cast<size_t>(k_) >= c.ids.size()) return;
  sort_desc(c);
  c.ids.resize(k_);
  c.logits.resize(k_);
}

void TopP::apply(Candidates& c) {
  if (p_ >= 1.0 || c.ids.empty()) return;
  sort_desc(c);
  std::vector<double> p = c.probabilities();
  double sum = 0;
  size_t keep = 0;
  while (keep < p.size()) {
    sum += p[keep++];
    if (sum >= p_) break;
  }
  c.ids.resize(keep);
  c.logits.resize(keep);
}

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
  for (uint64_t& s : s_) {  // SplitMix64 expands the seed into the state
    s = splitmix64(seed);
    seed += 0x9e3779b97f4a7c15ULL;
  }
}

uint64_t Rng::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

int32_t draw(const Candidates& c, Rng& rng) {
  std::vector<double> p = c.probabilities();
  double u = rng.uniform();
  double acc = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    acc += p[i];
    if (u < acc) return c.ids[i];
  }
  // Rounding left u above the sum: the last candidate with any mass.
  for (size_t i = p.size(); i-- > 0;)
    if (p[i] > 0) return c.ids[i];
  return c.ids.empty() ? 0 : c.ids.front();
}

int32_t argmax(const Candidates& c) {
  size_t best = 0;
  for (size_t i = 1; i < c.ids.size(); ++i) {
    if (c.logits[i] > c.logits[best] || (c.logits[i] == c.logits[best] && c.ids[i] < c.ids[best]))
      best = i;
  }
  return c.ids.empty() ? 0 : c.ids[best];
}

void SamplerChain::constrain(std::unique_ptr<ConstraintStep> c, int max_refusals) {
  constraint_ = std::move(c);
  max_refusals_ = max_refusals > 0 ? max_refusals : std::numeric_limits<int>::max();
}

void SamplerChain::apply(Candidates& c) {
  if (constraint_) constraint_->apply(c);
  for (const auto& step : steps_) step->apply(c);
}

void SamplerChain::accept(int32_t token) {
  if (constraint_) constraint_->accept(token);
  for (const auto& step : steps_) step->accept(token);
}

void SamplerChain::reset() {
  refusals_ = 0;
  if (constraint_) constraint_->reset();
  for (const auto& step : steps_) step->reset();
}

void SamplerChain::rewind(const std::vector<int32_t>& accepted) {
  const int refusals = refusals_;
  reset();
  refusals_ = refusals;
  for (int32_t token : accepted) accept(token);
}

std::unique_ptr<SamplerStep> SamplerChain::clone() const {
  auto copy = std::make_unique<SamplerChain>();
  for (const auto& step : steps_) copy->add(step->clone());
  if (constraint_) copy->constraint_.reset(static_cast<ConstraintStep*>(constraint_->clone().release()));
  copy->max_refusals_ = max_refusals_;
  copy->refusals_ = refusals_;
  return copy;
}

double SamplerChain::allowed_mass(const float* logits, int vocab_size, double temperature,
                                  double min_probability) const {
  if (!constraint_ || vocab_size <= 0) return 1.0;
  const double t = temperature > 0 ? temperature : 1.0;
  const float top = *std::max_element(logits, logits + vocab_size);
  // Terms below e^-30 of the largest add nothing a double keeps beside it.
  const double floor = double(top) - 30.0 * t;
  double total = 0, refused = 0;
  for (int i = 0; i < vocab_size; ++i) {
    if (logits[i] < floor) continue;
    total += std::exp((double(logits[i]) - top) / t);
  }
  for (int i = 0; i < vocab_size; ++i) {
    if (logits[i] < floor) continue;
    const double w = std::exp((double(logits[i]) - top) / t);
    if (w < min_probability * total) continue;
    if (!constraint_->allows(int32_t(i))) refused += w;
  }
  return std::max(1e-300, 1.0 - refused / total);
}

Choice SamplerChain::sample(const float* logits, int vocab_size, Candidates& work) {
  Choice choice;
  work.assign(logits, vocab_size);
  for (const auto& step : steps_) step->apply(work);
  choice.token = work.selected;
  if (!constraint_ || constraint_->allows(choice.token)) return choice;
  choice.refused = true;
  choice.refused_token = choice.token;
  // A stream whose draws the constraint keeps refusing has lost the
  // thread: it ends rather than spend the model on it.
  if (++refusals_ >= max_refusals_) {
    choice.abandoned = true;
    return choice;
  }
  work.assign(logits, vocab_size);
  constraint_->apply(work);
  if (work.ids.empty()) {
    choice.dead_end = true;
    return choice;
  }
  for (const auto& step : steps_) step->apply(work);
  choice.token = work.selected;
  return choice;
}

std::unique_ptr<SamplerChain> policy_chain(const SamplingPolicy& policy, uint64_t seed) {
  auto chain = std::make_unique<SamplerChain>();
  if (policy.temperature <= 0) {
    chain->add(std::make_unique<Greedy>());
    return chain;
  }
  chain->add(std::make_unique<Temperature>(policy.temperature));
  if (policy.top_k > 0) chain->add(std::make_unique<TopK>(policy.top_k));
  if (policy.top_p < 1.0) chain->add(std::make_unique<TopP>(policy.top_p));
  chain->add(std::make_unique<Draw>(seed));
  return chain;
}

}  // namespace clgen::sampler
