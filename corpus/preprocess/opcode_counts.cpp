// Kernel instruction counts by opcode: compile() to IR, parse it with LLVM's
// IR parser, count each kernel function's instructions.
#include "corpus/preprocess/opcode_counts.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

namespace clgen::preprocess {

Expected<std::vector<KernelOpcodeCounts>> count_kernel_opcodes(std::string_view text,
                                                               CompileOptions options) {
  options.keep_ir = true;
  options.check_only = false;
  options.min_instructions = 0;
  CompileResult r = compile(text, options);
  if (r.category == category::kNoKernel) return invalid_argument("the code defines no kernel");
  if (!r.ok) return parse_error(r.reason.empty() ? "does not compile" : r.reason);

  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(r.ir, diag, ctx);
  if (!module) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("ir", os, false);
    return internal_error("parsing the compiled IR: " + os.str());
  }
  // Kernels are the functions compile() listed (OpenCL kernels carry
  // kernel_arg_* metadata); keep its source order.
  std::vector<KernelOpcodeCounts> out;
  for (const std::string& name : r.kernels) {
    const llvm::Function* f = module->getFunction(name);
    if (!f) return internal_error("kernel " + name + " missing from the compiled IR");
    KernelOpcodeCounts k;
    k.kernel = name;
    for (const llvm::BasicBlock& bb : *f)
      for (const llvm::Instruction& inst : bb) {
        ++k.opcodes[inst.getOpcodeName()];
        ++k.total;
      }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace clgen::preprocess
