// The model's tables in the workspace database (training_runs,
// training_metrics, checkpoints) and the query for the training corpus.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

struct EpochRecord {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  std::optional<double> valid_loss;  // absent without a validation split
  double learning_rate = 0;
  uint64_t tokens = 0;
  double seconds = 0;
};

// training_runs: one row per `clgen train` invocation; returns its id.
Expected<int64_t> begin_training_run(Database& db, const std::string& model_id,
                                     const std::string& config_text, const std::string& corpus_sha256,
                                     const std::string& vocabulary, int vocab_size,
                                     const std::string& device, int start_epoch);
Status finish_training_run(Database& db, int64_t run_id, const std::string& status, int end_epoch);
Status record_epoch(Database& db, const std::string& model_id, int64_t run_id, const EpochRecord& e);
Status record_checkpoint(Database& db, const std::string& model_id, int64_t run_id, int epoch,
                         int batch, const std::string& path, const std::string& reason);

}  // namespace clgen::model
