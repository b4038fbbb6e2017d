// Device discovery through the ICD loader finds PoCL's CPU device.
#include "driver/devices.h"

#include <gtest/gtest.h>

namespace clgen::driver {
namespace {

TEST(Devices, ListsPoclCpuDeviceWithProperties) {
  auto devices = list_devices();
  ASSERT_TRUE(devices.ok()) << devices.status().message();
  const DeviceInfo* cpu = nullptr;
  for (const auto& d : *devices)
    if (d.type == "CPU" && d.platform_name.find("Portable") != std::string::npos) cpu = &d;
  ASSERT_NE(cpu, nullptr) << "PoCL's CPU device not found (is pocl-opencl-icd installed?)";
  EXPECT_GT(cpu->compute_units, 0u);
  EXPECT_GT(cpu->max_work_group_size, 0u);
  EXPECT_FALSE(cpu->max_work_item_sizes.empty());
  EXPECT_GT(cpu->local_mem_size, 0u);
  EXPECT_GE(cpu->global_mem_size, cpu->max_mem_alloc_size);
  EXPECT_TRUE(cpu->available);
}

TEST(Devices, IcdLoaderReportsAVersion) {
  EXPECT_FALSE(icd_loader_version().empty());
}

}  // namespace
}  // namespace clgen::driver
