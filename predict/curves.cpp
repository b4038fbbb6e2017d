// The curve engine: group draws, domain holdouts, training every (point,
// draw, arm) in parallel, and bootstrap intervals averaged over the draws.
#include "predict/curves.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>

#include <fmt/format.h>

#include "predict/parallel.h"

namespace clgen::predict {

namespace {

std::vector<std::string> sorted_distinct(const std::vector<std::string>& v) {
  std::set<std::string> s(v.begin(), v.end());
  return {s.begin(), s.end()};
}

// Number of k-subsets of n, saturated at `cap` + 1.
size_t choose_capped(size_t n, size_t k, size_t cap) {
  k = std::min(k, n - k);  // C(n, k) = C(n, n - k); the partial products of the smaller k stay below the result
  double c = 1;
  for (size_t i = 0; i < k; ++i) {
    c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
    if (c > static_cast<double>(cap)) return cap + 1;
  }
  return static_cast<size_t>(std::llround(c));
}

GroupDraw draw_of(const std::vector<std::string>& names, const std::vector<char>& in_train) {
  GroupDraw d;
  for (size_t i = 0; i < names.size(); ++i) (in_train[i] ? d.train : d.test).push_back(names[i]);
  return d;
}

// One point to run: per draw, the real items to train on and to test on.
struct Setup {
  int k = 0;
  std::string domain;
  std::vector<std::vector<size_t>> train, test;
};

double mean_share(const std::vector<ItemScore>& s, const std::vector<size_t>& items) {
  double sum = 0;
  for (size_t i : items) sum += s[i].share;
  return items.empty() ? 0 : sum / items.size();
}

// Mean log speedup over the items whose fixed choice ran; 0 when none did.
double mean_log(const std::vector<ItemScore>& s, const std::vector<size_t>& test, const std::vector<char>& fixed_ok,
                const std::vector<size_t>& items) {
  double sum = 0;
  size_t n = 0;
  for (size_t i : items)
    if (fixed_ok[test[i]]) {
      sum += s[i].log_speedup;
      ++n;
    }
  return n ? sum / n : 0;
}

Interval exp_of(Interval i) { return {std::exp(i.estimate), std::exp(i.low), std::exp(i.high)}; }

Expected<std::vector<CurvePoint>> run_setups(const CurveData& data, const std::vector<Setup>& setups,
                                             const CurveOptions& o) {
  if (!data.fit_score) return internal_error("curve: no training function");
  const size_t arms = 1 + data.arms.size();
  // scores[point][draw][arm]: one ItemScore per test item of the draw.
  std::vector<std::vector<std::vector<std::vector<ItemScore>>>> scores(setups.size());
  struct Task {
    size_t point, draw, arm;
  };
  std::vector<Task> tasks;
  for (size_t p = 0; p < setups.size(); ++p) {
    scores[p].assign(setups[p].train.size(), std::vector<std::vector<ItemScore>>(arms));
    for (size_t d = 0; d < setups[p].train.size(); ++d)
      for (size_t a = 0; a < arms; ++a) tasks.push_back({p, d, a});
  }
  std::mutex mu;
  auto run = [&](size_t t) -> Status {
    const Task& k = tasks[t];
    const Setup& s = setups[k.point];
    // The arms of a draw share the learner's seed: they differ only in data.
    auto got = data.fit_score(s.train[k.draw], static_cast<int>(k.arm) - 1, s.test[k.draw], o.seed + k.draw);
    if (!got.ok())
      return got.status().with_context(fmt::format("{} {}, draw {}, arm {}", s.domain.empty() ? "k" : "domain",
                                                   s.domain.empty() ? std::to_string(s.k) : s.domain, k.draw,
                                                   k.arm == 0 ? std::string("real") : data.arms[k.arm - 1]));
    if (got->size() != s.test[k.draw].size()) return internal_error("curve: one score per test item expected");
    std::lock_guard<std::mutex> lock(mu);
    scores[k.point][k.draw][k.arm] = std::move(*got);
    return ok_status();
  };
  RETURN_IF_ERROR(run_parallel(tasks.size(), experiment_threads(o.threads, tasks.size()), run));

  std::vector<CurvePoint> out;
  for (size_t p = 0; p < setups.size(); ++p) {
    const Setup& s = setups[p];
    const auto& sc = scores[p];
    CurvePoint pt;
    pt.k = s.k;
    pt.domain = s.domain;
    pt.draws = s.train.size();
    std::vector<std::vector<std::string>> test_groups;
    for (size_t d = 0; d < pt.draws; ++d) {
      std::vector<std::string> g, tg;
      for (size_t i : s.train[d]) g.push_back(data.groups[i]);
      for (size_t i : s.test[d]) tg.push_back(data.groups[i]);
      pt.train_groups += static_cast<double>(sorted_distinct(g).size()) / pt.draws;
      pt.test_groups += static_cast<double>(sorted_distinct(tg).size()) / pt.draws;
      pt.train_items += static_cast<double>(s.train[d].size()) / pt.draws;
      pt.test_items += static_cast<double>(s.test[d].size()) / pt.draws;
      test_groups.push_back(std::move(tg));
    }
    pt.static_share = bootstrap_draws(
        test_groups,
        [&](size_t d, const std::vector<size_t>& it) {
          double sum = 0;
          for (size_t i : it) sum += data.static_share[s.test[d][i]];
          return it.empty() ? 0 : sum / it.size();
        },
        o.resamples, o.seed);
    for (size_t a = 0; a < arms; ++a) {
      CurveArm arm;
      arm.name = a == 0 ? "real" : data.arms[a - 1];
      arm.oracle_share = bootstrap_draws(
          test_groups, [&](size_t d, const std::vector<size_t>& it) { return mean_share(sc[d][a], it); }, o.resamples,
          o.seed);
      arm.speedup_fixed = exp_of(bootstrap_draws(
          test_groups,
          [&](size_t d, const std::vector<size_t>& it) { return mean_log(sc[d][a], s.test[d], data.fixed_ok, it); },
          o.resamples, o.seed));
      pt.arms.push_back(std::move(arm));
      if (a == 0) continue;
      pt.gain.push_back(bootstrap_draws(
          test_groups,
          [&](size_t d, const std::vector<size_t>& it) { return mean_share(sc[d][a], it) - mean_share(sc[d][0], it); },
          o.resamples, o.seed));
      pt.speedup_ratio.push_back(exp_of(bootstrap_draws(
          test_groups,
          [&](size_t d, const std::vector<size_t>& it) {
            return mean_log(sc[d][a], s.test[d], data.fixed_ok, it) - mean_log(sc[d][0], s.test[d], data.fixed_ok, it);
          },
          o.resamples, o.seed)));
      size_t gaining = 0;
      for (size_t d = 0; d < pt.draws; ++d) {
        std::vector<size_t> all(s.test[d].size());
        std::iota(all.begin(), all.end(), size_t{0});
        gaining += mean_share(sc[d][a], all) - mean_share(sc[d][0], all) > 1e-12;
      }
      pt.draws_gaining.push_back(static_cast<double>(gaining) / pt.draws);
      pt.versus_first.push_back(bootstrap_draws(
          test_groups,
          [&](size_t d, const std::vector<size_t>& it) { return mean_share(sc[d][a], it) - mean_share(sc[d][1], it); },
          o.resamples, o.seed));
    }
    out.push_back(std::move(pt));
  }
  return out;
}

}  // namespace

Expected<std::vector<GroupDraw>> draw_groups(const std::vector<std::string>& groups, int k, int draws, uint64_t seed) {
  const auto names = sorted_distinct(groups);
  const size_t n = names.size();
  if (k < 1 || static_cast<size_t>(k) >= n)
    return invalid_argument(fmt::format("drawing {} training groups of {}: need 1 <= k < the number of groups", k, n));
  if (draws < 1) return invalid_argument("drawing training groups: need at least one draw");
  std::vector<GroupDraw> out;
  if (choose_capped(n, k, draws) <= static_cast<size_t>(draws)) {
    // Every subset once: walk the combinations in lexicographic order.
    std::vector<char> pick(n, 0);
    std::fill(pick.begin(), pick.begin() + k, 1);
    do out.push_back(draw_of(names, pick));
    while (std::prev_permutation(pick.begin(), pick.end()));
    return out;
  }
  for (int d = 0; d < draws; ++d) {
    std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(k)) ^
                        (0xbf58476d1ce4e5b9ULL * static_cast<uint64_t>(d + 1)));
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<char> pick(n, 0);
    for (int i = 0; i < k; ++i) pick[order[i]] = 1;
    out.push_back(draw_of(names, pick));
  }
  return out;
}

Interval bootstrap_draws(const std::vector<std::vector<std::string>>& test_groups,
                         const std::function<double(size_t, const std::vector<size_t>&)>& statistic, int resamples,
                         uint64_t seed) {
  const size_t draws = test_groups.size();
  // Per draw: its distinct groups' member items.
  std::vector<std::vector<std::vector<size_t>>> members(draws);
  double est = 0;
  for (size_t d = 0; d < draws; ++d) {
    std::map<std::string, size_t> id;
    for (size_t i = 0; i < test_groups[d].size(); ++i) {
      auto [it, added] = id.emplace(test_groups[d][i], members[d].size());
      if (added) members[d].emplace_back();
      members[d][it->second].push_back(i);
    }
    std::vector<size_t> all(test_groups[d].size());
    std::iota(all.begin(), all.end(), size_t{0});
    est += statistic(d, all) / draws;
  }
  Interval ci{est, est, est};
  if (draws == 0 || resamples < 2) return ci;
  std::mt19937_64 rng(seed);
  std::vector<double> values;
  values.reserve(resamples);
  std::vector<size_t> items;
  std::uniform_int_distribution<size_t> pick_draw(0, draws - 1);
  for (int r = 0; r < resamples; ++r) {
    double v = 0;
    for (size_t n_draw = 0; n_draw < draws; ++n_draw) {
      const size_t d = pick_draw(rng);
      items.clear();
      const size_t g = members[d].size();
      if (g > 0) {
        std::uniform_int_distribution<size_t> pick(0, g - 1);
        for (size_t n = 0; n < g; ++n) {
          const auto& m = members[d][pick(rng)];
          items.insert(items.end(), m.begin(), m.end());
        }
      }
      v += statistic(d, items) / draws;
    }
    values.push_back(v);
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

Expected<std::vector<CurvePoint>> learning_curve(const CurveData& data, const CurveOptions& o) {
  const size_t n = sorted_distinct(data.groups).size();
  std::vector<Setup> setups;
  std::set<int> seen;
  for (int k : o.train_groups) {
    int kk = k == kAllGroups ? static_cast<int>(n) - 1 : k;
    if (!seen.insert(kk).second) continue;
    ASSIGN_OR_RETURN(auto draws, draw_groups(data.groups, kk, o.draws, o.seed));
    Setup s;
    s.k = kk;
    for (const auto& d : draws) {
      std::set<std::string> train(d.train.begin(), d.train.end());
      std::vector<size_t> tr, te;
      for (size_t i = 0; i < data.groups.size(); ++i) (train.count(data.groups[i]) ? tr : te).push_back(i);
      s.train.push_back(std::move(tr));
      s.test.push_back(std::move(te));
    }
    setups.push_back(std::move(s));
  }
  if (setups.empty()) return invalid_argument("learning curve: no training group counts given");
  return run_setups(data, setups, o);
}

Expected<std::vector<CurvePoint>> domain_holdout(const CurveData& data, const std::vector<std::string>& domains,
                                                 const CurveOptions& o) {
  if (data.domains.size() != data.groups.size())
    return invalid_argument("domain holdout: no domain is known for the real items");
  std::vector<std::string> known;
  for (const auto& d : sorted_distinct(data.domains))
    if (!d.empty()) known.push_back(d);
  if (known.empty()) return invalid_argument("domain holdout: no real item has a known domain");
  std::vector<std::string> held = domains.empty() ? known : domains;
  std::vector<Setup> setups;
  for (const auto& dom : held) {
    Setup s;
    s.domain = dom;
    std::vector<size_t> tr, te;
    for (size_t i = 0; i < data.domains.size(); ++i) (data.domains[i] == dom ? te : tr).push_back(i);
    if (te.empty())
      return invalid_argument(
          fmt::format("domain holdout: no real item of domain '{}' (known: {})", dom, fmt::join(known, "; ")));
    if (tr.empty()) return invalid_argument(fmt::format("domain holdout: every real item is of domain '{}'", dom));
    s.train.push_back(std::move(tr));
    s.test.push_back(std::move(te));
    setups.push_back(std::move(s));
  }
  return run_setups(data, setups, o);
}

}  // namespace clgen::predict
