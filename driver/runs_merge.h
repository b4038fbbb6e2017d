// Merging the driver's results of another workspace into this one: runs are
// keyed by kernel, device and sizes (runs.h), so a run this workspace has is
// kept and the source's copy skipped; kernel sources likewise by sha256.
#pragma once

#include <cstdint>
#include <string>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::driver {

struct RunMergeCounts {
  uint64_t source_runs = 0;     // runs in the source
  uint64_t added_runs = 0;      // runs copied (the others had their key here)
  uint64_t added_sources = 0;   // kernel_sources rows copied
};

// Copies `runs` and `kernel_sources` of the database attached to `db` as
// `schema` (a plain identifier) into `db`'s tables, which must exist
// (ensure_driver_schema), inside the caller's transaction. A source without
// a runs table adds nothing. Merging the same source twice adds nothing the
// second time. Fails with the database's error.
Expected<RunMergeCounts> merge_runs(Database& db, const std::string& schema);

}  // namespace clgen::driver
