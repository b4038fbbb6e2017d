// The corpus content store in the workspace database: sources
// (`repositories`), deduplicated file contents (`content_files`, keyed by the
// SHA-256 of the stored text), where each content came from
// (`content_origins`) and what was skipped and why (`skipped`). Every insert
// is idempotent, so a rerun or a resumed run never duplicates a row.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::corpus {

// Creates the corpus tables if missing.
Status ensure_corpus_schema(Database& db);

// A source of files: a GitHub or git repository, a directory, a single file
// or an installed package. `key` identifies it across runs (the clone URL,
// "dir:/abs/path", "file:/abs/path", "package:NAME", "snapshot:OWNER/NAME",
// "archive:/abs/path").
struct SourceInfo {
  std::string key;
  std::string kind;  // "github" | "git" | "directory" | "file" | "package" | "snapshot" | "archive"
  std::string clone_url, owner, name, default_branch, license;
  std::string domain;  // application domain, from a snapshot's manifest ("" when unknown)
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

// What an origin is: a kernel file (what preprocess processes) or a file that
// kernel files include (stored once, read back when a kernel is assembled).
namespace origin_role {
inline constexpr const char* kKernel = "kernel";
inline constexpr const char* kInclude = "include";
}  // namespace origin_role

struct StoredFile {
  std::string sha256;   // of `text`
  std::string text;     // the file as found (includes not inlined)
  std::string path;     // origin path inside the source
  std::string language; // "opencl", ...
  std::string role = origin_role::kKernel;
  // A kernel read out of a host file's string literal: the 1-based lines of
  // `path` it spans (0 for whole files).
  int64_t line_first = 0, line_last = 0;
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

// Stores one batch in one transaction: all of it or (on error) none of it. An
// origin stored before as an include becomes a kernel when stored as one.
Expected<BatchResult> store_batch(Database& db, int64_t source_id, const std::string& commit,
                                  const std::vector<StoredFile>& files,
                                  const std::vector<SkippedFile>& skipped);

// One source (repository).
struct SourceStats {
  std::string kind, key;
  std::string owner, name, license, domain;  // "" when unknown
  int64_t files = 0;  // distinct contents from this source
  int64_t bytes = 0;  // their total size
  int64_t skipped = 0;
  int64_t host_kernels = 0;  // distinct contents read out of host files' string literals
  std::string commit;
  bool complete = false;  // the last import of this source finished
};

// Sources sharing one license or one domain.
struct GroupStats {
  int64_t repositories = 0;
  int64_t files = 0;  // distinct contents from these sources
  int64_t bytes = 0;  // their total size
};

struct CorpusStats {
  int64_t sources = 0;
  int64_t files = 0;    // distinct contents
  int64_t bytes = 0;
  int64_t origins = 0;  // (content, source, path) rows
  int64_t kernel_files = 0;   // contents with a kernel origin
  int64_t include_files = 0;  // contents only ever included
  int64_t host_kernels = 0;   // contents read out of host files' string literals
  int64_t host_files = 0;     // (source, commit, host file) with at least one such content
  std::vector<SourceStats> by_source;
  std::map<std::string, GroupStats> by_domain;   // "" = unknown
  std::map<std::string, GroupStats> by_license;  // "" = unknown
  std::map<std::string, int64_t> skipped_by_reason;
  // Filled by the caller from preprocess::newest_result_counts (catalog.h),
  // which the corpus does not read itself: "status/category" -> count.
  std::map<std::string, int64_t> preprocessed;
};

Expected<CorpusStats> corpus_stats(Database& db);

// The contents read out of host files' string literals.
Expected<std::set<std::string>> host_kernel_contents(Database& db);

}  // namespace clgen::corpus
