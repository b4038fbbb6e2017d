// The language model's configuration (configs/*.toml): vocabulary, network,
// training and the preview samples printed after training; and the model id,
// a hash of the configuration and the corpus.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/vocabulary.h"
#include "support/status.h"

namespace clgen::model {

// The defaults are the `tiny` settings (configs/tiny.toml; a test keeps them equal).
struct NetworkConfig {
  // "lstm" (the default: embedding_size, hidden_size) or "transformer" (a
  // decoder-only Transformer: width, heads, context, tied_embeddings).
  std::string type = "lstm";
  int embedding_size = 32;
  int hidden_size = 128;
  int layers = 2;
  // LSTM: between layers and before the output layer. Transformer: on the
  // embeddings, the attention weights and each block's residual branches. 0 = none.
  double dropout = 0.1;
  int width = 128;              // transformer: model dimension (heads * head dimension)
  int heads = 4;                // transformer: attention heads; divides width
  int context = 128;            // transformer: tokens of attention context (and of each training window)
  bool tied_embeddings = true;  // transformer: the output layer reuses the token embedding
};

struct TrainingConfig {
  int epochs = 12;
  int batch_size = 32;        // parallel streams of the batchified corpus
  int sequence_length = 64;   // truncated BPTT length
  std::string optimizer = "adam";  // "adam" | "adamw" | "sgd"
  double learning_rate = 0.003;
  double momentum = 0.9;           // sgd only
  // "halve" | "decay" | "constant" (per epoch), or "cosine": per step, a
  // linear warm-up over warmup_steps, then a cosine from learning_rate down
  // to a tenth of it at the last step of the last epoch.
  std::string lr_schedule = "decay";
  int halve_every = 5;             // halve: epochs between halvings
  double decay_percent = 10.0;     // decay: percent lost per epoch
  int64_t warmup_steps = 0;        // cosine: steps of linear warm-up
  // adamw: decoupled weight decay of the matrices (not of biases, layer
  // norms or embeddings); 0 = none.
  double weight_decay = 0.0;
  double gradient_clip = 5.0;      // max global gradient norm; 0 = no clipping
  // Early stopping: end training after this many validation evaluations
  // (one per epoch) without a new best validation loss; 0 = off. Like
  // epochs, not part of the model id (it decides when to stop, not the weights).
  int patience = 0;
  uint64_t seed = 1;               // data order, initialisation and dropout
  double validation_fraction = 0.1;  // share of kernels held out for validation
  // Tokens of each of the train and validation streams used per epoch (the
  // first ones of the shuffled corpus), so a small config trains in bounded
  // time on a large corpus; 0 = all.
  int64_t max_tokens = 400000;
  // Train only on normalized files of at most this many bytes; 0 = all. Small
  // models learn short, self-contained kernels — what the sampler asks for —
  // better without the long generated files of test suites.
  int64_t max_file_chars = 5000;
  // Balance: at most this many kernels from one repository (the ones with the
  // lowest hash of their normalized text, so the pick does not depend on import
  // order); 0 = no cap. See docs/MODEL.md for the choice on the GitHub corpus.
  int64_t max_kernels_per_repository = 0;
  // Balance by domain: the kernels of every repository whose domain (from the
  // snapshot manifest) contains one of these words, case-insensitively, form
  // one pool of which at most max_kernels_in_capped_domains are kept (the
  // lowest hashes, after the per-repository cap). Meant for the compiler and
  // driver test suites, whose many tiny kernels would otherwise be most of
  // what the model reads (docs/MODEL.md). Empty / 0 = no such cap.
  std::vector<std::string> capped_domain_words;
  int64_t max_kernels_in_capped_domains = 0;
  // Balance by characters: at most this many characters of one repository's
  // kernels (its kernels of lowest sha256 while their running total stays
  // within the cap, after the count cap); 0 = no cap.
  int64_t max_repository_chars = 0;
  // At most this share of the selected characters (training and validation
  // together) from one repository: after the other caps, every repository is
  // cut to one character cap C (its kernels of lowest sha256 within C), C
  // lowered to share x the total kept until no repository is above it.
  // 0 = no cap; otherwise 0 < share < 1.
  double max_repository_share = 0;
  // false: leave out the default corpus (`clgen corpus add --installed`:
  // repositories whose source key starts with "package:").
  bool default_corpus = true;
  // false: leave out kernels recovered from host code, those every file of
  // which was read out of a host file's string literal (content_origins.role
  // 'host').
  bool host_code = true;
  // "kernel": validation_fraction of the kernels, picked at random, validate.
  // "repository": whole repositories are held out until their kernels reach
  // validation_fraction of the corpus, so the validation loss measures kernels
  // of projects the model never saw (and the held-out repositories stay unseen).
  std::string validation_split = "kernel";
  // With validation_split = "repository": hold out exactly these repositories
  // (as the store names them, e.g. "snapshot:owner/name", or "owner/name"),
  // those of them the corpus has, instead of the seed's pick; so models trained
  // on different corpora (snapshot v1 and v2) validate on the same projects.
  std::vector<std::string> validation_repositories;
  // false: leave out the kernels that compile only as OpenCL C 2.0 (the
  // preprocessor's fallback, `preprocessed.language`), whose constructs the
  // sampler's OpenCL C 1.2 filter rejects.
  bool opencl20 = true;
  // Feature-conditioned training (docs/MODEL.md): every training and
  // validation text starts with a line stating its kernel's Grewe features
  // (model/feature_prefix.h), so that `clgen sample` can ask for features by
  // starting a stream after such a line.
  bool feature_prefix = false;
  // Mid-epoch checkpoints (besides the one at every epoch end), so a killed
  // run loses at most this much work: after every this many batches of an
  // epoch (0 = never), and after this many seconds since the last checkpoint
  // (0 = never). Neither changes the trained weights or the model id.
  int64_t checkpoint_every_batches = 0;
  double checkpoint_every_seconds = 0;
};

struct PreviewConfig {
  int samples = 3;           // kernels printed after training; 0 = none
  int max_tokens = 300;
  double temperature = 0.8;
};

struct ModelConfig {
  VocabularyConfig vocabulary;
  NetworkConfig network;
  TrainingConfig training;
  PreviewConfig preview;
};

// Parses and validates a TOML config; every error names the file and key.
// Absent keys keep the defaults above; unknown keys are errors.
Expected<ModelConfig> load_model_config(const std::string& path);
Expected<ModelConfig> parse_model_config(const std::string& toml_text, const std::string& origin);

// The learning rate of 0-based `epoch` under the config's schedule.
double learning_rate_at(const TrainingConfig& training, int epoch);
// The learning rate of 0-based optimizer step `step` of a run of
// `total_steps`: the cosine schedule's, else learning_rate_at(epoch).
double learning_rate_at_step(const TrainingConfig& training, int epoch, int64_t step, int64_t total_steps);

// A canonical text of everything that shapes the trained weights but the
// number of epochs (so `--epochs` can extend a run) and the preview.
std::string canonical_config(const ModelConfig& config);

// Digest of the corpus texts in order.
std::string corpus_hash(const std::vector<std::string>& texts);

// 16 hex characters: hash of canonical_config and the corpus hash.
std::string model_id(const ModelConfig& config, const std::string& corpus_sha256);

}  // namespace clgen::model
