// read_file limits and errors; write_file_atomic replaces content whole.
#include "support/files.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace clgen {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clgen_files_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FilesTest, AtomicWriteThenReadRoundTrips) {
  std::string p = (dir_ / "a.txt").string();
  ASSERT_TRUE(write_file_atomic(p, "one").ok());
  ASSERT_TRUE(write_file_atomic(p, "two").ok());
  EXPECT_EQ(*read_file(p), "two");
  for (auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename(), "a.txt") << "temporary file left behind";
}

TEST_F(FilesTest, ReadRejectsFilesOverTheLimit) {
  std::string p = (dir_ / "big.txt").string();
  ASSERT_TRUE(write_file_atomic(p, std::string(100, 'x')).ok());
  auto r = read_file(p, 99);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("exceeds the limit of 99"), std::string::npos);
  EXPECT_TRUE(read_file(p, 100).ok());
}

TEST_F(FilesTest, MissingFileIsNotFoundAndDirectoryIsRejected) {
  auto r = read_file((dir_ / "nope").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  auto d = read_file(dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("is a directory"), std::string::npos);
}

TEST_F(FilesTest, AtomicWriteIntoMissingDirectoryFails) {
  Status s = write_file_atomic((dir_ / "no" / "x").string(), "data");
  EXPECT_FALSE(s.ok());
}

TEST_F(FilesTest, RemoveTreeRemovesNestedFilesButNeverFollowsSymlinks) {
  fs::path outside = dir_ / "outside";
  fs::create_directories(outside);
  ASSERT_TRUE(write_file_atomic((outside / "keep.txt").string(), "kept").ok());
  fs::path tree = dir_ / "tree";
  fs::create_directories(tree / "a" / "b");
  ASSERT_TRUE(write_file_atomic((tree / "a" / "b" / "f.txt").string(), "x").ok());
  fs::create_directory_symlink(outside, tree / "link");
  ASSERT_TRUE(remove_tree(tree.string()).ok());
  EXPECT_FALSE(fs::exists(tree));
  EXPECT_EQ(*read_file((outside / "keep.txt").string()), "kept");
  EXPECT_TRUE(remove_tree(tree.string()).ok());  // already gone: fine
}

TEST_F(FilesTest, RenameAndRemoveFileNameThePathOnFailure) {
  std::string a = (dir_ / "a.txt").string(), b = (dir_ / "b.txt").string();
  ASSERT_TRUE(write_file_atomic(a, "one").ok());
  ASSERT_TRUE(rename_path(a, b).ok());
  EXPECT_EQ(*read_file(b), "one");
  Status missing = rename_path(a, b);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find(a), std::string::npos);
  EXPECT_TRUE(remove_file(b).ok());
  EXPECT_TRUE(remove_file(b).ok());  // already gone: fine
  EXPECT_FALSE(fs::exists(b));
}

}  // namespace
}  // namespace clgen
