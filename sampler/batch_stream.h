// One stream of the batched sampling loop (batch_sampler.h): its text, stop
// rule, sampler chain and constrained-decoding state, stepped one token at a
// time and refilled when it finishes. Internal to the sampler.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sampler/batch_sampler.h"
#include "sampler/constraint_step.h"
#include "sampler/policy.h"
#include "sampler/stop_rule.h"
#include "sampler/stream_model.h"

namespace clgen::sampler {

// Spells text with the model's tokens, longest token text first (a
// character vocabulary spells it one token per character).
class TokenSpeller {
 public:
  TokenSpeller(const std::vector<std::string>& texts, int32_t end_token);
  // nullopt when some character starts no token text.
  std::optional<std::vector<int32_t>> spell(std::string_view text) const;

 private:
  std::unordered_map<std::string, int32_t> by_text_;
  size_t longest_ = 0;
};

// What every stream of one run reads and none changes while the streams
// step. Not movable: the constraint keeps a pointer to token_texts.
struct StreamShared {
  StreamShared(StreamModel& model, const BatchSamplerOptions& options);
  StreamShared(const StreamShared&) = delete;
  StreamShared& operator=(const StreamShared&) = delete;

  // A start text longer than the seed: its tokens after the seed, or
  // nullopt when it cannot be replayed (see BatchSamplerOptions::start).
  std::optional<std::vector<int32_t>> replayable(const std::string& text, const KernelEndDetector& seeded_end) const;

  const BatchSamplerOptions& opts;
  const bool weighting;     // StreamOptions::correction: each draw's allowed share is logged
  const bool backtracking;  // StreamOptions::max_backtracks, and the model can save states
  const int vocab;
  const int32_t end_token;
  // Token texts, looked up once: the constraint checks every token after a
  // refusal.
  std::vector<std::string> token_texts;
  // The constraint's state after the seed: every stream's step starts from
  // a clone of `constraint`, and every refill restores it. Null: unconstrained.
  std::shared_ptr<CodeConstraint> seeded;
  std::unique_ptr<CodeConstraintStep> constraint;
  std::optional<TokenSpeller> speller;  // for start texts, repairs and forced prototypes
};

// Per-step counts of one range of streams, added to BatchSamplerStats.
struct StepCounts {
  uint64_t redrawn = 0, dead_ends = 0, abandoned = 0, starts_replayed = 0, starts_refused = 0, repairs = 0,
           repair_tokens = 0, backtracks = 0;
  // Adds these counts to `stats` and zeroes them.
  void drain_into(BatchSamplerStats& stats);
};

class BatchStream {
 public:
  // Stream `index` of the batch; its generator is seeded from (seed, shard,
  // index). restart() before the first step.
  BatchStream(const StreamShared& shared, int index);

  // One step: chooses the stream's next token (redrawing from the allowed
  // tokens when the constraint refuses one), appends it and steps the chain
  // and the stop rule. Returns the token the model reads for this stream.
  int32_t step(const float* logits, StepCounts& counts, Candidates& work);

  // Finished in the last step: done(), then finish() unless a repair is
  // pending (a repair is not a sample), then refill() after the model's
  // advance.
  bool done() const { return done_; }
  bool repair_pending() const { return repair_pending_; }
  // The sample, with its text and refused draws moved out.
  RawSample finish(uint64_t index);
  // Backs up (a pending repair) or starts a new sample.
  void refill();
  // A new sample from the seed, or options.start's text.
  void restart();

  // Backtracking: whether the model saves this stream's state before this
  // step's token or restores it after the step (never for a finished
  // stream); cleared once read.
  void take_state_marks(bool& save, bool& restore);
  // The seed's stop rule has ended the kernel already.
  bool ended() const { return end_.ended(); }
  const std::string& context() const { return context_; }

 private:
  void to_seed();
  void repair();
  void take_start_text(StepCounts& counts);
  // The constraint's verdict on a draw: redraw counts, the refusal's note,
  // and a backtrack or a repair, which end the step (the token the model
  // reads is returned); nullopt when the drawn token stands.
  std::optional<int32_t> on_refusal(const Choice& choice, StepCounts& counts);
  int32_t backtrack(const Choice& choice, StepCounts& counts);
  void append(int32_t token);
  void track_name(int32_t token, size_t before);
  void force_kernel();

  const StreamShared* shared_;
  int index_;
  std::unique_ptr<SamplerChain> sampler_;  // the policy's steps, gated by the constraint
  std::string text_;
  KernelEndDetector end_;
  bool dead_end_ = false;
  bool done_ = false;      // finished in this step
  bool complete_ = false;  // ... at the kernel's closing brace
  int tokens_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::string start_text_;       // a start text longer than the seed, to check at the next step
  std::vector<int32_t> forced_;  // the start text's tokens after the seed, replayed first
  size_t forced_at_ = 0;
  int64_t tag_ = -1;
  bool start_refused_ = false;
  std::string context_;  // StreamStart::context: the model reads it before the seed
  // Repairs: where each generated token's text ends in `text_` (from
  // `generated_from_`, the end of the start text), the kept text to replay
  // at the next refill, and how often the sample has backed up.
  std::vector<uint32_t> token_ends_;
  size_t generated_from_ = 0;
  bool repair_pending_ = false;  // backs up at the refill instead of being delivered
  int repairs_ = 0;
  std::string refused_draws_;  // RawSample::refused_draws
  // Backtracking (max_backtracks): the tokens the chain accepted since its
  // reset; whether the text ends in a name begun at a saved point, that
  // point (text length, accepted tokens); first tokens banned at the draw
  // after going back to it; whether the model saves (before this step's
  // token) or restores (after it).
  std::vector<int32_t> accepted_;
  bool at_name_ = false;
  size_t name_at_ = 0, name_tokens_ = 0;
  std::vector<int32_t> banned_;
  bool ban_next_ = false, save_now_ = false, restore_now_ = false;
  int backtracks_ = 0;
  bool kernel_forced_ = false;  // BatchSamplerOptions::force_kernel: the prototype was forced
  double log_weight_ = 0;       // RawSample::log_weight
};

}  // namespace clgen::sampler
