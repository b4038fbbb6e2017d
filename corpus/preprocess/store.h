// Runs the filter + rewriter over the corpus store into the `preprocessed`
// table, one row per extracted kernel (or one per rejected file): parallel,
// resumable, interruptible.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/preprocess.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

// CREATE TABLE IF NOT EXISTS preprocessed (...) as in the schema contract.
Status ensure_preprocess_schema(Database& db);

struct CorpusPreprocessOptions {
  CompileOptions compile;
  // Each file's Clang work runs in a worker process under this budget, one
  // worker per thread; a file beyond it is rejected as time_limit or memory_limit.
  ClangBudget budget;
  // A file rejected for a missing name that another file of its repository
  // defines gets that file put before it and is tried again (repo_prelude.h).
  bool repository_prelude = true;
  unsigned threads = 0;     // 0 = all cores
  size_t batch_size = 256;  // files per transaction
  bool progress = true;     // draw a progress line on stderr
};

struct CorpusPreprocessStats {
  std::string version;      // preprocessor_version() of this run
  uint64_t pending = 0;     // files without a result for this version at the start
  uint64_t processed = 0;   // files handled by this run
  // Kernels extracted from the files that compile, by outcome.
  uint64_t ok = 0, rejected = 0, rewrite_bug = 0;
  std::map<std::string, uint64_t> by_category;  // kernels: "rejected/too_few_instructions" -> n
  // Files: with at least one accepted kernel, or discarded (by the file's
  // rejection, or "no kernel accepted" when it compiled but none of its kernels passed).
  uint64_t files_ok = 0, files_discarded = 0;
  uint64_t files_inferred = 0;  // of files_ok, those that compile only with inferred missing names
  uint64_t files_opencl20 = 0;  // of files_ok, those that compile only as OpenCL C 2.0
  uint64_t files_prelude = 0;   // of files_ok, those that compile only after other files of their repository
  std::map<std::string, uint64_t> files_by_category;  // "rejected/unknown_type_name" -> n
  bool interrupted = false;  // stopped early by SIGINT/SIGTERM; finished batches are kept
};

// The version this run stores its results under: preprocessor_version() of
// the compile options, plus the corpus-level steps (a kernel file that is a
// C++ raw string is unwrapped; the repository prelude).
std::string corpus_preprocessor_version(const CorpusPreprocessOptions& options);

// Preprocesses every kernel file of the store that has no result for this
// preprocessor version yet: the file is assembled with its stored includes
// (corpus::assemble_text), checked once, and each kernel is extracted with what
// it reaches and rewritten (rewrite_kernels). A file that does not compile
// gets one row with kernel = ''. Without the corpus tables (a bare
// content_files table) every content is read as stored. Each batch commits in
// its own transaction, so an interrupted or killed run resumes where it
// stopped. Fails if `content_files` is missing, the database cannot be
// written, or a Clang worker cannot be started.
Expected<CorpusPreprocessStats> preprocess_corpus(Database& db, const CorpusPreprocessOptions& options);

// Stored results for `version`, counted by "status" or "status/category".
Expected<std::map<std::string, uint64_t>> preprocess_counts(Database& db, const std::string& version);

}  // namespace clgen::preprocess
