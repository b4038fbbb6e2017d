// `clgen predict experiment`: real vs real + synthetic training data for the
// workgroup-size model (per device) or the device-mapping model, scored on
// held-out real kernels with repeated grouped folds and bootstrap intervals.
#include <cstdio>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/command.h"
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

Status run_mapping(const ExperimentCliOptions& o) {
  ASSIGN_OR_RETURN(auto spec, predict::find_mapping_model(o.model));
  ASSIGN_OR_RETURN(auto rows, predict::load_mapping_csv(o.data));
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
  x->final_callback([o, &action] {
    action = [o]() -> Status {
      if (o->group != "program" && o->group != "kernel")
        return usage_error(fmt::format("--group must be program or kernel, not '{}'", o->group));
      o->run.group_by_kernel = o->group == "kernel";
      if (o->task == "wgsize") return run_wgsize(*o);
      if (o->task == "mapping") return run_mapping(*o);
      return usage_error(fmt::format("--task must be wgsize or mapping, not '{}'", o->task));
    };
  });
}

}  // namespace clgen::cli
