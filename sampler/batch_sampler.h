// The sampling loop: steps every stream of a StreamModel together, ends a
// stream at the end of its text (the model's end token; for a stream seeded
// at a kernel signature, the kernel's closing brace) or the maximum length,
// and refills finished streams with the seed (or a longer start text to
// continue, for directed sampling) so the batch stays full.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sampler/arg_spec.h"
#include "sampler/code_constraint.h"
#include "sampler/policy.h"
#include "sampler/shard.h"
#include "sampler/stream_model.h"
#include "support/status.h"
#include "support/thread_pool.h"

namespace clgen::sampler {

// One finished stream.
struct RawSample {
  uint64_t index = 0;     // order of completion in this run, from 0
  std::string text;       // seed + generated text (signature seed: cut after the closing brace)
  // Ended where its text ends: a whole text at the model's end token with
  // nothing open, a signature-seeded one at its kernel's closing brace (not
  // by length, an end token too early, or the constraint).
  bool complete = false;
  bool dead_end = false;  // ended by the constraint (no token allowed, or --max-refusals refused)
  int tokens = 0;         // tokens generated after the seed
  int refusals = 0;       // draws the constraint refused
  // Those draws, each as `OFFSET:'TOKEN'` (OFFSET: where in the text it was
  // drawn; `bOFFSET` for a draw that was taken back by backtracking, at an
  // offset into text since cut), space-separated: why the constraint ended
  // a stream.
  std::string refused_draws;
  double seconds = 0;     // wall time from the stream's (re)start to its end
  // With BatchSamplerOptions::start: the tag of the stream's start, and
  // whether its text was refused (the stream then started from the seed).
  int64_t tag = -1;
  bool start_refused = false;
  int forced = 0;  // tokens of the start text after the seed, replayed before `tokens`
  // With StreamOptions::correction: the log of the model's probability of
  // the generated text over the constrained sampler's (the sum of the log
  // shares the constraint allowed at each draw; 0 = it allowed everything).
  double log_weight = 0;
  int repairs = 0;  // times the stream backed up instead of being abandoned
  int backtracks = 0;  // names taken back (BatchSamplerOptions::max_backtracks)
  // Begun during a drain (BatchSampler::run): numbered like any sample, so
  // the kept ones have the index they would have in a run that went on, but
  // not kept; only `index` is set.
  bool discarded = false;
};

// Where a stream (re)starts: the seed text, or a longer text that begins
// with it (a prefix of a kernel to continue); `tag` comes back on the sample.
// `context` is fed to the model before the seed (a feature-conditioned
// model's header line, StreamModel::feature_header) and is no part of the
// stream: the constraint, the stop rule and the sample's text begin at the
// seed.
struct StreamStart {
  std::string text;
  int64_t tag = -1;
  std::string context = "";
};

// How every stream is drawn. The sampling loop (BatchSamplerOptions) and
// `clgen sample` (SampleOptions, whose command line binds to these fields)
// share it, so each default is written here once.
struct StreamOptions {
  int max_length = 3000;  // tokens generated per sample before it is cut off
  SamplingPolicy policy;
  // RNG seed of the draws. Each stream draws from its own generator, seeded
  // from this and the stream's number, so a run is reproduced by the same
  // seed and batch size whatever the number of threads.
  uint64_t seed = 0;
  // This run's part of a sharded run: its streams draw from the generators
  // that stream_seed() (shard.h) gives them; {0, 1} = unsharded.
  Shard shard;
  // Whole texts (true): a sample starts where a corpus text starts (after
  // the model's separator: preamble, helpers, then kernels) and ends at the
  // model's end token, as the preprocessor stores human texts. false: it
  // starts at the kernel signature (the seed) and ends at that kernel's
  // closing brace.
  bool whole_text = false;
  // A constrained stream ends once the constraint has refused this many of
  // its draws (0 = never: a refused draw is always redrawn from the allowed
  // tokens, so a sample's length does not decide whether it survives).
  int max_refusals = 0;
  // Importance correction of constrained decoding (0 = off). A constrained
  // draw comes from the model's distribution renormalized over the allowed
  // tokens, so a text x is drawn with q(x) = p(x) / w(x), where w(x) is the
  // product of the allowed shares along it (RawSample::log_weight). Keeping
  // a sample with probability min(1, w / correction) bounds that bias: kept
  // samples follow p within a factor `correction`. 1 = exact (as many
  // samples survive as unconstrained rejection keeps), small = today's
  // constrained distribution. The pipeline thins before the Clang filter.
  double correction = 0;
  // Repair instead of abandon: a stream that reaches max_refusals backs up
  // repair_backup tokens (never into its start text) and goes on from there,
  // at most max_repairs times per sample (0 = abandon at once). The kept
  // text is replayed token by token in the batch's own steps, as a start
  // text is; the draws go on with the stream's generator, so they differ.
  int max_repairs = 0;
  int repair_backup = 8;
  // Backtrack instead of redraw: when the constraint refuses a draw right
  // after a name the stream is writing (mostly a name it may not use there,
  // such as an undeclared variable; but any name: a valid one followed by a
  // refused token is taken back too), the stream goes back to just before
  // that name, in the model too (StreamModel::save/restore), and draws its
  // first token again without those it drew there before; at most
  // max_backtracks times per sample (0 = off), each spending a step of
  // max_length, and such a refusal does not count towards max_refusals. The
  // model's other choice of name is then followed, where a redraw would
  // have lengthened the name it cannot use.
  int max_backtracks = 0;
  // Which refusals backtrack: after any name (true, as measured on the H100),
  // or only when the name itself is the trouble (false): no token is allowed
  // there, the stream used up its refusals, or the allowed redraw would
  // lengthen the name; otherwise the redraw stands (`a[i` then a refused `)`
  // is mended by `]`, not by giving up `i`).
  bool backtrack_after_any_name = true;
};

struct BatchSamplerOptions : StreamOptions {
  // The signature seed; "" for whole texts.
  std::string seed_text = "__kernel void A(";
  // Whole texts with --args: the kernel's arguments. When the model opens a
  // kernel at file scope (`__kernel`), the rest of its prototype is forced
  // (with names the text has not used yet), and the sample ends at that
  // kernel's closing brace; a preamble and helpers before it stay free.
  std::vector<KernelArg> forced_args;
  bool force_kernel = false;
  // Whole texts: every (re)start first reads the end of one of these texts
  // and the separator (StreamModel::feed_after), so the model starts a text
  // in the state training left it in, after another text; picked per
  // restart by the stream's seed. Empty = the separator alone.
  std::vector<std::string> previous_texts;
  // Constrained decoding (code_constraint.h) when set; must outlive run().
  const ConstraintTables* constraint = nullptr;
  // Threads that draw the streams' tokens and step their constraints and
  // stop rules (0 = cores - 1, at most 16; 1 = only the sampling thread).
  unsigned threads = 0;
  // Called on the sampling thread at every stream's (re)start, with the
  // stream's index in the batch (0 .. batch_size - 1); null = every
  // stream starts from seed_text. A longer text is replayed after seed_text
  // token by token in the batch's own steps (no extra model pass; spelled
  // greedily with the longest token texts), the constraint following it. A
  // text that does not begin with seed_text, that the tokens cannot spell,
  // that the constraint refuses or that closes the kernel starts the stream
  // from seed_text instead (BatchSamplerStats::starts_refused).
  std::function<StreamStart(int stream)> start;
};

struct BatchSamplerStats {
  uint64_t steps = 0;
  uint64_t tokens = 0;
  double model_seconds = 0;  // in the model (feed, logits, advance)
  double draw_seconds = 0;   // on the CPU: choosing tokens, stepping constraints and stop rules
  uint64_t redrawn = 0;      // draws the constraint refused (then redrawn from the allowed tokens)
  uint64_t dead_ends = 0;    // streams with no allowed token (ended as truncated)
  uint64_t abandoned = 0;    // streams ended because the constraint refused max_refusals of their draws
  uint64_t starts_replayed = 0;  // streams started from a longer text than the seed (options.start)
  uint64_t starts_refused = 0;   // ... whose text was refused: started from the seed
  uint64_t forced_tokens = 0;    // tokens replayed from start texts
  uint64_t repairs = 0;          // streams that backed up instead of being abandoned (max_repairs)
  uint64_t repair_tokens = 0;    // tokens replayed by repairs
  uint64_t backtracks = 0;       // names taken back after a refusal (max_backtracks)
  // The drain (run's `drain`): samples begun before it and delivered during
  // it, and its seconds.
  uint64_t drained = 0;
  double drain_seconds = 0;
};

class BatchSampler {
 public:
  BatchSampler(StreamModel& model, BatchSamplerOptions options);

  // Samples until `sink` returns false or `stop()` returns true (checked once
  // per step). `sink` receives each finished stream in completion order;
  // streams finishing in the same step are delivered in stream order.
  // Once `drain()` returns true, the samples in flight run to their end and
  // are delivered, then run() returns; samples begun after it reach `sink`
  // as RawSample::discarded, numbered but empty. A stop
  // that waits for nothing in flight keeps the samples that ended soonest,
  // the short ones; a drained run keeps every sample it began, whatever its
  // length. (Streams still step during the drain, their new samples
  // discarded: the batch keeps its shape.)
  Status run(const std::function<bool(RawSample&&)>& sink, const std::function<bool()>& stop,
             const std::function<bool()>& drain = {});

  const BatchSamplerStats& stats() const { return stats_; }

 private:
  StreamModel& model_;
  BatchSamplerOptions opts_;
  std::unique_ptr<ThreadPool> pool_;  // for the per-stream work of a step
  BatchSamplerStats stats_;
};

}  // namespace clgen::sampler
