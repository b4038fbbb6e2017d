// A snapshot's MANIFEST.tsv: one row per repository with the commit its files
// were read from, its license and its application domain.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "support/status.h"

namespace clgen::corpus {

struct ManifestRow {
  std::string repository;  // owner/name
  std::string commit, license, domain;
  int64_t files_kept = 0, bytes_kept = 0;
};

// Parses manifest text (`name` is used in messages): a header line naming the
// columns repository, commit, license, files_kept, bytes_kept and domain (in
// any order; others are ignored), then tab-separated rows. Fails with
// kParse naming `name`, the line and the column for a missing column, a
// row with too few fields, an empty or slash-less repository, a non-numeric
// count or a repository listed twice.
Expected<std::map<std::string, ManifestRow>> parse_manifest(const std::string& text, const std::string& name);

// Reads and parses the manifest file at `path`.
Expected<std::map<std::string, ManifestRow>> read_manifest(const std::string& path);

}  // namespace clgen::corpus
