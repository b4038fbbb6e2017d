// The few kernels `clgen train` shows when it is done: the trained model
// reloaded from the workspace and sampled from the seed "__kernel void A("
// (after the most frequent training header, for a feature-conditioned
// model), with the config's [preview] settings.
#pragma once

#include <string>
#include <vector>

#include "model/config.h"
#include "support/status.h"

namespace clgen::model {

struct PreviewSample {
  std::string text;  // what the model wrote after the seed
  bool cut = false;  // stopped at preview.max_tokens rather than at the separator
};

struct Preview {
  std::string seed;  // the text every sample starts from
  double temperature = 0;
  std::vector<PreviewSample> samples;
};

// config.preview.samples kernels (none, without loading the model, when it
// is 0), each drawn until the separator or preview.max_tokens tokens.
Expected<Preview> preview_model(const std::string& workspace, const std::string& model_id, const ModelConfig& config,
                                const std::string& device);

}  // namespace clgen::model
