// The checker behind `clgen sample --check`: a DrivePool fed by the
// producer, and a recorder thread that stores its results.
#include "driver/check.h"

#include <algorithm>
#include <filesystem>

#include "driver/drive.h"
#include "support/files.h"
#include "support/sha256.h"

namespace clgen::driver {

namespace {
double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

Expected<std::unique_ptr<Checker>> Checker::start(Database db, CheckOptions options) {
  RETURN_IF_ERROR_CTX(ensure_driver_schema(db), "creating the runs table");
  WorkerOptions wopts;
  wopts.binary = options.worker_binary;
  wopts.timeout_s = options.timeout_s;
  wopts.memory_limit_mb = options.memory_limit_mb;
  std::vector<DeviceInfo> devices;
  {
    WorkerProcess lister(wopts);
    ASSIGN_OR_RETURN(DeviceReport report, lister.list_devices());
    ASSIGN_OR_RETURN(devices, select_devices(report.devices, options.device));
  }
  // "all": the first CPU device checks, every other device profiles.
  std::stable_partition(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.type == "CPU"; });
  if (options.device != "all") devices.resize(1);
  if (!options.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
    if (ec) return io_error("creating " + options.out_dir + ": " + ec.message());
  }

  std::unique_ptr<Checker> c(new Checker());
  c->options_ = options;
  c->db_.emplace(std::move(db));
  c->check_platform_ = devices.front().platform_name;
  c->check_device_name_ = devices.front().name;
  c->summary_.check_device = devices.front().platform_name + ": " + devices.front().name;
  ASSIGN_OR_RETURN(auto stored, stored_run_outcomes(*c->db_));
  PoolOptions popts;
  popts.devices = devices;
  popts.later_devices_need_pass = true;
  popts.global_sizes = {options.global_size};
  popts.runs = options.runs;
  popts.seed = options.seed;
  popts.retry_timeouts_alone = options.retry_timeouts_alone;
  popts.worker = wopts;
  popts.threads = options.jobs ? options.jobs : default_drive_jobs();
  popts.queue_capacity = 2 * popts.threads;
  c->started_ = std::chrono::steady_clock::now();
  c->pool_ = std::make_unique<DrivePool>(std::move(popts), std::move(stored));
  c->recorder_ = std::thread([p = c.get()] { p->record_loop(); });
  return c;
}

Checker::~Checker() {
  if (pool_) pool_->stop();
  if (recorder_.joinable()) recorder_.join();
}

bool Checker::submit(const std::string& text) {
  if (failed_) return false;
  PoolSource src{next_index_++, options_.origin, text, sha256_hex(text), {}};
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++summary_.submitted;
  }
  return pool_->submit(std::move(src));
}

void Checker::record_loop() {
  while (auto res = pool_->next()) {
    Status st = res->error;
    std::vector<RunRecord> records;
    if (st.ok()) st = store_kernel_source(*db_, res->sha256, res->text, res->origin);
    if (st.ok()) st = record_pool_result(*db_, *res, records);
    bool passed = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!st.ok()) {
        if (failure_.ok()) failure_ = st;
        failed_ = true;
        pool_->stop();
        continue;
      }
      ++summary_.checked;
      for (const RunRecord& r : records) {
        if (r.key.platform != check_platform_ || r.key.device != check_device_name_) continue;
        ++summary_.outcomes[r.result.outcome];
        passed |= r.result.outcome == Outcome::kPass;
      }
      if (passed) {
        ++summary_.benchmark_grade;
        ++benchmark_grade_;
        if (!options_.out_dir.empty()) {
          Status w = write_file_atomic(options_.out_dir + "/" + res->sha256 + ".cl", res->text);
          if (!w.ok() && failure_.ok()) failure_ = w.with_context("writing a benchmark-grade kernel");
        }
      }
      summary_.drive_seconds = since(started_);
    }
    if (options_.on_verdict) options_.on_verdict(res->text, passed);
  }
}

Expected<CheckSummary> Checker::finish() {
  pool_->close();
  if (recorder_.joinable()) recorder_.join();
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(failure_);
  summary_.timeouts_retried = pool_->timeouts_retried();
  summary_.timeouts_cleared = pool_->timeouts_cleared();
  return summary_;
}

}  // namespace clgen::driver
