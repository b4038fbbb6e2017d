// Real vs real + synthetic training data, scored on held-out real kernels:
// repeated grouped folds trained in parallel, per-item averages over the
// repeats, and group bootstrap intervals.
#include "predict/experiment.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "predict/parallel.h"

namespace clgen::predict {

bool is_synthetic(const std::string& origin) { return origin == "synthetic"; }

namespace {

unsigned thread_count(const ExperimentOptions& o, size_t tasks) { return experiment_threads(o.threads, tasks); }

// Mean of `v` over `items` where `valid` (all when empty); 0 when none.
double mean_over(const std::vector<double>& v, const std::vector<size_t>& items, const std::vector<char>& valid = {}) {
  double sum = 0;
  size_t n = 0;
  for (size_t i : items)
    if (valid.empty() || valid[i]) {
      sum += v[i];
      ++n;
    }
  return n ? sum / n : 0;
}

// exp(mean of logs): a geometric mean of ratios.
double geomean_over(const std::vector<double>& logs, const std::vector<size_t>& items, const std::vector<char>& valid) {
  return std::exp(mean_over(logs, items, valid));
}

// The paired gain of `with` over `without`: the difference of their means,
// bootstrapped on the same resamples of groups.
Interval mean_gain(const std::vector<std::string>& groups, const std::vector<double>& with,
                   const std::vector<double>& without, const ExperimentOptions& o) {
  return bootstrap_groups(
      groups, [&](const std::vector<size_t>& it) { return mean_over(with, it) - mean_over(without, it); }, o.resamples,
      o.seed);
}

// One training task: which repeat, fold and arm (0: real, 1: real + synthetic).
struct FoldTask {
  int repeat, fold, arm;
};
FoldTask task_of(size_t t, const ExperimentOptions& o, int arms) {
  return {static_cast<int>(t / (o.folds * arms)), static_cast<int>(t / arms % o.folds), static_cast<int>(t % arms)};
}

// The real items of `fold` to test on (and their positions in `real`); the
// other real items, plus every synthetic one for the mixed arm, to train on.
template <typename T>
void split_arm(const std::vector<T>& real, const std::vector<T>& synthetic, const std::vector<int>& folds, int fold,
               bool mixed, std::vector<T>& train, std::vector<T>& test, std::vector<size_t>& test_pos) {
  for (size_t j = 0; j < real.size(); ++j) {
    if (folds[j] == fold) {
      test.push_back(real[j]);
      test_pos.push_back(j);
    } else {
      train.push_back(real[j]);
    }
  }
  if (mixed) train.insert(train.end(), synthetic.begin(), synthetic.end());
}

size_t count_distinct(const std::vector<std::string>& v) { return std::set<std::string>(v.begin(), v.end()).size(); }

// Folds of every repeat over the real items' groups.
Expected<std::vector<std::vector<int>>> repeat_folds(const std::vector<std::string>& groups,
                                                     const ExperimentOptions& o) {
  if (o.repeats < 1) return invalid_argument("experiment: need at least one repeat");
  std::vector<std::vector<int>> out;
  for (int r = 0; r < o.repeats; ++r) {
    auto f = grouped_folds(groups, o.folds, o.seed + static_cast<uint64_t>(r));
    if (!f.ok()) return f.status().with_context("experiment on real kernels");
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace

Expected<WgExperiment> wgsize_experiment(const WgModelSpec& spec, const WgDataset& d, const std::string& device,
                                         const ExperimentOptions& o) {
  WgExperiment ex;
  ex.device = device;
  ex.model = spec.name;
  std::vector<size_t> real, synthetic;
  for (size_t i = 0; i < d.scenarios.size(); ++i) {
    const auto& s = d.scenarios[i];
    if (!device.empty() && s.device != device) continue;
    (is_synthetic(s.origin) ? synthetic : real).push_back(i);
  }
  std::vector<std::string> groups, kernels, syn_kernels;
  for (size_t i : real) {
    groups.push_back(o.group_by_kernel ? d.scenarios[i].kernel : d.scenarios[i].split_group());
    kernels.push_back(d.scenarios[i].kernel);
  }
  for (size_t i : synthetic) syn_kernels.push_back(d.scenarios[i].kernel);
  ex.real_scenarios = real.size();
  ex.real_kernels = count_distinct(kernels);
  ex.real_groups = count_distinct(groups);
  ex.synthetic_scenarios = synthetic.size();
  ex.synthetic_kernels = count_distinct(syn_kernels);
  ex.has_mixed = !synthetic.empty();
  ASSIGN_OR_RETURN(auto folds, repeat_folds(groups, o));

  // chosen[arm][repeat][j]: the size chosen for real scenario j.
  const int arms = ex.has_mixed ? 2 : 1;
  std::vector<std::vector<std::vector<int>>> chosen(
      arms, std::vector<std::vector<int>>(o.repeats, std::vector<int>(real.size(), -1)));
  std::mutex mu;
  auto task = [&](size_t t) -> Status {
    const FoldTask k = task_of(t, o, arms);
    std::vector<size_t> train, test, test_pos;
    split_arm(real, synthetic, folds[k.repeat], k.fold, k.arm == 1, train, test, test_pos);
    ASSIGN_OR_RETURN(WgsizeModel m, WgsizeModel::train(spec, d, train));
    ASSIGN_OR_RETURN(auto picks, m.choose(d, test, o.seed + t, nullptr));
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < picks.size(); ++i) chosen[k.arm][k.repeat][test_pos[i]] = picks[i];
    return ok_status();
  };
  const size_t tasks = static_cast<size_t>(o.repeats) * o.folds * arms;
  RETURN_IF_ERROR(run_parallel(tasks, thread_count(o, tasks), task));

  // The baselines, on the real scenarios.
  const size_t fixed = wg_baseline(d, real);
  ex.fixed_size = wg_size_name(d.sizes[fixed]);
  const size_t n = real.size();
  std::vector<char> fixed_ok(n), default_ok(n);
  std::vector<double> log_oracle_fixed(n, 0), log_oracle_default(n, 0), default_perf(n, 0);
  double fixed_sum = 0;
  for (size_t j = 0; j < n; ++j) {
    size_t i = real[j];
    const auto& rt = d.scenarios[i].runtimes;
    const double best = rt[d.oracle(i)];
    fixed_sum += wg_performance(d, i, fixed);
    fixed_ok[j] = d.legal(i, fixed);
    if (fixed_ok[j]) log_oracle_fixed[j] = std::log(rt[fixed] / best);
    int def = d.scenarios[i].default_size;
    default_ok[j] = def >= 0 && d.legal(i, def);
    if (default_ok[j]) {
      log_oracle_default[j] = std::log(rt[def] / best);
      default_perf[j] = best / rt[def];
    }
  }
  ex.fixed_share = n ? fixed_sum / n : 0;
  ex.fixed_legal = static_cast<size_t>(std::count(fixed_ok.begin(), fixed_ok.end(), 1));
  ex.default_known = static_cast<size_t>(std::count(default_ok.begin(), default_ok.end(), 1));
  std::vector<size_t> all(n);
  for (size_t j = 0; j < n; ++j) all[j] = j;
  ex.default_share = mean_over(default_perf, all, default_ok);
  ex.oracle_over_fixed = bootstrap_groups(
      groups, [&](const std::vector<size_t>& it) { return geomean_over(log_oracle_fixed, it, fixed_ok); }, o.resamples,
      o.seed);
  ex.oracle_over_default = bootstrap_groups(
      groups, [&](const std::vector<size_t>& it) { return geomean_over(log_oracle_default, it, default_ok); },
      o.resamples, o.seed);

  // Per scenario, averaged over the repeats.
  std::vector<std::vector<double>> perf(arms, std::vector<double>(n, 0)), log_fixed = perf, log_default = perf;
  for (int arm = 0; arm < arms; ++arm)
    for (size_t j = 0; j < n; ++j) {
      size_t i = real[j];
      const auto& rt = d.scenarios[i].runtimes;
      for (int r = 0; r < o.repeats; ++r) {
        int c = chosen[arm][r][j];
        perf[arm][j] += wg_performance(d, i, c) / o.repeats;
        if (fixed_ok[j]) log_fixed[arm][j] += std::log(rt[fixed] / rt[c]) / o.repeats;
        if (default_ok[j]) log_default[arm][j] += std::log(rt[d.scenarios[i].default_size] / rt[c]) / o.repeats;
      }
    }
  auto score = [&](int arm) {
    WgArm a;
    a.oracle_share = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return mean_over(perf[arm], it); }, o.resamples, o.seed);
    a.speedup_fixed = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return geomean_over(log_fixed[arm], it, fixed_ok); }, o.resamples,
        o.seed);
    a.speedup_default = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return geomean_over(log_default[arm], it, default_ok); },
        o.resamples, o.seed);
    return a;
  };
  ex.real = score(0);
  if (ex.has_mixed) {
    ex.mixed = score(1);
    ex.gain = mean_gain(groups, perf[1], perf[0], o);
  }
  return ex;
}

Expected<MappingExperiment> mapping_experiment(const MappingModelSpec& spec, const std::vector<MappingRow>& rows,
                                               const ExperimentOptions& o) {
  MappingExperiment ex;
  ex.model = spec.name;
  std::vector<MappingRow> real, synthetic;
  for (const auto& r : rows) (is_synthetic(r.origin) ? synthetic : real).push_back(r);
  std::vector<std::string> groups, syn_groups;
  // A mapping row's kernel is its benchmark (one row per kernel and size).
  for (const auto& r : real) groups.push_back(o.group_by_kernel ? r.benchmark : r.group);
  for (const auto& r : synthetic) syn_groups.push_back(o.group_by_kernel ? r.benchmark : r.group);
  ex.real_rows = real.size();
  ex.real_groups = count_distinct(groups);
  ex.synthetic_rows = synthetic.size();
  ex.synthetic_groups = count_distinct(syn_groups);
  ex.has_mixed = !synthetic.empty();
  if (real.empty()) return invalid_argument("mapping experiment: no real (non-synthetic) rows");
  ASSIGN_OR_RETURN(auto folds, repeat_folds(groups, o));

  const int arms = ex.has_mixed ? 2 : 1;
  std::vector<std::vector<std::vector<Device>>> pred(
      arms, std::vector<std::vector<Device>>(o.repeats, std::vector<Device>(real.size(), Device::kCpu)));
  std::mutex mu;
  auto task = [&](size_t t) -> Status {
    const FoldTask k = task_of(t, o, arms);
    std::vector<MappingRow> train, test;
    std::vector<size_t> test_pos;
    split_arm(real, synthetic, folds[k.repeat], k.fold, k.arm == 1, train, test, test_pos);
    ASSIGN_OR_RETURN(MappingModel m, MappingModel::train(spec, train));
    ASSIGN_OR_RETURN(auto p, m.predict(test));
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < p.size(); ++i) pred[k.arm][k.repeat][test_pos[i]] = p[i];
    return ok_status();
  };
  const size_t tasks = static_cast<size_t>(o.repeats) * o.folds * arms;
  RETURN_IF_ERROR(run_parallel(tasks, thread_count(o, tasks), task));

  const size_t n = real.size();
  auto runtime = [&](size_t j, Device dev) { return dev == Device::kGpu ? real[j].runtime_gpu : real[j].runtime_cpu; };
  ex.static_device = best_static_device(real);
  std::vector<Device> fixed(n, ex.static_device), oracle;
  for (const auto& r : real) oracle.push_back(r.oracle);
  double unused = 0;
  score_mapping(real, fixed, ex.static_device, &ex.static_accuracy, &unused);
  ex.static_balanced_accuracy = balanced_accuracy(real, fixed);
  ex.static_oracle_share = oracle_share(real, fixed);
  double log_sum = 0;
  for (size_t j = 0; j < n; ++j) log_sum += std::log(runtime(j, ex.static_device) / runtime(j, oracle[j]));
  ex.oracle_speedup_static = std::exp(log_sum / n);

  std::vector<char> is_gpu(n);
  for (size_t j = 0; j < n; ++j) is_gpu[j] = real[j].oracle == Device::kGpu;
  std::vector<char> is_cpu(n);
  for (size_t j = 0; j < n; ++j) is_cpu[j] = !is_gpu[j];
  std::vector<std::vector<double>> correct(arms, std::vector<double>(n, 0)), share = correct, log_static = correct;
  for (int arm = 0; arm < arms; ++arm)
    for (size_t j = 0; j < n; ++j)
      for (int r = 0; r < o.repeats; ++r) {
        Device p = pred[arm][r][j];
        correct[arm][j] += (p == real[j].oracle ? 1.0 : 0.0) / o.repeats;
        share[arm][j] += runtime(j, real[j].oracle) / runtime(j, p) / o.repeats;
        log_static[arm][j] += std::log(runtime(j, ex.static_device) / runtime(j, p)) / o.repeats;
      }
  auto balanced = [&](const std::vector<double>& c, const std::vector<size_t>& it) {
    bool any_cpu = false, any_gpu = false;
    for (size_t j : it) (is_gpu[j] ? any_gpu : any_cpu) = true;
    double sum = 0;
    int classes = 0;
    if (any_cpu) sum += mean_over(c, it, is_cpu), ++classes;
    if (any_gpu) sum += mean_over(c, it, is_gpu), ++classes;
    return classes ? sum / classes : 0;
  };
  auto score = [&](int arm) {
    MappingArm a;
    a.accuracy = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return mean_over(correct[arm], it); }, o.resamples, o.seed);
    a.balanced_accuracy = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return balanced(correct[arm], it); }, o.resamples, o.seed);
    a.oracle_share = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return mean_over(share[arm], it); }, o.resamples, o.seed);
    a.speedup_static = bootstrap_groups(
        groups, [&](const std::vector<size_t>& it) { return geomean_over(log_static[arm], it, {}); }, o.resamples,
        o.seed);
    return a;
  };
  ex.real = score(0);
  if (ex.has_mixed) {
    ex.mixed = score(1);
    ex.gain = mean_gain(groups, share[1], share[0], o);
  }
  return ex;
}

}  // namespace clgen::predict
