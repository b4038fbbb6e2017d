// `clgen sample`: synthesizes kernels with a trained model, filters them with
// the preprocessor, stores them in the workspace and writes accepted ones as
// .cl files; with --check, drives them through the dynamic checker meanwhile
// and writes the benchmark-grade ones to their own folder.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/cmd_sample_directed.h"
#include "cli/command.h"
#include "cli/knob_flags.h"
#include "cli/preprocess_options.h"
#include "sampler/sample_job.h"
#include "sampler/sample_knobs.h"

namespace clgen::cli {

namespace {

struct SampleCommandOptions {
  sampler::SampleJobOptions job;  // the flags' and the config sections' fields
  bool json = false;
  std::set<std::string> flags_given;            // the job's flags the command line gave (over the config)
  BudgetFlags clang{job.sample.filter_budget};  // the filter's; its defaults are SampleOptions'
};

uint64_t status_count(const sampler::SampleSummary& sum, const char* s) {
  auto it = sum.by_status.find(s);
  return it == sum.by_status.end() ? uint64_t{0} : it->second;
}

// The knobs as the run used them (flags over the --config file's sections).
nlohmann::json options_json(const sampler::SampleJobOptions& o, const sampler::SampleJobResult& r) {
  const auto& d = o.directed;
  return {{"sampler",
           {{"start", o.start},
            {"begin", o.begin},
            {"temperature", r.sample.policy.temperature},
            {"top_k", r.sample.policy.top_k},
            {"top_p", r.sample.policy.top_p},
            {"max_length", r.sample.max_length},
            {"drain", r.sample.drain},
            {"resume_errors", r.sample.resume_errors},
            {"filter_threads", r.sample.filter_threads},
            {"constrain", r.sample.constrain},
            {"max_refusals", r.sample.max_refusals},
            {"correction", r.sample.correction},
            {"repairs", r.sample.max_repairs},
            {"repair_backup", r.sample.repair_backup},
            {"backtracks", r.sample.max_backtracks},
            {"backtrack_bad_names_only", !r.sample.backtrack_after_any_name},
            {"usefulness_check", r.sample.usefulness_check},
            {"near_copy", r.sample.near_copy}}},
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
}

// The run as --json prints it; "options": the knobs as the run used them
// (flags over the --config file's sections).
nlohmann::json summary_json(const sampler::SampleJobOptions& o, const sampler::SampleJobResult& r) {
  const sampler::SampleSummary& sum = r.summary;
  const double secs = std::max(sum.seconds, 1e-9);
  const uint64_t copies = status_count(sum, "training_copy"), near = status_count(sum, "near_copy");
  const uint64_t passed = sum.accepted + status_count(sum, "duplicate") + copies + near;  // passed the filter
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
                      {"near_copies", near},
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
                      {"drained", sum.drained},
                      {"drain_seconds", sum.drain_seconds},
                      {"resumes_queued", sum.resumes_queued},
                      {"resumes_dropped", sum.resumes_dropped},
                      {"resumed", sum.resumed},
                      {"resumed_accepted", sum.resumed_accepted},
                      {"interrupted", sum.interrupted},
                      {"out_dir", sum.out_dir}};
  if (sum.director) j["steering"] = directed_json(sum);
  j["options"] = options_json(o, r);
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
  const uint64_t copies = status_count(sum, "training_copy"), near = status_count(sum, "near_copy");
  const uint64_t passed = sum.accepted + status_count(sum, "duplicate") + copies + near;  // passed the filter
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
  std::printf("verbatim copies of training kernels: %llu, near copies: %llu (%.1f%% and %.1f%% of those passing)\n",
              (unsigned long long)copies, (unsigned long long)near, passed ? 100.0 * copies / passed : 0.0,
              passed ? 100.0 * near / passed : 0.0);
  for (const auto& [status, n] : sum.by_status) std::printf("  %-16s %llu\n", status.c_str(), (unsigned long long)n);
  for (const auto& [category, n] : sum.by_category)
    std::printf("    %-30s %llu\n", category.c_str(), (unsigned long long)n);
  std::printf("throughput bound by: %s (model %.1fs, filter %.1fs on %u threads, store %.1fs)\n",
              sum.bottleneck().c_str(), sum.model_seconds + sum.draw_seconds, sum.filter_seconds, sum.filter_threads,
              sum.store_seconds);
  if (r.sample.resume_errors > 0)
    std::printf(
        "resumed from before a compile error: %llu samples, %llu accepted (%llu prefixes queued, %llu dropped by a "
        "full queue)\n",
        (unsigned long long)sum.resumed, (unsigned long long)sum.resumed_accepted,
        (unsigned long long)sum.resumes_queued, (unsigned long long)sum.resumes_dropped);
  if (sum.drained)
    std::printf("finished after the stop: %llu samples in flight, in %.1fs (--no-drain drops them)\n",
                (unsigned long long)sum.drained, sum.drain_seconds);
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

// Bind options (config under flags), create the job, run, print.
Status run_sample(const GlobalOptions& global, SampleCommandOptions opts) {
  RETURN_IF_ERROR(sampler::apply_sample_config_file(opts.job, opts.flags_given));
  opts.job.workspace = global.workspace;
  opts.job.sample.filter_budget = opts.clang.options();
  ASSIGN_OR_RETURN(sampler::SampleJob job, sampler::SampleJob::create(std::move(opts.job)));
  ASSIGN_OR_RETURN(sampler::SampleJobResult result, job.run());
  if (opts.json) std::printf("%s\n", summary_json(job.options(), result).dump(2).c_str());
  else print_summary(result);
  return ok_status();
}

// CLI11's formatter without the tuning group, whose flags are config keys
// (sampler/sample_knobs.h) or documented in docs/SAMPLER.md. (CLI11's own
// hidden group would also drop the flag's name from its error messages.)
class TuningOffHelp : public CLI::Formatter {
 public:
  explicit TuningOffHelp(const CLI::App* cmd) : cmd_(cmd) {}

  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    return group == sampler::kTuningGroup ? std::string() : CLI::Formatter::make_group(group, is_positional, opts);
  }

  // CLI11 lists the options an option excludes in the order of their
  // addresses; this lists them in the command's order, whatever the heap did.
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string text = CLI::Formatter::make_option_opts(opt);
    const std::set<CLI::Option*> excludes = opt->get_excludes();
    const std::string label = " " + get_label("Excludes") + ":";
    const size_t at = text.rfind(label);
    if (excludes.empty() || at == std::string::npos) return text;
    text.resize(at + label.size());  // the names end the text
    for (const CLI::Option* other : cmd_->get_options())
      if (excludes.count(const_cast<CLI::Option*>(other))) text += " " + other->get_name();
    return text;
  }

 private:
  const CLI::App* cmd_;
};

// The flags that exclude each other.
void add_exclusions(CLI::App& cmd) {
  cmd.get_option("--config")->excludes(cmd.get_option("--model"));
  cmd.get_option("--resume")->excludes(cmd.get_option("--seed"));
  CLI::Option* targets = cmd.get_option("--target-features");
  CLI::Option* held = cmd.get_option("--held-out-targets");
  CLI::Option* explore = cmd.get_option("--explore");
  targets->excludes(held)->excludes(explore);
  held->excludes(explore);
}

}  // namespace

void add_sample_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<SampleCommandOptions>();
  CLI::App* cmd = app.add_subcommand("sample", "Synthesize OpenCL kernels with a trained model");
  cmd->formatter(std::make_shared<TuningOffHelp>(cmd));
  cmd->footer(
      "Research and tuning knobs (where a sample begins, top-k and top-p, refusals, the importance correction, "
      "repairs, backtracking, the start state, filter threads, the directed search's shares and cuts, the "
      "checker's jobs and time-out) are keys of the --config file's [sampler], [directed] and [check] sections; "
      "each also has a flag that overrides the file (docs/SAMPLER.md, \"Configuration\").");
  // The job's flags, and after --out the command's own --json (how the summary is printed).
  std::vector<Knob> flags = sampler::sample_knobs(opts->job);
  auto out = std::find_if(flags.begin(), flags.end(), [](const Knob& k) { return k.flag() == "--out"; });
  flags.insert(out + 1, Knob("--json", opts->json, "Print the summary as JSON", sampler::kSamplingGroup));
  add_knob_flags(*cmd, flags);
  add_exclusions(*cmd);
  opts->clang.add_to(*cmd, "sample");
  for (const char* f : {"--clang-time-limit", "--clang-memory-limit", "--clang-in-process"})
    cmd->get_option(f)->group(sampler::kTuningGroup);
  cmd->final_callback([opts, cmd, &global, &action] {
    opts->flags_given = given_knob_flags(*cmd, sampler::sample_knobs(opts->job));
    opts->job.seed_given = opts->flags_given.count("--seed") > 0;
    action = [opts, &global] { return run_sample(global, *opts); };
  });
}

}  // namespace clgen::cli
