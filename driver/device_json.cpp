// JSON form of device descriptions: the worker's device report and the
// output of `clgen devices --json`.
#include <nlohmann/json.hpp>

#include "driver/devices.h"

namespace clgen::driver {

void to_json(nlohmann::json& j, const DeviceInfo& d) {
  j = {{"platform_index", d.platform_index},
       {"device_index", d.device_index},
       {"platform", d.platform_name},
       {"platform_vendor", d.platform_vendor},
       {"platform_version", d.platform_version},
       {"name", d.name},
       {"vendor", d.vendor},
       {"type", d.type},
       {"version", d.version},
       {"driver_version", d.driver_version},
       {"opencl_c_version", d.opencl_c_version},
       {"compute_units", d.compute_units},
       {"max_clock_mhz", d.max_clock_mhz},
       {"max_work_group_size", d.max_work_group_size},
       {"max_work_item_sizes", d.max_work_item_sizes},
       {"local_mem_size", d.local_mem_size},
       {"global_mem_size", d.global_mem_size},
       {"max_mem_alloc_size", d.max_mem_alloc_size},
       {"available", d.available}};
}

void from_json(const nlohmann::json& j, DeviceInfo& d) {
  d.platform_index = j.at("platform_index").get<int>();
  d.device_index = j.at("device_index").get<int>();
  d.platform_name = j.at("platform").get<std::string>();
  d.platform_vendor = j.at("platform_vendor").get<std::string>();
  d.platform_version = j.at("platform_version").get<std::string>();
  d.name = j.at("name").get<std::string>();
  d.vendor = j.at("vendor").get<std::string>();
  d.type = j.at("type").get<std::string>();
  d.version = j.at("version").get<std::string>();
  d.driver_version = j.at("driver_version").get<std::string>();
  d.opencl_c_version = j.at("opencl_c_version").get<std::string>();
  d.compute_units = j.at("compute_units").get<uint32_t>();
  d.max_clock_mhz = j.at("max_clock_mhz").get<uint32_t>();
  d.max_work_group_size = j.at("max_work_group_size").get<uint64_t>();
  d.max_work_item_sizes = j.at("max_work_item_sizes").get<std::vector<uint64_t>>();
  d.local_mem_size = j.at("local_mem_size").get<uint64_t>();
  d.global_mem_size = j.at("global_mem_size").get<uint64_t>();
  d.max_mem_alloc_size = j.at("max_mem_alloc_size").get<uint64_t>();
  d.available = j.at("available").get<bool>();
}

void to_json(nlohmann::json& j, const DeviceReport& r) {
  j = {{"devices", r.devices}, {"icd_loader", r.icd_loader}};
}

void from_json(const nlohmann::json& j, DeviceReport& r) {
  r.devices = j.at("devices").get<std::vector<DeviceInfo>>();
  r.icd_loader = j.at("icd_loader").get<std::string>();
}

}  // namespace clgen::driver
