// The batched sampling loop with stop rule and refill.
#include "sampler/batch_sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "corpus/preprocess/generated_names.h"
#include "sampler/constraint_lex.h"
#include "sampler/constraint_step.h"
#include "sampler/stop_rule.h"

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

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Spells text with the model's tokens, longest token text first (a
// character vocabulary spells it one token per character).
class TokenSpeller {
 public:
  TokenSpeller(const std::vector<std::string>& texts, int32_t end_token) {
    for (size_t t = 0; t < texts.size(); ++t) {
      if (int32_t(t) == end_token || texts[t].empty()) continue;
      by_text_.emplace(texts[t], int32_t(t));
      longest_ = std::max(longest_, texts[t].size());
    }
  }
  // nullopt when some character starts no token text.
  std::optional<std::vector<int32_t>> spell(std::string_view text) const {
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

 private:
  std::unordered_map<std::string, int32_t> by_text_;
  size_t longest_ = 0;
};
}  // namespace

BatchSampler::BatchSampler(StreamModel& model, BatchSamplerOptions options) : model_(model), opts_(std::move(options)) {
  unsigned threads = opts_.threads;
  if (threads == 0) threads = std::min(16u, std::max(1u, std::thread::hardware_concurrency() - 1));
  if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads - 1);
}

Status BatchSampler::run(const std::function<bool(RawSample&&)>& sink,
                         const std::function<bool()>& stop) {
  struct Stream {
    std::unique_ptr<SamplerChain> sampler;  // the policy's steps, gated by the constraint
    std::string text;
    KernelEndDetector end;
    bool dead_end = false;
    bool done = false;      // finished in this step
    bool complete = false;  // ... at the kernel's closing brace
    int tokens = 0;
    Clock::time_point start;
    std::string start_text;       // a start text longer than the seed, to check at the next step
    std::vector<int32_t> forced;  // the start text's tokens after the seed, replayed first
    size_t forced_at = 0;
    int64_t tag = -1;
    bool start_refused = false;
    std::string context;  // StreamStart::context: the model reads it before the seed
    // Repairs: where each generated token's text ends in `text` (from
    // `generated_from`, the end of the start text), the kept text to replay
    // at the next refill, and how often the sample has backed up.
    std::vector<uint32_t> token_ends;
    size_t generated_from = 0;
    bool repair_pending = false;  // backs up at the refill instead of being delivered
    int repairs = 0;
    std::string refused_draws;  // RawSample::refused_draws
    // Backtracking (max_backtracks): the tokens the chain accepted since its
    // reset; whether the text ends in a name begun at a saved point, that
    // point (text length, accepted tokens); first tokens banned at the draw
    // after going back to it; whether the model saves (before this step's
    // token) or restores (after it).
    std::vector<int32_t> accepted;
    bool at_name = false;
    size_t name_at = 0, name_tokens = 0;
    std::vector<int32_t> banned;
    bool ban_next = false, save_now = false, restore_now = false;
    int backtracks = 0;
    bool kernel_forced = false;  // BatchSamplerOptions::force_kernel: the prototype was forced
    double log_weight = 0;       // RawSample::log_weight
  };
  const bool weighting = opts_.correction > 0 && opts_.constraint;
  const int n = model_.streams();
  const bool backtracking = opts_.max_backtracks > 0 && opts_.constraint && model_.can_save();
  const int vocab = model_.vocab_size();
  if (n <= 0) return invalid_argument("sampling needs at least one stream");
  const int32_t end_token = model_.end_token();
  // Token texts, looked up once: the constraint checks every token after a
  // refusal.
  std::vector<std::string> token_texts(static_cast<size_t>(vocab));
  for (int t = 0; t < vocab; ++t) token_texts[size_t(t)] = model_.token_text(t);
  // The constraint's state after the seed: every stream's step starts from
  // a clone of it, and every refill restores it.
  std::unique_ptr<CodeConstraintStep> constraint;
  std::shared_ptr<CodeConstraint> seeded;
  if (opts_.constraint) {
    seeded = std::make_shared<CodeConstraint>(opts_.constraint);
    seeded->feed(opts_.seed_text);
    constraint = std::make_unique<CodeConstraintStep>(seeded, &token_texts, end_token);
  }
  std::vector<Stream> streams(n);
  // Stream i's generator: seeded from a SplitMix64 mix of (seed, the run's
  // stream number), so neighbouring streams' states are unrelated and no two
  // shards of one seed share a generator (shard.h).
  for (int i = 0; i < n; ++i) {
    streams[i].sampler = policy_chain(opts_.policy, stream_seed(opts_.seed, opts_.shard, uint64_t(i)));
    if (constraint)
      streams[i].sampler->constrain(
          std::unique_ptr<ConstraintStep>(static_cast<ConstraintStep*>(constraint->clone().release())),
          opts_.max_refusals);
  }
  std::optional<TokenSpeller> speller;
  if (opts_.start || opts_.max_repairs > 0 || opts_.force_kernel) speller.emplace(token_texts, end_token);
  // A start text longer than the seed: its tokens after the seed, or
  // nullopt when it cannot be replayed (see BatchSamplerOptions::start).
  auto replayable = [&](const std::string& text,
                        const KernelEndDetector& seeded_end) -> std::optional<std::vector<int32_t>> {
    if (text.compare(0, opts_.seed_text.size(), opts_.seed_text) != 0) return std::nullopt;
    std::string_view rest = std::string_view(text).substr(opts_.seed_text.size());
    KernelEndDetector end = seeded_end;
    if (end.feed(rest) != KernelEndDetector::kNotEnded || end.ended()) return std::nullopt;
    if (seeded && !seeded->accepts(rest)) return std::nullopt;
    return speller->spell(rest);
  };
  // Back to the seed: text, stop rule, chain and constraint (the generator
  // goes on); what the sample carries across a repair is left alone.
  auto to_seed = [&](Stream& s) {
    s.text = opts_.seed_text;
    s.end = KernelEndDetector(opts_.whole_text);
    s.kernel_forced = false;
    s.end.feed(opts_.seed_text);
    s.sampler->reset();
    s.accepted.clear();
    s.at_name = s.ban_next = false;
    s.banned.clear();
    s.dead_end = s.done = s.complete = false;
    s.forced.clear();
    s.forced_at = 0;
  };
  auto restart = [&](Stream& s) {
    to_seed(s);
    s.tokens = 0;
    s.start = Clock::now();
    s.token_ends.clear();
    s.generated_from = s.text.size();
    s.repairs = 0;
    s.backtracks = 0;
    s.log_weight = 0;
    s.refused_draws.clear();
    if (!opts_.start) return;
    StreamStart start = opts_.start(int(&s - streams.data()));
    s.tag = start.tag;
    s.start_refused = false;
    s.context = std::move(start.context);
    // Checked and spelled in the stream's next step, on the step's threads:
    // the constraint's check costs ~0.4 us a character.
    if (start.text != opts_.seed_text) s.start_text = std::move(start.text);
  };
  // A stream that used up its refusals backs up: its text up to
  // repair_backup tokens before the end (never into the start text) is
  // replayed from the seed at the next refill, keeping its count of tokens
  // and repairs, its start time and its start's tag.
  auto repair = [&](Stream& s) {
    const size_t backup = size_t(std::max(opts_.repair_backup, 1));
    const size_t kept_tokens = s.token_ends.size() > backup ? s.token_ends.size() - backup : 0;
    std::string kept = s.text.substr(0, kept_tokens ? s.token_ends[kept_tokens - 1] : s.generated_from);
    s.token_ends.resize(kept_tokens);
    ++s.repairs;
    to_seed(s);
    if (kept != opts_.seed_text) s.start_text = std::move(kept);
  };
  // force_kernel: the stream's text ends in `__kernel` (or `__kernel void`)
  // at file scope: the rest of the prototype, with a kernel name and
  // parameter names the text has not used, becomes the stream's forced
  // tokens, and the sample ends at that kernel's closing brace.
  auto force_kernel = [&](Stream& s) {
    if (!opts_.force_kernel || s.kernel_forced || s.end.depth() != 0) return;
    const std::string prototype_start = "__kernel void ";
    size_t matched = 0;
    for (size_t len : {prototype_start.size(), prototype_start.size() - 1, size_t(8)})
      if (s.text.size() >= len && s.text.compare(s.text.size() - len, len, prototype_start, 0, len) == 0 &&
          (s.text.size() == len || !ident_char(s.text[s.text.size() - len - 1]))) {
        matched = len;
        break;
      }
    if (matched == 0) return;
    const std::unordered_set<std::string> used = words_of(s.text);
    const std::string prototype = kernel_prototype(opts_.forced_args, unused_names(used, 1, true)[0],
                                                   unused_names(used, opts_.forced_args.size(), false));
    const std::string rest = prototype.substr(matched);
    std::optional<std::vector<int32_t>> tokens = speller->spell(rest);
    if (!tokens) return;
    s.kernel_forced = true;
    s.text += rest;
    s.end = KernelEndDetector(false);  // the kernel's closing brace ends the sample
    s.end.feed(rest);
    s.forced = std::move(*tokens);
    s.forced_at = 0;
    s.at_name = false;
  };
  for (Stream& s : streams) restart(s);
  if (streams[0].end.ended())
    return invalid_argument("the seed text already closes the kernel: " + opts_.seed_text);

  auto t0 = Clock::now();
  // The model reads a stream's context, then the seed; the state after a
  // text fed before is reused (a feature-conditioned model's header: one per
  // target, so its refills cost no more than the seed's).
  // With previous texts (whole texts), a start reads one of them first.
  const bool after_previous = opts_.whole_text && !opts_.previous_texts.empty();
  uint64_t starts = 0;
  auto feed_stream = [&](int i) {
    const Stream& s = streams[size_t(i)];
    const std::string seed = s.context.empty() ? opts_.seed_text : s.context + opts_.seed_text;
    if (!after_previous) return model_.feed(i, seed);
    const uint64_t pick = splitmix64(opts_.seed ^ splitmix64(uint64_t(opts_.shard.index) << 32 | starts++));
    return model_.feed_after(i, opts_.previous_texts[pick % opts_.previous_texts.size()], seed);
  };
  if (after_previous) {
    for (int i = 0; i < n; ++i) RETURN_IF_ERROR_CTX(feed_stream(i), "feeding a previous text and the seed");
  } else {
    RETURN_IF_ERROR_CTX(model_.feed_all(opts_.seed_text), "feeding the seed text");
    for (int i = 0; i < n; ++i)
      if (!streams[size_t(i)].context.empty())
        RETURN_IF_ERROR_CTX(feed_stream(i), "feeding a stream's context and seed");
  }
  stats_.model_seconds += since(t0);
  uint64_t next_index = 0;
  std::vector<int32_t> chosen(n);

  // One step of streams [from, to): each stream's chain chooses a token
  // (redrawing from the allowed tokens when the constraint refuses one);
  // then the token is appended and the chain and the stop rule accept it.
  // Streams are independent (each chain has its own generator), so ranges
  // run in parallel and the result does not depend on the split.
  struct Counts {
    uint64_t redrawn = 0, dead_ends = 0, abandoned = 0, starts_replayed = 0, starts_refused = 0, repairs = 0,
             repair_tokens = 0, backtracks = 0;
  };
  auto step_range = [&](const std::vector<float>& logits, int from, int to, Counts& counts, Candidates& work) {
    thread_local std::vector<float> banned_row;  // a row of logits without a stream's banned tokens
    for (int i = from; i < to; ++i) {
      Stream& s = streams[i];
      if (!s.start_text.empty()) {
        if (std::optional<std::vector<int32_t>> tokens = replayable(s.start_text, s.end)) {
          if (s.repairs == 0) ++counts.starts_replayed;
          else counts.repair_tokens += tokens->size();
          s.forced = std::move(*tokens);
          s.end.feed(std::string_view(s.start_text).substr(opts_.seed_text.size()));
          s.text = std::move(s.start_text);
          if (s.repairs == 0) s.generated_from = s.text.size();  // repairs never back into it
        } else if (s.repairs == 0) {
          ++counts.starts_refused;
          s.start_refused = true;
        } else {
          s.token_ends.clear();  // the kept text was refused: go on from the seed
          s.generated_from = s.text.size();
        }
        s.start_text.clear();
      }
      if (s.forced_at < s.forced.size()) {
        // Replaying the start text: the text and the stop rule have it
        // already; the chain's constraint follows it token by token.
        chosen[i] = s.forced[s.forced_at++];
        s.sampler->accept(chosen[i]);
        if (backtracking) s.accepted.push_back(chosen[i]);
        continue;
      }
      const float* row = &logits[size_t(i) * vocab];
      if (s.ban_next) {  // back at a name's start: not the first token that led to a refusal
        banned_row.assign(row, row + vocab);
        for (int32_t t : s.banned) banned_row[size_t(t)] = -std::numeric_limits<float>::infinity();
        row = banned_row.data();
        s.ban_next = false;
      }
      const Choice choice = s.sampler->sample(row, vocab, work);
      if (weighting)  // before the token is accepted: the share allowed where it was drawn
        s.log_weight += std::log(s.sampler->allowed_mass(row, vocab, opts_.policy.temperature, 1e-4));
      counts.redrawn += choice.refused;
      const bool backtrack = choice.refused && s.at_name && s.backtracks < opts_.max_backtracks &&
                             (opts_.backtrack_after_any_name || choice.abandoned || choice.dead_end ||
                              continues_name(token_texts[size_t(choice.token)]));
      if (choice.refused && s.refused_draws.size() < 512)
        s.refused_draws += fmt::format("{}{}{}:{}", s.refused_draws.empty() ? "" : " ", backtrack ? "b" : "",
                                       s.text.size(), quoted_token(token_texts[size_t(choice.refused_token)]));
      if (backtrack) {
        // Take the name back: text, stop rule, chain and (after this step's
        // advance) the model return to just before its first token.
        s.sampler->forgive_refusal();
        ++s.backtracks;
        ++counts.backtracks;
        s.banned.push_back(s.accepted[s.name_tokens]);
        s.accepted.resize(s.name_tokens);
        s.sampler->rewind(s.accepted);
        s.text.resize(s.name_at);
        s.end.reset();
        s.end.feed(s.text);
        while (!s.token_ends.empty() && s.token_ends.back() > s.name_at) s.token_ends.pop_back();
        s.at_name = false;
        s.ban_next = s.restore_now = true;
        chosen[i] = choice.refused_token;  // any token: the model's state is restored after the step
        s.done = ++s.tokens >= opts_.max_length;  // a backtrack spends a step of the sample's length too
        continue;
      }
      if (choice.abandoned && s.repairs < opts_.max_repairs && !s.token_ends.empty()) {
        ++counts.repairs;
        s.repair_pending = true;
        s.done = true;
        chosen[i] = end_token;  // any token: the stream is fed again before its next draw
        continue;
      }
      counts.abandoned += choice.abandoned;
      counts.dead_ends += choice.dead_end;
      s.dead_end = choice.abandoned || choice.dead_end;
      const int32_t token = choice.token;
      chosen[i] = token;
      ++s.tokens;
      if (token == end_token || s.dead_end) {
        s.done = true;
        // A whole text ends here when nothing is left open.
        s.complete = token == end_token && !s.dead_end && s.end.whole_text() && s.end.closed();
        continue;
      }
      s.sampler->accept(token);
      const std::string& piece = token_texts[size_t(token)];
      const size_t before = s.text.size();
      size_t cut = s.end.feed(piece);
      if (cut != KernelEndDetector::kNotEnded) {
        s.text.append(piece, 0, cut);
        s.done = true;
        s.complete = !s.end.whole_text();  // a whole text's stray '}' leaves it broken
      } else {
        s.text += piece;
        s.done = s.tokens >= opts_.max_length;
        if (!s.done) force_kernel(s);
      }
      if (opts_.max_repairs > 0) s.token_ends.push_back(uint32_t(s.text.size()));
      if (backtracking && !s.done) {
        s.accepted.push_back(token);
        const size_t name = trailing_name(s.text);
        if (name == std::string::npos) {
          s.at_name = false;
        } else if (name >= before) {  // a name begins in this token: the model saves its state before it
          if (s.name_at != before) s.banned.clear();
          s.at_name = s.save_now = true;
          s.name_at = before;
          s.name_tokens = s.accepted.size() - 1;
        }
      }
    }
  };
  // Ranges of at least 32 streams: one per pool thread plus the caller's.
  const int ranges = pool_ ? std::max(1, std::min<int>(int(pool_->size()) + 1, n / 32)) : 1;
  std::vector<Counts> counts(ranges);
  std::vector<Candidates> work(ranges);  // each range's candidates, reused step after step
  std::vector<std::future<void>> pending;

  while (!stop()) {
    t0 = Clock::now();
    ASSIGN_OR_RETURN(std::vector<float> logits, model_.logits());
    stats_.model_seconds += since(t0);
    if (logits.size() != static_cast<size_t>(n) * vocab)
      return internal_error("the model returned logits of an unexpected size");
    t0 = Clock::now();
    pending.clear();
    for (int r = 1; r < ranges; ++r)
      pending.push_back(
          pool_->submit([&, r] { step_range(logits, n * r / ranges, n * (r + 1) / ranges, counts[r], work[r]); }));
    // Every range finishes before anything it uses goes out of scope, even
    // when one throws.
    std::string failure;
    try {
      step_range(logits, 0, n / ranges, counts[0], work[0]);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    for (auto& f : pending) {
      try {
        f.get();
      } catch (const std::exception& e) {
        if (failure.empty()) failure = e.what();
      }
    }
    if (!failure.empty()) return internal_error("sampling step failed: " + failure);
    for (Counts& c : counts) {
      stats_.redrawn += c.redrawn;
      stats_.dead_ends += c.dead_ends;
      stats_.abandoned += c.abandoned;
      stats_.starts_replayed += c.starts_replayed;
      stats_.starts_refused += c.starts_refused;
      stats_.repairs += c.repairs;
      stats_.repair_tokens += c.repair_tokens;
      stats_.backtracks += c.backtracks;
      c = Counts{};
    }
    stats_.draw_seconds += since(t0);
    ++stats_.steps;
    stats_.tokens += n;

    // Deliver finished streams in stream order; collect which restart.
    std::vector<int> finished;
    bool keep_going = true;
    for (int i = 0; i < n; ++i) {
      Stream& s = streams[i];
      if (!s.done) continue;
      finished.push_back(i);
      if (!keep_going || s.repair_pending) continue;  // a repair is not a sample
      RawSample sample;
      sample.index = next_index++;
      sample.text = std::move(s.text);
      sample.complete = s.complete;
      sample.dead_end = s.dead_end;
      sample.tokens = s.tokens;
      sample.refusals = s.sampler->refusals();
      sample.seconds = since(s.start);
      sample.tag = s.tag;
      sample.start_refused = s.start_refused;
      sample.forced = int(s.forced.size());
      sample.repairs = s.repairs;
      sample.backtracks = s.backtracks;
      sample.log_weight = s.log_weight;
      sample.refused_draws = std::move(s.refused_draws);
      s.refused_draws.clear();
      if (s.repairs == 0) stats_.forced_tokens += s.forced.size();  // a repair's replay: repair_tokens
      keep_going = sink(std::move(sample));
    }
    if (!keep_going) break;

    t0 = Clock::now();
    // Backtracking: states saved before this step's tokens, restored after.
    std::vector<int> save, restore;
    if (backtracking) {
      for (int i = 0; i < n; ++i) {
        Stream& s = streams[size_t(i)];
        if (s.save_now && !s.done) save.push_back(i);
        if (s.restore_now && !s.done) restore.push_back(i);
        s.save_now = s.restore_now = false;
      }
      RETURN_IF_ERROR_CTX(model_.save(save), "saving streams' states");
    }
    RETURN_IF_ERROR_CTX(model_.advance(chosen), "stepping the model");
    if (!restore.empty()) RETURN_IF_ERROR_CTX(model_.restore(restore), "restoring streams' states");
    for (int i : finished) {
      Stream& s = streams[i];
      if (s.repair_pending) {
        s.repair_pending = false;
        repair(s);
      } else {
        restart(s);
      }
      RETURN_IF_ERROR_CTX(feed_stream(i), "refilling a stream with the seed");
    }
    stats_.model_seconds += since(t0);
  }
  return ok_status();
}

}  // namespace clgen::sampler
