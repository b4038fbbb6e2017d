// LLVM-IR kernel features (the ADAPT'16 workgroup-size kernel features):
// instructions per opcode and their densities (count / total) of each
// kernel function, over a fixed opcode list so CSV columns are stable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::features {

// The opcodes with their own columns, in column order: terminators (ret br
// switch unreachable), arithmetic (fneg add fadd sub fsub mul fmul udiv sdiv
// fdiv urem srem frem), bitwise (shl lshr ashr and or xor), vectors
// (extractelement insertelement shufflevector), memory (alloca load store
// getelementptr atomicrmw cmpxchg fence), casts (trunc zext sext fptoui
// fptosi uitofp sitofp fptrunc fpext ptrtoint inttoptr bitcast
// addrspacecast), and icmp fcmp phi select call. Any other opcode counts
// as "other".
const std::vector<std::string>& ir_opcodes();

struct IrFeatures {
  std::string kernel;
  long total = 0;           // instructions in the kernel function
  std::vector<long> counts;  // one per ir_opcodes() entry, then "other"
};

// Compiles `source` to LLVM IR for nvptx64 with the preprocess module's
// compile() (-O0, then mem2reg + ADCE on the kernels) and counts every
// kernel's instructions by opcode. Calls count as `call` (callees' bodies are
// not added). Fails with kParse when the code does not compile and
// kInvalidArgument when it defines no kernel.
Expected<std::vector<IrFeatures>> extract_ir_features(std::string_view source);

// "ir_total,ir_ret,...,ir_other,ir_ret_density,...,ir_other_density"
std::string ir_features_csv_header();
// The values for that header; densities are count / total (0 when total is 0).
std::string ir_features_csv_values(const IrFeatures& f);
// As many empty fields as the header has (for a kernel whose IR failed).
std::string ir_features_csv_empty();

}  // namespace clgen::features
