// Workgroup-size models: dataset loading, baseline and oracle, the three
// fallback handlers, regressors, and cross-validation.
#include "predict/wgsize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "predict/csv.h"
#include "predict/folds.h"
#include "support/interrupt.h"

namespace clgen::predict {

std::string wg_size_name(const WgSize& s) { return fmt::format("{}x{}", s.rows, s.cols); }

const char* fallback_name(Fallback f) {
  switch (f) {
    case Fallback::kBaseline: return "baseline";
    case Fallback::kRandom: return "random";
    case Fallback::kNearestNeighbour: return "nearest-neighbour";
  }
  return "?";
}

int WgDataset::oracle(size_t i) const {
  int best = -1;
  for (size_t s = 0; s < sizes.size(); ++s)
    if (legal(i, s) && (best < 0 || scenarios[i].runtimes[s] < scenarios[i].runtimes[best]))
      best = static_cast<int>(s);
  return best;
}

std::vector<std::string> WgDataset::feature_names() const {
  std::vector<std::string> n = {"dev_count", "north", "south", "east", "west",
                                "log_data_width", "log_data_height", "log_max_wg_size"};
  for (const auto& d : devices) n.push_back("device=" + d);
  for (const auto& k : kernels) n.push_back("kernel=" + k);
  for (const auto& k : kernel_feature_names) n.push_back(k);
  return n;
}

std::vector<float> WgDataset::features(size_t i) const {
  return scenario_features(scenarios[i], devices, kernels);
}

Expected<WgDataset> load_wgsize_csv(const std::string& path) {
  ASSIGN_OR_RETURN(CsvTable t, read_csv(path));
  const char* numeric[] = {"dev_count", "north", "south", "east", "west",
                           "data_width", "data_height", "max_wg_size"};
  std::vector<int> cols;
  for (const char* n : numeric) {
    ASSIGN_OR_RETURN(int c, t.require_column(n, path));
    cols.push_back(c);
  }
  ASSIGN_OR_RETURN(int c_dev, t.require_column("dev_name", path));
  ASSIGN_OR_RETURN(int c_kern, t.require_column("kern_checksum", path));
  WgDataset d;
  const int c_group = t.column("group"), c_origin = t.column("origin"), c_default = t.column("default_local_size");
  const int c_steering = t.column("steering");
  // Static kernel features: the six AST counts (all or none), then IR ones.
  std::vector<int> feature_cols;
  std::vector<bool> feature_log;
  static const char* kAst[] = {"comp", "rational", "mem", "localmem", "coalesced", "atomic"};
  size_t ast_present = 0;
  for (const char* n : kAst) ast_present += t.column(n) >= 0;
  if (ast_present != 0 && ast_present != 6)
    return invalid_argument(
        fmt::format("{}: has {} of the 6 static feature columns (comp rational mem "
                    "localmem coalesced atomic): all or none",
                    path, ast_present));
  if (ast_present == 6) {
    for (const char* n : kAst) {
      feature_cols.push_back(t.column(n));
      feature_log.push_back(true);
      d.kernel_feature_names.push_back(std::string("log_") + n);
    }
    for (size_t c = 0; c < t.header.size(); ++c) {
      const std::string& h = t.header[c];
      bool density = h.rfind("ir_", 0) == 0 && h.size() > 8 && h.compare(h.size() - 8, 8, "_density") == 0;
      if (h == "ir_total" || density) {
        feature_cols.push_back(static_cast<int>(c));
        feature_log.push_back(h == "ir_total");
        d.kernel_feature_names.push_back(h == "ir_total" ? "log_ir_total" : h);
      }
    }
  }
  std::vector<int> size_cols;
  for (size_t c = 0; c < t.header.size(); ++c) {
    int r = 0, k = 0;
    char tail = 0;
    if (std::sscanf(t.header[c].c_str(), "%dx%d%c", &r, &k, &tail) == 2 && r > 0 && k > 0) {
      d.sizes.push_back({r, k});
      size_cols.push_back(static_cast<int>(c));
    }
  }
  if (d.sizes.empty()) return invalid_argument(fmt::format("{}: no workgroup-size (RxC) columns", path));
  size_t dropped = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& f = t.rows[i];
    WgScenario s;
    s.device = f[c_dev];
    s.kernel = f[c_kern];
    double* targets[] = {&s.dev_count, &s.north, &s.south, &s.east, &s.west,
                         &s.data_width, &s.data_height, &s.max_wg_size};
    for (size_t k = 0; k < cols.size(); ++k) {
      ASSIGN_OR_RETURN(*targets[k], parse_number(f[cols[k]], fmt::format("{}: row {}: {}", path, i + 2, numeric[k])));
    }
    if (s.data_width <= 0 || s.data_height <= 0 || s.max_wg_size <= 0)
      return parse_error(fmt::format("{}: row {}: sizes must be positive", path, i + 2));
    bool any = false;
    for (size_t k = 0; k < size_cols.size(); ++k) {
      ASSIGN_OR_RETURN(double v, parse_number(f[size_cols[k]], fmt::format("{}: row {}: {}", path, i + 2,
                                                                            t.header[size_cols[k]])));
      if (v < 0) return parse_error(fmt::format("{}: row {}: negative runtime", path, i + 2));
      s.runtimes.push_back(v);
      any = any || v > 0;
    }
    if (!any) {
      ++dropped;
      continue;
    }
    if (c_group >= 0) s.group = f[c_group];
    if (c_origin >= 0) s.origin = f[c_origin];
    if (c_steering >= 0) s.steering = f[c_steering];
    if (c_default >= 0 && !f[c_default].empty()) {
      for (size_t k = 0; k < d.sizes.size(); ++k)
        if (wg_size_name(d.sizes[k]) == f[c_default]) s.default_size = static_cast<int>(k);
    }
    for (size_t k = 0; k < feature_cols.size(); ++k) {
      const std::string& field = f[feature_cols[k]];
      double v = 0;
      if (!field.empty()) {
        ASSIGN_OR_RETURN(v, parse_number(field, fmt::format("{}: row {}: {}", path, i + 2, t.header[feature_cols[k]])));
      }
      s.kernel_features.push_back(feature_log[k] ? std::log1p(std::max(0.0, v)) : v);
    }
    d.scenarios.push_back(std::move(s));
  }
  if (d.scenarios.empty())
    return invalid_argument(fmt::format("{}: no scenario with a legal workgroup size", path));
  for (const auto& s : d.scenarios) {
    d.devices.push_back(s.device);
    if (d.kernel_feature_names.empty()) d.kernels.push_back(s.kernel);
  }
  for (auto* v : {&d.devices, &d.kernels}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return d;
}

double wg_performance(const WgDataset& d, size_t i, size_t s) {
  if (!d.legal(i, s)) return 0;
  return d.scenarios[i].runtimes[d.oracle(i)] / d.scenarios[i].runtimes[s];
}

size_t wg_baseline(const WgDataset& d, const std::vector<size_t>& scenarios) {
  size_t best = 0;
  double best_perf = -1;
  for (size_t s = 0; s < d.sizes.size(); ++s) {
    double sum = 0;
    for (size_t i : scenarios) sum += wg_performance(d, i, s);
    if (sum > best_perf) {
      best_perf = sum;
      best = s;
    }
  }
  return best;
}

const std::vector<WgModelSpec>& wgsize_models() {
  static const std::vector<WgModelSpec> specs = [] {
    ModelParams forest;
    forest.algorithm = "rtrees";
    forest.max_depth = 0;
    forest.min_samples = 2;
    forest.trees = 50;
    ModelParams reg = forest;
    reg.task = Task::kRegression;
    ModelParams tree;
    tree.algorithm = "dtree";
    tree.max_depth = 0;
    tree.min_samples = 2;
    // Every feature at every split: with sqrt(features) most splits of a
    // regressor never see the size columns its choice depends on.
    ModelParams all_vars = reg;
    all_vars.active_vars = -1;
    return std::vector<WgModelSpec>{
        {"classifier-baseline", WgMethod::kClassifier, Fallback::kBaseline, forest},
        {"classifier-random", WgMethod::kClassifier, Fallback::kRandom, forest},
        {"classifier-nn", WgMethod::kClassifier, Fallback::kNearestNeighbour, forest},
        {"tree-nn", WgMethod::kClassifier, Fallback::kNearestNeighbour, tree},
        {"runtime-regressor", WgMethod::kRuntimeRegressor, Fallback::kNearestNeighbour, reg},
        {"speedup-regressor", WgMethod::kSpeedupRegressor, Fallback::kNearestNeighbour, reg},
        {"oracle-regressor", WgMethod::kOracleRegressor, Fallback::kNearestNeighbour, reg},
        {"best", WgMethod::kOracleRegressor, Fallback::kNearestNeighbour, all_vars, true},
    };
  }();
  return specs;
}

Expected<WgModelSpec> find_wgsize_model(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& m : wgsize_models()) {
    if (m.name == name) return m;
    names.push_back(m.name);
  }
  return invalid_argument(fmt::format("unknown wgsize model '{}' (known: {})", name, fmt::join(names, ", ")));
}

namespace {

// The legal size nearest to `target` in (rows, cols); ties go to the lower index.
int nearest_legal(const WgDataset& d, size_t i, size_t target) {
  int best = -1;
  double best_dist = std::numeric_limits<double>::infinity();
  for (size_t s = 0; s < d.sizes.size(); ++s) {
    if (!d.legal(i, s)) continue;
    double dr = d.sizes[s].rows - d.sizes[target].rows, dc = d.sizes[s].cols - d.sizes[target].cols;
    double dist = dr * dr + dc * dc;
    if (dist < best_dist) {
      best_dist = dist;
      best = static_cast<int>(s);
    }
  }
  return best;
}

// A regressor's row: the scenario's features and the size's rows and cols;
// with `log_sizes`, also log2 of rows, cols and work-items, and log2 of the
// work-items over the scenario's maximum workgroup size (how close the size
// is to the limit: one feature that a tree can split on where rows x cols
// needs many splits).
std::vector<float> with_size(std::vector<float> f, const WgSize& s, bool log_sizes) {
  const float max_wg_log2 = f[7];  // scenario_features(): log2 of the max workgroup size
  f.push_back(static_cast<float>(s.rows));
  f.push_back(static_cast<float>(s.cols));
  if (log_sizes) {
    const float items = std::log2(static_cast<float>(s.rows) * static_cast<float>(s.cols));
    f.push_back(std::log2(static_cast<float>(s.rows)));
    f.push_back(std::log2(static_cast<float>(s.cols)));
    f.push_back(items);
    f.push_back(items - max_wg_log2);
  }
  return f;
}

}  // namespace

std::vector<float> scenario_features(const WgScenario& s, const std::vector<std::string>& devices,
                                     const std::vector<std::string>& kernels) {
  std::vector<float> f = {float(s.dev_count), float(s.north), float(s.south), float(s.east),
                          float(s.west), float(std::log2(s.data_width)),
                          float(std::log2(s.data_height)), float(std::log2(s.max_wg_size))};
  for (const auto& d : devices) f.push_back(d == s.device ? 1.0f : 0.0f);
  for (const auto& k : kernels) f.push_back(k == s.kernel ? 1.0f : 0.0f);
  for (double v : s.kernel_features) f.push_back(static_cast<float>(v));
  return f;
}

Expected<WgsizeModel> WgsizeModel::train(const WgModelSpec& spec, const WgDataset& d,
                                         const std::vector<size_t>& scenarios) {
  if (scenarios.empty()) return invalid_argument("training a wgsize model: no scenarios");
  WgsizeModel m;
  m.spec_ = spec;
  m.devices_ = d.devices;
  m.kernels_ = d.kernels;
  m.kernel_features_ = d.kernel_feature_names;
  m.sizes_ = d.sizes;
  // The baseline a deployed model knows: the best fixed size on its training data.
  m.baseline_ = wg_baseline(d, scenarios);
  ASSIGN_OR_RETURN(auto model, Model::create(spec.params));
  Matrix x;
  std::vector<double> y;
  if (spec.method == WgMethod::kClassifier) {
    for (size_t i : scenarios) {
      x.add_row(d.features(i));
      y.push_back(d.oracle(i));
    }
  } else {
    // Regressors: one training row per (scenario, legal size).
    for (size_t i : scenarios) {
      auto f = d.features(i);
      int ref = d.legal(i, m.baseline_) ? static_cast<int>(m.baseline_) : nearest_legal(d, i, m.baseline_);
      for (size_t s = 0; s < d.sizes.size(); ++s) {
        if (!d.legal(i, s)) continue;
        x.add_row(with_size(f, d.sizes[s], spec.log_sizes));
        double rt = d.scenarios[i].runtimes[s];
        if (spec.method == WgMethod::kRuntimeRegressor) y.push_back(std::log(rt));
        else if (spec.method == WgMethod::kSpeedupRegressor) y.push_back(d.scenarios[i].runtimes[ref] / rt);
        else y.push_back(wg_performance(d, i, s));
      }
    }
  }
  RETURN_IF_ERROR_CTX(model->train(x, y), "training wgsize model " + spec.name);
  m.model_ = std::move(model);
  return m;
}

Expected<std::vector<int>> WgsizeModel::choose(const WgDataset& d, const std::vector<size_t>& scenarios,
                                               uint64_t seed, size_t* illegal) const {
  if (d.sizes.size() != sizes_.size())
    return invalid_argument(fmt::format("wgsize model knows {} sizes, the data has {}", sizes_.size(),
                                        d.sizes.size()));
  for (size_t s = 0; s < sizes_.size(); ++s)
    if (d.sizes[s].rows != sizes_[s].rows || d.sizes[s].cols != sizes_[s].cols)
      return invalid_argument(fmt::format("wgsize model: size column {} is {}, the model has {}", s,
                                          wg_size_name(d.sizes[s]), wg_size_name(sizes_[s])));
  if (d.kernel_feature_names != kernel_features_)
    return invalid_argument(fmt::format("wgsize model uses {} kernel feature columns, the data has {} (or other ones)",
                                        kernel_features_.size(), d.kernel_feature_names.size()));
  std::mt19937_64 rng(seed);
  std::vector<int> chosen;
  size_t n_illegal = 0;
  if (spec_.method == WgMethod::kClassifier) {
    Matrix tx;
    for (size_t i : scenarios) tx.add_row(scenario_features(d.scenarios[i], devices_, kernels_));
    ASSIGN_OR_RETURN(auto pred, model_->predict(tx));
    for (size_t j = 0; j < scenarios.size(); ++j) {
      size_t i = scenarios[j];
      int s = static_cast<int>(pred[j]);
      if (s >= 0 && s < static_cast<int>(d.sizes.size()) && d.legal(i, s)) {
        chosen.push_back(s);
        continue;
      }
      ++n_illegal;
      if (s < 0 || s >= static_cast<int>(d.sizes.size())) s = static_cast<int>(baseline_);
      switch (spec_.fallback) {
        case Fallback::kBaseline:
          chosen.push_back(d.legal(i, baseline_) ? static_cast<int>(baseline_) : nearest_legal(d, i, baseline_));
          break;
        case Fallback::kRandom: {
          std::vector<int> legal;
          for (size_t k = 0; k < d.sizes.size(); ++k)
            if (d.legal(i, k)) legal.push_back(static_cast<int>(k));
          chosen.push_back(legal[rng() % legal.size()]);
          break;
        }
        case Fallback::kNearestNeighbour:
          chosen.push_back(nearest_legal(d, i, s));
          break;
      }
    }
  } else {
    for (size_t i : scenarios) {
      Matrix tx;
      std::vector<int> cand;
      auto f = scenario_features(d.scenarios[i], devices_, kernels_);
      for (size_t s = 0; s < d.sizes.size(); ++s) {
        if (!d.legal(i, s)) continue;
        tx.add_row(with_size(f, d.sizes[s], spec_.log_sizes));
        cand.push_back(static_cast<int>(s));
      }
      ASSIGN_OR_RETURN(auto pred, model_->predict(tx));
      size_t best = 0;
      for (size_t k = 1; k < pred.size(); ++k) {
        bool better = spec_.method == WgMethod::kRuntimeRegressor ? pred[k] < pred[best] : pred[k] > pred[best];
        if (better) best = k;
      }
      chosen.push_back(cand[best]);
    }
  }
  if (illegal) *illegal = n_illegal;
  return chosen;
}

Status WgsizeModel::save(const std::string& path) const {
  // The learner's file carries what the features need in its tag.
  nlohmann::json tag = {{"task", "wgsize"},    {"model", spec_.name},   {"devices", devices_},
                        {"kernels", kernels_}, {"baseline", baseline_}, {"kernel_features", kernel_features_}};
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& s : sizes_) sizes.push_back(wg_size_name(s));
  tag["sizes"] = sizes;
  return model_->save_with_tag(path, "wgsize:" + tag.dump());
}

Expected<WgsizeModel> WgsizeModel::load(const std::string& path) {
  ASSIGN_OR_RETURN(auto model, Model::load(path));
  const std::string& tag = model->params().tag;
  if (tag.rfind("wgsize:", 0) != 0)
    return invalid_argument(fmt::format("loading {}: not a wgsize model", path));
  WgsizeModel m;
  try {
    auto j = nlohmann::json::parse(tag.substr(7));
    ASSIGN_OR_RETURN(m.spec_, find_wgsize_model(j.at("model").get<std::string>()));
    m.devices_ = j.at("devices").get<std::vector<std::string>>();
    m.kernels_ = j.at("kernels").get<std::vector<std::string>>();
    m.baseline_ = j.at("baseline").get<size_t>();
    if (j.contains("kernel_features"))  // absent in files written before kernel features
      m.kernel_features_ = j.at("kernel_features").get<std::vector<std::string>>();
    for (const auto& name : j.at("sizes")) {
      WgSize s;
      if (std::sscanf(name.get<std::string>().c_str(), "%dx%d", &s.rows, &s.cols) != 2)
        return parse_error(fmt::format("loading {}: bad size '{}'", path, name.get<std::string>()));
      m.sizes_.push_back(s);
    }
  } catch (const nlohmann::json::exception& e) {
    return parse_error(fmt::format("loading {}: {}", path, e.what()));
  }
  if (m.baseline_ >= m.sizes_.size()) return parse_error(fmt::format("loading {}: bad baseline", path));
  m.spec_.params = model->params();
  m.model_ = std::move(model);
  return m;
}

Expected<WgEvaluation> score_wgsize(const std::string& model, const WgDataset& d,
                                    const std::vector<int>& chosen, size_t illegal) {
  size_t n = d.scenarios.size();
  if (chosen.size() != n) return internal_error("score_wgsize: one choice per scenario expected");
  WgEvaluation ev;
  ev.model = model;
  ev.scenarios = n;
  ev.chosen = chosen;
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  size_t baseline = wg_baseline(d, all);
  ev.baseline = wg_size_name(d.sizes[baseline]);
  std::vector<double> speedups;
  double perf = 0, base_perf = 0;
  for (size_t i = 0; i < n; ++i) {
    perf += wg_performance(d, i, chosen[i]);
    base_perf += wg_performance(d, i, baseline);
    if (d.legal(i, baseline))
      speedups.push_back(d.scenarios[i].runtimes[baseline] / d.scenarios[i].runtimes[chosen[i]]);
  }
  ev.oracle_fraction = perf / n;
  ev.baseline_fraction = base_perf / n;
  ev.baseline_legal = speedups.size();
  ev.illegal_predictions = static_cast<double>(illegal) / n;
  if (!speedups.empty()) {
    double sum = 0;
    for (double s : speedups) sum += s;
    ev.speedup_mean = sum / speedups.size();
    std::sort(speedups.begin(), speedups.end());
    size_t m = speedups.size();
    ev.speedup_median = m % 2 ? speedups[m / 2] : (speedups[m / 2 - 1] + speedups[m / 2]) / 2;
  }
  return ev;
}

Expected<std::vector<int>> wgsize_folds(const WgDataset& d, int folds, uint64_t seed, WgSplit split) {
  size_t n = d.scenarios.size();
  if (folds < 2) return invalid_argument("wgsize cross-validation needs at least 2 folds");
  if (split == WgSplit::kGrouped) {
    std::vector<std::string> groups;
    for (const auto& s : d.scenarios) groups.push_back(s.split_group());
    auto f = grouped_folds(groups, folds, seed);
    if (!f.ok()) return f.status().with_context("wgsize cross-validation grouped by kernel");
    return f;
  }
  if (n < static_cast<size_t>(folds))
    return invalid_argument(fmt::format("wgsize cross-validation: {} scenarios for {} folds", n, folds));
  std::mt19937_64 rng(seed);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  for (size_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);  // Fisher-Yates
  std::vector<int> fold(n);
  for (size_t k = 0; k < n; ++k) fold[order[k]] = static_cast<int>(k % folds);
  return fold;
}

Expected<WgEvaluation> evaluate_wgsize(const WgModelSpec& spec, const WgDataset& d, int folds, uint64_t seed,
                                       WgSplit split) {
  size_t n = d.scenarios.size();
  ASSIGN_OR_RETURN(std::vector<int> fold_of, wgsize_folds(d, folds, seed, split));
  std::vector<int> chosen(n, -1);
  size_t illegal = 0;
  for (int f = 0; f < folds; ++f) {
    if (interrupted()) return cancelled("wgsize cross-validation: interrupted");
    std::vector<size_t> train, test;
    // Ascending scenario order within a fold (the order the test scenarios are scored in).
    for (size_t k = 0; k < n; ++k) (fold_of[k] == f ? test : train).push_back(k);
    ASSIGN_OR_RETURN(WgsizeModel model, WgsizeModel::train(spec, d, train));
    size_t fold_illegal = 0;
    ASSIGN_OR_RETURN(auto picks, model.choose(d, test, seed + f, &fold_illegal));
    illegal += fold_illegal;
    for (size_t j = 0; j < test.size(); ++j) chosen[test[j]] = picks[j];
  }
  ASSIGN_OR_RETURN(WgEvaluation ev, score_wgsize(spec.name, d, chosen, illegal));
  ev.folds = static_cast<size_t>(folds);
  return ev;
}

}  // namespace clgen::predict
