// The Grewe features of corpus kernels for conditioned training, cached in
// the workspace's `kernel_features` table by the kernel's sha256. The
// features themselves come from an extractor the caller supplies.
#include <future>
#include <mutex>

#include <fmt/format.h>

#include "model/feature_prefix.h"
#include "support/thread_pool.h"

namespace clgen::model {

namespace {

// Rows of another version are computed again: raise it when the counting
// in features/static_features.cpp changes.
constexpr int64_t kFeatureVersion = 1;

// What set_kernel_feature_extractor installed.
struct Installed {
  std::mutex mutex;
  KernelFeatureExtractor extract;
};
Installed& installed() {
  static Installed one;
  return one;
}

}  // namespace

void set_kernel_feature_extractor(KernelFeatureExtractor extract) {
  std::lock_guard<std::mutex> lock(installed().mutex);
  installed().extract = std::move(extract);
}

Expected<std::vector<std::optional<FeatureVector>>> cached_kernel_features(Database& db,
                                                                           const std::vector<std::string>& sha256,
                                                                           const std::vector<std::string>& texts) {
  KernelFeatureExtractor extract;
  {
    std::lock_guard<std::mutex> lock(installed().mutex);
    extract = installed().extract;
  }
  return cached_kernel_features(db, sha256, texts, extract);
}

Status ensure_feature_cache_schema(Database& db) {
  return db.exec(R"sql(
CREATE TABLE IF NOT EXISTS kernel_features(
  sha256 TEXT PRIMARY KEY,     -- of the normalized kernel text
  version INTEGER NOT NULL,    -- of the feature code (feature_cache.cpp)
  comp INTEGER, rational INTEGER, mem INTEGER,  -- all NULL: extraction failed
  localmem INTEGER, coalesced INTEGER, atomic INTEGER);
)sql");
}

Expected<std::vector<std::optional<FeatureVector>>> cached_kernel_features(Database& db,
                                                                           const std::vector<std::string>& sha256,
                                                                           const std::vector<std::string>& texts,
                                                                           const KernelFeatureExtractor& extract) {
  if (sha256.size() != texts.size())
    return invalid_argument(fmt::format("kernel features: {} hashes for {} texts", sha256.size(), texts.size()));
  RETURN_IF_ERROR(ensure_feature_cache_schema(db));
  std::vector<std::optional<FeatureVector>> out(texts.size());
  std::vector<size_t> missing;
  {
    ASSIGN_OR_RETURN(auto q, db.prepare("SELECT comp, rational, mem, localmem, coalesced, atomic FROM kernel_features "
                                        "WHERE sha256 = ?1 AND version = ?2"));
    for (size_t i = 0; i < texts.size(); ++i) {
      q.reset();
      RETURN_IF_ERROR(q.bind(1, sha256[i]));
      RETURN_IF_ERROR(q.bind(2, kFeatureVersion));
      ASSIGN_OR_RETURN(bool row, q.step());
      if (!row) {
        missing.push_back(i);
        continue;
      }
      if (q.column_is_null(0)) continue;  // failed before
      FeatureVector f{};
      for (int c = 0; c < 6; ++c) f[size_t(c)] = long(q.column_int(c));
      out[i] = f;
    }
  }
  if (missing.empty()) return out;
  if (!extract)
    return unavailable("training.feature_prefix needs the Grewe features, and clgen was built without Clang");
  {
    ThreadPool pool;
    std::vector<std::future<std::optional<FeatureVector>>> parts;
    for (size_t i : missing) parts.push_back(pool.submit([&extract, &texts, i] { return extract(texts[i]); }));
    for (size_t k = 0; k < missing.size(); ++k) out[missing[k]] = parts[k].get();
  }
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  ASSIGN_OR_RETURN(auto ins, db.prepare("INSERT OR REPLACE INTO kernel_features(sha256, version, comp, rational, mem, "
                                        "localmem, coalesced, atomic) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
  for (size_t i : missing) {
    ins.reset();
    RETURN_IF_ERROR(ins.bind(1, sha256[i]));
    RETURN_IF_ERROR(ins.bind(2, kFeatureVersion));
    for (int c = 0; c < 6; ++c) {
      if (out[i]) RETURN_IF_ERROR(ins.bind(3 + c, int64_t((*out[i])[size_t(c)])));
      else RETURN_IF_ERROR(ins.bind_null(3 + c));
    }
    RETURN_IF_ERROR(ins.run());
  }
  RETURN_IF_ERROR(tx.commit());
  return out;
}

}  // namespace clgen::model
