// Device mapping: dataset loading, Grewe features, named models, and
// cross-validation with accuracy and speedup over the best static mapping.
#include "predict/mapping.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "predict/csv.h"
#include "predict/folds.h"
#include "predict/sklearn_tree.h"
#include "support/interrupt.h"

namespace clgen::predict {

const char* device_name(Device d) { return d == Device::kGpu ? "GPU" : "CPU"; }

std::string benchmark_group(const std::string& benchmark) {
  static const std::regex version(R"(^[0-9]+(\.[0-9]+)+$)");
  std::vector<std::string> tokens;
  size_t start = 0;
  while (true) {
    size_t dash = benchmark.find('-', start);
    tokens.push_back(benchmark.substr(start, dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  for (size_t i = 1; i + 1 < tokens.size(); ++i) {
    if (std::regex_match(tokens[i], version)) {
      std::string group = tokens[0];
      for (size_t j = 1; j <= i + 1; ++j) group += "-" + tokens[j];
      return group;
    }
  }
  return benchmark;
}

Expected<std::vector<MappingRow>> load_mapping_csv(const std::string& path) {
  ASSIGN_OR_RETURN(CsvTable t, read_csv(path));
  const char* numeric[] = {"comp",     "rational", "mem",         "localmem",   "coalesced",
                           "atomic",   "transfer", "wgsize",      "runtime_cpu", "runtime_gpu"};
  std::vector<int> cols;
  for (const char* name : numeric) {
    ASSIGN_OR_RETURN(int c, t.require_column(name, path));
    cols.push_back(c);
  }
  ASSIGN_OR_RETURN(int c_bench, t.require_column("benchmark", path));
  ASSIGN_OR_RETURN(int c_data, t.require_column("dataset", path));
  ASSIGN_OR_RETURN(int c_oracle, t.require_column("oracle", path));
  const int c_group = t.column("group");  // clgen's exports name the program explicitly
  const int c_origin = t.column("origin"), c_readback = t.column("readback_bytes"), c_steering = t.column("steering");
  if (t.rows.empty()) return invalid_argument(fmt::format("{}: no data rows", path));

  std::vector<MappingRow> rows;
  rows.reserve(t.rows.size());
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& f = t.rows[i];
    MappingRow r;
    r.benchmark = f[c_bench];
    r.dataset = f[c_data];
    double* targets[] = {&r.comp,     &r.rational, &r.mem,    &r.localmem,    &r.coalesced,
                         &r.atomic,   &r.transfer, &r.wgsize, &r.runtime_cpu, &r.runtime_gpu};
    for (size_t k = 0; k < cols.size(); ++k) {
      ASSIGN_OR_RETURN(*targets[k],
                       parse_number(f[cols[k]], fmt::format("{}: row {}: {}", path, i + 2, numeric[k])));
    }
    if (f[c_oracle] == "CPU") r.oracle = Device::kCpu;
    else if (f[c_oracle] == "GPU") r.oracle = Device::kGpu;
    else
      return parse_error(fmt::format("{}: row {}: oracle '{}' is neither CPU nor GPU", path, i + 2,
                                     f[c_oracle]));
    if (r.runtime_cpu <= 0 || r.runtime_gpu <= 0)
      return parse_error(fmt::format("{}: row {}: runtimes must be positive", path, i + 2));
    r.group = c_group >= 0 && !f[c_group].empty() ? f[c_group] : benchmark_group(r.benchmark);
    if (c_origin >= 0) r.origin = f[c_origin];
    if (c_steering >= 0) r.steering = f[c_steering];
    if (c_readback >= 0) {
      ASSIGN_OR_RETURN(r.readback, parse_number(f[c_readback], fmt::format("{}: row {}: readback_bytes", path, i + 2)));
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

Status assign_stratified_folds(std::vector<MappingRow>& rows, int k, uint64_t seed) {
  std::vector<std::string> groups;
  std::vector<int> labels;
  for (const auto& r : rows) {
    groups.push_back(r.group);
    labels.push_back(r.oracle == Device::kGpu);
  }
  auto folds = grouped_stratified_folds(groups, labels, k, seed);
  if (!folds.ok()) return folds.status().with_context("stratified folds grouped by program");
  for (size_t i = 0; i < rows.size(); ++i) rows[i].fold = (*folds)[i];
  return ok_status();
}

Status assign_folds(std::vector<MappingRow>& rows, const std::string& folds_path) {
  ASSIGN_OR_RETURN(CsvTable t, read_csv(folds_path));
  ASSIGN_OR_RETURN(int c_bench, t.require_column("benchmark", folds_path));
  ASSIGN_OR_RETURN(int c_data, t.require_column("dataset", folds_path));
  ASSIGN_OR_RETURN(int c_fold, t.require_column("fold", folds_path));
  std::map<std::pair<std::string, std::string>, int> folds;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& f = t.rows[i];
    ASSIGN_OR_RETURN(double fold, parse_number(f[c_fold], fmt::format("{}: row {}: fold", folds_path, i + 2)));
    if (fold < 0 || fold != std::floor(fold))
      return parse_error(fmt::format("{}: row {}: fold must be a non-negative integer", folds_path, i + 2));
    if (!folds.emplace(std::make_pair(f[c_bench], f[c_data]), static_cast<int>(fold)).second)
      return parse_error(fmt::format("{}: row {}: {} / {} appears twice", folds_path, i + 2,
                                     f[c_bench], f[c_data]));
  }
  size_t used = 0;
  for (auto& r : rows) {
    auto it = folds.find({r.benchmark, r.dataset});
    if (it == folds.end())
      return invalid_argument(fmt::format("{}: no fold for {} / {}", folds_path, r.benchmark, r.dataset));
    r.fold = it->second;
    ++used;
  }
  if (used != folds.size())
    return invalid_argument(fmt::format("{}: {} rows name kernels that are not in the data", folds_path,
                                        folds.size() - used));
  return ok_status();
}

namespace {
double ratio(double a, double b) { return b == 0 ? 0 : a / b; }
}  // namespace

std::vector<std::string> feature_names(FeatureSet set) {
  std::vector<std::string> names = {"F1", "F2", "F3", "F4"};
  if (set == FeatureSet::kGrewe) return names;
  for (const char* n : {"comp", "rational", "mem", "localmem", "coalesced", "atomic", "transfer", "wgsize"})
    names.push_back(set == FeatureSet::kExtendedLog ? std::string("log_") + n : n);
  if (set == FeatureSet::kReadback) {
    names.push_back("readback");
    names.push_back("copied_in");
  }
  return names;
}

std::vector<float> mapping_features(const MappingRow& r, FeatureSet set) {
  // Grewe et al. (CGO'13): F1 transfer/(comp+mem), F2 coalesced/mem,
  // F3 (localmem/mem)*wgsize, F4 comp/mem.
  std::vector<double> f = {ratio(r.transfer, r.comp + r.mem), ratio(r.coalesced, r.mem),
                           ratio(r.localmem, r.mem) * r.wgsize, ratio(r.comp, r.mem)};
  if (set != FeatureSet::kGrewe) {
    bool log = set == FeatureSet::kExtendedLog;
    for (double v : {r.comp, r.rational, r.mem, r.localmem, r.coalesced, r.atomic, r.transfer, r.wgsize})
      f.push_back(log ? std::log1p(std::max(0.0, v)) : v);
    if (log)
      for (int i = 0; i < 4; ++i) f[i] = std::log1p(std::max(0.0, f[i]));
  }
  if (set == FeatureSet::kReadback) {
    f.push_back(r.readback);
    f.push_back(r.transfer - r.readback);
  }
  return std::vector<float>(f.begin(), f.end());
}

const std::vector<MappingModelSpec>& mapping_models() {
  static const std::vector<MappingModelSpec> specs = [] {
    std::vector<MappingModelSpec> s;
    ModelParams tree;
    tree.algorithm = "sktree";
    tree.max_depth = 5;
    tree.min_samples = 5;
    tree.seed = 204;
    s.push_back({"grewe", "Grewe et al. tree on F1-F4 (entropy, depth 5, min 5 per leaf; scikit-learn)",
                 FeatureSet::kGrewe, tree});
    s.push_back({"extended", "CGO'17 extended model: the same tree on F1-F4 + raw counts incl. rational",
                 FeatureSet::kExtended, tree});
    ModelParams gini = tree;
    gini.algorithm = "dtree";
    gini.min_samples = 10;  // OpenCV cannot bound leaf size; no split below 2 x 5 samples
    s.push_back({"grewe-gini", "OpenCV Gini tree on F1-F4 (depth 5, no split under 10 samples)",
                 FeatureSet::kGrewe, gini});
    ModelParams forest;
    forest.algorithm = "rtrees";
    forest.max_depth = 0;
    forest.min_samples = 2;
    forest.trees = 100;
    s.push_back({"rtrees", "random forest (100 trees) on F1-F4 + raw counts", FeatureSet::kExtended, forest});
    ModelParams boost;
    boost.algorithm = "boost";
    boost.max_depth = 3;
    boost.min_samples = 2;
    boost.trees = 100;
    s.push_back({"boost", "gentle AdaBoost (100 depth-3 trees) on F1-F4 + raw counts", FeatureSet::kExtended, boost});
    ModelParams svm;
    svm.algorithm = "svm";
    svm.svm_c = 10;
    svm.svm_gamma = 1.0 / 12;  // 1 / features, on standardized features
    s.push_back({"svm", "RBF SVM (C 10, gamma 1/12) on standardized log features", FeatureSet::kExtendedLog, svm});
    ModelParams knn;
    knn.algorithm = "knn";
    knn.k = 5;
    s.push_back({"knn", "5-nearest neighbours on standardized log features", FeatureSet::kExtendedLog, knn});
    ModelParams mlp;
    mlp.algorithm = "mlp";
    mlp.hidden = 16;
    s.push_back({"mlp", "MLP (one hidden layer of 16) on log features", FeatureSet::kExtendedLog, mlp});
    ModelParams logreg;
    logreg.algorithm = "logreg";
    s.push_back({"logreg", "L2 logistic regression on log features", FeatureSet::kExtendedLog, logreg});
    ModelParams nb;
    nb.algorithm = "nbayes";
    s.push_back({"nbayes", "normal Bayes classifier on log features", FeatureSet::kExtendedLog, nb});
    s.push_back({"readback", "gentle AdaBoost as boost, plus bytes read back and bytes copied in (clgen exports)",
                 FeatureSet::kReadback, boost});
    for (auto& m : s) m.params.tag = "mapping:" + m.name;
    return s;
  }();
  return specs;
}

Expected<MappingModelSpec> find_mapping_model(const std::string& name) {
  std::string lookup = name == "best" ? "boost" : name;  // chosen by docs/PREDICT.md's table
  for (const auto& m : mapping_models())
    if (m.name == lookup) {
      MappingModelSpec s = m;
      if (name == "best") {
        s.name = "best";
        s.description = "best model found (" + m.name + "): " + m.description;
        s.params.tag = "mapping:best";
      }
      return s;
    }
  std::vector<std::string> names = {"best"};
  for (const auto& m : mapping_models()) names.push_back(m.name);
  return invalid_argument(fmt::format("unknown mapping model '{}' (known: {})", name, fmt::join(names, ", ")));
}

namespace {
Matrix features_of(const std::vector<MappingRow>& rows, FeatureSet set) {
  Matrix x;
  x.cols = feature_names(set).size();
  for (const auto& r : rows) x.add_row(mapping_features(r, set));
  return x;
}
}  // namespace

Expected<MappingModel> MappingModel::train(const MappingModelSpec& spec,
                                           const std::vector<MappingRow>& rows) {
  if (rows.empty()) return invalid_argument("training mapping model: no rows");
  if (spec.features == FeatureSet::kReadback)
    for (const auto& r : rows)
      if (r.readback < 0)
        return invalid_argument(
            fmt::format("training {}: row {} / {} has no readback_bytes (a clgen export "
                        "column)",
                        spec.name, r.benchmark, r.dataset));
  ASSIGN_OR_RETURN(auto model, Model::create(spec.params));
  std::vector<double> y;
  for (const auto& r : rows) y.push_back(static_cast<double>(r.oracle));
  RETURN_IF_ERROR_CTX(model->train(features_of(rows, spec.features), y), "training " + spec.name);
  MappingModel m;
  m.spec_ = spec;
  m.model_ = std::move(model);
  return m;
}

Expected<std::vector<Device>> MappingModel::predict(const std::vector<MappingRow>& rows) const {
  ASSIGN_OR_RETURN(auto raw, model_->predict(features_of(rows, spec_.features)));
  std::vector<Device> out;
  for (double v : raw) out.push_back(v >= 0.5 ? Device::kGpu : Device::kCpu);
  return out;
}

Status MappingModel::save(const std::string& path) const { return model_->save(path); }

Expected<MappingModel> MappingModel::load(const std::string& path) {
  ASSIGN_OR_RETURN(auto model, Model::load(path));
  const std::string& tag = model->params().tag;
  if (tag.rfind("mapping:", 0) != 0)
    return invalid_argument(fmt::format("loading {}: not a mapping model (tag '{}')", path, tag));
  ASSIGN_OR_RETURN(MappingModelSpec spec, find_mapping_model(tag.substr(8)));
  if (model->feature_count() != feature_names(spec.features).size())
    return invalid_argument(fmt::format("loading {}: {} features, model '{}' uses {}", path,
                                        model->feature_count(), spec.name,
                                        feature_names(spec.features).size()));
  spec.params = model->params();
  MappingModel m;
  m.spec_ = spec;
  m.model_ = std::move(model);
  return m;
}

Device best_static_device(const std::vector<MappingRow>& rows) {
  size_t gpu = 0;
  for (const auto& r : rows) gpu += r.oracle == Device::kGpu;
  return 2 * gpu >= rows.size() ? Device::kGpu : Device::kCpu;
}

void score_mapping(const std::vector<MappingRow>& rows, const std::vector<Device>& predictions,
                   Device static_device, double* accuracy, double* speedup) {
  double correct = 0, sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    auto runtime = [&r](Device d) { return d == Device::kGpu ? r.runtime_gpu : r.runtime_cpu; };
    correct += predictions[i] == r.oracle;
    sum += runtime(static_device) / runtime(predictions[i]);
  }
  *accuracy = rows.empty() ? 0 : correct / rows.size();
  *speedup = rows.empty() ? 0 : sum / rows.size();
}

double balanced_accuracy(const std::vector<MappingRow>& rows, const std::vector<Device>& predictions) {
  double hit[2] = {0, 0}, n[2] = {0, 0};
  for (size_t i = 0; i < rows.size(); ++i) {
    int c = static_cast<int>(rows[i].oracle);
    ++n[c];
    hit[c] += predictions[i] == rows[i].oracle;
  }
  double sum = 0;
  int classes = 0;
  for (int c = 0; c < 2; ++c)
    if (n[c] > 0) {
      sum += hit[c] / n[c];
      ++classes;
    }
  return classes ? sum / classes : 0;
}

double oracle_share(const std::vector<MappingRow>& rows, const std::vector<Device>& predictions) {
  double sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    double best = std::min(r.runtime_cpu, r.runtime_gpu);
    sum += best / (predictions[i] == Device::kGpu ? r.runtime_gpu : r.runtime_cpu);
  }
  return rows.empty() ? 0 : sum / rows.size();
}

Expected<MappingEvaluation> evaluate_mapping(const MappingModelSpec& spec,
                                             const std::vector<MappingRow>& rows,
                                             Protocol protocol) {
  if (rows.empty()) return invalid_argument("evaluating mapping model: no rows");
  // Fold id of each row under the protocol.
  std::vector<std::string> keys;
  for (const auto& r : rows) {
    if (protocol == Protocol::kFolds) {
      if (r.fold < 0)
        return invalid_argument(fmt::format("evaluating with folds: {} / {} has no fold (give a fold file)",
                                            r.benchmark, r.dataset));
      keys.push_back(std::to_string(r.fold));
    } else {
      keys.push_back(r.group);
    }
  }
  std::set<std::string> fold_ids(keys.begin(), keys.end());
  if (fold_ids.size() < 2)
    return invalid_argument("evaluating mapping model: cross-validation needs at least two folds");

  MappingEvaluation ev;
  ev.model = spec.name;
  ev.protocol = protocol;
  ev.rows = rows.size();
  ev.folds = fold_ids.size();
  ev.predictions.assign(rows.size(), Device::kCpu);
  if (spec.params.algorithm == "sktree") {
    // All folds' trees from one scikit-learn process.
    std::vector<Matrix> xs;
    std::vector<std::vector<double>> ys;
    for (const auto& fold : fold_ids) {
      Matrix x;
      x.cols = feature_names(spec.features).size();
      std::vector<double> y;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (keys[i] == fold) continue;
        x.add_row(mapping_features(rows[i], spec.features));
        y.push_back(static_cast<double>(rows[i].oracle));
      }
      xs.push_back(std::move(x));
      ys.push_back(std::move(y));
    }
    std::vector<TreeTrainingSet> sets;
    for (size_t f = 0; f < xs.size(); ++f) sets.push_back({&xs[f], &ys[f]});
    ASSIGN_OR_RETURN(auto trees, fit_sklearn_trees(sets, spec.params));
    size_t f = 0;
    for (const auto& fold : fold_ids) {
      const DecisionTree& tree = trees[f++];
      for (size_t i = 0; i < rows.size(); ++i) {
        if (keys[i] != fold) continue;
        auto x = mapping_features(rows[i], spec.features);
        ev.predictions[i] = tree.predict(x.data()) == 1 ? Device::kGpu : Device::kCpu;
      }
    }
  }
  for (const auto& fold : fold_ids) {
    if (spec.params.algorithm == "sktree") break;
    if (interrupted()) return cancelled("evaluating mapping model: interrupted");
    std::vector<MappingRow> train, test;
    std::vector<size_t> test_index;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (keys[i] == fold) {
        test.push_back(rows[i]);
        test_index.push_back(i);
      } else {
        train.push_back(rows[i]);
      }
    }
    ASSIGN_OR_RETURN(MappingModel m, MappingModel::train(spec, train));
    ASSIGN_OR_RETURN(auto pred, m.predict(test));
    for (size_t j = 0; j < pred.size(); ++j) ev.predictions[test_index[j]] = pred[j];
  }
  ev.static_device = best_static_device(rows);
  score_mapping(rows, ev.predictions, ev.static_device, &ev.accuracy, &ev.speedup);
  std::vector<Device> oracle, fixed(rows.size(), ev.static_device);
  for (const auto& r : rows) oracle.push_back(r.oracle);
  double unused;
  score_mapping(rows, oracle, ev.static_device, &unused, &ev.oracle_speedup);
  score_mapping(rows, fixed, ev.static_device, &ev.static_accuracy, &unused);
  ev.balanced_accuracy = balanced_accuracy(rows, ev.predictions);
  ev.oracle_share = oracle_share(rows, ev.predictions);
  ev.static_oracle_share = oracle_share(rows, fixed);
  return ev;
}

}  // namespace clgen::predict
