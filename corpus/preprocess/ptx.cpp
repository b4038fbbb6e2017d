// PTX lowering: libclc's nvptx64 bitcode linked in, PTX emitted by the NVPTX backend.
#include "corpus/preprocess/ptx.h"

#include <memory>
#include <mutex>
#include <string>

#include <llvm/ADT/SmallString.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "corpus/preprocess/frontend_internal.h"
#include "support/clang/builtin_files.h"

namespace clgen::preprocess::internal {
namespace {

void init_nvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

}  // namespace

std::string lower_to_ptx(llvm::Module& module, std::string& ptx) {
  std::string err;
  const std::string& bc = clang_support::libclc_bitcode(err);
  if (!err.empty()) return err;
  init_nvptx();
  llvm::LLVMContext& ctx = module.getContext();
  std::string backend_error;
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& di, void* p) {
        if (di.getSeverity() != llvm::DS_Error) return;
        auto* out = static_cast<std::string*>(p);
        if (!out->empty()) return;
        llvm::raw_string_ostream os(*out);
        llvm::DiagnosticPrinterRawOStream printer(os);
        di.print(printer);
      },
      &backend_error);
  auto lib = llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(bc, "libclc"), ctx);
  if (!lib) return "loading libclc: " + llvm::toString(lib.takeError());
  // The OpenCL driver interface (nvcl), as the kernels were compiled for: a
  // CUDA triple makes NVPTX treat every kernel pointer parameter as global,
  // and a __local one then fails ("Cannot cast between two non-generic
  // address spaces", an LLVM fatal error).
  const std::string triple = kTriple;
  (*lib)->setTargetTriple(triple);
  (*lib)->setDataLayout(module.getDataLayout());
  module.setTargetTriple(triple);
  if (llvm::Linker::linkModules(module, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded)) {
    return "linking libclc failed" + (backend_error.empty() ? "" : ": " + backend_error);
  }
  for (const llvm::Function& f : module) {
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty()) {
      return "undefined function after linking libclc: " + f.getName().str();
    }
  }
  std::string lookup_error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, lookup_error);
  if (!target) return "NVPTX target: " + lookup_error;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "sm_50", "", llvm::TargetOptions(), llvm::None));
  module.setDataLayout(tm->createDataLayout());
  llvm::SmallString<4096> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile)) {
    return "NVPTX backend cannot emit assembly";
  }
  pm.run(module);
  if (!backend_error.empty()) return backend_error;
  ptx = out.str().str();
  return "";
}

}  // namespace clgen::preprocess::internal
