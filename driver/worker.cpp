// Worker processes: framing, the worker's serve loop, and the parent's
// spawn / timeout / kill / respawn logic.
#include "driver/worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/args.h"
#include "driver/executor.h"

namespace clgen::driver {

namespace {

constexpr uint32_t kMaxFrame = 256u << 20;

Status write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return io_error(std::string("writing to worker pipe: ") + std::strerror(errno));
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return ok_status();
}

Status read_all(int fd, char* data, size_t n, std::chrono::steady_clock::time_point deadline,
                bool forever) {
  while (n > 0) {
    int wait_ms = -1;
    if (!forever) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return timeout_error("no answer before the deadline");
      wait_ms = static_cast<int>(std::min<long long>(left, 1000));
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return io_error(std::string("poll: ") + std::strerror(errno));
    }
    if (r == 0) continue;
    ssize_t got = ::read(fd, data, n);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error(std::string("reading pipe: ") + std::strerror(errno));
    }
    if (got == 0) return io_error("end of stream");
    data += got;
    n -= static_cast<size_t>(got);
  }
  return ok_status();
}

std::string signal_text(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "worker killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "worker ended";
}

// Mined sources may hold invalid UTF-8: replaced rather than thrown on.
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json error_reply(const Status& st) {
  return {{"ok", false}, {"error", st.message()}, {"code", static_cast<int>(st.code())}};
}

}  // namespace

Status write_frame(int fd, const std::string& payload) {
  if (payload.size() > kMaxFrame) return invalid_argument("message too large for the worker pipe");
  uint32_t n = static_cast<uint32_t>(payload.size());
  unsigned char header[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                             static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  RETURN_IF_ERROR(write_all(fd, reinterpret_cast<const char*>(header), 4));
  return write_all(fd, payload.data(), payload.size());
}

Status read_frame(int fd, std::string& payload, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool forever = timeout_ms < 0;
  unsigned char header[4];
  RETURN_IF_ERROR(read_all(fd, reinterpret_cast<char*>(header), 4, deadline, forever));
  uint32_t n = header[0] | (header[1] << 8) | (header[2] << 16) | (uint32_t{header[3]} << 24);
  if (n > kMaxFrame) return io_error("frame of " + std::to_string(n) + " bytes is too large");
  payload.assign(n, '\0');
  return read_all(fd, payload.data(), n, deadline, forever);
}

int run_worker(int in_fd, int out_fd) {
  Executor executor;
  std::string frame;
  while (true) {
    Status st = read_frame(in_fd, frame, -1);
    if (!st.ok()) return 0;  // the parent closed the pipe
    nlohmann::json reply;
    try {
      nlohmann::json request = nlohmann::json::parse(frame);
      const std::string op = request.at("op").get<std::string>();
      if (op == "exit") return 0;
      if (op == "ping") {
        reply = {{"ok", true}, {"result", "pong"}};
      } else if (op == "drive") {
        DriveJob job = request.at("job").get<DriveJob>();
        auto result = executor.drive(job);
        reply = result.ok() ? nlohmann::json{{"ok", true}, {"result", *result}}
                            : error_reply(result.status());
      } else if (op == "analyze") {
        auto kernels = analyze_kernels(request.at("source").get<std::string>());
        reply = kernels.ok() ? nlohmann::json{{"ok", true}, {"result", *kernels}}
                             : error_reply(kernels.status());
      } else if (op == "list") {
        auto kernels = executor.list_kernels(
            request.at("source").get<std::string>(), request.at("build_options").get<std::string>(),
            request.at("platform_index").get<int>(), request.at("device_index").get<int>());
        reply = kernels.ok() ? nlohmann::json{{"ok", true}, {"result", *kernels}}
                             : error_reply(kernels.status());
      } else {
        reply = error_reply(invalid_argument("unknown worker request '" + op + "'"));
      }
    } catch (const std::exception& e) {
      reply = error_reply(invalid_argument(std::string("malformed worker request: ") + e.what()));
    }
    if (executor.poisoned()) reply["exiting"] = true;
    if (!write_frame(out_fd, dump(reply)).ok()) return 1;
    if (executor.poisoned()) return 3;
  }
}

WorkerProcess::WorkerProcess(WorkerOptions options) : options_(std::move(options)) {
  if (options_.binary.empty()) {
    char path[4096];
    ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) options_.binary.assign(path, static_cast<size_t>(n));
  }
  // A worker dying between our write and its read must not kill the parent.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() { stop(); }

Status WorkerProcess::start() {
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0)
    return io_error(std::string("creating worker pipes: ") + std::strerror(errno));
  std::vector<std::string> argv_s = {options_.binary};
  argv_s.insert(argv_s.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return io_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: die with the parent, no core dumps, optional memory cap.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    // Own process group: a terminal's Ctrl-C reaches only the parent, which
    // stops between runs; the worker finishes the run in flight.
    ::setpgid(0, 0);
    rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    if (options_.memory_limit_mb > 0) {
      rlim_t bytes = static_cast<rlim_t>(options_.memory_limit_mb) << 20;
      rlimit data{bytes, bytes};
      ::setrlimit(RLIMIT_DATA, &data);
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
  ::close(to[0]);
  ::close(from[1]);
  pid_ = pid;
  to_worker_ = to[1];
  from_worker_ = from[0];
  ++started_;
  // A worker that cannot even answer a ping (bad binary, memory limit too
  // low) is a set-up error, not a kernel's crash.
  std::string pong;
  Status st = write_frame(to_worker_, R"({"op":"ping"})");
  if (st.ok()) st = read_frame(from_worker_, pong, static_cast<int>(options_.timeout_s * 1000));
  if (!st.ok()) {
    int status = 0;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    kill_worker();
    return unavailable("starting worker '" + options_.binary + "': " + signal_text(status) +
                       " before answering (" + st.message() + ")");
  }
  return ok_status();
}

void WorkerProcess::kill_worker() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
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
  if (pid_ > 0) {
    int status;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      kill_worker();
    }
  }
  if (pid_ <= 0) RETURN_IF_ERROR(start());
  Status st = write_frame(to_worker_, request);
  if (!st.ok()) {  // gone before it read the request: one fresh try
    kill_worker();
    RETURN_IF_ERROR(start());
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

Expected<DriveResult> WorkerProcess::drive(const DriveJob& job) {
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

Expected<std::vector<KernelSignature>> WorkerProcess::analyze_kernels(const std::string& source) {
  std::string response;
  RETURN_IF_ERROR_CTX(call(dump(nlohmann::json{{"op", "analyze"}, {"source", source}}), response),
                      "analysing kernel arguments");
  return kernels_reply(response);
}

}  // namespace clgen::driver
