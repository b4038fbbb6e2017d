// A long-lived child process under resource limits that answers framed
// requests (support/frames.h) on two pipes: start, a wall-clock deadline per
// request, kill of its whole process group, reaping and restart. The building
// block of the driver's OpenCL workers and the preprocessor's Clang workers.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace clgen {

// The child reads requests on this fd and answers on the next one.
inline constexpr int kChildRequestFd = 3;
inline constexpr int kChildResponseFd = 4;
// A child's exit status when an allocation failed (its memory limit): told
// apart from a crash, which is a signal.
inline constexpr int kChildOutOfMemoryExit = 3;

// In a child's main: true when it was started as a child (no arguments, fds
// 3 and 4 are pipes); otherwise prints a usage naming `name` and what it
// `does` on stderr and returns false (the main then exits with 2).
bool started_as_child(int argc, const char* name, const char* does);

// $`env_var` when set and not empty, else `name` in the directory of the
// running executable (where the build puts clgen's helper binaries).
std::string sibling_executable(const std::string& name, const char* env_var);
// sibling_executable, or `built_path` (the build tree's copy, for test
// binaries elsewhere in the tree) when that is not there and no variable is set.
std::string helper_executable(const std::string& name, const char* env_var, const std::string& built_path);

struct ChildLimits {
  // RLIMIT_DATA in MiB; 0 = none. RLIMIT_DATA, not RLIMIT_AS: it counts the
  // heap and anonymous memory, which is what a runaway request grows, and
  // not the address space that GPU runtimes reserve without touching.
  uint64_t data_mb = 0;
  uint64_t max_file_bytes = uint64_t{1} << 30;  // RLIMIT_FSIZE: children write no files of their own
  uint64_t max_files = 4096;                    // RLIMIT_NOFILE (at most the parent's hard limit)
  bool inherit_stderr = false;                  // otherwise the child's stderr goes to /dev/null
};

// "NAME killed by signal 9 (Killed)", "NAME exited with status 3".
std::string wait_status_text(const std::string& name, int status);

class ChildProcess {
 public:
  // `argv[0]` is the binary; `name` names the child in messages ("worker").
  ChildProcess(std::vector<std::string> argv, ChildLimits limits, std::string name);
  ~ChildProcess();  // kill()
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts the child: its own process group (a terminal's Ctrl-C reaches only
  // the parent), SIGKILL when the parent thread that started it ends, no core
  // dumps, the limits, oom_score_adj 1000, the pipes on fds 3 and 4, stdin and
  // stdout on /dev/null. Fails with kUnavailable naming the binary when it
  // cannot be run, kIo when pipes or fork fail.
  Status start();
  bool running() const { return pid_ > 0; }
  // Reaps a child that died while idle (so its death is not blamed on the
  // next request); true when it did.
  bool reap_if_dead();

  // Sends one request and waits at most `timeout_s` (<= 0: no limit) for the
  // answer; a child that died before reading the request is started once
  // more. Before each request the child gets CPU seconds for it (RLIMIT_CPU:
  // a backstop behind the wall-clock limit). Errors: kTimeout when no answer
  // came in time (the process group was killed), kIo when the child died
  // (the message is wait_status_text; last_status() holds the wait status),
  // and start()'s errors.
  Status call(const std::string& request, std::string& response, double timeout_s);

  // Sends `goodbye` (unless empty), gives the child 0.5 s to exit, then kills it.
  void stop(const std::string& goodbye);
  // Kills the process group, reaps the child and closes the pipes.
  void kill();

  // Whether the child reaped last exited with kChildOutOfMemoryExit.
  bool ran_out_of_memory() const;
  // For a child that failed at start: " (its memory limit of N MiB is too
  // low)" when it ran out of memory or could not be loaded under a memory
  // limit, else "".
  std::string start_failure_hint() const;

  pid_t pid() const { return pid_; }
  int started() const { return started_; }          // children started so far
  int last_status() const { return last_status_; }  // wait status of the child reaped last
  const std::string& binary() const { return argv_.front(); }

 private:
  void grant_cpu_time(double timeout_s);
  void close_pipes();
  void reap();  // waits for pid_ (already signalled or exiting); sets last_status_

  std::vector<std::string> argv_;
  ChildLimits limits_;
  std::string name_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int started_ = 0;
  int last_status_ = 0;
};

}  // namespace clgen
