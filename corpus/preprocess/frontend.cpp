// In-process Clang 15 over an in-memory file system: the rejection filter
// (compile to LLVM IR, count kernel instructions, optionally lower to PTX) and
// the Clang-based rewriter passes (expand the main file, rename identifiers).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/InMemoryModuleCache.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/ADCE.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "corpus/preprocess/preprocess.h"
#include "corpus/preprocess/crash_recovery.h"
#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/generated_names.h"

namespace clgen::preprocess {
namespace {

using internal::ErrorCollector;
using internal::make_instance;
using internal::Mode;

constexpr const char* kMainFile = "/clgen/input.cl";
constexpr const char* kShimFile = "/clgen/shim.h";
constexpr const char* kTriple = "nvptx64-nvidia-nvcl";

// Builtin headers, read once from disk and then served from memory to every
// compile, so the compiler never touches the real file system.
struct HeaderFile {
  std::string path;
  std::string text;
};
struct HeaderSet {
  std::vector<HeaderFile> files;
  std::string error;  // non-empty when a header could not be read
};

void add_file(HeaderSet& set, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    set.error = "cannot read builtin header " + path.string();
    return;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  set.files.push_back({path.string(), ss.str()});
}

const HeaderSet& clang_headers() {
  static const HeaderSet set = [] {
    HeaderSet s;
    std::filesystem::path dir = std::filesystem::path(CLGEN_CLANG_RESOURCE_DIR) / "include";
    // -fdeclare-opencl-builtins makes -finclude-default-header read only
    // opencl-c-base.h; opencl-c.h (800 KB) is never opened, and the
    // in-memory file system hashes every file's contents on addFile.
    add_file(s, dir / "opencl-c-base.h");
    return s;
  }();
  return set;
}

// libclc's locations: configured at build time relative to the LLVM root
// (Debian's layout: <root>/../../include/clc, <root>/../clc/*.bc, also when
// the packages are unpacked under another prefix); the environment variables
// override them at run time.
std::string configured_path(const char* env, const char* built_in) {
  const char* v = std::getenv(env);
  return v && *v ? v : built_in;
}
const std::string& libclc_include_dir() {
  static const std::string dir = configured_path("CLGEN_LIBCLC_INCLUDE_DIR", CLGEN_LIBCLC_INCLUDE_DIR);
  return dir;
}
const std::string& libclc_bitcode_path() {
  static const std::string path = configured_path("CLGEN_LIBCLC_BITCODE", CLGEN_LIBCLC_BITCODE);
  return path;
}

const HeaderSet& libclc_headers() {
  static const HeaderSet set = [] {
    HeaderSet s;
    std::error_code ec;
    std::filesystem::path root = std::filesystem::path(libclc_include_dir()) / "clc";
    for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->is_regular_file()) add_file(s, it->path());
    }
    if (ec || s.files.empty()) {
      s.error = "cannot read libclc headers under " + root.string() +
                " (set CLGEN_LIBCLC_INCLUDE_DIR to the directory holding clc/clc.h)";
    }
    return s;
  }();
  return set;
}

const std::string& libclc_bitcode(std::string& error) {
  static std::string err;
  static const std::string bc = [] {
    std::ifstream in(libclc_bitcode_path(), std::ios::binary);
    if (!in) {
      err = "cannot read libclc bitcode " + libclc_bitcode_path() +
            " (set CLGEN_LIBCLC_BITCODE to its path)";
      return std::string();
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  error = err;
  return bc;
}

// The identifier a diagnostic names: the first 'quoted' word of its message.
std::string quoted_name(const std::string& message) {
  size_t a = message.find('\'');
  if (a == std::string::npos) return "";
  size_t b = message.find('\'', a + 1);
  if (b == std::string::npos) return "";
  return message.substr(a + 1, b - a - 1);
}

std::string categorize(unsigned id) {
  namespace diag = clang::diag;
  switch (id) {
    case diag::err_undeclared_var_use:
    case diag::err_undeclared_var_use_suggest:
    case diag::err_undeclared_use:
      return category::kUndeclaredIdentifier;
    case diag::err_unknown_typename:
    case diag::err_unknown_typename_suggest:
      return category::kUnknownTypeName;
    case diag::err_pp_file_not_found:
      return category::kIncludeNotFound;
    case diag::ext_implicit_function_decl_c99:
    case diag::warn_implicit_function_decl:
      return category::kImplicitFunction;
    default:
      break;
  }
  llvm::StringRef cat =
      clang::DiagnosticIDs::getCategoryNameFromID(clang::DiagnosticIDs::getCategoryNumberForDiag(id));
  if (cat == "Parse Issue") return category::kParseError;
  if (cat == "Semantic Issue") return category::kSemanticError;
  if (cat == "Lexical or Preprocessor Issue") return category::kPreprocessorError;
  return category::kOtherError;
}

// clang::Lexer::cutOffLexing() (make the lexer see its buffer's end) is
// private. An explicit template instantiation may name a private member
// (C++17 [temp.explicit]/12), which hands us its address without touching
// Clang's headers.
using LexerCutOff = void (clang::Lexer::*)();
LexerCutOff lexer_cut_off();
template <LexerCutOff F>
struct LexerCutOffAccess {
  friend LexerCutOff lexer_cut_off() { return F; }
};
template struct LexerCutOffAccess<&clang::Lexer::cutOffLexing>;

}  // namespace

namespace internal {

void ErrorCollector::HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                                      const clang::Diagnostic& info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);
  if (level < clang::DiagnosticsEngine::Error) return;
  if (info.getID() == clang::diag::fatal_too_many_errors) return;
  if (errors.size() >= limit_) return;
  record(info);
  // Clang parses on after its error limit with diagnostics suppressed; the
  // verdict is known, so the rest of the file is cut off (the input's lexer
  // sees its end). In Clang 15 every file lexer is a clang::Lexer.
  if (errors.size() >= limit_ && pp_) {
    if (clang::PreprocessorLexer* lexer = pp_->getCurrentFileLexer()) {
      (static_cast<clang::Lexer*>(lexer)->*lexer_cut_off())();
    }
  }
}

void ErrorCollector::record(const clang::Diagnostic& info) {
  llvm::SmallString<256> text;
  info.FormatDiagnostic(text);
  CompileError e;
  e.category = categorize(info.getID());
  std::string message(text.str());
  if (message.empty()) message = "error without a message (an empty #error)";
  if (e.category == category::kUndeclaredIdentifier ||
      e.category == category::kUnknownTypeName ||
      e.category == category::kImplicitFunction) {
    e.name = quoted_name(message);
  }
  std::string where;
  if (info.hasSourceManager() && info.getLocation().isValid()) {
    const clang::SourceManager& sm = info.getSourceManager();
    clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
    clang::PresumedLoc p = sm.getPresumedLoc(loc);
    if (p.isValid()) {
      std::string file = llvm::sys::path::filename(p.getFilename()).str();
      where = file + ":" + std::to_string(p.getLine()) + ":" + std::to_string(p.getColumn()) + ": ";
    }
    if (sm.isInMainFile(loc)) e.offset = sm.getFileOffset(loc);
  }
  e.message = where + message;
  errors.push_back(std::move(e));
}

}  // namespace internal

namespace {

constexpr const char* kPchFile = "/clgen/builtins.pch";
constexpr const char* kPchSource = "/clgen/builtins.h";  // the PCH's (empty) main file
const std::string& builtins_pch();
constexpr const char* kMacrosFile = "/clgen/builtin-macros.h";
const std::string& builtin_macros_text();

}  // namespace

std::unique_ptr<clang::CompilerInstance> internal::make_instance(std::string_view text,
                                                       const CompileOptions& opts, Mode mode,
                                                       ErrorCollector& errors,
                                                       std::string& setup_error) {
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  // The PCH records its own main file, which must not be the input's name.
  const char* main_file = mode == Mode::kBuildPch ? kPchSource : kMainFile;
  fs->addFile(main_file, 0, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()), main_file));
  std::string_view shim = shim_text();
  fs->addFile(kShimFile, 0,
              llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(shim.data(), shim.size()), kShimFile, false));
  // Pass 1 sees the builtin header's macros too, so #ifdef M_PI_F and the
  // like resolve as they do in a compile (ExpandAction keeps them as
  // written). Of Clang's header it needs nothing else: the #define lines
  // the header ends with, collected once per process, stand in for it.
  bool macros_only = mode == Mode::kExpand && opts.header == BuiltinHeader::kClang && !opts.opencl20 &&
                     !builtin_macros_text().empty();
  bool builtins = !macros_only;
  if (macros_only) {
    fs->addFile(kMacrosFile, 0, llvm::MemoryBuffer::getMemBuffer(builtin_macros_text(), kMacrosFile, false));
  }
  if (builtins) {
    const HeaderSet& headers =
        opts.header == BuiltinHeader::kClang ? clang_headers() : libclc_headers();
    if (!headers.error.empty()) {
      setup_error = headers.error;
      return nullptr;
    }
    for (const HeaderFile& h : headers.files) {
      fs->addFile(h.path, 0, llvm::MemoryBuffer::getMemBuffer(h.text, h.path, true));
    }
  }

  // Clang's builtin header, precompiled once per process (see builtins_pch).
  const std::string* pch = nullptr;
  // (Not in strict mode: -fgnu89-inline below is a language option the PCH
  // would have to match.)
  if ((mode == Mode::kCompile || mode == Mode::kSyntax) && opts.header == BuiltinHeader::kClang &&
      !(opts.to_ptx && mode == Mode::kCompile) && !opts.opencl20 && !builtins_pch().empty()) {
    pch = &builtins_pch();
    fs->addFile(kPchFile, 0, llvm::MemoryBuffer::getMemBuffer(*pch, kPchFile, false));
    fs->addFile(kPchSource, 0, llvm::MemoryBuffer::getMemBuffer("", kPchSource));
  }

  std::string error_limit = std::to_string(std::max(1, opts.error_limit));
  // The OpenCL C 2.0 fallback also enables the optional extensions device
  // code commonly assumes (half precision, 3-D image writes, sub-groups, 64-bit atomics).
  std::vector<const char*> args = {
      "-triple", kTriple, "-x", mode == Mode::kBuildPch ? "cl-header" : "cl",
      opts.opencl20 ? "-cl-std=CL2.0" : "-cl-std=CL1.2",
      "-resource-dir", CLGEN_CLANG_RESOURCE_DIR,
      "-w", "-fno-spell-checking", "-ferror-limit", error_limit.c_str(), "-O0",
      "-fno-caret-diagnostics"};
  if (opts.opencl20) {
    args.push_back("-cl-ext=+cl_khr_fp16,+cl_khr_fp64,+cl_khr_3d_image_writes,+cl_khr_subgroups,"
                   "+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics");
  }
  if (builtins && opts.header == BuiltinHeader::kClang) {
    args.push_back("-finclude-default-header");
    args.push_back("-fdeclare-opencl-builtins");
  }
  if (builtins && opts.header == BuiltinHeader::kLibclc) {
    args.push_back("-isystem");
    args.push_back(libclc_include_dir().c_str());
    args.push_back("-include");
    args.push_back("clc/clc.h");
  }
  // OpenCL C follows C99 inline rules: a plain `inline` helper gets no
  // body at -O0, so a kernel calling it would link to nothing in PTX. GNU89
  // rules emit it (only the linkage of inline functions differs).
  if (opts.to_ptx && mode == Mode::kCompile) args.push_back("-fgnu89-inline");
  // Clang's own verifier reports invalid IR (which Clang 15 emits for some
  // odd inputs, e.g. a bitcast between address spaces) as an LLVM fatal
  // error, and recovering from that left the heap corrupt (a sampler run
  // aborted in clang-format afterwards). compile_unsafe verifies instead.
  if (mode == Mode::kCompile) args.push_back("-disable-llvm-verifier");
  if (pch) {
    args.push_back("-include-pch");
    args.push_back(kPchFile);
  }
  if (macros_only) {
    args.push_back("-include");
    args.push_back(kMacrosFile);
  }
  if (opts.shim && mode != Mode::kBuildPch && mode != Mode::kCollectMacros) {
    args.push_back("-include");
    args.push_back(kShimFile);
  }
  args.push_back(main_file);

  auto ci = std::make_unique<clang::CompilerInstance>();
  ci->createDiagnostics(&errors, /*ShouldOwnClient=*/false);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, args, ci->getDiagnostics())) {
    setup_error = "invalid compiler arguments";
    return nullptr;
  }
  invocation->getFrontendOpts().DisableFree = false;
  if (mode == Mode::kBuildPch) {
    invocation->getFrontendOpts().ProgramAction = clang::frontend::GeneratePCH;
    invocation->getLangOpts()->CompilingPCH = true;
  }
  ci->setInvocation(std::move(invocation));
  ci->createFileManager(fs);
  return ci;
}

namespace {

// Builds a PCH of the builtin header into memory.
class BuildPchAction : public clang::ASTFrontendAction {
 public:
  explicit BuildPchAction(std::shared_ptr<clang::PCHBuffer> buffer) : buffer_(std::move(buffer)) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    return std::make_unique<clang::PCHGenerator>(
        ci.getPreprocessor(), *cache_, "builtins.pch", "", buffer_,
        llvm::ArrayRef<std::shared_ptr<clang::ModuleFileExtension>>(),
        /*AllowASTWithErrors=*/false, /*IncludeTimestamps=*/false);
  }
  clang::TranslationUnitKind getTranslationUnitKind() override { return clang::TU_Prefix; }

 private:
  std::shared_ptr<clang::PCHBuffer> buffer_;
  llvm::IntrusiveRefCntPtr<clang::InMemoryModuleCache> cache_{new clang::InMemoryModuleCache};
};

// Parsing Clang's opencl-c-base.h dominated the cost of a small compile; a
// precompiled header of it, built once per process in memory, is read
// lazily instead. Empty when it could not be built (compiles then parse the
// header as text).
const std::string& builtins_pch() {
  static const std::string pch = [] {
    std::string out;
    run_with_crash_recovery([&] {
      ErrorCollector errors(1);
      std::string setup_error;
      CompileOptions o;
      o.shim = false;
      auto ci = make_instance("", o, Mode::kBuildPch, errors, setup_error);
      if (!ci) return;
      auto buffer = std::make_shared<clang::PCHBuffer>();
      BuildPchAction action(buffer);
      if (!ci->ExecuteAction(action) || ci->getDiagnostics().hasErrorOccurred()) return;
      if (!buffer->IsComplete) return;
      out.assign(buffer->Data.begin(), buffer->Data.end());
    });
    return out;
  }();
  return pch;
}

// Preprocesses the (empty) input and keeps, in definition order, the
// macros the builtin header leaves defined, as "#define" lines.
class CollectMacrosAction : public clang::PreprocessorFrontendAction {
 public:
  explicit CollectMacrosAction(std::string* out) : out_(out) {}

 protected:
  void ExecuteAction() override {
    clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
    const clang::SourceManager& sm = pp.getSourceManager();
    pp.EnterMainSourceFile();
    clang::Token tok;
    do {
      pp.Lex(tok);
    } while (tok.isNot(clang::tok::eof));
    std::vector<const clang::MacroInfo*> macros;
    for (const auto& entry : pp.macros()) {
      const clang::MacroInfo* mi = pp.getMacroInfo(entry.first);
      if (!mi || mi->isBuiltinMacro()) continue;
      clang::SourceLocation def = mi->getDefinitionLoc();
      if (def.isInvalid() || sm.isWrittenInBuiltinFile(def) || sm.isWrittenInCommandLineFile(def) ||
          sm.isInMainFile(def)) {
        continue;
      }
      macros.push_back(mi);
    }
    std::sort(macros.begin(), macros.end(), [&](const clang::MacroInfo* a, const clang::MacroInfo* b) {
      return sm.isBeforeInTranslationUnit(a->getDefinitionLoc(), b->getDefinitionLoc());
    });
    for (const clang::MacroInfo* mi : macros) {
      llvm::StringRef def = clang::Lexer::getSourceText(
          clang::CharSourceRange::getTokenRange(mi->getDefinitionLoc(), mi->getDefinitionEndLoc()), sm,
          pp.getLangOpts());
      *out_ += "#define ";
      *out_ += def.str();
      *out_ += '\n';
    }
  }

 private:
  std::string* out_;
};

// Empty when it could not be built (pass 1 then reads the header as text).
const std::string& builtin_macros_text() {
  static const std::string text = [] {
    std::string out;
    bool ok = false;
    run_with_crash_recovery([&] {
      ErrorCollector errors(1);
      std::string setup_error;
      CompileOptions o;
      o.shim = false;
      auto ci = make_instance("", o, Mode::kCollectMacros, errors, setup_error);
      if (!ci) return;
      CollectMacrosAction action(&out);
      ok = ci->ExecuteAction(action) && !ci->getDiagnostics().hasErrorOccurred();
    });
    return ok ? out : std::string();
  }();
  return text;
}

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

void init_nvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

// Links libclc's nvptx64 bitcode into `module` and emits PTX; returns an
// error message or "".
std::string lower_to_ptx(llvm::Module& module, std::string& ptx) {
  std::string err;
  const std::string& bc = libclc_bitcode(err);
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

// Code generation of the kernels alone: other function definitions are
// dropped on their way to CodeGen (a kernel's call to one becomes a call to
// a declaration). The count covers the kernels only, and nothing is linked
// or printed, so the result is the same; large files of helpers cost less.
class KernelsOnlyConsumer : public clang::MultiplexConsumer {
 public:
  explicit KernelsOnlyConsumer(std::unique_ptr<clang::ASTConsumer> codegen)
      : clang::MultiplexConsumer(one(std::move(codegen))) {}

  void Initialize(clang::ASTContext& ctx) override {
    ctx_ = &ctx;
    clang::MultiplexConsumer::Initialize(ctx);
  }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
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

 private:
  static std::vector<std::unique_ptr<clang::ASTConsumer>> one(std::unique_ptr<clang::ASTConsumer> c) {
    std::vector<std::unique_ptr<clang::ASTConsumer>> v;
    v.push_back(std::move(c));
    return v;
  }
  clang::ASTContext* ctx_ = nullptr;
};

class KernelsOnlyAction : public clang::EmitLLVMOnlyAction {
 public:
  explicit KernelsOnlyAction(llvm::LLVMContext* ctx) : clang::EmitLLVMOnlyAction(ctx) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef file) override {
    std::unique_ptr<clang::ASTConsumer> codegen = clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file);
    if (!codegen) return nullptr;
    return std::make_unique<KernelsOnlyConsumer>(std::move(codegen));
  }
};

CompileResult compile_unsafe(std::string_view text, const CompileOptions& opts) {
  ErrorCollector errors(opts.error_limit > 0 ? opts.error_limit : 1);
  std::string setup_error;
  auto ci = make_instance(text, opts, Mode::kCompile, errors, setup_error);
  if (!ci) return failure(category::kOtherError, setup_error);
  if (opts.check_only) {
    clang::SyntaxOnlyAction check;
    CompileResult r;
    if (!ci->ExecuteAction(check) || ci->getDiagnostics().hasErrorOccurred()) {
      set_first_error(r, std::move(errors.errors));
    } else {
      r.ok = true;
    }
    return r;
  }
  llvm::LLVMContext ctx;
  // The whole module when it is kept or lowered to PTX.
  std::unique_ptr<clang::EmitLLVMOnlyAction> action =
      opts.keep_ir || opts.to_ptx ? std::make_unique<clang::EmitLLVMOnlyAction>(&ctx)
                                  : std::make_unique<KernelsOnlyAction>(&ctx);
  bool ran = ci->ExecuteAction(*action);
  std::unique_ptr<llvm::Module> module = action->takeModule();
  CompileResult r;
  if (!ran || !module || ci->getDiagnostics().hasErrorOccurred()) {
    set_first_error(r, std::move(errors.errors));
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
    if (!run_with_crash_recovery([&] { err = lower_to_ptx(*module, ptx); })) {
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

// Pragmas that survive pass 1: OpenCL extensions and unroll hints with a
// literal count. -E leaves macros in pragma arguments unexpanded, and other
// pragmas do not change what a kernel computes.
bool keep_pragma(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line.substr(i, 7) != "#pragma") return true;
  std::string_view rest = line.substr(i + 7);
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
  if (rest.substr(0, 6) == "OPENCL") return true;
  if (rest.substr(0, 6) == "unroll") {
    std::string_view arg = rest.substr(6);
    for (char c : arg) {
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != ' ' && c != '\t') return false;
    }
    return true;
  }
  return false;
}

// -E output of the main file only: drops every line that line markers
// attribute to another file (the shim, <built-in>, <command line>).
std::string keep_main_file_lines(const std::string& pp) {
  std::string out;
  bool in_main = false;
  size_t pos = 0;
  const std::string main_marker = std::string("\"") + kMainFile + "\"";
  while (pos < pp.size()) {
    size_t nl = pp.find('\n', pos);
    if (nl == std::string::npos) nl = pp.size();
    std::string_view line(pp.data() + pos, nl - pos);
    pos = nl + 1;
    if (line.size() > 2 && line[0] == '#' && line[1] == ' ' && std::isdigit(static_cast<unsigned char>(line[2]))) {
      bool now_main = line.find(main_marker) != std::string_view::npos;
      if (now_main && in_main) out += "\n";  // a gap of skipped lines
      in_main = now_main;
      continue;
    }
    if (in_main) {
      if (!keep_pragma(line)) continue;
      out.append(line.data(), line.size());
      out += '\n';
    }
  }
  return out;
}

// Pass 1 expands the input's and the shim's macros but not those of the
// builtin headers (their names are the language's vocabulary, and the
// rewritten text is compiled with the same headers). On entering the main
// file, every macro a builtin header defined is disabled (it then prints as
// written). Disabled macros would read as 0 in #if, so a main-file #if or
// #elif that names one marks the expansion to be redone with them enabled.
class HeaderMacroGuard : public clang::PPCallbacks {
 public:
  explicit HeaderMacroGuard(clang::Preprocessor& pp) : pp_(pp) {}

  void FileChanged(clang::SourceLocation loc, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    // The main file is entered first, then the predefines (which include
    // the headers and the shim) run on top of it: act on every return to it.
    if (reason != EnterFile && reason != ExitFile) return;
    const clang::SourceManager& sm = pp_.getSourceManager();
    if (sm.getFileID(sm.getExpansionLoc(loc)) != sm.getMainFileID()) return;
    for (const auto& [ii, state] : pp_.macros()) {
      clang::MacroInfo* mi = pp_.getMacroInfo(ii);
      if (!mi || mi->isBuiltinMacro() || !mi->isEnabled()) continue;
      clang::SourceLocation def = mi->getDefinitionLoc();
      if (def.isInvalid() || sm.isWrittenInBuiltinFile(def) || sm.isWrittenInCommandLineFile(def)) continue;
      const clang::FileEntry* file = sm.getFileEntryForID(sm.getFileID(sm.getExpansionLoc(def)));
      if (!file || file->getName() == kShimFile) continue;
      mi->DisableMacro();
      disabled_.insert(ii->getName().str());
    }
  }
  void If(clang::SourceLocation loc, clang::SourceRange cond, ConditionValueKind) override {
    check(loc, cond);
  }
  void Elif(clang::SourceLocation loc, clang::SourceRange cond, ConditionValueKind,
            clang::SourceLocation) override {
    check(loc, cond);
  }

  bool conflict() const { return conflict_; }

 private:
  void check(clang::SourceLocation loc, clang::SourceRange cond) {
    if (disabled_.empty() || conflict_) return;
    const clang::SourceManager& sm = pp_.getSourceManager();
    if (!sm.isInMainFile(loc)) return;
    llvm::StringRef text = clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(cond), sm,
                                                       pp_.getLangOpts());
    size_t i = 0;
    while (i < text.size()) {
      if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
        size_t j = i;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
        if (disabled_.count(text.substr(i, j - i).str())) conflict_ = true;
        i = j;
      } else {
        ++i;
      }
    }
  }

  clang::Preprocessor& pp_;
  bool conflict_ = false;
  std::unordered_set<std::string> disabled_;
};

class ExpandAction : public clang::PreprocessorFrontendAction {
 public:
  ExpandAction(std::string* out, bool keep_header_macros, bool* conflict)
      : out_(out), keep_header_macros_(keep_header_macros), conflict_(conflict) {}

 protected:
  void ExecuteAction() override {
    clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
    HeaderMacroGuard* guard = nullptr;
    if (keep_header_macros_) {
      auto g = std::make_unique<HeaderMacroGuard>(pp);
      guard = g.get();
      pp.addPPCallbacks(std::move(g));
    }
    clang::PreprocessorOutputOptions o;
    o.ShowCPP = 1;
    o.ShowLineMarkers = 1;
    o.ShowComments = 0;
    o.ShowMacroComments = 0;
    o.ShowMacros = 0;
    o.ShowIncludeDirectives = 0;
    o.RewriteIncludes = 0;
    o.MinimizeWhitespace = 0;
    llvm::raw_string_ostream os(*out_);
    clang::DoPrintPreprocessedInput(pp, &os, o);
    os.flush();
    if (guard) *conflict_ = guard->conflict();
  }

 private:
  std::string* out_;
  bool keep_header_macros_;
  bool* conflict_;
};

// --- Renaming -------------------------------------------------------------

// One place where a renamable declaration's name is written in the input.
struct Occurrence {
  unsigned offset;
  const clang::NamedDecl* decl;  // canonical declaration
  bool function;
};

class OccurrenceVisitor : public clang::RecursiveASTVisitor<OccurrenceVisitor> {
 public:
  explicit OccurrenceVisitor(const clang::SourceManager& sm) : sm_(sm) {}

  bool VisitVarDecl(clang::VarDecl* d) {
    add(d, d->getLocation(), false);
    return true;
  }
  bool VisitFunctionDecl(clang::FunctionDecl* d) {
    add(d, d->getLocation(), true);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (auto* v = llvm::dyn_cast<clang::VarDecl>(e->getDecl())) add(v, e->getLocation(), false);
    if (auto* f = llvm::dyn_cast<clang::FunctionDecl>(e->getDecl())) add(f, e->getLocation(), true);
    return true;
  }

  std::vector<Occurrence> occurrences;
  bool in_macro = false;  // a renamable name was written inside a macro expansion

 private:
  void add(const clang::NamedDecl* d, clang::SourceLocation loc, bool function) {
    const clang::NamedDecl* canon = llvm::cast<clang::NamedDecl>(d->getCanonicalDecl());
    if (!canon->getIdentifier() || canon->getName().empty()) return;
    // Sema replaces uses of a constant sampler by its initializer, so not
    // every use can be found: samplers keep their names.
    if (auto* var = llvm::dyn_cast<clang::VarDecl>(canon); var && var->getType()->isSamplerT()) return;
    // Lazily declared OpenCL builtins are implicit and located at their use.
    if (canon->isImplicit()) return;
    clang::SourceLocation decl_loc = canon->getLocation();
    if (decl_loc.isInvalid() || !sm_.isInMainFile(sm_.getExpansionLoc(decl_loc))) return;
    if (loc.isInvalid()) return;
    if (loc.isMacroID()) {
      // An argument of a builtin header's macro (as_int(x)) is written in
      // the input: rename it there. A name inside a macro's body is not.
      if (!sm_.isMacroArgExpansion(loc)) {
        in_macro = true;
        return;
      }
      loc = sm_.getSpellingLoc(loc);
    }
    if (!sm_.isInMainFile(loc)) return;
    occurrences.push_back({sm_.getFileOffset(loc), canon, function});
  }
  const clang::SourceManager& sm_;
};

// Short OpenCL builtin functions a generated name could reach (names of
// three letters or fewer); the builtins are declared lazily, so a lookup in
// the translation unit would miss them.
const std::unordered_set<std::string>& short_builtin_names() {
  static const std::unordered_set<std::string> names = {
      "abs", "all", "any", "cos", "dot", "erf", "exp", "fma", "log", "max", "min", "mix",
      "nan", "pow", "sin", "tan", "cbrt", "ceil", "fabs", "fdim", "fmax", "fmin", "fmod",
      "sign", "sqrt", "step"};
  return names;
}

class RenameConsumer : public clang::ASTConsumer {
 public:
  RenameConsumer(clang::CompilerInstance& ci, std::string* out, std::string* error)
      : ci_(ci), out_(out), error_(error) {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ci_.getDiagnostics().hasErrorOccurred()) return;
    clang::SourceManager& sm = ctx.getSourceManager();
    OccurrenceVisitor v(sm);
    v.TraverseDecl(ctx.getTranslationUnitDecl());
    if (v.in_macro) {
      *error_ = "a name to rename is written inside a macro expansion";
      return;
    }
    std::sort(v.occurrences.begin(), v.occurrences.end(),
              [](const Occurrence& a, const Occurrence& b) { return a.offset < b.offset; });
    // A macro argument expanded twice is one occurrence in the text.
    v.occurrences.erase(std::unique(v.occurrences.begin(), v.occurrences.end(),
                                    [](const Occurrence& a, const Occurrence& b) { return a.offset == b.offset; }),
                        v.occurrences.end());
    std::set<const clang::NamedDecl*> renamed;
    std::unordered_set<unsigned> renamed_offsets;
    for (const Occurrence& o : v.occurrences) {
      renamed.insert(o.decl);
      renamed_offsets.insert(o.offset);
    }

    // Identifiers that stay as they are (fields, types, builtins, keywords,
    // labels...): a new name must not collide with any of them.
    clang::FileID main = sm.getMainFileID();
    llvm::StringRef buffer = sm.getBufferData(main);
    std::unordered_set<std::string> kept;
    {
      clang::Lexer lexer(sm.getLocForStartOfFile(main), ctx.getLangOpts(), buffer.begin(),
                         buffer.begin(), buffer.end());
      clang::Token tok;
      while (!lexer.LexFromRawLexer(tok)) {
        if (tok.is(clang::tok::raw_identifier) &&
            !renamed_offsets.count(sm.getFileOffset(tok.getLocation()))) {
          kept.insert(tok.getRawIdentifier().str());
        }
      }
      if (tok.is(clang::tok::raw_identifier) &&
          !renamed_offsets.count(sm.getFileOffset(tok.getLocation()))) {
        kept.insert(tok.getRawIdentifier().str());
      }
    }
    clang::Preprocessor& pp = ci_.getPreprocessor();
    auto usable = [&](const std::string& name) {
      if (kept.count(name) || short_builtin_names().count(name)) return false;
      clang::IdentifierInfo& ii = pp.getIdentifierTable().get(name);
      if (ii.isKeyword(ctx.getLangOpts()) || pp.isMacroDefined(&ii)) return false;
      for (const clang::NamedDecl* d : ctx.getTranslationUnitDecl()->lookup(&ii)) {
        if (!renamed.count(llvm::cast<clang::NamedDecl>(d->getCanonicalDecl()))) return false;
      }
      return true;
    };

    std::map<const clang::NamedDecl*, std::string> names;
    size_t next_var = 0, next_fn = 0;
    clang::Rewriter rw(sm, ctx.getLangOpts());
    for (const Occurrence& o : v.occurrences) {
      auto it = names.find(o.decl);
      if (it == names.end()) {
        std::string name;
        do {
          name = generated_name(o.function ? next_fn++ : next_var++, o.function);
        } while (!usable(name));
        it = names.emplace(o.decl, name).first;
      }
      clang::SourceLocation loc = sm.getLocForStartOfFile(main).getLocWithOffset(o.offset);
      rw.ReplaceText(loc, o.decl->getName().size(), it->second);
    }
    if (const clang::RewriteBuffer* b = rw.getRewriteBufferFor(main)) {
      *out_ = std::string(b->begin(), b->end());
    } else {
      *out_ = buffer.str();
    }
    done_ = true;
  }

  bool done() const { return done_; }

 private:
  clang::CompilerInstance& ci_;
  std::string* out_;
  std::string* error_;
  bool done_ = false;
};

class RenameAction : public clang::ASTFrontendAction {
 public:
  RenameAction(std::string* out, std::string* error) : out_(out), error_(error) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    return std::make_unique<RenameConsumer>(ci, out_, error_);
  }

 private:
  std::string* out_;
  std::string* error_;
};

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
  auto attempt = [&](bool shim) {
    CompileOptions o = options;
    o.shim = shim;
    CompileResult result;
    if (!run_with_crash_recovery([&] { result = compile_unsafe(text, o); })) {
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
    return attempt(true);
  }
  return plain;
}

Expected<std::string> expand_main_file(std::string_view text, const CompileOptions& options) {
  std::string out, setup_error, first_error;
  bool ok = false;
  bool safe = run_with_crash_recovery([&] {
    // First with the builtin headers' macros kept as written; again with
    // them expanded when an #if of the input tests one.
    for (bool keep : {true, false}) {
      ErrorCollector errors(1);
      auto ci = make_instance(text, options, Mode::kExpand, errors, setup_error);
      if (!ci) return;
      std::string pp;
      bool conflict = false;
      ExpandAction action(&pp, keep, &conflict);
      if (!ci->ExecuteAction(action) || ci->getDiagnostics().hasErrorOccurred()) {
        first_error = errors.errors.empty() ? "preprocessing failed" : errors.errors.front().message;
        return;
      }
      if (conflict) continue;
      out = keep_main_file_lines(pp);
      ok = true;
      return;
    }
  });
  if (!safe) return internal_error("expanding macros: Clang crashed");
  if (!setup_error.empty()) return internal_error("expanding macros: " + setup_error);
  if (!ok) return parse_error("expanding macros: " + first_error);
  return out;
}

Expected<std::string> rename_identifiers(std::string_view text, const CompileOptions& options) {
  std::string out, setup_error, error;
  bool ok = false;
  bool safe = run_with_crash_recovery([&] {
    ErrorCollector errors(1);
    auto ci = make_instance(text, options, Mode::kSyntax, errors, setup_error);
    if (!ci) return;
    RenameAction action(&out, &error);
    bool ran = ci->ExecuteAction(action);
    if (!ran || ci->getDiagnostics().hasErrorOccurred()) {
      if (error.empty()) {
        error = errors.errors.empty() ? "parsing failed" : errors.errors.front().message;
      }
      return;
    }
    ok = error.empty();
  });
  if (!safe) return internal_error("renaming identifiers: Clang crashed");
  if (!setup_error.empty()) return internal_error("renaming identifiers: " + setup_error);
  if (!ok) return parse_error("renaming identifiers: " + error);
  return out;
}

}  // namespace clgen::preprocess
