// `clgen drive`: run kernels on OpenCL devices through isolated workers
// (clgen-worker processes), check them dynamically, profile the passing
// ones, store the runs.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "driver/crossover.h"
#include "driver/drive.h"
#include "driver/job.h"
#include "sampler/catalog.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

// The library's options, bound to the flags directly so that each default
// is written once (driver/drive.h), and the flags that need parsing first.
struct DriveCliOptions {
  driver::DriveOptions drive;
  std::vector<std::string> gsizes;  // each "N" or "X,Y[,Z]"
  std::string gsize_sweep;          // "2^7..2^22"
  std::string lsize;                // empty = automatic
  std::string crossover;            // "FROM..TO": bisect for the CPU/GPU crossover instead of driving sizes
  driver::CrossoverOptions crossover_options;
  // The argument analysis's Clang budget, with AnalysisBudget's defaults.
  BudgetFlags analysis{analysis_defaults(drive.analysis)};

  static preprocess::ClangBudget analysis_defaults(const driver::AnalysisBudget& a) {
    preprocess::ClangBudget b;
    b.time_limit_s = a.time_limit_s;
    b.memory_limit_mb = a.memory_limit_mb;
    return b;
  }
};

// `--crossover`: the search per kernel, its runs stored as a drive's.
Status run_crossover(Database& db, const DriveCliOptions& o, const driver::DriveOptions& opts) {
  auto bounds = driver::parse_size_sweep(o.crossover);
  if (!bounds.ok()) return usage_error("--crossover: " + bounds.status().message());
  driver::CrossoverOptions c = o.crossover_options;
  c.low = bounds->front();
  c.high = bounds->back();
  if (c.high <= c.low) return usage_error("--crossover " + o.crossover + ": the range holds one size");
  ASSIGN_OR_RETURN(auto results, driver::drive_crossover(db, opts, c));
  std::printf("%-40s %-24s %-7s %-26s %s\n", "source", "kernel", "result", "bracket", "probes / why");
  std::map<std::string, int> counts;
  for (const auto& k : results) {
    const auto& r = k.result;
    ++counts[driver::crossover_kind_name(r.kind)];
    std::string bracket = r.kind == driver::Crossover::Kind::kFailed ? "" : fmt::format("{}..{}", r.below, r.above);
    std::printf("%-40s %-24s %-7s %-26s %zu: %s\n", k.origin.substr(0, 40).c_str(), k.kernel.c_str(),
                driver::crossover_kind_name(r.kind), bracket.c_str(), r.probes.size(), r.message.c_str());
  }
  std::printf("kernels: %zu; crossover found %d, none in range %d, failed %d\n", results.size(), counts["found"],
              counts["none"], counts["failed"]);
  return ok_status();
}

void print_table(const driver::DriveSummary& s) {
  uint64_t total = 0;
  for (const auto& [o, n] : s.outcomes) total += n;
  std::printf("%-27s %8s %7s\n", "outcome", "runs", "share");
  for (driver::Outcome o : driver::kAllOutcomes) {
    auto it = s.outcomes.find(o);
    uint64_t n = it == s.outcomes.end() ? 0 : it->second;
    std::printf("%-27s %8llu %6.1f%%\n", driver::outcome_name(o), static_cast<unsigned long long>(n),
                total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0);
  }
  std::printf("%-27s %8llu\n", "total", static_cast<unsigned long long>(total));
  std::printf("sources: %llu, driven now: %llu, already stored: %llu, workers started: %d\n",
              static_cast<unsigned long long>(s.sources), static_cast<unsigned long long>(s.driven),
              static_cast<unsigned long long>(s.already_stored), s.workers_started);
  if (s.timeouts_retried > 0)
    std::printf("timed out beside other runs and driven again alone: %d (%d of them no longer timed out)\n",
                s.timeouts_retried, s.timeouts_cleared);
  if (s.crashes_retried > 0)
    std::printf(
        "crashed with integer scalars of the global size and driven again with 1: %d (%d of them no longer "
        "crashed)\n",
        s.crashes_retried, s.crashes_cleared);
}

Status run_drive(const GlobalOptions& global, const DriveCliOptions& o) {
  driver::DriveOptions opts = o.drive;
  if (opts.files.empty() && !opts.samples && !opts.corpus)
    return usage_error("clgen drive: give kernel files, --samples or --corpus");
  if (!o.gsizes.empty() && !o.gsize_sweep.empty())
    return usage_error("clgen drive: --gsize and --gsize-sweep exclude each other");
  if (!o.lsize.empty() && opts.local_size_sweep)
    return usage_error("clgen drive: --lsize and --lsize-sweep exclude each other");
  if (!o.crossover.empty() &&
      (!o.gsizes.empty() || !o.gsize_sweep.empty() || !o.lsize.empty() || opts.local_size_sweep))
    return usage_error(
        "clgen drive: --crossover picks its own global sizes (no --gsize, --gsize-sweep, --lsize, --lsize-sweep)");
  if (!o.gsize_sweep.empty()) {
    auto sweep = driver::parse_size_sweep(o.gsize_sweep);
    if (!sweep.ok()) return usage_error("--gsize-sweep: " + sweep.status().message());
    opts.global_sizes.clear();
    for (uint64_t s : *sweep) opts.global_sizes.push_back({s});
  } else if (!o.gsizes.empty()) {
    opts.global_sizes.clear();
    for (const auto& g : o.gsizes) {
      auto size = driver::parse_size(g);
      if (!size.ok()) return usage_error("--gsize: " + size.status().message());
      opts.global_sizes.push_back(*size);
    }
  }
  if (!o.lsize.empty()) {
    auto size = driver::parse_size(o.lsize);
    if (!size.ok()) return usage_error("--lsize: " + size.status().message());
    for (const auto& g : opts.global_sizes)
      if (g.size() != size->size())
        return usage_error("--lsize " + o.lsize + " and --gsize " + driver::format_size(g) +
                           " have different numbers of dimensions");
    opts.local_size = *size;
  }
  const preprocess::ClangBudget analysis = o.analysis.options();
  opts.analysis.isolated = analysis.isolated;
  opts.analysis.time_limit_s = analysis.time_limit_s;
  opts.analysis.memory_limit_mb = analysis.memory_limit_mb;
  opts.worker_stderr = spdlog::should_log(spdlog::level::debug);
  opts.show_progress = spdlog::should_log(spdlog::level::info);
  // The driver sits below the sampler: --samples reads them through the sampler's catalog.
  opts.sample_catalog = {sampler::has_samples, sampler::accepted_sample_texts};

  ASSIGN_OR_RETURN(auto ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(auto db, ws.open_database());
  if (!o.crossover.empty()) return run_crossover(db, o, opts);
  ASSIGN_OR_RETURN(auto summary, driver::drive(db, opts));
  for (const auto& note : summary.notes) std::fprintf(stderr, "clgen drive: %s\n", note.c_str());
  print_table(summary);
  if (summary.interrupted) return cancelled("interrupted; finished runs are stored, run again to resume");
  return ok_status();
}

}  // namespace

void add_drive_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto o = std::make_shared<DriveCliOptions>();
  driver::DriveOptions& d = o->drive;
  CLI::App* cmd =
      app.add_subcommand("drive", "Run kernels on OpenCL devices: dynamic check, profiling, results in `runs`");
  cmd->add_option("files", d.files, "OpenCL kernel files")->check(CLI::ExistingFile);
  cmd->add_flag("--samples", d.samples, "Drive accepted samples (samples.status='ok')");
  cmd->add_flag("--corpus", d.corpus, "Drive the preprocessed corpus (preprocessed.status='ok')");
  cmd->add_option("--device", d.device, "cpu, gpu, all, or part of a device/platform name")->capture_default_str();
  // One value per --gsize: without allow_extra_args(false) CLI11 lets a
  // vector option take the kernel files that follow it ("--gsize 4096 k.cl").
  cmd->add_option("--gsize", o->gsizes,
                  "Global size, e.g. 4096 or 1024,1024 (repeatable; default " +
                      driver::format_size(d.global_sizes.front()) + ")")
      ->allow_extra_args(false)
      ->check(non_empty());
  cmd->add_option("--gsize-sweep", o->gsize_sweep, "Powers of two, e.g. 2^7..2^22")->check(non_empty());
  cmd->add_option("--lsize", o->lsize, "Local size, e.g. 256 or 16,16 (default: automatic)")->check(non_empty());
  cmd->add_flag("--lsize-sweep", d.local_size_sweep,
                "Every power-of-two local size within device limits, refused ones included");
  cmd->add_option("--crossover", o->crossover,
                  "Per kernel, bisect the global size in FROM..TO (e.g. 2^6..2^22) for where the CPU and the GPU "
                  "trade places (needs one CPU and one GPU; --device all); every run is stored")
      ->check(non_empty());
  cmd->add_option("--crossover-step", o->crossover_options.step,
                  "Crossover: probed sizes are multiples of this; the bracket ends at most this wide")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  cmd->add_option("--crossover-probes", o->crossover_options.max_probes, "Crossover: most sizes probed per kernel")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--runs", d.runs, "Profiled repetitions of passing kernels")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", d.warmup, "Unrecorded runs before them")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--seed", d.seed, "Payload seed")->capture_default_str();
  cmd->add_option("--cl-opts", d.build_options, "OpenCL build options");
  // A week at most: beyond that the limit is no limit, and larger values
  // overflow the millisecond timers.
  cmd->add_option("--timeout", d.timeout_s, "Wall-clock seconds per kernel run (worker killed after)")
      ->capture_default_str()
      ->check(finite_range(0.001, 604800.0));
  cmd->add_option("--memory-limit", d.memory_limit_mb,
                  "Worker memory cap (RLIMIT_DATA) in MiB (0: half the physical memory, within 1 to 8 GiB)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 30));
  cmd->add_option("--csv", d.csv_path, "Also write the runs as cldrive-style CSV");
  cmd->add_option("--limit", d.limit, "Drive at most this many sources (0: all)")->capture_default_str();
  cmd->add_option(
         "--shuffle", d.shuffle_seed,
         "Drive the sources in an order shuffled by this seed, so --limit takes a fair sample (0: stored order)")
      ->capture_default_str();
  cmd->add_flag("!--no-timeout-retry", d.retry_timeouts_alone,
                "Keep a time-out beside other runs as it is, instead of driving the kernel again alone (each retry "
                "holds every job for up to two time-outs)");
  cmd->add_option("--jobs,-j", d.jobs, "Kernels driven at once, each in its own worker (0: one per core, at most 16)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 256u));
  // The argument analysis (Clang) of each source, before any run.
  o->analysis.add_to(*cmd, "source", "is recorded as a timeout run", "is recorded as a crash run");
  cmd->final_callback([o, &global, &action] { action = [o, &global] { return run_drive(global, *o); }; });
}

}  // namespace clgen::cli
