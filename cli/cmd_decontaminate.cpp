// `clgen corpus decontaminate --against DIR`: leave out of the training set
// every kernel identical or nearly identical to a kernel of an evaluation set
// (the comparison: corpus/preprocess/decontaminate.h; includes inlined with
// corpus/inliner.h, as the training set's were).
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "corpus/inliner.h"
#include "corpus/preprocess/decontaminate.h"
#include "corpus/source_tree.h"
#include "support/workspace.h"

namespace clgen::cli {
namespace {

struct DecontaminateFlags {
  std::string against;
  preprocess::DecontaminateRunOptions run;
};

Status run_decontaminate(const GlobalOptions& global, const DecontaminateFlags& flags) {
  if (!(flags.run.compare.threshold > 0))
    return usage_error("corpus decontaminate: --threshold must be in (0, 1]");
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(Database db, ws.open_database());
  // Local #includes are inlined as `clgen corpus add` inlined the training set's.
  preprocess::DecontaminateRunOptions run = flags.run;
  std::unique_ptr<corpus::SourceTree> tree;
  if (auto opened = corpus::open_directory_tree(flags.against); opened.ok()) tree = std::move(*opened);
  if (tree) {
    corpus::InlineOptions inline_options;
    inline_options.max_include_bytes = run.read.max_file_bytes;
    run.read.inline_includes = [&tree, inline_options](const std::string& path,
                                                       const std::string& text) -> Expected<std::string> {
      ASSIGN_OR_RETURN(corpus::InlineResult r, corpus::inline_includes(*tree, path, text, inline_options));
      return std::move(r.text);
    };
  }
  Expected<preprocess::DecontaminateReport> report = preprocess::decontaminate(db, flags.against, run);
  if (!report) return report.status().with_context("corpus decontaminate");
  const preprocess::EvaluationSet& eval = report->evaluation;

  size_t raw = 0;
  for (const auto& f : eval.files) raw += f.normalized ? 0 : 1;
  std::printf("evaluation set %s: %zu OpenCL files (%zu normalized, %zu compared by raw tokens), %zu skipped\n",
              eval.root.c_str(), eval.files.size(), eval.files.size() - raw, raw, eval.skipped.size());
  for (const auto& f : eval.files) {
    if (!f.normalized)
      std::printf("  raw tokens: %s: did not normalize: %s\n", f.path.c_str(), f.note.c_str());
  }
  for (const std::string& s : eval.skipped) std::printf("  skipped: %s\n", s.c_str());
  std::printf("rule (threshold %g, n = %d): %s\n", flags.run.compare.threshold, flags.run.compare.ngram,
              preprocess::decontamination_rule_text(flags.run.compare).c_str());

  for (size_t i = 0; i < report->drops.size(); ++i) {
    const preprocess::Contamination& d = report->drops[i];
    const std::string& origin = report->origins[i];
    std::printf("dropped %s%s%s%s ~ %s: %s (score %.3f)\n", d.normalized_sha256.substr(0, 12).c_str(),
                origin.empty() ? "" : " (", origin.c_str(), origin.empty() ? "" : ")", d.against.c_str(),
                d.rule.c_str(), d.score);
  }
  std::string by_rule;
  for (const char* rule : {preprocess::decontamination_rule::kIdentical,
                           preprocess::decontamination_rule::kNgramOverlapTrain,
                           preprocess::decontamination_rule::kNgramOverlapEval}) {
    auto it = report->by_rule.find(rule);
    by_rule += std::string(by_rule.empty() ? "" : ", ") + rule + " " +
               std::to_string(it == report->by_rule.end() ? 0 : it->second);
  }
  std::printf("compared %llu training kernels with %zu evaluation files: dropped %zu (%s), kept %llu\n",
              static_cast<unsigned long long>(report->compared), eval.files.size(), report->drops.size(),
              by_rule.c_str(), static_cast<unsigned long long>(report->compared - report->drops.size()));
  std::printf("time: %.1f s reading and normalizing the evaluation set, %.2f s comparing\n",
              report->evaluation_seconds, report->compare_seconds);
  if (flags.run.dry_run)
    std::printf("dry run: nothing recorded\n");
  else
    std::printf("recorded in table decontaminated (%llu kernels left out of training in all)\n",
                static_cast<unsigned long long>(report->recorded_total));
  if (eval.files.empty()) spdlog::warn("no OpenCL files (*.cl, *.ocl, *.clh, *.opencl) under {}", flags.against);
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
  cmd->add_option("--threshold", flags->run.compare.threshold, "Fraction of n-grams shared that drops a kernel")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--ngram", flags->run.compare.ngram, "Tokens per n-gram")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--max-file-size", flags->run.read.max_file_bytes,
                  "Skip evaluation files larger than this (bytes; K/M suffixes)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Validator(CLI::PositiveNumber).description(""))
      ->capture_default_str();
  cmd->add_option("-j,--threads", flags->run.read.threads, "Worker threads (0 = all cores)")->capture_default_str();
  cmd->add_flag("--dry-run", flags->run.dry_run, "Print what would be dropped; record nothing");
  cmd->final_callback([flags, &global, &action] {
    action = [flags, &global] { return run_decontaminate(global, *flags); };
  });
}

}  // namespace clgen::cli
