// The header lines a feature-conditioned model's streams start after
// (docs/DIRECTED-SAMPLING.md, "Feature-conditioned model"): a target's for a stream
// steered to it, and for an undirected stream one drawn from the model's
// training kernels in proportion to their counts.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sampler/stream_model.h"
#include "sampler/targets.h"

namespace clgen::sampler {

class StartHeaders {
 public:
  // `seed` seeds the undirected draws. An unconditioned model (no training
  // headers) gives "" for every stream.
  StartHeaders(const StreamModel& model, const std::vector<Target>& targets, uint64_t seed);

  bool conditioned() const { return !training_.empty(); }
  // The header of a stream started with `tag` (StreamStart::tag): target
  // `tag`'s when it names one, else a draw from the training headers.
  // Called on the sampling thread only.
  const std::string& header(int64_t tag);

 private:
  std::vector<std::string> targets_;   // one per target
  std::vector<std::string> training_;  // distinct training headers
  std::discrete_distribution<size_t> draw_;
  std::mt19937_64 rng_;
};

}  // namespace clgen::sampler
