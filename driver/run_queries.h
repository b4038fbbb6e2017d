// The driver's runs as other modules read them (datasets): the driver owns
// `runs` and `kernel_sources`, and these queries are the way in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

// Whether the workspace has a runs table.
Expected<bool> has_runs(Database& db);

// A device with stored runs, and how many of them passed.
struct DeviceRunCount {
  std::string platform, device;
  int64_t runs = 0, passing = 0;
};
// Every device with runs, ordered by platform and device.
Expected<std::vector<DeviceRunCount>> run_devices(Database& db);

// One kernel at one global size and requested local size with passing runs
// on both devices of a pair (same build options).
struct PairedRun {
  std::string kernel_sha256, kernel_name, global_size, requested_local_size;
  std::string origin;  // the first device's run's origin
  std::string local_size_first, local_size_second;
  int64_t transferred_bytes = 0;  // the second device's run's
  double kernel_ns_first = 0, kernel_ns_second = 0;
  double transfer_ns_first = 0, transfer_ns_second = 0;  // 0 when not measured
};
// The passing runs of named kernels measured on both (platform, device)
// pairs, ordered by kernel, name, build options, global and requested local size.
Expected<std::vector<PairedRun>> paired_passing_runs(Database& db, const std::string& first_platform,
                                                     const std::string& first_device,
                                                     const std::string& second_platform,
                                                     const std::string& second_device);

// One run with a requested local size (a point of a local-size sweep).
struct SweepRun {
  std::string kernel_sha256, kernel_name, platform, device, build_options, global_size, requested_local_size;
  std::string outcome;
  std::optional<double> kernel_ns;     // nullopt when not measured
  int64_t kernel_work_group_size = 0;  // 0 when not reported
  std::string origin;
};
// Runs of named kernels with a requested local size, on one device when
// `platform`/`device` are given, ordered by kernel, name, platform, device,
// build options and global size.
Expected<std::vector<SweepRun>> sweep_runs(Database& db, const std::string* platform = nullptr,
                                           const std::string* device = nullptr);

// The stored text of a driven source (store_kernel_source), if any; nullopt
// also when the workspace has no kernel_sources table.
Expected<std::optional<std::string>> kernel_source_text(Database& db, const std::string& sha256);

}  // namespace clgen::driver
