// Versions of the LLVM and Clang libraries the preprocessor runs in-process.
#pragma once

#include <vector>

#include "support/version.h"

namespace clgen::preprocess {

std::vector<DependencyVersion> dependency_versions();

}  // namespace clgen::preprocess
