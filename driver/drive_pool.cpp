// The drive threads: per source, the argument analysis (Clang, in the
// thread's analysis worker) and every kernel × device × size through the
// thread's OpenCL workers.
#include "driver/drive_pool.h"

#include <spdlog/spdlog.h>

#include <unordered_set>

#include "driver/args.h"
#include "driver/drive.h"
#include "support/interrupt.h"

namespace clgen::driver {

namespace {

// Whether the kernel may write a __global argument (what the worker reads back).
bool writes_global_argument(const KernelSignature& sig) {
  for (const ArgInfo& a : sig.args)
    if (((a.is_pointer && a.address_space == AddressSpace::kGlobal) || a.image) && a.writes) return true;
  return false;
}

}  // namespace

DriveJob drive_job(const RunSettings& settings, const std::string& source, const KernelSignature& sig,
                   const DeviceInfo& device, std::vector<uint64_t> global_size, std::vector<uint64_t> local_size) {
  DriveJob job;
  job.source = source;
  job.kernel_name = sig.name;
  job.args = sig.args;
  job.platform_index = device.platform_index;
  job.device_index = device.device_index;
  job.global_size = std::move(global_size);
  job.local_size = std::move(local_size);
  job.runs = settings.runs;
  job.warmup = settings.warmup;
  job.seed = settings.seed;
  job.build_options = settings.build_options;
  return job;
}

Status record_pool_result(Database& db, PoolResult& result, std::vector<RunRecord>& records) {
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  for (PoolRun& run : result.runs) {
    RunRecord rec = std::move(run.record);
    if (!run.stored) {
      RETURN_IF_ERROR_CTX(insert_run(db, rec), "storing a run of " + result.origin);
      run.stored = db.changes() == 0;  // the key was stored by another drive: its row stands
    }
    if (run.stored) {
      ASSIGN_OR_RETURN(auto found, find_run(db, rec.key));
      if (!found) return internal_error("a stored run of " + result.origin + " vanished from the database");
      rec = std::move(*found);
    }
    records.push_back(std::move(rec));
  }
  return tx.commit();
}

DrivePool::DrivePool(PoolOptions options, std::unordered_map<std::string, Outcome> stored)
    : options_(std::move(options)),
      stored_(std::move(stored)),
      in_(std::max<size_t>(options_.queue_capacity, 1)),
      out_(std::max<size_t>(4 * options_.threads, 4)) {
  unsigned n = std::max(1u, options_.threads);
  live_ = n;
  for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { thread_main(); });
}

DrivePool::~DrivePool() {
  stop();
  // Drain so that no thread stays blocked on a full result queue.
  while (out_.pop()) {
  }
  for (auto& t : threads_) t.join();
}

bool DrivePool::submit(PoolSource source) {
  if (stopping_) return false;
  return in_.push(std::move(source));
}

void DrivePool::close() { in_.close(); }

std::optional<PoolResult> DrivePool::next() { return out_.pop(); }

void DrivePool::stop() {
  stopping_ = true;
  in_.close();
}

void DrivePool::thread_main() {
  std::vector<std::unique_ptr<WorkerProcess>> workers(options_.devices.size());
  AnalysisWorker analysis(options_.analysis);
  while (auto src = in_.pop()) {
    if (stopping_) continue;  // stopping: queued sources are dropped undriven
    PoolResult result = drive_source(*src, workers, analysis);
    result.text = std::move(src->text);
    out_.push(std::move(result));
  }
  for (auto& w : workers)
    if (w) {
      started_ += w->started();
      w->stop();
    }
  if (--live_ == 0) out_.close();
}

// The kernels a source defines on one device, or why the source as a whole
// fails there.
struct SourceKernels {
  std::vector<KernelSignature> list;
  Outcome outcome = Outcome::kCompileError;  // recorded for every size when `failure` is set
  std::string failure;

  void fail(const Status& st) {
    outcome = st.code() == ErrorCode::kTimeout                                   ? Outcome::kTimeout
              : st.code() == ErrorCode::kIo || st.code() == ErrorCode::kInternal ? Outcome::kCrash
                                                                                 : Outcome::kCompileError;
    failure = st.message();
  }
};

// One source: the argument analysis once, then per device every kernel ×
// global size × local size, in the order a sequential drive makes them.
class DrivePool::SourceDrive {
 public:
  SourceDrive(DrivePool& pool, const PoolSource& src, std::vector<std::unique_ptr<WorkerProcess>>& workers)
      : pool_(pool), options_(pool.options_), src_(src), workers_(workers) {
    res_.index = src.index;
    res_.origin = src.origin;
    res_.sha256 = src.sha256;
  }

  PoolResult run(AnalysisWorker& analysis_worker) {
    // The Clang analysis runs in this thread's analysis worker (Clang 15 never
    // enters an OpenCL worker, where the OpenCL driver may bring its own LLVM),
    // under its time and memory budget: a front-end crash or the memory limit
    // becomes a crash row (kInternal), the time limit a timeout row.
    if (have_clang_analysis()) analysis_ = analysis_worker.analyze(src_.text);
    if (analysis_.status().code() == ErrorCode::kUnavailable) {  // no analysis worker: the drive's error
      res_.error = analysis_.status();
      return std::move(res_);
    }
    for (size_t d = 0; d < options_.devices.size(); ++d)
      if (!on_device(d)) break;
    return std::move(res_);
  }

 private:
  // False when the source ends here (stopping, nothing passed on the first
  // device, or an error of the drive itself in res_.error).
  bool on_device(size_t d) {
    const DeviceInfo& dev = options_.devices[d];
    if (pool_.stop_now()) return false;
    const bool need_pass = d > 0 && options_.later_devices_need_pass;
    if (need_pass && passed_first_.empty()) return false;
    if (!workers_[d]) {
      WorkerOptions w = options_.worker;
      w.default_memory_cap = dev.type != "GPU";  // see WorkerOptions::default_memory_cap
      workers_[d] = std::make_unique<WorkerProcess>(std::move(w));
    }
    SourceKernels kernels;
    if (!kernels_on(*workers_[d], dev, kernels)) return false;
    for (const auto& gsize : options_.global_sizes) {
      std::vector<std::vector<uint64_t>> lsizes;
      if (options_.local_size_sweep) lsizes = local_size_sweep(gsize, dev);
      else lsizes.push_back(options_.local_size);
      for (const auto& lsize : lsizes) {
        RunKey key{src_.sha256,       "", dev.platform_name, dev.name, options_.build_options, format_size(gsize),
                   format_size(lsize)};
        if (!kernels.failure.empty()) {
          if (!need_pass) add_source_failure(d, std::move(key), lsize, kernels);
          continue;
        }
        for (const KernelSignature& sig : kernels.list) {
          if (pool_.stop_now()) break;
          key.kernel_name = sig.name;
          if (need_pass && !passed_first_.count(sig.name + "|" + key.global_size + "|" + key.requested_local_size))
            continue;
          if (!kernel_run(d, key, sig, gsize, lsize)) return false;
        }
      }
    }
    return true;
  }

  // The source's kernels on `dev`: the analysis's, or with no Clang the
  // device compiler's. False on an error of the drive itself (res_.error).
  bool kernels_on(WorkerProcess& worker, const DeviceInfo& dev, SourceKernels& kernels) {
    if (!analysis_.ok()) {
      kernels.fail(analysis_.status());
    } else if (args_from_device_) {
      auto listed = worker.list_kernels(src_.text, options_.build_options, dev.platform_index, dev.device_index);
      if (listed.ok()) {
        kernels.list = std::move(*listed);
      } else if (listed.status().code() == ErrorCode::kUnavailable) {
        res_.error = listed.status();
        return false;
      } else {
        kernels.fail(listed.status());
      }
    } else {
      kernels.list = *analysis_;
    }
    if (kernels.list.empty() && kernels.failure.empty()) kernels.failure = "the source defines no kernel";
    return true;
  }

  // The run of a source that fails as a whole, at one size.
  void add_source_failure(size_t d, RunKey key, const std::vector<uint64_t>& lsize, const SourceKernels& kernels) {
    RunRecord rec{std::move(key), src_.origin, options_.seed, {}};
    if (stored(rec)) {
      add(d, {true, std::move(rec)});
      return;
    }
    rec.result.outcome = kernels.outcome;
    rec.result.message = kernels.failure;
    rec.result.local_size = lsize;
    add(d, {false, std::move(rec)});
  }

  // One kernel at one size: stored, refused without running, or driven.
  // False on an error of the drive itself (res_.error).
  bool kernel_run(size_t d, const RunKey& key, const KernelSignature& sig, const std::vector<uint64_t>& gsize,
                  const std::vector<uint64_t>& lsize) {
    const DeviceInfo& dev = options_.devices[d];
    RunRecord rec{key, src_.origin, options_.seed, {}};
    if (stored(rec)) {
      add(d, {true, std::move(rec)});
      return true;
    }
    if (!sig.supported()) {
      rec.result.outcome = Outcome::kUnsupportedArguments;
      rec.result.message = sig.unsupported_reason();
      rec.result.local_size = lsize;
    } else if (!args_from_device_ && !writes_global_argument(sig)) {
      // The worker reads back only arguments the analysis marks as written,
      // so it would run the kernel four times to find no output: record
      // that without running it.
      rec.result.outcome = Outcome::kNoOutput;
      rec.result.message = "the kernel writes no argument (static analysis; not run)";
      rec.result.local_size = lsize;
    } else {
      DriveJob job = drive_job(options_, src_.text, sig, dev, gsize, lsize);
      job.args_from_device = args_from_device_;
      auto result = pool_.run_job(*workers_[d], job);
      if (!result.ok()) {
        res_.error = result.status().with_context("driving " + src_.origin + ":" + sig.name);
        return false;
      }
      rec.result = std::move(*result);
    }
    spdlog::debug("{} {} on {} at {}: {}{}", src_.origin, sig.name, dev.name, format_size(gsize),
                  outcome_name(rec.result.outcome), rec.result.message.empty() ? "" : " (" + rec.result.message + ")");
    add(d, {false, std::move(rec)});
    return true;
  }

  // Whether the run is stored; if so its record carries the stored outcome
  // (the caller reads the rest of the row).
  bool stored(RunRecord& rec) const {
    const std::string id = run_key_id(rec.key);
    for (const auto* map : {&src_.stored_since, &pool_.stored_}) {
      auto it = map->find(id);
      if (it == map->end()) continue;
      rec.result.outcome = it->second;
      return true;
    }
    return false;
  }

  void add(size_t d, PoolRun run) {
    const RunKey& k = run.record.key;
    bool passed = run.record.result.outcome == Outcome::kPass;
    if (d == 0 && passed) passed_first_.insert(k.kernel_name + "|" + k.global_size + "|" + k.requested_local_size);
    res_.runs.push_back(std::move(run));
  }

  DrivePool& pool_;
  const PoolOptions& options_;
  const PoolSource& src_;
  std::vector<std::unique_ptr<WorkerProcess>>& workers_;
  const bool args_from_device_ = !have_clang_analysis();
  Expected<std::vector<KernelSignature>> analysis_ = std::vector<KernelSignature>();
  // "kernel|global|local" of the runs that passed on the first device.
  std::unordered_set<std::string> passed_first_;
  PoolResult res_;
};

PoolResult DrivePool::drive_source(const PoolSource& src, std::vector<std::unique_ptr<WorkerProcess>>& workers,
                                   AnalysisWorker& analysis_worker) {
  return SourceDrive(*this, src, workers).run(analysis_worker);
}

bool DrivePool::stop_now() const { return stopping_.load() || interrupted(); }

Expected<DriveResult> DrivePool::run_job(WorkerProcess& worker, const DriveJob& job) {
  RunGate::Ticket ticket = gate_.lock_shared();
  auto result = worker.drive(job);
  const bool overlapped = gate_.overlapped(ticket);
  gate_.unlock_shared();
  if (result.ok() && result->outcome == Outcome::kTimeout && overlapped && options_.retry_timeouts_alone &&
      !stop_now()) {
    // Alone: the runs in flight finish (each within its time-out) and no
    // new one starts until this one is done.
    std::lock_guard<RunGate> alone(gate_);
    result = worker.drive(job);
    ++retried_;
    if (result.ok()) {
      if (result->outcome != Outcome::kTimeout) ++cleared_;
      result->message =
          "timed out beside other runs; driven again alone" + (result->message.empty() ? "" : ": " + result->message);
    }
  }
  if (result.ok()) retry_crash_with_scalars_one(worker, job, *result);
  return result;
}

void DrivePool::retry_crash_with_scalars_one(WorkerProcess& worker, const DriveJob& job, DriveResult& result) {
  // A worker killed by a signal with integer scalars of the global size: an
  // offset or stride argument sent the kernel far past its buffers (cldrive's
  // rule). Driven again in a fresh worker with every integer scalar 1, that
  // run decides the outcome.
  if (result.outcome != Outcome::kCrash || !job.scalar_fallback || job.integer_scalars_one || job.args_from_device ||
      !has_integer_scalars(job.args) || job.global_size.empty() || job.global_size[0] == 1 ||
      result.message.find("worker killed by signal") == std::string::npos || stop_now())
    return;
  DriveJob again = job;
  again.integer_scalars_one = true;
  auto second = worker.drive(again);
  if (!second.ok()) return;
  ++crash_retried_;
  if (second->outcome != Outcome::kCrash) ++crash_cleared_;
  second->message = "crashed with integer scalars of the global size (" + result.message + "); driven again with 1" +
                    (second->message.empty() ? "" : ": " + second->message);
  result = std::move(*second);
}

}  // namespace clgen::driver
