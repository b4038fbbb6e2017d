// A `clgen sample` run: options -> shard, seed, model, targets, checker ->
// the sampling loop -> the target report and the result.
#include "sampler/sample_job.h"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "model/distributed_env.h"
#include "model/trainer.h"
#include "sampler/arg_spec.h"
#include "sampler/constraint_tables.h"
#include "sampler/store.h"
#include "sampler/stream_model.h"
#include "support/log.h"
#include "support/workspace.h"

namespace clgen::sampler {

namespace {

// A seed no earlier run is likely to have used: 48 bits from the system's
// entropy source and the clock (48 bits stay exact in JSON and SQLite).
uint64_t fresh_seed() {
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) ^ rd() ^ uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  return s & ((uint64_t(1) << 48) - 1);
}

// The model's constraint tables into `sample`, when constrained decoding is
// on and the model has them (a model trained before they were saved with it
// learns them from the corpus, with a warning).
Status load_tables(const Workspace& ws, const std::string& model_id, SampleOptions& sample) {
  if (!sample.constrain) return ok_status();
  auto tables = load_constraint_tables(model::model_directory(ws, model_id));
  if (tables.ok()) {
    sample.constraint_tables = std::make_shared<const ConstraintTables>(std::move(*tables));
  } else if (tables.status().code() == ErrorCode::kNotFound) {
    spdlog::warn(
        "model {} has no constraint tables (trained before they were saved with it): learning them "
        "from the workspace's corpus; `clgen train` with its config saves them",
        model_id);
  } else {
    return tables.status();
  }
  return ok_status();
}

// --resume: the seed of the newest stored run of the model, args and shard.
Expected<uint64_t> resume_seed(Database& db, const Workspace& ws, const std::string& model_id, const std::string& args,
                               const Shard& shard) {
  const std::string shard_text = shard.sharded() ? shard.str() : "";
  ASSIGN_OR_RETURN(auto last, latest_seed(db, model_id, args, shard_text));
  if (!last)
    return not_found(fmt::format("--resume: no samples of model {} with --args \"{}\"{} are stored in {}", model_id,
                                 args, shard_text.empty() ? "" : " and --shard " + shard_text, ws.root()));
  return *last;
}

// The checker's verdicts handed to the run's director (--graded-steering).
// The director arrives on the caller's thread, verdicts on the recorder's.
class Steering {
 public:
  void set(const std::shared_ptr<Director>& d) {
    std::lock_guard<std::mutex> lock(mu_);
    director_ = d;
  }
  void verdict(const std::string& text, bool passed) {
    std::shared_ptr<Director> d;
    {
      std::lock_guard<std::mutex> lock(mu_);
      d = director_;
    }
    if (d) d->graded(text, passed);
  }

 private:
  std::mutex mu_;
  std::shared_ptr<Director> director_;
};

}  // namespace

Expected<ShardChoice> choose_shard(const std::string& flag) {
  ShardChoice c;
  if (flag.empty()) return c;
  if (flag != "auto") {
    auto shard = parse_shard(flag);
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
  c.shard = Shard{env->rank, env->world_size};
  c.source = env->launcher;
  c.local_rank = env->local_rank;
  return c;
}

Expected<SampleJob> SampleJob::create(SampleJobOptions o) {
  if (!o.sample.args.empty()) {
    auto spec = parse_arg_spec(o.sample.args);
    if (!spec.ok()) return usage_error("--args: " + spec.status().message());
  }
  if (o.batch_size <= 0) return usage_error("--batch-size must be positive");
  if (o.start != "file" && o.start != "zero") return usage_error("--start: \"" + o.start + "\" is not file or zero");
  if (o.begin != "text" && o.begin != "signature")
    return usage_error("--begin: \"" + o.begin + "\" is not text or signature");
  if (o.begin == "text" && o.start == "zero")
    return usage_error("--begin text reads a text from its start, after the separator: it needs --start file");
  if (o.checkpoint != "best" && o.checkpoint != "last")
    return usage_error("--checkpoint: \"" + o.checkpoint + "\" is not best or last");
  const DirectedJobOptions& d = o.directed;
  if (int(!d.target_features.empty()) + int(d.held_out) + int(d.explore) > 1)
    return usage_error("--target-features, --held-out-targets and --explore exclude each other");
  if (d.held_out && o.config.empty())
    return usage_error("--held-out-targets needs --config: its training holds them out");
  if (d.split != "time" && d.split != "streams")
    return usage_error("--baseline-split: \"" + d.split + "\" is not time or streams");
  if (d.baseline && !d.any())
    return usage_error(
        "--baseline compares with directed sampling: give --target-features, --held-out-targets "
        "or --explore");
  if (d.baseline_only && !d.any())
    return usage_error(
        "--baseline-only samples the undirected side of directed sampling: give --target-features, "
        "--held-out-targets or --explore");
  if (d.graded && (!d.any() || o.check_device.empty()))
    return usage_error(
        "--graded-steering steers directed sampling by the dynamic checker's verdicts: give --check and "
        "--target-features, --held-out-targets or --explore");
  if (!o.check_device.empty() && o.sample.target_accepted == 0 && o.sample.max_samples == 0 && o.sample.time_limit <= 0)
    return usage_error("sampling needs a stop condition: -n, --max-samples or --time-limit");
  if (o.seed_given && o.resume) return usage_error("--resume takes the stored run's seed: give it or --seed");
  return SampleJob(std::move(o));
}

Expected<SampleJobResult> SampleJob::run() {
  SampleJobOptions o = options_;
  SampleJobResult r;
  SampleOptions& s = o.sample;
  ASSIGN_OR_RETURN(r.shard, choose_shard(o.shard));
  s.shard = r.shard.shard;
  ASSIGN_OR_RETURN(auto ws, Workspace::open(o.workspace));
  ASSIGN_OR_RETURN(auto db, ws.open_database());
  // Targets before the model: a bad CSV fails fast.
  ASSIGN_OR_RETURN(s.targets, choose_targets(o.directed, db, o.config));
  s.steering = steering_name(o.directed);
  const DirectedJobOptions& d = o.directed;
  s.director.baseline_only = d.baseline_only;
  if (d.baseline || d.baseline_only) s.director.baseline_slice_seconds = d.slice_seconds;
  s.director.baseline_by_stream = d.split == "streams";
  s.director.graded = d.graded;
  s.director.plain_share = d.plain_share;
  s.director.near_share = d.near_share;
  s.director.near_cuts = d.near_cuts;
  s.max_backtracks = o.backtracks >= 0 ? o.backtracks : kDefaultBacktracks;
  s.whole_text = o.begin == "text";
  std::string model_id = o.model_id;
  if (!o.config.empty()) {
    ASSIGN_OR_RETURN(model_id, model_id_for_config(ws.root(), o.config));
  }
  r.seed_from = o.seed_given ? "--seed" : o.resume ? "--resume" : "fresh";
  if (!o.seed_given && !o.resume) s.seed = fresh_seed();
  ASSIGN_OR_RETURN(auto model, load_stream_model(ws.root(), model_id, o.device, o.batch_size, s.seed, o.start == "file",
                                                 r.shard.local_rank, o.checkpoint));
  r.model_id = model->model_id();
  if (o.resume) {
    ASSIGN_OR_RETURN(s.seed, resume_seed(db, ws, r.model_id, s.args, r.shard.shard));
  }
  s.director.seed = s.seed;
  RETURN_IF_ERROR(load_tables(ws, r.model_id, s));
  s.out_dir = o.out.empty() ? ws.root() + "/samples/" + r.model_id : o.out;

  const auto wall_start = std::chrono::steady_clock::now();
  // Declared before the checker, so it outlives the recorder thread.
  Steering steering;
  std::unique_ptr<driver::Checker> checker;
  SampleHooks hooks;
  if (d.graded) {
    o.check.on_verdict = [&steering](const std::string& text, bool passed) { steering.verdict(text, passed); };
    hooks.on_director = [&steering](const std::shared_ptr<Director>& dir) { steering.set(dir); };
  }
  if (!o.check_device.empty()) {
    o.check.device = o.check_device;
    o.check.out_dir = !o.check_out.empty() ? o.check_out
                      : !o.out.empty()     ? o.out + "-benchmark-grade"
                                           : ws.root() + "/benchmark-grade/" + r.model_id;
    r.check_out_dir = o.check.out_dir;
    ASSIGN_OR_RETURN(auto check_db, ws.open_database());
    ASSIGN_OR_RETURN(checker, driver::Checker::start(std::move(check_db), o.check));
    // The target counts benchmark-grade kernels: the checker's count stops the run.
    const uint64_t target = s.target_accepted;
    s.target_accepted = 0;
    hooks.on_accepted = [&checker](const std::string& text) { checker->submit(text); };
    hooks.stop = [&checker, target] { return target > 0 && checker->benchmark_grade() >= target; };
  }
  auto sampled = run_sampling(*model, db, s, hooks);
  if (checker) {
    auto finished = checker->finish();  // also after a failed sampling: stored checks are kept
    if (sampled.ok() && !finished.ok()) return finished.status().with_context("checking samples");
    if (finished.ok()) r.check = *finished;
  }
  if (!sampled.ok()) return sampled.status();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r.summary = std::move(*sampled);
  if (r.summary.director && !d.report.empty())
    RETURN_IF_ERROR_CTX(write_target_report(r.summary, d.report), "writing --target-report");
  r.sample = std::move(s);
  return r;
}

}  // namespace clgen::sampler
