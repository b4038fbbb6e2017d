// The crossover search (a pure bisection over a runtime function) and its
// driver: runs on a CPU and a GPU worker, stored as they are made.
#include "driver/crossover.h"

#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "driver/analysis_worker.h"
#include "driver/args.h"
#include "driver/runs.h"
#include "driver/stats.h"
#include "driver/worker.h"
#include "support/interrupt.h"
#include "support/sha256.h"

namespace clgen::driver {

const char* side_name(Side s) { return s == Side::kGpu ? "GPU" : "CPU"; }

const char* crossover_kind_name(Crossover::Kind k) {
  switch (k) {
    case Crossover::Kind::kFound: return "found";
    case Crossover::Kind::kNone: return "none";
    case Crossover::Kind::kFailed: return "failed";
  }
  return "?";
}

Expected<Crossover> find_crossover(const RuntimeFunction& runtime, const CrossoverOptions& o) {
  if (o.low < 1 || o.high <= o.low)
    return invalid_argument(fmt::format("crossover search: need 1 <= low < high, got {}..{}", o.low, o.high));
  if (o.step < 1) return invalid_argument("crossover search: the step must be at least 1");
  if (o.max_probes < 2) return invalid_argument("crossover search: at least 2 probes (the bounds) are needed");
  Crossover c;
  auto probe = [&](uint64_t size) -> std::optional<CrossoverProbe> {
    CrossoverProbe p;
    p.size = size;
    for (Side side : {Side::kCpu, Side::kGpu}) {
      auto ms = runtime(side, size);
      if (!ms.ok()) {
        c.kind = Crossover::Kind::kFailed;
        c.message = fmt::format("{} at global size {}: {}", side_name(side), size, ms.status().message());
        return std::nullopt;
      }
      (side == Side::kCpu ? p.cpu_ms : p.gpu_ms) = *ms;
    }
    c.probes.push_back(p);
    return p;
  };
  auto lo = probe(o.low);
  if (!lo) return c;
  auto hi = probe(o.high);
  if (!hi) return c;
  c.faster_below = lo->faster();
  c.faster_above = hi->faster();
  if (c.faster_below == c.faster_above) {
    c.kind = Crossover::Kind::kNone;
    c.below = o.low;
    c.above = o.high;
    c.message = fmt::format("the {} is faster at both {} and {}", side_name(c.faster_below), o.low, o.high);
    return c;
  }
  uint64_t below = o.low, above = o.high;
  while (above - below > o.step && static_cast<int>(c.probes.size()) < o.max_probes) {
    if (interrupted()) return cancelled("crossover search interrupted");
    double mid = above >= 2 * below ? std::sqrt(static_cast<double>(below) * static_cast<double>(above))
                                    : (static_cast<double>(below) + static_cast<double>(above)) / 2;
    uint64_t m = static_cast<uint64_t>(mid) / o.step * o.step;
    if (m <= below) m = (below / o.step + 1) * o.step;  // the next multiple above `below`
    if (m >= above) break;                              // no multiple of the step between the ends
    auto p = probe(m);
    if (!p) return c;
    (p->faster() == c.faster_below ? below : above) = m;
  }
  c.kind = Crossover::Kind::kFound;
  c.below = below;
  c.above = above;
  c.message = fmt::format("the {} is faster at {}, the {} at {}", side_name(c.faster_below), below,
                          side_name(c.faster_above), above);
  return c;
}

namespace {

// Whether the kernel may write a __global argument (else the driver records
// "no output" without running it, and there is nothing to time).
bool writes_global(const KernelSignature& sig) {
  for (const ArgInfo& a : sig.args)
    if (a.is_pointer && a.address_space == AddressSpace::kGlobal && a.writes) return true;
  return false;
}

double mean_ms(const std::vector<uint64_t>& ns) { return ns.empty() ? 0 : summarize(ns).mean / 1e6; }

// What every kernel's search shares: the database, the options, and the CPU
// and the GPU (indexed by Side) with a worker each.
struct CrossoverRig {
  Database& db;
  const DriveOptions& options;
  std::vector<DeviceInfo> pair;
  std::vector<std::unique_ptr<WorkerProcess>> workers;
};

// The one CPU and the one GPU among the devices --device selects.
Expected<std::vector<DeviceInfo>> cpu_gpu_pair(const DriveOptions& options, const WorkerOptions& wopts) {
  WorkerProcess lister(wopts);
  ASSIGN_OR_RETURN(DeviceReport report, lister.list_devices());
  ASSIGN_OR_RETURN(auto devices, select_devices(report.devices, options.device));
  std::vector<DeviceInfo> cpus, gpus;
  for (const auto& d : devices) (d.type == "GPU" ? gpus : cpus).push_back(d);
  if (cpus.size() != 1 || gpus.size() != 1)
    return invalid_argument(
        fmt::format("--crossover needs exactly one CPU and one GPU among the devices "
                    "matching --device '{}' (found {} CPU, {} GPU)",
                    options.device, cpus.size(), gpus.size()));
  return std::vector<DeviceInfo>{cpus[0], gpus[0]};
}

// The runtime of `sig` at global size `size` on `side`, from its stored run
// or from a new run, stored: kernel plus transfer time, as the mapping
// export takes it. Unavailable when the run did not pass.
Expected<double> crossover_runtime(CrossoverRig& rig, const DriveSource& src, const std::string& sha,
                                   const KernelSignature& sig, Side side, uint64_t size) {
  const DriveOptions& options = rig.options;
  const DeviceInfo& dev = rig.pair[static_cast<int>(side)];
  RunKey key{sha, sig.name, dev.platform_name, dev.name, options.build_options, format_size({size}), ""};
  ASSIGN_OR_RETURN(auto stored, find_run(rig.db, key));
  RunRecord rec;
  if (stored) {
    rec = std::move(*stored);
  } else {
    const DriveJob job = drive_job(options, src.text, sig, dev, {size}, {});
    ASSIGN_OR_RETURN(DriveResult result, rig.workers[static_cast<int>(side)]->drive(job));
    rec = RunRecord{key, src.origin, options.seed, std::move(result)};
    RETURN_IF_ERROR_CTX(insert_run(rig.db, rec), "storing a crossover run of " + src.origin);
  }
  if (rec.result.outcome != Outcome::kPass)
    return unavailable(std::string(outcome_name(rec.result.outcome)) +
                       (rec.result.message.empty() ? "" : " (" + rec.result.message + ")"));
  return mean_ms(rec.result.kernel_ns) + mean_ms(rec.result.transfer_ns);
}

// The search for one kernel of `src`; a kernel it cannot time is kFailed.
Expected<KernelCrossover> kernel_crossover(CrossoverRig& rig, const CrossoverOptions& crossover, const DriveSource& src,
                                           const std::string& sha, const KernelSignature& sig) {
  KernelCrossover k{src.origin, sig.name, {}};
  if (!sig.supported() || !writes_global(sig)) {
    k.result.kind = Crossover::Kind::kFailed;
    k.result.message =
        !sig.supported() ? "unsupported arguments: " + sig.unsupported_reason() : "the kernel writes no argument";
    return k;
  }
  auto runtime = [&](Side side, uint64_t size) { return crossover_runtime(rig, src, sha, sig, side, size); };
  ASSIGN_OR_RETURN(k.result, find_crossover(runtime, crossover));
  return k;
}

}  // namespace

Expected<std::vector<KernelCrossover>> drive_crossover(Database& db, const DriveOptions& options,
                                                       const CrossoverOptions& crossover) {
  RETURN_IF_ERROR_CTX(ensure_driver_schema(db), "creating the runs table");
  const WorkerOptions wopts = drive_worker_options(options);
  CrossoverRig rig{db, options, {}, {}};
  ASSIGN_OR_RETURN(rig.pair, cpu_gpu_pair(options, wopts));
  for (const DeviceInfo& d : rig.pair) {
    WorkerOptions w = wopts;
    w.default_memory_cap = d.type != "GPU";  // as the drive pool does
    rig.workers.push_back(std::make_unique<WorkerProcess>(std::move(w)));
  }
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(std::vector<DriveSource> sources, collect_drive_sources(db, options, notes));
  std::vector<KernelCrossover> out;
  AnalysisWorker analysis(options.analysis);  // Clang under a time and memory budget (analysis_worker.h)
  for (const DriveSource& src : sources) {
    if (interrupted()) return cancelled("drive --crossover interrupted; finished runs are stored");
    const std::string sha = sha256_hex(src.text);
    RETURN_IF_ERROR_CTX(store_kernel_source(db, sha, src.text, src.origin), "storing the source of " + src.origin);
    auto sigs = analysis.analyze(src.text);
    if (sigs.status().code() == ErrorCode::kUnavailable) return sigs.status();
    if (!sigs.ok()) {
      KernelCrossover k{src.origin, "", {}};
      k.result.kind = Crossover::Kind::kFailed;
      k.result.message = "argument analysis: " + sigs.status().message();
      out.push_back(std::move(k));
      continue;
    }
    for (const KernelSignature& sig : *sigs) {
      ASSIGN_OR_RETURN(KernelCrossover k, kernel_crossover(rig, crossover, src, sha, sig));
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace clgen::driver
