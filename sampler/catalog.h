// The stored samples as other modules read them (the driver's --samples,
// datasets): the sampler owns `samples`, and these functions are the way in.
// SQLite only, so readers need not link the sampler.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

// Whether the workspace has a samples table.
Expected<bool> has_samples(Database& db);

// The normalized text of every accepted sample, in the order stored; empty
// without the table.
Expected<std::vector<std::string>> accepted_sample_texts(Database& db);

// The normalized text of an accepted sample with `normalized_sha256`, if any.
Expected<std::optional<std::string>> accepted_sample_text(Database& db, const std::string& normalized_sha256);

// The first accepted sample with `normalized_sha256` (lowest id), if any.
struct SampleOrigin {
  int64_t id = 0;
  std::string model_id;
  // How its stream was steered: samples.steering ("features", "held-out",
  // "explore"); "directed" for a steered sample stored before that column
  // existed; "undirected" when its stream had no target.
  std::string steering;
};
Expected<std::optional<SampleOrigin>> first_accepted_sample(Database& db, const std::string& normalized_sha256);

}  // namespace clgen::sampler
