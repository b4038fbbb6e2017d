// `clgen predict train|eval|apply`: device-mapping and workgroup-size models
// on CSV datasets (clgen's exports or the published reference data).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "predict/csv.h"
#include "predict/mapping.h"
#include "predict/wgsize.h"
#include "support/csv.h"
#include "support/files.h"
#include "support/progress.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

struct PredictOptions {
  std::string task = "mapping";   // mapping | wgsize
  std::string data;               // CSV dataset
  std::string folds;              // mapping: fold file (benchmark,dataset,fold)
  std::string model = "grewe";    // a model name, or "all" for eval
  std::string protocol = "both";  // eval: folds | lobo | both
  std::string out;                // train: model file; eval/apply: predictions CSV
  std::string model_file;         // apply: a model written by train
  int cv_folds = 10;              // wgsize: k of the k-fold cross-validation
  uint64_t seed = 204;            // wgsize: fold shuffle and random fallback
  std::string split = "kernel";   // wgsize: kernel (grouped) | scenario (ADAPT'16's protocol)
};

Status check_task(const PredictOptions& o) {
  if (o.task != "mapping" && o.task != "wgsize")
    return usage_error(fmt::format("--task must be mapping or wgsize, not '{}'", o.task));
  if (o.data.empty()) return usage_error("--data CSV is required");
  // Every input is checked before any is read, so a missing one is named
  // rather than reported as another's parse error.
  for (const std::string* path : {&o.data, &o.folds, &o.model_file})
    if (!path->empty() && ::access(path->c_str(), R_OK) != 0)
      return not_found(fmt::format("reading {}: {}", *path, std::strerror(errno)));
  return ok_status();
}

Expected<std::vector<predict::MappingRow>> load_mapping(const PredictOptions& o) {
  ASSIGN_OR_RETURN(auto rows, predict::load_mapping_csv(o.data));
  if (!o.folds.empty()) RETURN_IF_ERROR(predict::assign_folds(rows, o.folds));
  return rows;
}

// Evaluation rows: folds from the fold file, else stratified --cv-folds
// folds shuffled with --seed (clgen's own exports have no fold file).
Expected<std::vector<predict::MappingRow>> load_mapping_for_eval(const PredictOptions& o) {
  ASSIGN_OR_RETURN(auto rows, load_mapping(o));
  if (o.folds.empty() && o.protocol != "lobo")
    RETURN_IF_ERROR(predict::assign_stratified_folds(rows, o.cv_folds, o.seed));
  return rows;
}

std::string mapping_predictions_csv(const std::vector<predict::MappingRow>& rows,
                                    const std::vector<predict::Device>& pred) {
  std::string out = "benchmark,dataset,oracle,predicted,runtime_cpu,runtime_gpu\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out += fmt::format("{},{},{},{},{},{}\n", csv_field(r.benchmark),
                       csv_field(r.dataset), predict::device_name(r.oracle),
                       predict::device_name(pred[i]), r.runtime_cpu, r.runtime_gpu);
  }
  return out;
}

Status eval_mapping(const PredictOptions& o) {
  if (o.protocol != "folds" && o.protocol != "lobo" && o.protocol != "both")
    return usage_error(fmt::format("--protocol must be folds, lobo or both, not '{}'", o.protocol));
  std::vector<predict::MappingModelSpec> specs;
  if (o.model == "all") {
    specs = predict::mapping_models();
  } else {
    ASSIGN_OR_RETURN(auto s, predict::find_mapping_model(o.model));
    specs.push_back(s);
  }
  ASSIGN_OR_RETURN(auto rows, load_mapping_for_eval(o));
  if (o.model == "all") {
    // The read-back model needs a column only clgen's exports have.
    bool readback = std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.readback >= 0; });
    if (!readback)
      specs.erase(std::remove_if(specs.begin(), specs.end(),
                                 [](const auto& s) { return s.features == predict::FeatureSet::kReadback; }),
                  specs.end());
  }
  std::vector<predict::Protocol> protocols;
  if (o.protocol != "lobo") protocols.push_back(predict::Protocol::kFolds);
  if (o.protocol != "folds") protocols.push_back(predict::Protocol::kLeaveOneBenchmarkOut);
  std::string csv =
      "model,protocol,folds,rows,accuracy,speedup,static_device,static_accuracy,oracle_speedup,"
      "balanced_accuracy,oracle_share,static_oracle_share\n";
  std::printf("%-10s %-6s %5s %9s %9s %8s %8s   %s\n", "model", "proto", "folds", "accuracy", "balanced", "speedup",
              "%oracle", "(static device: its accuracy, its %oracle; oracle speedup)");
  Progress progress("cross-validating", protocols.size() * specs.size());
  for (const auto& p : protocols) {
    for (const auto& spec : specs) {
      ASSIGN_OR_RETURN(auto ev, predict::evaluate_mapping(spec, rows, p));
      progress.advance();
      const char* pname = p == predict::Protocol::kFolds ? "folds" : "lobo";
      std::printf("%-10s %-6s %5zu %8.2f%% %8.2f%% %8.3f %7.2f%%   (static %s: %.2f%%, %.2f%%; oracle %.3f)\n",
                  spec.name.c_str(), pname, ev.folds, 100 * ev.accuracy, 100 * ev.balanced_accuracy, ev.speedup,
                  100 * ev.oracle_share, predict::device_name(ev.static_device), 100 * ev.static_accuracy,
                  100 * ev.static_oracle_share, ev.oracle_speedup);
      csv +=
          fmt::format("{},{},{},{},{:.6f},{:.6f},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f}\n", spec.name, pname, ev.folds,
                      ev.rows, ev.accuracy, ev.speedup, predict::device_name(ev.static_device), ev.static_accuracy,
                      ev.oracle_speedup, ev.balanced_accuracy, ev.oracle_share, ev.static_oracle_share);
      if (!o.out.empty() && specs.size() == 1 && protocols.size() == 1)
        RETURN_IF_ERROR(write_file_atomic(o.out, mapping_predictions_csv(rows, ev.predictions)));
    }
  }
  if (!o.out.empty() && (specs.size() > 1 || protocols.size() > 1))
    RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  return ok_status();
}

Expected<std::string> default_model_path(const GlobalOptions& g, const std::string& name) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(g.workspace));
  ASSIGN_OR_RETURN(std::string dir, ws.subdir("models"));
  return dir + "/" + name + ".yml";
}

Status train_mapping(const GlobalOptions& g, const PredictOptions& o) {
  ASSIGN_OR_RETURN(auto spec, predict::find_mapping_model(o.model));
  ASSIGN_OR_RETURN(auto rows, load_mapping(o));
  ASSIGN_OR_RETURN(auto model, predict::MappingModel::train(spec, rows));
  std::string path = o.out;
  if (path.empty()) {
    ASSIGN_OR_RETURN(path, default_model_path(g, "mapping-" + spec.name));
  }
  RETURN_IF_ERROR(model.save(path));
  ASSIGN_OR_RETURN(auto pred, model.predict(rows));
  double acc, speedup;
  predict::score_mapping(rows, pred, predict::best_static_device(rows), &acc, &speedup);
  std::printf("trained %s on %zu rows (training accuracy %.2f%%); saved to %s\n", spec.name.c_str(),
              rows.size(), 100 * acc, path.c_str());
  return ok_status();
}

Status apply_mapping(const PredictOptions& o) {
  ASSIGN_OR_RETURN(auto model, predict::MappingModel::load(o.model_file));
  ASSIGN_OR_RETURN(auto rows, predict::load_mapping_csv(o.data));
  ASSIGN_OR_RETURN(auto pred, model.predict(rows));
  double acc, speedup;
  auto static_device = predict::best_static_device(rows);
  predict::score_mapping(rows, pred, static_device, &acc, &speedup);
  std::printf("%s on %zu rows: accuracy %.2f%%, speedup %.3f over static %s\n",
              model.spec().name.c_str(), rows.size(), 100 * acc, speedup,
              predict::device_name(static_device));
  if (!o.out.empty()) RETURN_IF_ERROR(write_file_atomic(o.out, mapping_predictions_csv(rows, pred)));
  return ok_status();
}

Status eval_wgsize(const PredictOptions& o) {
  std::vector<predict::WgModelSpec> specs;
  if (o.model == "all") {
    specs = predict::wgsize_models();
  } else {
    ASSIGN_OR_RETURN(auto s, predict::find_wgsize_model(o.model));
    specs.push_back(s);
  }
  if (o.split != "kernel" && o.split != "scenario")
    return usage_error(fmt::format("--split must be kernel or scenario, not '{}'", o.split));
  const auto split = o.split == "kernel" ? predict::WgSplit::kGrouped : predict::WgSplit::kScenarios;
  ASSIGN_OR_RETURN(auto data, predict::load_wgsize_csv(o.data));
  std::string csv =
      "model,scenarios,folds,oracle_fraction,baseline,baseline_fraction,baseline_legal,"
      "speedup_mean,speedup_median,illegal_predictions\n";
  std::printf("%zu scenarios x %zu workgroup sizes, %d-fold cross-validation %s (seed %llu)\n", data.scenarios.size(),
              data.sizes.size(), o.cv_folds,
              split == predict::WgSplit::kGrouped ? "grouped by kernel" : "over scenarios",
              static_cast<unsigned long long>(o.seed));
  std::printf("%-20s %9s %9s %9s %9s\n", "model", "%oracle", "speedup", "median", "illegal");
  Progress progress("cross-validating", specs.size());
  for (const auto& spec : specs) {
    ASSIGN_OR_RETURN(auto ev, predict::evaluate_wgsize(spec, data, o.cv_folds, o.seed, split));
    progress.advance();
    std::printf("%-20s %8.1f%% %9.3f %9.3f %8.1f%%\n", spec.name.c_str(), 100 * ev.oracle_fraction,
                ev.speedup_mean, ev.speedup_median, 100 * ev.illegal_predictions);
    csv += fmt::format("{},{},{},{:.6f},{},{:.6f},{},{:.6f},{:.6f},{:.6f}\n", spec.name, ev.scenarios,
                       ev.folds, ev.oracle_fraction, ev.baseline, ev.baseline_fraction,
                       ev.baseline_legal, ev.speedup_mean, ev.speedup_median, ev.illegal_predictions);
    if (&spec == &specs.back())
      std::printf("baseline (best fixed size) %s: %.1f%% of oracle, legal in %zu of %zu scenarios "
                  "(speedups are over it, on those)\n",
                  ev.baseline.c_str(), 100 * ev.baseline_fraction, ev.baseline_legal, ev.scenarios);
  }
  if (!o.out.empty()) RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  return ok_status();
}

Status train_wgsize(const GlobalOptions& g, const PredictOptions& o) {
  std::string name = o.model == "grewe" ? "classifier-nn" : o.model;  // grewe is the mapping default
  ASSIGN_OR_RETURN(auto spec, predict::find_wgsize_model(name));
  ASSIGN_OR_RETURN(auto data, predict::load_wgsize_csv(o.data));
  std::vector<size_t> all(data.scenarios.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  ASSIGN_OR_RETURN(auto model, predict::WgsizeModel::train(spec, data, all));
  std::string path = o.out;
  if (path.empty()) {
    ASSIGN_OR_RETURN(path, default_model_path(g, "wgsize-" + spec.name));
  }
  RETURN_IF_ERROR(model.save(path));
  std::printf("trained %s on %zu scenarios; saved to %s\n", spec.name.c_str(), all.size(), path.c_str());
  return ok_status();
}

Status apply_wgsize(const PredictOptions& o) {
  ASSIGN_OR_RETURN(auto model, predict::WgsizeModel::load(o.model_file));
  ASSIGN_OR_RETURN(auto data, predict::load_wgsize_csv(o.data));
  std::vector<size_t> all(data.scenarios.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  size_t illegal = 0;
  ASSIGN_OR_RETURN(auto chosen, model.choose(data, all, o.seed, &illegal));
  ASSIGN_OR_RETURN(auto ev, predict::score_wgsize(model.spec().name, data, chosen, illegal));
  std::printf("%s on %zu scenarios: %.1f%% of oracle, speedup %.3f (median %.3f) over %s\n",
              model.spec().name.c_str(), ev.scenarios, 100 * ev.oracle_fraction, ev.speedup_mean,
              ev.speedup_median, ev.baseline.c_str());
  if (!o.out.empty()) {
    std::string csv = "scenario,device,kernel,data_width,data_height,chosen,oracle\n";
    for (size_t i = 0; i < data.scenarios.size(); ++i) {
      const auto& s = data.scenarios[i];
      csv += fmt::format("{},{},{},{},{},{},{}\n", i, csv_field(s.device), s.kernel,
                         s.data_width, s.data_height, predict::wg_size_name(data.sizes[chosen[i]]),
                         predict::wg_size_name(data.sizes[data.oracle(i)]));
    }
    RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  }
  return ok_status();
}

}  // namespace

// cli/cmd_predict_experiment.cpp
void add_predict_experiment_command(CLI::App& predict, Action& action);

void add_predict_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* cmd = app.add_subcommand("predict", "Train and evaluate predictive models");
  cmd->require_subcommand(1);
  auto common = [](CLI::App* sub, PredictOptions& o) {
    sub->add_option("--task", o.task, "mapping (CPU/GPU) or wgsize (workgroup size)")->capture_default_str();
    sub->add_option("--data", o.data, "Dataset CSV")->required()->check(non_empty());
    sub->add_option("--folds", o.folds, "mapping: fold file with benchmark,dataset,fold columns")->check(non_empty());
  };

  auto train = std::make_shared<PredictOptions>();
  CLI::App* t = cmd->add_subcommand("train", "Train a model on a whole dataset and save it");
  common(t, *train);
  t->add_option("--model", train->model,
                "Model name (see 'predict eval --model all'; wgsize default: classifier-nn)")
      ->capture_default_str();
  t->add_option("--out", train->out, "Model file (default: WORKSPACE/models/<task>-<model>.yml)");
  t->final_callback([train, &global, &action] {
    action = [train, &global]() -> Status {
      RETURN_IF_ERROR(check_task(*train));
      if (train->task == "mapping") return train_mapping(global, *train);
      return train_wgsize(global, *train);
    };
  });

  auto eval = std::make_shared<PredictOptions>();
  CLI::App* e = cmd->add_subcommand("eval", "Cross-validate models and print accuracy and speedups");
  common(e, *eval);
  e->add_option("--model", eval->model, "Model name, or 'all'")->capture_default_str();
  e->add_option("--protocol", eval->protocol,
                "mapping: folds (the fold file, else stratified --cv-folds folds), lobo (leave "
                "one benchmark/group out) or both")
      ->capture_default_str();
  e->add_option("--cv-folds", eval->cv_folds, "number of cross-validation folds (wgsize; mapping without --folds)")
      ->capture_default_str()->check(CLI::Range(2, 1000));
  e->add_option("--seed", eval->seed, "seed of the fold shuffle (and wgsize's random fallback)")
      ->capture_default_str();
  e->add_option("--split", eval->split,
                "wgsize: kernel (folds grouped by program/kernel: no kernel in training and test) or "
                "scenario (scenarios shuffled into folds: ADAPT'16's protocol on the SkelCL table)")
      ->capture_default_str();
  e->add_option("--out", eval->out, "CSV of results (or per-row predictions for one model and protocol)");
  e->final_callback([eval, &action] {
    action = [eval]() -> Status {
      RETURN_IF_ERROR(check_task(*eval));
      if (eval->task == "mapping") return eval_mapping(*eval);
      return eval_wgsize(*eval);
    };
  });

  auto apply = std::make_shared<PredictOptions>();
  CLI::App* a = cmd->add_subcommand("apply", "Predict with a saved model and score the predictions");
  common(a, *apply);
  a->add_option("--model-file", apply->model_file, "A model written by 'predict train'")
      ->required()
      ->check(non_empty());
  a->add_option("--out", apply->out, "CSV of per-row predictions");
  a->final_callback([apply, &action] {
    action = [apply]() -> Status {
      RETURN_IF_ERROR(check_task(*apply));
      if (apply->task == "mapping") return apply_mapping(*apply);
      return apply_wgsize(*apply);
    };
  });
  add_predict_experiment_command(*cmd, action);
}

}  // namespace clgen::cli
