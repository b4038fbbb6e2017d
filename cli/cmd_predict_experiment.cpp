// `clgen predict experiment`: real vs real + synthetic training data for the
// workgroup-size model (per device) or the device-mapping model, scored on
// held-out real kernels with repeated grouped folds and bootstrap intervals.
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "cli/command.h"
#include "predict/curves.h"
#include "predict/experiment.h"
#include "support/csv.h"
#include "support/files.h"

namespace clgen::cli {

namespace {

struct ExperimentCliOptions {
  std::string task = "wgsize";  // wgsize | mapping
  std::string data;
  std::string model = "best";
  std::string out;                // CSV of the results
  std::string group = "program";  // program | kernel
  predict::ExperimentOptions run;
  // Learning curves and domain holdouts (predict/curves.h).
  std::string train_groups;               // "2,4,8,16,all": k real groups to train on
  int draws = 20;                         // draws of k groups per point
  std::string holdout_domain;             // "all" or a domain name
  std::vector<std::string> domain_files;  // group -> domain TSVs (a MANIFEST.tsv)
  std::string compare_synthetic;          // mapping: a second synthetic set, from another export
  bool split_synthetic = false;           // mapping: the data's synthetic rows as two halves
  bool by_steering = false;               // one synthetic arm per steering column value
  std::string sizes;                      // mapping: global sizes to keep, or "two-sided"
  double two_sided_ratio = 1.2;           // oracle over static at which a size counts as two-sided
  std::string size_table;                 // mapping: CSV of the per-size summary
};

std::string ci(const predict::Interval& i, double scale, int digits) {
  return fmt::format("{:.{}f} [{:.{}f}, {:.{}f}]", scale * i.estimate, digits, scale * i.low, digits, scale * i.high,
                     digits);
}

std::string ci_fields(const predict::Interval& i) {
  return fmt::format("{:.6f},{:.6f},{:.6f}", i.estimate, i.low, i.high);
}

Status run_wgsize(const ExperimentCliOptions& o) {
  ASSIGN_OR_RETURN(auto spec, predict::find_wgsize_model(o.model));
  ASSIGN_OR_RETURN(auto data, predict::load_wgsize_csv(o.data));
  if (data.kernel_feature_names.empty())
    std::fprintf(stderr,
                 "clgen predict experiment: %s has no static kernel features; unseen kernels get "
                 "all-zero kernel one-hots\n",
                 o.data.c_str());
  std::string csv =
      "device,model,arm,real_scenarios,real_kernels,real_groups,synthetic_scenarios,synthetic_kernels,"
      "fixed_size,fixed_share,fixed_legal,oracle_over_fixed,oracle_over_fixed_lo,oracle_over_fixed_hi,"
      "default_known,default_share,oracle_over_default,oracle_over_default_lo,oracle_over_default_hi,"
      "oracle_share,oracle_share_lo,oracle_share_hi,speedup_fixed,speedup_fixed_lo,speedup_fixed_hi,"
      "speedup_default,speedup_default_lo,speedup_default_hi,gain,gain_lo,gain_hi\n";
  std::printf(
      "workgroup-size experiment: model %s, %d x %d-fold cross-validation grouped by %s over real "
      "kernels,\n95%% bootstrap over real kernel groups (%d resamples) of per-scenario values averaged "
      "over the repeats\n",
      spec.name.c_str(), o.run.repeats, o.run.folds, o.group.c_str(), o.run.resamples);
  for (const auto& device : data.devices) {
    ASSIGN_OR_RETURN(auto ex, predict::wgsize_experiment(spec, data, device, o.run));
    std::printf("\n== %s ==\n", device.c_str());
    std::printf("real: %zu scenarios, %zu kernels (%zu groups); synthetic: %zu scenarios, %zu kernels\n",
                ex.real_scenarios, ex.real_kernels, ex.real_groups, ex.synthetic_scenarios, ex.synthetic_kernels);
    std::printf(
        "best fixed size %s: %.1f%% of oracle (illegal = 0), legal in %zu scenarios; oracle speedup over "
        "it %s (geomean where legal)\n",
        ex.fixed_size.c_str(), 100 * ex.fixed_share, ex.fixed_legal, ci(ex.oracle_over_fixed, 1, 3).c_str());
    std::printf("oracle beats the best fixed size by >= 10%%: %s\n", ex.fixed_legal == 0
                                                                         ? "unknown (the fixed size is legal nowhere)"
                                                                     : ex.oracle_over_fixed.estimate >= 1.10 ? "yes"
                                                                                                             : "no");
    if (ex.default_known == 0)
      std::printf("driver default local size: unknown (no default_local_size column, or it is never a passing size)\n");
    else
      std::printf("driver default local size: known in %zu scenarios, %.1f%% of oracle; oracle speedup over it %s\n",
                  ex.default_known, 100 * ex.default_share, ci(ex.oracle_over_default, 1, 3).c_str());
    std::printf("%-16s %-26s %-26s %-26s\n", "training data", "% of oracle", "speedup vs fixed", "speedup vs default");
    auto row = [&](const char* arm, const predict::WgArm& a, const predict::Interval* gain) {
      std::printf("%-16s %-26s %-26s %-26s\n", arm, ci(a.oracle_share, 100, 1).c_str(),
                  ci(a.speedup_fixed, 1, 3).c_str(), ci(a.speedup_default, 1, 3).c_str());
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{:.6f},{},{},{},{:.6f},{},{},{},{},{}\n", csv_field(device),
                         ex.model, arm, ex.real_scenarios, ex.real_kernels, ex.real_groups, ex.synthetic_scenarios,
                         ex.synthetic_kernels, ex.fixed_size, ex.fixed_share, ex.fixed_legal,
                         ci_fields(ex.oracle_over_fixed), ex.default_known, ex.default_share,
                         ci_fields(ex.oracle_over_default), ci_fields(a.oracle_share), ci_fields(a.speedup_fixed),
                         ci_fields(a.speedup_default), gain ? ci_fields(*gain) : std::string(",,"));
    };
    row("real", ex.real, nullptr);
    if (ex.has_mixed) {
      row("real+synthetic", ex.mixed, &ex.gain);
      std::printf("gain in %% of oracle from adding synthetic kernels: %s points\n", ci(ex.gain, 100, 2).c_str());
    } else {
      std::printf("no synthetic scenarios on this device: real + synthetic not run\n");
    }
  }
  if (!o.out.empty()) RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  return ok_status();
}

Expected<std::vector<predict::MappingRow>> apply_sizes(const ExperimentCliOptions& o,
                                                       std::vector<predict::MappingRow> rows);

Status run_mapping(const ExperimentCliOptions& o) {
  ASSIGN_OR_RETURN(auto spec, predict::find_mapping_model(o.model));
  ASSIGN_OR_RETURN(auto loaded, predict::load_mapping_csv(o.data));
  ASSIGN_OR_RETURN(auto rows, apply_sizes(o, std::move(loaded)));
  ASSIGN_OR_RETURN(auto ex, predict::mapping_experiment(spec, rows, o.run));
  std::printf(
      "device-mapping experiment: model %s, %d x %d-fold cross-validation grouped by %s over real "
      "rows,\n95%% bootstrap over real groups (%d resamples) of per-row values averaged over the repeats\n",
      spec.name.c_str(), o.run.repeats, o.run.folds, o.group.c_str(), o.run.resamples);
  std::printf("real: %zu rows, %zu groups; synthetic: %zu rows, %zu groups\n", ex.real_rows, ex.real_groups,
              ex.synthetic_rows, ex.synthetic_groups);
  std::printf("static %s: accuracy %.2f%%, balanced %.2f%%, %.2f%% of oracle; oracle speedup over it %.3f\n",
              predict::device_name(ex.static_device), 100 * ex.static_accuracy, 100 * ex.static_balanced_accuracy,
              100 * ex.static_oracle_share, ex.oracle_speedup_static);
  std::printf("%-16s %-24s %-24s %-24s %-24s\n", "training data", "accuracy %", "balanced acc. %", "% of oracle",
              "speedup vs static");
  std::string csv =
      "model,arm,real_rows,real_groups,synthetic_rows,synthetic_groups,static_device,static_accuracy,"
      "static_balanced_accuracy,static_oracle_share,oracle_speedup_static,accuracy,accuracy_lo,accuracy_hi,"
      "balanced_accuracy,balanced_accuracy_lo,balanced_accuracy_hi,oracle_share,oracle_share_lo,oracle_share_hi,"
      "speedup_static,speedup_static_lo,speedup_static_hi,gain,gain_lo,gain_hi\n";
  auto row = [&](const char* arm, const predict::MappingArm& a, const predict::Interval* gain) {
    std::printf("%-16s %-24s %-24s %-24s %-24s\n", arm, ci(a.accuracy, 100, 2).c_str(),
                ci(a.balanced_accuracy, 100, 2).c_str(), ci(a.oracle_share, 100, 2).c_str(),
                ci(a.speedup_static, 1, 4).c_str());
    csv +=
        fmt::format("{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{},{}\n", ex.model, arm, ex.real_rows,
                    ex.real_groups, ex.synthetic_rows, ex.synthetic_groups, predict::device_name(ex.static_device),
                    ex.static_accuracy, ex.static_balanced_accuracy, ex.static_oracle_share, ex.oracle_speedup_static,
                    ci_fields(a.accuracy), ci_fields(a.balanced_accuracy), ci_fields(a.oracle_share),
                    ci_fields(a.speedup_static), gain ? ci_fields(*gain) : std::string(",,"));
  };
  row("real", ex.real, nullptr);
  if (ex.has_mixed) {
    row("real+synthetic", ex.mixed, &ex.gain);
    std::printf("gain in %% of oracle from adding synthetic rows: %s points\n", ci(ex.gain, 100, 2).c_str());
  } else {
    std::printf("no synthetic rows: real + synthetic not run\n");
  }
  if (!o.out.empty()) RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  return ok_status();
}

// "2,4,all" -> {2, 4, kAllGroups}.
Expected<std::vector<int>> parse_train_groups(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "all") {
      out.push_back(predict::kAllGroups);
      continue;
    }
    char* end = nullptr;
    long k = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || k < 1 || k > 1000000)
      return usage_error(fmt::format("--train-groups: '{}' is neither a count >= 1 nor 'all'", item));
    out.push_back(static_cast<int>(k));
  }
  if (out.empty()) return usage_error("--train-groups: give counts such as 2,4,8,all");
  return out;
}

bool curve_mode(const ExperimentCliOptions& o) { return !o.train_groups.empty() || !o.holdout_domain.empty(); }

predict::CurveOptions curve_options(const ExperimentCliOptions& o) {
  predict::CurveOptions c;
  c.draws = o.draws;
  c.resamples = o.run.resamples;
  c.seed = o.run.seed;
  c.threads = o.run.threads;
  return c;
}

const char* kCurveHeader =
    "task,device,model,regime,k,domain,draws,train_groups,test_groups,train_items,test_items,arm,arm_items,"
    "static_share,static_share_lo,static_share_hi,oracle_share,oracle_share_lo,oracle_share_hi,"
    "speedup_fixed,speedup_fixed_lo,speedup_fixed_hi,gain,gain_lo,gain_hi,speedup_ratio,speedup_ratio_lo,"
    "speedup_ratio_hi,draws_gaining,versus_first,versus_first_lo,versus_first_hi\n";

// Prints the points and appends their CSV rows.
void report_points(const std::string& task, const std::string& device, const std::string& model,
                   const predict::CurveData& data, const std::vector<predict::CurvePoint>& points, std::string& csv) {
  for (const auto& p : points) {
    const bool k_regime = p.domain.empty();
    std::printf("\n%s: %zu draw(s); train %.1f groups (%.1f real items), test %.1f groups (%.1f items)\n",
                k_regime ? fmt::format("k = {} training groups", p.k).c_str()
                         : fmt::format("held-out domain '{}'", p.domain).c_str(),
                p.draws, p.train_groups, p.train_items, p.test_groups, p.test_items);
    std::printf("  %-22s %-26s %-26s %-28s %s\n", "training data", "% of oracle", "speedup vs fixed", "gain (points)",
                "speedup ratio");
    std::printf("  %-22s %-26s %-26s\n", "fixed choice", ci(p.static_share, 100, 1).c_str(), "1");
    for (size_t a = 0; a < p.arms.size(); ++a) {
      const auto& arm = p.arms[a];
      std::string gain = a ? ci(p.gain[a - 1], 100, 2) : "", ratio = a ? ci(p.speedup_ratio[a - 1], 1, 4) : "";
      if (a) gain += fmt::format(" ({:.0f}% of draws > 0)", 100 * p.draws_gaining[a - 1]);
      std::printf("  %-22s %-26s %-26s %-28s %s\n", arm.name.c_str(), ci(arm.oracle_share, 100, 1).c_str(),
                  ci(arm.speedup_fixed, 1, 4).c_str(), gain.c_str(), ratio.c_str());
      csv += fmt::format("{},{},{},{},{},{},{},{:.2f},{:.2f},{:.2f},{:.2f},{},{},{},{},{},{},{},{},{}\n", task,
                         csv_field(device), model, k_regime ? "k" : "domain", k_regime ? std::to_string(p.k) : "",
                         csv_field(p.domain), p.draws, p.train_groups, p.test_groups, p.train_items, p.test_items,
                         csv_field(arm.name), a ? std::to_string(data.arm_items[a - 1]) : "", ci_fields(p.static_share),
                         ci_fields(arm.oracle_share), ci_fields(arm.speedup_fixed),
                         a ? ci_fields(p.gain[a - 1]) : std::string(",,"),
                         a ? ci_fields(p.speedup_ratio[a - 1]) : std::string(",,"),
                         a ? fmt::format("{:.4f}", p.draws_gaining[a - 1]) : std::string(),
                         a ? ci_fields(p.versus_first[a - 1]) : std::string(",,"));
      if (a > 1)
        std::printf("  %-22s %s points of oracle against %s (paired)\n", "", ci(p.versus_first[a - 1], 100, 2).c_str(),
                    p.arms[1].name.c_str());
    }
  }
}

// Learning curves and/or domain holdouts on one task's curve data.
Status run_curves(const ExperimentCliOptions& o, const std::string& task, const std::string& device,
                  const std::string& model, const predict::CurveData& data, std::string& csv) {
  predict::CurveOptions c = curve_options(o);
  const size_t groups = std::set<std::string>(data.groups.begin(), data.groups.end()).size();
  std::printf("real: %zu items in %zu groups;", data.groups.size(), groups);
  for (size_t a = 0; a < data.arms.size(); ++a)
    std::printf(" %s: %zu synthetic items;", data.arms[a].c_str(), data.arm_items[a]);
  std::printf("\n");
  if (!o.train_groups.empty()) {
    ASSIGN_OR_RETURN(auto ks, parse_train_groups(o.train_groups));
    for (int k : ks) {
      if (k == predict::kAllGroups || static_cast<size_t>(k) < groups) {
        c.train_groups.push_back(k);
      } else {
        std::printf("k = %d: skipped (%zu real groups; at least one must be left to test on)\n", k, groups);
      }
    }
    if (groups < 2) return invalid_argument(fmt::format("learning curve: {} real group(s), need 2", groups));
    ASSIGN_OR_RETURN(auto points, predict::learning_curve(data, c));
    report_points(task, device, model, data, points, csv);
  }
  if (!o.holdout_domain.empty()) {
    std::vector<std::string> held;
    if (o.holdout_domain != "all") held.push_back(o.holdout_domain);
    ASSIGN_OR_RETURN(auto points, predict::domain_holdout(data, held, c));
    report_points(task, device, model, data, points, csv);
  }
  return ok_status();
}

Expected<std::map<std::string, std::string>> domain_map(const ExperimentCliOptions& o) {
  if (!o.holdout_domain.empty() && o.domain_files.empty())
    return usage_error("--holdout-domain needs --domains FILE (a MANIFEST.tsv, or a TSV of group and domain)");
  if (o.domain_files.empty()) return std::map<std::string, std::string>{};
  return predict::read_domain_map(o.domain_files);
}

// Prints (and writes, with --size-table) the per-size summary; applies --sizes.
Expected<std::vector<predict::MappingRow>> apply_sizes(const ExperimentCliOptions& o,
                                                       std::vector<predict::MappingRow> rows) {
  auto sizes = predict::mapping_sizes(rows);
  if (!o.sizes.empty() || !o.size_table.empty()) {
    std::printf("per global size (real rows; 'all' counts synthetic rows too):\n");
    std::printf("  %-10s %-10s %-10s %-10s %-10s %-8s %-22s %s\n", "size", "real", "real CPU", "synthetic", "syn. CPU",
                "static", "real oracle/static", "all oracle/static");
    std::string csv =
        "size,real_rows,real_cpu_best,synthetic_rows,synthetic_cpu_best,real_static,real_oracle_over_static,"
        "all_oracle_over_static\n";
    for (const auto& s : sizes) {
      std::printf("  %-10s %-10zu %-10zu %-10zu %-10zu %-8s %-22.4f %.4f\n", s.size.c_str(), s.real_rows, s.real_cpu,
                  s.synthetic_rows, s.synthetic_cpu, predict::device_name(s.real_static), s.real_oracle_over_static,
                  s.all_oracle_over_static);
      csv += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f}\n", csv_field(s.size), s.real_rows, s.real_cpu,
                         s.synthetic_rows, s.synthetic_cpu, predict::device_name(s.real_static),
                         s.real_oracle_over_static, s.all_oracle_over_static);
    }
    auto two = predict::two_sided_sizes(sizes, o.two_sided_ratio);
    std::printf("sizes where the oracle beats the static device by >= %.2fx on the real rows: %s\n", o.two_sided_ratio,
                two.empty() ? "none" : fmt::format("{}", fmt::join(two, ", ")).c_str());
    if (!o.size_table.empty()) RETURN_IF_ERROR(write_file_atomic(o.size_table, csv));
  }
  if (o.sizes.empty()) return rows;
  std::set<std::string> keep;
  if (o.sizes == "two-sided") {
    auto two = predict::two_sided_sizes(sizes, o.two_sided_ratio);
    keep.insert(two.begin(), two.end());
    if (keep.empty())
      return invalid_argument(fmt::format(
          "--sizes two-sided: no global size has an oracle >= {:.2f}x faster than its static device on the real rows",
          o.two_sided_ratio));
  } else {
    std::stringstream in(o.sizes);
    std::string item;
    while (std::getline(in, item, ',')) keep.insert(item);
  }
  std::vector<predict::MappingRow> kept;
  for (auto& r : rows)
    if (keep.count(r.dataset)) kept.push_back(std::move(r));
  if (kept.empty()) return invalid_argument(fmt::format("--sizes {}: no row has one of these sizes", o.sizes));
  std::printf("kept %zu rows at sizes %s\n", kept.size(), fmt::format("{}", fmt::join(keep, ", ")).c_str());
  return kept;
}

Status run_mapping_curves(const ExperimentCliOptions& o) {
  ASSIGN_OR_RETURN(auto spec, predict::find_mapping_model(o.model));
  ASSIGN_OR_RETURN(auto loaded, predict::load_mapping_csv(o.data));
  ASSIGN_OR_RETURN(auto rows, apply_sizes(o, std::move(loaded)));
  std::set<std::string> kept_sizes;
  for (const auto& r : rows) kept_sizes.insert(r.dataset);
  ASSIGN_OR_RETURN(auto domains, domain_map(o));
  predict::MappingCurveInput in;
  std::vector<predict::MappingRow> synthetic;
  for (auto& r : rows) (predict::is_synthetic(r.origin) ? synthetic : in.real).push_back(std::move(r));
  if (o.by_steering) {
    std::tie(in.synthetic, in.arm_names) = predict::split_by_steering(std::move(synthetic));
  } else if (o.split_synthetic) {
    auto [a, b] = predict::split_by_group(synthetic, o.run.seed);
    in.synthetic = {std::move(a), std::move(b)};
    in.arm_names = {"real+synthetic-A", "real+synthetic-B"};
  } else if (!synthetic.empty()) {
    in.synthetic.push_back(std::move(synthetic));
    in.arm_names.push_back("real+synthetic");
  }
  if (!o.compare_synthetic.empty()) {
    ASSIGN_OR_RETURN(auto other, predict::load_mapping_csv(o.compare_synthetic));
    std::vector<predict::MappingRow> syn;
    for (auto& r : other)  // at the sizes kept of the main data (--sizes), so both sets cover the same sizes
      if (predict::is_synthetic(r.origin) && (o.sizes.empty() || kept_sizes.count(r.dataset)))
        syn.push_back(std::move(r));
    if (syn.empty())
      return invalid_argument(fmt::format("--compare-synthetic {}: no synthetic rows", o.compare_synthetic));
    in.synthetic.push_back(std::move(syn));
    in.arm_names.push_back("real+compared");
  }
  if (in.synthetic.size() > 1) {
    predict::equalize_synthetic(in.synthetic, o.run.seed);
    std::printf("synthetic sets cut to the same number of kernel groups:");
    for (size_t a = 0; a < in.synthetic.size(); ++a)
      std::printf(" %s %zu rows;", in.arm_names[a].c_str(), in.synthetic[a].size());
    std::printf("\n");
  }
  std::printf(
      "device-mapping curves: model %s, groups by %s, %d draws per k, 95%% bootstrap over each draw's test "
      "groups (%d resamples) averaged over the draws\n",
      spec.name.c_str(), o.group.c_str(), o.draws, o.run.resamples);
  ASSIGN_OR_RETURN(auto data, predict::mapping_curve_data(spec, std::move(in), o.run.group_by_kernel, domains));
  std::string csv = kCurveHeader;
  RETURN_IF_ERROR(run_curves(o, "mapping", "", spec.name, data, csv));
  if (!o.out.empty()) RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  return ok_status();
}

Status run_wgsize_curves(const ExperimentCliOptions& o) {
  if (!o.compare_synthetic.empty() || o.split_synthetic || !o.sizes.empty())
    return usage_error("--compare-synthetic, --split-synthetic and --sizes are for --task mapping");
  ASSIGN_OR_RETURN(auto spec, predict::find_wgsize_model(o.model));
  ASSIGN_OR_RETURN(auto data, predict::load_wgsize_csv(o.data));
  ASSIGN_OR_RETURN(auto domains, domain_map(o));
  std::string csv = kCurveHeader;
  std::printf(
      "workgroup-size curves: model %s, groups by %s, %d draws per k, 95%% bootstrap over each draw's test "
      "groups (%d resamples) averaged over the draws\n",
      spec.name.c_str(), o.group.c_str(), o.draws, o.run.resamples);
  for (const auto& device : data.devices) {
    std::printf("\n== %s ==\n", device.c_str());
    ASSIGN_OR_RETURN(auto cd, predict::wgsize_curve_data(spec, data, device, o.run.group_by_kernel, domains,
                                                         o.by_steering, o.run.seed));
    RETURN_IF_ERROR(run_curves(o, "wgsize", device, spec.name, cd, csv));
  }
  if (!o.out.empty()) RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  return ok_status();
}

}  // namespace

void add_predict_experiment_command(CLI::App& predict, Action& action) {
  auto o = std::make_shared<ExperimentCliOptions>();
  CLI::App* x = predict.add_subcommand(
      "experiment", "Train on real kernels only vs real + synthetic, score on held-out real kernels");
  x->add_option("--task", o->task, "wgsize (per device) or mapping")->capture_default_str();
  x->add_option("--data", o->data, "Dataset CSV from clgen dataset export (an origin column tells synthetic rows)")
      ->required()
      ->check(CLI::ExistingFile);
  x->add_option("--model", o->model, "Model name")->capture_default_str();
  x->add_option("--cv-folds", o->run.folds, "Grouped folds over the real kernels")
      ->capture_default_str()
      ->check(CLI::Range(2, 100));
  x->add_option("--repeats", o->run.repeats, "Repeated grouped splits, one fold seed each")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  x->add_option("--bootstrap", o->run.resamples, "Bootstrap resamples over real kernel groups")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  x->add_option("--seed", o->run.seed, "Seed of the folds and the bootstrap")->capture_default_str();
  x->add_option("--jobs,-j", o->run.threads, "Training threads (0: the cores, at most 16)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 256u));
  x->add_option("--group", o->group, "What folds keep whole: program (the group column) or kernel")
      ->capture_default_str();
  x->add_option("--out", o->out, "CSV of the results");
  x->add_option("--train-groups", o->train_groups,
                "Learning curve: train on k real groups drawn at random (e.g. 2,4,8,16,all; all = every group "
                "but one), test on the others");
  x->add_option("--draws", o->draws, "Draws of the k training groups per point (every subset once if fewer)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  x->add_option("--holdout-domain", o->holdout_domain,
                "Train on the other domains' real kernels, test on this domain's ('all': each in turn)");
  x->add_option("--domains", o->domain_files,
                "TSV mapping groups to domains (repository or group column, domain column; e.g. MANIFEST.tsv); "
                "repeatable, later files win")
      ->check(CLI::ExistingFile);
  auto* compare =
      x->add_option("--compare-synthetic", o->compare_synthetic,
                    "Mapping curves: a second synthetic set (another export's synthetic rows); sets are cut to the "
                    "same number of kernel groups")
          ->check(CLI::ExistingFile);
  auto* split = x->add_flag("--split-synthetic", o->split_synthetic,
                            "Mapping curves: compare two halves of the data's synthetic rows (split by group)");
  x->add_flag("--by-steering", o->by_steering,
              "Curves: one synthetic arm per value of the steering column (undirected, features, explore, "
              "held-out), each cut to the same number of kernel groups")
      ->excludes(split)
      ->excludes(compare);
  x->add_option("--sizes", o->sizes,
                "Mapping: keep these global sizes (comma-separated dataset values), or 'two-sided': the sizes "
                "where the oracle beats the static device by --two-sided-ratio on the real rows");
  x->add_option("--two-sided-ratio", o->two_sided_ratio, "Oracle-over-static ratio of a two-sided size")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1000.0));
  x->add_option("--size-table", o->size_table, "Mapping: CSV of rows, CPU-best rows and oracle over static per size");
  x->final_callback([o, &action] {
    action = [o]() -> Status {
      if (o->group != "program" && o->group != "kernel")
        return usage_error(fmt::format("--group must be program or kernel, not '{}'", o->group));
      o->run.group_by_kernel = o->group == "kernel";
      const bool curves = curve_mode(*o);
      if (!curves && (!o->compare_synthetic.empty() || o->split_synthetic || o->by_steering))
        return usage_error(
            "--compare-synthetic, --split-synthetic and --by-steering need --train-groups or --holdout-domain");
      if (o->task == "wgsize") return curves ? run_wgsize_curves(*o) : run_wgsize(*o);
      if (o->task == "mapping") {
        return curves ? run_mapping_curves(*o) : run_mapping(*o);
      }
      return usage_error(fmt::format("--task must be wgsize or mapping, not '{}'", o->task));
    };
  });
}

}  // namespace clgen::cli
