// `clgen corpus decontaminate --against DIR`: leave out of the training set
// every kernel identical or nearly identical to a kernel of an evaluation set
// (the comparison: corpus/preprocess/decontaminate.h). The evaluation files
// are normalized by the training pipeline, with the compile flags of `corpus
// preprocess` and -I/-D as `preprocess` takes them.
#include <cstdio>
#include <map>
#include <memory>

#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "corpus/preprocess/decontaminate.h"
#include "support/workspace.h"

namespace clgen::cli {
namespace {

struct DecontaminateFlags {
  std::string against;
  preprocess::DecontaminateRunOptions run;
  CompileFlags compile;
  SourceFlags source;
  BudgetFlags budget;
};

Status run_decontaminate(const GlobalOptions& global, const DecontaminateFlags& flags) {
  if (!(flags.run.compare.threshold > 0) || !(flags.run.compare.shape_threshold > 0))
    return usage_error("corpus decontaminate: --threshold and --shape-threshold must be in (0, 1]");
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(Database db, ws.open_database());
  preprocess::DecontaminateRunOptions run = flags.run;
  run.read.compile = flags.compile.options();
  run.read.source = flags.source.options();
  run.read.budget = flags.budget.options();
  run.read.progress = global.verbosity != Verbosity::kQuiet;
  Expected<preprocess::DecontaminateReport> report = preprocess::decontaminate(db, flags.against, run);
  if (!report) return report.status().with_context("corpus decontaminate");
  const preprocess::EvaluationSet& eval = report->evaluation;

  size_t raw = 0;
  for (const auto& k : eval.kernels) raw += k.normalized ? 0 : 1;
  std::printf(
      "evaluation set %s: %zu OpenCL files, %zu kernels (%zu normalized, %zu compared by raw tokens), "
      "%zu skipped\n",
      eval.root.c_str(), eval.files, eval.kernels.size(), eval.kernels.size() - raw, raw, eval.skipped.size());
  for (const std::string& s : eval.skipped) std::printf("  skipped: %s\n", s.c_str());
  const preprocess::DecontaminateOptions& c = flags.run.compare;
  std::printf("rule (threshold %g, n = %d; shape threshold %g, n = %d, at least %zu n-grams): %s\n", c.threshold,
              c.ngram, c.shape_threshold, c.shape_ngram, c.shape_min_ngrams,
              preprocess::decontamination_rule_text(c).c_str());

  // Per evaluation kernel: how it was compared and what it dropped.
  std::map<std::string, std::vector<size_t>> drops_of;  // evaluation kernel name -> drops
  for (size_t i = 0; i < report->drops.size(); ++i) {
    const preprocess::Contamination& d = report->drops[i];
    drops_of[preprocess::evaluation_kernel_name({d.against, d.against_kernel, "", false, ""})].push_back(i);
  }
  for (const preprocess::EvaluationKernel& k : eval.kernels) {
    std::string name = preprocess::evaluation_kernel_name(k);
    const std::vector<size_t>& drops = drops_of[name];
    std::printf("evaluation kernel %s: %s, dropped %zu\n", name.c_str(),
                k.normalized ? "normalized" : ("raw tokens (" + k.note + ")").c_str(), drops.size());
    for (size_t i : drops) {
      const preprocess::Contamination& d = report->drops[i];
      const preprocess::TrainingOrigin& o = report->origins[i];
      std::printf("  dropped %s %s %s%s%s: %s (score %.3f)\n", d.normalized_sha256.substr(0, 12).c_str(),
                  o.repository.empty() ? "(unknown repository)" : o.repository.c_str(), o.path.c_str(),
                  o.kernel.empty() ? "" : ":", o.kernel.c_str(), d.rule.c_str(), d.score);
    }
  }
  std::string by_rule;
  for (const char* rule :
       {preprocess::decontamination_rule::kIdentical, preprocess::decontamination_rule::kNgramOverlapTrain,
        preprocess::decontamination_rule::kNgramOverlapEval, preprocess::decontamination_rule::kShapeOverlapTrain,
        preprocess::decontamination_rule::kShapeOverlapEval}) {
    auto it = report->by_rule.find(rule);
    by_rule += std::string(by_rule.empty() ? "" : ", ") + rule + " " +
               std::to_string(it == report->by_rule.end() ? 0 : it->second);
  }
  std::printf("compared %llu training kernels with %zu evaluation kernels: dropped %zu (%s), kept %llu\n",
              static_cast<unsigned long long>(report->compared), eval.kernels.size(), report->drops.size(),
              by_rule.c_str(), static_cast<unsigned long long>(report->compared - report->drops.size()));
  std::printf("time: %.1f s reading and normalizing the evaluation set, %.2f s comparing\n", report->evaluation_seconds,
              report->compare_seconds);
  if (flags.run.dry_run) std::printf("dry run: nothing recorded\n");
  else
    std::printf("recorded in table decontaminated (%llu kernels left out of training in all)\n",
                static_cast<unsigned long long>(report->recorded_total));
  if (eval.files == 0) spdlog::warn("no OpenCL files (*.cl, *.ocl, *.clh, *.opencl) under {}", flags.against);
  return ok_status();
}

}  // namespace

void add_corpus_decontaminate_command(CLI::App& corpus_group, const GlobalOptions& global, Action& action) {
  auto flags = std::make_shared<DecontaminateFlags>();
  CLI::App* cmd = corpus_group.add_subcommand(
      "decontaminate", "Leave out of training every kernel identical or nearly identical to an evaluation kernel");
  cmd->footer("Rule (defaults shown): " + preprocess::decontamination_rule_text(flags->run.compare) +
              " Drops are recorded in the table 'decontaminated' (idempotent); training reads exclude them.");
  cmd->add_option("--against", flags->against,
                  "Directory of the evaluation set (*.cl, *.ocl, *.clh, *.opencl, any case; recursive)")
      ->required()
      ->check(non_empty());
  cmd->add_option("--threshold", flags->run.compare.threshold,
                  "Fraction of renamed-token n-grams shared that drops a kernel")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--ngram", flags->run.compare.ngram, "Tokens per renamed-token n-gram")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--shape-threshold", flags->run.compare.shape_threshold,
                  "Fraction of name-insensitive n-grams shared that drops a kernel")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--shape-ngram", flags->run.compare.shape_ngram, "Tokens per name-insensitive n-gram")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--shape-min-ngrams", flags->run.compare.shape_min_ngrams,
                  "Distinct name-insensitive n-grams both texts need for that comparison")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  cmd->add_option("--max-file-size", flags->run.read.max_file_bytes,
                  "Skip evaluation files larger than this (bytes; K/M suffixes)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Validator(CLI::PositiveNumber).description(""))
      ->capture_default_str();
  cmd->add_option("-j,--threads", flags->run.read.threads, "Worker threads (0 = all cores)")->capture_default_str();
  cmd->add_flag("--dry-run", flags->run.dry_run, "Print what would be dropped; record nothing");
  flags->compile.add_to(*cmd);
  flags->source.add_to(*cmd);
  flags->budget.add_to(*cmd);
  cmd->final_callback(
      [flags, &global, &action] { action = [flags, &global] { return run_decontaminate(global, *flags); }; });
}

}  // namespace clgen::cli
