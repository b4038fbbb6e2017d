// One stream of the batched sampling loop: its step, refill and finish.
#include "sampler/batch_stream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

#include "corpus/preprocess/generated_names.h"
#include "sampler/constraint_lex.h"
#include "sampler/shard.h"

namespace clgen::sampler {

namespace {
using Clock = std::chrono::steady_clock;
using constraint_lex::ident_char;
using constraint_lex::ident_start;

// A token's text in single quotes, with quotes, backslashes and control
// characters escaped: one word of RawSample::refused_draws.
std::string quoted_token(std::string_view text) {
  std::string q = "'";
  for (unsigned char c : text) {
    if (c == '\\' || c == '\'') {
      q += '\\';
      q += char(c);
    } else if (c == '\n') q += "\\n";
    else if (c == '\t') q += "\\t";
    else if (c < 0x20) q += fmt::format("\\x{:02x}", c);
    else q += char(c);
  }
  return q + "'";
}

// Where the name that `text` ends with begins (a letter or '_' and then
// letters, digits and '_'), or npos when it ends otherwise (in a number too).
size_t trailing_name(const std::string& text) {
  size_t at = text.size();
  while (at > 0 && ident_char(text[at - 1])) --at;
  return at < text.size() && ident_start(text[at]) ? at : std::string::npos;
}

// The words (identifiers and keywords) of `text`.
std::unordered_set<std::string> words_of(const std::string& text) {
  std::unordered_set<std::string> words;
  for (size_t i = 0; i < text.size();) {
    if (!ident_start(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    words.emplace(text, i, j - i);
    i = j;
  }
  return words;
}

// `count` generated names (functions A, B, ...; variables a, b, ...) not
// among `used`, in the rewriter's order.
std::vector<std::string> unused_names(const std::unordered_set<std::string>& used, size_t count, bool upper) {
  std::vector<std::string> names;
  for (size_t k = 0; names.size() < count; ++k) {
    std::string name = preprocess::generated_name(k, upper);
    if (!used.count(name) && !preprocess::is_cpp_only_word(name) && name != "do" && name != "if" && name != "int")
      names.push_back(std::move(name));
  }
  return names;
}

// Whether a token's text would lengthen the name before it.
bool continues_name(const std::string& piece) { return !piece.empty() && ident_char(piece[0]); }

}  // namespace

TokenSpeller::TokenSpeller(const std::vector<std::string>& texts, int32_t end_token) {
  for (size_t t = 0; t < texts.size(); ++t) {
    if (int32_t(t) == end_token || texts[t].empty()) continue;
    by_text_.emplace(texts[t], int32_t(t));
    longest_ = std::max(longest_, texts[t].size());
  }
}

std::optional<std::vector<int32_t>> TokenSpeller::spell(std::string_view text) const {
  std::vector<int32_t> out;
  for (size_t i = 0; i < text.size();) {
    size_t len = std::min(longest_, text.size() - i);
    for (; len > 0; --len) {
      auto it = by_text_.find(std::string(text.substr(i, len)));
      if (it == by_text_.end()) continue;
      out.push_back(it->second);
      break;
    }
    if (len == 0) return std::nullopt;
    i += len;
  }
  return out;
}

StreamShared::StreamShared(StreamModel& model, const BatchSamplerOptions& options)
    : opts(options),
      weighting(options.correction > 0 && options.constraint),
      backtracking(options.max_backtracks > 0 && options.constraint && model.can_save()),
      vocab(model.vocab_size()),
      end_token(model.end_token()),
      token_texts(static_cast<size_t>(vocab)) {
  for (int t = 0; t < vocab; ++t) token_texts[size_t(t)] = model.token_text(t);
  if (opts.constraint) {
    seeded = std::make_shared<CodeConstraint>(opts.constraint);
    seeded->feed(opts.seed_text);
    constraint = std::make_unique<CodeConstraintStep>(seeded, &token_texts, end_token);
  }
  if (opts.start || opts.max_repairs > 0 || opts.force_kernel) speller.emplace(token_texts, end_token);
}

std::optional<std::vector<int32_t>> StreamShared::replayable(const std::string& text,
                                                             const KernelEndDetector& seeded_end) const {
  if (text.compare(0, opts.seed_text.size(), opts.seed_text) != 0) return std::nullopt;
  std::string_view rest = std::string_view(text).substr(opts.seed_text.size());
  KernelEndDetector end = seeded_end;
  if (end.feed(rest) != KernelEndDetector::kNotEnded || end.ended()) return std::nullopt;
  if (seeded && !seeded->accepts(rest)) return std::nullopt;
  return speller->spell(rest);
}

void StepCounts::drain_into(BatchSamplerStats& stats) {
  stats.redrawn += redrawn;
  stats.dead_ends += dead_ends;
  stats.abandoned += abandoned;
  stats.starts_replayed += starts_replayed;
  stats.starts_refused += starts_refused;
  stats.repairs += repairs;
  stats.repair_tokens += repair_tokens;
  stats.backtracks += backtracks;
  *this = StepCounts{};
}

// The stream's generator: seeded from a SplitMix64 mix of (seed, the run's
// stream number), so neighbouring streams' states are unrelated and no two
// shards of one seed share a generator (shard.h).
BatchStream::BatchStream(const StreamShared& shared, int index)
    : shared_(&shared),
      index_(index),
      sampler_(policy_chain(shared.opts.policy, stream_seed(shared.opts.seed, shared.opts.shard, uint64_t(index)))) {
  if (shared.constraint)
    sampler_->constrain(
        std::unique_ptr<ConstraintStep>(static_cast<ConstraintStep*>(shared.constraint->clone().release())),
        shared.opts.max_refusals);
}

// Back to the seed: text, stop rule, chain and constraint (the generator
// goes on); what the sample carries across a repair is left alone.
void BatchStream::to_seed() {
  const BatchSamplerOptions& opts = shared_->opts;
  text_ = opts.seed_text;
  end_ = KernelEndDetector(opts.whole_text);
  kernel_forced_ = false;
  end_.feed(opts.seed_text);
  sampler_->reset();
  accepted_.clear();
  at_name_ = ban_next_ = false;
  banned_.clear();
  dead_end_ = done_ = complete_ = false;
  forced_.clear();
  forced_at_ = 0;
}

void BatchStream::restart() {
  const BatchSamplerOptions& opts = shared_->opts;
  to_seed();
  tokens_ = 0;
  start_ = Clock::now();
  token_ends_.clear();
  generated_from_ = text_.size();
  repairs_ = 0;
  backtracks_ = 0;
  log_weight_ = 0;
  refused_draws_.clear();
  if (!opts.start) return;
  StreamStart start = opts.start(index_);
  tag_ = start.tag;
  start_refused_ = false;
  context_ = std::move(start.context);
  // Checked and spelled in the stream's next step, on the step's threads:
  // the constraint's check costs ~0.4 us a character.
  if (start.text != opts.seed_text) start_text_ = std::move(start.text);
}

// A stream that used up its refusals backs up: its text up to
// repair_backup tokens before the end (never into the start text) is
// replayed from the seed at the next refill, keeping its count of tokens
// and repairs, its start time and its start's tag.
void BatchStream::repair() {
  const size_t backup = size_t(std::max(shared_->opts.repair_backup, 1));
  const size_t kept_tokens = token_ends_.size() > backup ? token_ends_.size() - backup : 0;
  std::string kept = text_.substr(0, kept_tokens ? token_ends_[kept_tokens - 1] : generated_from_);
  token_ends_.resize(kept_tokens);
  ++repairs_;
  to_seed();
  if (kept != shared_->opts.seed_text) start_text_ = std::move(kept);
}

void BatchStream::refill() {
  if (repair_pending_) {
    repair_pending_ = false;
    repair();
  } else {
    restart();
  }
}

RawSample BatchStream::finish(uint64_t index) {
  RawSample sample;
  sample.index = index;
  sample.text = std::move(text_);
  sample.complete = complete_;
  sample.dead_end = dead_end_;
  sample.tokens = tokens_;
  sample.refusals = sampler_->refusals();
  sample.seconds = std::chrono::duration<double>(Clock::now() - start_).count();  // since the (re)start
  sample.tag = tag_;
  sample.start_refused = start_refused_;
  sample.forced = int(forced_.size());
  sample.repairs = repairs_;
  sample.backtracks = backtracks_;
  sample.log_weight = log_weight_;
  sample.refused_draws = std::move(refused_draws_);
  refused_draws_.clear();
  return sample;
}

void BatchStream::take_state_marks(bool& save, bool& restore) {
  save = save_now_ && !done_;
  restore = restore_now_ && !done_;
  save_now_ = restore_now_ = false;
}

// A start text (or a repair's kept text) set at the refill: replayed when
// the stop rule and the constraint take it, else the stream goes on from
// the seed.
void BatchStream::take_start_text(StepCounts& counts) {
  if (std::optional<std::vector<int32_t>> tokens = shared_->replayable(start_text_, end_)) {
    if (repairs_ == 0) ++counts.starts_replayed;
    else counts.repair_tokens += tokens->size();
    forced_ = std::move(*tokens);
    end_.feed(std::string_view(start_text_).substr(shared_->opts.seed_text.size()));
    text_ = std::move(start_text_);
    if (repairs_ == 0) generated_from_ = text_.size();  // repairs never back into it
  } else if (repairs_ == 0) {
    ++counts.starts_refused;
    start_refused_ = true;
  } else {
    token_ends_.clear();  // the kept text was refused: go on from the seed
    generated_from_ = text_.size();
  }
  start_text_.clear();
}

int32_t BatchStream::step(const float* row, StepCounts& counts, Candidates& work) {
  thread_local std::vector<float> banned_row;  // a row of logits without a stream's banned tokens
  const StreamShared& sh = *shared_;
  if (!start_text_.empty()) take_start_text(counts);
  if (forced_at_ < forced_.size()) {
    // Replaying the start text: the text and the stop rule have it
    // already; the chain's constraint follows it token by token.
    const int32_t token = forced_[forced_at_++];
    sampler_->accept(token);
    if (sh.backtracking) accepted_.push_back(token);
    return token;
  }
  if (ban_next_) {  // back at a name's start: not the first token that led to a refusal
    banned_row.assign(row, row + sh.vocab);
    for (int32_t t : banned_) banned_row[size_t(t)] = -std::numeric_limits<float>::infinity();
    row = banned_row.data();
    ban_next_ = false;
  }
  const Choice choice = sampler_->sample(row, sh.vocab, work);
  if (sh.weighting)  // before the token is accepted: the share allowed where it was drawn
    log_weight_ += std::log(sampler_->allowed_mass(row, sh.vocab, sh.opts.policy.temperature, 1e-4));
  if (std::optional<int32_t> fed = on_refusal(choice, counts)) return *fed;
  counts.abandoned += choice.abandoned;
  counts.dead_ends += choice.dead_end;
  dead_end_ = choice.abandoned || choice.dead_end;
  const int32_t token = choice.token;
  ++tokens_;
  if (token == sh.end_token || dead_end_) {
    done_ = true;
    // A whole text ends here when nothing is left open.
    complete_ = token == sh.end_token && !dead_end_ && end_.whole_text() && end_.closed();
    return token;
  }
  append(token);
  return token;
}

inline std::optional<int32_t> BatchStream::on_refusal(const Choice& choice, StepCounts& counts) {
  const StreamShared& sh = *shared_;
  const BatchSamplerOptions& opts = sh.opts;
  counts.redrawn += choice.refused;
  const bool back = choice.refused && at_name_ && backtracks_ < opts.max_backtracks &&
                    (opts.backtrack_after_any_name || choice.abandoned || choice.dead_end ||
                     continues_name(sh.token_texts[size_t(choice.token)]));
  if (choice.refused && refused_draws_.size() < 512)
    refused_draws_ += fmt::format("{}{}{}:{}", refused_draws_.empty() ? "" : " ", back ? "b" : "", text_.size(),
                                  quoted_token(sh.token_texts[size_t(choice.refused_token)]));
  if (back) return backtrack(choice, counts);
  if (choice.abandoned && repairs_ < opts.max_repairs && !token_ends_.empty()) {
    ++counts.repairs;
    repair_pending_ = true;
    done_ = true;
    return sh.end_token;  // any token: the stream is fed again before its next draw
  }
  return std::nullopt;
}

// Takes the name back: text, stop rule, chain and (after this step's
// advance) the model return to just before its first token.
int32_t BatchStream::backtrack(const Choice& choice, StepCounts& counts) {
  sampler_->forgive_refusal();
  ++backtracks_;
  ++counts.backtracks;
  banned_.push_back(accepted_[name_tokens_]);
  accepted_.resize(name_tokens_);
  sampler_->rewind(accepted_);
  text_.resize(name_at_);
  end_.reset();
  end_.feed(text_);
  while (!token_ends_.empty() && token_ends_.back() > name_at_) token_ends_.pop_back();
  at_name_ = false;
  ban_next_ = restore_now_ = true;
  done_ = ++tokens_ >= shared_->opts.max_length;  // a backtrack spends a step of the sample's length too
  return choice.refused_token;                    // any token: the model's state is restored after the step
}

// Appends a drawn token that does not end the text: the chain and the
// stop rule accept it.
inline void BatchStream::append(int32_t token) {
  const StreamShared& sh = *shared_;
  sampler_->accept(token);
  const std::string& piece = sh.token_texts[size_t(token)];
  const size_t before = text_.size();
  size_t cut = end_.feed(piece);
  if (cut != KernelEndDetector::kNotEnded) {
    text_.append(piece, 0, cut);
    done_ = true;
    complete_ = !end_.whole_text();  // a whole text's stray '}' leaves it broken
  } else {
    text_ += piece;
    done_ = tokens_ >= sh.opts.max_length;
    if (!done_ && sh.opts.force_kernel) force_kernel();
  }
  if (sh.opts.max_repairs > 0) token_ends_.push_back(uint32_t(text_.size()));
  if (sh.backtracking && !done_) track_name(token, before);
}

// Backtracking: whether the text now ends in a name, and where it began
// (`before`: the text's length before `token`).
inline void BatchStream::track_name(int32_t token, size_t before) {
  accepted_.push_back(token);
  const size_t name = trailing_name(text_);
  if (name == std::string::npos) {
    at_name_ = false;
  } else if (name >= before) {  // a name begins in this token: the model saves its state before it
    if (name_at_ != before) banned_.clear();
    at_name_ = save_now_ = true;
    name_at_ = before;
    name_tokens_ = accepted_.size() - 1;
  }
}

// force_kernel: the stream's text ends in `__kernel` (or `__kernel void`)
// at file scope: the rest of the prototype, with a kernel name and
// parameter names the text has not used, becomes the stream's forced
// tokens, and the sample ends at that kernel's closing brace.
void BatchStream::force_kernel() {
  const BatchSamplerOptions& opts = shared_->opts;
  if (!opts.force_kernel || kernel_forced_ || end_.depth() != 0) return;
  const std::string prototype_start = "__kernel void ";
  size_t matched = 0;
  for (size_t len : {prototype_start.size(), prototype_start.size() - 1, size_t(8)})
    if (text_.size() >= len && text_.compare(text_.size() - len, len, prototype_start, 0, len) == 0 &&
        (text_.size() == len || !ident_char(text_[text_.size() - len - 1]))) {
      matched = len;
      break;
    }
  if (matched == 0) return;
  const std::unordered_set<std::string> used = words_of(text_);
  const std::string prototype = kernel_prototype(opts.forced_args, unused_names(used, 1, true)[0],
                                                 unused_names(used, opts.forced_args.size(), false));
  const std::string rest = prototype.substr(matched);
  std::optional<std::vector<int32_t>> tokens = shared_->speller->spell(rest);
  if (!tokens) return;
  kernel_forced_ = true;
  text_ += rest;
  end_ = KernelEndDetector(false);  // the kernel's closing brace ends the sample
  end_.feed(rest);
  forced_ = std::move(*tokens);
  forced_at_ = 0;
  at_name_ = false;
}

}  // namespace clgen::sampler
