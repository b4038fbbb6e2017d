// The model's tables in the workspace database (training_runs,
// training_metrics, checkpoints) and the query for the training corpus.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::model {

// Creates the model's tables if missing.
Status ensure_model_schema(Database& db);

// The training corpus: normalized text of every preprocessed kernel with
// status 'ok', one per distinct normalized_sha256, ordered by that hash (so
// the corpus and its hash do not depend on insertion order). Fails with a
// message to run `clgen corpus preprocess` when the table is missing or empty.
// Only the newest preprocessor version's results count (the version of the
// last row stored). `max_chars` > 0 keeps only texts of at most that many bytes.
// Kernels recorded in the `decontaminated` table are left out.
Expected<std::vector<std::string>> read_training_texts(Database& db, int64_t max_chars = 0);

// One normalized kernel of the corpus and the repository it came from (owner/name,
// else the source key such as "package:pocl-tests"; "" when the corpus tables
// are absent).
struct CorpusKernel {
  std::string sha256;  // of text
  std::string text;
  std::string repository;
  std::string domain;  // the repository's application domain ("" when unknown)
  bool host_code = false;  // recovered from host code only (preprocess::CatalogKernel::host_code)
};

// The kernels read_training_texts returns, with their repositories; without
// `opencl20`, only those stored as OpenCL C 1.2 (`preprocessed.language`;
// tables from before that column hold only OpenCL C 1.2 kernels).
Expected<std::vector<CorpusKernel>> read_corpus_kernels(Database& db, int64_t max_chars = 0,
                                                        bool opencl20 = true);

// The texts a model trains and validates on.
struct TrainingTexts {
  std::vector<std::string> texts;  // the training texts, then the held-out ones
  // validation_split = "repository": the last `held_out` texts validate, and
  // they come from `held_out_repositories` only. 0 with the "kernel" split
  // (the trainer then holds out validation_fraction of the texts at random).
  size_t held_out = 0;
  std::vector<std::string> held_out_repositories;
  std::map<std::string, int64_t> capped;  // repository -> kernels left out by the per-repository cap
  std::map<std::string, int64_t> domain_capped;  // repository -> kernels left out by the capped-domain pool
  std::map<std::string, int64_t> chars_capped;   // repository -> kernels left out by max_repository_chars
  std::map<std::string, int64_t> share_capped;   // repository -> kernels left out by max_repository_share
  int64_t share_cap_chars = 0;                   // the character cap max_repository_share set (0 when it cut nothing)
  int64_t left_out_default_corpus = 0;           // kernels left out by default_corpus = false
  int64_t left_out_host_code = 0;                // kernels left out by host_code = false
  std::vector<std::string> sha256;        // of each text, in the order of `texts`
  // training.feature_prefix: each text's feature header (model/feature_prefix.h),
  // "" for a kernel whose features could not be extracted (it is trained on
  // without one); empty without the option.
  std::vector<std::string> headers;
  std::size_t headerless = 0;  // texts whose features could not be extracted
  // The texts the model learns from (all but the held-out ones).
  std::vector<std::string> training_only() const;
  // What the model reads: each text after its header (the texts themselves
  // without training.feature_prefix). The model id hashes these.
  std::vector<std::string> model_texts() const;
};

// Applies the config's corpus selection to `kernels` (sorted by sha256 as
// read_corpus_kernels returns them):
//  * default_corpus = false and host_code = false leave out those kernels first;
//  * max_kernels_per_repository keeps each repository's kernels of lowest sha256,
//    and max_repository_chars those whose running total of characters stays
//    within the cap (a repository's kept kernels are a prefix of its kernels);
//  * max_kernels_in_capped_domains then keeps the lowest-sha256 kernels of the
//    pool of repositories whose domain contains a capped_domain_words word;
//  * max_repository_share then cuts every repository to its kernels of lowest
//    sha256 within one character cap C, starting at the largest repository's
//    characters and lowered to floor(share x the total kept) until no
//    repository keeps more than share x the total;
//  * validation_split = "repository" visits repositories in the order of
//    sha256(seed + ":" + repository) and holds each out while the held-out
//    kernels stay below validation_fraction of all kernels; a repository
//    larger than that share alone is never held out, and at least one
//    repository is kept for training.
TrainingTexts select_training_texts(const std::vector<CorpusKernel>& kernels, const TrainingConfig& t);

// read_corpus_kernels(db, t.max_file_chars) followed by select_training_texts;
// with t.feature_prefix, also each text's header, from the features cached
// in the database (cached_kernel_features, which computes and stores those
// it lacks).
Expected<TrainingTexts> read_training_set(Database& db, const TrainingConfig& t);

struct EpochRecord {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  std::optional<double> valid_loss;  // absent without a validation split
  double learning_rate = 0;
  uint64_t tokens = 0;
  double seconds = 0;
};

// training_runs: one row per `clgen train` invocation, 'running' with this
// process's host, pid and start time; returns its id. First closes the rows
// of runs that died (close_stale_training_runs).
Expected<int64_t> begin_training_run(Database& db, const std::string& model_id,
                                     const std::string& config_text, const std::string& corpus_sha256,
                                     const std::string& vocabulary, int vocab_size,
                                     const std::string& device, int start_epoch);
// Rows still 'running' whose process, of this host, has ended (killed with
// SIGKILL, so nothing marked them) become 'interrupted', with end_epoch the
// epochs of their last recorded checkpoint (start_epoch without one) and
// finished_at NULL: when the process died is unknown. Rows of other hosts,
// and of processes that may still run them, stay. Returns how many changed.
Expected<int> close_stale_training_runs(Database& db);
Status finish_training_run(Database& db, int64_t run_id, const std::string& status, int end_epoch);
Status record_epoch(Database& db, const std::string& model_id, int64_t run_id, const EpochRecord& e);
Status record_checkpoint(Database& db, const std::string& model_id, int64_t run_id, int epoch,
                         int batch, const std::string& path, const std::string& reason);
// record_checkpoint unless the model already has a row for (epoch, batch).
Status record_checkpoint_once(Database& db, const std::string& model_id, int64_t run_id, int epoch, int batch,
                              const std::string& path, const std::string& reason);

}  // namespace clgen::model
