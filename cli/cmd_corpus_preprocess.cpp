// `clgen corpus preprocess`: filter + rewrite every content file of the
// workspace's corpus into the `preprocessed` table (parallel, resumable).
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "corpus/preprocess/store.h"
#include "support/workspace.h"

namespace clgen::cli {
namespace {

// The library's options bound to the flags (defaults in corpus/preprocess/store.h),
// and the compile flags, which are parsed into its `compile` field.
struct CorpusPreprocessOptions {
  preprocess::CorpusPreprocessOptions run;
  CompileFlags flags;
  BudgetFlags budget;
  bool no_repo_prelude = false;
};

Status run_corpus_preprocess(const GlobalOptions& global, const CorpusPreprocessOptions& opts) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(Database db, ws.open_database());
  preprocess::CorpusPreprocessOptions o = opts.run;
  o.compile = opts.flags.options();
  o.budget = opts.budget.options();
  o.repository_prelude = !opts.no_repo_prelude;
  o.progress = global.verbosity != Verbosity::kQuiet;
  Expected<preprocess::CorpusPreprocessStats> stats = preprocess::preprocess_corpus(db, o);
  if (!stats) return stats.status().with_context("corpus preprocess");
  auto u = [](uint64_t n) { return static_cast<unsigned long long>(n); };
  std::printf("preprocessor %s: %llu files processed now: %llu with accepted kernels, %llu discarded\n",
              stats->version.c_str(), u(stats->processed), u(stats->files_ok), u(stats->files_discarded));
  if (stats->files_inferred > 0) {
    std::printf("  of the files with accepted kernels, %llu compile only with inferred missing names\n",
                u(stats->files_inferred));
  }
  if (stats->files_opencl20 > 0) {
    std::printf("  of the files with accepted kernels, %llu compile only as OpenCL C 2.0\n", u(stats->files_opencl20));
  }
  if (stats->files_prelude > 0) {
    std::printf("  of the files with accepted kernels, %llu compile only after other files of their repository\n",
                u(stats->files_prelude));
  }
  for (const auto& [key, n] : stats->files_by_category) std::printf("  files %-42s %llu\n", key.c_str(), u(n));
  std::printf("kernels extracted from the files that compile: ok %llu, rejected %llu, rewrite_bug %llu\n",
              u(stats->ok), u(stats->rejected), u(stats->rewrite_bug));
  for (const auto& [key, n] : stats->by_category) std::printf("  kernels %-40s %llu\n", key.c_str(), u(n));
  ASSIGN_OR_RETURN(auto counts, preprocess::preprocess_counts(db, stats->version));
  std::printf("stored rows for this version (one per kernel, one per rejected file):\n");
  for (const auto& [key, n] : counts) {
    std::printf("  %-48s %llu\n", key.c_str(), u(n));
  }
  if (stats->interrupted) return cancelled("corpus preprocess interrupted; run it again to resume");
  return ok_status();
}

}  // namespace

void add_corpus_preprocess_command(CLI::App& corpus_group, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<CorpusPreprocessOptions>();
  CLI::App* cmd = corpus_group.add_subcommand(
      "preprocess", "Filter and normalize the corpus into the preprocessed table (resumable)");
  cmd->add_option("-j,--threads", opts->run.threads, "Worker threads (0 = all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1024u));
  cmd->add_option("--batch", opts->run.batch_size, "Files per transaction")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  cmd->add_flag("--no-repo-prelude", opts->no_repo_prelude,
                "Never put other files of a rejected file's repository before it to supply its missing names");
  opts->flags.add_to(*cmd);
  opts->budget.add_to(*cmd);
  cmd->final_callback([opts, &global, &action] {
    action = [opts, &global] { return run_corpus_preprocess(global, *opts); };
  });
}

}  // namespace clgen::cli
