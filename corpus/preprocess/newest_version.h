// The corpus as last preprocessed: a workspace keeps the results of every
// preprocessor version it ran, and readers want the version of the newest
// row. Private to the preprocess module: other modules read through
// catalog.h (the last outside reader, sampler/store.cpp's constraint corpus,
// goes when the constraint's tables are built at `clgen train`).
#pragma once

namespace clgen::preprocess {

// A scalar subquery: `... AND preprocessor_version = ` kNewestVersionSql.
inline constexpr const char* kNewestVersionSql =
    "(SELECT preprocessor_version FROM preprocessed ORDER BY rowid DESC LIMIT 1)";

}  // namespace clgen::preprocess
