// The command-line side of a knob table (support/knobs.h): one CLI11 option
// per knob, bound to its field, and which of them were given.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "support/knobs.h"

namespace clgen::cli {

// Adds each knob's option to `cmd`, in table order: its flags, help, check,
// --help group and, where the knob says so, its default on --help.
void add_knob_flags(CLI::App& cmd, const std::vector<Knob>& knobs);

// The flag() of each knob whose flag the command line gave.
std::set<std::string> given_knob_flags(const CLI::App& cmd, const std::vector<Knob>& knobs);

}  // namespace clgen::cli
