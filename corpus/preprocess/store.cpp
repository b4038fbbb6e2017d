// The corpus-wide preprocess run over SQLite: batches of content files are
// rewritten on a thread pool, each thread through a Clang worker under the
// budget, and committed one transaction per batch.
#include "corpus/preprocess/store.h"

#include <future>
#include <optional>
#include <unordered_set>
#include <vector>

#include "corpus/assemble.h"
#include "corpus/preprocess/kernel_templates.h"
#include "corpus/preprocess/raw_string.h"
#include "corpus/preprocess/repo_indexes.h"
#include "support/interrupt.h"
#include "support/progress.h"
#include "support/sha256.h"
#include "support/thread_pool.h"

namespace clgen::preprocess {

namespace {

constexpr const char* kCreateTable = R"sql(
CREATE TABLE IF NOT EXISTS preprocessed (
  content_sha256 TEXT NOT NULL,
  preprocessor_version TEXT NOT NULL,
  kernel TEXT NOT NULL DEFAULT '',  -- the kernel's name in the file; '' for a whole-file result
  status TEXT NOT NULL,        -- 'ok' | 'rejected' | 'rewrite_bug'
  category TEXT,               -- reason category, NULL when ok
  reason TEXT,
  normalized_text TEXT,
  normalized_sha256 TEXT,
  instruction_count INTEGER,
  inferred TEXT,               -- '#define' lines inferred for the file's missing names (names.h), NULL when none
  language TEXT NOT NULL DEFAULT 'CL1.2',  -- 'CL2.0' when the file compiles only as OpenCL C 2.0
  prelude TEXT,                -- paths of the repository's files put before it (repo_prelude.h), one a line; NULL when none
  PRIMARY KEY (content_sha256, preprocessor_version, kernel)
);
CREATE INDEX IF NOT EXISTS preprocessed_status ON preprocessed(preprocessor_version, status);
)sql";

// Tables made before results were per kernel (one row per file) move into the
// new shape with kernel = '', keeping every stored result.
Status migrate_file_rows(Database& db) {
  ASSIGN_OR_RETURN(bool has, db.has_table("preprocessed"));
  if (!has) return ok_status();
  ASSIGN_OR_RETURN(Statement cols, db.prepare("SELECT 1 FROM pragma_table_info('preprocessed') WHERE name = 'kernel'"));
  ASSIGN_OR_RETURN(bool has_kernel, cols.step());
  if (has_kernel) return ok_status();
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  RETURN_IF_ERROR(
      db.exec("ALTER TABLE preprocessed RENAME TO preprocessed_by_file; "
              "DROP INDEX IF EXISTS preprocessed_status;"));
  RETURN_IF_ERROR(db.exec(kCreateTable));
  RETURN_IF_ERROR(db.exec(
      "INSERT INTO preprocessed (content_sha256, preprocessor_version, kernel, status, category, reason, "
      "normalized_text, normalized_sha256, instruction_count) SELECT content_sha256, preprocessor_version, '', "
      "status, category, reason, normalized_text, normalized_sha256, instruction_count FROM preprocessed_by_file "
      "ORDER BY rowid; DROP TABLE preprocessed_by_file;"));
  return tx.commit();
}

// Tables made before missing-name inference and the OpenCL C 2.0 fallback
// gain their columns (results stored before: nothing inferred, OpenCL C 1.2).
Status add_column(Database& db, const std::string& name, const std::string& definition) {
  ASSIGN_OR_RETURN(Statement cols, db.prepare("SELECT 1 FROM pragma_table_info('preprocessed') WHERE name = ?"));
  RETURN_IF_ERROR(cols.bind(1, name));
  ASSIGN_OR_RETURN(bool has, cols.step());
  if (has) return ok_status();
  return db.exec("ALTER TABLE preprocessed ADD COLUMN " + name + " " + definition);
}

}  // namespace

Status ensure_preprocess_schema(Database& db) {
  RETURN_IF_ERROR_CTX(migrate_file_rows(db), "moving per-file preprocess results to per-kernel rows");
  RETURN_IF_ERROR(db.exec(kCreateTable));
  RETURN_IF_ERROR(add_column(db, "inferred", "TEXT"));
  RETURN_IF_ERROR(add_column(db, "language", "TEXT NOT NULL DEFAULT 'CL1.2'"));
  return add_column(db, "prelude", "TEXT");
}

namespace {

struct Item {
  std::string sha256;
  std::string text;
  Status assembled = ok_status();                   // why the text could not be put together, if it could not
  std::optional<RepositoryIndexes::Origin> origin;  // for the repository prelude
};

// A file's result and the repository files prepended to get it (none when
// the file is taken alone).
struct FileOutcome {
  FileRewriteResult result;
  std::vector<std::string> prelude;
};

// The file's result: rewrite_kernels in a worker, and when that rejects it
// for a missing name, the repository prelude's second chance.
Expected<FileOutcome> rewrite_file(const Item& item, const CorpusPreprocessOptions& options, ClangWorkers& workers) {
  FileOutcome out;
  if (!item.assembled.ok()) {
    out.result.category = category::kInputTooLarge;
    out.result.reason = item.assembled.message();
    return out;
  }
  ASSIGN_OR_RETURN(out.result, workers.rewrite_kernels(item.text, options.compile));
  if (!item.origin || out.result.status != RewriteStatus::kRejected) return out;
  auto rewrite = [&](std::string_view text) { return workers.rewrite_kernels(text, options.compile); };
  ASSIGN_OR_RETURN(std::optional<PreludeResult> with,
                   try_repository_prelude(item.text, item.origin->path, out.result, *item.origin->index, rewrite));
  if (with) {
    out.result = std::move(with->result);
    out.prelude = std::move(with->paths);
  }
  return out;
}

// The kernel files without a result for `version`, sorted by sha256.
Expected<std::vector<std::string>> pending_files(Database& db, const std::vector<std::string>& files,
                                                 const std::string& version) {
  std::unordered_set<std::string> done;
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT DISTINCT content_sha256 FROM preprocessed "
                                            "WHERE preprocessor_version = ?1"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(version)));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    done.insert(st.column_text(0));
  }
  std::vector<std::string> out;
  for (const std::string& sha : files)
    if (!done.count(sha)) out.push_back(sha);
  return out;
}

// One stored row: a kernel's result, or a whole file's rejection.
struct Row {
  std::string kernel;
  const RewriteResult* result = nullptr;
  RewriteStatus status = RewriteStatus::kRejected;
  std::string category, reason;
};

std::vector<Row> rows_of(const FileRewriteResult& r) {
  std::vector<Row> rows;
  if (r.status != RewriteStatus::kOk) {
    rows.push_back({"", nullptr, r.status, r.category, r.reason});
    return rows;
  }
  for (const RewriteResult& k : r.kernels) rows.push_back({k.kernel_name, &k, k.status, k.category, k.reason});
  return rows;
}

// Reads the next batch of pending files (from `next` on, at most
// `batch_size`): each one's text assembled with its includes or as stored,
// its raw-string wrapper stripped and kernel templates instantiated, and
// with the repository prelude on, where it lies in its repository.
Expected<std::vector<Item>> read_batch(Database& db, const corpus::KernelFiles& files,
                                       const std::vector<std::string>& pending, size_t& next, size_t batch_size,
                                       corpus::Assembler& assembler, RepositoryIndexes& indexes,
                                       const CorpusPreprocessOptions& options) {
  std::vector<Item> batch;
  for (; next < pending.size() && batch.size() < batch_size; ++next) {
    Item item;
    item.sha256 = pending[next];
    Expected<std::string> text =
        files.assemble ? assembler.assemble(item.sha256) : corpus::stored_text(db, item.sha256);
    if (text.ok()) item.text = with_kernel_templates_instantiated(strip_raw_string_wrapper(*text));
    else item.assembled = text.status();
    if (files.assemble && options.repository_prelude) {
      ASSIGN_OR_RETURN(item.origin, indexes.origin_of(item.sha256));
    }
    batch.push_back(std::move(item));
  }
  return batch;
}

// Every file of the batch rewritten on the pool, in batch order; the first
// failure when any fails.
Expected<std::vector<FileOutcome>> rewrite_batch(const std::vector<Item>& batch, ThreadPool& pool,
                                                 ClangWorkers& workers, const CorpusPreprocessOptions& options) {
  std::vector<std::future<Expected<FileOutcome>>> futures;
  futures.reserve(batch.size());
  for (const Item& item : batch) {
    const Item* it = &item;
    futures.push_back(pool.submit([it, &options, &workers] { return rewrite_file(*it, options, workers); }));
  }
  std::vector<FileOutcome> results;
  results.reserve(batch.size());
  Status failed = ok_status();
  for (auto& f : futures) {
    Expected<FileOutcome> r = f.get();
    if (r.ok()) results.push_back(std::move(*r));
    else if (failed.ok()) failed = r.status();
  }
  RETURN_IF_ERROR_CTX(failed, "preprocessing a batch of files");
  return results;
}

// One row of the preprocessed table for the file `sha256`, through the
// prepared INSERT.
Status insert_row(Statement& insert, const std::string& sha256, const std::string& version, const Row& row,
                  const FileRewriteResult& file, const std::string& prelude) {
  insert.reset();
  RETURN_IF_ERROR(insert.bind(1, sha256));
  RETURN_IF_ERROR(insert.bind(2, version));
  RETURN_IF_ERROR(insert.bind(3, row.kernel));
  RETURN_IF_ERROR(insert.bind(4, std::string(rewrite_status_name(row.status))));
  if (row.status == RewriteStatus::kOk) {
    RETURN_IF_ERROR(insert.bind_null(5));
    RETURN_IF_ERROR(insert.bind_null(6));
    RETURN_IF_ERROR(insert.bind(7, row.result->text));
    RETURN_IF_ERROR(insert.bind(8, sha256_hex(row.result->text)));
    RETURN_IF_ERROR(insert.bind(9, row.result->instruction_count));
  } else {
    RETURN_IF_ERROR(insert.bind(5, row.category));
    RETURN_IF_ERROR(insert.bind(6, row.reason));
    RETURN_IF_ERROR(insert.bind_null(7));
    RETURN_IF_ERROR(insert.bind_null(8));
    RETURN_IF_ERROR(insert.bind_null(9));
  }
  if (file.inferred.empty()) RETURN_IF_ERROR(insert.bind_null(10));
  else RETURN_IF_ERROR(insert.bind(10, file.inferred));
  RETURN_IF_ERROR(insert.bind(11, std::string(file.opencl20 ? "CL2.0" : "CL1.2")));
  if (prelude.empty()) RETURN_IF_ERROR(insert.bind_null(12));
  else RETURN_IF_ERROR(insert.bind(12, prelude));
  RETURN_IF_ERROR_CTX(insert.run(), "storing the result for " + sha256);
  return ok_status();
}

// Counts one kernel's row of a file that compiled.
void count_kernel(const Row& row, CorpusPreprocessStats& stats) {
  switch (row.status) {
    case RewriteStatus::kOk: ++stats.ok; break;
    case RewriteStatus::kRejected: ++stats.rejected; break;
    case RewriteStatus::kRewriteBug: ++stats.rewrite_bug; break;
  }
  if (row.status != RewriteStatus::kOk)
    ++stats.by_category[std::string(rewrite_status_name(row.status)) + "/" + row.category];
}

// Counts a file: kept when any of its kernels is ok, else discarded.
void count_file(const FileRewriteResult& file, bool any_ok, bool prelude, CorpusPreprocessStats& stats) {
  if (any_ok) {
    ++stats.files_ok;
    if (!file.inferred.empty()) ++stats.files_inferred;
    if (file.opencl20) ++stats.files_opencl20;
    if (prelude) ++stats.files_prelude;
    return;
  }
  ++stats.files_discarded;
  std::string key = file.status == RewriteStatus::kOk
                        ? "no kernel accepted"
                        : std::string(rewrite_status_name(file.status)) + "/" + file.category;
  ++stats.files_by_category[key];
}

// The batch's rows in one transaction, counted in `stats`.
Status store_batch(Database& db, Statement& insert, const std::vector<Item>& batch,
                   const std::vector<FileOutcome>& results, CorpusPreprocessStats& stats) {
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  for (size_t i = 0; i < batch.size(); ++i) {
    const FileRewriteResult& file = results[i].result;
    std::string prelude;
    for (const std::string& path : results[i].prelude) prelude += path + "\n";
    bool any_ok = false;
    for (const Row& row : rows_of(file)) {
      RETURN_IF_ERROR(insert_row(insert, batch[i].sha256, stats.version, row, file, prelude));
      if (file.status != RewriteStatus::kOk) continue;
      any_ok = any_ok || row.status == RewriteStatus::kOk;
      count_kernel(row, stats);
    }
    count_file(file, any_ok, !prelude.empty(), stats);
  }
  RETURN_IF_ERROR_CTX(tx.commit(), "committing a batch of preprocessed files");
  return ok_status();
}

}  // namespace

std::string corpus_preprocessor_version(const CorpusPreprocessOptions& options) {
  // repo: raw-string wrappers stripped; 1 with the repository prelude.
  // tpl: kernel templates instantiated (kernel_templates.h).
  // inc2: includes searched in parent folders; missing fragments marked (corpus/inliner.h).
  return preprocessor_version(options.compile) + (options.repository_prelude ? "-tpl-repo1" : "-tpl-repo0") + "-inc2";
}

Expected<CorpusPreprocessStats> preprocess_corpus(Database& db, const CorpusPreprocessOptions& options) {
  RETURN_IF_ERROR_CTX(ensure_preprocess_schema(db), "creating the preprocessed table");
  CorpusPreprocessStats stats;
  stats.version = corpus_preprocessor_version(options);
  ASSIGN_OR_RETURN(corpus::KernelFiles files, corpus::kernel_files(db));
  ASSIGN_OR_RETURN(std::vector<std::string> pending, pending_files(db, files.sha256s, stats.version));
  stats.pending = pending.size();

  ASSIGN_OR_RETURN(
      Statement insert,
      db.prepare("INSERT OR REPLACE INTO preprocessed (content_sha256, preprocessor_version, kernel, status, category, "
                 "reason, normalized_text, normalized_sha256, instruction_count, inferred, language, prelude) "
                 "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"));

  corpus::Assembler assembler(db);
  RepositoryIndexes indexes(db);
  ThreadPool pool(options.threads);
  // After the pool, so it is destroyed first: the workers are stopped while
  // the threads that started them still live (see ClangWorkers).
  ClangWorkers workers(options.budget, pool.size());
  Progress progress("preprocess", stats.pending, nullptr, options.progress ? -1 : 0);
  const size_t batch_size = options.batch_size > 0 ? options.batch_size : 256;
  for (size_t next = 0; next < pending.size() && !interrupted();) {
    ASSIGN_OR_RETURN(std::vector<Item> batch,
                     read_batch(db, files, pending, next, batch_size, assembler, indexes, options));
    ASSIGN_OR_RETURN(std::vector<FileOutcome> results, rewrite_batch(batch, pool, workers, options));
    RETURN_IF_ERROR(store_batch(db, insert, batch, results, stats));
    stats.processed += batch.size();
    progress.advance(batch.size());
    progress.set_extra("files ok " + std::to_string(stats.files_ok) + ", discarded " +
                       std::to_string(stats.files_discarded) + "; kernels ok " + std::to_string(stats.ok));
  }
  stats.interrupted = interrupted();
  progress.finish();
  return stats;
}

Expected<std::map<std::string, uint64_t>> preprocess_counts(Database& db, const std::string& version) {
  RETURN_IF_ERROR(ensure_preprocess_schema(db));
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT status, COALESCE(category, ''), COUNT(*) FROM preprocessed "
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
