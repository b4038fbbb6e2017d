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

}  // namespace
}  // namespace clgen
