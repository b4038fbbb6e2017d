// `clgen sample`: synthesizes kernels with a trained model, filters them with
// the preprocessor, stores them in the workspace and writes accepted ones as
// .cl files; with --check, drives them through the dynamic checker meanwhile
// and writes the benchmark-grade ones to their own folder.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cmd_sample_directed.h"
#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "driver/check.h"
#include "model/distributed_env.h"
#include "model/trainer.h"
#include "sampler/arg_spec.h"
#include "sampler/constraint_tables.h"
#include "sampler/pipeline.h"
#include "sampler/store.h"
#include "sampler/stream_model.h"
#include "support/log.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

// --backtracks without --check: on the H100 it took new unique accepted
// kernels per minute from 5,071 to 13,653 and their median comp from 4 to 7
// (docs/BENCHMARKS.md, "Fourteenth session").
constexpr int kBacktracks = 16;

struct SampleCommandOptions {
  sampler::SampleOptions sample;
  int batch_size = 64;    // parallel streams
  std::string model_id;   // "" = the latest trained model
  std::string config;     // a model config: sample from the model it trains
  std::string device = "auto";
  std::string start = "file";  // seed read after the separator ("file") or from the zero state
  std::string out;        // "" = <workspace>/samples/<model id>
  std::string shard;      // "I/N", "auto" (from the launcher's rank environment) or "" = unsharded
  bool json = false;
  // Without --seed a run draws a fresh seed, so a second run in a workspace
  // makes new draws; --resume takes the seed of the newest stored sample of
  // the model, --args and shard, and goes on where that run stopped.
  bool seed_given = false;
  bool resume = false;
  // --check: drive accepted kernels through the dynamic checker meanwhile.
  std::string check_device;  // "" = no check
  driver::CheckOptions check;
  std::string check_out;     // "" = <workspace>/benchmark-grade/<model id>
  // --backtracks; -1 = kBacktracks, or 0 with --check: there the checker sets
  // the pace, and the longer kernels that backtracking lets through take it
  // longer (docs/SAMPLER.md, "Backtracking").
  int backtracks = -1;
  DirectedFlags directed;
  BudgetFlags clang{sample.filter_budget};  // the filter's; its defaults are SampleOptions'
};

// Where this process's shard comes from, and the GPU it samples on.
struct ShardChoice {
  sampler::Shard shard;
  std::string source = "unsharded";  // "--shard", "torchrun", "slurm" or "none" (auto without a launcher)
  int local_rank = 0;                // picks cuda:(local_rank mod devices) under --shard auto
};

// --shard: "" = 0/1; "I/N" as given; "auto" = RANK/WORLD_SIZE (torchrun) or
// SLURM_PROCID/SLURM_NTASKS (srun) through model/distributed_env.h, 0/1
// without either. A malformed I/N is a usage error; a malformed environment
// fails with the reader's message.
Expected<ShardChoice> choose_shard(const std::string& flag) {
  ShardChoice c;
  if (flag.empty()) return c;
  if (flag != "auto") {
    auto shard = sampler::parse_shard(flag);
    if (!shard.ok()) return usage_error("--shard: " + shard.status().message());
    c.shard = *shard;
    c.source = "--shard";
    return c;
  }
  // Sampling has no rendezvous: MASTER_ADDR, which training requires, may be absent.
  auto env = model::distributed_env_from([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v) return std::string(v);
    if (name == "MASTER_ADDR") return std::string("127.0.0.1");
    return std::nullopt;
  });
  if (!env.ok()) return env.status().with_context("--shard auto");
  c.shard = sampler::Shard{env->rank, env->world_size};
  c.source = env->launcher;
  c.local_rank = env->local_rank;
  return c;
}

// A seed no earlier run is likely to have used: 48 bits from the system's
// entropy source and the clock (48 bits stay exact in JSON and SQLite).
uint64_t fresh_seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) ^ rd() ^ uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  return s & ((uint64_t(1) << 48) - 1);
}

Status run_sample(const GlobalOptions& global, SampleCommandOptions opts) {
  // Check the spec before loading anything, so a typo fails fast.
  if (!opts.sample.args.empty()) {
    auto spec = sampler::parse_arg_spec(opts.sample.args);
    if (!spec.ok()) return usage_error("--args: " + spec.status().message());
  }
  if (opts.batch_size <= 0) return usage_error("--batch-size must be positive");
  ASSIGN_OR_RETURN(ShardChoice shard, choose_shard(opts.shard));
  opts.sample.shard = shard.shard;
  opts.sample.filter_budget = opts.clang.options();
  ASSIGN_OR_RETURN(auto ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(auto db, ws.open_database());
  // Targets before the model: a bad CSV fails fast.
  ASSIGN_OR_RETURN(opts.sample.targets, choose_targets(opts.directed, db, opts.config));
  if (opts.directed.baseline && !opts.directed.any())
    return usage_error(
        "--baseline compares with directed sampling: give --target-features, --held-out-targets "
        "or --explore");
  if (opts.directed.baseline_only) {
    if (!opts.directed.any())
      return usage_error(
          "--baseline-only samples the undirected side of directed sampling: give --target-features, "
          "--held-out-targets or --explore");
    opts.directed.baseline = true;
    opts.sample.director.baseline_only = true;
  }
  if (opts.directed.baseline) opts.sample.director.baseline_slice_seconds = opts.directed.slice_seconds;
  opts.sample.director.baseline_by_stream = opts.directed.split == "streams";
  if (opts.directed.graded && (!opts.directed.any() || opts.check_device.empty()))
    return usage_error(
        "--graded-steering steers directed sampling by the dynamic checker's verdicts: give --check and "
        "--target-features, --held-out-targets or --explore");
  opts.sample.director.graded = opts.directed.graded;
  opts.sample.director.plain_share = opts.directed.plain_share;
  opts.sample.director.near_share = opts.directed.near_share;
  opts.sample.director.near_cuts = opts.directed.near_cuts;
  opts.sample.max_backtracks = opts.backtracks >= 0 ? opts.backtracks : opts.check_device.empty() ? kBacktracks : 0;
  std::string model_id = opts.model_id;
  if (!opts.config.empty()) {
    ASSIGN_OR_RETURN(model_id, sampler::model_id_for_config(ws.root(), opts.config));
  }
  if (!opts.seed_given && !opts.resume) opts.sample.seed = fresh_seed();
  ASSIGN_OR_RETURN(auto model, sampler::load_stream_model(ws.root(), model_id, opts.device,
                                                          opts.batch_size, opts.sample.seed,
                                                          opts.start == "file", shard.local_rank));
  if (opts.resume) {
    const std::string shard_text = shard.shard.sharded() ? shard.shard.str() : "";
    ASSIGN_OR_RETURN(auto last, sampler::latest_seed(db, model->model_id(), opts.sample.args, shard_text));
    if (!last)
      return not_found(fmt::format("--resume: no samples of model {} with --args \"{}\"{} are stored in {}",
                                   model->model_id(), opts.sample.args,
                                   shard_text.empty() ? "" : " and --shard " + shard_text, ws.root()));
    opts.sample.seed = *last;
  }
  opts.sample.director.seed = opts.sample.seed;
  if (opts.sample.constrain) {
    auto tables = sampler::load_constraint_tables(model::model_directory(ws, model->model_id()));
    if (tables.ok())
      opts.sample.constraint_tables = std::make_shared<const sampler::ConstraintTables>(std::move(*tables));
    else if (tables.status().code() == ErrorCode::kNotFound)
      spdlog::warn(
          "model {} has no constraint tables (trained before they were saved with it): learning them "
          "from the workspace's corpus; `clgen train` with its config saves them",
          model->model_id());
    else return tables.status();
  }
  opts.sample.out_dir = opts.out.empty() ? ws.root() + "/samples/" + model->model_id() : opts.out;
  const auto wall_start = std::chrono::steady_clock::now();
  // --graded-steering: the checker's verdicts go to the run's director. It
  // is declared before the checker, so it outlives the recorder thread.
  std::mutex steering_mu;
  std::shared_ptr<sampler::Director> steering;
  std::unique_ptr<driver::Checker> checker;
  sampler::SampleHooks hooks;
  if (opts.directed.graded) {
    opts.check.on_verdict = [&](const std::string& text, bool passed) {
      std::shared_ptr<sampler::Director> d;
      {
        std::lock_guard<std::mutex> lock(steering_mu);
        d = steering;
      }
      if (d) d->graded(text, passed);
    };
    hooks.on_director = [&](const std::shared_ptr<sampler::Director>& d) {
      std::lock_guard<std::mutex> lock(steering_mu);
      steering = d;
    };
  }
  const uint64_t target = opts.sample.target_accepted;
  if (!opts.check_device.empty()) {
    opts.check.device = opts.check_device;
    opts.check.out_dir = !opts.check_out.empty() ? opts.check_out
                         : !opts.out.empty()     ? opts.out + "-benchmark-grade"
                                                 : ws.root() + "/benchmark-grade/" + model->model_id();
    ASSIGN_OR_RETURN(auto check_db, ws.open_database());
    ASSIGN_OR_RETURN(checker, driver::Checker::start(std::move(check_db), opts.check));
    // -n counts benchmark-grade kernels: the checker's count stops the run.
    opts.sample.target_accepted = 0;
    hooks.on_accepted = [&](const std::string& text) { checker->submit(text); };
    hooks.stop = [&, target] { return target > 0 && checker->benchmark_grade() >= target; };
    if (target == 0 && opts.sample.max_samples == 0 && opts.sample.time_limit <= 0)
      return usage_error("sampling needs a stop condition: -n, --max-samples or --time-limit");
  }
  auto sampled = sampler::run_sampling(*model, db, opts.sample, hooks);
  std::optional<driver::CheckSummary> check;
  if (checker) {
    auto finished = checker->finish();  // also after a failed sampling: stored checks are kept
    if (sampled.ok() && !finished.ok()) return finished.status().with_context("checking samples");
    if (finished.ok()) check = *finished;
  }
  if (!sampled.ok()) return sampled.status();
  const sampler::SampleSummary& sum = *sampled;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  double secs = std::max(sum.seconds, 1e-9);
  auto status_count = [&](const char* s) {
    auto it = sum.by_status.find(s);
    return it == sum.by_status.end() ? uint64_t{0} : it->second;
  };
  if (sum.director && !opts.directed.report.empty())
    RETURN_IF_ERROR_CTX(write_target_report(sum, opts.directed.report), "writing --target-report");
  uint64_t copies = status_count("training_copy");
  uint64_t passed = sum.accepted + status_count("duplicate") + copies;  // passed the filter
  if (opts.json) {
    nlohmann::json j = {{"model_id", model->model_id()},
                        {"args", opts.sample.args},
                        {"seed", opts.sample.seed},
                        {"seed_from", opts.seed_given ? "--seed"
                                      : opts.resume   ? "--resume"
                                                      : "fresh"},
                        {"shard", shard.shard.str()},
                        {"shard_from", shard.source},
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
                        {"constrained", opts.sample.constrain},
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
    if (check) {
      nlohmann::json outcomes = nlohmann::json::object();
      for (const auto& [o, n] : check->outcomes) outcomes[driver::outcome_name(o)] = n;
      j["check_device"] = check->check_device;
      j["timeouts_retried"] = check->timeouts_retried;
      j["timeouts_cleared"] = check->timeouts_cleared;
      j["checked"] = check->checked;
      j["dynamically_valid"] = check->benchmark_grade;
      j["wall_seconds"] = wall;
      j["dynamically_valid_per_minute"] = 60.0 * check->benchmark_grade / std::max(wall, 1e-9);
      j["checked_per_second"] = check->checked / std::max(check->drive_seconds, 1e-9);
      j["check_outcomes"] = outcomes;
      j["benchmark_grade_dir"] = opts.check.out_dir;
    }
    std::printf("%s\n", j.dump(2).c_str());
    return ok_status();
  }
  std::printf("model %s, %s\n", model->model_id().c_str(),
              opts.sample.args.empty() ? "free signature" : ("--args " + opts.sample.args).c_str());
  std::printf("seed %llu (%s)\n", (unsigned long long)opts.sample.seed,
              opts.seed_given ? "--seed"
              : opts.resume   ? "--resume: the newest stored run's"
                              : "fresh: --seed with it reproduces this run, --resume continues it");
  if (shard.source != "unsharded") std::printf("shard %s (from %s)\n", shard.shard.str().c_str(), shard.source.c_str());
  std::printf("%llu samples in %.1fs (%.1f samples/s, %.0f tokens/s)\n",
              (unsigned long long)sum.samples, sum.seconds, sum.samples / secs, sum.tokens / secs);
  std::printf("passed the filter: %llu (%.1f%%); new unique kernels: %llu (%.1f per minute)\n",
              (unsigned long long)passed, sum.samples ? 100.0 * passed / sum.samples : 0.0,
              (unsigned long long)sum.accepted, 60.0 * sum.accepted / secs);
  if (sum.accepted_before || sum.replayed)
    std::printf(
        "resumed: %llu accepted kernels of this model, --args, seed and policy stored before%s; "
        "%llu stored draws drawn again and skipped\n",
        (unsigned long long)sum.accepted_before,
        opts.sample.target_accepted && sum.accepted_before >= opts.sample.target_accepted
            ? " (-n reached: nothing sampled)"
            : "",
        (unsigned long long)sum.replayed);
  if (opts.sample.constrain)
    std::printf(
        "constrained decoding: %llu draws refused (%.2f%% of tokens), %llu names taken back (--backtracks %d)\n",
        (unsigned long long)sum.redrawn, sum.tokens ? 100.0 * sum.redrawn / sum.tokens : 0.0,
        (unsigned long long)sum.backtracks, opts.sample.max_backtracks);
  std::printf("verbatim copies of training kernels: %llu (%.1f%% of those passing)\n",
              (unsigned long long)copies, passed ? 100.0 * copies / passed : 0.0);
  for (const auto& [status, n] : sum.by_status)
    std::printf("  %-16s %llu\n", status.c_str(), (unsigned long long)n);
  for (const auto& [category, n] : sum.by_category)
    std::printf("    %-30s %llu\n", category.c_str(), (unsigned long long)n);
  std::printf("throughput bound by: %s (model %.1fs, filter %.1fs on %u threads, store %.1fs)\n",
              sum.bottleneck().c_str(), sum.model_seconds + sum.draw_seconds, sum.filter_seconds,
              sum.filter_threads, sum.store_seconds);
  if (sum.interrupted) std::printf("interrupted: everything accepted so far is kept\n");
  std::printf("kernels written to %s\n", sum.out_dir.c_str());
  if (sum.director) print_directed(sum);
  if (check) {
    std::printf("dynamic check on %s: %llu of %llu checked kernels benchmark-grade (%.1f%%), "
                "%.1f per minute over %.1fs from the start of sampling to the last check; %.1f checked/s\n",
                check->check_device.c_str(), (unsigned long long)check->benchmark_grade,
                (unsigned long long)check->checked,
                check->checked ? 100.0 * check->benchmark_grade / check->checked : 0.0,
                60.0 * check->benchmark_grade / std::max(wall, 1e-9), wall,
                check->checked / std::max(check->drive_seconds, 1e-9));
    for (const auto& [o, n] : check->outcomes)
      std::printf("    %-30s %llu\n", driver::outcome_name(o), (unsigned long long)n);
    if (check->timeouts_retried > 0)
      std::printf("    timed out beside other runs and driven again alone: %d (%d no longer timed out)\n",
                  check->timeouts_retried, check->timeouts_cleared);
    std::printf("benchmark-grade kernels written to %s\n", opts.check.out_dir.c_str());
  }
  return ok_status();
}

}  // namespace

void add_sample_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<SampleCommandOptions>();
  auto& s = opts->sample;  // bound directly: its defaults are the command's
  CLI::App* cmd = app.add_subcommand("sample", "Synthesize OpenCL kernels with a trained model");
  cmd->add_option("--args", s.args,
                  "Kernel argument types, e.g. \"float*,float*,float*,int\" (default: the model "
                  "chooses the signature)");
  cmd->add_option("-n", s.target_accepted,
                  "Stop once this many new unique kernels of this model, --args, seed and policy are stored, "
                  "earlier runs' of the seed included (0 = no limit; see docs/SAMPLER.md)")
      ->capture_default_str();
  cmd->add_option("--temperature", s.policy.temperature, "Sampling temperature (0 = greedy)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--top-k", s.policy.top_k, "Sample from the K most likely tokens (0 = disabled)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--top-p", s.policy.top_p, "Nucleus sampling mass (1 = disabled)")
      ->capture_default_str()
      ->check(finite_range(0.0, 1.0));
  auto* seed = cmd->add_option("--seed", s.seed,
                               "RNG seed; the same seed on CPU reproduces a run (default: a fresh seed, printed "
                               "and stored with every sample)");
  cmd->add_flag("--resume", opts->resume,
                "Continue the newest stored run of this model, --args and shard: take its seed, skip its stored "
                "draws, and count its kernels toward -n")
      ->excludes(seed);
  cmd->add_option("--batch-size", opts->batch_size, "Streams sampled in parallel")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-length", s.max_length, "Tokens per sample before it is cut off")
      ->capture_default_str()->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--max-samples", s.max_samples, "Stop after this many samples (0 = no limit)")
      ->capture_default_str();
  cmd->add_option("--time-limit", s.time_limit, "Stop after this many seconds (0 = no limit)")
      ->capture_default_str()
      ->check(finite_range(0, 1e9));
  cmd->add_option("--filter-threads", s.filter_threads, "Filter workers (0 = cores - 1)")
      ->capture_default_str();
  cmd->add_option("--out", opts->out, "Directory for accepted kernels (default: <workspace>/samples/<model id>)");
  auto* model = cmd->add_option("--model", opts->model_id, "Model id (default: the latest trained)");
  cmd->add_option("--config", opts->config, "Sample from the model this config trains")
      ->excludes(model)
      ->check(non_empty());
  cmd->add_option("--start", opts->start,
                  "Model state the seed is read from: file (after the corpus separator, as a file "
                  "starts in training) or zero (the network's zero state)")
      ->check(CLI::IsMember({"file", "zero"}))
      ->capture_default_str();
  cmd->add_option("--device", opts->device, "cpu, cuda or auto")
      ->capture_default_str()->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_flag("!--no-constrain", s.constrain,
                "Sample from the model's raw distribution, without the constraint that keeps "
                "brackets matched and identifiers declared (see docs/SAMPLER.md)");
  cmd->add_option("--max-refusals", s.max_refusals,
                  "End a constrained stream once this many of its draws were refused")
      ->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--repairs", s.max_repairs,
                  "Repair instead of abandon: a stream that reaches --max-refusals backs up "
                  "--repair-backup tokens and goes on, at most this many times per sample (0: abandon)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--backtracks", opts->backtracks,
                  fmt::format("Backtrack instead of redraw: when the constraint refuses a draw right after a "
                              "name, go back before the name and draw another, at most "
                              "this many times per sample (0: off; these refusals do not count towards "
                              "--max-refusals) [default: {}, 0 with --check]",
                              kBacktracks))
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("!--backtrack-bad-names-only", s.backtrack_after_any_name,
                "Backtrack only when the name itself is refused (no token allowed after it, the refusals used "
                "up, or the allowed redraw would lengthen it); otherwise redraw as without --backtracks");
  cmd->add_option("--repair-backup", s.repair_backup, "Tokens a repair backs up")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--shard", opts->shard,
                  "Sample shard I of N (I/N, 0 <= I < N): streams draw from generators no other "
                  "shard of the same --seed uses, and 0/1 is the unsharded run; \"auto\" takes I/N "
                  "from torchrun's RANK/WORLD_SIZE or Slurm's SLURM_PROCID/SLURM_NTASKS and the "
                  "GPU from LOCAL_RANK/SLURM_LOCALID (see docs/SAMPLER.md)");
  cmd->add_flag("!--no-usefulness-check", s.usefulness_check,
                "Keep kernels the static usefulness check proves useless (see docs/SAMPLER.md)");
  cmd->add_option("--check", opts->check_device,
                  "Drive accepted kernels through the dynamic checker while sampling: cpu, gpu, part of "
                  "a device name, or all (the CPU checks, the other devices profile what passed); "
                  "-n then counts benchmark-grade kernels");
  cmd->add_option("--check-jobs", opts->check.jobs, "Kernels checked at once (0: one per core, at most 16)")
      ->capture_default_str()->check(CLI::Range(0u, 256u));
  cmd->add_option("--check-timeout", opts->check.timeout_s, "Wall-clock seconds per checked kernel")
      ->capture_default_str()
      ->check(finite_range(0.001, 604800.0));
  cmd->add_flag("!--no-check-timeout-retry", opts->check.retry_timeouts_alone,
                "Keep a check's time-out beside other runs as it is, instead of checking the kernel again alone "
                "(each retry holds the checker for up to two time-outs)");
  cmd->add_option("--check-out", opts->check_out,
                  "Directory for benchmark-grade kernels (default: <workspace>/benchmark-grade/<model "
                  "id>, or <--out>-benchmark-grade)");
  auto& d = opts->directed;
  auto* targets = cmd->add_option("--target-features", d.target_features,
                                  "Directed sampling: steer toward these Grewe feature vectors (CSV with columns comp, "
                                  "rational, mem, localmem, coalesced, atomic; `clgen features` output works as is; "
                                  "see docs/SAMPLER.md)")
                      ->check(CLI::ExistingFile);
  auto* held = cmd->add_flag("--held-out-targets", d.held_out,
                             "Directed sampling toward the features of the kernels that --config's training holds "
                             "out (validation_split = \"repository\")");
  auto* explore = cmd->add_flag("--explore", d.explore,
                                "Directed sampling toward the corpus kernels farthest from the workspace's newest "
                                "2000 accepted samples in feature space (docs/SAMPLER.md)");
  targets->excludes(held)->excludes(explore);
  held->excludes(explore);
  cmd->add_option("--explore-targets", d.explore_count, "Targets --explore chooses")
      ->capture_default_str()
      ->check(CLI::Range(size_t(1), size_t(1) << 20));
  cmd->add_flag("--baseline", d.baseline,
                "With directed sampling: alternate directed and undirected slices in the same run and report "
                "both");
  cmd->add_flag("--baseline-only", d.baseline_only,
                "With directed sampling: every stream is undirected (the --baseline side alone, for a run of its "
                "own); its distance to the targets is reported as the baseline");
  cmd->add_option("--baseline-slice", d.slice_seconds, "Seconds of each --baseline slice")
      ->capture_default_str()
      ->check(finite_range(0.001, 1e6));
  cmd->add_option("--baseline-split", d.split,
                  "How --baseline shares the run: time (alternate slices of --baseline-slice seconds) or streams "
                  "(the odd streams of the batch undirected for the whole run: each side has half the batch, "
                  "however long its streams run)")
      ->capture_default_str()
      ->check(CLI::IsMember({"time", "streams"}));
  cmd->add_option("--plain-share", d.plain_share,
                  "With directed sampling: the share of restarts from the plain seed (1 = undirected sampling "
                  "that still reports its distance to the targets)")
      ->capture_default_str()
      ->check(finite_range(0.0, 1.0));
  cmd->add_option("--near-share", d.near_share,
                  "With directed sampling: the share of continuations whose target is drawn by how near its "
                  "nearest kernel is (weight exp(-d / 0.05)) instead of in round-robin order (0: round-robin only)")
      ->capture_default_str()
      ->check(finite_range(0.0, 1.0));
  cmd->add_flag("--near-cuts,!--no-near-cuts", d.near_cuts,
                "With directed sampling: cut a kernel at distance d from its target among the last max(1/4, "
                "d / 0.1) of its statement boundaries, so near kernels keep most of their body (default; "
                "--no-near-cuts cuts uniformly)");
  cmd->add_option("--target-report", d.report,
                  "With directed sampling: write each target's nearest kernel (directed, and undirected with "
                  "--baseline) as CSV");
  cmd->add_flag("--graded-steering", d.graded,
                "With directed sampling and --check: a kernel joins the search, and counts toward the targets, "
                "only once the dynamic checker passed it (both sides; see docs/SAMPLER.md)");
  opts->clang.add_to(*cmd, "sample");
  cmd->add_flag("--json", opts->json, "Print the summary as JSON");
  cmd->final_callback([opts, seed, &global, &action] {
    opts->seed_given = seed->count() > 0;
    action = [opts, &global] { return run_sample(global, *opts); };
  });
}

}  // namespace clgen::cli
