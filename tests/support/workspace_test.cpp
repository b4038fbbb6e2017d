// Workspace directory creation and database location.
#include "support/workspace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace clgen {
namespace {

namespace fs = std::filesystem;

TEST(Workspace, CreatesDirectoryAndDatabase) {
  fs::path root = fs::temp_directory_path() / ("clgen_ws_" + std::to_string(::getpid())) / "w";
  auto ws = Workspace::open(root.string());
  ASSERT_TRUE(ws.ok()) << ws.status().message();
  EXPECT_TRUE(fs::is_directory(root));
  auto db = ws->open_database();
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE(fs::exists(root / "clgen.db"));
  auto sub = ws->subdir("samples");
  ASSERT_TRUE(sub.ok());
  EXPECT_TRUE(fs::is_directory(*sub));
  fs::remove_all(root.parent_path());
}

TEST(Workspace, FileInTheWayIsAnError) {
  fs::path f = fs::temp_directory_path() / ("clgen_ws_file_" + std::to_string(::getpid()));
  std::ofstream(f) << "x";
  auto ws = Workspace::open(f.string());
  fs::remove(f);
  ASSERT_FALSE(ws.ok());
  EXPECT_NE(ws.status().message().find(f.string()), std::string::npos);
}

}  // namespace
}  // namespace clgen
