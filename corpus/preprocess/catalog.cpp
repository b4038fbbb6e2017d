// Reads of the preprocessed corpus for other modules (catalog.h).
#include "corpus/preprocess/catalog.h"

#include <algorithm>
#include <unordered_map>

#include "corpus/preprocess/decontaminated_sql.h"
#include "corpus/preprocess/newest_version.h"
#include "corpus/provenance.h"

namespace clgen::preprocess {

namespace {

// Whether `preprocessed` has the `language` column (workspaces from before
// the OpenCL C 2.0 fallback lack it, and hold only 1.2 kernels).
Expected<bool> has_language_column(Database& db) {
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT 1 FROM pragma_table_info('preprocessed') WHERE name = 'language'"));
  return st.step();
}

// The first column of the first row `sql` returns for `arg`, if any.
Expected<std::optional<std::string>> first_text(Database& db, const char* sql, const std::string& arg) {
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table) return std::optional<std::string>();
  ASSIGN_OR_RETURN(Statement st, db.prepare(sql));
  RETURN_IF_ERROR(st.bind(1, std::string_view(arg)));
  ASSIGN_OR_RETURN(bool row, st.step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(st.column_text(0));
}

// The contents all of whose origins are kernels read out of a host file's
// string literals: the importer gives such an origin the literal's line range
// (line_first), and the whole-file origins leave it NULL. Empty without the
// corpus tables, or in a store from before line ranges.
Expected<std::unordered_set<std::string>> host_code_contents(Database& db) {
  std::unordered_set<std::string> out;
  ASSIGN_OR_RETURN(bool has_origins, db.has_table("content_origins"));
  if (!has_origins) return out;
  ASSIGN_OR_RETURN(Statement lines,
                   db.prepare("SELECT 1 FROM pragma_table_info('content_origins') WHERE name = 'line_first'"));
  ASSIGN_OR_RETURN(bool has_lines, lines.step());
  if (!has_lines) return out;
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT sha256 FROM content_origins GROUP BY sha256 "
                                            "HAVING SUM(line_first IS NULL) = 0"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out.insert(st.column_text(0));
  }
  return out;
}

}  // namespace

Expected<bool> has_preprocessed_corpus(Database& db) { return db.has_table("preprocessed"); }

Expected<std::vector<CatalogKernel>> newest_accepted_kernels(Database& db, const KernelQuery& query) {
  std::vector<CatalogKernel> out;
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table) return out;
  std::string sql =
      "SELECT normalized_sha256, normalized_text, content_sha256 FROM preprocessed "
      "WHERE status = 'ok' AND normalized_text IS NOT NULL AND preprocessor_version = ";
  sql += kNewestVersionSql;
  if (query.skip_empty) sql += " AND normalized_text != ''";
  if (query.exclude_decontaminated) {
    ASSIGN_OR_RETURN(std::string not_decontaminated, exclude_decontaminated_sql(db));
    sql += not_decontaminated;
  }
  if (query.opencl12_only) {
    ASSIGN_OR_RETURN(bool has_language, has_language_column(db));
    if (has_language) sql += " AND language = 'CL1.2'";
  }
  sql += " ORDER BY rowid";
  std::unordered_map<std::string, corpus::ContentProvenance> provenance;
  std::unordered_set<std::string> host_contents;
  if (query.with_repository) {
    ASSIGN_OR_RETURN(provenance, corpus::content_provenance(db));
    ASSIGN_OR_RETURN(host_contents, host_code_contents(db));
  }
  ASSIGN_OR_RETURN(Statement st, db.prepare(sql));
  std::unordered_map<std::string, size_t> index;  // normalized_sha256 -> position in `out`
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    std::string hash = st.column_text(0);
    std::string repository, domain;
    const bool host = host_contents.count(st.column_text(2)) > 0;
    if (query.with_repository) {
      auto p = provenance.find(st.column_text(2));
      if (p != provenance.end()) {
        repository = p->second.repository;
        domain = p->second.domain;
      }
    }
    auto [it, first] = index.try_emplace(hash, out.size());
    if (first) {
      out.push_back({std::move(hash), st.column_text(1), std::move(repository), std::move(domain), host});
    } else {
      // From host code only when every file it was extracted from is.
      out[it->second].host_code = out[it->second].host_code && host;
    }
    if (!first && repository < out[it->second].repository) {
      out[it->second].repository = std::move(repository);
      out[it->second].domain = std::move(domain);
    }
  }
  if (query.order == KernelQuery::Order::kByHash)
    std::sort(out.begin(), out.end(),
              [](const CatalogKernel& a, const CatalogKernel& b) { return a.normalized_sha256 < b.normalized_sha256; });
  return out;
}

Expected<std::unordered_set<std::string>> accepted_kernel_hashes(Database& db) {
  std::unordered_set<std::string> out;
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table) return out;
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT DISTINCT normalized_sha256 FROM preprocessed WHERE status = 'ok'"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    if (!st.column_is_null(0)) out.insert(st.column_text(0));
  }
  return out;
}

Expected<std::optional<std::string>> accepted_kernel_text(Database& db, const std::string& normalized_sha256) {
  return first_text(db,
                    "SELECT normalized_text FROM preprocessed WHERE normalized_sha256 = ?1 AND "
                    "status = 'ok' AND normalized_text IS NOT NULL LIMIT 1",
                    normalized_sha256);
}

Expected<std::optional<std::string>> accepted_kernel_content(Database& db, const std::string& normalized_sha256) {
  return first_text(db,
                    "SELECT content_sha256 FROM preprocessed WHERE normalized_sha256 = ?1 AND status = 'ok' "
                    "ORDER BY content_sha256 LIMIT 1",
                    normalized_sha256);
}

Expected<std::map<std::string, std::string>> accepted_kernel_locations(Database& db) {
  std::map<std::string, std::string> out;
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table) return out;
  ASSIGN_OR_RETURN(auto provenance, corpus::content_provenance(db));
  if (provenance.empty()) return out;
  ASSIGN_OR_RETURN(
      Statement st,
      db.prepare("SELECT DISTINCT normalized_sha256, content_sha256 FROM preprocessed WHERE status = 'ok'"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    auto p = provenance.find(st.column_text(1));
    if (p == provenance.end() || p->second.location.empty()) continue;
    auto [it, first] = out.try_emplace(st.column_text(0), p->second.location);
    if (!first && p->second.location < it->second) it->second = p->second.location;
  }
  return out;
}

Expected<std::map<std::string, int64_t>> newest_result_counts(Database& db) {
  std::map<std::string, int64_t> out;
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table) return out;
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare(std::string("SELECT status, COALESCE(category, ''), COUNT(*) FROM preprocessed "
                                          "WHERE preprocessor_version = ") +
                              kNewestVersionSql + " GROUP BY status, category ORDER BY status, category"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    std::string key = st.column_text(0);
    if (!st.column_text(1).empty()) key += "/" + st.column_text(1);
    out[key] = st.column_int(2);
  }
  return out;
}

}  // namespace clgen::preprocess

namespace clgen::preprocess {

Expected<std::unordered_map<std::string, std::vector<std::string>>> newest_accepted_contents(Database& db) {
  std::unordered_map<std::string, std::vector<std::string>> out;
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table) return out;
  ASSIGN_OR_RETURN(std::string not_decontaminated, exclude_decontaminated_sql(db));
  ASSIGN_OR_RETURN(Statement st, db.prepare(std::string("SELECT DISTINCT normalized_sha256, content_sha256 FROM "
                                                        "preprocessed WHERE status = 'ok' AND normalized_text IS NOT "
                                                        "NULL AND preprocessor_version = ") +
                                            kNewestVersionSql + not_decontaminated));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out[st.column_text(0)].push_back(st.column_text(1));
  }
  return out;
}

}  // namespace clgen::preprocess
