// `clgen sample`: synthesizes kernels with a trained model, filters them with
// the preprocessor, stores them in the workspace and writes accepted ones as
// .cl files; with --check, drives them through the dynamic checker meanwhile
// and writes the benchmark-grade ones to their own folder.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/cmd_sample_directed.h"
#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "sampler/sample_job.h"
#include "support/config.h"

namespace clgen::cli {

namespace {

// A key of the --config file's [sampler], [directed] or [check] section:
// `read` sets its field from the file unless `flag` was given.
struct Knob {
  std::string key, flag;
  std::function<Status(const Config&)> read;
  bool flag_given = false;
};

struct SampleCommandOptions {
  sampler::SampleJobOptions job;  // the flags' and the config sections' fields
  bool json = false;
  std::vector<Knob> knobs;                      // bound to job's fields, so only the original is read into
  BudgetFlags clang{job.sample.filter_budget};  // the filter's; its defaults are SampleOptions'
};

uint64_t status_count(const sampler::SampleSummary& sum, const char* s) {
  auto it = sum.by_status.find(s);
  return it == sum.by_status.end() ? uint64_t{0} : it->second;
}

// The run as --json prints it; "options": the knobs as the run used them
// (flags over the --config file's sections).
nlohmann::json summary_json(const sampler::SampleJobOptions& o, const sampler::SampleJobResult& r) {
  const sampler::SampleSummary& sum = r.summary;
  const double secs = std::max(sum.seconds, 1e-9);
  const uint64_t copies = status_count(sum, "training_copy");
  const uint64_t passed = sum.accepted + status_count(sum, "duplicate") + copies;  // passed the filter
  nlohmann::json j = {{"model_id", r.model_id},
                      {"args", r.sample.args},
                      {"seed", r.sample.seed},
                      {"seed_from", r.seed_from},
                      {"shard", r.shard.shard.str()},
                      {"shard_from", r.shard.source},
                      {"samples", sum.samples},
                      {"accepted", sum.accepted},
                      {"accepted_before", sum.accepted_before},
                      {"replayed", sum.replayed},
                      {"passed_filter", passed},
                      {"training_copies", copies},
                      {"seconds", sum.seconds},
                      {"samples_per_second", sum.samples / secs},
                      {"accepted_per_minute", 60.0 * sum.accepted / secs},
                      {"tokens", sum.tokens},
                      {"constrained", r.sample.constrain},
                      {"redrawn", sum.redrawn},
                      {"model_seconds", sum.model_seconds},
                      {"draw_seconds", sum.draw_seconds},
                      {"queue_wait_seconds", sum.queue_wait_seconds},
                      {"filter_seconds", sum.filter_seconds},
                      {"filter_threads", sum.filter_threads},
                      {"store_seconds", sum.store_seconds},
                      {"bottleneck", sum.bottleneck()},
                      {"by_status", sum.by_status},
                      {"by_category", sum.by_category},
                      {"samples_by_refusals", sum.samples_by_refusals},
                      {"passed_by_refusals", sum.passed_by_refusals},
                      {"repairs", sum.repairs},
                      {"repair_tokens", sum.repair_tokens},
                      {"backtracks", sum.backtracks},
                      {"interrupted", sum.interrupted},
                      {"out_dir", sum.out_dir}};
  if (sum.director) j["steering"] = directed_json(sum);
  // The knobs as the run used them (flags over the --config file's sections).
  const auto& d = o.directed;
  j["options"] = {
      {"sampler",
       {{"start", o.start},
        {"begin", o.begin},
        {"temperature", r.sample.policy.temperature},
        {"top_k", r.sample.policy.top_k},
        {"top_p", r.sample.policy.top_p},
        {"max_length", r.sample.max_length},
        {"filter_threads", r.sample.filter_threads},
        {"constrain", r.sample.constrain},
        {"max_refusals", r.sample.max_refusals},
        {"correction", r.sample.correction},
        {"repairs", r.sample.max_repairs},
        {"repair_backup", r.sample.repair_backup},
        {"backtracks", r.sample.max_backtracks},
        {"backtrack_bad_names_only", !r.sample.backtrack_after_any_name},
        {"usefulness_check", r.sample.usefulness_check}}},
      {"directed",
       {{"explore_targets", d.explore_count},
        {"baseline_slice", d.slice_seconds},
        {"baseline_split", d.split},
        {"plain_share", d.plain_share},
        {"near_share", d.near_share},
        {"near_cuts", d.near_cuts},
        {"graded_steering", d.graded}}},
      {"check",
       {{"jobs", o.check.jobs}, {"timeout", o.check.timeout_s}, {"timeout_retry", o.check.retry_timeouts_alone}}}};
  if (r.check) {
    nlohmann::json outcomes = nlohmann::json::object();
    for (const auto& [outcome, n] : r.check->outcomes) outcomes[driver::outcome_name(outcome)] = n;
    j["check_device"] = r.check->check_device;
    j["timeouts_retried"] = r.check->timeouts_retried;
    j["timeouts_cleared"] = r.check->timeouts_cleared;
    j["checked"] = r.check->checked;
    j["dynamically_valid"] = r.check->benchmark_grade;
    j["wall_seconds"] = r.wall_seconds;
    j["dynamically_valid_per_minute"] = 60.0 * r.check->benchmark_grade / std::max(r.wall_seconds, 1e-9);
    j["checked_per_second"] = r.check->checked / std::max(r.check->drive_seconds, 1e-9);
    j["check_outcomes"] = outcomes;
    j["benchmark_grade_dir"] = r.check_out_dir;
  }
  return j;
}

// The run as lines of text.
void print_summary(const sampler::SampleJobResult& r) {
  const sampler::SampleSummary& sum = r.summary;
  const double secs = std::max(sum.seconds, 1e-9);
  const uint64_t copies = status_count(sum, "training_copy");
  const uint64_t passed = sum.accepted + status_count(sum, "duplicate") + copies;  // passed the filter
  std::printf("model %s, %s, %s, temperature %g\n", r.model_id.c_str(),
              r.sample.whole_text ? "whole texts" : "from the signature",
              r.sample.args.empty() ? "free signature" : ("--args " + r.sample.args).c_str(),
              r.sample.policy.temperature);
  std::printf("seed %llu (%s)\n", (unsigned long long)r.sample.seed,
              r.seed_from == "--seed"     ? "--seed"
              : r.seed_from == "--resume" ? "--resume: the newest stored run's"
                                          : "fresh: --seed with it reproduces this run, --resume continues it");
  if (r.shard.source != "unsharded")
    std::printf("shard %s (from %s)\n", r.shard.shard.str().c_str(), r.shard.source.c_str());
  std::printf("%llu samples in %.1fs (%.1f samples/s, %.0f tokens/s)\n", (unsigned long long)sum.samples, sum.seconds,
              sum.samples / secs, sum.tokens / secs);
  std::printf("passed the filter: %llu (%.1f%%); new unique kernels: %llu (%.1f per minute)\n",
              (unsigned long long)passed, sum.samples ? 100.0 * passed / sum.samples : 0.0,
              (unsigned long long)sum.accepted, 60.0 * sum.accepted / secs);
  if (sum.accepted_before || sum.replayed)
    std::printf(
        "resumed: %llu accepted kernels of this model, --args, seed and policy stored before%s; "
        "%llu stored draws drawn again and skipped\n",
        (unsigned long long)sum.accepted_before,
        r.sample.target_accepted && sum.accepted_before >= r.sample.target_accepted ? " (-n reached: nothing sampled)"
                                                                                    : "",
        (unsigned long long)sum.replayed);
  if (r.sample.constrain)
    std::printf(
        "constrained decoding: %llu draws refused (%.2f%% of tokens), %llu names taken back (--backtracks %d)\n",
        (unsigned long long)sum.redrawn, sum.tokens ? 100.0 * sum.redrawn / sum.tokens : 0.0,
        (unsigned long long)sum.backtracks, r.sample.max_backtracks);
  std::printf("verbatim copies of training kernels: %llu (%.1f%% of those passing)\n", (unsigned long long)copies,
              passed ? 100.0 * copies / passed : 0.0);
  for (const auto& [status, n] : sum.by_status) std::printf("  %-16s %llu\n", status.c_str(), (unsigned long long)n);
  for (const auto& [category, n] : sum.by_category)
    std::printf("    %-30s %llu\n", category.c_str(), (unsigned long long)n);
  std::printf("throughput bound by: %s (model %.1fs, filter %.1fs on %u threads, store %.1fs)\n",
              sum.bottleneck().c_str(), sum.model_seconds + sum.draw_seconds, sum.filter_seconds, sum.filter_threads,
              sum.store_seconds);
  if (sum.interrupted) std::printf("interrupted: everything accepted so far is kept\n");
  std::printf("kernels written to %s\n", sum.out_dir.c_str());
  if (sum.director) print_directed(sum);
  if (r.check) {
    std::printf(
        "dynamic check on %s: %llu of %llu checked kernels benchmark-grade (%.1f%%), "
        "%.1f per minute over %.1fs from the start of sampling to the last check; %.1f checked/s\n",
        r.check->check_device.c_str(), (unsigned long long)r.check->benchmark_grade,
        (unsigned long long)r.check->checked,
        r.check->checked ? 100.0 * r.check->benchmark_grade / r.check->checked : 0.0,
        60.0 * r.check->benchmark_grade / std::max(r.wall_seconds, 1e-9), r.wall_seconds,
        r.check->checked / std::max(r.check->drive_seconds, 1e-9));
    for (const auto& [o, n] : r.check->outcomes)
      std::printf("    %-30s %llu\n", driver::outcome_name(o), (unsigned long long)n);
    if (r.check->timeouts_retried > 0)
      std::printf("    timed out beside other runs and driven again alone: %d (%d no longer timed out)\n",
                  r.check->timeouts_retried, r.check->timeouts_cleared);
    std::printf("benchmark-grade kernels written to %s\n", r.check_out_dir.c_str());
  }
}

Status run_sample(const GlobalOptions& global, SampleCommandOptions opts) {
  opts.job.workspace = global.workspace;
  opts.job.sample.filter_budget = opts.clang.options();
  ASSIGN_OR_RETURN(sampler::SampleJob job, sampler::SampleJob::create(std::move(opts.job)));
  ASSIGN_OR_RETURN(sampler::SampleJobResult result, job.run());
  if (opts.json) std::printf("%s\n", summary_json(job.options(), result).dump(2).c_str());
  else print_summary(result);
  return ok_status();
}

// The help's groups. A flag in kTuning is left off --help (TuningOffHelp):
// it is a key of the --config file's [sampler], [directed] or [check]
// section (SampleCommandOptions::knobs), and overrides the file when given.
constexpr const char* kInput = "Input and model";
constexpr const char* kSampling = "Sampling";
constexpr const char* kChecking = "Checking";
constexpr const char* kDirected = "Directed sampling";
constexpr const char* kLimits = "Limits";
constexpr const char* kTuning = "Tuning";

// CLI11's formatter without the kTuning group. (CLI11's own hidden group
// would also drop the flag's name from its error messages.)
class TuningOffHelp : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    return group == kTuning ? std::string() : CLI::Formatter::make_group(group, is_positional, opts);
  }
};

// A range check for a knob's config value, in the flag's words.
template <typename T>
Status in_range(const std::string& where, T v, T lo, T hi) {
  if (!(v >= lo && v <= hi)) return invalid_argument(fmt::format("{}: {} is not in [{}, {}]", where, v, lo, hi));
  return ok_status();
}

Knob int_knob(std::string key, std::string flag, int& field, int lo, int hi) {
  return {key, flag, [&field, key, lo, hi](const Config& c) -> Status {
            ASSIGN_OR_RETURN(int64_t v, c.get_int(key));
            RETURN_IF_ERROR(in_range(c.origin() + ": " + key, v, int64_t(lo), int64_t(hi)));
            field = int(v);
            return ok_status();
          }};
}
Knob unsigned_knob(std::string key, std::string flag, unsigned& field, unsigned lo, unsigned hi) {
  return {key, flag, [&field, key, lo, hi](const Config& c) -> Status {
            ASSIGN_OR_RETURN(int64_t v, c.get_int(key));
            RETURN_IF_ERROR(in_range(c.origin() + ": " + key, v, int64_t(lo), int64_t(hi)));
            field = unsigned(v);
            return ok_status();
          }};
}
Knob size_knob(std::string key, std::string flag, size_t& field, size_t lo, size_t hi) {
  return {key, flag, [&field, key, lo, hi](const Config& c) -> Status {
            ASSIGN_OR_RETURN(int64_t v, c.get_int(key));
            RETURN_IF_ERROR(in_range(c.origin() + ": " + key, v, int64_t(lo), int64_t(hi)));
            field = size_t(v);
            return ok_status();
          }};
}
Knob double_knob(std::string key, std::string flag, double& field, double lo, double hi) {
  return {key, flag, [&field, key, lo, hi](const Config& c) -> Status {
            ASSIGN_OR_RETURN(double v, c.get_double(key));
            RETURN_IF_ERROR(in_range(c.origin() + ": " + key, v, lo, hi));
            field = v;
            return ok_status();
          }};
}
Knob bool_knob(std::string key, std::string flag, bool& field) {
  return {key, flag, [&field, key](const Config& c) -> Status {
            ASSIGN_OR_RETURN(field, c.get_bool(key));
            return ok_status();
          }};
}
Knob choice_knob(std::string key, std::string flag, std::string& field, std::vector<std::string> allowed) {
  return {key, flag, [&field, key, allowed](const Config& c) -> Status {
            ASSIGN_OR_RETURN(std::string v, c.get_string(key));
            if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
              return invalid_argument(
                  fmt::format("{}: {}: \"{}\" is not one of {}", c.origin(), key, v, fmt::join(allowed, ", ")));
            field = v;
            return ok_status();
          }};
}

// The --config file's [sampler], [directed] and [check] keys, each read
// unless its flag was given. A file without them (a plain model config)
// changes nothing; an unknown key in those sections fails, naming it.
Status apply_config_sections(SampleCommandOptions& opts) {
  if (opts.job.config.empty()) return ok_status();
  ASSIGN_OR_RETURN(Config c, Config::load_file(opts.job.config));
  std::vector<std::string> known;
  for (const Knob& k : opts.knobs) known.push_back(k.key);
  RETURN_IF_ERROR(c.check_known_keys(known, {"vocabulary", "model", "training", "preview"}));
  for (const Knob& k : opts.knobs)
    if (!k.flag_given && c.has(k.key)) RETURN_IF_ERROR(k.read(c));
  return ok_status();
}

}  // namespace

void add_sample_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<SampleCommandOptions>();
  auto& s = opts->job.sample;  // bound directly: its defaults are the command's
  auto& d = opts->job.directed;
  CLI::App* cmd = app.add_subcommand("sample", "Synthesize OpenCL kernels with a trained model");
  cmd->formatter(std::make_shared<TuningOffHelp>());
  cmd->footer(
      "Research and tuning knobs (where a sample begins, top-k and top-p, refusals, the importance correction, "
      "repairs, backtracking, the start state, filter threads, the directed search's shares and cuts, the "
      "checker's jobs and time-out) are keys of the --config file's [sampler], [directed] and [check] sections; "
      "each also has a flag that overrides the file (docs/SAMPLER.md, \"Configuration\").");

  // Input and model.
  cmd->add_option("--args", s.args,
                  "Kernel argument types, e.g. \"float*,float*,float*,int\" (default: the model "
                  "chooses the signature)")
      ->group(kInput);
  auto* model = cmd->add_option("--model", opts->job.model_id, "Model id (default: the latest trained)")->group(kInput);
  cmd->add_option("--checkpoint", opts->job.checkpoint,
                  "best (lowest validation loss; the last for models without one) or last")
      ->check(CLI::IsMember({"best", "last"}))
      ->capture_default_str()
      ->group(kInput);
  cmd->add_option("--config", opts->job.config,
                  "Sample from the model this config trains, with its [sampler], [directed] and [check] settings")
      ->excludes(model)
      ->check(non_empty())
      ->group(kInput);
  cmd->add_option("--device", opts->job.device, "cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->group(kInput);

  // Sampling.
  cmd->add_option("--temperature", s.policy.temperature, "Sampling temperature (0 = greedy)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber)
      ->group(kSampling);
  cmd->add_option("--begin", opts->job.begin, "[sampler] begin: text or signature")
      ->check(CLI::IsMember({"text", "signature"}))
      ->group(kTuning);
  cmd->add_option("--top-k", s.policy.top_k, "[sampler] top_k: sample from the K most likely tokens (0 = disabled)")
      ->check(CLI::NonNegativeNumber)
      ->group(kTuning);
  cmd->add_option("--top-p", s.policy.top_p, "[sampler] top_p: nucleus sampling mass (1 = disabled)")
      ->check(finite_range(0.0, 1.0))
      ->group(kTuning);
  auto* seed = cmd->add_option("--seed", s.seed,
                               "RNG seed; the same seed on CPU reproduces a run (default: a fresh seed, printed "
                               "and stored with every sample)")
                   ->group(kSampling);
  cmd->add_flag("--resume", opts->job.resume,
                "Continue the newest stored run of this model, --args and shard: take its seed, skip its stored "
                "draws, and count its kernels toward -n")
      ->excludes(seed)
      ->group(kSampling);
  cmd->add_option("--out", opts->job.out, "Directory for accepted kernels (default: <workspace>/samples/<model id>)")
      ->group(kSampling);
  cmd->add_flag("--json", opts->json, "Print the summary as JSON")->group(kSampling);

  // Checking.
  cmd->add_option("--check", opts->job.check_device,
                  "Drive accepted kernels through the dynamic checker while sampling: cpu, gpu, part of "
                  "a device name, or all (the CPU checks, the other devices profile what passed); "
                  "-n then counts benchmark-grade kernels")
      ->group(kChecking);
  cmd->add_option("--check-out", opts->job.check_out,
                  "Directory for benchmark-grade kernels (default: <workspace>/benchmark-grade/<model "
                  "id>, or <--out>-benchmark-grade)")
      ->group(kChecking);

  // Directed sampling.
  auto* targets = cmd->add_option("--target-features", d.target_features,
                                  "Steer toward these Grewe feature vectors (CSV with columns comp, "
                                  "rational, mem, localmem, coalesced, atomic; `clgen features` output works as is; "
                                  "see docs/SAMPLER.md)")
                      ->check(CLI::ExistingFile)
                      ->group(kDirected);
  auto* held = cmd->add_flag("--held-out-targets", d.held_out,
                             "Steer toward the features of the kernels that --config's training holds "
                             "out (validation_split = \"repository\")")
                   ->group(kDirected);
  auto* explore = cmd->add_flag("--explore", d.explore,
                                "Steer toward the corpus kernels farthest from the workspace's newest "
                                "2000 accepted samples in feature space (docs/SAMPLER.md)")
                      ->group(kDirected);
  targets->excludes(held)->excludes(explore);
  held->excludes(explore);
  cmd->add_flag("--baseline", d.baseline, "Alternate directed and undirected slices in the same run and report both")
      ->group(kDirected);
  cmd->add_option("--target-report", d.report,
                  "Write each target's nearest kernel (directed, and undirected with --baseline) as CSV")
      ->group(kDirected);

  // Limits.
  cmd->add_option("-n", s.target_accepted,
                  "Stop once this many new unique kernels of this model, --args, seed and policy are stored, "
                  "earlier runs' of the seed included (0 = no limit; see docs/SAMPLER.md)")
      ->capture_default_str()
      ->group(kLimits);
  cmd->add_option("--max-samples", s.max_samples, "Stop after this many samples (0 = no limit)")
      ->capture_default_str()
      ->group(kLimits);
  cmd->add_option("--time-limit", s.time_limit, "Stop after this many seconds (0 = no limit)")
      ->capture_default_str()
      ->check(finite_range(0, 1e9))
      ->group(kLimits);
  cmd->add_option("--max-length", s.max_length, "Tokens per sample before it is cut off")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24))
      ->group(kLimits);
  cmd->add_option("--batch-size", opts->job.batch_size, "Streams sampled in parallel")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20))
      ->group(kLimits);

  // Off --help: a key of the config's sections, or (--shard, --baseline-only,
  // the Clang budget) documented in docs/SAMPLER.md.
  cmd->add_option("--shard", opts->job.shard,
                  "Sample shard I of N (I/N, 0 <= I < N): streams draw from generators no other "
                  "shard of the same --seed uses, and 0/1 is the unsharded run; \"auto\" takes I/N "
                  "from torchrun's RANK/WORLD_SIZE or Slurm's SLURM_PROCID/SLURM_NTASKS and the "
                  "GPU from LOCAL_RANK/SLURM_LOCALID (see docs/SAMPLER.md)")
      ->group(kTuning);
  cmd->add_flag("--baseline-only", d.baseline_only,
                "With directed sampling: every stream is undirected (the --baseline side alone, for a run of its "
                "own); its distance to the targets is reported as the baseline")
      ->group(kTuning);
  cmd->add_option("--start", opts->job.start, "[sampler] start: file or zero")
      ->check(CLI::IsMember({"file", "zero"}))
      ->group(kTuning);
  cmd->add_option("--filter-threads", s.filter_threads, "[sampler] filter_threads")->group(kTuning);
  cmd->add_flag("!--no-constrain", s.constrain, "[sampler] constrain = false")->group(kTuning);
  cmd->add_option("--correction", s.correction, "[sampler] correction")->check(finite_range(0.0, 1.0))->group(kTuning);
  cmd->add_option("--max-refusals", s.max_refusals, "[sampler] max_refusals (0 = never end a stream)")
      ->check(CLI::NonNegativeNumber)
      ->group(kTuning);
  cmd->add_option("--repairs", s.max_repairs, "[sampler] repairs")->check(CLI::NonNegativeNumber)->group(kTuning);
  cmd->add_option("--repair-backup", s.repair_backup, "[sampler] repair_backup")
      ->check(CLI::PositiveNumber)
      ->group(kTuning);
  cmd->add_option("--backtracks", opts->job.backtracks, "[sampler] backtracks")
      ->check(CLI::NonNegativeNumber)
      ->group(kTuning);
  cmd->add_flag("!--backtrack-bad-names-only", s.backtrack_after_any_name, "[sampler] backtrack_bad_names_only")
      ->group(kTuning);
  cmd->add_flag("!--no-usefulness-check", s.usefulness_check, "[sampler] usefulness_check = false")->group(kTuning);
  cmd->add_option("--explore-targets", d.explore_count, "[directed] explore_targets")
      ->check(CLI::Range(size_t(1), size_t(1) << 20))
      ->group(kTuning);
  cmd->add_option("--baseline-slice", d.slice_seconds, "[directed] baseline_slice")
      ->check(finite_range(0.001, 1e6))
      ->group(kTuning);
  cmd->add_option("--baseline-split", d.split, "[directed] baseline_split: time or streams")
      ->check(CLI::IsMember({"time", "streams"}))
      ->group(kTuning);
  cmd->add_option("--plain-share", d.plain_share, "[directed] plain_share")
      ->check(finite_range(0.0, 1.0))
      ->group(kTuning);
  cmd->add_option("--near-share", d.near_share, "[directed] near_share")->check(finite_range(0.0, 1.0))->group(kTuning);
  cmd->add_flag("--near-cuts,!--no-near-cuts", d.near_cuts, "[directed] near_cuts")->group(kTuning);
  cmd->add_flag("--graded-steering", d.graded, "[directed] graded_steering")->group(kTuning);
  cmd->add_option("--check-jobs", opts->job.check.jobs, "[check] jobs")->check(CLI::Range(0u, 256u))->group(kTuning);
  cmd->add_option("--check-timeout", opts->job.check.timeout_s, "[check] timeout")
      ->check(finite_range(0.001, 604800.0))
      ->group(kTuning);
  cmd->add_flag("!--no-check-timeout-retry", opts->job.check.retry_timeouts_alone, "[check] timeout_retry = false")
      ->group(kTuning);
  opts->clang.add_to(*cmd, "sample");
  for (const char* f : {"--clang-time-limit", "--clang-memory-limit", "--clang-in-process"})
    cmd->get_option(f)->group(kTuning);

  // What each config key sets, and the flag that overrides it (their
  // meanings: docs/SAMPLER.md, "Configuration").
  opts->knobs = {
      choice_knob("sampler.start", "--start", opts->job.start, {"file", "zero"}),
      int_knob("sampler.top_k", "--top-k", s.policy.top_k, 0, 1 << 30),
      double_knob("sampler.top_p", "--top-p", s.policy.top_p, 0.0, 1.0),
      int_knob("sampler.max_length", "--max-length", s.max_length, 1, 1 << 24),
      unsigned_knob("sampler.filter_threads", "--filter-threads", s.filter_threads, 0, 1024),
      bool_knob("sampler.constrain", "--no-constrain", s.constrain),
      int_knob("sampler.max_refusals", "--max-refusals", s.max_refusals, 0, 1 << 20),
      choice_knob("sampler.begin", "--begin", opts->job.begin, {"text", "signature"}),
      double_knob("sampler.temperature", "--temperature", s.policy.temperature, 0.0, 100.0),
      double_knob("sampler.correction", "--correction", s.correction, 0.0, 1.0),
      int_knob("sampler.repairs", "--repairs", s.max_repairs, 0, 1 << 20),
      int_knob("sampler.repair_backup", "--repair-backup", s.repair_backup, 1, 1 << 20),
      int_knob("sampler.backtracks", "--backtracks", opts->job.backtracks, 0, 1 << 20),
      {"sampler.backtrack_bad_names_only", "--backtrack-bad-names-only",
       [&any = s.backtrack_after_any_name](const Config& c) -> Status {
         ASSIGN_OR_RETURN(bool only_bad, c.get_bool("sampler.backtrack_bad_names_only"));
         any = !only_bad;
         return ok_status();
       }},
      bool_knob("sampler.usefulness_check", "--no-usefulness-check", s.usefulness_check),
      size_knob("directed.explore_targets", "--explore-targets", d.explore_count, 1, size_t(1) << 20),
      double_knob("directed.baseline_slice", "--baseline-slice", d.slice_seconds, 0.001, 1e6),
      choice_knob("directed.baseline_split", "--baseline-split", d.split, {"time", "streams"}),
      double_knob("directed.plain_share", "--plain-share", d.plain_share, 0.0, 1.0),
      double_knob("directed.near_share", "--near-share", d.near_share, 0.0, 1.0),
      bool_knob("directed.near_cuts", "--near-cuts", d.near_cuts),
      bool_knob("directed.graded_steering", "--graded-steering", d.graded),
      unsigned_knob("check.jobs", "--check-jobs", opts->job.check.jobs, 0, 256),
      double_knob("check.timeout", "--check-timeout", opts->job.check.timeout_s, 0.001, 604800.0),
      bool_knob("check.timeout_retry", "--no-check-timeout-retry", opts->job.check.retry_timeouts_alone),
  };
  cmd->final_callback([opts, seed, cmd, &global, &action] {
    opts->job.seed_given = seed->count() > 0;
    for (Knob& k : opts->knobs) k.flag_given = cmd->get_option(k.flag)->count() > 0;
    action = [opts, &global] {
      RETURN_IF_ERROR(apply_config_sections(*opts));
      return run_sample(global, *opts);
    };
  });
}

}  // namespace clgen::cli
