// `clgen train [--config FILE] [--device cpu|cuda|auto] [--epochs N]
// [--distributed [--timeout S]]`: trains the LSTM language model on the
// workspace's preprocessed corpus, resuming from the model's checkpoint, and
// prints a few samples at the end. With --distributed the process is one rank
// of a data-parallel run launched by torchrun or srun (docs/MODEL.md).
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.h"
#include "model/config.h"
#include "model/distributed_env.h"
#include "model/language_model.h"
#include "model/store.h"
#include "model/trainer.h"
#include "sampler/constraint_tables.h"
#include "support/files.h"
#include "support/log.h"
#include "support/text.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

struct TrainCommandOptions {
  std::string config;        // TOML file; empty = model/config.h defaults (= configs/tiny.toml)
  bool distributed = false;  // one rank of a torchrun/srun world (rank from the environment)
  // --device, --epochs and --timeout bind to these fields: their defaults are the library's.
  model::TrainOptions train;
};

// Samples `preview.samples` kernels from the seed "__kernel void A(".
Status print_preview(const std::string& workspace, const std::string& id,
                     const model::ModelConfig& config, const std::string& device) {
  const auto& p = config.preview;
  if (p.samples <= 0) return ok_status();
  ASSIGN_OR_RETURN(auto lm, model::LanguageModel::load(workspace, id, device));
  ASSIGN_OR_RETURN(auto batch, lm->new_batch(p.samples, config.training.seed));
  // A feature-conditioned model reads its most frequent training header first.
  const auto& headers = lm->feature_headers();
  const std::string seed = (headers.empty() ? "" : headers.front().first) + "__kernel void A(";
  RETURN_IF_ERROR(batch->feed_all(seed));
  std::vector<std::vector<model::Token>> out(size_t(p.samples));
  std::vector<bool> done(size_t(p.samples), false);
  const model::Token separator = lm->vocabulary().separator();
  for (int step = 0; step < p.max_tokens; ++step) {
    ASSIGN_OR_RETURN(auto tokens, batch->sample(p.temperature));
    bool all = true;
    for (size_t s = 0; s < tokens.size(); ++s) {
      if (tokens[s] == separator) done[s] = true;
      if (!done[s]) out[s].push_back(tokens[s]);
      all = all && done[s];
    }
    if (all) break;
  }
  for (size_t s = 0; s < out.size(); ++s) {
    ASSIGN_OR_RETURN(std::string text, lm->vocabulary().decode(out[s]));
    std::printf("---- sample %zu (temperature %.2f)%s\n%s%s\n", s + 1, p.temperature,
                done[s] ? "" : ", cut at max_tokens", seed.c_str(), text.c_str());
  }
  return ok_status();
}

// Test hook (docs/MODEL.md): CLGEN_TEST_SIGKILL_AFTER_BATCHES=K makes the
// process SIGKILL itself after its K-th optimizer step, mid-epoch, at a point
// the kill tests choose rather than race for.
Status arm_kill_hook(model::TrainOptions& train) {
  const char* value = std::getenv("CLGEN_TEST_SIGKILL_AFTER_BATCHES");
  if (value == nullptr || *value == '\0') return ok_status();
  std::optional<uint64_t> k = parse_uint64(value);
  if (!k || *k == 0)
    return usage_error(fmt::format("CLGEN_TEST_SIGKILL_AFTER_BATCHES: expected a positive integer, not \"{}\"", value));
  auto steps = std::make_shared<uint64_t>(0);
  train.after_batch = [steps, k = *k](int, int) {
    if (++*steps == k) std::raise(SIGKILL);
  };
  return ok_status();
}

Status run_train(const GlobalOptions& global, const TrainCommandOptions& opts) {
  model::ModelConfig config;
  std::string config_text;
  if (!opts.config.empty()) {
    ASSIGN_OR_RETURN(config, model::load_model_config(opts.config));
    ASSIGN_OR_RETURN(config_text, read_file(opts.config));
  }
  if (opts.train.device != "cpu" && opts.train.device != "cuda" && opts.train.device != "auto")
    return usage_error("--device must be cpu, cuda or auto");
  model::TrainOptions train = opts.train;
  RETURN_IF_ERROR(arm_kill_hook(train));
  if (opts.distributed) {
    auto env = model::distributed_env();
    if (!env.ok()) return env.status().with_context("distributed training");
    train.distributed = *env;
    // One voice: the other ranks log warnings and errors only.
    if (train.distributed->rank != 0) spdlog::set_level(spdlog::level::warn);
  }
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  model::TrainingTexts set;
  {
    ASSIGN_OR_RETURN(Database db, ws.open_database());
    ASSIGN_OR_RETURN(set, model::read_training_set(db, config.training));
  }
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
  if (set.held_out > 0)
    std::printf("validation: %zu kernels of %zu held-out repositories: %s\n", set.held_out,
                set.held_out_repositories.size(), fmt::format("{}", fmt::join(set.held_out_repositories, ", ")).c_str());
  if (config.training.feature_prefix)
    std::printf("training.feature_prefix: %zu of %zu kernels without features, trained on without a header\n",
                set.headerless, set.texts.size());
  // The model reads each kernel after its feature header (with training.feature_prefix).
  const std::vector<std::string> texts = set.model_texts();
  train.held_out = set.held_out;
  train.config_text = config_text;
  // -q raises the log level to warnings; the progress line follows it.
  train.progress = spdlog::should_log(spdlog::level::info);
  ASSIGN_OR_RETURN(model::TrainResult r, model::train_model(ws, config, texts, train));
  if (r.rank != 0)  // rank 0 reports the run
    return r.completed ? ok_status()
                       : cancelled(fmt::format("rank {}: training interrupted; rank 0 saved the checkpoint", r.rank));
  // The constraint tables come from exactly the texts the model trains on
  // (corpus selection, max_file_chars), once, not at every `clgen sample`;
  // also when training stops early (SIGINT, a time limit), since the
  // checkpoint is then sampled from as it is.
  RETURN_IF_ERROR(sampler::save_constraint_tables(sampler::ConstraintTables::from_corpus(set.texts), r.model_dir));
  if (!r.completed)
    return cancelled(
        fmt::format("training of model {} interrupted after epoch {}; checkpoint in "
                    "{}; run the same command again to resume",
                    r.model_id, r.epochs_done, r.model_dir));
  std::printf("model %s: %d epochs, %s vocabulary of %d tokens, %llu training tokens, device %s\n",
              r.model_id.c_str(), r.epochs_done, config.vocabulary.type.c_str(), r.vocab_size,
              static_cast<unsigned long long>(r.train_tokens), r.device.c_str());
  if (r.world_size > 1 || !r.backend.empty())
    std::printf("distributed: %d ranks over %s\n", r.world_size, r.backend.c_str());
  if (!r.epochs.empty()) {
    const auto& last = r.epochs.back();
    if (last.valid_loss)
      std::printf("epoch %d: train loss %.4f, validation loss %.4f, perplexity %.3f (%.1fs this run)\n",
                  last.epoch, last.train_loss, *last.valid_loss, std::exp(*last.valid_loss), r.seconds);
    else
      std::printf("epoch %d: train loss %.4f (%.1fs this run)\n", last.epoch, last.train_loss, r.seconds);
  } else {
    std::printf("already trained for %d epochs (use --epochs to train longer)\n", r.epochs_done);
  }
  if (r.best_valid_loss)
    std::printf("best: epoch %d, validation loss %.4f (%s/best.pt, what `clgen sample` uses)%s\n", r.best_epoch,
                *r.best_valid_loss, r.model_dir.c_str(), r.stopped_early ? "; stopped early (training.patience)" : "");
  std::printf("checkpoint: %s/checkpoint.pt\n", r.model_dir.c_str());
  return print_preview(global.workspace, r.model_id, config, opts.train.device);
}

}  // namespace

void add_train_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<TrainCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "train", "Train the language model (LSTM or Transformer) on the preprocessed corpus (resumes if interrupted)");
  cmd->add_option("--config", opts->config, "Model config TOML (see configs/); default: the tiny settings")
      ->check(CLI::ExistingFile);
  cmd->add_option("--device", opts->train.device, "cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  cmd->add_option("--epochs", opts->train.epochs, "Train until this many epochs (default: the config's)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--distributed", opts->distributed,
                "Be one rank of a data-parallel run: rank and world from RANK/WORLD_SIZE/"
                "MASTER_ADDR/MASTER_PORT/LOCAL_RANK (torchrun) or SLURM_PROCID/SLURM_NTASKS (srun); "
                "training.batch_size is the global batch");
  cmd->add_option("--timeout", opts->train.distributed_timeout_seconds,
                  "With --distributed: seconds a rank waits for the others to join and in each "
                  "collective before it fails")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->final_callback(
      [opts, &global, &action] { action = [opts, &global] { return run_train(global, *opts); }; });
}

}  // namespace clgen::cli
