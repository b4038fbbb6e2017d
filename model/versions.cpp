// LibTorch's version from its headers; SentencePiece's from pkg-config at
// configure time (its API has no version call, and it is loaded separately).
#include "model/versions.h"

#include <torch/version.h>

namespace clgen::model {

std::vector<DependencyVersion> dependency_versions() {
  std::vector<DependencyVersion> v = {{"LibTorch", TORCH_VERSION, "build"}};
#ifdef CLGEN_SENTENCEPIECE_VERSION
  v.push_back({"SentencePiece", CLGEN_SENTENCEPIECE_VERSION, "build"});
#endif
  return v;
}

}  // namespace clgen::model
