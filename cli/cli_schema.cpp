// `clgen --cli-schema` (hidden): every subcommand and option of the built
// app as JSON, so tests can cover each option without a list of their own.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.h"

namespace clgen::cli {

namespace {

void add_command(const CLI::App& app, std::vector<std::string> path, nlohmann::json& out) {
  nlohmann::json options = nlohmann::json::array();
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_name() == "--help" || o->get_name() == "--help-all" || o->get_name() == "--version") continue;
    options.push_back({{"name", o->get_name()},
                       {"type", o->get_type_name()},
                       {"flag", o->get_items_expected_max() == 0},
                       {"positional", o->get_positional() && !o->nonpositional()},
                       {"required", o->get_required()}});
  }
  out.push_back({{"path", path}, {"options", options}});
  for (const CLI::App* sub : app.get_subcommands({})) {
    std::vector<std::string> child = path;
    child.push_back(sub->get_name());
    add_command(*sub, child, out);
  }
}

}  // namespace

std::string cli_schema(const CLI::App& app) {
  nlohmann::json out = nlohmann::json::array();
  add_command(app, {}, out);
  return out.dump(1);
}

}  // namespace clgen::cli
