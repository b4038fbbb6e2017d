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

PoolResult DrivePool::drive_source(const PoolSource& src, std::vector<std::unique_ptr<WorkerProcess>>& workers,
                                   AnalysisWorker& analysis_worker) {
  PoolResult res;
  res.index = src.index;
  res.origin = src.origin;
  res.sha256 = src.sha256;
  auto stop_now = [&] { return stopping_.load() || interrupted(); };
  // The Clang analysis runs in this thread's analysis worker (Clang 15 never
  // enters an OpenCL worker, where the OpenCL driver may bring its own LLVM),
  // under its time and memory budget: a front-end crash or the memory limit
  // becomes a crash row (kInternal), the time limit a timeout row.
  Expected<std::vector<KernelSignature>> analysis = std::vector<KernelSignature>();
  if (have_clang_analysis()) analysis = analysis_worker.analyze(src.text);
  if (analysis.status().code() == ErrorCode::kUnavailable) {  // no analysis worker: the drive's error
    res.error = analysis.status();
    return res;
  }
  // "kernel|global|local" of the runs that passed on the first device.
  std::unordered_set<std::string> passed_first;
  // Whether the run is stored; if so its record carries the stored outcome
  // (the caller reads the rest of the row).
  auto stored = [&](RunRecord& rec) {
    const std::string id = run_key_id(rec.key);
    for (const auto* map : {&src.stored_since, &stored_}) {
      auto it = map->find(id);
      if (it == map->end()) continue;
      rec.result.outcome = it->second;
      return true;
    }
    return false;
  };
  auto add = [&](size_t d, PoolRun run) {
    const RunKey& k = run.record.key;
    bool passed = run.record.result.outcome == Outcome::kPass;
    if (d == 0 && passed) passed_first.insert(k.kernel_name + "|" + k.global_size + "|" + k.requested_local_size);
    res.runs.push_back(std::move(run));
  };

  for (size_t d = 0; d < options_.devices.size(); ++d) {
    const DeviceInfo& dev = options_.devices[d];
    if (stop_now()) break;
    const bool need_pass = d > 0 && options_.later_devices_need_pass;
    if (need_pass && passed_first.empty()) break;
    if (!workers[d]) {
      WorkerOptions w = options_.worker;
      w.default_memory_cap = dev.type != "GPU";  // see WorkerOptions::default_memory_cap
      workers[d] = std::make_unique<WorkerProcess>(std::move(w));
    }
    WorkerProcess& worker = *workers[d];
    std::vector<KernelSignature> kernels;
    // When the source as a whole fails: the outcome recorded for it.
    Outcome source_outcome = Outcome::kCompileError;
    std::string source_failure;
    auto fail_source = [&](const Status& st) {
      source_outcome = st.code() == ErrorCode::kTimeout                                   ? Outcome::kTimeout
                       : st.code() == ErrorCode::kIo || st.code() == ErrorCode::kInternal ? Outcome::kCrash
                                                                                          : Outcome::kCompileError;
      source_failure = st.message();
    };
    bool args_from_device = !have_clang_analysis();
    if (!analysis.ok()) {
      fail_source(analysis.status());
    } else if (args_from_device) {
      auto listed = worker.list_kernels(src.text, options_.build_options, dev.platform_index, dev.device_index);
      if (listed.ok()) {
        kernels = std::move(*listed);
      } else if (listed.status().code() == ErrorCode::kUnavailable) {
        res.error = listed.status();
        return res;
      } else {
        fail_source(listed.status());
      }
    } else {
      kernels = *analysis;
    }
    if (kernels.empty() && source_failure.empty()) source_failure = "the source defines no kernel";

    for (const auto& gsize : options_.global_sizes) {
      std::vector<std::vector<uint64_t>> lsizes;
      if (options_.local_size_sweep) lsizes = local_size_sweep(gsize, dev);
      else lsizes.push_back(options_.local_size);
      for (const auto& lsize : lsizes) {
        RunKey key{src.sha256,        "", dev.platform_name, dev.name, options_.build_options, format_size(gsize),
                   format_size(lsize)};
        if (!source_failure.empty()) {
          if (need_pass) continue;
          RunRecord rec{key, src.origin, options_.seed, {}};
          if (stored(rec)) {
            add(d, {true, std::move(rec)});
            continue;
          }
          rec.result.outcome = source_outcome;
          rec.result.message = source_failure;
          rec.result.local_size = lsize;
          add(d, {false, std::move(rec)});
          continue;
        }
        for (const KernelSignature& sig : kernels) {
          if (stop_now()) break;
          key.kernel_name = sig.name;
          if (need_pass && !passed_first.count(sig.name + "|" + key.global_size + "|" + key.requested_local_size))
            continue;
          RunRecord rec{key, src.origin, options_.seed, {}};
          if (stored(rec)) {
            add(d, {true, std::move(rec)});
            continue;
          }
          if (!sig.supported()) {
            rec.result.outcome = Outcome::kUnsupportedArguments;
            rec.result.message = sig.unsupported_reason();
            rec.result.local_size = lsize;
          } else if (!args_from_device && !writes_global_argument(sig)) {
            // The worker reads back only arguments the analysis marks as
            // written, so it would run the kernel four times to find no
            // output: record that without running it.
            rec.result.outcome = Outcome::kNoOutput;
            rec.result.message = "the kernel writes no argument (static analysis; not run)";
            rec.result.local_size = lsize;
          } else {
            DriveJob job;
            job.source = src.text;
            job.kernel_name = sig.name;
            job.args = sig.args;
            job.args_from_device = args_from_device;
            job.platform_index = dev.platform_index;
            job.device_index = dev.device_index;
            job.global_size = gsize;
            job.local_size = lsize;
            job.runs = options_.runs;
            job.warmup = options_.warmup;
            job.seed = options_.seed;
            job.build_options = options_.build_options;
            RunGate::Ticket ticket = gate_.lock_shared();
            auto result = worker.drive(job);
            const bool overlapped = gate_.overlapped(ticket);
            gate_.unlock_shared();
            if (result.ok() && result->outcome == Outcome::kTimeout && overlapped && options_.retry_timeouts_alone &&
                !stop_now()) {
              // Alone: the runs in flight finish (each within its time-out)
              // and no new one starts until this one is done.
              std::lock_guard<RunGate> alone(gate_);
              result = worker.drive(job);
              ++retried_;
              if (result.ok()) {
                if (result->outcome != Outcome::kTimeout) ++cleared_;
                result->message = "timed out beside other runs; driven again alone" +
                                  (result->message.empty() ? "" : ": " + result->message);
              }
            }
            if (!result.ok()) {
              res.error = result.status().with_context("driving " + src.origin + ":" + sig.name);
              return res;
            }
            rec.result = std::move(*result);
          }
          spdlog::debug("{} {} on {} at {}: {}{}", src.origin, sig.name, dev.name, format_size(gsize),
                        outcome_name(rec.result.outcome),
                        rec.result.message.empty() ? "" : " (" + rec.result.message + ")");
          add(d, {false, std::move(rec)});
        }
      }
    }
  }
  return res;
}

}  // namespace clgen::driver
