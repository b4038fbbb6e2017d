// The sampler's side of a training run (model/train_artifacts.h): the
// constraint tables learned from the texts the model trains on, saved in the
// model's directory, where `clgen sample` loads them.
#pragma once

#include <string>
#include <vector>

#include "model/train_artifacts.h"

namespace clgen::sampler {

class ConstraintTableSink final : public model::TrainArtifactSink {
 public:
  Status save_constraint_tables(const std::vector<std::string>& texts, const std::string& model_dir) override;
};

}  // namespace clgen::sampler
