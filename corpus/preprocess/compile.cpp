// The rejection filter: compile to LLVM IR, verify it, count the kernels' instructions.
#include <cctype>
#include <iterator>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Scalar/ADCE.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "corpus/content_check.h"
#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/preprocess.h"
#include "corpus/preprocess/ptx.h"
#include "support/clang/crash_recovery.h"

namespace clgen::preprocess {
namespace {

using internal::ErrorCollector;
using internal::lower_to_ptx;
using internal::make_instance;
using internal::Mode;

CompileResult failure(std::string cat, std::string reason) {
  CompileResult r;
  r.category = std::move(cat);
  r.reason = std::move(reason);
  return r;
}

// First error as the result's category and reason.
void set_first_error(CompileResult& r, std::vector<CompileError> errors) {
  r.ok = false;
  if (errors.empty()) {
    r.category = category::kOtherError;
    r.reason = "compilation failed without an error message";
  } else {
    r.category = errors.front().category;
    r.reason = errors.front().message;
  }
  r.errors = std::move(errors);
}

bool is_kernel(const llvm::Function& f) {
  return !f.isDeclaration() && f.getMetadata("kernel_arg_addr_space") != nullptr;
}

// The functions the input calls (or takes the address of) that it declares
// but never defines, in declaration order. Such a text compiles, but no
// OpenCL implementation can link it: its definitions stayed in a file the
// corpus lacks. Clang's builtins and anything a header declares (the shim,
// the OpenCL headers) are not the input's to define.
std::vector<std::string> undefined_functions(clang::ASTContext& ctx) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  std::vector<std::string> names;
  std::unordered_set<const clang::Decl*> seen;
  for (clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
    auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (!f || f->isInvalidDecl() || !seen.insert(f->getCanonicalDecl()).second) continue;
    if (!f->isUsed() || f->isDefined() || f->getBuiltinID() != 0) continue;
    bool own = true;
    for (const clang::FunctionDecl* r : f->redecls()) {
      if (!sm.isInMainFile(sm.getExpansionLoc(r->getLocation()))) own = false;
    }
    if (own) names.push_back(f->getNameAsString());
  }
  return names;
}

// Code generation that also finds the input's undefined functions (when
// `undefined` is not null). With
// `kernels_only`, the kernels alone are generated: other function
// definitions are dropped on their way to CodeGen (a kernel's call to one
// becomes a call to a declaration). The count covers the kernels only, and
// nothing is linked or printed, so the result is the same; large files of
// helpers cost less.
class CodegenConsumer : public clang::MultiplexConsumer {
 public:
  CodegenConsumer(std::unique_ptr<clang::ASTConsumer> codegen, bool kernels_only, std::vector<std::string>* undefined)
      : clang::MultiplexConsumer(one(std::move(codegen))), kernels_only_(kernels_only), undefined_(undefined) {}

  void Initialize(clang::ASTContext& ctx) override {
    ctx_ = &ctx;
    clang::MultiplexConsumer::Initialize(ctx);
  }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    if (!kernels_only_) return clang::MultiplexConsumer::HandleTopLevelDecl(group);
    llvm::SmallVector<clang::Decl*, 4> kept;
    for (clang::Decl* d : group) {
      auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (f && f->doesThisDeclarationHaveABody() && !f->hasAttr<clang::OpenCLKernelAttr>()) continue;
      kept.push_back(d);
    }
    if (kept.empty()) return true;
    if (kept.size() == static_cast<size_t>(std::distance(group.begin(), group.end()))) {
      return clang::MultiplexConsumer::HandleTopLevelDecl(group);
    }
    return clang::MultiplexConsumer::HandleTopLevelDecl(
        clang::DeclGroupRef::Create(*ctx_, kept.data(), static_cast<unsigned>(kept.size())));
  }
  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    clang::MultiplexConsumer::HandleTranslationUnit(ctx);
    if (undefined_ && !ctx.getDiagnostics().hasErrorOccurred()) *undefined_ = undefined_functions(ctx);
  }

 private:
  static std::vector<std::unique_ptr<clang::ASTConsumer>> one(std::unique_ptr<clang::ASTConsumer> c) {
    std::vector<std::unique_ptr<clang::ASTConsumer>> v;
    v.push_back(std::move(c));
    return v;
  }
  bool kernels_only_;
  std::vector<std::string>* undefined_;
  clang::ASTContext* ctx_ = nullptr;
};

class CodegenAction : public clang::EmitLLVMOnlyAction {
 public:
  CodegenAction(llvm::LLVMContext* ctx, bool kernels_only, bool find_undefined)
      : clang::EmitLLVMOnlyAction(ctx), kernels_only_(kernels_only), find_undefined_(find_undefined) {}
  // Filled once the action has run, with find_undefined.
  const std::vector<std::string>& undefined() const { return undefined_; }

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef file) override {
    std::unique_ptr<clang::ASTConsumer> codegen = clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file);
    if (!codegen) return nullptr;
    return std::make_unique<CodegenConsumer>(std::move(codegen), kernels_only_,
                                             find_undefined_ ? &undefined_ : nullptr);
  }

 private:
  bool kernels_only_, find_undefined_;
  std::vector<std::string> undefined_;
};

// "calls 'B', which it declares but never defines" (and how many more).
std::string undefined_reason(const std::vector<std::string>& names) {
  std::string r = "calls '" + names.front() + "', which it declares but never defines";
  if (names.size() > 1) r += " (and " + std::to_string(names.size() - 1) + " more such functions)";
  return r;
}

CompileResult compile_unsafe(std::string_view text, const CompileOptions& opts) {
  ErrorCollector errors(opts.error_limit > 0 ? opts.error_limit : 1);
  std::string setup_error;
  auto ci = make_instance(text, opts, Mode::kCompile, errors, setup_error);
  if (!ci) return failure(category::kOtherError, setup_error);
  if (opts.check_only) {
    clang::SyntaxOnlyAction check;
    CompileResult r;
    if (!ci->ExecuteAction(check) || ci->getDiagnostics().hasErrorOccurred()) {
      set_first_error(r, errors.compile_errors());
    } else {
      r.ok = true;
    }
    return r;
  }
  llvm::LLVMContext ctx;
  // The whole module when it is kept or lowered to PTX. On the heap: a
  // Clang crash abandons this frame, and the compiler it leaks still points
  // at the action.
  auto action = std::make_unique<CodegenAction>(&ctx, !(opts.keep_ir || opts.to_ptx), opts.require_definitions);
  bool ran = ci->ExecuteAction(*action);
  std::unique_ptr<llvm::Module> module = action->takeModule();
  CompileResult r;
  if (!ran || !module || ci->getDiagnostics().hasErrorOccurred()) {
    set_first_error(r, errors.compile_errors());
    return r;
  }
  if (!action->undefined().empty()) {
    r.category = category::kUndefinedFunction;
    r.reason = undefined_reason(action->undefined());
    return r;
  }
  std::string invalid;
  llvm::raw_string_ostream invalid_os(invalid);
  if (llvm::verifyModule(*module, &invalid_os)) {
    invalid_os.flush();
    r.category = category::kOtherError;
    r.reason = "Clang generated invalid LLVM IR: " + invalid.substr(0, invalid.find('\n'));
    return r;
  }
  // Codegen runs at -O0 (the -O1 pipeline cost more than all the rest); the
  // kernels' stack slots are then promoted to registers and dead code
  // removed, so the count measures the work a kernel does, not its
  // parameter spills.
  llvm::PassBuilder pb;
  llvm::FunctionAnalysisManager fam;
  pb.registerFunctionAnalyses(fam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::PromotePass());
  fpm.addPass(llvm::ADCEPass());
  for (llvm::Function& f : *module) {
    if (!is_kernel(f)) continue;
    fpm.run(f, fam);
    r.kernels.push_back(f.getName().str());
    r.instruction_count += f.getInstructionCount();
  }
  if (opts.keep_ir) {
    llvm::raw_string_ostream os(r.ir);
    module->print(os, nullptr);
  }
  if (r.kernels.empty()) {
    r.category = category::kNoKernel;
    r.reason = "no kernel function";
    return r;
  }
  if (r.instruction_count < opts.min_instructions) {
    r.category = category::kTooFewInstructions;
    r.reason = "kernels have " + std::to_string(r.instruction_count) +
               " instructions, fewer than " + std::to_string(opts.min_instructions);
    return r;
  }
  if (opts.to_ptx) {
    std::string ptx, err;
    // The NVPTX backend reports what it cannot lower (e.g. libclc's
    // native_cos without fast math: "Cannot select: fcos") as an LLVM fatal
    // error; a crash here is the input's ptx_error, not a Clang crash.
    if (!clang_support::run_with_crash_recovery([&] { err = lower_to_ptx(*module, ptx); })) {
      err = "the NVPTX backend aborted (an LLVM fatal error, e.g. an operation it cannot select)";
    }
    if (!err.empty()) {
      r.category = category::kPtxError;
      r.reason = err;
      return r;
    }
    if (opts.keep_ir) r.ptx = std::move(ptx);
  }
  r.ok = true;
  return r;
}

// True when the shim has a `#define NAME`: retrying with the shim can only
// help an input whose first missing name the shim defines.
bool shim_defines(const std::string& name) {
  static const std::unordered_set<std::string> names = [] {
    std::unordered_set<std::string> set;
    std::string_view text = shim_text();
    size_t pos = 0;
    while ((pos = text.find("#define ", pos)) != std::string_view::npos) {
      bool line_start = pos == 0 || text[pos - 1] == '\n';
      pos += 8;
      if (!line_start) continue;  // a commented-out proposal
      size_t end = pos;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
      set.emplace(text.substr(pos, end - pos));
    }
    return set;
  }();
  return !name.empty() && names.count(name) > 0;
}

}  // namespace

CompileResult compile(std::string_view text, const CompileOptions& options) {
  if (text.size() > kMaxInputBytes) {
    return failure(category::kInputTooLarge,
                   "input of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                       std::to_string(kMaxInputBytes));
  }
  // Clang 15's lexer has crashed and asked for 4 GiB on stray UTF-8 bytes
  // inside identifiers (docs/FUZZING.md); the importer already skips such
  // files, so only direct inputs meet this.
  if (!corpus::is_valid_utf8(text)) return failure(category::kInvalidUtf8, "input is not valid UTF-8");
  // The same lexer crashes (or leaks the compiler it abandons) on some valid
  // UTF-8 letters in identifiers: code outside comments and literals must be ASCII.
  if (std::string why = corpus::non_ascii_code_problem(text); !why.empty())
    return failure(category::kNonAsciiCode, why);
  auto attempt = [&](bool shim) {
    CompileOptions o = options;
    o.shim = shim;
    CompileResult result;
    if (!clang_support::run_with_crash_recovery([&] { result = compile_unsafe(text, o); })) {
      result = failure(category::kClangCrash, "Clang crashed while compiling the input");
    }
    result.used_shim = shim;
    return result;
  };
  CompileResult plain = attempt(false);
  if (options.shim && !plain.ok &&
      (plain.category == category::kUndeclaredIdentifier ||
       plain.category == category::kUnknownTypeName) &&
      !plain.errors.empty() && shim_defines(plain.errors.front().name)) {
    // The shim's guesses can clash with the input's own names (its `T2`
    // vector type against sgminer's `sph_u64 T2[]` table): when the shim
    // turns a missing name into another kind of error, the input's own
    // error stands, and missing-name inference defines only what it lacks.
    CompileResult shimmed = attempt(true);
    if (shimmed.ok || shimmed.category == category::kUndeclaredIdentifier ||
        shimmed.category == category::kUnknownTypeName) {
      return shimmed;
    }
    return plain;
  }
  return plain;
}

}  // namespace clgen::preprocess
