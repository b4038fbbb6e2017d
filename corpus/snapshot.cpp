// Snapshot import: one source per OWNER+NAME folder, metadata from the manifest.
#include "corpus/snapshot.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include "corpus/archive_tree.h"
#include "corpus/manifest.h"
#include "support/log.h"

namespace clgen::corpus {

namespace fs = std::filesystem;

namespace {

using TreeOpener = std::function<Expected<std::unique_ptr<SourceTree>>(const std::string& folder)>;

Expected<std::map<std::string, ManifestRow>> manifest_rows(const std::string& manifest) {
  if (manifest.empty()) return std::map<std::string, ManifestRow>();
  return read_manifest(manifest);
}

// Records the refused archive entries named `prefix`... as skipped rows of
// `source` (their path without the prefix), so `corpus stats` shows them.
Status record_refused(Database& db, const SourceInfo& source, const std::string& commit,
                      const std::vector<TreeEntry>* refused, const std::string& prefix) {
  if (!refused) return ok_status();
  std::vector<SkippedFile> rows;
  for (const auto& e : *refused)
    if (e.path.compare(0, prefix.size(), prefix) == 0)
      rows.push_back({e.path.substr(prefix.size()), e.problem, e.detail});
  if (rows.empty()) return ok_status();
  ASSIGN_OR_RETURN(int64_t id, upsert_source(db, source));
  return store_batch(db, id, commit, {}, rows).status();
}

// Imports each folder (all named OWNER+NAME) as a snapshot repository.
// `refused`: an archive's refused entries (nullptr for directories).
Expected<ImportSummary> import_folders(Database& db, const std::vector<std::string>& folders, const TreeOpener& open,
                                       const std::string& manifest, const ImportOptions& options,
                                       const std::vector<TreeEntry>* refused) {
  ASSIGN_OR_RETURN(auto rows, manifest_rows(manifest));
  ImportOptions opts = options;
  opts.globs.insert(opts.globs.end(), kSnapshotGlobs.begin(), kSnapshotGlobs.end());
  ImportSummary total;
  for (const auto& folder : folders) {
    auto repo = snapshot_repository(folder);
    SourceInfo source;
    source.owner = repo->first;
    source.name = repo->second;
    std::string full = source.owner + "/" + source.name;
    source.key = "snapshot:" + full;
    source.kind = "snapshot";
    std::string commit;
    auto row = rows.find(full);
    if (row != rows.end()) {
      commit = row->second.commit;
      source.license = row->second.license;
      source.domain = row->second.domain;
    } else {
      spdlog::warn("{}: no row in {}; imported without commit, license or domain", full,
                   manifest.empty() ? "a manifest (none given)" : manifest);
    }
    ASSIGN_OR_RETURN(auto tree, open(folder));
    auto s = import_tree(db, *tree, source, commit, opts);
    if (!s.ok()) return s.status().with_context("importing " + full);
    RETURN_IF_ERROR_CTX(record_refused(db, source, commit, refused, folder + "/"), "importing " + full);
    total.add(*s);
  }
  return total;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> snapshot_repository(const std::string& folder) {
  size_t plus = folder.find('+');
  if (plus == std::string::npos || plus == 0 || plus + 1 == folder.size() ||
      folder.find('+', plus + 1) != std::string::npos || folder.find('/') != std::string::npos)
    return std::nullopt;
  return std::make_pair(folder.substr(0, plus), folder.substr(plus + 1));
}

Expected<ImportSummary> import_archive(Database& db, const std::string& path, const ImportOptions& options,
                                       const std::string& manifest) {
  ArchiveLimits limits;
  limits.max_file_bytes = options.max_file_size;
  limits.max_total_bytes = options.max_archive_bytes;
  ASSIGN_OR_RETURN(std::shared_ptr<const ArchiveContents> contents, read_archive(path, limits));
  std::vector<std::string> top_files;
  std::vector<std::string> folders = top_level_folders(*contents, &top_files);
  bool snapshot = !folders.empty() && top_files.empty();
  for (const auto& f : folders) snapshot = snapshot && snapshot_repository(f).has_value();
  ImportSummary summary;
  if (snapshot) {
    auto open = [&](const std::string& folder) -> Expected<std::unique_ptr<SourceTree>> {
      return open_archive_tree(contents, folder);
    };
    auto s = import_folders(db, folders, open, manifest, options, &contents->refused);
    if (!s.ok()) return s.status().with_context("adding " + path);
    summary = std::move(*s);
  } else {
    if (!manifest.empty())
      spdlog::warn("{}: not a snapshot (top-level entries are not all OWNER+NAME folders); {} is ignored", path,
                   manifest);
    SourceInfo source;
    source.key = "archive:" + path;
    source.kind = "archive";
    source.name = fs::path(path).filename().string();
    auto tree = open_archive_tree(contents);
    auto s = import_tree(db, *tree, source, "", options);
    if (!s.ok()) return s.status().with_context("adding " + path);
    RETURN_IF_ERROR_CTX(record_refused(db, source, "", &contents->refused, ""), "adding " + path);
    summary = std::move(*s);
  }
  summary.skipped[kPathOutsideRoot] += static_cast<int64_t>(contents->refused.size());
  if (summary.skipped[kPathOutsideRoot] == 0) summary.skipped.erase(kPathOutsideRoot);
  return summary;
}

Expected<ImportSummary> import_snapshot_directory(Database& db, const std::string& dir, const ImportOptions& options,
                                                  const std::string& manifest) {
  std::vector<std::string> folders;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_directory(ec) && !e.is_symlink(ec) && snapshot_repository(name)) folders.push_back(name);
    else spdlog::warn("{}: '{}' is not an OWNER+NAME folder; left out", dir, name);
  }
  if (ec) return io_error("listing " + dir + ": " + ec.message());
  std::sort(folders.begin(), folders.end());
  auto open = [&](const std::string& folder) { return open_directory_tree(dir + "/" + folder); };
  auto s = import_folders(db, folders, open, manifest, options, nullptr);
  if (!s.ok()) return s.status().with_context("adding " + dir);
  return s;
}

}  // namespace clgen::corpus
