// The corpus content store in the workspace database: sources
// (`repositories`), deduplicated file contents (`content_files`, keyed by the
// SHA-256 of the stored text), where each content came from
// (`content_origins`) and what was skipped and why (`skipped`). Every insert
// is idempotent, so a rerun or a resumed run never duplicates a row.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::corpus {

// Creates the corpus tables if missing.
Status ensure_corpus_schema(Database& db);

// A source of files: a GitHub or git repository, a directory, a single file
// or an installed package. `key` identifies it across runs (the clone URL,
// "dir:/abs/path", "file:/abs/path", "package:NAME").
struct SourceInfo {
  std::string key;
  std::string kind;  // "github" | "git" | "directory" | "file" | "package"
  std::string clone_url, owner, name, default_branch, license;
  std::optional<int64_t> stars, forks;
};

// Inserts the source or updates its metadata; returns its id. The imported
// commit is left alone (see mark_source_imported).
Expected<int64_t> upsert_source(Database& db, const SourceInfo& source);

// Records that the source was completely imported at `commit` ("" for
// directories), with the time as fetched_at.
Status mark_source_imported(Database& db, int64_t source_id, const std::string& commit);

// The commit at which the source with `key` was completely imported, if it was.
Expected<std::optional<std::string>> imported_commit(Database& db, const std::string& key);

struct StoredFile {
  std::string sha256;   // of `text`
  std::string text;     // after include inlining
  std::string path;     // origin path inside the source
  std::string language; // "opencl", ...
};

struct SkippedFile {
  std::string path;
  std::string reason;  // one of corpus::skip_reason
  std::string detail;
};

// Counts of one store_batch call.
struct BatchResult {
  int new_contents = 0;  // texts not stored before
  int new_origins = 0;   // (content, source, commit, path) rows not stored before
};

// Stores one batch in one transaction: all of it or (on error) none of it.
Expected<BatchResult> store_batch(Database& db, int64_t source_id, const std::string& commit,
                                  const std::vector<StoredFile>& files,
                                  const std::vector<SkippedFile>& skipped);

struct SourceStats {
  std::string kind, key;
  int64_t files = 0;  // distinct contents from this source
  int64_t bytes = 0;  // their total size
  int64_t skipped = 0;
  std::string commit;
  bool complete = false;  // the last import of this source finished
};

struct CorpusStats {
  int64_t sources = 0;
  int64_t files = 0;    // distinct contents
  int64_t bytes = 0;
  int64_t origins = 0;  // (content, source, path) rows
  std::vector<SourceStats> by_source;
  std::map<std::string, int64_t> skipped_by_reason;
  // From the preprocess module's table when it exists, for the newest
  // preprocessor version: "status/category" -> count.
  std::map<std::string, int64_t> preprocessed;
};

Expected<CorpusStats> corpus_stats(Database& db);

}  // namespace clgen::corpus
