// The workspace directory: one place holding a run's SQLite database,
// vocabularies, checkpoints and sampled kernels, so users can find and share
// everything. Modules create their own tables in the database.
#pragma once

#include <string>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen {

class Workspace {
 public:
  static constexpr const char* kDefaultPath = "clgen-work";
  static constexpr const char* kDatabaseName = "clgen.db";

  // Uses `root` as the workspace, creating the directory if needed.
  static Expected<Workspace> open(const std::string& root);

  const std::string& root() const { return root_; }
  std::string database_path() const;
  // root/<name>, created if missing (e.g. "checkpoints", "samples").
  Expected<std::string> subdir(const std::string& name) const;
  // Opens the workspace database (WAL). Each caller gets its own connection.
  Expected<Database> open_database() const;

 private:
  explicit Workspace(std::string root) : root_(std::move(root)) {}
  std::string root_;
};

}  // namespace clgen
