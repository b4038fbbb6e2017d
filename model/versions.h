// Versions of the libraries behind the language model (LibTorch, SentencePiece).
#pragma once

#include <vector>

#include "support/version.h"

namespace clgen::model {

std::vector<DependencyVersion> dependency_versions();

}  // namespace clgen::model
