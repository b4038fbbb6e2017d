// Private to clgen_preprocess: lowering a compiled module to PTX (ptx.cpp).
#pragma once

#include <string>

namespace llvm {
class Module;
}  // namespace llvm

namespace clgen::preprocess::internal {

// Links libclc's nvptx64 bitcode into `module` and emits PTX; returns an
// error message or "".
std::string lower_to_ptx(llvm::Module& module, std::string& ptx);

}  // namespace clgen::preprocess::internal
