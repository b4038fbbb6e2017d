// `clgen dataset export --task mapping|wgsize`: training sets from the
// workspace's driver runs, as CSV (see dataset/export.h for the columns).
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "dataset/export.h"
#include "support/files.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

struct DatasetExportOptions {
  std::string task;    // mapping | wgsize
  std::string cpu;     // mapping: substring of the CPU's device name in runs
  std::string gpu;     // mapping: substring of the GPU's device name in runs
  std::string device;  // wgsize: only this device (empty = all)
  std::string out;     // CSV path; empty = stdout
  std::string config;  // a dataset config ([features] grewe = ...); empty = the defaults
};

Status run_export(const GlobalOptions& global, const DatasetExportOptions& o) {
  if (o.task != "mapping" && o.task != "wgsize")
    return usage_error(fmt::format("--task must be mapping or wgsize, not '{}'", o.task));
  if (o.task == "mapping" && (o.cpu.empty() || o.gpu.empty()))
    return usage_error("--task mapping needs --cpu DEVICE and --gpu DEVICE");
  if (o.task == "wgsize" && (!o.cpu.empty() || !o.gpu.empty()))
    return usage_error("--cpu/--gpu are for --task mapping (use --device for wgsize)");
  if (o.task == "mapping" && !o.device.empty())
    return usage_error("--device is for --task wgsize (use --cpu and --gpu for mapping)");

  dataset::ExportOptions options;
  if (!o.config.empty()) {
    ASSIGN_OR_RETURN(options, dataset::load_export_options(o.config));
  }
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  // Reading only: never create an empty database where none was.
  if (!std::filesystem::exists(ws.database_path()))
    return not_found(fmt::format("no workspace database at {} (run clgen drive first)",
                                 ws.database_path()));
  ASSIGN_OR_RETURN(Database db, ws.open_database());

  dataset::ExportResult result;
  if (o.task == "mapping") {
    ASSIGN_OR_RETURN(auto cpu, dataset::find_run_device(db, o.cpu));
    ASSIGN_OR_RETURN(auto gpu, dataset::find_run_device(db, o.gpu));
    ASSIGN_OR_RETURN(result, dataset::export_mapping(db, cpu, gpu, options));
  } else {
    std::optional<dataset::RunDevice> dev;
    if (!o.device.empty()) {
      ASSIGN_OR_RETURN(auto d, dataset::find_run_device(db, o.device));
      dev = d;
    }
    ASSIGN_OR_RETURN(result, dataset::export_wgsize(db, dev ? &*dev : nullptr, options));
  }
  if (o.out.empty()) {
    std::fputs(result.csv.c_str(), stdout);
  } else {
    RETURN_IF_ERROR(write_file_atomic(o.out, result.csv));
  }
  std::fprintf(stderr, "dataset %s: %zu %s from %zu kernels (%s Grewe features)%s%s\n", o.task.c_str(), result.rows,
               o.task == "mapping" ? "rows" : "scenarios", result.kernels,
               features::grewe_definitions_name(options.grewe), o.out.empty() ? "" : " -> ", o.out.c_str());
  for (const auto& note : result.notes) std::fprintf(stderr, "  %s\n", note.c_str());
  return ok_status();
}

}  // namespace

void add_dataset_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* group = app.add_subcommand("dataset", "Training sets from the driver's runs");
  group->require_subcommand(1);
  auto opts = std::make_shared<DatasetExportOptions>();
  CLI::App* cmd = group->add_subcommand(
      "export", "CSV of device-mapping rows (--task mapping) or workgroup-size sweeps (--task wgsize)");
  cmd->add_option("--task", opts->task, "mapping or wgsize")->required();
  cmd->add_option("--cpu", opts->cpu, "mapping: the CPU (a substring of its device name in runs)");
  cmd->add_option("--gpu", opts->gpu, "mapping: the GPU (a substring of its device name in runs)");
  cmd->add_option("--device", opts->device, "wgsize: only sweeps on this device (default: all)");
  cmd->add_option("--out", opts->out, "Write the CSV here instead of stdout");
  cmd->add_option("--config", opts->config,
                  "A dataset config (TOML): [features] grewe = \"reference\" (the default: the reference "
                  "extractor's rules, as the published devmap datasets) or \"clgen\" (clgen's own definitions)");
  cmd->final_callback([opts, &global, &action] {
    action = [opts, &global] { return run_export(global, *opts); };
  });
}

}  // namespace clgen::cli
