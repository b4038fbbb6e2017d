// The corpus as last preprocessed: a workspace keeps the results of every
// preprocessor version it ran, and readers (training, the driver's corpus,
// the sampler's constraint tables) want the version of the newest row.
// Header-only SQL, so modules that do not link the preprocessor can use it.
#pragma once

namespace clgen::preprocess {

// A scalar subquery: `... AND preprocessor_version = ` kNewestVersionSql.
inline constexpr const char* kNewestVersionSql =
    "(SELECT preprocessor_version FROM preprocessed ORDER BY rowid DESC LIMIT 1)";

}  // namespace clgen::preprocess
