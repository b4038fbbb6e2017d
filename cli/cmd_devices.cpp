// `clgen devices`: every OpenCL platform and device with its key properties,
// as a clgen-worker process sees them (OpenCL never loads into clgen itself).
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"

#ifdef CLGEN_HAVE_OPENCL
#include "driver/devices.h"
#include "driver/worker.h"
#include "support/log.h"
#endif

namespace clgen::cli {

namespace {

struct DevicesOptions {
  bool json = false;  // one JSON array instead of the human-readable listing
};

std::string bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", n) : fmt::format("{:.1f} {}", v, units[u]);
}

#ifdef CLGEN_HAVE_OPENCL
Status run_devices(const DevicesOptions& opts) {
  driver::WorkerOptions worker;
  worker.inherit_stderr = spdlog::should_log(spdlog::level::debug);
  ASSIGN_OR_RETURN(driver::DeviceReport report, driver::query_devices(worker));
  const std::vector<driver::DeviceInfo>& devices = report.devices;
  if (devices.empty()) {
    return unavailable(
        "no OpenCL devices found: install an ICD such as pocl-opencl-icd "
        "(scripts/install-deps.sh) or check /etc/OpenCL/vendors");
  }
  if (opts.json) {
    nlohmann::json out = devices;  // the keys of driver/device_json.cpp
    std::printf("%s\n", out.dump(2).c_str());
    return ok_status();
  }
  int last_platform = -1;
  for (const auto& d : devices) {
    if (d.platform_index != last_platform) {
      last_platform = d.platform_index;
      std::printf("Platform %d: %s (%s), %s\n", d.platform_index, d.platform_name.c_str(),
                  d.platform_vendor.c_str(), d.platform_version.c_str());
    }
    std::string item_sizes;
    for (size_t i = 0; i < d.max_work_item_sizes.size(); ++i)
      item_sizes += (i ? "x" : "") + std::to_string(d.max_work_item_sizes[i]);
    std::printf("  Device %d.%d: %s [%s]%s\n", d.platform_index, d.device_index, d.name.c_str(),
                d.type.c_str(), d.available ? "" : " (not available)");
    std::printf("    vendor: %s, %s, driver %s\n", d.vendor.c_str(), d.version.c_str(),
                d.driver_version.c_str());
    std::printf("    OpenCL C: %s\n", d.opencl_c_version.c_str());
    std::printf("    compute units: %u, max clock: %u MHz\n", d.compute_units, d.max_clock_mhz);
    std::printf("    max workgroup size: %llu, max work-item sizes: %s\n",
                static_cast<unsigned long long>(d.max_work_group_size), item_sizes.c_str());
    std::printf("    local memory: %s, global memory: %s, max allocation: %s\n",
                bytes(d.local_mem_size).c_str(), bytes(d.global_mem_size).c_str(),
                bytes(d.max_mem_alloc_size).c_str());
  }
  return ok_status();
}
#endif

}  // namespace

void add_devices_command(CLI::App& app, const GlobalOptions& global, Action& action) {
#ifdef CLGEN_HAVE_OPENCL
  auto opts = std::make_shared<DevicesOptions>();
  CLI::App* cmd = app.add_subcommand("devices", "List OpenCL platforms and devices");
  cmd->add_flag("--json", opts->json, "Print a JSON array");
  cmd->final_callback([opts, &action] { action = [opts] { return run_devices(*opts); }; });
#else
  (void)app;
  (void)action;
#endif
  (void)global;
}

}  // namespace clgen::cli
