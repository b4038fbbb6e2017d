// clgen-worker: the slim process that runs OpenCL for clgen. It links the
// OpenCL ICD loader and the OpenCL side of the driver, never Clang, LLVM,
// LibTorch or OpenCV, so an OpenCL driver built on another LLVM (PoCL 5 on
// LLVM 16) never shares a process with clgen's Clang 15.
//
//   clgen-worker                 serve requests on fds 3 and 4 (started by clgen)
//   clgen-worker --list-devices  print the device report as JSON and exit
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "driver/devices.h"
#include "driver/protocol.h"
#include "driver/serve.h"

namespace {

constexpr const char* kUsage =
    "usage: clgen-worker [--list-devices]\n"
    "  Runs OpenCL kernels for clgen (drive, devices): started by clgen with\n"
    "  request/answer pipes on file descriptors 3 and 4.\n"
    "  --list-devices  print the OpenCL devices and ICD loader as JSON\n";

bool is_pipe(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

int list_devices_json() {
  using namespace clgen::driver;
  auto devices = list_devices();
  if (!devices.ok()) {
    std::fprintf(stderr, "clgen-worker: error: %s\n", devices.status().message().c_str());
    return 1;
  }
  nlohmann::json report = DeviceReport{std::move(*devices), icd_loader_version()};
  std::printf("%s\n", report.dump(2).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace clgen::driver;
  if (argc == 2 && std::strcmp(argv[1], "--list-devices") == 0) {
    int code = list_devices_json();
    std::fflush(nullptr);
    ::_exit(code);  // skip OpenCL runtimes' static destructors
  }
  if (argc != 1) {
    std::fputs(kUsage, argc == 2 && std::strcmp(argv[1], "--help") == 0 ? stdout : stderr);
    return argc == 2 && std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
  }
  if (!is_pipe(kWorkerRequestFd) || !is_pipe(kWorkerResponseFd)) {
    std::fprintf(stderr, "clgen-worker: no request/answer pipes on fds %d and %d\n%s",
                 kWorkerRequestFd, kWorkerResponseFd, kUsage);
    return 2;
  }
  int code = run_worker(kWorkerRequestFd, kWorkerResponseFd);
  std::fflush(nullptr);
  // Skip static destructors: the OpenCL runtime may be in a bad state.
  ::_exit(code);
}
