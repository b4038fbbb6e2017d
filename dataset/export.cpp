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

#include "features/ir_features.h"
#include "features/static_features.h"
#include "support/csv.h"
#include "support/interrupt.h"
#include "support/progress.h"
#include "support/text.h"

namespace clgen::dataset {

namespace {

Status require_runs(Database& db) {
  ASSIGN_OR_RETURN(bool runs, db.has_table("runs"));
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
  static Expected<KernelCatalog> open(Database& db) {
    KernelCatalog c(db);
    for (const char* t : {"kernel_sources", "samples", "preprocessed", "content_origins", "repositories"}) {
      ASSIGN_OR_RETURN(bool e, db.has_table(t));
      if (e) c.tables_.insert(t);
    }
    return c;
  }

  // The stored source text of `sha`, if any.
  Expected<std::optional<std::string>> source(const std::string& sha) {
    auto it = sources_.find(sha);
    if (it != sources_.end()) return it->second;
    std::optional<std::string> text;
    const std::pair<const char*, const char*> queries[] = {
        {"kernel_sources", "SELECT text FROM kernel_sources WHERE sha256=?1"},
        {"samples", "SELECT normalized_text FROM samples WHERE normalized_sha256=?1 AND "
                    "status='accepted' AND normalized_text IS NOT NULL LIMIT 1"},
        {"preprocessed", "SELECT normalized_text FROM preprocessed WHERE normalized_sha256=?1 AND "
                         "status='ok' AND normalized_text IS NOT NULL LIMIT 1"}};
    for (const auto& [table, sql] : queries) {
      if (!tables_.count(table)) continue;
      ASSIGN_OR_RETURN(auto row, first_text(sql, sha));
      if (row) {
        text = std::move(row);
        break;
      }
    }
    sources_[sha] = text;
    return text;
  }

  Expected<KernelOrigin> origin(const std::string& sha, const std::string& run_origin) {
    auto it = origins_.find(sha);
    if (it != origins_.end()) return it->second;
    KernelOrigin o;
    if (tables_.count("samples")) {
      ASSIGN_OR_RETURN(Statement st, db_->prepare("SELECT id, model_id FROM samples WHERE "
                                                  "normalized_sha256=?1 AND status='accepted' "
                                                  "ORDER BY id LIMIT 1"));
      RETURN_IF_ERROR(st.bind(1, sha));
      ASSIGN_OR_RETURN(bool row, st.step());
      if (row) {
        o.origin = "synthetic";
        o.group = fmt::format("synthetic-{}-{}", st.column_text(1), st.column_int(0));
      }
    }
    if (o.origin.empty() && tables_.count("preprocessed")) {
      ASSIGN_OR_RETURN(auto content, first_text("SELECT content_sha256 FROM preprocessed WHERE "
                                                "normalized_sha256=?1 AND status='ok' "
                                                "ORDER BY content_sha256 LIMIT 1",
                                                sha));
      if (content) {
        o.origin = "corpus";
        if (tables_.count("content_origins") && tables_.count("repositories")) {
          ASSIGN_OR_RETURN(Statement st,
                           db_->prepare("SELECT r.owner, r.name, r.source FROM content_origins o "
                                        "JOIN repositories r ON r.id = o.repository_id "
                                        "WHERE o.sha256=?1 ORDER BY r.id LIMIT 1"));
          RETURN_IF_ERROR(st.bind(1, *content));
          ASSIGN_OR_RETURN(bool row, st.step());
          if (row) {
            std::string owner = st.column_text(0), name = st.column_text(1);
            o.group = !owner.empty() && !name.empty() ? owner + "/" + name : st.column_text(2);
          }
        }
        // A corpus kernel whose repository is unknown is a program of its own.
        if (o.group.empty()) o.group = "corpus-" + content->substr(0, 12);
      }
    }
    if (o.origin.empty()) {
      // Not (or no longer) in the corpus or sample tables: trust the run.
      if (run_origin == "samples") {
        o = {"synthetic", "synthetic-" + sha.substr(0, 12)};
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
        auto rows = features::extract_static_features(*text, sha.substr(0, 12));
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
      *why = "kernel not found by the feature extractor";
      return std::optional<features::StaticFeatures>();
    }
    return std::optional<features::StaticFeatures>(k->second);
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
  explicit KernelCatalog(Database& db) : db_(&db) {}

  Expected<std::optional<std::string>> first_text(const char* sql, const std::string& arg) {
    ASSIGN_OR_RETURN(Statement st, db_->prepare(sql));
    RETURN_IF_ERROR(st.bind(1, arg));
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return std::optional<std::string>();
    return std::optional<std::string>(st.column_text(0));
  }

  struct Entry {
    std::string error;
    std::map<std::string, features::StaticFeatures> kernels;
    std::map<std::string, std::string> ir;  // kernel -> CSV fields
  };
  Database* db_;
  std::set<std::string> tables_;
  std::map<std::string, std::optional<std::string>> sources_;
  std::map<std::string, KernelOrigin> origins_;
  std::map<std::string, Entry> features_;
};

std::vector<std::string> format_notes(const std::map<std::string, size_t>& skipped) {
  std::vector<std::string> notes;
  for (const auto& [why, n] : skipped) notes.push_back(fmt::format("{} left out: {}", n, why));
  return notes;
}

}  // namespace

Expected<RunDevice> find_run_device(Database& db, const std::string& spec) {
  RETURN_IF_ERROR(require_runs(db));
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare("SELECT platform, device, COUNT(*), SUM(outcome='pass') FROM runs "
                              "GROUP BY platform, device ORDER BY platform, device"));
  std::vector<RunDevice> matches;
  std::string listing;
  const std::string want = ascii_lower(spec);
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    RunDevice d{st.column_text(0), st.column_text(1)};
    listing += fmt::format("\n  {}: {} ({} runs, {} passing)", d.platform, d.device, st.column_int(2),
                           st.column_int(3));
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

Expected<ExportResult> export_mapping(Database& db, const RunDevice& cpu, const RunDevice& gpu) {
  if (cpu.platform == gpu.platform && cpu.device == gpu.device)
    return invalid_argument(fmt::format("--cpu and --gpu name the same device ({})", cpu.device));
  RETURN_IF_ERROR(require_runs(db));
  ASSIGN_OR_RETURN(KernelCatalog catalog, KernelCatalog::open(db));
  ASSIGN_OR_RETURN(
      Statement st,
      db.prepare("SELECT c.kernel_sha256, c.kernel_name, c.global_size, c.requested_local_size, "
                 "c.origin, c.local_size, g.local_size, g.transferred_bytes, c.kernel_ns, "
                 "g.kernel_ns, c.transfer_ns, g.transfer_ns "
                 "FROM runs c JOIN runs g ON g.kernel_sha256 = c.kernel_sha256 AND "
                 "g.kernel_name = c.kernel_name AND g.global_size = c.global_size AND "
                 "g.requested_local_size = c.requested_local_size AND "
                 "g.build_options = c.build_options "
                 "WHERE c.platform=?1 AND c.device=?2 AND g.platform=?3 AND g.device=?4 AND "
                 "c.outcome='pass' AND g.outcome='pass' AND c.kernel_name != '' AND "
                 "c.kernel_ns IS NOT NULL AND g.kernel_ns IS NOT NULL "
                 "ORDER BY c.kernel_sha256, c.kernel_name, c.build_options, c.global_size, "
                 "c.requested_local_size"));
  RETURN_IF_ERROR(st.bind(1, cpu.platform));
  RETURN_IF_ERROR(st.bind(2, cpu.device));
  RETURN_IF_ERROR(st.bind(3, gpu.platform));
  RETURN_IF_ERROR(st.bind(4, gpu.device));

  ExportResult out;
  out.csv =
      "benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,transfer,wgsize,oracle,"
      "runtime_cpu,runtime_gpu,group,origin,kernel,kernel_sha256,global_size,"
      "requested_local_size,local_size_cpu,local_size_gpu,kernel_ns_cpu,kernel_ns_gpu,"
      "transfer_ns_cpu,transfer_ns_gpu," +
      features::ir_features_csv_header() + "\n";
  std::map<std::string, size_t> skipped;
  std::set<std::pair<std::string, std::string>> kernels;
  Progress progress("export", 0);
  while (true) {
    if (interrupted()) return cancelled("dataset export interrupted (nothing written)");
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    const std::string sha = st.column_text(0), name = st.column_text(1);
    const std::string global = st.column_text(2), requested = st.column_text(3);
    std::string why;
    ASSIGN_OR_RETURN(auto f, catalog.static_features(sha, name, &why));
    progress.advance();
    if (!f) {
      ++skipped[why];
      continue;
    }
    ASSIGN_OR_RETURN(KernelOrigin origin, catalog.origin(sha, st.column_text(4)));
    const std::string local_cpu = st.column_text(5), local_gpu = st.column_text(6);
    const double k_cpu = st.column_double(8), k_gpu = st.column_double(9);
    const double t_cpu = st.column_is_null(10) ? 0 : st.column_double(10);
    const double t_gpu = st.column_is_null(11) ? 0 : st.column_double(11);
    const double rt_cpu = (k_cpu + t_cpu) / 1e6, rt_gpu = (k_gpu + t_gpu) / 1e6;
    const uint64_t wgsize = work_items(requested.empty() ? local_gpu : requested);
    std::string dataset = x_joined(global);
    if (!requested.empty()) dataset += "/" + x_joined(requested);
    out.csv += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        csv_field(origin.group + "-" + name + "-" + sha.substr(0, 8)), dataset, f->comp, f->rational,
        f->mem, f->localmem, f->coalesced, f->atomic, st.column_int(7), wgsize,
        rt_cpu <= rt_gpu ? "CPU" : "GPU", rt_cpu, rt_gpu, csv_field(origin.group), origin.origin,
        csv_field(name), sha, csv_field(global), csv_field(requested), csv_field(local_cpu),
        csv_field(local_gpu), k_cpu, k_gpu, t_cpu, t_gpu, catalog.ir_fields(sha, name));
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

Expected<ExportResult> export_wgsize(Database& db, const RunDevice* device) {
  RETURN_IF_ERROR(require_runs(db));
  ASSIGN_OR_RETURN(KernelCatalog catalog, KernelCatalog::open(db));
  ASSIGN_OR_RETURN(
      Statement st,
      db.prepare(std::string("SELECT kernel_sha256, kernel_name, platform, device, build_options, "
                             "global_size, requested_local_size, outcome, kernel_ns, "
                             "kernel_work_group_size, origin FROM runs WHERE kernel_name != '' AND "
                             "requested_local_size != ''") +
                 (device ? " AND platform=?1 AND device=?2" : "") +
                 " ORDER BY kernel_sha256, kernel_name, platform, device, build_options, global_size"));
  if (device) {
    RETURN_IF_ERROR(st.bind(1, device->platform));
    RETURN_IF_ERROR(st.bind(2, device->device));
  }
  struct Scenario {
    std::string sha, name, platform, device, global, origin;
    uint64_t max_wg = 0;
    std::map<std::pair<uint64_t, uint64_t>, double> ms;  // local size -> ms; 0 = not passing
  };
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, Scenario> scenarios;
  std::map<std::string, size_t> skipped;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    Key key{st.column_text(0), st.column_text(1), st.column_text(2),
            st.column_text(3), st.column_text(4), st.column_text(5)};
    auto global = parse_dims(std::get<5>(key));
    auto local = parse_dims(st.column_text(6));
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
    s.origin = st.column_text(10);
    s.max_wg = std::max<uint64_t>(s.max_wg, static_cast<uint64_t>(st.column_int(9)));
    const bool pass = st.column_text(7) == "pass" && !st.column_is_null(8) && st.column_double(8) > 0;
    s.ms[{local[0], local.size() > 1 ? local[1] : 1}] = pass ? st.column_double(8) / 1e6 : 0;
  }
  // Keep sweeps (two or more sizes) with at least one passing size.
  std::vector<const Scenario*> kept;
  std::set<std::pair<uint64_t, uint64_t>> sizes;
  std::set<std::pair<std::string, std::string>> kernels;
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
    for (const auto& kv : s.ms) sizes.insert(kv.first);
    kernels.emplace(s.sha, s.name);
  }
  ExportResult out;
  out.notes = format_notes(skipped);
  if (kept.empty()) {
    std::string msg = "no local-size sweep with a passing run (drive with --local-size-sweep)";
    for (const auto& n : out.notes) msg += "; " + n;
    return not_found(msg);
  }
  out.csv =
      "host,dev_name,dev_count,kern_checksum,north,south,east,west,data_width,data_height,"
      "max_wg_size,origin,group,kernel,kernel_sha256,global_size";
  for (const auto& [a, b] : sizes) out.csv += fmt::format(",{}x{}", a, b);
  out.csv += "\n";
  for (const Scenario* s : kept) {
    ASSIGN_OR_RETURN(KernelOrigin origin, catalog.origin(s->sha, s->origin));
    auto global = parse_dims(s->global);
    uint64_t max_wg = s->max_wg;
    if (max_wg == 0)  // not reported: the largest size that passed
      for (const auto& [size, ms] : s->ms)
        if (ms > 0) max_wg = std::max(max_wg, size.first * size.second);
    out.csv += fmt::format("{},{},1,{},0,0,0,0,{},{},{},{},{},{},{},{}", csv_field(s->platform),
                           csv_field(s->device), csv_field(s->sha + ":" + s->name), global[0],
                           global.size() > 1 ? global[1] : 1, max_wg, origin.origin,
                           csv_field(origin.group), csv_field(s->name), s->sha, csv_field(s->global));
    for (const auto& size : sizes) {
      auto it = s->ms.find(size);
      out.csv += "," + (it == s->ms.end() ? std::string("0") : fmt::format("{}", it->second));
    }
    out.csv += "\n";
    ++out.rows;
  }
  out.kernels = kernels.size();
  return out;
}

}  // namespace clgen::dataset
