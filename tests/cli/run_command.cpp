// Child-process runner: fork/exec with stdout and stderr sent to temp files
// (no pipe deadlocks on large output).
#include "tests/cli/run_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace clgen::testing {

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

RunningCommand start_command(const std::vector<std::string>& argv, const std::string& cwd) {
  RunningCommand c;
  c.out = std::tmpfile();
  c.err = std::tmpfile();
  c.pid = fork();
  if (c.pid == 0) {
    dup2(fileno(c.out), STDOUT_FILENO);
    dup2(fileno(c.err), STDERR_FILENO);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return c;
}

CommandResult finish_command(RunningCommand& c) {
  CommandResult r;
  int status = 0;
  waitpid(c.pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_all(c.out);
  r.err = read_all(c.err);
  std::fclose(c.out);
  std::fclose(c.err);
  c = RunningCommand{};
  return r;
}

CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd) {
  RunningCommand c = start_command(argv, cwd);
  return finish_command(c);
}

RunningCommand start_clgen(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> argv = {CLGEN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return start_command(argv, cwd);
}

CommandResult run_clgen(const std::vector<std::string>& args, const std::string& cwd) {
  RunningCommand c = start_clgen(args, cwd);
  return finish_command(c);
}

}  // namespace clgen::testing
