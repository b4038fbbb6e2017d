// Grouped folds (plain and label-stratified) and the group bootstrap.
#include "predict/folds.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>

#include <fmt/format.h>

namespace clgen::predict {

namespace {

// Distinct groups in first-seen order, and each item's group index.
std::vector<std::string> distinct_groups(const std::vector<std::string>& groups, std::vector<size_t>& index) {
  std::map<std::string, size_t> id;
  std::vector<std::string> order;
  index.clear();
  for (const auto& g : groups) {
    auto [it, added] = id.emplace(g, order.size());
    if (added) order.push_back(g);
    index.push_back(it->second);
  }
  return order;
}

// The groups' indices shuffled by `seed`, then stably sorted by size, largest first.
std::vector<size_t> placement_order(const std::vector<size_t>& sizes, uint64_t seed) {
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  return order;
}

Status check_k(size_t distinct, int k) {
  if (k < 2) return invalid_argument("grouped folds: need at least 2 folds");
  if (distinct < static_cast<size_t>(k))
    return invalid_argument(fmt::format("grouped folds: {} groups (kernels) for {} folds", distinct, k));
  return ok_status();
}

}  // namespace

Expected<std::vector<int>> grouped_folds(const std::vector<std::string>& groups, int k, uint64_t seed) {
  std::vector<size_t> index;
  auto names = distinct_groups(groups, index);
  RETURN_IF_ERROR(check_k(names.size(), k));
  std::vector<size_t> sizes(names.size(), 0);
  for (size_t g : index) ++sizes[g];
  std::vector<int> fold_of_group(names.size(), -1);
  std::vector<size_t> load(k, 0);
  for (size_t g : placement_order(sizes, seed)) {
    int best = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    fold_of_group[g] = best;
    load[best] += sizes[g];
  }
  std::vector<int> out;
  for (size_t g : index) out.push_back(fold_of_group[g]);
  return out;
}

Expected<std::vector<int>> grouped_stratified_folds(const std::vector<std::string>& groups,
                                                    const std::vector<int>& labels, int k, uint64_t seed) {
  if (labels.size() != groups.size()) return internal_error("grouped_stratified_folds: one label per item expected");
  std::vector<size_t> index;
  auto names = distinct_groups(groups, index);
  RETURN_IF_ERROR(check_k(names.size(), k));
  std::vector<std::array<double, 2>> count(names.size(), {0, 0});
  std::array<double, 2> total = {0, 0};
  for (size_t i = 0; i < index.size(); ++i) {
    int l = labels[i] ? 1 : 0;
    ++count[index[i]][l];
    ++total[l];
  }
  std::vector<size_t> sizes;
  for (const auto& c : count) sizes.push_back(static_cast<size_t>(c[0] + c[1]));
  std::vector<std::array<double, 2>> load(k, {0, 0});
  std::vector<int> fold_of_group(names.size(), -1);
  for (size_t g : placement_order(sizes, seed)) {
    int best = 0;
    double best_cost = 0;
    for (int f = 0; f < k; ++f) {
      double cost = 0;
      for (int l = 0; l < 2; ++l) {
        double after = load[f][l] + count[g][l], share = total[l] / k;
        cost += (after - share) * (after - share) - (load[f][l] - share) * (load[f][l] - share);
      }
      if (f == 0 || cost < best_cost) {
        best = f;
        best_cost = cost;
      }
    }
    fold_of_group[g] = best;
    for (int l = 0; l < 2; ++l) load[best][l] += count[g][l];
  }
  std::vector<int> out;
  for (size_t g : index) out.push_back(fold_of_group[g]);
  return out;
}

Interval bootstrap_groups(const std::vector<std::string>& groups,
                          const std::function<double(const std::vector<size_t>&)>& statistic, int resamples,
                          uint64_t seed) {
  std::vector<size_t> index;
  auto names = distinct_groups(groups, index);
  std::vector<std::vector<size_t>> members(names.size());
  for (size_t i = 0; i < index.size(); ++i) members[index[i]].push_back(i);
  std::vector<size_t> all(groups.size());
  std::iota(all.begin(), all.end(), size_t{0});
  Interval ci;
  ci.estimate = statistic(all);
  ci.low = ci.high = ci.estimate;
  if (names.empty() || resamples < 2) return ci;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, names.size() - 1);
  std::vector<double> values;
  for (int r = 0; r < resamples; ++r) {
    std::vector<size_t> items;
    for (size_t n = 0; n < names.size(); ++n) {
      const auto& m = members[pick(rng)];
      items.insert(items.end(), m.begin(), m.end());
    }
    values.push_back(statistic(items));
  }
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    double pos = q * (values.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (pos - lo) * (values[hi] - values[lo]);
  };
  ci.low = at(0.025);
  ci.high = at(0.975);
  return ci;
}

}  // namespace clgen::predict
