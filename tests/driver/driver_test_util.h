// Helpers shared by the parent-side driver tests: the device under test
// (chosen with CLGEN_TEST_DEVICE, default "cpu", found through clgen-worker)
// and jobs built from the hand-written kernels in tests/data/driver.
#pragma once

#include <optional>
#include <string>

#include "driver/args.h"
#include "driver/devices.h"
#include "driver/drive.h"
#include "driver/job.h"
#include "driver/worker.h"
#include "support/files.h"

namespace clgen::driver::testing {

inline std::string device_spec() {
  const char* env = std::getenv("CLGEN_TEST_DEVICE");
  return env && *env ? env : "cpu";
}

// Options for a worker running the freshly built clgen-worker.
inline WorkerOptions worker_options(double timeout_s = 60) {
  WorkerOptions o;
  o.binary = CLGEN_WORKER_BINARY;
  o.timeout_s = timeout_s;
  return o;
}

// The first device matching CLGEN_TEST_DEVICE, or nullopt (tests then skip).
// Asked once of a worker: this test process, like clgen, never loads OpenCL.
inline std::optional<DeviceInfo> test_device() {
  static const std::optional<DeviceInfo> device = []() -> std::optional<DeviceInfo> {
    auto report = query_devices(worker_options());
    if (!report.ok()) return std::nullopt;
    auto devices = select_devices(report->devices, device_spec());
    if (!devices.ok() || devices->empty()) return std::nullopt;
    return devices->front();
  }();
  return device;
}

inline std::string kernel_path(const std::string& file) {
  return std::string(CLGEN_TEST_DATA) + "/driver/" + file;
}

inline std::string kernel_source(const std::string& file) {
  auto text = read_file(kernel_path(file));
  return text.ok() ? *text : "";
}

// A job for `kernel` in `file` at global size 4096, arguments from the Clang
// analysis when built with it, from the device otherwise.
inline DriveJob make_job(const DeviceInfo& device, const std::string& file,
                         const std::string& kernel) {
  DriveJob job;
  job.source = kernel_source(file);
  job.kernel_name = kernel;
  job.platform_index = device.platform_index;
  job.device_index = device.device_index;
  job.global_size = {4096};
  job.runs = 3;
  if (have_clang_analysis()) {
    auto kernels = analyze_kernels(job.source);
    if (kernels.ok())
      for (const auto& k : *kernels)
        if (k.name == kernel) job.args = k.args;
  } else {
    job.args_from_device = true;
  }
  return job;
}

}  // namespace clgen::driver::testing
