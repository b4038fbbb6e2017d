// Golden-file helpers for the preprocess tests: inputs X.cl beside expected
// X.expected.cl. CLGEN_UPDATE_GOLDEN=1 rewrites an expected file that differs
// and still fails that test, so that a run which rewrote goldens never passes;
// review the diff, then run again without it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/files.h"

namespace clgen::testing {

inline std::string golden_dir(const std::string& sub) {
  return std::string(CLGEN_TEST_DATA) + "/preprocess/" + sub;
}

// Input files (not *.expected.cl) of a golden directory, sorted.
inline std::vector<std::string> golden_inputs(const std::string& sub) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(golden_dir(sub))) {
    std::string p = e.path().string();
    if (p.size() > 3 && p.compare(p.size() - 3, 3, ".cl") == 0 &&
        p.find(".expected.cl") == std::string::npos) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string expected_path(const std::string& input) {
  return input.substr(0, input.size() - 3) + ".expected.cl";
}

inline bool update_golden() {
  const char* v = std::getenv("CLGEN_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

inline std::string read_or_empty(const std::string& path) {
  auto r = clgen::read_file(path);
  return r ? *r : std::string();
}

// Expects `actual` to equal the expected file of `input`. With
// CLGEN_UPDATE_GOLDEN=1 a differing (or missing) expected file is rewritten
// with `actual`, and the test fails all the same, naming the file.
inline void expect_golden(const std::string& input, const std::string& actual) {
  std::string path = expected_path(input);
  std::string expected = read_or_empty(path);
  if (expected == actual) return;
  if (!update_golden()) {
    EXPECT_EQ(expected, actual) << path << " (CLGEN_UPDATE_GOLDEN=1 rewrites it)";
    return;
  }
  Status written = write_file_atomic(path, actual);
  ASSERT_TRUE(written.ok()) << written.message();
  ADD_FAILURE() << "rewrote " << path
                << " with this run's output: review the diff, then run again without CLGEN_UPDATE_GOLDEN";
}

}  // namespace clgen::testing
