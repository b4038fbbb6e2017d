// The dynamic checker as a service for a running producer (`clgen sample
// --check`): kernels are submitted as they are accepted, drive threads check
// them on the check device (and, with "all", profile the passing ones on
// the other devices), a recorder thread stores every run in its own
// connection to the workspace database and writes each benchmark-grade
// kernel (one that passed on the check device) as a .cl file.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "driver/drive_pool.h"
#include "driver/outcome.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

struct CheckOptions {
  // cpu | gpu | a substring of "PLATFORM DEVICE" | all (the first CPU
  // device checks, the other devices profile what passed there).
  std::string device = "gpu";
  unsigned jobs = 0;  // drive threads; 0 = default_drive_jobs()
  std::vector<uint64_t> global_size{4096};
  int runs = 10;  // profiled repetitions of passing kernels
  uint64_t seed = 20170204;
  double timeout_s = 10;  // per kernel × device; a sampled kernel is short or useless
  bool retry_timeouts_alone = true;  // RunSettings::retry_timeouts_alone
  uint64_t memory_limit_mb = 0;
  std::string worker_binary;  // empty: default_worker_binary()
  std::string out_dir;        // benchmark-grade kernels as <sha256>.cl; "" = none
  std::string origin = "samples";
  // Called on the recorder thread with each checked kernel's text and
  // whether it is benchmark-grade, once its runs are stored.
  std::function<void(const std::string& text, bool benchmark_grade)> on_verdict;
};

struct CheckSummary {
  uint64_t submitted = 0;
  uint64_t checked = 0;                  // sources whose runs are stored
  uint64_t benchmark_grade = 0;          // sources with a passing run on the check device
  std::map<Outcome, uint64_t> outcomes;  // runs on the check device
  std::string check_device;              // "PLATFORM: DEVICE"
  double drive_seconds = 0;              // from start() to the last stored result
  int timeouts_retried = 0;              // runs that timed out beside others, driven again alone
  int timeouts_cleared = 0;              // ... that did not time out alone
};

class Checker {
 public:
  // Opens the devices and starts the threads. `db` is a connection of its
  // own (the producer keeps writing through another one).
  static Expected<std::unique_ptr<Checker>> start(Database db, CheckOptions options);
  ~Checker();

  // Queues a kernel; blocks while the drive threads are busy (so a faster
  // producer slows to the checker's pace). False once the checker failed.
  bool submit(const std::string& text);
  // Benchmark-grade kernels so far.
  uint64_t benchmark_grade() const { return benchmark_grade_.load(); }
  // Waits for every submitted kernel; the first failure of the drive or the
  // database, if any.
  Expected<CheckSummary> finish();

 private:
  Checker() = default;
  void record_loop();

  CheckOptions options_;
  std::optional<Database> db_;
  std::unique_ptr<DrivePool> pool_;
  std::thread recorder_;
  std::atomic<uint64_t> benchmark_grade_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;  // guards summary_ and failure_
  CheckSummary summary_;
  Status failure_;
  std::string check_platform_, check_device_name_;
  size_t next_index_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace clgen::driver
