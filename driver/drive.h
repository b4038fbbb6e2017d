// `clgen drive` as a library: picks devices, collects kernel sources (files,
// accepted samples, the preprocessed corpus), runs every kernel × device ×
// size not yet stored through isolated workers, and stores each result as it
// arrives, so an interrupted or killed drive resumes without duplicates.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "driver/devices.h"
#include "driver/drive_pool.h"
#include "driver/outcome.h"
#include "driver/runs.h"
#include "driver/worker.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

// Where `samples` reads the accepted samples. The sampler owns the samples
// table and sits above the driver, so the caller hands its catalog's
// functions in (cli/cmd_drive.cpp); unset, --samples is refused.
struct SampleCatalog {
  std::function<Expected<bool>(Database&)> exists;  // whether the workspace has a samples table
  std::function<Expected<std::vector<std::string>>(Database&)> accepted_texts;  // in the order stored
};

struct DriveOptions : RunSettings {
  std::vector<std::string> files;  // .cl files
  bool samples = false;            // the accepted samples, read through `sample_catalog`
  SampleCatalog sample_catalog;
  bool corpus = false;                  // SELECT normalized_text FROM preprocessed WHERE status='ok'
  std::string device = "cpu";           // cpu | gpu | all | a substring of a device or platform name
  uint64_t max_source_bytes = 1 << 20;  // larger sources are refused
  uint64_t limit = 0;                   // at most this many sources; 0 = all
  uint64_t shuffle_seed = 0;  // 0 = sources in stored order; else a seeded shuffle before `limit` (a fair sample)
  // Worker isolation.
  std::string worker_binary;     // empty: $CLGEN_WORKER, else clgen-worker next to this executable
  double timeout_s = 60;         // wall clock per kernel × device × size
  uint64_t memory_limit_mb = 0;  // RLIMIT_DATA per worker; 0 = default_worker_memory_limit_mb()
  bool worker_stderr = false;    // pass the workers' stderr through
  // The argument analysis's Clang budget (each drive thread's clgen-analysis-worker).
  AnalysisBudget analysis;
  std::string csv_path;  // write every selected run here as CSV
  bool show_progress = true;
  // Drive threads, each with its own worker per device, running one kernel
  // at a time; 0 = default_drive_jobs(). Every run has its own worker
  // process; the device and the wall clock are shared, so a run that times
  // out beside others is driven again alone (PoolOptions::retry_timeouts_alone).
  unsigned jobs = 0;
};

struct DriveSummary {
  std::map<Outcome, uint64_t> outcomes;  // over every selected run, new or stored
  uint64_t driven = 0;                   // runs executed now
  uint64_t already_stored = 0;           // runs found in the database and skipped
  uint64_t sources = 0;
  int workers_started = 0;
  int timeouts_retried = 0;  // runs that timed out beside others, driven again alone
  int timeouts_cleared = 0;  // ... that did not time out alone
  int crashes_retried = 0;   // runs that crashed with integer scalars S, driven again with 1
  int crashes_cleared = 0;   // ... that did not crash then
  bool interrupted = false;
  std::vector<std::string> notes;  // e.g. "no samples table: ..."
};

// The available devices among `all` matching `spec`: "cpu", "gpu", "all", or a
// case-insensitive substring of "PLATFORM DEVICE". kNotFound when none matches.
Expected<std::vector<DeviceInfo>> select_devices(const std::vector<DeviceInfo>& all, const std::string& spec);

// Every power-of-two local size whose dimensions divide `global` and stay
// within the device's per-dimension limits, with a product up to the
// device's maximum work-group size (the kernel's own limit is left to the
// run, which then records "invalid launch parameters").
std::vector<std::vector<uint64_t>> local_size_sweep(const std::vector<uint64_t>& global, const DeviceInfo& device);

// Parses "2^7..2^22" or "128..4194304" into the powers of two in between.
Expected<std::vector<uint64_t>> parse_size_sweep(const std::string& text);

// The indices of `count` sources in the order they are driven, at most
// `limit` of them (0 = all): the first ones, or with a non-zero
// `shuffle_seed` a sample drawn without replacement by that seed.
std::vector<size_t> pick_sources(size_t count, uint64_t limit, uint64_t shuffle_seed);

// The number of drive threads when DriveOptions::jobs is 0: the cores, at
// most 16.
unsigned default_drive_jobs();

// The worker settings of `options` (binary, time and memory limits, stderr).
WorkerOptions drive_worker_options(const DriveOptions& options);

// A source to drive: its origin (a file path, "samples" or "corpus") and text.
struct DriveSource {
  std::string origin;
  std::string text;
};
// The sources `options` names (files, accepted samples, the corpus), after
// --limit/--shuffle; a missing samples or corpus table adds a note.
Expected<std::vector<DriveSource>> collect_drive_sources(Database& db, const DriveOptions& options,
                                                         std::vector<std::string>& notes);

Expected<DriveSummary> drive(Database& db, const DriveOptions& options);

}  // namespace clgen::driver
