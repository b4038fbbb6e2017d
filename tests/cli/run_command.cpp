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

CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd) {
  CommandResult r;
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(err), STDERR_FILENO);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_all(out);
  r.err = read_all(err);
  std::fclose(out);
  std::fclose(err);
  return r;
}

CommandResult run_clgen(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> argv = {CLGEN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, cwd);
}

}  // namespace clgen::testing
