// Loading, validating and hashing the language model's configuration.
#include "model/config.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/config.h"
#include "support/sha256.h"

namespace clgen::model {

namespace {

// Every key a model config may set; the [sampler], [directed] and [check]
// tables are `clgen sample`'s, which checks them itself.
const std::vector<std::string>& model_config_keys() {
  static const std::vector<std::string> keys = {"vocabulary.type",
                                                "vocabulary.algorithm",
                                                "vocabulary.size",
                                                "model.embedding_size",
                                                "model.hidden_size",
                                                "model.layers",
                                                "model.dropout",
                                                "model.type",
                                                "model.width",
                                                "model.heads",
                                                "model.context",
                                                "model.tied_embeddings",
                                                "training.weight_decay",
                                                "training.warmup_steps",
                                                "training.patience",
                                                "training.epochs",
                                                "training.batch_size",
                                                "training.sequence_length",
                                                "training.optimizer",
                                                "training.learning_rate",
                                                "training.momentum",
                                                "training.lr_schedule",
                                                "training.halve_every",
                                                "training.decay_percent",
                                                "training.gradient_clip",
                                                "training.seed",
                                                "training.validation_fraction",
                                                "training.max_tokens",
                                                "training.max_file_chars",
                                                "training.max_kernels_per_repository",
                                                "training.capped_domain_words",
                                                "training.max_kernels_in_capped_domains",
                                                "training.max_repository_chars",
                                                "training.max_repository_share",
                                                "training.default_corpus",
                                                "training.host_code",
                                                "training.validation_split",
                                                "training.validation_repositories",
                                                "training.opencl20",
                                                "training.feature_prefix",
                                                "training.checkpoint_every_batches",
                                                "training.checkpoint_every_seconds",
                                                "preview.samples",
                                                "preview.max_tokens",
                                                "preview.temperature"};
  return keys;
}

Status bad(const Config& c, const std::string& key, const std::string& what) {
  return invalid_argument(fmt::format("{}: {}: {}", c.origin(), key, what));
}

// An int key of 1..1e9, or the field's default when absent.
Status read_positive(const Config& c, const std::string& key, int& field) {
  ASSIGN_OR_RETURN(int64_t v, c.get_int(key, field));
  if (v < 1 || v > 1000000000) return bad(c, key, "expected a positive integer");
  field = int(v);
  return ok_status();
}

Status read_vocabulary(const Config& c, VocabularyConfig& v) {
  ASSIGN_OR_RETURN(v.type, c.get_string("vocabulary.type", v.type));
  ASSIGN_OR_RETURN(v.algorithm, c.get_string("vocabulary.algorithm", v.algorithm));
  ASSIGN_OR_RETURN(int64_t vsize, c.get_int("vocabulary.size", v.size));
  v.size = int(vsize);
  if (v.type != "char" && v.type != "sentencepiece")
    return bad(c, "vocabulary.type", "expected \"char\" or \"sentencepiece\"");
  if (v.algorithm != "unigram" && v.algorithm != "bpe")
    return bad(c, "vocabulary.algorithm", "expected \"unigram\" or \"bpe\"");
  if (vsize < 8 || vsize > 1000000) return bad(c, "vocabulary.size", "expected 8..1000000");
  return ok_status();
}

Status read_network(const Config& c, NetworkConfig& n) {
  RETURN_IF_ERROR(read_positive(c, "model.embedding_size", n.embedding_size));
  RETURN_IF_ERROR(read_positive(c, "model.hidden_size", n.hidden_size));
  RETURN_IF_ERROR(read_positive(c, "model.layers", n.layers));
  ASSIGN_OR_RETURN(n.dropout, c.get_double("model.dropout", n.dropout));
  if (!(n.dropout >= 0 && n.dropout < 1)) return bad(c, "model.dropout", "expected 0 <= dropout < 1");
  ASSIGN_OR_RETURN(n.type, c.get_string("model.type", n.type));
  if (n.type != "lstm" && n.type != "transformer") return bad(c, "model.type", "expected \"lstm\" or \"transformer\"");
  RETURN_IF_ERROR(read_positive(c, "model.width", n.width));
  RETURN_IF_ERROR(read_positive(c, "model.heads", n.heads));
  RETURN_IF_ERROR(read_positive(c, "model.context", n.context));
  ASSIGN_OR_RETURN(n.tied_embeddings, c.get_bool("model.tied_embeddings", n.tied_embeddings));
  if (n.width % n.heads != 0) return bad(c, "model.heads", "expected a divisor of model.width");
  if (n.context < 4) return bad(c, "model.context", "expected at least 4 tokens");
  return ok_status();
}

// [training]: the optimizer, its schedule, early stopping, the seed and the validation share.
Status read_optimization(const Config& c, TrainingConfig& t) {
  RETURN_IF_ERROR(read_positive(c, "training.epochs", t.epochs));
  RETURN_IF_ERROR(read_positive(c, "training.batch_size", t.batch_size));
  RETURN_IF_ERROR(read_positive(c, "training.sequence_length", t.sequence_length));
  RETURN_IF_ERROR(read_positive(c, "training.halve_every", t.halve_every));
  ASSIGN_OR_RETURN(t.optimizer, c.get_string("training.optimizer", t.optimizer));
  if (t.optimizer != "adam" && t.optimizer != "adamw" && t.optimizer != "sgd")
    return bad(c, "training.optimizer", "expected \"adam\", \"adamw\" or \"sgd\"");
  ASSIGN_OR_RETURN(t.learning_rate, c.get_double("training.learning_rate", t.learning_rate));
  if (!(t.learning_rate > 0)) return bad(c, "training.learning_rate", "expected a positive number");
  ASSIGN_OR_RETURN(t.momentum, c.get_double("training.momentum", t.momentum));
  if (!(t.momentum >= 0 && t.momentum < 1)) return bad(c, "training.momentum", "expected 0 <= momentum < 1");
  ASSIGN_OR_RETURN(t.lr_schedule, c.get_string("training.lr_schedule", t.lr_schedule));
  if (t.lr_schedule != "halve" && t.lr_schedule != "decay" && t.lr_schedule != "constant" && t.lr_schedule != "cosine")
    return bad(c, "training.lr_schedule", "expected \"halve\", \"decay\", \"constant\" or \"cosine\"");
  ASSIGN_OR_RETURN(t.warmup_steps, c.get_int("training.warmup_steps", t.warmup_steps));
  if (t.warmup_steps < 0) return bad(c, "training.warmup_steps", "expected >= 0");
  ASSIGN_OR_RETURN(t.weight_decay, c.get_double("training.weight_decay", t.weight_decay));
  if (!(t.weight_decay >= 0 && t.weight_decay < 1)) return bad(c, "training.weight_decay", "expected 0 <= decay < 1");
  if (t.weight_decay > 0 && t.optimizer != "adamw")
    return bad(c, "training.weight_decay", "applies to training.optimizer = \"adamw\" only");
  ASSIGN_OR_RETURN(int64_t patience, c.get_int("training.patience", t.patience));
  if (patience < 0 || patience > 1000000) return bad(c, "training.patience", "expected >= 0 (0 = off)");
  t.patience = int(patience);
  ASSIGN_OR_RETURN(t.decay_percent, c.get_double("training.decay_percent", t.decay_percent));
  if (!(t.decay_percent >= 0 && t.decay_percent < 100)) return bad(c, "training.decay_percent", "expected 0..100");
  ASSIGN_OR_RETURN(t.gradient_clip, c.get_double("training.gradient_clip", t.gradient_clip));
  if (!(t.gradient_clip >= 0)) return bad(c, "training.gradient_clip", "expected >= 0");
  ASSIGN_OR_RETURN(int64_t seed, c.get_int("training.seed", int64_t(t.seed)));
  if (seed < 0) return bad(c, "training.seed", "expected >= 0");
  t.seed = uint64_t(seed);
  ASSIGN_OR_RETURN(t.validation_fraction, c.get_double("training.validation_fraction", t.validation_fraction));
  if (!(t.validation_fraction >= 0 && t.validation_fraction < 1))
    return bad(c, "training.validation_fraction", "expected 0 <= fraction < 1");
  return ok_status();
}

// [training]: which kernels are read, and the mid-epoch checkpoints.
Status read_selection(const Config& c, TrainingConfig& t) {
  ASSIGN_OR_RETURN(t.max_tokens, c.get_int("training.max_tokens", t.max_tokens));
  if (t.max_tokens < 0) return bad(c, "training.max_tokens", "expected >= 0 (0 = all)");
  ASSIGN_OR_RETURN(t.max_file_chars, c.get_int("training.max_file_chars", t.max_file_chars));
  if (t.max_file_chars < 0) return bad(c, "training.max_file_chars", "expected >= 0 (0 = all)");
  ASSIGN_OR_RETURN(t.max_kernels_per_repository,
                   c.get_int("training.max_kernels_per_repository", t.max_kernels_per_repository));
  if (t.max_kernels_per_repository < 0)
    return bad(c, "training.max_kernels_per_repository", "expected >= 0 (0 = no cap)");
  ASSIGN_OR_RETURN(t.capped_domain_words, c.get_string_list("training.capped_domain_words", t.capped_domain_words));
  for (const std::string& w : t.capped_domain_words)
    if (w.empty()) return bad(c, "training.capped_domain_words", "expected non-empty words");
  ASSIGN_OR_RETURN(t.max_kernels_in_capped_domains,
                   c.get_int("training.max_kernels_in_capped_domains", t.max_kernels_in_capped_domains));
  if (t.max_kernels_in_capped_domains < 0)
    return bad(c, "training.max_kernels_in_capped_domains", "expected >= 0 (0 = no cap)");
  if (t.capped_domain_words.empty() != (t.max_kernels_in_capped_domains == 0))
    return bad(c, "training.max_kernels_in_capped_domains",
               "set it together with training.capped_domain_words (a cap needs words, and words need a cap)");
  ASSIGN_OR_RETURN(t.max_repository_chars, c.get_int("training.max_repository_chars", t.max_repository_chars));
  if (t.max_repository_chars < 0) return bad(c, "training.max_repository_chars", "expected >= 0 (0 = no cap)");
  ASSIGN_OR_RETURN(t.max_repository_share, c.get_double("training.max_repository_share", t.max_repository_share));
  if (!(t.max_repository_share >= 0 && t.max_repository_share < 1))
    return bad(c, "training.max_repository_share", "expected 0 <= share < 1 (0 = no cap)");
  ASSIGN_OR_RETURN(t.default_corpus, c.get_bool("training.default_corpus", t.default_corpus));
  ASSIGN_OR_RETURN(t.host_code, c.get_bool("training.host_code", t.host_code));
  ASSIGN_OR_RETURN(t.validation_split, c.get_string("training.validation_split", t.validation_split));
  if (t.validation_split != "kernel" && t.validation_split != "repository")
    return bad(c, "training.validation_split", "expected \"kernel\" or \"repository\"");
  ASSIGN_OR_RETURN(t.validation_repositories,
                   c.get_string_list("training.validation_repositories", t.validation_repositories));
  if (!t.validation_repositories.empty() && t.validation_split != "repository")
    return bad(c, "training.validation_repositories", "needs training.validation_split = \"repository\"");
  ASSIGN_OR_RETURN(t.opencl20, c.get_bool("training.opencl20", t.opencl20));
  ASSIGN_OR_RETURN(t.feature_prefix, c.get_bool("training.feature_prefix", t.feature_prefix));
  ASSIGN_OR_RETURN(t.checkpoint_every_batches,
                   c.get_int("training.checkpoint_every_batches", t.checkpoint_every_batches));
  if (t.checkpoint_every_batches < 0)
    return bad(c, "training.checkpoint_every_batches", "expected >= 0 (0 = only at epoch ends)");
  ASSIGN_OR_RETURN(t.checkpoint_every_seconds,
                   c.get_double("training.checkpoint_every_seconds", t.checkpoint_every_seconds));
  if (!(t.checkpoint_every_seconds >= 0 && t.checkpoint_every_seconds <= 1e9))
    return bad(c, "training.checkpoint_every_seconds", "expected 0..1e9 seconds (0 = never)");
  return ok_status();
}

Status read_preview(const Config& c, PreviewConfig& p) {
  ASSIGN_OR_RETURN(int64_t samples, c.get_int("preview.samples", p.samples));
  if (samples < 0 || samples > 1000) return bad(c, "preview.samples", "expected 0..1000");
  p.samples = int(samples);
  RETURN_IF_ERROR(read_positive(c, "preview.max_tokens", p.max_tokens));
  ASSIGN_OR_RETURN(p.temperature, c.get_double("preview.temperature", p.temperature));
  if (!(p.temperature > 0)) return bad(c, "preview.temperature", "expected a positive number");
  return ok_status();
}

Expected<ModelConfig> from_config(const Config& c) {
  RETURN_IF_ERROR(c.check_known_keys(model_config_keys(), {"sampler", "directed", "check"}));
  ModelConfig m;
  RETURN_IF_ERROR(read_vocabulary(c, m.vocabulary));
  RETURN_IF_ERROR(read_network(c, m.network));
  RETURN_IF_ERROR(read_optimization(c, m.training));
  RETURN_IF_ERROR(read_selection(c, m.training));
  RETURN_IF_ERROR(read_preview(c, m.preview));
  return m;
}

}  // namespace

Expected<ModelConfig> load_model_config(const std::string& path) {
  ASSIGN_OR_RETURN(Config c, Config::load_file(path));
  return from_config(c);
}

Expected<ModelConfig> parse_model_config(const std::string& toml_text, const std::string& origin) {
  ASSIGN_OR_RETURN(Config c, Config::parse(toml_text, origin));
  return from_config(c);
}

double learning_rate_at(const TrainingConfig& t, int epoch) {
  if (t.lr_schedule == "halve") return t.learning_rate * std::pow(0.5, epoch / t.halve_every);
  if (t.lr_schedule == "decay") return t.learning_rate * std::pow(1 - t.decay_percent / 100, epoch);
  return t.learning_rate;
}

double learning_rate_at_step(const TrainingConfig& t, int epoch, int64_t step, int64_t total_steps) {
  if (t.lr_schedule != "cosine") return learning_rate_at(t, epoch);
  if (step < t.warmup_steps) return t.learning_rate * double(step + 1) / double(t.warmup_steps);
  const double span = double(std::max<int64_t>(1, total_steps - t.warmup_steps));
  const double progress = std::min(1.0, double(step - t.warmup_steps) / span);
  const double floor = 0.1 * t.learning_rate;
  return floor + (t.learning_rate - floor) * 0.5 * (1 + std::cos(M_PI * progress));
}

std::string canonical_config(const ModelConfig& m) {
  const auto& v = m.vocabulary;
  const auto& n = m.network;
  const auto& t = m.training;
  std::string vocab = v.type == "char" ? "char" : fmt::format("{}/{}/{}", v.type, v.algorithm, v.size);
  return fmt::format(
             "vocab={};emb={};hidden={};layers={};dropout={};batch={};seq={};opt={};lr={};"
             "momentum={};schedule={};halve_every={};decay={};clip={};seed={};valid={};max_tokens={}",
             vocab, n.embedding_size, n.hidden_size, n.layers, n.dropout, t.batch_size, t.sequence_length, t.optimizer,
             t.learning_rate, t.optimizer == "sgd" ? t.momentum : 0.0, t.lr_schedule, t.halve_every, t.decay_percent,
             t.gradient_clip, t.seed, t.validation_fraction, t.max_tokens) +
         // Appended only when set, so ids of models without it stay the same.
         (t.max_file_chars > 0 ? fmt::format(";max_file_chars={}", t.max_file_chars) : "") +
         (t.max_kernels_per_repository > 0 ? fmt::format(";max_per_repo={}", t.max_kernels_per_repository) : "") +
         (t.max_kernels_in_capped_domains > 0
              ? fmt::format(";capped_domains={}:{}", fmt::join(t.capped_domain_words, ","),
                            t.max_kernels_in_capped_domains)
              : "") +
         (t.max_repository_chars > 0 ? fmt::format(";max_repo_chars={}", t.max_repository_chars) : "") +
         (t.max_repository_share > 0 ? fmt::format(";max_repo_share={}", t.max_repository_share) : "") +
         (t.default_corpus ? "" : ";no_default_corpus") + (t.host_code ? "" : ";no_host_code") +
         (t.validation_split != "kernel" ? ";split=" + t.validation_split : "") +
         (t.validation_repositories.empty()
              ? ""
              : fmt::format(";valid_repos={}", fmt::join(t.validation_repositories, ","))) +
         (t.opencl20 ? "" : ";opencl12_only") + (t.feature_prefix ? ";feature_prefix" : "") +
         (t.lr_schedule == "cosine" ? fmt::format(";warmup={}", t.warmup_steps) : "") +
         (t.optimizer == "adamw" ? fmt::format(";weight_decay={}", t.weight_decay) : "") +
         (n.type == "transformer" ? fmt::format(";type=transformer;width={};heads={};context={};tied={}", n.width,
                                                n.heads, n.context, n.tied_embeddings)
                                  : "");
}

std::string corpus_hash(const std::vector<std::string>& texts) {
  Sha256 h;
  for (const auto& t : texts) {
    h.update(sha256_hex(t));
    h.update("\n");
  }
  return h.hex_digest();
}

std::string model_id(const ModelConfig& config, const std::string& corpus_sha256) {
  return sha256_hex(canonical_config(config) + "|" + corpus_sha256).substr(0, 16);
}

}  // namespace clgen::model
