// The directed sampler's search state: nearest kernels per target, where a
// stream restarts, and --explore's choice of targets.
#include "sampler/directed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "sampler/stop_rule.h"

namespace clgen::sampler {

NearestKernels::NearestKernels(const std::vector<Target>* targets, size_t beam)
    : targets_(targets), beam_(std::max<size_t>(1, beam)), nearest_(targets->size()) {}

size_t NearestKernels::add(const std::shared_ptr<const FeaturedKernel>& kernel) {
  ++kernels_;
  size_t improved = 0;
  bool exact = false;
  for (size_t t = 0; t < targets_->size(); ++t) {
    std::vector<Entry>& beam = nearest_[t];
    const double d = feature_distance((*targets_)[t].features, kernel->features);
    exact = exact || d == 0;
    if (beam.size() == beam_ && d >= beam.back().distance) continue;
    // A kernel sampled twice would fill the beam with one starting point.
    if (std::any_of(beam.begin(), beam.end(), [&](const Entry& e) { return e.kernel->text == kernel->text; })) continue;
    if (beam.empty() || d < beam.front().distance) ++improved;
    auto at = std::upper_bound(beam.begin(), beam.end(), d, [](double v, const Entry& e) { return v < e.distance; });
    beam.insert(at, Entry{d, kernel});
    if (beam.size() > beam_) beam.pop_back();
  }
  exact_kernels_ += exact;
  return improved;
}

std::vector<std::shared_ptr<const FeaturedKernel>> NearestKernels::exact(size_t t) const {
  std::vector<std::shared_ptr<const FeaturedKernel>> out;
  for (const Entry& e : nearest_[t])
    if (e.distance == 0) out.push_back(e.kernel);  // the beam is nearest first and keeps arrival order among equals
  return out;
}

size_t NearestKernels::matched_count() const {
  size_t n = 0;
  for (size_t t = 0; t < nearest_.size(); ++t) n += matched(t);
  return n;
}

std::optional<double> NearestKernels::mean_distance() const {
  if (kernels_ == 0 || nearest_.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& beam : nearest_) sum += beam.front().distance;
  return sum / double(nearest_.size());
}

std::vector<size_t> statement_boundaries(std::string_view kernel, size_t from, bool whole_text) {
  std::vector<size_t> out;
  KernelEndDetector end(whole_text);
  int parens = 0;  // a `for` header's ';' is no statement's end
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (end.feed(kernel.substr(i, 1)) != KernelEndDetector::kNotEnded) break;
    const char c = kernel[i];
    parens += (c == '(') - (c == ')');
    if ((c == ';' || c == '{' || c == '}') && parens == 0 && end.depth() > 0 && i + 1 >= from) out.push_back(i + 1);
  }
  return out;
}

Director::Director(std::vector<Target> targets, std::string seed_text, DirectorOptions options)
    : targets_(std::move(targets)),
      seed_text_(std::move(seed_text)),
      opts_(std::move(options)),
      directed_(&targets_, opts_.beam),
      baseline_(&targets_, opts_.beam),
      start_(std::chrono::steady_clock::now()),
      rng_(opts_.seed) {}

bool Director::baseline_slice(int stream) const {
  if (opts_.baseline_only) return true;
  if (opts_.baseline_slice_seconds <= 0) return false;
  if (opts_.baseline_by_stream && stream >= 0) return stream % 2 == 1;
  double t =
      opts_.clock ? opts_.clock() : std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return int64_t(t / opts_.baseline_slice_seconds) % 2 == 1;
}

StreamStart Director::seed_start() {
  const size_t n = targets_.size();
  for (size_t k = 0; opts_.conditioned && k < n; ++k) {
    const size_t t = (seed_cursor_ + k) % n;
    if (directed_.matched(t)) continue;
    seed_cursor_ = (t + 1) % n;
    return {seed_text_, int64_t(t)};
  }
  return {seed_text_, kPlain};
}

std::optional<size_t> Director::pick_target() {
  const size_t n = targets_.size();
  if (opts_.near_share > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < opts_.near_share) {
    std::vector<double> weights(n, 0.0);
    bool any = false;
    for (size_t t = 0; t < n; ++t) {
      if (directed_.matched(t) || directed_.nearest(t).empty()) continue;
      weights[t] = std::exp(-directed_.nearest(t).front().distance / opts_.near_scale);
      any = any || weights[t] > 0;
    }
    if (any) return std::discrete_distribution<size_t>(weights.begin(), weights.end())(rng_);
  }
  // Round-robin over the targets no kernel matches yet.
  for (size_t k = 0; k < n; ++k) {
    const size_t t = (cursor_ + k) % n;
    if (directed_.matched(t)) continue;
    cursor_ = (t + 1) % n;
    return t;
  }
  return std::nullopt;
}

size_t Director::pick_cut(const std::vector<size_t>& cuts, double distance) {
  size_t first = 0;
  if (opts_.near_cuts) {
    const double window = std::clamp(distance / 0.1, 0.25, 1.0);
    first = std::min(cuts.size() - 1, size_t(double(cuts.size()) * (1 - window)));
  }
  return cuts[std::uniform_int_distribution<size_t>(first, cuts.size() - 1)(rng_)];
}

StreamStart Director::next(int stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (baseline_slice(stream)) return {seed_text_, kBaseline};
  const size_t n = targets_.size();
  if (directed_.kernels() == 0 || n == 0 || std::uniform_real_distribution<double>(0, 1)(rng_) < opts_.plain_share)
    return seed_start();
  const std::optional<size_t> t = pick_target();
  if (!t) return {seed_text_, kPlain};  // every target is matched: undirected
  const auto& beam = directed_.nearest(*t);
  const NearestKernels::Entry& from = beam[std::uniform_int_distribution<size_t>(0, beam.size() - 1)(rng_)];
  // A kernel that cannot be continued: its target's start from the seed.
  const int64_t plain = opts_.conditioned ? int64_t(*t) : kPlain;
  const std::string& text = from.kernel->text;
  if (text.compare(0, seed_text_.size(), seed_text_) != 0) return {seed_text_, plain};
  std::vector<size_t> cuts = statement_boundaries(text, seed_text_.size(), seed_text_.empty());
  if (cuts.empty()) return {seed_text_, plain};
  ++offered_;
  return {text.substr(0, pick_cut(cuts, from.distance)), int64_t(*t)};
}

void Director::observe(int64_t tag, std::string text, const GreweVector& features) {
  std::lock_guard<std::mutex> lock(mu_);
  if (opts_.graded) {
    auto verdict = verdicts_.find(text);
    if (verdict == verdicts_.end()) {
      awaiting_.try_emplace(std::move(text), Awaiting{tag, features});  // a repeat keeps the first tag
      return;
    }
    if (!verdict->second) return;
  }
  join(tag, std::move(text), features);
}

void Director::join(int64_t tag, std::string text, const GreweVector& features) {
  auto kernel = std::make_shared<const FeaturedKernel>(FeaturedKernel{std::move(text), features});
  (tag == kBaseline ? baseline_ : directed_).add(kernel);
}

void Director::graded(const std::string& text, bool passed) {
  std::lock_guard<std::mutex> lock(mu_);
  verdicts_[text] = passed;
  auto it = awaiting_.find(text);
  if (it == awaiting_.end()) return;
  if (passed) join(it->second.tag, text, it->second.features);
  awaiting_.erase(it);
}

size_t Director::awaiting_verdict() const {
  std::lock_guard<std::mutex> lock(mu_);
  return awaiting_.size();
}

const Target* Director::target_of(int64_t tag) const {
  return tag >= 0 && size_t(tag) < targets_.size() ? &targets_[size_t(tag)] : nullptr;
}

SteeringReport Director::report(bool baseline) const {
  const NearestKernels& side = baseline ? baseline_ : directed_;
  return {targets_.size(), side.matched_count(), side.mean_distance(), side.kernels(), side.exact_kernels()};
}

std::vector<Target> explore_targets(const std::vector<Target>& corpus, const std::vector<GreweVector>& sampled,
                                    size_t count) {
  std::vector<GreweVector> near = sampled;
  if (near.empty()) near.push_back(GreweVector{});
  std::set<GreweVector> seen;
  std::vector<std::pair<double, const Target*>> scored;
  for (const Target& t : corpus) {
    if (!seen.insert(t.features).second) continue;
    double d = std::numeric_limits<double>::infinity();
    for (const GreweVector& s : near) d = std::min(d, feature_distance(t.features, s));
    scored.emplace_back(d, &t);
  }
  // Farthest first; equal distances in corpus order.
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Target> out;
  for (size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(*scored[i].second);
  return out;
}

}  // namespace clgen::sampler
