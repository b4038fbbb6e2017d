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

#include <fmt/format.h>

#include "sampler/arg_spec.h"
#include "sampler/batch_sampler.h"
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
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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
  if (opts.target_accepted == 0 && opts.max_samples == 0 && opts.time_limit <= 0 && !hooks.stop)
    return invalid_argument("sampling needs a stop condition: -n, --max-samples or --time-limit");
  if (opts.max_length <= 0) return invalid_argument("--max-length must be positive");
  if (opts.policy.temperature < 0) return invalid_argument("--temperature must not be negative");
  if (opts.policy.top_p <= 0 || opts.policy.top_p > 1)
    return invalid_argument("--top-p must be in (0, 1]");
  if (opts.policy.top_k < 0) return invalid_argument("--top-k must not be negative");
  if (!(opts.correction >= 0 && opts.correction <= 1)) return invalid_argument("--correction must be in [0, 1]");
  if (opts.shard.count < 1 || opts.shard.index < 0 || opts.shard.index >= opts.shard.count)
    return invalid_argument("--shard " + opts.shard.str() + ": expected 0 <= I < N");
  ASSIGN_OR_RETURN(std::string signature, seed_text(opts.args));
  // A whole text starts empty (after the separator); with --args its kernel's
  // prototype is forced when the model opens the kernel.
  const std::string seed = opts.whole_text ? "" : signature;
  const std::string prototype = opts.args.empty() ? "" : signature;

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
  if (!opts.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.out_dir, ec);
    if (ec) return io_error(fmt::format("creating {}: {}", opts.out_dir, ec.message()));
    remove_stale_temporaries(opts.out_dir);
    // A .cl file is written after its row commits: a run killed in between
    // left accepted kernels without their files.
    if (accepted_before) {
      ASSIGN_OR_RETURN(auto kernels, accepted_kernels(db, key));
      for (const auto& [sha, text] : kernels) {
        const std::string path = opts.out_dir + "/" + sha + ".cl";
        if (!std::filesystem::exists(path, ec)) RETURN_IF_ERROR_CTX(write_file_atomic(path, text), "writing " + path);
      }
    }
  }
  if (opts.target_accepted && accepted_before >= opts.target_accepted) return sum;  // nothing is missing
  ASSIGN_OR_RETURN(const std::unordered_set<uint64_t> drawn_before, stored_sample_indices(db, key));
  ASSIGN_OR_RETURN(auto seen, accepted_sample_hashes(db));
  ASSIGN_OR_RETURN(auto training, training_kernel_hashes(db));
  std::shared_ptr<const ConstraintTables> tables = opts.constrain ? opts.constraint_tables : nullptr;
  if (opts.constrain && !tables) {
    ASSIGN_OR_RETURN(auto texts, training_texts(db));
    if (texts.empty())
      return not_found(
          "constrained sampling learns its identifiers from the preprocessed corpus, and the "
          "workspace has none: run `clgen corpus preprocess`, or sample with --no-constrain");
    tables = std::make_shared<const ConstraintTables>(ConstraintTables::from_corpus(texts));
  }
  unsigned workers = opts.filter_threads;
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency() - 1);
  sum.filter_threads = workers;

  const auto start = Clock::now();
  std::atomic<bool> stop{false};
  BoundedQueue<RawSample> raw_queue(std::max<size_t>(2 * workers, model.streams()));
  BoundedQueue<SampleRow> results(4096);

  // Sampling thread.
  BatchSamplerOptions bopts;
  static_cast<StreamOptions&>(bopts) = opts;
  bopts.seed_text = seed;
  bopts.constraint = tables.get();
  if (opts.whole_text && !opts.args.empty()) {
    ASSIGN_OR_RETURN(bopts.forced_args, parse_arg_spec(opts.args));
    bopts.force_kernel = true;
  }
  if (opts.whole_text) {
    ASSIGN_OR_RETURN(std::vector<std::string> texts, training_texts(db));
    bopts.previous_texts = text_tails(std::move(texts), opts.seed);
  }
  // A feature-conditioned model's streams start after a header: their
  // target's, or one drawn from the training kernels' (start_headers.h).
  StartHeaders headers(model, opts.targets, opts.seed);
  std::shared_ptr<Director> director;
  if (!opts.targets.empty()) {
    DirectorOptions dopts = opts.director;
    dopts.conditioned = headers.conditioned();
    director = std::make_shared<Director>(opts.targets, seed, dopts);
    if (hooks.on_director) hooks.on_director(director);
    bopts.start = [&director, &headers](int stream) {
      StreamStart start = director->next(stream);
      start.context = headers.header(start.tag);
      return start;
    };
  } else if (headers.conditioned()) {
    bopts.start = [&headers, &seed](int) { return StreamStart{seed, -1, headers.header(-1)}; };
  }
  BatchSampler sampler(model, bopts);
  Status sampler_status;
  double queue_wait = 0;
  uint64_t produced = 0;
  auto time_up = [&] { return opts.time_limit > 0 && since(start) >= opts.time_limit; };
  std::thread sampling([&] {
    sampler_status = sampler.run(
        [&](RawSample&& s) {
          auto t = Clock::now();
          bool pushed = raw_queue.push(std::move(s));
          queue_wait += since(t);
          if (!pushed) return false;
          ++produced;
          return opts.max_samples == 0 || produced < opts.max_samples;
        },
        [&] { return stop.load() || interrupted() || time_up(); });
    raw_queue.close();
  });

  // Filter workers. Importance thinning's coins: one per draw of this shard.
  const uint64_t coin_seed = opts.seed ^ splitmix64(uint64_t(opts.shard.index) + 1);
  std::atomic<uint64_t> replayed{0};
  std::atomic<unsigned> live_workers{workers};
  std::mutex filter_mu;
  Status filter_status;  // the first worker set-up error
  std::vector<std::thread> filters;
  ClangFilterOptions filter_options;
  filter_options.prototype = prototype;
  filter_options.usefulness_check = opts.usefulness_check;
  filter_options.features = director != nullptr;
  for (unsigned w = 0; w < workers; ++w) {
    filters.emplace_back([&] {
      // This thread's own Clang worker: a worker dies with the thread that
      // started it (budget.h), so it is started and stopped here.
      preprocess::ClangWorkers clang(opts.filter_budget, 1);
      double busy = 0;
      while (auto raw = raw_queue.pop()) {
        if (stop.load()) continue;  // stopping: queued samples are dropped unfiltered
        if (drawn_before.count(raw->index)) {
          ++replayed;
          continue;
        }
        auto t = Clock::now();
        Expected<SampleRow> row = filter_sample(*raw, opts.max_length, opts.constrain ? opts.correction : 0, coin_seed,
                                                clang, filter_options, headers.conditioned());
        if (!row.ok()) {
          std::lock_guard<std::mutex> lock(filter_mu);
          if (filter_status.ok()) filter_status = row.status();
          stop = true;
          continue;
        }
        row->filter_seconds = since(t);
        busy += row->filter_seconds;
        results.push(std::move(*row));
      }
      {
        std::lock_guard<std::mutex> lock(filter_mu);
        sum.filter_seconds += busy;
      }
      if (--live_workers == 0) results.close();
    });
  }

  // Store (this thread): dedupe, insert in batches, then write the .cl files
  // of what was stored as accepted.
  Progress progress("sample", opts.max_samples, nullptr, opts.progress ? -1 : 0);
  std::vector<SampleRow> pending;
  Status store_status;
  auto last_commit = Clock::now();
  uint64_t accepted_total = accepted_before;  // the key's accepted samples at the last commit
  uint64_t pending_accepted = 0;
  // Counts a row in the summary (+1), or takes it out again (-1) when the
  // store leaves it out or stores it as a duplicate.
  auto account = [&](const SampleRow& row, int sign) {
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
        row.status == sample_status::kTrainingCopy)
      add(sum.passed_by_refusals[bucket]);
  };
  auto flush = [&] {
    auto t = Clock::now();
    Expected<StoreResult> stored = store_samples(db, pending, opts.target_accepted);
    Status st = stored.status();
    if (stored.ok()) {
      accepted_total = stored->accepted_total;
      for (size_t i = 0; i < pending.size(); ++i) {
        SampleRow& row = pending[i];
        switch (stored->fates[i]) {
          case RowFate::kStored:
            if (row.status == sample_status::kAccepted && !opts.out_dir.empty() && st.ok())
              st = write_file_atomic(opts.out_dir + "/" + row.normalized_sha256 + ".cl", row.normalized_text);
            break;
          case RowFate::kStoredDuplicate:
            account(row, -1);
            row.status = sample_status::kDuplicate;
            account(row, +1);
            break;
          case RowFate::kAlreadyStored:
          case RowFate::kOverTarget: account(row, -1); break;
        }
      }
    }
    pending.clear();
    pending_accepted = 0;
    last_commit = Clock::now();
    sum.store_seconds += since(t);
    return st;
  };
  auto key_done = [&] { return opts.target_accepted && accepted_total >= opts.target_accepted; };
  // Rows are taken in draw order, whatever order the filter workers finish
  // in, so that which of two draws of one kernel is accepted, and the draw
  // at which -n is reached, depend on the seed alone. `early` holds rows
  // that came before an earlier draw; draws an earlier run stored never
  // come, and those dropped at a stop are passed over once all is drained.
  std::map<uint64_t, SampleRow> early;
  uint64_t next_draw = 0;
  auto pop_in_order = [&]() -> std::optional<SampleRow> {
    while (true) {
      while (drawn_before.count(next_draw)) ++next_draw;
      auto it = early.find(next_draw);
      if (it == early.end()) {
        if (auto row = results.pop_for(std::chrono::milliseconds(200))) {
          const uint64_t index = row->sample_index;
          early.emplace(index, std::move(*row));
          continue;
        }
        if (!results.closed() || early.empty()) return std::nullopt;
        it = early.begin();
      }
      SampleRow row = std::move(it->second);
      next_draw = it->first + 1;
      early.erase(it);
      return row;
    }
  };
  bool target_reached = false;
  while (true) {
    if (interrupted()) sum.interrupted = true;
    if (hooks.stop && hooks.stop()) target_reached = true;
    if (sum.interrupted || time_up() || target_reached) stop = true;
    auto row = pop_in_order();
    if (!row) {
      if (results.closed()) break;
      if (!pending.empty() && since(last_commit) > 1.0 && store_status.ok()) store_status = flush();
      if (key_done()) target_reached = true;  // also by another process sampling the same key
      continue;
    }
    if (target_reached || !store_status.ok()) continue;  // drained, not stored
    auto t = Clock::now();
    set_draw_key(*row, opts, model.model_id());
    if (row->status == sample_status::kAccepted) {
      if (training.count(row->normalized_sha256)) {
        row->status = sample_status::kTrainingCopy;
        row->reason = "a verbatim copy of a training kernel";
      } else if (!seen.insert(row->normalized_sha256).second) {
        row->status = sample_status::kDuplicate;
        row->reason = "the same normalized kernel was sampled before";
      }
    }
    if (director) {
      if (const Target* t = director->target_of(row->start_tag)) {
        row->target = t->label;
        row->target_features = grewe_values(t->features);
        row->steering = opts.steering;
      }
      // Kernels sampled before (also by an earlier run) count toward the
      // targets as well: this run found them again.
      bool passed = row->status == sample_status::kAccepted || row->status == sample_status::kDuplicate;
      if (passed && row->features) director->observe(row->start_tag, row->normalized_text, *row->features);
      if (passed && !row->features) ++sum.unfeatured;
    }
    bool fresh = row->status == sample_status::kAccepted;
    if (fresh) ++pending_accepted;
    account(*row, +1);
    std::string hand_over = fresh && hooks.on_accepted ? row->normalized_text : "";
    pending.push_back(std::move(*row));
    sum.store_seconds += since(t);
    bool enough = opts.target_accepted && accepted_total + pending_accepted >= opts.target_accepted;
    if (store_status.ok() && (pending.size() >= 256 || since(last_commit) > 1.0 || enough)) store_status = flush();
    if (key_done()) target_reached = true;
    if (!store_status.ok()) stop = true;
    if (!hand_over.empty() && store_status.ok()) hooks.on_accepted(hand_over);
    double secs = std::max(since(start), 1e-9);
    progress.set_extra(fmt::format("accepted {}{} ({:.1f}%), {:.2f} unique/s", accepted_total + pending_accepted,
                                   opts.target_accepted ? fmt::format("/{}", opts.target_accepted) : "",
                                   100.0 * sum.accepted / std::max<uint64_t>(sum.samples, 1), sum.accepted / secs));
    progress.advance();
  }
  sampling.join();
  for (auto& f : filters) f.join();
  if (store_status.ok()) store_status = flush();
  progress.finish();

  sum.seconds = since(start);
  sum.model_seconds = sampler.stats().model_seconds;
  sum.draw_seconds = sampler.stats().draw_seconds;
  sum.tokens = sampler.stats().tokens;
  sum.redrawn = sampler.stats().redrawn;
  sum.queue_wait_seconds = queue_wait;
  sum.director = director;
  sum.starts_replayed = sampler.stats().starts_replayed;
  sum.starts_refused = sampler.stats().starts_refused;
  sum.forced_tokens = sampler.stats().forced_tokens;
  sum.repairs = sampler.stats().repairs;
  sum.repair_tokens = sampler.stats().repair_tokens;
  sum.backtracks = sampler.stats().backtracks;
  sum.replayed = replayed.load();
  RETURN_IF_ERROR_CTX(filter_status, "filtering samples");
  RETURN_IF_ERROR_CTX(store_status, "storing samples");
  RETURN_IF_ERROR_CTX(sampler_status, "sampling");
  return sum;
}

}  // namespace clgen::sampler
