// Runs a program as a child process and captures its exit code and output,
// for end-to-end tests of the clgen CLI.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace clgen::testing {

struct CommandResult {
  int exit_code = -1;  // 128 + signal number if killed by a signal
  std::string out;
  std::string err;
};

// argv[0] is the program path. `cwd` empty means the current directory.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd = "");

// Everything written to `f` (a temporary file holding a child's output), from its start.
std::string read_all(std::FILE* f);

// run_command with CLGEN_BINARY as argv[0].
CommandResult run_clgen(const std::vector<std::string>& args, const std::string& cwd = "");

}  // namespace clgen::testing
