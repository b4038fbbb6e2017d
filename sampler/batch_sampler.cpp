// The batched sampling loop with stop rule and refill.
#include "sampler/batch_sampler.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include "sampler/stop_rule.h"

namespace clgen::sampler {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
// A stream ends once the constraint has refused this many of its draws and
// more than a quarter of them.
constexpr int kMaxRefusals = 32;
}  // namespace

BatchSampler::BatchSampler(StreamModel& model, BatchSamplerOptions options)
    : model_(model), opts_(std::move(options)), chain_(opts_.policy), rng_(opts_.seed) {
  unsigned threads = opts_.constraint_threads;
  if (threads == 0) threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency() - 1));
  if (opts_.constraint && threads > 1) pool_ = std::make_unique<ThreadPool>(threads);
}

Status BatchSampler::run(const std::function<bool(RawSample&&)>& sink,
                         const std::function<bool()>& stop) {
  struct Stream {
    std::string text;
    KernelEndDetector end;
    std::optional<CodeConstraint> constraint;
    bool dead_end = false;
    int refusals = 0;
    int tokens = 0;
    Clock::time_point start;
  };
  const int n = model_.streams();
  const int vocab = model_.vocab_size();
  if (n <= 0) return invalid_argument("sampling needs at least one stream");
  std::vector<Stream> streams(n);
  // The constraint's state after the seed, copied into every (re)started stream.
  std::optional<CodeConstraint> seeded;
  if (opts_.constraint) {
    seeded.emplace(opts_.constraint);
    seeded->feed(opts_.seed_text);
  }
  auto restart = [&](Stream& s) {
    s.text = opts_.seed_text;
    s.end.reset();
    s.end.feed(opts_.seed_text);
    s.constraint = seeded;
    s.dead_end = false;
    s.refusals = 0;
    s.tokens = 0;
    s.start = Clock::now();
  };
  for (Stream& s : streams) restart(s);
  if (streams[0].end.ended())
    return invalid_argument("the seed text already closes the kernel: " + opts_.seed_text);

  auto t0 = Clock::now();
  RETURN_IF_ERROR_CTX(model_.feed_all(opts_.seed_text), "feeding the seed text");
  stats_.model_seconds += since(t0);
  uint64_t next_index = 0;
  const int32_t end_token = model_.end_token();
  std::vector<int32_t> chosen(n);
  std::vector<int> refused;
  std::vector<float> masked;
  std::vector<char> any_allowed;
  constexpr float kRefused = -1e30f;
  // The allowed tokens of refused stream refused[r], into masked row r. Each
  // task reads one stream's constraint: independent, so they run in parallel.
  auto mask_rows = [&](const std::vector<float>& logits, size_t from, size_t to) {
    for (size_t r = from; r < to; ++r) {
      const int i = refused[r];
      const CodeConstraint& c = *streams[i].constraint;
      const float* row = &logits[size_t(i) * vocab];
      float* out = &masked[r * vocab];
      bool any = false;
      for (int t = 0; t < vocab; ++t) {
        bool ok = t != end_token && c.accepts(model_.token_text(t));
        out[t] = ok ? row[t] : kRefused;
        any = any || ok;
      }
      any_allowed[r] = any;
    }
  };

  while (!stop()) {
    t0 = Clock::now();
    ASSIGN_OR_RETURN(std::vector<float> logits, model_.logits());
    stats_.model_seconds += since(t0);
    if (logits.size() != static_cast<size_t>(n) * vocab)
      return internal_error("the model returned logits of an unexpected size");
    t0 = Clock::now();
    // Draw every stream; the constraint refuses some draws, which are drawn
    // again from the tokens it allows (the model's distribution
    // renormalized over them). Masks are computed in parallel, the draws
    // stay in stream order on one RNG, so a seed still reproduces a run.
    refused.clear();
    for (int i = 0; i < n; ++i) {
      chosen[i] = chain_.choose(&logits[size_t(i) * vocab], vocab, rng_);
      const auto& c = streams[i].constraint;
      if (c && !(chosen[i] == end_token ? c->can_end() : c->accepts(model_.token_text(chosen[i]))))
        refused.push_back(i);
    }
    if (!refused.empty()) {
      stats_.redrawn += refused.size();
      masked.resize(refused.size() * size_t(vocab));
      any_allowed.assign(refused.size(), 0);
      if (pool_ && refused.size() >= 16) {
        size_t chunks = std::min<size_t>(pool_->size(), refused.size());
        std::vector<std::future<void>> done;
        for (size_t k = 0; k < chunks; ++k) {
          size_t from = refused.size() * k / chunks, to = refused.size() * (k + 1) / chunks;
          done.push_back(pool_->submit([&, from, to] { mask_rows(logits, from, to); }));
        }
        for (auto& f : done) f.get();
      } else {
        mask_rows(logits, 0, refused.size());
      }
      for (size_t r = 0; r < refused.size(); ++r) {
        const int i = refused[r];
        Stream& st = streams[i];
        // A stream whose draws the constraint keeps refusing has lost the
        // thread: end it rather than spend the model on it.
        if (++st.refusals >= kMaxRefusals && st.refusals * 4 > st.tokens) {
          ++stats_.abandoned;
          st.dead_end = true;
        } else if (any_allowed[r]) {
          chosen[i] = chain_.choose(&masked[r * vocab], vocab, rng_);
        } else {
          ++stats_.dead_ends;
          streams[i].dead_end = true;
        }
      }
    }
    stats_.draw_seconds += since(t0);
    ++stats_.steps;
    stats_.tokens += n;

    // Append, detect ends, deliver; collect which streams restart.
    std::vector<int> finished;
    bool keep_going = true;
    for (int i = 0; i < n; ++i) {
      Stream& s = streams[i];
      ++s.tokens;
      bool done = false, complete = false;
      if (chosen[i] == end_token || s.dead_end) {
        done = true;
      } else {
        const std::string& piece = model_.token_text(chosen[i]);
        if (s.constraint) s.constraint->feed(piece);
        size_t cut = s.end.feed(piece);
        if (cut != KernelEndDetector::kNotEnded) {
          s.text.append(piece, 0, cut);
          done = complete = true;
        } else {
          s.text += piece;
          done = s.tokens >= opts_.max_length;
        }
      }
      if (!done) continue;
      finished.push_back(i);
      if (!keep_going) continue;
      RawSample sample;
      sample.index = next_index++;
      sample.text = std::move(s.text);
      sample.complete = complete;
      sample.dead_end = s.dead_end;
      sample.tokens = s.tokens;
      sample.seconds = since(s.start);
      keep_going = sink(std::move(sample));
    }
    if (!keep_going) break;

    t0 = Clock::now();
    RETURN_IF_ERROR_CTX(model_.advance(chosen), "stepping the model");
    for (int i : finished) {
      restart(streams[i]);
      RETURN_IF_ERROR_CTX(model_.feed(i, opts_.seed_text), "refilling a stream with the seed");
    }
    stats_.model_seconds += since(t0);
  }
  return ok_status();
}

}  // namespace clgen::sampler
