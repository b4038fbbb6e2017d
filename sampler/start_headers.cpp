// Header lines of a feature-conditioned model's streams.
#include "sampler/start_headers.h"

namespace clgen::sampler {

StartHeaders::StartHeaders(const StreamModel& model, const std::vector<Target>& targets, uint64_t seed)
    : rng_(seed ^ 0x6865616465727321ULL) {  // a sequence of its own, not the streams' draws
  std::vector<double> weights;
  for (auto& [header, count] : model.training_headers()) {
    training_.push_back(header);
    weights.push_back(double(count));
  }
  if (training_.empty()) return;
  draw_ = std::discrete_distribution<size_t>(weights.begin(), weights.end());
  for (const Target& t : targets) targets_.push_back(model.feature_header(t.features));
}

const std::string& StartHeaders::header(int64_t tag) {
  static const std::string kNone;
  if (training_.empty()) return kNone;
  if (tag >= 0 && size_t(tag) < targets_.size()) return targets_[size_t(tag)];
  return training_[draw_(rng_)];
}

}  // namespace clgen::sampler
