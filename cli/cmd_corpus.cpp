// `clgen corpus add | mine-github | stats | export`: build the OpenCL corpus
// in the workspace database from local trees, git repositories, installed
// Debian packages and GitHub, and report on or export it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "corpus/export.h"
#include "corpus/github.h"
#include "corpus/importer.h"
#include "corpus/installed.h"
#include "corpus/preprocess/catalog.h"
#include "corpus/store.h"
#ifdef CLGEN_HAVE_MODEL_DATA
#include "model/config.h"
#include "model/store.h"
#endif
#include "support/log.h"
#include "support/workspace.h"

namespace clgen::cli {

namespace {

// The library's import options, bound to the flags directly so that each
// default is written once (corpus/importer.h), and the extra globs.
struct ImportFlags {
  corpus::ImportOptions import;
  std::vector<std::string> globs;  // added to the library's *.cl and *.ocl

  corpus::ImportOptions options() const {
    corpus::ImportOptions o = import;
    o.globs.insert(o.globs.end(), globs.begin(), globs.end());
    o.inline_options.max_include_bytes = o.max_file_size;
    return o;
  }
};

void add_import_flags(CLI::App* cmd, ImportFlags& f) {
  cmd->add_option("--glob", f.globs, "Also import files matching this pattern (e.g. '*.h'); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--max-file-size", f.import.max_file_size, "Skip files larger than this (bytes; K/M suffixes)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Validator(CLI::PositiveNumber).description(""))
      ->capture_default_str();
  cmd->add_option("--max-archive-size", f.import.max_archive_bytes,
                  "Refuse an archive whose files add up to more than this (bytes; K/M/G suffixes)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Validator(CLI::PositiveNumber).description(""))
      ->capture_default_str();
  cmd->add_option("--batch-size", f.import.batch_size, "Files stored per transaction")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--reimport", f.import.reimport,
                "Import sources again even when already imported at the same commit or version");
}

struct AddOptions {
  std::vector<std::string> paths;
  bool installed = false;
  std::vector<std::string> packages;  // --package: known packages by name
  std::string manifest;               // --manifest: a snapshot's MANIFEST.tsv
  ImportFlags import;
};

// The library's mining options bound to the flags (defaults in
// corpus/github.h); the token is read from the environment variable named.
struct MineOptions {
  corpus::MineOptions mine;
  std::string token_env = "GITHUB_TOKEN";
  ImportFlags import;
};

struct StatsOptions {
  bool json = false;
  std::string config;  // a model config: also count the characters its training selection keeps
};

struct ExportOptions {
  std::string dir;
};

Expected<Database> open_corpus_db(const GlobalOptions& global) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(Database db, ws.open_database());
  RETURN_IF_ERROR(corpus::ensure_corpus_schema(db));
  return db;
}

std::string human_bytes(int64_t b) {
  char buf[32];
  if (b >= (1 << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
  return buf;
}

void print_summary(const std::string& what, const corpus::ImportSummary& s) {
  if (s.unchanged_sources > 0 && s.candidates == 0) {
    std::printf("%s: unchanged since its last import (--reimport to import again)\n", what.c_str());
    return;
  }
  int64_t skipped = 0;
  std::string reasons;
  for (const auto& [reason, n] : s.skipped) {
    skipped += n;
    reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(n);
  }
  std::printf("%s: %lld files + %lld included files stored (%lld new, %s; read %s), %lld skipped%s%s%s\n",
              what.c_str(), static_cast<long long>(s.accepted), static_cast<long long>(s.includes_stored),
              static_cast<long long>(s.new_contents),
              human_bytes(s.bytes_stored).c_str(), human_bytes(s.bytes_read).c_str(), static_cast<long long>(skipped),
              reasons.empty() ? "" : " (", reasons.c_str(), reasons.empty() ? "" : ")");
  if (s.includes_inlined + s.includes_unresolved + s.includes_refused + s.include_cycles > 0)
    std::printf(
        "  includes: %lld resolved (%lld missing sources read as their headers), %lld unresolved, %lld refused "
        "(outside the root), %lld cycles\n",
        static_cast<long long>(s.includes_inlined), static_cast<long long>(s.includes_substituted),
        static_cast<long long>(s.includes_unresolved), static_cast<long long>(s.includes_refused),
        static_cast<long long>(s.include_cycles));
  if (s.host_files_read > 0)
    std::printf("  host code: %lld files read, %lld kernels recovered from string literals (%lld templates left out)\n",
                static_cast<long long>(s.host_files_read), static_cast<long long>(s.host_kernels),
                static_cast<long long>(s.host_templates));
  if (s.transcoded > 0)
    std::printf("  encodings: %lld files read as Windows-1252 in comments and literals, stored as UTF-8\n",
                static_cast<long long>(s.transcoded));
}

Status run_add(const GlobalOptions& global, const AddOptions& opts) {
  if (opts.paths.empty() && !opts.installed && opts.packages.empty())
    return usage_error("corpus add: give one or more PATHs, --installed or --package NAME");
  std::vector<corpus::InstalledPackage> chosen;
  if (opts.installed) chosen = corpus::default_installed_packages(global.workspace);
  for (const std::string& name : opts.packages) {
    std::string known_names;
    bool found = false;
    for (auto& p : corpus::known_installed_packages(global.workspace)) {
      known_names += (known_names.empty() ? "" : ", ") + p.package;
      if (p.package != name) continue;
      found = true;
      bool already = false;
      for (const auto& c : chosen) already |= c.package == name;
      if (!already) chosen.push_back(p);
    }
    if (!found)
      return usage_error("corpus add: unknown package '" + name + "' (known: " + known_names + ")");
  }
  ASSIGN_OR_RETURN(Database db, open_corpus_db(global));
  corpus::ImportOptions options = opts.import.options();
  corpus::ImportSummary total;
  if (!chosen.empty()) {
    ASSIGN_OR_RETURN(auto results, corpus::import_installed(db, chosen, options));
    for (const auto& r : results) {
      if (!r.found) {
        std::printf("package:%s: not present (%s)\n", r.package.c_str(), r.note.c_str());
        continue;
      }
      print_summary("package:" + r.package, r.summary);
      total.add(r.summary);
    }
  }
  for (const auto& path : opts.paths) {
    ASSIGN_OR_RETURN(corpus::ImportSummary s, corpus::import_path(db, path, options, opts.manifest));
    print_summary(path, s);
    total.add(s);
  }
  if (chosen.size() + opts.paths.size() > 1) print_summary("total", total);
  return ok_status();
}

Status run_mine(const GlobalOptions& global, const MineOptions& opts) {
  ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
  ASSIGN_OR_RETURN(Database db, ws.open_database());
  ASSIGN_OR_RETURN(std::string clones, ws.subdir("clones"));
  corpus::MineOptions m = opts.mine;
  const char* token = opts.token_env.empty() ? nullptr : std::getenv(opts.token_env.c_str());
  if (token && *token) m.github.token = token;
  else spdlog::warn("${} is not set: unauthenticated GitHub requests are limited to 60 an hour", opts.token_env);
  m.clone_dir = clones;
  m.import = opts.import.options();
  ASSIGN_OR_RETURN(corpus::MineSummary s, corpus::mine_github(db, m));
  std::printf("GitHub: %d pages (%d malformed), %d repositories: %d imported, %d unchanged, %d failed\n",
              s.pages, s.malformed_pages, s.repos_seen, s.repos_imported, s.repos_unchanged, s.repos_failed);
  print_summary("files", s.files);
  return ok_status();
}

nlohmann::json group_json(const std::map<std::string, corpus::GroupStats>& groups) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, g] : groups)
    j[key] = {{"repositories", g.repositories}, {"files", g.files}, {"bytes", g.bytes}};
  return j;
}

void print_groups(const char* title, const std::map<std::string, corpus::GroupStats>& groups) {
  std::printf("\nby %s:\n  %12s %8s %11s  %s\n", title, "repositories", "files", "bytes", title);
  for (const auto& [key, g] : groups)
    std::printf("  %12lld %8lld %11s  %s\n", static_cast<long long>(g.repositories), static_cast<long long>(g.files),
                human_bytes(g.bytes).c_str(), key.empty() ? "(unknown)" : key.c_str());
}

// What reaches training from one repository: accepted kernels (newest
// preprocessor version, decontaminated ones left out; a kernel found in
// several repositories counts for the least one, as the training reader
// does), those of them read out of host code, their normalized characters,
// and with a config the characters its training selection keeps.
struct TrainingCounts {
  int64_t accepted = 0, accepted_host = 0, chars = 0, selected_chars = 0;
};

Expected<std::map<std::string, TrainingCounts>> training_counts(Database& db, const std::string& config) {
  std::map<std::string, TrainingCounts> out;
  preprocess::KernelQuery query;
  query.with_repository = true;
  ASSIGN_OR_RETURN(std::vector<preprocess::CatalogKernel> kernels, preprocess::newest_accepted_kernels(db, query));
  ASSIGN_OR_RETURN(auto contents, preprocess::newest_accepted_contents(db));
  ASSIGN_OR_RETURN(std::set<std::string> host, corpus::host_kernel_contents(db));
  std::map<std::string, std::string> repository_of;  // normalized sha256 -> repository
  for (const auto& k : kernels) {
    TrainingCounts& c = out[k.repository];
    ++c.accepted;
    c.chars += static_cast<int64_t>(k.text.size());
    auto it = contents.find(k.normalized_sha256);
    if (it != contents.end() &&
        std::any_of(it->second.begin(), it->second.end(), [&](const std::string& s) { return host.count(s) > 0; }))
      ++c.accepted_host;
    repository_of[k.normalized_sha256] = k.repository;
  }
  if (config.empty()) return out;
#ifdef CLGEN_HAVE_MODEL_DATA
  ASSIGN_OR_RETURN(model::ModelConfig c, model::load_model_config(config));
  c.training.feature_prefix = false;  // only the selection matters here
  ASSIGN_OR_RETURN(model::TrainingTexts set, model::read_training_set(db, c.training));
  for (size_t i = 0; i < set.texts.size() && i < set.sha256.size(); ++i)
    out[repository_of[set.sha256[i]]].selected_chars += static_cast<int64_t>(set.texts[i].size());
  return out;
#else
  return usage_error("--config needs the model library, which this build of clgen lacks");
#endif
}

Status run_stats(const GlobalOptions& global, const StatsOptions& opts) {
  ASSIGN_OR_RETURN(Database db, open_corpus_db(global));
  ASSIGN_OR_RETURN(corpus::CorpusStats s, corpus::corpus_stats(db));
  ASSIGN_OR_RETURN(s.preprocessed, preprocess::newest_result_counts(db));
  ASSIGN_OR_RETURN(auto training, training_counts(db, opts.config));
  TrainingCounts total;
  for (const auto& [repo, c] : training) {
    total.accepted += c.accepted;
    total.accepted_host += c.accepted_host;
    total.chars += c.chars;
    total.selected_chars += c.selected_chars;
  }
  // The name the training reader gives a source (corpus/provenance.h).
  auto repository = [](const corpus::SourceStats& src) {
    return src.owner.empty() ? src.key : src.owner + "/" + src.name;
  };
  if (opts.json) {
    nlohmann::json j = {{"sources", s.sources},
                        {"files", s.files},
                        {"bytes", s.bytes},
                        {"origins", s.origins},
                        {"kernel_files", s.kernel_files},
                        {"include_files", s.include_files},
                        {"skipped", s.skipped_by_reason},
                        {"preprocessed", s.preprocessed},
                        {"by_source", nlohmann::json::array()},
                        {"by_domain", group_json(s.by_domain)},
                        {"by_license", group_json(s.by_license)},
                        {"host_kernels", s.host_kernels},
                        {"host_files", s.host_files},
                        {"accepted_kernels", total.accepted},
                        {"accepted_host_kernels", total.accepted_host},
                        {"training_chars", total.chars}};
    if (!opts.config.empty()) j["selected_chars"] = total.selected_chars;
    for (const auto& src : s.by_source) {
      auto t = training.find(repository(src));
      TrainingCounts c = t == training.end() ? TrainingCounts{} : t->second;
      j["by_source"].push_back({{"kind", src.kind},
                                {"source", src.key},
                                {"commit", src.commit},
                                {"owner", src.owner},
                                {"name", src.name},
                                {"license", src.license},
                                {"domain", src.domain},
                                {"files", src.files},
                                {"bytes", src.bytes},
                                {"skipped", src.skipped},
                                {"complete", src.complete},
                                {"host_kernels", src.host_kernels},
                                {"accepted_kernels", c.accepted},
                                {"accepted_host_kernels", c.accepted_host},
                                {"training_chars", c.chars}});
      if (!opts.config.empty()) j["by_source"].back()["selected_chars"] = c.selected_chars;
    }
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return ok_status();
  }
  std::printf("corpus: %lld files (%lld kernel, %lld include-only), %s, %lld sources, %lld origins\n",
              static_cast<long long>(s.files), static_cast<long long>(s.kernel_files),
              static_cast<long long>(s.include_files), human_bytes(s.bytes).c_str(),
              static_cast<long long>(s.sources), static_cast<long long>(s.origins));
  std::printf("\nby source:\n  %-10s %8s %11s %8s  %-24s %-32s %s\n", "kind", "files", "bytes", "skipped", "license",
              "domain", "source");
  for (const auto& src : s.by_source)
    std::printf("  %-10s %8lld %11s %8lld  %-24s %-32s %s\n", src.kind.c_str(), static_cast<long long>(src.files),
                human_bytes(src.bytes).c_str(), static_cast<long long>(src.skipped), src.license.c_str(),
                src.domain.c_str(), src.key.c_str());
  std::printf(
      "\nby repository: training text (accepted: newest preprocess, decontaminated left out)\n"
      "  %8s %12s %9s %14s %15s%s  %s\n",
      "files", "host kernels", "accepted", "accepted host", "training chars",
      opts.config.empty() ? "" : "  selected chars", "repository");
  auto row = [&](int64_t files, int64_t host, const TrainingCounts& c, const std::string& name) {
    char selected[32] = "";
    if (!opts.config.empty())
      std::snprintf(selected, sizeof selected, "  %14lld", static_cast<long long>(c.selected_chars));
    std::printf("  %8lld %12lld %9lld %14lld %15lld%s  %s\n", static_cast<long long>(files),
                static_cast<long long>(host), static_cast<long long>(c.accepted),
                static_cast<long long>(c.accepted_host), static_cast<long long>(c.chars), selected, name.c_str());
  };
  for (const auto& src : s.by_source) {
    auto t = training.find(repository(src));
    row(src.files, src.host_kernels, t == training.end() ? TrainingCounts{} : t->second, repository(src));
  }
  row(s.files, s.host_kernels, total, "(total)");
  print_groups("domain", s.by_domain);
  print_groups("license", s.by_license);
  std::printf("\nskipped by reason:\n");
  if (s.skipped_by_reason.empty()) std::printf("  (none)\n");
  for (const auto& [reason, n] : s.skipped_by_reason)
    std::printf("  %-26s %lld\n", reason.c_str(), static_cast<long long>(n));
  if (!s.preprocessed.empty()) {
    std::printf("\npreprocessed by status/category:\n");
    for (const auto& [key, n] : s.preprocessed)
      std::printf("  %-26s %lld\n", key.c_str(), static_cast<long long>(n));
  }
  return ok_status();
}

Status run_export(const GlobalOptions& global, const ExportOptions& opts) {
  ASSIGN_OR_RETURN(Database db, open_corpus_db(global));
  ASSIGN_OR_RETURN(corpus::ExportSummary s, corpus::export_corpus(db, opts.dir));
  std::printf("exported %lld files (%s, %lld origins) to %s\n", static_cast<long long>(s.files),
              human_bytes(s.bytes).c_str(), static_cast<long long>(s.origins), opts.dir.c_str());
  return ok_status();
}

}  // namespace

void add_corpus_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* group = corpus_command_group(app);

  auto add = std::make_shared<AddOptions>();
  CLI::App* add_cmd = group->add_subcommand(
      "add", "Import OpenCL files from directories, git repositories (at HEAD), archives, snapshots or single files");
  add_cmd->add_option("PATH", add->paths, "Directory, git repository, archive (.tar.xz .tar.gz .tgz .tar .zip) or file")
      ->check(non_empty());
  add_cmd
      ->add_option("--manifest", add->manifest,
                   "A snapshot's MANIFEST.tsv (commit, license, domain per OWNER/NAME); with a directory, "
                   "reads its OWNER+NAME folders as repositories")
      ->check(non_empty());
  add_cmd->add_flag("--installed", add->installed,
                    "Import the default corpus of kernels installed by Debian packages");
  add_cmd->add_option("--package", add->packages,
                      "Import a known kernel package by name (repeatable), e.g. hashcat-data")
      ->allow_extra_args(false);
  add_import_flags(add_cmd, add->import);
  add_cmd->final_callback([add, &global, &action] { action = [add, &global] { return run_add(global, *add); }; });

  auto mine = std::make_shared<MineOptions>();
  CLI::App* mine_cmd = group->add_subcommand("mine-github", "Search GitHub for OpenCL repositories, clone and import them");
  mine_cmd
      ->add_option("--query", mine->mine.queries,
                   "Search query (repeatable); default: CLgen's terms, each with language:OpenCL")
      ->allow_extra_args(false);
  mine_cmd->add_option("--api-url", mine->mine.github.api_url, "GitHub API base URL")->capture_default_str();
  mine_cmd->add_option("--token-env", mine->token_env, "Environment variable holding the API token")
      ->capture_default_str();
  mine_cmd->add_option("--max-repos", mine->mine.max_repos, "Stop after this many repositories")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  mine_cmd
      ->add_option("--max-wait", mine->mine.github.max_wait_s,
                   "Longest wait (seconds) for a rate limit or backoff; a longer one is an error")
      ->check(finite_range(0, 604800))
      ->capture_default_str();
  mine_cmd->add_option("--retries", mine->mine.github.max_retries, "Retries per request on 5xx, timeouts, rate limits")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  mine_cmd->add_option("--retry-delay", mine->mine.github.retry_delay_s, "First backoff in seconds (doubles per retry)")
      ->check(finite_range(0, 3600))
      ->capture_default_str();
  mine_cmd->add_option("--per-page", mine->mine.github.per_page, "Search results per page (GitHub allows 100)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  mine_cmd
      ->add_option("--timeout", mine->mine.github.timeout_s, "Seconds before an API request times out (then retried)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_import_flags(mine_cmd, mine->import);
  mine_cmd->final_callback([mine, &global, &action] { action = [mine, &global] { return run_mine(global, *mine); }; });

  auto stats = std::make_shared<StatsOptions>();
  CLI::App* stats_cmd = group->add_subcommand("stats", "Corpus counts by source, domain, license and skip reason");
  stats_cmd->add_flag("--json", stats->json, "Print JSON");
  stats_cmd
      ->add_option("--config", stats->config,
                   "A model config (TOML): also count the characters its training selection keeps")
      ->check(CLI::ExistingFile);
  stats_cmd->final_callback([stats, &global, &action] { action = [stats, &global] { return run_stats(global, *stats); }; });

  auto exp = std::make_shared<ExportOptions>();
  CLI::App* exp_cmd = group->add_subcommand("export", "Write the corpus as <sha256>.cl files with a manifest");
  exp_cmd->add_option("DIR", exp->dir, "Output directory")->required();
  exp_cmd->final_callback([exp, &global, &action] { action = [exp, &global] { return run_export(global, *exp); }; });
#ifdef CLGEN_HAVE_CLANG
  add_corpus_decontaminate_command(*group, global, action);  // cli/cmd_decontaminate.cpp
#endif
}

}  // namespace clgen::cli
