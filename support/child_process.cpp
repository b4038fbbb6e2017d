// ChildProcess (child_process.h): fork + exec under limits, framed requests
// with deadlines, process-group kill, reaping.
#include "support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "support/frames.h"

namespace clgen {

namespace {

// CPU seconds per request beyond the wall-clock limit times the cores (a
// multi-threaded child uses at most that): RLIMIT_CPU fires only when the
// parent failed to kill the child in time.
constexpr rlim_t kCpuSlackS = 30;
// The CPU allowance of a request without a wall-clock limit: an hour.
constexpr double kUnlimitedRequestCpuS = 3600;

// Kills the child and everything it started (its own process group).
void kill_group(pid_t pid) {
  if (::kill(-pid, SIGKILL) != 0) ::kill(pid, SIGKILL);
}

// CPU seconds (user + system) `pid` has used, from /proc/PID/stat; -1 if unknown.
double cpu_seconds(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::FILE* f = std::fopen(path, "r");
  if (!f) return -1;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  // Fields after the command name (which may hold spaces) start at ") ";
  // utime and stime are fields 14 and 15 overall, 12 and 13 after it.
  const char* p = std::strrchr(buf, ')');
  if (!p) return -1;
  unsigned long utime = 0, stime = 0;
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace

std::string sibling_executable(const std::string& name, const char* env_var) {
  const char* env = std::getenv(env_var);
  if (env && *env) return env;
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  std::string self = n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
  size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/" + name;
}

bool started_as_child(int argc, const char* name, const char* does) {
  struct stat st;
  bool pipes = true;
  for (int fd : {kChildRequestFd, kChildResponseFd})
    if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) pipes = false;
  if (argc == 1 && pipes) return true;
  std::fprintf(stderr, "usage: %s\n  %s: started by clgen with request/answer pipes on file descriptors %d and %d.\n",
               name, does, kChildRequestFd, kChildResponseFd);
  return false;
}

std::string helper_executable(const std::string& name, const char* env_var, const std::string& built_path) {
  std::string found = sibling_executable(name, env_var);
  const char* env = std::getenv(env_var);
  if ((env && *env) || ::access(found.c_str(), X_OK) == 0 || built_path.empty()) return found;
  return built_path;
}

std::string wait_status_text(const std::string& name, int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return name + " killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return name + " exited with status " + std::to_string(WEXITSTATUS(status));
  return name + " ended";
}

ChildProcess::ChildProcess(std::vector<std::string> argv, ChildLimits limits, std::string name)
    : argv_(std::move(argv)), limits_(limits), name_(std::move(name)) {
  if (argv_.empty()) argv_.emplace_back();
  // A child dying between our write and its read must not kill the parent.
  ::signal(SIGPIPE, SIG_IGN);
}

ChildProcess::~ChildProcess() { kill(); }

Status ChildProcess::start() {
  kill();
  // A missing or unrunnable binary is named here rather than surfacing as a
  // child that "exited with status 127".
  if (::access(argv_[0].c_str(), X_OK) != 0)
    return unavailable("cannot run the " + name_ + " binary '" + argv_[0] + "': " + std::strerror(errno));
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0) return io_error(std::string("creating pipes: ") + std::strerror(errno));
  if (::pipe2(from, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(to[0]);
    ::close(to[1]);
    return io_error(std::string("creating pipes: ") + std::strerror(err));
  }
  std::vector<std::string> argv_s = argv_;
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  rlimit files{limits_.max_files, limits_.max_files};
  rlimit current_files;
  if (::getrlimit(RLIMIT_NOFILE, &current_files) == 0 && current_files.rlim_max < files.rlim_max)
    files = {current_files.rlim_max, current_files.rlim_max};  // lowering only: no privilege needed
  const rlim_t data_bytes = static_cast<rlim_t>(limits_.data_mb) << 20;
  const rlimit fsize{limits_.max_file_bytes, limits_.max_file_bytes};
  const bool inherit_stderr = limits_.inherit_stderr;
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    for (int fd : {to[0], to[1], from[0], from[1]}) ::close(fd);
    return io_error(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    // Child (async-signal-safe calls only): die with the parent, no core
    // dumps, bounded memory, file sizes and descriptors, first in line for
    // the OOM killer.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    // Own process group: a terminal's Ctrl-C reaches only the parent, which
    // stops between requests. The parent kills the whole group, so helpers
    // the child forks die with it.
    ::setpgid(0, 0);
    rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    if (data_bytes > 0) {
      rlimit data{data_bytes, data_bytes};
      ::setrlimit(RLIMIT_DATA, &data);
    }
    ::setrlimit(RLIMIT_FSIZE, &fsize);
    ::setrlimit(RLIMIT_NOFILE, &files);
    int oom = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom >= 0) {
      (void)!::write(oom, "1000", 4);  // raising it needs no privilege
      ::close(oom);
    }
    // Move the pipe ends out of the way, then onto fds 3 and 4.
    int req = ::fcntl(to[0], F_DUPFD, 10);
    int resp = ::fcntl(from[1], F_DUPFD, 10);
    if (req < 0 || resp < 0 || ::dup2(req, kChildRequestFd) < 0 || ::dup2(resp, kChildResponseFd) < 0) ::_exit(126);
    int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::dup2(devnull, STDOUT_FILENO);  // e.g. kernels' printf output
      if (!inherit_stderr) ::dup2(devnull, STDERR_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so a kill of the group cannot precede the child's own call
  ::close(to[0]);
  ::close(from[1]);
  pid_ = pid;
  to_child_ = to[1];
  from_child_ = from[0];
  ++started_;
  return ok_status();
}

bool ChildProcess::reap_if_dead() {
  int status;
  if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
    last_status_ = status;
    pid_ = -1;
    close_pipes();
    return true;
  }
  return false;
}

void ChildProcess::reap() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  last_status_ = status;
  pid_ = -1;
}

bool ChildProcess::ran_out_of_memory() const {
  return WIFEXITED(last_status_) && WEXITSTATUS(last_status_) == kChildOutOfMemoryExit;
}

std::string ChildProcess::start_failure_hint() const {
  // 127: exec failed, which a memory limit too low for the loader also causes.
  bool unloadable = WIFEXITED(last_status_) && WEXITSTATUS(last_status_) == 127;
  if (limits_.data_mb == 0 || !(ran_out_of_memory() || unloadable)) return "";
  return " (its memory limit of " + std::to_string(limits_.data_mb) + " MiB is too low)";
}

void ChildProcess::close_pipes() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  to_child_ = from_child_ = -1;
}

void ChildProcess::kill() {
  if (pid_ > 0) {
    kill_group(pid_);
    reap();
  }
  close_pipes();
}

void ChildProcess::grant_cpu_time(double timeout_s) {
  double used = cpu_seconds(pid_);
  if (used < 0) return;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  double request_s = timeout_s > 0 ? timeout_s : kUnlimitedRequestCpuS;
  rlim_t soft = static_cast<rlim_t>(std::ceil(used + request_s * cores)) + kCpuSlackS;
  // SIGXCPU (which ends the child) at the soft limit. The hard limit stays as
  // it is: raising it needs CAP_SYS_RESOURCE, so a hard limit set with an
  // earlier grant would cap every later one, and a long-lived child that had
  // served many requests was killed in the middle of an ordinary one.
  rlimit cpu{};
  if (::prlimit(pid_, RLIMIT_CPU, nullptr, &cpu) != 0) return;
  cpu.rlim_cur = cpu.rlim_max == RLIM_INFINITY ? soft : std::min(soft, cpu.rlim_max);
  ::prlimit(pid_, RLIMIT_CPU, &cpu, nullptr);
}

void ChildProcess::stop(const std::string& goodbye) {
  if (pid_ <= 0) {
    close_pipes();
    return;
  }
  if (!goodbye.empty()) (void)write_frame(to_child_, goodbye);
  ::close(to_child_);
  to_child_ = -1;
  // Give it a moment to exit cleanly, then make sure.
  for (int i = 0; i < 50; ++i) {
    int status;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      last_status_ = status;
      pid_ = -1;
      break;
    }
    ::usleep(10000);
  }
  kill();
}

Status ChildProcess::call(const std::string& request, std::string& response, double timeout_s) {
  if (pid_ <= 0) RETURN_IF_ERROR(start());
  grant_cpu_time(timeout_s);
  Status st = write_frame(to_child_, request);
  if (st.code() == ErrorCode::kInvalidArgument) return st;  // too large to send; the child is fine
  if (!st.ok()) {                                           // gone before it read the request: one fresh try
    kill();
    RETURN_IF_ERROR(start());
    grant_cpu_time(timeout_s);
    st = write_frame(to_child_, request);
    if (!st.ok()) {
      kill();
      return io_error(wait_status_text(name_, last_status_) + " before reading the request");
    }
  }
  const int timeout_ms = timeout_s > 0 ? static_cast<int>(std::ceil(timeout_s * 1000)) : -1;
  st = read_frame(from_child_, response, timeout_ms);
  if (st.ok()) return st;
  if (st.code() == ErrorCode::kTimeout) {
    kill();
    return st;
  }
  // End of stream or a broken pipe: the child died; or it wrote something
  // that is not a frame (then it may live on, and waiting for it could take
  // forever). Kill what is left of the group and reap it for its status.
  kill();
  return io_error(wait_status_text(name_, last_status_));
}

}  // namespace clgen
