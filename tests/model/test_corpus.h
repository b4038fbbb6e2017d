// Shared by the model tests: the hand-written normalized kernels of
// tests/data/model and a fresh temporary workspace directory per test.
#pragma once

#include <algorithm>
#include <filesystem>

#include "support/files.h"
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

namespace clgen::testing {

inline std::vector<std::string> model_test_kernels() {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(std::string(CLGEN_TEST_DATA) + "/model"))
    if (e.path().extension() == ".cl") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> texts;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    texts.push_back(s.str());
  }
  return texts;
}

// A directory under the system temp dir, removed when the test ends.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name)
      if (c == '/') c = '_';  // parameterized test names
    path_ = std::filesystem::temp_directory_path() /
            ("clgen-model-" + name + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    (void)clgen::remove_tree(path_.string());
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { (void)clgen::remove_tree(path_.string()); }
  std::string str() const { return path_.string(); }
  std::filesystem::path path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace clgen::testing
