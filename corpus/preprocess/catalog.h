// The preprocessed corpus as other modules read it: the preprocess module
// owns `preprocessed` and `decontaminated`, and these functions are the only
// way in for training, sampling, driving and datasets. SQLite only (no
// Clang), so modules that do not link the preprocessor can use it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

// Whether the workspace has been preprocessed (the table exists).
Expected<bool> has_preprocessed_corpus(Database& db);

// Which of the newest accepted kernels a reader wants, and how.
struct KernelQuery {
  bool exclude_decontaminated = true;  // leave out kernels of an evaluation set (decontaminate.h)
  bool opencl12_only = false;          // leave out kernels that compile only as OpenCL C 2.0
  bool skip_empty = false;             // leave out kernels whose normalized text is ""
  bool with_repository = false;        // fill CatalogKernel::repository and domain from the corpus tables
  enum class Order {
    kByHash,       // by normalized_sha256
    kFirstStored,  // by the first row stored for the kernel
  } order = Order::kByHash;
};

struct CatalogKernel {
  std::string normalized_sha256;
  std::string text;        // the normalized text
  std::string repository;  // with_repository: the least repository of its contents ("" when unknown)
  std::string domain;      // with_repository: that repository's domain ("" when unknown)
  // with_repository: every content the kernel was extracted from was read out
  // of a host file's string literal (all its origins have role 'host').
  bool host_code = false;
};

// The newest accepted normalized kernels: one per normalized_sha256 among the
// rows with status 'ok' and a normalized text of the newest preprocessor
// version. Empty when the table is missing (has_preprocessed_corpus says
// which). Fails on a database error.
Expected<std::vector<CatalogKernel>> newest_accepted_kernels(Database& db, const KernelQuery& query = {});

// The normalized_sha256 of every accepted kernel of any preprocessor version,
// decontaminated or not (what a sample must not copy); empty without the table.
Expected<std::unordered_set<std::string>> accepted_kernel_hashes(Database& db);

// The normalized text of accepted kernel `normalized_sha256` (any version), if stored.
Expected<std::optional<std::string>> accepted_kernel_text(Database& db, const std::string& normalized_sha256);

// The least content_sha256 (the corpus file) of accepted kernel
// `normalized_sha256` (any version), if stored.
Expected<std::optional<std::string>> accepted_kernel_content(Database& db, const std::string& normalized_sha256);

// For each accepted kernel (any version), the least corpus location
// ("SOURCE PATH") of the files it was extracted from; kernels without a known
// origin are absent. Empty when the preprocess or corpus tables are missing.
Expected<std::map<std::string, std::string>> accepted_kernel_locations(Database& db);

// Stored results of the newest preprocessor version, counted by "status" or
// "status/category"; empty without the table.
Expected<std::map<std::string, int64_t>> newest_result_counts(Database& db);

}  // namespace clgen::preprocess

namespace clgen::preprocess {

// For each newest accepted kernel (as newest_accepted_kernels reads them,
// decontaminated ones left out), the corpus contents (content_sha256) it was
// extracted from; empty without the table.
Expected<std::unordered_map<std::string, std::vector<std::string>>> newest_accepted_contents(Database& db);

}  // namespace clgen::preprocess
