// clgen: the command-line front end. Parses flags into option structs, runs
// the chosen subcommand, and maps its Status to a message and an exit code:
// 0 ok, 1 failure, 2 usage error. Every error is one stderr line starting
// with "clgen"; an exception that escapes a command is a failure, not a crash.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "support/crash_trace.h"
#include "support/interrupt.h"
#include "support/log.h"
#include "support/version.h"

#if defined(CLGEN_HAVE_TORCH) && defined(CLGEN_HAVE_CLANG)
#include "features/static_features.h"
#include "model/feature_prefix.h"
#endif

#ifdef CLGEN_HAVE_REALISM
namespace clgen::cli {
// `clgen eval realism` (cli/cmd_eval.cpp).
void add_eval_command(CLI::App& app, const GlobalOptions& global, Action& action);
}  // namespace clgen::cli
#endif

namespace {
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// The command path a parse error belongs to ("clgen drive"): the
// subcommands selected so far.
std::string command_path(const CLI::App& app) {
  std::string path = "clgen";
  const CLI::App* at = &app;
  while (at) {
    auto subs = at->get_subcommands();
    at = subs.empty() ? nullptr : subs.front();
    if (at) path += " " + at->get_name();
  }
  return path;
}

// CLI11 messages may span lines; the one line printed keeps them apart.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

// The model reads kernels' static features (training.feature_prefix) through
// an extractor the program gives it: the features module sits above the model.
void install_feature_extractor() {
#if defined(CLGEN_HAVE_TORCH) && defined(CLGEN_HAVE_CLANG)
  clgen::model::set_kernel_feature_extractor([](const std::string& text) -> std::optional<clgen::model::FeatureVector> {
    auto rows = clgen::features::extract_static_features(text, "kernel");
    if (!rows.ok() || rows->empty()) return std::nullopt;
    return clgen::features::grewe_vector(rows->front());
  });
#endif
}

int run(int argc, char** argv) {
  using namespace clgen;
  CLI::App app{"clgen: deep-learning benchmark synthesizer for OpenCL", "clgen"};
  // Unknown words are kept (not a parse error) so the message can name them.
  app.require_subcommand(0, 1);
  app.allow_extras();
  app.set_version_flag("--version", clgen_version());
  app.footer("Run 'clgen COMMAND --help' for a command's options.");

  cli::GlobalOptions global;
  bool verbose = false, quiet = false;
  app.add_option("--workspace", global.workspace, "Workspace directory holding the database, models and samples")
      ->capture_default_str();
  app.add_flag("-v,--verbose", verbose, "Print debug messages");
  app.add_flag("-q,--quiet", quiet, "Print only warnings and errors");

  install_feature_extractor();
  cli::Action action;
  cli::add_devices_command(app, global, action);
  cli::add_version_command(app, global, action);
#ifdef CLGEN_HAVE_CORPUS
  cli::add_corpus_command(app, global, action);
#endif
#ifdef CLGEN_HAVE_CLANG
  cli::add_preprocess_command(app, global, action);
  cli::add_shim_command(app, global, action);
  cli::add_corpus_preprocess_command(*cli::corpus_command_group(app), global, action);
#endif
#ifdef CLGEN_HAVE_OPENCL
  cli::add_drive_command(app, global, action);
#endif
#ifdef CLGEN_HAVE_OPENCV
  cli::add_predict_command(app, global, action);
#endif
#ifdef CLGEN_HAVE_CLANG
  cli::add_features_command(app, global, action);
  cli::add_dataset_command(app, global, action);
#endif
#ifdef CLGEN_HAVE_TORCH
  cli::add_train_command(app, global, action);
  cli::add_model_command(app, global, action);
#endif
#if defined(CLGEN_HAVE_TORCH) && defined(CLGEN_HAVE_CLANG)
  cli::add_sample_command(app, global, action);
  cli::add_workspace_command(app, global, action);
#endif

#ifdef CLGEN_HAVE_REALISM
  cli::add_eval_command(app, global, action);
#endif

  cli::check_numbers_strictly(app);
  if (argc == 2 && std::strcmp(argv[1], "--cli-schema") == 0) {  // hidden: for tests
    std::printf("%s\n", cli::cli_schema(app).c_str());
    return kExitOk;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string path = command_path(app);
    std::fprintf(stderr, "%s: error: %s (see '%s --help')\n", path.c_str(), one_line(e.what()).c_str(), path.c_str());
    return kExitUsage;
  }

  if (app.get_subcommands().empty()) {
    std::vector<std::string> extra = app.remaining();
    if (extra.empty()) {
      std::fprintf(stderr, "clgen: a command is required\n%s", app.help().c_str());
    } else {
      std::fprintf(stderr, "clgen: unknown command '%s' (see 'clgen --help')\n", extra.front().c_str());
    }
    return kExitUsage;
  }
  for (const CLI::App* sub : app.get_subcommands()) {
    if (!sub->remaining().empty()) {
      std::fprintf(stderr, "clgen %s: unexpected argument '%s' (see 'clgen %s --help')\n", sub->get_name().c_str(),
                   sub->remaining().front().c_str(), sub->get_name().c_str());
      return kExitUsage;
    }
  }

  global.verbosity = quiet ? Verbosity::kQuiet : verbose ? Verbosity::kVerbose : Verbosity::kNormal;
  init_logging(global.verbosity);
  install_interrupt_handlers();
  if (!action) {
    std::fprintf(stderr, "clgen: no command to run\n");
    return kExitUsage;
  }
  Status st = action();
  if (!st.ok()) {
    std::fprintf(stderr, "clgen: error: %s\n", st.message().c_str());
    return st.code() == ErrorCode::kUsage ? kExitUsage : kExitFailure;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  clgen::install_crash_trace("clgen");
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clgen: error: %s\n", one_line(e.what()).c_str());
  } catch (...) {
    std::fprintf(stderr, "clgen: error: an unknown exception escaped the command\n");
  }
  return kExitFailure;
}
