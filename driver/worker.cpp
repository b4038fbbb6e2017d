// The parent's side of worker processes: locating clgen-worker, spawn,
// timeout, kill and respawn.
#include "driver/worker.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>


namespace clgen::driver {

namespace {

std::string signal_text(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "worker killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "worker ended";
}

// Per-worker limits besides memory. A worker writes no files of its own:
// only the OpenCL compilers' caches, whose files are far smaller.
constexpr rlim_t kWorkerMaxFileBytes = rlim_t{1} << 30;
// OpenCL runtimes open a few dozen descriptors (device nodes, caches).
constexpr rlim_t kWorkerMaxFiles = 4096;
// CPU seconds per request beyond the wall-clock limit times the cores (a
// multi-threaded runtime uses at most that): RLIMIT_CPU fires only when the
// parent failed to kill the worker in time.
constexpr rlim_t kWorkerCpuSlackS = 30;

// Kills the worker and everything it started (its own process group).
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

// Mined sources may hold invalid UTF-8: replaced rather than thrown on.
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string default_worker_binary() {
  const char* env = std::getenv("CLGEN_WORKER");
  if (env && *env) return env;
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  std::string self = n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
  size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/clgen-worker";
}

uint64_t default_worker_memory_limit_mb() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  uint64_t physical_mb = pages > 0 && page > 0 ? (static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)) >> 20 : 0;
  return std::clamp<uint64_t>(physical_mb / 2, 1024, 8192);
}

WorkerProcess::WorkerProcess(WorkerOptions options) : options_(std::move(options)) {
  if (options_.binary.empty()) options_.binary = default_worker_binary();
  // A worker dying between our write and its read must not kill the parent.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() { stop(); }

Status WorkerProcess::start() {
  // A missing or unrunnable binary is named here rather than surfacing as a
  // worker that "exited with status 127".
  if (::access(options_.binary.c_str(), X_OK) != 0)
    return unavailable("cannot run the worker binary '" + options_.binary + "': " +
                       std::strerror(errno) +
                       " (build the clgen-worker target, which sits next to clgen, or point "
                       "CLGEN_WORKER at it)");
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0)
    return io_error(std::string("creating worker pipes: ") + std::strerror(errno));
  std::vector<std::string> argv_s = {options_.binary};
  argv_s.insert(argv_s.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t parent = ::getpid();
  const uint64_t memory_mb = options_.memory_limit_mb      ? options_.memory_limit_mb
                             : options_.default_memory_cap ? default_worker_memory_limit_mb()
                                                           : 0;
  rlimit files{kWorkerMaxFiles, kWorkerMaxFiles};
  rlimit current_files;
  if (::getrlimit(RLIMIT_NOFILE, &current_files) == 0 && current_files.rlim_max < files.rlim_max)
    files = {current_files.rlim_max, current_files.rlim_max};  // lowering only: no privilege needed
  pid_t pid = ::fork();
  if (pid < 0) return io_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child (async-signal-safe calls only): die with the parent, no core
    // dumps, bounded memory, file sizes and descriptors, first in line for
    // the OOM killer.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    // Own process group: a terminal's Ctrl-C reaches only the parent, which
    // stops between runs; the worker finishes the run in flight. The parent
    // kills the whole group, so helpers a runtime forks die with it.
    ::setpgid(0, 0);
    rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    if (memory_mb > 0) {
      rlim_t bytes = static_cast<rlim_t>(memory_mb) << 20;
      rlimit data{bytes, bytes};
      ::setrlimit(RLIMIT_DATA, &data);
    }
    rlimit fsize{kWorkerMaxFileBytes, kWorkerMaxFileBytes};
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
    if (req < 0 || resp < 0 || ::dup2(req, kWorkerRequestFd) < 0 ||
        ::dup2(resp, kWorkerResponseFd) < 0)
      ::_exit(126);
    int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::dup2(devnull, STDOUT_FILENO);  // kernels' printf output
      if (!options_.inherit_stderr) ::dup2(devnull, STDERR_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so a kill of the group cannot precede the child's own call
  ::close(to[0]);
  ::close(from[1]);
  pid_ = pid;
  to_worker_ = to[1];
  from_worker_ = from[0];
  ++started_;
  // A worker that cannot even answer a ping (bad binary, memory limit too
  // low) is a set-up error, not a kernel's crash.
  std::string pong;
  grant_cpu_time();
  Status st = write_frame(to_worker_, R"({"op":"ping"})");
  if (st.ok()) st = read_frame(from_worker_, pong, static_cast<int>(options_.timeout_s * 1000));
  if (!st.ok()) {
    int status = 0;
    kill_group(pid_);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    kill_worker();
    return unavailable("starting worker '" + options_.binary + "': " + signal_text(status) +
                       " before answering (" + st.message() + ")");
  }
  return ok_status();
}

void WorkerProcess::reap_if_dead() {
  int status;
  if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    kill_worker();
  }
}

void WorkerProcess::kill_worker() {
  if (pid_ > 0) {
    kill_group(pid_);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  prepared_.clear();
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
}

void WorkerProcess::grant_cpu_time() {
  double used = cpu_seconds(pid_);
  if (used < 0) return;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  rlim_t soft = static_cast<rlim_t>(std::ceil(used + options_.timeout_s * cores)) + kWorkerCpuSlackS;
  // SIGXCPU at the soft limit, SIGKILL at the hard one.
  rlimit cpu{soft, soft + 5};
  ::prlimit(pid_, RLIMIT_CPU, &cpu, nullptr);
}

void WorkerProcess::stop() {
  if (pid_ <= 0) return;
  (void)write_frame(to_worker_, R"({"op":"exit"})");
  ::close(to_worker_);
  to_worker_ = -1;
  // Give it a moment to exit cleanly, then make sure.
  for (int i = 0; i < 50; ++i) {
    int status;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    ::usleep(10000);
  }
  kill_worker();
}

Status WorkerProcess::call(const std::string& request, std::string& response) {
  // A worker that died while idle is replaced, so its death is not blamed on
  // this request.
  reap_if_dead();
  if (pid_ <= 0) RETURN_IF_ERROR(start());
  grant_cpu_time();
  Status st = write_frame(to_worker_, request);
  if (!st.ok()) {  // gone before it read the request: one fresh try
    kill_worker();
    RETURN_IF_ERROR(start());
    grant_cpu_time();
    st = write_frame(to_worker_, request);
  }
  if (st.ok()) st = read_frame(from_worker_, response, static_cast<int>(options_.timeout_s * 1000));
  if (st.ok()) {
    // A worker that saw an execution error says so and exits after answering.
    auto reply = nlohmann::json::parse(response, nullptr, /*allow_exceptions=*/false);
    if (reply.is_object() && reply.value("exiting", false)) kill_worker();
    return st;
  }
  if (st.code() == ErrorCode::kTimeout) {
    kill_worker();
    return timeout_error(fmt::format("worker exceeded the {:g} s wall-clock limit and was killed",
                                     options_.timeout_s));
  }
  // End of stream or a broken pipe: the worker died. Reap it for its status.
  int status = 0;
  pid_t pid = pid_;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  kill_worker();
  return io_error(signal_text(status));
}

Status WorkerProcess::prepare(int platform_index, int device_index) {
  // A worker that died while idle is replaced here, not during the job.
  reap_if_dead();
  if (pid_ > 0 && prepared_.count({platform_index, device_index})) return ok_status();
  const double job_timeout = options_.timeout_s;
  options_.timeout_s = std::max(options_.startup_timeout_s, job_timeout);
  std::string response;
  Status st =
      call(dump(nlohmann::json{{"op", "prepare"}, {"platform_index", platform_index}, {"device_index", device_index}}),
           response);
  options_.timeout_s = job_timeout;
  if (st.ok()) {
    auto reply = nlohmann::json::parse(response, nullptr, /*allow_exceptions=*/false);
    if (reply.is_object() && reply.value("ok", false)) {
      prepared_.insert({platform_index, device_index});
      return ok_status();
    }
    if (!reply.is_object()) return internal_error("malformed worker reply to prepare");
    // The worker's own code (no such device: kNotFound), with context.
    return Status(static_cast<ErrorCode>(reply.value("code", static_cast<int>(ErrorCode::kUnavailable))),
                  fmt::format("opening device {}.{} in the worker: {}", platform_index, device_index,
                              reply.value("error", std::string("no message"))));
  }
  return Status(st.code() == ErrorCode::kTimeout || st.code() == ErrorCode::kIo ? ErrorCode::kUnavailable : st.code(),
                fmt::format("opening device {}.{} in the worker: {}", platform_index, device_index, st.message()));
}

Expected<DriveResult> WorkerProcess::drive(const DriveJob& job) {
  // The device is opened outside the job's limit; a device that cannot be
  // opened fails the drive, not the kernel.
  RETURN_IF_ERROR(prepare(job.platform_index, job.device_index));
  std::string response;
  Status st = call(dump(nlohmann::json{{"op", "drive"}, {"job", job}}), response);
  if (st.code() == ErrorCode::kTimeout || st.code() == ErrorCode::kIo) {
    DriveResult r;
    r.outcome = st.code() == ErrorCode::kTimeout ? Outcome::kTimeout : Outcome::kCrash;
    r.message = st.message();
    r.local_size = job.local_size;
    return r;
  }
  RETURN_IF_ERROR(st);
  try {
    auto reply = nlohmann::json::parse(response);
    if (!reply.at("ok").get<bool>())
      return Status(static_cast<ErrorCode>(reply.at("code").get<int>()),
                    reply.at("error").get<std::string>());
    return reply.at("result").get<DriveResult>();
  } catch (const std::exception& e) {
    return internal_error(std::string("malformed worker reply: ") + e.what());
  }
}

namespace {
Expected<std::vector<KernelSignature>> kernels_reply(const std::string& response) {
  try {
    auto reply = nlohmann::json::parse(response);
    if (!reply.at("ok").get<bool>())
      return Status(static_cast<ErrorCode>(reply.at("code").get<int>()),
                    reply.at("error").get<std::string>());
    return reply.at("result").get<std::vector<KernelSignature>>();
  } catch (const std::exception& e) {
    return internal_error(std::string("malformed worker reply: ") + e.what());
  }
}
}  // namespace

Expected<std::vector<KernelSignature>> WorkerProcess::list_kernels(const std::string& source,
                                                                   const std::string& build_options,
                                                                   int platform_index,
                                                                   int device_index) {
  std::string response;
  RETURN_IF_ERROR_CTX(call(dump(nlohmann::json{{"op", "list"},
                                               {"source", source},
                                               {"build_options", build_options},
                                               {"platform_index", platform_index},
                                               {"device_index", device_index}}),
                           response),
                      "listing kernels");
  return kernels_reply(response);
}

Expected<DeviceReport> WorkerProcess::list_devices() {
  std::string response;
  RETURN_IF_ERROR_CTX(call(R"({"op":"devices"})", response),
                      "listing OpenCL devices in the worker");
  try {
    auto reply = nlohmann::json::parse(response);
    if (!reply.at("ok").get<bool>())
      return Status(static_cast<ErrorCode>(reply.at("code").get<int>()),
                    reply.at("error").get<std::string>());
    return reply.at("result").get<DeviceReport>();
  } catch (const std::exception& e) {
    return internal_error(std::string("malformed worker reply: ") + e.what());
  }
}

Expected<DeviceReport> query_devices(WorkerOptions options) {
  WorkerProcess worker(std::move(options));
  return worker.list_devices();
}

}  // namespace clgen::driver
