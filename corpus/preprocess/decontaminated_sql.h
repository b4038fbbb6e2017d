// The training-set readers' side of decontamination (decontaminate.h): SQL
// that leaves out the kernels recorded in the `decontaminated` table. Private
// to the preprocess module (catalog.cpp); other modules read through
// catalog.h (sampler/store.cpp's constraint corpus is the last outside reader).
#pragma once

#include <string>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

inline constexpr const char* kDecontaminatedTable = "decontaminated";

// " AND <column> NOT IN (SELECT normalized_sha256 FROM decontaminated)" for
// the WHERE clause of a query over `preprocessed`, or "" when the workspace
// has no such table (never decontaminated). `column` names the row's
// normalized_sha256 (qualify it in joins, e.g. "p.normalized_sha256").
inline Expected<std::string> exclude_decontaminated_sql(Database& db,
                                                        const std::string& column = "normalized_sha256") {
  ASSIGN_OR_RETURN(bool has_table, db.has_table(kDecontaminatedTable));
  if (!has_table) return std::string();
  return " AND " + column + " NOT IN (SELECT normalized_sha256 FROM " + kDecontaminatedTable + ")";
}

}  // namespace clgen::preprocess
