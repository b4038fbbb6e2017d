// SQLite wrapper implementation.
#include "support/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace clgen {

namespace {
std::string sql_excerpt(const std::string& sql) {
  return sql.size() <= 80 ? sql : sql.substr(0, 77) + "...";
}
}  // namespace

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt, std::string sql)
    : db_(db), stmt_(stmt), sql_(std::move(sql)) {}

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_), stmt_(std::exchange(o.stmt_, nullptr)), sql_(std::move(o.sql_)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = std::exchange(o.stmt_, nullptr);
    sql_ = std::move(o.sql_);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Status Statement::error(const char* what) const {
  return database_error(std::string(what) + " '" + sql_excerpt(sql_) +
                        "': " + sqlite3_errmsg(db_));
}

Status Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) return error("binding");
  return ok_status();
}
Status Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) return error("binding");
  return ok_status();
}
Status Statement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    return error("binding");
  return ok_status();
}
Status Statement::bind_blob(int index, const void* data, size_t size) {
  if (sqlite3_bind_blob(stmt_, index, data, static_cast<int>(size), SQLITE_TRANSIENT) !=
      SQLITE_OK)
    return error("binding");
  return ok_status();
}
Status Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) return error("binding");
  return ok_status();
}

Expected<bool> Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return error("executing");
}

Status Statement::run() {
  for (;;) {
    ASSIGN_OR_RETURN(bool row, step());
    if (!row) return ok_status();
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::column_int(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::column_double(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::column_text(int col) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string(p, sqlite3_column_bytes(stmt_, col)) : std::string();
}
std::vector<uint8_t> Statement::column_blob(int col) const {
  auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
  return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(stmt_, col))
           : std::vector<uint8_t>();
}
bool Statement::column_is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

Expected<Database> Database::open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return database_error("opening database " + path + ": " + msg);
  }
  Database d(db, path);
  sqlite3_busy_timeout(db, 30000);
  // WAL lets readers run beside one writer, and a killed writer loses only
  // its uncommitted transaction.
  Status st = d.exec(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
  if (!st.ok()) return st.with_context("opening database " + path);
  return d;
}

Database::Database(Database&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

Database::~Database() { sqlite3_close_v2(db_); }

Status Database::exec(std::string_view sql) {
  char* err = nullptr;
  std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return database_error("executing '" + sql_excerpt(s) + "': " + msg);
  }
  return ok_status();
}

Expected<bool> Database::has_table(const std::string& name) {
  ASSIGN_OR_RETURN(Statement st, prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1"));
  RETURN_IF_ERROR(st.bind(1, name));
  return st.step();
}

Expected<bool> Database::has_column(const std::string& table, const std::string& column, const std::string& schema) {
  ASSIGN_OR_RETURN(Statement st, prepare("SELECT 1 FROM pragma_table_info(?1, ?3) WHERE name = ?2"));
  RETURN_IF_ERROR(st.bind(1, table));
  RETURN_IF_ERROR(st.bind(2, column));
  RETURN_IF_ERROR(st.bind(3, schema));
  return st.step();
}

Status Database::add_column_if_missing(const std::string& table, const std::string& column,
                                       const std::string& definition) {
  ASSIGN_OR_RETURN(bool present, has_column(table, column));
  if (present) return ok_status();
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(*this));
  ASSIGN_OR_RETURN(present, has_column(table, column));
  if (!present) {
    Status st = exec("ALTER TABLE " + table + " ADD COLUMN " + column + " " + definition);
    if (!st.ok()) return st.with_context("adding column " + table + "." + column);
  }
  return tx.commit();
}

Expected<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return database_error("preparing '" + sql_excerpt(std::string(sql)) +
                          "': " + sqlite3_errmsg(db_));
  }
  return Statement(db_, stmt, std::string(sql));
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }

Expected<Transaction> Transaction::begin(Database& db) {
  RETURN_IF_ERROR(db.exec("BEGIN IMMEDIATE"));
  return Transaction(&db);
}

Transaction::Transaction(Transaction&& o) noexcept : db_(o.db_), done_(o.done_) {
  o.done_ = true;
}

Transaction::~Transaction() {
  if (!done_) (void)db_->exec("ROLLBACK");
}

Status Transaction::commit() {
  if (done_) return internal_error("transaction already finished");
  RETURN_IF_ERROR(db_->exec("COMMIT"));
  done_ = true;
  return ok_status();
}

Expected<Attachment> Attachment::attach(Database& db, const std::string& path, const std::string& schema) {
  ASSIGN_OR_RETURN(Statement st, db.prepare("ATTACH DATABASE ?1 AS " + schema));
  RETURN_IF_ERROR(st.bind(1, std::string_view(path)));
  RETURN_IF_ERROR(st.run());
  return Attachment(&db, schema);
}

Attachment::~Attachment() {
  if (db_) (void)db_->exec("DETACH DATABASE " + schema_);
}

std::string sqlite_version() { return sqlite3_libversion(); }

}  // namespace clgen
