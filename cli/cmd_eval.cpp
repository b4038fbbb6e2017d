// `clgen eval realism SAMPLES... [--against DIR | --held-out --config FILE]`: how far
// samples are from human kernels (eval/, docs/EVAL.md): the judge, the
// distributions, coverage and novelty, as a table, JSON and a PNG.
#include <sys/stat.h>

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "eval/kernel_sets.h"
#include "eval/report.h"
#include "model/config.h"
#include "model/store.h"
#include "support/files.h"
#include "support/workspace.h"

namespace clgen::cli {
namespace {

struct EvalRealismOptions {
  std::vector<std::string> samples;  // .cl files and folders, .json/.jsonl exports
  bool accepted = false, benchmark_grade = false;
  bool as_is = false;         // sample files are normalized already
  bool passing_only = false;  // exports: only items with outcome "pass"
  std::vector<std::string> against;
  bool held_out = false;
  bool graded_training = false;  // the benchmark-grade training kernels as the human side
  std::string config;
  std::string json, plot;
  bool no_length_matched = false, no_floor = false;
  realism::ReportOptions report;
  CompileFlags compile;
  BudgetFlags budget;
};

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool is_export(const std::string& path) {
  auto ends = [&](const char* s) {
    std::string suffix = s;
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".json") || ends(".jsonl");
}

void describe(const char* side, const realism::KernelSet& s) {
  std::fprintf(stderr, "%s: %zu kernels", side, s.texts.size());
  if (s.files) std::fprintf(stderr, " from %zu files", s.files);
  if (s.rejected) std::fprintf(stderr, "; %zu rejected by the preprocessor", s.rejected);
  if (s.duplicates) std::fprintf(stderr, "; %zu duplicates dropped", s.duplicates);
  std::fprintf(stderr, "\n");
}

void append(realism::KernelSet& to, realism::KernelSet from) {
  to.files += from.files;
  to.rejected += from.rejected;
  to.duplicates += from.duplicates;
  for (size_t i = 0; i < from.texts.size(); ++i) to.add(std::move(from.texts[i]), std::move(from.origins[i]));
}

Status run_eval_realism(const EvalRealismOptions& o, const GlobalOptions& global) {
  if (o.samples.empty() && !o.accepted && !o.benchmark_grade)
    return usage_error("give SAMPLES (folders of .cl files, .json exports) or --accepted / --benchmark-grade");
  if (int(o.held_out) + int(o.graded_training) + int(!o.against.empty()) != 1)
    return usage_error("give the human kernels: --against DIR, --held-out or --graded-training (with --config)");
  if ((o.held_out || o.graded_training) && o.config.empty())
    return usage_error("--held-out and --graded-training need --config: its training selects the kernels");
  const bool quiet = global.verbosity == Verbosity::kQuiet;

  realism::NormalizeOptions norm;
  norm.compile = o.compile.options();
  norm.budget = o.budget.options();
  norm.progress = !quiet;

  // The workspace only when something is read from it (never created for --against alone).
  const std::string db_path = global.workspace + "/" + Workspace::kDatabaseName;
  std::unique_ptr<Database> db;
  auto open_db = [&]() -> Status {
    if (db) return ok_status();
    if (!exists(db_path)) return not_found(fmt::format("{}: no workspace database", db_path));
    ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
    ASSIGN_OR_RETURN(Database d, ws.open_database());
    db = std::make_unique<Database>(std::move(d));
    return ok_status();
  };

  realism::KernelSet samples;
  std::vector<std::string> files;
  for (const std::string& s : o.samples) {
    if (is_export(s)) {
      ASSIGN_OR_RETURN(realism::KernelSet e, realism::read_export(s, o.passing_only));
      append(samples, std::move(e));
    } else {
      files.push_back(s);
    }
  }
  if (!files.empty()) {
    if (o.as_is) {
      ASSIGN_OR_RETURN(realism::KernelSet f, realism::read_files(files));
      append(samples, std::move(f));
    } else {
      ASSIGN_OR_RETURN(realism::KernelSet f, realism::normalize_files(files, norm));
      append(samples, std::move(f));
    }
  }
  if (o.accepted) {
    RETURN_IF_ERROR(open_db());
    ASSIGN_OR_RETURN(realism::KernelSet a, realism::accepted_samples(*db));
    append(samples, std::move(a));
  }
  if (o.benchmark_grade) {
    ASSIGN_OR_RETURN(realism::KernelSet b, realism::benchmark_grade_files(global.workspace));
    append(samples, std::move(b));
  }
  if (!quiet) describe("samples", samples);

  realism::ReportInputs in;
  in.samples = samples.texts;
  in.samples_label = o.accepted ? "accepted samples" : o.benchmark_grade ? "benchmark-grade samples" : "samples";
  if (!o.config.empty()) {
    RETURN_IF_ERROR(open_db());
    ASSIGN_OR_RETURN(model::ModelConfig c, model::load_model_config(o.config));
    if (o.held_out || o.graded_training) {
      Expected<realism::HumanSplit> held = realism::held_out_split(*db, c.training);
      if (!held) return held.status().with_context(o.config);
      realism::HumanSplit& split = *held;
      in.training = split.training.texts;
      in.training_label = "training human";
      if (o.held_out) {
        in.humans = split.held_out.texts;
        in.humans_label = fmt::format("held-out human ({} repositories)", split.repositories.size());
      } else {
        // Benchmark-grade training kernels; the floor: benchmark-grade
        // kernels of the held-out repositories against them.
        ASSIGN_OR_RETURN(realism::HumanSplit graded, realism::benchmark_grade_split(*db, split));
        if (!quiet) {
          describe("benchmark-grade training human", graded.training);
          describe("benchmark-grade held-out human", graded.held_out);
        }
        in.humans = graded.training.texts;
        in.humans_label = "benchmark-grade training human";
        in.floor_reference = graded.held_out.texts;
        in.floor_label = "benchmark-grade held-out";
      }
    } else {
      ASSIGN_OR_RETURN(model::TrainingTexts t, model::read_training_set(*db, c.training));
      in.training = t.training_only();
      in.training_label = "training human";
    }
  }
  if (!o.against.empty()) {
    ASSIGN_OR_RETURN(realism::KernelSet h, realism::normalize_files(o.against, norm));
    if (!quiet) describe("human", h);
    in.humans = h.texts;
    in.humans_label = "human";
    if (o.config.empty() && exists(db_path)) {  // novelty against the workspace's corpus
      RETURN_IF_ERROR(open_db());
      ASSIGN_OR_RETURN(realism::KernelSet c, realism::corpus_texts(*db));
      in.training = c.texts;
      in.training_label = "workspace corpus";
    }
  }

  realism::ReportOptions ro = o.report;
  ro.length_matched = !o.no_length_matched;
  ro.floor = !o.no_floor;
  ro.progress = !quiet;
  ASSIGN_OR_RETURN(realism::Report report, realism::realism_report(in, ro));
  const std::string json = realism::report_json(report);
  if (o.json == "-") {
    std::fputs(json.c_str(), stdout);
  } else {
    if (!o.json.empty()) RETURN_IF_ERROR(write_file_atomic(o.json, json));
    std::fputs(realism::report_table(report).c_str(), stdout);
  }
  if (!o.plot.empty()) RETURN_IF_ERROR(realism::write_plot(report, o.plot));
  return ok_status();
}

}  // namespace

void add_eval_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* eval = app.add_subcommand("eval", "Evaluate generated kernels");
  eval->require_subcommand(1);
  auto o = std::make_shared<EvalRealismOptions>();
  CLI::App* cmd = eval->add_subcommand(
      "realism", "How far samples are from human kernels: judge AUC, distributions, coverage, novelty (docs/EVAL.md)");
  cmd->add_option("samples", o->samples,
                  "Sample kernels: .cl files or folders of them (normalized as training is), .json/.jsonl exports");
  cmd->add_flag("--accepted", o->accepted, "Samples: the workspace's accepted samples");
  cmd->add_flag("--benchmark-grade", o->benchmark_grade,
                "Samples: the workspace's benchmark-grade kernels (<workspace>/benchmark-grade/)");
  cmd->add_flag("--as-is", o->as_is, "Sample .cl files are normalized already (the sampler's): skip the preprocessor");
  cmd->add_flag("--passing-only", o->passing_only, "Exports: only items whose \"outcome\" is \"pass\"");
  cmd->add_option("--against", o->against, "Human kernels: .cl files or folders (normalized as training is)")
      ->check(CLI::ExistingPath)
      ->allow_extra_args(false);
  cmd->add_flag("--held-out", o->held_out, "Human kernels: the repositories --config's training holds out");
  cmd->add_flag("--graded-training", o->graded_training,
                "Human kernels: --config's training kernels that passed the dynamic checker in this workspace "
                "(clgen drive --corpus); the floor: the held-out repositories' that passed");
  cmd->add_option("--config", o->config, "Training config: its held-out split and its training text (novelty, floor)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--json", o->json, "Write the report as JSON to FILE ('-': stdout instead of the table)")
      ->check(non_empty());
  cmd->add_option("--plot", o->plot, "Write the distributions' CDFs as a PNG")->check(non_empty());
  realism::JudgeOptions& j = o->report.judge;
  cmd->add_option("--folds", j.folds, "Judge: cross-validation folds")
      ->check(CLI::Range(2, 100))
      ->capture_default_str();
  cmd->add_option("--seed", j.seed, "Judge: seed of the balanced draw, folds and order")->capture_default_str();
  cmd->add_option("--max-per-side", j.max_per_side, "Judge: kernels drawn per side (0 = the smaller side's count)")
      ->capture_default_str();
  cmd->add_option("--judge-features", j.features, "Judge: n-grams kept (most frequent by document frequency)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  cmd->add_option("--judge-epochs", j.epochs, "Judge: passes of mini-batch gradient descent")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_flag("--binary", j.binary, "Judge: n-gram presence * idf instead of sublinear TF-IDF");
  cmd->add_flag("--no-length-matched", o->no_length_matched, "Skip the judge on length-matched pairs");
  cmd->add_flag("--no-floor", o->no_floor, "Skip the judge of training human kernels against the human set");
  cmd->add_option("--novelty-n", o->report.novelty_n, "Novelty: token n-gram length")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--novelty-threshold", o->report.novelty_threshold,
                  "Novelty: containment that makes a near copy, in (0, 1]")
      ->check(finite_range(0.0, 1.0))
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  o->compile.add_to(*cmd);
  o->budget.add_to(*cmd);
  cmd->final_callback([o, &global, &action] { action = [o, &global] { return run_eval_realism(*o, global); }; });
}

}  // namespace clgen::cli
