// Directed sampling's targets and target report.
#include "sampler/directed_targets.h"

#include <future>

#include <fmt/format.h>

#include "features/static_features.h"
#include "model/config.h"
#include "model/store.h"
#include "sampler/store.h"
#include "sampler/targets.h"
#include "support/csv.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/thread_pool.h"

namespace clgen::sampler {

namespace {

// The kernels of `texts` as targets labelled "<prefix>:<sha256 of the text, 12>:<kernel>";
// texts that do not compile are left out (features on recovered ASTs would mislead).
std::vector<Target> text_targets(const std::vector<std::string>& texts, const std::string& prefix) {
  ThreadPool pool;
  std::vector<std::future<std::vector<Target>>> parts;
  for (const std::string& text : texts) {
    parts.push_back(pool.submit([&text, &prefix] {
      std::vector<Target> out;
      std::string label = prefix + ":" + sha256_hex(text).substr(0, 12);
      auto rows = features::extract_static_features(text, label);
      if (!rows.ok()) return out;
      for (const auto& f : *rows) out.push_back({label + ":" + f.kernel, features::grewe_vector(f)});
      return out;
    }));
  }
  std::vector<Target> out;
  for (auto& p : parts)
    for (auto& t : p.get()) out.push_back(std::move(t));
  return out;
}

}  // namespace

std::string steering_name(const TargetSource& source) {
  if (!source.target_features.empty()) return "features";
  if (source.held_out) return "held-out";
  if (source.explore) return "explore";
  return "";
}

Expected<std::vector<Target>> choose_targets(const TargetSource& source, Database& db, const std::string& config) {
  if (int(!source.target_features.empty()) + int(source.held_out) + int(source.explore) > 1)
    return usage_error("--target-features, --held-out-targets and --explore exclude each other");
  if (!source.target_features.empty()) return read_targets_csv(source.target_features);
  if (source.held_out) {
    if (config.empty()) return usage_error("--held-out-targets needs --config: its training holds them out");
    ASSIGN_OR_RETURN(model::ModelConfig c, model::load_model_config(config));
    ASSIGN_OR_RETURN(model::TrainingTexts set, model::read_training_set(db, c.training));
    if (set.held_out == 0)
      return invalid_argument(
          fmt::format("{} holds out no repositories (validation_split = \"repository\" does)", config));
    std::vector<std::string> held(set.texts.end() - std::ptrdiff_t(set.held_out), set.texts.end());
    std::vector<Target> targets = text_targets(held, "held-out");
    if (targets.empty()) return invalid_argument("no held-out kernel compiled for its features");
    return targets;
  }
  if (source.explore) {
    RETURN_IF_ERROR(ensure_sampler_schema(db));
    ASSIGN_OR_RETURN(std::vector<std::string> corpus, training_texts(db));
    if (corpus.empty()) return not_found("--explore needs the workspace's preprocessed corpus");
    ASSIGN_OR_RETURN(std::vector<std::string> sampled, newest_accepted_texts(db, 2000));
    std::vector<GreweVector> near;
    for (const Target& t : text_targets(sampled, "sample")) near.push_back(t.features);
    std::vector<Target> targets = explore_targets(text_targets(corpus, "corpus"), near, source.explore_count);
    if (targets.empty()) return invalid_argument("no corpus kernel compiled for its features");
    return targets;
  }
  return std::vector<Target>{};
}

Status write_target_report(const SampleSummary& sum, const std::string& path) {
  const Director& d = *sum.director;
  // exact_sha256: every kept kernel that matches the target exactly
  // (';'-separated, the nearest first), for checks that ask whether some
  // exact match is benchmark-grade, not only the first.
  std::string csv = "target,target_values,side,distance,nearest_values,nearest_sha256,exact_sha256\n";
  for (int side = 0; side < (d.has_baseline() ? 2 : 1); ++side) {
    const NearestKernels& n = side ? d.baseline() : d.directed();
    for (size_t t = 0; t < d.targets().size(); ++t) {
      std::vector<std::string> row = {d.targets()[t].label, grewe_values(d.targets()[t].features),
                                      side ? "undirected" : "directed"};
      if (n.nearest(t).empty()) {
        row.insert(row.end(), {"", "", "", ""});
      } else {
        const auto& e = n.nearest(t).front();
        std::string exact;
        for (const auto& k : n.exact(t)) exact += (exact.empty() ? "" : ";") + sha256_hex(k->text);
        row.insert(row.end(), {fmt::format("{:.6f}", e.distance), grewe_values(e.kernel->features),
                               sha256_hex(e.kernel->text), exact});
      }
      csv += csv_row(row) + "\n";
    }
  }
  return write_file_atomic(path, csv);
}

}  // namespace clgen::sampler
