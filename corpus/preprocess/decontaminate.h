// Decontamination: finds the training kernels (the `preprocessed` rows with
// status 'ok' of the newest preprocessor version) that are identical or nearly
// identical to a kernel of an evaluation set, and records them in the
// `decontaminated` table, which the training-set readers exclude
// (decontaminated_sql.h). The evaluation files go through the training set's
// own pipeline (rewrite_kernels: one normalized text per kernel with only what
// it reaches), so each evaluation kernel is compared with each training
// kernel in the form training sees it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/local_source.h"
#include "corpus/preprocess/preprocess.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

// The `rule` column of the `decontaminated` table.
namespace decontamination_rule {
inline constexpr const char* kIdentical = "identical";                    // same token sequence
inline constexpr const char* kNgramOverlapTrain = "ngram_overlap_train";  // the training kernel is in the eval kernel
inline constexpr const char* kNgramOverlapEval = "ngram_overlap_eval";    // the eval kernel is in the training kernel
// The same two, on name-insensitive tokens (every renamed identifier one class).
inline constexpr const char* kShapeOverlapTrain = "shape_overlap_train";
inline constexpr const char* kShapeOverlapEval = "shape_overlap_eval";
}  // namespace decontamination_rule

struct DecontaminateOptions {
  double threshold = 0.8;  // fraction of renamed-token n-grams shared that drops a kernel, in (0, 1]
  int ngram = 8;           // tokens per renamed-token n-gram, >= 1
  // Name-insensitive n-grams: longer and with a higher bar, since a text
  // whose names are all one class shares more with unrelated code (the
  // values are measured against unrelated kernels: docs/CORPUS.md).
  double shape_threshold = 0.9;  // in (0, 1]
  int shape_ngram = 16;          // >= 1
  size_t shape_min_ngrams = 40;  // both texts need this many distinct shape n-grams
};

// The rule in words, with the options' values, for --help, the output and docs.
std::string decontamination_rule_text(const DecontaminateOptions& options);

// The name-insensitive tokens of `text` as hashes (c_tokens order): every
// identifier the renamer generates (generated_names.h: a..zzzz, A..ZZZZ) that
// is not a keyword, type or builtin of at most four letters becomes one class;
// every other token is kept. For a text that was not normalized (raw tokens),
// every identifier outside `kept` (the hashes of identifiers this function
// keeps in the training texts, shape_kept_identifiers) becomes the class.
std::vector<uint64_t> shape_token_hashes(std::string_view text, bool normalized,
                                         const std::unordered_set<uint64_t>* kept = nullptr);

// The distinct n-grams of shape_token_hashes(text, ...), sorted, taken within
// each top-level declaration (a run of tokens ending at a `;` or `}` outside
// any bracket), so the order of a kernel's helpers does not change them.
std::vector<uint64_t> shape_ngram_hashes(std::string_view text, bool normalized, int n,
                                         const std::unordered_set<uint64_t>* kept = nullptr);

// One evaluation kernel, ready for comparison.
struct EvaluationKernel {
  std::string path;         // absolute: the evaluation directory's real path + the file's relative path
  std::string kernel;       // the kernel's name in the file; for a raw entry the kernels it stands for ("" = the file)
  std::string text;         // normalized text, or the raw token stream joined by spaces
  bool normalized = false;  // false: compared by the file's comment-stripped raw tokens
  std::string note;         // why it was not normalized ("rejected [parse_error]: ...")
};

// "path:kernel", or the path alone for a whole-file entry.
std::string evaluation_kernel_name(const EvaluationKernel& k);

// The evaluation entries of one file's rewrite_kernels result: one normalized
// entry per accepted kernel; when the file is rejected, or some kernel of it
// is, one raw entry for the file (its tokens, comments and whitespace dropped,
// qualifiers canonical) standing for what was not accepted, `note` saying why.
std::vector<EvaluationKernel> evaluation_kernels_of(const std::string& path, std::string_view text,
                                                    const FileRewriteResult& result);

struct EvaluationSet {
  std::string root;                       // real path of the directory
  size_t files = 0;                       // OpenCL files read
  std::vector<EvaluationKernel> kernels;  // by file path, then kernel order in the file
  std::vector<std::string> skipped;       // "path: why" (too large, unreadable, symlink leaving the directory)
};

struct ReadEvaluationOptions {
  CompileOptions compile;                    // as `corpus preprocess` takes them
  ClangBudget budget;                        // Clang's time and memory per file (untrusted text)
  LocalSourceOptions source;                 // -I and -D; the directory itself is searched last
  uint64_t max_file_bytes = kMaxInputBytes;  // larger files are skipped unread
  unsigned threads = 0;                      // normalizing threads; 0 = all cores
  bool progress = false;                     // progress line on stderr
};

// True for the evaluation set's file names: *.cl, *.ocl, *.clh, *.opencl in any case.
bool is_opencl_file_name(std::string_view name);

// Reads every OpenCL file under `dir`, recursively, and normalizes it as
// `corpus preprocess` normalizes a training file: includes inlined (beside
// the file, then the -I directories, then `dir`; never outside them), -D
// defines in front, a C++ raw-string wrapper stripped, kernel templates
// instantiated, then rewrite_kernels in a Clang worker under the budget.
// Symlinks are followed only to regular files inside `dir` (the others are
// skipped); directories reached through symlinks are not descended. Fails
// with kNotFound naming `dir` when it is missing or not a directory, or when
// no Clang worker starts.
Expected<EvaluationSet> read_evaluation_set(const std::string& dir, const ReadEvaluationOptions& options = {});

// One kernel of the training set.
struct TrainingKernel {
  std::string normalized_sha256;
  std::string text;
};

// A training kernel to drop, and why.
struct Contamination {
  std::string normalized_sha256;  // of the training kernel
  std::string against;            // the evaluation kernel's file
  std::string against_kernel;     // its kernel name ("" for a whole-file raw entry)
  std::string rule;               // decontamination_rule::k*
  double score = 1;               // 1 for identical, else the fraction of n-grams shared
};

// The identifiers shape_token_hashes keeps in `training` (for raw entries).
std::unordered_set<uint64_t> shape_kept_identifiers(const std::vector<TrainingKernel>& training);

// The comparison, without a database. Tokenizes both sides (c_tokens); a
// training kernel is dropped when (a) its token sequence equals an evaluation
// kernel's; or, on renamed tokens where both have at least `ngram` distinct
// n-grams, (b) at least `threshold` of its n-grams occur in one evaluation
// kernel or (c) at least `threshold` of one evaluation kernel's n-grams occur
// in it; or (d, e) the same as b and c on shape tokens with `shape_ngram`,
// `shape_threshold`, and at least `shape_min_ngrams` distinct n-grams on both
// sides. Returns one entry per dropped kernel, its strongest match (identical
// first, then the highest score; ties go to the first evaluation kernel and,
// within one, to b, c, d, e in that order), in `training`'s order. Inverted
// indexes (n-gram -> evaluation kernels) keep it linear in the n-grams that
// match; `threads` of 0 means all cores; `progress` draws a line on stderr.
std::vector<Contamination> find_contamination(const std::vector<TrainingKernel>& training,
                                              const std::vector<EvaluationKernel>& evaluation,
                                              const DecontaminateOptions& options = {}, unsigned threads = 0,
                                              bool progress = false);

// CREATE TABLE IF NOT EXISTS decontaminated (normalized_sha256 PRIMARY KEY,
// against, rule, score, at, against_kernel); a table made before
// against_kernel gains the column ('' in the rows it has).
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

// Where a training kernel came from: its first origin in the corpus tables.
struct TrainingOrigin {
  std::string repository;  // owner/name, or the source key; "" when unknown
  std::string path;        // the file's path in it
  std::string kernel;      // the kernel's name in that file
};

// The origin of each of `normalized_sha256s` (newest version's ok rows, the
// least repository id, then path); empty fields when unknown or when the
// corpus tables are missing.
Expected<std::vector<TrainingOrigin>> training_origins(Database& db,
                                                       const std::vector<std::string>& normalized_sha256s);

struct DecontaminateRunOptions {
  DecontaminateOptions compare;
  ReadEvaluationOptions read;
  bool dry_run = false;  // find and report, record nothing
};

struct DecontaminateReport {
  EvaluationSet evaluation;
  uint64_t compared = 0;                    // training kernels compared
  std::vector<Contamination> drops;         // as find_contamination returns them
  std::vector<TrainingOrigin> origins;      // training_origins of the drops
  std::map<std::string, uint64_t> by_rule;  // rule -> drops
  uint64_t recorded_total = 0;              // rows of the table after the run (0 with dry_run)
  double evaluation_seconds = 0;            // reading and normalizing the evaluation set
  double compare_seconds = 0;               // find_contamination
};

// The whole command: reads the evaluation set and the training set, finds the
// contamination and (unless dry_run) records it. Fails when `dir` or the
// preprocessed table is missing, or the database cannot be written.
Expected<DecontaminateReport> decontaminate(Database& db, const std::string& dir,
                                            const DecontaminateRunOptions& options);

}  // namespace clgen::preprocess
