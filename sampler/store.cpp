// The samples table: schema, batched inserts and dedupe hash sets.
#include "sampler/store.h"

#include "corpus/preprocess/catalog.h"

namespace clgen::sampler {

namespace {
Status create_samples_table(Database& db) {
  return db.exec(R"sql(
    CREATE TABLE IF NOT EXISTS samples (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      text TEXT NOT NULL,
      normalized_text TEXT,
      normalized_sha256 TEXT,
      status TEXT NOT NULL,
      category TEXT,
      reason TEXT,
      args TEXT NOT NULL,
      model_id TEXT NOT NULL,
      temperature REAL,
      top_k INTEGER,
      top_p REAL,
      seed INTEGER,
      sample_index INTEGER,
      tokens INTEGER,
      sample_seconds REAL,
      filter_seconds REAL,
      instruction_count INTEGER,
      shard TEXT,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS samples_normalized_sha256 ON samples(normalized_sha256);
    CREATE UNIQUE INDEX IF NOT EXISTS samples_accepted_unique
      ON samples(normalized_sha256) WHERE status = 'accepted';
    CREATE INDEX IF NOT EXISTS samples_model_status ON samples(model_id, status);
  )sql").with_context("creating the samples table");
}
}  // namespace

Status ensure_sampler_schema(Database& db) {
  RETURN_IF_ERROR(create_samples_table(db));
  // Workspaces from before sharded sampling lack `shard`: added under a
  // write lock, so two processes opening one such workspace add it once.
  // `target`, `target_features` and `steering` (directed sampling) are added
  // the same way, to new tables too: the CREATE above leaves them out.
  for (const char* column : {"shard", "target", "target_features", "steering"})
    RETURN_IF_ERROR(db.add_column_if_missing("samples", column, "TEXT"));
  // What identifies a stored sample across workspaces (sampler/merge.h),
  // and a draw of one run's key (store_samples, stored_sample_indices).
  const char* indexes =
      "CREATE INDEX IF NOT EXISTS samples_origin ON samples(created_at, sample_index);"
      "CREATE INDEX IF NOT EXISTS samples_draw ON samples(model_id, seed, sample_index);";
  return db.exec(indexes).with_context("indexing the samples table");
}

namespace {
Status bind_text_or_null(Statement& st, int i, const std::string& s) {
  return s.empty() ? st.bind_null(i) : st.bind(i, std::string_view(s));
}
}  // namespace

DrawKey draw_key_of(const SampleRow& row) {
  return DrawKey{row.model_id, row.args, row.shard, row.seed, row.temperature, row.top_k, row.top_p};
}

namespace {
// The WHERE clause of one DrawKey, its values bound from ?1 (bind_key).
const char* kKeyWhere =
    "model_id = ?1 AND args = ?2 AND seed = ?3 AND shard IS ?4 AND temperature = ?5 AND top_k = ?6 AND top_p = ?7";

Status bind_key(Statement& st, const DrawKey& k) {
  RETURN_IF_ERROR(st.bind(1, std::string_view(k.model_id)));
  RETURN_IF_ERROR(st.bind(2, std::string_view(k.args)));
  RETURN_IF_ERROR(st.bind(3, static_cast<int64_t>(k.seed)));
  RETURN_IF_ERROR(bind_text_or_null(st, 4, k.shard));
  RETURN_IF_ERROR(st.bind(5, k.temperature));
  RETURN_IF_ERROR(st.bind(6, static_cast<int64_t>(k.top_k)));
  return st.bind(7, k.top_p);
}

Status bind_row(Statement& st, const SampleRow& r) {
  RETURN_IF_ERROR(st.bind(1, std::string_view(r.text)));
  RETURN_IF_ERROR(bind_text_or_null(st, 2, r.normalized_text));
  RETURN_IF_ERROR(bind_text_or_null(st, 3, r.normalized_sha256));
  RETURN_IF_ERROR(st.bind(4, std::string_view(r.status)));
  RETURN_IF_ERROR(bind_text_or_null(st, 5, r.category));
  RETURN_IF_ERROR(bind_text_or_null(st, 6, r.reason));
  RETURN_IF_ERROR(st.bind(7, std::string_view(r.args)));
  RETURN_IF_ERROR(st.bind(8, std::string_view(r.model_id)));
  RETURN_IF_ERROR(st.bind(9, r.temperature));
  RETURN_IF_ERROR(st.bind(10, static_cast<int64_t>(r.top_k)));
  RETURN_IF_ERROR(st.bind(11, r.top_p));
  RETURN_IF_ERROR(st.bind(12, static_cast<int64_t>(r.seed)));
  RETURN_IF_ERROR(st.bind(13, static_cast<int64_t>(r.sample_index)));
  RETURN_IF_ERROR(st.bind(14, static_cast<int64_t>(r.tokens)));
  RETURN_IF_ERROR(st.bind(15, r.sample_seconds));
  RETURN_IF_ERROR(st.bind(16, r.filter_seconds));
  RETURN_IF_ERROR(st.bind(17, r.instruction_count));
  RETURN_IF_ERROR(bind_text_or_null(st, 18, r.shard));
  RETURN_IF_ERROR(bind_text_or_null(st, 19, r.target));
  RETURN_IF_ERROR(bind_text_or_null(st, 20, r.target_features));
  return bind_text_or_null(st, 21, r.steering);
}

// Whether `st` (bound) returns a row; reset afterwards for the next use.
Expected<bool> exists(Statement& st) {
  Expected<bool> row = st.step();
  st.reset();
  return row;
}
}  // namespace

Expected<uint64_t> count_accepted(Database& db, const DrawKey& key) {
  ASSIGN_OR_RETURN(auto st,
                   db.prepare(std::string("SELECT COUNT(*) FROM samples WHERE status = 'accepted' AND ") + kKeyWhere));
  RETURN_IF_ERROR(bind_key(st, key));
  ASSIGN_OR_RETURN(bool row, st.step());
  return row ? static_cast<uint64_t>(st.column_int(0)) : 0;
}

Expected<std::vector<std::pair<std::string, std::string>>> accepted_kernels(Database& db, const DrawKey& key) {
  ASSIGN_OR_RETURN(auto st, db.prepare(std::string("SELECT normalized_sha256, normalized_text FROM samples WHERE "
                                                   "status = 'accepted' AND ") +
                                       kKeyWhere));
  RETURN_IF_ERROR(bind_key(st, key));
  std::vector<std::pair<std::string, std::string>> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out.emplace_back(st.column_text(0), st.column_text(1));
  }
  return out;
}

Expected<std::optional<uint64_t>> latest_seed(Database& db, const std::string& model_id, const std::string& args,
                                              const std::string& shard) {
  RETURN_IF_ERROR(ensure_sampler_schema(db));
  ASSIGN_OR_RETURN(auto st, db.prepare("SELECT seed FROM samples WHERE model_id = ?1 AND args = ?2 AND shard IS ?3 "
                                       "ORDER BY id DESC LIMIT 1"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(model_id)));
  RETURN_IF_ERROR(st.bind(2, std::string_view(args)));
  RETURN_IF_ERROR(bind_text_or_null(st, 3, shard));
  ASSIGN_OR_RETURN(bool row, st.step());
  if (!row) return std::optional<uint64_t>();
  return std::optional<uint64_t>(static_cast<uint64_t>(st.column_int(0)));
}

Expected<std::unordered_set<uint64_t>> stored_sample_indices(Database& db, const DrawKey& key) {
  ASSIGN_OR_RETURN(auto st, db.prepare(std::string("SELECT sample_index FROM samples WHERE ") + kKeyWhere));
  RETURN_IF_ERROR(bind_key(st, key));
  std::unordered_set<uint64_t> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out.insert(static_cast<uint64_t>(st.column_int(0)));
  }
  return out;
}

Status insert_samples(Database& db, const std::vector<SampleRow>& rows) { return store_samples(db, rows, 0).status(); }

Expected<StoreResult> store_samples(Database& db, const std::vector<SampleRow>& rows, uint64_t target) {
  StoreResult out;
  if (rows.empty()) return out;
  const DrawKey key = draw_key_of(rows.front());
  // Everything below reads and writes under one write lock: another process
  // cannot store the same draw or accept the same kernel in between.
  ASSIGN_OR_RETURN(auto tx, Transaction::begin(db));
  ASSIGN_OR_RETURN(out.accepted_total, count_accepted(db, key));
  ASSIGN_OR_RETURN(auto drawn, db.prepare(std::string("SELECT 1 FROM samples WHERE ") + kKeyWhere +
                                          " AND sample_index = ?8 LIMIT 1"));
  ASSIGN_OR_RETURN(auto accepted,
                   db.prepare("SELECT 1 FROM samples WHERE normalized_sha256 = ?1 AND status = 'accepted' LIMIT 1"));
  ASSIGN_OR_RETURN(auto st, db.prepare(R"sql(
    INSERT INTO samples (text, normalized_text, normalized_sha256, status, category, reason,
      args, model_id, temperature, top_k, top_p, seed, sample_index, tokens,
      sample_seconds, filter_seconds, instruction_count, shard, target, target_features, steering)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21))sql"));
  for (const SampleRow& r : rows) {
    if (target && out.accepted_total >= target) {
      out.fates.push_back(RowFate::kOverTarget);
      continue;
    }
    RETURN_IF_ERROR(bind_key(drawn, draw_key_of(r)));
    RETURN_IF_ERROR(drawn.bind(8, static_cast<int64_t>(r.sample_index)));
    ASSIGN_OR_RETURN(bool stored, exists(drawn));
    if (stored) {
      out.fates.push_back(RowFate::kAlreadyStored);
      continue;
    }
    SampleRow row = r;
    RowFate fate = RowFate::kStored;
    if (row.status == sample_status::kAccepted) {
      RETURN_IF_ERROR(accepted.bind(1, std::string_view(row.normalized_sha256)));
      ASSIGN_OR_RETURN(bool taken, exists(accepted));
      if (taken) {
        row.status = sample_status::kDuplicate;
        row.reason = "the same normalized kernel was accepted by another run first";
        fate = RowFate::kStoredDuplicate;
      } else {
        ++out.accepted_total;
      }
    }
    RETURN_IF_ERROR(bind_row(st, row));
    RETURN_IF_ERROR(st.run());
    st.reset();
    out.fates.push_back(fate);
  }
  RETURN_IF_ERROR(tx.commit());
  return out;
}

namespace {
Expected<std::unordered_set<std::string>> hash_set(Database& db, const char* sql) {
  std::unordered_set<std::string> out;
  ASSIGN_OR_RETURN(auto st, db.prepare(sql));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    if (!st.column_is_null(0)) out.insert(st.column_text(0));
  }
  return out;
}
}  // namespace

Expected<std::unordered_set<std::string>> accepted_sample_hashes(Database& db) {
  return hash_set(db, "SELECT normalized_sha256 FROM samples WHERE status = 'accepted'");
}

Expected<std::vector<std::string>> newest_accepted_texts(Database& db, size_t limit) {
  std::vector<std::string> out;
  ASSIGN_OR_RETURN(auto st, db.prepare("SELECT normalized_text FROM samples WHERE status = 'accepted' AND "
                                       "normalized_text IS NOT NULL ORDER BY id DESC LIMIT ?1"));
  RETURN_IF_ERROR(st.bind(1, static_cast<int64_t>(limit)));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out.push_back(st.column_text(0));
  }
  return out;
}

Expected<std::unordered_set<std::string>> training_kernel_hashes(Database& db) {
  return preprocess::accepted_kernel_hashes(db);
}

Expected<std::vector<std::string>> training_texts(Database& db) {
  // The corpus's own reader; never an evaluation set's kernels.
  ASSIGN_OR_RETURN(std::vector<preprocess::CatalogKernel> kernels, preprocess::newest_accepted_kernels(db));
  std::vector<std::string> out;
  out.reserve(kernels.size());
  for (auto& k : kernels) out.push_back(std::move(k.text));
  return out;
}

}  // namespace clgen::sampler
