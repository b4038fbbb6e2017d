// The rewriter pipeline (expand, canonicalize qualifiers, rename, format,
// compile again), its per-kernel form and the preprocessor's version key.
#include <cctype>
#include <optional>

#include "corpus/inliner.h"
#include "corpus/preprocess/names.h"
#include "corpus/preprocess/pass_times.h"
#include "corpus/preprocess/preprocess.h"
#include "support/log.h"
#include "support/sha256.h"
#include "support/utf8.h"

namespace clgen::preprocess {

// Bump when a pass changes its output, so stored results are recomputed.
// 3: alias keywords (kernel, global, ...) spelled __kernel, __global, ...
// 4: the corpus is stored per kernel (extract_kernels), each with what it reaches
// 5: names in an unknown attribute's arguments renamed; inputs up to 2 MiB
// 6: __OPENCL_VERSION__ defined (support/clang/invocation.cpp); missing fragments rejected per kernel
// 7: generated names skip words only C++ reserves (`or`: generated_names.h)
// 8: texts that call functions they never define are rejected (undefined_function)
constexpr const char* kPassesVersion = "8";

const char* rewrite_status_name(RewriteStatus status) {
  switch (status) {
    case RewriteStatus::kOk: return "ok";
    case RewriteStatus::kRejected: return "rejected";
    case RewriteStatus::kRewriteBug: return "rewrite_bug";
  }
  return "?";
}

std::string preprocessor_version(const CompileOptions& options) {
  std::string v = kPassesVersion;
  v += options.header == BuiltinHeader::kClang ? "-clang" : "-libclc";
  v += options.shim ? "-shim-" + sha256_hex(shim_text()).substr(0, 8) : "-noshim";
  if (options.to_ptx) v += "-ptx";
  if (options.min_instructions != 3) v += "-min" + std::to_string(options.min_instructions);
  if (!options.require_definitions) v += "-nodefs";
  // 2: host macros (host_macros.h); 3: image macro families; 4: work-group sizes, byte-order marks
  if (options.infer_names) v += "-infer4";
  if (options.opencl20) v += "-cl20";
  else if (options.opencl20_fallback) v += "-cl20fallback";
  return v;
}

namespace {

// A result of either entry point that carries only its verdict: a rejection
// or a rewrite bug, with its category and reason.
template <typename Result>
Result verdict(RewriteStatus status, std::string category, std::string reason) {
  Result r;
  r.status = status;
  r.category = std::move(category);
  r.reason = std::move(reason);
  return r;
}

// The rejection that the failed compile `c` stands for.
template <typename Result>
Result rejection(const CompileResult& c) {
  return verdict<Result>(RewriteStatus::kRejected, c.category, c.reason);
}

// A rewrite bug: `pass` failed with `st`.
template <typename Result = RewriteResult>
Result bug(const char* pass, const Status& st) {
  return verdict<Result>(RewriteStatus::kRewriteBug, pass, st.message());
}

// The file a missing fragment's statement in `text` names (corpus::
// kMissingFragment, written by the include inliner), or nothing.
std::optional<std::string> missing_fragment(std::string_view text) {
  const std::string_view mark = corpus::kMissingFragment;
  size_t at = text.find(mark);
  if (at == std::string_view::npos) return std::nullopt;
  size_t begin = at + mark.size() + 1, end = text.find('"', begin);
  return std::string(text.substr(begin, end == std::string_view::npos ? 0 : end - begin));
}

RewriteResult missing_fragment_rejection(const std::string& name) {
  return verdict<RewriteResult>(RewriteStatus::kRejected, category::kIncludeNotFound,
                                "its code includes a file the corpus lacks: " + name);
}

// Pass 1, timed as "expand".
Expected<std::string> timed_expand(std::string_view text, const CompileOptions& opts) {
  PassTimer timer("expand");
  return expand_main_file(text, opts);
}

// Passes 1 to 3; `failed` names the pass that failed. Pass 3 parses the
// output of pass 2 in full, so a qualifier that pass 2 broke fails there.
Expected<std::string> expand_and_rename(std::string_view text, const CompileOptions& opts, const char*& failed) {
  failed = "expand";
  Expected<std::string> expanded = timed_expand(text, opts);
  if (!expanded) return expanded.status();
  failed = "rename";
  PassTimer timer("rename");
  return rename_identifiers(canonicalize_qualifiers(*expanded), opts);
}

// Passes 4 and 5 over renamed text: format, compile (code generation) and
// classify (no kernel, too few instructions, an undefined function, PTX
// failure: rejected; any other failure: a rewrite bug). An undefined
// function is named as renamed.
RewriteResult finish(const std::string& renamed, const CompileOptions& opts) {
  Expected<std::string> formatted = [&] {
    PassTimer timer("format");
    return format_source(renamed);
  }();
  if (!formatted) return bug("format", formatted.status());
  CompileResult again = [&] {
    PassTimer timer("final_compile");
    return compile(*formatted, opts);
  }();
  // An input within the size limit whose macros expand it past the limit is
  // rejected for its size, not a rewrite bug.
  if (!again.ok && (again.category == category::kNoKernel || again.category == category::kTooFewInstructions ||
                    again.category == category::kUndefinedFunction || again.category == category::kPtxError ||
                    again.category == category::kInputTooLarge)) {
    RewriteResult r = rejection<RewriteResult>(again);
    if (again.category == category::kUndefinedFunction) r.reason += " (as renamed)";
    return r;
  }
  if (!again.ok) {
    return bug("recompile",
               parse_error("the rewritten text does not compile: [" + again.category + "] " + again.reason));
  }
  RewriteResult r;
  r.status = RewriteStatus::kOk;
  r.text = std::move(*formatted);
  r.kernels = std::move(again.kernels);
  r.instruction_count = again.instruction_count;
  return r;
}

// The options of the passes (no IR kept, first error only) and of the check
// that tells a rejected input from a rewrite bug (parse and check only).
struct RewriteOptions {
  CompileOptions passes, check;
  explicit RewriteOptions(const CompileOptions& options) : passes(options) {
    passes.keep_ir = false;
    passes.error_limit = 0;
    check = passes;
    check.check_only = true;
    check.to_ptx = false;
  }
};

// The check of an input whose pass failed. Its verdict, category and reason
// are the input's first error at any error limit (Clang reports errors in
// order, and the limit only stops it after the first); a limit of 1 stops
// the parse there. When the pass failed for a missing name and inference is
// on, the check runs as inference's first round (50 errors), which
// inferred_for then takes instead of compiling the same text again.
struct Check {
  CompileResult result;                      // as compile(text, check) gives it
  std::optional<CompileResult> first_round;  // compile(text, inference_check_options(check)), when done
};
Check check_input(std::string_view text, const Status& pass_failure, const CompileOptions& options,
                  const CompileOptions& check) {
  const std::string& why = pass_failure.message();
  PassTimer timer("check");
  Check c;
  if (options.infer_names &&
      (why.find("unknown type name") != std::string::npos || why.find("undeclared identifier") != std::string::npos)) {
    c.first_round = compile(text, inference_check_options(check));
    // A crash may come after the first error, which a limit of 1 stops at.
    if (c.first_round->category != category::kClangCrash) {
      c.result = *c.first_round;
      return c;
    }
  }
  c.result = compile(text, check);
  return c;
}

// The definitions that make a rejected input compile, when its rejection is
// for a missing name and options allow inference; nothing otherwise.
std::optional<InferredNames> inferred_for(std::string_view text, const Check& rejected, const CompileOptions& options) {
  const CompileResult& rejection = rejected.result;
  if (!options.infer_names) return std::nullopt;
  if (rejection.category != category::kUndeclaredIdentifier && rejection.category != category::kUnknownTypeName) {
    return std::nullopt;
  }
  PassTimer timer("inference");
  Expected<InferredNames> names =
      infer_missing_names(text, options, 8, rejected.first_round ? &*rejected.first_round : nullptr);
  if (!names) {
    spdlog::debug("no inferred definitions: {}", names.status().message());
    return std::nullopt;
  }
  return std::move(*names);
}

// True when a rejection as OpenCL C 1.2 names something of OpenCL C 2.0 or
// of an optional extension (its atomics, work-item and sub-group functions,
// half precision, the generic address space, ...): only then is the whole
// pipeline run a second time, as OpenCL C 2.0.
bool may_need_opencl20(const CompileResult& rejection, const CompileOptions& options) {
  if (!options.opencl20_fallback || options.opencl20) return false;
  static const char* const kHints[] = {
      "atomic_",  "memory_order", "memory_scope", "linear_id",    "enqueue",          "sub_group",  "work_group_",
      "half",     "cl_khr_",      "generic",      "is ambiguous", "opencl c version", "pipe",       "to_global",
      "to_local", "to_private",   "ndrange",      "clk_event",    "queue_t",          "reserve_id", "double"};
  std::string reason = rejection.reason;
  for (char& c : reason) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* hint : kHints) {
    if (reason.find(hint) != std::string::npos) return true;
  }
  return false;
}

void mark_inferred(RewriteResult& r, const std::string& prelude) { r.inferred = prelude; }
void mark_inferred(FileRewriteResult& r, const std::string& prelude) {
  r.inferred = prelude;
  for (RewriteResult& k : r.kernels) k.inferred = prelude;
}
void mark_opencl20(RewriteResult& r) { r.opencl20 = true; }
void mark_opencl20(FileRewriteResult& r) {
  r.opencl20 = true;
  for (RewriteResult& k : r.kernels) k.opencl20 = true;
}

// The verdict on an input rejected for `checked`: `pass` (rewrite or
// rewrite_kernels) again over the input with inferred definitions of its
// missing names, or else as OpenCL C 2.0, when either applies and gets past
// the rejection; otherwise the rejection.
template <typename Result, typename Pass>
Result rejected_input(std::string_view text, const Check& checked, const CompileOptions& options,
                      const CompileOptions& check, Pass pass) {
  const CompileResult& first = checked.result;
  if (auto names = inferred_for(text, checked, check)) {
    CompileOptions again = options;
    again.infer_names = false;
    PassTimer span("(span) after inference", true);
    Result with = pass(names->prelude + std::string(text), again);
    if (with.status == RewriteStatus::kRejected && with.category == first.category) return rejection<Result>(first);
    mark_inferred(with, names->prelude);
    return with;
  }
  if (may_need_opencl20(first, options)) {
    CompileOptions cl20 = options;
    cl20.opencl20 = true;
    PassTimer span("(span) as OpenCL C 2.0", true);
    Result with = pass(text, cl20);
    if (with.status == RewriteStatus::kRejected) return rejection<Result>(first);
    mark_opencl20(with);
    return with;
  }
  return rejection<Result>(first);
}

// What both entry points do first: `timer_name`'s timer takes what the
// passes' own timers leave, the input loses its byte-order mark (inference
// puts its definitions before the text), and an input over the size limit
// is rejected for its compile's first error; `rest` rewrites any other.
template <typename Result, typename Rest>
Result rewrite_entry(const char* timer_name, std::string_view text, const CompileOptions& options, Rest rest) {
  PassTimer timer(timer_name);
  text = without_byte_order_mark(text);
  const RewriteOptions ro(options);
  if (text.size() > kMaxInputBytes) return rejection<Result>(compile(text, ro.check));
  return rest(text, options, ro);
}

// rewrite() of an input within the size limit.
RewriteResult rewrite_within_limit(std::string_view text, const CompileOptions& options, const RewriteOptions& ro) {
  if (auto name = missing_fragment(text)) return missing_fragment_rejection(*name);
  // The rename pass parses the expanded input in full, which is the check
  // the input needs: the input itself is compiled only when a pass fails,
  // to tell a rejected input (its own first error) from a rewrite bug, and
  // to learn whether the shim rescues it (the passes then run again with
  // the shim). Code is generated once, for the result (the passes preserve
  // what the kernels compute, so its instruction count and kernels are the
  // input's).
  CompileOptions pass_opts = ro.passes;
  pass_opts.shim = false;
  const char* failed = "";
  Expected<std::string> renamed = expand_and_rename(text, pass_opts, failed);
  if (!renamed) {
    const Check checked = check_input(text, renamed.status(), options, ro.check);
    if (!checked.result.ok) {
      auto pass = [](std::string_view t, const CompileOptions& o) { return rewrite(t, o); };
      return rejected_input<RewriteResult>(text, checked, options, ro.check, pass);
    }
    if (!checked.result.used_shim) return bug(failed, renamed.status());
    pass_opts.shim = true;
    renamed = expand_and_rename(text, pass_opts, failed);
    if (!renamed) return bug(failed, renamed.status());
  }
  return finish(*renamed, ro.passes);
}

// Pass 1 and the split into kernels; `failed` names the pass that failed,
// `expanded_bytes` the size of a successful expansion.
Expected<std::vector<ExtractedKernel>> expand_and_extract(std::string_view text, const CompileOptions& opts,
                                                          const char*& failed, size_t& expanded_bytes) {
  failed = "expand";
  Expected<std::string> expanded = timed_expand(text, opts);
  if (!expanded) return expanded.status();
  failed = "extract";
  expanded_bytes = expanded->size();
  PassTimer timer("extract");
  return extract_kernels(*expanded, opts);
}

// Macros can expand an input within the limit past it (sgminer's hash
// rounds): a rejection of the input, not a rewrite bug.
FileRewriteResult expanded_too_large(size_t expanded_bytes) {
  return verdict<FileRewriteResult>(RewriteStatus::kRejected, category::kInputTooLarge,
                                    "its macros expand it to " + std::to_string(expanded_bytes) +
                                        " bytes, beyond the limit of " + std::to_string(kMaxInputBytes));
}

// The verdict on a file without kernels: the input's own first error, when
// it has one that the expanded text lost (a `#line` directive hides the
// input's lines from pass 1), else no kernel. `checked`: the input's check,
// when it was compiled already.
FileRewriteResult no_kernel(std::string_view text, const std::optional<Check>& checked, const CompileOptions& check) {
  std::optional<CompileResult> own;
  if (!checked) {
    PassTimer timer("check");
    own = compile(text, check);
  }
  const CompileResult& first = checked ? checked->result : *own;
  if (!first.ok) return rejection<FileRewriteResult>(first);
  return verdict<FileRewriteResult>(RewriteStatus::kRejected, category::kNoKernel, "no kernel function");
}

// One extracted kernel through the rest of the pipeline (qualifiers, rename,
// format, compile), classified as rewrite() classifies.
RewriteResult rewrite_extracted(ExtractedKernel& k, const CompileOptions& pass_opts, const RewriteOptions& ro) {
  RewriteResult one;
  if (auto name = missing_fragment(k.text)) {
    one = missing_fragment_rejection(*name);
  } else {
    Expected<std::string> renamed = [&] {
      PassTimer timer("rename");
      return rename_identifiers(canonicalize_qualifiers(k.text), pass_opts);
    }();
    if (!renamed) {
      // The extracted text itself may be what fails.
      PassTimer timer("check");
      CompileResult alone = compile(k.text, ro.check);
      one = alone.ok
                ? bug("rename", renamed.status())
                : bug("extract",
                      parse_error("the extracted kernel does not compile: [" + alone.category + "] " + alone.reason));
    } else {
      one = finish(*renamed, ro.passes);
    }
  }
  one.kernel_name = std::move(k.name);
  return one;
}

// rewrite_kernels() of an input within the size limit.
FileRewriteResult rewrite_kernels_within_limit(std::string_view text, const CompileOptions& options,
                                               const RewriteOptions& ro) {
  // As in rewrite(): extraction parses the expanded input in full, which is
  // the file's check; the input is compiled only when that fails.
  CompileOptions pass_opts = ro.passes;
  pass_opts.shim = false;
  const char* failed = "";
  size_t expanded_bytes = 0;
  Expected<std::vector<ExtractedKernel>> kernels = expand_and_extract(text, pass_opts, failed, expanded_bytes);
  std::optional<Check> checked;  // the input's check, once compiled
  if (!kernels) {
    checked = check_input(text, kernels.status(), options, ro.check);
    if (!checked->result.ok) {
      auto pass = [](std::string_view t, const CompileOptions& o) { return rewrite_kernels(t, o); };
      return rejected_input<FileRewriteResult>(text, *checked, options, ro.check, pass);
    }
    if (expanded_bytes > kMaxInputBytes) return expanded_too_large(expanded_bytes);
    if (!checked->result.used_shim) return bug<FileRewriteResult>(failed, kernels.status());
    pass_opts.shim = true;
    kernels = expand_and_extract(text, pass_opts, failed, expanded_bytes);
    if (!kernels) {
      return expanded_bytes > kMaxInputBytes ? expanded_too_large(expanded_bytes)
                                             : bug<FileRewriteResult>(failed, kernels.status());
    }
  }
  if (kernels->empty()) return no_kernel(text, checked, ro.check);
  FileRewriteResult r;
  r.status = RewriteStatus::kOk;
  for (ExtractedKernel& k : *kernels) r.kernels.push_back(rewrite_extracted(k, pass_opts, ro));
  return r;
}

}  // namespace

RewriteResult rewrite(std::string_view text, const CompileOptions& options) {
  return rewrite_entry<RewriteResult>("rewrite (rest)", text, options, rewrite_within_limit);
}

FileRewriteResult rewrite_kernels(std::string_view text, const CompileOptions& options) {
  return rewrite_entry<FileRewriteResult>("rewrite_kernels (rest)", text, options, rewrite_kernels_within_limit);
}

}  // namespace clgen::preprocess
