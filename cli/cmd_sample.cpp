// `clgen sample`: synthesizes kernels with a trained model, filters them with
// the preprocessor, stores them in the workspace and writes accepted ones as
// .cl files; with --check, drives them through the dynamic checker meanwhile
// and writes the benchmark-grade ones to their own folder.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>
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
#include "support/config.h"
#include "support/log.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

// --backtracks without --check: on the H100 it took new unique accepted
// kernels per minute from 5,071 to 13,653 and their median comp from 4 to 7
// (docs/BENCHMARKS.md, "Fourteenth session").
constexpr int kBacktracks = 16;

// A key of the --config file's [sampler], [directed] or [check] section:
// `read` sets its field from the file unless `flag` was given.
struct Knob {
  std::string key, flag;
  std::function<Status(const Config&)> read;
  bool flag_given = false;
};

struct SampleCommandOptions {
  sampler::SampleOptions sample;
  int batch_size = 64;    // parallel streams
  std::string model_id;   // "" = the latest trained model
  std::string checkpoint = "best";  // or "last"
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
  std::vector<Knob> knobs;                  // bound to the fields above, so only the original is read into
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
  ASSIGN_OR_RETURN(auto model,
                   sampler::load_stream_model(ws.root(), model_id, opts.device, opts.batch_size, opts.sample.seed,
                                              opts.start == "file", shard.local_rank, opts.checkpoint));
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
    // The knobs as the run used them (flags over the --config file's sections).
    const auto& d = opts.directed;
    j["options"] = {{"sampler",
                     {{"start", opts.start},
                      {"top_k", opts.sample.policy.top_k},
                      {"top_p", opts.sample.policy.top_p},
                      {"max_length", opts.sample.max_length},
                      {"filter_threads", opts.sample.filter_threads},
                      {"constrain", opts.sample.constrain},
                      {"max_refusals", opts.sample.max_refusals},
                      {"repairs", opts.sample.max_repairs},
                      {"repair_backup", opts.sample.repair_backup},
                      {"backtracks", opts.sample.max_backtracks},
                      {"backtrack_bad_names_only", !opts.sample.backtrack_after_any_name},
                      {"usefulness_check", opts.sample.usefulness_check}}},
                    {"directed",
                     {{"explore_targets", d.explore_count},
                      {"baseline_slice", d.slice_seconds},
                      {"baseline_split", d.split},
                      {"plain_share", d.plain_share},
                      {"near_share", d.near_share},
                      {"near_cuts", d.near_cuts},
                      {"graded_steering", d.graded}}},
                    {"check",
                     {{"jobs", opts.check.jobs},
                      {"timeout", opts.check.timeout_s},
                      {"timeout_retry", opts.check.retry_timeouts_alone}}}};
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
  if (opts.config.empty()) return ok_status();
  ASSIGN_OR_RETURN(Config c, Config::load_file(opts.config));
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
  auto& s = opts->sample;  // bound directly: its defaults are the command's
  auto& d = opts->directed;
  CLI::App* cmd = app.add_subcommand("sample", "Synthesize OpenCL kernels with a trained model");
  cmd->formatter(std::make_shared<TuningOffHelp>());
  cmd->footer(
      "Research and tuning knobs (top-k and top-p, refusals, repairs, backtracking, the start state, filter "
      "threads, the "
      "directed search's shares and cuts, the checker's jobs and time-out) are keys of the --config file's "
      "[sampler], [directed] and [check] sections; each also has a flag that overrides the file "
      "(docs/SAMPLER.md, \"Configuration\").");

  // Input and model.
  cmd->add_option("--args", s.args,
                  "Kernel argument types, e.g. \"float*,float*,float*,int\" (default: the model "
                  "chooses the signature)")
      ->group(kInput);
  auto* model = cmd->add_option("--model", opts->model_id, "Model id (default: the latest trained)")->group(kInput);
  cmd->add_option("--checkpoint", opts->checkpoint,
                  "best (lowest validation loss; the last for models without one) or last")
      ->check(CLI::IsMember({"best", "last"}))
      ->capture_default_str()
      ->group(kInput);
  cmd->add_option("--config", opts->config,
                  "Sample from the model this config trains, with its [sampler], [directed] and [check] settings")
      ->excludes(model)
      ->check(non_empty())
      ->group(kInput);
  cmd->add_option("--device", opts->device, "cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->group(kInput);

  // Sampling.
  cmd->add_option("--temperature", s.policy.temperature, "Sampling temperature (0 = greedy)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber)
      ->group(kSampling);
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
  cmd->add_flag("--resume", opts->resume,
                "Continue the newest stored run of this model, --args and shard: take its seed, skip its stored "
                "draws, and count its kernels toward -n")
      ->excludes(seed)
      ->group(kSampling);
  cmd->add_option("--out", opts->out, "Directory for accepted kernels (default: <workspace>/samples/<model id>)")
      ->group(kSampling);
  cmd->add_flag("--json", opts->json, "Print the summary as JSON")->group(kSampling);

  // Checking.
  cmd->add_option("--check", opts->check_device,
                  "Drive accepted kernels through the dynamic checker while sampling: cpu, gpu, part of "
                  "a device name, or all (the CPU checks, the other devices profile what passed); "
                  "-n then counts benchmark-grade kernels")
      ->group(kChecking);
  cmd->add_option("--check-out", opts->check_out,
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
  cmd->add_option("--batch-size", opts->batch_size, "Streams sampled in parallel")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20))
      ->group(kLimits);

  // Off --help: a key of the config's sections, or (--shard, --baseline-only,
  // the Clang budget) documented in docs/SAMPLER.md.
  cmd->add_option("--shard", opts->shard,
                  "Sample shard I of N (I/N, 0 <= I < N): streams draw from generators no other "
                  "shard of the same --seed uses, and 0/1 is the unsharded run; \"auto\" takes I/N "
                  "from torchrun's RANK/WORLD_SIZE or Slurm's SLURM_PROCID/SLURM_NTASKS and the "
                  "GPU from LOCAL_RANK/SLURM_LOCALID (see docs/SAMPLER.md)")
      ->group(kTuning);
  cmd->add_flag("--baseline-only", d.baseline_only,
                "With directed sampling: every stream is undirected (the --baseline side alone, for a run of its "
                "own); its distance to the targets is reported as the baseline")
      ->group(kTuning);
  cmd->add_option("--start", opts->start, "[sampler] start: file or zero")
      ->check(CLI::IsMember({"file", "zero"}))
      ->group(kTuning);
  cmd->add_option("--filter-threads", s.filter_threads, "[sampler] filter_threads")->group(kTuning);
  cmd->add_flag("!--no-constrain", s.constrain, "[sampler] constrain = false")->group(kTuning);
  cmd->add_option("--max-refusals", s.max_refusals, "[sampler] max_refusals")
      ->check(CLI::PositiveNumber)
      ->group(kTuning);
  cmd->add_option("--repairs", s.max_repairs, "[sampler] repairs")->check(CLI::NonNegativeNumber)->group(kTuning);
  cmd->add_option("--repair-backup", s.repair_backup, "[sampler] repair_backup")
      ->check(CLI::PositiveNumber)
      ->group(kTuning);
  cmd->add_option("--backtracks", opts->backtracks, "[sampler] backtracks")
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
  cmd->add_option("--check-jobs", opts->check.jobs, "[check] jobs")->check(CLI::Range(0u, 256u))->group(kTuning);
  cmd->add_option("--check-timeout", opts->check.timeout_s, "[check] timeout")
      ->check(finite_range(0.001, 604800.0))
      ->group(kTuning);
  cmd->add_flag("!--no-check-timeout-retry", opts->check.retry_timeouts_alone, "[check] timeout_retry = false")
      ->group(kTuning);
  opts->clang.add_to(*cmd, "sample");
  for (const char* f : {"--clang-time-limit", "--clang-memory-limit", "--clang-in-process"})
    cmd->get_option(f)->group(kTuning);

  // What each config key sets, and the flag that overrides it (their
  // meanings: docs/SAMPLER.md, "Configuration").
  opts->knobs = {
      choice_knob("sampler.start", "--start", opts->start, {"file", "zero"}),
      int_knob("sampler.top_k", "--top-k", s.policy.top_k, 0, 1 << 30),
      double_knob("sampler.top_p", "--top-p", s.policy.top_p, 0.0, 1.0),
      int_knob("sampler.max_length", "--max-length", s.max_length, 1, 1 << 24),
      unsigned_knob("sampler.filter_threads", "--filter-threads", s.filter_threads, 0, 1024),
      bool_knob("sampler.constrain", "--no-constrain", s.constrain),
      int_knob("sampler.max_refusals", "--max-refusals", s.max_refusals, 1, 1 << 20),
      int_knob("sampler.repairs", "--repairs", s.max_repairs, 0, 1 << 20),
      int_knob("sampler.repair_backup", "--repair-backup", s.repair_backup, 1, 1 << 20),
      int_knob("sampler.backtracks", "--backtracks", opts->backtracks, 0, 1 << 20),
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
      unsigned_knob("check.jobs", "--check-jobs", opts->check.jobs, 0, 256),
      double_knob("check.timeout", "--check-timeout", opts->check.timeout_s, 0.001, 604800.0),
      bool_knob("check.timeout_retry", "--no-check-timeout-retry", opts->check.retry_timeouts_alone),
  };
  cmd->final_callback([opts, seed, cmd, &global, &action] {
    opts->seed_given = seed->count() > 0;
    for (Knob& k : opts->knobs) k.flag_given = cmd->get_option(k.flag)->count() > 0;
    action = [opts, &global] {
      RETURN_IF_ERROR(apply_config_sections(*opts));
      return run_sample(global, *opts);
    };
  });
}

}  // namespace clgen::cli
