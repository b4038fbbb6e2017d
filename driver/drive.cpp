// Orchestration of `clgen drive`: sources -> kernels -> jobs -> workers -> runs.
#include "driver/drive.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

#include "corpus/preprocess/catalog.h"
#include "driver/args.h"
#include "driver/drive_pool.h"
#include "driver/leases.h"
#include "driver/worker.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/log.h"
#include "support/progress.h"
#include "support/sha256.h"
#include "support/text.h"

namespace clgen::driver {

namespace {

using Source = DriveSource;

// Appends the texts `read` returns as sources of `origin`; a missing table
// (`exists` false) is a note, not an error.
Status collect(Expected<bool> exists, const std::string& missing_note,
               const std::function<Expected<std::vector<std::string>>()>& read, const std::string& origin,
               std::vector<Source>& out, std::vector<std::string>& notes) {
  ASSIGN_OR_RETURN(bool present, std::move(exists));
  if (!present) {
    notes.push_back(missing_note);
    return ok_status();
  }
  ASSIGN_OR_RETURN(std::vector<std::string> texts, read());
  for (std::string& text : texts) out.push_back({origin, std::move(text)});
  return ok_status();
}

// The newest accepted corpus kernels in the order first stored, as preprocessed
// (decontamination is for training, not for driving).
Expected<std::vector<std::string>> corpus_texts(Database& db) {
  preprocess::KernelQuery query;
  query.exclude_decontaminated = false;
  query.order = preprocess::KernelQuery::Order::kFirstStored;
  ASSIGN_OR_RETURN(std::vector<preprocess::CatalogKernel> kernels, preprocess::newest_accepted_kernels(db, query));
  std::vector<std::string> texts;
  for (auto& k : kernels) texts.push_back(std::move(k.text));
  return texts;
}

// Submits every source to `pool`. With `leases` (another drive may share
// the workspace), a source goes only once this process holds its lease, with
// the runs stored since the pool's map was read (from `db`); a source another
// drive holds is tried again after the others, so it is read back once that
// drive has stored its runs, or taken over once its lease expired.
Status feed_sources(DrivePool& pool, std::vector<PoolSource>& sources, DriveLeases* leases, Database* db,
                    const std::atomic<bool>& go) {
  std::deque<PoolSource*> waiting;
  for (PoolSource& ps : sources) waiting.push_back(&ps);
  size_t misses = 0;  // held by others in a row
  while (!waiting.empty() && go && !interrupted()) {
    PoolSource* ps = waiting.front();
    waiting.pop_front();
    if (leases) {
      ASSIGN_OR_RETURN(bool mine, leases->try_claim(ps->sha256));
      if (!mine) {
        waiting.push_back(ps);
        if (++misses >= waiting.size()) {  // every source left is held: wait for their drives
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          misses = 0;
        }
        continue;
      }
      misses = 0;
      ASSIGN_OR_RETURN(ps->stored_since, stored_run_outcomes_of(*db, ps->sha256));
    }
    if (!pool.submit(std::move(*ps))) break;
  }
  return ok_status();
}

uint64_t product(const std::vector<uint64_t>& v) {
  uint64_t p = 1;
  for (uint64_t x : v) p *= x;
  return p;
}

}  // namespace

Expected<std::vector<DeviceInfo>> select_devices(const std::vector<DeviceInfo>& all, const std::string& spec) {
  std::vector<DeviceInfo> out;
  const std::string want = ascii_lower(spec);
  for (const auto& d : all) {
    if (!d.available) continue;
    bool match = want == "all" || (want == "cpu" && d.type == "CPU") || (want == "gpu" && d.type == "GPU") ||
                 ascii_lower(d.platform_name + " " + d.name).find(want) != std::string::npos;
    if (match) out.push_back(d);
  }
  if (out.empty()) {
    std::string names;
    for (const auto& d : all) names += "\n  " + d.platform_name + ": " + d.name + " [" + d.type + "]";
    return not_found("no OpenCL device matches '" + spec + "'" +
                     (names.empty() ? " (no devices at all)" : "; devices:" + names));
  }
  return out;
}

std::vector<std::vector<uint64_t>> local_size_sweep(const std::vector<uint64_t>& global, const DeviceInfo& device) {
  std::vector<std::vector<uint64_t>> per_dim(global.size());
  for (size_t d = 0; d < global.size(); ++d) {
    uint64_t item_limit =
        d < device.max_work_item_sizes.size() ? device.max_work_item_sizes[d] : device.max_work_group_size;
    for (uint64_t l = 1; l <= global[d] && l <= item_limit; l *= 2)
      if (global[d] % l == 0) per_dim[d].push_back(l);
  }
  std::vector<std::vector<uint64_t>> out{{}};
  for (size_t d = 0; d < global.size(); ++d) {
    std::vector<std::vector<uint64_t>> next;
    for (const auto& prefix : out)
      for (uint64_t l : per_dim[d]) {
        auto v = prefix;
        v.push_back(l);
        if (product(v) <= device.max_work_group_size) next.push_back(std::move(v));
      }
    out = std::move(next);
  }
  return out;
}

Expected<std::vector<uint64_t>> parse_size_sweep(const std::string& text) {
  size_t dots = text.find("..");
  if (dots == std::string::npos)
    return invalid_argument("size sweep '" + text + "': expected FROM..TO, e.g. 2^7..2^22");
  auto parse_one = [&](std::string s) -> Expected<uint64_t> {
    if (s.rfind("2^", 0) == 0) {
      std::optional<uint64_t> exponent = parse_uint64(s.substr(2));
      if (!exponent || *exponent > 40) return invalid_argument("size sweep '" + text + "': bad exponent");
      return uint64_t{1} << *exponent;
    }
    std::optional<uint64_t> value = parse_uint64(s);
    if (!value) return invalid_argument("size sweep '" + text + "': bad bound '" + s + "'");
    return *value;
  };
  ASSIGN_OR_RETURN(uint64_t from, parse_one(text.substr(0, dots)));
  ASSIGN_OR_RETURN(uint64_t to, parse_one(text.substr(dots + 2)));
  std::vector<uint64_t> out;
  for (uint64_t s = 1; s <= to && s != 0; s *= 2)
    if (s >= from) out.push_back(s);
  if (out.empty()) return invalid_argument("size sweep '" + text + "' holds no power of two");
  return out;
}

std::vector<size_t> pick_sources(size_t count, uint64_t limit, uint64_t shuffle_seed) {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  if (shuffle_seed != 0) {
    std::mt19937_64 rng(shuffle_seed);
    std::shuffle(order.begin(), order.end(), rng);
  }
  if (limit > 0 && order.size() > limit) order.resize(limit);
  return order;
}

unsigned default_drive_jobs() {
  unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(cores, 1u, 16u);
}

Expected<std::vector<DriveSource>> collect_drive_sources(Database& db, const DriveOptions& options,
                                                         std::vector<std::string>& notes) {
  std::vector<Source> sources;
  for (const auto& path : options.files) {
    auto text = read_file(path, options.max_source_bytes);
    if (!text.ok()) return text.status().with_context("reading kernel");
    sources.push_back({path, std::move(*text)});
  }
  if (options.samples) {
    const SampleCatalog& catalog = options.sample_catalog;
    if (!catalog.exists || !catalog.accepted_texts)
      return invalid_argument("--samples: the drive was given no sample catalog to read them from");
    RETURN_IF_ERROR_CTX(collect(
                            catalog.exists(db),
                            "no 'samples' table in the workspace database: no samples to drive "
                            "(run clgen sample first)",
                            [&] { return catalog.accepted_texts(db); }, "samples", sources, notes),
                        "reading samples");
  }
  if (options.corpus) {
    RETURN_IF_ERROR_CTX(collect(
                            preprocess::has_preprocessed_corpus(db),
                            "no 'preprocessed' table in the workspace database: no corpus kernels to "
                            "drive (run clgen corpus preprocess first)",
                            [&db] { return corpus_texts(db); }, "corpus", sources, notes),
                        "reading the preprocessed corpus");
  }
  {
    std::vector<Source> picked;
    for (size_t i : pick_sources(sources.size(), options.limit, options.shuffle_seed)) {
      picked.push_back(std::move(sources[i]));
    }
    sources = std::move(picked);
  }
  return sources;
}

WorkerOptions drive_worker_options(const DriveOptions& options) {
  WorkerOptions w;
  w.binary = options.worker_binary;
  w.timeout_s = options.timeout_s;
  w.memory_limit_mb = options.memory_limit_mb;
  w.inherit_stderr = options.worker_stderr;
  return w;
}

namespace {

// Stores every source's text before its runs (datasets read it by sha), in
// one transaction, and hands the sources on as the pool takes them.
Expected<std::vector<PoolSource>> store_sources(Database& db, std::vector<DriveSource>& sources) {
  std::vector<PoolSource> pool_sources;
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  for (size_t i = 0; i < sources.size(); ++i) {
    PoolSource ps{i, sources[i].origin, std::move(sources[i].text), "", {}};
    ps.sha256 = sha256_hex(ps.text);
    RETURN_IF_ERROR_CTX(store_kernel_source(db, ps.sha256, ps.text, ps.origin), "storing the source of " + ps.origin);
    pool_sources.push_back(std::move(ps));
  }
  RETURN_IF_ERROR_CTX(tx.commit(), "storing kernel sources");
  return pool_sources;
}

// Another drive may share a workspace on disk: its sources are leased (see
// feed_sources), and the feeder reads the runs stored since through a
// connection of its own. Both null for an in-memory database.
struct SharedWorkspace {
  std::unique_ptr<DriveLeases> leases;
  std::unique_ptr<Database> feed_db;
};

Expected<SharedWorkspace> open_shared_workspace(Database& db) {
  SharedWorkspace shared;
  if (db.path().empty() || db.path() == ":memory:") return shared;
  ASSIGN_OR_RETURN(shared.leases, DriveLeases::open(db.path()));
  ASSIGN_OR_RETURN(Database d, Database::open(db.path()));
  shared.feed_db = std::make_unique<Database>(std::move(d));
  return shared;
}

PoolOptions pool_options(const DriveOptions& options, std::vector<DeviceInfo> devices, WorkerOptions wopts) {
  PoolOptions popts;
  static_cast<RunSettings&>(popts) = options;
  popts.devices = std::move(devices);
  popts.worker = std::move(wopts);
  popts.analysis = options.analysis;
  popts.threads = options.jobs ? options.jobs : default_drive_jobs();
  return popts;
}

// Stores each source's runs as the pool hands them back, counts them in
// `summary` and files them under the source's index in `by_source` (for a
// CSV in source order whatever order the threads finish in). An interrupt
// or a failure calls `stop`; the runs in progress still come back, and after
// an interrupt they are stored. Returns the first failure.
Status store_pool_results(Database& db, DrivePool& pool, DriveLeases* leases, const std::function<void()>& stop,
                          Progress* progress, DriveSummary& summary, std::vector<std::vector<RunRecord>>& by_source) {
  Status failure;
  while (auto res = pool.next()) {
    if (interrupted() && !summary.interrupted) {
      summary.interrupted = true;
      stop();
    }
    if (!failure.ok()) continue;
    if (!res->error.ok()) {
      failure = res->error;
      stop();
      continue;
    }
    ++summary.sources;
    std::vector<RunRecord>& records = by_source[res->index];
    Status st = record_pool_result(db, *res, records);
    for (size_t i = 0; i < records.size(); ++i) {
      ++summary.outcomes[records[i].result.outcome];
      ++(res->runs[i].stored ? summary.already_stored : summary.driven);
    }
    if (st.ok() && leases) st = leases->release(res->sha256);
    if (!st.ok()) {
      failure = st;
      stop();
    }
    if (progress) progress->advance();
  }
  return failure;
}

// Every run, source by source, as CSV.
std::string runs_csv(const std::vector<std::vector<RunRecord>>& by_source) {
  std::string csv = csv_header();
  int instance = 0;
  for (const auto& runs : by_source)
    for (const RunRecord& rec : runs) csv += csv_rows(rec, instance++);
  return csv;
}

}  // namespace

Expected<DriveSummary> drive(Database& db, const DriveOptions& options) {
  DriveSummary summary;
  RETURN_IF_ERROR_CTX(ensure_driver_schema(db), "creating the runs table");
  // OpenCL lives only in the worker: it lists the devices, and the same
  // (healthy) worker then runs the kernels.
  WorkerOptions wopts = drive_worker_options(options);
  WorkerProcess worker(wopts);
  ASSIGN_OR_RETURN(DeviceReport report, worker.list_devices());
  ASSIGN_OR_RETURN(auto devices, select_devices(report.devices, options.device));

  ASSIGN_OR_RETURN(std::vector<Source> sources, collect_drive_sources(db, options, summary.notes));
  ASSIGN_OR_RETURN(std::vector<PoolSource> pool_sources, store_sources(db, sources));
  ASSIGN_OR_RETURN(auto stored, stored_run_outcomes(db));
  worker.stop();  // the pool's threads start their own
  // Declared before the pool, so the leases are released after its threads end.
  ASSIGN_OR_RETURN(SharedWorkspace shared, open_shared_workspace(db));
  const size_t source_count = pool_sources.size();

  DrivePool pool(pool_options(options, std::move(devices), wopts), std::move(stored));
  std::atomic<bool> feeding{true};
  Status feed_status;
  std::thread feeder([&] {
    feed_status = feed_sources(pool, pool_sources, shared.leases.get(), shared.feed_db.get(), feeding);
    pool.close();
  });
  auto stop = [&] {
    feeding = false;
    pool.stop();
  };

  std::unique_ptr<Progress> progress;
  if (options.show_progress) progress = std::make_unique<Progress>("drive", source_count);
  std::vector<std::vector<RunRecord>> by_source(source_count);
  Status failure = store_pool_results(db, pool, shared.leases.get(), stop, progress.get(), summary, by_source);
  feeder.join();
  if (progress) progress->finish();
  RETURN_IF_ERROR(failure);
  RETURN_IF_ERROR_CTX(feed_status, "leasing sources");
  if (interrupted()) summary.interrupted = true;
  summary.workers_started = worker.started() + pool.workers_started();
  summary.timeouts_retried = pool.timeouts_retried();
  summary.timeouts_cleared = pool.timeouts_cleared();
  summary.crashes_retried = pool.crashes_retried();
  summary.crashes_cleared = pool.crashes_cleared();
  if (!options.csv_path.empty())
    RETURN_IF_ERROR_CTX(write_file_atomic(options.csv_path, runs_csv(by_source)), "writing " + options.csv_path);
  return summary;
}

}  // namespace clgen::driver
