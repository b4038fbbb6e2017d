// Reads content_origins x repositories into per-content provenance (provenance.h).
#include "corpus/provenance.h"

namespace clgen::corpus {

namespace {

// One row per origin, the first origin of each content first. Tables made
// before manifests carried domains lack `repositories.domain`: "" then.
Expected<std::string> origins_sql(Database& db) {
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT 1 FROM pragma_table_info('repositories') WHERE name = 'domain'"));
  ASSIGN_OR_RETURN(bool has_domain, st.step());
  // Kernels read out of host code name their lines too ("SOURCE host.cpp:12-40").
  ASSIGN_OR_RETURN(Statement lines,
                   db.prepare("SELECT 1 FROM pragma_table_info('content_origins') WHERE name = 'line_first'"));
  ASSIGN_OR_RETURN(bool has_lines, lines.step());
  return std::string(
             "SELECT o.sha256, "
             "CASE WHEN COALESCE(r.owner, '') != '' THEN r.owner || '/' || r.name ELSE r.source END, "
             "r.owner, r.name, r.source, r.source || ' ' || o.path") +
         (has_lines ? " || CASE WHEN o.line_first IS NULL THEN '' ELSE ':' || o.line_first || '-' || o.line_last END"
                    : "") +
         ", " + (has_domain ? "COALESCE(r.domain, '')" : "''") +
         " FROM content_origins o JOIN repositories r ON r.id = o.repository_id";
}

Expected<bool> has_corpus_tables(Database& db) {
  ASSIGN_OR_RETURN(bool origins, db.has_table("content_origins"));
  ASSIGN_OR_RETURN(bool repositories, db.has_table("repositories"));
  return origins && repositories;
}

// Folds the origin rows of `st` (ordered by content, then repository id and path).
Status read_origins(Statement& st, std::unordered_map<std::string, ContentProvenance>& out) {
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    auto [it, first] = out.try_emplace(st.column_text(0));
    ContentProvenance& p = it->second;
    if (first) {
      p.repository = st.column_text(1);  // NULL (an owner without a name) reads as ""
      const std::string owner = st.column_text(2), name = st.column_text(3);
      p.program = !owner.empty() && !name.empty() ? owner + "/" + name : st.column_text(4);
      p.domain = st.column_text(6);
    }
    if (st.column_is_null(5)) continue;
    std::string location = st.column_text(5);
    if (first || p.location.empty() || location < p.location) p.location = std::move(location);
  }
  return ok_status();
}

}  // namespace

Expected<std::unordered_map<std::string, ContentProvenance>> content_provenance(Database& db) {
  std::unordered_map<std::string, ContentProvenance> out;
  ASSIGN_OR_RETURN(bool has_tables, has_corpus_tables(db));
  if (!has_tables) return out;
  ASSIGN_OR_RETURN(std::string sql, origins_sql(db));
  ASSIGN_OR_RETURN(Statement st, db.prepare(sql + " ORDER BY o.sha256, r.id, o.path"));
  RETURN_IF_ERROR(read_origins(st, out));
  return out;
}

Expected<std::optional<ContentProvenance>> content_provenance_of(Database& db, const std::string& sha256) {
  ASSIGN_OR_RETURN(bool has_tables, has_corpus_tables(db));
  if (!has_tables) return std::optional<ContentProvenance>();
  ASSIGN_OR_RETURN(std::string sql, origins_sql(db));
  ASSIGN_OR_RETURN(Statement st, db.prepare(sql + " WHERE o.sha256 = ?1 ORDER BY r.id, o.path"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(sha256)));
  std::unordered_map<std::string, ContentProvenance> one;
  RETURN_IF_ERROR(read_origins(st, one));
  if (one.empty()) return std::optional<ContentProvenance>();
  return std::optional<ContentProvenance>(std::move(one.begin()->second));
}

}  // namespace clgen::corpus
