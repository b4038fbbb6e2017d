// The sampler's table in the workspace database: every sample with its
// verdict, and the hash sets that deduplicate new samples.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sampler/targets.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

// Sample statuses (the `status` column).
namespace sample_status {
inline constexpr const char* kAccepted = "accepted";           // new, compiles, normalized
inline constexpr const char* kRejected = "rejected";           // failed the filter (see category)
inline constexpr const char* kRewriteBug = "rewrite_bug";      // the rewriter broke it
inline constexpr const char* kTruncated = "truncated";         // hit --max-length or the end token
inline constexpr const char* kDuplicate = "duplicate";         // same normalized text sampled before
inline constexpr const char* kTrainingCopy = "training_copy";  // verbatim copy of a training kernel
inline constexpr const char* kNearCopy = "near_copy";          // most of its token 8-grams are in one training kernel
inline constexpr const char* kWrongPrototype = "wrong_prototype";  // not the requested signature
}  // namespace sample_status

// CREATE TABLE IF NOT EXISTS samples (id, text, normalized_text,
// normalized_sha256, status, category, reason, args, model_id, temperature,
// top_k, top_p, seed, sample_index, tokens, sample_seconds, filter_seconds,
// instruction_count, shard, created_at, target, target_features, steering)
// and its indexes; adds `shard`, `target`, `target_features` and `steering`
// to a table created before they existed. Fails with the database's error.
Status ensure_sampler_schema(Database& db);

struct SampleRow {
  std::string text;
  std::string normalized_text;    // empty unless the filter passed
  std::string normalized_sha256;  // empty unless the filter passed
  std::string status;             // one of sample_status::k*
  std::string category;           // rejection category, empty when accepted
  std::string reason;
  std::string args;               // the --args spec ("" = free signature)
  std::string model_id;
  double temperature = 0;
  int top_k = 0;
  double top_p = 1;
  uint64_t seed = 0;
  uint64_t sample_index = 0;
  int tokens = 0;
  double sample_seconds = 0;
  double filter_seconds = 0;
  int64_t instruction_count = 0;
  std::string shard;              // "I/N" of a sharded run, empty otherwise
  // Directed sampling: the target the sample's stream was steered to (its
  // label, and its Grewe values as grewe_values() writes them); empty (NULL)
  // for undirected samples.
  std::string target, target_features;
  std::string steering;  // what chose the target (SampleOptions::steering); empty for undirected samples
  // Not stored: the constraint's refused draws, the stream's start tag
  // (RawSample::tag) and, for accepted kernels of a directed run, their
  // Grewe features.
  int refusals = 0;
  int64_t start_tag = -1;
  std::optional<GreweVector> features;
};

// Inserts rows in one transaction (store_samples without a target).
Status insert_samples(Database& db, const std::vector<SampleRow>& rows);

// What `-n` counts and a rerun replays: the samples of one model, --args,
// seed, shard and policy (temperature, top-k, top-p), the stored columns
// that decide a run's draws. `sample_index` then names one draw.
struct DrawKey {
  std::string model_id, args, shard;  // shard "" = unsharded (NULL)
  uint64_t seed = 0;
  double temperature = 0;
  int top_k = 0;
  double top_p = 1;
};
// The key of a stored row.
DrawKey draw_key_of(const SampleRow& row);

// Accepted samples stored under `key`. Fails with the database's error.
Expected<uint64_t> count_accepted(Database& db, const DrawKey& key);
// (normalized_sha256, normalized_text) of every accepted sample stored under
// `key`. Fails with the database's error.
Expected<std::vector<std::pair<std::string, std::string>>> accepted_kernels(Database& db, const DrawKey& key);
// sample_index of every sample stored under `key`: the draws a rerun skips.
Expected<std::unordered_set<uint64_t>> stored_sample_indices(Database& db, const DrawKey& key);

// The seed of the newest sample stored for `model_id`, `args` and `shard`
// ("" = unsharded): the run `sample --resume` continues; nullopt when none is
// stored (or no samples table exists yet). Fails with the database's error.
Expected<std::optional<uint64_t>> latest_seed(Database& db, const std::string& model_id, const std::string& args,
                                              const std::string& shard);

// What became of one row given to store_samples.
enum class RowFate {
  kStored,           // inserted as it was
  kStoredDuplicate,  // accepted, but another process accepted the same kernel first: inserted as a duplicate
  kAlreadyStored,    // its draw (key, sample_index) was stored before: left out
  kOverTarget,       // the key already had `target` accepted samples: left out
};

struct StoreResult {
  std::vector<RowFate> fates;   // one per row, in order
  uint64_t accepted_total = 0;  // the key's accepted samples afterwards
};

// Inserts rows (all of one DrawKey) in one BEGIN IMMEDIATE transaction, so
// that processes sampling into one database at once never collide: a draw
// stored before is left out, an accepted kernel that is already accepted
// becomes a duplicate, and with a non-zero `target` nothing more is stored
// once the key has `target` accepted samples (rows are taken in order).
// Fails with the database's error, storing nothing.
Expected<StoreResult> store_samples(Database& db, const std::vector<SampleRow>& rows, uint64_t target);

// normalized_sha256 of every accepted sample so far.
Expected<std::unordered_set<std::string>> accepted_sample_hashes(Database& db);

// The normalized texts of the newest `limit` accepted samples, newest first.
Expected<std::vector<std::string>> newest_accepted_texts(Database& db, size_t limit);

// normalized_sha256 of every training kernel (`preprocessed` rows with status
// 'ok'); empty when the table does not exist.
Expected<std::unordered_set<std::string>> training_kernel_hashes(Database& db);
// The normalized texts of the corpus as last preprocessed (what the model
// trains on); empty without a `preprocessed` table.
Expected<std::vector<std::string>> training_texts(Database& db);

}  // namespace clgen::sampler
