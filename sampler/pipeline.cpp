// The sampling pipeline: sampler thread -> queue -> filter workers -> store.
#include "sampler/pipeline.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "sampler/arg_spec.h"
#include "sampler/batch_sampler.h"
#include "sampler/error_resume.h"
#include "sampler/near_copies.h"
#include "sampler/policy.h"
#include "sampler/start_headers.h"
#include "sampler/store.h"
#include "support/bounded_queue.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/progress.h"
#include "support/sha256.h"
#include "support/text.h"

namespace clgen::sampler {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The filter's verdict on one sample, before deduplication; the Clang part
// in `clang` (this thread's worker). Errors: the worker's set-up errors.
// A stream whose prefix was refused started from the seed: undirected,
// unless `conditioned` (it still read its target's header).
Expected<SampleRow> filter_sample(const RawSample& raw, int max_length, double correction, uint64_t seed,
                                  preprocess::ClangWorkers& clang, const ClangFilterOptions& options,
                                  bool conditioned) {
  SampleRow row;
  row.start_tag = raw.start_refused && !conditioned ? Director::kPlain : raw.tag;
  row.text = raw.text;
  row.sample_index = raw.index;
  row.tokens = raw.tokens;
  row.refusals = raw.refusals;
  row.sample_seconds = raw.seconds;
  if (!raw.complete) {
    row.status = sample_status::kTruncated;
    row.category = raw.dead_end ? "refused" : raw.tokens >= max_length ? "max_length" : "end_token";
    row.reason = raw.dead_end ? "the constraint refused --max-refusals of the model's draws (or allowed no token)" +
                                    (raw.refused_draws.empty() ? "" : "; refused at character: " + raw.refused_draws)
                 : raw.tokens >= max_length ? fmt::format("reached the maximum length of {} tokens", max_length)
                                            : "the model ended the text before its kernel closed";
    return row;
  }
  if (correction > 0) {
    // Importance thinning (StreamOptions::correction), decided by the draw's
    // own seeded coin, so a rerun keeps the same samples.
    const double keep = std::min(1.0, std::exp(raw.log_weight) / correction);
    const double coin = double(splitmix64(seed ^ splitmix64(raw.index + 1)) >> 11) * 0x1.0p-53;
    if (coin >= keep) {
      row.status = sample_status::kRejected;
      row.category = "thinned";
      row.reason = fmt::format(
          "importance thinning: the constraint left this text {:.3g} of the model's probability; kept with "
          "probability {:.3g}",
          std::exp(raw.log_weight), keep);
      return row;
    }
  }
  ASSIGN_OR_RETURN(ClangFilterVerdict v, filter_with_clang(clang, raw.text, options));
  row.status = std::move(v.status);
  row.category = std::move(v.category);
  row.reason = std::move(v.reason);
  row.instruction_count = v.instruction_count;
  row.features = v.features;
  if (!v.normalized_text.empty()) {
    row.normalized_text = std::move(v.normalized_text);
    row.normalized_sha256 = sha256_hex(row.normalized_text);
  }
  return row;
}

// What a whole-text stream reads before its separator: the last
// kTailChars characters (from a line start) of kTails training texts picked
// by `seed`. A tail is enough for the model to be where a text ends; few and
// short, so the model's cache of start states holds them all.
std::vector<std::string> text_tails(std::vector<std::string> texts, uint64_t seed) {
  constexpr size_t kTails = 64, kTailChars = 256;
  Rng rng(seed ^ 0x7461696c73ULL);
  for (size_t i = 0; i < texts.size() && i < kTails; ++i)
    std::swap(texts[i], texts[i + size_t(rng.next() % (texts.size() - i))]);
  texts.resize(std::min(texts.size(), kTails));
  for (std::string& t : texts) {
    if (t.size() <= kTailChars) continue;
    size_t from = t.find('\n', t.size() - kTailChars);
    t = t.substr(from == std::string::npos ? t.size() - kTailChars : from + 1);
  }
  return texts;
}

// Removes the temporary files (NAME.tmp.PID, write_file_atomic's) that a run
// killed while writing a .cl file left in `dir`; a live process's are kept.
void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.rfind(".tmp.");
    if (at == std::string::npos) continue;
    std::optional<uint64_t> pid = parse_uint64(name.substr(at + 5));
    if (!pid || *pid == 0 || *pid > uint64_t(std::numeric_limits<pid_t>::max())) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) (void)remove_file(entry.path().string());
  }
}

// The columns of a row that name its draw (DrawKey), from the run's options.
void set_draw_key(SampleRow& row, const SampleOptions& opts, const std::string& model_id) {
  row.args = opts.args;
  row.model_id = model_id;
  row.temperature = opts.policy.temperature;
  row.top_k = opts.policy.top_k;
  row.top_p = opts.policy.top_p;
  row.seed = opts.seed;
  row.shard = opts.shard.sharded() ? opts.shard.str() : "";
}

// Options that cannot run, refused before the workspace is touched.
Status check_options(const SampleOptions& opts, const SampleHooks& hooks) {
  if (opts.target_accepted == 0 && opts.max_samples == 0 && opts.time_limit <= 0 && !hooks.stop)
    return invalid_argument("sampling needs a stop condition: -n, --max-samples or --time-limit");
  if (opts.max_length <= 0) return invalid_argument("--max-length must be positive");
  if (opts.resume_errors < 0) return invalid_argument("--resume-errors must not be negative");
  if (opts.resume_errors > 0 && opts.whole_text && !opts.args.empty())
    return invalid_argument("--resume-errors does not work with --args on whole texts");
  if (opts.policy.temperature < 0) return invalid_argument("--temperature must not be negative");
  if (opts.policy.top_p <= 0 || opts.policy.top_p > 1) return invalid_argument("--top-p must be in (0, 1]");
  if (opts.policy.top_k < 0) return invalid_argument("--top-k must not be negative");
  if (!(opts.correction >= 0 && opts.correction <= 1)) return invalid_argument("--correction must be in [0, 1]");
  if (opts.shard.count < 1 || opts.shard.index < 0 || opts.shard.index >= opts.shard.count)
    return invalid_argument("--shard " + opts.shard.str() + ": expected 0 <= I < N");
  return ok_status();
}

// Creates --out-dir and cleans it of stale temporaries. A .cl file is
// written after its row commits: a run killed in between left accepted
// kernels of `key` without their files, written here.
Status prepare_out_dir(Database& db, const SampleOptions& opts, const DrawKey& key, uint64_t accepted_before) {
  std::error_code ec;
  std::filesystem::create_directories(opts.out_dir, ec);
  if (ec) return io_error(fmt::format("creating {}: {}", opts.out_dir, ec.message()));
  remove_stale_temporaries(opts.out_dir);
  if (!accepted_before) return ok_status();
  ASSIGN_OR_RETURN(auto kernels, accepted_kernels(db, key));
  for (const auto& [sha, text] : kernels) {
    const std::string path = opts.out_dir + "/" + sha + ".cl";
    if (!std::filesystem::exists(path, ec)) RETURN_IF_ERROR_CTX(write_file_atomic(path, text), "writing " + path);
  }
  return ok_status();
}

// The constraint's tables: the model's, else learned from the workspace's
// preprocessed corpus; null for unconstrained sampling.
Expected<std::shared_ptr<const ConstraintTables>> constraint_tables_of(Database& db, const SampleOptions& opts) {
  std::shared_ptr<const ConstraintTables> tables = opts.constrain ? opts.constraint_tables : nullptr;
  if (opts.constrain && !tables) {
    ASSIGN_OR_RETURN(auto texts, training_texts(db));
    if (texts.empty())
      return not_found(
          "constrained sampling learns its identifiers from the preprocessed corpus, and the "
          "workspace has none: run `clgen corpus preprocess`, or sample with --no-constrain");
    tables = std::make_shared<const ConstraintTables>(ConstraintTables::from_corpus(texts));
  }
  return tables;
}

// Counts a row in the summary (+1), or takes it out again (-1) when the
// store leaves it out or stores it as a duplicate.
void account(SampleSummary& sum, const SampleRow& row, int sign) {
  auto add = [sign](uint64_t& n) { n = sign > 0 ? n + 1 : n - 1; };
  add(sum.samples);
  add(sum.by_status[row.status]);
  if (!row.category.empty()) add(sum.by_category[row.category]);
  if (row.status == sample_status::kAccepted) add(sum.accepted);
  // Refused draws per sample, in powers of two: how many passing samples
  // a lower --max-refusals would have ended.
  int r = row.refusals, lo = 0;
  while (lo * 2 + (lo == 0) <= r) lo = lo == 0 ? 1 : lo * 2;
  std::string bucket = r == 0 ? "0" : lo == 1 ? "1" : fmt::format("{}-{}", lo, 2 * lo - 1);
  add(sum.samples_by_refusals[bucket]);
  if (row.status == sample_status::kAccepted || row.status == sample_status::kDuplicate ||
      row.status == sample_status::kTrainingCopy || row.status == sample_status::kNearCopy)
    add(sum.passed_by_refusals[bucket]);
}

// What a run reads from the workspace before it starts.
struct RunInputs {
  std::string seed;                           // the streams' seed text ("" for whole texts)
  std::string prototype;                      // the kernel prototype the filter checks ("" without --args)
  std::unordered_set<uint64_t> drawn_before;  // the key's draws stored by earlier runs
  std::unordered_set<std::string> seen;       // accepted kernels' hashes (the store adds its own)
  std::unordered_set<std::string> training;   // training kernels' hashes
  std::shared_ptr<const NearCopies> near;     // the corpus by n-grams; null without --near-copy
  std::shared_ptr<const ConstraintTables> tables;
  unsigned workers = 1;  // filter threads
};

// One run's three stages: the sampling thread feeds raw_queue_, filter
// workers turn its samples into rows in results_, and the store (the
// caller's thread) takes the rows in draw order, deduplicates and stores
// them.
class SamplingRun {
 public:
  SamplingRun(StreamModel& model, Database& db, const SampleOptions& opts, const SampleHooks& hooks, RunInputs in,
              SampleSummary sum);
  Expected<SampleSummary> run();

 private:
  bool time_up() const { return opts_.time_limit > 0 && since(start_) >= opts_.time_limit; }
  Expected<BatchSamplerOptions> sampler_options();
  Status set_starts(BatchSamplerOptions& bopts);
  void queue_resume(const RawSample& raw, const SampleRow& row);
  std::thread start_sampling(BatchSampler& sampler);
  std::vector<std::thread> start_filters();
  void filter_worker();
  void mark_copy(SampleRow& row) const;
  std::optional<SampleRow> pop_in_order();
  void store_rows(Progress& progress);
  bool store_row(SampleRow& row, Progress& progress);
  void note_target(SampleRow& row);
  Status flush();
  bool key_done() const { return opts_.target_accepted && accepted_total_ >= opts_.target_accepted; }
  Expected<SampleSummary> finish(const BatchSamplerStats& stats);

  StreamModel& model_;
  Database& db_;
  const SampleOptions& opts_;
  const SampleHooks& hooks_;
  RunInputs in_;  // `seen` grows with the store's accepted kernels
  SampleSummary sum_;
  const Clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> draining_{false};  // SampleOptions::drain: no new sample; those in flight go on
  BoundedQueue<RawSample> raw_queue_;
  BoundedQueue<SampleRow> results_;
  // A feature-conditioned model's streams start after a header: their
  // target's, or one drawn from the training kernels' (start_headers.h).
  std::optional<StartHeaders> headers_;
  std::shared_ptr<Director> director_;
  std::optional<ResumeQueue> resumes_;  // --resume-errors
  // Sampling thread.
  Status sampler_status_;
  double queue_wait_ = 0;
  uint64_t produced_ = 0;
  // Filter workers. Importance thinning's coins: one per draw of this shard.
  const uint64_t coin_seed_;
  ClangFilterOptions filter_options_;
  std::atomic<uint64_t> replayed_{0};
  std::atomic<unsigned> live_workers_;
  std::mutex filter_mu_;
  Status filter_status_;  // the first worker set-up error
  // Store (this thread): dedupe, insert in batches, then write the .cl files
  // of what was stored as accepted.
  std::vector<SampleRow> pending_;
  Status store_status_;
  Clock::time_point last_commit_;
  uint64_t accepted_total_;  // the key's accepted samples at the last commit
  uint64_t pending_accepted_ = 0;
  // Rows are taken in draw order, whatever order the filter workers finish
  // in, so that which of two draws of one kernel is accepted, and the draw
  // at which -n is reached, depend on the seed alone. `early_` holds rows
  // that came before an earlier draw; draws an earlier run stored never
  // come, and those dropped at a stop are passed over once all is drained.
  std::map<uint64_t, SampleRow> early_;
  uint64_t next_draw_ = 0;
  // Draws begun during the drain (RawSample::discarded): never filtered, so
  // the store passes over their indices as over those drawn before. The
  // sampling thread adds an index before it hands over any later draw.
  std::mutex discarded_mu_;
  std::unordered_set<uint64_t> discarded_;
  bool passed_over(uint64_t index);
};

SamplingRun::SamplingRun(StreamModel& model, Database& db, const SampleOptions& opts, const SampleHooks& hooks,
                         RunInputs in, SampleSummary sum)
    : model_(model),
      db_(db),
      opts_(opts),
      hooks_(hooks),
      in_(std::move(in)),
      sum_(std::move(sum)),
      start_(Clock::now()),
      raw_queue_(std::max<size_t>(2 * in_.workers, model.streams())),
      results_(4096),
      coin_seed_(opts.seed ^ splitmix64(uint64_t(opts.shard.index) + 1)),
      live_workers_(in_.workers),
      accepted_total_(sum_.accepted_before) {}

Expected<SampleSummary> SamplingRun::run() {
  ASSIGN_OR_RETURN(BatchSamplerOptions bopts, sampler_options());
  RETURN_IF_ERROR(set_starts(bopts));
  BatchSampler sampler(model_, bopts);
  std::thread sampling = start_sampling(sampler);
  std::vector<std::thread> filters = start_filters();
  Progress progress("sample", opts_.max_samples, nullptr, opts_.progress ? -1 : 0);
  last_commit_ = Clock::now();
  store_rows(progress);
  sampling.join();
  for (auto& f : filters) f.join();
  if (store_status_.ok()) store_status_ = flush();
  progress.finish();
  return finish(sampler.stats());
}

Expected<BatchSamplerOptions> SamplingRun::sampler_options() {
  BatchSamplerOptions bopts;
  static_cast<StreamOptions&>(bopts) = opts_;
  bopts.seed_text = in_.seed;
  bopts.constraint = in_.tables.get();
  if (opts_.whole_text && !opts_.args.empty()) {
    ASSIGN_OR_RETURN(bopts.forced_args, parse_arg_spec(opts_.args));
    bopts.force_kernel = true;
  }
  if (opts_.whole_text) {
    ASSIGN_OR_RETURN(std::vector<std::string> texts, training_texts(db_));
    bopts.previous_texts = text_tails(std::move(texts), opts_.seed);
  }
  return bopts;
}

// Where streams start: a directed run's director picks a prefix (and its
// target's header), a conditioned model's streams read a header first.
Status SamplingRun::set_starts(BatchSamplerOptions& bopts) {
  headers_.emplace(model_, opts_.targets, opts_.seed);
  if (opts_.resume_errors > 0) {
    if (!opts_.targets.empty() || headers_->conditioned())
      return invalid_argument("--resume-errors works with undirected sampling of an unconditioned model only");
    resumes_.emplace(4 * size_t(model_.streams()));
    bopts.start = [this](int) {
      // A start during the drain is discarded: it takes no prefix.
      if (!draining_.load())
        if (std::optional<Resume> r = resumes_->pop()) return StreamStart{std::move(r->prefix), r->depth};
      return StreamStart{in_.seed, -1};
    };
    return ok_status();
  }
  if (!opts_.targets.empty()) {
    DirectorOptions dopts = opts_.director;
    dopts.conditioned = headers_->conditioned();
    director_ = std::make_shared<Director>(opts_.targets, in_.seed, dopts);
    if (hooks_.on_director) hooks_.on_director(director_);
    bopts.start = [this](int stream) {
      StreamStart start = director_->next(stream);
      start.context = headers_->header(start.tag);
      return start;
    };
  } else if (headers_->conditioned()) {
    bopts.start = [this](int) { return StreamStart{in_.seed, -1, headers_->header(-1)}; };
  }
  return ok_status();
}

std::thread SamplingRun::start_sampling(BatchSampler& sampler) {
  return std::thread([this, &sampler] {
    sampler_status_ = sampler.run(
        [this](RawSample&& s) {
          if (s.discarded) {  // begun during the drain: the store passes over its index
            std::lock_guard<std::mutex> lock(discarded_mu_);
            discarded_.insert(s.index);
            return true;
          }
          auto t = Clock::now();
          bool pushed = raw_queue_.push(std::move(s));
          queue_wait_ += since(t);
          if (!pushed) return false;
          ++produced_;
          return opts_.max_samples == 0 || produced_ < opts_.max_samples;
        },
        [this] { return stop_.load() || interrupted() || (!opts_.drain && time_up()); },
        [this] {
          if (opts_.drain && time_up()) draining_ = true;
          return opts_.drain && draining_.load();
        });
    raw_queue_.close();
  });
}

std::vector<std::thread> SamplingRun::start_filters() {
  filter_options_.prototype = in_.prototype;
  filter_options_.usefulness_check = opts_.usefulness_check;
  filter_options_.features = director_ != nullptr;
  std::vector<std::thread> filters;
  for (unsigned w = 0; w < in_.workers; ++w) filters.emplace_back([this] { filter_worker(); });
  return filters;
}

void SamplingRun::filter_worker() {
  // This thread's own Clang worker: a worker dies with the thread that
  // started it (budget.h), so it is started and stopped here.
  preprocess::ClangWorkers clang(opts_.filter_budget, 1);
  double busy = 0;
  while (auto raw = raw_queue_.pop()) {
    if (stop_.load()) continue;  // stopping: queued samples are dropped unfiltered
    if (in_.drawn_before.count(raw->index)) {
      ++replayed_;
      continue;
    }
    auto t = Clock::now();
    Expected<SampleRow> row = filter_sample(*raw, opts_.max_length, opts_.constrain ? opts_.correction : 0, coin_seed_,
                                            clang, filter_options_, headers_->conditioned());
    if (!row.ok()) {
      std::lock_guard<std::mutex> lock(filter_mu_);
      if (filter_status_.ok()) filter_status_ = row.status();
      stop_ = true;
      continue;
    }
    mark_copy(*row);
    if (resumes_) queue_resume(*raw, *row);
    row->filter_seconds = since(t);
    busy += row->filter_seconds;
    results_.push(std::move(*row));
  }
  {
    std::lock_guard<std::mutex> lock(filter_mu_);
    sum_.filter_seconds += busy;
  }
  if (--live_workers_ == 0) results_.close();
}

Status SamplingRun::flush() {
  auto t = Clock::now();
  Expected<StoreResult> stored = store_samples(db_, pending_, opts_.target_accepted);
  Status st = stored.status();
  if (stored.ok()) {
    accepted_total_ = stored->accepted_total;
    for (size_t i = 0; i < pending_.size(); ++i) {
      SampleRow& row = pending_[i];
      switch (stored->fates[i]) {
        case RowFate::kStored:
          if (row.status == sample_status::kAccepted && resumes_ && row.start_tag > 0) ++sum_.resumed_accepted;
          if (row.status == sample_status::kAccepted && !opts_.out_dir.empty() && st.ok())
            st = write_file_atomic(opts_.out_dir + "/" + row.normalized_sha256 + ".cl", row.normalized_text);
          break;
        case RowFate::kStoredDuplicate:
          account(sum_, row, -1);
          row.status = sample_status::kDuplicate;
          account(sum_, row, +1);
          break;
        case RowFate::kAlreadyStored:
        case RowFate::kOverTarget: account(sum_, row, -1); break;
      }
    }
  }
  pending_.clear();
  pending_accepted_ = 0;
  last_commit_ = Clock::now();
  sum_.store_seconds += since(t);
  return st;
}

bool SamplingRun::passed_over(uint64_t index) {
  if (in_.drawn_before.count(index)) return true;
  std::lock_guard<std::mutex> lock(discarded_mu_);
  return discarded_.count(index) > 0;
}

std::optional<SampleRow> SamplingRun::pop_in_order() {
  while (true) {
    while (passed_over(next_draw_)) ++next_draw_;
    auto it = early_.find(next_draw_);
    if (it == early_.end()) {
      if (auto row = results_.pop_for(std::chrono::milliseconds(200))) {
        const uint64_t index = row->sample_index;
        early_.emplace(index, std::move(*row));
        continue;
      }
      if (!results_.closed() || early_.empty()) return std::nullopt;
      it = early_.begin();
    }
    SampleRow row = std::move(it->second);
    next_draw_ = it->first + 1;
    early_.erase(it);
    return row;
  }
}

// Stops: -n and an interrupt at once, the rows still coming dropped; the
// time limit and the hook's stop drain (SampleOptions::drain) or, without
// it, stop at once too.
void SamplingRun::store_rows(Progress& progress) {
  bool target_reached = false;
  while (true) {
    if (interrupted()) sum_.interrupted = true;
    const bool hook_stop = hooks_.stop && hooks_.stop();
    if (hook_stop && !opts_.drain) target_reached = true;
    if (sum_.interrupted || target_reached || (!opts_.drain && time_up())) stop_ = true;
    if (hook_stop && opts_.drain) draining_ = true;
    auto row = pop_in_order();
    if (!row) {
      if (results_.closed()) break;
      if (!pending_.empty() && since(last_commit_) > 1.0 && store_status_.ok()) store_status_ = flush();
      if (key_done()) target_reached = true;  // also by another process sampling the same key
      continue;
    }
    if (target_reached || !store_status_.ok()) continue;  // dropped, not stored
    if (store_row(*row, progress)) target_reached = true;
  }
}

// A rejected sample whose error names a line, on a chain shorter than
// --resume-errors, is queued to be drawn again from that line.
void SamplingRun::queue_resume(const RawSample& raw, const SampleRow& row) {
  if (row.status != sample_status::kRejected) return;
  const int64_t depth = raw.start_refused ? 0 : std::max<int64_t>(raw.tag, 0);
  if (depth >= opts_.resume_errors) return;
  std::optional<std::string> prefix = resume_prefix(raw.text, row.reason, in_.seed);
  if (!prefix || prefix->size() >= size_t(opts_.max_length)) return;
  resumes_->push(Resume{std::move(*prefix), int(depth + 1)});
}

// An accepted row that copies a corpus kernel becomes a training copy
// (verbatim) or a near copy (most of its n-grams in one). On the filter
// workers: it reads only what the run loaded before it started.
void SamplingRun::mark_copy(SampleRow& row) const {
  if (row.status != sample_status::kAccepted) return;
  if (in_.training.count(row.normalized_sha256)) {
    row.status = sample_status::kTrainingCopy;
    row.reason = "a verbatim copy of a training kernel";
    return;
  }
  if (!in_.near) return;
  const double near = in_.near->containment(row.normalized_text);
  if (near < opts_.near_copy) return;
  row.status = sample_status::kNearCopy;
  row.reason = fmt::format("{:.0f}% of its token {}-grams are in one corpus kernel", 100 * near, kNearCopyNgram);
}

// Dedupes a filtered row and queues it for the next commit; true once the
// key has its target.
bool SamplingRun::store_row(SampleRow& row, Progress& progress) {
  auto t = Clock::now();
  set_draw_key(row, opts_, model_.model_id());
  if (row.status == sample_status::kAccepted && !in_.seen.insert(row.normalized_sha256).second) {
    row.status = sample_status::kDuplicate;
    row.reason = "the same normalized kernel was sampled before";
  }
  if (director_) note_target(row);
  bool fresh = row.status == sample_status::kAccepted;
  if (resumes_ && row.start_tag > 0) ++sum_.resumed;
  if (fresh) ++pending_accepted_;
  account(sum_, row, +1);
  std::string hand_over = fresh && hooks_.on_accepted ? row.normalized_text : "";
  pending_.push_back(std::move(row));
  sum_.store_seconds += since(t);
  bool enough = opts_.target_accepted && accepted_total_ + pending_accepted_ >= opts_.target_accepted;
  if (store_status_.ok() && (pending_.size() >= 256 || since(last_commit_) > 1.0 || enough)) store_status_ = flush();
  const bool reached = key_done();
  if (!store_status_.ok()) stop_ = true;
  if (!hand_over.empty() && store_status_.ok()) hooks_.on_accepted(hand_over);
  double secs = std::max(since(start_), 1e-9);
  progress.set_extra(fmt::format("accepted {}{} ({:.1f}%), {:.2f} unique/s", accepted_total_ + pending_accepted_,
                                 opts_.target_accepted ? fmt::format("/{}", opts_.target_accepted) : "",
                                 100.0 * sum_.accepted / std::max<uint64_t>(sum_.samples, 1), sum_.accepted / secs));
  progress.advance();
  return reached;
}

// Directed sampling: the row's target, and the director learns of a kernel
// that passed.
void SamplingRun::note_target(SampleRow& row) {
  if (const Target* t = director_->target_of(row.start_tag)) {
    row.target = t->label;
    row.target_features = grewe_values(t->features);
    row.steering = opts_.steering;
  }
  // Kernels sampled before (also by an earlier run) count toward the
  // targets as well: this run found them again.
  bool passed = row.status == sample_status::kAccepted || row.status == sample_status::kDuplicate;
  if (passed && row.features) director_->observe(row.start_tag, row.normalized_text, *row.features);
  if (passed && !row.features) ++sum_.unfeatured;
}

Expected<SampleSummary> SamplingRun::finish(const BatchSamplerStats& stats) {
  sum_.seconds = since(start_);
  sum_.model_seconds = stats.model_seconds;
  sum_.draw_seconds = stats.draw_seconds;
  sum_.tokens = stats.tokens;
  sum_.redrawn = stats.redrawn;
  sum_.queue_wait_seconds = queue_wait_;
  sum_.director = director_;
  sum_.starts_replayed = stats.starts_replayed;
  sum_.starts_refused = stats.starts_refused;
  sum_.forced_tokens = stats.forced_tokens;
  sum_.repairs = stats.repairs;
  sum_.repair_tokens = stats.repair_tokens;
  sum_.backtracks = stats.backtracks;
  sum_.drained = stats.drained;
  sum_.drain_seconds = stats.drain_seconds;
  if (resumes_) {
    sum_.resumes_queued = resumes_->queued();
    sum_.resumes_dropped = resumes_->dropped();
  }
  sum_.replayed = replayed_.load();
  RETURN_IF_ERROR_CTX(filter_status_, "filtering samples");
  RETURN_IF_ERROR_CTX(store_status_, "storing samples");
  RETURN_IF_ERROR_CTX(sampler_status_, "sampling");
  return std::move(sum_);
}

}  // namespace

std::string SampleSummary::bottleneck() const {
  if (seconds <= 0) return "model";
  double model = (model_seconds + draw_seconds) / seconds;
  double filter = filter_threads ? filter_seconds / (filter_threads * seconds) : 0;
  double store = store_seconds / seconds;
  if (filter >= model && filter >= store) return "filter";
  if (store >= model) return "store";
  return "model";
}

Expected<SampleSummary> run_sampling(StreamModel& model, Database& db, const SampleOptions& opts,
                                     const SampleHooks& hooks) {
  RETURN_IF_ERROR(check_options(opts, hooks));
  ASSIGN_OR_RETURN(std::string signature, seed_text(opts.args));
  RETURN_IF_ERROR(ensure_sampler_schema(db));
  // This run's draws: -n counts the key's accepted samples over every run,
  // and a draw stored by an earlier run is drawn again but not stored again.
  SampleRow key_row;
  set_draw_key(key_row, opts, model.model_id());
  const DrawKey key = draw_key_of(key_row);
  ASSIGN_OR_RETURN(uint64_t accepted_before, count_accepted(db, key));
  SampleSummary sum;
  sum.out_dir = opts.out_dir;
  sum.accepted_before = accepted_before;
  if (!opts.out_dir.empty()) RETURN_IF_ERROR(prepare_out_dir(db, opts, key, accepted_before));
  if (opts.target_accepted && accepted_before >= opts.target_accepted) return sum;  // nothing is missing
  RunInputs in;
  // A whole text starts empty (after the separator); with --args its kernel's
  // prototype is forced when the model opens the kernel.
  in.seed = opts.whole_text ? "" : signature;
  in.prototype = opts.args.empty() ? "" : signature;
  ASSIGN_OR_RETURN(in.drawn_before, stored_sample_indices(db, key));
  ASSIGN_OR_RETURN(in.seen, accepted_sample_hashes(db));
  ASSIGN_OR_RETURN(in.training, training_kernel_hashes(db));
  if (opts.near_copy > 0) {
    ASSIGN_OR_RETURN(in.near, NearCopies::of_corpus(db));
  }
  ASSIGN_OR_RETURN(in.tables, constraint_tables_of(db, opts));
  in.workers = opts.filter_threads;
  if (in.workers == 0) in.workers = std::max(1u, std::thread::hardware_concurrency() - 1);
  sum.filter_threads = in.workers;
  SamplingRun run(model, db, opts, hooks, std::move(in), std::move(sum));
  return run.run();
}

}  // namespace clgen::sampler
