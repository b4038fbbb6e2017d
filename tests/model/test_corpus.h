// Shared by the model tests: the hand-written normalized kernels of
// tests/data/model, and TempDir (tests/common/temp_dir.h) for a fresh workspace directory per test.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"

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

}  // namespace clgen::testing
