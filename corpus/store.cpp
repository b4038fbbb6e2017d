// SQLite content store for the corpus.
#include "corpus/store.h"

#include <ctime>

namespace clgen::corpus {

namespace {
std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Status bind_optional(Statement& s, int i, const std::string& v) {
  return v.empty() ? s.bind_null(i) : s.bind(i, std::string_view(v));
}
Status bind_optional(Statement& s, int i, const std::optional<int64_t>& v) {
  return v ? s.bind(i, *v) : s.bind_null(i);
}

}  // namespace

Status ensure_corpus_schema(Database& db) {
  RETURN_IF_ERROR(db.exec(R"sql(
CREATE TABLE IF NOT EXISTS repositories (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL UNIQUE,      -- clone URL, dir:/path, file:/path, package:NAME, snapshot:O/N, archive:/path
  kind TEXT NOT NULL,               -- github | git | directory | file | package | snapshot | archive
  clone_url TEXT, owner TEXT, name TEXT, default_branch TEXT,
  commit_sha TEXT,                  -- commit of the last complete import ('' if none applies)
  stars INTEGER, forks INTEGER, license TEXT,
  fetched_at TEXT,                  -- when the last complete import finished (UTC)
  domain TEXT                       -- application domain (snapshot manifests)
);
CREATE TABLE IF NOT EXISTS content_files (
  sha256 TEXT PRIMARY KEY,          -- of text
  text TEXT NOT NULL,               -- the file as found (includes are stored as their own contents)
  size INTEGER NOT NULL,            -- bytes of text
  language TEXT NOT NULL,
  first_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS content_origins (
  sha256 TEXT NOT NULL REFERENCES content_files(sha256),
  repository_id INTEGER NOT NULL REFERENCES repositories(id),
  commit_sha TEXT NOT NULL,         -- '' for sources without commits
  path TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'kernel',  -- kernel | include (only reached through #include)
  line_first INTEGER, line_last INTEGER,  -- a kernel in a host file's string literal: its lines; NULL: the whole file
  PRIMARY KEY (sha256, repository_id, commit_sha, path)
);
CREATE INDEX IF NOT EXISTS content_origins_repository ON content_origins(repository_id);
CREATE TABLE IF NOT EXISTS skipped (
  repository_id INTEGER NOT NULL REFERENCES repositories(id),
  commit_sha TEXT NOT NULL,
  path TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT,
  PRIMARY KEY (repository_id, commit_sha, path)
);
)sql"));
  // Databases made before snapshots and raw include storage.
  RETURN_IF_ERROR(db.add_column_if_missing("repositories", "domain", "TEXT"));
  RETURN_IF_ERROR(db.add_column_if_missing("content_origins", "role", "TEXT NOT NULL DEFAULT 'kernel'"));
  // Databases made before kernels were read out of host code.
  RETURN_IF_ERROR(db.add_column_if_missing("content_origins", "line_first", "INTEGER"));
  RETURN_IF_ERROR(db.add_column_if_missing("content_origins", "line_last", "INTEGER"));
  return db.exec("CREATE INDEX IF NOT EXISTS content_origins_role ON content_origins(role, sha256)");
}

Expected<int64_t> upsert_source(Database& db, const SourceInfo& s) {
  ASSIGN_OR_RETURN(Statement st, db.prepare(R"sql(
INSERT INTO repositories (source, kind, clone_url, owner, name, default_branch, stars, forks, license, domain)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
ON CONFLICT(source) DO UPDATE SET kind = ?2, clone_url = ?3, owner = ?4, name = ?5,
  default_branch = ?6, stars = ?7, forks = ?8, license = ?9, domain = ?10)sql"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(s.key)));
  RETURN_IF_ERROR(st.bind(2, std::string_view(s.kind)));
  RETURN_IF_ERROR(bind_optional(st, 3, s.clone_url));
  RETURN_IF_ERROR(bind_optional(st, 4, s.owner));
  RETURN_IF_ERROR(bind_optional(st, 5, s.name));
  RETURN_IF_ERROR(bind_optional(st, 6, s.default_branch));
  RETURN_IF_ERROR(bind_optional(st, 7, s.stars));
  RETURN_IF_ERROR(bind_optional(st, 8, s.forks));
  RETURN_IF_ERROR(bind_optional(st, 9, s.license));
  RETURN_IF_ERROR(bind_optional(st, 10, s.domain));
  RETURN_IF_ERROR(st.run());
  ASSIGN_OR_RETURN(Statement q, db.prepare("SELECT id FROM repositories WHERE source = ?1"));
  RETURN_IF_ERROR(q.bind(1, std::string_view(s.key)));
  ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return internal_error("source " + s.key + " vanished after insert");
  return q.column_int(0);
}

Status mark_source_imported(Database& db, int64_t source_id, const std::string& commit) {
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare("UPDATE repositories SET commit_sha = ?1, fetched_at = ?2 WHERE id = ?3"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(commit)));
  RETURN_IF_ERROR(st.bind(2, std::string_view(utc_now())));
  RETURN_IF_ERROR(st.bind(3, source_id));
  return st.run();
}

Expected<std::optional<std::string>> imported_commit(Database& db, const std::string& key) {
  ASSIGN_OR_RETURN(Statement q, db.prepare("SELECT commit_sha FROM repositories WHERE source = ?1"));
  RETURN_IF_ERROR(q.bind(1, std::string_view(key)));
  ASSIGN_OR_RETURN(bool row, q.step());
  if (!row || q.column_is_null(0)) return std::optional<std::string>();
  return std::optional<std::string>(q.column_text(0));
}

Expected<BatchResult> store_batch(Database& db, int64_t source_id, const std::string& commit,
                                  const std::vector<StoredFile>& files,
                                  const std::vector<SkippedFile>& skipped) {
  BatchResult result;
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  ASSIGN_OR_RETURN(Statement content, db.prepare(
      "INSERT OR IGNORE INTO content_files (sha256, text, size, language, first_seen) "
      "VALUES (?1, ?2, ?3, ?4, ?5)"));
  ASSIGN_OR_RETURN(
      Statement origin,
      db.prepare("INSERT INTO content_origins (sha256, repository_id, commit_sha, path, role, line_first, line_last) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                 "ON CONFLICT (sha256, repository_id, commit_sha, path) DO UPDATE SET role = excluded.role "
                 "WHERE excluded.role = 'kernel' AND role <> 'kernel'"));
  ASSIGN_OR_RETURN(Statement unskip, db.prepare(
      "DELETE FROM skipped WHERE repository_id = ?1 AND commit_sha = ?2 AND path = ?3"));
  ASSIGN_OR_RETURN(Statement skip, db.prepare(
      "INSERT OR REPLACE INTO skipped (repository_id, commit_sha, path, reason, detail) "
      "VALUES (?1, ?2, ?3, ?4, ?5)"));
  const std::string now = utc_now();
  for (const auto& f : files) {
    content.reset();
    RETURN_IF_ERROR(content.bind(1, std::string_view(f.sha256)));
    RETURN_IF_ERROR(content.bind(2, std::string_view(f.text)));
    RETURN_IF_ERROR(content.bind(3, static_cast<int64_t>(f.text.size())));
    RETURN_IF_ERROR(content.bind(4, std::string_view(f.language)));
    RETURN_IF_ERROR(content.bind(5, std::string_view(now)));
    RETURN_IF_ERROR(content.run());
    result.new_contents += db.changes();
    origin.reset();
    RETURN_IF_ERROR(origin.bind(1, std::string_view(f.sha256)));
    RETURN_IF_ERROR(origin.bind(2, source_id));
    RETURN_IF_ERROR(origin.bind(3, std::string_view(commit)));
    RETURN_IF_ERROR(origin.bind(4, std::string_view(f.path)));
    RETURN_IF_ERROR(origin.bind(5, std::string_view(f.role)));
    RETURN_IF_ERROR(f.line_first > 0 ? origin.bind(6, f.line_first) : origin.bind_null(6));
    RETURN_IF_ERROR(f.line_first > 0 ? origin.bind(7, f.line_last) : origin.bind_null(7));
    RETURN_IF_ERROR(origin.run());
    result.new_origins += db.changes();
    unskip.reset();
    RETURN_IF_ERROR(unskip.bind(1, source_id));
    RETURN_IF_ERROR(unskip.bind(2, std::string_view(commit)));
    RETURN_IF_ERROR(unskip.bind(3, std::string_view(f.path)));
    RETURN_IF_ERROR(unskip.run());
  }
  for (const auto& s : skipped) {
    skip.reset();
    RETURN_IF_ERROR(skip.bind(1, source_id));
    RETURN_IF_ERROR(skip.bind(2, std::string_view(commit)));
    RETURN_IF_ERROR(skip.bind(3, std::string_view(s.path)));
    RETURN_IF_ERROR(skip.bind(4, std::string_view(s.reason)));
    RETURN_IF_ERROR(bind_optional(skip, 5, s.detail));
    RETURN_IF_ERROR(skip.run());
  }
  RETURN_IF_ERROR(tx.commit());
  return result;
}

namespace {
// Repositories, distinct contents and bytes per value of `column` (a
// repositories column named by this file); NULL counts as "".
Expected<std::map<std::string, GroupStats>> group_stats(Database& db, const std::string& column) {
  std::map<std::string, GroupStats> out;
  ASSIGN_OR_RETURN(Statement repos, db.prepare("SELECT COALESCE(" + column + ", ''), COUNT(*) FROM repositories "
                                               "GROUP BY 1"));
  for (;;) {
    ASSIGN_OR_RETURN(bool more, repos.step());
    if (!more) break;
    out[repos.column_text(0)].repositories = repos.column_int(1);
  }
  ASSIGN_OR_RETURN(Statement files, db.prepare(
      "SELECT g, COUNT(*), COALESCE(SUM(c.size), 0) FROM (SELECT DISTINCT COALESCE(r." + column +
      ", '') AS g, o.sha256 FROM content_origins o JOIN repositories r ON r.id = o.repository_id) "
      "JOIN content_files c USING (sha256) GROUP BY g"));
  for (;;) {
    ASSIGN_OR_RETURN(bool more, files.step());
    if (!more) break;
    GroupStats& g = out[files.column_text(0)];
    g.files = files.column_int(1);
    g.bytes = files.column_int(2);
  }
  return out;
}
}  // namespace

Expected<CorpusStats> corpus_stats(Database& db) {
  CorpusStats stats;
  ASSIGN_OR_RETURN(
      Statement totals,
      db.prepare("SELECT (SELECT COUNT(*) FROM repositories), COUNT(*), COALESCE(SUM(size), 0), "
                 "(SELECT COUNT(*) FROM content_origins), "
                 "(SELECT COUNT(DISTINCT sha256) FROM content_origins WHERE role = 'kernel'), "
                 "(SELECT COUNT(DISTINCT sha256) FROM content_origins WHERE line_first IS NOT NULL), "
                 "(SELECT COUNT(*) FROM (SELECT DISTINCT repository_id, commit_sha, path FROM content_origins "
                 "WHERE line_first IS NOT NULL)) FROM content_files"));
  ASSIGN_OR_RETURN(bool row, totals.step());
  if (row) {
    stats.sources = totals.column_int(0);
    stats.files = totals.column_int(1);
    stats.bytes = totals.column_int(2);
    stats.origins = totals.column_int(3);
    stats.kernel_files = totals.column_int(4);
    stats.include_files = stats.files - stats.kernel_files;
    stats.host_kernels = totals.column_int(5);
    stats.host_files = totals.column_int(6);
  }
  ASSIGN_OR_RETURN(Statement by_source, db.prepare(R"sql(
SELECT r.kind, r.source, COALESCE(r.commit_sha, ''),
  (SELECT COUNT(*) FROM (SELECT DISTINCT o.sha256 FROM content_origins o WHERE o.repository_id = r.id)),
  (SELECT COALESCE(SUM(c.size), 0) FROM content_files c WHERE c.sha256 IN
     (SELECT o.sha256 FROM content_origins o WHERE o.repository_id = r.id)),
  (SELECT COUNT(*) FROM skipped s WHERE s.repository_id = r.id),
  r.fetched_at IS NOT NULL,
  COALESCE(r.owner, ''), COALESCE(r.name, ''), COALESCE(r.license, ''), COALESCE(r.domain, ''),
  (SELECT COUNT(DISTINCT o.sha256) FROM content_origins o WHERE o.repository_id = r.id AND o.line_first IS NOT NULL)
FROM repositories r ORDER BY r.kind, r.source)sql"));
  for (;;) {
    ASSIGN_OR_RETURN(bool more, by_source.step());
    if (!more) break;
    SourceStats s;
    s.kind = by_source.column_text(0);
    s.key = by_source.column_text(1);
    s.commit = by_source.column_text(2);
    s.files = by_source.column_int(3);
    s.bytes = by_source.column_int(4);
    s.skipped = by_source.column_int(5);
    s.complete = by_source.column_int(6) != 0;
    s.owner = by_source.column_text(7);
    s.name = by_source.column_text(8);
    s.license = by_source.column_text(9);
    s.domain = by_source.column_text(10);
    s.host_kernels = by_source.column_int(11);
    stats.by_source.push_back(std::move(s));
  }
  ASSIGN_OR_RETURN(stats.by_domain, group_stats(db, "domain"));
  ASSIGN_OR_RETURN(stats.by_license, group_stats(db, "license"));
  ASSIGN_OR_RETURN(Statement reasons,
                   db.prepare("SELECT reason, COUNT(*) FROM skipped GROUP BY reason ORDER BY reason"));
  for (;;) {
    ASSIGN_OR_RETURN(bool more, reasons.step());
    if (!more) break;
    stats.skipped_by_reason[reasons.column_text(0)] = reasons.column_int(1);
  }
  return stats;
}

Expected<std::set<std::string>> host_kernel_contents(Database& db) {
  std::set<std::string> out;
  RETURN_IF_ERROR(ensure_corpus_schema(db));
  ASSIGN_OR_RETURN(Statement q, db.prepare("SELECT DISTINCT sha256 FROM content_origins WHERE line_first IS NOT NULL"));
  for (;;) {
    ASSIGN_OR_RETURN(bool more, q.step());
    if (!more) break;
    out.insert(q.column_text(0));
  }
  return out;
}

}  // namespace clgen::corpus
