// A whole `clgen train` run as one library call: from the options it loads
// the config, joins the distributed world when asked, selects the training
// text from the workspace's corpus (logging what the caps left out), trains
// (model/trainer.h), and hands the selected texts to the layers above for
// the constraint tables (model/train_artifacts.h). The CLI binds its flags
// and the --config file to TrainJobOptions, prints the TrainJobResult, and
// asks for the preview.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "model/config.h"
#include "model/store.h"
#include "model/train_artifacts.h"
#include "model/train_preview.h"
#include "model/trainer.h"
#include "support/status.h"

namespace clgen::model {

struct TrainJobOptions {
  std::string workspace;     // the workspace root
  std::string config;        // TOML file; "" = model/config.h defaults (= configs/tiny.toml)
  bool distributed = false;  // one rank of a torchrun/srun world (rank from the environment)
  // The trainer's options: device, epochs (0 = the config's training.epochs,
  // the flag over the config) and distributed_timeout_seconds as given; the
  // job sets distributed, held_out, config_text and progress.
  TrainOptions train;
  // Keeps the constraint tables of the selected texts; null = none kept.
  std::shared_ptr<TrainArtifactSink> artifacts;
  // Called once the training text is selected, before training starts.
  std::function<void(const TrainingTexts& set, const ModelConfig& config)> on_selected;
};

struct TrainJobResult {
  ModelConfig config;  // the config the run trained with
  TrainResult train;
  // Rank 0 reports the run; other ranks of a distributed run stay quiet.
  bool reports() const { return train.rank == 0; }
};

class TrainJob {
 public:
  // Checks the options without reading any file or the workspace (a device
  // that is not cpu, cuda or auto; a malformed CLGEN_TEST_SIGKILL_AFTER_BATCHES,
  // the kill tests' hook of docs/MODEL.md): a usage error naming it.
  static Expected<TrainJob> create(TrainJobOptions options);

  // Loads the config, selects the text, trains and keeps the constraint
  // tables (also when training was interrupted: the checkpoint is sampled
  // from as it is). An interrupted run is a kCancelled error saying where
  // its checkpoint is.
  Expected<TrainJobResult> run();

  // The kernels the trained model writes from "__kernel void A(", on the
  // job's device (model/train_preview.h).
  Expected<Preview> preview(const TrainJobResult& result) const;

  const TrainJobOptions& options() const { return options_; }

 private:
  TrainJob(TrainJobOptions options, uint64_t kill_after) : options_(std::move(options)), kill_after_(kill_after) {}
  TrainJobOptions options_;
  uint64_t kill_after_ = 0;  // the test hook's step count; 0 = off
};

}  // namespace clgen::model
