// RAII wrapper over SQLite: a Database in WAL mode, prepared Statements, and
// Transactions that roll back unless committed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace clgen {

class Database;

// A prepared statement. Bind parameters are 1-based, columns 0-based, as in
// SQLite. Errors name the SQL text.
class Statement {
 public:
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  ~Statement();

  Status bind(int index, int64_t value);
  Status bind(int index, double value);
  Status bind(int index, std::string_view text);
  Status bind_blob(int index, const void* data, size_t size);
  Status bind_null(int index);

  // Advances: true when a row is available, false when done.
  Expected<bool> step();
  // Runs a statement that returns no rows to completion.
  Status run();
  // Resets for re-execution and clears the bindings.
  void reset();

  int64_t column_int(int col) const;
  double column_double(int col) const;
  std::string column_text(int col) const;
  std::vector<uint8_t> column_blob(int col) const;
  bool column_is_null(int col) const;

 private:
  friend class Database;
  Statement(sqlite3* db, sqlite3_stmt* stmt, std::string sql);
  Status error(const char* what) const;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

class Database {
 public:
  // Opens (creating if needed) the database at `path` with WAL journaling,
  // foreign keys on and a busy timeout so concurrent processes wait rather
  // than fail. ":memory:" opens a private in-memory database.
  static Expected<Database> open(const std::string& path);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  // Runs one or more statements without results (schema, pragmas).
  Status exec(std::string_view sql);
  Expected<Statement> prepare(std::string_view sql);
  // Whether a table of that name exists.
  Expected<bool> has_table(const std::string& name);
  // Whether `table` of `schema` ("main", or an attached database's name)
  // has `column`.
  Expected<bool> has_column(const std::string& table, const std::string& column, const std::string& schema = "main");
  // Adds a column older databases lack (ALTER TABLE ... ADD COLUMN
  // `definition`), checking again inside a write transaction, so two
  // processes opening one old database add it once.
  Status add_column_if_missing(const std::string& table, const std::string& column, const std::string& definition);
  int64_t last_insert_rowid() const;
  // Rows changed by the last INSERT/UPDATE/DELETE.
  int changes() const;
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless commit()
// succeeded, so an early error return loses no previously stored data and
// stores nothing half-done.
class Transaction {
 public:
  static Expected<Transaction> begin(Database& db);
  Transaction(Transaction&&) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
  bool done_ = false;
};

// ATTACH DATABASE `path` AS `schema` on construction, DETACH in the
// destructor, so another workspace's tables are readable as schema.table
// for the life of the object. `schema` must be an identifier (it is not bound).
class Attachment {
 public:
  static Expected<Attachment> attach(Database& db, const std::string& path, const std::string& schema);
  Attachment(Attachment&& other) noexcept : db_(std::exchange(other.db_, nullptr)), schema_(std::move(other.schema_)) {}
  Attachment& operator=(Attachment&&) = delete;
  ~Attachment();

 private:
  Attachment(Database* db, std::string schema) : db_(db), schema_(std::move(schema)) {}
  Database* db_;
  std::string schema_;
};

// Version of the linked SQLite library, e.g. "3.40.1".
std::string sqlite_version();

}  // namespace clgen
