// A `clgen train` run: options -> config, world, training text -> the
// trainer -> the constraint tables and the result.
#include "model/train_job.h"

#include <csignal>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "model/distributed_env.h"
#include "support/files.h"
#include "support/log.h"
#include "support/text.h"
#include "support/workspace.h"

namespace clgen::model {

namespace {

// Test hook (docs/MODEL.md): CLGEN_TEST_SIGKILL_AFTER_BATCHES=K makes the
// process SIGKILL itself after its K-th optimizer step, mid-epoch, at a point
// the kill tests choose rather than race for. 0 when unset.
Expected<uint64_t> kill_hook_steps() {
  const char* value = std::getenv("CLGEN_TEST_SIGKILL_AFTER_BATCHES");
  if (value == nullptr || *value == '\0') return uint64_t{0};
  std::optional<uint64_t> k = parse_uint64(value);
  if (!k || *k == 0)
    return usage_error(fmt::format("CLGEN_TEST_SIGKILL_AFTER_BATCHES: expected a positive integer, not \"{}\"", value));
  return *k;
}

void arm_kill_hook(TrainOptions& train, uint64_t k) {
  auto steps = std::make_shared<uint64_t>(0);
  train.after_batch = [steps, k](int, int) {
    if (++*steps == k) std::raise(SIGKILL);
  };
}

// What the corpus selection left out, one line per repository and cause.
void log_left_out(const TrainingTexts& set) {
  for (const auto& [repo, n] : set.capped)
    spdlog::info("training.max_kernels_per_repository: {} kernels of {} left out", n, repo);
  for (const auto& [repo, n] : set.domain_capped)
    spdlog::info("training.max_kernels_in_capped_domains: {} kernels of {} left out", n, repo);
  for (const auto& [repo, n] : set.chars_capped)
    spdlog::info("training.max_repository_chars: {} kernels of {} left out", n, repo);
  for (const auto& [repo, n] : set.share_capped)
    spdlog::info("training.max_repository_share: {} kernels of {} left out (cap {} characters)", n, repo,
                 set.share_cap_chars);
  if (set.left_out_default_corpus > 0)
    spdlog::info("training.default_corpus = false: {} kernels left out", set.left_out_default_corpus);
  if (set.left_out_host_code > 0)
    spdlog::info("training.host_code = false: {} kernels left out", set.left_out_host_code);
}

// The training text of the workspace's corpus under the config's selection.
Expected<TrainingTexts> select_text(const Workspace& ws, const TrainingConfig& training) {
  ASSIGN_OR_RETURN(Database db, ws.open_database());
  ASSIGN_OR_RETURN(TrainingTexts set, read_training_set(db, training));
  log_left_out(set);
  return set;
}

// --distributed: this process's rank, from the launcher's environment.
Status join_distributed(TrainOptions& train) {
  auto env = distributed_env();
  if (!env.ok()) return env.status().with_context("distributed training");
  train.distributed = *env;
  // One voice: the other ranks log warnings and errors only.
  if (train.distributed->rank != 0) spdlog::set_level(spdlog::level::warn);
  return ok_status();
}

}  // namespace

Expected<TrainJob> TrainJob::create(TrainJobOptions options) {
  const std::string& device = options.train.device;
  if (device != "cpu" && device != "cuda" && device != "auto") return usage_error("--device must be cpu, cuda or auto");
  ASSIGN_OR_RETURN(uint64_t kill_after, kill_hook_steps());
  return TrainJob(std::move(options), kill_after);
}

Expected<TrainJobResult> TrainJob::run() {
  TrainJobResult r;
  TrainOptions train = options_.train;
  if (!options_.config.empty()) {
    ASSIGN_OR_RETURN(r.config, load_model_config(options_.config));
    ASSIGN_OR_RETURN(train.config_text, read_file(options_.config));
  }
  if (kill_after_ > 0) arm_kill_hook(train, kill_after_);
  if (options_.distributed) RETURN_IF_ERROR(join_distributed(train));
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(options_.workspace));
  ASSIGN_OR_RETURN(TrainingTexts set, select_text(ws, r.config.training));
  if (options_.on_selected) options_.on_selected(set, r.config);
  // The model reads each kernel after its feature header (with training.feature_prefix).
  const std::vector<std::string> texts = set.model_texts();
  train.held_out = set.held_out;
  // -q raises the log level to warnings; the progress line follows it.
  train.progress = spdlog::should_log(spdlog::level::info);
  ASSIGN_OR_RETURN(r.train, train_model(ws, r.config, texts, train));
  const TrainResult& t = r.train;
  if (t.rank != 0) {  // rank 0 reports the run
    if (t.completed) return r;
    return cancelled(fmt::format("rank {}: training interrupted; rank 0 saved the checkpoint", t.rank));
  }
  // The constraint tables come from exactly the texts the model trains on
  // (corpus selection, max_file_chars), once, not at every `clgen sample`;
  // also when training stops early (SIGINT, a time limit), since the
  // checkpoint is then sampled from as it is.
  if (options_.artifacts) RETURN_IF_ERROR(options_.artifacts->save_constraint_tables(set.texts, t.model_dir));
  if (!t.completed)
    return cancelled(fmt::format(
        "training of model {} interrupted after epoch {}; checkpoint in {}; run the same command again to resume",
        t.model_id, t.epochs_done, t.model_dir));
  return r;
}

Expected<Preview> TrainJob::preview(const TrainJobResult& result) const {
  return preview_model(options_.workspace, result.train.model_id, result.config, options_.train.device);
}

}  // namespace clgen::model
