// Several child processes at once, with a deadline.
#include "tests/model/distributed_runs.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "tests/cli/run_command.h"

namespace clgen::testing {

namespace {

constexpr const char* kRankVariables[] = {
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "SLURM_PROCID",
    "SLURM_NTASKS", "SLURM_LOCALID", "TORCHELASTIC_USE_AGENT_STORE", "TORCH_CPP_LOG_LEVEL"};

}  // namespace

std::vector<RankResult> run_ranks(const std::vector<RankProcess>& processes, double deadline_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::vector<RankResult> results(processes.size());
  std::vector<pid_t> pids;
  std::vector<std::FILE*> outs, errs;
  for (const auto& p : processes) {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fileno(out), STDOUT_FILENO);
      dup2(fileno(err), STDERR_FILENO);
      for (const char* v : kRankVariables) unsetenv(v);
      for (const auto& [k, v] : p.env) setenv(k.c_str(), v.c_str(), 1);
      // One OpenMP thread per rank: several ranks share the test machine's cores.
      setenv("OMP_NUM_THREADS", "1", 1);
      std::vector<char*> args;
      for (const auto& a : p.argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    pids.push_back(pid);
    outs.push_back(out);
    errs.push_back(err);
  }
  size_t running = pids.size();
  std::vector<bool> done(pids.size(), false);
  while (running > 0) {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        done[i] = true;
        --running;
        results[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        results[i].seconds = std::chrono::duration<double>(Clock::now() - start).count();
      }
    }
    if (running == 0) break;
    if (std::chrono::duration<double>(Clock::now() - start).count() > deadline_seconds) {
      for (size_t i = 0; i < pids.size(); ++i) {
        if (done[i]) continue;
        kill(pids[i], SIGKILL);
        waitpid(pids[i], nullptr, 0);
        results[i].exit_code = -1;
        results[i].seconds = deadline_seconds;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    results[i].out = read_all(outs[i]);
    results[i].err = read_all(errs[i]);
    std::fclose(outs[i]);
    std::fclose(errs[i]);
  }
  return results;
}

EnvVars rank_env(int rank, int world, int port) {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)}};
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = -1;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

std::string describe(const std::vector<RankResult>& results) {
  std::string s;
  for (size_t r = 0; r < results.size(); ++r)
    s += "rank " + std::to_string(r) + ": exit " + std::to_string(results[r].exit_code) + "\n" +
         results[r].out + results[r].err;
  return s;
}

}  // namespace clgen::testing
