// Workspace directory handling.
#include "support/workspace.h"

#include <filesystem>
#include <system_error>

namespace clgen {

namespace fs = std::filesystem;

namespace {
Status make_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("creating directory " + dir.string() + ": " + ec.message());
  if (!fs::is_directory(dir, ec))
    return io_error("workspace path " + dir.string() + " exists and is not a directory");
  return ok_status();
}
}  // namespace

Expected<Workspace> Workspace::open(const std::string& root) {
  if (root.empty()) return invalid_argument("workspace path is empty");
  RETURN_IF_ERROR(make_dir(root));
  return Workspace(root);
}

std::string Workspace::database_path() const { return (fs::path(root_) / kDatabaseName).string(); }

Expected<std::string> Workspace::subdir(const std::string& name) const {
  fs::path dir = fs::path(root_) / name;
  RETURN_IF_ERROR(make_dir(dir));
  return dir.string();
}

Expected<Database> Workspace::open_database() const { return Database::open(database_path()); }

}  // namespace clgen
