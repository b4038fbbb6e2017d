// What every `clgen` subcommand shares: global options, and the way a
// subcommand hands its work to main() once flags are parsed.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "support/log.h"
#include "support/status.h"

namespace clgen::cli {

struct GlobalOptions {
  std::string workspace = "clgen-work";  // --workspace
  Verbosity verbosity = Verbosity::kNormal;
};

// Set by the chosen subcommand's parse callback; main() runs it after
// parsing, so flag errors and command failures get distinct exit codes.
using Action = std::function<Status()>;

// CLI::Range for floating-point options that also refuses nan, which every
// comparison (and so CLI::Range) lets through.
inline CLI::Validator finite_range(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !(value >= min && value <= max))
          return "Value " + text + " not in range [" + CLI::detail::to_string(min) + " - " +
                 CLI::detail::to_string(max) + "]";
        return std::string();
      },
      "FLOAT in [" + CLI::detail::to_string(min) + " - " + CLI::detail::to_string(max) + "]");
}

// Adds to every numeric option of `app` and its subcommands a check that
// refuses what CLI11 itself lets through: "" and "-1" in unsigned options,
// values beyond 64 bits, nan and inf (cli/strict_numbers.cpp).
void check_numbers_strictly(CLI::App& app);

// Refuses an empty value: for paths and sizes, where "" would otherwise be
// read as "not given" or name no file.
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("an empty value") : std::string(); },
                        "");
}

// Every command of `app` (its path of subcommand names) with its options:
// name, CLI11 type name, flag or not, positional or not. For tests.
std::string cli_schema(const CLI::App& app);

// Each subcommand lives in its own cmd_*.cpp and registers itself on the app.
// `global` outlives the parse; `action` receives the work to run.
void add_devices_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_version_command(CLI::App& app, const GlobalOptions& global, Action& action);
// `clgen corpus add | mine-github | stats | export`.
void add_corpus_command(CLI::App& app, const GlobalOptions& global, Action& action);
// The `corpus` command group, created on first use, so other modules can add
// their own `corpus` subcommands (e.g. preprocess) in any order.
CLI::App* corpus_command_group(CLI::App& app);
#ifdef CLGEN_HAVE_CLANG
void add_preprocess_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_shim_command(CLI::App& app, const GlobalOptions& global, Action& action);
// Adds `preprocess` under the `corpus` command group.
void add_corpus_preprocess_command(CLI::App& corpus_group, const GlobalOptions& global, Action& action);
// Adds `decontaminate` under the `corpus` command group (cli/cmd_decontaminate.cpp).
void add_corpus_decontaminate_command(CLI::App& corpus_group, const GlobalOptions& global, Action& action);
#endif
// `clgen drive` (cli/cmd_drive.cpp; needs OpenCL, which runs in clgen-worker).
void add_drive_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_predict_command(CLI::App& app, const GlobalOptions& global, Action& action);   // OPENCV
void add_features_command(CLI::App& app, const GlobalOptions& global, Action& action);  // CLANG
// `clgen dataset export` (cli/cmd_dataset.cpp; needs Clang for the features).
void add_dataset_command(CLI::App& app, const GlobalOptions& global, Action& action);   // CLANG
// `clgen model install | export` (cli/cmd_model.cpp; built with LibTorch).
void add_model_command(CLI::App& app, const GlobalOptions& global, Action& action);
// `clgen sample` (built with LibTorch and Clang).
void add_sample_command(CLI::App& app, const GlobalOptions& global, Action& action);
// `clgen workspace merge` (cli/cmd_workspace.cpp; built with the sampler).
void add_workspace_command(CLI::App& app, const GlobalOptions& global, Action& action);
#ifdef CLGEN_HAVE_TORCH
void add_train_command(CLI::App& app, const GlobalOptions& global, Action& action);
#endif

}  // namespace clgen::cli
