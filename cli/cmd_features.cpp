// `clgen features FILE.cl... [-I DIR] [-D NAME=VALUE] [--grewe-reference|--grewe-clgen]`:
// static Grewe features and LLVM-IR opcode counts/densities, one CSV row per kernel; code
// with compile errors is counted on Clang's recovered AST and flagged.
#include <cstdio>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/preprocess_options.h"
#include "corpus/preprocess/local_source.h"
#include "features/ir_features.h"
#include "features/static_features.h"
#include "support/files.h"

namespace clgen::cli {

namespace {

constexpr uint64_t kMaxSourceBytes = 16 << 20;

struct FeaturesOptions {
  std::vector<std::string> files;
  std::string out;  // CSV path; empty = stdout
  SourceFlags source;
  // The reference extractor's definitions by default: the published datasets use them.
  features::GreweDefinitions definitions = features::GreweDefinitions::kReference;
};

// The features of one file's kernels (its includes inlined, the defines in
// front), warnings on stderr.
Expected<std::vector<features::StaticFeatures>> file_features(const std::string& path, const FeaturesOptions& o,
                                                              std::string* text) {
  ASSIGN_OR_RETURN(preprocess::LocalSource source,
                   preprocess::read_local_source(path, o.source.options(), kMaxSourceBytes));
  for (const std::string& name : source.unresolved)
    std::fprintf(stderr, "clgen features: %s: include not read (missing, or outside the include roots): %s\n",
                 path.c_str(), name.c_str());
  *text = std::move(source.text);
  features::FeatureOptions options;
  options.recover_from_errors = true;
  options.definitions = o.definitions;
  ASSIGN_OR_RETURN(std::vector<features::StaticFeatures> rows, features::extract_static_features(*text, path, options));
  if (!rows.empty() && rows.front().sema_errors)
    std::fprintf(stderr, "clgen features: %s: counted on Clang's recovered AST (sema_errors=1): %s\n", path.c_str(),
                 rows.front().first_error.c_str());
  return rows;
}

Status run_features(const FeaturesOptions& o) {
  std::string csv = features::static_features_csv_header() + "," + features::ir_features_csv_header() + "," +
                    features::sema_errors_csv_header() + "\n";
  size_t failed = 0, kernels = 0;
  for (const auto& path : o.files) {
    std::string text;
    Expected<std::vector<features::StaticFeatures>> rows = file_features(path, o, &text);
    if (!rows.ok()) {
      // Keep going: one bad file does not lose the others' rows.
      std::fprintf(stderr, "clgen features: %s\n", rows.status().message().c_str());
      ++failed;
      continue;
    }
    // IR features by kernel name; a kernel the IR compile misses keeps its
    // AST features and gets empty IR fields (with a warning).
    std::map<std::string, features::IrFeatures> ir;
    auto irs = features::extract_ir_features(text);
    if (irs.ok()) {
      for (auto& f : *irs) ir.emplace(f.kernel, std::move(f));
    } else {
      std::fprintf(stderr, "clgen features: %s: no IR features: %s\n", path.c_str(),
                   irs.status().message().c_str());
    }
    for (const auto& r : *rows) {
      auto it = ir.find(r.kernel);
      csv += features::static_features_csv_row(r) + "," +
             (it != ir.end() ? features::ir_features_csv_values(it->second) : features::ir_features_csv_empty()) + "," +
             features::sema_errors_csv_values(r) + "\n";
    }
    kernels += rows->size();
  }
  if (o.out.empty()) {
    std::fputs(csv.c_str(), stdout);
  } else {
    RETURN_IF_ERROR(write_file_atomic(o.out, csv));
  }
  if (failed > 0)
    return invalid_argument(fmt::format("{} of {} files failed ({} kernels written)", failed,
                                        o.files.size(), kernels));
  return ok_status();
}

}  // namespace

void add_features_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<FeaturesOptions>();
  CLI::App* cmd = app.add_subcommand("features", "Static (AST) and LLVM-IR kernel features (CSV, one row per kernel)");
  cmd->add_option("files", opts->files, "OpenCL C files")->required();
  cmd->add_option("--out", opts->out, "Write the CSV here instead of stdout");
  opts->source.add_to(*cmd);
  CLI::Option* reference = cmd->add_flag_callback(
      "--grewe-reference", [opts] { opts->definitions = features::GreweDefinitions::kReference; },
      "Count comp..atomic by the reference extractor's rules, as the published device-mapping datasets "
      "(devmap) were counted; one row per function with a __global parameter (the default)");
  CLI::Option* own = cmd->add_flag_callback(
      "--grewe-clgen", [opts] { opts->definitions = features::GreweDefinitions::kClgen; },
      "Count by clgen's own definitions: mem and coalesced only on __global parameters (coalesced <= mem), "
      "atom_* atomic, one row per __kernel");
  reference->excludes(own);
  own->excludes(reference);
  cmd->final_callback([opts, &action] { action = [opts] { return run_features(*opts); }; });
  (void)global;
}

}  // namespace clgen::cli
