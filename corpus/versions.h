// Versions of the libraries the corpus module links (libgit2, libcurl, libarchive).
#pragma once

#include <vector>

#include "support/version.h"

namespace clgen::corpus {

std::vector<DependencyVersion> dependency_versions();

}  // namespace clgen::corpus
