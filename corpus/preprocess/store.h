// Runs the filter + rewriter over the corpus store (`content_files`) into the
// `preprocessed` table: parallel, resumable, interruptible.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "corpus/preprocess/preprocess.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

// CREATE TABLE IF NOT EXISTS preprocessed (...) as in the schema contract.
Status ensure_preprocess_schema(Database& db);

struct CorpusPreprocessOptions {
  CompileOptions compile;
  unsigned threads = 0;     // 0 = all cores
  size_t batch_size = 256;  // files per transaction
  bool progress = true;     // draw a progress line on stderr
};

struct CorpusPreprocessStats {
  std::string version;      // preprocessor_version() of this run
  uint64_t pending = 0;     // files without a result for this version at the start
  uint64_t processed = 0;   // results stored by this run
  uint64_t ok = 0, rejected = 0, rewrite_bug = 0;
  std::map<std::string, uint64_t> by_category;  // "rejected/undeclared_identifier" -> n
  bool interrupted = false;  // stopped early by SIGINT/SIGTERM; finished batches are kept
};

// Preprocesses every content file that has no result for this preprocessor
// version yet; each batch commits in its own transaction, so an interrupted
// or killed run resumes where it stopped. Fails if `content_files` is missing
// or the database cannot be written.
Expected<CorpusPreprocessStats> preprocess_corpus(Database& db, const CorpusPreprocessOptions& options);

// Stored results for `version`, counted by "status" or "status/category".
Expected<std::map<std::string, uint64_t>> preprocess_counts(Database& db, const std::string& version);

}  // namespace clgen::preprocess
