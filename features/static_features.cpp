// Static features from the Clang AST: the code is parsed (clgen_clang's
// set-up) from an in-memory file system that holds only the kernel and
// Clang's OpenCL base header, so an #include in untrusted code can read
// nothing from disk; one RecursiveASTVisitor pass per function body, callee
// counts memoized.
#include "features/static_features.h"

#include <map>
#include <set>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Sema/ExternalSemaSource.h>
#include <clang/Sema/Sema.h>
#include <clang/Tooling/Tooling.h>
#include <fmt/format.h>

#include "features/grewe_counts.h"
#include "features/grewe_reference.h"
#include "support/clang/builtin_files.h"
#include "support/clang/diagnostics.h"
#include "support/clang/invocation.h"
#include "support/csv.h"

namespace clgen::features {

namespace {

const clang::Expr* strip(const clang::Expr* e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

bool pointee_in(clang::QualType t, clang::LangAS as) {
  if (const auto* p = t->getAs<clang::PointerType>()) return p->getPointeeType().getAddressSpace() == as;
  return false;
}

// The variable an expression names directly, or null.
const clang::ValueDecl* named_decl(const clang::Expr* e) {
  if (const auto* ref = llvm::dyn_cast_or_null<clang::DeclRefExpr>(strip(e))) return ref->getDecl();
  return nullptr;
}

// A parameter (of a kernel or a helper) pointing to __global memory.
bool is_global_parameter(const clang::ValueDecl* d) {
  return llvm::isa_and_nonnull<clang::ParmVarDecl>(d) && pointee_in(d->getType(), clang::LangAS::opencl_global);
}

bool is_local_memory(const clang::ValueDecl* d) {
  if (!d) return false;
  clang::QualType t = d->getType();
  if (pointee_in(t, clang::LangAS::opencl_local)) return true;
  return t->isArrayType() && t.getAddressSpace() == clang::LangAS::opencl_local;
}

bool is_zero_or_one_literal(const clang::Expr* e) {
  const auto* lit = llvm::dyn_cast_or_null<clang::IntegerLiteral>(strip(e));
  return lit && lit->getValue().ule(1);
}

// A coalesced index: a plain variable, an integer literal, or a + or *
// expression one of whose operands is the literal 0 or 1.
bool is_coalesced_index(const clang::Expr* idx) {
  idx = strip(idx);
  if (llvm::isa<clang::DeclRefExpr>(idx) || llvm::isa<clang::IntegerLiteral>(idx)) return true;
  if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(idx)) {
    if (bin->getOpcode() == clang::BO_Add || bin->getOpcode() == clang::BO_Mul)
      return is_zero_or_one_literal(bin->getLHS()) || is_zero_or_one_literal(bin->getRHS());
  }
  return false;
}

class FeatureCounter;

// Counts of user-defined functions, computed once each.
class FunctionCounts {
 public:
  explicit FunctionCounts(clang::ASTContext& ctx) : ctx_(ctx) {}
  GreweCounts of(const clang::FunctionDecl* fd);
  bool user_defined(const clang::FunctionDecl* fd) const {
    const clang::FunctionDecl* def = nullptr;
    return fd && fd->hasBody(def) && ctx_.getSourceManager().isInMainFile(def->getLocation());
  }

 private:
  clang::ASTContext& ctx_;
  std::map<const clang::FunctionDecl*, GreweCounts> done_;
  std::set<const clang::FunctionDecl*> active_;  // recursion guard (OpenCL forbids recursion)
};

class FeatureCounter : public clang::RecursiveASTVisitor<FeatureCounter> {
 public:
  explicit FeatureCounter(FunctionCounts& functions) : functions_(functions) {}

  // Also called for compound assignments (<<= and >>= count, += and the rest do not).
  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    count_binary_operator(op->getOpcode(), &counts);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (is_global_parameter(ref->getDecl())) ++counts.mem;
    return true;
  }

  // A coalesced access is one of the accesses `mem` counts (a subscript of
  // a __global pointer parameter), so coalesced <= mem as Grewe et al.
  // define it: a local alias (`__global float* p = a + i; p[0]`) is neither.
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* sub) {
    const clang::ValueDecl* base = named_decl(sub->getBase());
    if (is_local_memory(base)) ++counts.localmem;
    if (is_global_parameter(base) && is_coalesced_index(sub->getIdx())) ++counts.coalesced;
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    if (!fd) return true;
    if (functions_.user_defined(fd)) {
      counts.add(functions_.of(fd));
      return true;
    }
    std::string name = fd->getNameAsString();
    counts.comp += transcendental_cost(name);
    if (name.rfind("atomic_", 0) == 0 || name.rfind("atom_", 0) == 0) ++counts.atomic;
    return true;
  }

  GreweCounts counts;

 private:
  FunctionCounts& functions_;
};

GreweCounts FunctionCounts::of(const clang::FunctionDecl* fd) {
  const clang::FunctionDecl* def = nullptr;
  if (!fd->hasBody(def)) return {};
  auto it = done_.find(def);
  if (it != done_.end()) return it->second;
  if (!active_.insert(def).second) return {};
  FeatureCounter counter(*this);
  counter.TraverseStmt(def->getBody());
  active_.erase(def);
  done_[def] = counter.counts;
  return counter.counts;
}

}  // namespace

namespace {

// Computes every kernel's features once the translation unit is parsed.
class FeaturesConsumer : public clang::ASTConsumer {
 public:
  FeaturesConsumer(std::vector<StaticFeatures>* out, const std::string& file, GreweDefinitions definitions)
      : out_(out), file_(file), definitions_(definitions) {}
  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (definitions_ == GreweDefinitions::kReference) return append_reference_rows(ctx, file_, out_);
    FunctionCounts functions(ctx);
    for (const clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
      const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (!fd || !fd->hasAttr<clang::OpenCLKernelAttr>() || !fd->doesThisDeclarationHaveABody()) continue;
      if (!ctx.getSourceManager().isInMainFile(fd->getLocation())) continue;
      out_->push_back(grewe_row(file_, fd->getNameAsString(), functions.of(fd)));
    }
  }

 private:
  std::vector<StaticFeatures>* out_;
  std::string file_;
  GreweDefinitions definitions_;
};

class FeaturesAction : public clang::ASTFrontendAction {
 public:
  FeaturesAction(std::vector<StaticFeatures>* out, std::string file, GreweDefinitions definitions)
      : out_(out), file_(std::move(file)), definitions_(definitions) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&, llvm::StringRef) override {
    return std::make_unique<FeaturesConsumer>(out_, file_, definitions_);
  }

  // The reference definitions count the arguments of calls to undeclared
  // functions: Sema gets the implicit declarations before parsing starts.
  void ExecuteAction() override {
    clang::CompilerInstance& ci = getCompilerInstance();
    if (definitions_ == GreweDefinitions::kReference) {
      if (!ci.hasSema()) ci.createSema(getTranslationUnitKind(), nullptr);
      implicit_functions_ = implicit_function_declarations(ci.getSema());
      ci.getSema().addExternalSource(implicit_functions_.get());
    }
    clang::ASTFrontendAction::ExecuteAction();
  }

 private:
  std::vector<StaticFeatures>* out_;
  std::string file_;
  GreweDefinitions definitions_;
  std::unique_ptr<clang::ExternalSemaSource> implicit_functions_;
};

constexpr const char* kMainFile = "/clgen/kernel.cl";

}  // namespace

Expected<std::vector<StaticFeatures>> extract_static_features(std::string_view source, const std::string& file,
                                                              const FeatureOptions& options) {
  auto fs = clang_support::in_memory_files(kMainFile, source);
  std::string header_error = clang_support::add_headers(*fs, clang_support::clang_headers());
  if (!header_error.empty())
    return unavailable("Clang's OpenCL header is missing (install libclang-common-15-dev): " + header_error);
  fs->setCurrentWorkingDirectory("/clgen");
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), fs);

  std::vector<std::string> args = {"clgen-features", "-xcl"};
  for (std::string& a : clang_support::opencl_args(clang_support::OpenClStd::kCL12, clang_support::ArgStyle::kDriver))
    args.push_back(std::move(a));
  if (options.definitions == GreweDefinitions::kReference) {
    // After Clang's OpenCL header, which -finclude-default-header includes first.
    const std::string_view limits = reference_limits_header();
    fs->addFile(
        kReferenceLimitsPath, 0,
        llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(limits.data(), limits.size()), kReferenceLimitsPath, false));
    args.insert(args.end(), {"-include", kReferenceLimitsPath});
  }
  // -fno-caret-diagnostics: Clang prints no "N errors generated" (errors reach the caller as values).
  for (const char* a : {"-fsyntax-only", "-w", "-fno-caret-diagnostics", kMainFile}) args.push_back(a);
  std::vector<StaticFeatures> out;
  clang_support::ErrorCollector errors(clang_support::ErrorCollector::Options{1});  // the first error is reported
  clang::tooling::ToolInvocation invocation(args, std::make_unique<FeaturesAction>(&out, file, options.definitions),
                                            files.get(), std::make_shared<clang::PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&errors);
  bool ran = invocation.run();
  const bool had_errors = errors.getNumErrors() > 0;
  const std::string first_error = errors.errors().empty() ? "" : clang_support::line_column_message(errors.errors()[0]);
  // The consumer has counted the recovered AST either way; without recovery
  // a file with errors has no rows.
  if (had_errors && (!options.recover_from_errors || out.empty()))
    return parse_error(fmt::format("{}: does not compile as OpenCL C 1.2: {}", file, first_error));
  if (!ran && !had_errors) return parse_error(fmt::format("{}: Clang could not parse the file", file));
  if (out.empty()) {
    if (options.definitions == GreweDefinitions::kReference)
      return invalid_argument(
          fmt::format("{}: defines no function with a __global parameter (no row by the reference definitions)", file));
    return invalid_argument(fmt::format("{}: defines no __kernel function", file));
  }
  for (StaticFeatures& f : out) {
    f.sema_errors = had_errors;
    f.first_error = first_error;
  }
  return out;
}

const char* grewe_definitions_name(GreweDefinitions d) {
  return d == GreweDefinitions::kReference ? "reference" : "clgen";
}

Expected<GreweDefinitions> parse_grewe_definitions(std::string_view name) {
  if (name == "reference") return GreweDefinitions::kReference;
  if (name == "clgen") return GreweDefinitions::kClgen;
  return invalid_argument(fmt::format("unknown Grewe feature definitions '{}' (reference or clgen)", name));
}

std::string static_features_csv_header() { return "file,kernel,comp,rational,mem,localmem,coalesced,atomic"; }

std::string static_features_csv_row(const StaticFeatures& f) {
  return fmt::format("{},{},{},{},{},{},{},{}", csv_field(f.file), csv_field(f.kernel), f.comp, f.rational, f.mem,
                     f.localmem, f.coalesced, f.atomic);
}

std::string sema_errors_csv_header() { return "sema_errors,first_error"; }

std::string sema_errors_csv_values(const StaticFeatures& f) {
  return fmt::format("{},{}", f.sema_errors ? 1 : 0, csv_field(f.first_error));
}

}  // namespace clgen::features
