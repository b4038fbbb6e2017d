// LLVM/Clang versions, from the linked libraries.
#include "corpus/preprocess/versions.h"

#include <clang/Basic/Version.h>
#include <llvm/Config/llvm-config.h>

namespace clgen::preprocess {

std::vector<DependencyVersion> dependency_versions() {
  return {
      {"LLVM", LLVM_VERSION_STRING, "build"},
      {"Clang", clang::getClangFullVersion(), "runtime"},
  };
}

}  // namespace clgen::preprocess
