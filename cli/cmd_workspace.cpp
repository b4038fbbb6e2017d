// `clgen workspace merge SRC...`: unions other workspaces' samples (and
// driver runs) into this one without duplicates, e.g. the shards of a
// sharded `clgen sample` run, each of which wrote its own workspace.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "sampler/catalog.h"
#include "sampler/merge.h"
#include "sampler/store.h"
#include "support/files.h"
#include "support/workspace.h"
#ifdef CLGEN_HAVE_OPENCL
#include "driver/run_queries.h"
#include "driver/runs.h"
#include "driver/runs_merge.h"
#endif

namespace clgen::cli {

namespace {

struct MergeCommandOptions {
  std::vector<std::string> sources;  // workspace directories
  std::string dest;                  // "" = the global --workspace
};

constexpr const char* kSourceSchema = "merge_source";

// A source workspace, checked before anything is merged.
struct Source {
  std::string root;
  std::string database;
  bool samples = false;  // has a samples table
  bool runs = false;     // has a runs table
};

Expected<Source> check_source(const std::string& root, const std::string& dest_real) {
  Source s{root, root + "/" + Workspace::kDatabaseName};
  std::optional<std::string> real = real_path(root);
  if (!real) return not_found(fmt::format("{}: no such workspace directory", root));
  if (*real == dest_real)
    return usage_error(fmt::format("{} is the destination workspace itself", root));
  if (!real_path(s.database))
    return not_found(fmt::format("{}: no {} (not a clgen workspace)", root, Workspace::kDatabaseName));
  ASSIGN_OR_RETURN(Database db, Database::open(s.database));
  ASSIGN_OR_RETURN(s.samples, sampler::has_samples(db));
#ifdef CLGEN_HAVE_OPENCL
  ASSIGN_OR_RETURN(s.runs, driver::has_runs(db));
#else
  ASSIGN_OR_RETURN(s.runs, db.has_table("runs"));  // reported, not merged
#endif
  if (!s.samples && !s.runs)
    return not_found(fmt::format(
        "{} has neither a samples nor a runs table: nothing to merge (nothing was changed)", root));
  return s;
}

Status run_merge(const GlobalOptions& global, const MergeCommandOptions& opts) {
  ASSIGN_OR_RETURN(auto ws, Workspace::open(opts.dest.empty() ? global.workspace : opts.dest));
  std::string dest_real = real_path(ws.root()).value_or(ws.root());
  // Every source is checked first: a bad one fails the command before any is merged.
  std::vector<Source> sources;
  for (const std::string& root : opts.sources) {
    ASSIGN_OR_RETURN(Source s, check_source(root, dest_real));
    sources.push_back(std::move(s));
  }
  ASSIGN_OR_RETURN(auto db, ws.open_database());
  RETURN_IF_ERROR(sampler::ensure_sampler_schema(db));
#ifdef CLGEN_HAVE_OPENCL
  RETURN_IF_ERROR(driver::ensure_driver_schema(db));
#endif
  const std::string kernels_root = ws.root() + "/samples";
  sampler::SampleMergeCounts total;
  uint64_t total_runs = 0;
  for (const Source& s : sources) {
    // One transaction per source: a failure keeps the sources merged before it.
    auto merge_one = [&]() -> Status {
      ASSIGN_OR_RETURN(Attachment attached, Attachment::attach(db, s.database, kSourceSchema));
      ASSIGN_OR_RETURN(auto tx, Transaction::begin(db));
      sampler::SampleMergeCounts c;
      if (s.samples) {
        ASSIGN_OR_RETURN(c, sampler::merge_samples(db, kSourceSchema, kernels_root));
      }
      std::string runs = "no runs";
#ifdef CLGEN_HAVE_OPENCL
      ASSIGN_OR_RETURN(driver::RunMergeCounts r, driver::merge_runs(db, kSourceSchema));
      if (s.runs) runs = fmt::format("runs {} (added {})", r.source_runs, r.added_runs);
      total_runs += r.added_runs;
#else
      if (s.runs) runs = "runs not merged (clgen built without OpenCL)";
#endif
      RETURN_IF_ERROR(tx.commit());
      std::printf(
          "%s: samples %llu (added %llu, already here %llu): %llu new unique kernels, %llu "
          "accepted there but already here (stored as duplicate); %s\n",
          s.root.c_str(), (unsigned long long)c.source, (unsigned long long)c.added,
          (unsigned long long)c.already_present, (unsigned long long)c.accepted,
          (unsigned long long)c.duplicates, runs.c_str());
      total.source += c.source;
      total.added += c.added;
      total.already_present += c.already_present;
      total.accepted += c.accepted;
      total.duplicates += c.duplicates;
      return ok_status();
    };
    RETURN_IF_ERROR_CTX(merge_one(), "merging " + s.root);
  }
  ASSIGN_OR_RETURN(auto accepted, sampler::accepted_sample_hashes(db));
  std::printf(
      "merged %zu workspaces into %s: %llu samples added (%llu already here), %llu new unique "
      "kernels, %llu runs added; it holds %zu unique kernels\n",
      sources.size(), ws.root().c_str(), (unsigned long long)total.added,
      (unsigned long long)total.already_present, (unsigned long long)total.accepted,
      (unsigned long long)total_runs, accepted.size());
  return ok_status();
}

}  // namespace

void add_workspace_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* group = app.add_subcommand("workspace", "Operations on whole workspaces");
  group->require_subcommand(1);
  auto opts = std::make_shared<MergeCommandOptions>();
  CLI::App* merge = group->add_subcommand(
      "merge",
      "Union other workspaces' samples and driver runs into this one without duplicates "
      "(e.g. the shards of `clgen sample --shard`); merging a workspace twice adds nothing");
  merge->add_option("sources", opts->sources, "Workspace directories to merge from")->required()->check(non_empty());
  merge->add_option("--workspace", opts->dest,
                    "Destination workspace (default: the global --workspace)");
  merge->final_callback([opts, &global, &action] {
    action = [opts, &global] { return run_merge(global, *opts); };
  });
}

}  // namespace clgen::cli
