// The kernel sets the realism report compares, read the ways the project
// stores them: `.cl` files (normalized through the preprocess passes training
// uses, under the Clang budget), a JSON export, a workspace's accepted samples
// (the sampler's catalog) or benchmark-grade files, and the human kernels a
// training config holds out (model::read_training_set, as training selects them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/preprocess.h"
#include "model/config.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::realism {

// Normalized kernel texts, each once (by text), with where each came from.
struct KernelSet {
  std::vector<std::string> texts;
  std::vector<std::string> origins;  // a file path, "FILE:KERNEL", "accepted", ...
  size_t files = 0;                  // files read
  size_t rejected = 0;               // files or kernels the preprocessor rejected
  size_t duplicates = 0;             // texts already in the set
  // Adds `text` unless the set holds it; returns whether it was added.
  bool add(std::string text, std::string origin);
};

struct NormalizeOptions {
  preprocess::CompileOptions compile;  // as `clgen corpus preprocess` compiles
  preprocess::ClangBudget budget;      // per file
  unsigned workers = 0;                // Clang worker processes; 0 = one per core
  bool progress = true;                // a progress line on stderr
};

// Every `.cl` file of `paths` (files, or directories walked recursively, in
// name order) through preprocess::rewrite_kernels, its includes inlined from
// its own directory tree only (preprocess::read_local_source): one normalized
// text per accepted kernel. A file the preprocessor rejects counts in
// `rejected`. Fails when a path cannot be read or no Clang worker starts.
Expected<KernelSet> normalize_files(const std::vector<std::string>& paths, const NormalizeOptions& options);

// `.cl` files of `paths` read as they are (already normalized texts, as the
// sampler writes them).
Expected<KernelSet> read_files(const std::vector<std::string>& paths);

// A JSON export: JSON lines or one JSON array, each item a string or an
// object with "text" (or "normalized_text"); with `passing_only`, only
// objects whose "outcome" is "pass" (bench/run_quality.py --export). Fails
// naming the line of a malformed item.
Expected<KernelSet> read_export(const std::string& path, bool passing_only);

// The workspace's accepted samples (sampler::accepted_sample_texts).
Expected<KernelSet> accepted_samples(Database& db);
// The benchmark-grade kernels `sample --check` wrote: every `.cl` file under
// `<workspace>/benchmark-grade/`. Fails when there is none.
Expected<KernelSet> benchmark_grade_files(const std::string& workspace_root);

// The human kernels of `training`'s corpus selection: those of the held-out
// repositories (validation_split = "repository") and the training ones.
struct HumanSplit {
  KernelSet held_out, training;
  std::vector<std::string> repositories;  // held out
};
// Fails when the config holds out no repository.
Expected<HumanSplit> held_out_split(Database& db, const model::TrainingConfig& training);

// Only the kernels of `split` that are benchmark-grade: a run of theirs in
// the workspace's `runs` table passed the dynamic checker (`clgen drive
// --corpus`, on any device). Fails when the workspace has no runs.
Expected<HumanSplit> benchmark_grade_split(Database& db, HumanSplit split);

// The workspace's corpus as training reads it (model::read_training_texts):
// the training text for novelty when no config names one. Empty without a
// preprocessed corpus.
Expected<KernelSet> corpus_texts(Database& db);

}  // namespace clgen::realism
