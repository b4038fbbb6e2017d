// Runs a program as a child process and captures its exit code and output,
// for end-to-end tests of the clgen CLI.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <vector>

namespace clgen::testing {

struct CommandResult {
  int exit_code = -1;  // 128 + signal number if killed by a signal
  std::string out;
  std::string err;
};

// A child process started by start_command, its output going to temporary files.
struct RunningCommand {
  pid_t pid = -1;
  std::FILE* out = nullptr;
  std::FILE* err = nullptr;
};

// Starts argv (argv[0] is the program path) in `cwd` (empty: the current directory).
RunningCommand start_command(const std::vector<std::string>& argv, const std::string& cwd = "");
// Waits for the command to end (also after a kill()) and collects its exit code and output.
CommandResult finish_command(RunningCommand& command);

// start_command, then finish_command.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd = "");

// Everything written to `f` (a temporary file holding a child's output), from its start.
std::string read_all(std::FILE* f);

// run_command and start_command with CLGEN_BINARY as argv[0].
CommandResult run_clgen(const std::vector<std::string>& args, const std::string& cwd = "");
RunningCommand start_clgen(const std::vector<std::string>& args, const std::string& cwd = "");

}  // namespace clgen::testing
