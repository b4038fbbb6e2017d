// Public API of the preprocessor: the in-process Clang rejection filter
// (compile), the normalizing rewriter (rewrite) and its passes. Free of Clang
// and LLVM types; every function is safe to call from many threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::preprocess {

// Which declarations of the OpenCL builtins the compiler sees.
enum class BuiltinHeader {
  kClang,   // Clang's own (-finclude-default-header -fdeclare-opencl-builtins)
  kLibclc,  // libclc's clc/clc.h
};

struct CompileOptions {
  BuiltinHeader header = BuiltinHeader::kClang;  // measured better: see docs/PREPROCESS.md
  // Fall back to including shim/shim.h when the input fails without it for a
  // missing name (so the shim can rescue files but never break one).
  bool shim = true;
  // rewrite/rewrite_kernels: when the input still fails for missing names,
  // infer a definition for each (names.h: infer_missing_names) and rewrite
  // the input with them; the result records what was defined. compile()
  // itself never infers.
  bool infer_names = true;
  // Compile as OpenCL C 2.0 with the common optional extensions enabled
  // (fp16, fp64, 3-D image writes, sub-groups, 64-bit atomics) instead of
  // OpenCL C 1.2 with the target's defaults (its own precompiled header).
  bool opencl20 = false;
  // rewrite/rewrite_kernels: an input rejected as OpenCL C 1.2 for a reason
  // that names OpenCL C 2.0 or extension features (its atomics, sub-groups,
  // half, ...) is tried again as OpenCL C 2.0; the result says which it is.
  bool opencl20_fallback = true;
  bool to_ptx = false;      // strict: also link libclc's nvptx64 bitcode and emit PTX
  bool keep_ir = false;     // fill CompileResult::ir (and ::ptx with to_ptx)
  int min_instructions = 3;  // fewer instructions in the kernels: rejected
  // Parse and check only, no code generation: `ok` means "compiles"; no
  // kernels, instruction count, IR or PTX (and no no_kernel or
  // too_few_instructions verdicts).
  bool check_only = false;
  // With code generation: a text that calls (or takes the address of) a
  // function it declares but never defines is rejected as
  // category::kUndefinedFunction. Builtins and what headers declare are not
  // its own to define.
  bool require_definitions = true;
  // 0 = stop at the first error (fast); otherwise report up to this many errors
  // in CompileResult::errors (shim inference wants them all).
  int error_limit = 0;
};

// Rejection categories (the `category` column of the `preprocessed` table).
namespace category {
inline constexpr const char* kNoKernel = "no_kernel";
inline constexpr const char* kUndeclaredIdentifier = "undeclared_identifier";
inline constexpr const char* kUnknownTypeName = "unknown_type_name";
inline constexpr const char* kImplicitFunction = "implicit_function_declaration";
inline constexpr const char* kIncludeNotFound = "include_not_found";
inline constexpr const char* kParseError = "parse_error";          // other syntax errors
inline constexpr const char* kSemanticError = "semantic_error";    // other type/semantic errors
inline constexpr const char* kPreprocessorError = "preprocessor_error";  // other #-errors
inline constexpr const char* kOtherError = "compile_error";
inline constexpr const char* kTooFewInstructions = "too_few_instructions";
// It calls a function it declares but never defines (CompileOptions::
// require_definitions): it compiles, but cannot link.
inline constexpr const char* kUndefinedFunction = "undefined_function";
inline constexpr const char* kClangCrash = "clang_crash";
inline constexpr const char* kPtxError = "ptx_error";  // only with to_ptx
inline constexpr const char* kInputTooLarge = "input_too_large";
inline constexpr const char* kInvalidUtf8 = "invalid_utf8";  // never handed to Clang
// A byte above 0x7F outside comments and literals (corpus::first_non_ascii_code):
// never handed to Clang either.
inline constexpr const char* kNonAsciiCode = "non_ascii_code";
// The input exceeded the preprocessor's budget (budget.h): its worker was
// killed at the wall-clock limit, or ran out of its memory limit.
inline constexpr const char* kTimeLimit = "time_limit";
inline constexpr const char* kMemoryLimit = "memory_limit";
}  // namespace category

// One compile error, as Clang reported it.
struct CompileError {
  std::string category;  // one of category::k*
  std::string message;   // "input.cl:3:5: use of undeclared identifier 'N'"
  std::string name;      // the identifier named by undeclared/unknown-type errors, else ""
  int64_t offset = -1;   // byte offset in the input text, -1 when not in the input
};

struct CompileResult {
  bool ok = false;
  bool used_shim = false;  // the result is from the retry with the shim
  std::string category;  // empty when ok
  std::string reason;    // the first error message (or why the input was rejected)
  std::vector<std::string> kernels;  // kernel function names, in source order
  int64_t instruction_count = 0;     // LLVM instructions in the kernel functions (-O0, then mem2reg + ADCE)
  std::vector<CompileError> errors;  // every error seen (at most error_limit, or 1)
  std::string ir;                    // textual LLVM IR, with keep_ir
  std::string ptx;                   // PTX, with to_ptx and keep_ir
};

// Compiles `text` as OpenCL C 1.2 for nvptx64-nvidia-nvcl in memory (no file
// outside an in-memory file system is read; #include of anything but the
// builtin headers fails) and classifies it. Never throws; a Clang crash is
// caught and reported as category::kClangCrash.
CompileResult compile(std::string_view text, const CompileOptions& options = {});

// --- The rewriter: small passes, each usable alone -------------------------

// Pass 1: expands macros, drops comments and resolves #if in the input only;
// the shim's text never appears. Fails when the input does not preprocess.
Expected<std::string> expand_main_file(std::string_view text, const CompileOptions& options = {});

// Pass 2: spells OpenCL's alias keywords the canonical way: kernel, global,
// local, constant, private, read_only, write_only, read_write become
// __kernel, __global, ... Works on tokens (Clang's raw lexer): string and
// character literals, comments and directive lines stay as written. Expects
// text without macros of its own (the output of pass 1).
std::string canonicalize_qualifiers(std::string_view text);

// Pass 3: renames variables and parameters to a, b, ..., z, aa, ab, ... and
// user functions to A, B, ..., AA, ... in order of first appearance; built-ins,
// keywords and names the shim or headers declare are kept. Expects text
// without macros of its own (the output of pass 1). Fails when the text does
// not compile.
Expected<std::string> rename_identifiers(std::string_view text, const CompileOptions& options = {});

// Pass 4: clang-format (Google style, 2-space indent, pointers left, no short
// blocks or functions on one line, very wide column limit, so every kernel
// prototype is on one line). Fails when clang-format reports an error.
Expected<std::string> format_source(std::string_view text);

// --- Kernel extraction -----------------------------------------------------

// One kernel and exactly what it reaches.
struct ExtractedKernel {
  std::string name;  // the kernel function's name as written
  std::string text;  // see extract_kernels
};

// For every __kernel function definition of `text`, in source order: a text
// holding the input's top-level #pragma lines and, in source order, only the
// top-level declarations the kernel reaches transitively (the kernel itself,
// called functions with their prototypes, struct/union/enum/typedef types
// named anywhere in reached code, file-scope variables and enum constants
// referred to), each as its full source text (with its trailing `;`; a
// declaration of several names is one piece). Other kernels and unused
// declarations are dropped. Expects text without macros of its own (the
// output of pass 1). Parses without the shim first, with it (when
// options.shim) only when that fails. Fails when the text does not parse;
// an empty vector when it has no kernel.
Expected<std::vector<ExtractedKernel>> extract_kernels(std::string_view text,
                                                       const CompileOptions& options = {});

enum class RewriteStatus { kOk, kRejected, kRewriteBug };
const char* rewrite_status_name(RewriteStatus status);  // "ok" | "rejected" | "rewrite_bug"

struct RewriteResult {
  RewriteStatus status = RewriteStatus::kRejected;
  std::string category;  // rejection category, or the failing pass for kRewriteBug
  std::string reason;
  std::string text;      // the normalized text when kOk
  std::vector<std::string> kernels;  // of the normalized text
  int64_t instruction_count = 0;
  std::string kernel_name;  // rewrite_kernels: the kernel's name in the input (before renaming)
  std::string inferred;     // `#define` lines inferred for the input's missing names; '' when none
  bool opencl20 = false;    // compiles only as OpenCL C 2.0 (CompileOptions::opencl20_fallback)
};

// The whole filter + rewriter: check that the input compiles (reject),
// expand, canonicalize qualifiers, rename, format, and compile the result (no kernel or too few
// instructions: kRejected; any other failure is kRewriteBug, never kOk).
// rewrite(rewrite(x).text).text == rewrite(x).text.
RewriteResult rewrite(std::string_view text, const CompileOptions& options = {});

struct FileRewriteResult {
  // kOk: the file compiles and has kernels (each kernel has its own status);
  // kRejected: the file does not compile (its first error) or has no kernel;
  // kRewriteBug: it compiles but expanding or extracting failed.
  RewriteStatus status = RewriteStatus::kRejected;
  std::string category;
  std::string reason;
  std::vector<RewriteResult> kernels;  // one per kernel, in source order, when kOk
  std::string inferred;                // `#define` lines inferred for the file's missing names; '' when none
  bool opencl20 = false;               // compiles only as OpenCL C 2.0 (CompileOptions::opencl20_fallback)
};

// rewrite() per kernel: the file is checked once as rewrite() checks it
// (with the same shim retry), expanded, split by extract_kernels, and every
// kernel's text goes through the rest of the pipeline (qualifiers, rename,
// format, compile) and is classified as rewrite() classifies. A kernel whose
// extracted text does not compile alone is kRewriteBug with category
// "extract". For an ok kernel k, rewrite(k.text).text == k.text.
FileRewriteResult rewrite_kernels(std::string_view text, const CompileOptions& options = {});

// The shim header's text, embedded in the library at build time.
std::string_view shim_text();

// Identifies the rewriter's behaviour for `options`: changes whenever the
// passes, the shim or the header choice change, so stored results keyed by it
// are recomputed. E.g. "3-clang-shim-1a2b3c4d".
std::string preprocessor_version(const CompileOptions& options = {});

// Largest input accepted (bytes); larger inputs are rejected unread.
inline constexpr size_t kMaxInputBytes = 2 << 20;

}  // namespace clgen::preprocess
