// Writes the corpus out of the database: one <sha256>.cl file per content
// plus manifest.json and manifest.csv with every origin.
#pragma once

#include <cstdint>
#include <string>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::corpus {

struct ExportSummary {
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t origins = 0;
};

// Exports every content file into `dir` (created if needed). Files are
// written atomically; rerunning overwrites them with identical content.
Expected<ExportSummary> export_corpus(Database& db, const std::string& dir);

}  // namespace clgen::corpus
