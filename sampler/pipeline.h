// `clgen sample` as a library call: a sampling thread feeds a bounded queue,
// rejection-filter workers compile and normalize each sample (the preprocess
// API, each in its own Clang worker process: sampler/clang_filter.h), and
// the store deduplicates against everything sampled before and against the
// training corpus, records every sample in the workspace database and
// writes accepted kernels as .cl files.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "corpus/preprocess/budget.h"
#include "sampler/batch_sampler.h"
#include "sampler/clang_filter.h"
#include "sampler/constraint_tables.h"
#include "sampler/directed.h"
#include "sampler/stream_model.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

// The n of the near-copy check's token n-grams (SampleOptions::near_copy),
// as `clgen eval realism` counts near copies.
inline constexpr int kNearCopyNgram = 8;

// `clgen sample`'s options; the command line binds to these fields, so
// their defaults are the command's.
struct SampleOptions : StreamOptions {
  std::string args;               // --args spec; "" = the model chooses the signature
  // -n: stop once this many new unique kernels of the run's draw key (model,
  // args, seed, shard, policy) are stored, counting earlier runs' too; 0 = no limit.
  uint64_t target_accepted = 10;
  uint64_t max_samples = 0;       // stop after this many samples; 0 = no limit
  double time_limit = 0;          // seconds; 0 = no limit
  // At the time limit, and when SampleHooks::stop holds, the samples in
  // flight run to their end and are filtered and stored (BatchSampler::run's
  // drain), so the run keeps every sample it began and does not favour short
  // ones. Off: such a stop drops them. -n, --max-samples and an interrupt
  // stop at once either way.
  bool drain = true;
  // A sample the filter rejects for a compile error on line L is drawn again
  // from its lines before L (sampler/error_resume.h), at most this many times
  // along one chain of resumes; 0 = off. Undirected runs of an unconditioned
  // model only, and not with --args on whole texts. The streams take queued
  // resumes before fresh samples, in the order the filter rejects: a run is
  // no longer reproduced by its seed.
  int resume_errors = 0;
  // The shard (StreamOptions::shard) also marks the stored rows "I/N"; {0, 1}
  // is an unsharded run, stored as such.
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
  // The static usefulness check (corpus/preprocess/usefulness.h) after the
  // compile filter: kernels that provably write nothing input-dependent are
  // rejected under its categories.
  bool usefulness_check = true;
  // A new kernel whose token 8-grams (kNearCopyNgram) lie at least this
  // share in one kernel of the corpus is stored as a near copy, not
  // accepted; 0 = off. An exact copy is a training copy at any setting.
  double near_copy = 0.8;
  // The filter's Clang work runs in one clgen-clang-worker per filter thread
  // under this budget (corpus/preprocess/budget.h): a sample that exceeds it
  // is stored as rejected (time_limit, memory_limit; a crash: clang_crash)
  // and sampling goes on. isolated = false: in this process, without limits.
  preprocess::ClangBudget filter_budget = default_filter_budget();
  // Directed sampling (sampler/directed.h, docs/SAMPLER.md): non-empty =
  // streams restart from prefixes of kernels near these targets, and every
  // accepted kernel's Grewe features are extracted; with
  // director.baseline_slice_seconds, undirected slices alternate with
  // directed ones.
  std::vector<Target> targets;
  // What chose the targets ("features", "held-out" or "explore"), stored
  // with every steered sample (samples.steering): exports tell the arms apart.
  std::string steering;
  DirectorOptions director;
};

// Ways a caller takes part in a run (`sample --check`): on_accepted and stop
// are called on the store thread, on_director on the caller's.
struct SampleHooks {
  // Every new unique accepted kernel's normalized text, once counted (its
  // row is written with the next batch); may block, and the caller's pace
  // then limits sampling.
  std::function<void(const std::string& normalized_text)> on_accepted;
  // Polled between samples: true stops the run (a stop condition of its own,
  // so target_accepted, max_samples and time_limit may all be unset).
  std::function<bool()> stop;
  // Directed sampling: the run's director, once, before the first stream
  // starts (`--graded-steering` hands it the checker's verdicts).
  std::function<void(const std::shared_ptr<Director>&)> on_director;
};

struct SampleSummary {
  uint64_t samples = 0;  // samples stored by this run
  uint64_t accepted = 0; // new unique kernels
  // Accepted samples of this run's draw key (model, args, seed, shard,
  // policy; sampler/store.h DrawKey) stored by earlier runs: -n counts them
  // with `accepted`.
  uint64_t accepted_before = 0;
  uint64_t replayed = 0;  // draws stored by an earlier run: drawn again, neither filtered nor stored
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
  // Directed sampling: the search's final state (nearest kernels per target,
  // directed and baseline), streams started from a kernel's prefix or
  // refused one, tokens replayed, and accepted kernels whose features could
  // not be extracted (not counted toward any target).
  std::shared_ptr<const Director> director;
  uint64_t starts_replayed = 0, starts_refused = 0, forced_tokens = 0, unfeatured = 0;
  uint64_t repairs = 0, repair_tokens = 0;  // streams backed up instead of abandoned (--repairs)
  uint64_t backtracks = 0;                  // names taken back after a refusal (--backtracks)
  uint64_t drained = 0;                     // samples finished after the stop (SampleOptions::drain)
  double drain_seconds = 0;                 // ... and the time they took
  // --resume-errors: prefixes queued (and dropped by a full queue), samples
  // begun from one, and those accepted.
  uint64_t resumes_queued = 0, resumes_dropped = 0, resumed = 0, resumed_accepted = 0;
  // "model", "filter" or "store": the stage with the highest utilization.
  std::string bottleneck() const;
};

// Samples from `model` until a stop condition holds (target, max samples,
// time limit, interrupt); at least one of target_accepted, max_samples and
// time_limit must be set. Every sample is stored in `db` (samples table,
// created if needed); `db` also provides the training hashes (preprocessed).
// Resumable and safe beside other processes sampling into `db`: a draw
// (DrawKey, sample_index) stored before is drawn again but not stored, the
// run returns at once when the key already has target_accepted accepted
// samples, and store_samples settles kernels two processes accept at once.
// Fails on a bad spec, a model error or a database error; samples stored
// before a failure are kept.
Expected<SampleSummary> run_sampling(StreamModel& model, Database& db, const SampleOptions& options,
                                     const SampleHooks& hooks = {});

}  // namespace clgen::sampler
