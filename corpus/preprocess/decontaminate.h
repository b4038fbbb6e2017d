// Decontamination: finds the training kernels (the `preprocessed` rows with
// status 'ok' of the newest preprocessor version) that are identical or nearly
// identical to a kernel of an evaluation set, and records them in the
// `decontaminated` table, which the training-set readers exclude
// (decontaminated_sql.h). Both sides are compared after the project's own
// normalization (rewrite), so a renamed copy is a copy.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "corpus/preprocess/preprocess.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

// The `rule` column of the `decontaminated` table.
namespace decontamination_rule {
inline constexpr const char* kIdentical = "identical";                   // same token sequence
inline constexpr const char* kNgramOverlapTrain = "ngram_overlap_train";  // the training kernel is in the eval file
inline constexpr const char* kNgramOverlapEval = "ngram_overlap_eval";    // the eval file is in the training kernel
}  // namespace decontamination_rule

struct DecontaminateOptions {
  double threshold = 0.8;  // fraction of n-grams shared that drops a kernel, in (0, 1]
  int ngram = 8;           // tokens per n-gram, >= 1
};

// The rule in words, with the options' values, for --help, the output and docs.
std::string decontamination_rule_text(const DecontaminateOptions& options);

// One evaluation file, ready for comparison.
struct EvaluationKernel {
  std::string path;         // absolute: the evaluation directory's real path + the file's relative path
  std::string text;         // normalized text, or the raw token stream joined by spaces
  bool normalized = false;  // false: rewrite failed, compared by its comment-stripped raw tokens
  std::string note;         // why it was not normalized ("rejected [parse_error]: ...")
};

// Normalizes one evaluation text like the training set: rewrite(); a text
// that compiles but has no kernel (or too few instructions) goes through the
// rewrite passes alone; any other failure leaves the raw tokens (comments
// and whitespace dropped, qualifiers canonicalized), with `note` saying why.
EvaluationKernel prepare_evaluation_kernel(std::string path, std::string_view text,
                                           const CompileOptions& options = {});

struct EvaluationSet {
  std::string root;                     // real path of the directory
  std::vector<EvaluationKernel> files;  // sorted by path
  std::vector<std::string> skipped;     // "path: why" (too large, unreadable, symlink leaving the directory)
};

struct ReadEvaluationOptions {
  CompileOptions compile;
  uint64_t max_file_bytes = kMaxInputBytes;  // larger files are skipped unread
  unsigned threads = 0;                      // normalizing threads; 0 = all cores
  // Applied to each file's text before normalizing (path relative to the
  // directory), to treat the files as the training set's were imported: the
  // CLI inlines local #includes here with the corpus module's inliner. Empty:
  // the text as read. An error leaves the text as read.
  std::function<Expected<std::string>(const std::string& path, const std::string& text)> inline_includes;
};

// True for the evaluation set's file names: *.cl, *.ocl, *.clh, *.opencl in any case.
bool is_opencl_file_name(std::string_view name);

// Reads and normalizes every OpenCL file under `dir`, recursively. Symlinks
// are followed only to regular files inside `dir` (the others are skipped);
// directories reached through symlinks are not descended. Fails with
// kNotFound naming `dir` when it is missing or not a directory.
Expected<EvaluationSet> read_evaluation_set(const std::string& dir, const ReadEvaluationOptions& options = {});

// One kernel of the training set.
struct TrainingKernel {
  std::string normalized_sha256;
  std::string text;
};

// A training kernel to drop, and why.
struct Contamination {
  std::string normalized_sha256;  // of the training kernel
  std::string against;            // the evaluation file's path
  std::string rule;               // decontamination_rule::k*
  double score = 1;               // 1 for identical, else the fraction of n-grams shared
};

// The comparison, without a database. Tokenizes both sides (c_tokens); a
// training kernel is dropped when (a) its token sequence equals an evaluation
// file's, or, where both have at least `ngram` distinct n-grams, (b) at least
// `threshold` of its n-grams occur in one evaluation file or (c) at least
// `threshold` of one evaluation file's n-grams occur in it. Returns one entry
// per dropped kernel, its strongest match (identical first, then the highest
// score; ties go to the first file in `evaluation`'s order and, within a file,
// to rule b), in `training`'s order. An inverted index (n-gram -> files) keeps it linear in
// the n-grams that match; `threads` of 0 means all cores.
std::vector<Contamination> find_contamination(const std::vector<TrainingKernel>& training,
                                              const std::vector<EvaluationKernel>& evaluation,
                                              const DecontaminateOptions& options = {},
                                              unsigned threads = 0);

// CREATE TABLE IF NOT EXISTS decontaminated (normalized_sha256 PRIMARY KEY,
// against, rule, score, at).
Status ensure_decontaminated_schema(Database& db);

// The training set: one kernel per normalized_sha256 among the `preprocessed`
// rows with status 'ok' of the newest preprocessor version, ordered by hash
// (decontaminated or not). Fails with kNotFound and a hint to run `clgen
// corpus preprocess` when the table is missing.
Expected<std::vector<TrainingKernel>> read_training_kernels(Database& db);

// Stores `drops`, one row per kernel: a kernel dropped before gets the new
// match (its first `at` is kept), so a rerun on the same inputs leaves the
// same rows. Rows of other kernels stay. One transaction.
Status record_contamination(Database& db, const std::vector<Contamination>& drops);

// The normalized_sha256 of every kernel in the `decontaminated` table (empty
// when the table does not exist).
Expected<std::unordered_set<std::string>> decontaminated_hashes(Database& db);

// Where each training kernel came from, as "SOURCE PATH" of its first origin
// in the corpus tables (e.g. "dir:/data/train kernels/a.cl"), "" when unknown
// (or the corpus tables are missing); one entry per hash, in order. One query.
Expected<std::vector<std::string>> kernel_origins(Database& db, const std::vector<std::string>& normalized_sha256s);

struct DecontaminateRunOptions {
  DecontaminateOptions compare;
  ReadEvaluationOptions read;
  bool dry_run = false;  // find and report, record nothing
};

struct DecontaminateReport {
  EvaluationSet evaluation;
  uint64_t compared = 0;                  // training kernels compared
  std::vector<Contamination> drops;       // as find_contamination returns them
  std::vector<std::string> origins;       // kernel_origins of the drops ("" when unknown)
  std::map<std::string, uint64_t> by_rule;  // rule -> drops
  uint64_t recorded_total = 0;            // rows of the table after the run (0 with dry_run)
  double evaluation_seconds = 0;          // reading and normalizing the evaluation set
  double compare_seconds = 0;             // find_contamination
};

// The whole command: reads the evaluation set and the training set, finds the
// contamination and (unless dry_run) records it. Fails when `dir` or the
// preprocessed table is missing, or the database cannot be written.
Expected<DecontaminateReport> decontaminate(Database& db, const std::string& dir,
                                            const DecontaminateRunOptions& options);

}  // namespace clgen::preprocess
