// Orchestration of `clgen drive`: sources -> kernels -> jobs -> workers -> runs.
#include "driver/drive.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <numeric>
#include <random>

#include "corpus/preprocess/catalog.h"
#include "driver/args.h"
#include "driver/worker.h"
#include "sampler/catalog.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/log.h"
#include "support/progress.h"
#include "support/sha256.h"
#include "support/text.h"

namespace clgen::driver {

namespace {

struct Source {
  std::string origin;
  std::string text;
};

// Whether the kernel may write a __global argument (what the worker reads back).
bool writes_global_argument(const KernelSignature& sig) {
  for (const ArgInfo& a : sig.args)
    if (a.is_pointer && a.address_space == AddressSpace::kGlobal && a.writes) return true;
  return false;
}

// Appends the texts `read` returns as sources of `origin`; a missing table
// (`exists` false) is a note, not an error.
Status collect(Expected<bool> exists, const std::string& missing_note,
               const std::function<Expected<std::vector<std::string>>()>& read, const std::string& origin,
               std::vector<Source>& out, DriveSummary& summary) {
  ASSIGN_OR_RETURN(bool present, std::move(exists));
  if (!present) {
    summary.notes.push_back(missing_note);
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

uint64_t product(const std::vector<uint64_t>& v) {
  uint64_t p = 1;
  for (uint64_t x : v) p *= x;
  return p;
}

}  // namespace

Expected<std::vector<DeviceInfo>> select_devices(const std::vector<DeviceInfo>& all,
                                                 const std::string& spec) {
  std::vector<DeviceInfo> out;
  const std::string want = ascii_lower(spec);
  for (const auto& d : all) {
    if (!d.available) continue;
    bool match = want == "all" || (want == "cpu" && d.type == "CPU") ||
                 (want == "gpu" && d.type == "GPU") ||
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

std::vector<std::vector<uint64_t>> local_size_sweep(const std::vector<uint64_t>& global,
                                                    const DeviceInfo& device) {
  std::vector<std::vector<uint64_t>> per_dim(global.size());
  for (size_t d = 0; d < global.size(); ++d) {
    uint64_t item_limit = d < device.max_work_item_sizes.size() ? device.max_work_item_sizes[d]
                                                                : device.max_work_group_size;
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

Expected<DriveSummary> drive(Database& db, const DriveOptions& options) {
  DriveSummary summary;
  RETURN_IF_ERROR_CTX(ensure_driver_schema(db), "creating the runs table");
  // OpenCL lives only in the worker: it lists the devices, and the same
  // (healthy) worker then runs the kernels.
  WorkerOptions wopts;
  wopts.binary = options.worker_binary;
  wopts.timeout_s = options.timeout_s;
  wopts.memory_limit_mb = options.memory_limit_mb;
  wopts.inherit_stderr = options.worker_stderr;
  WorkerProcess worker(wopts);
  ASSIGN_OR_RETURN(DeviceReport report, worker.list_devices());
  ASSIGN_OR_RETURN(auto devices, select_devices(report.devices, options.device));

  std::vector<Source> sources;
  for (const auto& path : options.files) {
    auto text = read_file(path, options.max_source_bytes);
    if (!text.ok()) return text.status().with_context("reading kernel");
    sources.push_back({path, std::move(*text)});
  }
  if (options.samples) {
    RETURN_IF_ERROR_CTX(collect(
                            sampler::has_samples(db),
                            "no 'samples' table in the workspace database: no samples to drive "
                            "(run clgen sample first)",
                            [&db] { return sampler::accepted_sample_texts(db); }, "samples", sources, summary),
                        "reading samples");
  }
  if (options.corpus) {
    RETURN_IF_ERROR_CTX(collect(
                            preprocess::has_preprocessed_corpus(db),
                            "no 'preprocessed' table in the workspace database: no corpus kernels to "
                            "drive (run clgen corpus preprocess first)",
                            [&db] { return corpus_texts(db); }, "corpus", sources, summary),
                        "reading the preprocessed corpus");
  }
  {
    std::vector<Source> picked;
    for (size_t i : pick_sources(sources.size(), options.limit, options.shuffle_seed)) {
      picked.push_back(std::move(sources[i]));
    }
    sources = std::move(picked);
  }

  std::string csv = csv_header();
  int instance = 0;
  std::unique_ptr<Progress> progress;
  if (options.show_progress) progress = std::make_unique<Progress>("drive", sources.size());

  // Stores a new result (or counts a stored one) and adds it to the CSV.
  auto record = [&](RunRecord rec, bool stored) -> Status {
    if (!stored) {
      RETURN_IF_ERROR_CTX(insert_run(db, rec), "storing a run");
      ++summary.driven;
    } else {
      ++summary.already_stored;
    }
    ++summary.outcomes[rec.result.outcome];
    csv += csv_rows(rec, instance++);
    return ok_status();
  };

  for (const Source& src : sources) {
    if (interrupted()) {
      summary.interrupted = true;
      break;
    }
    ++summary.sources;
    const std::string sha = sha256_hex(src.text);
    RETURN_IF_ERROR_CTX(store_kernel_source(db, sha, src.text, src.origin),
                        "storing the source of " + src.origin);
    // The Clang analysis runs here, in the parent (Clang 15 never enters a
    // worker, where the OpenCL driver may bring its own LLVM); a front-end
    // crash is recovered and becomes a crash row (kInternal).
    Expected<std::vector<KernelSignature>> analysis = std::vector<KernelSignature>();
    if (have_clang_analysis()) analysis = analyze_kernels(src.text);

    for (const DeviceInfo& dev : devices) {
      if (interrupted()) break;
      std::vector<KernelSignature> kernels;
      // When the source as a whole fails: the outcome recorded for it.
      Outcome source_outcome = Outcome::kCompileError;
      std::string source_failure;
      auto fail_source = [&](const Status& st) {
        source_outcome = st.code() == ErrorCode::kTimeout ? Outcome::kTimeout
                         : st.code() == ErrorCode::kIo || st.code() == ErrorCode::kInternal
                             ? Outcome::kCrash
                             : Outcome::kCompileError;
        source_failure = st.message();
      };
      bool args_from_device = !have_clang_analysis();
      if (!analysis.ok()) {
        fail_source(analysis.status());
      } else if (args_from_device) {
        auto listed = worker.list_kernels(src.text, options.build_options, dev.platform_index,
                                          dev.device_index);
        if (listed.ok()) {
          kernels = std::move(*listed);
        } else if (listed.status().code() == ErrorCode::kUnavailable) {
          return listed.status();
        } else {
          fail_source(listed.status());
        }
      } else {
        kernels = *analysis;
      }
      if (kernels.empty() && source_failure.empty()) source_failure = "the source defines no kernel";

      for (const auto& gsize : options.global_sizes) {
        std::vector<std::vector<uint64_t>> lsizes;
        if (options.local_size_sweep)
          lsizes = local_size_sweep(gsize, dev);
        else
          lsizes.push_back(options.local_size);
        for (const auto& lsize : lsizes) {
          RunKey key{sha, "", dev.platform_name, dev.name, options.build_options,
                     format_size(gsize), format_size(lsize)};
          if (!source_failure.empty()) {
            ASSIGN_OR_RETURN(auto stored, find_run(db, key));
            if (stored) {
              RETURN_IF_ERROR(record(std::move(*stored), true));
              continue;
            }
            RunRecord rec{key, src.origin, options.seed, {}};
            rec.result.outcome = source_outcome;
            rec.result.message = source_failure;
            rec.result.local_size = lsize;
            RETURN_IF_ERROR(record(std::move(rec), false));
            continue;
          }
          for (const KernelSignature& sig : kernels) {
            if (interrupted()) break;
            key.kernel_name = sig.name;
            ASSIGN_OR_RETURN(auto stored, find_run(db, key));
            if (stored) {
              RETURN_IF_ERROR(record(std::move(*stored), true));
              continue;
            }
            RunRecord rec{key, src.origin, options.seed, {}};
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
              job.runs = options.runs;
              job.warmup = options.warmup;
              job.seed = options.seed;
              job.build_options = options.build_options;
              auto result = worker.drive(job);
              if (!result.ok())
                return result.status().with_context("driving " + src.origin + ":" + sig.name);
              rec.result = std::move(*result);
            }
            spdlog::debug("{} {} on {} at {}: {}{}", src.origin, sig.name, dev.name,
                          format_size(gsize), outcome_name(rec.result.outcome),
                          rec.result.message.empty() ? "" : " (" + rec.result.message + ")");
            RETURN_IF_ERROR(record(std::move(rec), false));
          }
        }
      }
    }
    if (progress) progress->advance();
  }
  if (progress) progress->finish();
  if (interrupted()) summary.interrupted = true;
  summary.workers_started = worker.started();
  if (!options.csv_path.empty())
    RETURN_IF_ERROR_CTX(write_file_atomic(options.csv_path, csv), "writing " + options.csv_path);
  return summary;
}

}  // namespace clgen::driver
