// Internal to clgen_features: the reference extractor's counting rules
// (GreweDefinitions::kReference) over a parsed translation unit.
#pragma once

#include <string>
#include <vector>

#include "features/static_features.h"

namespace clang {
class ASTContext;
}

namespace clgen::features {

// Appends a row for every function defined in the main file with a
// parameter whose type spells `__global`, in source order, counted by the
// rules of docs/PREDICT.md ("Reference definitions").
void append_reference_rows(clang::ASTContext& ctx, const std::string& file, std::vector<StaticFeatures>* out);

}  // namespace clgen::features
