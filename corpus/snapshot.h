// Snapshot and archive import: a snapshot holds one top-level folder per
// repository, named OWNER+NAME, and a MANIFEST.tsv gives each repository's
// commit, license and domain; each folder becomes the source
// "snapshot:OWNER/NAME". An archive in another layout is one source.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "corpus/importer.h"

namespace clgen::corpus {

// OWNER and NAME of a snapshot folder named "OWNER+NAME" (exactly one '+',
// neither part empty), else nullopt.
std::optional<std::pair<std::string, std::string>> snapshot_repository(const std::string& folder);

// Imports an archive read into memory (per-file limit options.max_file_size,
// total limit options.max_archive_bytes). When every top-level entry is an
// OWNER+NAME folder it is a snapshot (`manifest` "" = none: commits and
// licenses stay empty); otherwise it is one source "archive:PATH" and the
// manifest is ignored. Entries with absolute or escaping paths are never
// read or stored: they are logged, counted as skipped (path_outside_root) in
// the summary, and recorded in `skipped` under the source they name (an
// entry "O+N/../x" under snapshot:O/N; any, in a one-source archive).
Expected<ImportSummary> import_archive(Database& db, const std::string& path, const ImportOptions& options,
                                       const std::string& manifest);

// Imports each OWNER+NAME folder of `dir` as a snapshot repository described
// by `manifest`; other top-level entries are left out with a warning.
Expected<ImportSummary> import_snapshot_directory(Database& db, const std::string& dir, const ImportOptions& options,
                                                  const std::string& manifest);

}  // namespace clgen::corpus
