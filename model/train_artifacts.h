// What a training run hands to the layers above the model: the sampler keeps
// the constraint tables of the texts the model trains on beside the model
// (sampler/train_tables.h implements it), so `clgen sample` need not learn
// them from the corpus at every run. The model library only calls it.
#pragma once

#include <string>
#include <vector>

#include "support/status.h"

namespace clgen::model {

class TrainArtifactSink {
 public:
  virtual ~TrainArtifactSink() = default;
  // `texts`: the normalized kernels selected for training, held-out ones
  // included (TrainingTexts::texts); `model_dir`: the model's directory.
  virtual Status save_constraint_tables(const std::vector<std::string>& texts, const std::string& model_dir) = 0;
};

}  // namespace clgen::model
