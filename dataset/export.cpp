// Dataset export: runs x static features -> mapping rows; sweeps -> wgsize tables.
#include "dataset/export.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "corpus/preprocess/catalog.h"
#include "corpus/provenance.h"
#include "driver/args.h"
#include "driver/job.h"
#include "driver/run_queries.h"
#include "features/ir_features.h"
#include "features/static_features.h"
#include "sampler/catalog.h"
#include "support/config.h"
#include "support/csv.h"
#include "support/interrupt.h"
#include "support/progress.h"
#include "support/text.h"

namespace clgen::dataset {

namespace {

Status require_runs(Database& db) {
  ASSIGN_OR_RETURN(bool runs, driver::has_runs(db));
  if (!runs) return not_found("the workspace database has no runs (run clgen drive first)");
  return ok_status();
}

// "1024,1024" -> {1024, 1024}; empty on a malformed size.
std::vector<uint64_t> parse_dims(const std::string& text) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::optional<uint64_t> value = parse_uint64(part);  // stored sizes are text: never throw on them
    if (!value) return {};
    out.push_back(*value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

uint64_t work_items(const std::string& size) {
  auto dims = parse_dims(size);
  if (dims.empty()) return 0;
  uint64_t p = 1;
  for (uint64_t d : dims) p *= d;
  return p;
}

std::string x_joined(const std::string& size) {
  std::string s = size;
  std::replace(s.begin(), s.end(), ',', 'x');
  return s;
}

// Looks up sources, origins and features of driven kernels, once per sha256.
class KernelCatalog {
 public:
  static Expected<KernelCatalog> open(Database& db, const ExportOptions& options) { return KernelCatalog(db, options); }

  // The stored source text of `sha`, if any: a driven source, else an
  // accepted sample, else an accepted corpus kernel.
  Expected<std::optional<std::string>> source(const std::string& sha) {
    auto it = sources_.find(sha);
    if (it != sources_.end()) return it->second;
    ASSIGN_OR_RETURN(std::optional<std::string> text, driver::kernel_source_text(*db_, sha));
    if (!text) {
      ASSIGN_OR_RETURN(text, sampler::accepted_sample_text(*db_, sha));
    }
    if (!text) {
      ASSIGN_OR_RETURN(text, preprocess::accepted_kernel_text(*db_, sha));
    }
    sources_[sha] = text;
    return text;
  }

  Expected<KernelOrigin> origin(const std::string& sha, const std::string& run_origin) {
    auto it = origins_.find(sha);
    if (it != origins_.end()) return it->second;
    KernelOrigin o;
    ASSIGN_OR_RETURN(std::optional<sampler::SampleOrigin> sample, sampler::first_accepted_sample(*db_, sha));
    if (sample) {
      o.origin = "synthetic";
      o.group = fmt::format("synthetic-{}-{}", sample->model_id, sample->id);
      o.steering = sample->steering;
    }
    if (o.origin.empty()) {
      ASSIGN_OR_RETURN(auto content, preprocess::accepted_kernel_content(*db_, sha));
      if (content) {
        o.origin = "corpus";
        ASSIGN_OR_RETURN(std::optional<corpus::ContentProvenance> provenance,
                         corpus::content_provenance_of(*db_, *content));
        if (provenance) o.group = provenance->program;
        // A corpus kernel whose repository is unknown is a program of its own.
        if (o.group.empty()) o.group = "corpus-" + content->substr(0, 12);
      }
    }
    if (o.origin.empty()) {
      // Not (or no longer) in the corpus or sample tables: trust the run.
      if (run_origin == "samples") {
        o = {"synthetic", "synthetic-" + sha.substr(0, 12), "undirected"};
      } else if (run_origin == "corpus") {
        o = {"corpus", "corpus-" + sha.substr(0, 12)};
      } else {
        o = {"file", "file:" + run_origin};
      }
    }
    origins_[sha] = o;
    return o;
  }

  // Static features of kernel `name` in source `sha`: nullopt with `why` set
  // when the source is missing, does not compile, or lacks the kernel.
  Expected<std::optional<features::StaticFeatures>> static_features(const std::string& sha,
                                                                    const std::string& name,
                                                                    std::string* why) {
    auto it = features_.find(sha);
    if (it == features_.end()) {
      Entry e;
      ASSIGN_OR_RETURN(auto text, source(sha));
      if (!text) {
        e.error = "no stored source";
      } else {
        features::FeatureOptions feature_options;
        feature_options.definitions = options_.grewe;
        auto rows = features::extract_static_features(*text, sha.substr(0, 12), feature_options);
        if (rows.ok()) {
          for (auto& r : *rows) e.kernels.emplace(r.kernel, std::move(r));
          // IR features are extra columns: a failure leaves them empty.
          auto ir = features::extract_ir_features(*text);
          if (ir.ok())
            for (auto& f : *ir) e.ir.emplace(f.kernel, features::ir_features_csv_values(f));
        } else {
          e.error = "features failed";
        }
      }
      it = features_.emplace(sha, std::move(e)).first;
    }
    if (!it->second.error.empty()) {
      *why = it->second.error;
      return std::optional<features::StaticFeatures>();
    }
    auto k = it->second.kernels.find(name);
    if (k == it->second.kernels.end()) {
      *why = options_.grewe == features::GreweDefinitions::kReference
                 ? "kernel not found by the feature extractor: no __global parameter, no row by the reference "
                   "definitions"
                 : "kernel not found by the feature extractor";
      return std::optional<features::StaticFeatures>();
    }
    return std::optional<features::StaticFeatures>(k->second);
  }

  // Bytes the host reads back after one run of kernel `name` of `sha` at
  // `items` work-items, and how many buffers that is: every __global pointer
  // the argument analysis marks as written gets `items` elements back (the
  // driver's payload rules, driver/payload.h). nullopt when the analysis
  // fails or does not know the kernel.
  Expected<std::optional<std::pair<uint64_t, uint64_t>>> readback(const std::string& sha, const std::string& name,
                                                                  uint64_t items) {
    auto it = signatures_.find(sha);
    if (it == signatures_.end()) {
      std::map<std::string, driver::KernelSignature> by_name;
      ASSIGN_OR_RETURN(auto text, source(sha));
      if (text) {
        auto sigs = driver::analyze_kernels(*text);
        if (sigs.ok())
          for (auto& k : *sigs) by_name.emplace(k.name, std::move(k));
      }
      it = signatures_.emplace(sha, std::move(by_name)).first;
    }
    auto k = it->second.find(name);
    if (k == it->second.end()) return std::optional<std::pair<uint64_t, uint64_t>>();
    uint64_t bytes = 0, buffers = 0;
    for (const driver::ArgInfo& a : k->second.args)
      if (a.is_pointer && a.address_space == driver::AddressSpace::kGlobal && a.writes) {
        bytes += items * static_cast<uint64_t>(a.element_stride());
        ++buffers;
      }
    return std::optional<std::pair<uint64_t, uint64_t>>(std::make_pair(bytes, buffers));
  }

  // The IR feature fields of a kernel static_features() found (empty fields
  // when its IR did not compile).
  std::string ir_fields(const std::string& sha, const std::string& name) const {
    auto it = features_.find(sha);
    if (it != features_.end()) {
      auto k = it->second.ir.find(name);
      if (k != it->second.ir.end()) return k->second;
    }
    return features::ir_features_csv_empty();
  }

 private:
  KernelCatalog(Database& db, const ExportOptions& options) : db_(&db), options_(options) {}

  struct Entry {
    std::string error;
    std::map<std::string, features::StaticFeatures> kernels;
    std::map<std::string, std::string> ir;  // kernel -> CSV fields
  };
  Database* db_;
  ExportOptions options_;
  std::map<std::string, std::optional<std::string>> sources_;
  std::map<std::string, KernelOrigin> origins_;
  std::map<std::string, Entry> features_;
  std::map<std::string, std::map<std::string, driver::KernelSignature>> signatures_;
};

std::vector<std::string> format_notes(const std::map<std::string, size_t>& skipped) {
  std::vector<std::string> notes;
  for (const auto& [why, n] : skipped) notes.push_back(fmt::format("{} left out: {}", n, why));
  return notes;
}

}  // namespace

Expected<RunDevice> find_run_device(Database& db, const std::string& spec) {
  RETURN_IF_ERROR(require_runs(db));
  ASSIGN_OR_RETURN(std::vector<driver::DeviceRunCount> devices, driver::run_devices(db));
  std::vector<RunDevice> matches;
  std::string listing;
  const std::string want = ascii_lower(spec);
  for (const driver::DeviceRunCount& c : devices) {
    RunDevice d{c.platform, c.device};
    listing += fmt::format("\n  {}: {} ({} runs, {} passing)", d.platform, d.device, c.runs, c.passing);
    if (!want.empty() && (ascii_lower(d.device).find(want) != std::string::npos ||
                          ascii_lower(d.platform + " " + d.device).find(want) != std::string::npos))
      matches.push_back(std::move(d));
  }
  if (listing.empty()) return not_found("the workspace database has no runs (run clgen drive first)");
  if (matches.empty())
    return not_found(fmt::format("no runs on a device matching '{}'; devices with runs:{}", spec, listing));
  if (matches.size() > 1)
    return invalid_argument(fmt::format("'{}' matches {} devices with runs; name one of:{}", spec,
                                        matches.size(), listing));
  return matches.front();
}

Expected<ExportOptions> load_export_options(const std::string& config_path) {
  ASSIGN_OR_RETURN(Config config, Config::load_file(config_path));
  RETURN_IF_ERROR(config.check_known_keys({"features", "features.grewe"}));
  ExportOptions options;
  ASSIGN_OR_RETURN(std::string grewe,
                   config.get_string("features.grewe", features::grewe_definitions_name(options.grewe)));
  Expected<features::GreweDefinitions> definitions = features::parse_grewe_definitions(grewe);
  if (!definitions.ok())
    return invalid_argument(fmt::format("{}: features.grewe: {}", config_path, definitions.status().message()));
  options.grewe = *definitions;
  return options;
}

Expected<ExportResult> export_mapping(Database& db, const RunDevice& cpu, const RunDevice& gpu,
                                      const ExportOptions& options) {
  if (cpu.platform == gpu.platform && cpu.device == gpu.device)
    return invalid_argument(fmt::format("--cpu and --gpu name the same device ({})", cpu.device));
  RETURN_IF_ERROR(require_runs(db));
  ASSIGN_OR_RETURN(KernelCatalog catalog, KernelCatalog::open(db, options));
  ASSIGN_OR_RETURN(std::vector<driver::PairedRun> runs,
                   driver::paired_passing_runs(db, cpu.platform, cpu.device, gpu.platform, gpu.device));
  ExportResult out;
  out.csv =
      "benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,transfer,wgsize,oracle,"
      "runtime_cpu,runtime_gpu,group,origin,steering,kernel,kernel_sha256,global_size,"
      "requested_local_size,local_size_cpu,local_size_gpu,kernel_ns_cpu,kernel_ns_gpu,"
      "transfer_ns_cpu,transfer_ns_gpu,readback_bytes,written_buffers," +
      features::ir_features_csv_header() + "\n";
  std::map<std::string, size_t> skipped;
  std::set<std::pair<std::string, std::string>> kernels;
  Progress progress("export", 0);
  for (const driver::PairedRun& run : runs) {
    if (interrupted()) return cancelled("dataset export interrupted (nothing written)");
    const std::string& sha = run.kernel_sha256;
    const std::string& name = run.kernel_name;
    const std::string& global = run.global_size;
    const std::string& requested = run.requested_local_size;
    std::string why;
    ASSIGN_OR_RETURN(auto f, catalog.static_features(sha, name, &why));
    progress.advance();
    if (!f) {
      ++skipped[why];
      continue;
    }
    ASSIGN_OR_RETURN(KernelOrigin origin, catalog.origin(sha, run.origin));
    const std::string& local_cpu = run.local_size_first;
    const std::string& local_gpu = run.local_size_second;
    const double k_cpu = run.kernel_ns_first, k_gpu = run.kernel_ns_second;
    const double t_cpu = run.transfer_ns_first, t_gpu = run.transfer_ns_second;
    const double rt_cpu = (k_cpu + t_cpu) / 1e6, rt_gpu = (k_gpu + t_gpu) / 1e6;
    const uint64_t wgsize = work_items(requested.empty() ? local_gpu : requested);
    std::string dataset = x_joined(global);
    if (!requested.empty()) dataset += "/" + x_joined(requested);
    ASSIGN_OR_RETURN(auto readback, catalog.readback(sha, name, work_items(global)));
    if (!readback) {
      ++skipped["argument analysis failed (no read-back bytes)"];
      continue;
    }
    out.csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                           csv_field(origin.group + "-" + name + "-" + sha.substr(0, 8)), dataset, f->comp, f->rational,
                           f->mem, f->localmem, f->coalesced, f->atomic, run.transferred_bytes, wgsize,
                           rt_cpu <= rt_gpu ? "CPU" : "GPU", rt_cpu, rt_gpu, csv_field(origin.group), origin.origin,
                           origin.steering, csv_field(name), sha, csv_field(global), csv_field(requested),
                           csv_field(local_cpu), csv_field(local_gpu), k_cpu, k_gpu, t_cpu, t_gpu, readback->first,
                           readback->second, catalog.ir_fields(sha, name));
    ++out.rows;
    kernels.emplace(sha, name);
  }
  progress.finish();
  out.kernels = kernels.size();
  out.notes = format_notes(skipped);
  if (out.rows == 0) {
    std::string msg = fmt::format(
        "no kernel has passing runs on both {} and {} at the same global size", cpu.device, gpu.device);
    for (const auto& n : out.notes) msg += "; " + n;
    return not_found(msg);
  }
  return out;
}

Expected<ExportResult> export_wgsize(Database& db, const RunDevice* device, const ExportOptions& options) {
  RETURN_IF_ERROR(require_runs(db));
  ASSIGN_OR_RETURN(KernelCatalog catalog, KernelCatalog::open(db, options));
  ASSIGN_OR_RETURN(std::vector<driver::SweepRun> runs,
                   device ? driver::sweep_runs(db, &device->platform, &device->device) : driver::sweep_runs(db));
  struct Scenario {
    std::string sha, name, platform, device, global, origin;
    uint64_t max_wg = 0;
    std::map<std::pair<uint64_t, uint64_t>, double> ms;  // local size -> ms; 0 = not passing
    std::set<std::pair<uint64_t, uint64_t>> refused, failed;  // invalid launch parameters; other outcomes
  };
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, Scenario> scenarios;
  std::map<std::string, size_t> skipped;
  for (const driver::SweepRun& run : runs) {
    Key key{run.kernel_sha256, run.kernel_name, run.platform, run.device, run.build_options, run.global_size};
    auto global = parse_dims(std::get<5>(key));
    auto local = parse_dims(run.requested_local_size);
    if (global.empty() || global.size() > 2 || local.size() != global.size()) {
      ++skipped["runs with 3-D or malformed sizes (the table is 2-D)"];
      continue;
    }
    Scenario& s = scenarios[key];
    s.sha = std::get<0>(key);
    s.name = std::get<1>(key);
    s.platform = std::get<2>(key);
    s.device = std::get<3>(key);
    s.global = std::get<5>(key);
    s.origin = run.origin;
    s.max_wg = std::max<uint64_t>(s.max_wg, static_cast<uint64_t>(run.kernel_work_group_size));
    const bool pass = run.outcome == "pass" && run.kernel_ns && *run.kernel_ns > 0;
    const std::pair<uint64_t, uint64_t> size{local[0], local.size() > 1 ? local[1] : 1};
    s.ms[size] = pass ? *run.kernel_ns / 1e6 : 0;
    if (!pass) (run.outcome == "invalid launch parameters" ? s.refused : s.failed).insert(size);
  }
  // Keep sweeps (two or more sizes) with at least one passing size.
  std::vector<const Scenario*> kept;
  for (const auto& [key, s] : scenarios) {
    if (s.ms.size() < 2) {
      ++skipped["kernel x device x global size with a single requested local size (not a sweep)"];
      continue;
    }
    bool any = std::any_of(s.ms.begin(), s.ms.end(), [](const auto& kv) { return kv.second > 0; });
    if (!any) {
      ++skipped["sweeps where no local size passed"];
      continue;
    }
    kept.push_back(&s);
  }
  // Static features of each kept kernel; a kernel without them is left out.
  std::vector<const Scenario*> featured;
  std::map<std::pair<std::string, std::string>, features::StaticFeatures> feats;
  std::set<std::pair<std::string, std::string>> featured_kernels;
  for (const Scenario* s : kept) {
    std::string why;
    ASSIGN_OR_RETURN(auto f, catalog.static_features(s->sha, s->name, &why));
    if (!f) {
      ++skipped["sweeps of kernels without static features (" + why + ")"];
      continue;
    }
    feats.emplace(std::make_pair(s->sha, s->name), *f);
    featured.push_back(s);
    featured_kernels.emplace(s->sha, s->name);
  }
  ExportResult out;
  out.notes = format_notes(skipped);
  if (featured.empty()) {
    std::string msg = "no local-size sweep with a passing run (drive with --local-size-sweep)";
    for (const auto& n : out.notes) msg += "; " + n;
    return not_found(msg);
  }
  std::set<std::pair<uint64_t, uint64_t>> sizes;
  for (const Scenario* s : featured)
    for (const auto& kv : s->ms) sizes.insert(kv.first);
  auto size_list = [](const std::set<std::pair<uint64_t, uint64_t>>& v) {
    std::string text;
    for (const auto& [a, b] : v) text += fmt::format("{}{}x{}", text.empty() ? "" : ";", a, b);
    return text;
  };
  out.csv =
      "host,dev_name,dev_count,kern_checksum,north,south,east,west,data_width,data_height,"
      "max_wg_size,origin,steering,group,kernel,kernel_sha256,global_size,default_local_size,refused_sizes,failed_sizes,"
      "comp,rational,mem,localmem,coalesced,atomic," +
      features::ir_features_csv_header();
  for (const auto& [a, b] : sizes) out.csv += fmt::format(",{}x{}", a, b);
  out.csv += "\n";
  for (const Scenario* s : featured) {
    ASSIGN_OR_RETURN(KernelOrigin origin, catalog.origin(s->sha, s->origin));
    auto global = parse_dims(s->global);
    uint64_t max_wg = s->max_wg;
    if (max_wg == 0)  // not reported: the largest size that passed
      for (const auto& [size, ms] : s->ms)
        if (ms > 0) max_wg = std::max(max_wg, size.first * size.second);
    // The size `clgen drive` picks without --lsize (the device's own limits
    // are not stored; the kernel's, no larger, stands for them).
    auto def = driver::automatic_local_size(global, max_wg, {});
    const auto& f = feats.at({s->sha, s->name});
    out.csv += fmt::format("{},{},1,{},0,0,0,0,{},{},{},{},{},{},{},{},{},{}x{},{},{},{},{},{},{},{},{},{}",
                           csv_field(s->platform), csv_field(s->device), csv_field(s->sha + ":" + s->name), global[0],
                           global.size() > 1 ? global[1] : 1, max_wg, origin.origin, origin.steering,
                           csv_field(origin.group), csv_field(s->name), s->sha, csv_field(s->global), def[0],
                           def.size() > 1 ? def[1] : 1, size_list(s->refused), size_list(s->failed), f.comp, f.rational,
                           f.mem, f.localmem, f.coalesced, f.atomic, catalog.ir_fields(s->sha, s->name));
    for (const auto& size : sizes) {
      auto it = s->ms.find(size);
      out.csv += "," + (it == s->ms.end() ? std::string("0") : fmt::format("{}", it->second));
    }
    out.csv += "\n";
    ++out.rows;
  }
  out.kernels = featured_kernels.size();
  return out;
}

}  // namespace clgen::dataset
