// load_stream_model() for builds without the LibTorch model module.
#include "sampler/stream_model.h"

namespace clgen::sampler {

Expected<std::unique_ptr<StreamModel>> load_stream_model(const std::string&, const std::string&, const std::string&,
                                                         int, uint64_t, bool, int, const std::string&) {
  return unavailable("no language model to sample from: this clgen was built without the LibTorch model module");
}

Expected<std::string> model_id_for_config(const std::string&, const std::string&) {
  return unavailable("model configs need the LibTorch model module, which this clgen was built without");
}

}  // namespace clgen::sampler
