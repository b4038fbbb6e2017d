// Where stored contents came from, for the modules above the corpus: the
// corpus owns `content_origins` and `repositories`, and this is how others
// read them.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::corpus {

// The provenance of one content, from its origins.
struct ContentProvenance {
  // The first origin's repository (lowest repository id, then path): owner/name
  // when the source has an owner, else the source key (directories, packages).
  std::string repository;
  // The same repository named for grouping kernels by program: owner/name when
  // both are known, else the source key.
  std::string program;
  // The least "source path" over all the content's origins.
  std::string location;
  // The first origin's repository's application domain (snapshot manifests); "" when unknown.
  std::string domain;
};

// The provenance of every content with an origin, keyed by content sha256;
// empty when the workspace has no corpus tables. Fails on a database error.
Expected<std::unordered_map<std::string, ContentProvenance>> content_provenance(Database& db);

// The provenance of one content; nullopt when it has no origin or the
// workspace has no corpus tables.
Expected<std::optional<ContentProvenance>> content_provenance_of(Database& db, const std::string& sha256);

}  // namespace clgen::corpus
