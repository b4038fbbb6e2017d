// Targets and reports of directed sampling (`clgen sample --target-features`,
// --held-out-targets, --explore, --baseline).
#include "cli/cmd_sample_directed.h"

#include <cstdio>
#include <future>

#include <fmt/format.h>

#include "features/static_features.h"
#include "model/config.h"
#include "model/store.h"
#include "sampler/store.h"
#include "support/csv.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/thread_pool.h"

namespace clgen::cli {

namespace {

// The kernels of `texts` as targets labelled "<prefix>:<sha256 of the text, 12>:<kernel>";
// texts that do not compile are left out (features on recovered ASTs would mislead).
std::vector<sampler::Target> text_targets(const std::vector<std::string>& texts, const std::string& prefix) {
  ThreadPool pool;
  std::vector<std::future<std::vector<sampler::Target>>> parts;
  for (const std::string& text : texts) {
    parts.push_back(pool.submit([&text, &prefix] {
      std::vector<sampler::Target> out;
      std::string label = prefix + ":" + sha256_hex(text).substr(0, 12);
      auto rows = features::extract_static_features(text, label);
      if (!rows.ok()) return out;
      for (const auto& f : *rows) out.push_back({label + ":" + f.kernel, features::grewe_vector(f)});
      return out;
    }));
  }
  std::vector<sampler::Target> out;
  for (auto& p : parts)
    for (auto& t : p.get()) out.push_back(std::move(t));
  return out;
}

nlohmann::json side_json(const sampler::SteeringReport& r) {
  return {{"targets", r.targets},
          {"matched_exactly", r.matched},
          {"mean_normalized_distance", r.mean_distance ? nlohmann::json(*r.mean_distance) : nlohmann::json()},
          {"kernels", r.kernels},
          {"kernels_matching_a_target", r.exact_kernels}};
}

}  // namespace

Expected<std::vector<sampler::Target>> choose_targets(const DirectedFlags& flags, Database& db,
                                                      const std::string& config) {
  if (int(!flags.target_features.empty()) + int(flags.held_out) + int(flags.explore) > 1)
    return usage_error("--target-features, --held-out-targets and --explore exclude each other");
  if (!flags.target_features.empty()) return sampler::read_targets_csv(flags.target_features);
  if (flags.held_out) {
    if (config.empty()) return usage_error("--held-out-targets needs --config: its training holds them out");
    ASSIGN_OR_RETURN(model::ModelConfig c, model::load_model_config(config));
    ASSIGN_OR_RETURN(model::TrainingTexts set, model::read_training_set(db, c.training));
    if (set.held_out == 0)
      return invalid_argument(
          fmt::format("{} holds out no repositories (validation_split = \"repository\" does)", config));
    std::vector<std::string> held(set.texts.end() - std::ptrdiff_t(set.held_out), set.texts.end());
    std::vector<sampler::Target> targets = text_targets(held, "held-out");
    if (targets.empty()) return invalid_argument("no held-out kernel compiled for its features");
    return targets;
  }
  if (flags.explore) {
    RETURN_IF_ERROR(sampler::ensure_sampler_schema(db));
    ASSIGN_OR_RETURN(std::vector<std::string> corpus, sampler::training_texts(db));
    if (corpus.empty()) return not_found("--explore needs the workspace's preprocessed corpus");
    ASSIGN_OR_RETURN(std::vector<std::string> sampled, sampler::newest_accepted_texts(db, 2000));
    std::vector<sampler::GreweVector> near;
    for (const sampler::Target& t : text_targets(sampled, "sample")) near.push_back(t.features);
    std::vector<sampler::Target> targets =
        sampler::explore_targets(text_targets(corpus, "corpus"), near, flags.explore_count);
    if (targets.empty()) return invalid_argument("no corpus kernel compiled for its features");
    return targets;
  }
  return std::vector<sampler::Target>{};
}

nlohmann::json directed_json(const sampler::SampleSummary& sum) {
  const sampler::Director& d = *sum.director;
  nlohmann::json j = {{"directed", side_json(d.report(false))},
                      {"starts",
                       {{"prefixes_offered", d.prefixes_offered()},
                        {"replayed", sum.starts_replayed},
                        {"refused", sum.starts_refused},
                        {"forced_tokens", sum.forced_tokens}}},
                      {"kernels_without_features", sum.unfeatured},
                      {"graded", d.graded()},
                      {"near_share", d.options().near_share},
                      {"near_cuts", d.options().near_cuts},
                      {"awaiting_verdict", d.awaiting_verdict()}};
  if (d.has_baseline()) {
    j["baseline"] = side_json(d.report(true));
    j["baseline_split"] = d.baseline_split();
  }
  return j;
}

void print_directed(const sampler::SampleSummary& sum) {
  const sampler::Director& d = *sum.director;
  auto line = [](const char* side, const sampler::SteeringReport& r) {
    std::printf(
        "  %-10s %zu of %zu targets matched exactly; mean normalized distance %s (%llu kernels, %llu matching a "
        "target)\n",
        side, r.matched, r.targets, r.mean_distance ? fmt::format("{:.3f}", *r.mean_distance).c_str() : "-",
        (unsigned long long)r.kernels, (unsigned long long)r.exact_kernels);
  };
  std::printf("directed sampling (distance: mean over the Grewe features of |log(1+a) - log(1+b)|)%s:\n",
              d.graded() ? "; kernels count once the dynamic checker passed them (--graded-steering)" : "");
  line("directed", d.report(false));
  if (d.has_baseline()) {
    line("undirected", d.report(true));
    std::printf("  the undirected side had %s\n", std::string(d.baseline_split()) == "streams"
                                                      ? "the odd streams of the batch for the whole run"
                                                      : "every other time slice");
  }
  std::printf(
      "  streams continued from a kernel's prefix: %llu (%llu refused, started from the seed); %llu tokens "
      "replayed\n",
      (unsigned long long)sum.starts_replayed, (unsigned long long)sum.starts_refused,
      (unsigned long long)sum.forced_tokens);
  if (sum.unfeatured)
    std::printf("  accepted kernels without features (not counted): %llu\n", (unsigned long long)sum.unfeatured);
}

Status write_target_report(const sampler::SampleSummary& sum, const std::string& path) {
  const sampler::Director& d = *sum.director;
  // exact_sha256: every kept kernel that matches the target exactly
  // (';'-separated, the nearest first), for checks that ask whether some
  // exact match is benchmark-grade, not only the first.
  std::string csv = "target,target_values,side,distance,nearest_values,nearest_sha256,exact_sha256\n";
  for (int side = 0; side < (d.has_baseline() ? 2 : 1); ++side) {
    const sampler::NearestKernels& n = side ? d.baseline() : d.directed();
    for (size_t t = 0; t < d.targets().size(); ++t) {
      std::vector<std::string> row = {d.targets()[t].label, sampler::grewe_values(d.targets()[t].features),
                                      side ? "undirected" : "directed"};
      if (n.nearest(t).empty()) {
        row.insert(row.end(), {"", "", "", ""});
      } else {
        const auto& e = n.nearest(t).front();
        std::string exact;
        for (const auto& k : n.exact(t)) exact += (exact.empty() ? "" : ";") + sha256_hex(k->text);
        row.insert(row.end(), {fmt::format("{:.6f}", e.distance), sampler::grewe_values(e.kernel->features),
                               sha256_hex(e.kernel->text), exact});
      }
      csv += csv_row(row) + "\n";
    }
  }
  return write_file_atomic(path, csv);
}

}  // namespace clgen::cli
