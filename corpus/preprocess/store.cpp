// The corpus-wide preprocess run over SQLite: batches of content files are
// rewritten on a thread pool and committed one transaction per batch.
#include "corpus/preprocess/store.h"

#include <future>
#include <vector>

#include "support/interrupt.h"
#include "support/progress.h"
#include "support/sha256.h"
#include "support/thread_pool.h"

namespace clgen::preprocess {

Status ensure_preprocess_schema(Database& db) {
  return db.exec(R"sql(
CREATE TABLE IF NOT EXISTS preprocessed (
  content_sha256 TEXT NOT NULL,
  preprocessor_version TEXT NOT NULL,
  status TEXT NOT NULL,        -- 'ok' | 'rejected' | 'rewrite_bug'
  category TEXT,               -- reason category, NULL when ok
  reason TEXT,
  normalized_text TEXT,
  normalized_sha256 TEXT,
  instruction_count INTEGER,
  PRIMARY KEY (content_sha256, preprocessor_version)
);
CREATE INDEX IF NOT EXISTS preprocessed_status ON preprocessed(preprocessor_version, status);
)sql");
}

namespace {

struct Item {
  std::string sha256;
  std::string text;
};

constexpr const char* kPendingWhere =
    "NOT EXISTS (SELECT 1 FROM preprocessed p WHERE p.content_sha256 = c.sha256 "
    "AND p.preprocessor_version = ?1)";

Expected<uint64_t> count_pending(Database& db, const std::string& version) {
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare(std::string("SELECT COUNT(*) FROM content_files c WHERE ") + kPendingWhere));
  RETURN_IF_ERROR(st.bind(1, version));
  ASSIGN_OR_RETURN(bool row, st.step());
  return row ? static_cast<uint64_t>(st.column_int(0)) : 0;
}

}  // namespace

Expected<CorpusPreprocessStats> preprocess_corpus(Database& db,
                                                  const CorpusPreprocessOptions& options) {
  RETURN_IF_ERROR_CTX(ensure_preprocess_schema(db), "creating the preprocessed table");
  CorpusPreprocessStats stats;
  stats.version = preprocessor_version(options.compile);
  ASSIGN_OR_RETURN(stats.pending, count_pending(db, stats.version));

  ASSIGN_OR_RETURN(Statement select,
                   db.prepare(std::string("SELECT c.sha256, c.text FROM content_files c WHERE c.sha256 > ?2 AND ") +
                              kPendingWhere + " ORDER BY c.sha256 LIMIT ?3"));
  ASSIGN_OR_RETURN(Statement insert, db.prepare(
      "INSERT OR REPLACE INTO preprocessed (content_sha256, preprocessor_version, status, category, "
      "reason, normalized_text, normalized_sha256, instruction_count) VALUES (?,?,?,?,?,?,?,?)"));

  ThreadPool pool(options.threads);
  Progress progress("preprocess", stats.pending, nullptr, options.progress ? -1 : 0);
  std::string last;
  const size_t batch_size = options.batch_size > 0 ? options.batch_size : 256;
  while (!interrupted()) {
    std::vector<Item> batch;
    select.reset();
    RETURN_IF_ERROR(select.bind(1, stats.version));
    RETURN_IF_ERROR(select.bind(2, last));
    RETURN_IF_ERROR(select.bind(3, static_cast<int64_t>(batch_size)));
    while (true) {
      ASSIGN_OR_RETURN(bool row, select.step());
      if (!row) break;
      batch.push_back({select.column_text(0), select.column_text(1)});
    }
    if (batch.empty()) break;
    last = batch.back().sha256;

    std::vector<std::future<RewriteResult>> futures;
    futures.reserve(batch.size());
    for (const Item& item : batch) {
      const std::string* text = &item.text;
      futures.push_back(pool.submit([text, &options] { return rewrite(*text, options.compile); }));
    }
    std::vector<RewriteResult> results;
    results.reserve(batch.size());
    for (auto& f : futures) results.push_back(f.get());

    ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
    for (size_t i = 0; i < batch.size(); ++i) {
      const RewriteResult& r = results[i];
      insert.reset();
      RETURN_IF_ERROR(insert.bind(1, batch[i].sha256));
      RETURN_IF_ERROR(insert.bind(2, stats.version));
      RETURN_IF_ERROR(insert.bind(3, std::string(rewrite_status_name(r.status))));
      if (r.status == RewriteStatus::kOk) {
        RETURN_IF_ERROR(insert.bind_null(4));
        RETURN_IF_ERROR(insert.bind_null(5));
        RETURN_IF_ERROR(insert.bind(6, r.text));
        RETURN_IF_ERROR(insert.bind(7, sha256_hex(r.text)));
        RETURN_IF_ERROR(insert.bind(8, r.instruction_count));
      } else {
        RETURN_IF_ERROR(insert.bind(4, r.category));
        RETURN_IF_ERROR(insert.bind(5, r.reason));
        RETURN_IF_ERROR(insert.bind_null(6));
        RETURN_IF_ERROR(insert.bind_null(7));
        RETURN_IF_ERROR(insert.bind_null(8));
      }
      RETURN_IF_ERROR_CTX(insert.run(), "storing the result for " + batch[i].sha256);
      switch (r.status) {
        case RewriteStatus::kOk: ++stats.ok; break;
        case RewriteStatus::kRejected: ++stats.rejected; break;
        case RewriteStatus::kRewriteBug: ++stats.rewrite_bug; break;
      }
      if (r.status != RewriteStatus::kOk) {
        ++stats.by_category[std::string(rewrite_status_name(r.status)) + "/" + r.category];
      }
    }
    RETURN_IF_ERROR_CTX(tx.commit(), "committing a batch of preprocessed files");
    stats.processed += batch.size();
    progress.advance(batch.size());
    progress.set_extra("ok " + std::to_string(stats.ok) + ", rejected " +
                       std::to_string(stats.rejected));
  }
  stats.interrupted = interrupted();
  progress.finish();
  return stats;
}

Expected<std::map<std::string, uint64_t>> preprocess_counts(Database& db, const std::string& version) {
  RETURN_IF_ERROR(ensure_preprocess_schema(db));
  ASSIGN_OR_RETURN(Statement st, db.prepare(
      "SELECT status, COALESCE(category, ''), COUNT(*) FROM preprocessed "
      "WHERE preprocessor_version = ? GROUP BY status, category"));
  RETURN_IF_ERROR(st.bind(1, version));
  std::map<std::string, uint64_t> counts;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    std::string status = st.column_text(0), cat = st.column_text(1);
    uint64_t n = static_cast<uint64_t>(st.column_int(2));
    counts[status] += n;
    if (!cat.empty()) counts[status + "/" + cat] += n;
  }
  return counts;
}

}  // namespace clgen::preprocess
