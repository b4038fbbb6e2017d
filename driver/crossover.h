// Where do the CPU and the GPU trade places? For one kernel, bisection on
// the (1-D) global size between two bounds for the size at which the faster
// device changes, given a runtime function of (device, global size); and
// `clgen drive --crossover`, which runs that search on two devices through
// the driver's workers and stores every run it makes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/drive.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

enum class Side { kCpu = 0, kGpu = 1 };
const char* side_name(Side s);  // "CPU" | "GPU"

struct CrossoverProbe {
  uint64_t size = 0;
  double cpu_ms = 0, gpu_ms = 0;
  Side faster() const { return cpu_ms <= gpu_ms ? Side::kCpu : Side::kGpu; }  // ties: CPU, as the exports' oracle
};

struct Crossover {
  enum class Kind {
    kFound,   // the faster device differs at `below` and `above`, which are adjacent (within the step)
    kNone,    // the same device is faster at both bounds: no crossover seen in the range
    kFailed,  // the runtime function failed at some probe (`message` says where and why)
  };
  Kind kind = Kind::kNone;
  uint64_t below = 0, above = 0;                              // kFound: the last probes on either side of the change
  Side faster_below = Side::kCpu, faster_above = Side::kCpu;  // kNone: both are the device faster throughout
  std::vector<CrossoverProbe> probes;                         // in the order they were made
  std::string message;
};
const char* crossover_kind_name(Crossover::Kind k);  // "found" | "none" | "failed"

// Runtime in ms of the kernel at a global size on a device, or an error.
using RuntimeFunction = std::function<Expected<double>(Side device, uint64_t global_size)>;

struct CrossoverOptions {
  uint64_t low = 256, high = 4194304;  // the bounds, both probed
  // Probed sizes are multiples of `step` (the bounds excepted); the search
  // stops when the bracket is at most `step` wide.
  uint64_t step = 64;
  int max_probes = 40;  // sizes probed, bounds included
};

// Probes both bounds; if the faster device differs, halves the bracket
// (geometric midpoints while the upper end is at least twice the lower,
// then arithmetic ones, rounded down to multiples of `step`) until it is at
// most `step` wide, no new size fits between its ends, or `max_probes` sizes
// are spent. It assumes one change of sign: a range where the devices trade
// places twice can look like kNone (only the bounds are compared) or report
// one of the changes. Invalid options are an error; a runtime failure is a
// kFailed result.
Expected<Crossover> find_crossover(const RuntimeFunction& runtime, const CrossoverOptions& options);

// `clgen drive --crossover`: for each kernel of the sources `options` names,
// find_crossover() between the selected CPU and GPU device (exactly one of
// each must match options.device), with runs of options.runs repetitions
// stored like any drive's (a stored run is reused, not repeated), so a
// mapping export holds the rows near each crossover.
struct KernelCrossover {
  std::string origin, kernel;
  Crossover result;
};
Expected<std::vector<KernelCrossover>> drive_crossover(Database& db, const DriveOptions& options,
                                                       const CrossoverOptions& crossover);

}  // namespace clgen::driver
