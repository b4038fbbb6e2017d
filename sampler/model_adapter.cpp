// Adapts the model module's LanguageModel/SamplingBatch API to the sampler's
// StreamModel interface. Includes only the model's public headers.
#include <fmt/format.h>

#include "model/config.h"
#include "model/language_model.h"
#include "model/store.h"
#include "sampler/stream_model.h"
#include "support/workspace.h"

namespace clgen::sampler {

namespace {

class ModelStreams : public StreamModel {
 public:
  static Expected<std::unique_ptr<StreamModel>> create(std::unique_ptr<model::LanguageModel> lm,
                                                       int streams, uint64_t seed,
                                                       bool start_after_separator) {
    auto self = std::unique_ptr<ModelStreams>(new ModelStreams());
    ASSIGN_OR_RETURN(self->batch_, lm->new_batch(streams, seed));
    self->batch_->set_start_after_separator(start_after_separator);
    self->lm_ = std::move(lm);
    RETURN_IF_ERROR(self->build_token_texts());
    return std::unique_ptr<StreamModel>(std::move(self));
  }

  std::string model_id() const override { return lm_->id(); }
  int streams() const override { return batch_->streams(); }
  int vocab_size() const override { return batch_->vocab_size(); }
  Status feed(int stream, std::string_view text) override { return batch_->feed(stream, text); }
  Status feed_all(std::string_view text) override { return batch_->feed_all(text); }
  Status feed_after(int stream, std::string_view previous, std::string_view text) override {
    const model::Vocabulary& v = lm_->vocabulary();
    ASSIGN_OR_RETURN(std::vector<model::Token> tokens, v.encode(previous));
    tokens.push_back(v.separator());
    ASSIGN_OR_RETURN(std::vector<model::Token> rest, v.encode(text));
    tokens.insert(tokens.end(), rest.begin(), rest.end());
    return batch_->feed_tokens(stream, tokens);
  }
  Expected<std::vector<float>> logits() override { return batch_->logits(); }
  Status advance(const std::vector<int32_t>& tokens) override { return batch_->advance(tokens); }
  bool can_save() const override { return true; }
  Status save(const std::vector<int>& streams) override { return batch_->save(streams); }
  Status restore(const std::vector<int>& streams) override { return batch_->restore(streams); }
  const std::string& token_text(int32_t token) const override {
    static const std::string kEmpty;
    return token >= 0 && static_cast<size_t>(token) < texts_.size() ? texts_[token] : kEmpty;
  }
  int32_t end_token() const override { return lm_->vocabulary().separator(); }
  std::string feature_header(const GreweVector& features) const override {
    return lm_->feature_headers().empty() ? "" : model::feature_header(features);
  }
  std::vector<std::pair<std::string, uint64_t>> training_headers() const override { return lm_->feature_headers(); }

 private:
  ModelStreams() = default;

  // The text each token appends. A token is decoded after a fixed context
  // token, so pieces whose decoding depends on position (SentencePiece's
  // leading-space marker) get their in-text form.
  Status build_token_texts() {
    const model::Vocabulary& v = lm_->vocabulary();
    ASSIGN_OR_RETURN(auto ctx, v.encode("a"));
    std::string ctx_text;
    if (!ctx.empty()) {
      ASSIGN_OR_RETURN(ctx_text, v.decode(ctx));
    }
    texts_.resize(v.size());
    for (int t = 0; t < v.size(); ++t) {
      if (t == v.separator()) continue;
      std::vector<model::Token> seq = ctx;
      seq.push_back(t);
      auto text = v.decode(seq);
      if (text.ok() && text->compare(0, ctx_text.size(), ctx_text) == 0) {
        texts_[t] = text->substr(ctx_text.size());
      } else {
        ASSIGN_OR_RETURN(texts_[t], v.decode({t}));
      }
    }
    return ok_status();
  }

  std::unique_ptr<model::LanguageModel> lm_;
  std::unique_ptr<model::SamplingBatch> batch_;
  std::vector<std::string> texts_;
};

}  // namespace

Expected<std::unique_ptr<StreamModel>> load_stream_model(const std::string& workspace_root, const std::string& model_id,
                                                         const std::string& device, int streams, uint64_t seed,
                                                         bool start_after_separator, int local_rank,
                                                         const std::string& checkpoint) {
  ASSIGN_OR_RETURN(auto lm, model::LanguageModel::load(workspace_root, model_id, device, local_rank, checkpoint));
  return ModelStreams::create(std::move(lm), streams, seed, start_after_separator);
}

Expected<std::string> model_id_for_config(const std::string& workspace_root,
                                          const std::string& config_path) {
  ASSIGN_OR_RETURN(auto config, model::load_model_config(config_path));
  ASSIGN_OR_RETURN(auto ws, Workspace::open(workspace_root));
  ASSIGN_OR_RETURN(auto db, ws.open_database());
  ASSIGN_OR_RETURN(auto set, model::read_training_set(db, config.training));
  return model::model_id(config, model::corpus_hash(set.model_texts()));
}

}  // namespace clgen::sampler
