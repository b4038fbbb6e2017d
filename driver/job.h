// One unit of driver work (a kernel on a device at a global/local size) and
// its result, with their JSON form for the worker protocol.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "driver/args.h"
#include "driver/outcome.h"

namespace clgen::driver {

struct DriveJob {
  std::string source;
  std::string kernel_name;
  std::vector<ArgInfo> args;      // from analyze_kernels(); ignored when args_from_device
  bool args_from_device = false;  // use the device compiler's kernel-argument info
  int platform_index = 0;         // as in list_devices()
  int device_index = 0;
  std::vector<uint64_t> global_size;  // 1 to 3 dimensions
  std::vector<uint64_t> local_size;   // empty = chosen automatically
  int runs = 10;                      // profiled repetitions after the check passes
  int warmup = 1;                     // unrecorded runs before them
  uint64_t seed = 0;                  // payload A uses seed, payload B seed + 1
  std::string build_options;
  bool check = true;  // false: skip the dynamic checker and profile directly
  // When the check finds outputs equal to inputs and the kernel has integer
  // scalar arguments, check again with every integer scalar 1 instead of
  // the global size (an offset or index argument of S writes past the end).
  bool scalar_fallback = true;
  // Every integer scalar 1 from the start: the pool drives a kernel again so
  // when a worker died on it with the global size (a far overrun).
  bool integer_scalars_one = false;
};

struct DriveResult {
  Outcome outcome = Outcome::kCrash;
  std::string message;                // why, for every outcome but pass
  std::vector<uint64_t> local_size;   // the local size used (or refused)
  uint64_t transferred_bytes = 0;     // host<->device bytes of one run
  std::vector<uint64_t> transfer_ns;  // per profiled run: all transfers summed
  std::vector<uint64_t> kernel_ns;    // per profiled run
  uint64_t kernel_local_mem = 0;      // CL_KERNEL_LOCAL_MEM_SIZE
  uint64_t kernel_private_mem = 0;    // CL_KERNEL_PRIVATE_MEM_SIZE
  uint64_t kernel_work_group_size = 0;  // CL_KERNEL_WORK_GROUP_SIZE
  // The value integer scalar arguments had in the reported runs (the payload
  // rule: the global size in dimension 0, or 1 after the scalar fallback;
  // clamped to each type's maximum); 0 when the kernel has none.
  uint64_t scalar_value = 0;
};

void to_json(nlohmann::json& j, const ArgInfo& a);
void from_json(const nlohmann::json& j, ArgInfo& a);
void to_json(nlohmann::json& j, const KernelSignature& k);
void from_json(const nlohmann::json& j, KernelSignature& k);
void to_json(nlohmann::json& j, const DriveJob& job);
void from_json(const nlohmann::json& j, DriveJob& job);
void to_json(nlohmann::json& j, const DriveResult& r);
void from_json(const nlohmann::json& j, DriveResult& r);

// "4096", "1024,1024": the form sizes take on the command line, in the
// database and in CSV files.
std::string format_size(const std::vector<uint64_t>& size);
// Parses "1024" or "16,16" (1 to 3 positive integers).
Expected<std::vector<uint64_t>> parse_size(const std::string& text);

// The automatic local size: per dimension a divisor of the global size,
// grown in powers of two round-robin while the product stays within `limit`
// (min of device and kernel work-group limits) and each dimension within
// `max_items`.
std::vector<uint64_t> automatic_local_size(const std::vector<uint64_t>& global,
                                           uint64_t limit,
                                           const std::vector<uint64_t>& max_items);

}  // namespace clgen::driver
