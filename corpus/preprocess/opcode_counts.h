// Per-opcode LLVM instruction counts of each kernel function, from the same
// compile() the rejection filter uses (nvptx64, -O0 then mem2reg + ADCE on
// the kernels). Free of Clang and LLVM types.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::preprocess {

struct KernelOpcodeCounts {
  std::string kernel;                      // the kernel function's name
  int64_t total = 0;                       // instructions in the kernel function
  std::map<std::string, int64_t> opcodes;  // LLVM opcode name ("load", "fadd", ...) -> count
};

// Compiles `text` (compile() with keep_ir, no minimum instruction count) and
// counts the instructions of every kernel function by opcode, in source
// order. Calls to other functions count as `call`; their bodies are not
// added. Fails with kParse quoting the first compile error, or kInvalidArgument
// when the code defines no kernel.
Expected<std::vector<KernelOpcodeCounts>> count_kernel_opcodes(std::string_view text,
                                                               CompileOptions options = {});

}  // namespace clgen::preprocess
