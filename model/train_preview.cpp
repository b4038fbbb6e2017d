// Sampling a handful of kernels from a freshly trained model.
#include "model/train_preview.h"

#include "model/language_model.h"

namespace clgen::model {

Expected<Preview> preview_model(const std::string& workspace, const std::string& model_id, const ModelConfig& config,
                                const std::string& device) {
  const PreviewConfig& p = config.preview;
  Preview preview;
  preview.temperature = p.temperature;
  if (p.samples <= 0) return preview;
  ASSIGN_OR_RETURN(auto lm, LanguageModel::load(workspace, model_id, device));
  ASSIGN_OR_RETURN(auto batch, lm->new_batch(p.samples, config.training.seed));
  // A feature-conditioned model reads its most frequent training header first.
  const auto& headers = lm->feature_headers();
  preview.seed = (headers.empty() ? "" : headers.front().first) + "__kernel void A(";
  RETURN_IF_ERROR(batch->feed_all(preview.seed));
  std::vector<std::vector<Token>> out(size_t(p.samples));
  std::vector<bool> done(size_t(p.samples), false);
  const Token separator = lm->vocabulary().separator();
  for (int step = 0; step < p.max_tokens; ++step) {
    ASSIGN_OR_RETURN(auto tokens, batch->sample(p.temperature));
    bool all = true;
    for (size_t s = 0; s < tokens.size(); ++s) {
      if (tokens[s] == separator) done[s] = true;
      if (!done[s]) out[s].push_back(tokens[s]);
      all = all && done[s];
    }
    if (all) break;
  }
  for (size_t s = 0; s < out.size(); ++s) {
    ASSIGN_OR_RETURN(std::string text, lm->vocabulary().decode(out[s]));
    preview.samples.push_back({std::move(text), !done[s]});
  }
  return preview;
}

}  // namespace clgen::model
