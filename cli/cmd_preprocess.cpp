// `clgen preprocess FILE... [--check] [--kernels] [--usefulness] [-I DIR] [-D NAME=VALUE]`: the
// corpus filter + rewriter on files (their includes inlined), whole or one kernel at a time.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/preprocess.h"
#include "corpus/preprocess/usefulness.h"
#include "support/files.h"

namespace clgen::cli {
namespace {

struct PreprocessOptions {
  std::vector<std::string> files;
  bool check = false;  // print only the verdict
  bool kernels = false;  // rewrite_kernels: one normalized text per kernel
  bool usefulness = false;  // print the static usefulness verdict of the normalized text
  CompileFlags flags;
  SourceFlags source;
  BudgetFlags budget;
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// " with inferred NAME, NAME" for the names of `#define` lines, or "".
std::string inferred_note(const std::string& prelude) {
  std::vector<std::string> names;
  size_t pos = 0;
  while ((pos = prelude.find("#define ", pos)) != std::string::npos) {
    pos += 8;
    size_t end = prelude.find_first_of(" (\n", pos);
    names.push_back(prelude.substr(pos, end - pos));
  }
  return names.empty() ? "" : " with inferred " + join(names);
}

// One file through rewrite_kernels: a "// FILE: KERNEL" line and the text of
// every ok kernel (the verdict with --check), the verdict of the others.
// Returns false when the file is rejected; fails when no Clang worker starts.
Expected<bool> print_kernels(const std::string& path, const std::string& text, const PreprocessOptions& opts,
                             const preprocess::CompileOptions& options, preprocess::ClangWorkers& workers) {
  ASSIGN_OR_RETURN(preprocess::FileRewriteResult f, workers.rewrite_kernels(text, options));
  if (f.status != preprocess::RewriteStatus::kOk) {
    std::printf("%s: %s [%s] %s\n", path.c_str(), preprocess::rewrite_status_name(f.status),
                f.category.c_str(), f.reason.c_str());
    return false;
  }
  if (!f.inferred.empty() || f.opencl20) {
    std::printf("// %s:%s%s\n", path.c_str(), f.opencl20 ? " as OpenCL C 2.0" : "", inferred_note(f.inferred).c_str());
  }
  for (const preprocess::RewriteResult& k : f.kernels) {
    if (k.status != preprocess::RewriteStatus::kOk) {
      std::printf("// %s: %s: %s [%s] %s\n", path.c_str(), k.kernel_name.c_str(),
                  preprocess::rewrite_status_name(k.status), k.category.c_str(), k.reason.c_str());
    } else if (opts.check) {
      std::printf("// %s: %s: ok (%lld instructions)\n", path.c_str(), k.kernel_name.c_str(),
                  static_cast<long long>(k.instruction_count));
    } else {
      std::printf("// %s: %s\n", path.c_str(), k.kernel_name.c_str());
      std::fputs(k.text.c_str(), stdout);
    }
  }
  return true;
}

Status run_preprocess(const PreprocessOptions& opts) {
  const preprocess::CompileOptions options = opts.flags.options();
  // Clang runs in a worker under the budget; a file beyond it is rejected
  // like any other, and the next file gets a fresh worker.
  preprocess::ClangWorkers workers(opts.budget.options(), 1);
  size_t rejected = 0;
  for (const std::string& path : opts.files) {
    // Oversized inputs are read (up to a sanity bound) and then rejected by
    // the same check the corpus run applies.
    Expected<preprocess::LocalSource> source =
        preprocess::read_local_source(path, opts.source.options(), 64 * preprocess::kMaxInputBytes);
    if (!source) return source.status().with_context("preprocess");
    for (const std::string& name : source->unresolved)
      std::fprintf(stderr, "clgen preprocess: %s: include not read (missing, or outside the include roots): %s\n",
                   path.c_str(), name.c_str());
    const std::string& text = source->text;
    if (opts.kernels) {
      ASSIGN_OR_RETURN(bool accepted, print_kernels(path, text, opts, options, workers));
      if (!accepted) ++rejected;
      continue;
    }
    ASSIGN_OR_RETURN(preprocess::RewriteResult r, workers.rewrite(text, options));
    if (r.status != preprocess::RewriteStatus::kOk) {
      ++rejected;
      std::printf("%s: %s [%s] %s\n", path.c_str(), preprocess::rewrite_status_name(r.status),
                  r.category.c_str(), r.reason.c_str());
      continue;
    }
    if (opts.usefulness) {
      Expected<preprocess::UsefulnessVerdict> v = preprocess::check_usefulness(r.text);
      if (!v) {  // one bad file does not end the listing
        ++rejected;
        std::printf("%s: error %s\n", path.c_str(), v.status().message().c_str());
        continue;
      }
      if (!v->useful) ++rejected;
      std::printf("%s: %s%s%s\n", path.c_str(), v->useful ? "useful" : "useless [",
                  v->category.c_str(), v->useful ? "" : ("] " + v->reason).c_str());
    } else if (opts.check) {
      std::printf("%s: ok (kernels: %s; %lld instructions)%s%s\n", path.c_str(), join(r.kernels).c_str(),
                  static_cast<long long>(r.instruction_count), r.opencl20 ? " as OpenCL C 2.0" : "",
                  inferred_note(r.inferred).c_str());
    } else {
      if (opts.files.size() > 1) std::printf("// %s\n", path.c_str());
      std::fputs(r.text.c_str(), stdout);
    }
  }
  std::fflush(stdout);
  if (rejected > 0) {
    return invalid_argument(std::to_string(rejected) + " of " + std::to_string(opts.files.size()) +
                            " files rejected");
  }
  return ok_status();
}

}  // namespace

void add_preprocess_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<PreprocessOptions>();
  CLI::App* cmd = app.add_subcommand(
      "preprocess", "Filter and normalize OpenCL files; print the normalized text or the rejection reason");
  cmd->add_option("files", opts->files, "OpenCL source files")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--check", opts->check, "Print only the verdict for each file");
  cmd->add_flag("--kernels", opts->kernels,
                "One normalized text per kernel with only what it reaches (rewrite_kernels)");
  cmd->add_flag("--usefulness", opts->usefulness,
                "Print the static usefulness verdict of each accepted file (what the sampler's filter applies)");
  opts->flags.add_to(*cmd);
  opts->source.add_to(*cmd);
  opts->budget.add_to(*cmd);
  cmd->final_callback([opts, &action] { action = [opts] { return run_preprocess(*opts); }; });
  (void)global;
}

}  // namespace clgen::cli
