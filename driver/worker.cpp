// The parent's side of worker processes: locating clgen-worker, its limits,
// the ping at start, device preparation and the requests (the process itself:
// support/child_process.h).
#include "driver/worker.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace clgen::driver {

namespace {

// Per-worker limits besides memory. A worker writes no files of its own:
// only the OpenCL compilers' caches, whose files are far smaller.
constexpr uint64_t kWorkerMaxFileBytes = uint64_t{1} << 30;
// OpenCL runtimes open a few dozen descriptors (device nodes, caches).
constexpr uint64_t kWorkerMaxFiles = 4096;

// Mined sources may hold invalid UTF-8: replaced rather than thrown on.
std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string binary_of(const WorkerOptions& options) {
  return options.binary.empty() ? default_worker_binary() : options.binary;
}

std::vector<std::string> argv_of(const WorkerOptions& options) {
  std::vector<std::string> argv = {binary_of(options)};
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  return argv;
}

ChildLimits limits_of(const WorkerOptions& options) {
  ChildLimits limits;
  limits.data_mb = options.memory_limit_mb      ? options.memory_limit_mb
                   : options.default_memory_cap ? default_worker_memory_limit_mb()
                                                : 0;
  limits.max_file_bytes = kWorkerMaxFileBytes;
  limits.max_files = kWorkerMaxFiles;
  limits.inherit_stderr = options.inherit_stderr;
  return limits;
}

}  // namespace

std::string default_worker_binary() { return sibling_executable("clgen-worker", "CLGEN_WORKER"); }

uint64_t default_worker_memory_limit_mb() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  uint64_t physical_mb = pages > 0 && page > 0 ? (static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)) >> 20 : 0;
  return std::clamp<uint64_t>(physical_mb / 2, 1024, 8192);
}

WorkerProcess::WorkerProcess(WorkerOptions options)
    : options_(std::move(options)), child_(argv_of(options_), limits_of(options_), "worker") {
  options_.binary = child_.binary();
}

WorkerProcess::~WorkerProcess() { stop(); }

Status WorkerProcess::start() {
  prepared_.clear();
  Status st = child_.start();
  if (st.code() == ErrorCode::kUnavailable)
    return unavailable(st.message() +
                       " (build the clgen-worker target, which sits next to clgen, or point "
                       "CLGEN_WORKER at it)");
  RETURN_IF_ERROR(st);
  // A worker that cannot even answer a ping (bad binary, memory limit too
  // low) is a set-up error, not a kernel's crash.
  std::string pong;
  st = child_.call(R"({"op":"ping"})", pong, options_.timeout_s);
  if (!st.ok()) {
    child_.kill();
    return unavailable("starting worker '" + options_.binary +
                       "': " + (st.code() == ErrorCode::kTimeout ? std::string("no answer in time") : st.message()) +
                       " before answering a ping");
  }
  return ok_status();
}

void WorkerProcess::stop() {
  child_.stop(R"({"op":"exit"})");
  prepared_.clear();
}

Status WorkerProcess::call(const std::string& request, std::string& response) {
  // A worker that died while idle is replaced, so its death is not blamed on
  // this request.
  child_.reap_if_dead();
  if (!child_.running()) RETURN_IF_ERROR(start());
  const int started = child_.started();
  Status st = child_.call(request, response, options_.timeout_s);
  if (child_.started() != started || !child_.running()) prepared_.clear();  // a fresh worker
  if (st.ok()) {
    // A worker that saw an execution error says so and exits after answering.
    auto reply = nlohmann::json::parse(response, nullptr, /*allow_exceptions=*/false);
    if (reply.is_object() && reply.value("exiting", false)) {
      child_.kill();
      prepared_.clear();
    }
    return st;
  }
  if (st.code() == ErrorCode::kTimeout)
    return timeout_error(fmt::format("worker exceeded the {:g} s wall-clock limit and was killed",
                                     options_.timeout_s));
  return st;
}

Status WorkerProcess::prepare(int platform_index, int device_index) {
  // A worker that died while idle is replaced here, not during the job.
  if (child_.reap_if_dead()) prepared_.clear();
  if (child_.running() && prepared_.count({platform_index, device_index})) return ok_status();
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
