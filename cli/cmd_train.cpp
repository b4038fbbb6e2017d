// `clgen train [--config FILE] [--device cpu|cuda|auto] [--epochs N]
// [--distributed [--timeout S]]`: trains the LSTM language model on the
// workspace's preprocessed corpus, resuming from the model's checkpoint, and
// prints a few samples at the end. With --distributed the process is one rank
// of a data-parallel run launched by torchrun or srun (docs/MODEL.md). The
// run is model::TrainJob (model/train_job.h); this file binds the flags and
// prints.
#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.h"
#include "model/train_job.h"
#include "sampler/train_tables.h"

namespace clgen::cli {

namespace {

// The selection's validation set and headerless kernels, before training starts.
void print_selection(const model::TrainingTexts& set, const model::ModelConfig& config) {
  if (set.held_out > 0)
    std::printf("validation: %zu kernels of %zu held-out repositories: %s\n", set.held_out,
                set.held_out_repositories.size(),
                fmt::format("{}", fmt::join(set.held_out_repositories, ", ")).c_str());
  if (config.training.feature_prefix)
    std::printf("training.feature_prefix: %zu of %zu kernels without features, trained on without a header\n",
                set.headerless, set.texts.size());
}

void print_result(const model::TrainJobResult& result) {
  const model::TrainResult& r = result.train;
  std::printf("model %s: %d epochs, %s vocabulary of %d tokens, %llu training tokens, device %s\n", r.model_id.c_str(),
              r.epochs_done, result.config.vocabulary.type.c_str(), r.vocab_size,
              static_cast<unsigned long long>(r.train_tokens), r.device.c_str());
  if (r.world_size > 1 || !r.backend.empty())
    std::printf("distributed: %d ranks over %s\n", r.world_size, r.backend.c_str());
  if (!r.epochs.empty()) {
    const auto& last = r.epochs.back();
    if (last.valid_loss)
      std::printf("epoch %d: train loss %.4f, validation loss %.4f, perplexity %.3f (%.1fs this run)\n", last.epoch,
                  last.train_loss, *last.valid_loss, std::exp(*last.valid_loss), r.seconds);
    else std::printf("epoch %d: train loss %.4f (%.1fs this run)\n", last.epoch, last.train_loss, r.seconds);
  } else {
    std::printf("already trained for %d epochs (use --epochs to train longer)\n", r.epochs_done);
  }
  if (r.best_valid_loss)
    std::printf("best: epoch %d, validation loss %.4f (%s/best.pt, what `clgen sample` uses)%s\n", r.best_epoch,
                *r.best_valid_loss, r.model_dir.c_str(), r.stopped_early ? "; stopped early (training.patience)" : "");
  std::printf("checkpoint: %s/checkpoint.pt\n", r.model_dir.c_str());
}

void print_preview(const model::Preview& p) {
  for (size_t s = 0; s < p.samples.size(); ++s)
    std::printf("---- sample %zu (temperature %.2f)%s\n%s%s\n", s + 1, p.temperature,
                p.samples[s].cut ? ", cut at max_tokens" : "", p.seed.c_str(), p.samples[s].text.c_str());
}

Status run_train(const GlobalOptions& global, model::TrainJobOptions options) {
  options.workspace = global.workspace;
  options.artifacts = std::make_shared<sampler::ConstraintTableSink>();
  options.on_selected = print_selection;
  ASSIGN_OR_RETURN(model::TrainJob job, model::TrainJob::create(std::move(options)));
  ASSIGN_OR_RETURN(model::TrainJobResult result, job.run());
  if (!result.reports()) return ok_status();
  print_result(result);
  ASSIGN_OR_RETURN(model::Preview preview, job.preview(result));
  print_preview(preview);
  return ok_status();
}

}  // namespace

void add_train_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<model::TrainJobOptions>();
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
  cmd->final_callback([opts, &global, &action] { action = [opts, &global] { return run_train(global, *opts); }; });
}

}  // namespace clgen::cli
