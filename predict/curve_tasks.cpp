// The two tasks as curve data (device mapping, workgroup size), the domain
// map, synthetic sets of equal size, and the per-size mapping summary.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "predict/curves.h"
#include "predict/experiment.h"
#include "support/files.h"

namespace clgen::predict {

namespace {

double runtime_on(const MappingRow& r, Device d) { return d == Device::kGpu ? r.runtime_gpu : r.runtime_cpu; }

std::vector<std::string> shuffled_groups(const std::vector<MappingRow>& rows, uint64_t seed) {
  std::set<std::string> s;
  for (const auto& r : rows) s.insert(r.group);
  std::vector<std::string> names(s.begin(), s.end());
  std::mt19937_64 rng(seed);
  std::shuffle(names.begin(), names.end(), rng);
  return names;
}

std::vector<MappingRow> rows_of(const std::vector<MappingRow>& rows, const std::set<std::string>& groups) {
  std::vector<MappingRow> out;
  for (const auto& r : rows)
    if (groups.count(r.group)) out.push_back(r);
  return out;
}

// Cuts every set to the same number of its groups (the smallest set's),
// chosen by a seeded shuffle of each set's sorted group names.
template <class T, class GroupOf>
void equalize_sets(std::vector<std::vector<T>>& sets, GroupOf group_of, uint64_t seed) {
  if (sets.empty()) return;
  size_t least = SIZE_MAX;
  std::vector<std::vector<std::string>> order;
  for (const auto& set : sets) {
    std::set<std::string> names;
    for (const auto& item : set) names.insert(group_of(item));
    order.emplace_back(names.begin(), names.end());
    std::mt19937_64 rng(seed);
    std::shuffle(order.back().begin(), order.back().end(), rng);
    least = std::min(least, order.back().size());
  }
  for (size_t a = 0; a < sets.size(); ++a) {
    const std::set<std::string> keep(order[a].begin(), order[a].begin() + std::ptrdiff_t(least));
    auto& set = sets[a];
    set.erase(std::remove_if(set.begin(), set.end(), [&](const T& item) { return !keep.count(group_of(item)); }),
              set.end());
  }
}

// Items by steering ("undirected" when empty) as arms "real+<steering>":
// undirected first, since every other arm is compared with the first.
template <class T, class SteeringOf>
std::pair<std::vector<std::vector<T>>, std::vector<std::string>> arms_by_steering(std::vector<T> items,
                                                                                  SteeringOf steering_of) {
  std::map<std::string, std::vector<T>> by;
  for (auto& item : items) {
    const std::string& s = steering_of(item);
    by[s.empty() ? std::string("undirected") : s].push_back(std::move(item));
  }
  std::pair<std::vector<std::vector<T>>, std::vector<std::string>> out;
  for (auto& [name, set] : by) {
    const bool first = name == "undirected";
    out.first.insert(first ? out.first.begin() : out.first.end(), std::move(set));
    out.second.insert(first ? out.second.begin() : out.second.end(), "real+" + name);
  }
  return out;
}

}  // namespace

Expected<CurveData> mapping_curve_data(const MappingModelSpec& spec, MappingCurveInput input, bool group_by_kernel,
                                       const std::map<std::string, std::string>& domain_of) {
  if (input.real.empty()) return invalid_argument("mapping curve: no real (non-synthetic) rows");
  if (input.arm_names.size() != input.synthetic.size())
    return internal_error("mapping curve: one name per synthetic set expected");
  auto in = std::make_shared<const MappingCurveInput>(std::move(input));
  CurveData c;
  c.arms = in->arm_names;
  for (const auto& s : in->synthetic) c.arm_items.push_back(s.size());
  const Device fixed = best_static_device(in->real);
  for (const auto& r : in->real) {
    c.groups.push_back(group_by_kernel ? r.benchmark : r.group);
    c.static_share.push_back(std::min(r.runtime_cpu, r.runtime_gpu) / runtime_on(r, fixed));
    c.fixed_ok.push_back(1);
  }
  if (!domain_of.empty())
    for (const auto& r : in->real) {
      auto it = domain_of.find(r.group);
      c.domains.push_back(it == domain_of.end() ? "" : it->second);
    }
  c.fit_score = [in, spec, fixed](const std::vector<size_t>& train, int arm, const std::vector<size_t>& test,
                                  uint64_t seed) -> Expected<std::vector<ItemScore>> {
    std::vector<MappingRow> rows, test_rows;
    for (size_t i : train) rows.push_back(in->real[i]);
    if (arm >= 0) rows.insert(rows.end(), in->synthetic[arm].begin(), in->synthetic[arm].end());
    for (size_t i : test) test_rows.push_back(in->real[i]);
    if (rows.empty()) return invalid_argument("mapping curve: no training rows");
    std::vector<Device> pred;
    const bool one_class =
        std::all_of(rows.begin(), rows.end(), [&](const MappingRow& r) { return r.oracle == rows.front().oracle; });
    if (one_class) {
      pred.assign(test_rows.size(), rows.front().oracle);
    } else {
      MappingModelSpec s = spec;
      s.params.seed = seed;
      ASSIGN_OR_RETURN(MappingModel m, MappingModel::train(s, rows));
      ASSIGN_OR_RETURN(pred, m.predict(test_rows));
    }
    std::vector<ItemScore> out;
    for (size_t j = 0; j < test_rows.size(); ++j) {
      const auto& r = test_rows[j];
      const double chosen = runtime_on(r, pred[j]);
      out.push_back({std::min(r.runtime_cpu, r.runtime_gpu) / chosen, std::log(runtime_on(r, fixed) / chosen)});
    }
    return out;
  };
  return c;
}

Expected<CurveData> wgsize_curve_data(const WgModelSpec& spec, const WgDataset& dataset, const std::string& device,
                                      bool group_by_kernel, const std::map<std::string, std::string>& domain_of,
                                      bool by_steering, uint64_t seed) {
  auto d = std::make_shared<const WgDataset>(dataset);
  auto real = std::make_shared<std::vector<size_t>>();
  std::vector<size_t> synthetic_scenarios;
  for (size_t i = 0; i < d->scenarios.size(); ++i) {
    const auto& s = d->scenarios[i];
    if (!device.empty() && s.device != device) continue;
    (is_synthetic(s.origin) ? synthetic_scenarios : *real).push_back(i);
  }
  if (real->empty()) return invalid_argument(fmt::format("wgsize curve: no real scenario on device '{}'", device));
  const size_t fixed = wg_baseline(*d, *real);
  CurveData c;
  auto synthetic = std::make_shared<std::vector<std::vector<size_t>>>();
  if (by_steering) {
    std::tie(*synthetic, c.arms) = arms_by_steering(
        std::move(synthetic_scenarios), [&](size_t i) -> const std::string& { return d->scenarios[i].steering; });
    equalize_sets(
        *synthetic, [&](size_t i) { return d->scenarios[i].split_group(); }, seed);
  } else if (!synthetic_scenarios.empty()) {
    synthetic->push_back(std::move(synthetic_scenarios));
    c.arms = {"real+synthetic"};
  }
  for (const auto& set : *synthetic) c.arm_items.push_back(set.size());
  for (size_t i : *real) {
    const auto& s = d->scenarios[i];
    c.groups.push_back(group_by_kernel ? s.kernel : s.split_group());
    c.static_share.push_back(wg_performance(*d, i, fixed));
    c.fixed_ok.push_back(d->legal(i, fixed));
    if (!domain_of.empty()) {
      auto it = domain_of.find(s.split_group());
      c.domains.push_back(it == domain_of.end() ? "" : it->second);
    }
  }
  c.fit_score = [d, real, synthetic, spec, fixed](const std::vector<size_t>& train, int arm,
                                                  const std::vector<size_t>& test,
                                                  uint64_t seed) -> Expected<std::vector<ItemScore>> {
    std::vector<size_t> tr, te;
    for (size_t j : train) tr.push_back((*real)[j]);
    if (arm >= 0) tr.insert(tr.end(), (*synthetic)[arm].begin(), (*synthetic)[arm].end());
    for (size_t j : test) te.push_back((*real)[j]);
    ASSIGN_OR_RETURN(WgsizeModel m, WgsizeModel::train(spec, *d, tr));
    ASSIGN_OR_RETURN(auto picks, m.choose(*d, te, seed, nullptr));
    std::vector<ItemScore> out;
    for (size_t j = 0; j < te.size(); ++j) {
      const size_t i = te[j];
      const auto& rt = d->scenarios[i].runtimes;
      const int chosen = picks[j];
      ItemScore s;
      s.share = wg_performance(*d, i, chosen);
      if (d->legal(i, fixed) && chosen >= 0 && d->legal(i, chosen)) s.log_speedup = std::log(rt[fixed] / rt[chosen]);
      out.push_back(s);
    }
    return out;
  };
  return c;
}

Expected<std::map<std::string, std::string>> read_domain_map(const std::vector<std::string>& paths) {
  std::map<std::string, std::string> out;
  for (const auto& path : paths) {
    ASSIGN_OR_RETURN(std::string text, read_file(path));
    auto split = [](const std::string& line) {
      std::vector<std::string> f;
      size_t start = 0;
      while (true) {
        size_t tab = line.find('\t', start);
        f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
        if (tab == std::string::npos) break;
        start = tab + 1;
      }
      if (!f.empty() && !f.back().empty() && f.back().back() == '\r') f.back().pop_back();
      return f;
    };
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    if (lines.empty()) return parse_error(fmt::format("{}: empty domain table", path));
    auto header = split(lines[0]);
    int c_key = -1, c_domain = -1;
    for (size_t i = 0; i < header.size(); ++i) {
      if ((header[i] == "repository" || header[i] == "group") && c_key < 0) c_key = static_cast<int>(i);
      if (header[i] == "domain") c_domain = static_cast<int>(i);
    }
    if (c_key < 0 || c_domain < 0)
      return parse_error(fmt::format("{}: the header needs a repository (or group) and a domain column", path));
    for (size_t l = 1; l < lines.size(); ++l) {
      if (lines[l].empty()) continue;
      auto f = split(lines[l]);
      if (static_cast<int>(f.size()) <= std::max(c_key, c_domain))
        return parse_error(fmt::format("{}: line {}: {} fields, too few", path, l + 1, f.size()));
      if (!f[c_key].empty()) out[f[c_key]] = f[c_domain];
    }
  }
  return out;
}

void equalize_synthetic(std::vector<std::vector<MappingRow>>& sets, uint64_t seed) {
  equalize_sets(
      sets, [](const MappingRow& r) { return r.group; }, seed);
}

std::pair<std::vector<std::vector<MappingRow>>, std::vector<std::string>> split_by_steering(
    std::vector<MappingRow> rows) {
  return arms_by_steering(std::move(rows), [](const MappingRow& r) -> const std::string& { return r.steering; });
}

std::pair<std::vector<MappingRow>, std::vector<MappingRow>> split_by_group(const std::vector<MappingRow>& rows,
                                                                           uint64_t seed) {
  auto names = shuffled_groups(rows, seed);
  const size_t half = (names.size() + 1) / 2;
  std::set<std::string> first(names.begin(), names.begin() + half), second(names.begin() + half, names.end());
  return {rows_of(rows, first), rows_of(rows, second)};
}

std::vector<SizeSummary> mapping_sizes(const std::vector<MappingRow>& rows) {
  std::map<std::string, std::vector<const MappingRow*>> by;
  for (const auto& r : rows) by[r.dataset].push_back(&r);
  auto geo = [](const std::vector<MappingRow>& rs) {
    if (rs.empty()) return 1.0;
    const Device st = best_static_device(rs);
    double sum = 0;
    for (const auto& r : rs) sum += std::log(runtime_on(r, st) / std::min(r.runtime_cpu, r.runtime_gpu));
    return std::exp(sum / rs.size());
  };
  std::vector<SizeSummary> out;
  for (const auto& [size, rs] : by) {
    SizeSummary s;
    s.size = size;
    std::vector<MappingRow> real, all;
    for (const MappingRow* r : rs) {
      const bool cpu = r->oracle == Device::kCpu;
      if (is_synthetic(r->origin)) {
        ++s.synthetic_rows;
        s.synthetic_cpu += cpu;
      } else {
        ++s.real_rows;
        s.real_cpu += cpu;
        real.push_back(*r);
      }
      all.push_back(*r);
    }
    if (!real.empty()) s.real_static = best_static_device(real);
    s.real_oracle_over_static = geo(real);
    s.all_oracle_over_static = geo(all);
    out.push_back(s);
  }
  auto number = [](const std::string& v, double* x) {
    char* end = nullptr;
    *x = std::strtod(v.c_str(), &end);
    return !v.empty() && end && *end == '\0';
  };
  bool numeric = true;
  double unused;
  for (const auto& s : out) numeric = numeric && number(s.size, &unused);
  if (numeric)
    std::sort(out.begin(), out.end(), [&](const SizeSummary& a, const SizeSummary& b) {
      double x, y;
      number(a.size, &x);
      number(b.size, &y);
      return x < y;
    });
  return out;
}

std::vector<std::string> two_sided_sizes(const std::vector<SizeSummary>& sizes, double ratio) {
  std::vector<std::string> out;
  for (const auto& s : sizes)
    if (s.real_rows > 0 && s.real_oracle_over_static >= ratio) out.push_back(s.size);
  return out;
}

}  // namespace clgen::predict
