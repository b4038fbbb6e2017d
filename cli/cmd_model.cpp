// `clgen model install DIR` and `clgen model export DIR [--model ID]`: a
// trained model as a package directory that travels without its workspace
// (model/package.h; model/default/ is the one the README's main job uses).
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "model/package.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

struct ModelCommandOptions {
  std::string dir;
  std::string model_id;  // export: "" = the latest trained
};

Status run_install(const GlobalOptions& global, const ModelCommandOptions& opts) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(auto id, model::install_model_package(ws, opts.dir));
  std::printf("installed model %s from %s into %s/models/%s (now the latest model)\n", id.c_str(), opts.dir.c_str(),
              ws.root().c_str(), id.c_str());
  return ok_status();
}

Status run_export(const GlobalOptions& global, const ModelCommandOptions& opts) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  RETURN_IF_ERROR(model::export_model_package(ws, opts.model_id, opts.dir));
  std::printf("exported model %s to %s\n", opts.model_id.empty() ? "(latest)" : opts.model_id.c_str(),
              opts.dir.c_str());
  return ok_status();
}

}  // namespace

void add_model_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* group = app.add_subcommand("model", "Install or export a trained model as a package directory");
  group->require_subcommand(1);
  auto install = std::make_shared<ModelCommandOptions>();
  CLI::App* in = group->add_subcommand(
      "install", "Install a model package (e.g. model/default) into the workspace; checks every file first");
  in->add_option("DIR", install->dir, "Package directory (holds package.json)")
      ->required()
      ->check(CLI::ExistingDirectory);
  in->final_callback(
      [install, &global, &action] { action = [install, &global] { return run_install(global, *install); }; });
  auto exp = std::make_shared<ModelCommandOptions>();
  CLI::App* out = group->add_subcommand("export", "Write a trained model of the workspace as a package directory");
  out->add_option("DIR", exp->dir, "Package directory to write")->required()->check(non_empty());
  out->add_option("--model", exp->model_id, "Model id (default: the latest trained)");
  out->final_callback([exp, &global, &action] { action = [exp, &global] { return run_export(global, *exp); }; });
}

}  // namespace clgen::cli
