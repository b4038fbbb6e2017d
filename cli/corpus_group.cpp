// The `clgen corpus` command group, shared by the modules that add corpus
// subcommands (corpus: add, mine-github, stats, export; preprocess), and
// compiled whichever of them is built.
#include "cli/command.h"

namespace clgen::cli {

CLI::App* corpus_command_group(CLI::App& app) {
  try {
    return app.get_subcommand("corpus");
  } catch (const CLI::OptionNotFound&) {
    CLI::App* group = app.add_subcommand("corpus", "Build, inspect and export the OpenCL corpus");
    group->require_subcommand(1);
    return group;
  }
}

}  // namespace clgen::cli
