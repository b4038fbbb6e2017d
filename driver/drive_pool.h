// Drives kernel sources concurrently: a fixed number of drive threads, each
// with its own worker processes (one per device), take sources from a
// bounded queue, run the argument analysis and every kernel × device × size
// of the source, and hand back the source's runs in order. Each run is
// one kernel in one isolated worker; the device is shared, so a run that
// times out beside others is driven again alone (retry_timeouts_alone).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "driver/analysis_worker.h"
#include "driver/devices.h"
#include "driver/run_gate.h"
#include "driver/runs.h"
#include "driver/worker.h"
#include "support/bounded_queue.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

// How every kernel is run: sizes, repetitions, payload seed, build options
// (shared by `clgen drive`'s options and the pool's).
struct RunSettings {
  std::vector<std::vector<uint64_t>> global_sizes{{4096}};
  std::vector<uint64_t> local_size;  // empty = automatic
  bool local_size_sweep = false;     // every power-of-two local size within device limits
  int runs = 10;                     // profiled repetitions of passing kernels
  int warmup = 1;
  uint64_t seed = 20170204;  // payload A; payload B uses seed + 1
  std::string build_options;
  // A run that timed out while other runs were in flight is driven again
  // alone (RunGate), and the second outcome stands: on one GPU a hanging
  // kernel can make its neighbours time out (docs/DRIVER.md). Each retry
  // holds the whole pool for up to two time-outs.
  bool retry_timeouts_alone = true;
};

// The job that runs `sig` of `source` on `device` at one size, as `settings`
// say (the analysis's arguments; args_from_device left false).
DriveJob drive_job(const RunSettings& settings, const std::string& source, const KernelSignature& sig,
                   const DeviceInfo& device, std::vector<uint64_t> global_size, std::vector<uint64_t> local_size);

struct PoolOptions : RunSettings {
  std::vector<DeviceInfo> devices;
  // The argument analysis's budget: each drive thread has its own analysis worker.
  AnalysisBudget analysis;
  // true: devices after the first drive only the kernels (at a size) that
  // passed the check on the first (`--check all`: the CPU checks, the GPU
  // profiles what passed).
  bool later_devices_need_pass = false;
  WorkerOptions worker;
  unsigned threads = 1;        // drive threads (each runs one kernel at a time)
  size_t queue_capacity = 64;  // sources waiting; submit() blocks beyond it
};

struct PoolSource {
  size_t index = 0;  // the caller's number for it, handed back
  std::string origin;
  std::string text;
  std::string sha256;  // of `text`
  // Runs of this source stored after the pool's `stored` map was read (by
  // another drive of the workspace), as run_key_id() -> outcome: also
  // reported, not driven.
  std::unordered_map<std::string, Outcome> stored_since;
};

// One run of a source: newly driven, or found among the stored keys (then
// only `record.key` is set and the caller reads the stored row).
struct PoolRun {
  bool stored = false;
  RunRecord record;
};

struct PoolResult {
  size_t index = 0;
  std::string origin;
  std::string sha256;
  std::string text;           // the source's text, handed back
  std::vector<PoolRun> runs;  // in the order a sequential drive makes them
  Status error;               // a failure of the drive itself (no worker starts, bad request)
};

class DrivePool {
 public:
  // `stored` maps run_key_id() of the runs already in the database to their
  // outcomes (stored_run_outcomes()): those are reported, not driven again.
  DrivePool(PoolOptions options, std::unordered_map<std::string, Outcome> stored);
  ~DrivePool();  // stops and joins
  DrivePool(const DrivePool&) = delete;
  DrivePool& operator=(const DrivePool&) = delete;

  // Queues a source; blocks while the queue is full. False once stopped.
  bool submit(PoolSource source);
  // No more sources: next() returns nullopt once the queued ones are done.
  void close();
  // The next finished source (in completion order); blocks; nullopt when
  // closed and drained, or stopped.
  std::optional<PoolResult> next();
  // Drops queued sources and ends after the runs in progress (interrupts).
  void stop();
  // Worker processes started so far, over all threads.
  int workers_started() const { return started_.load(); }
  // Runs that timed out beside others and were driven again alone, and how
  // many of those did not time out alone.
  int timeouts_retried() const { return retried_.load(); }
  int timeouts_cleared() const { return cleared_.load(); }
  // Runs whose worker was killed with integer scalars of the global size and
  // were driven again with 1, and how many of those did not crash then.
  int crashes_retried() const { return crash_retried_.load(); }
  int crashes_cleared() const { return crash_cleared_.load(); }

 private:
  class SourceDrive;  // one source's drive over every device (drive_pool.cpp)

  void thread_main();
  PoolResult drive_source(const PoolSource& src, std::vector<std::unique_ptr<WorkerProcess>>& workers,
                          AnalysisWorker& analysis);
  // Runs `job` under the gate; a time-out beside other runs is driven again
  // alone (retry_timeouts_alone), a crash with integer scalars again with 1.
  Expected<DriveResult> run_job(WorkerProcess& worker, const DriveJob& job);
  void retry_crash_with_scalars_one(WorkerProcess& worker, const DriveJob& job, DriveResult& result);
  bool stop_now() const;  // stopping, or interrupted

  PoolOptions options_;
  const std::unordered_map<std::string, Outcome> stored_;
  BoundedQueue<PoolSource> in_;
  BoundedQueue<PoolResult> out_;
  std::atomic<bool> stopping_{false};
  std::atomic<unsigned> live_{0};
  std::atomic<int> started_{0};
  std::atomic<int> retried_{0}, cleared_{0};
  std::atomic<int> crash_retried_{0}, crash_cleared_{0};
  RunGate gate_;
  std::vector<std::thread> threads_;
};

// Stores the new runs of `result` in one transaction and reads the stored
// ones back; appends every run's record, in order, to `records`. A new run
// whose key another process stored meanwhile is read back too, and marked
// stored.
Status record_pool_result(Database& db, PoolResult& result, std::vector<RunRecord>& records);

}  // namespace clgen::driver
