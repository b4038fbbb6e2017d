// OpenCL platform and device discovery: the facts `clgen devices` prints and
// the device features the predictive models use. The descriptions and their
// JSON are shared; the discovery itself (list_devices, icd_loader_version)
// runs only in the worker (clgen_driver_cl), as it initialises OpenCL.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "support/status.h"

namespace clgen::driver {

struct DeviceInfo {
  int platform_index = 0;  // position in clGetPlatformIDs
  int device_index = 0;    // position within its platform
  std::string platform_name;
  std::string platform_vendor;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string type;  // "CPU", "GPU", "ACCELERATOR" or "OTHER"
  std::string version;          // CL_DEVICE_VERSION
  std::string driver_version;   // CL_DRIVER_VERSION
  std::string opencl_c_version; // CL_DEVICE_OPENCL_C_VERSION
  uint32_t compute_units = 0;
  uint32_t max_clock_mhz = 0;
  uint64_t max_work_group_size = 0;
  std::vector<uint64_t> max_work_item_sizes;
  uint64_t local_mem_size = 0;   // bytes
  uint64_t global_mem_size = 0;  // bytes
  uint64_t max_mem_alloc_size = 0;
  bool available = false;
};

// What a worker reports about the OpenCL installation it sees.
struct DeviceReport {
  std::vector<DeviceInfo> devices;
  std::string icd_loader;  // icd_loader_version()
};

// The keys of `clgen devices --json` ("platform", "name", "compute_units", ...).
void to_json(nlohmann::json& j, const DeviceInfo& d);
void from_json(const nlohmann::json& j, DeviceInfo& d);
void to_json(nlohmann::json& j, const DeviceReport& r);
void from_json(const nlohmann::json& j, DeviceReport& r);

// --- Worker side only (clgen_driver_cl): these load the OpenCL drivers. ---

// Every device of every platform. No platform at all is an empty list, not an
// error (ocl-icd reports CL_PLATFORM_NOT_FOUND_KHR then); a failing query is
// an error naming the platform/device and the OpenCL error.
Expected<std::vector<DeviceInfo>> list_devices();

// The ICD loader's name and version (ocl-icd's cl_icdl extension), or a note
// that the loader does not say.
std::string icd_loader_version();

}  // namespace clgen::driver
