// The batched sampling loop with stop rule and refill.
#include "sampler/batch_sampler.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <future>
#include <thread>

#include "sampler/batch_stream.h"

namespace clgen::sampler {

namespace {
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One BatchSampler::run: the streams and the model stepped together.
class BatchRun {
 public:
  BatchRun(StreamModel& model, const BatchSamplerOptions& opts, ThreadPool* pool, BatchSamplerStats& stats, int n);
  // Starts every stream and feeds the model their seeds.
  Status start();
  // Steps until `sink` returns false or `stop()` returns true, or until a
  // drain that `drain()` began has delivered every sample in flight.
  Status loop(const std::function<bool(RawSample&&)>& sink, const std::function<bool()>& stop,
              const std::function<bool()>& drain);

 private:
  Status feed_stream(int i);
  void step_range(const std::vector<float>& logits, int from, int to, StepCounts& counts, Candidates& work);
  Status step_streams(const std::vector<float>& logits);
  bool deliver(const std::function<bool(RawSample&&)>& sink);
  Status advance_and_refill();

  StreamModel& model_;
  const BatchSamplerOptions& opts_;
  ThreadPool* pool_;
  BatchSamplerStats& stats_;
  const int n_;
  const StreamShared shared_;
  std::vector<BatchStream> streams_;
  // With previous texts (whole texts), a start reads one of them first;
  // `starts_` numbers the starts that pick one.
  const bool after_previous_;
  uint64_t starts_ = 0;
  uint64_t next_index_ = 0;      // RawSample::index of the next finished stream
  std::vector<int32_t> chosen_;  // each stream's token of this step
  std::vector<int> finished_;    // streams finished in this step
  // The drain: once it begins, a stream's next sample is not kept; `kept_`
  // marks the streams whose sample in flight began before it, `live_`
  // counts them.
  bool draining_ = false;
  std::vector<char> kept_;
  int live_ = 0;
  // Ranges of at least 32 streams: one per pool thread plus the caller's,
  // each with its counts and its candidates, reused step after step.
  const int ranges_;
  std::vector<StepCounts> counts_;
  std::vector<Candidates> work_;
  std::vector<std::future<void>> pending_;
};

BatchRun::BatchRun(StreamModel& model, const BatchSamplerOptions& opts, ThreadPool* pool, BatchSamplerStats& stats,
                   int n)
    : model_(model),
      opts_(opts),
      pool_(pool),
      stats_(stats),
      n_(n),
      shared_(model, opts),
      after_previous_(opts.whole_text && !opts.previous_texts.empty()),
      chosen_(size_t(n)),
      kept_(size_t(n), 1),
      live_(n),
      ranges_(pool ? std::max(1, std::min<int>(int(pool->size()) + 1, n / 32)) : 1),
      counts_(size_t(ranges_)),
      work_(size_t(ranges_)) {
  streams_.reserve(size_t(n));
  for (int i = 0; i < n; ++i) streams_.emplace_back(shared_, i);
}

Status BatchRun::start() {
  for (BatchStream& s : streams_) s.restart();
  if (streams_[0].ended()) return invalid_argument("the seed text already closes the kernel: " + opts_.seed_text);
  const auto t0 = Clock::now();
  if (after_previous_) {
    for (int i = 0; i < n_; ++i) RETURN_IF_ERROR_CTX(feed_stream(i), "feeding a previous text and the seed");
  } else {
    RETURN_IF_ERROR_CTX(model_.feed_all(opts_.seed_text), "feeding the seed text");
    for (int i = 0; i < n_; ++i)
      if (!streams_[size_t(i)].context().empty())
        RETURN_IF_ERROR_CTX(feed_stream(i), "feeding a stream's context and seed");
  }
  stats_.model_seconds += since(t0);
  return ok_status();
}

// The model reads a stream's context, then the seed; the state after a
// text fed before is reused (a feature-conditioned model's header: one per
// target, so its refills cost no more than the seed's).
Status BatchRun::feed_stream(int i) {
  const BatchStream& s = streams_[size_t(i)];
  const std::string seed = s.context().empty() ? opts_.seed_text : s.context() + opts_.seed_text;
  if (!after_previous_) return model_.feed(i, seed);
  const uint64_t pick = splitmix64(opts_.seed ^ splitmix64(uint64_t(opts_.shard.index) << 32 | starts_++));
  return model_.feed_after(i, opts_.previous_texts[pick % opts_.previous_texts.size()], seed);
}

// One step of streams [from, to). Streams are independent (each chain has
// its own generator), so ranges run in parallel and the result does not
// depend on the split.
void BatchRun::step_range(const std::vector<float>& logits, int from, int to, StepCounts& counts, Candidates& work) {
  const size_t vocab = size_t(shared_.vocab);
  for (int i = from; i < to; ++i)
    chosen_[size_t(i)] = streams_[size_t(i)].step(&logits[size_t(i) * vocab], counts, work);
}

Status BatchRun::step_streams(const std::vector<float>& logits) {
  const int n = n_, ranges = ranges_;
  pending_.clear();
  for (int r = 1; r < ranges; ++r)
    pending_.push_back(pool_->submit([this, &logits, n, ranges, r] {
      step_range(logits, n * r / ranges, n * (r + 1) / ranges, counts_[r], work_[r]);
    }));
  // Every range finishes before anything it uses goes out of scope, even
  // when one throws.
  std::string failure;
  try {
    step_range(logits, 0, n / ranges, counts_[0], work_[0]);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  for (auto& f : pending_) {
    try {
      f.get();
    } catch (const std::exception& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty()) return internal_error("sampling step failed: " + failure);
  for (StepCounts& c : counts_) c.drain_into(stats_);
  return ok_status();
}

// Delivers finished streams in stream order and collects which refill;
// false once `sink` wants no more.
bool BatchRun::deliver(const std::function<bool(RawSample&&)>& sink) {
  finished_.clear();
  bool keep_going = true;
  for (int i = 0; i < n_; ++i) {
    BatchStream& s = streams_[size_t(i)];
    if (!s.done()) continue;
    finished_.push_back(i);
    if (!keep_going || s.repair_pending()) continue;  // a repair is not a sample
    if (draining_ && !kept_[size_t(i)]) {             // begun during the drain: its index only
      RawSample skipped;
      skipped.index = next_index_++;
      skipped.discarded = true;
      keep_going = sink(std::move(skipped));
      continue;
    }
    if (draining_) {
      kept_[size_t(i)] = 0;
      --live_;
      ++stats_.drained;
    }
    RawSample sample = s.finish(next_index_++);
    if (sample.repairs == 0) stats_.forced_tokens += size_t(sample.forced);  // a repair's replay: repair_tokens
    keep_going = sink(std::move(sample));
  }
  return keep_going;
}

// Advances the model by this step's tokens and refills finished streams.
// Backtracking: states saved before this step's tokens, restored after.
Status BatchRun::advance_and_refill() {
  std::vector<int> save, restore;
  if (shared_.backtracking) {
    for (int i = 0; i < n_; ++i) {
      bool save_now = false, restore_now = false;
      streams_[size_t(i)].take_state_marks(save_now, restore_now);
      if (save_now) save.push_back(i);
      if (restore_now) restore.push_back(i);
    }
    RETURN_IF_ERROR_CTX(model_.save(save), "saving streams' states");
  }
  RETURN_IF_ERROR_CTX(model_.advance(chosen_), "stepping the model");
  if (!restore.empty()) RETURN_IF_ERROR_CTX(model_.restore(restore), "restoring streams' states");
  for (int i : finished_) {
    streams_[size_t(i)].refill();
    RETURN_IF_ERROR_CTX(feed_stream(i), "refilling a stream with the seed");
  }
  return ok_status();
}

Status BatchRun::loop(const std::function<bool(RawSample&&)>& sink, const std::function<bool()>& stop,
                      const std::function<bool()>& drain) {
  Clock::time_point drain_start;
  while (!stop()) {
    if (!draining_ && drain && drain()) {
      draining_ = true;
      drain_start = Clock::now();
    }
    if (draining_ && live_ == 0) break;
    auto t0 = Clock::now();
    ASSIGN_OR_RETURN(std::vector<float> logits, model_.logits());
    stats_.model_seconds += since(t0);
    if (logits.size() != static_cast<size_t>(n_) * size_t(shared_.vocab))
      return internal_error("the model returned logits of an unexpected size");
    t0 = Clock::now();
    RETURN_IF_ERROR(step_streams(logits));
    stats_.draw_seconds += since(t0);
    ++stats_.steps;
    stats_.tokens += n_;
    if (!deliver(sink)) break;
    t0 = Clock::now();
    RETURN_IF_ERROR(advance_and_refill());
    stats_.model_seconds += since(t0);
  }
  if (draining_) stats_.drain_seconds = since(drain_start);
  return ok_status();
}
}  // namespace

BatchSampler::BatchSampler(StreamModel& model, BatchSamplerOptions options) : model_(model), opts_(std::move(options)) {
  unsigned threads = opts_.threads;
  if (threads == 0) threads = std::min(16u, std::max(1u, std::thread::hardware_concurrency() - 1));
  if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads - 1);
}

Status BatchSampler::run(const std::function<bool(RawSample&&)>& sink, const std::function<bool()>& stop,
                         const std::function<bool()>& drain) {
  const int n = model_.streams();
  if (n <= 0) return invalid_argument("sampling needs at least one stream");
  BatchRun batch(model_, opts_, pool_.get(), stats_, n);
  RETURN_IF_ERROR(batch.start());
  return batch.loop(sink, stop, drain);
}

}  // namespace clgen::sampler
