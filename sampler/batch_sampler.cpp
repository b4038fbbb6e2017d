// The batched sampling loop with stop rule and refill.
#include "sampler/batch_sampler.h"

#include <chrono>
#include <optional>

#include "sampler/stop_rule.h"

namespace clgen::sampler {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

BatchSampler::BatchSampler(StreamModel& model, BatchSamplerOptions options)
    : model_(model), opts_(std::move(options)), chain_(opts_.policy), rng_(opts_.seed) {}

Status BatchSampler::run(const std::function<bool(RawSample&&)>& sink,
                         const std::function<bool()>& stop) {
  struct Stream {
    std::string text;
    KernelEndDetector end;
    std::optional<CodeConstraint> constraint;
    bool dead_end = false;
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
  std::vector<float> masked(static_cast<size_t>(vocab));
  constexpr float kRefused = -1e30f;

  while (!stop()) {
    t0 = Clock::now();
    ASSIGN_OR_RETURN(std::vector<float> logits, model_.logits());
    stats_.model_seconds += since(t0);
    if (logits.size() != static_cast<size_t>(n) * vocab)
      return internal_error("the model returned logits of an unexpected size");
    t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
      const float* row = &logits[size_t(i) * vocab];
      chosen[i] = chain_.choose(row, vocab, rng_);
      const auto& c = streams[i].constraint;
      if (!c || (chosen[i] == end_token ? c->can_end() : c->accepts(model_.token_text(chosen[i]))))
        continue;
      // Refused: draw again from the tokens the constraint allows (the
      // model's distribution renormalized over them).
      ++stats_.redrawn;
      bool any = false;
      for (int t = 0; t < vocab; ++t) {
        bool ok = t != end_token && c->accepts(model_.token_text(t));
        masked[size_t(t)] = ok ? row[t] : kRefused;
        any = any || ok;
      }
      if (any) {
        chosen[i] = chain_.choose(masked.data(), vocab, rng_);
      } else {
        ++stats_.dead_ends;
        streams[i].dead_end = true;
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
