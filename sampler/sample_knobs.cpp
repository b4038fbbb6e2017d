// `clgen sample`'s flags and config keys, each declared once. The rows are
// in --help order; the groups of rows below follow it.
#include "sampler/sample_knobs.h"

#include "support/config.h"

namespace clgen::sampler {

namespace {

using Knobs = std::vector<Knob>;

void add_input_knobs(Knobs& t, SampleJobOptions& o) {
  t.push_back(Knob("--args", o.sample.args,
                   "Kernel argument types, e.g. \"float*,float*,float*,int\" (default: the model "
                   "chooses the signature)",
                   kInputGroup));
  t.push_back(Knob("--model", o.model_id, "Model id (default: the latest trained)", kInputGroup));
  t.push_back(Knob("--checkpoint", o.checkpoint,
                   "best (lowest validation loss; the last for models without one) or last", kInputGroup)
                  .one_of({"best", "last"})
                  .default_shown());
  t.push_back(Knob("--config", o.config,
                   "Sample from the model this config trains, with its [sampler], [directed] and [check] settings",
                   kInputGroup)
                  .checked(FlagCheck::kNonEmpty));
  t.push_back(
      Knob("--device", o.device, "cpu, cuda or auto", kInputGroup).one_of({"cpu", "cuda", "auto"}).default_shown());
}

// The Sampling group, with the policy's tuning knobs declared beside the temperature.
void add_sampling_knobs(Knobs& t, SampleJobOptions& o) {
  SampleOptions& s = o.sample;
  t.push_back(Knob("--temperature", s.policy.temperature, "Sampling temperature (0 = greedy)", kSamplingGroup)
                  .checked(FlagCheck::kNonNegative)
                  .default_shown()
                  .config("sampler.temperature")
                  .config_range(0.0, 100.0));
  t.push_back(Knob("--begin", o.begin, "[sampler] begin: text or signature", kTuningGroup)
                  .one_of({"text", "signature"})
                  .config("sampler.begin"));
  t.push_back(Knob("--top-k", s.policy.top_k, "[sampler] top_k: sample from the K most likely tokens (0 = disabled)",
                   kTuningGroup)
                  .checked(FlagCheck::kNonNegative)
                  .config("sampler.top_k")
                  .config_range(0, 1 << 30));
  t.push_back(Knob("--top-p", s.policy.top_p, "[sampler] top_p: nucleus sampling mass (1 = disabled)", kTuningGroup)
                  .in_range(0.0, 1.0)
                  .config("sampler.top_p"));
  t.push_back(Knob("--seed", s.seed,
                   "RNG seed; the same seed on CPU reproduces a run (default: a fresh seed, printed "
                   "and stored with every sample)",
                   kSamplingGroup));
  t.push_back(Knob("--resume", o.resume,
                   "Continue the newest stored run of this model, --args and shard: take its seed, skip its stored "
                   "draws, and count its kernels toward -n",
                   kSamplingGroup));
  t.push_back(
      Knob("--out", o.out, "Directory for accepted kernels (default: <workspace>/samples/<model id>)", kSamplingGroup));
}

void add_checking_and_directed_knobs(Knobs& t, SampleJobOptions& o) {
  DirectedJobOptions& d = o.directed;
  t.push_back(Knob("--check", o.check_device,
                   "Drive accepted kernels through the dynamic checker while sampling: cpu, gpu, part of "
                   "a device name, or all (the CPU checks, the other devices profile what passed); "
                   "-n then counts benchmark-grade kernels",
                   kCheckingGroup));
  t.push_back(Knob("--check-out", o.check_out,
                   "Directory for benchmark-grade kernels (default: <workspace>/benchmark-grade/<model "
                   "id>, or <--out>-benchmark-grade)",
                   kCheckingGroup));
  t.push_back(Knob("--target-features", d.target_features,
                   "Steer toward these Grewe feature vectors (CSV with columns comp, "
                   "rational, mem, localmem, coalesced, atomic; `clgen features` output works as is; "
                   "see docs/SAMPLER.md)",
                   kDirectedGroup)
                  .checked(FlagCheck::kExistingFile));
  t.push_back(Knob("--held-out-targets", d.held_out,
                   "Steer toward the features of the kernels that --config's training holds "
                   "out (validation_split = \"repository\")",
                   kDirectedGroup));
  t.push_back(Knob("--explore", d.explore,
                   "Steer toward the corpus kernels farthest from the workspace's newest "
                   "2000 accepted samples in feature space (docs/SAMPLER.md)",
                   kDirectedGroup));
  t.push_back(Knob("--baseline", d.baseline, "Alternate directed and undirected slices in the same run and report both",
                   kDirectedGroup));
  t.push_back(Knob("--target-report", d.report,
                   "Write each target's nearest kernel (directed, and undirected with --baseline) as CSV",
                   kDirectedGroup));
}

void add_limit_knobs(Knobs& t, SampleJobOptions& o) {
  SampleOptions& s = o.sample;
  t.push_back(Knob("-n", s.target_accepted,
                   "Stop once this many new unique kernels of this model, --args, seed and policy are stored, "
                   "earlier runs' of the seed included (0 = no limit; see docs/SAMPLER.md)",
                   kLimitsGroup)
                  .default_shown());
  t.push_back(Knob("--max-samples", s.max_samples, "Stop after this many samples (0 = no limit)", kLimitsGroup)
                  .default_shown());
  t.push_back(Knob("--time-limit", s.time_limit, "Stop after this many seconds (0 = no limit)", kLimitsGroup)
                  .default_shown()
                  .in_range(0, 1e9));
  t.push_back(Knob("--max-length", s.max_length, "Tokens per sample before it is cut off", kLimitsGroup)
                  .default_shown()
                  .in_range(1, 1 << 24)
                  .config("sampler.max_length"));
  t.push_back(Knob("--batch-size", o.batch_size, "Streams sampled in parallel", kLimitsGroup)
                  .default_shown()
                  .in_range(1, 1 << 20));
}

// Off --help: [sampler] keys, and --shard and --baseline-only (docs/SAMPLER.md).
void add_sampler_tuning_knobs(Knobs& t, SampleJobOptions& o) {
  SampleOptions& s = o.sample;
  t.push_back(Knob("--shard", o.shard,
                   "Sample shard I of N (I/N, 0 <= I < N): streams draw from generators no other "
                   "shard of the same --seed uses, and 0/1 is the unsharded run; \"auto\" takes I/N "
                   "from torchrun's RANK/WORLD_SIZE or Slurm's SLURM_PROCID/SLURM_NTASKS and the "
                   "GPU from LOCAL_RANK/SLURM_LOCALID (see docs/SAMPLER.md)",
                   kTuningGroup));
  t.push_back(Knob("--baseline-only", o.directed.baseline_only,
                   "With directed sampling: every stream is undirected (the --baseline side alone, for a run of its "
                   "own); its distance to the targets is reported as the baseline",
                   kTuningGroup));
  t.push_back(Knob("--start", o.start, "[sampler] start: file or zero", kTuningGroup)
                  .one_of({"file", "zero"})
                  .config("sampler.start"));
  t.push_back(Knob("--filter-threads", s.filter_threads, "[sampler] filter_threads", kTuningGroup)
                  .config("sampler.filter_threads")
                  .config_range(0, 1024));
  t.push_back(
      Knob("!--no-constrain", s.constrain, "[sampler] constrain = false", kTuningGroup).config("sampler.constrain"));
  t.push_back(Knob("!--no-drain", s.drain, "[sampler] drain = false", kTuningGroup).config("sampler.drain"));
  t.push_back(Knob("--correction", s.correction, "[sampler] correction", kTuningGroup)
                  .in_range(0.0, 1.0)
                  .config("sampler.correction"));
  t.push_back(Knob("--max-refusals", s.max_refusals, "[sampler] max_refusals (0 = never end a stream)", kTuningGroup)
                  .checked(FlagCheck::kNonNegative)
                  .config("sampler.max_refusals")
                  .config_range(0, 1 << 20));
  t.push_back(Knob("--repairs", s.max_repairs, "[sampler] repairs", kTuningGroup)
                  .checked(FlagCheck::kNonNegative)
                  .config("sampler.repairs")
                  .config_range(0, 1 << 20));
  t.push_back(Knob("--repair-backup", s.repair_backup, "[sampler] repair_backup", kTuningGroup)
                  .checked(FlagCheck::kPositive)
                  .config("sampler.repair_backup")
                  .config_range(1, 1 << 20));
  t.push_back(Knob("--resume-errors", s.resume_errors, "[sampler] resume_errors (0 = off)", kTuningGroup)
                  .checked(FlagCheck::kNonNegative)
                  .config("sampler.resume_errors")
                  .config_range(0, 1 << 10));
  t.push_back(Knob("--backtracks", o.backtracks, "[sampler] backtracks", kTuningGroup)
                  .checked(FlagCheck::kNonNegative)
                  .config("sampler.backtracks")
                  .config_range(0, 1 << 20));
  t.push_back(Knob("!--backtrack-bad-names-only", s.backtrack_after_any_name, "[sampler] backtrack_bad_names_only",
                   kTuningGroup)
                  .config("sampler.backtrack_bad_names_only")
                  .key_negated());
  t.push_back(Knob("!--no-usefulness-check", s.usefulness_check, "[sampler] usefulness_check = false", kTuningGroup)
                  .config("sampler.usefulness_check"));
  t.push_back(Knob("--near-copy", s.near_copy, "[sampler] near_copy (0 = keep near copies)", kTuningGroup)
                  .in_range(0.0, 1.0)
                  .config("sampler.near_copy"));
}

// Off --help: [directed] and [check] keys.
void add_directed_and_check_tuning_knobs(Knobs& t, SampleJobOptions& o) {
  DirectedJobOptions& d = o.directed;
  t.push_back(Knob("--explore-targets", d.explore_count, "[directed] explore_targets", kTuningGroup)
                  .in_range(1, double(size_t(1) << 20))
                  .config("directed.explore_targets"));
  t.push_back(Knob("--baseline-slice", d.slice_seconds, "[directed] baseline_slice", kTuningGroup)
                  .in_range(0.001, 1e6)
                  .config("directed.baseline_slice"));
  t.push_back(Knob("--baseline-split", d.split, "[directed] baseline_split: time or streams", kTuningGroup)
                  .one_of({"time", "streams"})
                  .config("directed.baseline_split"));
  t.push_back(Knob("--plain-share", d.plain_share, "[directed] plain_share", kTuningGroup)
                  .in_range(0.0, 1.0)
                  .config("directed.plain_share"));
  t.push_back(Knob("--near-share", d.near_share, "[directed] near_share", kTuningGroup)
                  .in_range(0.0, 1.0)
                  .config("directed.near_share"));
  t.push_back(Knob("--near-cuts,!--no-near-cuts", d.near_cuts, "[directed] near_cuts", kTuningGroup)
                  .config("directed.near_cuts"));
  t.push_back(Knob("--graded-steering", d.graded, "[directed] graded_steering", kTuningGroup)
                  .config("directed.graded_steering"));
  t.push_back(Knob("--check-jobs", o.check.jobs, "[check] jobs", kTuningGroup).in_range(0, 256).config("check.jobs"));
  t.push_back(Knob("--check-timeout", o.check.timeout_s, "[check] timeout", kTuningGroup)
                  .in_range(0.001, 604800.0)
                  .config("check.timeout"));
  t.push_back(
      Knob("!--no-check-timeout-retry", o.check.retry_timeouts_alone, "[check] timeout_retry = false", kTuningGroup)
          .config("check.timeout_retry"));
}

}  // namespace

std::vector<Knob> sample_knobs(SampleJobOptions& o) {
  Knobs t;
  add_input_knobs(t, o);
  add_sampling_knobs(t, o);
  add_checking_and_directed_knobs(t, o);
  add_limit_knobs(t, o);
  add_sampler_tuning_knobs(t, o);
  add_directed_and_check_tuning_knobs(t, o);
  return t;
}

Status apply_sample_config(SampleJobOptions& o, const Config& config, const std::set<std::string>& flags_given) {
  const std::vector<Knob> knobs = sample_knobs(o);
  RETURN_IF_ERROR(config.check_known_keys(knob_keys(knobs), {"vocabulary", "model", "training", "preview"}));
  return apply_config(config, knobs, flags_given);
}

Status apply_sample_config_file(SampleJobOptions& o, const std::set<std::string>& flags_given) {
  if (o.config.empty()) return ok_status();
  ASSIGN_OR_RETURN(Config config, Config::load_file(o.config));
  return apply_sample_config(o, config, flags_given);
}

}  // namespace clgen::sampler
