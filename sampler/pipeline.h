// `clgen sample` as a library call: a sampling thread feeds a bounded queue,
// rejection-filter workers compile and normalize each sample (the preprocess
// API), and the store deduplicates against everything sampled before and
// against the training corpus, records every sample in the workspace
// database and writes accepted kernels as .cl files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "sampler/constraint_tables.h"
#include "sampler/policy.h"
#include "sampler/shard.h"
#include "sampler/stream_model.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

struct SampleOptions {
  std::string args;            // --args spec; "" = the model chooses the signature
  uint64_t target_accepted = 0;  // -n: stop after this many new unique kernels; 0 = no limit
  uint64_t max_samples = 0;    // stop after this many samples; 0 = no limit
  double time_limit = 0;       // seconds; 0 = no limit
  int max_length = 5000;       // tokens per sample after the seed
  SamplingPolicy policy;
  uint64_t seed = 0;
  // The part of a sharded run this process samples: its streams' generators
  // follow stream_seed() (shard.h) and its rows record "I/N"; {0, 1} = an
  // unsharded run, stored as such.
  Shard shard;
  unsigned filter_threads = 0;  // 0 = cores - 1 (at least 1)
  std::string out_dir;          // accepted kernels as <normalized sha256>.cl; "" = none
  bool progress = true;         // progress line on stderr
  // Constrained decoding (sampler/code_constraint.h) with tables learned from
  // the training corpus; off = the model's raw distribution.
  bool constrain = true;
  // The model's constraint tables (saved by `clgen train`); null = learned
  // from the workspace's preprocessed corpus, for models trained before the
  // tables were saved with them.
  std::shared_ptr<const ConstraintTables> constraint_tables;
  // A constrained stream ends once this many of its draws were refused: it
  // has left what the model knows.
  int max_refusals = 4;
};

struct SampleSummary {
  uint64_t samples = 0;  // samples stored by this run
  uint64_t accepted = 0; // new unique kernels
  std::map<std::string, uint64_t> by_status;    // "accepted", "rejected", ...
  std::map<std::string, uint64_t> by_category;  // rejection categories
  // Samples, and samples that passed the filter, by refused draws ("0", "1",
  // "2-3", "4-7", ...).
  std::map<std::string, uint64_t> samples_by_refusals, passed_by_refusals;
  double seconds = 0;
  double model_seconds = 0;   // sampling thread inside the model
  double draw_seconds = 0;    // sampling thread choosing tokens
  double queue_wait_seconds = 0;  // sampling thread blocked on a full queue
  double filter_seconds = 0;  // summed over filter workers
  unsigned filter_threads = 0;
  double store_seconds = 0;   // database and .cl writes
  uint64_t tokens = 0;
  uint64_t redrawn = 0;       // draws the constraint refused and redrew
  bool interrupted = false;   // stopped by SIGINT/SIGTERM; stored work is kept
  std::string out_dir;
  // "model", "filter" or "store": the stage with the highest utilization.
  std::string bottleneck() const;
};

// Samples from `model` until a stop condition holds (target, max samples,
// time limit, interrupt); at least one of target_accepted, max_samples and
// time_limit must be set. Every sample is stored in `db` (samples table,
// created if needed); `db` also provides the training hashes (preprocessed).
// Fails on a bad spec, a model error or a database error; samples stored
// before a failure are kept.
Expected<SampleSummary> run_sampling(StreamModel& model, Database& db, const SampleOptions& options);

}  // namespace clgen::sampler
