// make_instance: the in-memory Clang set-up, with the builtin header's PCH and macro list.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/InMemoryModuleCache.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/preprocess.h"
#include "support/clang/builtin_files.h"
#include "support/clang/crash_recovery.h"
#include "support/clang/invocation.h"
#include "support/utf8.h"

namespace clgen::preprocess {
namespace {

using internal::ErrorCollector;
using internal::make_instance;
using internal::Mode;

constexpr const char* kPchFile = "/clgen/builtins.pch";
constexpr const char* kPchSource = "/clgen/builtins.h";  // the PCH's (empty) main file
constexpr const char* kMacrosFile = "/clgen/builtin-macros.h";

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
// One PCH per language mode: OpenCL C 1.2 with the target's defaults, and
// the OpenCL C 2.0 fallback with its extensions (a PCH must match the
// language options of the compile that reads it; without one, every 2.0
// compile parsed the header as text, and the fallback cost more than half of
// the snapshot's preprocessing CPU time).
const std::string& builtins_pch(bool opencl20) {
  auto build = [](bool cl20) {
    std::string out;
    clang_support::run_with_crash_recovery([&] {
      ErrorCollector errors(1);
      std::string setup_error;
      CompileOptions o;
      o.shim = false;
      o.opencl20 = cl20;
      auto ci = make_instance("", o, Mode::kBuildPch, errors, setup_error);
      if (!ci) return;
      auto buffer = std::make_shared<clang::PCHBuffer>();
      BuildPchAction action(buffer);
      if (!ci->ExecuteAction(action) || ci->getDiagnostics().hasErrorOccurred()) return;
      if (!buffer->IsComplete) return;
      out.assign(buffer->Data.begin(), buffer->Data.end());
    });
    return out;
  };
  if (opencl20) {
    static const std::string pch20 = build(true);
    return pch20;
  }
  static const std::string pch12 = build(false);
  return pch12;
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
    clang_support::run_with_crash_recovery([&] {
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

}  // namespace

std::unique_ptr<clang::CompilerInstance> internal::make_instance(std::string_view text, const CompileOptions& opts,
                                                                 Mode mode, ErrorCollector& errors,
                                                                 std::string& setup_error) {
  // Every pass's guard (compile() rejects such input first, by category).
  if (std::string why = clang_input_problem(text); !why.empty()) {
    setup_error = why;
    return nullptr;
  }
  // The PCH records its own main file, which must not be the input's name.
  const char* main_file = mode == Mode::kBuildPch ? kPchSource : kMainFile;
  auto fs = clang_support::in_memory_files(main_file, text);
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
    setup_error = clang_support::add_headers(
        *fs, opts.header == BuiltinHeader::kClang ? clang_support::clang_headers() : clang_support::libclc_headers());
    if (!setup_error.empty()) return nullptr;
  }

  // Clang's builtin header, precompiled once per process (see builtins_pch).
  const std::string* pch = nullptr;
  // (Not in strict mode: -fgnu89-inline below is a language option the PCH
  // would have to match.)
  if ((mode == Mode::kCompile || mode == Mode::kSyntax) && opts.header == BuiltinHeader::kClang &&
      !(opts.to_ptx && mode == Mode::kCompile) && !builtins_pch(opts.opencl20).empty()) {
    pch = &builtins_pch(opts.opencl20);
    fs->addFile(kPchFile, 0, llvm::MemoryBuffer::getMemBuffer(*pch, kPchFile, false));
    fs->addFile(kPchSource, 0, llvm::MemoryBuffer::getMemBuffer("", kPchSource));
  }

  std::string error_limit = std::to_string(std::max(1, opts.error_limit));
  std::vector<std::string> args = {"-triple", kTriple, "-x", mode == Mode::kBuildPch ? "cl-header" : "cl"};
  for (std::string& a :
       clang_support::opencl_args(opts.opencl20 ? clang_support::OpenClStd::kCL20 : clang_support::OpenClStd::kCL12,
                                  clang_support::ArgStyle::kCc1, builtins && opts.header == BuiltinHeader::kClang))
    args.push_back(std::move(a));
  for (const char* a :
       {"-w", "-fno-spell-checking", "-ferror-limit", error_limit.c_str(), "-O0", "-fno-caret-diagnostics"})
    args.push_back(a);
  if (builtins && opts.header == BuiltinHeader::kLibclc) {
    args.push_back("-isystem");
    args.push_back(clang_support::libclc_include_dir());
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
  // Parsing the arguments into an invocation was about a sixth of a small
  // compile's fixed cost, and every instance of a mode and options has the
  // same arguments: each thread parses a set once and copies the result
  // (a deep copy; the instance may change its copy).
  thread_local std::map<std::string, std::shared_ptr<const clang::CompilerInvocation>> parsed;
  std::string key;
  for (const std::string& a : args) key.append(a).push_back('\0');
  key.push_back(static_cast<char>('0' + static_cast<int>(mode)));
  auto known = parsed.find(key);
  if (known == parsed.end()) {
    auto invocation = std::make_shared<clang::CompilerInvocation>();
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, ci->getDiagnostics())) {
      setup_error = "invalid compiler arguments";
      return nullptr;
    }
    invocation->getFrontendOpts().DisableFree = false;
    if (mode == Mode::kBuildPch) {
      invocation->getFrontendOpts().ProgramAction = clang::frontend::GeneratePCH;
      invocation->getLangOpts()->CompilingPCH = true;
    }
    known = parsed.emplace(std::move(key), std::move(invocation)).first;
  }
  ci->setInvocation(std::make_shared<clang::CompilerInvocation>(*known->second));
  ci->createFileManager(fs);
  return ci;
}

}  // namespace clgen::preprocess
